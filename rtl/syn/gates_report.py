#!/usr/bin/env python3
"""Prints the tables of `make gates` (scripts/gates.sh).

usage: gates_report.py JOBS.tsv YOSYS_VERSION

JOBS.tsv: one line per synthesis, in the manifest's order: name, top module,
parameters (K=V,...), the path prefix of its results (PREFIX.generic and
PREFIX.nand are Yosys `stat` outputs after synth and after abc -g NAND,
PREFIX.time the seconds), its rows and the full cache ('-': none).  The rows
of a core or predictor are the per-preset rows it belongs to, PRESET or
PRESET:SUFFIX (that preset's predictors with another core, SUFFIX printed
beside it); those of a tm_dcache job its cache preset, whose full size is
the last column (the job is that cache at fewer sets)."""
import re
import sys

FF_WEIGHT = 6  # NAND2 equivalents of a D flip-flop with asynchronous reset
PAPER = {'small': 2300, 'medium': 4800, 'large': 16500}  # 003 §6.4, gates per core
# Predictor state bits per preset, the table of spec 3.3.3 (checked against
# the formulas below, from the jobs' parameters).
STATE_BITS = {'small': 1552, 'medium': 4278, 'large': 14980,
              'tage-s': 1523, 'tage-m': 4239, 'tage-l': 13582}
# The order of the modules in the module table, and the letters of the
# predictors in the per-preset table, in their order there (outcome, return,
# target predictor).
MODULES = ('tm_core', 'tm_gshare', 'tm_ras', 'tm_ibtb', 'tm_tage', 'tm_ittage', 'tm_buffer',
           'tm_dcache')
LETTER = {'tm_gshare': 'G', 'tm_tage': 'T', 'tm_ras': 'R', 'tm_ibtb': 'B', 'tm_ittage': 'IT'}
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


def parse_params(params):
    return dict(p.split('=', 1) for p in params.split(',') if p)


class Result:
    def __init__(self, name, top, params, prefix=None, rows='-', full='-'):
        self.name, self.top = name, top
        self.params = parse_params(params)
        self.rows = [] if rows == '-' else rows.split(',')
        self.full = None if full == '-' else parse_params(full)
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


def cache_sets(p):
    return int(p['SIZE']) // (int(p['LINE']) * int(p['ASSOC']))


def dcache_presets(res):
    """[(cache preset, its full parameters, its two largest synthesized
    sizes)] of the tm_dcache jobs, in the manifest's order."""
    presets = {}
    for r in res.values():
        if r.top == 'tm_dcache' and r.rows:
            presets.setdefault(r.rows[0], (r.full, []))[1].append(r)
    out = []
    for name, (full, jobs) in presets.items():
        jobs.sort(key=lambda r: cache_sets(r.params))
        if full is None or len(jobs) < 2:
            sys.exit('gates_report: cache %s needs its full size and two reduced ones' % name)
        for r in jobs:
            if any(r.params[k] != full[k] for k in ('ASSOC', 'LINE', 'GRAN')):
                sys.exit('gates_report: %s is not cache %s at fewer sets' % (r.name, name))
        out.append((name, full, jobs[-2:]))
    return out


