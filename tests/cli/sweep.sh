#!/bin/sh
# --set, per-variant workload keys and `pmlab sweep` (issue 16).
. tests/lib.sh
export PMLAB_MACHINES="$PWD/machines"
case $P in /*) ;; *) P="$PWD/$P" ;; esac
cd "$T"
# A tiny scenario: a small machine, two variants, 20 ms windows.
S=tiny.ini
cat >$S <<'INI'
[scenario]
name = tiny
machine = rpl-h
seed = 3
replications = 2

[workload]
type = rr
load = 0.5
service_us = 50
warmup_ms = 10
duration_ms = 20

[quick]
replications = 2

[variant base]
kernel = 6.12

[variant menu]
kernel = 6.12
cmdline = cpuidle.governor=teo
INI
Q="--quick --quiet --reps 2 --format csv"

# --set with the file's own value changes nothing; another value does.
"$P" run "$S" $Q --variant base >"$T/base.csv" || fail "base run"
"$P" run "$S" $Q --variant base --set workload.load=0.5 >"$T/same.csv" || fail "--set same"
cmp -s "$T/base.csv" "$T/same.csv" || fail "--set workload.load=0.5 (the file's value) changed the output"
"$P" run "$S" $Q --variant base --set workload.load=0.2 >"$T/low.csv" || fail "--set load"
tp() { grep "^tiny,rpl-h,$2,throughput_rps," "$1" | cut -d, -f7; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < 0.6 * b) }'; }
less "$(tp "$T/low.csv" base)" "$(tp "$T/base.csv" base)" || fail "load 0.2 does not serve less than load 0.5"
ok "--set workload.load"

# A variant's own workload value, in the file or by --set, only moves that
# variant; the others keep their numbers.
{ cat "$S"; printf '\n[variant light]\nkernel = 6.12\nworkload.load = 0.2\n'; } >"$T/v.ini"
"$P" run "$T/v.ini" $Q --variant base --variant light >"$T/v.csv" || fail "variant workload run"
[ "$(tp "$T/v.csv" base)" = "$(tp "$T/base.csv" base)" ] || fail "base moved"
less "$(tp "$T/v.csv" light)" "$(tp "$T/base.csv" base)" || fail "[variant] workload.load = 0.2 ignored"
"$P" run "$S" $Q --variant base --variant menu >"$T/m0.csv" || fail "menu run"
"$P" run "$S" $Q --variant base --variant menu --set variant.menu.workload.load=0.2 >"$T/m.csv" ||
    fail "--set variant.menu.workload.load"
[ "$(tp "$T/m.csv" base)" = "$(tp "$T/m0.csv" base)" ] || fail "variant.menu.workload moved base"
less "$(tp "$T/m.csv" menu)" "$(tp "$T/m0.csv" menu)" || fail "variant.menu.workload.load=0.2 ignored"
ok "per-variant workload keys"

# Bad --set: exit 2, one line naming the option, did you mean.
bad() {
    set +e
    "$P" run "$S" --quick --quiet --set "$1" >/dev/null 2>"$T/e"; rc=$?
    set -e
    [ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q -- "$2" "$T/e" ||
        fail "--set $1: exit $rc: $(cat "$T/e")"
}
bad workload.lod=0.3 "^--set workload.lod=0.3: unknown key 'lod' for workload 'rr'; did you mean load?"
bad workloa.load=0.3 "unknown section 'workloa'; did you mean workload?"
bad variant.men.cmdline=x "no variant 'men'; did you mean menu?"
bad scenario.sed=3 "unknown key 'sed' in \[scenario\]; did you mean seed?"
bad variant.menu.kernl=6.1 "did you mean kernel?"
bad workload.load=7 "^--set workload.load=7: load: 7 out of range"
bad variant.menu.workload.type=fio "a variant cannot change the workload's type"
bad noequals "expected SECTION.KEY=VALUE"
ok "bad --set: exit 2 with the option named"

# --set machine.SECTION.KEY: the machine file's own value changes nothing,
# another one does (a deeper P-core C6 exit latency); either header spelling;
# a grid over it; bad keys and sections: exit 2 with did you mean.
"$P" run "$S" $Q --variant base --set machine.cstate.P.C6.exit_latency_us=170 >"$T/c6same.csv" ||
    fail "--set machine key (the file's value)"
cmp -s "$T/base.csv" "$T/c6same.csv" || fail "machine.cstate.P.C6.exit_latency_us=170 (the file's value) changed the output"
"$P" run "$S" $Q --variant base --set "machine.cstate P C6.exit_latency_us=20" >"$T/c6.csv" ||
    fail "--set machine key"
cmp -s "$T/base.csv" "$T/c6.csv" && fail "machine.cstate P C6.exit_latency_us=20 changed nothing"
bad machine.cstate.P.C6.exit_latncy_us=20 "^--set machine.cstate.P.C6.exit_latncy_us=20: \[cstate P C6\] has no key 'exit_latncy_us'; did you mean exit_latency_us?"
bad machine.cstat.P.C6.exit_latency_us=20 "has no section \[cstat P C6\]; did you mean \[cstate P C6\]?"
bad machine.cstate.P.C6.exit_latency_us=x "^--set machine.cstate.P.C6.exit_latency_us=x: exit_latency_us: 'x' is not a number"
bad machine.threads=1 "expected machine.SECTION.KEY=VALUE"
"$P" sweep "$S" --quick --quiet --reps 2 --jobs 2 --db c6.db \
    --grid machine.cstate.P.C6.exit_latency_us=170,20 >/dev/null || fail "sweep over a machine key"
"$P" export c6.db >c6.csv || fail "export c6.db"
grep -q "machine.cstate.P.C6.exit_latency_us" c6.csv || fail "the machine key is not in the export"
ok "--set machine.SECTION.KEY and a grid over it"

# pmlab sweep: a tiny grid, quick, short windows.
SW=$S
G="--quick --quiet --reps 2"
"$P" sweep "$SW" $G --grid workload.load=0.2,0.5 --db two.db --jobs 1 >two.txt || fail "sweep"
grep -q '^sweep tiny: 2 points x 2 variants, 2 replications' two.txt || fail "summary header: $(head -1 two.txt)"
# Each cell is "mean ± half-width", "mean [lo, hi]" (cut at the metric's
# range) or "mean constant" (equal replications: a p99 in one histogram bucket).
cell='[0-9.e+]+ (± [0-9.e+-]+|\[[^]]*\]|constant)'
grep -Eq "^1 +0.5 +menu +$cell +$cell" two.txt || fail "summary row for point 1 teo: $(grep '^1 ' two.txt)"
"$P" export two.db >two.csv || fail "export"
head -1 two.csv | grep -qx 'point,workload.load,variant,replication,metric,unit,value' || fail "export header: $(head -1 two.csv)"
grep -q '^1,0.5,menu,1,pkg_watts,W,[0-9]' two.csv || fail "export lacks a row"
[ "$(grep -c ',lat_p99_us,' two.csv)" -eq 8 ] || fail "not one row per point, variant, replication and metric"
"$P" export two.db --format jsonl | head -1 |
    grep -q '^{"point":0,"workload.load":"0.2","variant":"base","replication":0,"metric":"throughput_rps","unit":"req/s","value":[0-9]' ||
    fail "jsonl row: $("$P" export two.db --format jsonl | head -1)"
ok "sweep: summary, database, export csv and jsonl"

# The summary's intervals respect each metric's range, as a run's do: no
# share under 0 % or over 100 %, no negative time or rate (poll_pct sits
# near 0 with a spread that the t interval would take below it).
"$P" sweep "$SW" $G --grid workload.load=0.2,0.5 --db two.db --resume --format csv >sum.csv 2>/dev/null ||
    fail "sweep --resume --format csv"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
         { u = $col["unit"]; lo = $col["ci95_lo"]; hi = $col["ci95_hi"]
           if (lo == "" || lo == "nan") next
           if ((u == "%" && (lo + 0 < 0 || hi + 0 > 100)) || (u != "%" && lo + 0 < 0)) { print; bad = 1 } }
         END { exit bad }' sum.csv || fail "a summary interval leaves its metric's range"
grep -q ',poll_pct,%,' sum.csv || fail "no poll_pct rows in the summary"
ok "sweep summary: intervals cut to the metric's range"

# A point alone, in another grid or with other --jobs gives the same numbers:
# its streams are keyed by the point.
"$P" sweep "$SW" $G --grid workload.load=0.5 --db one.db >/dev/null || fail "sweep one point"
"$P" export one.db | sed 1d | cut -d, -f2- >one.rows
grep '^1,' two.csv | cut -d, -f2- >two.rows
[ -s one.rows ] && cmp -s one.rows two.rows || fail "point load=0.5 alone differs from it in the grid"
"$P" sweep "$SW" $G --grid workload.load=0.2,0.5 --db j2.db --jobs 2 >j2.txt || fail "sweep --jobs 2"
"$P" export j2.db | cmp -s - two.csv || fail "--jobs 2 differs"
cmp -s j2.txt two.txt || fail "summary differs across --jobs"
ok "a point re-run alone, and across --jobs, gives the same numbers"

# Plots from a finished database (--resume: nothing left to run).
if command -v gnuplot >/dev/null 2>&1; then
    "$P" sweep "$SW" $G --grid workload.load=0.2,0.5 --db two.db --resume --plot pl >resumed.txt ||
        fail "--resume --plot"
    cmp -s resumed.txt two.txt || fail "the summary of a resumed database differs"
    for f in sweep-lat_p99_us sweep-pkg_watts sweep-pareto; do
        [ -s "pl/$f.png" ] && [ -s "pl/$f.svg" ] && [ -s "pl/$f.gp" ] || fail "no $f plot"
    done
    ! grep -l -e "$T" -e "'pl/" pl/*.gp >/dev/null || fail "a gnuplot script names a path"
    [ "$(grep -c '^[0-9]' pl/sweep-pareto.dat)" -eq 4 ] || fail "pareto: not one point per point and variant"
    ok "plots: metric against the swept key, Pareto"
else
    echo "ok - plots # SKIP gnuplot not installed"
fi

# Shards (a Slurm job array) and merge: equal to the unsharded sweep.
for i in 0 1 2; do
    "$P" sweep "$SW" $G --grid workload.load=0.2,0.5 --shard $i/3 >/dev/null || fail "--shard $i/3"
done
[ -f tiny.shard2-of-3.db ] || fail "no default shard database name"
"$P" merge tiny.shard0-of-3.db tiny.shard1-of-3.db tiny.shard2-of-3.db -o merged.db || fail "merge"
"$P" export merged.db | cmp -s - two.csv || fail "merged shards differ from the unsharded sweep"
badm() {
    want=$1; shift
    set +e
    "$P" merge "$@" >/dev/null 2>e; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q -- "$want" e || fail "merge $*: exit $rc: $(cat e)"
}
badm "1 of the sweep's 2 points are in no input (the first: point 1)" tiny.shard0-of-3.db tiny.shard2-of-3.db -o m2.db
badm "point 0 is in both" tiny.shard0-of-3.db two.db -o m2.db
badm "not the same sweep: 'grid=workload.load=0.2,0.5' against 'grid=workload.load=0.5'" two.db one.db -o m2.db
badm "merged.db exists" two.db -o merged.db
[ ! -e m2.db ] || fail "a failed merge left its output"
ok "--shard I/N and merge: equal to the unsharded sweep; gaps, overlaps, other sweeps: exit 2"

# [sweep] in the file is the same grid as --grid.
{ cat "$SW"; printf '\n[sweep]\nworkload.load = 0.2, 0.5\n'; } >file.ini
"$P" sweep file.ini $G --db file.db >/dev/null || fail "[sweep] run"
"$P" export file.db | cmp -s - two.csv || fail "[sweep] differs from --grid"
ok "[sweep] section"

# Bad input: exit 2, one line, before anything runs (no database).
bads() {
    want=$1; shift
    set +e
    "$P" sweep "$SW" --quick --quiet --db bad.db "$@" >/dev/null 2>e; rc=$?
    set -e
    [ $rc -eq 2 ] && grep -q -- "$want" e || fail "sweep $*: exit $rc: $(cat e)"
}
bads "^--grid workload.lod=0.1: unknown key 'lod' for workload 'rr'; did you mean load?" --grid workload.lod=0.1,0.2
bads "^--grid workload.load=1.5: load: 1.5 out of range" --grid workload.load=0.1,1.5
bads "value '0.1' given twice" --grid workload.load=0.1,0.1
bads "expected I/N" --grid workload.load=0.1 --shard 2/2
[ ! -e bad.db ] || fail "a bad grid left a database"
bads "two.db already holds a sweep: --resume continues it" --db two.db --grid workload.load=0.2,0.5
bads "holds another sweep: grid is 'workload.load=0.2,0.5' there, 'workload.load=0.3' here" \
    --db two.db --resume --grid workload.load=0.3
ok "bad grid, values, existing database, --resume on another sweep: exit 2"

# --resume: SIGKILL mid-sweep loses only the point in flight; resuming gives
# exactly the uninterrupted result.
K="$G --grid workload.load=0.1,0.2,0.3,0.4,0.5,0.6 --set quick.duration_ms=300"
"$P" sweep "$SW" $K --db full.db >/dev/null || fail "uninterrupted sweep"
"$P" sweep "$SW" $K --db kill.db >/dev/null &
pid=$!
i=0
until [ "$("$P" export kill.db 2>/dev/null | cut -d, -f1 | sort -u | grep -c '^[0-9]')" -ge 2 ]; do
    i=$((i + 1)); [ $i -lt 600 ] || fail "no point committed in 60 s"
    sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null || true
n=$("$P" export kill.db | cut -d, -f1 | sort -u | grep -c '^[0-9]')
[ "$n" -lt 6 ] || fail "the sweep finished before SIGKILL: the test proves nothing"
"$P" sweep "$SW" $K --db kill.db --resume >/dev/null || fail "--resume"
"$P" export kill.db >k.csv && "$P" export full.db >f.csv && cmp -s k.csv f.csv ||
    fail "killed and resumed differs from uninterrupted"
ok "SIGKILL after $n points, --resume: equal to an uninterrupted sweep"
