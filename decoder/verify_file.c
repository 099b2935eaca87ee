/* tm — the trace file's own fields against the commit stream (docs/spec.md
 * §6.2): what the replay cannot see.  The replay checks every message; it
 * does not see the buffer and port sizes (they decide where messages were
 * dropped, not how a message reads), the trailer's cycle and instruction
 * counts, or the recording's ending.  So the model runs over the commit
 * stream with the header's configuration, and its trace, cycles and
 * per-thread instruction counts must be the file's, bit for bit. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/decoder.h"
#include "tm/isa.h"
#include "tm/model.h"
#include "tm/tmc.h"

/* The first bit where A and B (NBITS each) differ, or NBITS. */
static uint64_t first_diff(const uint8_t *a, const uint8_t *b, uint64_t nbits)
{
    uint64_t nbytes = nbits / 8;
    for (uint64_t i = 0; i < nbytes; i++)
        if (a[i] != b[i])
            return i * 8 + (uint64_t)__builtin_ctz((unsigned)(a[i] ^ b[i]));
    for (uint64_t k = nbytes * 8; k < nbits; k++)
        if (((a[k / 8] ^ b[k / 8]) >> (k % 8)) & 1)
            return k;
    return nbits;
}

int tm_verify_file(const char *tmc_path, const tmt_file *tf, char *err, size_t errlen)
{
    tmc_reader *rd = NULL;
    tm_model *m = NULL;
    int rc = tmc_reader_open(tmc_path, &rd, err, errlen);
    if (rc != TM_OK) {
        goto out;
    }
    if (tmc_reader_threads(rd) != tf->cfg.enc.threads) {
        snprintf(err, errlen, "the trace's header says %u threads, the commit stream %s declares %u",
                 tf->cfg.enc.threads, tmc_path, tmc_reader_threads(rd));
        rc = TM_ERR_MISMATCH;
        goto out;
    }
    if (tmc_reader_isa(rd) != tf->isa) {
        snprintf(err, errlen, "the trace's header says the program is %s (offset 37), the commit stream %s says %s",
                 tm_isa_name(tf->isa), tmc_path, tm_isa_name(tmc_reader_isa(rd)));
        rc = TM_ERR_MISMATCH;
        goto out;
    }
    char me[400];
    if ((rc = tm_model_new(&tf->cfg, &m, me, sizeof me)) != TM_OK) {
        snprintf(err, errlen, "cannot create the model: %s", me);
        goto out;
    }
    tmc_record r;
    unsigned cut = 0, sig = 0;
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
        if (r.type == TMC_ENDING) {
            cut = r.flags;
            sig = (unsigned)r.count;
        }
        if ((rc = tm_model_put(m, &r)) != TM_OK) {
            snprintf(err, errlen, "%s: offset %" PRIu64 ": %s", tmc_path, tmc_reader_offset(rd), tm_model_error(m));
            goto out;
        }
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s", tmc_reader_error(rd));
        goto out;
    }
    tm_model_finish(m);
    rc = TM_ERR_MISMATCH;
    const tm_bitbuf *bb = tm_model_trace(m);
    const tm_model_stats *st = tm_model_get_stats(m);
    uint64_t n = bb->nbits < tf->bits ? bb->nbits : tf->bits;
    uint64_t at = first_diff(bb->data, tf->data, n);
    if (at < n || bb->nbits != tf->bits) {
        snprintf(err, errlen,
                 "the trace is not what its header's configuration makes of the commit stream: %s at trace bit "
                 "%" PRIu64 " (the model gives %" PRIu64 " bits, the file holds %" PRIu64 "); the header (buffer %u "
                 "bits, port %u bits/cycle, ...) or the trace is damaged",
                 at < n ? "they differ" : "one ends", at, bb->nbits, tf->bits, tf->cfg.buffer_bits,
                 tf->cfg.port_bits);
        goto out;
    }
    if (st->cycles != tf->cycles) {
        snprintf(err, errlen, "the trailer says %" PRIu64 " cycles, the model's run of the commit stream %" PRIu64,
                 tf->cycles, st->cycles);
        goto out;
    }
    for (uint32_t t = 0; tf->thread_insns && t < tf->cfg.enc.threads; t++)
        if (tf->thread_insns[t] != tm_model_thread_stats(m, t)->instructions) {
            snprintf(err, errlen,
                     "the trailer says thread %u retired %" PRIu64 " instructions, the commit stream %" PRIu64, t,
                     tf->thread_insns[t], tm_model_thread_stats(m, t)->instructions);
            goto out;
        }
    tmt_ending want = cut == TMC_CUT_SIGNAL ? TMT_CUT_SIGNAL : cut == TMC_CUT_SHORT ? TMT_CUT_SHORT : TMT_COMPLETE;
    if (tf->version >= 2 && (tf->ending != want || tf->signal != (want == TMT_CUT_SIGNAL ? sig : 0))) {
        char a[128], b[128];
        snprintf(err, errlen, "the trailer says the recording ended %s, the commit stream %s",
                 tf->ending == TMT_COMPLETE ? "complete" : tmt_ending_str(tf->ending, tf->signal, a, sizeof a),
                 want == TMT_COMPLETE ? "complete" : tmt_ending_str(want, sig, b, sizeof b));
        goto out;
    }
    tmt_prog wp = tmt_prog_from_tmc(cut);
    unsigned wcode = wp == TMT_PROG_UNKNOWN ? 0 : sig;
    if (tf->version >= 2 && (tf->prog != wp || tf->prog_code != wcode)) {
        char a[128], b[128];
        snprintf(err, errlen, "the trailer says the program %s, the commit stream %s%s",
                 tf->prog == TMT_PROG_UNKNOWN ? "ended in a way not recorded" : tmt_prog_str(tf->prog, tf->prog_code, a, sizeof a),
                 wp == TMT_PROG_UNKNOWN ? "does not say how it ended" : "that it ",
                 wp == TMT_PROG_UNKNOWN ? "" : tmt_prog_str(wp, wcode, b, sizeof b));
        goto out;
    }
    rc = TM_OK;
out:
    tm_model_free(m);
    tmc_reader_close(rd);
    return rc;
}
