#!/usr/bin/env python3
"""Prints the tables of `make gates` (scripts/gates.sh).

usage: gates_report.py JOBS.tsv YOSYS_VERSION

JOBS.tsv: one line per synthesis: name, top module, parameters (K=V,...),
and the path prefix of its results (PREFIX.generic and PREFIX.nand are Yosys
`stat` outputs after synth and after abc -g NAND, PREFIX.time the seconds)."""
import re
import sys

FF_WEIGHT = 6  # NAND2 equivalents of a D flip-flop with asynchronous reset
PAPER = {'small': 2300, 'medium': 4800, 'large': 16500}  # 003 §6.4, gates per core
# One core's private predictors per preset (cmodel/config.c): the jobs of
# scripts/gates.sh, the paper's three and, beside each, the TAGE-class preset
# within its state bits (spec 3.3.3).
PRESETS = [('small', ['gshare_512', 'ras_8']),
           ('tage-s', ['tage_s', 'ras_8']),
           ('medium', ['gshare_1024', 'ras_16', 'ibtb_16']),
           ('tage-m', ['tage_m', 'ras_16', 'ittage_m']),
           ('large', ['gshare_4096', 'ras_32', 'ibtb_64']),
           ('tage-l', ['tage_l', 'ras_32', 'ittage_l'])]
# Predictor state bits per preset, the table of spec 3.3.3 (checked against
# the formulas below, from the jobs' parameters).
STATE_BITS = {'small': 1552, 'medium': 4278, 'large': 14980,
              'tage-s': 1523, 'tage-m': 4239, 'tage-l': 13582}
# CFiat cache presets (spec 3.8): size, ways, line, granule; synthesized at
# DC_SETS sets and extrapolated to the full size (scripts/gates.sh).
DC_PRESETS = [('tool', 32768, 4, 32, 4), ('study', 65536, 4, 64, 4)]
DC_SETS = (16, 32)
FF_RE = re.compile(r'^\$_(S?DFF|DFFE|SDFFE|SDFFCE|DFFSR|DFFSRE|ALDFF|ALDFFE|DLATCH|SR)')


def read_stat(path):
    """(cells, flip-flop bits, {cell type: count}) of the top module."""
    cells, types = 0, {}
    with open(path) as f:
        for line in f:
            m = re.match(r'\s+Number of cells:\s+(\d+)', line)
            if m:
                cells, types = int(m.group(1)), {}  # the last block is the top
                continue
            m = re.match(r'\s+(\$\S+)\s+(\d+)\s*$', line)
            if m:
                types[m.group(1)] = int(m.group(2))
    ff = sum(n for t, n in types.items() if FF_RE.match(t))
    return cells, ff, types


class Result:
    def __init__(self, name, top, params, prefix=None):
        self.name, self.top = name, top
        self.params = dict(p.split('=', 1) for p in params.split(',') if p)
        if prefix is None:
            return
        self.cells, self.ff, _ = read_stat(prefix + '.generic')
        _, ff2, types = read_stat(prefix + '.nand')
        self.gates = sum(n for t, n in types.items() if not FF_RE.match(t))
        self.other = sorted(t for t in types if not FF_RE.match(t) and t not in ('$_NAND_', '$_NOT_'))
        try:
            self.seconds = int(open(prefix + '.time').read().strip())
        except (OSError, ValueError):
            self.seconds = None
        if ff2 != self.ff:
            self.ff = max(self.ff, ff2)

    @property
    def nand2eq(self):
        return self.gates + FF_WEIGHT * self.ff


def fmt(n):
    return '{:,}'.format(n)


def log2(x):
    return x.bit_length() - 1


def clog2(x):
    return (x - 1).bit_length()


def state_bits(r):
    """(state bits of spec 3.3.3, flip-flops the RTL is expected to have) of
    predictor job R: the RTL adds a valid bit per row of 32 gshare counters
    and per TAGE base counter (tables without reset, docs/rtl.md)."""
    p = {k: int(v) for k, v in r.params.items()}
    if r.top == 'tm_gshare':
        e = p['ENTRIES']
        return 2 * e + log2(e), 2 * e + log2(e) + (e + 31) // 32
    if r.top == 'tm_ras':
        e = p['ENTRIES']
        n = 64 * e + clog2(e) + clog2(e + 1)
        return n, n
    if r.top == 'tm_ibtb':
        e = p['ENTRIES']
        n = 73 * e + e // 2 + 8 + log2(e // 2)
        return n, n
    b, t, e, w, lmax = (p[k] for k in ('BASE', 'TABLES', 'ENTRIES', 'TAG', 'LMAX'))
    hist = lmax + t * (log2(e) + 2 * w - 1)  # GHR and folded registers
    if r.top == 'tm_tage':
        n = 2 * b + t * e * (6 + w) + hist + 4
        return n, n + b
    if r.top == 'tm_ittage':
        n = 49 * b + t * e * (52 + w) + hist
        return n, n
    sys.exit('gates_report: no state-bit formula for %s' % r.top)


