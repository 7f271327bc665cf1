#!/bin/sh
# Scaling of the full model with machine size: the rr server at load 0.5 on
# skx-2s-shaped machines of 1, 4, 16 and 32 packages (56, 224, 896 and 1,792
# CPUs), generated here from machines/skx-2s.ini by changing only `packages`,
# with each of rr's servers: `fork` (a thread forked per request: every
# request takes the fork slow path, find_idlest_group over the NUMA domain,
# which reads every CPU as the kernel does) and `pool` (persistent workers
# woken per request: the wake path, bounded by the LLC).
# The simulated time shrinks as the machine grows (duration_ms = 22400 / CPUs,
# about 0.5 M events per run whatever the size), so ns per event compares the
# per-event cost at each size; a model whose per-event work is independent of
# the CPU count gives a flat line and a ratio near 1.
#
# Each size runs ROUNDS times (default 2), interleaved with the other sizes,
# and the best round is kept (the machine is shared and noisy); the cost is
# pmlab's CPU time over its events, loading included. Prints, for fork
# (names unchanged since before the pool existed) and then for pool,
#   BENCH scale_ns_per_event_cpus<N> <ns> ns
#   BENCH scale_ns_per_event_ratio_cpus<max>_vs_cpus<min> <ratio> ratio
#   BENCH scale_pool_ns_per_event_cpus<N> <ns> ns
#   BENCH scale_pool_ns_per_event_ratio_cpus<max>_vs_cpus<min> <ratio> ratio
set -eu
P=${1:-./pmlab}
ROUNDS=${ROUNDS:-2}
SIZES=${SCALE_PACKAGES:-"1 4 16 32"}
SRC=$(dirname "$0")/../machines/skx-2s.ini
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

for pk in $SIZES; do
    cpus=$((pk * 56))
    sed -e "s/^packages = 2\$/packages = $pk/" -e "s/^name = skx-2s\$/name = skx-scale$cpus/" \
        "$SRC" > "$TMP/skx-scale$cpus.ini"
    grep -q "^packages = $pk\$" "$TMP/skx-scale$cpus.ini" || { echo "scale.sh: cannot set packages in $SRC" >&2; exit 1; }
    dur=$((22400 / cpus))
    for server in fork pool; do
        cat > "$TMP/scale-$server$cpus.ini" <<INI
[scenario]
name = scale-$server$cpus
machine = skx-scale$cpus
seed = 42
replications = 1
[workload]
type = rr
load = 0.5
service_us = 50
service_cv = 1.0
warmup_ms = $((dur / 8 + 1))
duration_ms = $dur
server = $server
[variant base]
kernel = 6.12
INI
    done
done

# One run: prints "<events> <CPU ns>". CPU time (user + system, from the
# shell's `times` in a subshell that runs only pmlab), not wall time: on a
# shared machine other builds stretch the wall clock far more than the CPU
# time. `times` has 10 ms resolution; runs take 0.3 s and more.
run_one() {
    (
        line=$(PMLAB_MACHINES="$TMP" "$P" run "$TMP/scale-$1.ini" --jobs 1 --format json 2>&1 >/dev/null | grep '^pmlab: ')
        echo "$line" | sed -n 's/.*), \([0-9.e+]*\) events in.*/\1/p'
        times
    ) | awk 'NR == 1 { ev = $1 }
             NR == 3 { split($1, u, "m"); split($2, s, "m")
                       ns = (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1e9
                       printf "%s %.0f\n", ev, ns }'
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for pk in $SIZES; do
        cpus=$((pk * 56))
        for server in fork pool; do
            run_one "$server$cpus" >> "$TMP/res-$server$cpus"
        done
    done
    r=$((r + 1))
done

# The series of one server: $1 = fork or pool, $2 = the metric's prefix.
report() {
    first= last=
    for pk in $SIZES; do
        cpus=$((pk * 56))
        ns=$(awk 'BEGIN { best = -1 } { v = $2 / $1; if (best < 0 || v < best) best = v }
                  END { printf "%.0f", best }' "$TMP/res-$1$cpus")
        echo "BENCH $2_ns_per_event_cpus$cpus $ns ns"
        [ -n "$first" ] || first="$cpus $ns"
        last="$cpus $ns"
    done
    echo "$first $last" | awk -v m="$2" '{ printf "BENCH %s_ns_per_event_ratio_cpus%s_vs_cpus%s %.2f ratio\n", m, $3, $1, $4 / $2 }'
}
report fork scale
report pool scale_pool
