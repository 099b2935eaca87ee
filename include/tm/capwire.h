/* tm — the capture wire format (docs/capture.md).
 *
 * What a frontend (the Valgrind tool in vg-frontend/, later a Pin tool)
 * writes to `tm record` through a pipe: a stream of little-endian 64-bit
 * words.  Macros only, no includes: the Valgrind tool is built without libc.
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
 *  EXEC    w0 = 2 | exit << 8 (8 bits) | id << 16; then the target word if
 *          the exit is DYN.  The running thread ran block id and left it
 *          through the exit.  Its MEM events precede it.
 *  THREAD  w0 = 3 | tid << 8: the following events are those of tid.
 *  CREATE  w0 = 4 | tid << 8 (24 bits) | parent << 32: thread tid exists.
 *  EXIT    w0 = 5 | tid << 8: thread tid has ended.
 *  SIGNAL  w0 = 6 | tid << 8 | signo << 32, w1 = pc the thread would have
 *          run next: a signal handler starts; the thread's next block is it.
 *  SIGRET  w0 = 7 | tid << 8: a handler returned; the next block resumes.
 *  MEM     w0 = 8 | store << 8 | novalue << 10 | size << 16 (8 bits, 1..64)
 *          | insn << 24 (16 bits, instruction index in the block that will
 *          be left next), w1 = address, then, unless novalue, (size + 7) / 8
 *          words of value bytes in memory order (the last word zero-padded).
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
 *  SYSCALL w0 = 13 | tid << 8 (24 bits) | leave << 32 (1 bit) | number << 40
 *          (16 bits): thread tid enters (leave 0) or leaves (leave 1) a
 *          system call; other threads may run in between (the timing
 *          model, docs/capture.md §3).
 *  ADDR    w0 = 14 | store << 8 | (size - 1) << 10 (6 bits, size 1..64)
 *          | address << 16 (its low 48 bits): a memory operand of the
 *          running thread, its address only (the timing model's data
 *          caches, docs/capture.md §3); it belongs to the block left next
 *          and is not part of the commit stream.
 *  ISA     w0 = 15 | isa << 8 (8 bits, TM_ISA_* of tm/isa.h): the program's
 *          instruction set; the first event after the magic of a stream
 *          whose program is not x86-64 (a stream without it is x86-64).
 */
#ifndef TM_CAPWIRE_H
#define TM_CAPWIRE_H

#define TMCAP_MAGIC 0x3150414354204d54ull /* "TM TCAP1" little-endian */

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
#define TMCAP_ADDR 14
#define TMCAP_ISA 15

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
