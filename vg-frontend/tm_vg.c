/* tmtrace — the Valgrind frontend of tm (docs/capture.md).
 *
 * A thin Valgrind tool: it describes each superblock it instruments as a
 * BLOCK (its instructions and the exits that leave it, classified as the
 * commit stream's branch classes), and at run time reports which exit each
 * executed block took (EXEC), the memory operands with their values (MEM),
 * thread creation, switches and exits, signal delivery and return, and the
 * executable mappings.  Everything else (cycle stamps, groups, thread ids,
 * the model) is done by `tm record` on the other end of the pipe, with code
 * shared by every frontend (capture/).
 *
 * Options: --tm-fd=N (the pipe, required), --tm-mem=yes|no (memory
 * operands, default no), --tm-store-values=yes|no (the values of the
 * program's stores, default yes), --tm-shm=FD,ACK,SLOTS,BYTES (the stream
 * goes through shared memory, the pipe carries only slot lengths:
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
#include "tm/capemit.h"

/* ------------------------------------------------------------ output */

#define PIPE_BUF_WORDS (1u << 16)
#define BUF_MARGIN 64u /* room for the largest event a helper writes */

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
static Bool traced_fork_child = False; /* this process is a fork of the traced one */
static Bool clo_mem = False;
static Bool clo_store_values = True;
static ULong *buf;
static UInt pos;
static UInt buf_words = PIPE_BUF_WORDS; /* capacity of buf */
static UInt buf_limit = PIPE_BUF_WORDS - BUF_MARGIN; /* a helper flushes past it */
static ULong next_id = 1;
static ThreadId cur_tid = 0;

/* Shared-memory transport (--tm-shm): shm_slots slots of buf_words words.
 * buf is the slot being filled; a full slot's length in bytes goes down
 * the pipe as one 64-bit word; tm record writes one byte to ACK_FD for
 * every slot it is done with, in order. */
static const HChar *clo_shm;
static Int ack_fd = -1;
static ULong *shm;
static UInt shm_slots, shm_cur, shm_inflight;

static void stop_tracing(const HChar *what)
{
    VG_(umsg)("tmtrace: %s; tracing stops\n", what);
    out_fd = -1;
}

static void flush(void)
{
    if (shm) {
        ULong len = (ULong)pos * 8;
        pos = 0;
        if (out_fd < 0 || !len)
            return;
        if (VG_(write)(out_fd, &len, 8) != 8) {
            stop_tracing("write to tm record failed");
            return;
        }
        shm_inflight++;
        shm_cur = (shm_cur + 1) % shm_slots;
        buf = shm + (SizeT)shm_cur * buf_words;
        while (shm_inflight >= shm_slots && out_fd >= 0) { /* wait for a free slot */
            UChar acks[64];
            Int n = VG_(read)(ack_fd, acks, (Int)(shm_inflight < 64 ? shm_inflight : 64));
            if (n <= 0)
                stop_tracing("tm record is gone");
            else
                shm_inflight -= (UInt)n;
        }
        return;
    }
    const char *p = (const char *)buf;
    Int left = (Int)(pos * 8);
    while (left > 0 && out_fd >= 0) {
        Int n = VG_(write)(out_fd, p, left);
        if (n <= 0) {
            stop_tracing("write to tm record failed");
            break;
        }
        p += n;
        left -= n;
    }
    pos = 0;
}

static inline void put(ULong w)
{
    buf[pos++] = w;
}

static inline void room(UInt words)
{
    if (pos + words > buf_words)
        flush();
}

static void put_bytes(const void *src, UInt n)
{
    const UChar *s = src;
    while (n) {
        ULong w = 0;
        UInt k = n < 8 ? n : 8;
        VG_(memcpy)(&w, s, k);
        room(1);
        put(w);
        s += k;
        n -= k;
    }
}

static void switch_to(ThreadId tid)
{
    if (tid != cur_tid) {
        room(1);
        put(tmcap_thread(tid));
        cur_tid = tid;
    }
}

