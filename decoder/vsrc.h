/* tm — the commit stream of a verifying replay, read once (internal to
 * decoder/; docs/spec.md §6, §6.2).
 *
 * A verifying replay (tm_verify, tm_frombin with verify) reads the commit
 * stream record by record; the file checks of spec §6.2 (the model run with
 * the trace header's configuration must give the trace's bits, cycles,
 * per-thread instruction counts and ending) need the same records.  A vsrc
 * reads the stream once: a thread reads the records in batches, a second
 * runs the model over them, comparing its bits with the file's as they come
 * (the compared bytes are dropped, so the model's trace is never held
 * whole), while the caller's thread replays the same batches (vsrc_next).
 * With THREADED 0 (or when a thread cannot be started) the same work is
 * done on the caller's thread, batch by batch.
 *
 * The order of the verdicts is the one of the replay followed by the file
 * checks: the replay's divergence or the stream's error first, then
 * vsrc_finish's checks.  Every path ends with vsrc_close, which joins the
 * threads. */
#ifndef TM_DECODER_VSRC_H
#define TM_DECODER_VSRC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tm/tmc.h"
#include "tm/tmcrec.h"
#include "tm/tmt.h"

typedef struct vsrc vsrc;

/* Opens TMC_PATH (its header is read here: an error is returned at once,
 * the message in ERR) and starts reading.  With CHECK_FILE the model runs
 * with TF's configuration for vsrc_finish (when the stream declares TF's
 * number of threads: else the caller reports that and closes).  *OUT is
 * NULL on failure. */
int vsrc_open(const char *tmc_path, const tmt_file *tf, int check_file, int threaded, vsrc **out, char *err,
              size_t errlen);
/* Threads declared by the stream's header. */
uint32_t vsrc_threads(const vsrc *s);
/* A record as it crosses between the threads: tm/tmcrec.h. */
typedef tmc_crec vsrc_rec;

/* The replay's view of its current batch, at the start of every vsrc: the
 * records not yet delivered, the next MEM value, the record delivered. */
typedef struct vsrc_view {
    const vsrc_rec *at, *end;
    const uint8_t *val; /* the MEM records' values, each its size long */
    tmc_record rec;
} vsrc_view;

/* vsrc_next past the end of its batch. */
int vsrc_next_batch(vsrc *s, const tmc_record **r);

/* As tmc_reader_next: 1 = *R points to the next record (valid until the
 * next call), 0 = clean end, < 0 = the stream's error (vsrc_error).
 * Inline: once per record on the replay's thread. */
static inline int vsrc_next(vsrc *s, const tmc_record **r)
{
    vsrc_view *w = (vsrc_view *)s;
    if (__builtin_expect(w->at < w->end, 1)) {
        const vsrc_rec *v = w->at++;
        tmc_crec_unpack(&w->rec, v);
        if (__builtin_expect(v->type == TMC_MEM, 0)) {
            memcpy(w->rec.value, w->val, w->rec.size);
            memset(w->rec.value + w->rec.size, 0, sizeof w->rec.value - w->rec.size);
            w->val += w->rec.size;
        }
        *r = &w->rec;
        return 1;
    }
    return vsrc_next_batch(s, r);
}
/* The stream's error, "FILE: offset N: what" ("" if none). */
const char *vsrc_error(const vsrc *s);
/* After a divergence RC (TM_ERR_MISMATCH) of the replay: the rest of the
 * stream is read (not modelled); if it is damaged, that is the error to
 * report: its status, with the message (and the note that the replay's
 * divergence is not the trace's) in ERR.  Else RC, ERR untouched. */
int vsrc_blame(vsrc *s, int rc, char *err, size_t errlen);
/* After the replay consumed every record and matched: the file checks
 * (spec §6.2, tm_verify_file).  TM_OK, TM_ERR_MISMATCH or an error, the
 * message in ERR. */
int vsrc_finish(vsrc *s, char *err, size_t errlen);
/* Stops the thread (joins it) and frees S (NULL: nothing). */
void vsrc_close(vsrc *s);

#endif
