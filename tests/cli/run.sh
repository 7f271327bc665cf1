#!/bin/sh
# End-to-end checks of `pmlab run` and friends: output contract, determinism,
# exit statuses, and the direction of the example's effects.
. tests/lib.sh
S=scenarios/example-rr.ini

# Table, JSON and CSV of the quick example.
"$P" run "$S" --quick --quiet >"$T/table.txt" || fail "table run"
grep -q '^metric' "$T/table.txt" || fail "table has no metric header"
for m in throughput_rps lat_p99_us pkg_watts busy_pct; do
    grep -q "^$m " "$T/table.txt" || fail "table lacks $m"
done
grep -q '^turbostat view' "$T/table.txt" || fail "table lacks turbostat view"
grep -q '^QUICK RUN: .*for smoke tests, not for decisions$' "$T/table.txt" || fail "quick run without its banner"
ok "table"

"$P" run "$S" --quick --quiet --format json --jobs 1 >"$T/j1.json" || fail "json run"
"$P" run "$S" --quick --quiet --format json --jobs 2 >"$T/j2.json" || fail "json run jobs 2"
"$P" run "$S" --quick --quiet --format json --jobs 2 >"$T/j3.json" || fail "json run again"
cmp -s "$T/j1.json" "$T/j2.json" || fail "--jobs 1 and --jobs 2 differ"
cmp -s "$T/j2.json" "$T/j3.json" || fail "two runs with the same seed differ"
ok "byte-identical across --jobs and repeated runs"

for key in '"pmlab": "' '"scenario": "example-rr"' '"machine": "skx-2s"' '"seed": 42' '"reps": 3' \
           '"variants": \[' '"comparisons": \[' '"ci95": \[' '"values": \[' '"delta_pct": ' \
           '"ci95_pct": \[' '"p_value": ' '"verdict": "' '"residency.C1": {' '"residency.C6": {' '"above_pct": {' '"core_residency.C6": {' '"pkg_residency.PC6": {' '"poll_pct": {' \
           '"avg_mhz": {' '"core_watts": {' '"kernel": "6.12"' '"cmdline": "idle=poll"'; do
    grep -q "$key" "$T/j1.json" || fail "json lacks $key"
done
ok "json schema keys"

# One replication: means, but no interval, p-value or verdict (n/a, with a
# note), in every format.
"$P" run "$S" --quick --quiet --reps 1 --variant base --variant menu >"$T/r1.txt" || fail "--reps 1 run"
grep -q '^throughput_rps .* ± n/a (1) .* menu .* ± n/a (1) .* n/a (1) .*n/a *n/a  n/a$' "$T/r1.txt" ||
    fail "--reps 1: a row with an interval or a verdict: $(grep '^throughput_rps' "$T/r1.txt")"
grep -Eq ' (better|worse|noise|higher|lower)$' "$T/r1.txt" && fail "--reps 1 gave a verdict"
grep -q '^n/a: fewer than 2 replications' "$T/r1.txt" || fail "--reps 1: no note"
"$P" run "$S" --quick --quiet --reps 1 --variant base --variant menu --format json >"$T/r1.json"
grep -q '"verdict": "n/a"' "$T/r1.json" && ! grep -q '"verdict": "\(better\|worse\|noise\)"' "$T/r1.json" ||
    fail "--reps 1: json verdicts"
grep -q '"ci95": null' "$T/r1.json" || fail "--reps 1: json intervals are not null"
ok "--reps 1: no interval, p-value or verdict"

# Quick warm-ups are at least the start-up transient MSER-5 finds (no "raise
# warmup_ms" warning): juno-rr's teo and example-rr's base at 2 replications
# drew it with 50 and 10 ms (scenarios' [quick] comments; amd-genoa-rr in
# tests/scenarios/amd-genoa.sh). Cheap: juno's 6 cores, one variant of example-rr.
"$P" run scenarios/juno-rr.ini --quick --quiet --format csv >/dev/null 2>"$T/w.err" || fail "juno-rr quick"
"$P" run "$S" --quick --quiet --reps 2 --variant base --format csv >/dev/null 2>>"$T/w.err" ||
    fail "example-rr quick --reps 2"
! grep -q 'raise warmup_ms' "$T/w.err" || fail "quick warm-up too short: $(cat "$T/w.err")"
ok "quick warm-ups cover the start-up transient (juno-rr, example-rr at 2 replications)"

