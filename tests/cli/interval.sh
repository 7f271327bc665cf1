#!/bin/sh
# --interval MS: turbostat --interval's samples over simulated time (series
# interval in JSON, a table, a time plot). The samples split the window:
# their means are the window's metrics; and sampling changes nothing the
# model does (but the last bits of a sum of energy).
. tests/lib.sh
S=scenarios/kvm-haltpoll-fio.ini   # quick: a 300 ms window
"$P" run "$S" --quick --reps 2 --interval 20 --quiet --format json --output "$T/i.json" ||
    fail "--interval run"
"$P" run "$S" --quick --reps 2 --quiet --format json --output "$T/n.json" || fail "plain run"
python3 - "$T/i.json" "$T/n.json" <<'PY' || fail "interval samples disagree with the window's metrics"
import json, sys
d, plain = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
for v, pv in zip(d["variants"], plain["variants"]):
    # Sampling is between events: every metric as without it (energy is
    # summed in more pieces: the last bits of pkg_watts may differ).
    for k, m in pv["metrics"].items():
        for a, b in zip(v["metrics"][k]["values"], m["values"]):
            if abs(a - b) > 1e-12 * max(1.0, abs(b)):
                bad.append(f"{v['name']} {k}: {a} with --interval, {b} without")
    sr = v["series"]["interval"]
    cols = sr["columns"]
    for r, rows in enumerate(sr["replications"]):
        if [row[0] for row in rows] != [20.0 * (i + 1) for i in range(15)]:
            bad.append(f"{v['name']} rep {r}: times {[row[0] for row in rows]}")
            continue
        for col, metric in (("busy_pct", "busy_pct"), ("pkg_watts", "pkg_watts"),
                            ("residency.C6", "residency.C6")):
            got = sum(row[cols.index(col)] for row in rows) / len(rows)
            want = v["metrics"][metric]["values"][r]
            if abs(got - want) > 1e-6 * max(1.0, abs(want)):
                bad.append(f"{v['name']} rep {r} {col}: mean of samples {got}, window {want}")
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
"$P" run "$S" --quick --reps 2 --interval 100 --quiet >"$T/t.txt" || fail "--interval table"
grep -q '^turbostat --interval' "$T/t.txt" || fail "no interval table"
[ "$(sed -n '/^turbostat --interval/,/^$/p' "$T/t.txt" | grep -c '^nopoll ')" -eq 3 ] ||
    fail "interval table: not 3 rows for nopoll"
rc=0
"$P" run "$S" --quick --reps 1 --interval 0 --quiet >/dev/null 2>"$T/err" || rc=$?
[ $rc -eq 2 ] && grep -q -- '--interval' "$T/err" || fail "--interval 0: exit $rc"
ok "--interval: 15 samples of 20 ms average to the window's metrics, which sampling leaves unchanged"
