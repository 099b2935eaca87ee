/* tmtrace — the Valgrind frontend of tm (docs/capture.md).
 *
 * A thin Valgrind tool: it describes each superblock it instruments as a
 * BLOCK (its instructions and the exits that leave it, classified as the
 * commit stream's branch classes), and at run time reports which exit each
 * executed block took (EXEC, with the block run's stalls when it times the
 * accesses), the memory operands with their values (MEM), the timing
 * model's dependencies (DEP), thread creation, switches and exits, signal
 * delivery and return, system calls, and the executable mappings.
 * Everything else (the clocks, groups, thread ids, the model) is done by
 * `tm record` on the other end of the pipe, with code shared by every
 * frontend (capture/, timing/).
 *
 * Options: --tm-fd=N (the pipe, required), --tm-mem=yes|no (memory
 * operands, default no), --tm-timing=MACHINE (the timing model's frontend
 * half times the memory operands and instruction fetches on MACHINE,
 * tm/tfront.h's text: caches, and the order of the threads' accesses;
 * default none), --tm-store-values=yes|no (the values of the program's
 * stores, default yes), --tm-shm=FD,ACK,SLOTS,BYTES (the stream goes
 * through shared memory, the pipe carries only slot lengths:
 * docs/capture.md §1).  Superblock chasing is switched off so that every
 * control transfer ends a block. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_threadstate.h"
#include "libvex_guest_amd64.h"
#include "tm/capemit.h"

/* ------------------------------------------------------------ output */

/* Not in the tool headers, but exported by libcoregrind (Valgrind's
 * gdbserver shares memory with vgdb through it): maps FD shared, at an
 * address of Valgrind's own. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);
/* Also exported by libcoregrind, not declared for tools: moves FD into
 * Valgrind's reserved range (above the program's descriptor limit,
 * close-on-exec), where the program can neither see, write nor close it. */
extern Int VG_(safe_fd)(Int oldfd);

static Int out_fd = -1;
static Long clo_log_fd = -1; /* --tm-log-fd: Valgrind's --log-fd, to close */
static Bool clo_mem = False;
static const HChar *clo_timing; /* --tm-timing: the machine (tm/tfront.h's text) */
static Bool clo_sync;            /* its flags have TMF_SYNC */
static tmf_cfg timing_cfg;
static Bool clo_store_values = True;
static ULong next_id = 1;
/* --tm-shm=FD,ACK,SLOTS,BYTES: the stream through shared memory */
static const HChar *clo_shm;
/* What is emitted, and when: the frontends' shared emitter (tm/capemit.h). */
static tmcap_em *em;

/* ---- the platform's services for the emitter ---- */

static long p_write(void *ctx, int fd, const void *p, unsigned long n) { (void)ctx; return VG_(write)(fd, p, (Int)n); }
static long p_read(void *ctx, int fd, void *p, unsigned long n) { (void)ctx; return VG_(read)(fd, p, (Int)n); }
static void p_close(void *ctx, int fd) { (void)ctx; VG_(close)(fd); }
/* an operand the instruction has just accessed, a watched word known to be
 * readable: read directly */
static int p_copy(void *ctx, void *dst, tmcap_word a, unsigned long n)
{
    (void)ctx;
    VG_(memcpy)(dst, (const void *)(Addr)a, n);
    return 1;
}
static int p_readable(void *ctx, tmcap_word a, unsigned long n)
{
    (void)ctx;
    return VG_(am_is_valid_for_client)((Addr)a, n, VKI_PROT_READ);
}
static tmcap_word p_region(void *ctx, tmcap_word a, tmcap_word hi, int *readable)
{
    (void)ctx; (void)hi;
    NSegment const *seg = VG_(am_find_nsegment)((Addr)a);
    if (!seg)
        return 0;
    *readable = seg->hasR && (seg->kind == SkFileC || seg->kind == SkAnonC || seg->kind == SkShmC);
    return (tmcap_word)seg->end + 1;
}
static void p_message(void *ctx, const char *msg) { (void)ctx; VG_(umsg)("tmtrace: %s\n", msg); }
static void *p_alloc(void *ctx, unsigned long n) { (void)ctx; return VG_(malloc)("tmtrace.em", n); }
/* The running thread's timeslice ends after its current block: its event
 * counter (the guest state's host_EvC_COUNTER, which the dispatcher counts
 * down at every block) to zero.  With --fair-sched=yes the next thread in
 * the queue runs (the timing model's turns of time, tm/tfront.h). */
