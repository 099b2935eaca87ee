"""The published numbers tm study's report puts beside its own (docs/study.md,
the tables paper and paper_programs): the totals of A. K. Tewar, A. R. Myers,
A. Milenkovic, "mcfTRaptor: Toward unobtrusive on-the-fly control-flow
tracing in multicores", J. Systems Architecture 61 (2015) 601-614 (the seed
text /work/shared/seeds/003_*.txt; ../shared/REFERENCE.md sections 9 and 13),
and the ten benchmarks' rows of its Tables 1 and 5, which the report puts
beside the study's programs of the same names (study/paper_programs.py).

Transcribed by hand from the seed text, each number with the table, figure or
section it comes from.  Only numbers the text gives are here: Figs. 10-13 are
pictures whose bars the text does not list, so the Small and Medium presets
have no published bpi (only the misprediction rates of Table 4 and two ratios
of section 6.1), and Figs. 11 and 13 give only the N = 1 and N = 8 totals the
section text quotes.  All "Total" numbers are the paper's aggregate: the sum of
all ten benchmarks' bits over the sum of their instructions (or cycles)."""

CITATION = ("A. K. Tewar, A. R. Myers, A. Milenkovic, \"mcfTRaptor: Toward unobtrusive on-the-fly control-flow "
            "tracing in multicores\", J. Systems Architecture 61 (2015) 601-614")
SHORT = "Tewar et al. 2015 (mcfTRaptor)"

# What differs between the paper's measurements and this study's (003 sections 2 and 5)
DIFFERS = ("the paper measured the 10 SPLASH-2 benchmarks (small inputs, compiled for the 32-bit IA32 instruction "
           "set) in the cycle-accurate Multi2Sim simulator (per core 8 KB level-1 instruction and data caches, "
           "2-cycle hit; a shared level-2 cache of N x 64 KB, 4 cycles; memory 200 cycles; about 0.45 instructions "
           "per cycle per core at N = 1), each with N threads on N cores; this study measures other "
           "programs (the study file's), x86-64 (64-bit targets and addresses), cycles from this project's timing "
           "model, and the threads that actually ran (which may differ from N). Bits per instruction depend on "
           "the programs' branch behaviour; bits per cycle also on the timing model")

NS = (1, 2, 4, 8)

# Table 1 (Splash2 benchmark suite characterization), row "Total": instruction
# count [x 10^9] and instructions per cycle (all cores) per N.
TABLE1_TOTAL = {
    "instructions_1e9": {1: 19.61, 2: 19.81, 4: 20.33, 8: 21.31},
    "ipc": {1: 0.45, 2: 0.87, 4: 1.56, 8: 2.57},
    "branch_pct_n1": 10.46,       # % control-flow instructions (Branch column, N = 1)
    "branch_mix_pct_n1": {"C, D": 7.82, "U, D": 1.69, "U, I": 0.95},   # the columns after Branch
}

# The ten SPLASH-2 benchmarks, by key (the name as SPLASH-2 spells it,
# normalized as paper_programs.norm does: lower case, "_" for "-"), with the
# names the paper prints for them: Table 1's row, Table 5's row, and the other
# spellings of its text (section 2: "water_nsq", "water_sp"; sections 6.1-6.3:
# "water-ns", "water-sp").
BENCHMARKS = {
    "barnes": {"table1": "barnes", "table5": "barnes"},
    "cholesky": {"table1": "cholesky", "table5": "cholesky"},
    "fft": {"table1": "fft", "table5": "fft"},
    "fmm": {"table1": "fmm", "table5": "fmm"},
    "lu": {"table1": "lu", "table5": "lu"},
    "radiosity": {"table1": "radiosity", "table5": "radiosity"},
    "radix": {"table1": "radix", "table5": "radix"},
    "raytrace": {"table1": "raytrace", "table5": "raytrace"},
    "water_nsquared": {"table1": "water-nsq", "table5": "water-ns", "text": ("water_nsq", "water-ns")},
    "water_spatial": {"table1": "water-sp", "table5": "water-sp", "text": ("water_sp", "water-sp")},
}