def dcache_ff(sets, ways, line, gran):
    """Flip-flop bits of tm_dcache: per way tag, flags, valid, flag-valid; per
    set one LRU bit per pair of ways."""
    tag = 64 - log2(line) - log2(sets)
    lru = ways * (ways - 1) // 2 if ways > 1 else 1
    return sets * ways * (tag + line // gran + 2) + sets * lru


def dcache_table(res):
    s1, s2 = DC_SETS
    print('CFiat cache of one core (tm_dcache, private, N = 1; spec 3.8).  Synthesized at %d and'
          % s1)
    print('%d sets; the full cache extrapolated: gates linearly in the sets, FF counted exactly'
          % s2)
    print('(tags, flags, valid and flag-valid bits per way, LRU bits per set); see scripts/gates.sh.')
    print('%-7s %-28s %8s %9s %8s %9s %8s %10s %10s' % (
        'preset', 'geometry', 'FF@%d' % s1, 'gates@%d' % s1, 'FF@%d' % s2, 'gates@%d' % s2,
        'FF', 'gates', 'NAND2-eq'))
    for name, size, ways, line, gran in DC_PRESETS:
        a, b = res['dcache_%s_%d' % (name, s1)], res['dcache_%s_%d' % (name, s2)]
        for r, n in ((a, s1), (b, s2)):
            if r.ff != dcache_ff(n, ways, line, gran):
                sys.exit('gates_report: %s has %d flip-flops, the formula says %d'
                         % (r.name, r.ff, dcache_ff(n, ways, line, gran)))
        sets = size // (line * ways)
        ff = dcache_ff(sets, ways, line, gran)
        gates = b.gates + (sets - s2) * (b.gates - a.gates) // (s2 - s1)
        print('%-7s %-28s %8s %9s %8s %9s %8s %10s %10s' % (
            name, '%dK %d-way %dB g%d, %d sets' % (size // 1024, ways, line, gran, sets), fmt(a.ff),
            fmt(a.gates),
            fmt(b.ff), fmt(b.gates), fmt(ff), fmt(gates), fmt(gates + FF_WEIGHT * ff)))
    print('Tags (%s bits per way) are flip-flops like the predictor tables.  With N cores each'
          % ', '.join('%s %d' % (n, 64 - log2(l) - log2(sz // (l * w))) for n, sz, w, l, g in DC_PRESETS))
    print('cache also looks up the lines of the other cores\' stores (N - 1 more lookup ports, not')
    print('counted here).')


def main():
    jobs, yv = sys.argv[1], sys.argv[2]
    res = {}
    with open(jobs) as f:
        for line in f:
            name, top, params, prefix = line.rstrip('\n').split('\t')
            res[name] = Result(name, top, params, prefix)

    print('tm gates: %s; each module synthesized alone (synth -flatten, then abc -g NAND)' % yv)
    print('  cells     generic Yosys cells after synth (gates and flip-flops)')
    print('  FF        flip-flop bits (all state; the predictor tables are memories that')
    print('            synth maps to flip-flops, or tm_ittage\'s reset vectors)')
    print('  gates     two-input NANDs and inverters after abc -g NAND (flip-flop enables')
    print('            are multiplexers there); an inverter counts as one gate')
    print('  NAND2-eq  gates + %d x FF (a D flip-flop with asynchronous reset ~ %d NAND2)'
          % (FF_WEIGHT, FF_WEIGHT))
    print()
    print('%-10s %-38s %9s %7s %9s %10s %6s' % ('module', 'parameters', 'cells', 'FF', 'gates',
                                                 'NAND2-eq', 'time'))
    rows = []
    for enc, name in (('nx_b', 'core_nx_b'), ('tr_b', 'core_tr_b'), ('tr_e', 'core_tr_e'),
                      ('ttr_e', 'core_ttr_e'), ('tr_a', 'core_tr_a'), ('ttr_a', 'core_ttr_a')):
        r = res[name]
        ch = '%s,%s/%s,%s/%s,%s' % tuple(r.params[k] for k in ('CA', 'CB', 'TA', 'TB', 'HA', 'HB'))
        rows.append((r, '%s N=1, chunks %s' % (enc, ch)))
    for e in (512, 1024, 4096):
        r = res['gshare_%d' % e]
        rows.append((r, '%d entries' % e))
    for e in (8, 16, 32):
        rows.append((res['ras_%d' % e], '%d entries' % e))
    for e in (16, 64):
        rows.append((res['ibtb_%d' % e], '%d entries (2 ways x %d sets)' % (e, e // 2)))
    for name in ('tage_s', 'tage_m', 'tage_l', 'ittage_m', 'ittage_l'):
        r = res[name]
        rows.append((r, '%s: B%s, %sx%s tag %s, L %s..%s' % (
            'tage-' + name[-1], r.params['BASE'], r.params['TABLES'], r.params['ENTRIES'],
            r.params['TAG'], r.params['LMIN'], r.params['LMAX'])))
    for n in (1, 4, 8):
        r = res['buffer_%d' % n]
        rows.append((r, 'N=%d, %s bits, port %s, MAXW %s' % (n, r.params['BUF_BITS'],
                                                              r.params['PORT_BITS'], r.params['MAXW'])))
    for name, _, ways, line, gran in DC_PRESETS:
        for n in DC_SETS:
            r = res['dcache_%s_%d' % (name, n)]
            rows.append((r, '%s, %d sets: %dK %d-way %dB g%d' % (
                name, n, n * ways * line // 1024, ways, line, gran)))
    for r, desc in rows:
        t = '-' if r.seconds is None else '%ds' % r.seconds
        print('%-10s %-38s %9s %7s %9s %10s %6s' % (r.top, desc, fmt(r.cells), fmt(r.ff),
                                                    fmt(r.gates), fmt(r.nand2eq), t))
    others = sorted({t for r, _ in rows for t in r.other})
    if others:
        print('note: gates include cell types other than NAND and NOT: %s' % ', '.join(others))
    print()
    print('One core (N = 1, tr_e without time stamps, private predictors): tm_core + its')
    print('predictors: gshare (G), RAS (R), iBTB (B) or TAGE (T) and ITTAGE (IT), by their (base)')
    print('entries.  Predictor FF are the predictor state (storage); the predictors\' gates are their')
    print('read, compare, update and write logic.  state = the predictor state bits of spec 3.3.3.')
    print('%-7s %-20s %6s %8s %9s %8s %9s %9s %10s %8s %8s' % (
        'preset', 'predictors', 'state', 'core FF', 'core gts', 'pred FF', 'pred gts', 'total FF',
        'NAND2-eq', 'storage', 'paper'))
    letter = {'tm_gshare': 'G', 'tm_ras': 'R', 'tm_ibtb': 'B', 'tm_tage': 'T', 'tm_ittage': 'IT'}

    def preset_row(name, core, suffix='', paper='-'):
        """One core: CORE (a tm_core result) + the private predictors of preset NAME."""
        pred = [res[j] for j in dict(PRESETS)[name]]
        pff = sum(p.ff for p in pred)
        total = core.nand2eq + sum(p.nand2eq for p in pred)
        desc = ' '.join('%s%s' % (letter[p.top], p.params.get('BASE', p.params.get('ENTRIES')))
                        for p in pred) + suffix
        print('%-7s %-20s %6s %8s %9s %8s %9s %9s %10s %7.0f%% %8s' % (
            name, desc, fmt(STATE_BITS[name]), fmt(core.ff), fmt(core.gates), fmt(pff),
            fmt(sum(p.gates for p in pred)), fmt(core.ff + pff), fmt(total),
            100.0 * FF_WEIGHT * pff / total, paper))

    for name, jobs in PRESETS:
        pred = [res[j] for j in jobs]
        bits = sum(state_bits(p)[0] for p in pred)
        if bits != STATE_BITS[name]:
            sys.exit('gates_report: %s has %d predictor state bits by the formulas, spec 3.3.3 says %d'
                     % (name, bits, STATE_BITS[name]))
        for p in pred:
            if p.ff != state_bits(p)[1]:
                sys.exit('gates_report: %s has %d flip-flops, its state bits (+ valid bits) are %d'
                         % (p.name, p.ff, state_bits(p)[1]))
        preset_row(name, res['core_tr_e'], paper='~' + fmt(PAPER[name]) if name in PAPER else '-')
    # The design of issue 21 (tage-l's predictors with the adaptive encoding:
    # tm_core with ENC = tr_a, its A_cnt, A_cc, TF and Exp-Golomb encoder) and
    # the time-stamped variants, each beside the large core it compares with.
    for name, enc in (('large', 'ttr_e'), ('tage-l', 'tr_a'), ('tage-l', 'ttr_a')):
        preset_row(name, res['core_' + enc], ' ' + enc)
    print('(the last three rows: the core with time stamps (ttr_e), and with the adaptive encoding')
    print('tr_a / ttr_a of spec 4.9, whose state is A_cnt (16 bits), A_cc (16, moving only with')
    print('time stamps) and TF (9) per core)')
    print('storage = predictor flip-flops x %d as a share of NAND2-eq.  paper = 003 section 6.4' % FF_WEIGHT)
    print('The paper counts about one gate per predictor state bit (array storage) plus about 1K')
    print('gates of logic; tage-s/m/l (not in the paper) stay within the state bits of small /')
    print('medium / large.  pred FF = state + one valid bit per row of 32 gshare counters and per')
    print('TAGE base counter (those tables have no reset; checked for every predictor).')
    print()
    dcache_table(res)


if __name__ == '__main__':
    main()