static void p_yield(void *ctx, unsigned tries)
{
    (void)ctx;
    UInt zero = 0;
    VG_(set_shadow_regs_area)(VG_(get_running_tid)(), 0, offsetof(VexGuestAMD64State, host_EvC_COUNTER), sizeof zero,
                              (const UChar *)&zero);
    if (tries > 2) {
        /* the thread waited for is back from the kernel but not yet at
         * Valgrind's lock: the processor to it, for a moment (the tool
         * has no call for this: the system call itself) */
        struct { long s, ns; } ts = {0, tries < 8 ? 0 : tries < 32 ? 20000 : 100000};
        long ret, nr = ts.ns ? 35 /* nanosleep */ : 24 /* sched_yield */;
        __asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(&ts), "S"(0) : "rcx", "r11", "memory");
        (void)ret;
    }
}

/* The threads' kernel ids (their first run records them). */
#define MAX_LWPS 1024
static Int lwp_of[MAX_LWPS];

/* Whether thread TID sleeps in a futex wait on A: the kernel's
 * /proc/self/task/LWP/syscall shows the call it is blocked in ("202 0xA
 * ..." for futex on amd64), "running" if it runs.  A thread waiting for
 * Valgrind's lock sleeps in a futex too, on another word. */
static int p_asleep(void *ctx, unsigned tid, tmcap_word a)
{
    (void)ctx;
    if (tid >= MAX_LWPS || !lwp_of[tid])
        return 0;
    HChar path[64], buf[128];
    VG_(sprintf)(path, "/proc/self/task/%d/syscall", lwp_of[tid]);
    SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
    if (sr_isError(r))
        return 0;
    Int fd = (Int)sr_Res(r), n = VG_(read)(fd, buf, sizeof buf - 1);
    VG_(close)(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    HChar *end;
    if (VG_(strtoll10)(buf, &end) != 202 || *end != ' ')
        return 0;
    return VG_(strtoll16)(end + 1, &end) == (Long)a;
}

/* ------------------------------------------------------------ helpers */

static VG_REGPARM(1) void h_exec(ULong w0)
{
    tmcap_em_exec(em, w0);
}

static VG_REGPARM(2) void h_exec_dyn(ULong w0, ULong target)
{
    tmcap_em_exec_dyn(em, w0, target);
}

/* w0 is the MEM word; the operand is read from memory, which for a load is
 * what it read and for a store what it wrote. */
static VG_REGPARM(2) void h_mem(ULong w0, Addr a)
{
    tmcap_em_mem(em, w0, a);
}

/* An operand timed only: INFO = store | size << 8. */
static VG_REGPARM(2) void h_access(ULong info, Addr a)
{
    tmcap_em_access(em, a, (unsigned)(info >> 8), (int)(info & 1));
}

/* ------------------------------------------------------------ instrument */

static void scan_vdso(void);

#define MAX_INSNS 512
#define MAX_EXITS 64

typedef tmcap_exit xdesc;

static Bool is_sig(IRJumpKind jk)
{
    return jk == Ijk_SigTRAP || jk == Ijk_SigSEGV || jk == Ijk_SigBUS || jk == Ijk_SigILL ||
           jk == Ijk_SigFPE || jk == Ijk_SigFPE_IntDiv || jk == Ijk_SigFPE_IntOvf || jk == Ijk_NoDecode;
}

/* Classifies a transfer of block instruction K (address A, LEN bytes) to
 * DST (IS_CONST) with jump kind JK; FINAL for the block's end: VEX's jump
 * kind as the shared classification takes it (tm/capemit.h). */
static xdesc classify(UInt k, Addr a, UInt len, IRJumpKind jk, Bool is_const, ULong dst, Bool final)
{
    int j = is_sig(jk) ? TMCAP_JK_SIG
            : jk == Ijk_Call ? TMCAP_JK_CALL
            : jk == Ijk_Ret ? TMCAP_JK_RET
            : jk == Ijk_Boring ? TMCAP_JK_BORING
                               : TMCAP_JK_OTHER;
    return tmcap_classify(k, a, len, (const unsigned char *)a, j, is_const, dst, final);
}

static void add_mem_call(IRSB *sb, UInt insn, Bool store, UInt size, IRExpr *addr, IRExpr *guard)
{
    while (size > 0) { /* operands above 64 bytes (fxsave, xsave) in 64-byte parts */
        UInt s = size > 64 ? 64 : size;
        IRExpr *a = addr; /* an atom; parts after the first get a new one */
        IRDirty *d;
        if (clo_mem)
            d = unsafeIRDirty_0_N(2, "tm_mem", VG_(fnptr_to_fnentry)(h_mem),
                                  mkIRExprVec_2(IRExpr_Const(IRConst_U64(tmcap_mem(store, store && !clo_store_values,
                                                                                   s, insn))),
                                                a));
        else
            d = unsafeIRDirty_0_N(2, "tm_access", VG_(fnptr_to_fnentry)(h_access),
                                  mkIRExprVec_2(IRExpr_Const(IRConst_U64((ULong)(store ? 1 : 0) | (ULong)s << 8)), a));
        if (guard)
            d->guard = guard;
        addStmtToIRSB(sb, IRStmt_Dirty(d));
        size -= s;
        if (size) {
            IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
            addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Add64, addr, IRExpr_Const(IRConst_U64(64)))));
            addr = IRExpr_RdTmp(t);
        }
    }
}

/* Instruction K (at A, LEN bytes) has ended without a side exit of its
 * own: if it is a conditional branch (loop, jrcxz: VEX gives them a side
 * exit and goes on) whose condition VEX knew and found false (iropt folded
 * the exit away), its exit is described all the same, never taken. */
static void folded_exit(xdesc *xs, UInt *nx, UInt k, ULong a, UInt len)
{
    if (*nx && xs[*nx - 1].insn == k)
        return;
    unsigned long long tgt = 0;
    int cc = 0;
    int what = tm_x86_op((const unsigned char *)a, len, a + len, &tgt, &cc);
    if (what != TM_X86_JCC && what != TM_X86_LOOP)
        return;
    if (*nx == MAX_EXITS - 1)
        VG_(tool_panic)("tmtrace: too many exits");
    xs[(*nx)++] = classify(k, a, len, Ijk_Boring, True, tgt, False);
}

/* A conditional branch to the next instruction (at A, LEN bytes) that
 * ends a block of NI instructions without a side exit: VEX knew its
 * condition (iropt level 2) and folded the exit, so both ways look alike.
 * A loop, loope, loopne or jrcxz does not end a block (VEX goes on after
 * its side exit): ending one, it was taken (the rest of the block cut off
 * as never reached), unless the block is as long as VEX allows.  A jcc
 * ends every block: its outcome is not known, recorded as not taken and
 * counted (the tool's log says how many at the end). */
static ULong folded_unknown;
static int folded_to_next(ULong a, UInt len, UInt ni)
{
    unsigned long long tgt = 0;
    int cc = 0;
    if (tm_x86_op((const unsigned char *)a, len, a + len, &tgt, &cc) == TM_X86_LOOP)
        return ni < (UInt)VG_(clo_vex_control).guest_max_insns ? TMCAP_X_COND_T : TMCAP_X_COND_N;
    folded_unknown++;
    return TMCAP_X_COND_N;
}

/* TMF_SYNC: whether the thread may run its atomic instruction now
 * (tmcap_em_turn); 0: it yielded, the block starts again. */
static ULong h_turn(void) { return (ULong)tmcap_em_turn(em); }

/* The instruction (its index) with the block's first atomic operation (a
 * CAS: lock-prefixed instructions, xchg with memory), or -1. */
static Int first_atomic(const IRSB *in)
{
    Int insn = -1;
    for (Int i = 0; i < in->stmts_used; i++) {
        const IRStmt *st = in->stmts[i];
        if (!st)
            continue;
        if (st->tag == Ist_IMark)
            insn++;
        else if ((st->tag == Ist_CAS || st->tag == Ist_LLSC) && insn >= 0)
            return insn;
    }
    return -1;
}

static IRSB *tm_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy,
                           IRType hWordTy)
{
    (void)closure; (void)layout; (void)vge; (void)archinfo_host; (void)hWordTy;
    if (gWordTy != Ity_I64)
        VG_(tool_panic)("tmtrace: 64-bit guests only");
    static ULong ia[MAX_INSNS];
    static UInt il[MAX_INSNS];
    static xdesc xs[MAX_EXITS];
    UInt ni = 0, nx = 0;
    ULong id = next_id++;
    /* the loads of the current instruction */
    enum { MAX_LOADS = 8 };
    IRExpr *load_addr[MAX_LOADS];
    UInt load_size[MAX_LOADS], nloads = 0;

    static Bool scanned = False;
    if (!scanned) {
        scanned = True;
        scan_vdso();
    }
    Bool ops = clo_mem || clo_timing; /* memory operands: MEM events, or timed only */
    /* TMF_SYNC: an atomic instruction begins a block of its own, which
     * asks first whether the thread may go on (h_turn) and else starts
     * again, after the others ran (docs/capture.md §3) */
    Int cut = clo_sync ? first_atomic(in) : -1;
    IRExpr *next = in->next;
    IRJumpKind jk = in->jumpkind;
    IRSB *out = deepCopyIRSBExceptStmts(in);
    Int i = 0;
    for (; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
        addStmtToIRSB(out, in->stmts[i]);
    for (; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st)
            continue;
        UInt k = ni ? ni - 1 : 0;
        switch (st->tag) {
        case Ist_IMark:
            if (ni)
                folded_exit(xs, &nx, k, ia[k], il[k]);
            if (cut > 0 && ni == (UInt)cut) { /* the block ends before the atomic instruction */
                next = IRExpr_Const(IRConst_U64((ULong)st->Ist.IMark.addr));
                jk = Ijk_Boring;
                i = in->stmts_used;
                break;
            }
            nloads = 0;
            if (ni == MAX_INSNS)
                VG_(tool_panic)("tmtrace: block too long");
            ia[ni] = (ULong)st->Ist.IMark.addr;
            il[ni] = st->Ist.IMark.len;
            ni++;
            addStmtToIRSB(out, st);
            if (cut == 0 && ni == 1) {
                IRTemp go = newIRTemp(out->tyenv, Ity_I64), stop = newIRTemp(out->tyenv, Ity_I1);
                IRDirty *d = unsafeIRDirty_1_N(go, 0, "tm_turn", VG_(fnptr_to_fnentry)(h_turn), mkIRExprVec_0());
                addStmtToIRSB(out, IRStmt_Dirty(d));
                addStmtToIRSB(out, IRStmt_WrTmp(stop, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(go),
                                                                    IRExpr_Const(IRConst_U64(0)))));
                addStmtToIRSB(out, IRStmt_Exit(IRExpr_RdTmp(stop), Ijk_Boring, IRConst_U64(ia[0]), in->offsIP));
            }
            break;
        case Ist_Exit: {
            if (nx == MAX_EXITS - 1)
                VG_(tool_panic)("tmtrace: too many exits");
            const IRConst *c = st->Ist.Exit.dst;
            xdesc x = classify(k, ia[k], il[k], st->Ist.Exit.jk, True, c->Ico.U64, False);
            ULong w0 = tmcap_exec(id, nx);
            IRDirty *d = unsafeIRDirty_0_N(1, "tm_exec", VG_(fnptr_to_fnentry)(h_exec),
                                           mkIRExprVec_1(IRExpr_Const(IRConst_U64(w0))));
            d->guard = st->Ist.Exit.guard;
            addStmtToIRSB(out, IRStmt_Dirty(d));
            xs[nx++] = x;
            addStmtToIRSB(out, st);
            break;
        }
        case Ist_WrTmp:
            addStmtToIRSB(out, st);
            if (ops && st->Ist.WrTmp.data->tag == Iex_Load) {
                IRExpr *e = st->Ist.WrTmp.data;
                add_mem_call(out, k, False, sizeofIRType(e->Iex.Load.ty), e->Iex.Load.addr, NULL);
                if (nloads < MAX_LOADS) {
                    load_addr[nloads] = e->Iex.Load.addr;
                    load_size[nloads++] = sizeofIRType(e->Iex.Load.ty);
                }
            }
            break;
        case Ist_Store:
            addStmtToIRSB(out, st);
            if (ops)
                add_mem_call(out, k, True, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)),
                             st->Ist.Store.addr, NULL);
            break;
        case Ist_LoadG: {
            addStmtToIRSB(out, st);
            if (ops) {
                IRLoadG *lg = st->Ist.LoadG.details;
                IRType tw, tl;
                typeOfIRLoadGOp(lg->cvt, &tw, &tl);
                add_mem_call(out, k, False, sizeofIRType(tl), lg->addr, lg->guard);
            }
            break;
        }
        case Ist_StoreG: {
            addStmtToIRSB(out, st);
            if (ops) {
                IRStoreG *sg = st->Ist.StoreG.details;
                add_mem_call(out, k, True, sizeofIRType(typeOfIRExpr(in->tyenv, sg->data)), sg->addr,
                             sg->guard);
            }
            break;
        }
        case Ist_CAS: {
            IRCAS *cas = st->Ist.CAS.details;
            UInt sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
            /* lock add/xadd, xchg: VEX loads the operand, then a CAS
             * stores it: the CAS's load is that same load */
            Bool loaded = False;
            for (UInt q = 0; q < nloads; q++)
                loaded |= load_size[q] == sz && eqIRAtom(load_addr[q], cas->addr);
            if (ops && !loaded)
                add_mem_call(out, k, False, sz, cas->addr, NULL);
            addStmtToIRSB(out, st);
            if (ops) /* x86 writes back even when the comparison fails */
                add_mem_call(out, k, True, sz, cas->addr, NULL);
            break;
        }
        case Ist_Dirty: {
            IRDirty *dd = st->Ist.Dirty.details;
            Bool rd = dd->mFx == Ifx_Read || dd->mFx == Ifx_Modify;
            Bool wr = dd->mFx == Ifx_Write || dd->mFx == Ifx_Modify;
            if (ops && rd && dd->mSize > 0)
                add_mem_call(out, k, False, (UInt)dd->mSize, dd->mAddr, dd->guard);
            addStmtToIRSB(out, st);
            if (ops && wr && dd->mSize > 0)
                add_mem_call(out, k, True, (UInt)dd->mSize, dd->mAddr, dd->guard);
            break;
        }
        default:
            addStmtToIRSB(out, st);
            break;
        }
    }
    if (ni == 0) {
        /* No guest instruction (should not happen): nothing to report. */
        return out;
    }
    /* The block's end. */
    UInt k = ni - 1;
    out->next = next;
    out->jumpkind = jk;
    Bool is_const = next->tag == Iex_Const;
    ULong dst = is_const ? next->Iex.Const.con->Ico.U64 : 0;
    xdesc x = classify(k, ia[k], il[k], jk, is_const, dst, True);
    if (!clo_mem && (x.kind == TMCAP_X_COND_N || x.kind == TMCAP_X_COND_T) && x.target == ia[k] + il[k] &&
        !(nx && xs[nx - 1].insn == k))
        x.kind = folded_to_next(ia[k], il[k], ni);
    ULong w0 = tmcap_exec(id, nx);
    IRDirty *d;
    if (x.flags & TMCAP_XF_DYN)
        d = unsafeIRDirty_0_N(2, "tm_exec_dyn", VG_(fnptr_to_fnentry)(h_exec_dyn),
                              mkIRExprVec_2(IRExpr_Const(IRConst_U64(w0)), next));
    else
        d = unsafeIRDirty_0_N(1, "tm_exec", VG_(fnptr_to_fnentry)(h_exec),
                              mkIRExprVec_1(IRExpr_Const(IRConst_U64(w0))));
    addStmtToIRSB(out, IRStmt_Dirty(d));
    xs[nx++] = x;

    /* The descriptor, before any execution of the block. */
    tmcap_em_block(em, id, ia, il, ni, xs, nx);
    return out;
}

/* ------------------------------------------------------------ events */

static void start_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    if (tid < MAX_LWPS && !lwp_of[tid])
        lwp_of[tid] = VG_(gettid)();
    tmcap_em_resume(em, tid);
}

static void thread_create(ThreadId parent, ThreadId child)
{
    tmcap_em_thread_create(em, parent, child);
}

static void thread_exit(ThreadId tid)
{
    if (tid < MAX_LWPS)
        lwp_of[tid] = 0; /* the id may be another thread's next */
    tmcap_em_thread_exit(em, tid);
}

static void pre_signal(ThreadId tid, Int sig, Bool alt)
{
    (void)alt;
    tmcap_em_signal(em, tid, sig, VG_(get_IP)(tid));
}

static void post_signal(ThreadId tid, Int sig)
{
    (void)sig;
    tmcap_em_sigret(em, tid);
}

static void report_mapping(Addr a, SizeT len, Bool xx)
{
    if (!xx || len == 0)
        return;
    NSegment const *seg = VG_(am_find_nsegment)(a);
    if (!seg || (seg->kind != SkFileC && seg->kind != SkAnonC) || !VG_(am_is_valid_for_client)(a, len, 0))
        return; /* not the client's */
    const HChar *name = VG_(am_get_filename)(seg);
    if (name) {
        UInt n = (UInt)VG_(strlen)(name);
        tmcap_em_map(em, a, len, (ULong)seg->offset + (a - seg->start), name, n);
    } else if (len <= TMCAP_MAX_VDSO && len >= 4 && VG_(memcmp)((const void *)a, "\177ELF", 4) == 0) {
        /* an anonymous executable ELF image: the vdso */
        tmcap_em_vdso(em, a, len);
    }
}