# The primary metric: rr's headline is its p99 latency, first in the table;
# --primary chooses another; a metric the run lacks is bad input (exit 2).
grep -q '"primary": "lat_p99_us"' "$T/j1.json" || fail "json: rr's primary is not lat_p99_us"
"$P" run "$S" --quick --quiet --variant base --reps 2 >"$T/prim.txt" || fail "table run"
grep -q '^primary metric: lat_p99_us' "$T/prim.txt" || fail "table header lacks the primary metric"
[ "$(sed -n '/^metric /{n;p;q}' "$T/prim.txt" | cut -d' ' -f1)" = lat_p99_us ] ||
    fail "the primary metric is not the table's first row"
"$P" run "$S" --quick --quiet --variant base --reps 2 --primary throughput_rps --format json |
    grep -q '"primary": "throughput_rps"' || fail "--primary throughput_rps not reported"
set +e
"$P" run "$S" --quick --quiet --variant base --reps 2 --primary nosuch >/dev/null 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] &&
    grep -q "primary: the rr workload reports no metric 'nosuch' (its headline is lat_p99_us)" "$T/e" ||
    fail "--primary nosuch: exit $rc: $(cat "$T/e")"
ok "primary metric: the workload's headline, or --primary"

"$P" run "$S" --quick --quiet --format json --seed 7 --reps 2 >"$T/s7.json" || fail "seed run"
grep -q '"seed": 7' "$T/s7.json" || fail "--seed not reported"
grep -q '"reps": 2' "$T/s7.json" || fail "--reps not reported"
cmp -s "$T/s7.json" "$T/j1.json" && fail "a different seed gave the same output"
ok "--seed and --reps override the scenario"

"$P" run "$S" --quick --quiet --format csv >"$T/out.csv" || fail "csv run"
head -1 "$T/out.csv" | grep -q '^scenario,machine,variant,metric,unit,n,mean,stddev,ci95_lo,ci95_hi,delta_pct' ||
    fail "csv header"
[ "$(grep -c '^example-rr,skx-2s,idle-poll,' "$T/out.csv")" -ge 10 ] || fail "csv rows"
ok "csv"

# One variant alone reproduces its numbers from the full run (per-run streams).
"$P" run "$S" --quick --quiet --format csv --variant idle-poll >"$T/alone.csv" || fail "--variant run"
grep '^example-rr,skx-2s,idle-poll,' "$T/out.csv" | cut -d, -f1-10 >"$T/full-ip"
grep '^example-rr,skx-2s,idle-poll,' "$T/alone.csv" | cut -d, -f1-10 >"$T/alone-ip"
[ -s "$T/alone-ip" ] && cmp -s "$T/full-ip" "$T/alone-ip" || fail "--variant idle-poll differs from the full run"
ok "a variant run alone reproduces the full run"

# Direction of effects: idle=poll keeps cores in C0 (more power, ~100 % busy);
# cpuidle.off=1 (HLT, C1 only) costs power against menu's C1E; naming the
# default governor explicitly changes nothing (noise).
verdict() { # variant metric -> verdict from the CSV
    awk -F, -v v="$1" -v m="$2" '$3 == v && $4 == m { print $15 }' "$T/out.csv"
}
[ "$(verdict idle-poll pkg_watts)" = worse ] || fail "idle=poll should cost power: $(verdict idle-poll pkg_watts)"
[ "$(verdict idle-poll poll_pct)" = higher ] || fail "idle=poll should raise poll_pct"
[ "$(verdict nocpuidle pkg_watts)" = worse ] || fail "cpuidle.off=1 should cost power: $(verdict nocpuidle pkg_watts)"
[ "$(verdict menu lat_p99_us)" = noise ] || fail "cpuidle.governor=menu is the default: should be noise"
[ "$(verdict menu throughput_rps)" = noise ] || fail "cpuidle.governor=menu throughput should be noise"
[ "$(verdict menu pkg_watts)" = noise ] || fail "cpuidle.governor=menu power should be noise"
ok "effect directions"

# Exit statuses and messages.
set +e
"$P" run tests/data/scenarios/bad-unknown-knob.ini --quiet >"$T/o" 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad scenario: exit $rc, want 2"
[ "$(wc -l <"$T/e")" -eq 1 ] || fail "bad scenario: want one line on stderr"
grep -q '^tests/data/scenarios/bad-unknown-knob.ini:8: unknown kernel parameter' "$T/e" || fail "bad scenario message"
[ ! -s "$T/o" ] || fail "bad scenario printed a report"
ok "bad scenario: exit 2, one FILE:LINE line"

