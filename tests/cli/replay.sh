#!/bin/sh
# type = replay from the command line: the Juno trace's recorded busy time
# comes back on a machine of identity speed; the shipped scenario runs, and
# its sleeps as timers (unknown_wake = timer) change menu's choices; a
# trace without sched_switch, a CPU count that differs without a cpu_map,
# and a bad cpu_map are exit 2 naming the file, line and what is wrong.
. tests/lib.sh
status() { # the command's exit status, stderr in $T/err
    set +e; "$@" >"$T/out" 2>"$T/err"; rc=$?; set -e; return 0
}
JUNO=$(pwd)/scenarios/traces/juno-sched_load.trace.dat.gz
metric() { # metric variant: the mean from csv $T/r.csv
    awk -F, -v m="$1" -v v="$2" '$3 == v && $4 == m { print $7 }' "$T/r.csv"
}
near() { # a b tolerance: |a/b - 1| <= tolerance
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b - 1; exit !(r <= t && r >= -t) }'
}

# Identity speed: 8 cores without SMT at 2 GHz, no turbo, frequency fixed
# (cpufreq.off=1), idle states that keep the caches: a recorded ns of a
# burst is a simulated ns.
mkdir -p "$T/machines"
cp tests/data/machines/flat8.ini "$T/machines/"
cat >"$T/s.ini" <<INI
[scenario]
name = identity
machine = flat8
[workload]
type = replay
trace = $JUNO
cpu_map = 2-7
work = wall
[variant wall]
kernel = 6.12
cmdline = cpufreq.off=1
[variant freq]
kernel = 6.12
cmdline = cpufreq.off=1
workload.work = frequency
[variant pinned]
kernel = 6.12
cmdline = cpufreq.off=1
workload.pin = recorded
INI
"$P" run "$T/s.ini" --reps 1 --quiet --format csv >"$T/r.csv" || fail "identity replay run"
rec=$(metric recorded_busy_ms wall)
near "$rec" 55.57638 0.00001 || fail "recorded busy $rec ms, not the trace's 55.576 ms"
busy=$(metric busy_ms wall)
near "$busy" "$rec" 0.001 || fail "work = wall: replayed busy $busy ms vs recorded $rec ms"
busy=$(metric busy_ms freq)
near "$busy" 47.97625 0.001 || fail "work = frequency: replayed busy $busy ms, not the 47.976 ms of work"
busy=$(metric busy_ms pinned)
near "$busy" "$rec" 0.001 || fail "pin = recorded: replayed busy $busy ms vs recorded $rec ms"
ratio=$(metric completion_ratio wall)
near "$ratio" 1 0.01 || fail "completion $ratio x the recorded"
ok "identity speed: replayed busy = recorded busy ($busy vs $rec ms), frequency-scaled work 47.98 ms"

# The round trip: pmlab's own recording (run --trace) replays on the same
# machine with the busy time it recorded.
printf '{ "tasks": { "a": { "instance": 3, "run": 2000, "timer": { "ref": "unique", "period": 7000 } } } }\n' >"$T/rec.json"
cat >"$T/rec.ini" <<INI
[scenario]
name = rec
machine = flat8
[workload]
type = rtapp
file = rec.json
duration_ms = 100
[variant base]
kernel = 6.12
cmdline = cpufreq.off=1
INI
"$P" run "$T/rec.ini" --reps 1 --quiet --trace "$T/tr" --format csv >"$T/r.csv" 2>"$T/err" \
    || fail "recording: $(cat "$T/err")"
cat >"$T/rp.ini" <<INI
[scenario]
name = replay-rec
machine = flat8
[workload]
type = replay
trace = $T/tr/base.dat
work = wall
[variant base]
kernel = 6.12
cmdline = cpufreq.off=1
INI
"$P" run "$T/rp.ini" --reps 1 --quiet --format csv >"$T/r.csv" 2>"$T/err" || fail "replaying pmlab's recording: $(cat "$T/err")"
rec=$(metric recorded_busy_ms base)
busy=$(metric busy_ms base)
near "$rec" 84.0 0.01 || fail "recorded busy $rec ms, not the 3 x 14 x 2 ms the use case ran"
near "$busy" "$rec" 0.002 || fail "replayed busy $busy ms vs recorded $rec ms"
near "$(metric completion_ratio base)" 1 0.01 || fail "replay of the recording: completion ratio $(metric completion_ratio base)"
ok "pmlab's own recording replays: busy $busy ms vs recorded $rec ms"

"$P" run scenarios/replay-juno.ini --quick --quiet --format csv >"$T/r.csv" || fail "replay-juno quick"
[ -n "$(metric wu_lat_p99_us teo)" ] || fail "replay-juno: no wu_lat_p99_us for teo"
ok "replay-juno runs (menu vs teo)"

