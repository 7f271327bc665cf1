#!/bin/sh
# scenarios/rtapp-isolation.ini, quick mode (2 replications): four SCHED_FIFO
# timer threads on CPUs 4-7 of adl-desktop beside a fair load of about 12
# CPUs. Asserted, as directions (the quick run's CIs are wide):
# - isolcpus/nohz_full take the load off CPUs 4-7: their busy share drops
#   to the FIFO threads' own few percent;
# - isolated, the timer threads wake from deep states: p99 latency stays at
#   a C6-or-deeper exit (over 50 us); with intel_idle.max_cstate=2 (POLL and
#   C1E) it falls under 10 us;
# - explain says what the isolation parameters resolved to.
. tests/lib.sh

S=scenarios/rtapp-isolation.ini
"$P" run "$S" --quick --quiet --format csv >"$T/r.csv" || fail "run $S"
mean() { # variant metric
    awk -F, -v v="$1" -v m="$2" '$3 == v && $4 == m { print $7 }' "$T/r.csv"
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
busy_shared=$(mean shared cpus.busy_pct) busy_iso=$(mean isolated cpus.busy_pct)
p99_iso=$(mean isolated task.cyclic.wu_lat_p99_us) p99_c1e=$(mean isolated_c1e task.cyclic.wu_lat_p99_us)
echo "rtapp-isolation (quick): CPUs 4-7 busy $busy_shared % shared -> $busy_iso % isolated;" \
     "FIFO p99 $p99_iso us isolated, $p99_c1e us isolated with C1E deepest"
lt "$busy_iso" 10 && lt "$busy_iso" "$busy_shared" || fail "isolation did not take the load off 4-7"
lt 50 "$p99_iso" || fail "isolated FIFO threads' p99 $p99_iso us: no deep-state exit"
lt "$p99_c1e" 10 || fail "max_cstate=2 p99 $p99_c1e us not under 10 us"
"$P" explain "$S" --variant isolated >"$T/x" || fail "explain $S"
grep -q "isolation: nohz_full 4-7" "$T/x" && grep -q "isolation: isolcpus" "$T/x" \
    && grep -q "workload: task cyclic (4 threads): SCHED_FIFO priority 95 (RT class)" "$T/x" \
    || fail "explain lacks the isolation or RT lines: $(grep -E 'isolation|workload' "$T/x")"
echo "ok - isolation: load off the isolated CPUs, deep-state wake-ups there, C1E cap"
