/* tm pt — Intel PT on the same execution: encode a commit stream into one
 * raw PT buffer per core with libipt's encoder, decode them with libipt's
 * decoder and compare with the commit stream, and compare the bits with
 * the trace module's encodings in the same pass (tm/pt.h, docs/pt.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "modelopts.h"
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/pt.h"
#include "tm/sweep.h"
#include "tm/tmc.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm pt [options] IN.tmc -o BASE      encode: BASE.T<n>.pt per core that ran\n"
            "       tm pt --check [options] IN.tmc BASE  decode BASE.T<n>.pt and compare with IN.tmc\n"
            "       tm pt --decode [--block] [options] BASE   decode BASE.T<n>.pt (instructions, speed)\n"
            "\n"
            "The Intel Processor Trace each core would have written for the execution of IN.tmc\n"
            "(user-only tracing, as perf's intel_pt//u), written with libipt's encoder (docs/pt.md).\n"
            "\n"
            "  -o BASE              the outputs BASE.T<n>.pt (one raw PT buffer per core)\n"
            "  --psb-period BYTES   PSB+ every BYTES of a core's output (K, M; 256..1G; default 4K)\n"
            "  --tnt short|long     TNT packets: short (6 branches a byte, the default) or long\n"
            "                       (up to 47 branches in 8 bytes)\n"
            "  --no-retcomp         no return compression: every return is a TIP\n"
            "  --timing LIST        timing packets: tsc, mtc, cyc (comma-separated), all or none\n"
            "                       (default none); cycles are the commit stream's\n"
            "  --mtc-period K       MTC every 2^K cycles (1..24, default 8)\n"
            "  --modules FILE       the recording's module map (default IN.modules, IN without .tmc)\n"
            "  --vdso FILE          the recorded vdso bytes (default IN.vdso if it exists)\n"
            "  --ignore-build-id    use files whose GNU build-id differs from the map's\n"
            "  --no-image           encode without the module map (streams without code, tm gen's):\n"
            "                       system calls inside runs are then not seen\n"
            "  --verify             after writing, decode every BASE.T<n>.pt with libipt over the\n"
            "                       module map's ELF files and compare with IN.tmc, instruction by\n"
            "                       instruction\n"
            "  --compare            in the same pass: PT with all timing packets (or without, with\n"
            "                       --timing), and the trace module (large predictors, a buffer and\n"
            "                       port that drop nothing) with each encoding (nx_b, tr_b, tr_e,\n"
            "                       tr_a: tm config --list-encodings), each without and with time\n"
            "                       stamps (ENC+ts); a table of bits per instruction and cycle\n"
            "  --timing-variants    in the same pass: PT without timing, with TSC+MTC and with\n"
            "                       TSC+MTC+CYC (the PT rows of --compare, without the models)\n"
            "  --stats FILE         statistics as JSON\n"
            "  --block              --decode: libipt's block decoder (default: instruction decoder)\n"
            "  -q, --quiet          no text report on stdout\n"
            "Exit status: 0 ok; 1 a runtime error or, with --verify/--check, a mismatch; 2 usage.\n");
}

typedef struct ptout {
    const char *base;
    tm_out *outs;
    FILE **f;
    uint32_t n;
    int failed;
} ptout;

static int out_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return snprintf(buf, n, "%s.T%" PRIu32 ".pt", base, tid) >= (int)n ? -1 : 0;
}

static int write_pt(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    ptout *o = arg;
    if (!o->f[tid]) {
        char name[PATH_MAX];
        if (out_name(name, sizeof name, o->base, tid) || tm_out_begin("pt", &o->outs[tid], name, NULL)) {
            o->failed = 1;
            return -1;
        }
        o->f[tid] = fopen(o->outs[tid].tmp, "wbe");
        if (!o->f[tid]) {
            tm_err("pt", "%s: %s", name, strerror(errno));
            tm_out_abort(&o->outs[tid]);
            o->failed = 1;
            return -1;
        }
    }
    if (fwrite(p, 1, n, o->f[tid]) != n) {
        tm_err("pt", "%s: %s", o->outs[tid].path, strerror(errno));
        o->failed = 1;
        return -1;
    }
    return 0;
}

static int null_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    (void)arg, (void)tid, (void)p, (void)n;
    return 0;
}

/* Reads the buffers BASE.T<n>.pt, n < THREADS (those that exist). */
typedef struct bufs {
    tm_pt_buffer *b;
    char **names;
    uint8_t **data;
    size_t n;
} bufs;

