/* tm — statistics reports of a model run (docs/spec.md §8; include/tm/report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tm/isa.h"
#include "tm/report.h"
#include "tm/tmc.h"

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

static const char *preset_name(const tm_model_cfg *c)
{
    for (unsigned k = 0; tm_model_preset_name(k); k++) {
        tm_model_cfg p;
        memset(&p, 0, sizeof p);
        if (tm_model_preset(&p, tm_model_preset_name(k)) == TM_OK && !memcmp(&p.pred, &c->pred, sizeof p.pred))
            return tm_model_preset_name(k);
    }
    return "custom";
}

/* "gshare 4096, RAS 32, iBTB 64" (the paper's predictors: as before the
 * TAGE-class ones, tests/identity), or with a TAGE-class predictor "TAGE
 * 512+6x64 t9 h3:60, RAS 32, ITTAGE 32+3x16 t8 h2:32; 13582 state bits". */
static void pred_line(char *buf, size_t n, const tm_pred_cfg *p)
{
    char a[96], b[96];
    const tm_tage_cfg *t = &p->tage, *i = &p->ittage;
    if (!t->base && !i->base) {
        snprintf(buf, n, "gshare %u, RAS %u, iBTB %u", p->gshare, p->ras, p->ibtb);
        return;
    }
    if (t->base)
        snprintf(a, sizeof a, "TAGE %u+%ux%u t%u h%u:%u", t->base, t->tables, t->entries, t->tag, t->lmin, t->lmax);
    else
        snprintf(a, sizeof a, "gshare %u", p->gshare);
    if (i->base)
        snprintf(b, sizeof b, "ITTAGE %u+%ux%u t%u h%u:%u", i->base, i->tables, i->entries, i->tag, i->lmin, i->lmax);
    else
        snprintf(b, sizeof b, "iBTB %u", p->ibtb);
    snprintf(buf, n, "%s, RAS %u, %s; %" PRIu64 " state bits", a, p->ras, b, tm_pred_cfg_bits(p));
}

void tm_report_cfg_line(char *buf, size_t n, const tm_model_cfg *c)
{
    char data[128] = "";
    if (c->enc.data == TM_DATA_ALL)
        snprintf(data, sizeof data, ", data all");
    else if (c->enc.data == TM_DATA_CFIAT)
        snprintf(data, sizeof data, ", cfiat %u B %u-way %u-byte lines g %u %s", c->cache.size, c->cache.assoc,
                 c->cache.line, c->cache.gran, c->cfiat_shared ? "shared" : "private");
    char pl[256];
    pred_line(pl, sizeof pl, &c->pred);
    int k = snprintf(buf, n, "%s%s %s (%s) %s, %u threads, buffer %u bits, port %u bits/cycle",
             c->enc.timestamps ? "t" : "", tm_encoding_name(c->enc.enc), preset_name(c), pl,
             c->shared ? "shared" : "private", c->enc.threads, c->buffer_bits, c->port_bits);
    if (k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "%s", data);
}

/* A thread's line; LOSSY: the run dropped messages, and the line says how
 * many of the thread's instructions were in overflow gaps (its bpi counts
 * only what got through). */
static void thread_line(FILE *f, const char *name, const tm_thread_stats *s, int lossy)
{
    uint64_t br = 0;
    for (int c = 0; c < TMC_NCLASSES; c++)
        br += s->branches[c];
    fprintf(f, "%-7s %12" PRIu64 " %11" PRIu64 " %8.3f%% %8.3f%% %9" PRIu64 " %11" PRIu64 " %8.4f", name,
            s->instructions, br, 100.0 * ratio(s->cond_mispredicted, s->cond_predicted),
            100.0 * ratio(s->target_mispredicted, s->target_predicted),
            s->messages[0] + s->messages[1] + s->messages[2] + s->messages[3] + s->messages[4], s->bits_total,
            ratio(s->bits_total, s->instructions));
    if (lossy)
        fprintf(f, " %8.3f%%", 100.0 * ratio(s->lost_instructions, s->instructions));
    fputc('\n', f);
}

