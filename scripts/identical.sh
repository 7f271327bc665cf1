#!/bin/sh
# Are two pmlab binaries' outputs byte-identical? Runs every shipped scenario
# in --quick mode (and, with FULL=1, seed 000 in its default configuration at
# one replication) with binary A and binary B, and compares the JSON reports.
# For speed work: a step that claims "outputs byte-identical" shows it here.
#   sh scripts/identical.sh OLD_PMLAB NEW_PMLAB
# Exit status 0 when every report is identical, 1 otherwise (the differing
# scenarios are listed), 2 on bad usage. The JSON's configuration "commit"
# (the build's git commit) is not compared.
set -u
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: sh scripts/identical.sh OLD_PMLAB NEW_PMLAB" >&2; exit 2; }
A=$1 B=$2
DIR=$(dirname "$0")/../scenarios
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
differ=0 n=0
check() { # name, then pmlab run arguments
    name=$1; shift
    "$A" run "$@" --jobs 2 --format json > "$TMP/a.json" 2>"$TMP/a.err"; ra=$?
    "$B" run "$@" --jobs 2 --format json > "$TMP/b.json" 2>"$TMP/b.err"; rb=$?
    n=$((n + 1))
    # The configuration's "commit" names the binary's own build: two builds
    # always differ there, so it is left out of the comparison.
    grep -v '^    "commit": ' "$TMP/a.json" >"$TMP/a.cmp"; grep -v '^    "commit": ' "$TMP/b.json" >"$TMP/b.cmp"
    if [ $ra -ne $rb ] || ! cmp -s "$TMP/a.cmp" "$TMP/b.cmp"; then
        echo "DIFFER $name (exit $ra vs $rb)"
        differ=$((differ + 1))
    else
        echo "same   $name"
    fi
}
for s in "$DIR"/*.ini; do
    check "$(basename "$s" .ini) --quick" "$s" --quick
done
if [ "${FULL:-0}" = 1 ]; then
    check "ibrs-off default, 1 replication" "$DIR/ibrs-off.ini" --reps 1
fi
echo "identical.sh: $((n - differ)) of $n reports identical"
[ $differ -eq 0 ]
