#!/bin/sh
# scripts/validate.sh (make validate), cheaply: the shipped figure file
# checks out; the MATCH / MISS / n/a logic and the table on a hand-made
# result whose answers are known; one real quick run end to end; and figure
# file errors stop it loudly with FILE:LINE before anything runs.
. tests/lib.sh
V="sh scripts/validate.sh --pmlab $P"

$V --check >"$T/out" 2>&1 || fail "--check of validation/figures.ini: $(cat "$T/out")"
grep -q 'figures, .* omitted, .* runs: ok' "$T/out" || fail "--check said: $(cat "$T/out")"
ok "validation/figures.ini checks out ($(cat "$T/out" | sed 's/.*: \([0-9]* figures\).*/\1/'))"

# A toy scenario (only its [variant] names are read) and a result for it,
# in pmlab's JSON layout.
cat >"$T/toy.ini" <<'EOF'
[scenario]
name = toy
[variant base]
kernel = 6.7
[variant v]
kernel = 6.7
EOF
mkdir "$T/from"
cat >"$T/from/toy.json" <<'EOF'
{
  "pmlab": "0.1.0",
  "scenario": "toy",
  "reps": 2,
  "quick": false,
  "variants": [
    {
      "name": "base",
      "metrics": {
        "m": {"unit": "W", "mean": 10.0, "ci95": [9.0, 11.0], "values": [9.5, 10.5]},
        "n": {"unit": "W", "mean": 20.0, "ci95": [18.0, 22.0], "values": [19.0, 21.0]},
        "z": {"unit": "W", "mean": 0.0, "ci95": [0.0, 0.0], "values": [0.0, 0.0]}
      },
      "series": {"s": {"columns": ["a", "b"], "replications": [[[1, 2], [3, 4]], [[5, 6]]]}}
    },
    {
      "name": "v",
      "metrics": {
        "m": {"unit": "W", "mean": 10.5, "ci95": [10.0, 11.0], "values": [10.0, 11.0]}
      }
    }
  ],
  "comparisons": [
    {"metric": "z", "base": "base", "variant": "v", "delta_pct": null, "ci95_pct": [null, null]},
    {"metric": "m", "base": "base", "variant": "v", "delta_pct": 5.0, "ci95_pct": [1.0, 9.0],
     "p_value": 0.01, "verdict": "higher"}
  ]
}
EOF
fig() { # id read band [extra key = value lines]
    printf '[figure %s]\nseed = 9\nscenario = %s\nfigure = fig %s\npublished = p%s\nread = %s\nband = %s\nwhy = w%s\nfitted = prediction\n%s\n' \
        "$1" "$T/toy.ini" "$1" "$1" "$2" "$3" "$1" "${4:-}"
}
{
    fig edge 'mean m base' '11 12'                 # CI [9, 11] touches the band: overlap
    fig gap 'mean m base' '11.01 12'               # just past the CI
    fig inside 'delta m v' '0 inf' 'match = inside'
    fig notinside 'delta m v' '2 inf' 'match = inside'
    fig below 'delta m v' '-inf 0.5'
    fig ratio 'ratio m n base' '0.49 0.51'
    fig nometric 'mean nosuch base' '0 1'
    fig zero 'delta z v' '0 1'
    fig view 'mean m base' '0 100' 'cpus = 0-3'
    printf '[figure cal]\nseed = 9\nscenario = %s\nfigure = fig cal\npublished = pcal\nread = mean m v\nband = 10 11\nwhy = wcal\nfitted = calibrated: k\n' "$T/toy.ini"
    printf '[omitted gone]\nseed = 9\nfigure = fig gone\npublished = pgone\nwhy = wgone\n'
    printf '[host h]\nsnapshot = %s\nnote = nh\n' "$T/snap"
} >"$T/toy-figures.ini"
# The host's imported scenario and its run, as --from reads them: [measured]
# values against the CSV's means, the deepest state by order.
mkdir -p "$T/snap" "$T/from/hosts"
: >"$T/snap/interrupts.raw.txt"
printf '[workload]\ntype = idle\n\n[measured]\n; c\nbusy_pct = 0.20\nresidency.C1 = 1\nresidency.C9 = 98\nabove_pct.C9 = 10\nloc_per_s = 8\n' \
    >"$T/from/hosts/h.ini"
{
    echo 'scenario,machine,variant,metric,unit,n,mean,stddev,ci95_lo,ci95_hi'
    echo 'h,h,host,busy_pct,%,3,0.5,0,0.25,0.75'
    echo 'h,h,host,residency.C1,%,3,2,0,1,3'
    echo 'h,h,host,residency.C9,%,3,97,0,96,98'
    echo 'h,h,host,above_pct.C9,%,3,4,0,3,5'
    echo 'h,h,host,below_pct.C9,%,3,1,0,0,2'
} >"$T/from/hosts/h.csv"
$V --figures "$T/toy-figures.ini" --from "$T/from" --out "$T/doc.md" >"$T/out" 2>"$T/err" ||
    fail "toy figures: exit $?: $(cat "$T/err")"
