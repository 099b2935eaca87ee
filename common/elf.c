/* tm — the ELF reader of include/tm/elf.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tm/elf.h"
#include "tm/isa.h"
#include "tm/status.h"

static int in_file(const tm_elf *e, uint64_t off, uint64_t len)
{
    return off <= e->len && len <= e->len - off;
}

static const Elf64_Ehdr *ehdr(const tm_elf *e)
{
    return (const Elf64_Ehdr *)e->p;
}

int tm_elf_isa(const tm_elf *e)
{
    unsigned m = ehdr(e)->e_machine;
    return m == EM_X86_64 ? TM_ISA_X86_64 : m == EM_AARCH64 ? TM_ISA_AARCH64 : m == EM_RISCV ? TM_ISA_RV64 : -1;
}

int tm_elf_from_bytes(tm_elf *e, const uint8_t *p, size_t len)
{
    memset(e, 0, sizeof *e);
    e->p = p;
    e->len = len;
    if (len < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG))
        return TM_ERR_FORMAT;
    const Elf64_Ehdr *eh = ehdr(e);
    if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB || tm_elf_isa(e) < 0)
        return TM_ERR_FORMAT;
    if (eh->e_phentsize != sizeof(Elf64_Phdr) || !in_file(e, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)))
        return TM_ERR_FORMAT;
    return TM_OK;
}

int tm_elf_map(tm_elf *e, const char *path, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return TM_ERR_IO;
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        if (err && errlen)
            snprintf(err, errlen, "%s: not an ELF file (%s)", path, S_ISREG(st.st_mode) ? "empty" : "not a regular file");
        return TM_ERR_FORMAT;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        if (err && errlen)
            snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        return TM_ERR_IO;
    }
    int rc = tm_elf_from_bytes(e, p, (size_t)st.st_size);
    e->mapped = 1;
    if (rc != TM_OK) {
        tm_elf_unmap(e);
        if (err && errlen)
            snprintf(err, errlen, "%s is not a 64-bit little-endian ELF file of x86-64, AArch64 or RISC-V", path);
    }
    return rc;
}

void tm_elf_unmap(tm_elf *e)
{
    if (e->mapped)
        munmap((void *)e->p, e->len);
    memset(e, 0, sizeof *e);
}

size_t tm_elf_build_id(const tm_elf *e, uint8_t id[64])
{
    const Elf64_Ehdr *eh = ehdr(e);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_NOTE || !in_file(e, ph[i].p_offset, ph[i].p_filesz))
            continue;
        uint64_t off = ph[i].p_offset, end = ph[i].p_offset + ph[i].p_filesz;
        while (off + 12 <= end) {
            uint32_t nh[3];
            memcpy(nh, e->p + off, sizeof nh);
            uint64_t namesz = nh[0], descsz = nh[1], type = nh[2];
            uint64_t name = off + 12, desc = name + ((namesz + 3) & ~UINT64_C(3));
            uint64_t next = desc + ((descsz + 3) & ~UINT64_C(3));
            if (next > end || next <= off)
                break;
            if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(e->p + name, "GNU", 4) && descsz <= 64) {
                memcpy(id, e->p + desc, descsz);
                return (size_t)descsz;
            }
            off = next;
        }
    }
    return 0;
}

int tm_elf_vaddr0(const tm_elf *e, uint64_t *vaddr0)
{
    const Elf64_Ehdr *eh = ehdr(e);
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + eh->e_phoff);
    int have = 0;
    uint64_t minoff = 0;
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (!have || ph[i].p_offset < minoff)) {
            have = 1;
            minoff = ph[i].p_offset;
            *vaddr0 = ph[i].p_vaddr - ph[i].p_offset;
        }
    return have;
}

int tm_elf_functions(const tm_elf *e, tm_elf_sym_fn fn, void *arg)
{
    const Elf64_Ehdr *eh = ehdr(e);
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || !in_file(e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->p + eh->e_shoff);
    /* .symtab if present (it includes the dynamic symbols), else .dynsym */
    unsigned want = SHT_DYNSYM;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB)
            want = SHT_SYMTAB;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != want || sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (!in_file(e, sh[i].sh_offset, sh[i].sh_size) || !in_file(e, str->sh_offset, str->sh_size) ||
            str->sh_size == 0 || e->p[str->sh_offset + str->sh_size - 1] != '\0')
            continue;
        size_t cnt = sh[i].sh_size / sizeof(Elf64_Sym);
        const Elf64_Sym *s = (const Elf64_Sym *)(e->p + sh[i].sh_offset);
        for (size_t j = 0; j < cnt; j++) {
            int type = ELF64_ST_TYPE(s[j].st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[j].st_shndx == SHN_UNDEF || !s[j].st_value ||
                s[j].st_name >= str->sh_size)
                continue;
            const char *name = (const char *)e->p + str->sh_offset + s[j].st_name;
            if (!name[0])
                continue;
            int r = fn(arg, name, s[j].st_value, s[j].st_size);
            if (r)
                return r;
        }
    }
    return 0;
}