/* The vdso: an anonymous executable client segment holding an ELF image
 * (Valgrind does not report it as a mapping).  Looked for once, when the
 * first block is instrumented. */
static void scan_vdso(void)
{
    Addr starts[256];
    Int n = VG_(am_get_segment_starts)(SkAnonC, starts, 256);
    for (Int i = 0; i < n; i++) {
        NSegment const *seg = VG_(am_find_nsegment)(starts[i]);
        if (seg && seg->hasX && seg->hasR)
            report_mapping(seg->start, seg->end - seg->start + 1, True);
    }
}

static void post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
    (void)part;
    tmcap_em_post_mem_write(em, tid, a, len);
}

static void new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
    (void)rr; (void)ww; (void)di;
    report_mapping(a, len, xx);
}

static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
    (void)rr; (void)ww; (void)di;
    report_mapping(a, len, xx);
    tmcap_em_new_contents(em, 0, a, len);
}

static void change_mem_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
    (void)ww;
    report_mapping(a, len, xx);
    if (rr)
        tmcap_em_new_contents(em, 0, a, len);
}

static void new_mem_brk(Addr a, SizeT len, ThreadId tid)
{
    tmcap_em_new_contents(em, tid, a, len);
}

static void die_mem(Addr a, SizeT len)
{
    tmcap_em_unmapped(em, a, len);
}

static void copy_mem_remap(Addr from, Addr to, SizeT len)
{
    tmcap_em_remapped(em, from, to, len);
}

static void pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
    (void)nargs;
    tmcap_word a[6] = {0};
    for (UInt i = 0; i < 6 && i < nargs; i++)
        a[i] = args[i];
    tmcap_em_syscall_pre(em, tid, no, a);
}