row() { # figure-id column -> that cell of the table, trimmed
    awk -F'|' -v f="fig $1" -v c="$2" '{ x = $3; gsub(/^ +| +$/, "", x) }
        x == f { y = $(c + 1); gsub(/^ +| +$/, "", y); print y }' "$T/out"
}
want() { # figure-id column value
    [ "$(row "$1" "$2")" = "$3" ] || fail "row $1, column $2: '$(row "$1" "$2")', want '$3'"
}
want edge 6 MATCH
want edge 4 '10.0 W [9.0, 11.0]'
want edge 5 '11 .. 12 W'
want gap 6 MISS
want inside 6 MATCH
want inside 4 '+5.0 % [1.0, 9.0]'
want inside 5 '>= 0 % (whole CI)'
want notinside 6 MISS
want below 6 MISS
want below 5 '<= 0.5 %'
want ratio 6 MATCH
want ratio 4 '0.50 [0.50, 0.50]'
want nometric 6 n/a
want nometric 4 'n/a: pmlab reported no metric nosuch'
want zero 4 'n/a: no percentage: z of the baseline is zero'
want view 6 n/a
row view 4 | grep -q "no saved result .*/toy@0-3.json" || fail "cpus row: $(row view 4)"
want cal 7 'calibrated: k'
want edge 7 prediction
grep -q '^predictions: 3 MATCH, 3 MISS, 3 n/a; calibrated: 1 MATCH, 0 MISS, 0 n/a$' "$T/out" ||
    fail "summary: $(grep predictions "$T/out")"
grep -q "toy-figures.ini:[0-9]*: \[figure nometric\]: pmlab reported no metric nosuch" "$T/err" ||
    fail "an absent metric is not named on stderr: $(cat "$T/err")"
! grep -q '| fig gone' "$T/out" || fail "an omitted figure became a row"
hrow() { # measured-name -> "measured | pmlab | gap" of host h's row
    awk -F'|' -v k="$1" '{ h = $2; x = $3; gsub(/^ +| +$/, "", h); gsub(/^ +| +$/, "", x) }
        h == "h" && x == k { r = $4 "|" $5 "|" $6; gsub(/ +\|/, "|", r); gsub(/\| +/, "|", r); gsub(/^ +| +$/, "", r); print r }' "$T/out"
}
[ "$(hrow 'Busy %')" = '0.20|0.50 [0.25, 0.75]|+0.30' ] || fail "host busy row: '$(hrow 'Busy %')'"
[ "$(hrow 'deepest state residency % (host C9, pmlab C9)')" = '98|97.0 [96.0, 98.0]|-1.00' ] ||
    fail "host deepest row: '$(hrow 'deepest state residency % (host C9, pmlab C9)')'"
[ "$(hrow 'PkgWatt, W')" = 'no measurement|no prediction: pmlab reports no pkg_watts|-' ] ||
    fail "host PkgWatt row: '$(hrow 'PkgWatt, W')'"
[ "$(hrow 'above_pct.C9')" = '10|4.00 [3.00, 5.00]|-6.00' ] || fail "host above row: '$(hrow 'above_pct.C9')'"
[ "$(hrow 'below_pct.C9 (no such state on the host)')" = 'no measurement|1.00 [0.00, 2.00]|-' ] ||
    fail "host state-only row: '$(hrow 'below_pct.C9 (no such state on the host)')'"
grep -qF -- '- h: nh' "$T/doc.md" || fail "host note not in the document"
! grep -q "| $T/snap" "$T/out" || fail "a host became a figure row"
for s in '| seed | figure' '## Bands' '`edge` (9): 11 .. 12 W: wedge.' '## Runs' \
         'seed 9, fig gone (published: pgone). Not posed: wgone.' 'MATCH** when'; do
    grep -qF -- "$s" "$T/doc.md" || fail "$T/doc.md lacks '$s'"
done
ok "MATCH / MISS / n/a rules, table and document on a known result"

# End to end: one real scenario, quick, one run; the result lands in --save.
cat >"$T/rr.ini" <<'EOF'
[figure rr]
seed = 004
scenario = scenarios/kvm-haltpoll-netrr.ini
figure = fig trans
published = 509.8
read = mean trans_per_s polling
band = 1 1000000
why = any rate
fitted = prediction

[figure rr-view]
seed = 004
scenario = scenarios/kvm-haltpoll-netrr.ini
cpus = 0-15
figure = fig trans on 0-15
published = 509.8
read = mean trans_per_s polling
band = 1 1000000
why = any rate
fitted = prediction
EOF
before=$(cksum docs/validation.md 2>/dev/null || true)
VALIDATE_QUICK=1 $V --figures "$T/rr.ini" --save "$T/save" >"$T/out" 2>"$T/err" ||
    fail "quick run: $(cat "$T/err")"
