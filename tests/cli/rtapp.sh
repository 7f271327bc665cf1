#!/bin/sh
# rtapp and cyclictest from the command line: the shipped scenarios run; a
# malformed rt-app file is exit 2 with FILE:LINE, a file outside rt-app's
# grammar names the key, unknown keys are warned about and ignored.
. tests/lib.sh
status() { # the command's exit status, stderr in $T/err
    set +e; "$@" >/dev/null 2>"$T/err"; rc=$?; set -e; return 0
}

"$P" run scenarios/rtapp-periodic.ini --quick --reps 2 --quiet --format csv >"$T/r.csv" \
    || fail "rtapp-periodic quick run"
grep -q ',menu,task.audio.activations,,2,40,' "$T/r.csv" || fail "audio: 40 activations of 5 ms in 200 ms"
ok "rtapp example runs, timers keep their period"

"$P" run scenarios/cyclictest-adl.ini --quick --reps 2 --quiet --format csv >"$T/c.csv" \
    2>/dev/null || fail "cyclictest-adl quick run"
grep -q ',max_cstate2,wake_share.C6,' "$T/c.csv" && fail "max_cstate=2 still reports C6"
ok "cyclictest example runs"

cat >"$T/s.ini" <<'INI'
[scenario]
name = bad
machine = adl-desktop
[workload]
type = rtapp
file = u.json
duration_ms = 20
[variant a]
kernel = 6.12
INI
printf '{ "tasks": {\n  "a": { "run": 100, "sleep": 100, }\n} }\n' >"$T/u.json"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] || fail "malformed JSON: exit status not 2"
grep -q "^$T/u.json:2: " "$T/err" || fail "malformed JSON: no FILE:LINE: $(cat "$T/err")"
ok "malformed rt-app file: exit 2 with FILE:LINE"

printf '{ "tasks": { "a": { "run": 100, "sleep": "long" } } }\n' >"$T/u.json"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] || fail "grammar error: exit status not 2"
grep -q "u.json: tasks.a.sleep: expected an integer" "$T/err" || fail "grammar error: $(cat "$T/err")"
ok "not rt-app's grammar: exit 2 naming the key"

printf '{ "tasks": { "a": { "run": 100, "sleep": 1000, "colour": "red" } } }\n' >"$T/u.json"
"$P" run "$T/s.ini" --quiet >/dev/null 2>"$T/err" || fail "unknown key must not fail: $(cat "$T/err")"
grep -q "tasks.a.colour: unknown key, ignored" "$T/err" || fail "no warning for an unknown key"
ok "unknown key warned about and ignored"

printf '{ "tasks": { "rt": { "policy": "SCHED_FIFO", "priority": 50, "run": 100, "timer": { "ref": "t1", "period": 1000 } },\n  "rr": { "policy": "SCHED_RR", "run": 100, "timer": { "ref": "t2", "period": 1000 } } } }\n' >"$T/u.json"
"$P" run "$T/s.ini" --quiet >/dev/null 2>"$T/err" || fail "SCHED_FIFO use case: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "SCHED_FIFO must not warn: $(cat "$T/err")"
"$P" explain "$T/s.ini" >"$T/out" 2>&1 || fail "explain of an RT use case"
grep -q "workload: task rt (1 thread): SCHED_FIFO priority 50 (RT class)" "$T/out" \
    && grep -q "workload: task rr (1 thread): SCHED_RR priority 10 (RT class)" "$T/out" \
    || fail "explain does not show the RT class: $(grep workload "$T/out")"
ok "SCHED_FIFO and SCHED_RR run in the RT class, without a warning; explain shows class and priority"

printf '{ "tasks": { "rt": { "policy": "SCHED_FIFO", "priority": 120, "run": 100, "sleep": 900 } } }\n' >"$T/u.json"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] && grep -q "tasks.rt: priority 120 out of range for SCHED_FIFO (1..99)" "$T/err" \
    || fail "RT priority out of range: $rc $(cat "$T/err")"
ok "an RT priority outside 1..99: exit 2 naming the task"
printf '{ "tasks": { "a": { "run": 100, "sleep": 1000 } } }\n' >"$T/u.json"

sed -i '/^duration_ms/d' "$T/s.ini"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] || fail "no duration: exit status not 2"
grep -q "no global.duration: set duration_ms" "$T/err" || fail "no duration: $(cat "$T/err")"
ok "a use case without a duration needs duration_ms"

sed -i 's/^file = u.json/file = missing.json/' "$T/s.ini"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] && grep -q "s.ini:6: file: .*missing.json: No such file" "$T/err" \
    || fail "missing file: $rc $(cat "$T/err")"
ok "a missing use case file: exit 2 at the scenario's line"
