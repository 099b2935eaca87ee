/* tm_pin — the Pin frontend of tm (docs/pin.md).
 *
 * The Pin glue only: it registers Pin's callbacks and reads Pin's values.
 * What is emitted, and when — block descriptors and their exits, memory
 * operands with their values, threads, signals, system calls and the
 * system's writes, mappings, the end — is the frontends' shared emitter
 * (include/tm/capemit.h, capture/capemit.c), which the Valgrind tool uses
 * too.  The stream is the capture wire format (tm/capwire.h) that
 * `tm record` reads:
 *
 *   under `tm record --frontend pin`: -tm_fd N [-tm_shm FD,ACK,SLOTS,BYTES]
 *       -tm_mem 0|1 -tm_store_values 0|1 [-tm_timing MACHINE] -tm_log FILE
 *   run directly (`pin -t tm_pin.so -mode mcftrace ... -- prog`): the thesis
 *       tools' knobs (seed 000 Tables 4.1-4.6); the tool starts
 *       `tm record --capture -` with the equivalent options (recmodes/knobs.c)
 *       and streams to it.
 *
 * Blocks are Pin's basic blocks: each ends at a control transfer, so each
 * has one or two exits at its last instruction (tmcap_last_exits).  A
 * thread's memory operands wait in its own buffer until its block's exit;
 * then, under one lock, they and the exit go to the emitter. */
#include "pin.H"

extern "C" {
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
}
#include "os-apis.h"
#include "tm/capemit.h"
#include "tm/knobs.h"

/* ------------------------------------------------------------ knobs */

/* under tm record */
KNOB<INT32> KnobFd(KNOB_MODE_WRITEONCE, "pintool", "tm_fd", "-1", "the capture channel (tm record passes it)");
KNOB<std::string> KnobShm(KNOB_MODE_WRITEONCE, "pintool", "tm_shm", "",
                          "FD,ACK,SLOTS,BYTES: the stream through shared memory (tm record passes it)");
KNOB<BOOL> KnobMem(KNOB_MODE_WRITEONCE, "pintool", "tm_mem", "0", "memory operands and their values");
KNOB<BOOL> KnobStoreValues(KNOB_MODE_WRITEONCE, "pintool", "tm_store_values", "1", "with -tm_mem, store values too");
KNOB<std::string> KnobTiming(KNOB_MODE_WRITEONCE, "pintool", "tm_timing", "",
                             "LINE/L1I/L1/L2/MEM/FLAGS: time the accesses and fetches on this machine");
KNOB<std::string> KnobLog(KNOB_MODE_WRITEONCE, "pintool", "tm_log", "", "the tool's messages (default stderr)");
KNOB<std::string> KnobTm(KNOB_MODE_WRITEONCE, "pintool", "tm", "tm",
                         "run directly: the tm program that records (default: tm on PATH)");

/* run directly: the thesis tools' knobs (their meaning: tm/knobs.h) */
KNOB<std::string> KnobMode(KNOB_MODE_WRITEONCE, "pintool", "mode", "", "mcftrace|mlstrace|mcftraptor|mlvcfiat");
KNOB<BOOL> KnobA(KNOB_MODE_WRITEONCE, "pintool", "a", "0", "ASCII descriptors");
KNOB<std::string> KnobC(KNOB_MODE_WRITEONCE, "pintool", "c", "", "compressor: gzip, bzip2, pigz, pbzip2, zstd");
KNOB<BOOL> KnobD(KNOB_MODE_WRITEONCE, "pintool", "d", "0", "disassembly in the ASCII descriptors");
KNOB<std::string> KnobF(KNOB_MODE_WRITEONCE, "pintool", "f", "", "stop at N MB of descriptors");
KNOB<BOOL> KnobNoShared(KNOB_MODE_WRITEONCE, "pintool", "filter_no_shared_libs", "0", "only the program's own code");
KNOB<std::string> KnobRtn(KNOB_MODE_WRITEONCE, "pintool", "filter_rtn", "", "only the function NAME");
KNOB<std::string> KnobL(KNOB_MODE_WRITEONCE, "pintool", "l", "", "trace N instructions");
KNOB<std::string> KnobO(KNOB_MODE_WRITEONCE, "pintool", "o", "", "the descriptor files' name");
KNOB<std::string> KnobS(KNOB_MODE_WRITEONCE, "pintool", "s", "", "skip N instructions");
KNOB<BOOL> KnobStore(KNOB_MODE_WRITEONCE, "pintool", "store", "0", "mlstrace: store descriptors too");
KNOB<std::string> KnobGshare(KNOB_MODE_WRITEONCE, "pintool", "gshare", "", "gshare entries");
KNOB<std::string> KnobRas(KNOB_MODE_WRITEONCE, "pintool", "RAS", "", "RAS entries");
KNOB<std::string> KnobIbtb(KNOB_MODE_WRITEONCE, "pintool", "iBTB", "", "iBTB entries");
KNOB<BOOL> KnobShare(KNOB_MODE_WRITEONCE, "pintool", "TRaptorShare", "0", "one predictor set for all threads");
KNOB<std::string> KnobCa(KNOB_MODE_WRITEONCE, "pintool", "ca", "", "CFiat cache ways");
KNOB<std::string> KnobCfg(KNOB_MODE_WRITEONCE, "pintool", "cfg", "", "CFiat bytes per first-access flag");
KNOB<std::string> KnobCls(KNOB_MODE_WRITEONCE, "pintool", "cls", "", "CFiat line bytes");
KNOB<std::string> KnobCs(KNOB_MODE_WRITEONCE, "pintool", "cs", "", "CFiat cache size");
KNOB<BOOL> KnobCshare(KNOB_MODE_WRITEONCE, "pintool", "cshare", "0", "one CFiat cache for all threads");

