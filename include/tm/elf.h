/* tm — what the project reads of ELF files (64-bit little-endian x86-64,
 * AArch64, RISC-V): the GNU build-id, the
 * function symbols and where file offset 0 loads.  One reader for the
 * capture (module map, --filter-rtn) and the decoder (replay from the
 * binaries); it works on the file's bytes, mapped by tm_elf_map or given. */
#ifndef TM_ELF_H
#define TM_ELF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_elf {
    const uint8_t *p;  /* the file's bytes */
    size_t len;
    int mapped;        /* by tm_elf_map */
} tm_elf;

/* The bytes P (LEN) as an ELF file: TM_OK if they are a 64-bit little-endian
 * ELF file of x86-64, AArch64 or RISC-V (tm_elf_isa says which) whose
 * program headers lie in the file, else TM_ERR_FORMAT.
 * The bytes must stay valid while E is used. */
int tm_elf_from_bytes(tm_elf *e, const uint8_t *p, size_t len);
/* Maps the regular file PATH and checks it as tm_elf_from_bytes does.
 * TM_ERR_IO or TM_ERR_FORMAT with ERR (if not NULL) naming the file. */
int tm_elf_map(tm_elf *e, const char *path, char *err, size_t errlen);
void tm_elf_unmap(tm_elf *e);
/* The file's instruction set (TM_ISA_*, tm/isa.h) from its machine
 * (EM_X86_64, EM_AARCH64, EM_RISCV), -1 for another. */
int tm_elf_isa(const tm_elf *e);

/* The GNU build-id (up to 64 bytes) into ID; its length, 0 if none. */
size_t tm_elf_build_id(const tm_elf *e, uint8_t id[64]);
/* The address file offset 0 has in the file's own addresses (vaddr - offset
 * of the loadable segment with the lowest offset): 1, or 0 if the file has
 * no loadable segment. */
int tm_elf_vaddr0(const tm_elf *e, uint64_t *vaddr0);
/* Calls FN for each defined, named function (FUNC or IFUNC, value not 0) of
 * .symtab, or of .dynsym when there is no .symtab, with its name (in the
 * file's bytes), value and size.  FN returning nonzero stops the walk and is
 * returned; else 0. */
typedef int (*tm_elf_sym_fn)(void *arg, const char *name, uint64_t value, uint64_t size);
int tm_elf_functions(const tm_elf *e, tm_elf_sym_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif
