/* tm — what a frontend emits, shared by every frontend (the Valgrind tool in
 * vg-frontend/, the Pin tool in pin-frontend/): the capture wire format's
 * words (tm/capwire.h, docs/capture.md §1–2) and the classification of the
 * exits of a block.  A frontend only says what its platform tells it: the
 * instructions of a block (addresses, lengths, bytes), how control leaves it
 * (a jump kind, a constant or computed destination), the memory operands,
 * the threads, signals and system calls.  No includes but tm/capwire.h and
 * tm/x86op.h, no library calls: the Valgrind tool is built without libc. */
#ifndef TM_CAPEMIT_H
#define TM_CAPEMIT_H

#include "tm/capwire.h"
#include "tm/isa.h"
#include "tm/x86op.h"
#include "tm/a64op.h"
#include "tm/rvop.h"
#include "tm/tfront.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long tmcap_word;

/* How control leaves through an exit, as the platform says it (Valgrind's
 * IRJumpKind; Pin's instruction category). */
enum {
    TMCAP_JK_BORING = 0, /* a jump, a conditional branch, or falling through */
    TMCAP_JK_CALL,       /* a call */
    TMCAP_JK_RET,        /* a return */
    TMCAP_JK_SIG,        /* a fault or trap: the instruction raises a signal */
    TMCAP_JK_OTHER       /* a system call, a client request, a yield, ... */
};

/* One exit of a block: instruction index, TMCAP_X_* kind, TMCAP_XF_* flags,
 * target (constant exits). */
typedef struct tmcap_exit {
    unsigned insn;
    int kind;
    unsigned flags;
    tmcap_word target;
} tmcap_exit;

/* Classifies the transfer of block instruction K (at address A, LEN bytes
 * at BYTES) to DST (IS_CONST: a constant destination) with jump kind JK
 * (TMCAP_JK_*); FINAL for the block's end, else a side exit
 * (docs/capture.md §2: the classification in the frontends). */
static inline tmcap_exit tmcap_classify(unsigned k, tmcap_word a, unsigned len, const unsigned char *bytes, int jk,
                                        int is_const, tmcap_word dst, int final)
{
    tmcap_exit x = {k, TMCAP_X_FALL, 0, dst};
    tmcap_word fall = a + len, tgt = 0;
    int cc = 0;
    int what = tm_x86_op(bytes, len, a + len, &tgt, &cc);
    if (!is_const)
        x.flags = TMCAP_XF_DYN;
    if (jk == TMCAP_JK_SIG) {
        /* a fault: the instruction retires only if control is after it
         * (int3) */
        x.kind = is_const && dst == fall ? TMCAP_X_FALL : TMCAP_X_STAY;
        return x;
    }
    if (jk == TMCAP_JK_CALL) {
        /* the instruction decides: `call rax` stays indirect even when the
         * platform knows rax */
        x.kind = what == TM_X86_ICALL || (what != TM_X86_CALL && !is_const) ? TMCAP_X_ICALL : TMCAP_X_CALL;
        return x;
    }
    if (jk == TMCAP_JK_RET) {
        x.kind = TMCAP_X_RET;
        return x;
    }
    if (jk != TMCAP_JK_BORING) { /* system calls, client requests, yields, ... */
        x.kind = is_const && dst == a ? TMCAP_X_STAY : TMCAP_X_FALL;
        return x;
    }
    if (!is_const || what == TM_X86_IJMP) {
        x.kind = TMCAP_X_IJUMP;
        return x;
    }
    if (what == TM_X86_REP) {
        x.kind = dst == a ? TMCAP_X_STAY : TMCAP_X_FALL;
        return x;
    }
    if (what == TM_X86_JCC || what == TM_X86_LOOP) {
        x.target = tgt;
        if (tgt != fall) {
            x.kind = dst == tgt ? TMCAP_X_COND_T : TMCAP_X_COND_N;
        } else if (what == TM_X86_LOOP) {
            x.kind = final ? TMCAP_X_COND_N : TMCAP_X_COND_T;
        } else {
            /* Both ways lead to the next instruction: the side exit is the
             * "true" way for an even condition code (VEX's jcc_01; a
             * frontend without side exits takes the same rule). */
            int exit_true = (cc & 1) == 0;
            int taken = final ? !exit_true : exit_true;
            x.kind = taken ? TMCAP_X_COND_T : TMCAP_X_COND_N;
        }
        return x;
    }
    if (what == TM_X86_JMP) {
        x.kind = TMCAP_X_JUMP;
        x.target = tgt;
        return x;
    }
    x.kind = dst == fall ? TMCAP_X_FALL : TMCAP_X_JUMP;
    return x;
}

