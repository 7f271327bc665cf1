#!/bin/sh
# amd-pstate preferred core, quick mode: scenarios/amd-ryzen-prefcore.ini on
# machines/ryzen-7840u.ini (FACTS-2.md section 6). The drivers a Ryzen laptop
# gets: acpi_idle on its _CST (C1 FFH, C2 and C3 I/O ports) and, on a mobile
# FADT profile, amd-pstate-epp by default. Mechanism: from 6.9 each CPU's
# CPPC highest performance is its ITMT priority (ITMT on, SD_ASYM_PACKING on
# MC), so asym packing pulls the single-threaded task from cpu0 (core 0,
# ranked 221) to the best-ranked core 2 (cpus 2 and 10, 236); with
# amd_prefcore=disable, or on 6.8, it stays on core 0. EPP power: the
# platform clocks the task down, so each 8 ms of work takes longer.
. tests/lib.sh
S=scenarios/amd-ryzen-prefcore.ini

"$P" explain "$S" >"$T/x" || fail "explain"
variant_block() { awk -v v="variant $1:" 'index($0, v) == 1 { on = 1; next } /^variant / { on = 0 } on' "$T/x"; }
variant_block prefcore | grep -q 'cpuidle: driver acpi_idle' || fail "prefcore: not acpi_idle"
variant_block prefcore | grep -q 'cpuidle state3: C3 .*ACPI IOPORT 0x415 latency 350 us' ||
    fail "prefcore: no I/O C3"
variant_block prefcore | grep -q "cpufreq: driver amd-pstate-epp, CPPC autonomous selection (active mode, EPP) on" || fail "prefcore: not amd-pstate-epp in CPPC autonomous mode (not HWP)"
variant_block prefcore | grep -q 'itmt: kernel.sched_itmt_enabled = 1' || fail "prefcore: ITMT off"
variant_block prefcore | grep -q 'itmt: priority by cpu: 0 221, 1 216, 2 236,' ||
    fail "prefcore: priorities are not the CPPC highest perf"
variant_block prefcore | grep -q 'domain1/flags .*SD_ASYM_PACKING' || fail "prefcore: MC without asym packing"
variant_block prefcore-off | grep -q 'itmt: not capable.*amd_prefcore=disable' ||
    fail "prefcore-off: ITMT capable"
variant_block prefcore-off | grep -q 'SD_ASYM_PACKING' && fail "prefcore-off: asym packing"
variant_block kernel-6.8 | grep -q 'itmt: not capable.*before v6.9' || fail "6.8: ITMT capable"
echo "ok - ryzen-7840u drivers: acpi_idle, amd-pstate-epp, preferred core by version and amd_prefcore"

busy() { # variant cpus -> busy % of those cpus
    "$P" run "$S" --quick --quiet --format csv --cpus "$2" --variant "$1" |
        awk -F, -v v="$1" '$3 == v && $4 == "cpus.busy_pct" { print $7 }'
}
for v in prefcore prefcore-off kernel-6.8; do
    best=$(busy $v 2,10)
    first=$(busy $v 0,8)
    echo "$v: busy on core 2 (best) $best %, on core 0 (launch) $first %"
    if [ $v = prefcore ]; then
        awk -v b="$best" -v f="$first" 'BEGIN { exit !(b > 25 && b > 5 * f) }' ||
            fail "prefcore: the task did not move to the best-ranked core"
    else
        awk -v b="$best" -v f="$first" 'BEGIN { exit !(f > 25 && b < 1) }' ||
            fail "$v: the task left core 0"
    fi
done
echo "ok - preferred core pulls single-thread work to the best-ranked core, and only with it"

"$P" run "$S" --quick --quiet --format csv --variant prefcore --variant epp-power >"$T/r.csv" ||
    fail "run epp"
run_avg() { awk -F, -v v="$1" '$3 == v && $4 == "run_avg_us" { print $7 }' "$T/r.csv"; }
rp=$(run_avg prefcore)
re=$(run_avg epp-power)
echo "run_avg_us: prefcore $rp, epp-power $re"
awk -v a="$rp" -v b="$re" 'BEGIN { exit !(b > 1.2 * a) }' || fail "EPP power did not slow the task"
echo "ok - EPP power runs the task at lower clocks"
