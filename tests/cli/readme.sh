#!/bin/sh
# README.md tells the truth about the repository: the seed table's
# replication counts are the scenarios' own, every file it names exists, and
# no document points outside the repository (a user's clone has nothing there).
. tests/lib.sh

# replications = N of [scenario] (or [quick]) in file $1 section $2.
reps() {
    awk -v sec="$2" '/^\[/ { in_sec = ($0 == "[" sec "]") }
        in_sec && /^replications *=/ { sub(/^replications *= */, ""); print; exit }' "$1"
}
rows=0
for s in $(sed -n 's/^| `\(scenarios\/[a-z0-9-]*\.ini\)` |.*/\1/p' README.md); do
    rows=$((rows + 1))
    [ -f "$s" ] || fail "README seed table: no $s"
    want="$(reps "$s" scenario) ($(reps "$s" quick))"
    grep -q "^| \`$s\` |.*| $want |\$" README.md ||
        fail "README seed table: $s should say $want replications (--quick)"
done
[ "$rows" -ge 4 ] || fail "README seed table: $rows rows found"
ok "README seed table: replications match the $rows scenarios"

for f in $(grep -o '`\(scenarios\|machines\|docs\|tests\|bench\|validation\|scripts\)/[A-Za-z0-9_./-]*`' README.md |
    tr -d '`' | sort -u); do
    case $f in *'*'*) continue ;; esac
    [ -e "$f" ] || fail "README names $f, which does not exist"
done
ok "every file README names exists"

if grep -rn -e '\.\./shared' -e '/work/' README.md docs validation bench/README.md \
    tests/fuzz/README.md; then
    fail "a document refers to a path outside the repository"
fi
ok "no document refers to a path outside the repository"
