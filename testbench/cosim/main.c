/* tm — co-simulation testbench: the command line, the model pass and the verdict. */
#include "cosim.h"

/* ---------------------------------------------------------------- main */

static int usage_err(const char *msg, const char *arg)
{
    fprintf(stderr, "tm cosim: %s%s\n", msg, arg ? arg : "");
    return 2;
}

/* The configuration CFG against the parameters this simulator was built
 * with (params.h, from the same table include/tm/rtl_params.h): 0 if they
 * are the same, else 1 with the first difference in WHY. */
static int params_differ(const tm_model_cfg *c, char *why, size_t n)
{
#define ROW(NAME, KIND, VALUE)                                                                     \
    if ((unsigned)(VALUE) != (unsigned)TM_RTL_##NAME) {                                            \
        snprintf(why, n, "%s %u, the simulator has %u", #NAME, (unsigned)(VALUE), (unsigned)TM_RTL_##NAME); \
        return 1;                                                                                  \
    }
    TM_RTL_PARAMS(ROW)
#undef ROW
    return 0;
}

/* The report on standard output flushed: a write error (a full disk)
 * gives one line and status 1, as tm's other subcommands do (tm cosim
 * execs this simulator, so tm's own check of standard output never runs);
 * a reader that went away (EPIPE, `| head`) ends quietly with RC. */
static int finish_stdout(int rc)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    if (!bad && !ferror(stdout))
        return rc;
    if (e == EPIPE)
        return rc;
    fprintf(stderr, "tm cosim: standard output: %s\n", e ? strerror(e) : "write error");
    return rc ? rc : 1;
}

/* The simulator's command line (tm cosim passes it): 0, or the exit
 * status after one line. */
static int parse_args(int argc, char **argv, sim *s, const char **wave, const char **covf, const char **config,
                      long long *inject)
{
    int opts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!opts || a[0] != '-') {
            s->tmc = a;
        } else if (!strcmp(a, "--")) {
            opts = 0; /* the commit stream may begin with '-' */
        } else if (!strcmp(a, "--config") && v) {
            *config = v;
            i++;
        } else if (!strcmp(a, "--wave") && v) {
            *wave = v;
            i++;
        } else if (!strcmp(a, "--inject-fault") && v) {
            *inject = strtoll(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--cov") && v) {
            *covf = v;
            i++;
        } else if (!strcmp(a, "-q")) {
            s->quiet = 1;
        } else {
            return usage_err("unknown option ", a);
        }
    }
    if (!s->tmc)
        return usage_err("no commit stream", NULL);
    if (!*config)
        return usage_err("no configuration (--config F.tmt: a trace file's header, as tm cosim passes it)", NULL);
    return 0;
}

/* --inject-fault FROM (tests only): proves that the comparison can fail:
 * the first accepted message at or after cycle FROM gets a different
 * count, as a broken RTL would; with data tracing, the first accepted DATA
 * message its fahCnt. */
static void inject_fault(sim *s, const tm_model_cfg *cfg, uint64_t from)
{
    for (size_t i = 0; i < s->evs.n; i++)
        if (s->evs.v[i].cycle >= from && s->evs.v[i].accepted &&
            (!cfg->enc.data || s->evs.v[i].m.kind == TM_MSG_DATA)) {
            if (s->evs.v[i].m.kind == TM_MSG_DATA) {
                s->evs.v[i].m.fah ^= 1;
            } else {
                s->evs.v[i].m.cnt ^= 1;
                s->evs.v[i].m.icnt ^= 1;
            }
            break;
        }
}

void hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    evlist *l = arg;
    if (TM_GROW(l->v, l->cap, l->n + 1) != TM_OK) {
        l->oom = 1;
        return;
    }
    l->v[l->n++] = (ev){cycle, core, bits, accepted, *m};
}