/* ------------------------------------------------------------ helpers */

static VG_REGPARM(1) void h_exec(ULong w0)
{
    buf[pos++] = w0;
    if (pos > buf_limit)
        flush();
}

static VG_REGPARM(2) void h_exec_dyn(ULong w0, ULong target)
{
    buf[pos] = w0;
    buf[pos + 1] = target;
    pos += 2;
    if (pos > buf_limit)
        flush();
}

/* w0 is the MEM word without size; the operand is read from memory, which
 * for a load is what it read and for a store what it wrote. */
static UInt nwatch;
static void watch_op(Addr a, UInt size, const UChar *snap);

static VG_REGPARM(2) void h_mem(ULong w0, Addr a)
{
    UInt size = (UInt)(w0 >> 16) & 0xff;
    UInt nw = 0;
    if (!(w0 & TMCAP_MEM_NOVALUE)) { /* memory is read once: the value reported */
        ULong *v = buf + pos + 2;
        nw = (size + 7) / 8;
        v[nw - 1] = 0;
        VG_(memcpy)(v, (const void *)a, size);
    }
    if (nwatch && !(w0 & (1ull << 9))) {
        /* A word the kernel writes on its own may have changed: reported
         * first, as this operand's bytes have it (they move behind the
         * reports). */
        ULong v[8];
        for (UInt q = 0; q < nw; q++)
            v[q] = buf[pos + 2 + q];
        watch_op(a, size, nw ? (const UChar *)v : NULL);
        room(2 + nw); /* past the margin if it reported many words */
        for (UInt q = 0; q < nw; q++)
            buf[pos + 2 + q] = v[q];
    }
    buf[pos] = w0;
    buf[pos + 1] = a;
    pos += 2 + nw;
    if (pos > buf_limit)
        flush();
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
        ULong w0 = tmcap_mem(store, store && !clo_store_values, s, insn);
        IRExpr *a = addr; /* an atom; parts after the first get a new one */
        IRDirty *d = unsafeIRDirty_0_N(2, "tm_mem", VG_(fnptr_to_fnentry)(h_mem),
                                       mkIRExprVec_2(IRExpr_Const(IRConst_U64(w0)), a));
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
            nloads = 0;
            if (ni == MAX_INSNS)
                VG_(tool_panic)("tmtrace: block too long");
            ia[ni] = (ULong)st->Ist.IMark.addr;
            il[ni] = st->Ist.IMark.len;
            ni++;
            addStmtToIRSB(out, st);
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
            if (clo_mem && st->Ist.WrTmp.data->tag == Iex_Load) {
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
            if (clo_mem)
                add_mem_call(out, k, True, sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)),
                             st->Ist.Store.addr, NULL);
            break;
        case Ist_LoadG: {
            addStmtToIRSB(out, st);
            if (clo_mem) {
                IRLoadG *lg = st->Ist.LoadG.details;
                IRType tw, tl;
                typeOfIRLoadGOp(lg->cvt, &tw, &tl);
                add_mem_call(out, k, False, sizeofIRType(tl), lg->addr, lg->guard);
            }
            break;
        }
        case Ist_StoreG: {
            addStmtToIRSB(out, st);
            if (clo_mem) {
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
            if (clo_mem && !loaded)
                add_mem_call(out, k, False, sz, cas->addr, NULL);
            addStmtToIRSB(out, st);
            if (clo_mem) /* x86 writes back even when the comparison fails */
                add_mem_call(out, k, True, sz, cas->addr, NULL);
            break;
        }
        case Ist_Dirty: {
            IRDirty *dd = st->Ist.Dirty.details;
            Bool rd = dd->mFx == Ifx_Read || dd->mFx == Ifx_Modify;
            Bool wr = dd->mFx == Ifx_Write || dd->mFx == Ifx_Modify;
            if (clo_mem && rd && dd->mSize > 0)
                add_mem_call(out, k, False, (UInt)dd->mSize, dd->mAddr, dd->guard);
            addStmtToIRSB(out, st);
            if (clo_mem && wr && dd->mSize > 0)
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
    Bool is_const = in->next->tag == Iex_Const;
    ULong dst = is_const ? in->next->Iex.Const.con->Ico.U64 : 0;
    xdesc x = classify(k, ia[k], il[k], in->jumpkind, is_const, dst, True);
    ULong w0 = tmcap_exec(id, nx);
    IRDirty *d;
    if (x.flags & TMCAP_XF_DYN)
        d = unsafeIRDirty_0_N(2, "tm_exec_dyn", VG_(fnptr_to_fnentry)(h_exec_dyn),
                              mkIRExprVec_2(IRExpr_Const(IRConst_U64(w0)), in->next));
    else
        d = unsafeIRDirty_0_N(1, "tm_exec", VG_(fnptr_to_fnentry)(h_exec),
                              mkIRExprVec_1(IRExpr_Const(IRConst_U64(w0))));
    addStmtToIRSB(out, IRStmt_Dirty(d));
    xs[nx++] = x;

    /* The descriptor, before any execution of the block. */
    room(tmcap_block_words(ni, nx));
    tmcap_block(buf + pos, id, ia, il, ni, xs, nx);
    pos += tmcap_block_words(ni, nx);
    return out;
}

/* ------------------------------------------------------------ events */

/* Words the kernel writes on its own, at a moment no callback tells: the
 * thread id that clone(CLONE_PARENT_SETTID, CLONE_CHILD_SETTID) stores
 * (Valgrind reports it when the parent's system call returns, which may be
 * after the child ran, and not before the parent's next load), and the
 * zero that CLONE_CHILD_CLEARTID / set_tid_address stores when a thread
 * has ended (after Valgrind has let the thread go: pthread_join waits on
 * it, and may load the old id after the thread's end).  Such a word is
 * watched from the clone (or the thread's end) until it has changed: when
 * a thread resumes, and before a memory operand on it, its contents are
 * compared with what was last reported, and a change is reported as a
 * write by the system of the running thread (docs/capture.md §4). */
#define MAX_TIDS 1024
#define MAX_WATCH 1024
static Addr clear_tid[MAX_TIDS]; /* per thread: its CLEARTID word */
static Addr pending_clear_tid;   /* of the clone in progress */
static Addr clone_ptid[MAX_TIDS], clone_ctid[MAX_TIDS]; /* per parent, during clone */
static Addr watch_a[MAX_WATCH];
static UInt watch_v[MAX_WATCH];   /* contents last reported */
static Bool watch_end[MAX_WATCH]; /* done once it reads zero (CLEARTID); else once changed */
static void sys_write(ThreadId tid, Addr a, SizeT len);

static void watch(Addr a, Bool end)
{
    if (!clo_mem || !a || !VG_(am_is_valid_for_client)(a, 4, VKI_PROT_READ))
        return;
    for (UInt i = 0; i < nwatch; i++)
        if (watch_a[i] == a) { /* already watched: what it waits for now */
            watch_end[i] = end;
            return;
        }
    if (nwatch == MAX_WATCH)
        return;
    watch_a[nwatch] = a;
    watch_v[nwatch] = *(volatile UInt *)a;
    watch_end[nwatch] = end;
    nwatch++;
}

static void unwatch(UInt i)
{
    nwatch--;
    watch_a[i] = watch_a[nwatch];
    watch_v[i] = watch_v[nwatch];
    watch_end[i] = watch_end[nwatch];
}

/* Stops watching the words at A .. A + LEN - 1 (unmapped, or a clone that
 * failed). */
static void unwatch_range(Addr a, SizeT len)
{
    for (UInt i = 0; i < nwatch;) {
        if (watch_a[i] >= a && watch_a[i] - a < len)
            unwatch(i);
        else
            i++;
    }
}

/* Watched word I, whose contents are V: reported by TID if it changed (a
 * write by the system of V itself: the kernel may write again while this
 * runs); 1 if it is done. */
static Bool watch_check_v(ThreadId tid, UInt i, UInt v)
{
    if (v == watch_v[i])
        return False;
    if (tid != VG_INVALID_THREADID)
        switch_to(tid);
    room(3);
    buf[pos] = tmcap_sys_mem(4);
    buf[pos + 1] = watch_a[i];
    buf[pos + 2] = v;
    pos += 3;
    watch_v[i] = v;
    return !watch_end[i] || v == 0;
}

static Bool watch_check(ThreadId tid, UInt i) { return watch_check_v(tid, i, *(volatile UInt *)watch_a[i]); }

/* Before a memory operand at A (SIZE bytes) of the running thread, whose
 * bytes are SNAP (NULL: a store sent without its value): a watched word
 * the operand covers is taken from SNAP, so that the word's report and the
 * operand agree. */
static void watch_op(Addr a, UInt size, const UChar *snap)
{
    for (UInt i = 0; i < nwatch;) {
        Addr w = watch_a[i];
        Bool done = False;
        if (a < w + 4 && w < a + size) {
            UInt v;
            if (snap && w >= a && w + 4 <= a + size)
                VG_(memcpy)(&v, snap + (w - a), 4);
            else
                v = *(volatile UInt *)w;
            done = watch_check_v(cur_tid, i, v);
        }
        if (done)
            unwatch(i);
        else
            i++;
    }
}

static void start_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    switch_to(tid);
    for (UInt i = 0; i < nwatch;) {
        if (!VG_(am_is_valid_for_client)(watch_a[i], 4, VKI_PROT_READ) || watch_check(tid, i))
            unwatch(i);
        else
            i++;
    }
}

