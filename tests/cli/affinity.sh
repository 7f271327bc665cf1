#!/bin/sh
# Placement by hand is affinity only: [workload] affinity = LIST restricts
# every thread of a workload (as taskset -c does), [vm] iothread_affinity the
# VM's I/O thread; the kernel places everything else. Bad lists are exit 2
# with FILE:LINE and sched_setaffinity's "Invalid argument".
. tests/lib.sh

cat >"$T/c.ini" <<'INI'
[scenario]
name = aff
machine = rpl-h
replications = 2
[workload]
type = compute
kernels = 2
kernel_ms = 100
gap_ms = 5
bg_tasks = 0
affinity = 8-15
[variant itmt]
kernel = 6.10
INI
# On the E-cores only, even ITMT cannot move a single-thread kernel to a
# P-core; without the list, 6.10's asym packing puts every one there (within
# an idle P-CPU's MC balance interval, 16-32 ms: kernels of 100 ms).
"$P" run "$T/c.ini" --quiet --format csv >"$T/c.csv" || fail "run with affinity"
grep -q ',itmt,single_pcore_pct,%,2,0,' "$T/c.csv" || fail "affinity 8-15: kernels ran on P-cores"
sed -i '/^affinity = /d' "$T/c.ini"
"$P" run "$T/c.ini" --quiet --format csv >"$T/n.csv" || fail "run without affinity"
grep -q ',itmt,single_pcore_pct,%,2,100,' "$T/n.csv" || fail "no affinity: kernels not on P-cores"
ok "[workload] affinity restricts the workload's threads"

bad() { # line, expected message, then the sed edit that makes the file bad
    line=$1 want=$2 edit=$3
    sed "$edit" "$T/c.ini" >"$T/bad.ini"
    set +e
    "$P" run "$T/bad.ini" --quiet >/dev/null 2>"$T/err"; rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$edit: exit $rc, want 2"
    grep -qF "bad.ini:$line: $want" "$T/err" || fail "$edit: got: $(cat "$T/err")"
}
bad 11 'affinity = 8-16: Invalid argument (CPU 16 is out of range: the machine has CPUs 0-15)' \
    's/^bg_tasks = 0$/bg_tasks = 0\naffinity = 8-16/'
bad 11 'affinity = : Invalid argument' 's/^bg_tasks = 0$/bg_tasks = 0\naffinity =/'

cat >"$T/v.ini" <<'INI'
[scenario]
name = vm
machine = adl-desktop
replications = 1
[workload]
type = fio
duration_ms = 5
warmup_ms = 1
[vm guest]
vcpus = 2
iothread_affinity = 16-24
[variant a]
kernel = 6.0
INI
set +e
"$P" run "$T/v.ini" --quiet >/dev/null 2>"$T/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qF 'v.ini:11: iothread_affinity: Invalid argument (CPU 24 does not exist on adl-desktop: CPUs 0-23)' "$T/err" ||
    fail "iothread_affinity 16-24: exit $rc: $(cat "$T/err")"
sed -i 's/^iothread_affinity = .*/iothread_affinity = 16-x/' "$T/v.ini"
set +e
"$P" run "$T/v.ini" --quiet >/dev/null 2>"$T/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -qF 'v.ini:11: iothread_affinity = 16-x: Invalid argument' "$T/err" ||
    fail "iothread_affinity 16-x: exit $rc: $(cat "$T/err")"
ok "bad affinity lists: exit 2, FILE:LINE, Invalid argument"