/* ---- event words (docs/capture.md §2) ---- */

/* Words of a BLOCK descriptor with NI instructions and NX exits. */
static inline unsigned tmcap_block_words(unsigned ni, unsigned nx)
{
    return 3 + ni + 2 * nx;
}

/* Writes the BLOCK descriptor of block ID (instruction addresses IA, lengths
 * IL, exits XS) to OUT, which has tmcap_block_words(NI, NX) words. */
static inline void tmcap_block(tmcap_word *out, tmcap_word id, const tmcap_word *ia, const unsigned *il, unsigned ni,
                               const tmcap_exit *xs, unsigned nx)
{
    unsigned p = 0;
    out[p++] = TMCAP_BLOCK | (tmcap_word)ni << 8 | (tmcap_word)nx << 24;
    out[p++] = id;
    out[p++] = ia[0];
    for (unsigned j = 0; j < ni; j++)
        out[p++] = (tmcap_word)il[j] | (tmcap_word)(ia[j] - ia[0]) << 8;
    for (unsigned j = 0; j < nx; j++) {
        out[p++] = (tmcap_word)xs[j].kind | (tmcap_word)xs[j].insn << 8 | (tmcap_word)xs[j].flags << 24;
        out[p++] = xs[j].target;
    }
}

/* EXEC: block ID left through exit X (the target word follows if the exit
 * is DYN). */
static inline tmcap_word tmcap_exec(tmcap_word id, unsigned x)
{
    return TMCAP_EXEC | (tmcap_word)x << 8 | id << 16;
}

/* The first word of a MEM of block instruction INSN: STORE, NOVALUE (a
 * store whose value is not needed), SIZE bytes (1..64; larger operands go
 * in 64-byte parts, each its own MEM). */
static inline tmcap_word tmcap_mem(int store, int novalue, unsigned size, unsigned insn)
{
    return TMCAP_MEM | (tmcap_word)(store ? TMCAP_MEM_STORE : 0) | (tmcap_word)(novalue ? TMCAP_MEM_NOVALUE : 0) |
           (tmcap_word)size << 16 | (tmcap_word)insn << 24;
}

/* The first word of a MEM written by the system (docs/capture.md §4). */
static inline tmcap_word tmcap_sys_mem(unsigned size)
{
    return TMCAP_MEM | 1ull << 8 | 1ull << 9 | (tmcap_word)size << 16 | 0xffffull << 24;
}

static inline tmcap_word tmcap_thread(unsigned tid)
{
    return TMCAP_THREAD | (tmcap_word)tid << 8;
}

/* CREATE (the uid follows). */
static inline tmcap_word tmcap_create(unsigned tid, unsigned parent)
{
    return TMCAP_CREATE | (tmcap_word)tid << 8 | (tmcap_word)parent << 32;
}

static inline tmcap_word tmcap_exit_thread(unsigned tid)
{
    return TMCAP_EXIT | (tmcap_word)tid << 8;
}

/* SIGNAL (the pc the thread would have run next follows). */
static inline tmcap_word tmcap_signal(unsigned tid, int sig)
{
    return TMCAP_SIGNAL | (tmcap_word)tid << 8 | (tmcap_word)(unsigned)sig << 32;
}