static void thread_create(ThreadId parent, ThreadId child)
{
    if (child < MAX_TIDS) {
        clear_tid[child] = pending_clear_tid;
        pending_clear_tid = 0;
    }
    room(1);
    put(tmcap_create(child, parent));
}

static void thread_exit(ThreadId tid)
{
    if (tid < MAX_TIDS && clear_tid[tid]) {
        watch(clear_tid[tid], True); /* the kernel zeroes it after this */
        clear_tid[tid] = 0;
    }
    room(1);
    put(tmcap_exit_thread(tid));
}

static void pre_signal(ThreadId tid, Int sig, Bool alt)
{
    (void)alt;
    switch_to(tid);
    room(2);
    put(tmcap_signal(tid, sig));
    put(VG_(get_IP)(tid));
}

static void post_signal(ThreadId tid, Int sig)
{
    (void)sig;
    switch_to(tid);
    room(1);
    put(tmcap_sigret(tid));
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
        if (n == 0 || n > TMCAP_MAX_PATH)
            return;
        room(4 + (n + 7) / 8);
        put(tmcap_map(n));
        put(a);
        put(len);
        put((ULong)seg->offset + (a - seg->start));
        put_bytes(name, n);
    } else if (len <= TMCAP_MAX_VDSO && len >= 4 && VG_(memcmp)((const void *)a, "\177ELF", 4) == 0) {
        /* an anonymous executable ELF image: the vdso */
        room(2);
        put(tmcap_vdso(len));
        put(a);
        put_bytes((const void *)a, (UInt)len);
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

/* ------------------------------------------------------------ system writes
 *
 * Memory the program's instructions did not write but whose contents
 * changed — a system call's output, a signal frame, a mapping placed where
 * an earlier one was unmapped, madvise(DONTNEED) — is reported as stores of
 * the running thread with no instruction (insn 0xffff, the SYS bit), in
 * parts of at most 64 bytes, so that the trace module's caches and the
 * debugger's copy of memory see it (docs/capture.md §4). */

static void sys_write(ThreadId tid, Addr a, SizeT len)
{
    if (!clo_mem || len == 0)
        return;
    if (tid != VG_INVALID_THREADID)
        switch_to(tid);
    while (len) {
        UInt s = len > 64 ? 64 : (UInt)len;
        room(2 + 8);
        h_mem(tmcap_sys_mem(s), a);
        a += s;
        len -= s;
    }
}

static void post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
    (void)part;
    if (tid < MAX_TIDS && len == 4 && ((clone_ptid[tid] && a == clone_ptid[tid]) ||
                                       (clone_ctid[tid] && a == clone_ctid[tid])))
        return; /* watched (pre_syscall) */
    sys_write(tid, a, len);
}