static void post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
    tmcap_word a[6] = {0};
    for (UInt i = 0; i < 6 && i < nargs; i++)
        a[i] = args[i];
    tmcap_em_syscall_post(em, tid, no, a, sr_isError(res) ? sr_Err(res) : sr_Res(res), sr_isError(res));
}

/* A forked child runs on untraced: only the process tm record started is
 * traced (its pipe must not carry two streams). */
static void fork_pre(ThreadId tid)
{
    (void)tid;
    tmcap_em_fork_pre(em);
}

static void fork_child(ThreadId tid)
{
    (void)tid;
    tmcap_em_fork_child(em);
}

/* ------------------------------------------------------------ setup */

static Bool process_cmd_line_option(const HChar *arg)
{
    Long fdv = -1;
    if (VG_BINT_CLO(arg, "--tm-fd", fdv, 0, 1 << 20)) {
        out_fd = (Int)fdv;
    } else if (VG_BINT_CLO(arg, "--tm-log-fd", clo_log_fd, 3, 1 << 20)) {
    } else if (VG_STR_CLO(arg, "--tm-shm", clo_shm)) {
    } else if (VG_BOOL_CLO(arg, "--tm-mem", clo_mem)) {
    } else if (VG_STR_CLO(arg, "--tm-timing", clo_timing)) {
    } else if (VG_BOOL_CLO(arg, "--tm-store-values", clo_store_values)) {
    } else {
        return False;
    }
    return True;
}

static void print_usage(void)
{
    VG_(printf)("    --tm-fd=N           write the capture stream to file descriptor N (required)\n"
                "    --tm-mem=yes|no     capture memory operands and their values [no]\n"
                "    --tm-timing=MACHINE time the accesses and fetches on MACHINE\n"
                "                        (LINE/L1I/L1/L2/MEM/FLAGS/TURN/DRIFT) [none]\n"
                "    --tm-store-values=yes|no  with --tm-mem, the values of the program's stores too [yes]\n"
                "    --tm-log-fd=N       the descriptor given as --log-fd: closed once Valgrind has its copy\n"
                "    --tm-shm=FD,ACK,SLOTS,BYTES  the stream through shared memory FD (SLOTS slots of BYTES);\n"
                "                        the pipe carries slot lengths, tm record frees slots on ACK [off]\n");
}

static void print_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

