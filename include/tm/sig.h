/* tm — the process's signal dispositions (common/sig.c): those tm started
 * with, kept for its children, and the outputs' temporaries (tm/out.h)
 * removed on a fatal signal.  Nothing here prints. */
#ifndef TM_SIG_H
#define TM_SIG_H

/* Keeps the dispositions of SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT
 * that tm started with (call first); tm_restore_child_signals puts them
 * back (in a child before exec: the program gets what tm got);
 * tm_sig_was_ignored tells whether SIG was ignored (nohup). */
void tm_save_signals(void);
void tm_restore_child_signals(void);
int tm_sig_was_ignored(int sig);
/* SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporaries, then end the
 * process as the signal would have (a signal ignored when tm started stays
 * ignored). */
void tm_cleanup_on_signal(void);

#endif
