#!/bin/sh
# Input readers that must not trust what they read (issue 27): kernel command
# lines, the kernel-parameter vocabulary, knobs of modelled subsystems,
# trace.dat files and imported hosts. Each check failed before its fix.
. tests/lib.sh
D=tests/data/input

expect_exit() { # status, then the command; stdout in $T/o, stderr in $T/e
    want=$1; shift
    set +e; "$@" >"$T/o" 2>"$T/e"; rc=$?; set -e
    [ $rc -eq "$want" ] || fail "'$*': exit $rc, want $want ($(head -3 "$T/e"))"
}

# A cmdline longer than 198 characters reaches the scenario in pieces; the
# pieces after the one holding "--" were read as kernel parameters again.
expect_exit 0 "$P" explain "$D/cmdline-long-init.ini"
grep -q "cpuidle: driver intel_idle, governor menu" "$T/o" || fail "long cmdline: idle=poll after -- applied: $(grep cpuidle: "$T/o" | head -1)"
grep -q "note: 'systemd.unit=rescue.target abcdefgh abcdefgh idle=poll' goes to init" "$T/e" ||
    fail "long cmdline: no init note: $(cat "$T/e")"
! grep -q "abcdefgh: the kernel logs" "$T/e" || fail "long cmdline: init words warned about as kernel words"
ok "cmdline: a '--' holds across the pieces of a long line"

# import: a host whose /proc/cmdline has init arguments. They were copied
# into the scenario's cmdline before the governor the import adds (which
# then went to init too) and warned about at load.
cp -r tests/data/import-root "$T/root"
printf '%s\n' 'BOOT_IMAGE=/boot/vmlinuz root=/dev/sda1 ro quiet amd_pstate=passive acpi_osi="Windows 2015" -- single foo=bar idle=poll' >"$T/root/proc/cmdline"
mkdir -p "$T/machines" "$T/scenarios"
expect_exit 0 "$P" import --root "$T/root" --name amdbox -o "$T/machines/amdbox.ini" --scenario "$T/scenarios/amdbox.ini"
! grep -q "foo=bar\|single" "$T/e" || fail "import: init arguments warned about: $(cat "$T/e")"
grep -qx 'cmdline = amd_pstate=passive acpi_osi="Windows 2015" cpuidle.governor=teo' "$T/scenarios/amdbox.ini" ||
    fail "import: cmdline $(grep '^cmdline' "$T/scenarios/amdbox.ini")"
grep -q "^; init's arguments on the host (after --, not the kernel's): single foo=bar idle=poll$" "$T/scenarios/amdbox.ini" ||
    fail "import: no init comment"
expect_exit 0 "$P" explain "$T/scenarios/amdbox.ini"
grep -q 'cpuidle: driver acpi_idle, governor teo' "$T/o" || fail "import: governor lost: $(grep cpuidle: "$T/o" | head -1)"
! grep -q "warning" "$T/e" || fail "import: scenario warns: $(cat "$T/e")"
ok "import: init arguments stay out of the kernel's command line"

# Real kernel parameters that pmlab does not model are known (the names of
# kernel-parameters.txt): reboot=k got "did you mean root?".
expect_exit 0 "$P" explain "$D/cmdline-known.ini"
for w in reboot=k swiotlb=noforce rdinit=/sbin/init nomodule processor.ignore_ppc=1 sysctl.vm.swappiness=10 usbcore.async_probe; do
    grep -q "cmdline-known.ini:13: note: $w: a kernel parameter, known but not modelled by pmlab; ignored" "$T/e" ||
        fail "known: no note for $w: $(cat "$T/e")"
done
grep -q 'cmdline-known.ini:13: warning: splash: the kernel logs "Unknown kernel command line parameters' "$T/e" ||
    fail "known: splash not warned about"
! grep -q "did you mean" "$T/e" || fail "known: a did-you-mean: $(cat "$T/e")"
ok "cmdline: kernel-parameters.txt's names are known, not modelled"

# A misspelled knob of a modelled subsystem is an error with the nearest
# name: cmdline words of a modelled module, near-misses of a modelled
# parameter, sysfs paths.
expect_exit 2 "$P" explain "$D/knob-typo.ini"
grep -qx "$D/knob-typo.ini:12: cpuidle.govenor=teo: module cpuidle has no parameter 'govenor'; did you mean cpuidle.governor? (see 'pmlab params')" "$T/e" ||
    fail "typo: $(cat "$T/e")"
for case in "intel_idle.max_cstat=1|did you mean intel_idle.max_cstate?" \
    "processor.max_cstat=1|module processor has no parameter 'max_cstat'; did you mean processor.max_cstate?" \
    "kvm.halt_pol_ns=1|did you mean kvm.halt_poll_ns?" \
    "intel_pstat=passive|intel_pstat=passive: unknown kernel parameter; did you mean intel_pstate?" \
    "idel=poll|idel=poll: unknown kernel parameter; did you mean idle?"; do
    w=${case%%|*}; msg=${case#*|}
    sed "s/^cmdline = .*/cmdline = $w/" "$D/knob-typo.ini" >"$T/typo.ini"
    expect_exit 2 "$P" explain "$T/typo.ini"
    grep -q "^$T/typo.ini:12: .*$msg" "$T/e" || fail "typo $w: $(cat "$T/e")"
done
sed 's|^cmdline = .*|sysfs = /sys/devices/system/cpu/cpuidle/current_govenor=teo|' "$D/knob-typo.ini" >"$T/typo.ini"
expect_exit 2 "$P" explain "$T/typo.ini"
grep -q "typo.ini:12: unknown or read-only sysfs file '/sys/devices/system/cpu/cpuidle/current_govenor'; did you mean /sys/devices/system/cpu/cpuidle/current_governor?" "$T/e" ||
    fail "sysfs typo: $(cat "$T/e")"
sed 's|^cmdline = .*|sysfs = /sys/devices/system/cpu/cpu3/cpuidle/state2/disabel=1|' "$D/knob-typo.ini" >"$T/typo.ini"
expect_exit 2 "$P" explain "$T/typo.ini"
grep -q "did you mean /sys/devices/system/cpu/cpu{cpu}/cpuidle/state{state}/disable?" "$T/e" ||
    fail "sysfs state typo: $(cat "$T/e")"
ok "a misspelled knob of a modelled subsystem: exit 2, FILE:LINE, the nearest name"