static inline tmcap_word tmcap_sigret(unsigned tid)
{
    return TMCAP_SIGRET | (tmcap_word)tid << 8;
}

static inline tmcap_word tmcap_syscall(unsigned tid, unsigned no, int leave)
{
    return TMCAP_SYSCALL | (tmcap_word)tid << 8 | (tmcap_word)(leave ? 1 : 0) << 32 | (tmcap_word)(no & 0xffff) << 40;
}

/* MAP (address, length, file offset and the path's words follow). */
static inline tmcap_word tmcap_map(unsigned pathlen)
{
    return TMCAP_MAP | (tmcap_word)pathlen << 8;
}

/* VDSO (address and the bytes' words follow). */
static inline tmcap_word tmcap_vdso(unsigned len)
{
    return TMCAP_VDSO | (tmcap_word)len << 8;
}

/* END: HOW 0 = exit with STATUS, 1 = killed by signal STATUS. */
static inline tmcap_word tmcap_end(unsigned status, unsigned how)
{
    return TMCAP_END | (tmcap_word)(status & 0xff) << 8 | (tmcap_word)(how & 0xff) << 16;
}

static inline tmcap_word tmcap_execve(unsigned tid)
{
    return TMCAP_EXECVE | (tmcap_word)tid << 8;
}


/* ---- the exits of a frontend that sees one instruction at a time (Pin) ----
 *
 * A platform whose blocks end at every control transfer (Pin's BBLs) knows
 * the block's last instruction K and how it left, taken or not: its exits,
 * in the order the frontend reports them (docs/pin.md):
 *   conditional direct branch: [0] taken (COND_T), [1] not taken (COND_N)
 *   rep-prefixed string instruction: [0] another iteration (STAY), [1] done (FALL)
 *   anything else: [0] the one way (JUMP, CALL, IJUMP, ICALL, RET; FALL for
 *   a system call or an instruction that ends the block without a transfer)
 * DIRECT: the destination is constant (a direct transfer or falling
 * through), TARGET that destination (for a direct transfer).  Returns the
 * number of exits (1 or 2) written to XS. */
static inline unsigned tmcap_last_exits(unsigned k, tmcap_word a, unsigned len, const unsigned char *bytes, int jk,
                                        int direct, tmcap_word target, tmcap_exit xs[2])
{
    tmcap_word fall = a + len, tgt = 0;
    int cc = 0;
    int what = tm_x86_op(bytes, len, fall, &tgt, &cc);
    if (jk == TMCAP_JK_BORING && (what == TM_X86_JCC || what == TM_X86_LOOP)) {
        xs[0].insn = xs[1].insn = k;
        xs[0].kind = TMCAP_X_COND_T;
        xs[1].kind = TMCAP_X_COND_N;
        xs[0].flags = xs[1].flags = 0;
        xs[0].target = xs[1].target = tgt;
        return 2;
    }
    if (jk == TMCAP_JK_BORING && what == TM_X86_REP) {
        xs[0].insn = xs[1].insn = k;
        xs[0].kind = TMCAP_X_STAY;
        xs[1].kind = TMCAP_X_FALL;
        xs[0].flags = xs[1].flags = 0;
        xs[0].target = a;
        xs[1].target = fall;
        return 2;
    }
    xs[0] = tmcap_classify(k, a, len, bytes, jk, direct, direct ? target : 0, 1);
    return 1;
}

/* ---- the exits of a block of another ISA (QEMU: AArch64, RISC-V) ----
 *
 * A control transfer's class, the same for every ISA that is not x86-64. */