# Table 1, the benchmarks' rows exactly as the seed text prints them (003,
# between section 2's first paragraphs; one text line per row, the columns
# tab-separated and all readable).  The columns, in order:
#   Instruction count [x 10^9] (IC) at N = 1, 2, 4, 8;
#   % Branches for N = 1: "Branch" (all control-flow instructions), "C, D"
#   (conditional direct), "U, D" (unconditional direct), "U, I" (unconditional
#   indirect; the paper: IA32 has no conditional indirect branches);
#   Instructions per cycle (IPC, all cores) at N = 1, 2, 4, 8.
# Checked twice against the text, and by the text itself: cholesky's IC "from
# 1.27 with N = 1 to 2.77" billion; IPC(8) / IPC(1) = 7.55 for water_nsq (5.29 /
# 0.70) and 3.41 for radix (0.75 / 0.22); C, D + U, D + U, I = Branch to the
# rounding (0.01) in every row.
TABLE1_COLUMNS = ("IC N=1", "IC N=2", "IC N=4", "IC N=8", "Branch", "C, D", "U, D", "U, I",
                  "IPC N=1", "IPC N=2", "IPC N=4", "IPC N=8")
TABLE1_ROWS = (
    # row            IC [x 10^9]                % Branches for N = 1         IPC
    ("barnes",       2.13, 2.13, 2.13, 2.14,   10.25, 6.10, 2.44, 1.71,   0.41, 0.83, 1.52, 2.76),
    ("cholesky",     1.27, 1.37, 1.85, 2.77,    7.11, 6.50, 0.42, 0.18,   0.31, 0.61, 1.37, 3.03),
    ("fft",          0.92, 0.92, 0.92, 0.92,    8.35, 6.06, 1.14, 1.14,   0.28, 0.56, 1.00, 1.58),
    ("fmm",          2.79, 2.79, 2.84, 2.88,    7.05, 6.57, 0.36, 0.12,   0.40, 0.80, 1.57, 2.94),
    ("lu",           0.45, 0.45, 0.45, 0.45,   13.63, 11.98, 0.83, 0.82,  0.58, 1.09, 1.90, 3.00),
    ("radiosity",    2.23, 2.32, 2.31, 2.31,   11.70, 6.48, 3.40, 1.81,   0.64, 1.24, 2.35, 4.42),
    ("radix",        1.59, 1.59, 1.59, 1.60,    3.96, 1.85, 1.06, 1.06,   0.22, 0.37, 0.61, 0.75),
    ("raytrace",     2.47, 2.47, 2.47, 2.47,   12.12, 7.74, 2.65, 1.73,   0.50, 1.17, 2.16, 3.60),
    ("water-nsq",    0.74, 0.74, 0.74, 0.75,   14.12, 11.56, 2.16, 0.41,  0.70, 1.46, 3.04, 5.29),
    ("water-sp",     5.03, 5.03, 5.03, 5.03,   13.53, 11.49, 1.51, 0.53,  0.82, 1.35, 2.20, 3.51),
)

# Table 5 (bpi for NX_b, TR_b (Large) and TR_e (Large)), the benchmarks' rows
# exactly as the seed text prints them (003, before Fig. 11; every cell
# readable).  The columns: NX_b, TR_b, TR_e at N = 1, then at N = 2, 4, 8 (the
# header prints "N = 2" twice: the third group is N = 4, as for the Total
# row above).  Three decimals as printed: radix's TR_b and TR_e are printed
# 0.000 (below 0.0005; section 6.1 gives radix's TR_e-L ~1e-6 bpc), kept as
# 0.0, so a ratio to them is undefined.  Checked twice against the text, and
# by the text (section 6.1): NX_b "0.41 for fmm to 1.23 for lu" at N = 1, "0.65
# for fmm to 1.59 for lu" at N = 8; radiosity 1.06 and 1.34 (section 2).
TABLE5_COLUMNS = tuple(f"{m} N={n}" for n in NS for m in ("NX_b", "TR_b", "TR_e"))
TABLE5_ROWS = (
    # row            N = 1                   N = 2                   N = 4                   N = 8
    ("barnes",       0.981, 0.041, 0.028,   1.056, 0.045, 0.033,   1.133, 0.050, 0.037,   1.210, 0.054, 0.042),
    ("cholesky",     0.491, 0.013, 0.011,   0.538, 0.014, 0.012,   0.897, 0.014, 0.011,   1.200, 0.010, 0.009),
    ("fft",          0.803, 0.007, 0.007,   0.869, 0.008, 0.008,   0.935, 0.009, 0.008,   1.002, 0.010, 0.009),
    ("fmm",          0.413, 0.021, 0.018,   0.463, 0.023, 0.020,   0.554, 0.025, 0.022,   0.650, 0.027, 0.024),
    ("lu",           1.230, 0.061, 0.046,   1.350, 0.067, 0.053,   1.471, 0.074, 0.059,   1.592, 0.081, 0.066),
    ("radiosity",    1.064, 0.069, 0.045,   1.151, 0.078, 0.054,   1.250, 0.087, 0.062,   1.336, 0.090, 0.066),
    ("radix",        0.546, 0.000, 0.000,   0.586, 0.000, 0.000,   0.627, 0.000, 0.000,   0.668, 0.000, 0.000),
    ("raytrace",     1.052, 0.083, 0.057,   1.134, 0.092, 0.066,   1.214, 0.100, 0.074,   1.299, 0.110, 0.083),
    ("water-ns",     0.755, 0.063, 0.046,   0.831, 0.070, 0.053,   0.907, 0.077, 0.060,   0.985, 0.084, 0.067),
    ("water-sp",     0.781, 0.063, 0.044,   0.857, 0.070, 0.051,   0.933, 0.077, 0.058,   1.008, 0.084, 0.065),
)
TABLE5_CONFIGS = ("nx_b", "tr_b-large", "tr_e-large")   # Table 5's mechanisms, named as TABLE5_TOTAL names them


