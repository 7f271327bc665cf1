#!/bin/sh
# AMD on acpi_idle, quick mode: scenarios/amd-genoa-rr.ini. The drivers the
# kernel binds on an EPYC server (FACTS-2.md sections 5 and 6): acpi_idle
# (intel_idle does not load on AMD) with the _CST's C1 (FFH) and C2 (I/O
# port); acpi-cpufreq by default (server FADT profile), amd-pstate with
# amd_pstate=passive, amd-pstate-epp with active. Mechanism: menu puts idle
# time into the 400 us C2, whose exit the requests pay, so capping at C1
# (processor.max_cstate=1) lowers the mean latency.
. tests/lib.sh

"$P" explain scenarios/amd-genoa-rr.ini >"$T/x" || fail "explain"
variant_block() { awk -v v="variant $1:" 'index($0, v) == 1 { on = 1; next } /^variant / { on = 0 } on' "$T/x"; }
variant_block menu | grep -q 'cpuidle: driver acpi_idle, governor menu' || fail "menu: not acpi_idle"
variant_block menu | grep -q 'cpuidle state2: C2 .*ACPI IOPORT 0x414 latency 400 us, residency 800 us, I/O port read' ||
    fail "menu: no I/O C2"
variant_block menu | grep -q 'cpufreq: driver acpi-cpufreq' || fail "menu: not acpi-cpufreq"
variant_block c1-only | grep -q 'cpuidle state2' && fail "c1-only: C2 registered"
variant_block pstate-passive | grep -q 'cpufreq: driver amd-pstate$' || fail "passive: not amd-pstate"
variant_block pstate-active | grep -q 'cpufreq: driver amd-pstate-epp' || fail "active: not amd-pstate-epp"
echo "ok - AMD drivers: acpi_idle, acpi-cpufreq, amd-pstate, amd-pstate-epp"

"$P" run scenarios/amd-genoa-rr.ini --quick --quiet --format csv \
    --variant menu --variant c1-only >"$T/r.csv" 2>"$T/r.err" || fail "run: $(cat "$T/r.err")"
# the quick warm-up covers menu's start-up transient (MSER-5: 15-18 ms at 10 ms)
! grep -q 'raise warmup_ms' "$T/r.err" || fail "quick warm-up too short: $(cat "$T/r.err")"
field() { # variant metric column
    awk -F, -v v="$1" -v m="$2" -v c="$3" '$3 == v && $4 == m { print $c }' "$T/r.csv"
}
c2=$(field menu residency.C2 7)
awk -v x="$c2" 'BEGIN { exit !(x > 5) }' || fail "menu: C2 residency $c2 %"
lm=$(field menu lat_mean_us 7)
lc=$(field c1-only lat_mean_us 7)
echo "lat_mean_us: menu $lm, c1-only $lc (menu C2 residency $c2 %)"
awk -v a="$lc" -v b="$lm" 'BEGIN { exit !(a < b) }' || fail "c1-only not faster than menu"
echo "ok - the C2 exit costs latency"
