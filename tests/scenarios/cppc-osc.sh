#!/bin/sh
# Seed 003 acceptance, quick mode: scenarios/cppc-osc.ini's [quick]
# configuration (10 replications, 10 kernels of 500 ms). The two fixes
# (ignore_osc_cppc_bit patch, a1ff59784b27) must score the same, single and
# multi (within +-0.5 %: published 1848/10348 vs 1847/10353, 0.05 % apart; a
# verdict is not asked for, as runs this tight can call 0.01 % significant);
# both must beat the unpatched 6.9 kernel clearly on single-core (pmlab's
# prediction; the full run gives about +70 % since issue 11's fork placement,
# +31 % before, when the workload drew each kernel's CPU at random) and stay
# within +-5 % of it on multi-core. The mechanism: with ITMT (nearly) every
# single-thread kernel ends on a P-core (asym packing pulls it within an idle
# P-CPU's MC balance interval); without, the fork slow path puts it on an
# E-core (an E-module has more idle CPUs than a P-pair) and, capacities being
# equal, no balancing rule moves a lone task to a P-core (FACTS-2.md section 4).
. tests/lib.sh

"$P" run scenarios/cppc-osc.ini --quick --quiet --format csv >"$T/all.csv" || fail "run"
"$P" run scenarios/cppc-osc.ini --quick --quiet --format csv \
    --variant osc-ignore --variant hwp-itmt >"$T/fixes.csv" || fail "run fixes"
field() { # file variant metric column
    awk -F, -v v="$2" -v m="$3" -v c="$4" '$3 == v && $4 == m { print $c }' "$1"
}
within() { # value lo hi
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}
for m in single_score multi_score; do
    d=$(field "$T/fixes.csv" hwp-itmt $m 11)
    echo "hwp-itmt vs osc-ignore (quick): $m $d %"
    within "$d" -0.5 0.5 || fail "fixes differ on $m by $d %"
done
for v in osc-ignore hwp-itmt; do
    s=$(field "$T/all.csv" $v single_score 11)
    m=$(field "$T/all.csv" $v multi_score 11)
    echo "$v vs unpatched (quick): single_score $s %, multi_score $m %"
    within "$s" 10 80 || fail "$v single_score delta $s % outside [+10, +80] %"
    [ "$(field "$T/all.csv" $v single_score 15)" = better ] || fail "$v single_score not better"
    within "$m" -5 5 || fail "$v multi_score delta $m % outside [-5, +5] %"
    # ITMT keeps single kernels on P-cores; a few may end on an idle E-core
    # that pulled one while a background thread ran on its P-core's SMT
    # sibling (asym_active_balance: the source core is not idle, so its
    # priority does not hold the task; quick: 98 %).
    pc=$(field "$T/all.csv" $v single_pcore_pct 7)
    within "$pc" 95 100 || fail "$v: $pc % of single kernels on P-cores"
done
# The unpatched kernel warns about nothing; the parameter without the patch
# is ignored with the kernel's message and the run goes on.
cat >"$T/noparch.ini" <<'INI'
[scenario]
name = noparch
machine = rpl-h
replications = 2
[workload]
type = compute
kernels = 2
kernel_ms = 50
[variant p]
kernel = 6.9
cmdline = ignore_osc_cppc_bit
INI
"$P" run "$T/noparch.ini" --quiet --format csv >/dev/null 2>"$T/err" || fail "param without patch: run failed"
grep -q 'Unknown kernel command line parameters' "$T/err" || fail "param without patch: no warning"
# kernel.sched_itmt_enabled exists only on an ITMT-capable system: a write
# to it on the unpatched kernel is bad input naming the line; on 6.10 it is
# accepted.
sed -e 's/^cmdline = ignore_osc_cppc_bit$/sysfs = \/proc\/sys\/kernel\/sched_itmt_enabled=0/' \
    "$T/noparch.ini" >"$T/itmt.ini"
set +e
"$P" run "$T/itmt.ini" --quiet >/dev/null 2>"$T/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'itmt.ini:11: /proc/sys/kernel/sched_itmt_enabled: No such file' "$T/err" ||
    fail "sched_itmt_enabled on a non-capable system: exit $rc: $(cat "$T/err")"
sed -i 's/^kernel = 6.9$/kernel = 6.10/' "$T/itmt.ini"
"$P" run "$T/itmt.ini" --quiet --format csv >/dev/null || fail "sched_itmt_enabled=0 on 6.10"
echo "ok - seed 003: _OSC CPPC v2 and ITMT"