def _key_of(table, printed):
    return next(k for k, v in BENCHMARKS.items() if v[table] == printed)


# The rows above by benchmark key: TABLE1[key] = {"row": the name as printed,
# "instructions_1e9": {N: IC}, "branch_pct_n1": Branch, "branch_mix_pct_n1":
# {"C, D", "U, D", "U, I"}, "ipc": {N: IPC}}; TABLE5[key] = {"row": ..., CONFIG:
# {N: bpi}}.  The Total rows (TABLE1_TOTAL, TABLE5_TOTAL) follow from these
# rows as aggregates, to the rounding of the printed digits
# (tests/study/test_paper.py): IC Total = the sum of the rows (the printed
# rows add up to 19.62 and 21.32 at N = 1 and 8, the printed Totals are 19.61
# and 21.31: rounding), IPC Total = all instructions / all cycles (sum IC /
# sum IC / IPC: 0.454, 0.866, 1.566, 2.563, not the rows' mean 0.486 ...),
# the branch mix weighted by IC at N = 1, Table 5's Total = sum bpi x IC(N) /
# sum IC(N) with Table 1's IC; none of them is a mean of the rows.
TABLE1 = {_key_of("table1", r[0]): {"row": r[0], "instructions_1e9": dict(zip(NS, r[1:5])), "branch_pct_n1": r[5],
                                    "branch_mix_pct_n1": dict(zip(("C, D", "U, D", "U, I"), r[6:9])),
                                    "ipc": dict(zip(NS, r[9:13]))} for r in TABLE1_ROWS}
TABLE5 = {_key_of("table5", r[0]): {"row": r[0], **{c: {n: r[1 + 3 * i + j] for i, n in enumerate(NS)}
                                                    for j, c in enumerate(TABLE5_CONFIGS)}} for r in TABLE5_ROWS}

# Table 2 (Nexus-like NX_b / tNX_b), row "Total": bpi and bpc per N (two decimals).
TABLE2_TOTAL = {
    "nx_b": {"bpi": {1: 0.79, 2: 0.86, 4: 0.95, 8: 1.06}, "bpc": {1: 0.36, 2: 0.75, 4: 1.49, 8: 2.76}},
    "tnx_b": {"bpi": {1: 1.42, 2: 1.49, 4: 1.61, 8: 1.76}, "bpc": {1: 0.64, 2: 1.29, 4: 2.52, 8: 4.58}},
}

