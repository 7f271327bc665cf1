#!/bin/sh
# Seed 004, quick mode: scenarios/kvm-haltpoll-fio.ini and
# kvm-haltpoll-netrr.ini ([quick]: 3 replications) against the mail's
# directions for the kvm-powersave-nopoll patch (VALIDATION.md 1c), read on
# the vCPUs' CPUs (the scenarios' [report] cpus = 0-15, cpus.* metrics):
# - KVM polls with polling on and not at all with the patch under powersave;
# - package power is not higher without polling, and C1E and the deepest
#   state (C10) take no less of the vCPU CPUs' time (no significant contrary
#   verdict, paired t with Holm): with polling at ~0.7 % of the vCPU CPUs'
#   time (below) these effects are at noise level, and their signs moved
#   between model versions (C1E +5.2 % before issue 11's placement, -3.4 %
#   after); make validate holds their published sizes (004-c1e-rise-vcpu,
#   004-c10-rise-vcpu) and reports them as misses;
# - fio and netperf throughput stay within +-2 %.
# Not asserted, because the model misses it: the mail's polling share. The
# issue's acceptance asked for 8-30 % of the vCPU CPUs' time; pmlab gives
# ~1 % since the governors see past the tick (issue 10): menu, with the next
# timer far away and a tick wakeup counted as a 45 ms idle, puts the idle vCPU
# CPUs in C10 most of the time, each halt then lasts the C10 exit longer, and
# with halt_poll_ns_shrink 0 (v6.0) every halt over 200 us shuts the window.
# The guest's timers (issue 24) bound that sleep only while the guest's tick
# runs; the default guest (nohz, no cpuidle driver) stops it on every halt,
# so they add ~0.3 points (docs/vms.md, "After issue 24's guest timers").
# `make validate` reports that figure as a MISS (docs/validation.md and
# docs/vms.md say why); widening a bound here would hide it.
. tests/lib.sh

"$P" run scenarios/kvm-haltpoll-fio.ini --quick --quiet --format csv >"$T/fio.csv" || fail "run fio"
"$P" run scenarios/kvm-haltpoll-netrr.ini --quick --quiet --format csv >"$T/rr.csv" || fail "run netrr"
field() { # file variant metric column
    awk -F, -v v="$2" -v m="$3" -v c="$4" '$3 == v && $4 == m { print $c }' "$1"
}
within() { # value lo hi
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}
F=$T/fio.csv
poll=$(field "$F" polling cpus.poll_pct 7)
nopoll=$(field "$F" nopoll cpus.poll_pct 7)
watts=$(field "$F" nopoll pkg_watts 11)
c1e=$(field "$F" nopoll cpus.residency.C1E 11)
c10=$(field "$F" nopoll cpus.residency.C10 11)
mbps=$(field "$F" nopoll read_mbps 11)
rr=$(field "$T/rr.csv" nopoll trans_per_s 11)
echo "kvm-haltpoll (quick): vCPU CPUs' poll_pct $poll % -> $nopoll %; nopoll vs polling:" \
     "pkg_watts $watts %, vCPU CPUs' C1E $c1e %, C10 $c10 %, read_mbps $mbps %, trans_per_s $rr %"
within "$poll" 0.1 100 || fail "no KVM polling with polling on: $poll %"
within "$nopoll" 0 0.01 || fail "poll_pct without polling is not ~0: $nopoll %"
[ "$(field "$F" nopoll pkg_watts 15)" != worse ] || fail "pkg_watts significantly higher without polling ($watts %)"
[ "$(field "$F" nopoll cpus.residency.C1E 15)" != lower ] ||
    fail "C1E share on the vCPU CPUs significantly lower without polling ($c1e %)"
[ "$(field "$F" nopoll cpus.residency.C10 15)" != lower ] ||
    fail "C10 share on the vCPU CPUs significantly lower without polling ($c10 %)"
within "$mbps" -2 2 || fail "read_mbps delta $mbps % outside +-2 %"
within "$rr" -2 2 || fail "trans_per_s delta $rr % outside +-2 %"
echo "ok - seed 004: KVM halt polling under powersave (directions)"
