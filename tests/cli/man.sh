#!/bin/sh
# The man page docs/pmlab.1: it renders, and it documents every subcommand
# (from src/main.c's table) and every option their --help texts list.
. tests/lib.sh
M=docs/pmlab.1

[ -f "$M" ] || fail "$M is missing"
if command -v man >/dev/null 2>&1; then
    MANPAGER=cat MANWIDTH=80 man -l "$M" >"$T/out" 2>"$T/err" || fail "man -l $M: $(cat "$T/err")"
    grep -q 'EXIT STATUS' "$T/out" || fail "man -l $M rendered no EXIT STATUS section"
    ok "man -l renders"
else
    echo "ok - man -l renders # SKIP man not installed"
fi
if command -v groff >/dev/null 2>&1; then
    groff -man -ww -z "$M" 2>"$T/warn"
    [ ! -s "$T/warn" ] || fail "groff warnings: $(cat "$T/warn")"
    ok "no groff warnings"
fi

# Subcommands: the names in main.c's command table (&cli_NAME_command).
cmds=$(sed -n 's/^ *&cli_\([a-z_]*\)_command,$/\1/p' src/main.c)
[ -n "$cmds" ] || fail "no commands found in src/main.c"
for c in $cmds; do
    grep -q "^\.SS $c\$" "$M" || fail "$M has no section for command '$c'"
    # Every long option the command's --help lists.
    "$P" "$c" --help >"$T/help" || fail "$c --help"
    for o in $(grep -o -- '--[a-z][a-z-]*' "$T/help" | sort -u); do
        grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$M" || fail "$M lacks option $o of '$c'"
    done
done
ok "every command and option documented ($(echo $cmds | tr '\n' ' '))"

for m in max_jops critical_jops read_mbps iops lat_p99_us trans_per_s rtt_p99_us single_score \
         multi_score pkg_watts core_watts busy_pct poll_pct avg_mhz residency. pkg_residency. \
         above_pct below_pct throughput_rps cpus.busy_pct cpus.residency. cpus.kvm_poll_pct; do
    grep -q "$m" "$M" || fail "$M lacks metric $m"
done
grep -q PMLAB_MACHINES "$M" || fail "$M lacks PMLAB_MACHINES"
ok "metrics and environment documented"
