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
