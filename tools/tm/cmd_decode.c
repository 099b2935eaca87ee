/* tm decode — list the messages of a trace, or replay and verify it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "tm/decoder.h"
#include "tm/msg.h"
#include "tm/tmt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm decode F.tmt [--tmc F.tmc]    list the trace's messages (a trace with load\n"
            "                                        values needs the commit stream for their sizes)\n"
            "       tm decode --verify F.tmc F.tmt   replay the trace and compare it with the commit stream\n"
            "  -q, --quiet   with --verify: print only the verdict line\n"
            "Exit status with --verify: 0 if every thread's execution matches, 1 on the first divergence.\n");
}

static void progress(uint64_t records, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm decode: %" PRIu64 "M records\n", records >> 20);
        *last = now;
    }
}

static int list_messages(const char *path, const tmt_file *tf, const char *tmc)
{
    tm_load_sizes *ls = NULL;
    if (tf->cfg.enc.data) {
        if (!tmc) {
            tm_err("decode", "%s: the trace has load values (data tracing %s), whose lengths are the loads' sizes: "
                             "give the commit stream with --tmc F.tmc",
                   path, tm_data_mode_name((tm_data_mode)tf->cfg.enc.data));
            return 2;
        }
        if (tm_load_sizes_open(tmc, tf->cfg.enc.threads, &ls) != TM_OK) {
            tm_err("decode", "%s", ls ? tm_load_sizes_error(ls) : "out of memory");
            tm_load_sizes_close(ls);
            return 1;
        }
    }
    int status = 0;
    tm_bitrd rd;
    tm_bitrd_init(&rd, tf->data, tf->bits);
    char line[512];
    uint64_t n = 0;
    printf("# %s: %s, %u threads, %s%s, %" PRIu64 " bits, %" PRIu64 " cycles\n", path,
           tm_encoding_name(tf->cfg.enc.enc), tf->cfg.enc.threads, tf->cfg.enc.timestamps ? "time-stamped, " : "",
           tf->cfg.shared ? "shared" : "private", tf->bits, tf->cycles);
    while (rd.pos < rd.nbits) {
        uint64_t pos = rd.pos;
        tm_msg m;
        int rc = ls ? tm_msg_decode_sized(&tf->cfg.enc, &rd, &m, tm_load_sizes_fn, ls)
                    : tm_msg_decode(&tf->cfg.enc, &rd, &m);
        if (rc != TM_OK) {
            fflush(stdout);
            if (ls && tm_load_sizes_error(ls)[0])
                tm_err("decode", "%s: trace bit %" PRIu64 ": %s", path, pos, tm_load_sizes_error(ls));
            else
                tm_err("decode", "%s: trace bit %" PRIu64 ": %s", path, pos,
                       rc == TM_ERR_TRUNCATED ? "the trace ends inside a message" : "invalid message");
            status = 1;
            break;
        }
        if (m.kind == TM_MSG_DATA)
            tm_load_sizes_split(ls);
        tm_msg_format(&m, tf->cfg.enc.timestamps, line, sizeof line);
        if (printf("%10" PRIu64 "  %s\n", pos, line) < 0) {
            status = 1;
            break;
        }
        n++;
    }
    if (!status)
        printf("# %" PRIu64 " messages\n", n);
    tm_load_sizes_close(ls);
    return status;
}

int cmd_decode(int argc, char **argv)
{
    int verify = 0, quiet = 0;
    const char *tmc = NULL;
    const char *files[2];
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--verify")) verify = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--tmc")) {
            if (i + 1 >= argc) {
                tm_err("decode", "--tmc needs the commit stream F.tmc");
                return 2;
            }
            tmc = argv[++i];
        }
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else if (a[0] == '-' && a[1] != '\0') {
            tm_err("decode", "unknown option '%s' (see tm decode --help)", a);
            return 2;
        } else if (nf < 2) files[nf++] = a;
        else {
            tm_err("decode", "too many arguments (see tm decode --help)");
            return 2;
        }
    }
    if ((verify && nf != 2) || (!verify && nf != 1)) {
        tm_err("decode", verify ? "--verify needs the commit stream and the trace: tm decode --verify F.tmc F.tmt"
                                : "expected one trace file: tm decode F.tmt");
        return 2;
    }
    const char *tmt_path = verify ? files[1] : files[0];
    tmt_file tf;
    char err[512];
    if (tmt_read(tmt_path, &tf, err, sizeof err) != TM_OK) {
        tm_err("decode", "%s", err);
        return 1;
    }
    int status;
    if (!verify) {
        status = list_messages(tmt_path, &tf, tmc);
    } else {
        tm_verify_result res;
        time_t last = time(NULL);
        int rc = tm_verify(files[0], &tf, &res, progress, &last);
        if (rc == TM_OK) {
            printf("OK: %" PRIu64 " instructions replayed (%" PRIu64 " reconstructed, %" PRIu64 " in %" PRIu64
                   " overflow gaps), %" PRIu64 " branches, %" PRIu64 " exceptions, %" PRIu64 " messages",
                   res.instructions, res.checked, res.gap_instructions, res.gaps, res.branches, res.exceptions,
                   res.messages);
            if (tf.cfg.enc.timestamps)
                printf(", %" PRIu64 " time stamps", res.cycles_checked);
            if (tf.cfg.enc.data)
                printf("; %" PRIu64 " load values replayed (%" PRIu64 " from DATA messages, %" PRIu64
                       " from the replay's copy), %" PRIu64 " loads in gaps",
                       res.loads_reported + res.loads_inferred, res.loads_reported, res.loads_inferred,
                       res.loads - res.loads_reported - res.loads_inferred);
            printf("\n");
            status = 0;
        } else if (rc == TM_ERR_MISMATCH) {
            printf("MISMATCH: %s\n", res.error);
            if (!quiet)
                fprintf(stderr, "tm decode: replay of %s diverges from %s\n", tmt_path, files[0]);
            status = 1;
        } else {
            tm_err("decode", "%s", res.error);
            status = 1;
        }
    }
    tmt_free(&tf);
    return status;
}
