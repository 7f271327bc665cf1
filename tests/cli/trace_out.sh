#!/bin/sh
# pmlab run --trace: the simulated machine's trace as a trace-cmd trace.dat.
# trace-cmd report (Debian's trace-cmd, scripts/deps.sh) reads it and counts
# the events per type pmlab says it wrote; pmlab trace stats on it gives the
# run's idle residency for the window; --trace-window and --trace-max-mib
# bound it; a bad --trace is exit 2.
. tests/lib.sh

command -v trace-cmd >/dev/null || fail "trace-cmd is not installed (sh scripts/deps.sh)"
"$P" run scenarios/example-rr.ini --quick --reps 1 --variant menu --trace "$T/tr" \
    --format json -o "$T/run.json" 2>"$T/e" || fail "run --trace: $(cat "$T/e")"
[ -s "$T/tr/menu.dat" ] || fail "no $T/tr/menu.dat"
line=$(grep 'pmlab run: trace ' "$T/e") || fail "no trace line: $(cat "$T/e")"
trace-cmd report -i "$T/tr/menu.dat" >"$T/report" 2>"$T/rerr" || fail "trace-cmd report: $(cat "$T/rerr")"
for ev in cpu_idle cpu_frequency sched_switch sched_wakeup sched_wakeup_new; do
    said=$(echo "$line" | sed -n "s/.*[(,] *$ev \([0-9]*\).*/\1/p")
    got=$(awk -v e="$ev:" '{ for (i = 1; i <= NF; i++) if ($i == e) { n++; break } } END { print n + 0 }' "$T/report")
    [ -n "$said" ] && [ "$said" -gt 0 ] && [ "$said" -eq "$got" ] ||
        fail "$ev: pmlab says ${said:-?}, trace-cmd report shows $got"
done
ok "run --trace: trace-cmd report reads it, event counts as pmlab says"

# Round trip: each state's share of the CPUs' time in the trace is the run's
# residency (the periods still open at the end are not closed in a trace:
# within 1 point).
"$P" trace stats "$T/tr/menu.dat" --format json >"$T/stats.json" 2>"$T/e" || fail "trace stats: $(cat "$T/e")"
python3 - "$T/stats.json" "$T/run.json" <<'PY' || fail "trace stats residency differs from the run's"
import json, sys
st = json.load(open(sys.argv[1])); run = json.load(open(sys.argv[2]))
m = run["variants"][0]["metrics"]
names = [k[len("residency."):] for k in m if k.startswith("residency.")]
tot = {}
for c in st["cpus"]:
    for s in c["states"]:
        tot[s["state"]] = tot.get(s["state"], 0) + s["total_ms"]
cap = st["ncpus"] * st["span_ms"]
for i, n in enumerate(names):
    got = 100 * tot.get(i, 0) / cap
    want = m["residency." + n]["mean"]
    print("%s: trace %.3f %%, run %.3f %%" % (n, got, want))
    if abs(got - want) > 1.0:
        sys.exit(1)
PY
ok "trace stats on the trace: the run's idle residency per state"

# A window of 5 ms from 10 ms: only events in it; a 1 MiB cap stops early and says so.
"$P" run scenarios/example-rr.ini --quick --reps 1 --variant menu --trace "$T/w" \
    --trace-window 10:15 --quiet >/dev/null 2>"$T/e" || fail "run --trace-window: $(cat "$T/e")"
trace-cmd report -i "$T/w/menu.dat" 2>/dev/null | awk '$3 ~ /^[0-9.]+:$/ { t = $3 + 0; if (!f) f = t; l = t } END { exit !(l - f <= 0.005 + 1e-9 && l > f) }' ||
    fail "--trace-window 10:15: events outside a 5 ms window"
"$P" run scenarios/example-rr.ini --quick --reps 1 --variant menu --trace "$T/c" \
    --trace-max-mib 1 --quiet >/dev/null 2>"$T/e" || fail "run --trace-max-mib: $(cat "$T/e")"
