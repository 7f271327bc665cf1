#!/bin/sh
# `pmlab import`: a copied sysfs/proc tree (tests/data/import-root: a 4-CPU
# AMD host on acpi_idle with an I/O-port C2) and every stats-collect/pepc
# snapshot in tests/data/hosts become machine files that load and
# scenarios that run; missing pieces are warnings, a missing CPU list exit 2.
. tests/lib.sh

mkdir -p "$T/machines" "$T/scenarios"
"$P" import --root tests/data/import-root --name amdbox -o "$T/machines/amdbox.ini" \
    --scenario "$T/scenarios/amdbox.ini" 2>"$T/e" || fail "import --root: $(cat "$T/e")"
M="$T/machines/amdbox.ini"
grep -q '^vendor = amd$' "$M" || fail "root: vendor"
grep -q '^cpu_family = 0x19$' "$M" || fail "root: family"
grep -q '^cpu_numbering = split' "$M" || fail "root: cpu0/cpu1 on different cores"
grep -q '^cores_per_package = 2 ' "$M" || fail "root: cores"
grep -q '^min_mhz = 1500 .*cpufreq sysfs' "$M" || fail "root: min_mhz"
grep -q 'pkg_active_power_mw = 90000 *; estimated, from epyc-genoa-2s' "$M" || fail "root: estimated mark"
grep -q '^cst_methods = ffh io$' "$M" && grep -q '^cst_mwait_hints = 0x0 0x414$' "$M" ||
    fail "root: _CST from the host's acpi_idle states"
S="$T/scenarios/amdbox.ini"
grep -q '^kernel = 6.8$' "$S" || fail "root: kernel"
grep -q "^config = CONFIG_HZ=300 *; the host's /boot/config" "$S" || fail "root: CONFIG_HZ from /boot/config"
grep -q '^cmdline = amd_pstate=passive processor.max_cstate=2 cpuidle.governor=teo$' "$S" ||
    fail "root: cmdline $(grep cmdline "$S")"
"$P" explain "$S" >"$T/x" 2>"$T/e" || fail "explain imported: $(cat "$T/e")"
grep -q 'cpuidle: driver acpi_idle, governor teo' "$T/x" || fail "root: acpi_idle/teo"
grep -q 'cpufreq: driver amd-pstate$' "$T/x" || fail "root: amd-pstate"
"$P" run "$S" --quick --quiet >/dev/null 2>"$T/e" || fail "run imported: $(cat "$T/e")"
echo "ok - import --root: AMD tree, acpi_idle _CST, scenario runs"

# tests/data/import-zen2 (hand-built): a 4-core Zen 2 client part with two
# CCXs. Its index3 shared_cpu_list becomes llc_groups (MC spans a CCX, PKG
# the package); its nearest machine is the client one by size, no shipped
# machine having its family/model; Genoa's family/model picks Genoa at any size.
Z="$T/machines/zen2.ini"
"$P" import --root tests/data/import-zen2 --name zen2 -o "$Z" --scenario "$T/scenarios/zen2.ini" \
    2>"$T/e" || fail "import zen2: $(cat "$T/e")"
grep -qx 'llc_groups = 0-1,4-5 2-3,6-7' "$Z" || fail "zen2: llc_groups $(grep llc_groups "$Z")"
grep -q 'pkg_active_power_mw = .*estimated, from ryzen-7840u' "$Z" || fail "zen2: not nearest ryzen-7840u"
! grep -q '^llc_groups' "$M" || fail "root: llc_groups without index3 lists"
"$P" explain "$T/scenarios/zen2.ini" >"$T/x" 2>"$T/e" || fail "explain zen2: $(cat "$T/e")"
grep -q 'cpu0/domain1/name MC: span 0-1,4-5,' "$T/x" || fail "zen2: MC not the CCX: $(grep domain1/name "$T/x")"
cp -R tests/data/import-zen2 "$T/genoa"
sed -i 's/^cpu family\t: 23/cpu family\t: 25/; s/^model\t\t: 113/model\t\t: 17/' "$T/genoa/proc/cpuinfo"
"$P" import --root "$T/genoa" -o "$T/genoa.ini" 2>"$T/e" || fail "import genoa model: $(cat "$T/e")"
grep -q 'pkg_active_power_mw = .*estimated, from epyc-genoa-2s' "$T/genoa.ini" ||
    fail "family 0x19 model 0x11: not nearest epyc-genoa-2s"
