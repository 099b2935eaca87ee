#!/usr/bin/env bash
# make run: the main job: the quick bandwidth study (tm study --quick,
# docs/study.md): real multithreaded programs recorded under tm record at
# several thread counts, every configuration of the sweep fed in the same
# pass, every recording verified by replay, and the Intel PT of each
# execution (tm pt, verified by libipt); prints the Table 5/6 totals and the
# NX_b / TR_e-L and PT / TR_e-L ratios, and where the report is.  Environment: TM_RUN_DIR
# (the study's folder, default BUILD/study-quick: a rerun reuses its cache),
# TM_RUN_JOBS (recordings at once, default 2).
set -euo pipefail
BUILD=${1:-build}
dir=${TM_RUN_DIR:-$BUILD/study-quick}
"$BUILD/bin/tm" study --quick --jobs "${TM_RUN_JOBS:-2}" -o "$dir"
echo
echo "tm run: the report: $dir/index.html (every number also in $dir/results.json and $dir/tables/*.csv)"
