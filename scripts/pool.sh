# scripts/pool.sh — sourced by the scripts that run many independent checks
# at once (scripts/lint.sh, testbench/unit/lint.sh, testbench/regress.sh,
# testbench/unit/run.sh).
#
# pool JOBS FUNC ITEM...: runs FUNC ITEM in the background for each ITEM,
# at most JOBS at a time, and waits for all of them.
pool() {
    local n=$1 f=$2 x
    shift 2
    for x in "$@"; do
        while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do wait -n; done
        "$f" "$x" &
    done
    wait
}
# print_fails DIR: prints each DIR/*.fail (one failed check's lines) and sets
# FAILS to their number.
print_fails() {
    local f
    FAILS=0
    for f in "$1"/*.fail; do
        [ -e "$f" ] || continue
        cat "$f"
        FAILS=$((FAILS + 1))
    done
}
