#!/bin/sh
# --set, per-variant workload keys and `pmlab sweep` (issue 16).
. tests/lib.sh
S=scenarios/example-rr.ini
export PMLAB_MACHINES="$PWD/machines"
Q="--quick --quiet --reps 2 --format csv"

# --set with the file's own value changes nothing; another value does.
"$P" run "$S" $Q --variant base >"$T/base.csv" || fail "base run"
"$P" run "$S" $Q --variant base --set workload.load=0.5 >"$T/same.csv" || fail "--set same"
cmp -s "$T/base.csv" "$T/same.csv" || fail "--set workload.load=0.5 (the file's value) changed the output"
"$P" run "$S" $Q --variant base --set workload.load=0.2 >"$T/low.csv" || fail "--set load"
tput() { grep "^example-rr,skx-2s,$2,throughput_rps," "$1" | cut -d, -f7; }
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < 0.6 * b) }'; }
less "$(tput "$T/low.csv" base)" "$(tput "$T/base.csv" base)" || fail "load 0.2 does not serve less than load 0.5"
ok "--set workload.load"

# A variant's own workload value, in the file or by --set, only moves that
# variant; the others keep their numbers.
{ cat "$S"; printf '\n[variant light]\nkernel = 6.12\nworkload.load = 0.2\n'; } >"$T/v.ini"
"$P" run "$T/v.ini" $Q --variant base --variant light >"$T/v.csv" || fail "variant workload run"
[ "$(tput "$T/v.csv" base)" = "$(tput "$T/base.csv" base)" ] || fail "base moved"
less "$(tput "$T/v.csv" light)" "$(tput "$T/base.csv" base)" || fail "[variant] workload.load = 0.2 ignored"
"$P" run "$S" $Q --variant base --variant menu >"$T/m0.csv" || fail "menu run"
"$P" run "$S" $Q --variant base --variant menu --set variant.menu.workload.load=0.2 >"$T/m.csv" ||
    fail "--set variant.menu.workload.load"
[ "$(tput "$T/m.csv" base)" = "$(tput "$T/m0.csv" base)" ] || fail "variant.menu.workload moved base"
less "$(tput "$T/m.csv" menu)" "$(tput "$T/m0.csv" menu)" || fail "variant.menu.workload.load=0.2 ignored"
ok "per-variant workload keys"

# Bad --set: exit 2, one line naming the option, did you mean.
bad() {
    set +e
    "$P" run "$S" --quick --quiet --set "$1" >/dev/null 2>"$T/e"; rc=$?
    set -e
    [ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q -- "$2" "$T/e" ||
        fail "--set $1: exit $rc: $(cat "$T/e")"
}
bad workload.lod=0.3 "^--set workload.lod=0.3: unknown key 'lod' for workload 'rr'; did you mean load?"
bad workloa.load=0.3 "unknown section 'workloa'; did you mean workload?"
bad variant.men.cmdline=x "no variant 'men'; did you mean menu?"
bad scenario.sed=3 "unknown key 'sed' in \[scenario\]; did you mean seed?"
bad variant.menu.kernl=6.1 "did you mean kernel?"
bad workload.load=7 "^--set workload.load=7: load: 7 out of range"
bad variant.menu.workload.type=fio "a variant cannot change the workload's type"
bad noequals "expected SECTION.KEY=VALUE"
ok "bad --set: exit 2 with the option named"
