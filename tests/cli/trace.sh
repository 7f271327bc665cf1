#!/bin/sh
# pmlab trace stats on the real Juno trace (tests/data/traces): the counts
# trace-cmd report gives (474 cpu_idle events: 237 entries, 122 / 62 / 53 in
# states 0 / 1 / 2), a copy cut short (read as far as it goes, saying what
# was dropped), and bad input (exit 2).
. tests/lib.sh
gzip -dc tests/data/traces/juno-sched_load.trace.dat.gz >"$T/juno.dat"

"$P" trace stats "$T/juno.dat" --target-residency-us 1,2000,2500 >"$T/out" || fail "trace stats"
grep -q "events: cpu_idle 474, cpu_frequency 16, sched_switch 399" "$T/out" \
    || fail "event counts: $(sed -n 2p "$T/out")"
hits() { awk -v s="$1" '$2 == s && $1 ~ /^[0-9]+$/ && NF == 10 { n += $3 } END { print n }' "$T/out"; }
[ "$(hits 0)" = 122 ] && [ "$(hits 1)" = 62 ] && [ "$(hits 2)" = 53 ] \
    || fail "per-state hits $(hits 0)/$(hits 1)/$(hits 2), want 122/62/53"
grep -q "^dropped" "$T/out" && fail "a whole file reported as dropping events"
ok "juno: 474 cpu_idle events, hits per state as trace-cmd report counts them"

# --format json: the same counts, and state_hits summed over the CPUs
# (jansson's two-space layout: one value a line).
"$P" trace stats "$T/juno.dat" --format json >"$T/json" || fail "trace stats --format json"
grep -q '^    "cpu_idle": 474,$' "$T/json" || fail "json: cpu_idle count"
[ "$(sed -n '/"state_hits"/,/]/p' "$T/json" | tr -d ' \n')" = '"state_hits":[122,62,53],' ] \
    || fail "json state_hits: $(sed -n '/"state_hits"/,/]/p' "$T/json" | tr -d ' \n')"
set +e
"$P" trace stats "$T/juno.dat" --format xml >/dev/null 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "--format xml: exit $rc"
ok "trace stats --format json: 474 cpu_idle events, state_hits 122/62/53"

# Cut inside CPU 3's events (its data starts at 3338240 and holds 56 KiB):
# the rest of CPU 3 and all of CPUs 4 and 5 are gone.
head -c 3360000 "$T/juno.dat" >"$T/cut.dat"
"$P" trace stats "$T/cut.dat" >"$T/cut" || fail "truncated trace: exit $?"
grep -q "dropped: the file ends early: CPU 3: 20 of 56 KiB of events; CPU 4: 0 of 24 KiB" "$T/cut" \
    || fail "truncation not said: $(grep dropped "$T/cut")"
n=$(sed -n 's/^events: cpu_idle \([0-9]*\),.*/\1/p' "$T/cut")
[ "$n" -gt 0 ] && [ "$n" -lt 474 ] || fail "truncated trace: $n cpu_idle events"
ok "a file cut short is read as far as it goes ($n cpu_idle events) and says what was dropped"

set +e
echo "not a trace" >"$T/bad.dat"
"$P" trace stats "$T/bad.dat" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "bad.dat: not a trace-cmd trace.dat" "$T/err" || fail "not a trace: $rc $(cat "$T/err")"
"$P" trace stats "$T/juno.dat" --target-residency-us 1,x >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] || fail "bad table: exit $rc"
"$P" trace stats >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no file: exit $rc"
set -e
ok "bad input: exit 2"

