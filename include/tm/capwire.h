/* tm — the capture wire format (docs/capture.md).
 *
 * What a frontend (the Valgrind tool in vg-frontend/, the Pin tool in
 * pin-frontend/, the QEMU plugin in qemu-frontend/) writes to `tm record`
 * through a pipe or shared memory: a stream of little-endian 64-bit words.  Macros only, no includes: the Valgrind tool is built without libc.
 *
 * The first word is TMCAP_MAGIC.  Every event starts with a word whose low
 * 8 bits are its type; the other fields of that word are given per type.
 *
 *  BLOCK   w0 = 1 | ninsn << 8 (16 bits) | nexit << 24 (8 bits)
 *          w1 = block id (unique for the whole run, < 2^48)
 *          w2 = address of instruction 0
 *          ninsn words: len | (address - address of insn 0) << 8
 *          nexit pairs: kind | insn << 8 (16 bits) | flags << 24, target
 *          A block is straight-line code as the frontend translated it: it is
 *          left through exactly one of its exits each time it runs.
 *  EXEC    w0 = 2 | exit << 8 (8 bits) | id << 16 (24 bits) | data << 40
 *          (12 bits) | ifetch << 52 (12 bits); then the target word if the
 *          exit is DYN.  The running thread ran block id and left it
 *          through the exit; the run stalled data + ifetch cycles beyond
 *          its CPI (the timing model's frontend half, tm/tfront.h: its
 *          data accesses and its instruction fetch).  Its MEM and DEP
 *          events precede it.
 *  THREAD  w0 = 3 | tid << 8: the following events are those of tid.
 *  CREATE  w0 = 4 | tid << 8 (24 bits) | parent << 32, w1 = uid: thread tid
 *          exists; uid numbers the threads in the order they appear (the
 *          first thread, created by nobody, is 0 at its first event).
 *  EXIT    w0 = 5 | tid << 8: thread tid has ended.
 *  SIGNAL  w0 = 6 | tid << 8 | signo << 32, w1 = pc the thread would have
 *          run next: a signal handler starts; the thread's next block is it.
 *  SIGRET  w0 = 7 | tid << 8: a handler returned; the next block resumes.
 *  MEM     w0 = 8 | store << 8 | novalue << 10 | size << 16 (8 bits, 1..64)
 *          | insn << 24 (16 bits, instruction index in the block that will
 *          be left next) | stall << 40 (24 bits: the cycles the access
 *          cost, its group's), w1 = address, then, unless novalue, (size +
 *          7) / 8 words of value bytes in memory order (the last word
 *          zero-padded).
 *          novalue: a store whose value the consumer does not need (bit 9
 *          marks a write by the system; readers ignore it).
 *  MAP     w0 = 9 | pathlen << 8 (16 bits), w1 = address, w2 = length,
 *          w3 = file offset, then (pathlen + 7) / 8 words of path bytes: an
 *          executable file mapping.
 *  VDSO    w0 = 10 | len << 8 (32 bits), w1 = address, then (len + 7) / 8
 *          words: the bytes of the vdso.
 *  END     w0 = 11 | status << 8 (8 bits) | how << 16 (8 bits): the program
 *          ended (how: 0 exit with status, 1 killed by signal status).
 *  EXECVE  w0 = 12 | tid << 8: thread tid calls execve.  If nothing follows
 *          it, the program replaced itself by a new image, which runs on
 *          natively (untraced): the capture is complete.  Any later event
 *          means the call failed and the program went on.
 *  SYSCALL w0 = 13 | tid << 8 (24 bits) | leave << 32 (1 bit) | futex << 33
 *          (1 bit) | number << 40 (16 bits): thread tid enters (leave 0)
 *          or leaves (leave 1) a system call; other threads may run in
 *          between (the timing model, docs/capture.md §3).  With futex
 *          (a futex call): entering, w1 = address, w2 = op | val << 32,
 *          w3 = address 2, w4 = val2 (the 4th argument as a number);
 *          leaving, w1 = the result (negative: -errno).
 *  ISA     w0 = 15 | isa << 8 (8 bits, TM_ISA_* of tm/isa.h): the program's
 *          instruction set; the first event after the magic of a stream
 *          whose program is not x86-64 (a stream without it is x86-64).
 *  TIMING  w0 = 16 | flags << 8 (8 bits, TMF_* of tm/tfront.h), w1 = line
 *          bytes, w2..w4 = L1I, L1D, L2 (size | ways << 32 | lat << 40),
 *          w5 = memory latency: the frontend times the accesses on this
 *          machine (the stalls of EXEC and MEM, the DEP events); before
 *          the first BLOCK, at most once (a stream without it is timed
 *          serially).
 *  DEP     w0 = 17 | kind << 8 (8 bits: 0 a store, 1 a load, 2 a thread's
 *          end) | uid << 16 (24 bits), w1 = k: the running thread's block
 *          in progress comes after block k (counted from 0, a thread's end
 *          one more) of thread uid, whose store (load, end) it read
 *          (overwrote, read).
 *  STALL   w0 = 18, w1 = data, w2 = ifetch: more stall cycles of the
 *          running thread's block in progress (beyond the EXEC's fields).
 *  EXECL   w0 = 19 | exit << 8 (8 bits), w1 = id: an EXEC of a block id of
 *          2^24 or more (no stall fields: a STALL before it); then the
 *          target word if the exit is DYN.
 *  CTID    w0 = 20 | tid << 8 (24 bits), w1 = address: thread tid's
 *          CLEARTID word (the system zeroes it and wakes its futex at the
 *          thread's end).
 *  TSTATS  w0 = 21 | n << 8 (24 bits), then 11 words: L1I hits, misses,
 *          L1D hits, misses, L2 hits, misses, DEP events per kind (3),
 *          granules split, readers overflowed; then per thread uid 0 ..
 *          n - 1, 5 words: its stall cycles of the instruction fetch, of
 *          data at the L1, the L2 and memory, and its blocks as DEP counts
 *          them: the frontend's counts, just before END.
 */