/* ------------------------------------------------------------ state */

enum { MAX_PEND = 64, MAX_STORES = 16, MAX_INSNS = 4096 };
/* every id Pin gives a thread (THREADID < PIN_MAX_THREADS) */
static const UINT32 MAX_THREADS = PIN_MAX_THREADS;

/* A memory operand waiting for its block's exit. */
struct pmem {
    tmcap_word w0, a;
    tmcap_word v[8];
    int has_value;
};

/* A thread's own state (only it writes its buffer). */
struct tstate {
    unsigned fid;                 /* the thread's id in the stream (Pin's + 1) */
    OS_THREAD_ID os_tid;
    pmem pend[MAX_PEND];
    unsigned npend;
    tmcap_word st_w0[MAX_STORES], st_a[MAX_STORES]; /* stores of the current instruction */
    unsigned nst;
    tmcap_word sys_args[6];       /* of the system call in progress */
    unsigned sys_no;
};

static tstate *ts[MAX_THREADS];
static PIN_LOCK lk;               /* the emitter's */
static tmcap_em *em;
static unsigned em_tid;           /* the thread the emitter's events are of */
static tmcap_word next_id = 1;
static int log_fd = 2;
static int clo_mem, clo_store_values, clo_addr; /* clo_addr: -tm_timing without -tm_mem: operands timed only */
static tmf_cfg timing_cfg;
/* A pending operand timed only: its word (the tool's own: an access of
 * SIZE bytes at A, a STORE or a load). */
#define PIN_ACCESS 0xeeu
static inline tmcap_word pin_access(int store, unsigned size, tmcap_word a)
{
    return PIN_ACCESS | (tmcap_word)(store ? 1 : 0) << 8 | (tmcap_word)((size - 1) & 63) << 10 | a << 16;
}
/* run directly: the tm record that reads the stream */
static NATIVE_FD rec_wfd = INVALID_NATIVE_FD;
static OS_PROCESS_WAITABLE_PROCESS rec_proc;
static int rec_started;

static void say(const char *fmt, const char *a)
{
    char line[512];
    int n = snprintf(line, sizeof line, "tm_pin: ");
    n += snprintf(line + n, sizeof line - (size_t)n, fmt, a);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(log_fd, line, (size_t)n);
    (void)w;
}

/* ------------------------------------------------------------ platform */

static long p_write(void *, int fd, const void *p, unsigned long n)
{
    ssize_t r;
    do
        r = write(fd, p, n);
    while (r < 0 && errno == EINTR);
    return (long)r;
}
static long p_read(void *, int fd, void *p, unsigned long n)
{
    ssize_t r;
    do
        r = read(fd, p, n);
    while (r < 0 && errno == EINTR);
    return (long)r;
}
static void p_close(void *, int fd) { close(fd); }
static int p_copy(void *, void *dst, tmcap_word a, unsigned long n)
{
    return PIN_SafeCopy(dst, (const VOID *)(ADDRINT)a, n) == n;
}
static int p_readable(void *, tmcap_word a, unsigned long n)
{
    unsigned char b[64];
    return n <= sizeof b && PIN_SafeCopy(b, (const VOID *)(ADDRINT)a, n) == n;
}
/* The program's memory from A: pages probed until readability changes. */
static tmcap_word p_region(void *, tmcap_word a, tmcap_word hi, int *readable)
{
    unsigned char c;
    int r0 = PIN_SafeCopy(&c, (const VOID *)(ADDRINT)a, 1) == 1;
    tmcap_word p = (a | 4095) + 1;
    while (p < hi && PIN_SafeCopy(&c, (const VOID *)(ADDRINT)p, 1) == (size_t)r0)
        p += 4096;
    *readable = r0;
    return p < hi ? p : hi;
}
static void p_message(void *, const char *msg) { say("%s", msg); }
static void *p_alloc(void *, unsigned long n) { return malloc(n); }

/* ------------------------------------------------------------ emitting */

/* Under the lock: the following events are thread T's. */
static void as_thread(tstate *t)
{
    if (em_tid != t->fid) {
        tmcap_em_resume(em, t->fid);
        em_tid = t->fid;
    }
}