enum {
    TMCAP_C_OTHER = 0, /* no control transfer */
    TMCAP_C_COND,      /* direct, conditional */
    TMCAP_C_JUMP,      /* direct jump */
    TMCAP_C_CALL,      /* direct call */
    TMCAP_C_IJUMP,     /* indirect jump */
    TMCAP_C_ICALL,     /* indirect call (RISC-V's pop-then-push JALR too) */
    TMCAP_C_RET,       /* return */
    TMCAP_C_SYSCALL,   /* SVC, ECALL */
    TMCAP_C_TRAP       /* always raises a synchronous exception (BRK, UDF, EBREAK...) */
};

/* Classifies the instruction of ISA (TM_ISA_AARCH64, TM_ISA_RV64) at P
 * (AVAIL bytes readable), whose address is PC: a TMCAP_C_* class, its
 * length in *LEN (0: not an instruction the classifiers know), the direct
 * target in *TARGET (COND, JUMP, CALL). */
static inline int tmcap_isa_op(int isa, const unsigned char *p, unsigned avail, tmcap_word pc, unsigned *len,
                               tmcap_word *target)
{
    unsigned long long t = 0;
    int c = TMCAP_C_OTHER;
    *len = 0;
    if (isa == TM_ISA_AARCH64) {
        switch (tm_a64_op(p, avail, pc, len, &t)) {
        case TM_A64_COND: c = TMCAP_C_COND; break;
        case TM_A64_JUMP: c = TMCAP_C_JUMP; break;
        case TM_A64_CALL: c = TMCAP_C_CALL; break;
        case TM_A64_ICALL: c = TMCAP_C_ICALL; break;
        case TM_A64_IJUMP: c = TMCAP_C_IJUMP; break;
        case TM_A64_RET: c = TMCAP_C_RET; break;
        case TM_A64_SYSCALL: c = TMCAP_C_SYSCALL; break;
        case TM_A64_TRAP: c = TMCAP_C_TRAP; break;
        default: break;
        }
    } else if (isa == TM_ISA_RV64) {
        switch (tm_rv_op(p, avail, pc, len, &t)) {
        case TM_RV_COND: c = TMCAP_C_COND; break;
        case TM_RV_JUMP: c = TMCAP_C_JUMP; break;
        case TM_RV_CALL: c = TMCAP_C_CALL; break;
        case TM_RV_ICALL: case TM_RV_ICALL_RET: c = TMCAP_C_ICALL; break; /* pop-then-push: a call */
        case TM_RV_IJUMP: c = TMCAP_C_IJUMP; break;
        case TM_RV_RET: c = TMCAP_C_RET; break;
        case TM_RV_SYSCALL: c = TMCAP_C_SYSCALL; break;
        case TM_RV_TRAP: c = TMCAP_C_TRAP; break;
        default: break;
        }
    }
    *target = t;
    return c;
}

/* The exits of a block of ISA whose last instruction K is at A (class CLS,
 * LEN bytes, direct target TGT: tmcap_isa_op), as tmcap_last_exits gives
 * them: COND: [0] taken (COND_T), [1] not taken (COND_N); JUMP, CALL: [0]
 * with the target; IJUMP, ICALL, RET: [0] DYN; anything else (a system
 * call, a trap, an instruction that ends the block without a transfer):
 * [0] FALL to the next instruction.  The number of exits. */
static inline unsigned tmcap_isa_exits(unsigned k, tmcap_word a, unsigned len, int cls, tmcap_word tgt,
                                       tmcap_exit xs[2])
{
    int kind = cls == TMCAP_C_JUMP    ? TMCAP_X_JUMP
               : cls == TMCAP_C_CALL  ? TMCAP_X_CALL
               : cls == TMCAP_C_IJUMP ? TMCAP_X_IJUMP
               : cls == TMCAP_C_ICALL ? TMCAP_X_ICALL
                                      : TMCAP_X_RET;
    xs[0].insn = xs[1].insn = k;
    xs[0].flags = xs[1].flags = 0;
    switch (cls) {
    case TMCAP_C_COND:
        xs[0].kind = TMCAP_X_COND_T;
        xs[1].kind = TMCAP_X_COND_N;
        xs[0].target = xs[1].target = tgt;
        return 2;
    case TMCAP_C_JUMP: case TMCAP_C_CALL:
        xs[0].kind = kind;
        xs[0].target = tgt;
        return 1;
    case TMCAP_C_IJUMP: case TMCAP_C_ICALL: case TMCAP_C_RET:
        xs[0].kind = kind;
        xs[0].flags = TMCAP_XF_DYN;
        xs[0].target = 0;
        return 1;
    default:
        xs[0].kind = TMCAP_X_FALL;
        xs[0].target = a + len;
        return 1;
    }
}

