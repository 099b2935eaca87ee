/* tm — libFuzzer target for the message parser and the replay from binaries.
 *
 * Input: 3 configuration bytes, then the trace bits (the payload of a .tmt):
 *   byte 0: the encoding, tm_encoding modulo TM_ENCODINGS (0 nx_b, 1 tr_b,
 *           2 tr_e, 3 tr_a);
 *   byte 1: threads - 1 (mod 8; mod 2 with load values);
 *   byte 2: bit 0 time stamps, bits 4, 2, 1 the preset: its number in
 *           tm_model_preset_name's order modulo the number of presets (2
 *           large, 5 tage-l), bit 3 load values (CFiat, the tool cache: the
 *           loads' sizes come from the commit stream TM_FUZZ_TMC).
 * Every message is parsed (tm_msg_decode_a), then every thread is replayed
 * from the binaries of the module map named by TM_FUZZ_MODULES (fuzz/run.sh
 * records one), with recovery on, as `tm decode --from-binary --branches`
 * does, into an output that counts its bytes.  Any crash, sanitizer report
 * or leak is a bug, and so is output beyond a bound proportional to the
 * input (abort) or a run of more than a few seconds (run.sh's -timeout);
 * errors in the input are not. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "tm/decoder.h"
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/tmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INSNS_PER_THREAD 50000u

typedef struct counter {
    uint64_t bytes, limit;
} counter;

static ssize_t count_write(void *arg, const char *buf, size_t n)
{
    counter *c = arg;
    (void)buf;
    c->bytes += n;
    if (c->bytes > c->limit) {
        fprintf(stderr, "fuzz_decode: more than %llu bytes of output: unbounded output\n",
                (unsigned long long)c->limit);
        abort();
    }
    return (ssize_t)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > (1u << 20))
        return 0;
    /* byte 0: the encoding; byte 2: bit 0 time stamps, bits 1, 2 and 4 the
     * preset (tm_model_preset_name), bit 3 load values */
    tm_encoding enc = (tm_encoding)(data[0] % TM_ENCODINGS);
    unsigned npresets = 0;
    while (tm_model_preset_name(npresets))
        npresets++;
    const char *preset = tm_model_preset_name((((data[2] >> 1) & 3u) | ((data[2] >> 2) & 4u)) % npresets);
    int loads = (data[2] >> 3) & 1;
    /* with load values each thread's replay reads the commit stream ahead
     * once more: one or two threads keep a run well under the time limit */
    uint32_t threads = (uint32_t)(data[1] % (loads ? 2 : 8)) + 1;
    tmt_file tf;
    memset(&tf, 0, sizeof tf);
    tm_model_cfg_default(&tf.cfg, threads);
    tm_enc_cfg_default(&tf.cfg.enc, enc, threads, data[2] & 1);
    if (tm_model_preset(&tf.cfg, preset) != TM_OK)
        return 0;
    const char *tmc = getenv("TM_FUZZ_TMC");
    if (loads) {
        if (!tmc)
            return 0;
        tf.cfg.enc.data = TM_DATA_CFIAT;
        tm_cache_preset(&tf.cfg.cache, "tool");
    }
    char err[256];
    if (tm_model_cfg_resolve(&tf.cfg, err, sizeof err) != TM_OK)
        return 0;
    tf.data = (uint8_t *)data + 3;
    tf.bits = (uint64_t)(size - 3) * 8;
    tf.cycles = tf.bits; /* about what a trace of this length takes */
    /* the trailer's instruction counts (spec §5), as a recording has them:
     * no thread replays more */
    uint64_t insns[8];
    for (uint32_t t = 0; t < threads; t++)
        insns[t] = INSNS_PER_THREAD;
    tf.thread_insns = insns;

    /* the message parser alone */
    tm_bitrd rd;
    tm_bitrd_init(&rd, tf.data, tf.bits);
    char line[512];
    tm_adapt ad[8]; /* tr_a's code states */
    for (uint32_t t = 0; t < 8; t++)
        tm_adapt_reset(&ad[t]);
    while (!loads && rd.pos < rd.nbits) {
        tm_msg m;
        if (tm_msg_decode_a(&tf.cfg.enc, ad, &rd, &m, NULL, NULL) != TM_OK)
            break;
        tm_adapt_update(&tf.cfg.enc, ad, &m);
        tm_msg_format(&m, tf.cfg.enc.timestamps, line, sizeof line);
    }

    /* the replay from binaries, with recovery, its output counted */
    const char *mods = getenv("TM_FUZZ_MODULES");
    if (!mods)
        return 0;
    /* the bound: a line per instruction replayed (at most the trailer's
     * counts, each line well under 256 bytes with --branches) and an error
     * line per message at most */
    counter c = {0, 64 * 1024 + (uint64_t)threads * INSNS_PER_THREAD * 256 + tf.bits * 2048};
    cookie_io_functions_t io = {NULL, count_write, NULL, NULL};
    FILE *out = fopencookie(&c, "w", io);
    if (!out)
        return 0;
    tm_frombin_opts o;
    memset(&o, 0, sizeof o);
    o.modules = mods;
    o.ignore_build_id = 1;
    o.recover = 1;
    o.format = TM_FB_BRANCHES;
    o.out = out;
    o.tmc = loads ? tmc : NULL;
    o.quiet = 1;
    tm_frombin_result res;
    tm_frombin(&tf, &o, &res, NULL, 0);
    fclose(out);
    return 0;
}
