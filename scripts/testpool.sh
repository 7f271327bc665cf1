#!/bin/sh
# What `make test` runs after the builds: every unit, CLI, scenario, browser
# and invariant test as an independent task, two at a time (the 2-core CI
# machine: most tasks are a shell script starting short single-threaded
# pmlab runs, so one at a time left a core idle), longest first so that the
# last task to start is a short one. Each task's output goes to
# build/test-logs/TASK.log and is printed, with its time, when it ends; a
# failed task's log is printed again at the end and the pool fails.
# Usage: testpool.sh [SLOTS]   (default 2; PMLAB_TEST_SLOTS too)
# A task is BUILD:KIND:WHAT; tests/cli/install.sh runs in rel only: it builds
# its own release copy, so under asan it was the same test twice.
set -eu
SLOTS=${1:-${PMLAB_TEST_SLOTS:-2}}
LOGS=build/test-logs
task() { # BUILD:KIND:WHAT -> exit status of the test
    b=${1%%:*}; rest=${1#*:}; kind=${rest%%:*}; what=${rest#*:}
    case $kind in
    unit) for t in build/$b/tests/test_*; do
              case $t in *.o|*.d) continue ;; esac
              echo "== $t"; "$t" || return 1
          done ;;
    cli|scen|browser) echo "== $what ($b)"
          PMLAB=build/$b/pmlab PMLAB_MPI=build/$b/pmlab-mpi sh "$what" ;;
    inv)  echo "== invariants: $what"
          build/inv/pmlab run "$what" --quick --reps 1 --quiet >/dev/null ;;
    *)    echo "testpool: unknown task $1" >&2; return 2 ;;
    esac
}

if [ "${TESTPOOL_TASK:-}" ]; then # one task, from xargs below
    name=$(echo "$TESTPOOL_TASK" | tr '/:' '__')
    s=$(date +%s)
    set +e; task "$TESTPOOL_TASK" >"$LOGS/$name.log" 2>&1; rc=$?; set -e
    e=$(date +%s)
    echo "$rc $((e - s))" >"$LOGS/$name.status"
    echo "---- $TESTPOOL_TASK: $([ $rc -eq 0 ] && echo ok || echo FAILED) in $((e - s)) s"
    cat "$LOGS/$name.log"
    exit 0
fi

rm -rf "$LOGS" && mkdir -p "$LOGS"
# Longest first (measured on the 2-core machine), then the rest.
long="asan:cli:tests/cli/robust.sh asan:cli:tests/cli/run.sh rel:scen:tests/scenarios/self-compare.sh
rel:scen:tests/scenarios/ibrs-off.sh inv:inv:scenarios/ibrs-off.ini rel:cli:tests/cli/install.sh
asan:cli:tests/cli/plot.sh asan:cli:tests/cli/cpus.sh asan:cli:tests/cli/adaptive.sh
inv:inv:scenarios/jbb-example.ini asan:cli:tests/cli/store.sh"
tasks=$(printf '%s\n' $long) # one task a line, for xargs
add() { case " $(echo $tasks) " in *" $1 "*) ;; *) tasks="$tasks
$1" ;; esac; }
for t in tests/cli/*.sh; do
    add "rel:cli:$t"
    [ "$t" = tests/cli/install.sh ] || add "asan:cli:$t"
done
for t in tests/scenarios/*.sh; do add "rel:scen:$t"; done
for t in tests/browser/*.sh; do add "rel:browser:$t"; done
for s in scenarios/*.ini; do add "inv:inv:$s"; done
add rel:unit:all
add asan:unit:all

s0=$(date +%s)
echo "$tasks" | TESTPOOL_TASK= xargs -P "$SLOTS" -I '{}' env TESTPOOL_TASK='{}' sh "$0" "$SLOTS"
failed=""
n=0
for f in "$LOGS"/*.status; do
    n=$((n + 1))
    read -r rc secs <"$f"
    [ "$rc" -eq 0 ] || failed="$failed $(basename "$f" .status)"
done
echo "testpool: $n tasks in $(( $(date +%s) - s0 )) s on $SLOTS slots"
if [ -n "$failed" ]; then
    for f in $failed; do echo "==== FAILED: $f" >&2; cat "$LOGS/$f.log" >&2; done
    exit 1
fi
