#!/bin/sh
# End-to-end speed of the full model, from pmlab's own summary line: the rr
# example at its default size, and the seed-000 jbb scenario (quick, 2
# replications) and seed-004 fio scenario (with VMs), all on all cores.
set -eu
P=${1:-./pmlab}
bench() { # name, then pmlab run arguments
    name=$1; shift
    line=$("$P" run "$@" --format json 2>&1 >/dev/null | grep '^pmlab: ')
    echo "$line" | sed -n "s/.*(\([0-9.]*\) M events\/s.*/BENCH ${name}_events_per_s \1 Mevents\/s/p"
    echo "$line" | sed -n "s/.*, \([0-9.e+]*\) simulated s per wall s.*/BENCH ${name}_sim_s_per_wall_s \1 ratio/p"
    echo "$line" | sed -n "s/.* in \([0-9.]*\) s .*/BENCH ${name}_wall \1 s/p"
    echo "$line" | sed -n "s/.*peak RSS \([0-9]*\) kB.*/BENCH ${name}_peak_rss \1 kB/p"
}
bench example_rr scenarios/example-rr.ini
bench ibrs_off_quick2 scenarios/ibrs-off.ini --quick --reps 2
bench kvm_fio scenarios/kvm-haltpoll-fio.ini
