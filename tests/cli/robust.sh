#!/bin/sh
# Robustness (issue 13): inputs found by fuzzing and by new users that crashed,
# aborted, lost data or misled. Each check failed before its fix.
. tests/lib.sh
D=tests/data/compare

expect_exit() { # status, then the command; stdout in $T/o, stderr in $T/e
    want=$1; shift
    set +e; "$@" >"$T/o" 2>"$T/e"; rc=$?; set -e
    [ $rc -eq "$want" ] || fail "'$*': exit $rc, want $want ($(head -3 "$T/e"))"
    [ "$want" -ne 2 ] || [ "$(wc -l <"$T/e")" -eq 1 ] || fail "'$*': want one line on stderr: $(cat "$T/e")"
}

# compare: names longer than the model holds were cut when stored and looked
# up whole (heap overflow); now exit 2 naming them.
expect_exit 2 "$P" compare "$D/cmp-long-metric-names.json" "$D/cmp-long-metric-names.json"
grep -q "metric name 'a*1' is longer than 47 characters" "$T/e" || fail "long metric: $(cat "$T/e")"
expect_exit 2 "$P" compare "$D/cmp-long-series-name.json" "$D/cmp-long-series-name.json"
grep -q "series name 's*' is longer than 47" "$T/e" || fail "long series: $(cat "$T/e")"
ok "compare: over-long metric and series names are exit 2, named"

# GSL's default handler aborted on finite values near the ends of a double.
for f in cmp-gsl-abort-denorm cmp-gsl-abort-huge; do
    for fmt in table csv json; do
        expect_exit 0 "$P" compare "$D/$f.json" "$D/$f.json" --format $fmt
    done
done
"$P" compare "$D/cmp-gsl-abort-denorm.json" "$D/cmp-gsl-abort-denorm.json" --format csv >"$T/o"
grep -q '^x,m,b,m,u,2,2e-160,.*,noise$' "$T/o" || fail "tiny values: no result: $(cat "$T/o")"
ok "compare: tiny and huge values give a result, never an abort"

# NaN values: no verdict (was "worse", p = 0), and CSV has no nan/-nan.
expect_exit 0 "$P" compare "$D/cmp-nan-verdict-worse.json" "$D/cmp-nan-verdict-worse.json" --format csv
! grep -qi 'nan' "$T/o" || fail "csv prints nan: $(cat "$T/o")"
grep -q '^x,m,b,m,u,2,,,,,,,,,$' "$T/o" || fail "NaN metric should have empty fields: $(cat "$T/o")"
expect_exit 0 "$P" compare "$D/cmp-nan-verdict-worse.json" "$D/cmp-nan-verdict-worse.json" --format json
grep -q '"verdict": null' "$T/o" || fail "json verdict should be null"
! grep -q '"verdict": "worse"' "$T/o" || fail "json: NaN judged worse"
expect_exit 0 "$P" compare "$D/cmp-nan-verdict-worse.json" "$D/cmp-nan-verdict-worse.json"
grep -q '^ .* b  *n/a  *n/a  *(no usable values)  *n/a  n/a$' "$T/o" || fail "table: $(grep -A1 '^m ' "$T/o")"
ok "compare: a metric without usable values gets no verdict; csv has no nan"
