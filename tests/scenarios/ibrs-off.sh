#!/bin/sh
# Seed 000, quick mode: scenarios/ibrs-off.ini's [quick] configuration (4
# replications, RT curve in 2 % steps) must show the directions and the
# mechanism of intel_idle.ibrs_off: critical-jOPS up (a real difference, not
# noise), max-jOPS moving less than critical-jOPS (the gain is latency under
# load, not capacity), and less power (idle siblings no longer tax busy
# threads, so less busy time). The published magnitudes (critical +12 %,
# max +1.2 %) are held against the default configuration by `make validate`
# (docs/validation.md), not here: quick mode's 4 replications on 2 % steps
# move critical-jOPS by several points between model versions (+8.9 % before
# the idle-path fixes of issue 10, +4.6 % after; the default run went from
# +10.0 % [7.9, 12.2] to +8.5 % [5.3, 11.7]). A run is a pure function of
# scenario and seed, so this is not a flaky check.
. tests/lib.sh

"$P" run scenarios/ibrs-off.ini --quick --quiet --format json --interval 250 \
    --output "$T/out.json" || fail "run"
# field METRIC KEY: the ibrs_off-vs-ibrs comparison's delta_pct or verdict
field() {
    python3 - "$T/out.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["comparisons"] if c["metric"] == sys.argv[2] and c["variant"] == "ibrs_off"][0]
print(c[sys.argv[3]])
PY
}
within() { # value lo hi
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}
crit=$(field critical_jops delta_pct)
max=$(field max_jops delta_pct)
echo "ibrs_off vs ibrs (quick): critical_jops $crit %, max_jops $max %, pkg_watts $(field pkg_watts delta_pct) %"
within "$crit" 0 100 || fail "critical_jops delta $crit % is not a gain"
[ "$(field critical_jops verdict)" != worse ] || fail "critical_jops verdict worse"
abs() { awk -v x="$1" 'BEGIN { print (x < 0 ? -x : x) }'; }
within "$(abs "$max")" 0 "$crit" || fail "max_jops moves more ($max %) than critical_jops ($crit %)"
[ "$(field pkg_watts verdict)" = better ] || fail "pkg_watts should fall with ibrs_off"
# The RT curve ends where the machine saturates (docs/workload-jbb.md, "How
# the RT curve ends"): in every replication of both variants, the CPUs are at
# least 85 % busy (turbostat --interval's samples over the last passing
# step's measurement window). The ceiling is ~94 %, not 100: during a pause
# only the 73 GC threads of the 112 CPUs run. Before the live set counted a
# transaction by its progress, a queued backlog ran GC away at 74-82 % busy
# in half the replications of the default configuration.
python3 - "$T/out.json" <<'PY' || fail "the RT curve ends before the CPUs saturate"
import json, sys
d = json.load(open(sys.argv[1]))
settle_ms, measure_ms = 1000.0, 1500.0   # the scenario's (jbb defaults)
bad = []
for v in d["variants"]:
    curves = v["series"]["rt_curve"]["replications"]
    samples = v["series"]["interval"]["replications"]
    for r, (curve, iv) in enumerate(zip(curves, samples)):
        # the curve ends a settle period after its last (failing) window
        n = len(curve)
        start = iv[-1][0] - n * (settle_ms + measure_ms) - settle_ms
        k = max(i for i, row in enumerate(curve) if row[5] == 1) + 1
        lo = start + (k - 1) * (settle_ms + measure_ms) + settle_ms
        hi = lo + measure_ms
        busy = [row[1] for row in iv if lo < row[0] <= hi]
        mean = sum(busy) / len(busy)
        print(f"{v['name']} rep {r}: last passing step {k} of {n}, IR {curve[k - 1][0]:.0f}, busy {mean:.1f} %")
        if curve[-1][5] != 0 or mean < 85:
            bad.append(r)
sys.exit(1 if bad else 0)
PY
# The mechanism: C1 is entered through the IBRS-off path only with ibrs_off.
echo "ok - seed 000: intel_idle.ibrs_off"
