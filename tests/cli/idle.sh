#!/bin/sh
# The idle workload from a scenario file: per-CPU rate lists (over
# continuation lines too) run and come out as hk_timers_per_s; a negative rate and
# a list that fits no CPU count are exit 2 naming FILE:LINE.
. tests/lib.sh

scenario() {
    cat >"$T/s.ini" <<EOT
[scenario]
name = idle-t
machine = adl-desktop
replications = 2

[workload]
type = idle
$1

[quick]
warmup_ms = 0
duration_ms = 2000

[variant base]
kernel = 6.12
EOT
}

# 24 CPUs: 12 at 40/s and 12 without timers, the list cut over two lines.
scenario "timer_hz = 40 40 40 40 40 40 40 40 40 40 40 40
    0 0 0 0 0 0 0 0 0 0 0 0
device_hz = 0"
"$P" run "$T/s.ini" --quick --format csv >"$T/out" 2>"$T/e" || fail "run: $(cat "$T/e")"
hk=$(awk -F, '$4 == "hk_timers_per_s" { print $7; exit }' "$T/out")
[ -n "$hk" ] || fail "no hk_timers_per_s: $(head -3 "$T/out")"
awk -v v="$hk" 'BEGIN { exit !(v > 18 && v < 22) }' || fail "hk_timers_per_s $hk, want about 20"
# LOC counts those timers' interrupts and the ticks that woke an idle CPU
# (after the wake-up chains' short idle periods the governor keeps the
# tick): at least the timers that did not ride on a tick.
loc=$(awk -F, '$4 == "loc_per_s" { print $7; exit }' "$T/out")
awk -v v="$loc" -v h="$hk" 'BEGIN { exit !(v > 0.9 * h) }' || fail "loc_per_s $loc below the timers' $hk"
dev=$(awk -F, '$4 == "device_irqs_per_s" { print $7; exit }' "$T/out")
[ "$dev" = 0 ] || fail "device_irqs_per_s $dev, want 0"
ok "idle: a per-CPU timer list over two lines gives its mean rate"

expect_error() {
    set +e
    "$P" run "$T/s.ini" --quick >/dev/null 2>"$T/e"; rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$2: exit $rc, want 2"
    grep -q "$1" "$T/e" || fail "$2: $(cat "$T/e")"
}
scenario "device_hz = 1 2 3"
expect_error "s.ini:8: device_hz: 3 values for 24 CPUs" "short list"
scenario "timer_hz = 8 -1"
expect_error "s.ini:8: timer_hz: value 2: -1 out of range" "negative rate"
ok "idle: a negative rate and a list of the wrong length are FILE:LINE, exit 2"

# [measured] (pmlab import writes it): kept, not run; a value that is no number is FILE:LINE.
scenario "timer_hz = 8"
printf '\n[measured]\nbusy_pct = 0.21\n' >>"$T/s.ini"
"$P" run "$T/s.ini" --quick >/dev/null 2>"$T/e" || fail "[measured]: $(cat "$T/e")"
printf 'pkg_watts = 1,3\n' >>"$T/s.ini"
expect_error "s.ini:19: \[measured\] pkg_watts: expected a number, got '1,3'" "[measured] value"
ok "idle: a [measured] section loads; a bad value is FILE:LINE, exit 2"