echo 7 >"$T/genoa/sys/devices/system/cpu/cpu7/cache/index3/shared_cpu_list"
"$P" import --root "$T/genoa" -o "$T/genoa.ini" 2>"$T/e" || fail "import odd llc: $(cat "$T/e")"
grep -q 'warning: cache/index3/shared_cpu_list does not split the CPUs' "$T/e" &&
    ! grep -q '^llc_groups' "$T/genoa.ini" || fail "inconsistent index3 lists: $(cat "$T/e")"
echo "ok - import: index3 shared_cpu_list as llc_groups; AMD nearest machine by family/model, else size"

# Outputs replace a file whole: written beside it and renamed (a new inode,
# no temporary left), never truncated and rewritten in place.
mkdir "$T/atomic"
echo old >"$T/atomic/m.ini"
echo old >"$T/atomic/s.ini"
im=$(stat -c %i "$T/atomic/m.ini")
is=$(stat -c %i "$T/atomic/s.ini")
"$P" import --root tests/data/import-root --name amdbox -o "$T/atomic/m.ini" \
    --scenario "$T/atomic/s.ini" 2>/dev/null || fail "atomic: import"
[ "$(stat -c %i "$T/atomic/m.ini")" != "$im" ] || fail "atomic: machine file rewritten in place"
[ "$(stat -c %i "$T/atomic/s.ini")" != "$is" ] || fail "atomic: scenario rewritten in place"
grep -q '^vendor = amd$' "$T/atomic/m.ini" && grep -q '^kernel = 6.8$' "$T/atomic/s.ini" ||
    fail "atomic: contents"
[ "$(ls -A "$T/atomic" | wc -l)" -eq 2 ] || fail "atomic: left behind: $(ls -A "$T/atomic")"
echo "ok - import writes its files through a temporary and a rename"

