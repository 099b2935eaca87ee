// tm — Verilator glue helpers for the unit testbenches: read and write bit
// fields of a model port whatever C++ type Verilator gave it (CData .. QData
// for up to 64 bits, VlWide<N> above).
#ifndef TM_TB_VGLUE_H
#define TM_TB_VGLUE_H

#include <cstdint>
#include <cstdlib>
#include <string>
#include <verilated.h>

template <class T>
static inline void vput(T &s, unsigned lsb, unsigned w, uint64_t v)
{
    const uint64_t m = w >= 64 ? ~0ULL : ((1ULL << w) - 1);
    uint64_t x = static_cast<uint64_t>(s);
    x = (x & ~(m << lsb)) | ((v & m) << lsb);
    s = static_cast<T>(x);
}

template <std::size_t N>
static inline void vput(VlWide<N> &s, unsigned lsb, unsigned w, uint64_t v)
{
    for (unsigned k = 0; k < w;) {
        const unsigned b = lsb + k, o = b % 32, n = (w - k < 32 - o) ? w - k : 32 - o;
        const uint32_t m = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1) << o;
        const uint32_t x = static_cast<uint32_t>(v >> k) << o;
        s[b / 32] = (s[b / 32] & ~m) | (x & m);
        k += n;
    }
}

template <class T>
static inline uint64_t vget(const T &s, unsigned lsb, unsigned w)
{
    const uint64_t m = w >= 64 ? ~0ULL : ((1ULL << w) - 1);
    return (static_cast<uint64_t>(s) >> lsb) & m;
}

template <std::size_t N>
static inline uint64_t vget(const VlWide<N> &s, unsigned lsb, unsigned w)
{
    uint64_t v = 0;
    for (unsigned k = 0; k < w;) {
        const unsigned b = lsb + k, o = b % 32, n = (w - k < 32 - o) ? w - k : 32 - o;
        const uint64_t x = (static_cast<uint64_t>(s[b / 32]) >> o) & ((1ULL << n) - 1);
        v |= x << k;
        k += n;
    }
    return v;
}

// "+name=value" from the command line, else DEF.
static inline uint64_t plusarg(int argc, char **argv, const char *name, uint64_t def)
{
    const std::string key = std::string("+") + name + "=";
    uint64_t v = def; /* the last one given wins (run.sh puts its defaults first) */
    for (int i = 1; i < argc; i++)
        if (std::string(argv[i]).compare(0, key.size(), key) == 0)
            v = std::strtoull(argv[i] + key.size(), nullptr, 0);
    return v;
}

#endif