def dcache_table(res):
    presets = dcache_presets(res)
    if not presets:
        return
    s1, s2 = (cache_sets(r.params) for r in presets[0][2])
    if any(tuple(cache_sets(r.params) for r in jobs) != (s1, s2) for _, _, jobs in presets):
        sys.exit('gates_report: the caches are synthesized at different numbers of sets')
    print('CFiat cache of one core (tm_dcache, private, N = 1; spec 3.8).  Synthesized at %d and'
          % s1)
    print('%d sets; the full cache extrapolated: gates linearly in the sets, FF counted exactly'
          % s2)
    print('(tags, flags, valid and flag-valid bits per way, LRU bits per set); see scripts/gates.sh.')
    print('%-7s %-28s %8s %9s %8s %9s %8s %10s %10s' % (
        'preset', 'geometry', 'FF@%d' % s1, 'gates@%d' % s1, 'FF@%d' % s2, 'gates@%d' % s2,
        'FF', 'gates', 'NAND2-eq'))
    tags = []
    for name, full, (a, b) in presets:
        size, ways, line, gran = (int(full[k]) for k in ('SIZE', 'ASSOC', 'LINE', 'GRAN'))
        for r, n in ((a, s1), (b, s2)):
            if r.ff != dcache_ff(n, ways, line, gran):
                sys.exit('gates_report: %s has %d flip-flops, the formula says %d'
                         % (r.name, r.ff, dcache_ff(n, ways, line, gran)))
        sets = cache_sets(full)
        ff = dcache_ff(sets, ways, line, gran)
        gates = b.gates + (sets - s2) * (b.gates - a.gates) // (s2 - s1)
        print('%-7s %-28s %8s %9s %8s %9s %8s %10s %10s' % (
            name, '%dK %d-way %dB g%d, %d sets' % (size // 1024, ways, line, gran, sets), fmt(a.ff),
            fmt(a.gates),
            fmt(b.ff), fmt(b.gates), fmt(ff), fmt(gates), fmt(gates + FF_WEIGHT * ff)))
        tags.append('%s %d' % (name, 64 - log2(line) - log2(sets)))
    print('Tags (%s bits per way) are flip-flops like the predictor tables.  With N cores each'
          % ', '.join(tags))
    print('cache also looks up the lines of the other cores\' stores (N - 1 more lookup ports, not')
    print('counted here).')


def num(v):
    return int(v) if v.isdigit() else 0


def describe(r, res):
    """The parameters column of the module table."""
    p = r.params
    if r.top == 'tm_core':
        ch = '%s,%s/%s,%s/%s,%s' % tuple(p[k] for k in ('CA', 'CB', 'TA', 'TB', 'HA', 'HB'))
        return '%s N=%s, chunks %s' % (r.name[len('core_'):], p['N'], ch)
    if r.top == 'tm_ibtb':
        e = int(p['ENTRIES'])
        return '%d entries (2 ways x %d sets)' % (e, e // 2)
    if r.top in ('tm_gshare', 'tm_ras'):
        return '%s entries' % p['ENTRIES']
    if r.top in ('tm_tage', 'tm_ittage'):
        preset = r.rows[0].split(':')[0] if r.rows else r.name
        return '%s: B%s, %sx%s tag %s, L %s..%s' % (preset, p['BASE'], p['TABLES'], p['ENTRIES'],
                                                   p['TAG'], p['LMIN'], p['LMAX'])
    if r.top == 'tm_buffer':
        d = 'N=%s, %s bits, port %s, MAXW %s' % (p['N'], p['BUF_BITS'], p['PORT_BITS'], p['MAXW'])
        return d if p['RESERVE'] == p['MAXW'] else d + ', RES %s' % p['RESERVE']
    if r.top == 'tm_dcache':
        return '%s, %d sets: %dK %s-way %sB g%s' % (r.rows[0] if r.rows else r.name,
                                                    cache_sets(p), int(p['SIZE']) // 1024,
                                                    p['ASSOC'], p['LINE'], p['GRAN'])
    return ','.join('%s=%s' % kv for kv in p.items())


def module_order(res):
    """The jobs in the module table's order: by module, then by their
    parameters (the caches by preset in the manifest's order, then sets)."""
    caches = [name for name, _, _ in dcache_presets(res)]

    def key(r):
        m = MODULES.index(r.top) if r.top in MODULES else len(MODULES)
        if r.top == 'tm_dcache' and r.rows and r.rows[0] in caches:
            return (m, r.top, (caches.index(r.rows[0]), cache_sets(r.params)))
        return (m, r.top, tuple(num(v) for v in r.params.values()))
    return sorted(res.values(), key=key)


def preset_rows(res):
    """[(row, core, [predictors])] of the per-preset table, rows in the order
    the jobs name them."""
    rows = {}
    for r in res.values():
        for row in r.rows if r.top in LETTER or r.top == 'tm_core' else ():
            rows.setdefault(row, []).append(r)
    out = []
    for row, jobs in rows.items():
        cores = [r for r in jobs if r.top == 'tm_core']
        if len(cores) != 1:
            sys.exit('gates_report: row %s has %d cores' % (row, len(cores)))
        pred = sorted((r for r in jobs if r.top in LETTER), key=lambda r: list(LETTER).index(r.top))
        out.append((row, cores[0], pred))
    return out


def main():
    jobs, yv = sys.argv[1], sys.argv[2]
    res = {}
    with open(jobs) as f:
        for line in f:
            name, top, params, prefix, rows, full = line.rstrip('\n').split('\t')
            res[name] = Result(name, top, params, prefix, rows, full)

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
    rows = [(r, describe(r, res)) for r in module_order(res)]
    for r, desc in rows:
        t = '-' if r.seconds is None else '%ds' % r.seconds
        print('%-10s %-38s %9s %7s %9s %10s %6s' % (r.top, desc, fmt(r.cells), fmt(r.ff),
                                                    fmt(r.gates), fmt(r.nand2eq), t))
    others = sorted({t for r, _ in rows for t in r.other})
    if others:
        print('note: gates include cell types other than NAND and NOT: %s' % ', '.join(others))
    print()
    table = preset_rows(res)
    # The core of the rows without a suffix (one encoding, N = 1).
    base = sorted({core.name[len('core_'):] for row, core, _ in table if ':' not in row})
    print('One core (N = 1, %s without time stamps, private predictors): tm_core + its'
          % '/'.join(base))
    print('predictors: gshare (G), RAS (R), iBTB (B) or TAGE (T) and ITTAGE (IT), by their (base)')
    print('entries.  Predictor FF are the predictor state (storage); the predictors\' gates are their')
    print('read, compare, update and write logic.  state = the predictor state bits of spec 3.3.3.')
    print('%-7s %-20s %6s %8s %9s %8s %9s %9s %10s %8s %8s' % (
        'preset', 'predictors', 'state', 'core FF', 'core gts', 'pred FF', 'pred gts', 'total FF',
        'NAND2-eq', 'storage', 'paper'))
    extra = []
    for row, core, pred in table:
        name, _, suffix = row.partition(':')
        bits = sum(state_bits(p)[0] for p in pred)
        if name in STATE_BITS and bits != STATE_BITS[name]:
            sys.exit('gates_report: %s has %d predictor state bits by the formulas, spec 3.3.3 says %d'
                     % (name, bits, STATE_BITS[name]))
        for p in pred:
            if p.ff != state_bits(p)[1]:
                sys.exit('gates_report: %s has %d flip-flops, its state bits (+ valid bits) are %d'
                         % (p.name, p.ff, state_bits(p)[1]))
        pff = sum(p.ff for p in pred)
        total = core.nand2eq + sum(p.nand2eq for p in pred)
        desc = ' '.join('%s%s' % (LETTER[p.top], p.params.get('BASE', p.params.get('ENTRIES')))
                        for p in pred) + (' ' + suffix if suffix else '')
        paper = '~' + fmt(PAPER[name]) if name in PAPER and not suffix else '-'
        print('%-7s %-20s %6s %8s %9s %8s %9s %9s %10s %7.0f%% %8s' % (
            name, desc, fmt(STATE_BITS.get(name, bits)), fmt(core.ff), fmt(core.gates), fmt(pff),
            fmt(sum(p.gates for p in pred)), fmt(core.ff + pff), fmt(total),
            100.0 * FF_WEIGHT * pff / total, paper))
        if suffix:
            extra.append(suffix)
    if extra:
        print('(the last %d rows: the preset\'s predictors with another core: %s;'
              % (len(extra), ', '.join(extra)))
        print('the adaptive encoding tr_a of spec 4.9 keeps A_cnt (16 bits), A_cc (16, moving only')
        print('with time stamps) and TF (9) per core)')
    print('storage = predictor flip-flops x %d as a share of NAND2-eq.  paper = 003 section 6.4' % FF_WEIGHT)
    print('The paper counts about one gate per predictor state bit (array storage) plus about 1K')
    print('gates of logic; tage-s/m/l (not in the paper) stay within the state bits of small /')
    print('medium / large.  pred FF = state + one valid bit per row of 32 gshare counters and per')
    print('TAGE base counter (those tables have no reset; checked for every predictor).')
    print()
    dcache_table(res)


if __name__ == '__main__':
    main()
