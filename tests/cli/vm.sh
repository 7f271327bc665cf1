#!/bin/sh
# [vm NAME] guest timer keys: `pmlab explain` shows what a VM's guest timers
# resolve to, and a bad value stops the load at its line with exit status 2.
. tests/lib.sh

base() { # the [vm] section's extra lines
    printf '[scenario]\nmachine = adl-desktop\n[workload]\ntype = fio\n[vm g]\nvcpus = 2\n%s\n[variant a]\n' "$1"
}
base "guest_hz = 250
guest_nohz = no
guest_timer_hz = 40
guest_timer_pattern = periodic
guest_timer_irq_us = 3" >"$T/good.ini"
"$P" explain "$T/good.ini" >"$T/out.txt" 2>&1 || fail "explain a VM with guest timer keys"
grep -q "^vm g: 2 vCPUs; guest timers: tick 250 Hz, never stopped (no nohz); own timers 40/s per vCPU (periodic), handler 3 us" "$T/out.txt" ||
    fail "explain does not show the guest timers: $(grep '^vm' "$T/out.txt")"
base "" >"$T/default.ini"
"$P" explain "$T/default.ini" | grep -q "^vm g: 2 vCPUs; guest timers: tick 1000 Hz, nohz idle (stopped on an idle vCPU); own timers 8.5/s per vCPU (Poisson, estimate), handler 2 us" ||
    fail "explain does not show the default guest timers"
ok "explain shows a VM's guest timers"

for bad in "guest_hz = 512:guest_hz: expected 100, 250, 300 or 1000" \
           "guest_nohz = sometimes:guest_nohz: expected yes or no" \
           "guest_timer_hz = 1e9:guest_timer_hz: expected timers per second in [0, 1e5]" \
           "guest_timer_pattern = bursty:guest_timer_pattern: 'bursty' is not one of: poisson periodic" \
           "guest_timer_irq_us = -2:guest_timer_irq_us: expected microseconds"; do
    base "${bad%%:*}" >"$T/bad.ini"
    rc=0
    "$P" explain "$T/bad.ini" >/dev/null 2>"$T/err.txt" || rc=$?
    [ $rc -eq 2 ] || fail "'${bad%%:*}': exit $rc, want 2"
    grep -qF "$T/bad.ini:7: ${bad#*:}" "$T/err.txt" || fail "'${bad%%:*}': $(cat "$T/err.txt")"
done
ok "bad guest timer values rejected at their line"