static void post_clo_init(void)
{
    if (out_fd < 0) {
        VG_(umsg)("tmtrace: --tm-fd=N is required (tmtrace is run by `tm record`)\n");
        VG_(exit)(1);
    }
    /* The program sees none of tm's descriptors: the channel moves into
     * Valgrind's range, and Valgrind's copy of the log is the only one. */
    out_fd = VG_(safe_fd)(out_fd);
    if (clo_log_fd >= 0)
        VG_(close)((Int)clo_log_fd);
    /* Every control transfer ends a superblock. */
    VG_(clo_vex_control).guest_chase = False;
    /* ... and no block is a loop unrolled (iropt's self-loop unrolling would
     * repeat instructions inside one block). */
    VG_(clo_vex_control).iropt_unroll_thresh = 0;
    /* ... and, when the memory operands' values are captured, the tool
     * sees every instruction's IR as the program wrote it: no load the
     * program made is removed as dead (VEX still optimizes the instrumented
     * block).  Without values the operands only feed the timing model, and
     * VEX's optimizations (level 2) are kept: they remove loads whose value
     * nothing uses, and fold a branch's condition known when the block is
     * translated, which every block end still shows (a conditional branch
     * ends its block: an exit always taken is COND_T, one never taken the
     * final jump past it, COND_N: tmcap_classify). */
    VG_(clo_vex_control).iropt_level = clo_mem ? 0 : 2;
    tmcap_platform P = {NULL,    p_write, p_read,  p_close,  p_copy,  p_readable,
                        p_region, p_message, p_alloc, p_yield, p_asleep};
    if (clo_timing && !tmf_cfg_parse(clo_timing, &timing_cfg)) {
        VG_(umsg)("tmtrace: --tm-timing=%s: expected LINE/L1I/L1/L2/MEM/FLAGS/TURN/DRIFT, each cache "
                  "SIZE:WAYS:LAT, in range\n",
                  clo_timing);
        VG_(exit)(1);
    }
    clo_sync = clo_timing && (timing_cfg.flags & TMF_SYNC);
    tmcap_em_cfg C = {out_fd, clo_mem, clo_store_values, NULL, -1, 0, 0, 0, clo_timing ? &timing_cfg : NULL};
    if (clo_shm) {
        /* FD,ACK,SLOTS,BYTES: decimal numbers */
        Long v[4];
        const HChar *q = clo_shm;
        for (Int i = 0; i < 4; i++) {
            HChar *end;
            v[i] = VG_(strtoll10)(q, &end);
            if (end == q || *end != (i < 3 ? ',' : 0) || v[i] < 0) {
                VG_(umsg)("tmtrace: --tm-shm=%s: expected FD,ACK,SLOTS,BYTES\n", clo_shm);
                VG_(exit)(1);
            }
            q = end + 1;
        }
        if (v[2] < 2 || v[2] > 256 || v[3] < (64 << 10) || v[3] > (64 << 20) || v[3] % 8) {
            VG_(umsg)("tmtrace: --tm-shm=%s: 2..256 slots of 64 KB..64 MB (a multiple of 8 bytes)\n", clo_shm);
            VG_(exit)(1);
        }
        SysRes r = VG_(am_shared_mmap_file_float_valgrind)((SizeT)(v[2] * v[3]), VKI_PROT_READ | VKI_PROT_WRITE,
                                                           (Int)v[0], 0);
        if (sr_isError(r)) {
            VG_(umsg)("tmtrace: --tm-shm: cannot map file descriptor %lld (error %lu)\n", v[0], sr_Err(r));
            VG_(exit)(1);
        }
        VG_(close)((Int)v[0]);
        C.shm = (tmcap_word *)sr_Res(r);
        C.ack_fd = VG_(safe_fd)((Int)v[1]);
        C.slots = (unsigned)v[2];
        C.slot_bytes = (unsigned long)v[3];
    }
    em = tmcap_em_new(&P, &C);
    if (!em) {
        VG_(umsg)("tmtrace: out of memory\n");
        VG_(exit)(1);
    }
}

static void fini(Int exitcode)
{
    if (folded_unknown)
        VG_(umsg)("tmtrace: %llu blocks end with a conditional branch to the next instruction whose outcome VEX "
                  "decided when it translated them: recorded as not taken (with the memory operands' values "
                  "captured VEX does not decide it)\n",
                  folded_unknown);
    tmcap_em_end(em, (UInt)exitcode, 0);
}

static void pre_clo_init(void)
{
    VG_(details_name)("tmtrace");
    VG_(details_version)("1");
    VG_(details_description)("the trace module's capture frontend");
    VG_(details_copyright_author)("the tm authors");
    VG_(details_bug_reports_to)("the tm issue tracker");
    VG_(details_avg_translation_sizeB)(400);
    VG_(basic_tool_funcs)(post_clo_init, tm_instrument, fini);
    VG_(needs_command_line_options)(process_cmd_line_option, print_usage, print_debug_usage);
    VG_(track_start_client_code)(start_client_code);
    VG_(track_pre_thread_ll_create)(thread_create);
    VG_(track_pre_thread_ll_exit)(thread_exit);
    VG_(track_pre_deliver_signal)(pre_signal);
    VG_(track_post_deliver_signal)(post_signal);
    VG_(track_new_mem_startup)(new_mem_startup);
    VG_(track_new_mem_mmap)(new_mem_mmap);
    VG_(track_change_mem_mprotect)(change_mem_mprotect);
    VG_(track_post_mem_write)(post_mem_write);
    VG_(track_new_mem_brk)(new_mem_brk);
    VG_(track_die_mem_brk)(die_mem);
    VG_(track_die_mem_munmap)(die_mem);
    VG_(track_copy_mem_remap)(copy_mem_remap);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(atfork)(fork_pre, NULL, fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
