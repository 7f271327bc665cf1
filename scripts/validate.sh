#!/bin/sh
# make validate: pmlab against every published figure a shipped scenario can
# pose (validation/figures.ini), one row each, written to docs/validation.md.
#
# Why a script and not a test: the figures are the model's report card, not a
# gate. A MISS is a finding to read, so nothing here fails on a MISS; only a
# broken figure file (or bad usage) is an error, loudly, with FILE:LINE.
#
# Each scenario (and CPU view) is run once, in its default configuration, as
# `pmlab run --format json`; every figure of that scenario is read from that
# one JSON, so the table costs what the runs cost. The JSON is kept under
# build/validate/ for anyone who wants more than the table.
#
# POSIX sh + awk only (the CI machine has no python or jq). The JSON reader
# below is a small tokenizer: it flattens pmlab's output into path -> value
# pairs (variants/0/metrics/read_mbps/mean), which is all the lookups need.
set -eu

usage() {
    cat <<'EOF'
usage: sh scripts/validate.sh [OPTIONS]

Run every scenario that validation/figures.ini names, in its default
configuration, and print one row per published figure: the published value,
pmlab's value with its 95 % CI, the band, MATCH (pmlab's CI overlaps the band;
for `match = inside` figures, lies within it) or MISS, and whether a model
constant was fitted to the figure. Writes the table to docs/validation.md.

options:
  --figures FILE  the figure file (default validation/figures.ini)
  --out FILE      write the document here (default docs/validation.md; with
                  --quick, none unless --out is given)
  --quick         run each scenario's [quick] configuration: a cheap check of
                  the machinery, not a validation (also VALIDATE_QUICK=1)
  --jobs N        pmlab worker threads (also VALIDATE_JOBS; default: pmlab's)
  --save DIR      keep each run's JSON as DIR/NAME.json (default
                  build/validate/default, or build/validate/quick; NAME: the
                  scenario's file name without .ini, plus @CPUS for a
                  figure's CPU view)
  --from DIR      read the saved results DIR/NAME.json instead of running
  --check         only check the figure file and the scenarios it names
  --pmlab PATH    the binary (also PMLAB; default ./pmlab)
  -h, --help      this text

Exit status: 0 the table was made (whatever it says: MISS and n/a rows and
failed runs are reported, not errors); 1 the document could not be written;
2 a figure file error (FILE:LINE: what is wrong) or bad usage.
EOF
}

