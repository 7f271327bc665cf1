#!/bin/sh
# compare: the mmc-sleep model of BENCH-MODEL.md run side by side on this
# machine by pmlab (build/rel/bench/mmc_sleep), ns-3 (bench/compare/
# mmc_sleep_ns3.cc, built here with g++ if libns3-dev is installed) and SimPy
# (bench/compare/mmc_sleep_simpy.py, Debian's python3-simpy 2.3.1).
#
# The three run one after another, ROUNDS times interleaved (default 3), and
# the best events/s of each is kept, since this shared 2-core machine is noisy.
# Prints each implementation's model outputs once (to check the models agree:
# mean response ~118.5 us, p99 ~481 us, sleep fraction ~0.157, ~5.0 M model
# events), then
#   BENCH compare_mmc_sleep_<impl>_events_per_s <v> events/s
#   BENCH compare_mmc_sleep_pmlab_vs_<impl> <r> x      (pmlab's rate / impl's)
# A simulator that is not installed is skipped with one line; exit status 0.
#
# Environment: ROUNDS (default 3); SIMPY_COMPLETIONS (default 2000000, the
# model's count; fewer makes SimPy's run shorter and says so); NS3_SCHEDULER
# (an ns-3 scheduler TypeId such as ns3::HeapScheduler; default: ns-3's
# default, the MapScheduler); CXX (default g++).
# Usage: sh bench/compare.sh   (or make bench-compare, which builds pmlab's side)
set -eu

cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SIMPY_COMPLETIONS=${SIMPY_COMPLETIONS:-2000000}
CXX=${CXX:-g++}
OUT=build/rel/bench/compare
PMLAB_BIN=build/rel/bench/mmc_sleep
NS3_BIN=$OUT/mmc_sleep_ns3
NS3_SRC=bench/compare/mmc_sleep_ns3.cc
SIMPY_SRC=bench/compare/mmc_sleep_simpy.py

if [ ! -x "$PMLAB_BIN" ]; then
    echo "compare: $PMLAB_BIN not built (run make bench-compare)" >&2
    exit 1
fi
mkdir -p "$OUT"

impls=pmlab
best_pmlab=

# ns-3: build (again only when the source is newer) if its dev package is there.
if pkg-config --exists ns3-core 2>/dev/null && command -v "$CXX" >/dev/null 2>&1; then
    if [ ! -x "$NS3_BIN" ] || [ -n "$(find "$NS3_SRC" -newer "$NS3_BIN")" ]; then
        # Debian's ns3-core.pc carries a malformed "-I/usr;" token: drop it.
        ns3_cflags=$(pkg-config --cflags ns3-core | tr ' ' '\n' | grep -v ';' | tr '\n' ' ')
        echo "compare: building $NS3_BIN"
        # shellcheck disable=SC2086,SC2046 # word splitting of the flag lists is wanted
        "$CXX" -std=c++17 -O2 -Wall -Wextra -o "$NS3_BIN" "$NS3_SRC" \
            $ns3_cflags $(pkg-config --libs ns3-core)
    fi
    impls="$impls ns3"
else
    echo "compare: ns-3 not installed (apt-get install libns3-dev); skipped"
fi

# SimPy 2 is a Debian package: the first python3 on PATH may be another build
# (pyenv, venv) that does not see it, so fall back to Debian's.
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import SimPy.Simulation' >/dev/null 2>&1; then
        PY=$p
        break
    fi
done
if [ -n "$PY" ]; then
    impls="$impls simpy"
else
    echo "compare: SimPy not installed (apt-get install python3-simpy); skipped"
fi

run_impl() { # impl -> its output on stdout
    case $1 in
    pmlab) "$PMLAB_BIN" ;;
    ns3) if [ -n "${NS3_SCHEDULER:-}" ]; then "$NS3_BIN" 2000000 "$NS3_SCHEDULER"; else "$NS3_BIN"; fi ;;
    simpy) "$PY" "$SIMPY_SRC" "$SIMPY_COMPLETIONS" ;;
    esac
}

rate_of() { # output file -> events/s
    sed -n 's/^BENCH [a-z0-9_]*mmc_sleep_events_per_s \([0-9.]*\) .*/\1/p' "$1"
}

echo "# compare: mmc-sleep, $ROUNDS interleaved round(s), best events/s of each; $(nproc) cores"
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for i in $impls; do
        run_impl "$i" > "$OUT/$i.out.$r"
        v=$(rate_of "$OUT/$i.out.$r")
        [ -n "$v" ] || { echo "compare: no events/s in $i's output" >&2; cat "$OUT/$i.out.$r" >&2; exit 1; }
    done
    r=$((r + 1))
done

for i in $impls; do
    # Model outputs are deterministic: show the first round's, minus its rate.
    grep -v 'mmc_sleep_events_per_s' "$OUT/$i.out.1"
    best=$(for k in $(seq 1 "$ROUNDS"); do rate_of "$OUT/$i.out.$k"; done | sort -g | tail -n 1)
    eval "best_$i=$best"
    echo "BENCH compare_mmc_sleep_${i}_events_per_s $best events/s"
    # A model that drifted from the reference answers makes its speed meaningless.
    mean=$(sed -n 's/^BENCH [a-z0-9_]*mean_resp_us \([0-9.]*\) .*/\1/p' "$OUT/$i.out.1")
    awk -v m="$mean" -v i="$i" 'BEGIN { if (m < 117.3 || m > 119.7)
        printf "# compare: WARNING %s mean response %s us, expected about 118.5\n", i, m }'
done

for i in $impls; do
    [ "$i" = pmlab ] && continue
    eval "v=\$best_$i"
    awk -v a="$best_pmlab" -v b="$v" -v i="$i" \
        'BEGIN { printf "BENCH compare_mmc_sleep_pmlab_vs_%s %.2f x\n", i, a / b }'
done
