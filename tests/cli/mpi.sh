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
