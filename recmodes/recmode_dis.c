/* tm record --mode -d: instructions' bytes from the program's modules,
 * formatted by Zydis (recmode_dis.h). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "recmode_dis.h"
#include "tm/elf.h"
#include "tm/isa.h"
#include "tm/grow.h"

/* An executable segment: [lo, hi) at run time, its bytes at lo. */
typedef struct dis_seg {
    uint64_t lo, hi;
    const uint8_t *bytes;
} dis_seg;

/* A module's image: a mapped file, or a copy of the vdso's bytes. */
typedef struct dis_img {
    tm_elf elf;
    uint8_t *copy;
} dis_img;

/* The formatted instructions last asked for, by address (direct-mapped):
 * loops ask for the same few again and again. */
#define CACHE_SLOTS 2048u
#define CACHE_TEXT 120u
typedef struct dis_slot {
    uint64_t pc;
    int valid;
    char text[CACHE_TEXT];
} dis_slot;

struct rm_dis {
    ZydisDecoder dec;
    ZydisFormatter fmt;
    dis_img *imgs;
    size_t nimgs, imgcap;
    dis_seg *segs;      /* in the order the modules came: the newest wins */
    size_t nsegs, segcap;
    size_t last;        /* the segment of the previous lookup */
    dis_slot *cache;
    char text[256];
};

rm_dis *rm_dis_new(void)
{
    rm_dis *d = calloc(1, sizeof *d);
    if (!d || !(d->cache = calloc(CACHE_SLOTS, sizeof *d->cache))) {
        free(d);
        return NULL;
    }
    ZydisDecoderInit(&d->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    ZydisFormatterInit(&d->fmt, ZYDIS_FORMATTER_STYLE_INTEL);
    /* XED's Intel form as Pin prints it: "mov rax, qword ptr [rip+0x10]",
     * "jnbe 0x40059e", "mov eax, 0x1" */
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
    return d;
}

void rm_dis_free(rm_dis *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nimgs; i++) {
        if (d->imgs[i].elf.mapped)
            tm_elf_unmap(&d->imgs[i].elf);
        free(d->imgs[i].copy);
    }
    free(d->imgs);
    free(d->segs);
    free(d->cache);
    free(d);
}

int rm_dis_module(rm_dis *d, const tm_cap_module *mod)
{
    if (!d || !mod)
        return 0;
    if (TM_GROW(d->imgs, d->imgcap, d->nimgs + 1) != TM_OK)
        return -1;
    dis_img *im = &d->imgs[d->nimgs];
    memset(im, 0, sizeof *im);
    if (mod->bytes) {
        if (!mod->len || !(im->copy = malloc(mod->len)))
            return mod->len ? -1 : 0;
        memcpy(im->copy, mod->bytes, mod->len);
        if (tm_elf_from_bytes(&im->elf, im->copy, mod->len) != TM_OK) {
            free(im->copy);
            return 0;
        }
    } else if (!mod->path || tm_elf_map(&im->elf, mod->path, NULL, 0) != TM_OK) {
        return 0;
    }
    if (tm_elf_isa(&im->elf) != TM_ISA_X86_64) { /* -d disassembles x86-64 (Zydis) */
        if (im->copy)
            free(im->copy);
        else
            tm_elf_unmap(&im->elf);
        return 0;
    }
    d->nimgs++;
    const tm_elf *e = &im->elf;
    uint8_t id[64];
    size_t idlen = tm_elf_build_id(e, id);
    uint64_t vaddr0;
    if ((mod->build_id_len && (idlen != mod->build_id_len || memcmp(id, mod->build_id, idlen))) ||
        !tm_elf_vaddr0(e, &vaddr0))
        return 0; /* not the file that ran, or nothing loads */
    uint64_t bias = mod->base - vaddr0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->p;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || !ph[i].p_filesz ||
            ph[i].p_offset > e->len || ph[i].p_filesz > e->len - ph[i].p_offset)
            continue;
        if (TM_GROW(d->segs, d->segcap, d->nsegs + 1) != TM_OK)
            return -1;
        uint64_t lo = ph[i].p_vaddr + bias;
        d->segs[d->nsegs++] = (dis_seg){lo, lo + ph[i].p_filesz, e->p + ph[i].p_offset};
    }
    d->last = d->nsegs ? d->nsegs - 1 : 0;
    for (unsigned k = 0; k < CACHE_SLOTS; k++)
        d->cache[k].valid = 0; /* what an address holds may have changed */
    return 0;
}

/* The bytes at PC and how many there are up to the end of their segment,
 * or NULL. */
static const uint8_t *code_at(rm_dis *d, uint64_t pc, size_t *avail)
{
    if (!d->nsegs)
        return NULL;
    const dis_seg *s = &d->segs[d->last];
    /* the cached segment only if no newer one covers PC too */
    int hit = pc >= s->lo && pc < s->hi;
    for (size_t k = d->nsegs; k-- > 0;) {
        if (hit && k == d->last)
            break;
        const dis_seg *t = &d->segs[k];
        if (pc >= t->lo && pc < t->hi) {
            d->last = k;
            s = t;
            hit = 1;
            break;
        }
    }
    if (!hit)
        return NULL;
    *avail = (size_t)(s->hi - pc);
    return s->bytes + (pc - s->lo);
}

const char *rm_dis_text(rm_dis *d, uint64_t pc)
{
    dis_slot *slot = &d->cache[(pc ^ (pc >> 11)) % CACHE_SLOTS];
    if (slot->valid && slot->pc == pc)
        return slot->text;
    size_t avail = 0;
    const uint8_t *p = code_at(d, pc, &avail);
    ZydisDecodedInstruction ins;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
    if (!p)
        return NULL;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->dec, p, avail > 15 ? 15 : avail, &ins, ops)) ||
        !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->fmt, &ins, ops, ins.operand_count_visible, d->text,
                                                      sizeof d->text, pc, NULL)))
        snprintf(d->text, sizeof d->text, "(bad)");
    size_t n = strlen(d->text);
    if (n < CACHE_TEXT) {
        memcpy(slot->text, d->text, n + 1);
        slot->pc = pc;
        slot->valid = 1;
    }
    return d->text;
}
