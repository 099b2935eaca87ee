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
#include "tm/x86op.h"

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

#endif