FIG=validation/figures.ini
OUT=
OUT_SET=0
QUICK=${VALIDATE_QUICK:-0}
JOBS=${VALIDATE_JOBS:-}
FROM=
SAVE=
CHECK=0
P=${PMLAB:-./pmlab}
while [ $# -gt 0 ]; do
    case $1 in
    --figures) [ $# -ge 2 ] || { usage >&2; exit 2; }; FIG=$2; shift ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; OUT=$2; OUT_SET=1; shift ;;
    --quick) QUICK=1 ;;
    --jobs) [ $# -ge 2 ] || { usage >&2; exit 2; }; JOBS=$2; shift ;;
    --from) [ $# -ge 2 ] || { usage >&2; exit 2; }; FROM=$2; shift ;;
    --save) [ $# -ge 2 ] || { usage >&2; exit 2; }; SAVE=$2; shift ;;
    --check) CHECK=1 ;;
    --pmlab) [ $# -ge 2 ] || { usage >&2; exit 2; }; P=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "validate: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[ "$QUICK" = 1 ] || QUICK=0
case $JOBS in
''|*[!0-9]*) [ -z "$JOBS" ] || { echo "validate: --jobs wants a number, not '$JOBS'" >&2; exit 2; } ;;
esac
if [ $OUT_SET = 0 ] && [ $QUICK = 0 ]; then OUT=docs/validation.md; fi
MODE=default
[ $QUICK = 0 ] || MODE=quick

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# ---------------------------------------------------------------------------
# 1. The figure file -> one tab-separated record per section, or errors.
#    Record: kind id line seed scenario cpus figure published readkind metric
#    metric2 variant lo hi why fitted match digits
# ---------------------------------------------------------------------------
awk -v F="$FIG" '
function err(line, msg) { printf "%s:%d: %s\n", F, line, msg > "/dev/stderr"; bad = 1 }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# Variant names of a scenario file, in order, into VAR[path, i]; NVAR[path].
function variants(path,    line, n, name) {
    if (path in NVAR) return NVAR[path] >= 0
    n = 0
    while ((getline line < path) > 0) {
        if (line ~ /^[ \t]*\[variant[ \t]+[^]]+\]/) {
            name = line
            sub(/^[ \t]*\[variant[ \t]+/, "", name); sub(/[ \t]*\].*$/, "", name)
            VAR[path, n++] = name
        }
    }
    close(path)
    NVAR[path] = n > 0 ? n : -1
    return n > 0
}
function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }
function decimals(s) { return s ~ /\./ ? length(s) - index(s, ".") : 0 }
function finish(    k, need, i, w, n, ok, lo, hi, rk, m1, m2, vr) {
    if (sec == "") return
    m1 = m2 = vr = lo = hi = ""
    if (kind == "host") {
        if (V["snapshot"] == "") err(secline, "[host " sec "]: missing key snapshot")
        else if ((getline line < (V["snapshot"] "/interrupts.raw.txt")) < 0)
            err(KL["snapshot"], "snapshot: cannot read " V["snapshot"] "/interrupts.raw.txt")
        close(V["snapshot"] "/interrupts.raw.txt")
        printf "host\t%s\t%d\t%s\t%s\n", sec, secline, V["snapshot"], V["note"]
        return
    }
    if (kind == "figure") need = "seed " ("trace" in V ? "trace" : "scenario") " figure published read band why fitted"
    else need = "seed figure published why"
    n = split(need, w, " ")
    for (i = 1; i <= n; i++)
        if (!(w[i] in V) || V[w[i]] == "") err(secline, "[" kind " " sec "]: missing key " w[i])
    if (kind == "omitted") {
        printf "omitted\t%s\t%d\t%s\t\t\t%s\t%s\t\t\t\t\t\t\t%s\t\t\t\n", sec, secline,
            V["seed"], V["figure"], V["published"], V["why"]
        return
    }
    # read = delta|mean METRIC VARIANT, or ratio METRIC METRIC2 VARIANT; for
    # a trace, value PATH
    n = split(V["read"], w, " ")
    rk = w[1]
    if ("trace" in V) {
        if ("scenario" in V) err(KL["trace"], "trace: a figure reads a scenario or a trace, not both")
        if ("cpus" in V) err(KL["cpus"], "cpus: a trace figure has no CPU view")
        if (rk == "value" && n == 2 && w[2] ~ /^[A-Za-z_][A-Za-z0-9_]*(\/[A-Za-z0-9_]+)*$/) m1 = w[2]
        else if (V["read"] != "") err(KL["read"], "read: a trace figure expects \"value PATH\" (a path into pmlab trace stats --format json, such as events/cpu_idle), not \"" V["read"] "\"")
        if ((getline line < V["trace"]) < 0) err(KL["trace"], "trace: cannot read " V["trace"])
        close(V["trace"])
        V["scenario"] = V["trace"]
    } else if ((rk == "delta" || rk == "mean") && n == 3) { m1 = w[2]; vr = w[3] }
    else if (rk == "ratio" && n == 4) { m1 = w[2]; m2 = w[3]; vr = w[4] }
    else if (V["read"] != "") err(KL["read"], "read: expected \"delta METRIC VARIANT\", \"mean METRIC VARIANT\" or \"ratio METRIC METRIC2 VARIANT\", not \"" V["read"] "\"")
    if (m1 != "" && rk != "value" && m1 !~ /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/) err(KL["read"], "read: \"" m1 "\" is not a metric name")
    if (m2 != "" && m2 !~ /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/) err(KL["read"], "read: \"" m2 "\" is not a metric name")
    n = split(V["band"], w, " ")
    if (n == 2) { lo = w[1]; hi = w[2] }
    if (V["band"] != "") {
        if (n != 2 || !(isnum(lo) || lo == "-inf") || !(isnum(hi) || hi == "inf"))
            err(KL["band"], "band: expected \"LO HI\" (numbers, -inf or inf), not \"" V["band"] "\"")
        else if (lo == "-inf" && hi == "inf")
            err(KL["band"], "band: both ends open says nothing")
        else if (lo != "-inf" && hi != "inf" && lo + 0 > hi + 0)
            err(KL["band"], "band: " lo " is above " hi)
    }
    if (V["fitted"] != "" && V["fitted"] != "prediction" && V["fitted"] !~ /^calibrated: *[^ ]/)
        err(KL["fitted"], "fitted: expected \"prediction\" or \"calibrated: WHAT\"")
    if (!("match" in V)) V["match"] = "overlap"
    else if (V["match"] != "overlap" && V["match"] != "inside")
        err(KL["match"], "match: expected overlap or inside, not \"" V["match"] "\"")
    if ("cpus" in V && V["cpus"] !~ /^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$/)
        err(KL["cpus"], "cpus: expected a CPU list such as 0-15 or 0,2,4")
    if ("digits" in V && V["digits"] !~ /^[0-6]$/)
        err(KL["digits"], "digits: expected 0 to 6")
    if (!("digits" in V) && n == 2) {
        # As many decimals as the band is written with; at least one below 100.
        V["digits"] = decimals(lo) > decimals(hi) ? decimals(lo) : decimals(hi)
        if (V["digits"] == 0 && (lo == "-inf" || lo + 0 > -100 && lo + 0 < 100) &&
            (hi == "inf" || hi + 0 > -100 && hi + 0 < 100)) V["digits"] = 1
    }
    if (V["scenario"] != "" && !("trace" in V)) {
        if (!variants(V["scenario"]))
            err(KL["scenario"], "scenario: cannot read " V["scenario"] " or it has no [variant] section")
        else if (vr != "") {
            ok = 0
            for (i = 0; i < NVAR[V["scenario"]]; i++) if (VAR[V["scenario"], i] == vr) ok = 1
            if (!ok) err(KL["read"], "read: " V["scenario"] " has no variant \"" vr "\"")
            else if (rk == "delta" && VAR[V["scenario"], 0] == vr)
                err(KL["read"], "read: \"" vr "\" is the baseline of " V["scenario"] ": a delta needs another variant")
        }
    }
    printf "figure\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sec, secline,
        V["seed"], V["scenario"], V["cpus"], V["figure"], V["published"], rk, m1, m2, vr,
        lo, hi, V["why"], V["fitted"], V["match"], V["digits"]
}
BEGIN {
    KEYS["figure"] = " seed scenario trace figure published read band why fitted match cpus digits "
    KEYS["omitted"] = " seed figure published why "
    KEYS["host"] = " snapshot note "
}
/^[ \t]*([;#].*)?$/ { next }
/\t/ { err(FNR, "a tab character (use spaces)"); next }
/^[ \t]*\[/ {
    finish()
    s = trim($0)
    if (s !~ /^\[(figure|omitted|host) +[A-Za-z0-9._-]+\]$/) {
        err(FNR, "expected [figure ID], [omitted ID] or [host ID], ID of letters, digits and ._-")
        sec = ""; next
    }
    kind = s; sub(/^\[/, "", kind); sub(/ .*/, "", kind)
    sec = s; sub(/^\[[a-z]+ +/, "", sec); sub(/\]$/, "", sec)
    if (sec in SEEN) err(FNR, "[" kind " " sec "] again (first at line " SEEN[sec] ")")
    SEEN[sec] = FNR; secline = FNR
    split("", V); split("", KL)
    next
}
{
    eq = index($0, "=")
    if (eq == 0) { err(FNR, "expected \"key = value\""); next }
    k = trim(substr($0, 1, eq - 1)); v = trim(substr($0, eq + 1))
    if (sec == "") { err(FNR, "\"" k "\" outside a [figure], [omitted] or [host] section"); next }
    if (index(KEYS[kind], " " k " ") == 0) { err(FNR, "unknown key \"" k "\" in [" kind " " sec "]"); next }
    if (k in V) { err(FNR, "\"" k "\" given twice in [" kind " " sec "]"); next }
    V[k] = v; KL[k] = FNR
}
END {
    finish()
    if (NR == 0) { printf "%s: empty or unreadable\n", F > "/dev/stderr"; bad = 1 }
    exit bad ? 2 : 0
}' "$FIG" >"$TMP/figs.tsv" || { echo "validate: $FIG has errors (above); nothing was run" >&2; exit 2; }

nfig=$(awk -F'\t' '$1 == "figure"' "$TMP/figs.tsv" | wc -l | tr -d ' ')
nomit=$(awk -F'\t' '$1 == "omitted"' "$TMP/figs.tsv" | wc -l | tr -d ' ')
nhost=$(awk -F'\t' '$1 == "host"' "$TMP/figs.tsv" | wc -l | tr -d ' ')
[ "$nfig" -gt 0 ] || { echo "validate: $FIG: no [figure] section" >&2; exit 2; }

# The runs: one per distinct (scenario, cpus), in the file's order.
awk -F'\t' -v F="$FIG" '$1 == "figure" && !(($5, $6) in seen) {
    seen[$5, $6] = 1
    name = $5; sub(/.*\//, "", name); sub(/\.ini$/, "", name); sub(/\.gz$/, "", name)
    if ($6 != "") name = name "@" $6
    # The result file is named after the scenario: two directories holding
    # the same file name would overwrite each other.
    if (name in used) {
        printf "%s:%d: %s and %s would share the result %s.json\n", F, $3, used[name], $5, name > "/dev/stderr"
        exit 2
    }
    used[name] = $5
    printf "%s\t%s\t%s\t%s\n", name, $5, $6 == "" ? "-" : $6, $9 == "value" ? "trace" : "scenario"
}' "$TMP/figs.tsv" >"$TMP/runs.tsv" || exit 2
nrun=$(wc -l <"$TMP/runs.tsv" | tr -d ' ')

if [ $CHECK = 1 ]; then
    echo "validate: $FIG: $nfig figures, $nomit omitted, $nhost hosts, $nrun runs: ok"
    exit 0
fi

# ---------------------------------------------------------------------------
# 2. Run each scenario once (or take its saved result with --from).
#    status.tsv: name scenario cpus json status seconds. The shell reads these
#    files with IFS=tab, which merges empty fields: "-" stands for none.
# ---------------------------------------------------------------------------
if [ -z "$FROM" ]; then
    [ -x "$P" ] || { echo "validate: no pmlab binary at $P (run make)" >&2; exit 1; }
    W=${SAVE:-build/validate/$MODE}
    mkdir -p "$W"
    has_cpus=0
    "$P" run --help 2>/dev/null | grep -q -- '--cpus' && has_cpus=1
fi
i=0
: >"$TMP/status.tsv"
while IFS='	' read -r name scen cpus type; do
    i=$((i + 1))
    [ "$cpus" != - ] || cpus=
    if [ -n "$FROM" ]; then
        j=$FROM/$name.json
        st=ok
        [ -r "$j" ] || st="no saved result $j"
        printf '%s\t%s\t%s\t%s\t%s\t-\n' "$name" "$scen" "${cpus:--}" "$j" "$st" >>"$TMP/status.tsv"
        continue
    fi
    j=$W/$name.json
    if [ -n "$cpus" ] && [ $has_cpus = 0 ]; then
        echo "validate: [$i/$nrun] $scen, CPUs $cpus: skipped: this pmlab has no 'run --cpus'" >&2
        printf '%s\t%s\t%s\t%s\t%s\t-\n' "$name" "$scen" "$cpus" "$j" \
            "needs pmlab run --cpus $cpus (not in this pmlab)" >>"$TMP/status.tsv"
        continue
    fi
    t0=$(date +%s)
    if [ "$type" = trace ]; then
        # A recorded trace: its statistics, the same in either configuration.
        echo "validate: [$i/$nrun] $scen: pmlab trace stats..." >&2
        tf=$scen
        case $scen in *.gz) tf=$TMP/$name; gzip -dc "$scen" >"$tf" 2>"$TMP/err" || tf=$scen ;; esac
        set -- trace stats "$tf" --format json
        so=$j
    else
        so=
        echo "validate: [$i/$nrun] $scen${cpus:+, CPUs $cpus}: running ($MODE configuration)..." >&2
        set -- run "$scen" --format json --quiet --output "$j"
        [ $QUICK = 0 ] || set -- "$@" --quick
        [ -z "$JOBS" ] || set -- "$@" --jobs "$JOBS"
        [ -z "$cpus" ] || set -- "$@" --cpus "$cpus"
    fi
    # A trace's JSON comes on stdout; a run writes its own --output.
    if if [ -n "$so" ]; then "$P" "$@" >"$so"; else "$P" "$@"; fi </dev/null 2>"$TMP/err"; then
        st=ok
    else
        st="pmlab ${1} failed (exit $?)"
        sed 's/^/    /' "$TMP/err" >&2
    fi
    secs=$(($(date +%s) - t0))
    echo "validate: [$i/$nrun] $scen${cpus:+, CPUs $cpus}: $st, ${secs} s" >&2
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$scen" "${cpus:--}" "$j" "$st" "$secs" >>"$TMP/status.tsv"
done <"$TMP/runs.tsv"

# ---------------------------------------------------------------------------
# 2b. Real hosts ([host ID]): import the snapshot (machine, scenario with the
#     idle workload at its interrupt rates and its [measured] section), run
#     the scenario as imported, and set every [measured] value against the
#     run's (CSV: metric mean ci95_lo ci95_hi). hosts.tsv: host metric
#     measured pmlab gap note.
# ---------------------------------------------------------------------------
: >"$TMP/hosts.tsv"
awk -F'\t' '$1 == "host" { print $2 "\t" $4 "\t" ($5 == "" ? "-" : $5) }' "$TMP/figs.tsv" >"$TMP/hostlist.tsv"
while IFS='	' read -r id snap note; do
    [ "$note" != - ] || note=
    if [ -n "$FROM" ]; then
        hd=$FROM/hosts
    else
        hd=$W/hosts
        mkdir -p "$hd/machines"
        echo "validate: host $id: pmlab import $snap, then run ($MODE configuration)..." >&2
        set -- run "$hd/$id.ini" --format csv --quiet --output "$hd/$id.csv"
        [ $QUICK = 0 ] || set -- "$@" --quick
        [ -z "$JOBS" ] || set -- "$@" --jobs "$JOBS"
        if ! "$P" import "$snap" -o "$hd/machines/$id.ini" --scenario "$hd/$id.ini" 2>"$TMP/err" </dev/null ||
           ! "$P" "$@" </dev/null 2>"$TMP/err"; then
            sed 's/^/    /' "$TMP/err" >&2
            rm -f "$hd/$id.csv"
        fi
    fi
    [ -r "$hd/$id.csv" ] && [ -r "$hd/$id.ini" ] || {
        printf '%s\t-\t-\tn/a: no run (import or run failed)\t-\t%s\n' "$id" "$note" >>"$TMP/hosts.tsv"
        continue
    }
    awk -F'[,=]' -v OFS='\t' -v ID="$id" -v NOTE="$note" '
    function trim(x) { sub(/^[ \t]+/, "", x); sub(/[ \t]+$/, "", x); return x }
    function fmt(x) { return sprintf(x + 0 >= 10 || x + 0 <= -10 ? "%.1f" : "%.2f", x) }
    function row(name, key, pkey,    m, g) {
        m = key in MEAS ? MEAS[key] : ""
        if (!(pkey in MEAN)) { print ID, name, m == "" ? "no measurement" : m, "no prediction: pmlab reports no " pkey, "-", NOTE; return }
        if (m == "") { print ID, name, "no measurement", fmt(MEAN[pkey]) " [" fmt(LO[pkey]) ", " fmt(HI[pkey]) "]", "-", NOTE; return }
        g = MEAN[pkey] - m
        print ID, name, m, fmt(MEAN[pkey]) " [" fmt(LO[pkey]) ", " fmt(HI[pkey]) "]", (g > 0 ? "+" : "") fmt(g), NOTE
    }
    FILENAME == ARGV[1] {
        # The scenario: its [measured] keys in file order.
        if ($0 ~ /^\[/) { sec = $0; next }
        if (sec != "[measured]" || $0 ~ /^[ \t]*([;#].*)?$/) next
        k = trim($1); MEAS[k] = trim($2); ORDER[++n] = k
        if (k ~ /^residency\./) DEEP_M = k
        next
    }
    FNR > 1 && $3 == "host" {
        # The run: scenario,machine,variant,metric,unit,n,mean,stddev,ci95_lo,ci95_hi,...
        MEAN[$4] = $7; LO[$4] = $9; HI[$4] = $10; PORDER[++np] = $4
        if ($4 ~ /^residency\./) DEEP_P = $4
    }
    END {
        hs = DEEP_M == "" ? "not measured" : substr(DEEP_M, 11); ps = substr(DEEP_P, 11)
        MEAS["deepest"] = DEEP_M == "" ? "" : MEAS[DEEP_M]
        MEAN["deepest"] = MEAN[DEEP_P]; LO["deepest"] = LO[DEEP_P]; HI["deepest"] = HI[DEEP_P]
        row("deepest state residency % (host " hs ", pmlab " ps ")", "deepest", "deepest")
        row("Busy %", "busy_pct", "busy_pct")
        row("PkgWatt, W", "pkg_watts", "pkg_watts")
        for (i = 1; i <= n; i++)
            if (ORDER[i] ~ /^(above|below|usage)_pct/ || ORDER[i] ~ /_per_s$/) row(ORDER[i], ORDER[i], ORDER[i])
        # States of the simulated driver the host did not have (another driver or table).
        for (i = 1; i <= np; i++)
            if (PORDER[i] ~ /^(above|below|usage)_pct\./ && !(PORDER[i] in MEAS)) row(PORDER[i] " (no such state on the host)", PORDER[i], PORDER[i])
    }' "$hd/$id.ini" "$hd/$id.csv" >>"$TMP/hosts.tsv"
done <"$TMP/hostlist.tsv"

# ---------------------------------------------------------------------------
# 3. Read each figure from its run's JSON -> rows.tsv:
#    seed figure published pmlab band result fitted id why kind
# ---------------------------------------------------------------------------
awk -F"\t" -v OFS="\t" -v FIG="$FIG" '
# --- JSON, flattened: J[run, "a/b/0/c"] = scalar; J[run, path "/#"] = length
function jpush(t) { D++; TY[D] = t; WK[D] = (t == "o"); IX[D] = 0; KY[D] = "" }
# The path down to depth d (D: the current value; D - 1: its container).
function jpath(d,    p, i) {
    p = ""
    for (i = 1; i <= d; i++) p = p (i > 1 ? "/" : "") (TY[i] == "o" ? KY[i] : IX[i])
    return p
}
function jvalue_done() { if (TY[D] == "o") WK[D] = 1; else IX[D]++ }
function jline(r, s,    c, tok) {
    while (s != "") {
        if (match(s, /^[ \t\r]+/)) { s = substr(s, RLENGTH + 1); continue }
        c = substr(s, 1, 1)
        if (c == "," || c == ":") { s = substr(s, 2); continue }
        if (c == "{" || c == "[") { jpush(c == "{" ? "o" : "a"); s = substr(s, 2); continue }
        if (c == "}" || c == "]") {
            if (TY[D] == "a") J[r, jpath(D - 1) "/#"] = IX[D]
            D--; s = substr(s, 2)
            if (D > 0) jvalue_done()
            continue
        }
        if (c == "\"") {
            if (!match(s, /^"([^"\\]|\\.)*"/)) return 0
            tok = substr(s, 2, RLENGTH - 2); s = substr(s, RLENGTH + 1)
            if (TY[D] == "o" && WK[D]) { KY[D] = tok; WK[D] = 0; continue }
        } else if (match(s, /^(-?[0-9][0-9.eE+-]*|true|false|null)/)) {
            tok = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1)
        } else return 0
        J[r, jpath(D)] = tok
        jvalue_done()
    }
    return 1
}
function jload(r, file,    line, ok) {
    D = 0; ok = 1
    while ((getline line < file) > 0) if (!jline(r, line)) ok = 0
    close(file)
    return ok && D == 0 && ((r, "pmlab") in J)
}
# Index of the variant named v in run r, or -1.
function vidx(r, v,    i) {
    for (i = 0; i < J[r, "variants/#"]; i++) if (J[r, "variants/" i "/name"] == v) return i
    return -1
}
# Student t, 97.5th percentile, by degrees of freedom (tables; beyond 30 an
# approximation within 0.002 of the true value).
function t975(df) {
    if (df <= 30) return TQ[df]
    return 1.96 + 2.4 / df
}
function num(x) { return x != "" && x != "null" }
# x to d decimals, "+" on a positive delta; no "-0.0" for a tiny negative.
function fmt(x, d, sign,    s) {
    s = sprintf("%." d "f", x)
    if (s + 0 == 0) return sprintf("%." d "f", 0)
    return (sign && x > 0 ? "+" : "") s
}
# Fill VAL, LO, HI, UNIT for the figure, or return the reason it cannot.
function readfig(r, kind, m, m2, v,    i, p, p2, n, k, a, b, s, ss, mean) {
    if (kind == "value") {
        # A count read from a trace: exact, its interval is the point.
        if (!((r, m) in J) || !num(J[r, m])) return "pmlab trace stats reported no " m
        VAL = LO = HI = J[r, m]; UNIT = ""
        return ""
    }
    if ((i = vidx(r, v)) < 0) return "no variant " v " in the result"
    if (kind == "delta") {
        for (k = 0; k < J[r, "comparisons/#"]; k++) {
            p = "comparisons/" k "/"
            if (J[r, p "metric"] == m && J[r, p "variant"] == v) break
        }
        if (k == J[r, "comparisons/#"]) return "pmlab reported no metric " m
        if (!num(J[r, p "delta_pct"])) return "no percentage: " m " of the baseline is zero"
        VAL = J[r, p "delta_pct"]; LO = J[r, p "ci95_pct/0"]; HI = J[r, p "ci95_pct/1"]; UNIT = "%"
        return ""
    }
    p = "variants/" i "/metrics/" m "/"
    if (!((r, p "mean") in J)) return "pmlab reported no metric " m
    if (kind == "mean") {
        if (!num(J[r, p "mean"]) || !num(J[r, p "ci95/0"])) return "no value for " m
        VAL = J[r, p "mean"]; LO = J[r, p "ci95/0"]; HI = J[r, p "ci95/1"]
        UNIT = J[r, p "unit"]
        return ""
    }
    p2 = "variants/" i "/metrics/" m2 "/"
    if (!((r, p2 "mean") in J)) return "pmlab reported no metric " m2
    n = J[r, p "values/#"]
    if (n < 2 || J[r, p2 "values/#"] != n) return "fewer than two replications"
    s = ss = 0
    for (k = 0; k < n; k++) {
        a = J[r, p "values/" k]; b = J[r, p2 "values/" k]
        if (!num(a) || !num(b) || b == 0) return "a replication without " m " / " m2
        R[k] = a / b; s += R[k]
    }
    mean = s / n
    for (k = 0; k < n; k++) ss += (R[k] - mean) ^ 2
    VAL = mean
    LO = mean - t975(n - 1) * sqrt(ss / (n - 1) / n)
    HI = mean + t975(n - 1) * sqrt(ss / (n - 1) / n)
    UNIT = ""
    return ""
}
function bandtext(lo, hi, u) {
    u = u == "" ? "" : " " u
    if (lo == "-inf") return "<= " hi u
    if (hi == "inf") return ">= " lo u
    return lo " .. " hi u
}
BEGIN {
    split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
          "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
          "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", TQ, " ")
}
FILENAME == ARGV[1] {
    # status.tsv: name scenario cpus json status seconds
    RUN[$2, $3 == "-" ? "" : $3] = $1; ST[$1] = $5
    if ($5 == "ok" && !jload($1, $4)) {
        ST[$1] = "unreadable result " $4
        printf "validate: %s is not a pmlab JSON result\n", $4 > "/dev/stderr"
    }
    next
}
$1 == "host" { next }
$1 == "omitted" { print $4, $7, $8, "", "", "", "", $2, $15, "omitted"; next }
{
    id = $2; r = RUN[$5, $6]; kind = $9; lo = $13; hi = $14; d = $18
    why = ""; VAL = LO = HI = UNIT = ""
    if (ST[r] != "ok") why = ST[r]
    else why = readfig(r, kind, $10, $11, $12)
    if (why != "") {
        if (why ~ /^pmlab reported no metric/)
            printf "validate: %s:%s: [figure %s]: %s in %s (a typo, or a metric this model does not produce)\n",
                FIG, $3, id, why, $5 > "/dev/stderr"
        pm = "n/a: " why; res = "n/a"
    } else {
        pm = fmt(VAL, d, kind == "delta") (UNIT == "" ? "" : " " UNIT) " [" fmt(LO, d) ", " fmt(HI, d) "]"
        if ($17 == "inside")
            ok = (lo == "-inf" || LO + 0 >= lo + 0) && (hi == "inf" || HI + 0 <= hi + 0)
        else
            ok = (lo == "-inf" || HI + 0 >= lo + 0) && (hi == "inf" || LO + 0 <= hi + 0)
        res = ok ? "MATCH" : "MISS"
    }
    fit = $16 == "prediction" ? "prediction" : $16
    b = bandtext(lo, hi, kind == "delta" ? "%" : UNIT)
    if ($17 == "inside") b = b " (whole CI)"
    print $4, $7, $8, pm, b, res, fit, id, $15, "figure"
}' "$TMP/status.tsv" "$TMP/figs.tsv" >"$TMP/rows.tsv"

# ---------------------------------------------------------------------------
# 4. The table (stdout) and the document.
# ---------------------------------------------------------------------------
# A Markdown table with padded cells: readable as text, renders as a table.
table() {
    awk -F'\t' '
    function esc(s) { gsub(/\|/, "\\|", s); return s }
    function row(    i, s) {
        s = "|"
        for (i = 1; i <= NC; i++) s = s " " sprintf("%-" W[i] "s", C[NR_, i]) " |"
        return s
    }
    NR == 1 { NC = NF }
    {
        for (i = 1; i <= NC; i++) {
            C[NR, i] = esc($i)
            if (length(C[NR, i]) > W[i]) W[i] = length(C[NR, i])
        }
        N = NR
    }
    END {
        for (NR_ = 1; NR_ <= N; NR_++) {
            print row()
            if (NR_ == 1) {
                s = "|"
                for (i = 1; i <= NC; i++) { d = ""; while (length(d) < W[i] + 2) d = d "-"; s = s d "|" }
                print s
            }
        }
    }'
}

{
    printf 'seed\tfigure\tpublished\tpmlab, 95 %% CI\tband\tresult\tfitted\n'
    awk -F'\t' -v OFS='\t' '$10 == "figure" { print $1, $2, $3, $4, $5, $6, $7 }' "$TMP/rows.tsv"
} | table >"$TMP/table.md"

awk -F'\t' '$10 == "figure" {
    c = $7 == "prediction" ? "p" : "c"; n[c, $6]++
}
END {
    printf "predictions: %d MATCH, %d MISS, %d n/a; calibrated: %d MATCH, %d MISS, %d n/a\n",
        n["p", "MATCH"], n["p", "MISS"], n["p", "n/a"], n["c", "MATCH"], n["c", "MISS"], n["c", "n/a"]
}' "$TMP/rows.tsv" >"$TMP/summary"

echo
[ $QUICK = 0 ] || echo "QUICK configuration: a check of the machinery, not the validation."
cat "$TMP/table.md"
echo
cat "$TMP/summary"
if [ -s "$TMP/hosts.tsv" ]; then
    {
        printf 'host\tmeasured on the host\tmeasured\tpmlab, 95 %% CI\tgap (pmlab - measured)\n'
        cut -f1-5 "$TMP/hosts.tsv"
    } | table >"$TMP/hosts.md"
    echo
    echo "Real hosts idle (predictions, nothing fitted per host):"
    cat "$TMP/hosts.md"
fi

[ -n "$OUT" ] || exit 0

howrun="each scenario in its **$MODE configuration**"
[ -z "$FROM" ] || howrun="from the saved results in \`$FROM\` (configurations under \"Runs\")"
version=$("$P" --version 2>/dev/null | sed 's/.* //' || true)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit + uncommitted changes"
{
    cat <<EOF
# Validation: pmlab against the published figures

Generated by \`make validate\` (\`scripts/validate.sh\` from
\`validation/figures.ini\`); do not edit: change the figure file or the model
and run it again. pmlab ${version:-?}, commit $commit, $(date -u +%Y-%m-%d),
$howrun.

How to read a row: *published* is the figure as its source states it
(its source is in \`validation/figures.ini\`); *pmlab* is the model's value with its 95 %
confidence interval, read from \`pmlab run --format json\` (a delta is
\`comparisons[].delta_pct\` and \`ci95_pct\` of the variant against the
scenario's first variant; a level is the variant's \`metrics\` \`mean\` and
\`ci95\`; a ratio of two metrics is taken per replication, with a Student-t
CI over the replications; a count from a recorded trace is read from
\`pmlab trace stats --format json\` and is exact, its CI the point itself). The *band* is how far the published figure itself
is known, fixed from the publication (see "Bands"), never from pmlab's
output. **MATCH** when pmlab's CI overlaps the band; for a band marked "whole
CI" (a direction the publication calls clear) only when the CI lies entirely
inside it. **MISS** otherwise. **n/a** says why pmlab gives no number.
*calibrated* means a model constant was fitted to this very figure, so a
MATCH there is by construction; *prediction* means nothing was fitted to it.

EOF
    cat "$TMP/table.md"
    echo
    cat "$TMP/summary"
    echo
    echo "## Bands"
    echo
    awk -F'\t' '$10 == "figure" { printf "- `%s` (%s): %s: %s.\n", $8, $1, $5, $9 }' "$TMP/rows.tsv"
    echo
    echo "## Runs"
    echo
    {
        printf 'scenario\tCPU view\tconfiguration\treplications\twall time\tresult\n'
        while IFS='	' read -r name scen cpus j st secs; do
            reps= cfg=
            if [ "$st" = ok ]; then
                # pmlab's JSON layout is fixed (keys in order, two-space indent).
                reps=$(sed -n 's/^  "reps": \([0-9]*\),$/\1/p' "$j")
                cfg=default
                ! grep -q '^  "quick": true' "$j" || cfg=quick
                ! grep -q '^  "trace": ' "$j" || cfg="trace stats"
            fi
            [ "$cpus" != - ] || cpus=host-wide
            [ "$secs" = - ] || secs="$secs s"
            printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$scen" "$cpus" "${cfg:--}" "${reps:--}" "$secs" "$st"
        done <"$TMP/status.tsv"
    } | table
    echo
    if [ -s "$TMP/hosts.tsv" ]; then
        echo "## Real hosts idle"
        echo
        echo "Each [host] snapshot is imported (\`pmlab import\`) and its scenario run as"
        echo "written: the imported machine and kernel settings, and the idle workload"
        echo "at the host's measured per-CPU timer (LOC) and device interrupt rates. Every"
        echo "value of the scenario's \`[measured]\` section is set against the run's"
        echo "metric of the same name. These are predictions: nothing is fitted per host."
        echo
        cat "$TMP/hosts.md"
        echo
        awk -F'\t' '$6 != "" && !seen[$1]++ { printf "- %s: %s\n", $1, $6 }' "$TMP/hosts.tsv"
        echo
    fi
    echo "## Published figures not in the table"
    echo
    awk -F'\t' '$10 == "omitted" { printf "- seed %s, %s (published: %s). Not posed: %s.\n", $1, $2, $3, $9 }' "$TMP/rows.tsv"
} >"$TMP/doc" || exit 1
cp "$TMP/doc" "$OUT" || { echo "validate: cannot write $OUT" >&2; exit 1; }
echo "validate: wrote $OUT" >&2