# unknown_wake: the Juno trace has no wake-up events, so every sleep's waker
# is unknown. As an hrtimer (timer), menu sees each sleep's end in its sleep
# length and seldom picks a state whose target residency the idle period
# does not reach (above_pct); as a wake-up it cannot foresee (irq, the
# default), its sleep length is the tick or a housekeeping timer and it
# often does (--quick: about 36 % vs 4 %).
menu_above() { # unknown_wake value: menu's above_pct on replay-juno --quick
    "$P" run scenarios/replay-juno.ini --quick --variant menu --set workload.unknown_wake="$1" \
        --quiet --format csv >"$T/r.csv" || fail "replay-juno unknown_wake = $1"
    metric above_pct menu
}
above_irq=$(menu_above irq)
above_timer=$(menu_above timer)
awk -v i="$above_irq" -v t="$above_timer" 'BEGIN { exit !(i > 20 && t < i / 3) }' ||
    fail "unknown_wake: menu's above share $above_timer % with timer vs $above_irq % with irq"
ok "unknown_wake = timer: menu's above share $above_timer % vs $above_irq % with irq"

# Bad input.
sed -e 's/^cpu_map = .*$//' "$T/s.ini" >"$T/nomap.ini"
status "$P" run "$T/nomap.ini" --quiet
[ $rc -eq 2 ] || fail "no cpu_map on 8 CPUs for a 6-CPU trace: exit $rc"
grep -q "^$T/nomap.ini:6: trace: .*recorded on 6 CPUs and machine flat8 has 8: give cpu_map" "$T/err" ||
    fail "no cpu_map: $(cat "$T/err")"
sed -e 's/^cpu_map = .*$/cpu_map = 2-6/' "$T/s.ini" >"$T/short.ini"
status "$P" run "$T/short.ini" --quiet
[ $rc -eq 2 ] && grep -q "^$T/short.ini:7: cpu_map: '2-6' names 5 CPUs; the trace has 6" "$T/err" ||
    fail "short cpu_map: exit $rc: $(cat "$T/err")"
sed -e 's/^cpu_map = .*$/cpu_map = 0-4,8/' "$T/s.ini" >"$T/range.ini"
status "$P" run "$T/range.ini" --quiet
[ $rc -eq 2 ] && grep -q "^$T/range.ini:7: cpu_map: CPU 8 is not on the machine (CPUs 0-7)" "$T/err" ||
    fail "cpu_map out of range: exit $rc: $(cat "$T/err")"
sed -e 's/^\[variant pinned\]$/[variant pinned]\nworkload.cpu_map = 1/' "$T/s.ini" >"$T/vmap.ini"
status "$P" run "$T/vmap.ini" --quiet
[ $rc -eq 2 ] && grep -q "^$T/vmap.ini:17: \[variant pinned\]: cpu_map: '1' names 1 CPUs" "$T/err" ||
    fail "a variant's cpu_map: exit $rc: $(cat "$T/err")"
sed -e 's/^pin = .*$//; s/^work = wall$/work = cycles/' "$T/s.ini" >"$T/work.ini"
status "$P" run "$T/work.ini" --quiet
[ $rc -eq 2 ] && grep -q "work = cycles: expected frequency or wall" "$T/err" ||
    fail "work = cycles: exit $rc: $(cat "$T/err")"
sed -e 's/^pin = .*$//; s/^work = wall$/unknown_wake = io/' "$T/s.ini" >"$T/uw.ini"
status "$P" run "$T/uw.ini" --quiet
[ $rc -eq 2 ] && grep -q "unknown_wake = io: expected irq or timer" "$T/err" ||
    fail "unknown_wake = io: exit $rc: $(cat "$T/err")"
ok "bad input: no cpu_map for another CPU count, a cpu_map of the wrong length or CPUs, work, unknown_wake: exit 2"

# A trace whose header lacks sched_switch (its format renamed in a copy).
gzip -dc "$JUNO" | python3 -c '
import sys
d = sys.stdin.buffer.read()
sys.stdout.buffer.write(d.replace(b"name: sched_switch\n", b"name: sched_swatch\n"))' >"$T/nosw.dat"
sed -e "s|^trace = .*$|trace = $T/nosw.dat|" "$T/s.ini" >"$T/nosw.ini"
status "$P" run "$T/nosw.ini" --quiet
[ $rc -eq 2 ] || fail "trace without sched_switch: exit $rc"
grep -q "^$T/nosw.dat: no sched:sched_switch event in the trace, which a replay needs: record with \`trace-cmd record -e sched:sched_switch -e sched:sched_wakeup" "$T/err" ||
    fail "trace without sched_switch: $(cat "$T/err")"
status "$P" trace tasks "$T/nosw.dat"
[ $rc -eq 2 ] || fail "trace tasks without sched_switch: exit $rc"
ok "a trace without sched:sched_switch: exit 2 naming the trace-cmd record events"

"$P" trace tasks "$JUNO" >"$T/tasks" || fail "trace tasks"
grep -q '^tasks 30, slices 304, bursts 221, busy 55.576 ms' "$T/tasks" || fail "trace tasks: $(head -3 "$T/tasks")"
grep -q '^   2930  bash                3   179.732      71       2' "$T/tasks" || fail "trace tasks: bash row"
ok "trace tasks: the Juno trace's 30 tasks, 304 slices, 221 bursts"
