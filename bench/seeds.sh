#!/bin/sh
# Each seed scenario (README's table: seed 000/001, 003, 004) in its default
# configuration, as a user runs it, with --jobs 2 (this machine's cores).
# Prints BENCH seed_<name>_wall_s and seed_<name>_events_per_s from pmlab's
# own summary line (the wall time of the runs, without loading).
set -eu
P=${1:-./pmlab}
DIR=$(dirname "$0")/../scenarios
for s in ibrs-off cppc-osc kvm-haltpoll-fio kvm-haltpoll-netrr; do
    name=$(echo "$s" | tr - _)
    line=$("$P" run "$DIR/$s.ini" --jobs 2 --format json 2>&1 >/dev/null | grep '^pmlab: ')
    echo "$line" | sed -n "s/.* events in \([0-9.]*\) s (\([0-9.]*\) M events\/s.*/BENCH seed_${name}_wall_s \1 s\nBENCH seed_${name}_events_per_s \2 Mevents\/s/p"
done