/* How a rep-prefixed string instruction (BYTES, LEN) goes on after an
 * iteration that left its count nonzero: 0 always (movs, stos, lods, ins,
 * outs), 1 while ZF is set (repe cmps/scas), 2 while ZF is clear (repne). */
static inline int tmcap_rep_cond(const unsigned char *bytes, unsigned len)
{
    unsigned i = 0;
    int f2 = 0;
    for (; i < len; i++) {
        unsigned char b = bytes[i];
        if (b == 0xF2 || b == 0xF3)
            f2 = b == 0xF2;
        else if (!(b == 0x66 || b == 0x67 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 ||
                   b == 0x65 || b == 0xF0 || (b >= 0x40 && b <= 0x4F)))
            break;
    }
    if (i >= len)
        return 0;
    unsigned char op = bytes[i];
    if (op == 0xA6 || op == 0xA7 || op == 0xAE || op == 0xAF)
        return f2 ? 2 : 1;
    return 0;
}

/* ---- the emitter: everything a frontend emits, and when ----
 *
 * One emitter per traced process; its calls are not thread-safe (the
 * Valgrind tool runs one thread at a time; the Pin tool calls it under a
 * lock).  The frontend says what happened in its platform's terms; the
 * emitter writes the capture stream (buffering, the shared-memory slots or
 * the pipe), watches the words the kernel writes on its own (CLEARTID,
 * PARENT_SETTID), reports memory whose contents changed outside the
 * program's instructions (docs/capture.md §4), and marks system calls,
 * execve and the end.  Freestanding C like the rest of this header: the
 * platform's services come through tmcap_platform. */

typedef struct tmcap_platform {
    void *ctx;
    /* write(2)/read(2)/close(2) on the channel's descriptors: bytes, or < 0 */
    long (*write)(void *ctx, int fd, const void *p, unsigned long n);
    long (*read)(void *ctx, int fd, void *p, unsigned long n);
    void (*close)(void *ctx, int fd);
    /* Copies N bytes of the program's memory at A to DST: 1, or 0 if they
     * cannot be read (the Valgrind tool reads an operand the instruction
     * has just accessed directly). */
    int (*copy)(void *ctx, void *dst, tmcap_word a, unsigned long n);
    /* Whether N bytes at A are the program's readable memory. */
    int (*readable)(void *ctx, tmcap_word a, unsigned long n);
    /* The program's memory from A: the end of its region (at most HI) and
     * in *READABLE whether the program can read it. */
    tmcap_word (*region)(void *ctx, tmcap_word a, tmcap_word hi, int *readable);
    /* A message for the user (the tool's log): one line, no newline. */
    void (*message)(void *ctx, const char *msg);
    /* Memory that lives as long as the process (never freed). */
    void *(*alloc)(void *ctx, unsigned long n);
    /* The running thread lets the others run soon (NULL: the platform
     * cannot): it ran ahead of them in time (tm/tfront.h's tmf_ahead,
     * tmf_behind).  TRIES > 0: at an atomic instruction, the TRIES-th
     * time in a row it waits for the same thread; it also gives its
     * processor up for a while, more as TRIES grows (that thread may need
     * one to come back from the system).  TRIES 0: it ran ahead of the
     * others (the platform may let them run at its next block). */
    void (*yield)(void *ctx, unsigned tries);
    /* Whether thread TID sleeps in the kernel in a futex wait on word A
     * (1), or runs, waits for the platform's lock, or is not known (0);
     * NULL: never known. */
    int (*asleep)(void *ctx, unsigned tid, tmcap_word a);
} tmcap_platform;

