#!/bin/sh
# End-to-end checks of `pmlab compare`: two saved JSON results against each
# other, the same statistics and verdicts as `pmlab run`, exit 2 on bad input.
. tests/lib.sh
S=scenarios/example-rr.ini

"$P" run "$S" --quick --quiet --reps 2 --format json >"$T/a.json" || fail "run a"
"$P" run "$S" --quick --quiet --reps 2 --seed 7 --format json >"$T/b.json" || fail "run b"
"$P" run "$S" --quick --quiet --reps 2 --variant base --format json >"$T/base.json" || fail "run base"

# Same scenario, other seed: clean comparison, the colliding name prefixed.
"$P" compare "$T/a.json" "$T/b.json" >"$T/ab.txt" || fail "compare a b"
grep -q '^metric .*delta .*95% CI of delta .*verdict' "$T/ab.txt" || fail "table lacks verdict columns"
grep -q '^throughput_rps .* B:base .*\(noise\|negligible\|better\|worse\)$' "$T/ab.txt" || fail "no B:base verdict row"
grep -q '^variant A:base ' "$T/ab.txt" || fail "baseline not shown as A:base"
"$P" compare "$T/a.json" "$T/b.json" --format csv >"$T/ab.csv" || fail "compare csv"
head -1 "$T/ab.csv" | grep -q ',delta_pct,.*,verdict,test,delta,.*,p_adjusted,delta_unit,delta_shown,saturated,effect_class,min_effect_pct,p_min$' || fail "csv header"
[ "$(grep -c '^example-rr,skx-2s,idle-poll,' "$T/ab.csv")" -ge 10 ] || fail "csv lacks B's idle-poll"
ok "two seeds of one scenario compare cleanly"

# The practical thresholds are A's, as its run recorded them: a throughput
# threshold of 50 % reaches every throughput comparison.
grep -q '"throughput_pct": 0.5,' "$T/a.json" || fail "a.json lacks its min_effect"
sed 's/"throughput_pct": 0.5,/"throughput_pct": 50.0,/' "$T/a.json" >"$T/a50.json"
"$P" compare "$T/a50.json" "$T/b.json" --format csv >"$T/ab50.csv" || fail "compare a50"
awk -F, '$4 == "throughput_rps" && $24 != "" { n++; if ($24 != "throughput" || $25 != 50) bad++ }
    END { exit !(n > 0 && bad == 0) }' "$T/ab50.csv" || fail "A's min_effect not used"
"$P" compare "$T/a50.json" "$T/b.json" | grep -q '^verdicts: .* at least 0.5 % (power), 50 % (throughput), 2 % (latency)' ||
    fail "table does not state the thresholds"
ok "compare judges with A's recorded thresholds"

# A file against itself: every comparison of B's base is delta 0, noise; the
# rebuilt statistics and verdicts are the ones `pmlab run` wrote.
"$P" compare "$T/base.json" "$T/base.json" --format csv >"$T/self.csv" || fail "compare self"
awk -F, 'NR > 1 && $3 == "B:base" { n++; if ($11 != 0 || $15 != "noise") bad++ }
         END { exit !(n >= 10 && bad == 0) }' "$T/self.csv" || fail "self comparison not 0 / noise"
"$P" compare "$T/a.json" "$T/a.json" --format json >"$T/aa.json" || fail "compare a a json"
grep -A7 '"variant": "menu"' "$T/a.json" | grep -v '"base"' >"$T/run-menu"
grep -A7 '"variant": "menu"' "$T/aa.json" | grep -v '"base"' >"$T/cmp-menu"
[ -s "$T/run-menu" ] && cmp -s "$T/run-menu" "$T/cmp-menu" || fail "compare's menu comparisons differ from run's"
ok "a file against itself: delta 0, noise; run's verdicts reproduced"

expect_exit() { # status, then the command
    want=$1; shift
    set +e; "$@" >"$T/o" 2>"$T/e"; rc=$?; set -e
    [ $rc -eq "$want" ] || fail "'$*': exit $rc, want $want ($(cat "$T/e"))"
    [ "$want" -ne 2 ] || [ "$(wc -l <"$T/e")" -eq 1 ] || fail "'$*': want one line on stderr"
}
sed 's/"scenario": "example-rr"/"scenario": "ibrs-off"/' "$T/a.json" >"$T/other.json"
expect_exit 2 "$P" compare "$T/other.json" "$T/a.json"
grep -q "other.json is scenario ibrs-off on skx-2s, .*a.json is example-rr on skx-2s" "$T/e" ||
    fail "mismatch message: $(cat "$T/e")"