void tm_report_text(FILE *f, const tm_model_cfg *cfg, const tm_model *m)
{
    const tm_model_stats *st = tm_model_get_stats(m);
    const tm_thread_stats *T = &st->total;
    char line[384];
    tm_report_cfg_line(line, sizeof line, cfg);
    fprintf(f, "config: %s\n", line);
    /* Bandwidth is demand: with losses, every bpi carries them beside it */
    int lossy = T->dropped_messages != 0 || T->lost_instructions != 0;
    fprintf(f, "%-7s %12s %11s %9s %9s %9s %11s %8s%s\n", "thread", "instructions", "branches", "outcome",
            "target", "messages", "bits", "bpi", lossy ? "   in gaps" : "");
    if (st->threads <= 16)
        for (uint32_t t = 0; t < st->threads; t++) {
            char nm[16];
            snprintf(nm, sizeof nm, "T%u", t);
            thread_line(f, nm, tm_model_thread_stats(m, t), lossy);
        }
    thread_line(f, "total", T, lossy);
    fprintf(f, "branches: cond %" PRIu64 " (taken %" PRIu64 "), jump %" PRIu64 ", call %" PRIu64 ", ijump %" PRIu64
               ", icall %" PRIu64 ", ret %" PRIu64 "; exceptions %" PRIu64 "\n",
            T->branches[TMC_COND], T->taken_cond, T->branches[TMC_JUMP], T->branches[TMC_CALL],
            T->branches[TMC_IJUMP], T->branches[TMC_ICALL], T->branches[TMC_RET], T->exceptions);
    fprintf(f, "messages: branch %" PRIu64 ", exception %" PRIu64 ", sync %" PRIu64 " (start %" PRIu64
               ", trace-on %" PRIu64 ", overflow %" PRIu64 "), end %" PRIu64 "\n",
            T->messages[TM_MSG_BRANCH], T->messages[TM_MSG_EXC], T->messages[TM_MSG_SYNC], T->sync_reasons[0],
            T->sync_reasons[1], T->sync_reasons[2], T->messages[TM_MSG_END]);
    fprintf(f, "bits by field: Ti %" PRIu64 ", cnt %" PRIu64 ", diffTA %" PRIu64 ", diffCC %" PRIu64 ", sync %" PRIu64
               "; total %" PRIu64 "\n",
            T->bits.ti, T->bits.cnt, T->bits.diffta, T->bits.diffcc, T->bits.sync, st->bits);
    fprintf(f, "bandwidth: %.4f bits/instruction, %.4f bits/cycle (%" PRIu64 " execution cycles, %" PRIu64
               " until the port drained)",
            ratio(st->bits, T->instructions), ratio(st->bits, st->exec_cycles), st->exec_cycles, st->cycles);
    if (lossy)
        fprintf(f, " WITH LOSSES: %" PRIu64 " messages (%" PRIu64 " bits) dropped, %" PRIu64
                   " instructions (%.3f%%) in overflow gaps; not the demand: a buffer and port that drop nothing"
                   " measure it (--demand)",
                T->dropped_messages, T->dropped_bits, T->lost_instructions,
                100.0 * ratio(T->lost_instructions, T->instructions));
    fputc('\n', f);
    fprintf(f, "buffer: peak %" PRIu64 " of %u bits; overflow cycles %" PRIu64 ", dropped %" PRIu64 " messages (%" PRIu64
               " bits), lost instructions %" PRIu64 "; port idle %" PRIu64 " of %" PRIu64 " cycles\n",
            st->peak_occupancy, st->buffer_bits, st->overflow_cycles, T->dropped_messages, T->dropped_bits,
            T->lost_instructions, st->idle_cycles, st->idle_cycles + st->busy_cycles);
    if (!cfg->enc.data)
        return;
    uint64_t ctl = st->bits - T->data_bits;
    fprintf(f, "data: %" PRIu64 " loads, %" PRIu64 " stores (%" PRIu64 " and %" PRIu64 " in gaps); %" PRIu64
               " needed a report (%.3f%%); %" PRIu64 " DATA messages (%" PRIu64 " dropped)\n",
            T->loads, T->stores, T->lost_loads, T->lost_stores, T->reports, 100.0 * ratio(T->reports, T->loads),
            T->messages[TM_MSG_DATA], T->dropped_data);
    fprintf(f, "data bits: %" PRIu64 " (fahCnt %" PRIu64 ", value %" PRIu64 "): %.4f bits/load, %.4f bits/instruction; "
               "control %" PRIu64 " bits, %.4f bits/instruction; together %.4f bits/instruction\n",
            T->data_bits, T->bits.fah, T->bits.value, ratio(T->data_bits, T->loads),
            ratio(T->data_bits, T->instructions), ctl, ratio(ctl, T->instructions),
            ratio(st->bits, T->instructions));
    if (cfg->enc.data != TM_DATA_CFIAT)
        return;
    const tm_cache_stats *c = &st->cache;
    fprintf(f, "%-8s %10s %9s %9s %10s %9s %9s %9s %9s\n", "size", "load refs", "hits", "misses", "store refs",
            "hits", "misses", "FA hits", "FA miss");
    for (unsigned k = 0; k <= TM_SZ_CLASSES; k++) {
        int tot = k == TM_SZ_CLASSES;
        if (!tot && !c->load_refs[k] && !c->store_refs[k])
            continue;
        fprintf(f, "%-8s %10" PRIu64 " %9" PRIu64 " %9" PRIu64 " %10" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
                   " %9" PRIu64 "\n",
                tot ? "total" : tm_size_class_name(k), tot ? tm_size_class_sum(c->load_refs) : c->load_refs[k],
                tot ? tm_size_class_sum(c->load_hits) : c->load_hits[k], tot ? tm_size_class_sum(c->load_misses) : c->load_misses[k],
                tot ? tm_size_class_sum(c->store_refs) : c->store_refs[k], tot ? tm_size_class_sum(c->store_hits) : c->store_hits[k],
                tot ? tm_size_class_sum(c->store_misses) : c->store_misses[k], tot ? tm_size_class_sum(c->fa_hits) : c->fa_hits[k],
                tot ? tm_size_class_sum(c->fa_misses) : c->fa_misses[k]);
    }
    fprintf(f, "cache: %" PRIu64 " operands on several lines, %" PRIu64 " invalidations, %" PRIu64 " flag clears\n",
            c->multi_line, c->invalidations, c->flag_clears);
}

