// tm — Verilator glue helpers for the unit testbenches: read and write bit
// fields of a model port whatever C++ type Verilator gave it (CData .. QData
// for up to 64 bits, VlWide<N> above).
#ifndef TM_TB_VGLUE_H
#define TM_TB_VGLUE_H

#include <cstdint>
#include <cstdlib>
#include <memory>
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

// Configuration C's 32-bit field of a cfg_*_o port (the harness's parameter
// sets, side by side).
template <class T>
static inline unsigned cfg32(const T &v, unsigned c)
{
    return static_cast<unsigned>(vget(v, 32 * c, 32));
}

// The base of a clocked harness: the clock, and the evaluation.
template <class M>
struct Clocked {
    using V = M;
    V *top;
    explicit Clocked(V *t) : top(t) {}
    void clock(int level)
    {
        top->clk_i = static_cast<uint8_t>(level);
        if (level)
            top->eval(); // the rising edge
    }
    void eval() { top->eval(); }
};

// The base of a combinational harness (an encoder): no clock.
template <class M>
struct Comb {
    using V = M;
    V *top;
    explicit Comb(V *t) : top(t) {}
    void clock(int) {}
    void eval() { top->eval(); }
};

// The loop every unit harness (tb_MODULE.cpp) shares.  A harness H, over
// Clocked<Vtb_MODULE> or Comb<Vtb_MODULE>, holds the C references of its
// parameter sets (ref_MODULE.c) and gives:
//   H(V *top, uint64_t seed, int argc, char **argv)   the references
//   void in(uint64_t step)    every set's stimulus into the model's ports
//   void out(uint64_t step)   the outputs out of the ports, checked
//   int finish()              the PASS/FAIL lines; the failures
// (and may replace eval, e.g. to time it).  tb_run makes the model, runs
// +COUNT=N steps (default DFLT; +seed=S) and returns the exit status.
template <class H>
static int tb_run(int argc, char **argv, const char *count, uint64_t dflt)
{
    const uint64_t n = plusarg(argc, argv, count, dflt);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<typename H::V>(ctx.get());
    top->eval();
    auto h = std::make_unique<H>(top.get(), seed, argc, argv);
    for (uint64_t i = 0; i < n; i++) {
        h->clock(0);
        h->in(i);
        h->eval();
        h->out(i);
        h->clock(1);
    }
    const int failed = h->finish();
    top->final();
    return failed ? 1 : 0;
}

#endif
