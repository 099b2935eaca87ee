/* tm — the operand sizes of the loads a trace reports, read ahead from the
 * commit stream (docs/spec.md §4.8, §6). */
#ifndef TM_LOADSIZES_H
#define TM_LOADSIZES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Operand sizes of each thread's loads, read ahead from a second pass over
 * the commit stream: a DATA message's length depends on the size of the load
 * it reports (spec §4.8), which is what an instruction-set simulator gives a
 * debugger.  Needs a file (not "-"). */
typedef struct tm_load_sizes tm_load_sizes;
/* On failure *OUT is NULL and ERR (if not NULL) receives the message. */
int tm_load_sizes_open(const char *tmc_path, uint32_t threads, tm_load_sizes **out, char *err, size_t errlen);
/* A tm_msg_size_fn (pass the tm_load_sizes as ARG to tm_msg_decode_sized). */
int tm_load_sizes_fn(void *arg, uint32_t ti, uint64_t fah);
/* After tm_msg_decode_sized returned a DATA message: that thread's later
 * DATA messages count from the load after it.  Returns the index (among the
 * thread's loads, from 0) of the load the message reports. */
uint64_t tm_load_sizes_split(tm_load_sizes *ls);
const char *tm_load_sizes_error(const tm_load_sizes *ls);
/* Reads the rest of the commit stream: a damaged or overlong one (data
 * after END) is an error (the message in tm_load_sizes_error). */
int tm_load_sizes_finish(tm_load_sizes *ls);
void tm_load_sizes_close(tm_load_sizes *ls);

#ifdef __cplusplus
}
#endif
#endif
