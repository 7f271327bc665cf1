#!/bin/sh
# Run every libFuzzer target (build/fuzz/fuzz/fuzz_NAME, built by
# `make V=fuzz build-fuzz`): first its crash regressions
# (tests/fuzz/regress/NAME/*), then SECONDS of fuzzing from its seed corpus
# (tests/fuzz/corpus/NAME). New inputs go to build/fuzz/corpus/NAME, never
# into the tree; a crash leaves build/fuzz/crash-NAME-* and fails the run.
# Two targets run at a time (the 2-core CI machine).
# Usage: fuzz.sh SECONDS [smoke]. With smoke (make test), new inputs go to a
# corpus emptied first, so the run's time goes to fuzzing, not to reloading
# what earlier runs found.
set -eu
S=${1:?usage: fuzz.sh SECONDS [smoke]}
BIN=build/fuzz/fuzz
OUT=build/fuzz
CORPUS=$OUT/corpus
if [ "${2:-}" = smoke ]; then
    CORPUS=$OUT/smoke-corpus
    rm -rf "$CORPUS"
fi
mkdir -p "$OUT"
# Leaks inside libtraceevent/libtracecmd on malformed traces are theirs.
LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS

run_target() { # NAME: exit status of the target's runs
    name=$1
    bin="$BIN/fuzz_$name"
    log="$OUT/$name.log"
    : >"$log"
    if [ -d "tests/fuzz/regress/$name" ] && [ -n "$(ls "tests/fuzz/regress/$name")" ]; then
        # Given files, libFuzzer runs each once.
        "$bin" -close_fd_mask=3 "tests/fuzz/regress/$name"/* >>"$log" 2>&1 || return 1
    fi
    mkdir -p "$CORPUS/$name"
    "$bin" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
        -print_final_stats=1 -artifact_prefix="$OUT/crash-$name-" \
        "$CORPUS/$name" "tests/fuzz/corpus/$name" >>"$log" 2>&1
}

report() { # NAME STATUS
    name=$1
    if [ "$2" -eq 0 ]; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/$1.log" | tail -1)
        echo "fuzz: $name: ${runs:-?} inputs in ${S} s, no crash"
    else
        echo "fuzz: $name FAILED (log $OUT/$name.log):" >&2
        tail -40 "$OUT/$name.log" >&2
        echo "fuzz: add the crashing input ($OUT/crash-$name-*) to tests/fuzz/regress/$name/ with its fix" >&2
    fi
}

names=$(ls "$BIN" | sed -n 's/^fuzz_//p')
[ -n "$names" ] || { echo "fuzz: no targets in $BIN (make V=fuzz build-fuzz)" >&2; exit 1; }
rc=0
set -- $names
while [ $# -gt 0 ]; do
    a=$1; shift
    b=${1:-}; [ $# -eq 0 ] || shift
    run_target "$a" & pa=$!
    if [ -n "$b" ]; then run_target "$b" & pb=$!; fi
    sa=0; wait $pa || sa=$?
    report "$a" $sa; [ $sa -eq 0 ] || rc=1
    if [ -n "$b" ]; then
        sb=0; wait $pb || sb=$?
        report "$b" $sb; [ $sb -eq 0 ] || rc=1
    fi
done
exit $rc