#ifndef TM_CAPWIRE_H
#define TM_CAPWIRE_H

#define TMCAP_MAGIC 0x3250414354204d54ull /* "TM TCAP2" little-endian */
#define TMCAP_MAGIC1 0x3150414354204d54ull /* "TM TCAP1": an older frontend's stream */

#define TMCAP_BLOCK 1
#define TMCAP_EXEC 2
#define TMCAP_THREAD 3
#define TMCAP_CREATE 4
#define TMCAP_EXIT 5
#define TMCAP_SIGNAL 6
#define TMCAP_SIGRET 7
#define TMCAP_MEM 8
#define TMCAP_MAP 9
#define TMCAP_VDSO 10
#define TMCAP_END 11
#define TMCAP_EXECVE 12
#define TMCAP_SYSCALL 13
#define TMCAP_ISA 15
#define TMCAP_TIMING 16
#define TMCAP_DEP 17
#define TMCAP_STALL 18
#define TMCAP_EXECL 19
#define TMCAP_CTID 20
#define TMCAP_TSTATS 21
#define TMCAP_TSTATS_GLOBAL 11u /* TSTATS words before the threads' */
#define TMCAP_EXEC_MAX_ID ((1ull << 24) - 1) /* larger ids: EXECL */

/* MEM flags (in w0). */
#define TMCAP_MEM_STORE (1u << 8)
#define TMCAP_MEM_NOVALUE (1u << 10)

/* Exit kinds.  k = the exit's instruction index. */
#define TMCAP_X_FALL 0    /* insns 0..k retire, none is a branch; next = target */
#define TMCAP_X_STAY 1    /* insns 0..k-1 retire; insn k runs again or faults */
#define TMCAP_X_COND_T 2  /* insn k: conditional direct branch, taken */
#define TMCAP_X_COND_N 3  /* insn k: conditional direct branch, not taken */
#define TMCAP_X_JUMP 4    /* insn k: direct jump */
#define TMCAP_X_CALL 5    /* insn k: direct call */
#define TMCAP_X_IJUMP 6   /* insn k: indirect jump */
#define TMCAP_X_ICALL 7   /* insn k: indirect call */
#define TMCAP_X_RET 8     /* insn k: return */
#define TMCAP_X_KINDS 9

/* Exit flags. */
#define TMCAP_XF_DYN 1u   /* the target is in the EXEC event */

#define TMCAP_MAX_INSNS 4096u
#define TMCAP_MAX_EXITS 255u
#define TMCAP_MAX_PATH 4096u
#define TMCAP_MAX_VDSO (1u << 20)

#endif
