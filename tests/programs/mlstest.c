/* mlsTest (thesis seeds/000 §4.2.3, Figs. 4.17-4.21), re-created.
 *
 * mls_example1 and mls_example2 are the thesis's Examples 1 and 2 as C
 * (built -O0 -mavx, as the thesis's listings are unoptimized code): byte
 * arrays and a loop counter; 10-byte long doubles (x87 fld/fstp tbyte) and
 * 32-byte AVX vectors.  They print the addresses of their variables, so that
 * the test can find their descriptors (`tm record --filter-rtn
 * mls_example1 --mode mlstrace --store -a`) and check the operands, sizes
 * and values, whatever code the compiler made.  test_region
 * (mlstest_region.S) then loads and stores 1, 2, 4, 8, 10, 16 and 32 bytes
 * at known places with known values and ends the program: its descriptors
 * are exact (expected/mlstest.mlstrace). */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>

void test_region(void) __attribute__((noreturn));

__attribute__((noinline)) void mls_example1(void)
{
    int i;
    /* bytes */
    volatile uint8_t uint8[17];
    volatile int8_t sint8[17];
    printf("i address: %p\n", (void *)&i);
    printf("uint8 address: %p\n", (void *)uint8);
    printf("sint8 address: %p\n", (void *)sint8);

    for (i = 0; i < 17; i++) {
        uint8[i] = i;
        sint8[i] = -i;
    }
    for (i = 0; i < 17; i++) {
        uint8[i];
        sint8[i];
    }
}

__attribute__((noinline)) void mls_example2(void)
{
    int i;
    volatile long double extendedPre80[8];
    printf("extendedPre80 address: %p\n", (void *)extendedPre80);
    for (i = 0; i < 8; i++) {
        extendedPre80[i] = i;
    }
    for (i = 0; i < 8; i++) {
        extendedPre80[i] = extendedPre80[i] + i;
    }

    volatile __m256 A = _mm256_set_ps(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    volatile __m256 B = _mm256_set_ps(2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
    volatile __m256 R = _mm256_hadd_ps(A, B);
    printf("A address: %p\nB address: %p\nR address: %p\n", (void *)&A, (void *)&B, (void *)&R);
}

int main(void)
{
    mls_example1();
    mls_example2();
    fflush(stdout);
    test_region(); /* ends the program (exit status 0) */
}