/* Under the lock: T's waiting memory operands. */
static void put_pending(tstate *t)
{
    if (!t->npend)
        return;
    as_thread(t);
    for (unsigned i = 0; i < t->npend; i++) {
        if ((t->pend[i].w0 & 0xff) == PIN_ACCESS)
            tmcap_em_access(em, t->pend[i].w0 >> 16, (unsigned)((t->pend[i].w0 >> 10) & 63) + 1,
                            (int)((t->pend[i].w0 >> 8) & 1));
        else
            tmcap_em_mem_value(em, t->pend[i].w0, t->pend[i].a, t->pend[i].has_value ? t->pend[i].v : NULL);
    }
    t->npend = 0;
}

static void pend(tstate *t, tmcap_word w0, tmcap_word a, int read_value)
{
    if (t->npend == MAX_PEND) {
        PIN_GetLock(&lk, (INT32)t->fid);
        put_pending(t);
        PIN_ReleaseLock(&lk);
    }
    pmem *m = &t->pend[t->npend];
    m->w0 = w0;
    m->a = a;
    m->has_value = 0;
    if (read_value && !(w0 & TMCAP_MEM_NOVALUE)) {
        unsigned size = (unsigned)(w0 >> 16) & 0xff;
        m->v[(size + 7) / 8 - 1] = 0;
        if (PIN_SafeCopy(m->v, (const VOID *)(ADDRINT)a, size) != size)
            return; /* not readable: the instruction faults and does not retire */
        m->has_value = 1;
    }
    t->npend++;
}

/* ------------------------------------------------------------ analysis */

/* W0 carries the part's offset in the operand above bit 40 (the MEM
 * word's fields end at bit 40). */
static VOID PIN_FAST_ANALYSIS_CALL a_load(THREADID tid, ADDRINT ea, ADDRINT w0)
{
    pend(ts[tid], w0 & ((1ull << 40) - 1), ea + (w0 >> 40), 1);
}

/* A store's address, before the instruction; its value after (a_stores). */
static VOID PIN_FAST_ANALYSIS_CALL a_store_ea(THREADID tid, ADDRINT ea, ADDRINT w0)
{
    tstate *t = ts[tid];
    if (t->nst < MAX_STORES) {
        t->st_w0[t->nst] = w0 & ((1ull << 40) - 1);
        t->st_a[t->nst++] = ea + (w0 >> 40);
    }
}

static VOID PIN_FAST_ANALYSIS_CALL a_stores(THREADID tid)
{
    tstate *t = ts[tid];
    for (unsigned i = 0; i < t->nst; i++)
        pend(t, t->st_w0[i], t->st_a[i], 1);
    t->nst = 0;
}

/* -tm_timing without -tm_mem: an operand timed only (W: pin_access without
 * the address; OFF: the part's offset in the operand). */
static VOID PIN_FAST_ANALYSIS_CALL a_addr(THREADID tid, ADDRINT ea, ADDRINT w, ADDRINT off)
{
    pend(ts[tid], w | (tmcap_word)(ea + off) << 16, 0, 0);
}

/* A call's store: the return address, known before it runs. */
static VOID PIN_FAST_ANALYSIS_CALL a_store_const(THREADID tid, ADDRINT ea, ADDRINT w0, ADDRINT value)
{
    tstate *t = ts[tid];
    pend(t, w0, ea, 0);
    pmem *m = &t->pend[t->npend - 1];
    if (!(w0 & TMCAP_MEM_NOVALUE)) {
        m->v[0] = value;
        m->has_value = 1;
    }
}

static VOID PIN_FAST_ANALYSIS_CALL a_exit(THREADID tid, ADDRINT w0)
{
    tstate *t = ts[tid];
    PIN_GetLock(&lk, (INT32)t->fid);
    as_thread(t);
    put_pending(t);
    tmcap_em_exec(em, w0);
    PIN_ReleaseLock(&lk);
}

static VOID PIN_FAST_ANALYSIS_CALL a_exit_dyn(THREADID tid, ADDRINT w0, ADDRINT target)
{
    tstate *t = ts[tid];
    PIN_GetLock(&lk, (INT32)t->fid);
    as_thread(t);
    put_pending(t);
    tmcap_em_exec_dyn(em, w0, target);
    PIN_ReleaseLock(&lk);
}

static VOID PIN_FAST_ANALYSIS_CALL a_cond(THREADID tid, BOOL taken, ADDRINT w0_taken, ADDRINT w0_not)
{
    a_exit(tid, taken ? w0_taken : w0_not);
}

/* A rep-prefixed instruction with a zero count: done at once. */
static VOID a_rep_before(THREADID tid, BOOL executing, ADDRINT w0_fall)
{
    if (!executing)
        a_exit(tid, w0_fall);
}

/* After an iteration (its stores' values first): another one (STAY), and
 * once the count is zero or the condition fails, done (FALL), as Valgrind
 * runs it. */
static VOID a_rep_after(THREADID tid, ADDRINT rcx, ADDRINT flags, ADDRINT cond, ADDRINT w0_stay, ADDRINT w0_fall,
                        ADDRINT w0_solo_fall)
{
    a_stores(tid);
    int zf = (flags >> 6) & 1;
    int again = cond == 0 || (cond == 1 ? zf : !zf);
    if (!again) {
        a_exit(tid, w0_fall);
        return;
    }
    a_exit(tid, w0_stay);
    if (rcx == 0) /* the instruction runs again, alone, and is done at once */
        a_exit(tid, w0_solo_fall);
}

