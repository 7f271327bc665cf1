#!/bin/sh
# Sweep throughput: points per second of an 8-point load grid of an rr
# server on rpl-h (2 variants x 2 replications of 200 ms: 4 runs per point)
# with 1 and 2 worker threads, and pmlab-mpi's cost per point against the local run
# (mpirun -np 2: one worker rank; includes mpirun's start-up, spread over
# the points). Skips the MPI figure when pmlab-mpi or mpirun is missing.
set -eu
P=${1:-./pmlab}
M=${2:-./pmlab-mpi}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$T/bench.ini
cat >"$S" <<'INI'
[scenario]
name = bench-sweep
machine = rpl-h
seed = 1
replications = 2

[workload]
type = rr
service_us = 50
warmup_ms = 20
duration_ms = 200

[variant menu]
kernel = 6.12

[variant teo]
kernel = 6.12
cmdline = cpuidle.governor=teo
INI
export PMLAB_MACHINES="$PWD/machines"
GRID="--grid workload.load=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8 --quiet"
NPOINTS=8
now() { date +%s.%N; }
run() { # name, command...
    name=$1; shift
    t0=$(now)
    "$@" >/dev/null
    t1=$(now)
    echo "$t0 $t1" | awk -v n=$NPOINTS -v name="$name" \
        '{ w = $2 - $1; printf "BENCH sweep_%s_points_per_s %.3f points/s\n", name, n / w; print w > "/dev/stderr" }' \
        2>"$T/$name.wall"
}
run jobs1 "$P" sweep "$S" $GRID --jobs 1 --db "$T/j1.db"
run jobs2 "$P" sweep "$S" $GRID --jobs 2 --db "$T/j2.db"
awk -v a="$(cat "$T/jobs1.wall")" -v b="$(cat "$T/jobs2.wall")" \
    'BEGIN { printf "BENCH sweep_speedup_2_workers %.2f x\n", a / b }'
if [ -x "$M" ] && command -v mpirun >/dev/null 2>&1; then
    run mpi_np2 mpirun --allow-run-as-root --oversubscribe -x PMLAB_MACHINES -np 2 "$M" sweep "$S" $GRID --jobs 1 \
        --db "$T/m.db"
    awk -v a="$(cat "$T/jobs1.wall")" -v m="$(cat "$T/mpi_np2.wall")" -v n=$NPOINTS \
        'BEGIN { printf "BENCH sweep_mpi_overhead_per_point %.1f ms\n", 1000 * (m - a) / n }'
fi