H=tests/data/hosts
[ -d "$H/adl0" ] && [ -d "$H/rpl0" ] || fail "no host snapshots in $H"
{
    for d in "$H"/*/; do
        n=$(basename "$d")
        "$P" import "$d" -o "$T/machines/$n.ini" --scenario "$T/scenarios/$n.ini" 2>"$T/e.$n" ||
            fail "import $n: $(cat "$T/e.$n")"
        grep -q '^; measured: interrupts.raw.txt' "$T/machines/$n.ini" || fail "$n: no LOC rates"
        "$P" run "$T/scenarios/$n.ini" --quick --quiet >/dev/null 2>"$T/e" || fail "run $n: $(cat "$T/e")"
        echo "ok - import $n: loads and runs quick"
    done
    grep -q 'PkgWatt 1.34' "$T/machines/adl0.ini" || fail "adl0: turbostat PkgWatt"
    # adl0 ran Fedora's 6.11.4-301.fc41 (CONFIG_HZ_1000); rpl0's custom kernel says nothing
    grep -q "^config = CONFIG_HZ=1000 *; Fedora's kernel config" "$T/scenarios/adl0.ini" ||
        fail "adl0: CONFIG_HZ from the Fedora release"
    grep -q '^; CONFIG_HZ unknown' "$T/scenarios/rpl0.ini" && ! grep -q '^config = ' "$T/scenarios/rpl0.ini" ||
        fail "rpl0: a CONFIG_HZ it cannot know"
    # The idle workload at adl0's rates: (last - first) / 115 s of each CPU's
    # LOC row and of its numbered (device) rows.
    S0="$T/scenarios/adl0.ini"
    grep -q '^type = idle$' "$S0" || fail "adl0: not the idle workload"
    grep -qx 'timer_hz = 22.78 4.71 13.96 22.54 8.70 8.23 4.03 5.36 6.42 5.99 3.58 4.23 7.78 9.68 3.50 4.23' "$S0" ||
        fail "adl0: timer_hz $(grep timer_hz "$S0")"
    # The xHCI line behind console=ttyUSB0 (IRQ 135, cpu0, 62.61/s) is a
    # [device] of its own, out of device_hz; no package-depth limit is
    # inferred (rpl0 had the same console and rate and reached PC8).
    grep -qx 'device_hz = 0.00 0.00 0.52 0.52 0.58 0.56 0.01 0.00 0.04 0.00 0.00 2.40 0.01 0.07 0.07 0.00' "$S0" ||
        fail "adl0: device_hz $(grep device_hz "$S0")"
    sed -n '/^\[device xhci_hcd\]/,/^\[/p' "$S0" | grep -v '^;' >"$T/dev"
    for kv in 'cpu = 0' 'irq_hz = 62.61' 'pkg_limit = none'; do
        grep -qx "$kv" "$T/dev" || fail "adl0 [device xhci_hcd]: no '$kv' in: $(cat "$T/dev")"
    done
    sed 's/^pkg_limit = none$/pkg_limit = PC3/' "$S0" >"$T/scenarios/adl0-pc3.ini"
    "$P" explain "$T/scenarios/adl0-pc3.ini" 2>/dev/null | grep -q 'device xhci_hcd: 62.61 interrupts/s on cpu0; package-depth limit PC3 while active' ||
        fail "adl0: explain shows no package-depth limit"
    # [measured]: turbostat means and the cpuidle counters after - before.
    sed -n '/^\[measured\]/,$p' "$S0" | grep -v '^;' >"$T/meas"
    for kv in 'loc_per_s = 8.48' 'device_irqs_per_s = 4.21' 'busy_pct = 0.21' 'pkg_watts = 1.34' \
              'residency.C10 = 99.75' 'above_pct.C1E = 19.13' 'below_pct.POLL = 38.95' \
              'above_pct.C10 = 15.53' 'below_pct.C8 = 49.37' 'above_pct = 12.19' 'below_pct = 21.40' \
              'pkg_residency.PC3 = 92.65' 'pkg_residency.PC10 = 0.00'; do
        grep -qx "$kv" "$T/meas" || fail "adl0 [measured]: no '$kv' in: $(cat "$T/meas")"
    done
    ! grep -q '^busy_pct\|^pkg_watts' "$T/scenarios/rpl0.ini" || fail "rpl0: turbostat values without turbostat"
    grep -qx 'above_pct.C10 = 8.51' "$T/scenarios/rpl0.ini" || fail "rpl0: above_pct.C10"
    echo "ok - import adl0/rpl0: idle workload rates and [measured] values"
    # A package state the host's turbostat has no Pkg%pcN column for is left
    # out (the column's presence, never its value).
    cp -r "$H/adl0" "$T/nopc6"
    sed -i 's/\tPkg%pc6\t/\tOther\t/' "$T/nopc6/turbostat.raw.txt"
    "$P" import "$T/nopc6" -o "$T/machines/nopc6.ini" --scenario "$T/scenarios/nopc6.ini" 2>/dev/null ||
        fail "nopc6: import"
    ! grep -q '^\[pkgstate PC6\]' "$T/machines/nopc6.ini" && grep -q '^\[pkgstate PC8\]' "$T/machines/nopc6.ini" ||
        fail "nopc6: package states $(grep pkgstate "$T/machines/nopc6.ini")"
    "$P" run "$T/scenarios/nopc6.ini" --quick --quiet >/dev/null 2>"$T/e" || fail "run nopc6: $(cat "$T/e")"
    echo "ok - import: a package state the host's turbostat lacks is left out"
    # adl0 ran stock intel_idle (adl_l table): pmlab builds the same states.
    # rpl0 ran a patched kernel with a Raptor Lake table mainline lacks.
    ! grep -q 'note: state' "$T/e.adl0" || fail "adl0: states differ: $(cat "$T/e.adl0")"
    grep -q 'note: state1 is C1E (2/4 us) on the host but C1_ACPI (1/1 us)' "$T/e.rpl0" ||
        fail "rpl0: no state note: $(cat "$T/e.rpl0")"
    grep -q '^cpu_model = ALDERLAKE_L ' "$T/machines/adl0.ini" || fail "adl0: model"
    # The hardware states are the host's own (POLL C1E C6 C8 C10 in sysfs):
    # no C1 from adl-desktop, C10's exit the host's 230 us, split as
    # adl-desktop's rule (core = 230 x 92/133 = 159, package the rest, 71).
    M0="$T/machines/adl0.ini"
    ! grep -q '^\[cstate [PE] C1\]' "$M0" || fail "adl0: a C1 the host lacks"
    [ "$(grep -c '^\[cstate [PE] ' "$M0")" -eq 8 ] || fail "adl0: not C1E C6 C8 C10 per type"
    for t in P E; do
        sed -n "/^\[cstate $t C10\]/,/^\$/p" "$M0" | grep -qx 'exit_latency_us = 159' ||
            fail "adl0: $t C10 core part"
    done
    sed -n '/^\[pkgstate PC10\]/,/^$/p' "$M0" | grep -qx 'exit_latency_us = 71' || fail "adl0: PC10 part"
    grep -q "split as adl-desktop's rule" "$M0" || fail "adl0: split not said"
    grep -q '^; borrowed from adl-desktop: every power figure' "$M0" || fail "adl0: borrowed not said"
    # rpl0's table (patched kernel, intel_idle): the host's states and its
    # C10 215 us, all of it core as rpl-h's (its package states add none).
    ! grep -q '^\[cstate [PE] C1\]' "$T/machines/rpl0.ini" || fail "rpl0: a C1 the host lacks"
    sed -n '/^\[cstate P C10\]/,/^$/p' "$T/machines/rpl0.ini" | grep -qx 'exit_latency_us = 215' ||
        fail "rpl0: C10"
    echo "ok - import: the host's idle states, none it lacks, C10 230 us split as adl-desktop's"
    # Idle entries per CPU per second: all states' usage growth over the
    # 120 s of info.yml (adl0: 82753 entries / 16 CPUs / 120 s), each state's share.
    for kv in 'idle_entries_per_s = 43.10' 'usage_pct.POLL = 36.36' 'usage_pct.C1E = 17.24' \
              'usage_pct.C6 = 2.85' 'usage_pct.C8 = 7.80' 'usage_pct.C10 = 35.75' 'cal_per_s = 0.25'; do
        grep -qx "$kv" "$T/meas" || fail "adl0 [measured]: no '$kv' in: $(cat "$T/meas")"
    done
    grep -qx 'idle_entries_per_s = 28.84' "$T/scenarios/rpl0.ini" || fail "rpl0: idle_entries_per_s"
    grep -qx 'usage_pct.C1E = 43.88' "$T/scenarios/rpl0.ini" || fail "rpl0: usage_pct.C1E"
    echo "ok - import: idle entries per CPU per second and usage shares in [measured]"
    # The wake-up chains' mean from the inputs: entries / interrupts - 1
    # (adl0: 43.10 / 12.70, rpl0: 28.84 / 8.97).
    grep -qx 'bg_msgs_per_irq = 2.39' "$T/machines/adl0.ini" || fail "adl0: bg_msgs_per_irq: $(grep bg_msgs "$T/machines/adl0.ini")"
    grep -qx 'bg_msgs_per_irq = 2.22' "$T/machines/rpl0.ini" || fail "rpl0: bg_msgs_per_irq: $(grep bg_msgs "$T/machines/rpl0.ini")"
    echo "ok - import: bg_msgs_per_irq from the host's idle entries and interrupts"
    # The run sets every [measured] value beside pmlab's: table, JSON, HTML.
    "$P" run "$S0" --quick --quiet --report "$T/rep" >"$T/tab" 2>"$T/e" || fail "run adl0: $(cat "$T/e")"
    grep -q '^measured on the host beside pmlab' "$T/tab" || fail "table: no measured block"
    grep -Eq '^idle_entries_per_s +1/s +43\.10  [0-9.]+ ± [0-9.]+ \(2\) +[+-][0-9.]+ +[+-][0-9.]+%$' "$T/tab" ||
        fail "table: idle_entries_per_s row: $(grep '^idle_entries_per_s' "$T/tab")"
    grep -Eq '^cal_per_s +0\.2500  not reported' "$T/tab" || fail "table: a value pmlab lacks"
    "$P" run "$S0" --quick --quiet --format json >"$T/j" 2>"$T/e" || fail "json: $(cat "$T/e")"
    python3 - "$T/j" <<'PY' || fail "json: measured"
import json, sys
j = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in j["measured"]}
e = m["idle_entries_per_s"]
assert e["measured"] == 43.10, e
p = e["predictions"][0]
assert p["variant"] == "host"
mean = j["variants"][0]["metrics"]["idle_entries_per_s"]["mean"]
assert abs(p["mean"] - mean) < 1e-12 and abs(p["gap"] - (mean - 43.10)) < 1e-9, p
assert abs(p["gap_pct"] - 100 * (mean - 43.10) / 43.10) < 1e-9, p
assert m["cal_per_s"]["predictions"][0]["mean"] is None
PY
    grep -q '<section id="measured">' "$T/rep/report.html" &&
        grep -q '<th class="l" scope="row">usage_pct.C10</th><td>35.75</td>' "$T/rep/report.html" ||
        fail "html: no measured section"
    echo "ok - run: [measured] beside pmlab's prediction in table, JSON and HTML"
    grep -q '^l2_groups = 0-1 2-3 4-5 6-7 8-11 12-15$' "$T/machines/rpl0.ini" || fail "rpl0: l2 groups"
    # SMT4 and SMT8 hosts: adl0's snapshot with its 16 CPUs renumbered as 4
    # cores of 4 threads (adjacent) and 2 cores of 8 (split: core c is CPUs
    # c, c+2, ...): the machine has the host's width, loads and runs.
    for w in 4 8; do
        mkdir "$T/smt$w"
        cp "$H/adl0/"* "$T/smt$w/"
        awk -v W=$w 'NR == 1 { print; next }
             { c = W == 4 ? int($1 / 4) : $1 % 2
               printf "%3d %7d %9d %7d %10d    P-core\n", $1, c, c, 0, 0 }' \
            "$H/adl0/pepc_topology.after.raw.txt" >"$T/smt$w/pepc_topology.after.raw.txt"
        "$P" import "$T/smt$w" -o "$T/machines/smt$w.ini" --scenario "$T/scenarios/smt$w.ini" \
            2>"$T/e" || fail "smt$w: $(cat "$T/e")"
        M="$T/machines/smt$w.ini"
        grep -q "^threads_per_core = $w\$" "$M" || fail "smt$w: machine threads_per_core"
        grep -q "^threads_per_core = $w  *; topology" "$M" || fail "smt$w: core type threads"
        grep -q "^cores_per_package = $((16 / w)) " "$M" || fail "smt$w: cores"
        "$P" run "$T/scenarios/smt$w.ini" --quick --quiet >/dev/null 2>"$T/e" || fail "smt$w run: $(cat "$T/e")"
    done
    grep -q '^cpu_numbering = adjacent' "$T/machines/smt4.ini" && grep -q '^cpu_numbering = split' "$T/machines/smt8.ini" ||
        fail "smt: numbering"
    echo "ok - import: SMT4 and SMT8 hosts keep their width, load and run"
    # A snapshot with files missing: warnings, exit 0; without pepc topology: exit 2.
    mkdir "$T/part"
    cp "$H/rpl0/pepc_topology.after.raw.txt" "$H/rpl0/proc_cpuinfo.after.raw.txt" "$T/part/"
    "$P" import "$T/part" -o "$T/part.ini" 2>"$T/e" || fail "partial snapshot: $(cat "$T/e")"
    grep -q 'warning: not found, left out or estimated: .*sys-cpuidle.after.raw.txt' "$T/e" ||
        fail "partial: no warning: $(cat "$T/e")"
    rm "$T/part/pepc_topology.after.raw.txt"
    set +e
    "$P" import "$T/part" -o "$T/part2.ini" 2>"$T/e"; rc=$?
    set -e
    [ $rc -eq 2 ] || fail "no topology: exit $rc"
    grep -q 'no CPU topology: pepc_topology.after.raw.txt' "$T/e" || fail "no topology: $(cat "$T/e")"
    echo "ok - import: partial snapshot warns, no topology exits 2"
}

# An odd sysfs value: a warning naming the file and the value; the number is estimated.
cp -R tests/data/import-root "$T/tree"
echo 15oo000 >"$T/tree/sys/devices/system/cpu/cpufreq/policy0/cpuinfo_min_freq"
"$P" import --root "$T/tree" -o "$T/odd.ini" 2>"$T/e" || fail "odd value: $(cat "$T/e")"
grep -q "warning: /sys/devices/system/cpu/cpufreq/policy0/cpuinfo_min_freq: '15oo000' is not a number" "$T/e" ||
    fail "odd value: no warning: $(cat "$T/e")"
grep -q '^min_mhz = 1500 .*estimated, from epyc-genoa-2s' "$T/odd.ini" || fail "odd value: not estimated"
echo "ok - import: an odd sysfs value is named and estimated"