typedef struct tmcap_em_cfg {
    int fd;               /* the channel: the stream, or with SHM the slots' lengths */
    int mem;              /* memory operands and the system's writes (MEM events) */
    int store_values;     /* the values of the program's stores */
    tmcap_word *shm;      /* the shared-memory slots (NULL: the stream through FD) */
    int ack_fd;           /* with SHM: one byte per slot the reader is done with */
    unsigned slots;       /* with SHM: SLOTS slots of SLOT_BYTES bytes */
    unsigned long slot_bytes;
    /* 1 when the platform reports no memory events (Pin): the system calls'
     * outputs and the address space's changes come from the system calls
     * themselves (tmcap_em_syscall_post) */
    int sys_from_syscalls;
    /* The machine the accesses are timed on (the timing model's frontend
     * half, tm/tfront.h), or NULL: none (tm record --timing serial). */
    const tmf_cfg *timing;
} tmcap_em_cfg;

typedef struct tmcap_em tmcap_em;

/* A new emitter (memory from P->alloc), which has written the stream's
 * magic word; NULL if there was no memory. */
tmcap_em *tmcap_em_new(const tmcap_platform *p, const tmcap_em_cfg *cfg);
/* The same for a program of instruction set ISA (TM_ISA_*, tm/isa.h): not
 * x86-64, the stream opens with the ISA event, and the system call numbers
 * the emitter is given (tmcap_em_syscall_pre/post) are that ISA's (AArch64
 * and RISC-V: Linux's generic table, asm-generic/unistd.h). */
tmcap_em *tmcap_em_new_isa(const tmcap_platform *p, const tmcap_em_cfg *cfg, int isa);
/* Whether the channel is still open (a write failed: tracing stopped). */
int tmcap_em_open(const tmcap_em *em);

/* The descriptor of block ID (before it runs). */
void tmcap_em_block(tmcap_em *em, tmcap_word id, const tmcap_word *ia, const unsigned *il, unsigned ni,
                    const tmcap_exit *xs, unsigned nx);
/* The running thread left a block: W0 = tmcap_exec(id, exit); TARGET for a
 * DYN exit. */
void tmcap_em_exec(tmcap_em *em, tmcap_word w0);
void tmcap_em_exec_dyn(tmcap_em *em, tmcap_word w0, tmcap_word target);
/* The running thread is about to run an atomic instruction: 1 if it may,
 * 0 if a running thread is behind it in time and it must let the others
 * run first (the platform's yield was called: the caller runs the
 * instruction again later, and asks again).  1 unless the machine has
 * TMF_SYNC and the platform a yield (tm/tfront.h's tmf_behind). */
int tmcap_em_turn(tmcap_em *em);
/* A memory operand of the running thread: W0 = tmcap_mem(...) or
 * tmcap_sys_mem(size), at A; its value is read from memory now (a load's
 * before, a store's after the instruction), or given in VALUE (SIZE bytes;
 * NULL: read now). */
void tmcap_em_mem(tmcap_em *em, tmcap_word w0, tmcap_word a);
void tmcap_em_mem_value(tmcap_em *em, tmcap_word w0, tmcap_word a, const void *value);
/* A memory operand of the running thread whose value is not captured
 * (cfg.mem 0): SIZE bytes (1..64) at A, a STORE or a load, timed only. */
void tmcap_em_access(tmcap_em *em, tmcap_word a, unsigned size, int store);

/* Thread TID runs now (the following events are its own); the watched
 * words are checked. */
