#!/bin/sh
# `pmlab explain`: golden output on the seed scenario and on a scenario using
# every kind of knob, and its bad input.
. tests/lib.sh

for g in ibrs-off:scenarios/ibrs-off.ini good-full:tests/data/scenarios/good-full.ini; do
    name=${g%%:*}
    "$P" explain "${g#*:}" >"$T/$name.txt" 2>/dev/null || fail "explain $name"
    diff -u "tests/golden/explain-$name.txt" "$T/$name.txt" || fail "explain $name differs from tests/golden"
done
echo "ok - explain golden outputs"

# The seed's difference is exactly the C1 entry method.
[ "$(grep -c '^\*' "$T/ibrs-off.txt")" -eq 1 ] || fail "ibrs-off: want one marked line"
grep -q '^\* cpuidle state1: C1 .*mwait, IBRS off (IRQs off)' "$T/ibrs-off.txt" || fail "ibrs-off marked line"

"$P" explain scenarios/ibrs-off.ini --variant ibrs_off >"$T/one.txt" || fail "explain --variant"
grep -q '^variant ibrs_off' "$T/one.txt" && ! grep -q '^variant ibrs:' "$T/one.txt" || fail "--variant filter"
set +e
"$P" explain scenarios/ibrs-off.ini --variant nosuch >/dev/null 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown --variant: exit $rc"
set +e
"$P" explain tests/data/scenarios/bad-state-index.ini >/dev/null 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'bad-state-index.ini:8:' "$T/e" || fail "bad scenario: exit $rc"
echo "ok - explain --variant and bad input"

# Removed and disabled states are shown and marked; the EPP shown is the one
# the model asks the hardware for.
X=tests/data/scenarios/explain-removed.ini
"$P" explain "$X" >"$T/x.txt" 2>/dev/null || fail "explain $X"
sed -n '/^variant mc1/,/^$/p' "$T/x.txt" >"$T/mc1.txt"
grep -q '^\* cpuidle REMOVED: C1E  beyond intel_idle.max_cstate=1' "$T/mc1.txt" &&
    grep -q '^\* cpuidle REMOVED: C6   beyond intel_idle.max_cstate=1' "$T/mc1.txt" ||
    fail "max_cstate=1: removed states not shown and marked"
! grep -q 'REMOVED: C1 ' "$T/mc1.txt" || fail "C1 (kept) shown as removed"
sed -n '/^variant c6off/,/^$/p' "$T/x.txt" | grep -q '^\* cpuidle state3: C6 .*; DISABLED on cpus: 3\(; hardware .*\)\{0,1\}$' ||
    fail "disabled state not marked"
sed -n '/^variant perf/,/^$/p' "$T/x.txt" |
    grep -q '^\* cpufreq cpus 0-111: governor performance, .*, EPP 0 (pinned by the performance policy)$' ||
    fail "performance governor: EPP not the pinned 0"
sed -n '/^variant base/,/^$/p' "$T/x.txt" | grep -q 'EPP 128$' || fail "powersave: EPP 128"
echo "ok - explain: removed and disabled states marked, the EPP the model uses"

# --set applies as in run (issue 27 item 7): the overrides line names it and
# the variant resolves to it.
"$P" explain scenarios/ibrs-off.ini --set 'variant.ibrs_off.cmdline=cpuidle.off=1' >"$T/set.txt" ||
    fail "explain --set"
grep -qx 'overrides --set variant.ibrs_off.cmdline=cpuidle.off=1' "$T/set.txt" || fail "explain: no overrides line"
sed -n '/^variant ibrs_off/,/^$/p' "$T/set.txt" | grep -q 'cpuidle.off=1' || fail "explain --set not applied"
! grep -q '^overrides' "$T/ibrs-off.txt" || fail "explain without --set shows overrides"
set +e
"$P" explain scenarios/ibrs-off.ini --set workload.nosuchkey=1 >/dev/null 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q -- '--set workload.nosuchkey=1' "$T/e" || fail "explain bad --set: exit $rc $(cat "$T/e")"
echo "ok - explain --set: applied and listed"