grep -q '^QUICK configuration' "$T/out" || fail "quick run not marked"
grep -q '\[1/2\] scenarios/kvm-haltpoll-netrr.ini: ok, [0-9]* s' "$T/err" || fail "no progress line: $(cat "$T/err")"
[ -s "$T/save/kvm-haltpoll-netrr.json" ] || fail "no saved JSON"
want trans 6 MATCH
if "$P" run --help | grep -q -- --cpus; then
    want 'trans on 0-15' 6 MATCH
else
    row 'trans on 0-15' 4 | grep -q 'needs pmlab run --cpus 0-15' || fail "cpus row: $(row 'trans on 0-15' 4)"
fi
[ "$(cksum docs/validation.md 2>/dev/null || true)" = "$before" ] || fail "a quick run wrote docs/validation.md"
ok "a quick run end to end (netrr), with a CPU-view figure"

# A trace figure: pmlab trace stats --format json on the gzipped Juno trace,
# a count read by its JSON path (exact: the CI is the point); a path it
# does not print is n/a; a trace figure with a scenario's read is an error.
cat >"$T/tr.ini" <<'EOF'
[figure idle]
seed = trace
trace = tests/data/traces/juno-sched_load.trace.dat.gz
figure = fig idle
published = 474
read = value events/cpu_idle
band = 474 474
why = a count
fitted = prediction
match = inside
digits = 0

[figure st9]
seed = trace
trace = tests/data/traces/juno-sched_load.trace.dat.gz
figure = fig st9
published = 1
read = value state_hits/9
band = 1 1
why = no such state
fitted = prediction
EOF
$V --figures "$T/tr.ini" --save "$T/save3" --out "$T/tr.md" >"$T/out" 2>"$T/err" || fail "trace figures: $(cat "$T/err")"
want idle 4 '474 [474, 474]'
want idle 6 MATCH
want st9 4 'n/a: pmlab trace stats reported no state_hits/9'
[ -s "$T/save3/juno-sched_load.trace.dat.json" ] || fail "no saved trace JSON"
grep -q 'a count from a recorded trace is read from' "$T/tr.md" || fail "trace rows not explained"
sed 's/^read = value events.cpu_idle$/read = mean cpu_idle x/' "$T/tr.ini" >"$T/trbad.ini"
set +e
$V --figures "$T/trbad.ini" --check >"$T/out" 2>"$T/err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'trbad.ini:6: read: a trace figure expects "value PATH"' "$T/err" ||
    fail "trace figure with a scenario read: exit $rc: $(cat "$T/err")"
ok "a trace figure: its count from trace stats --format json (474 cpu_idle events)"

# A run that fails is a row, not a failure of the script (toy.ini names no
# machine or workload: pmlab rejects it).
$V --figures "$T/toy-figures.ini" --save "$T/save2" --out "$T/doc2.md" >"$T/out" 2>"$T/err" ||
    fail "a failing scenario made the script fail"
want edge 4 'n/a: pmlab run failed (exit 2)'
ok "a failed run is reported as n/a"

# Figure file errors: exit 2, FILE:LINE, nothing run.
bad() { # what sed-expression expected-message
    sed "$2" "$T/toy-figures.ini" >"$T/bad.ini"
    set +e
    $V --figures "$T/bad.ini" --from "$T/from" --out "$T/bad.md" >"$T/out" 2>"$T/err"; rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$1: exit $rc, want 2"
    grep -q "bad.ini:[0-9]*: .*$3" "$T/err" || fail "$1: stderr: $(cat "$T/err")"
    [ ! -s "$T/out" ] && [ ! -e "$T/bad.md" ] || fail "$1: made a table"
}
bad 'unknown key' 's/^why = wgap$/wy = wgap/' 'unknown key "wy"'
bad 'unknown variant' 's/^read = mean m base$/read = mean m bsae/' 'has no variant "bsae"'
bad 'delta on the baseline' 's/^read = delta m v$/read = delta m base/' 'is the baseline'
bad 'bad read' 's/^read = mean m base$/read = median m base/' 'read: expected'
bad 'band order' 's/^band = 11 12$/band = 12 11/' 'band: 12 is above 11'
bad 'band shape' 's/^band = 11 12$/band = 11/' 'band: expected'
bad 'fitted' 's/^fitted = calibrated: k$/fitted = yes/' 'fitted: expected'
bad 'match rule' 's/^match = inside$/match = within/' 'match: expected'
bad 'missing key' '/^why = wgap$/d' 'missing key why'
bad 'duplicate id' 's/^\[figure gap\]$/[figure edge]/' 'again'
bad 'no scenario' "s|^scenario = .*toy.ini$|scenario = $T/nosuch.ini|" 'cannot read'
bad 'metric shape' 's/^read = mean m base$/read = mean m..b base/' 'is not a metric name'
ok "figure file errors stop it with FILE:LINE (exit 2)"