expect_exit() { # status, then the command
    want=$1; shift
    set +e; "$@" >/dev/null 2>"$T/e"; rc=$?; set -e
    [ $rc -eq "$want" ] || fail "'$*': exit $rc, want $want ($(cat "$T/e"))"
}
expect_exit 2 "$P" run tests/data/scenarios/no-such-file.ini
expect_exit 2 "$P" run "$S" --format xml
expect_exit 2 "$P" run "$S" --reps 0
expect_exit 2 "$P" run "$S" --jobs x
expect_exit 2 "$P" run
expect_exit 2 "$P" frobnicate
expect_exit 2 "$P" run "$S" --output /nonexistent-dir/out.txt
expect_exit 2 "$P" run "$S" --variant nosuch
# [report] min_effect_CLASS_pct: a percentage >= 0 and < 100 of a known class.
expect_exit 2 "$P" run "$S" --set report.min_effect_power_pct=-1
grep -q '^--set report.min_effect_power_pct=-1: min_effect_power_pct: expected a percentage' "$T/e" ||
    fail "min_effect message: $(cat "$T/e")"
expect_exit 2 "$P" run "$S" --set report.min_effect_speed_pct=1
grep -q "unknown key 'min_effect_speed_pct' in \[report\] (cpus, min_effect_power_pct," "$T/e" ||
    fail "min_effect class message: $(cat "$T/e")"
expect_exit 1 "$P" run tests/data/scenarios/overload.ini --quiet
grep -q 'variant a, replication 0, load point 0: overloaded' "$T/e" || fail "overload message: $(cat "$T/e")"
expect_exit 0 "$P" run tests/data/scenarios/warn-old-kernel.ini --quiet
grep -q "warn-old-kernel.ini:12: warning: intel_idle.ibrs_off: not in kernel 6.6 (added in 6.7); the kernel logs \"intel_idle: unknown parameter 'ibrs_off' ignored\"" "$T/e" ||
    fail "old-kernel warning: $(cat "$T/e")"
[ "$(grep -c warning "$T/e")" -eq 1 ] || fail "only the 6.6 variant should warn"
expect_exit 0 "$P" run --help
expect_exit 0 "$P" --help
ok "exit statuses"

# Saturation: an open-loop variant that serves far less than it is offered
# is marked in every format and the run exits 1 with one line naming it.
SAT=tests/data/scenarios/saturated.ini
set +e
"$P" run "$SAT" --quiet >"$T/sat.txt" 2>"$T/e"; rc=$?
set -e
[ $rc -eq 1 ] || fail "saturated run: exit $rc, want 1"
[ "$(wc -l <"$T/e")" -eq 1 ] &&
    grep -q '^pmlab run: variant slow is saturated: offered [0-9]* req/s, served [0-9]* req/s$' "$T/e" ||
    fail "saturation message: $(cat "$T/e")"
offered=$(sed 's/.*offered \([0-9]*\) .*/\1/' "$T/e")
served=$(sed 's/.*served \([0-9]*\) .*/\1/' "$T/e")
[ "$served" -lt "$((offered / 2))" ] || fail "slow served $served of $offered: not saturated"
grep -A1 '^variant slow ' "$T/sat.txt" | grep -q '^  SATURATED: served ' || fail "table lacks the mark"
grep -A1 '^variant base ' "$T/sat.txt" | grep -q SATURATED && fail "base marked saturated"
set +e
"$P" run "$SAT" --quiet --format json >"$T/sat.json" 2>/dev/null
"$P" run "$SAT" --quiet --format csv >"$T/sat.csv" 2>/dev/null
set -e
grep -q '"open_loop": {' "$T/sat.json" || fail "json lacks open_loop"
[ "$(grep -c '"saturated": true' "$T/sat.json")" -eq 1 ] && [ "$(grep -c '"saturated": false' "$T/sat.json")" -eq 1 ] ||
    fail "json saturated flags"
head -1 "$T/sat.csv" | grep -q ',saturated,effect_class,min_effect_pct,p_min$' || fail "csv header lacks saturated (then effect_class, min_effect_pct, p_min)"
awk -F, 'NR > 1 { s[$3] = $23 } END { exit !(s["slow"] == "yes" && s["base"] == "no") }' "$T/sat.csv" ||
    fail "csv saturated column"
