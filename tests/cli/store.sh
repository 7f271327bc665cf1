#!/bin/sh
# Sweep databases and the files pmlab writes beside them are untrusted input
# (issue 27): nothing read reaches gnuplot as code, no output replaces an
# input, a corrupt or hostile database stops with its name, never a crash.
. tests/lib.sh
case $P in /*) ;; *) P="$PWD/$P" ;; esac
# A copy of the machine: a test of pmlab without a fix must not write into
# the tree.
mkdir "$T/machines"
cp machines/rpl-h.ini "$T/machines/"
export PMLAB_MACHINES="$T/machines"
cd "$T"
cat >tiny.ini <<'INI'
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

[variant base]
kernel = 6.12

[variant teo]
kernel = 6.12
cmdline = cpuidle.governor=teo
INI
G="--quick --quiet --reps 2 --grid workload.load=0.2,0.5"
"$P" sweep tiny.ini $G --db good.db >good.txt || fail "sweep"
"$P" export good.db >good.csv || fail "export"

# Edit a database as a hand or a hostile tool would (python3's sqlite3: no
# dependency beyond scripts/deps.sh's).
sql() {
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()' "$@"
}

# Expect exit status $1 and stderr matching $2 from the rest.
expect() {
    want_rc=$1 want=$2; shift 2
    set +e
    "$@" >out 2>err; rc=$?
    set -e
    [ $rc -eq "$want_rc" ] && grep -q -- "$want" err ||
        fail "$*: exit $rc (want $want_rc), stderr: $(head -c 600 err)"
}

# 1. A metric named to close gnuplot's string and run a command: plotted as
# text, the command never runs. gnuplot runs in pl/.pmlab-XXXXXX: ../../ is
# this directory.
if command -v gnuplot >/dev/null 2>&1; then
    cp good.db inj.db
    evil="x'; system 'cd ..;cd ..;touch PWNED'; print '"
    sql inj.db "UPDATE results SET metric = '$(printf %s "$evil" | sed "s/'/''/g")'
                    WHERE metric = 'lat_p99_us'; UPDATE results SET variant_name = 'v''; system ''touch ../../PWNED2''; print ''' WHERE variant_name = 'teo';"
    set +e
    "$P" sweep tiny.ini $G --db inj.db --resume --plot pl >/dev/null 2>err; rc=$?
    set -e
    [ ! -e PWNED ] && [ ! -e PWNED2 ] || fail "a metric or variant name from the database ran a command in gnuplot"
    [ $rc -eq 0 ] || fail "--plot of a database with a quote in a metric: exit $rc: $(cat err)"
    f=pl/sweep-x___system__cd_.._cd_.._touch_PWNED___print__
    [ -s "$f.png" ] && [ -s "$f.svg" ] || fail "no plot of the metric with a quote: $(ls pl | grep x_)"
    grep -qF "title 'v''; system ''touch" "$f.gp" || fail "the variant is not a quoted title in $f.gp"
    ok "names from a database reach gnuplot as strings, never as code"
else
    echo "ok - gnuplot quoting # SKIP gnuplot not installed"
fi

# 2. An output that is an input: exit 2 before anything runs, the input
# whole. Through another spelling, a symlink, and before the file exists
# (--output new.db names the new database new.db).
cp good.db same.db
sum() { cksum <"$1"; }
before=$(sum same.db)
expect 2 "^pmlab sweep: --output same.db is the results database same.db: writing it would destroy" \
    "$P" sweep tiny.ini $G --db same.db --resume --output same.db
expect 2 "is the results database" "$P" sweep tiny.ini $G --db same.db --resume --output ./same.db
expect 2 "^pmlab sweep: --output new.db is the results database new.db" \
    "$P" sweep tiny.ini $G --output new.db
[ ! -e new.db ] || fail "a refused sweep created its database"
ln -s same.db link.db
expect 2 "^pmlab export: --output link.db is the database same.db" "$P" export same.db -o link.db
expect 2 "is the database" "$P" export same.db -o "$T/same.db"
expect 2 "^pmlab merge: -o same.db is the input same.db" "$P" merge same.db -o same.db
expect 2 "^pmlab sweep: --db tiny.ini is the scenario tiny.ini" "$P" sweep tiny.ini $G --db tiny.ini
[ "$(sum same.db)" = "$before" ] || fail "the database changed"
IMP=$OLDPWD/tests/data/import-root
expect 2 "^pmlab import: --scenario both.ini is the machine file (-o) both.ini" \
    "$P" import --root "$IMP" -o both.ini --scenario both.ini
[ ! -e both.ini ] || fail "a refused import wrote its output"
cp tiny.ini keep.ini
expect 2 "^pmlab run: --output tiny.ini is the scenario tiny.ini" "$P" run tiny.ini --quick --quiet -o tiny.ini
expect 2 "is the machine file" "$P" run tiny.ini --quick --quiet -o "$PMLAB_MACHINES/rpl-h.ini"
cmp -s tiny.ini keep.ini || fail "run -o SCENARIO replaced the scenario"
ok "an output that is an input (database, scenario, machine): exit 2, the input kept"

# 3. A corrupt database (200 bytes of a results page flipped) is exit 1
# naming the file, for every reader: never a short export or summary.
cp good.db bad.db
python3 -c 'import sys
f = open(sys.argv[1], "r+b"); f.seek(15 * 4096); b = f.read(200)
f.seek(15 * 4096); f.write(bytes(x ^ 0x5a for x in b))' bad.db
corrupt="^pmlab [a-z]*: bad.db: the database is corrupt (quick_check: "
expect 1 "$corrupt" "$P" export bad.db
[ ! -s out ] || fail "export of a corrupt database wrote $(wc -l <out) rows"
expect 1 "$corrupt" "$P" sweep tiny.ini $G --db bad.db --resume
expect 1 "$corrupt" "$P" merge bad.db -o m.db
[ ! -e m.db ] || fail "merge of a corrupt database wrote one"
ok "a corrupt database: exit 1 naming it (export, sweep --resume, merge)"

# 4. Hostile values: each column is checked for type, NULL, length and
# range, with the file, table and row named; exit 2, no crash.
hostile() { # WANT SQL: the edit, then export, sweep --resume and merge of it
    why=$1 edit=$2
    rm -f h.db m.db; cp good.db h.db
    sql h.db "$edit"
    expect 2 "^pmlab export: h.db: $why" "$P" export h.db
    [ ! -s out ] || fail "export of a hostile database ($edit) wrote rows"
    expect 2 "^pmlab sweep: h.db: $why" "$P" sweep tiny.ini $G --db h.db --resume
    expect 2 "^pmlab merge: h.db: $why" "$P" merge h.db -o m.db
    [ ! -e m.db ] || fail "merge of a hostile database wrote one"
}
long=$(printf 'v%.0s' $(seq 70))
hostile "results row 3: variant_name is 70 bytes long (at most 63)" \
    "UPDATE results SET variant_name = '$long' WHERE rowid = 3"
hostile "results row 5: metric is 50 bytes long (at most 47)" \
    "UPDATE results SET metric = '$(printf 'm%.0s' $(seq 50))' WHERE rowid = 5"
# NOT NULL is the schema's: a hand-made table without it holds a NULL.
hostile "point_keys row 1: value is NULL" \
    "CREATE TABLE pk AS SELECT * FROM point_keys; DROP TABLE point_keys;
     CREATE TABLE point_keys(point, axis, key, value); INSERT INTO point_keys SELECT * FROM pk;
     UPDATE point_keys SET value = NULL WHERE rowid = 1"
hostile "sweep row [0-9]*: value is NULL" \
    "CREATE TABLE s AS SELECT * FROM sweep; DROP TABLE sweep; CREATE TABLE sweep(key, value);
     INSERT INTO sweep SELECT * FROM s; UPDATE sweep SET value = NULL WHERE key = 'seed'"
hostile "sweep: points is '999999999999999', not a count in \[1, 1000000\]" \
    "UPDATE sweep SET value = '999999999999999' WHERE key = 'points'"
hostile "results row 7: point 9 is outside \[0, 1\]" "UPDATE results SET point = 9 WHERE rowid = 7"
hostile "results row 2: value is not a finite number" "UPDATE results SET value = 'x' WHERE rowid = 2"
hostile "results row 2: unit holds a control character" \
    "UPDATE results SET unit = 'W' || char(10) WHERE rowid = 2"
ok "hostile values (long names, NULLs, a huge point count, out of range): exit 2 naming the row"

# 11. A second --resume while the first runs: refused, naming the process;
# one killed (SIGKILL) leaves a lock the next --resume takes over.
K="--quick --quiet --reps 2 --jobs 1 --grid workload.load=0.1,0.2,0.3,0.4 --set quick.duration_ms=400"
"$P" sweep tiny.ini $K --db lock.db >/dev/null 2>&1 &
pid=$!
i=0
until [ -s lock.db ] && "$P" export lock.db >/dev/null 2>&1; do
    i=$((i + 1)); [ $i -lt 300 ] || fail "the first sweep did not start"
    sleep 0.1
done
expect 1 "^pmlab sweep: lock.db is locked: pmlab sweep PID $pid on $(hostname) has been running it since 20" \
    "$P" sweep tiny.ini $K --db lock.db --resume
kill -9 $pid
wait $pid 2>/dev/null || true
"$P" sweep tiny.ini $K --db lock.db --resume >/dev/null 2>err || fail "--resume after SIGKILL: $(cat err)"
ok "a second --resume: 'locked by PID $pid'; a killed sweep's lock is taken over"

# 11. Interrupted: how many points are in the database and the exact
# command that continues (SIGTERM: a shell's background job ignores SIGINT,
# and a signal ignored on entry stays ignored; both take the same path).
"$P" sweep tiny.ini $K --db int.db --plot 'my plots' 2>err &
pid=$!
i=0
until [ "$("$P" export int.db 2>/dev/null | cut -d, -f1 | sort -u | grep -c '^[0-9]')" -ge 2 ]; do
    i=$((i + 1)); [ $i -lt 300 ] || fail "no point committed in 30 s"
    sleep 0.1
done
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc"
n=$("$P" export int.db | cut -d, -f1 | sort -u | grep -c '^[0-9]')
grep -q "^pmlab sweep: interrupted by SIGTERM: $n of the 4 points are committed to int.db ($n by this run; one in flight runs again), no summary or plots written; continue with:$" err ||
    fail "interrupt message: $(cat err)"
resume=$(sed -n 's/^  pmlab //p' err)
[ "$resume" = "sweep $K --db int.db --plot 'my plots' tiny.ini --resume" ] || fail "resume command: $resume"
eval "\"\$P\" $resume" >/dev/null 2>err || fail "the printed command: $(cat err)"
[ "$("$P" export int.db | cut -d, -f1 | sort -u | grep -c '^[0-9]')" -eq 4 ] || fail "resumed, not every point"
[ -s "my plots/sweep-pareto.png" ] || fail "resumed, no plots"
ok "interrupted: '$n of the 4 points are committed', the command that continues it works"

# 11. A grid past SWEEP_MAX_POINTS (16 keys x 16 values is 2^64, which a
# long cannot count): exit 2 before anything runs, no database.
keys=""
for k in $(seq 16); do keys="$keys --grid workload.k$k=$(seq -s, 1 16)"; done
expect 2 "^pmlab sweep: the grid has more than 1000000 points (16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 x 16 values): at most 1000000" \
    "$P" sweep tiny.ini --quick $keys --db big.db
[ ! -e big.db ] || fail "a refused grid left a database"
ok "a grid of 16 x 16 values: exit 2, no database"

# 13. Temporaries a killed pmlab left (named for host and PID) are removed
# by the next run that writes there, when that PID is gone; a live
# process's and another host's are kept.
H=$(hostname)
sleep 1000 & live=$!
dead=999999
while kill -0 $dead 2>/dev/null; do dead=$((dead - 1)); done
touch ".t.csv.pmlab-$H-$dead-0" ".t.csv.pmlab-$H-$dead-0-journal" ".t.csv.pmlab-$H-$live-0" \
    ".t.csv.pmlab-elsewhere-$dead-0"
mkdir -p pd "pd/.pmlab-$H-$dead-Ab12Cd" "pd/.pmlab-$H-$live-Ab12Cd"
touch "pd/.pmlab-$H-$dead-Ab12Cd/sweep-x.png"
"$P" export good.db -o t.csv || fail "export -o t.csv"
"$P" sweep tiny.ini $G --db good.db --resume --plot pd >/dev/null 2>err || fail "--plot pd: $(cat err)"
kill $live
for f in ".t.csv.pmlab-$H-$dead-0" ".t.csv.pmlab-$H-$dead-0-journal" "pd/.pmlab-$H-$dead-Ab12Cd"; do
    [ ! -e "$f" ] || fail "$f (a dead PID's) is left"
done
for f in ".t.csv.pmlab-$H-$live-0" ".t.csv.pmlab-elsewhere-$dead-0" "pd/.pmlab-$H-$live-Ab12Cd"; do
    [ -e "$f" ] || fail "$f (a live process's or another host's) was removed"
done
[ "$(ls -a . pd | grep -c pmlab-)" -eq 3 ] || fail "temporaries after a run: $(ls -a . pd | grep pmlab-)"
ok "stale temporaries of a dead PID removed, a live one's and another host's kept"

# Old-format temporaries (before names said their host: .F.pmlab-PID-N and
# DIR/.pmlab-XXXXXX) are removed once more than a day old (and, with a PID,
# that PID is gone); younger ones may be another host's live run.
touch ".t.csv.pmlab-$dead-0" ".t.csv.pmlab-$dead-0-journal" ".t.csv.pmlab-$dead-1"
touch -d '2 days ago' ".t.csv.pmlab-$dead-0" ".t.csv.pmlab-$dead-0-journal"
mkdir "pd/.pmlab-Ab12Cd" "pd/.pmlab-Xy34Zw" && touch "pd/.pmlab-Ab12Cd/sweep-x.png"
touch -d '2 days ago' "pd/.pmlab-Ab12Cd"
"$P" export good.db -o t.csv || fail "export -o t.csv (old-format temporaries)"
"$P" sweep tiny.ini $G --db good.db --resume --plot pd >/dev/null 2>err || fail "--plot pd: $(cat err)"
for f in ".t.csv.pmlab-$dead-0" ".t.csv.pmlab-$dead-0-journal" "pd/.pmlab-Ab12Cd"; do
    [ ! -e "$f" ] || fail "$f (old format, two days old) is left"
done
for f in ".t.csv.pmlab-$dead-1" "pd/.pmlab-Xy34Zw"; do
    [ -e "$f" ] || fail "$f (old format, fresh) was removed"
done
rm -rf ".t.csv.pmlab-$dead-1" "pd/.pmlab-Xy34Zw"
ok "old-format temporaries removed when over a day old, fresh ones kept"

# Past a file size limit: a message naming the file and exit 1, not a
# silent death by SIGXFSZ (status 153).
set +e
(ulimit -f 8; exec "$P" export good.db -o big.csv) 2>err; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "^pmlab export: error writing $T/big.csv: File too large$\|^pmlab export: error writing big.csv: File too large$" err ||
    fail "export past ulimit -f: exit $rc: $(cat err)"
[ -z "$(ls -a | grep '^\.big\.csv\.pmlab-')" ] || fail "past ulimit -f: the temporary is left"
set +e
(ulimit -f 4; exec "$P" sweep tiny.ini $G --db limit.db) >/dev/null 2>err; rc=$?
set -e
[ $rc -eq 1 ] && grep -q "^pmlab sweep: limit.db: .*File too large? the file size limit is [0-9]* bytes: ulimit -f)$" err ||
    fail "sweep past ulimit -f: exit $rc: $(cat err)"
ok "past ulimit -f: 'File too large' naming the file, exit 1"

# An empty name: exit 2 before anything runs.
expect 2 "^pmlab sweep: --output: an empty file name$" "$P" sweep tiny.ini $G --db e.db --output ''
expect 2 "^pmlab sweep: --db: an empty file name$" "$P" sweep tiny.ini $G --db ''
expect 2 "^pmlab sweep: --plot: an empty directory name$" "$P" sweep tiny.ini $G --db e.db --plot ''
[ ! -e e.db ] || fail "a refused sweep created its database"
expect 2 "^pmlab run: --output: an empty file name$" "$P" run tiny.ini --quick -o ''
expect 2 "^pmlab export: --output: an empty file name$" "$P" export good.db -o ''
expect 2 "^pmlab merge: -o: an empty file name$" "$P" merge good.db -o ''
ok "-o '', --db '', --plot '': exit 2 before anything runs"

# A --plot that cannot be put in place leaves the directory as it was:
# its old files, none of the new ones.
mkdir mixed
echo old >mixed/sweep-lat_p99_us.png
mkdir mixed/sweep-pareto.png
expect 1 "^pmlab sweep: --plot: cannot write mixed/sweep-pareto.png: it is a directory$" \
    "$P" sweep tiny.ini $G --db good.db --resume --plot mixed
[ "$(cat mixed/sweep-lat_p99_us.png)" = old ] || fail "a failed --plot replaced an old plot"
[ "$(ls -a mixed | tr '\n' ' ')" = ". .. sweep-lat_p99_us.png sweep-pareto.png " ] ||
    fail "a failed --plot left: $(ls -a mixed)"
ok "a failed --plot: the directory as it was, no old and new files mixed"