static void json_thread(FILE *f, const tm_thread_stats *s, const char *indent)
{
    static const char *const cls[] = {"cond", "jump", "call", "ijump", "icall", "ret"};
    uint64_t msgs = s->messages[0] + s->messages[1] + s->messages[2] + s->messages[3] + s->messages[4];
    fprintf(f, "%s\"instructions\": %" PRIu64 ",\n", indent, s->instructions);
    fprintf(f, "%s\"bits\": %" PRIu64 ",\n", indent, s->bits_total);
    fprintf(f, "%s\"bits_per_instruction\": %.6f,\n", indent, ratio(s->bits_total, s->instructions));
    fprintf(f, "%s\"branches\": {", indent);
    for (int c = 0; c < TMC_NCLASSES; c++)
        fprintf(f, "%s\"%s\": %" PRIu64, c ? ", " : "", cls[c], s->branches[c]);
    fprintf(f, ", \"cond_taken\": %" PRIu64 "},\n", s->taken_cond);
    fprintf(f, "%s\"exceptions\": %" PRIu64 ",\n", indent, s->exceptions);
    fprintf(f, "%s\"outcome_predictions\": %" PRIu64 ", \"outcome_mispredictions\": %" PRIu64
               ", \"outcome_misprediction_rate\": %.6f,\n",
            indent, s->cond_predicted, s->cond_mispredicted, ratio(s->cond_mispredicted, s->cond_predicted));
    fprintf(f, "%s\"target_predictions\": %" PRIu64 ", \"target_mispredictions\": %" PRIu64
               ", \"target_misprediction_rate\": %.6f,\n",
            indent, s->target_predicted, s->target_mispredicted, ratio(s->target_mispredicted, s->target_predicted));
    fprintf(f, "%s\"messages\": {\"total\": %" PRIu64 ", \"branch\": %" PRIu64 ", \"exception\": %" PRIu64
               ", \"sync\": %" PRIu64 ", \"sync_start\": %" PRIu64 ", \"sync_trace_on\": %" PRIu64
               ", \"sync_overflow\": %" PRIu64 ", \"end\": %" PRIu64 "},\n",
            indent, msgs, s->messages[0], s->messages[1], s->messages[2], s->sync_reasons[0], s->sync_reasons[1],
            s->sync_reasons[2], s->messages[3]);
    fprintf(f, "%s\"bits_by_field\": {\"ti\": %" PRIu64 ", \"cnt\": %" PRIu64 ", \"diffta\": %" PRIu64
               ", \"diffcc\": %" PRIu64 ", \"sync\": %" PRIu64 "},\n",
            indent, s->bits.ti, s->bits.cnt, s->bits.diffta, s->bits.diffcc, s->bits.sync);
    if (s->loads || s->stores || s->messages[TM_MSG_DATA])
        fprintf(f, "%s\"data\": {\"loads\": %" PRIu64 ", \"stores\": %" PRIu64 ", \"lost_loads\": %" PRIu64
                   ", \"lost_stores\": %" PRIu64 ", \"reports_needed\": %" PRIu64 ", \"messages\": %" PRIu64
                   ", \"dropped_messages\": %" PRIu64 ", \"bits\": %" PRIu64 ", \"q_bits\": %" PRIu64
                   ", \"fah_bits\": %" PRIu64 ", \"value_bits\": %" PRIu64 ", \"bits_per_load\": %.6f},\n",
                indent, s->loads, s->stores, s->lost_loads, s->lost_stores, s->reports, s->messages[TM_MSG_DATA],
                s->dropped_data, s->data_bits, s->bits.q, s->bits.fah, s->bits.value,
                ratio(s->data_bits, s->loads));
    fprintf(f, "%s\"dropped_messages\": %" PRIu64 ", \"dropped_bits\": %" PRIu64 ", \"losses\": %" PRIu64
               ", \"lost_instructions\": %" PRIu64 "\n",
            indent, s->dropped_messages, s->dropped_bits, s->losses, s->lost_instructions);
}

