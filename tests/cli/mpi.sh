#!/bin/sh
# pmlab-mpi (make MPI=1): a sweep on 3 ranks (rank 0 and two workers) equals
# the local run byte for byte: database export and summary. Skipped when
# pmlab-mpi was not built or Open MPI's mpirun is missing.
. tests/lib.sh
M=${PMLAB_MPI:-./pmlab-mpi}
if [ ! -x "$M" ] || ! command -v mpirun >/dev/null 2>&1; then
    echo "ok - pmlab-mpi # SKIP not built (make MPI=1) or no mpirun"
    exit 0
fi
export PMLAB_MACHINES="$PWD/machines"
case $P in /*) ;; *) P="$PWD/$P" ;; esac
case $M in /*) ;; *) M="$PWD/$M" ;; esac
cd "$T"
cat >tiny.ini <<'INI'
[scenario]
name = tiny
machine = rpl-h
seed = 5
replications = 2

[workload]
type = rr
service_us = 50
warmup_ms = 10
duration_ms = 20

[variant menu]
kernel = 6.12

[variant teo]
kernel = 6.12
cmdline = cpuidle.governor=teo
INI
G="--grid workload.load=0.1,0.3,0.5,0.7 --grid variant.*.kernel=6.8,6.12 --quiet --jobs 1"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x PMLAB_MACHINES"
$MPIRUN -np 3 "$M" sweep tiny.ini $G --db mpi.db >mpi.txt 2>mpi.err || fail "mpirun -np 3: $(cat mpi.err)"
"$P" sweep tiny.ini $G --db local.db >local.txt || fail "local sweep"
"$P" export mpi.db >mpi.csv && "$P" export local.db >local.csv || fail "export"
[ "$(wc -l <local.csv)" -gt 100 ] || fail "local export too short"
cmp -s mpi.csv local.csv || fail "MPI results differ from the local run"
cmp -s mpi.txt local.txt || fail "MPI summary differs from the local run"
ok "mpirun -np 3 pmlab-mpi sweep == pmlab sweep (export and summary)"

# Bad input stops every rank before anything runs: exit 2 from mpirun.
set +e
$MPIRUN -np 3 "$M" sweep tiny.ini --grid workload.lod=0.1 --db bad.db >/dev/null 2>bad.err; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "did you mean load?" bad.err && [ ! -e bad.db ] ||
    fail "bad grid under MPI: exit $rc: $(head -3 bad.err)"
ok "bad grid under MPI: exit 2, no database"

# Interrupted, rank 0 says what is committed and prints the command that
# continues the sweep through MPI (issue 27 item 14: it printed a plain
# 'pmlab sweep'; and a signal reached one of Open MPI's threads, which died
# of it without a word). SIGTERM goes to rank 0 itself, as a terminal's
# Ctrl-C would reach it.
K="--grid workload.load=0.1,0.2,0.3,0.4 --set workload.duration_ms=30000 --quiet --jobs 1"
$MPIRUN -np 2 "$M" sweep tiny.ini $K --db int.db >/dev/null 2>int.err &
pid=$!
rank0=
i=0
while [ -z "$rank0" ]; do
    i=$((i + 1)); [ $i -lt 300 ] || { kill $pid; fail "no rank 0 in 30 s"; }
    sleep 0.1
    for p in $(pgrep -f "pmlab-mpi sweep tiny.ini" || true); do
        # ours (run in $T), rank 0
        [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$(pwd -P)" ] &&
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=0 && rank0=$p
    done
done
sleep 1
kill -TERM "$rank0"
set +e; wait $pid; set -e
grep -q "^pmlab sweep: interrupted by SIGTERM: [0-9] of the 4 points are committed to int.db" int.err &&
    grep -q "^  mpirun -n 2 $M sweep $K --db int.db tiny.ini --resume$" int.err ||
    fail "MPI interruption: $(cat int.err)"
ok "interrupted under MPI: what is committed, and the resume command is mpirun -n 2 pmlab-mpi"