/* Address ranges that were unmapped: a new mapping over them has new
 * contents (merged, sorted intervals [lo, hi)). */
#define MAX_HOLES 4096
static Addr hole_lo[MAX_HOLES], hole_hi[MAX_HOLES];
static UInt nholes;

static void add_hole(Addr a, SizeT len)
{
    if (!clo_mem || !len)
        return;
    Addr lo = a, hi = a + len;
    UInt i = 0, j;
    while (i < nholes && hole_hi[i] < lo)
        i++;
    for (j = i; j < nholes && hole_lo[j] <= hi; j++) {
        if (hole_lo[j] < lo) lo = hole_lo[j];
        if (hole_hi[j] > hi) hi = hole_hi[j];
    }
    /* [i, j) merge into one */
    if (j == i) {
        if (nholes == MAX_HOLES) { /* forget the smallest-address one */
            VG_(memmove)(hole_lo, hole_lo + 1, (nholes - 1) * sizeof *hole_lo);
            VG_(memmove)(hole_hi, hole_hi + 1, (nholes - 1) * sizeof *hole_hi);
            nholes--;
            if (i) i--;
        }
        VG_(memmove)(hole_lo + i + 1, hole_lo + i, (nholes - i) * sizeof *hole_lo);
        VG_(memmove)(hole_hi + i + 1, hole_hi + i, (nholes - i) * sizeof *hole_hi);
        nholes++;
    } else if (j > i + 1) {
        VG_(memmove)(hole_lo + i + 1, hole_lo + j, (nholes - j) * sizeof *hole_lo);
        VG_(memmove)(hole_hi + i + 1, hole_hi + j, (nholes - j) * sizeof *hole_hi);
        nholes -= j - i - 1;
    }
    hole_lo[i] = lo;
    hole_hi[i] = hi;
}

