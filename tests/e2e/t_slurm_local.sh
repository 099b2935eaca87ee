#!/usr/bin/env bash
# tier: check
# t_slurm_local.sh — smoke test of scripts/slurm-local.sh (a private one-node
# Slurm cluster): starts it in a temporary folder, runs a 3-task job array and
# an afterok job that concatenates the tasks' files, then checks that a failed
# array task leaves its afterok job pending forever (DependencyNeverSatisfied)
# and that job never runs.  Stops the cluster and removes the folder on exit.
#   bash tests/e2e/t_slurm_local.sh      (needs slurm-wlm and munge; as root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
SL=$root/scripts/slurm-local.sh
W=$(mktemp -d /tmp/tm-slurm.XXXXXX)
C=$W/cluster
trap 'bash "$SL" stop "$C" >/dev/null 2>&1 || true; rm -rf "$W"' EXIT

die() {
    echo "FAIL: $*"
    squeue 2>&1 || true
    for f in "$C"/log/*.log; do echo "--- $f"; tail -n 15 "$f"; done
    exit 1
}
# waitjobs IDS SECONDS: waits until squeue lists none of the jobs IDS (a,b).
waitjobs() {
    local t0=$SECONDS
    while [ -n "$(squeue -h -j "$1" -o %i)" ]; do
        (( SECONDS - t0 < $2 )) || die "jobs $1 still queued after $2 s"
        sleep 0.5
    done
}
# state ID: JobState and Reason of job ID, e.g. "PENDING DependencyNeverSatisfied".
state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\) Reason=\([^ ]*\).*/\1 \2/p'; }

bash "$SL" start "$C"
# shellcheck source=/dev/null
. "$C/env.sh"
O=$W/out
mkdir -p "$O"

# ---- a job array, and an afterok job that gathers its output
aid=$(sbatch --parsable --array=0-2 --chdir "$W" -o "$W/a-%a.out" -e "$W/a-%a.err" \
    --wrap "echo task \$SLURM_ARRAY_TASK_ID > $O/\$SLURM_ARRAY_TASK_ID")
did=$(sbatch --parsable --dependency="afterok:$aid" --chdir "$W" -o "$W/d.out" -e "$W/d.err" \
    --wrap "cat $O/0 $O/1 $O/2 > $O/all")
waitjobs "$aid,$did" 120
[ "$(state "$did")" = "COMPLETED None" ] || die "job $did: $(state "$did"), not COMPLETED"
[ "$(cat "$O/all" 2>/dev/null)" = "$(printf 'task 0\ntask 1\ntask 2')" ] ||
    die "$O/all: '$(cat "$O/all" 2>&1)'"
echo "ok   array $aid + afterok job $did"

# ---- task 1 fails: the afterok job must never run
# shellcheck disable=SC2016  # expanded by the job's shell
fid=$(sbatch --parsable --array=0-2 --chdir "$W" -o "$W/f-%a.out" \
    --wrap '[ "$SLURM_ARRAY_TASK_ID" != 1 ]')
nid=$(sbatch --parsable --dependency="afterok:$fid" --chdir "$W" -o "$W/n.out" \
    --wrap "touch $O/never")
waitjobs "$fid" 120
t0=$SECONDS
until [ "$(state "$nid")" = "PENDING DependencyNeverSatisfied" ]; do
    (( SECONDS - t0 < 30 )) || die "job $nid: '$(state "$nid")', not PENDING DependencyNeverSatisfied"
    sleep 0.5
done
scancel "$nid"
waitjobs "$nid" 30
[ "$(state "$nid")" = "CANCELLED DependencyNeverSatisfied" ] || echo "note: job $nid ended $(state "$nid")"
[ ! -e "$O/never" ] || die "the afterok job $nid of a failed array ran"
echo "ok   failed array $fid: afterok job $nid never ran (DependencyNeverSatisfied, cancelled)"
echo "t_slurm_local: ok"
