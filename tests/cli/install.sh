#!/bin/sh
# make install: the binary, the man page and the shipped machines and
# scenarios under PREFIX (and DESTDIR); a shipped scenario then runs from any
# directory, and machine files are looked up in the documented order:
# $PMLAB_MACHINES, beside the scenario (machines/, ../machines), ./machines,
# PREFIX/share/pmlab/machines. Builds in a copy of build/rel (only what
# depends on PREFIX is rebuilt), whichever build is under test.
. tests/lib.sh
R=$(pwd)
[ -d build/rel ] && cp -a build/rel "$T/b"
make -s -C "$R" V=rel B="$T/b" PREFIX="$T/prefix" install >"$T/make.out" 2>&1 ||
    fail "make install: $(tail -5 "$T/make.out")"
I="$T/prefix"
for f in bin/pmlab share/man/man1/pmlab.1 share/pmlab/machines/skx-2s.ini \
    share/pmlab/scenarios/kvm-haltpoll-netrr.ini share/pmlab/scenarios/rtapp/periodic.json; do
    [ -f "$I/$f" ] || fail "make install: no $f"
done
[ -x "$I/bin/pmlab" ] || fail "installed pmlab not executable"
ok "make install PREFIX: binary, man page, machines, scenarios, rt-app use cases"

mkdir "$T/elsewhere" && cd "$T/elsewhere"
unset PMLAB_MACHINES || true
# The installed scenario finds the installed machines beside it (../machines).
"$I/bin/pmlab" run "$I/share/pmlab/scenarios/kvm-haltpoll-netrr.ini" --quick --reps 1 --quiet \
    >out.txt 2>err.txt || fail "installed scenario from another directory: $(cat err.txt)"
grep -q '^machine  adl-desktop' out.txt || fail "installed scenario: no result"
# rtapp-periodic names its rt-app JSON beside it (file = rtapp/periodic.json).
"$I/bin/pmlab" run "$I/share/pmlab/scenarios/rtapp-periodic.ini" --quick --reps 1 --quiet \
    >out.txt 2>err.txt || fail "installed rtapp-periodic from another directory: $(cat err.txt)"
grep -q '^wu_lat_p99_us' out.txt || fail "installed rtapp-periodic: no result"
# A copy anywhere else finds them in PREFIX/share/pmlab (compiled in).
cp "$I/share/pmlab/scenarios/kvm-haltpoll-netrr.ini" mine.ini
"$I/bin/pmlab" explain mine.ini >x.txt 2>err.txt || fail "scenario copy: $(cat err.txt)"
grep -q '^machine adl-desktop:' x.txt || fail "scenario copy: machine not found"
[ "$("$I/bin/pmlab" machines | wc -l)" -eq "$(ls "$R"/machines/*.ini | wc -l)" ] ||
    fail "pmlab machines outside a checkout: not the installed machines"
ok "installed scenarios run from any directory; pmlab machines lists the installed ones"

# import outside a checkout finds its nearest shipped machine among the
# installed ones (a scenario's search path without the scenario's directory).
"$I/bin/pmlab" import --root "$R/tests/data/import-root" -o imported.ini 2>err.txt ||
    fail "installed import outside a checkout: $(cat err.txt)"
grep -q 'estimated, from epyc-genoa-2s' imported.ini || fail "installed import: no nearest machine"
rm imported.ini
ok "installed import finds its nearest machine in PREFIX/share/pmlab/machines"

# Order: $PMLAB_MACHINES, then machines/ beside the scenario, then ../machines.
mkdir -p env proj/machines machines
for d in env proj/machines machines; do
    sed "s/^description = .*/description = from $(echo $d | tr / _)/" \
        "$R/machines/adl-desktop.ini" >"$d/adl-desktop.ini"
done
cp mine.ini proj/x.ini
PMLAB_MACHINES="$T/elsewhere/env" "$I/bin/pmlab" explain proj/x.ini | grep -q 'from env$' ||
    fail "PMLAB_MACHINES does not come first"
"$I/bin/pmlab" explain proj/x.ini | grep -q 'from proj_machines$' ||
    fail "machines/ beside the scenario does not come before ../machines"
rm -r proj/machines
"$I/bin/pmlab" explain proj/x.ini | grep -q 'from machines$' ||
    fail "../machines of the scenario not used"
sed 's/^machine = .*/machine = nosuch/' mine.ini >bad.ini
rc=0
"$I/bin/pmlab" explain bad.ini >/dev/null 2>err.txt || rc=$?
[ $rc -eq 2 ] && grep -q "$I/share/pmlab/machines" err.txt || fail "unknown machine: exit $rc, $(cat err.txt)"
ok "machine lookup order; an unknown machine names every directory looked in"

# DESTDIR stages the tree; PREFIX is what is compiled in.
cd "$R"
make -s V=rel B="$T/b" PREFIX=/opt/pmlab-test DESTDIR="$T/stage" install >"$T/make.out" 2>&1 ||
    fail "make install DESTDIR: $(tail -5 "$T/make.out")"
[ -f "$T/stage/opt/pmlab-test/share/pmlab/machines/skx-2s.ini" ] && [ ! -e /opt/pmlab-test ] ||
    fail "DESTDIR: not staged, or written outside it"
"$T/stage/opt/pmlab-test/bin/pmlab" machines --help | grep -q '/opt/pmlab-test/share/pmlab/machines' ||
    fail "DESTDIR install: PREFIX not compiled in"
make -s V=rel B="$T/b" PREFIX=/opt/pmlab-test DESTDIR="$T/stage" uninstall >/dev/null 2>&1 ||
    fail "make uninstall"
[ ! -e "$T/stage/opt/pmlab-test/bin/pmlab" ] && [ ! -e "$T/stage/opt/pmlab-test/share/pmlab" ] ||
    fail "make uninstall left files"
ok "make install DESTDIR= PREFIX=, make uninstall"

# A scenario's trace (trace = traces/X, relative to the scenario) is
# installed beside it: the installed replay-juno runs from any directory.
[ -f "$I/share/pmlab/scenarios/traces/juno-sched_load.trace.dat.gz" ] ||
    fail "make install: no share/pmlab/scenarios/traces/juno-sched_load.trace.dat.gz"
cd "$T/elsewhere"
"$I/bin/pmlab" run "$I/share/pmlab/scenarios/replay-juno.ini" --quick --reps 1 --quiet \
    >out.txt 2>err.txt || fail "installed replay-juno from another directory: $(cat err.txt)"
grep -q '^wu_lat_p99_us' out.txt || fail "installed replay-juno: no result"
ok "installed replay-juno finds its trace in PREFIX/share/pmlab/scenarios/traces"