/* New contents at [a, a+len): report the parts over earlier holes. */
static void new_contents(ThreadId tid, Addr a, SizeT len)
{
    if (!clo_mem || !len)
        return;
    Addr e = a + len;
    for (UInt i = 0; i < nholes; i++) {
        Addr lo = hole_lo[i] > a ? hole_lo[i] : a, hi = hole_hi[i] < e ? hole_hi[i] : e;
        if (lo >= hi)
            continue;
        /* only what the program can read now (the rest is reported when
         * an mprotect makes it readable) */
        for (Addr p = lo; p < hi;) {
            NSegment const *seg = VG_(am_find_nsegment)(p);
            if (!seg)
                break;
            Addr se = seg->end + 1 < hi ? seg->end + 1 : hi;
            if (seg->hasR && (seg->kind == SkFileC || seg->kind == SkAnonC || seg->kind == SkShmC))
                sys_write(tid, p, se - p);
            p = se;
        }
    }
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
    new_contents(cur_tid, a, len);
}

static void change_mem_mprotect(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
    (void)ww;
    report_mapping(a, len, xx);
    if (rr)
        new_contents(cur_tid, a, len);
}

static void new_mem_brk(Addr a, SizeT len, ThreadId tid)
{
    new_contents(tid, a, len);
}

static void die_mem(Addr a, SizeT len)
{
    add_hole(a, len);
    unwatch_range(a, len);
}

