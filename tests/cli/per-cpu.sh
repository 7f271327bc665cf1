#!/bin/sh
# --per-cpu: turbostat's per-CPU rows and, on a hybrid, per-core-type rows,
# in the table and as series in JSON; they add up to the host-wide numbers.
. tests/lib.sh
S=scenarios/kvm-haltpoll-fio.ini   # adl-desktop: 16 P threads, 8 E cores
"$P" run "$S" --quick --reps 2 --per-cpu --quiet --format json --output "$T/r.json" ||
    fail "--per-cpu run"
"$P" run "$S" --quick --reps 2 --per-cpu --quiet >"$T/r.txt" || fail "--per-cpu table"
grep -q '^turbostat view per core type' "$T/r.txt" || fail "no per-type view in the table"
grep -q '^turbostat view per CPU' "$T/r.txt" || fail "no per-CPU view in the table"
[ "$(sed -n '/^turbostat view per CPU/,/^$/p' "$T/r.txt" | grep -c '^polling ')" -eq 24 ] ||
    fail "per-CPU view: not 24 rows for variant polling"
python3 - "$T/r.json" <<'PY' || fail "per-CPU and per-type series disagree with the host-wide metrics"
import json, sys
d = json.load(open(sys.argv[1]))
bad = 0
for v in d["variants"]:
    s = v["series"]
    host = v["metrics"]["busy_pct"]["values"]
    for r, rows in enumerate(s["per_cpu"]["replications"]):
        assert len(rows) == 24, len(rows)
        per_cpu = sum(row[1] for row in rows) / len(rows)
        types = [s[k]["replications"][r][0] for k in ("per_type.P", "per_type.E")]
        per_type = sum(t[0] * t[1] for t in types) / sum(t[0] for t in types)
        for name, got in (("per_cpu", per_cpu), ("per_type", per_type)):
            if abs(got - host[r]) > 1e-6 * max(1, host[r]):
                print(f"{v['name']} rep {r}: {name} busy {got} != host {host[r]}")
                bad += 1
sys.exit(1 if bad else 0)
PY
# CSV: the views as rows VIEW.ROW.COLUMN after the metrics, every row as
# wide as the header.
"$P" run "$S" --quick --reps 2 --per-cpu --interval 100 --quiet --format csv >"$T/r.csv" ||
    fail "--per-cpu csv"
python3 - "$T/r.csv" "$T/r.json" <<'PY' || fail "CSV views"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
head = rows[0]
bad = [r for r in rows if len(r) != len(head)]
assert not bad, f"{len(bad)} rows not {len(head)} fields wide: {bad[0]}"
got = {(r[2], r[3]): float(r[6]) for r in rows[1:]}
for v in d["variants"]:
    s = v["series"]
    reps = s["per_cpu"]["replications"]
    want = sum(rep[5][1] for rep in reps) / len(reps)
    assert abs(got[(v["name"], "per_cpu.cpu5.busy_pct")] - want) < 1e-6 * max(1, want), v["name"]
    reps = s["per_type.E"]["replications"]
    want = sum(rep[0][2] for rep in reps) / len(reps)
    assert abs(got[(v["name"], "per_type.E.bzy_mhz")] - want) < 1e-6 * want, v["name"]
    assert (v["name"], "interval.300ms.pkg_watts") in got, v["name"]
PY
"$P" run "$S" --quick --reps 2 --quiet --format json | grep -q '"per_cpu"' &&
    fail "per_cpu series without --per-cpu"
ok "--per-cpu: 24 CPU rows, P/E rows, both average to the host-wide Busy%; CSV rows match JSON"