/* ------------------------------------------------------------ instrument */

/* The memory operands of INS (block instruction K): loads before it, the
 * stores' addresses before and their values at WHERE (IPOINT_AFTER, or
 * IPOINT_TAKEN_BRANCH), unless it is a call (its store is the return
 * address).  Rep-prefixed instructions: per executed iteration. */
static void instrument_mem(INS ins, unsigned k, BOOL is_call, BOOL rep, IPOINT where)
{
    UINT32 n = INS_MemoryOperandCount(ins);
    BOOL stores = FALSE;
    for (UINT32 i = 0; i < n; i++) {
        USIZE size = INS_MemoryOperandSize(ins, i);
        for (USIZE off = 0; off < size; off += 64) { /* operands above 64 bytes in 64-byte parts */
            unsigned s = (unsigned)(size - off > 64 ? 64 : size - off);
            if (INS_MemoryOperandIsRead(ins, i)) {
                tmcap_word w0 = tmcap_mem(0, 0, s, k) | (tmcap_word)off << 40;
                if (rep)
                    INS_InsertPredicatedCall(ins, IPOINT_BEFORE, (AFUNPTR)a_load, IARG_FAST_ANALYSIS_CALL,
                                             IARG_THREAD_ID, IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)w0, IARG_END);
                else
                    INS_InsertCall(ins, IPOINT_BEFORE, (AFUNPTR)a_load, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID,
                                   IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)w0, IARG_END);
            }
            if (INS_MemoryOperandIsWritten(ins, i)) {
                tmcap_word w0 = tmcap_mem(1, !clo_store_values, s, k);
                if (is_call) {
                    INS_InsertCall(ins, IPOINT_BEFORE, (AFUNPTR)a_store_const, IARG_FAST_ANALYSIS_CALL,
                                   IARG_THREAD_ID, IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)w0, IARG_ADDRINT,
                                   (ADDRINT)(INS_Address(ins) + INS_Size(ins)), IARG_END);
                    continue;
                }
                if (rep)
                    INS_InsertPredicatedCall(ins, IPOINT_BEFORE, (AFUNPTR)a_store_ea, IARG_FAST_ANALYSIS_CALL,
                                             IARG_THREAD_ID, IARG_MEMORYOP_EA, i, IARG_ADDRINT,
                                             (ADDRINT)(w0 | (tmcap_word)off << 40), IARG_END);
                else
                    INS_InsertCall(ins, IPOINT_BEFORE, (AFUNPTR)a_store_ea, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID,
                                   IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)(w0 | (tmcap_word)off << 40),
                                   IARG_END);
                stores = TRUE;
            }
        }
    }
    if (stores && !rep) /* rep: a_rep_after reads them */
        INS_InsertCall(ins, where, (AFUNPTR)a_stores, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID, IARG_END);
}

/* -tm_addr: the addresses of INS's memory operands, before it runs (per
 * executed iteration of a rep-prefixed one). */
static void instrument_addr(INS ins, BOOL rep)
{
    UINT32 n = INS_MemoryOperandCount(ins);
    for (UINT32 i = 0; i < n; i++) {
        USIZE size = INS_MemoryOperandSize(ins, i);
        for (USIZE off = 0; off < size; off += 64) {
            unsigned s = (unsigned)(size - off > 64 ? 64 : size - off);
            for (int store = 0; store < 2; store++) {
                if (!(store ? INS_MemoryOperandIsWritten(ins, i) : INS_MemoryOperandIsRead(ins, i)))
                    continue;
                tmcap_word w = pin_access(store, s, 0);
                if (rep)
                    INS_InsertPredicatedCall(ins, IPOINT_BEFORE, (AFUNPTR)a_addr, IARG_FAST_ANALYSIS_CALL,
                                             IARG_THREAD_ID, IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)w,
                                             IARG_ADDRINT, (ADDRINT)off, IARG_END);
                else
                    INS_InsertCall(ins, IPOINT_BEFORE, (AFUNPTR)a_addr, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID,
                                   IARG_MEMORYOP_EA, i, IARG_ADDRINT, (ADDRINT)w, IARG_ADDRINT, (ADDRINT)off,
                                   IARG_END);
            }
        }
    }
}