# The example at half load is not saturated.
grep -q SATURATED "$T/prim.txt" && fail "the example is marked saturated"
grep -q '^QUICK RUN' "$T/sat.txt" && fail "a run without --quick has the quick banner"
ok "saturated open-loop variant: marked in every format, exit 1 with one line"

# Steady state: measuring from time 0 includes the start-up transient, which
# MSER-5 finds: a warning in the table, in JSON and on stderr, exit 0; with
# a warm-up past it there is none.
W=tests/data/scenarios/warmup-short.ini
"$P" run "$W" --quiet >"$T/wu.txt" 2>"$T/e" || fail "warm-up run failed"
[ "$(wc -l <"$T/e")" -eq 1 ] &&
    grep -q '^pmlab run: warning: variant base: the start-up transient lasts about [0-9]* ms (MSER-5), longer than the 0 ms warm-up; raise warmup_ms$' "$T/e" ||
    fail "warm-up warning: $(cat "$T/e")"
grep -q '^  WARM-UP TOO SHORT: MSER-5 puts the end' "$T/wu.txt" || fail "table lacks the warm-up mark"
"$P" run "$W" --quiet --format json 2>/dev/null | grep -q '"short": true' || fail "json lacks warmup short"
sed 's/^warmup_ms = 0$/warmup_ms = 20/' "$W" >"$T/wu20.ini"
"$P" run "$T/wu20.ini" --quiet --format json >"$T/wu20.json" 2>"$T/e" || fail "warm-up 20 run"
[ ! -s "$T/e" ] && grep -q '"short": false' "$T/wu20.json" || fail "a 20 ms warm-up still warned: $(cat "$T/e")"
ok "steady state: MSER-5 warns when the warm-up is shorter than the transient"

"$P" machines >"$T/m" || fail "machines"
for m in skx-2s adl-desktop rpl-h; do grep -q "^$m " "$T/m" || fail "machines lacks $m"; done
grep -q '^skx-2s *112 CPUs' "$T/m" || fail "skx-2s should have 112 CPUs"
# $PMLAB_MACHINES is colon-separated: each directory listed, a name once
# (the first directory's, as a scenario finds it).
mkdir "$T/ma" "$T/mb"
cp machines/skx-2s.ini "$T/ma/"
sed 's/^description = .*/description = from mb/' machines/skx-2s.ini >"$T/mb/skx-2s.ini"
cp machines/juno-r0.ini "$T/mb/"
PMLAB_MACHINES="$T/ma:$T/mb" "$P" machines >"$T/m2" 2>"$T/e" || fail "machines, two dirs: $(cat "$T/e")"
[ "$(wc -l <"$T/m2")" -eq 2 ] && grep -q '^juno-r0 ' "$T/m2" && ! grep -q 'from mb' "$T/m2" ||
    fail "machines, PMLAB_MACHINES=A:B: $(cat "$T/m2")"
"$P" params >"$T/p" || fail "params"
for k in cpuidle.governor cpuidle.off idle CONFIG_HZ cpu_dma_latency pm_qos_resume_latency_us \
         cpuidle.state_disable; do
    grep -q "^$k" "$T/p" || fail "params lacks $k"
done
ok "machines and params"

# A run estimated past an hour says so once its first runs are done (issue
# 27 item 12), even with --quiet and no terminal; Ctrl-C then leaves nothing.
"$P" run "$S" --reps 1000 --quiet --set workload.duration_ms=1500 >"$T/long.out" 2>"$T/long.err" &
pid=$!
i=0
# The warning waits for the first runs, whose wall time depends on the
# machine's load (ASan, shared CI cores): wait up to 10 min, but fail at once
# if the run has ended without it.
until grep -q 'warning' "$T/long.err"; do
    kill -0 $pid 2>/dev/null || fail "long run ended without a warning: $(cat "$T/long.err")"
    i=$((i + 1)); [ $i -lt 6000 ] || { kill $pid; fail "no long-run warning in 600 s"; }
    sleep 0.1
done
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ $rc -eq 143 ] || fail "long run: SIGTERM exit $rc"
grep -q "^pmlab run: warning: example-rr: at [0-9.]* s a run, the [0-9]* runs left will take about [0-9.]* \(h\|min\|days\) more on [0-9]* threads" "$T/long.err" ||
    fail "long-run warning: $(cat "$T/long.err")"
[ "$(grep -c warning "$T/long.err")" -eq 1 ] || fail "long-run warning said more than once"
ok "an estimate over an hour: one warning, even with --quiet"