int main(int argc, char **argv)
{
    sim s;
    memset(&s, 0, sizeof s);
    tm_model_cfg *cfg = &s.cfg;
    const char *wave = NULL, *covf = NULL, *config = NULL;
    long long inject = -1; /* test only: corrupt the model's expectation from this cycle on */
    int pr = parse_args(argc, argv, &s, &wave, &covf, &config, &inject);
    if (pr)
        return pr;
    /* The resolved configuration, from a .tmt header (tm cosim writes one
     * without trace bits; any trace file of tm model will do). */
    tmt_file tf;
    char err[512];
    if (tmt_read(config, &tf, err, sizeof err) != TM_OK)
        return usage_err(err, NULL);
    *cfg = tf.cfg;
    tmt_free(&tf);
    if (params_differ(cfg, err, sizeof err))
        return usage_err("the configuration differs from the parameters this simulator was built with: ", err);
    unsigned threads = cfg->enc.threads;

    /* Pass 1: the model. */
    tm_model *m = NULL;
    char me[400];
    if (tm_model_new(cfg, &m, me, sizeof me) != TM_OK)
        return usage_err("cannot create the model: ", me);
    tm_model_set_hook(m, hook, &s.evs);
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(s.tmc, &rd, e, sizeof e) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", e);
        tm_model_free(m);
        return 1;
    }
    if (tmc_reader_threads(rd) != threads) {
        fprintf(stderr, "tm cosim: %s declares %u threads, the simulator was built for %u\n", s.tmc,
                tmc_reader_threads(rd), threads);
        return 2;
    }
    tmc_record rec;
    int more;
    uint64_t insns = 0;
    while ((more = tmc_reader_next(rd, &rec)) == 1) {
        if (rec.type == TMC_RUN)
            insns += rec.count;
        else if (rec.type == TMC_BRANCH)
            insns++;
        if (tm_model_put(m, &rec) != TM_OK) {
            fprintf(stderr, "tm cosim: %s: %s\n", s.tmc, tm_model_error(m));
            return 1;
        }
    }
    if (more < 0) {
        fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
        return 1;
    }
    tmc_reader_close(rd);
    tm_model_finish(m);
    if (s.evs.oom) {
        fprintf(stderr, "tm cosim: out of memory\n");
        return 1;
    }
    s.trace = tm_model_trace(m);
    s.model_cycles = tm_model_get_stats(m)->cycles;
    s.cache_stats = &tm_model_get_stats(m)->cache;
    if (inject >= 0)
        inject_fault(&s, cfg, (uint64_t)inject);

    /* Pass 2: the RTL, cycle by cycle. */
    cov c;
    memset(&c, 0, sizeof c);
    uint64_t cycles = 0;
    int rc = run_rtl(&s, NULL, 0, 0, &c, &cycles);
    if (rc == 1) {
        printf("MISMATCH: %s", s.why);
        if (s.why[strlen(s.why) - 1] != '\n')
            printf("\n");
        if (wave) {
            uint64_t from = s.fail_cycle > 200 ? s.fail_cycle - 200 : 0;
            sim s2 = s;
            cov c2;
            memset(&c2, 0, sizeof c2);
            uint64_t cy2;
            s2.why[0] = 0;
            run_rtl(&s2, wave, from, s.fail_cycle + 2, &c2, &cy2);
            s.dbuf = s2.dbuf; /* the rerun may have grown the shared buffer */
            printf("waveform of cycles %" PRIu64 "..%" PRIu64 " written to %s\n", from, s.fail_cycle + 2, wave);
        }
    } else if (rc == 0) {
        size_t accepted = 0, data_n = 0, data_acc = 0;
        for (size_t i = 0; i < s.evs.n; i++) {
            accepted += s.evs.v[i].accepted;
            if (s.evs.v[i].m.kind == TM_MSG_DATA) {
                data_n++;
                data_acc += s.evs.v[i].accepted;
            }
        }
        printf("PASS: %" PRIu64 " instructions, %zu messages (%zu dropped), %" PRIu64 " bits, %" PRIu64
               " cycles compared",
               insns, accepted, s.evs.n - accepted, s.trace->nbits, cycles);
        if (cfg->enc.data)
            printf("; of the messages %zu DATA (%zu dropped)", data_acc, data_n - data_acc);
        if (s.idle_skipped)
            printf("; %" PRIu64 " of them idle, passed in one step each stretch", s.idle_skipped);
        printf("\n");
        tm_model_pred_counts(m, &c.pred);
        if (covf && cov_write(covf, &c, cfg) != 0) {
            fprintf(stderr, "tm cosim: %s: cannot write coverage\n", covf);
            rc = 1;
        }
        if (!s.quiet)
            print_coverage(&c, cfg);
    }
    free(s.evs.v);
    tm_bitbuf_free(&s.dbuf);
    tm_model_free(m);
    return finish_stdout(rc);
}