static void block(BBL bbl)
{
    static tmcap_word ia[MAX_INSNS];
    static unsigned il[MAX_INSNS];
    unsigned ni = 0;
    for (INS ins = BBL_InsHead(bbl); INS_Valid(ins) && ni < MAX_INSNS; ins = INS_Next(ins)) {
        ia[ni] = INS_Address(ins);
        il[ni++] = INS_Size(ins);
    }
    if (!ni)
        return;
    INS last = BBL_InsTail(bbl);
    unsigned k = ni - 1;
    unsigned char bytes[16] = {0};
    PIN_SafeCopy(bytes, (const VOID *)INS_Address(last), INS_Size(last) < 16 ? INS_Size(last) : 16);
    int jk = INS_IsSyscall(last) ? TMCAP_JK_OTHER
             : INS_IsCall(last)  ? TMCAP_JK_CALL
             : INS_IsRet(last)   ? TMCAP_JK_RET
                                 : TMCAP_JK_BORING;
    BOOL cf = INS_IsControlFlow(last) && !INS_IsSyscall(last);
    BOOL direct = !cf || INS_IsDirectControlFlow(last);
    tmcap_word fall = INS_Address(last) + INS_Size(last);
    tmcap_word target = cf && direct ? INS_DirectControlFlowTargetAddress(last) : fall;
    tmcap_exit xs[2];
    unsigned nx = tmcap_last_exits(k, INS_Address(last), INS_Size(last), bytes, jk, direct, target, xs);
    /* an instruction that neither falls through nor transfers (ud2, hlt):
     * it faults, and the signal says where the block stopped */
    BOOL no_exit = !cf && !INS_IsSyscall(last) && !INS_IsValidForIpointAfter(last);

    BOOL is_rep = nx == 2 && xs[0].kind == TMCAP_X_STAY;
    PIN_GetLock(&lk, 0);
    tmcap_word id = next_id++, solo = id;
    tmcap_em_block(em, id, ia, il, ni, xs, nx);
    if (is_rep && ni > 1) {
        /* after an iteration that leaves the count zero, the rep
         * instruction runs once more, alone (as Valgrind runs it): a block
         * of its own */
        tmcap_exit sx[2] = {xs[0], xs[1]};
        sx[0].insn = sx[1].insn = 0;
        solo = next_id++;
        tmcap_em_block(em, solo, ia + k, il + k, 1, sx, 2);
    }
    PIN_ReleaseLock(&lk);

    unsigned j = 0;
    for (INS ins = BBL_InsHead(bbl); INS_Valid(ins) && j < ni; ins = INS_Next(ins), j++) {
        if (!clo_mem && !clo_addr)
            continue;
        BOOL rep = INS_HasRealRep(ins);
        /* where a store's value is there to read: after the instruction, or
         * where it branches to (none: it cannot complete, e.g. ud2) */
        BOOL after = INS_IsValidForIpointAfter(ins), taken = INS_IsValidForIpointTakenBranch(ins);
        if (!after && !taken && !INS_IsCall(ins))
            continue;
        if (!clo_mem) {
            instrument_addr(ins, rep);
            continue;
        }
        instrument_mem(ins, j, INS_IsCall(ins), rep, after ? IPOINT_AFTER : IPOINT_TAKEN_BRANCH);
    }
    tmcap_word w0 = tmcap_exec(id, 0), w1 = tmcap_exec(id, 1);
    if (nx == 2 && !is_rep) {
        INS_InsertCall(last, IPOINT_BEFORE, (AFUNPTR)a_cond, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID,
                       IARG_BRANCH_TAKEN, IARG_ADDRINT, (ADDRINT)w0, IARG_ADDRINT, (ADDRINT)w1, IARG_END);
    } else if (nx == 2) { /* rep: STAY, FALL */
        INS_InsertCall(last, IPOINT_BEFORE, (AFUNPTR)a_rep_before, IARG_THREAD_ID, IARG_EXECUTING, IARG_ADDRINT,
                       (ADDRINT)w1, IARG_END);
        INS_InsertPredicatedCall(last, IPOINT_AFTER, (AFUNPTR)a_rep_after, IARG_THREAD_ID, IARG_REG_VALUE, REG_RCX,
                                 IARG_REG_VALUE, REG_RFLAGS, IARG_ADDRINT,
                                 (ADDRINT)tmcap_rep_cond(bytes, INS_Size(last)), IARG_ADDRINT, (ADDRINT)w0,
                                 IARG_ADDRINT, (ADDRINT)w1, IARG_ADDRINT, (ADDRINT)tmcap_exec(solo, 1), IARG_END);
    } else if (xs[0].flags & TMCAP_XF_DYN) {
        INS_InsertCall(last, IPOINT_BEFORE, (AFUNPTR)a_exit_dyn, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID,
                       IARG_ADDRINT, (ADDRINT)w0, IARG_BRANCH_TARGET_ADDR, IARG_END);
    } else if (cf || INS_IsSyscall(last)) { /* direct transfers, system calls: nothing after them to wait for */
        INS_InsertCall(last, IPOINT_BEFORE, (AFUNPTR)a_exit, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID, IARG_ADDRINT,
                       (ADDRINT)w0, IARG_END);
    } else if (!no_exit) { /* falls through: after its stores */
        INS_InsertCall(last, IPOINT_AFTER, (AFUNPTR)a_exit, IARG_FAST_ANALYSIS_CALL, IARG_THREAD_ID, IARG_ADDRINT,
                       (ADDRINT)w0, IARG_END);
    }
}

static VOID trace_cb(TRACE trace, VOID *)
{
    for (BBL bbl = TRACE_BblHead(trace); BBL_Valid(bbl); bbl = BBL_Next(bbl))
        block(bbl);
}

/* ------------------------------------------------------------ mappings */