static void copy_mem_remap(Addr from, Addr to, SizeT len)
{
    /* the contents move: stores at the new place, a hole at the old */
    if (from != to) {
        add_hole(from, len);
        sys_write(cur_tid, to, len);
    }
}



/* A system call's edges, for the timing model (other threads may run
 * while it blocks). */
static void put_syscall(ThreadId tid, UInt no, ULong leave)
{
    room(1);
    put(tmcap_syscall(tid, no, leave != 0));
}

static void pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
    (void)nargs;
    put_syscall(tid, no, 0);
    if ((no == 59 || no == 322) && !traced_fork_child && out_fd >= 0) {
        /* execve, execveat: if it succeeds the new image runs natively and
         * the channel (close-on-exec) closes: say so first. */
        room(1);
        put(tmcap_execve(tid));
        flush();
    }
    if (no == 56 && tid < MAX_TIDS) { /* clone(flags, sp, ptid, ctid, tls) */
        if (args[0] & 0x00200000) /* CLONE_CHILD_CLEARTID */
            pending_clear_tid = args[3];
        clone_ptid[tid] = (args[0] & 0x00100000) ? args[2] : 0; /* CLONE_PARENT_SETTID */
        clone_ctid[tid] = (args[0] & 0x01000000) ? args[3] : 0; /* CLONE_CHILD_SETTID */
        watch(clone_ptid[tid], False);
        watch(clone_ctid[tid], False);
    } else if (no == 218 && tid < MAX_TIDS) { /* set_tid_address(ctid) */
        clear_tid[tid] = args[0];
    }
}

static void post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
    (void)nargs;
    put_syscall(tid, no, 1);
    if (no == 56 && tid < MAX_TIDS) {
        if (sr_isError(res)) { /* no thread: nothing will be written */
            unwatch_range(clone_ptid[tid], 1);
            unwatch_range(clone_ctid[tid], 1);
        }
        clone_ptid[tid] = clone_ctid[tid] = 0;
    }
    /* madvise(MADV_DONTNEED = 4, MADV_REMOVE = 9): the range reads zero */
    if (no == 28 && !sr_isError(res) && (args[2] == 4 || args[2] == 9)) {
        add_hole(args[0], args[1]);
        new_contents(tid, args[0], args[1]);
    }
}

/* A forked child runs on untraced: only the process tm record started is
 * traced (its pipe must not carry two streams). */
static void fork_pre(ThreadId tid)
{
    (void)tid;
    flush();
}

static void fork_child(ThreadId tid)
{
    (void)tid;
    if (out_fd >= 0)
        VG_(close)(out_fd);
    out_fd = -1;
    if (shm) {
        /* The slots are shared with the parent: this process writes its
         * (discarded) stream into a private buffer instead. */
        VG_(close)(ack_fd);
        ack_fd = -1;
        shm = NULL;
        buf_words = PIPE_BUF_WORDS;
        buf_limit = buf_words - BUF_MARGIN;
        buf = VG_(malloc)("tmtrace.buf", buf_words * sizeof(ULong));
    }
    pos = 0;
    traced_fork_child = True;
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
    /* ... and the tool sees every instruction's IR as the program wrote it:
     * no load the program made is removed as dead, no branch is folded
     * because its condition or target is known when the block is
     * translated (VEX still optimizes the instrumented block). */
    VG_(clo_vex_control).iropt_level = 0;
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
        shm = (ULong *)sr_Res(r);
        ack_fd = VG_(safe_fd)((Int)v[1]);
        shm_slots = (UInt)v[2];
        buf_words = (UInt)(v[3] / 8);
        buf_limit = buf_words - BUF_MARGIN;
        buf = shm;
    } else {
        buf = VG_(malloc)("tmtrace.buf", buf_words * sizeof(ULong));
    }
    pos = 0;
    put(TMCAP_MAGIC);
}

static void fini(Int exitcode)
{
    if (traced_fork_child)
        return;
    room(1);
    put(tmcap_end((UInt)exitcode, 0));
    flush();
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