int tm_report_json(const char *path, const tm_model_cfg *cfg, const tm_model *m, const tmt_trailer *end,
                const char *machine)
{
    static const char *const endings[] = {"complete", "cut short", "signal"};
    const tm_model_stats *st = tm_model_get_stats(m);
    const tm_thread_stats *T = &st->total;
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "we");
    if (!f)
        return TM_ERR_IO;
    fprintf(f, "{\n");
    fprintf(f, "  \"instructions\": %" PRIu64 ",\n", T->instructions);
    fprintf(f, "  \"bits_per_instruction\": %.6f,\n", ratio(st->bits, T->instructions));
    fprintf(f, "  \"bits\": %" PRIu64 ",\n", st->bits);
    fprintf(f, "  \"bits_per_cycle\": %.6f,\n", ratio(st->bits, st->exec_cycles));
    /* false: messages were dropped, and the bits above are what got through,
     * not the demand (total.lost_instructions were in overflow gaps) */
    fprintf(f, "  \"lossless\": %s,\n", T->dropped_messages || T->lost_instructions ? "false" : "true");
    fprintf(f, "  \"execution_cycles\": %" PRIu64 ",\n", st->exec_cycles);
    fprintf(f, "  \"cycles\": %" PRIu64 ",\n", st->cycles);
    /* the program's ending: "exited" with its status, "killed" with the
     * signal, "execve", or "unknown" (a cut recording, a generated stream) */
    char prog[64];
    if (end->prog == TMT_PROG_EXITED)
        snprintf(prog, sizeof prog, "{\"ended\": \"exited\", \"status\": %u}", end->prog_code);
    else if (end->prog == TMT_PROG_KILLED)
        snprintf(prog, sizeof prog, "{\"ended\": \"killed\", \"signal\": %u}", end->prog_code);
    else
        snprintf(prog, sizeof prog, "{\"ended\": \"%s\"}", end->prog == TMT_PROG_EXECVED ? "execve" : "unknown");
    tmt_ending ending = end->ending;
    /* the program's instruction set, for a program that is not x86-64 */
    char isa[40] = "";
    if (tm_model_isa(m) != TM_ISA_X86_64)
        snprintf(isa, sizeof isa, ", \"isa\": \"%s\"", tm_isa_name(tm_model_isa(m)));
    fprintf(f, "  \"recording\": {\"ending\": \"%s\", \"signal\": %u, \"program\": %s%s},\n",
            endings[ending <= TMT_CUT_SIGNAL ? ending : 0], ending == TMT_CUT_SIGNAL ? end->signal : 0, prog, isa);
    fprintf(f, "  \"machine\": %s,\n", machine ? machine : "null");
    char tj[320] = "", ij[128] = "";
    const tm_tage_cfg *tg = &cfg->pred.tage, *it = &cfg->pred.ittage;
    if (it->base)
        snprintf(ij, sizeof ij, "\"ittage\": {\"base\": %u, \"tables\": %u, \"entries\": %u, \"tag\": %u, "
                 "\"hist\": [%u, %u]}, ", it->base, it->tables, it->entries, it->tag, it->lmin, it->lmax);
    if (tg->base)
        snprintf(tj, sizeof tj, "\"tage\": {\"base\": %u, \"tables\": %u, \"entries\": %u, \"tag\": %u, "
                 "\"hist\": [%u, %u]}, %s\"pred_state_bits\": %" PRIu64 ", ", tg->base, tg->tables, tg->entries,
                 tg->tag, tg->lmin, tg->lmax, ij, tm_pred_cfg_bits(&cfg->pred));
    else if (it->base)
        snprintf(tj, sizeof tj, "%s\"pred_state_bits\": %" PRIu64 ", ", ij, tm_pred_cfg_bits(&cfg->pred));
    fprintf(f, "  \"config\": {\"encoding\": \"%s\", \"timestamps\": %s, \"shared\": %s, \"threads\": %u, "
               "\"gshare\": %u, \"ras\": %u, \"ibtb\": %u, %s"
               "\"buffer_bits\": %u, \"port_bits\": %u, "
               "\"chunks\": {\"bcnt\": [%u, %u], \"ta\": [%u, %u], \"cc\": [%u, %u]}, "
               "\"ts_bits\": %u, \"msg_max_bits\": %u, \"reserve_bits\": %u},\n",
            tm_encoding_name(cfg->enc.enc), cfg->enc.timestamps ? "true" : "false", cfg->shared ? "true" : "false",
            cfg->enc.threads, cfg->pred.gshare, cfg->pred.ras, cfg->pred.ibtb, tj, cfg->buffer_bits,
            cfg->port_bits,
            cfg->enc.cnt_a, cfg->enc.cnt_b, cfg->enc.ta_a, cfg->enc.ta_b, cfg->enc.cc_a, cfg->enc.cc_b,
            cfg->ts_bits, st->msg_max_bits, st->reserve_bits);
    fprintf(f, "  \"buffer\": {\"peak_occupancy\": %" PRIu64 ", \"overflow_cycles\": %" PRIu64
               ", \"dropped_messages\": %" PRIu64 ", \"dropped_bits\": %" PRIu64 ", \"idle_cycles\": %" PRIu64
               ", \"busy_cycles\": %" PRIu64 "},\n",
            st->peak_occupancy, st->overflow_cycles, T->dropped_messages, T->dropped_bits, st->idle_cycles,
            st->busy_cycles);
    if (cfg->enc.data) {
        const tm_cache_stats *c = &st->cache;
        uint64_t ctl = st->bits - T->data_bits;
        fprintf(f, "  \"data\": {\n");
        fprintf(f, "    \"mode\": \"%s\", \"cache\": {\"size\": %u, \"assoc\": %u, \"line\": %u, "
                   "\"granularity\": %u, \"shared\": %s}, \"chunks_fah\": [%u, %u],\n",
                tm_data_mode_name((tm_data_mode)cfg->enc.data), cfg->cache.size, cfg->cache.assoc, cfg->cache.line,
                cfg->cache.gran, cfg->cfiat_shared ? "true" : "false", cfg->enc.fah_a, cfg->enc.fah_b);
        fprintf(f, "    \"loads\": %" PRIu64 ", \"stores\": %" PRIu64 ", \"lost_loads\": %" PRIu64
                   ", \"lost_stores\": %" PRIu64 ", \"reports_needed\": %" PRIu64 ",\n",
                T->loads, T->stores, T->lost_loads, T->lost_stores, T->reports);
        fprintf(f, "    \"messages\": %" PRIu64 ", \"dropped_messages\": %" PRIu64 ",\n", T->messages[TM_MSG_DATA],
                T->dropped_data);
        fprintf(f, "    \"bits\": %" PRIu64 ", \"bits_by_field\": {\"ti\": %" PRIu64 ", \"q\": %" PRIu64
                   ", \"fah\": %" PRIu64 ", \"value\": %" PRIu64 "},\n",
                T->data_bits, T->data_bits - T->bits.fah - T->bits.value - T->messages[TM_MSG_DATA],
                T->messages[TM_MSG_DATA], T->bits.fah, T->bits.value);
        fprintf(f, "    \"bits_per_load\": %.6f, \"bits_per_instruction\": %.6f, \"fa_miss_rate\": %.6f,\n",
                ratio(T->data_bits, T->loads), ratio(T->data_bits, T->instructions), ratio(T->reports, T->loads));
        fprintf(f, "    \"control_bits\": %" PRIu64 ", \"control_bits_per_instruction\": %.6f, "
                   "\"total_bits_per_instruction\": %.6f",
                ctl, ratio(ctl, T->instructions), ratio(st->bits, T->instructions));
        if (cfg->enc.data == TM_DATA_CFIAT) {
            fprintf(f, ",\n    \"by_size\": {");
            for (unsigned k = 0; k < TM_SZ_CLASSES; k++)
                fprintf(f, "%s\n      \"%s\": {\"load_refs\": %" PRIu64 ", \"load_hits\": %" PRIu64
                           ", \"load_misses\": %" PRIu64 ", \"store_refs\": %" PRIu64 ", \"store_hits\": %" PRIu64
                           ", \"store_misses\": %" PRIu64 ", \"fa_hits\": %" PRIu64 ", \"fa_misses\": %" PRIu64 "}",
                        k ? "," : "", tm_size_class_name(k), c->load_refs[k], c->load_hits[k], c->load_misses[k],
                        c->store_refs[k], c->store_hits[k], c->store_misses[k], c->fa_hits[k], c->fa_misses[k]);
            fprintf(f, "\n    },\n    \"load_refs\": %" PRIu64 ", \"load_hits\": %" PRIu64 ", \"load_misses\": %" PRIu64
                       ", \"store_refs\": %" PRIu64 ", \"store_hits\": %" PRIu64 ", \"store_misses\": %" PRIu64
                       ", \"fa_hits\": %" PRIu64 ", \"fa_misses\": %" PRIu64 ",\n",
                    tm_size_class_sum(c->load_refs), tm_size_class_sum(c->load_hits), tm_size_class_sum(c->load_misses), tm_size_class_sum(c->store_refs),
                    tm_size_class_sum(c->store_hits), tm_size_class_sum(c->store_misses), tm_size_class_sum(c->fa_hits), tm_size_class_sum(c->fa_misses));
            fprintf(f, "    \"multi_line_operands\": %" PRIu64 ", \"invalidations\": %" PRIu64
                       ", \"flag_clears\": %" PRIu64,
                    c->multi_line, c->invalidations, c->flag_clears);
        }
        fprintf(f, "\n  },\n");
    }
    fprintf(f, "  \"total\": {\n");
    json_thread(f, T, "    ");
    fprintf(f, "  },\n  \"threads\": [\n");
    for (uint32_t t = 0; t < st->threads; t++) {
        fprintf(f, "    {\n      \"thread\": %u,\n", t);
        json_thread(f, tm_model_thread_stats(m, t), "      ");
        fprintf(f, "    }%s\n", t + 1 < st->threads ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    int bad = ferror(f);
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    return bad ? TM_ERR_IO : TM_OK;
}

int tm_report_profile(const char *path, const char *name, const tm_profile *p, const tm_model_cfg *cfg, char *err,
                      size_t n)
{
    if (tm_profile_status(p)) {
        snprintf(err, n, "%s: %s", name, tm_profile_error(p));
        return TM_ERR_IO;
    }
    FILE *f = !strcmp(path, "-") ? stdout : fopen(path, "we");
    if (!f) {
        snprintf(err, n, "%s: %s", name, strerror(errno));
        return TM_ERR_IO;
    }
    errno = 0;
    int rc = tm_profile_write_json(p, cfg, f);
    int bad = rc != TM_OK;
    if (f == stdout)
        bad |= fflush(f) != 0;
    else
        bad |= fclose(f) != 0;
    if (bad)
        snprintf(err, n, "%s: cannot write the profile: %s", name, errno ? strerror(errno) : tm_status_str(rc));
    return bad ? TM_ERR_IO : TM_OK;
}