grep -q 'menu.dat: stopped at .* the 1 MiB limit (--trace-max-mib, \[report\] trace_max_mib)' "$T/e" || fail "no limit message: $(cat "$T/e")"
[ "$(wc -c <"$T/c/menu.dat")" -le $((1048576 + 65536)) ] || fail "--trace-max-mib 1 wrote $(wc -c <"$T/c/menu.dat") bytes"
trace-cmd report -i "$T/c/menu.dat" >/dev/null 2>&1 || fail "a capped trace does not read"
ok "--trace-window keeps its window, --trace-max-mib stops and says so"

touch "$T/file"
"$P" run scenarios/example-rr.ini --quick --reps 1 --trace "$T/file" >/dev/null 2>"$T/e" && fail "--trace onto a file accepted"
[ $? -eq 2 ] || true
grep -q 'not a directory' "$T/e" || fail "--trace onto a file: $(cat "$T/e")"
for bad in 5 5:5 x:3 -1:4; do
    "$P" run scenarios/example-rr.ini --quick --reps 1 --trace "$T/b" --trace-window "$bad" >/dev/null 2>"$T/e" &&
        fail "--trace-window $bad accepted"
    grep -q -- '--trace-window: expected START:END' "$T/e" || fail "--trace-window $bad: $(cat "$T/e")"
done
ok "bad --trace and --trace-window are errors"

# [report] trace, trace_window and trace_max_mib: what --trace and its
# options default to; the command line wins; a bad value is exit 2 at its
# line; the keys are not part of the configuration (compare still pairs).
sed 's/^\[scenario\]/[report]\ntrace = '"$(echo "$T/rep" | sed 's/[\/&]/\\&/g')"'\ntrace_window = 10:15\ntrace_max_mib = 64\n\n[scenario]/' \
    scenarios/example-rr.ini >"$T/rep.ini"
"$P" run "$T/rep.ini" --quick --reps 1 --variant menu --quiet --format json -o "$T/rep.json" 2>"$T/e" ||
    fail "[report] trace: $(cat "$T/e")"
[ -s "$T/rep/menu.dat" ] || fail "[report] trace: no $T/rep/menu.dat"
trace-cmd report -i "$T/rep/menu.dat" 2>/dev/null | awk '$3 ~ /^[0-9.]+:$/ { t = $3 + 0; if (!f) f = t; l = t } END { exit !(l - f <= 0.005 + 1e-9 && l > f) }' ||
    fail "[report] trace_window = 10:15: events outside a 5 ms window"
"$P" run "$T/rep.ini" --quick --reps 1 --variant menu --quiet --trace "$T/cl" --trace-window 0: \
    >/dev/null 2>"$T/e" || fail "--trace over [report] trace: $(cat "$T/e")"
[ -s "$T/cl/menu.dat" ] && [ "$(wc -c <"$T/cl/menu.dat")" -gt "$(wc -c <"$T/rep/menu.dat")" ] ||
    fail "--trace and --trace-window do not override [report]'s"
"$P" run scenarios/example-rr.ini --quick --reps 1 --variant menu --quiet --format json -o "$T/plain.json" 2>/dev/null ||
    fail "plain run"
python3 - "$T/rep.json" "$T/plain.json" <<'PY' || fail "[report] trace changed the recorded configuration"
import json, sys
a, b = (json.load(open(p))["configuration"]["sha256"] for p in sys.argv[1:])
sys.exit(a != b)
PY
printf '[report]\ntrace_window = 5\n' | cat - scenarios/example-rr.ini >"$T/bad.ini"
set +e; "$P" run "$T/bad.ini" --quick >/dev/null 2>"$T/e"; rc=$?; set -e
[ $rc -eq 2 ] && grep -q "bad.ini:2: .*trace_window: expected START:END" "$T/e" ||
    fail "bad [report] trace_window: exit $rc, $(cat "$T/e")"
ok "[report] trace keys: defaults for --trace, overridden by it, out of the configuration"
