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
