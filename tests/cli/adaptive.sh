#!/bin/sh
# End-to-end checks of adaptive replications (`pmlab run --ci-target`) and of
# what `pmlab run` prints on stderr when it is not a terminal.
. tests/lib.sh
S=scenarios/example-rr.ini
ONE="--quick --variant base --primary throughput_rps --set quick.warmup_ms=20"
# one variant keeps this under a few seconds under ASan; throughput (not rr's
# headline p99) because its CI shrinks predictably; a 20 ms warm-up because
# example-rr's quick 10 ms is shorter than the ~12 ms start-up transient
# MSER-5 finds, whose warning would be a second stderr line in the checks below
reps_of() { sed -n 's/^  "reps": \([0-9]*\),$/\1/p' "$1"; }

# A target loose enough to stop after a few replications, from a first batch
# of 2 whose CI is wider: batches are added until the CI of throughput_rps is
# under 0.55 % (2 replications give 0.59 %, 4 give 0.83 %, 8 give 0.53 %).
"$P" run "$S" $ONE --reps 2 --ci-target 0.55 --max-reps 12 --format json --jobs 2 \
    >"$T/ci.json" 2>"$T/ci.err" || fail "ci-target run: $(cat "$T/ci.err")"
n=$(reps_of "$T/ci.json")
[ -n "$n" ] && [ "$n" -gt 2 ] && [ "$n" -lt 12 ] || fail "ci-target 0.55 % stopped at '$n' replications, want 3..11"
grep -q 'not reached' "$T/ci.err" && fail "target reported as missed: $(cat "$T/ci.err")"
ok "ci-target 0.55 % stops after $n replications"

# Replication r keeps its random streams whatever the batches: stopping at n
# is exactly --reps n, and the stopping point does not depend on --jobs.
"$P" run "$S" $ONE --reps "$n" --format json --quiet >"$T/fixed.json" || fail "--reps $n run"
cmp -s "$T/ci.json" "$T/fixed.json" || fail "--ci-target stopping at $n differs from --reps $n"
"$P" run "$S" $ONE --reps 2 --ci-target 0.55 --max-reps 12 --format json --jobs 1 --quiet \
    >"$T/ci1.json" || fail "ci-target run, --jobs 1"
cmp -s "$T/ci.json" "$T/ci1.json" || fail "--ci-target differs between --jobs 1 and 2"
ok "byte-identical to --reps $n, whatever --jobs"

# A target that cannot be met stops at --max-reps and says so, even --quiet.
"$P" run "$S" $ONE --ci-target 0.001 --max-reps 3 --format json --quiet \
    >"$T/max.json" 2>"$T/max.err" || fail "unreachable target run"
[ "$(reps_of "$T/max.json")" -eq 3 ] || fail "want 3 replications at --max-reps 3"
grep -q '^pmlab run: ci-target 0.001 % not reached for variant base after 3 replications: [0-9.]* % (throughput_rps)$' \
    "$T/max.err" || fail "missed-target message: $(cat "$T/max.err")"
[ "$(wc -l <"$T/max.err")" -eq 1 ] || fail "want one line on stderr: $(cat "$T/max.err")"
ok "missed target: --max-reps, one line on stderr"

expect_exit() { # status, then the command
    want=$1; shift
    set +e; "$@" >/dev/null 2>"$T/e"; rc=$?; set -e
    [ $rc -eq "$want" ] || fail "'$*': exit $rc, want $want ($(cat "$T/e"))"
}
expect_exit 2 "$P" run "$S" --max-reps 5
expect_exit 2 "$P" run "$S" --ci-target 0
expect_exit 2 "$P" run "$S" --ci-target x
expect_exit 2 "$P" run "$S" --ci-target 1 --max-reps 1
expect_exit 2 "$P" run "$S" --ci-target 1 --reps 8 --max-reps 4
ok "bad --ci-target / --max-reps: exit 2"

# stderr is not a terminal here: no progress line (no carriage return), only
# the summary line; --quiet drops that too.
"$P" run "$S" $ONE --reps 2 --format csv >/dev/null 2>"$T/plain.err" || fail "plain run"
grep -q "$(printf '\r')" "$T/plain.err" && fail "progress drawn on a non-terminal stderr"
[ "$(wc -l <"$T/plain.err")" -eq 1 ] && grep -q '^pmlab: example-rr: 2 runs' "$T/plain.err" ||
    fail "want one summary line: $(cat "$T/plain.err")"
"$P" run "$S" $ONE --reps 2 --ci-target 50 --format csv >/dev/null 2>"$T/ci-plain.err" || fail "ci run"
grep -q "$(printf '\r')" "$T/ci-plain.err" && fail "progress drawn on a non-terminal stderr (ci-target)"
"$P" run "$S" $ONE --reps 2 --format csv --quiet >/dev/null 2>"$T/quiet.err" || fail "quiet run"
[ ! -s "$T/quiet.err" ] || fail "--quiet printed on stderr: $(cat "$T/quiet.err")"
ok "stderr: no progress when not a terminal, nothing with --quiet"