static void bufs_free(bufs *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->names[i]);
        free(b->data[i]);
    }
    free(b->b);
    free(b->names);
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int read_file(const char *name, uint8_t **out, size_t *len)
{
    FILE *f = fopen(name, "rbe");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    size_t k;
    while (p && (k = fread(p + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            }
            p = q;
        }
    }
    int bad = !p || ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return -1;
    }
    *out = p;
    *len = n;
    return 0;
}

static int bufs_load(bufs *b, const char *base, uint32_t threads, int allow_empty)
{
    memset(b, 0, sizeof *b);
    b->b = calloc(threads ? threads : 1, sizeof *b->b);
    b->names = calloc(threads ? threads : 1, sizeof *b->names);
    b->data = calloc(threads ? threads : 1, sizeof *b->data);
    if (!b->b || !b->names || !b->data) {
        tm_err("pt", "out of memory");
        return -1;
    }
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        if (out_name(name, sizeof name, base, t)) {
            tm_err("pt", "%s: name too long", base);
            return -1;
        }
        struct stat st;
        if (stat(name, &st) != 0)
            continue;
        size_t i = b->n;
        if (!(b->names[i] = strdup(name)) || read_file(name, &b->data[i], &b->b[i].n)) {
            tm_err("pt", "%s: %s", name, strerror(errno ? errno : ENOMEM));
            free(b->names[i]);
            return -1;
        }
        b->b[i] = (tm_pt_buffer){t, b->data[i], b->b[i].n, b->names[i]};
        b->n++;
    }
    if (!b->n && !allow_empty) {
        tm_err("pt", "%s.T0.pt: no PT buffer %s.T<n>.pt", base, base);
        return -1;
    }
    return 0;
}

static int parse_timing(const char *v, unsigned *t)
{
    *t = 0;
    if (!strcmp(v, "none"))
        return 0;
    if (!strcmp(v, "all")) {
        *t = TM_PT_TSC | TM_PT_MTC | TM_PT_CYC;
        return 0;
    }
    char buf[64];
    size_t l = strlen(v);
    if (l >= sizeof buf || !l || v[0] == ',' || v[l - 1] == ',' || strstr(v, ",,"))
        return -1;
    strcpy(buf, v);
    for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
        if (!strcmp(s, "tsc"))
            *t |= TM_PT_TSC;
        else if (!strcmp(s, "mtc"))
            *t |= TM_PT_MTC;
        else if (!strcmp(s, "cyc"))
            *t |= TM_PT_CYC;
        else
            return -1;
    }
    return *t ? 0 : -1;
}

static void timing_str(unsigned t, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", t & TM_PT_TSC ? "tsc," : "", t & TM_PT_MTC ? "mtc," : "",
             t & TM_PT_CYC ? "cyc," : "", t ? "" : "none");
    size_t l = strlen(buf);
    if (l && buf[l - 1] == ',')
        buf[l - 1] = 0;
}

static void progress(uint64_t records, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm pt: %" PRIu64 "M records\n", records >> 20);
        *last = now;
    }
}

/* The module map and vdso beside IN.tmc (IN without .tmc). */
static int default_image_paths(const char *tmc, char *mods, char *vdso, size_t n)
{
    size_t l = strlen(tmc);
    if (l > 4 && !strcmp(tmc + l - 4, ".tmc"))
        l -= 4;
    if (l + 9 > n)
        return -1;
    memcpy(mods, tmc, l);
    strcpy(mods + l, ".modules");
    memcpy(vdso, tmc, l);
    strcpy(vdso + l, ".vdso");
    return 0;
}

/* The trace module's rows of --compare: each encoding of the model
 * (tm_encoding_name), without and with time stamps: row i is encoding i / 2,
 * with time stamps iff i is odd. */
