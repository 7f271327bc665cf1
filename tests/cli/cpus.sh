#!/bin/sh
# The per-CPU view: [report] cpus and --cpus LIST add cpus.* metrics beside
# the host-wide ones, which stay exactly as they are; bad lists are exit 2.
. tests/lib.sh
S=scenarios/example-rr.ini
R=tests/data/scenarios/report-cpus.ini

# Adding --cpus changes no host-wide number: the CSV without the cpus.* rows
# is the run without the option, byte for byte (same seed).
"$P" run "$S" --quick --quiet --reps 2 --format csv >"$T/host.csv" || fail "run"
"$P" run "$S" --quick --quiet --reps 2 --format csv --cpus 0-15 >"$T/cpus.csv" || fail "run --cpus"
grep -q ',cpus\.busy_pct,%,' "$T/cpus.csv" || fail "--cpus adds no cpus.busy_pct"
grep -v ',cpus\.' "$T/cpus.csv" | cmp -s - "$T/host.csv" || fail "--cpus changed the host-wide rows"
! grep -q 'cpus' "$T/host.csv" || fail "a run without --cpus reports cpus metrics"
ok "--cpus leaves the host-wide metrics byte-identical"

# Without a list, the table has no cpus row and the turbostat view keeps
# its 16-character variant column.
"$P" run "$S" --quick --quiet --reps 2 >"$T/host.txt" || fail "table run"
! grep -q 'cpus' "$T/host.txt" || fail "table without --cpus mentions cpus"
grep -q '^variant            Busy%  Bzy_MHz' "$T/host.txt" || fail "turbostat header changed"
ok "no list: table as before"

# [report] cpus: metrics, JSON list, table rows labelled with the list.
"$P" run "$R" --quiet --format json >"$T/r.json" || fail "report-cpus json"
grep -q '"cpus": "0-3,8"' "$T/r.json" || fail "json lacks the list"
for m in busy_pct poll_pct avg_mhz bzy_mhz tick_stopped_pct residency.C1 residency.C6 above_pct \
         below_pct above_pct.C1E below_pct.C6; do
    grep -q "\"cpus\\.$m\": {" "$T/r.json" || fail "json lacks cpus.$m"
done
for m in pkg_watts core_watts core_residency.C6 pkg_residency.PC6; do
    ! grep -q "\"cpus\\.$m\"" "$T/r.json" || fail "cpus.$m is not per CPU"
done
grep -q '"metric": "cpus.busy_pct"' "$T/r.json" || fail "cpus.busy_pct not compared"
"$P" run "$R" --quiet >"$T/r.txt" || fail "report-cpus table"
grep -q '^cpus\.busy_pct  ' "$T/r.txt" || fail "table lacks the cpus.busy_pct row"
! grep -q '^cpus\.residency' "$T/r.txt" || fail "cpus.residency.* belong in the turbostat view"
[ "$(grep -c '^base cpus 0-3,8 ' "$T/r.txt")" -eq 2 ] || fail "want a cpus row in both views"
grep '^nocpuidle cpus 0-3,8 ' "$T/r.txt" | head -1 | grep -q ' -  *- *$' ||
    fail "cpus row: power columns should be '-'"
ok "[report] cpus: metrics, json list, table rows"

# --cpus overrides the key.
"$P" run "$R" --quiet --format json --cpus 5 >"$T/o.json" || fail "--cpus 5"
grep -q '"cpus": "5"' "$T/o.json" || fail "--cpus did not override [report] cpus"
ok "--cpus overrides [report] cpus"

# compare keeps the list, and refuses two different ones.
"$P" compare "$T/r.json" "$T/r.json" >"$T/c.txt" || fail "compare"
grep -q '^base cpus 0-3,8 ' "$T/c.txt" || grep -q '^A:base cpus 0-3,8 ' "$T/c.txt" ||
    fail "compare lost the list"
set +e
"$P" compare "$T/r.json" "$T/o.json" >/dev/null 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'cpus.* over CPUs 0-3,8, .* over CPUs 5' "$T/e" ||
    fail "compare of different lists: exit $rc: $(cat "$T/e")"
ok "compare"

# Bad lists: exit 2, one line saying what is wrong.
bad() { # message, then the list
    want=$1; shift
    set +e; "$P" run "$S" --quick --cpus "$1" >"$T/o" 2>"$T/e"; rc=$?; set -e
    [ $rc -eq 2 ] || fail "--cpus '$1': exit $rc, want 2"
    [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^pmlab run: --cpus: $want" "$T/e" ||
        fail "--cpus '$1': $(cat "$T/e")"
    [ ! -s "$T/o" ] || fail "--cpus '$1' printed a report"
}
bad 'CPU 112 is out of range: the machine has CPUs 0-111' 0-112
bad "'0-3,x' is not a CPU list (e.g. 0-15 or 0-3,8,10-11)" 0-3,x
bad "'7-2' is an empty range" 7-2
bad 'an empty CPU list selects no CPU' ''
for f in bad-report-cpus-range:8 bad-report-cpus-syntax:7 bad-report-key:7; do
    set +e; "$P" run "tests/data/scenarios/${f%%:*}.ini" >/dev/null 2>"$T/e"; rc=$?; set -e
    [ $rc -eq 2 ] && grep -q "^tests/data/scenarios/${f%%:*}.ini:${f#*:}: " "$T/e" ||
        fail "${f%%:*}: exit $rc: $(cat "$T/e")"
done
ok "bad lists: exit 2 with the reason (FILE:LINE for the key)"

# Where the user reads about it.
"$P" run --help | grep -q -- '--cpus LIST' || fail "run --help lacks --cpus"
"$P" explain "$R" | grep -q '^report cpus 0-3,8: ' || fail "explain does not show [report] cpus"
"$P" explain "$S" | grep -q 'report cpus' && fail "explain shows cpus without the key"
grep -q '^## \[report\]' docs/scenario-files.md || fail "docs/scenario-files.md lacks [report]"
ok "help, explain and docs"
