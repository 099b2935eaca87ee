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
PRESETS = [('small', 512, 8, 0), ('medium', 1024, 16, 16), ('large', 4096, 32, 64)]
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
    print('            synth maps to flip-flops)')
    print('  gates     two-input NANDs and inverters after abc -g NAND (flip-flop enables')
    print('            are multiplexers there); an inverter counts as one gate')
    print('  NAND2-eq  gates + %d x FF (a D flip-flop with asynchronous reset ~ %d NAND2)'
          % (FF_WEIGHT, FF_WEIGHT))
    print()
    print('%-10s %-38s %9s %7s %9s %10s %6s' % ('module', 'parameters', 'cells', 'FF', 'gates',
                                                 'NAND2-eq', 'time'))
    rows = []
    for enc, name in (('nx_b', 'core_nx_b'), ('tr_b', 'core_tr_b'), ('tr_e', 'core_tr_e'),
                      ('ttr_e', 'core_ttr_e')):
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
    print('One core (N = 1, tr_e without time stamps, private predictors): tm_core + its tm_gshare,')
    print('tm_ras, tm_ibtb.  Predictor FF are the predictor state (storage); the predictors\' gates')
    print('are their read, compare, update and write logic.')
    print('%-7s %-15s %8s %9s %8s %9s %9s %10s %8s %8s' % (
        'preset', 'gshare/RAS/iBTB', 'core FF', 'core gts', 'pred FF', 'pred gts', 'total FF',
        'NAND2-eq', 'storage', 'paper'))
    core = res['core_tr_e']
    for name, gsh, ras, ibtb in PRESETS:
        pred = [res['gshare_%d' % gsh], res['ras_%d' % ras]] + ([res['ibtb_%d' % ibtb]] if ibtb else [])
        pff = sum(p.ff for p in pred)
        pg = sum(p.gates for p in pred)
        total = core.nand2eq + sum(p.nand2eq for p in pred)
        print('%-7s %-15s %8s %9s %8s %9s %9s %10s %7.0f%% %8s' % (
            name, '%d/%d/%d' % (gsh, ras, ibtb), fmt(core.ff), fmt(core.gates), fmt(pff), fmt(pg),
            fmt(core.ff + pff), fmt(total),
            100.0 * FF_WEIGHT * pff / total, '~' + fmt(PAPER[name])))
    print('storage = predictor flip-flops x %d as a share of NAND2-eq.  paper = 003 section 6.4' % FF_WEIGHT)
    print('The paper counts about one gate per predictor state bit (array storage) plus about 1K')
    print('gates of logic.  State bits per preset (gshare 2p + p/32 row valid bits + log2 p,')
    print('RAS 64r + pointers, iBTB 73 bits per entry + LRU + PIR): %s.' % ', '.join(
        '%s %s' % (name, fmt(sum(res[k].ff for k in (
            ['gshare_%d' % gsh, 'ras_%d' % ras] + (['ibtb_%d' % ibtb] if ibtb else [])))))
        for name, gsh, ras, ibtb in PRESETS))
    print()
    dcache_table(res)


if __name__ == '__main__':
    main()
