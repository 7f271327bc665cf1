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
# uclamp: util_max on a busy task under schedutil (acpi-cpufreq: the target
# is the frequency) slows it down; a variant's own workload.file (the
# scenario's file must survive it); a refused request fails the run.
cat >"$T/uc.ini" <<'INI'
[scenario]
name = uclamp
machine = adl-desktop
[workload]
type = rtapp
file = free.json
duration_ms = 100
[variant free]
kernel = 6.12
cmdline = intel_pstate=disable
sysfs = /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor=schedutil
[variant capped]
kernel = 6.12
cmdline = intel_pstate=disable
sysfs = /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor=schedutil
workload.file = capped.json
INI
printf '{ "tasks": { "a": { "instance": 2, "run": 3000, "timer": { "ref": "unique", "period": 4000 } } } }\n' >"$T/free.json"
printf '{ "tasks": { "a": { "instance": 2, "util_max": 300, "run": 3000, "timer": { "ref": "unique", "period": 4000 } } } }\n' >"$T/capped.json"
"$P" run "$T/uc.ini" --reps 2 --quiet --format csv >"$T/uc.csv" 2>"$T/err" || fail "uclamp run: $(cat "$T/err")"
[ ! -s "$T/err" ] || fail "util_max must not warn: $(cat "$T/err")"
free=$(awk -F, '$3 == "free" && $4 == "bzy_mhz" { print $7 }' "$T/uc.csv")
capped=$(awk -F, '$3 == "capped" && $4 == "bzy_mhz" { print $7 }' "$T/uc.csv")
[ -n "$free" ] && [ -n "$capped" ] || fail "no bzy_mhz rows: $(head -3 "$T/uc.csv")"
awk -v f="$free" -v c="$capped" 'BEGIN { exit !(c < 0.6 * f) }' \
    || fail "util_max 300 should cut the busy frequency (free $free MHz, capped $capped MHz)"
"$P" explain "$T/uc.ini" >"$T/out" 2>&1 || fail "explain of a uclamp use case"
grep -q "workload: task a: sched_setattr util_min -1, util_max 300 at its start" "$T/out" \
    || fail "explain does not show the clamp: $(grep workload "$T/out")"
ok "util_max caps schedutil's frequency ($free -> $capped MHz); explain shows it; a variant's own rt-app file"
"$P" run "$T/uc.ini" --reps 2 --format json >"$T/uc.json" 2>/dev/null || fail "uclamp json run"
"$P" run "$T/uc.ini" --reps 2 >"$T/uc.txt" 2>/dev/null || fail "uclamp table run"
grep -q '"workload": "file=capped.json"' "$T/uc.json" && [ "$(grep -c '"workload": ' "$T/uc.json")" -eq 1 ] \
    && grep -q "^variant capped .*  workload: file=capped.json" "$T/uc.txt" \
    && ! grep -q "^variant free .*workload:" "$T/uc.txt" \
    || fail "a variant's own workload keys are not shown: $(grep '^variant' "$T/uc.txt")"
ok "the table's variant line and the JSON name a variant's own workload keys, only where it has them"

# A file given with --set is relative to the current directory (not to the
# scenario's, nor to the option's own text).
mkdir -p "$T/cwd/sub"
cp "$T/capped.json" "$T/cwd/sub/other.json"
PA=$(cd "$(dirname "$P")" && pwd)/$(basename "$P")
(cd "$T/cwd" && PMLAB_MACHINES="$OLDPWD/machines" "$PA" run "$T/uc.ini" --reps 1 --quiet --variant free --set workload.file=sub/other.json \
    --format csv >"$T/set.csv" 2>"$T/err") || fail "--set workload.file relative to the current directory: $(cat "$T/err")"
(cd "$T/cwd" && PMLAB_MACHINES="$OLDPWD/machines" "$PA" sweep "$T/uc.ini" --reps 1 --db "$T/g.db" \
    --grid workload.file=sub/other.json,../free.json >/dev/null 2>"$T/err") \
    || fail "--grid workload.file relative to the current directory: $(cat "$T/err")"
ok "a workload file given by --set or --grid is relative to the current directory"

printf '{ "tasks": { "a": { "util_min": 800, "util_max": 500, "run": 100, "sleep": 1000 } } }\n' >"$T/capped.json"
status "$P" run "$T/uc.ini" --quiet
[ $rc -ne 0 ] && grep -q "tasks.a: sched_setattr refuses a util_min above the task's util_max (EINVAL)" "$T/err" \
    || fail "refused uclamp request: $rc $(cat "$T/err")"
printf '{ "tasks": { "a": { "util_max": 1025, "run": 100, "sleep": 1000 } } }\n' >"$T/capped.json"
status "$P" run "$T/uc.ini" --quiet
[ $rc -eq 2 ] && grep -q "tasks.a.util_max: 1025 is out of range" "$T/err" \
    || fail "util_max 1025: $rc $(cat "$T/err")"
printf '{ "tasks": { "a": { "util_max": 300, "run": 100, "sleep": 1000 } } }\n' >"$T/capped.json"
sed -i 's/^kernel = 6.12/kernel = 5.2/' "$T/uc.ini"
status "$P" run "$T/uc.ini" --quiet
[ $rc -ne 0 ] && grep -q "EOPNOTSUPP (uclamp needs kernel 5.3" "$T/err" \
    || fail "uclamp before 5.3: $rc $(cat "$T/err")"
sed -i 's/^kernel = 5.2/kernel = 6.12/' "$T/uc.ini"
printf '[variant limits]\nsysfs = /proc/sys/kernel/sched_util_clamp_max=500\n' >>"$T/uc.ini"
status "$P" run "$T/uc.ini" --quiet
[ $rc -eq 2 ] && grep -q "uc.ini:18: the kernel refuses this write (EINVAL)" "$T/err" \
    || fail "sched_util_clamp_max below the default min: $rc $(cat "$T/err")"
ok "refused clamps: min above max and uclamp before 5.3 fail the run; util_max 1025 and a max below the min are exit 2"

printf '{ "tasks": { "a": { "cpus": [30], "run": 100, "sleep": 1000 } } }\n' >"$T/u.json"
status "$P" run "$T/s.ini" --quiet
[ $rc -eq 2 ] && grep -q "^$T/s.ini:6: file: .*u.json: CPU 30 (in cpus or calibration) is not on adl-desktop (CPUs 0-23)" "$T/err" \
    || fail "a CPU the machine lacks: $rc $(cat "$T/err")"
ok "a use case naming a CPU the machine lacks: exit 2 at the file's line, before anything runs"

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
