#!/bin/sh
# Sweep databases and the files pmlab writes beside them are untrusted input
# (issue 27): nothing read reaches gnuplot as code, no output replaces an
# input, a corrupt or hostile database stops with its name, never a crash.
. tests/lib.sh
export PMLAB_MACHINES="$PWD/machines"
case $P in /*) ;; *) P="$PWD/$P" ;; esac
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
