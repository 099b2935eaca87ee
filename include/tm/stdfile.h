/* tm — the standards' trace files BASE.T<n>.EXT, one raw stream per core
 * (std/stdfile.c): Intel PT's .pt (pt/pt_file.c), ARM ETMv4's .etm
 * (std/etm4_file.c), RISC-V E-Trace's .ete (std/etrace_file.c) and tm std's
 * first variant (std/stdpass.c).  EXT is given without its dot.  Nothing
 * here prints: a failure is a tm_status with one line in the caller's
 * buffer. */
#ifndef TM_STDFILE_H
#define TM_STDFILE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One core's stream (tm_pt_buffer and tm_etm4_buffer are this). */
typedef struct tm_stdfile_buf {
    uint32_t tid;
    const uint8_t *p;    /* the raw stream */
    size_t n;
    const char *name;    /* for messages (the file) */
} tm_stdfile_buf;

/* One core's stream kept in memory (tm std's variants, tm etrace's). */
typedef struct tm_stdfile_mem {
    uint8_t *p;
    size_t n, cap;
    int used;            /* the core wrote at least once */
} tm_stdfile_mem;
/* N bytes at P appended to B: 0, or -1 out of memory. */
int tm_stdfile_mem_put(tm_stdfile_mem *b, const uint8_t *p, size_t n);

/* BASE.T<TID>.EXT into BUF: 0, or -1 if it does not fit. */
int tm_stdfile_name(char *buf, size_t n, const char *base, uint32_t tid, const char *ext);

/* The module map and vdso beside SRC (SRC without .tmc + .modules, .vdso)
 * into MODS and VDSO_BUF (N bytes each): *MODULES (NULL: the default, which
 * must be readable) and *VDSO (NULL: the default if readable) set.  TM_OK;
 * TM_ERR_ARG "SRC: name too long"; TM_ERR_IO "SRC: no module map M beside
 * it HINT" (HINT: the options that help, e.g. "(--modules FILE)"). */
int tm_stdfile_beside(const char *src, const char **modules, const char **vdso, char *mods, char *vdso_buf,
                      size_t n, const char *hint, char *err, size_t errlen);

/* The files BASE.T<n>.EXT of thread ids 0 .. THREADS-1 that exist, read
 * whole, in thread order. */
typedef struct tm_stdfile_files {
    tm_stdfile_buf *b;
    size_t n;
} tm_stdfile_files;
/* TM_OK, or an error naming the file; no file at all is an error
 * ("BASE.T0.EXT: no WHAT BASE.T<n>.EXT") unless ALLOW_EMPTY.
 * tm_stdfile_files_free F in either case. */
int tm_stdfile_files_load(tm_stdfile_files *f, const char *base, const char *ext, const char *what, uint32_t threads,
                          int allow_empty, char *err, size_t errlen);
void tm_stdfile_files_free(tm_stdfile_files *f);

/* No output BASE.T<n>.EXT of the THREADS cores may be the input IN or the
 * statistics file STATS (NULL: none): TM_OK, or TM_ERR_ARG (a usage error)
 * naming the core and the file. */
int tm_stdfile_outputs_check(const char *base, const char *ext, uint32_t threads, const char *in, const char *stats,
                             char *err, size_t errlen);

/* The per-core writer: each core's BASE.T<n>.EXT opened under a temporary
 * name (tm/out.h, refusing the files INPUTS, NULL-terminated or NULL) at
 * its first write, all renamed into place by tm_stdfile_writer_finish,
 * which also removes the BASE.T<n>.EXT of cores that did not write (an
 * earlier run's), so that a decoder sees only these. */
typedef struct tm_stdfile_writer tm_stdfile_writer;
/* For THREADS thread ids: TM_OK, or TM_ERR_NOMEM. */
int tm_stdfile_writer_new(const char *base, const char *ext, uint32_t threads, const char *const *inputs,
                          tm_stdfile_writer **w, char *err, size_t errlen);
/* The encoders' write callback (ARG: the writer): 0, or -1 after the
 * failure is kept (the first one only matters: the encoder stops). */
int tm_stdfile_write(void *arg, uint32_t tid, const uint8_t *p, size_t n);
/* The tm_status of the first failed write (TM_ERR_ARG: an output is a
 * directory or an input) with its message into ERR, or 0 (ERR untouched). */
int tm_stdfile_writer_failed(const tm_stdfile_writer *w, char *err, size_t errlen);
/* The outputs closed and renamed into place; the earlier ones removed:
 * TM_OK or TM_ERR_IO naming the file. */
int tm_stdfile_writer_finish(tm_stdfile_writer *w, char *err, size_t errlen);
/* Closes and removes what was not finished; frees (NULL: nothing). */
void tm_stdfile_writer_free(tm_stdfile_writer *w);

/* The streams B[0 .. THREADS-1] kept in memory through the writer: each
 * core's that was written to (B[t].used) in BASE.T<t>.EXT, the earlier
 * ones removed.  TM_OK, or the writer's error. */
int tm_stdfile_write_mem(const char *base, const char *ext, uint32_t threads, const tm_stdfile_mem *b,
                         const char *const *inputs, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
