/* tm — the trace file's own fields against the commit stream (docs/spec.md
 * §6.2): what the replay cannot see.  The replay checks every message; it
 * does not see the buffer and port sizes (they decide where messages were
 * dropped, not how a message reads), the trailer's cycle and instruction
 * counts, or the recording's ending.  So the model runs over the commit
 * stream with the header's configuration, and its trace, cycles and
 * per-thread instruction counts must be the file's, bit for bit.
 * tm_verify makes these checks in the same read as its replay; this is
 * them alone (decoder/vsrc.c). */
#include <stdio.h>
#include "tm/decoder.h"
#include "vsrc.h"

int tm_verify_file(const char *tmc_path, const tmt_file *tf, char *err, size_t errlen)
{
    char own[1024];
    if (!err || !errlen) {
        err = own;
        errlen = sizeof own;
    }
    vsrc *s = NULL;
    int rc = vsrc_open(tmc_path, tf, 1, 0, &s, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (vsrc_threads(s) != tf->cfg.enc.threads) {
        snprintf(err, errlen, "the trace's header says %u threads, the commit stream %s declares %u",
                 tf->cfg.enc.threads, tmc_path, vsrc_threads(s));
        vsrc_close(s);
        return TM_ERR_MISMATCH;
    }
    const tmc_record *r;
    while ((rc = vsrc_next(s, &r)) == 1)
        ;
    rc = vsrc_finish(s, err, errlen); /* the stream's error, if any, first */
    vsrc_close(s);
    return rc;
}
