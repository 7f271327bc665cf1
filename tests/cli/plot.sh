#!/bin/sh
# --plot and --report: files produced and non-empty when gnuplot is present,
# a clear message and exit 0 when it is not, exit 2 before any run for an
# unwritable directory.
. tests/lib.sh
S=scenarios/example-rr.ini

set +e
"$P" run "$S" --quick --reps 2 --plot /proc/pmlab-plots >/dev/null 2>"$T/e"; rc=$?
set -e
[ $rc -eq 2 ] || fail "unwritable --plot: exit $rc"
grep -q -- '--plot' "$T/e" && ! grep -q 'runs' "$T/e" || fail "unwritable --plot: message or a run started: $(cat "$T/e")"
set +e
"$P" run "$S" --quick --reps 2 --report /proc/pmlab-report >/dev/null 2>&1; rc=$?
set -e
[ $rc -eq 2 ] || fail "unwritable --report: exit $rc"
echo "ok - unwritable --plot/--report: exit 2 before running"

# Without gnuplot on PATH: a message, the run succeeds, no images.
mkdir "$T/nognuplot"
PATH="$T/nogp-bin" "$P" run "$S" --quick --reps 2 --plot "$T/nognuplot" >/dev/null 2>"$T/e" ||
    fail "run without gnuplot failed: $(cat "$T/e")"
grep -q 'gnuplot not found' "$T/e" || fail "no message without gnuplot"
[ -z "$(ls "$T/nognuplot")" ] || fail "files written without gnuplot"
echo "ok - missing gnuplot is a message, not a failure"

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "skip - gnuplot not installed: plot rendering not tested"
    exit 0
fi
"$P" run "$S" --quick --reps 2 --quiet --report "$T/rep" >/dev/null || fail "--report run"
for f in residency primary_metric pkg_watts latency_cdf above_below; do
    for ext in png svg; do
        [ -s "$T/rep/$f.$ext" ] || fail "$f.$ext missing or empty"
    done
done
[ ! -e "$T/rep/rt_curve.png" ] || fail "rt_curve plotted for a workload without an RT curve"
# Response time by percentile over all replications: median with a band from
# the least to the greatest, on the log tail axis (99.9 % at 3 nines).
grep -q '^# base: pct, latency_us median, least, greatest over 2 replications$' "$T/rep/latency_cdf.dat" ||
    fail "latency_cdf.dat is not over all replications"
awk 'NF == 4 { n++; if (!($3 <= $2 && $2 <= $4)) bad++ } END { exit !(n >= 100 && bad == 0) }' \
    "$T/rep/latency_cdf.dat" || fail "latency_cdf.dat: a median outside its band"
awk 'NF == 4 && $1 > 2.9999 && $1 < 3.0001 { found = 1 } END { exit !found }' "$T/rep/latency_cdf.dat" ||
    fail "latency_cdf.dat: 99.9 % is not at 3 nines"
grep -q '^## Results' "$T/rep/report.md" && grep -q '^## What each variant resolves to' "$T/rep/report.md" &&
    grep -q '!\[residency\](residency.png)' "$T/rep/report.md" || fail "report.md sections"
grep -q '^\* cpuidle: no driver: cpuidle.off=1' "$T/rep/report.md" || fail "report.md explain marks"
grep -q '<svg' "$T/rep/report.html" || fail "report.html does not inline the plots"
echo "ok - plots and report written"

# report.md shows a scenario's text, never interprets it (issue 27 item 14):
# Markdown and HTML in the description are escaped, a backtick in a cmdline
# cannot end its code span.
cat >"$T/md.ini" <<'INI'
[scenario]
name = md
description = # <script>alert(1)</script> | *bold* [x](y) & `code` ```
machine = skx-2s
replications = 2
[workload]
type = rr
load = 0.2
warmup_ms = 5
duration_ms = 20
[variant a]
kernel = 6.12
INI
"$P" run "$T/md.ini" --quiet --report "$T/mdrep" >/dev/null || fail "run --report md"
grep -qxF '\# \<script\>alert(1)\</script\> \| \*bold\* \[x\](y) \& \`code\` \`\`\`' "$T/mdrep/report.md" ||
    fail "report.md: description not escaped: $(sed -n 3p "$T/mdrep/report.md")"
# Outside code blocks no raw markup; the blocks' fences outlast the
# description's ``` (which the results table repeats).
awk '/^````*$/ { if (!f) { f = length($0) } else if (length($0) == f) { f = 0 }; next }
     !f && /<script>/ { bad = 1 } END { exit bad || f }' "$T/mdrep/report.md" ||
    fail "report.md: raw <script> outside a code block, or a fence left open"
grep -qx '````' "$T/mdrep/report.md" || fail "report.md: the results fence does not outlast the description's backticks"
ok "report.md escapes the description"
