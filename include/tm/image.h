/* tm — the program's memory image as a debugger rebuilds it: the ELF files
 * of a recording's module map (BASE.modules) at their load addresses, plus
 * the recorded vdso bytes; executable segments and symbol tables.  Internal
 * to libtm: the replay from the binaries (decoder/frombin.c) and the Intel
 * PT decoder (pt/pt_dec.c) read code and symbols through it. */
#ifndef TM_DECODER_IMAGE_H
#define TM_DECODER_IMAGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tm_image tm_image;

typedef struct tm_image_opts {
    const char *modules;   /* the module map (BASE.modules) */
    const char *vdso;      /* the vdso bytes (BASE.vdso), or NULL */
    int ignore_build_id;   /* load a file whose GNU build-id differs from the map's */
    int isa;               /* the trace's instruction set (tm/isa.h): every file's machine must be it */
} tm_image_opts;

/* Loads every module of the map.  On failure returns an error and ERR holds
 * one line ("FILE:LINE: what"). */
int tm_image_load(const tm_image_opts *o, tm_image **out, char *err, size_t n);
void tm_image_free(tm_image *im);

/* The bytes of executable code at ADDR: a pointer and the number of bytes
 * up to the end of that segment (*AVAIL), or NULL if ADDR is in no
 * executable segment of any module. */
const uint8_t *tm_image_code(tm_image *im, uint64_t addr, size_t *avail);

/* Symbol of ADDR: the function (ELF .symtab, else .dynsym) that contains it,
 * or NULL; *MODULE is the module's file name (basename) or NULL if ADDR is in
 * no module; *OFF the offset from the symbol (or from the module's load
 * address).  *LO, *HI (may be NULL): the address range with the same answer. */
const char *tm_image_symbol(tm_image *im, uint64_t addr, const char **module, uint64_t *off, uint64_t *lo,
                            uint64_t *hi);

/* Calls FN for each executable segment: the file it comes from (PATH), the
 * bytes at OFFSET (SIZE) in it, and the address VADDR they are at.  FN
 * returning nonzero stops the walk and is returned; else 0. */
int tm_image_segments(const tm_image *im, int (*fn)(void *arg, const char *path, uint64_t offset, uint64_t size,
                                                    uint64_t vaddr),
                      void *arg);

#endif
