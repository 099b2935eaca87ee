/* Unit tests of the helpers every component shares: the ELF reader
 * (include/tm/elf.h) on the test binary itself and on files that are not
 * ELF, the growable array (tm/grow.h) and the error buffer (tm/status.h). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tm/elf.h"
#include "tm/grow.h"
#include "tm/status.h"

int elf_test_marker(int x);
int elf_test_marker(int x) { return x + 1; }

typedef struct found {
    const char *want;
    uint64_t value;
    int n;
} found;

static int look(void *arg, const char *name, uint64_t value, uint64_t size)
{
    found *f = arg;
    (void)size;
    f->n++;
    if (!strcmp(name, f->want))
        f->value = value;
    return 0;
}

Test(elf, own_binary)
{
    tm_elf e;
    char err[256];
    cr_assert_eq(tm_elf_map(&e, "/proc/self/exe", err, sizeof err), TM_OK, "%s", err);
    uint8_t id[64];
    size_t n = tm_elf_build_id(&e, id);
    cr_assert(n == 0 || n >= 8, "build-id of %zu bytes", n);
    uint64_t v0 = 1;
    cr_assert(tm_elf_vaddr0(&e, &v0));
    cr_assert_eq(v0, 0, "a position-independent executable loads offset 0 at its address 0");
    found f = {"elf_test_marker", 0, 0};
    cr_assert_eq(tm_elf_functions(&e, look, &f), 0);
    cr_assert_gt(f.n, 10);
    /* the symbol's address, relocated by where offset 0 went, is the function's */
    cr_assert_neq(f.value, 0);
    uintptr_t here = (uintptr_t)&elf_test_marker;
    cr_assert_eq((here - f.value) & 0xfff, 0, "symbol 0x%lx, function at 0x%lx", (unsigned long)f.value,
                 (unsigned long)here);
    tm_elf_unmap(&e);
}

Test(elf, not_elf)
{
    tm_elf e;
    char err[256];
    cr_assert_eq(tm_elf_map(&e, "/dev/null", err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "/dev/null") && strstr(err, "not a regular file"), "%s", err);
    cr_assert_eq(tm_elf_map(&e, "/nonexistent/x", err, sizeof err), TM_ERR_IO);
    cr_assert(strstr(err, "/nonexistent/x: cannot open"), "%s", err);
    static const uint8_t text[] = "#!/bin/sh\necho hello, this is not an ELF file at all, just text\n";
    cr_assert_eq(tm_elf_from_bytes(&e, text, sizeof text), TM_ERR_FORMAT);
    uint8_t hdr[64] = {0x7f, 'E', 'L', 'F', 1 /* 32-bit */, 1};
    cr_assert_eq(tm_elf_from_bytes(&e, hdr, sizeof hdr), TM_ERR_FORMAT);
}

Test(grow, doubles_and_keeps)
{
    uint64_t *a = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < 1000; i++) {
        cr_assert_eq(TM_GROW(a, cap, i + 1), TM_OK);
        cr_assert_geq(cap, i + 1);
        a[i] = i * 3;
    }
    cr_assert_eq(cap, 1024, "64, doubled four times");
    for (size_t i = 0; i < 1000; i++)
        cr_assert_eq(a[i], i * 3);
    size_t before = cap;
    void *p = a;
    cr_assert_eq(TM_GROW(a, cap, (size_t)-1 / 2), TM_ERR_NOMEM, "an absurd size is refused");
    cr_assert_eq(cap, before);
    cr_assert_eq((void *)a, p, "the array is unchanged after a refusal");
    free(a);
}

Test(status, err_set)
{
    char e[8];
    tm_err_set(e, sizeof e, "a long message");
    cr_assert_str_eq(e, "a long ");
    tm_err_set(NULL, 0, "nothing");
    tm_err_set(e, 0, "nothing");
    cr_assert_str_eq(e, "a long ");
}

Test(grow, ring_keeps_order)
{
    uint32_t *v = NULL;
    size_t cap = 0, head = 0, len = 0;
    uint32_t next_in = 0, next_out = 0;
    for (int round = 0; round < 2000; round++) {
        /* push 3, pop 2: the ring wraps and grows with elements on both sides of the wrap */
        for (int k = 0; k < 3; k++) {
            if (len == cap)
                cr_assert_eq(TM_RING_GROW(v, cap, head, len), TM_OK);
            v[(head + len) % cap] = next_in++;
            len++;
        }
        for (int k = 0; k < 2; k++) {
            cr_assert_eq(v[head], next_out++);
            head = (head + 1) % cap;
            len--;
        }
    }
    cr_assert_eq(len, 2000);
    free(v);
}
