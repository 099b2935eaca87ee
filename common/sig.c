/* tm — the signal dispositions tm started with, and the temporaries'
 * removal on a fatal signal (include/tm/sig.h). */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include "tm/out.h"
#include "tm/sig.h"

/* The dispositions tm started with (tm_save_signals). */
static const int saved_sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSAVED (sizeof saved_sigs / sizeof saved_sigs[0])
static struct sigaction saved[NSAVED];
static int have_saved;

void tm_save_signals(void)
{
    for (size_t k = 0; k < NSAVED; k++)
        sigaction(saved_sigs[k], NULL, &saved[k]);
    have_saved = 1;
}

int tm_sig_was_ignored(int sig)
{
    for (size_t k = 0; have_saved && k < NSAVED; k++)
        if (saved_sigs[k] == sig)
            return saved[k].sa_handler == SIG_IGN;
    return 0;
}

void tm_restore_child_signals(void)
{
    for (size_t k = 0; have_saved && k < NSAVED; k++)
        sigaction(saved_sigs[k], &saved[k], NULL);
}

static void on_fatal_signal(int sig)
{
    tm_out_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

void tm_cleanup_on_signal(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal ignored when tm started (nohup) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
}