/* The executable mappings of image IMG (addresses LO..HI), from
 * /proc/self/maps: Pin says which images load and where, not the file
 * offset each segment is mapped from.  Only the image's range is reported
 * (the process also holds Pin and this tool, which are not the program's);
 * the vdso as its bytes. */
static void scan_maps(tmcap_word lo, tmcap_word hi, int vdso)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0)
        return;
    static char buf[1 << 16];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof buf - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < have; i++) {
            if (buf[i] != '\n')
                continue;
            tmcap_maps_line m;
            if (tmcap_parse_maps_line(buf + start, (unsigned)(i - start), &m) && (m.perms & 5) == 5 && m.lo >= lo &&
                m.lo <= hi) {
                if (vdso)
                    tmcap_em_vdso(em, m.lo, m.hi - m.lo);
                else if (m.pathlen && m.path[0] == '/')
                    tmcap_em_map(em, m.lo, m.hi - m.lo, m.off, m.path, m.pathlen);
            }
            start = i + 1;
        }
        memmove(buf, buf + start, have - start);
        have -= start;
    }
    close(fd);
}

/* The main executable's mappings go first (the capture takes the first
 * module as the program: --no-shared-libs); an image Pin reports before
 * it waits. */
struct image_range {
    tmcap_word lo, hi;
    int vdso;
};
static image_range waiting[64];
static unsigned nwaiting;
static BOOL main_seen;

static VOID image_cb(IMG img, VOID *)
{
    image_range r = {IMG_LowAddress(img), IMG_HighAddress(img), IMG_IsVDSO(img) ? 1 : 0};
    PIN_GetLock(&lk, 0);
    if (!main_seen && !IMG_IsMainExecutable(img) && nwaiting < 64) {
        waiting[nwaiting++] = r;
    } else {
        scan_maps(r.lo, r.hi, r.vdso);
        if (!main_seen) {
            main_seen = TRUE;
            for (unsigned i = 0; i < nwaiting; i++)
                scan_maps(waiting[i].lo, waiting[i].hi, waiting[i].vdso);
            nwaiting = 0;
        }
    }
    PIN_ReleaseLock(&lk);
}

/* ------------------------------------------------------------ threads */

static VOID thread_start(THREADID tid, CONTEXT *, INT32, VOID *)
{
    tstate *t = ts[tid] ? ts[tid] : (tstate *)malloc(sizeof *t); /* Pin may reuse an ended thread's id */
    if (!t) {
        say("%s", "out of memory for a thread's state; the program is stopped");
        PIN_ExitProcess(1);
    }
    memset(t, 0, sizeof *t);
    t->fid = tid + 1;
    t->os_tid = PIN_GetTid();
    OS_THREAD_ID parent_os = PIN_GetParentTid();
    PIN_GetLock(&lk, (INT32)t->fid);
    unsigned parent = 0;
    for (unsigned i = 0; i < MAX_THREADS && !parent; i++)
        if (ts[i] && ts[i]->os_tid == parent_os)
            parent = ts[i]->fid;
    ts[tid] = t;
    tmcap_em_thread_create(em, parent, t->fid);
    PIN_ReleaseLock(&lk);
}

static VOID thread_fini(THREADID tid, const CONTEXT *, INT32, VOID *)
{
    tstate *t = tid < MAX_THREADS ? ts[tid] : NULL;
    if (!t)
        return;
    PIN_GetLock(&lk, (INT32)t->fid);
    put_pending(t);
    tmcap_em_thread_exit(em, t->fid);
    PIN_ReleaseLock(&lk);
}

/* ------------------------------------------------------------ system calls */

static VOID syscall_entry(THREADID tid, CONTEXT *ctxt, SYSCALL_STANDARD std, VOID *)
{
    tstate *t = ts[tid];
    t->sys_no = (unsigned)PIN_GetSyscallNumber(ctxt, std);
    for (UINT32 i = 0; i < 6; i++)
        t->sys_args[i] = PIN_GetSyscallArgument(ctxt, std, i);
    PIN_GetLock(&lk, (INT32)t->fid);
    put_pending(t);
    tmcap_em_syscall_pre(em, t->fid, t->sys_no, t->sys_args);
    PIN_ReleaseLock(&lk);
}

static VOID syscall_exit(THREADID tid, CONTEXT *ctxt, SYSCALL_STANDARD std, VOID *)
{
    tstate *t = ts[tid];
    ADDRINT err = PIN_GetSyscallErrno(ctxt, std);
    ADDRINT res = PIN_GetSyscallReturn(ctxt, std);
    PIN_GetLock(&lk, (INT32)t->fid);
    tmcap_em_syscall_post(em, t->fid, t->sys_no, t->sys_args, err ? err : res, err != 0);
    PIN_ReleaseLock(&lk);
}

/* ------------------------------------------------------------ signals */