sed 's/"machine": "skx-2s"/"machine": "rpl-h"/' "$T/a.json" >"$T/mach.json"
expect_exit 2 "$P" compare "$T/a.json" "$T/mach.json"
grep -q "is example-rr on rpl-h" "$T/e" || fail "machine mismatch message: $(cat "$T/e")"
sed 's/^        "\([a-z_.A-Z0-9]*": {\)$/        "x_\1/' "$T/a.json" >"$T/renamed.json"
expect_exit 2 "$P" compare "$T/a.json" "$T/renamed.json"
grep -q 'no metric in common' "$T/e" || fail "no-common-metric message: $(cat "$T/e")"
echo '{"pmlab": 1}' >"$T/nonpm.json"
expect_exit 2 "$P" compare "$T/a.json" "$T/nonpm.json"
expect_exit 2 "$P" compare "$T/a.json" "$S"
expect_exit 2 "$P" compare "$T/a.json" "$T/missing.json"
grep -q 'missing.json: No such file' "$T/e" || fail "missing-file message: $(cat "$T/e")"
expect_exit 2 "$P" compare "$T/a.json"
expect_exit 2 "$P" compare "$T/a.json" "$T/a.json" --format xml
expect_exit 0 "$P" compare --help
ok "bad input: exit 2, one line"

# Every JSON records what was run (issue 27 item 7): the shared configuration's
# text and hash, the overrides and the commit; compare refuses runs whose
# shared configuration differs and pairs those that differ only in variants.
grep -q '"configuration": {' "$T/a.json" && grep -q '"sha256": "[0-9a-f]\{64\}"' "$T/a.json" &&
    grep -q '"text": ".*workload.load = 0.5' "$T/a.json" && grep -q '"commit": "' "$T/a.json" ||
    fail "a.json lacks its configuration"
"$P" run "$S" --quick --quiet --reps 2 --set workload.load=0.6 --format json >"$T/load.json" ||
    fail "run --set"
grep -q '"overrides": \[$' "$T/load.json" && grep -q '"workload.load=0.6"' "$T/load.json" &&
    grep -q '"text": ".*workload.load = 0.6' "$T/load.json" || fail "load.json: override not recorded"
expect_exit 2 "$P" compare "$T/a.json" "$T/load.json"
grep -q "different configurations (only the variants may differ): .*a.json has 'workload.load = 0.5', .*load.json has 'workload.load = 0.6'" "$T/e" ||
    fail "different configurations: $(cat "$T/e")"
# A variant-only override is the variant under test: paired, and shown.
"$P" run "$S" --quick --quiet --reps 2 --variant menu --set 'variant.menu.cmdline=cpuidle.governor=teo' \
    --format json >"$T/var.json" || fail "run --set variant"
"$P" compare "$T/a.json" "$T/var.json" >"$T/av.txt" || fail "compare variant-only override"
grep -q '^deltas: paired t' "$T/av.txt" || fail "variant-only override not paired"
grep -qx 'overrides --set variant.menu.cmdline=cpuidle.governor=teo' "$T/av.txt" || fail "compare: no overrides line"
"$P" run "$S" --quick --quiet --reps 2 --set workload.load=0.6 >"$T/load.txt" || fail "run --set table"
grep -qx 'overrides --set workload.load=0.6' "$T/load.txt" || fail "run table: no overrides line"
! grep -q '^overrides' "$T/ab.txt" || fail "overrides line without --set"
# A file from an older pmlab (no configuration) is not paired; another
# commit neither.
python3 - "$T/a.json" "$T/old.json" "$T/commit.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d.pop("configuration")
json.dump(d, open(sys.argv[2], "w"), indent=2)
d["configuration"] = dict(c, commit="0" * 40)
json.dump(d, open(sys.argv[3], "w"), indent=2)
PY
"$P" compare "$T/old.json" "$T/a.json" --format json | grep -q '"unpaired": "a file records no configuration' ||
    fail "old file paired"
"$P" compare "$T/commit.json" "$T/a.json" --format json | grep -q '"unpaired": "the files come from different pmlab commits"' ||
    fail "other commit paired"
ok "configuration recorded; compare refuses other settings, pairs variant-only changes"