# whatif: the same periods through menu and teo; every period accounted on
# both sides; a bad table or governor is exit 2. The table is the one the
# Juno board's kernel registers: cpuidle-psci's WFI (1 us, 1 us), then the
# device tree's cpu-sleep-0 and cluster-sleep-0 (arch/arm64/boot/dts/arm/
# juno.dts: min-residency-us 2000 and 2500, entry-latency-us 300 and
# exit-latency-us 1200 each), whose cpuidle exit latency dt_idle_states.c
# makes entry + exit = 1500 us when wakeup-latency-us is absent.
for g in menu teo; do
    "$P" trace whatif "$T/juno.dat" --governor $g --target-residency-us 1,2000,2500 \
        --exit-latency-us 1,1500,1500 >"$T/w-$g" || fail "whatif $g"
    grep -q "^all CPUs: real 231 periods, .*; $g 231 periods" "$T/w-$g" \
        || fail "whatif $g: $(grep '^all' "$T/w-$g")"
    grep -q "^told: sleep length = time from idle entry to the next timer expiry the trace records on the CPU" "$T/w-$g" &&
        grep -q "^told: of 231 periods, [0-9]* ended by a recorded timer" "$T/w-$g" &&
        grep -q "^approximated: tick running" "$T/w-$g" \
        || fail "whatif $g: what the governor was told not said"
done
cmp -s "$T/w-menu" "$T/w-teo" && fail "menu and teo chose the same for every period"
set +e
"$P" trace whatif "$T/juno.dat" --governor menu --target-residency-us 1,2 --exit-latency-us 1 \
    >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "whatif: lists of different lengths: exit $rc"
"$P" trace whatif "$T/juno.dat" --governor nope --target-residency-us 1 --exit-latency-us 1 \
    >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "whatif: unknown governor: exit $rc"
set -e
ok "whatif: the trace's 231 closed periods through menu and teo, beside the real choices"
# whatif --machine: the table the machine's cpuidle driver registers (as
# pmlab run builds it), states matched by index; a machine and lists
# together, or an unknown machine, is exit 2.
"$P" trace whatif "$T/juno.dat" --governor teo --machine rpl-h >"$T/w-rpl" || fail "whatif --machine"
grep -q "^table: intel_idle on rpl-h: firmware _CST" "$T/w-rpl" || fail "whatif --machine: $(sed -n 2p "$T/w-rpl")"
grep -q "what-if governor teo, HZ 250, 4 states$" "$T/w-rpl" || fail "whatif --machine: $(head -1 "$T/w-rpl")"
grep -q "^0    C3_ACPI " "$T/w-rpl" || fail "whatif --machine: no C3_ACPI row"
set +e
"$P" trace whatif "$T/juno.dat" --governor teo --machine rpl-h --target-residency-us 1 \
    --exit-latency-us 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no --target-residency-us" "$T/err" || fail "machine and lists: $rc"
"$P" trace whatif "$T/juno.dat" --governor teo --machine nosuch >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "nosuch: unknown machine" "$T/err" || fail "unknown machine: $rc $(cat "$T/err")"
set -e
ok "whatif --machine rpl-h: intel_idle's 4-state table from the machine file"

# whatif --machine juno-r0: the machine that recorded the trace. psci_idle
# builds its table from the device tree (WFI 1/1 us, then exit latency =
# entry + exit = 1500 us, residency = min-residency 2000 / 2500 us), so the
# what-if equals the one through that table given by hand, period for
# period and counter for counter (only the state names differ).
for g in menu teo; do
    "$P" trace whatif "$T/juno.dat" --governor $g --machine juno-r0 >"$T/wj-$g" \
        || fail "whatif --machine juno-r0 $g"
    "$P" trace whatif "$T/juno.dat" --governor $g --target-residency-us 1,2000,2500 \
        --exit-latency-us 1,1500,1500 >"$T/wt-$g" || fail "whatif table $g"
    grep -q "^table: psci_idle on juno-r0: psci, from DT" "$T/wj-$g" \
        || fail "whatif juno-r0: $(sed -n 2p "$T/wj-$g")"
    rows() { awk '$1 ~ /^[0-9]+$/ && NF == 10 { $2 = ""; print }' "$1"; }
    [ "$(rows "$T/wj-$g" | wc -l)" -ge 6 ] || fail "whatif juno-r0 $g: no rows"
    [ "$(rows "$T/wj-$g")" = "$(rows "$T/wt-$g")" ] \
        || fail "whatif juno-r0 $g differs from the 1/2000/2500, 1/1500/1500 table"
    grep -q "^0    cluster-sleep-0 " "$T/wj-$g" || fail "whatif juno-r0: no cluster-sleep-0 row"
done
ok "whatif --machine juno-r0: psci_idle's DT table (residency 1/2000/2500, exit 1/1500/1500 us)"