#define NCMP (2 * TM_ENCODINGS)

typedef struct compare {
    tm_sweep *sw;
    tm_model_cfg cfg[NCMP];
    char name[NCMP][24]; /* ENC or ENC+ts */
    tm_pt_encoder *alt[3]; /* PT without timing, with TSC+MTC, with TSC+MTC+CYC */
    int on;
} compare;

static const unsigned alt_timing[3] = {0, TM_PT_TSC | TM_PT_MTC, TM_PT_TSC | TM_PT_MTC | TM_PT_CYC};
static const char *const alt_name[3] = {"PT", "PT+mtc", "PT+cyc"};

static int compare_new(compare *c, uint32_t threads, const tm_pt_opts *po, int models)
{
    memset(c, 0, sizeof *c);
    c->on = 1;
    for (int i = 0; i < NCMP && models; i++) {
        model_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.config = "large";
        mo.encoding = tm_encoding_name((tm_encoding)(i / 2));
        mo.timestamps = i & 1;
        snprintf(c->name[i], sizeof c->name[i], "%s%s", mo.encoding, i & 1 ? "+ts" : "");
        mo.buffer = "65536";
        mo.port = "1024";
        if (model_opts_cfg("pt", &mo, threads, &c->cfg[i]))
            return -1;
    }
    char e[512];
    if (models && tm_sweep_new(c->cfg, NCMP, &c->sw, e, sizeof e) != TM_OK) {
        tm_err("pt", "--compare: cannot make the models: %s", e);
        return -1;
    }
    for (int i = 0; i < 3; i++) {
        tm_pt_opts ao = *po;
        ao.timing = alt_timing[i];
        ao.write = null_write;
        char err[256];
        if (tm_pt_encoder_new(&ao, threads, &c->alt[i], err, sizeof err) != TM_OK) {
            tm_err("pt", "%s", err);
            return -1;
        }
    }
    return 0;
}

static void compare_free(compare *c)
{
    tm_sweep_free(c->sw);
    for (int i = 0; i < 3; i++)
        tm_pt_encoder_free(c->alt[i]);
}

typedef struct row {
    const char *name;
    double bits;
    uint64_t dropped;
    int timed;   /* the PT row it is compared with: 0 PT, 2 PT+cyc (PT+mtc: itself) */
} row;

static void json_str(FILE *f, const char *s)
{
    putc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            putc(ch, f);
    }
    putc('"', f);
}

