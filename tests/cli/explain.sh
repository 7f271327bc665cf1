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
