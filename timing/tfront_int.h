/* tm — the timing model's frontend half (tm/tfront.h): what its two files
 * share (tfront.c: the machine, its threads, caches and blocks; tshadow.c:
 * the shadow of the stores and loads that orders the threads' accesses).
 * Freestanding. */
#ifndef TM_TFRONT_INT_H
#define TM_TFRONT_INT_H

#include "tm/tfront.h"

#define MIB (1ul << 20)
#define LINE_SHIFT 6                         /* 64-byte lines: a line's bytes are a word's bits */
#define BLOCK_LEAF 4096u
#define BLOCK_TOP (1u << 16)                 /* block ids below 2^28 are timed */
#define NFILTER 8                            /* dependencies sent, remembered per thread */
#define NREADERS 8                           /* readers of a line kept (TMF_WAR) */
#define HIST_SHIFT 6                         /* a thread's estimate kept every 64 blocks, */
#define NHIST 256u                           /* the last 256 of them (16384 blocks) */
#define MAX_MIXED_CHUNKS 4096u               /* lines with several writers: 1024 a chunk */

/* A writer (or reader) of the shadow: the thread's uid + 1 (20 bits), its
 * block (38 bits), end (the store was a thread's end clearing its
 * CLEARTID word); E_MIXED marks a line entry whose bytes have several. */
#define E_END 0x1ull
#define E_MIXED 0x2ull
#define E_UID_SHIFT 6
#define E_UID_BITS 20
#define E_K_SHIFT 26
#define E_UIDK(uid, k) ((tmf_word)((uid) + 1u) << E_UID_SHIFT | (tmf_word)(k) << E_K_SHIFT)
#define E_UID(e) ((unsigned)((e) >> E_UID_SHIFT & ((1u << E_UID_BITS) - 1)) - 1u)
#define E_K(e) ((e) >> E_K_SHIFT)

/* L1D line state (dk's top bit): no other core's L1 holds the line. */
#define L1_EXCL (1ull << 63)

typedef struct thr {
    unsigned uid;               /* + 1; 0: no thread yet */
    tmf_word k;                 /* blocks completed */
    tmf_word data, ifetch;      /* the block in progress's stall */
    tmf_word iline;             /* the line fetched last + 1 */
    tmf_word *itag, *iage;      /* L1I [set][way] */
    /* L1D [set][way]: tag (line + 1), age; dmask: bytes another thread
     * wrote that this core has not checked since the line came; dirty:
     * bytes this core stored that the shadow does not have yet; dk:
     * L1_EXCL */
    tmf_word *dtag, *dage, *dmask, *dirty, *dk;
    tmf_word *gk;               /* L1D [set][way][16]: the block of this core's last store to each granule */
    tmf_word mru;               /* the line accessed last + 1, at way mru_way (0: none) */
    unsigned long mru_way;
    unsigned fuid[NFILTER];     /* dependencies sent: uid + 1, the greatest block */
    tmf_word fk[NFILTER];
    int live;                   /* its L1D may hold lines */
    int running;                /* created, not ended, not in a system call */
    tmf_word est;               /* its clock as this half estimates it: instructions, stalls,
                                   the dependencies and wakes it followed */
    unsigned since;             /* blocks since it last compared its estimate */
    tmf_word hk[NHIST];         /* est at block (hk - 1) << HIST_SHIFT, in slot of that index */
    tmf_word hest[NHIST];
} thr;

typedef struct rline {          /* a line's readers since its bytes were last stored (TMF_WAR) */
    tmf_word key;               /* line + 1; 0: empty slot */
    tmf_word who[NREADERS];     /* E_UIDK of a reader, 0: none */
    tmf_word bytes[NREADERS];   /* the bytes it read */
    unsigned over;              /* more readers than kept: every thread counts as one */
} rline;

struct tmf {
    tmf_cfg cfg;
    tmf_alloc_fn alloc;
    void *actx;
    tmf_dep_fn dep;
    void *dctx;
    unsigned l1_sets, il1_sets, l2_sets;
    tmf_word tick;
    tmf_word *l2tag, *l2age;
    thr *th[TMF_MAX_TIDS];
    unsigned cur_tid;                   /* the thread accessed last (th[cur_tid] == cur) */
    thr *cur;
    unsigned live[TMF_MAX_TIDS], nlive; /* threads whose L1D may hold lines */
    unsigned num[TMF_MAX_TIDS], nnum;   /* threads numbered and not ended */
    unsigned next_uid;
    tmf_word **blocks[BLOCK_TOP];       /* id >> 12 -> 4096 block shapes */
    /* the shadow: regions of 1024 line entries by address >> 16 (open addressing) */
    tmf_word *rkey;
    void **rval;
    unsigned long rcap, rn;
    tmf_word last_rkey;
    void *last_region;
    /* lines with several writers: 64 writers each, in chunks of 1024 lines */
    tmf_word *mixed[MAX_MIXED_CHUNKS];
    tmf_word nmixed;
    /* readers (TMF_WAR) */
    rline *rd;
    unsigned long rdcap, rdn;
    tmf_thread_stats *ust;
    thr **uth;                          /* per uid: its thread's state (while it is the uid's) */
    tmf_word *uend;                     /* per uid: its estimate at its end */
    unsigned ust_cap;
    tmf_stats st;
    char *bump;
    unsigned long bump_left;
};

static inline void tmf_zero(void *p, unsigned long n)
{
    unsigned char *d = p;
    while (n--)
        *d++ = 0;
}

/* N bytes from F's memory, zeroed, 8-aligned; NULL without memory. */
void *tmf_get(tmf *f, unsigned long n);
/* Thread UID's estimate at its block K (END: at its end), 0 if not known. */
tmf_word tmf_est_at(const tmf *f, unsigned uid, tmf_word k, int end);
/* A dependency of T's block in progress on W (E_UIDK form, E_END) of KIND:
 * sent, and T's estimate no earlier than that block's. */
void tmf_depend(tmf *f, thr *t, unsigned kind, tmf_word w);
/* The shadow (tshadow.c), a line's bytes a word's bits.  The bytes of LINE
 * written by threads other than UID. */
tmf_word tmf_sh_foreign(tmf *f, unsigned uid, tmf_word line);
/* T reads BYTES of LINE: the foreign stores it follows. */
void tmf_sh_read(tmf *f, thr *t, tmf_word line, tmf_word bytes);
/* WHO (E_UIDK(uid, 0), E_END) stored BYTES of LINE: granule g (4 bytes)
 * last in block GK[g], or with GK NULL all in block K. */
void tmf_sh_write(tmf *f, tmf_word line, tmf_word bytes, tmf_word who, const tmf_word *gk, tmf_word k);
/* With TMF_WAR: T read BYTES of LINE; T overwrites them. */
void tmf_sh_reader_add(tmf *f, thr *t, tmf_word line, tmf_word bytes);
void tmf_sh_reader_store(tmf *f, thr *t, tmf_word line, tmf_word bytes);

#endif