static VOID context_change(THREADID tid, CONTEXT_CHANGE_REASON reason, const CONTEXT *from, CONTEXT *to, INT32 sig,
                           VOID *)
{
    tstate *t = tid < MAX_THREADS ? ts[tid] : NULL;
    if (!t)
        return;
    PIN_GetLock(&lk, (INT32)t->fid);
    if (reason == CONTEXT_CHANGE_REASON_SIGNAL && from && to) {
        /* the interrupted block's operands so far, then the handler */
        put_pending(t);
        tmcap_word pc = PIN_GetContextReg(from, REG_INST_PTR);
        tmcap_em_signal(em, t->fid, sig, pc);
        /* the frame the kernel wrote: from the handler's stack pointer up
         * to the interrupted one's red zone (or 4 KB on another stack) */
        tmcap_word sp = PIN_GetContextReg(to, REG_RSP), old = PIN_GetContextReg(from, REG_RSP) - 128;
        tmcap_word len = old > sp && old - sp <= (64u << 10) ? old - sp : 4096;
        tmcap_em_sys_write(em, t->fid, sp, len);
    } else if (reason == CONTEXT_CHANGE_REASON_SIGRETURN) {
        put_pending(t);
        tmcap_em_sigret(em, t->fid);
    } else if (reason == CONTEXT_CHANGE_REASON_FATALSIGNAL) {
        /* the program dies of SIG: its stream ends here (as with Valgrind,
         * no handler runs, so no SIGNAL; the faulting block's operands so
         * far go out) */
        put_pending(t);
        tmcap_em_end(em, (unsigned)sig, 1);
    }
    PIN_ReleaseLock(&lk);
}

/* ------------------------------------------------------------ fork, end */

static VOID fork_before(THREADID, const CONTEXT *, VOID *)
{
    PIN_GetLock(&lk, 0);
    tmcap_em_fork_pre(em);
    PIN_ReleaseLock(&lk);
}

static VOID fork_child(THREADID, const CONTEXT *, VOID *)
{
    PIN_InitLock(&lk);
    tmcap_em_fork_child(em);
    rec_started = 0; /* the child's tm record is the parent's */
}

static VOID fini(INT32 code, VOID *)
{
    PIN_GetLock(&lk, 0);
    for (unsigned i = 0; i < MAX_THREADS; i++)
        if (ts[i])
            put_pending(ts[i]);
    tmcap_em_end(em, (unsigned)code, 0);
    PIN_ReleaseLock(&lk);
    if (rec_started) {
        /* run directly: the recording ends with the stream */
        OS_CloseFD(rec_wfd);
        UINT32 status = 0;
        if (OS_WaitForProcessTermination(rec_proc, &status).generic_err != OS_RETURN_CODE_NO_ERROR || status != 0)
            say("%s", "tm record failed (its message is above)");
    }
}

/* ------------------------------------------------------------ setup */

/* Run directly: tm record --capture - with the thesis knobs' equivalents,
 * reading the stream from a pipe.  The descriptor to write to, or -1. */
static int start_record(void)
{
    const char *kv[64];
    int kc = 0;
    struct {
        KNOB<std::string> *k;
        const char *name;
    } vals[] = {{&KnobMode, "-mode"}, {&KnobC, "-c"},        {&KnobF, "-f"},       {&KnobRtn, "-filter_rtn"},
                {&KnobL, "-l"},       {&KnobO, "-o"},        {&KnobS, "-s"},       {&KnobGshare, "-gshare"},
                {&KnobRas, "-RAS"},   {&KnobIbtb, "-iBTB"},  {&KnobCa, "-ca"},     {&KnobCfg, "-cfg"},
                {&KnobCls, "-cls"},   {&KnobCs, "-cs"}};
    struct {
        KNOB<BOOL> *k;
        const char *name;
    } flags[] = {{&KnobA, "-a"},         {&KnobD, "-d"},           {&KnobNoShared, "-filter_no_shared_libs"},
                 {&KnobStore, "-store"}, {&KnobShare, "-TRaptorShare"}, {&KnobCshare, "-cshare"}};
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!vals[i].k->Value().empty()) {
            kv[kc++] = vals[i].name;
            kv[kc++] = vals[i].k->Value().c_str();
        }
    for (unsigned i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (flags[i].k->Value())
            kv[kc++] = flags[i].name;
    const char *out[96];
    char err[512];
    int n = tm_knobs_to_record(kc, kv, out, 96, err, sizeof err);
    if (n < 0) {
        say("%s", err);
        return -1;
    }
    /* the command line, each word quoted for the shell */
    static char cmd[8192];
    size_t p = 0;
    const char *words[100];
    int nw = 0;
    words[nw++] = KnobTm.Value().c_str();
    words[nw++] = "record";
    words[nw++] = "--capture";
    words[nw++] = "-";
    for (int i = 0; i < n; i++)
        words[nw++] = out[i];
    for (int i = 0; i < nw; i++) {
        if (p + 4 >= sizeof cmd)
            break;
        cmd[p++] = '\'';
        for (const char *s = words[i]; *s && p + 6 < sizeof cmd; s++) {
            if (*s == '\'') {
                memcpy(cmd + p, "'\\''", 4);
                p += 4;
            } else {
                cmd[p++] = *s;
            }
        }
        cmd[p++] = '\'';
        cmd[p++] = ' ';
    }
    cmd[p ? p - 1 : 0] = 0;
    NATIVE_FD rfd, wfd;
    if (OS_Pipe(OS_PIPE_CREATE_FLAGS_READ_SIDE_INHERITABLE, &rfd, &wfd).generic_err != OS_RETURN_CODE_NO_ERROR) {
        say("%s", "cannot create the pipe to tm record");
        return -1;
    }
    NATIVE_FD std3[3] = {rfd, 1, 2};
    NATIVE_FD closef[2] = {wfd, INVALID_NATIVE_FD};
    if (OS_CreateProcess(cmd, std3, closef, environ, &rec_proc).generic_err != OS_RETURN_CODE_NO_ERROR) {
        say("cannot start %s (give its path with -tm PATH)", KnobTm.Value().c_str());
        return -1;
    }
    OS_CloseFD(rfd);
    rec_wfd = wfd;
    rec_started = 1;
    return (int)wfd;
}

