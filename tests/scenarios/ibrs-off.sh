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

"$P" run scenarios/ibrs-off.ini --quick --quiet --format csv >"$T/out.csv" || fail "run"
field() { # metric column -> value for variant ibrs_off
    awk -F, -v m="$1" -v c="$2" '$3 == "ibrs_off" && $4 == m { print $c }' "$T/out.csv"
}
within() { # value lo hi
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}
crit=$(field critical_jops 11)
max=$(field max_jops 11)
echo "ibrs_off vs ibrs (quick): critical_jops $crit %, max_jops $max %, pkg_watts $(field pkg_watts 11) %"
within "$crit" 0 100 || fail "critical_jops delta $crit % is not a gain"
[ "$(field critical_jops 15)" != worse ] || fail "critical_jops verdict worse"
abs() { awk -v x="$1" 'BEGIN { print (x < 0 ? -x : x) }'; }
within "$(abs "$max")" 0 "$crit" || fail "max_jops moves more ($max %) than critical_jops ($crit %)"
[ "$(field pkg_watts 15)" = better ] || fail "pkg_watts should fall with ibrs_off"
# The mechanism: C1 is entered through the IBRS-off path only with ibrs_off.
echo "ok - seed 000: intel_idle.ibrs_off"
