"""The published numbers tm study's report puts beside its own (docs/study.md
"The paper beside the numbers"): the totals of A. K. Tewar, A. R. Myers,
A. Milenkovic, "mcfTRaptor: Toward unobtrusive on-the-fly control-flow
tracing in multicores", J. Systems Architecture 61 (2015) 601-614 (the seed
text /work/shared/seeds/003_*.txt; ../shared/REFERENCE.md sections 9 and 13).

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
}

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
            "table1_total": keys(TABLE1_TOTAL), "table2_total": keys(TABLE2_TOTAL), "table4": keys(TABLE4),
            "table5_total": keys(TABLE5_TOTAL), "table6_total": keys(TABLE6_TOTAL),
            "fig11_total": keys(FIG11_TOTAL), "fig13_total": keys(FIG13_TOTAL),
            "text_ratios": [{"numerator": a, "denominator": b, "N": n, "ratio": r, "from": "003 section 6"}
                            for (a, b), rs in TEXT_RATIOS.items() for n, r in rs.items()]}