int cmd_pt(int argc, char **argv)
{
    const char *in = NULL, *base = NULL, *modules = NULL, *vdso = NULL, *stats = NULL, *v;
    const char *pos[2] = {NULL, NULL};
    int npos = 0, verify = 0, check = 0, decode = 0, block = 0, quiet = 0, no_image = 0, ignore_id = 0;
    int do_compare = 0, variants = 0;
    tm_pt_opts po;
    memset(&po, 0, sizeof po);
    po.psb_period = 4096;
    po.mtc_shift = 8;
    int opts = 1; /* "--" ends the options: after it every argument is a file */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (opts && !strcmp(a, "--")) {
            opts = 0;
        } else if (!opts || a[0] != '-' || !a[1]) {
            if (npos == 2) {
                tm_usage("pt", "too many arguments: %s", a);
                return 2;
            }
            pos[npos++] = a;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((r = tm_opt(argc, argv, &i, "-o", &v)) != 0) {
            if (r < 0)
                goto missing;
            base = v;
        } else if ((r = tm_opt(argc, argv, &i, "--psb-period", &v)) != 0) {
            uint32_t b;
            if (r < 0)
                goto missing;
            if (tm_parse_size(v, &b) || b < 256 || b > (1u << 30)) {
                tm_usage("pt", "--psb-period %s: allowed 256 .. 1G bytes (K, M)", v);
                return 2;
            }
            po.psb_period = b;
        } else if ((r = tm_opt(argc, argv, &i, "--tnt", &v)) != 0) {
            if (r < 0)
                goto missing;
            if (strcmp(v, "short") && strcmp(v, "long")) {
                tm_usage("pt", "--tnt %s: allowed short, long", v);
                return 2;
            }
            po.tnt_long = !strcmp(v, "long");
        } else if ((r = tm_opt(argc, argv, &i, "--timing", &v)) != 0) {
            if (r < 0)
                goto missing;
            if (parse_timing(v, &po.timing)) {
                tm_usage("pt", "--timing %s: allowed a list of tsc, mtc, cyc; all; none", v);
                return 2;
            }
        } else if ((r = tm_opt(argc, argv, &i, "--mtc-period", &v)) != 0) {
            uint64_t k;
            if (r < 0)
                goto missing;
            if (tm_parse_u64(v, &k) || k < 1 || k > 24) {
                tm_usage("pt", "--mtc-period %s: allowed 1..24 (MTC every 2^K cycles)", v);
                return 2;
            }
            po.mtc_shift = (unsigned)k;
        } else if ((r = tm_opt(argc, argv, &i, "--modules", &v)) != 0) {
            if (r < 0)
                goto missing;
            modules = v;
        } else if ((r = tm_opt(argc, argv, &i, "--vdso", &v)) != 0) {
            if (r < 0)
                goto missing;
            vdso = v;
        } else if ((r = tm_opt(argc, argv, &i, "--stats", &v)) != 0) {
            if (r < 0)
                goto missing;
            stats = v;
        } else if (!strcmp(a, "--no-retcomp")) {
            po.no_retcomp = 1;
        } else if (!strcmp(a, "--no-image")) {
            no_image = 1;
        } else if (!strcmp(a, "--ignore-build-id")) {
            ignore_id = 1;
        } else if (!strcmp(a, "--verify")) {
            verify = 1;
        } else if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--decode")) {
            decode = 1;
        } else if (!strcmp(a, "--block")) {
            block = 1;
        } else if (!strcmp(a, "--compare")) {
            do_compare = 1;
        } else if (!strcmp(a, "--timing-variants")) {
            variants = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else {
            tm_usage("pt", "unknown option '%s'", a);
            return 2;
        }
        continue;
    missing:
        tm_usage("pt", "%s needs a value", a);
        return 2;
    }
    if (check + decode > 1 || ((check || decode) && (verify || do_compare || variants || base || stats))) {
        tm_usage("pt", "--check and --decode take no -o, --verify, --compare, --timing-variants or --stats, and not "
                     "each other");
        return 2;
    }
    if (block && !decode) {
        tm_usage("pt", "--block goes with --decode");
        return 2;
    }
    if (decode ? npos != 1 : check ? npos != 2 : (npos != 1 || !base)) {
        tm_usage("pt", decode ? "--decode needs BASE"
                     : check ? "--check needs IN.tmc and BASE"
                             : "needs IN.tmc and -o BASE");
        return 2;
    }
    in = decode ? NULL : pos[0];
    if (check)
        base = pos[1];
    if (decode)
        base = pos[0];
    if (no_image && (verify || check || decode || modules || vdso)) {
        tm_usage("pt", "--no-image: there is no code to decode with (no --verify, --check, --decode, --modules, --vdso)");
        return 2;
    }

    if (in && strcmp(in, "-") && access(in, R_OK) != 0) {
        tm_err("pt", "%s: %s", in, strerror(errno));
        return 1;
    }

    /* The image. */
    char dm[PATH_MAX], dv[PATH_MAX];
    tm_pt_image *im = NULL;
    if (!no_image) {
        const char *src = in ? in : base;
        if (default_image_paths(src, dm, dv, sizeof dm)) {
            tm_err("pt", "%s: name too long", src);
            return 2;
        }
        if (!modules) {
            if (access(dm, R_OK) != 0) {
                tm_err("pt", "%s: no module map %s beside it (--modules FILE; --no-image for a stream without code)",
                       src, dm);
                return 1;
            }
            modules = dm;
        }
        if (!vdso && access(dv, R_OK) == 0)
            vdso = dv;
        char err[1024];
        if (tm_pt_image_load(modules, vdso, ignore_id, &im, err, sizeof err) != TM_OK) {
            tm_err("pt", "%s", err);
            return 1;
        }
    }

    int status = 0;
    char err[1024];
    tm_pt_decode_result dres;
    memset(&dres, 0, sizeof dres);
    if (decode || check) {
        uint32_t threads = TMC_MAX_THREADS;
        if (check) {
            tmc_reader *r = NULL;
            if (tmc_reader_open(in, &r, err, sizeof err) != TM_OK) {
                tm_err("pt", "%s", err);
                tm_pt_image_free(im);
                return 1;
            }
            threads = tmc_reader_threads(r);
            tmc_reader_close(r);
        }
        bufs b;
        if (bufs_load(&b, base, threads, 0)) {
            bufs_free(&b);
            tm_pt_image_free(im);
            return 1;
        }
        time_t last = time(NULL);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = decode ? tm_pt_decode(im, b.b, b.n, block, &dres, err, sizeof err)
                        : tm_pt_verify(im, b.b, b.n, in, &dres, progress, &last, err, sizeof err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (rc != TM_OK) {
            tm_err("pt", "%s", err);
            status = 1;
        } else if (!quiet) {
            if (decode)
                printf("decoded %" PRIu64 " instructions on %" PRIu64 " cores with libipt's %s decoder in %.3f s"
                       " (%.1f M instructions/s)\n",
                       dres.instructions, dres.threads, block ? "block" : "instruction", s,
                       s > 0 ? (double)dres.instructions / s / 1e6 : 0.0);
            else
                printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " cores decoded by libipt match %s\n",
                       dres.checked, dres.threads, in);
        }
        bufs_free(&b);
        tm_pt_image_free(im);
        return tm_finish_stdout("pt", status);
    }

    /* Encode. */
    tmc_reader *r = NULL;
    if (tmc_reader_open(in, &r, err, sizeof err) != TM_OK) {
        tm_err("pt", "%s", err);
        tm_pt_image_free(im);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(r);
    /* no core's output may be the input or the statistics (issue 35):
     * refused before anything is written */
    for (uint32_t t = 0; base && t < threads; t++) {
        char name[PATH_MAX];
        const char *clash = NULL;
        if (!out_name(name, sizeof name, base, t))
            clash = tm_same_file(name, in) ? in
                    : stats && (!strcmp(name, stats) || tm_same_file(name, stats)) ? stats : NULL;
        if (clash) {
            tm_usage("pt", "%s: the output of core %" PRIu32 " is the %s %s (the same file): refused, it would "
                     "destroy it", name, t, clash == in ? "input" : "statistics file", clash);
            tmc_reader_close(r);
            tm_pt_image_free(im);
            return 2;
        }
    }
    ptout out = {base, calloc(threads, sizeof(tm_out)), calloc(threads, sizeof(FILE *)), threads, 0};
    tm_out ost;
    memset(&ost, 0, sizeof ost);
    const char *inputs[] = {in, NULL};
    tm_pt_encoder *enc = NULL;
    compare cmp;
    memset(&cmp, 0, sizeof cmp);
    int rc = TM_OK;
    if (!out.outs || !out.f) {
        tm_err("pt", "out of memory");
        status = 1;
        goto done;
    }
    if (stats && (rc = tm_out_begin("pt", &ost, stats, inputs)) != 0) {
        status = rc == -2 ? 2 : 1; /* the output is the input: a usage error */
        rc = TM_OK;
        goto done;
    }
    po.write = write_pt;
    po.write_arg = &out;
    if (im) {
        po.code = tm_pt_image_code;
        po.code_arg = im;
    }
    if (tm_pt_encoder_new(&po, threads, &enc, err, sizeof err) != TM_OK) {
        tm_err("pt", "%s", err);
        status = 1;
        goto done;
    }
    /* The trace module's Ti field has floor(log2 N) bits for the N cores
     * that ran (thread ids are given in order of first entry): a first pass
     * finds N when the models are run. */
    uint32_t ran = threads;
    if (do_compare) {
        tmc_reader *r2 = NULL;
        tmc_record rr;
        uint32_t top = 0;
        int g2 = tmc_reader_open(in, &r2, err, sizeof err);
        while (g2 == TM_OK && (g2 = tmc_reader_next(r2, &rr)) == 1)
            if (rr.type == TMC_START && rr.tid + 1 > top)
                top = rr.tid + 1;
        tmc_reader_close(r2);
        if (top && g2 == 0)
            ran = top;
    }
    if ((do_compare || variants) && compare_new(&cmp, ran, &po, do_compare)) {
        status = 1;
        goto done;
    }
    tmc_record rec;
    int got;
    uint64_t records = 0;
    time_t last = time(NULL);
    while ((got = tmc_reader_next(r, &rec)) == 1) {
        if (!(++records & ((1u << 22) - 1)))
            progress(records, &last);
        rc = tm_pt_encoder_put(enc, &rec, err, sizeof err);
        for (int a = 0; a < 3 && rc == TM_OK && cmp.on; a++)
            rc = tm_pt_encoder_put(cmp.alt[a], &rec, err, sizeof err);
        if (rc == TM_OK && cmp.sw && (rc = tm_sweep_put(cmp.sw, &rec)) != TM_OK)
            snprintf(err, sizeof err, "the model: %s",
                     tm_model_error(tm_sweep_model(cmp.sw, tm_sweep_failed(cmp.sw))));
        if (rc != TM_OK)
            break;
    }
    if (got < 0) {
        tm_err("pt", "%s", tmc_reader_error(r));
        status = 1;
        goto done;
    }
    if (rc == TM_OK)
        rc = tm_pt_encoder_finish(enc, err, sizeof err);
    for (int a = 0; a < 3 && rc == TM_OK && cmp.on; a++)
        rc = tm_pt_encoder_finish(cmp.alt[a], err, sizeof err);
    if (rc == TM_OK && cmp.sw && (rc = tm_sweep_finish(cmp.sw)) != TM_OK)
        snprintf(err, sizeof err, "the model: %s", tm_model_error(tm_sweep_model(cmp.sw, tm_sweep_failed(cmp.sw))));
    if (rc != TM_OK || out.failed) {
        if (!out.failed)
            tm_err("pt", "%s: %s", in, err);
        status = 1;
        goto done;
    }
    for (uint32_t t = 0; t < threads; t++) {
        if (!out.f[t])
            continue;
        int bad = fflush(out.f[t]) != 0 || ferror(out.f[t]);
        int e = errno;
        if (fclose(out.f[t]) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        out.f[t] = NULL;
        if (bad) {
            tm_err("pt", "%s: %s", out.outs[t].path, strerror(e));
            status = 1;
            goto done;
        }
    }
    for (uint32_t t = 0; t < threads; t++)
        if (out.outs[t].active && tm_out_commit("pt", &out.outs[t])) {
            status = 1;
            goto done;
        }
    /* BASE.T<n>.pt of cores that did not run this time are not this
     * execution's: removed, so that --verify and --check see only these. */
    for (uint32_t t = 0; t < TMC_MAX_THREADS; t++) {
        char name[PATH_MAX];
        struct stat sb;
        if ((t < threads && out.outs[t].path[0]) || out_name(name, sizeof name, base, t) || stat(name, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) && unlink(name) != 0) {
            tm_err("pt", "%s: cannot remove this earlier output: %s", name, strerror(errno));
            status = 1;
            goto done;
        }
    }
    const tm_pt_stats *st = tm_pt_encoder_stats(enc);
    if (verify) {
        bufs b;
        if (bufs_load(&b, base, threads, 1)) {
            bufs_free(&b);
            status = 1;
            goto done;
        }
        rc = tm_pt_verify(im, b.b, b.n, in, &dres, progress, &last, err, sizeof err);
        bufs_free(&b);
        if (rc != TM_OK) {
            tm_err("pt", "--verify: %s", err);
            status = 1;
        }
    }

    /* Reports. */
    double insns = (double)st->instructions, cyc = (double)st->cycles;
    double bits = 8.0 * (double)st->total_bytes;
    row rows[3 + NCMP];
    size_t nrows = 0;
    char tstr[32];
    timing_str(po.timing, tstr, sizeof tstr);
    if (cmp.on)
        for (int a = 0; a < 3; a++)
            rows[nrows++] = (row){alt_name[a], 8.0 * (double)tm_pt_encoder_stats(cmp.alt[a])->total_bytes, 0, a};
    if (cmp.sw) {
        for (int i = 0; i < NCMP; i++) {
            const tm_model_stats *ms = tm_model_get_stats(tm_sweep_model(cmp.sw, (size_t)i));
            rows[nrows++] = (row){cmp.name[i], (double)ms->total.bits_total, ms->total.dropped_messages, i & 1 ? 2 : 0};
        }
    }
    if (!quiet) {
        printf("PT: %" PRIu64 " instructions on %" PRIu64 " cores, %" PRIu64 " cycles: %" PRIu64
               " bytes = %.4f bits/instruction, %.4f bits/cycle\n",
               st->instructions, st->threads, st->cycles, st->total_bytes, insns ? bits / insns : 0.0,
               cyc ? bits / cyc : 0.0);
        printf("options: PSB every %" PRIu32 " bytes, %s TNT, return compression %s, timing %s\n", po.psb_period,
               po.tnt_long ? "long" : "short", po.no_retcomp ? "off" : "on", tstr);
        if (st->mem)
            printf("note: the stream's %" PRIu64 " memory operands are not traced (Intel PT traces control flow; "
                   "no PTWRITE)\n", st->mem);
        printf("%-10s %10s %12s\n", "packet", "count", "bytes");
        for (unsigned k = 0; k < TM_PT_NKINDS; k++)
            if (st->packets[k])
                printf("%-10s %10" PRIu64 " %12" PRIu64 "\n", tm_pt_kind_name(k), st->packets[k], st->bytes[k]);
        uint64_t events[TM_PT_NCAUSES] = {st->cond, st->rets_compressed, st->rets - st->rets_compressed,
                                          st->indirect, st->far, st->exceptions, 0, st->psb_periodic, 0};
        printf("%-15s %12s %8s %10s %10s\n", "spent on", "bits", "share", "events", "bits/event");
        for (unsigned c = 0; c < TM_PT_NCAUSES; c++) {
            if (st->cause_bits[c] == 0 && !events[c])
                continue;
            printf("%-15s %12.0f %7.1f%% %10" PRIu64, tm_pt_cause_name(c), st->cause_bits[c],
                   bits ? 100.0 * st->cause_bits[c] / bits : 0.0, events[c]);
            if (events[c])
                printf(" %10.2f\n", st->cause_bits[c] / (double)events[c]);
            else
                printf(" %10s\n", "-");
        }
        if (nrows) {
            if (cmp.sw)
                printf("same execution, in one pass (the trace module: large predictors, a buffer and port that "
                       "drop nothing; PT / this: against PT, for +ts against PT+cyc):\n");
            else
                printf("PT with and without timing packets, in one pass:\n");
            printf("%-10s %14s %12s %12s %10s\n", "format", "bits", "bits/instr", "bits/cycle", "PT / this");
            for (size_t i = 0; i < nrows; i++) {
                double ref = rows[rows[i].timed].bits;
                printf("%-10s %14.0f %12.4f %12.4f %9.2fx", rows[i].name, rows[i].bits,
                       insns ? rows[i].bits / insns : 0.0, cyc ? rows[i].bits / cyc : 0.0,
                       rows[i].bits ? ref / rows[i].bits : 0.0);
                if (rows[i].dropped)
                    printf("  (%" PRIu64 " messages dropped: not the demand)", rows[i].dropped);
                putchar('\n');
            }
        }
        if (verify && status == 0)
            printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " cores decoded by libipt match %s\n",
                   dres.checked, dres.threads, in);
    }
    if (stats) {
        FILE *f = fopen(ost.tmp, "we");
        if (!f) {
            tm_err("pt", "%s: %s", stats, strerror(errno));
            status = 1;
            goto done;
        }
        fprintf(f, "{\n  \"tmc\": ");
        json_str(f, in);
        fprintf(f, ",\n  \"threads\": %" PRIu64 ",\n  \"instructions\": %" PRIu64 ",\n  \"cycles\": %" PRIu64
                   ",\n  \"bytes\": %" PRIu64 ",\n  \"bits\": %" PRIu64 ",\n  \"bpi\": %.6f,\n  \"bpc\": %.6f,\n",
                st->threads, st->instructions, st->cycles, st->total_bytes, 8 * st->total_bytes,
                insns ? bits / insns : 0.0, cyc ? bits / cyc : 0.0);
        fprintf(f, "  \"options\": {\"psb_period\": %" PRIu32 ", \"tnt\": \"%s\", \"retcomp\": %s, \"timing\": \"%s\", "
                   "\"mtc_period_log2\": %u, \"image\": %s},\n",
                po.psb_period, po.tnt_long ? "long" : "short", po.no_retcomp ? "false" : "true", tstr, po.mtc_shift,
                im ? "true" : "false");
        fprintf(f, "  \"packets\": {");
        for (unsigned k = 0; k < TM_PT_NKINDS; k++)
            fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", k ? ", " : "",
                    tm_pt_kind_name(k), st->packets[k], st->bytes[k]);
        fprintf(f, "},\n  \"spent_bits\": {");
        for (unsigned c = 0; c < TM_PT_NCAUSES; c++)
            fprintf(f, "%s\"%s\": %.1f", c ? ", " : "", tm_pt_cause_name(c), st->cause_bits[c]);
        fprintf(f, "},\n  \"events\": {\"cond\": %" PRIu64 ", \"ret\": %" PRIu64 ", \"ret_compressed\": %" PRIu64
                   ", \"indirect\": %" PRIu64 ", \"far\": %" PRIu64 ", \"exceptions\": %" PRIu64 ", \"psb\": %" PRIu64
                   ", \"memory_operands_not_traced\": %" PRIu64 "},\n",
                st->cond, st->rets, st->rets_compressed, st->indirect, st->far, st->exceptions, st->psb, st->mem);
        fprintf(f, "  \"per_core_bytes\": [");
        for (uint32_t t = 0, k = 0; t < threads; t++)
            if (tm_pt_encoder_thread_bytes(enc, t))
                fprintf(f, "%s{\"core\": %" PRIu32 ", \"bytes\": %" PRIu64 "}", k++ ? ", " : "", t,
                        tm_pt_encoder_thread_bytes(enc, t));
        fprintf(f, "],\n  \"compare\": [");
        for (size_t i = 0; i < nrows; i++)
            fprintf(f, "%s\n    {\"format\": \"%s\", \"bits\": %.0f, \"bpi\": %.6f, \"bpc\": %.6f, \"dropped_messages\": %" PRIu64
                       ", \"timed\": %s, \"pt_over_this\": %.6f}",
                    i ? "," : "", rows[i].name, rows[i].bits, insns ? rows[i].bits / insns : 0.0,
                    cyc ? rows[i].bits / cyc : 0.0, rows[i].dropped, rows[i].timed ? "true" : "false",
                    rows[i].bits ? rows[rows[i].timed].bits / rows[i].bits : 0.0);
        fprintf(f, "%s],\n  \"verify\": ", nrows ? "\n  " : "");
        if (verify)
            fprintf(f, "{\"ok\": %s, \"checked\": %" PRIu64 ", \"cores\": %" PRIu64 "}\n}\n", status ? "false" : "true",
                    dres.checked, dres.threads);
        else
            fprintf(f, "null\n}\n");
        int bad = ferror(f);
        if (fclose(f) != 0 || bad) {
            tm_err("pt", "%s: %s", stats, strerror(errno));
            status = 1;
            goto done;
        }
        if (tm_out_commit("pt", &ost))
            status = 1;
    }
done:
    if (out.f)
        for (uint32_t t = 0; t < threads; t++)
            if (out.f[t])
                fclose(out.f[t]);
    if (out.outs)
        for (uint32_t t = 0; t < threads; t++)
            if (out.outs[t].active)
                tm_out_abort(&out.outs[t]);
    if (ost.active)
        tm_out_abort(&ost);
    free(out.outs);
    free(out.f);
    compare_free(&cmp);
    tm_pt_encoder_free(enc);
    tmc_reader_close(r);
    tm_pt_image_free(im);
    return tm_finish_stdout("pt", status);
}