void tmcap_em_resume(tmcap_em *em, unsigned tid);
void tmcap_em_thread_create(tmcap_em *em, unsigned parent, unsigned child);
void tmcap_em_thread_exit(tmcap_em *em, unsigned tid);
/* A handler for SIG starts on TID, which would have run PC next; returns. */
void tmcap_em_signal(tmcap_em *em, unsigned tid, int sig, tmcap_word pc);
void tmcap_em_sigret(tmcap_em *em, unsigned tid);

/* An executable file mapping (PATH, PATHLEN bytes, mapped from file offset
 * OFF), and the vdso (LEN bytes at A, read from memory). */
void tmcap_em_map(tmcap_em *em, tmcap_word a, tmcap_word len, tmcap_word off, const char *path, unsigned pathlen);
void tmcap_em_vdso(tmcap_em *em, tmcap_word a, tmcap_word len);
/* The same with the image's bytes given (LEN at BYTES; the QEMU frontend's
 * image of its signal trampoline, docs/qemu.md §7) instead of read at A. */
void tmcap_em_vdso_bytes(tmcap_em *em, tmcap_word a, const void *bytes, tmcap_word len);

/* The system wrote LEN bytes at A for TID (0: the running thread). */
void tmcap_em_sys_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len);
/* The platform's report of a system write (Valgrind's post_mem_write):
 * the words a clone is watched for are left to the watch. */
void tmcap_em_post_mem_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len);
/* [A, A+LEN) was unmapped; has new contents (a mapping, brk, mprotect
 * making it readable): the parts over earlier unmapped ranges are reported
 * as system writes of TID; moved from FROM to TO. */
void tmcap_em_unmapped(tmcap_em *em, tmcap_word a, tmcap_word len);
void tmcap_em_new_contents(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len);
void tmcap_em_remapped(tmcap_em *em, tmcap_word from, tmcap_word to, tmcap_word len);

/* System call NO of TID with ARGS (6) enters; leaves with result RES (ERR:
 * it failed). */
void tmcap_em_syscall_pre(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args);
void tmcap_em_syscall_post(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args, tmcap_word res,
                           int err);

/* fork: before (the stream so far goes out), in the child (it runs on
 * untraced: the channel is closed, what it would emit is dropped). */
void tmcap_em_fork_pre(tmcap_em *em);
void tmcap_em_fork_child(tmcap_em *em);
/* The program ended (tmcap_end's STATUS and HOW); the stream is flushed.
 * Only the first call emits END (a platform may say it twice: a fatal
 * signal, then the end). */
void tmcap_em_end(tmcap_em *em, unsigned status, unsigned how);
void tmcap_em_flush(tmcap_em *em);

/* The memory a system call wrote, for a platform that does not say
 * (Pin): up to MAX ranges [A[i], A[i] + LEN[i]) written by system call NO
 * with ARGS that returned RES (not an error); READ gets memory the ranges
 * depend on (iovecs, lengths).  The number of ranges. */
unsigned tmcap_syscall_writes(unsigned no, const tmcap_word *args, tmcap_word res,
                              int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                              tmcap_word *a, tmcap_word *len, unsigned max);

/* The same for ISA's system call numbers and argument order (TM_ISA_*:
 * x86-64 is tmcap_syscall_writes; AArch64 and RISC-V use Linux's generic
 * table and structure sizes). */
unsigned tmcap_syscall_writes_isa(int isa, unsigned no, const tmcap_word *args, tmcap_word res,
                                  int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                                  tmcap_word *a, tmcap_word *len, unsigned max);

/* A line of /proc/self/maps (N bytes, without its newline): its range,
 * permissions (bit 0 r, 1 w, 2 x), file offset and path (PATH, *PATHLEN
 * bytes; 0 for none).  1 if it parsed. */
typedef struct tmcap_maps_line {
    tmcap_word lo, hi, off;
    unsigned perms;
    const char *path;
    unsigned pathlen;
} tmcap_maps_line;
int tmcap_parse_maps_line(const char *s, unsigned n, tmcap_maps_line *m);

#ifdef __cplusplus
}
#endif
#endif