static INT32 usage(void)
{
    fprintf(stderr, "tm_pin: the Pin frontend of tm (docs/pin.md)\n%s\n%s\n", KNOB_BASE::StringKnobSummary().c_str(),
            tm_knobs_help());
    return 2;
}

int main(int argc, char *argv[])
{
    if (PIN_Init(argc, argv))
        return usage();
    PIN_InitLock(&lk);
    if (!KnobLog.Value().empty()) {
        int fd = open(KnobLog.Value().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0)
            log_fd = fd;
    }
    tmcap_em_cfg C;
    memset(&C, 0, sizeof C);
    C.ack_fd = -1;
    C.sys_from_syscalls = 1;
    if (KnobFd.Value() >= 0) { /* under tm record */
        C.fd = KnobFd.Value();
        clo_mem = KnobMem.Value() ? 1 : 0;
        clo_store_values = KnobStoreValues.Value() ? 1 : 0;
        if (!KnobTiming.Value().empty()) {
            if (!tmf_cfg_parse(KnobTiming.Value().c_str(), &timing_cfg)) {
                say("-tm_timing %s: expected LINE/L1I/L1/L2/MEM/FLAGS/TURN/DRIFT, each cache SIZE:WAYS:LAT, in range",
                    KnobTiming.Value().c_str());
                return 1;
            }
            C.timing = &timing_cfg;
        }
        clo_addr = !clo_mem && C.timing;
        if (!KnobShm.Value().empty()) {
            long long v[4];
            const char *q = KnobShm.Value().c_str();
            for (int i = 0; i < 4; i++) {
                char *end;
                v[i] = strtoll(q, &end, 10);
                if (end == q || *end != (i < 3 ? ',' : 0) || v[i] < 0) {
                    say("-tm_shm %s: expected FD,ACK,SLOTS,BYTES", KnobShm.Value().c_str());
                    return 1;
                }
                q = end + 1;
            }
            if (v[2] < 2 || v[2] > 256 || v[3] < (64 << 10) || v[3] > (64 << 20) || v[3] % 8) {
                say("-tm_shm %s: 2..256 slots of 64 KB..64 MB (a multiple of 8 bytes)", KnobShm.Value().c_str());
                return 1;
            }
            void *m = mmap(NULL, (size_t)(v[2] * v[3]), PROT_READ | PROT_WRITE, MAP_SHARED, (int)v[0], 0);
            if (m == MAP_FAILED) {
                say("-tm_shm %s: cannot map the slots", KnobShm.Value().c_str());
                return 1;
            }
            close((int)v[0]);
            C.shm = (tmcap_word *)m;
            C.ack_fd = (int)v[1];
            C.slots = (unsigned)v[2];
            C.slot_bytes = (unsigned long)v[3];
        }
    } else { /* run directly */
        const std::string &mode = KnobMode.Value();
        clo_mem = mode == "mlstrace" || mode == "mlvcfiat" || mode == "mlsTrace" || mode == "mlvCFiat";
        clo_store_values = 1;
        int fd = start_record();
        if (fd < 0)
            return 2;
        C.fd = fd;
    }
    C.mem = clo_mem;
    C.store_values = clo_store_values;
    tmcap_platform P = {NULL, p_write, p_read, p_close, p_copy, p_readable, p_region, p_message, p_alloc, NULL, NULL};
    em = tmcap_em_new(&P, &C);
    if (!em) {
        say("%s", "out of memory");
        return 1;
    }
    TRACE_AddInstrumentFunction(trace_cb, 0);
    IMG_AddInstrumentFunction(image_cb, 0);
    PIN_AddThreadStartFunction(thread_start, 0);
    PIN_AddThreadFiniFunction(thread_fini, 0);
    PIN_AddSyscallEntryFunction(syscall_entry, 0);
    PIN_AddSyscallExitFunction(syscall_exit, 0);
    PIN_AddContextChangeFunction(context_change, 0);
    PIN_AddForkFunction(FPOINT_BEFORE, fork_before, 0);
    PIN_AddForkFunction(FPOINT_AFTER_IN_CHILD, fork_child, 0);
    PIN_AddFiniFunction(fini, 0);
    PIN_StartProgram();
    return 0;
}
