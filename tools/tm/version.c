/* tm --version: the source tree's `git describe --always --dirty` when it
 * was built (TM_VERSION, from the generated header; "unknown" outside a git
 * checkout) and this executable's GNU build-id, read from its own note
 * segment (PT_NOTE) as the dynamic loader mapped it. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "tm_version.h"

/* The first object dl_iterate_phdr reports is the executable itself. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    char *hex = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            const unsigned char *name = p + sizeof *nh;
            const unsigned char *desc = name + ((nh->n_namesz + 3u) & ~3u);
            if (desc + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz > 0 && nh->n_descsz <= 64) {
                for (unsigned k = 0; k < nh->n_descsz; k++)
                    sprintf(hex + 2 * k, "%02x", desc[k]);
                return 1;
            }
            p = desc + ((nh->n_descsz + 3u) & ~3u);
        }
    }
    return 1; /* the executable only */
}

const char *tm_version(void)
{
    return TM_VERSION;
}

int tm_build_id(char *hex, size_t n)
{
    char buf[129] = "";
    dl_iterate_phdr(find_build_id, buf);
    if (!*buf || strlen(buf) >= n)
        return -1;
    memcpy(hex, buf, strlen(buf) + 1);
    return 0;
}

int tm_print_version(void)
{
    char id[129];
    if (tm_build_id(id, sizeof id))
        snprintf(id, sizeof id, "none");
    printf("tm %s (build-id %s)\n", tm_version(), id);
    return 0;
}
