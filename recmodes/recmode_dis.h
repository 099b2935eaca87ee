/* tm record --mode -d: the disassembly column of the thesis tools' ASCII
 * descriptors (seeds/000 Figs. 4.2, 4.8, 4.13, 4.22, 4.36), internal to
 * recmodes/recmodes.c.  The instructions' bytes come from the program's
 * modules as tm record's capture reports them (tm_cap_module: a file and
 * the address of its offset 0, or the vdso's bytes); Zydis formats them in
 * Intel syntax the way Pin's INS_Disassemble (XED) does: lower-case hex,
 * absolute branch targets ("jnbe 0x40059e"), operand sizes ("qword ptr"),
 * RIP-relative operands as such ("[rip+0x10]"). */
#ifndef TM_THESIS_RECMODE_DIS_H
#define TM_THESIS_RECMODE_DIS_H

#include <stdint.h>
#include "tm/capture.h"

typedef struct rm_dis rm_dis;

/* A disassembler with no module yet; NULL if out of memory. */
rm_dis *rm_dis_new(void);
/* Unmaps the files and frees D (NULL: nothing). */
void rm_dis_free(rm_dis *d);
/* Adds the executable segments of MOD (its file mapped until rm_dis_free,
 * or a copy of the vdso's bytes).  A module later at the same addresses
 * replaces an earlier one there.  A file that cannot be read, is not an
 * x86-64 ELF file or whose GNU build-id differs from MOD's is skipped (its
 * instructions stay unknown).  0, or -1 out of memory. */
int rm_dis_module(rm_dis *d, const tm_cap_module *mod);
/* The instruction at PC in Intel syntax ("(bad)" when its bytes do not
 * decode; valid until the next call), or NULL when no module gives its
 * bytes. */
const char *rm_dis_text(rm_dis *d, uint64_t pc);

#endif
