#!/bin/sh
# End-to-end speed of the full model: the example scenario at its default size
# on all cores, reported from pmlab's own summary line.
set -eu
P=${1:-./pmlab}
line=$("$P" run scenarios/example-rr.ini --format json 2>&1 >/dev/null | grep '^pmlab: ')
echo "$line" | sed -n 's/.*(\([0-9.]*\) M events\/s).*/BENCH example_rr_events_per_s \1 Mevents\/s/p'
echo "$line" | sed -n 's/.* in \([0-9.]*\) s .*/BENCH example_rr_wall \1 s/p'
echo "$line" | sed -n 's/.*peak RSS \([0-9]*\) kB.*/BENCH example_rr_peak_rss \1 kB/p'