# Table 4 (outcome and target address misprediction rates, %, entire suite)
# per preset and N.  (The seed text prints the three presets' rows run
# together: "Small Medium Large  7.86 6.69 5.27  7.83 6.67 5.26 ..."; each
# group of three is one N, as section 6's text confirms: 7.86 % Small and
# 5.27 % Large at N = 1, 6.23 % Small and 4.20 % Large at N = 8.)
TABLE4 = {
    "small": {"outcome": {1: 7.86, 2: 7.83, 4: 7.20, 8: 6.23}, "target": {1: 8.47, 2: 8.59, 4: 8.58, 8: 8.55}},
    "medium": {"outcome": {1: 6.69, 2: 6.67, 4: 6.14, 8: 5.31}, "target": {1: 2.05, 2: 2.12, 4: 2.08, 8: 2.05}},
    "large": {"outcome": {1: 5.27, 2: 5.26, 4: 4.84, 8: 4.20}, "target": {1: 0.57, 2: 0.58, 4: 0.57, 8: 0.57}},
}

# Table 5 (bpi for NX_b, TR_b (Large) and TR_e (Large)), row "Total".  (The
# seed text's header repeats "N = 2" where the third group is N = 4; the N = 1
# and N = 8 totals are confirmed by section 6.1's text, N = 4's NX_b by Table 2.)
TABLE5_TOTAL = {
    "nx_b": {1: 0.789, 2: 0.858, 4: 0.954, 8: 1.061},
    "tr_b-large": {1: 0.047, 2: 0.052, 4: 0.056, 8: 0.057},
    "tr_e-large": {1: 0.033, 2: 0.038, 4: 0.042, 8: 0.045},
}

# Table 6 (bpi for tNX_b, tTR_b (Large) and tTR_e (Large)), row "Total".
TABLE6_TOTAL = {
    "tnx_b": {1: 1.419, 2: 1.486, 4: 1.614, 8: 1.759},
    "ttr_b-large": {1: 0.104, 2: 0.109, 4: 0.112, 8: 0.111},
    "ttr_e-large": {1: 0.087, 2: 0.092, 4: 0.095, 8: 0.095},
}

# Fig. 11 (bpc, functional traces), totals the section 6.1 text quotes: NX_b
# and TR_e Large at N = 1 and N = 8 (NX_b's equal Table 2's bpc).
FIG11_TOTAL = {
    "nx_b": {1: 0.36, 8: 2.76},
    "tr_e-large": {1: 0.015, 8: 0.116},
}

# Fig. 13 (bpc, time-stamped traces), totals the section 6.2 text quotes.
FIG13_TOTAL = {
    "tnx_b": {1: 0.64, 8: 4.58},
    "ttr_e-large": {1: 0.039, 8: 0.246},
}

# Ratios the text states (section 6.1 and 6.2: "reduces ... N times"), keyed by
# (numerator, denominator) configuration, preset-specific names, N.
TEXT_RATIOS = {
    ("nx_b", "tr_b-small"): {1: 8.8},      # 6.1: TR_b vs NX_b, 8.8x (N = 1, Small) ...
    ("nx_b", "tr_b-large"): {8: 18.6},     # ... to 18.6x (N = 8, Large)
    ("nx_b", "tr_e-small"): {1: 14.9},     # 6.1: TR_e vs NX_b, 14.9x (N = 1, Small) ...
    ("nx_b", "tr_e-large"): {8: 23.8},     # ... to 23.8x (N = 8, Large)
    ("tnx_b", "ttr_b-large"): {1: 13.6, 8: 15.8},   # 6.2: tTR_b Large vs tNX_b
    ("tnx_b", "ttr_e-large"): {1: 16.3, 8: 18.6},   # 6.2: tTR_e Large vs tNX_b
}


def as_json():
    """Every published number above, JSON-ready (N as strings, as JSON keys are)."""
    def keys(x):
        if isinstance(x, dict):
            return {str(k): keys(v) for k, v in x.items()}
        return x
    return {"citation": CITATION, "differs": DIFFERS, "N": list(NS),
            "table1_total": keys(TABLE1_TOTAL), "table1": keys(TABLE1), "table2_total": keys(TABLE2_TOTAL),
            "table4": keys(TABLE4), "table5": keys(TABLE5),
            "table5_total": keys(TABLE5_TOTAL), "table6_total": keys(TABLE6_TOTAL),
            "fig11_total": keys(FIG11_TOTAL), "fig13_total": keys(FIG13_TOTAL),
            "text_ratios": [{"numerator": a, "denominator": b, "N": n, "ratio": r, "from": "003 section 6"}
                            for (a, b), rs in TEXT_RATIOS.items() for n, r in rs.items()]}
