#!/usr/bin/env bash
# slurm-local.sh — a private single-node Slurm cluster on localhost, for tests.
#
#   scripts/slurm-local.sh start DIR   # ready (node idle) when it exits 0
#   . DIR/env.sh                       # export SLURM_CONF=DIR/slurm.conf
#   sbatch / squeue / sinfo / scancel / scontrol ...   # talk to this cluster
#   scripts/slurm-local.sh stop DIR    # idempotent; always exits 0
#
# Everything lives under DIR (absolute path, no spaces): slurm.conf, munge key,
# socket and seed, state, spool, pid files, logs (DIR/log/*.log).  Its own
# munged (socket DIR/munge.sock), slurmctld and slurmd; the system's
# /etc/slurm, /etc/munge and default munge socket are not used, nor systemd.
# Runs as root (SlurmUser=root, jobs may run as root) or as a plain user.
# Ports: SLURM_LOCAL_PORT (default 16817) for slurmctld, +1 for slurmd.
# Exit 2 (and one line) when slurm-wlm/munge are not installed; 1 on failure.
set -euo pipefail
me=slurm-local
die() { echo "$me: $*" >&2; exit 1; }

[ $# -eq 2 ] || { echo "usage: $0 start|stop DIR" >&2; exit 1; }
cmd=$1
case $2 in *[[:space:]]*) die "DIR must not contain spaces: $2" ;; esac
mkdir -p "$2"
D=$(cd "$2" && pwd)
CONF=$D/slurm.conf

# running PID: PID is a process and not a zombie (PID 1 of a container may be
# slow to reap the daemons once they exit).
running() { local s; s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1; [[ $s != [ZX]* ]]; }
# alive DIR/run/NAME.pid: its pid is running and is NAME (not a reused pid).
alive() { [ -s "$1" ] && running "$(cat "$1")" && [ "$(cat "/proc/$(cat "$1")/comm")" = "$(basename "$1" .pid)" ]; }
# stopd PIDFILE...: SIGTERM to all, wait up to 5 s, then SIGKILL; removes the
# pid files.
stopd() {
    local f p pids=() i
    for f; do alive "$f" && pids+=("$(cat "$f")"); rm -f "$f"; done
    [ ${#pids[@]} -gt 0 ] || return 0
    kill "${pids[@]}" 2>/dev/null || true
    for i in $(seq 70); do
        [ "$i" -eq 50 ] && { kill -9 "${pids[@]}" 2>/dev/null || true; }
        for p in "${pids[@]}"; do running "$p" && { sleep 0.1; continue 2; }; done
        return 0
    done
}

stop() {
    if [ -f "$CONF" ] && alive "$D/run/slurmctld.pid"; then
        # cancel every job, then give slurmd a few seconds to kill the steps
        export SLURM_CONF=$CONF
        timeout 10 scancel --quiet --user="$(id -un)" 2>/dev/null || true
        for _ in $(seq 20); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    stopd "$D/run/slurmd.pid" "$D/run/slurmctld.pid" "$D/run/munged.pid"
    rm -f "$D/munge.sock" "$D/munge.sock.lock"
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 1; }

for t in munged slurmctld slurmd sinfo sbatch squeue scancel scontrol; do
    command -v "$t" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
    command -v "$t" >/dev/null 2>&1 || { echo "$me: slurm-wlm/munge not installed (make deps)"; exit 2; }
done

stop   # leftovers of an earlier start in this DIR

port=${SLURM_LOCAL_PORT:-16817}
for p in "$port" $((port + 1)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
        echo "$me: port $p on localhost is in use; a stale cluster? stop it with '$0 stop ITS_DIR'" \
             "or set SLURM_LOCAL_PORT to another base port.  Running daemons:" >&2
        pgrep -a -x 'slurmctld|slurmd|munged' >&2 || true
        exit 1
    fi
done

user=$(id -un)
node=$(hostname -s)
mkdir -p "$D/run" "$D/log" "$D/state" "$D/spool"
chmod 0755 "$D"
rm -f "$D"/log/*.log

# ---- munge: key, daemon on DIR/munge.sock
rm -f "$D/munge.key"
dd if=/dev/urandom of="$D/munge.key" bs=1 count=1024 status=none
chmod 0400 "$D/munge.key"
force=(); [ "$(id -u)" -eq 0 ] && force=(--force)
munged "${force[@]}" --socket="$D/munge.sock" --key-file="$D/munge.key" \
    --pid-file="$D/run/munged.pid" --log-file="$D/log/munged.log" \
    --seed-file="$D/munge.seed" || { tail -n 20 "$D/log/munged.log" >&2 2>/dev/null; die "munged did not start"; }
for _ in $(seq 50); do [ -S "$D/munge.sock" ] && break; sleep 0.1; done
[ -S "$D/munge.sock" ] || { tail -n 20 "$D/log/munged.log" >&2; die "munged socket $D/munge.sock did not appear"; }

# ---- slurm.conf
mem=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
[ "$mem" -gt 1024 ] && mem=1024
: >"$D/plugstack.conf"    # empty: not /etc/slurm/plugstack.conf
cat >"$CONF" <<EOF
# private single-node test cluster written by scripts/slurm-local.sh
ClusterName=tmlocal
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge.sock
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$D/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=2
MinJobAge=120
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
echo "export SLURM_CONF=$CONF" >"$D/env.sh"
export SLURM_CONF=$CONF

# ---- daemons (they fork into the background; errors before that go to *.out)
fail() {
    echo "$me: $*" >&2
    for f in "$D"/log/*; do [ -s "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
    stop; exit 1
}
slurmctld -f "$CONF" >"$D/log/slurmctld.out" 2>&1 || fail "slurmctld did not start"
slurmd -f "$CONF" -N "$node" >"$D/log/slurmd.out" 2>&1 || fail "slurmd did not start"

t0=$SECONDS
while :; do
    st=$(timeout 5 sinfo -h -n "$node" -o %t 2>/dev/null || true)
    [ "$st" = idle ] && break
    (( SECONDS - t0 < 60 )) || fail "node $node not idle after 60 s (sinfo state: '${st:-no answer}')"
    sleep 0.5
done
echo "$me: cluster up in $D (node $node, $(nproc) CPUs, port $port; . $D/env.sh)"
