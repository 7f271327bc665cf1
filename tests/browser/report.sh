#!/bin/sh
# report.html in a real browser: chromium's headless shell (scripts/deps.sh
# installs it; a missing browser is a failure, not a skip) renders the
# report of a quick run to PNGs at desktop and phone widths and to its DOM;
# check_report.py compares the tables' text (with --cpus and --per-cpu rows)
# with the run's JSON and checks
# the page's form; any console message of the page fails.
. tests/lib.sh
B=""
for c in chromium-headless-shell chromium; do
    command -v "$c" >/dev/null 2>&1 && { B=$c; break; }
done
[ -n "$B" ] || fail "no chromium-headless-shell or chromium: run scripts/deps.sh"
# Root in a container: no sandbox; no GPU, D-Bus or profile of the user's.
browse() {
    "$B" --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=2000 "$@"
}

"$P" run scenarios/example-rr.ini --quick --reps 2 --cpus 0-1 --per-cpu --quiet --format json \
    --output "$T/r.json" --report "$T/rep" || fail "quick run"
R="file://$T/rep/report.html"

browse --dump-dom "$R" >"$T/dom.html" 2>"$T/dom.err" || fail "dump-dom: $(tail -3 "$T/dom.err")"
browse --window-size=1280,2400 --screenshot="$T/desk.png" "$R" >/dev/null 2>"$T/desk.err" ||
    fail "screenshot: $(tail -3 "$T/desk.err")"
# At a phone's width the page must not scroll sideways (wide tables scroll
# inside their own box): a copy of the page records the document's width
# against the window's.
sed 's|</body>|<script>document.body.dataset.overflow = document.documentElement.scrollWidth - innerWidth;</script></body>|' \
    "$T/rep/report.html" >"$T/rep/phone.html"
browse --window-size=390,844 --dump-dom "file://$T/rep/phone.html" >"$T/phone.html" 2>"$T/phone.err" ||
    fail "phone dump-dom"
browse --window-size=390,2400 --screenshot="$T/phone.png" "$R" >/dev/null 2>>"$T/phone.err" ||
    fail "phone screenshot"

if grep -h ':CONSOLE' "$T/dom.err" "$T/desk.err" "$T/phone.err"; then
    fail "the page logged to the console"
fi
ok "report.html: no console message"

for png in desk phone; do
    # A PNG of the width asked for and with content (a blank page is ~5 kB).
    [ "$(head -c 8 "$T/$png.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "$png.png is not a PNG"
    size=$(wc -c <"$T/$png.png")
    [ "$size" -gt 50000 ] || fail "$png.png: $size bytes, blank?"
done
ok "report.html rendered to PNG at 1280 and 390 px"

python3 tests/browser/check_report.py "$T/dom.html" "$T/r.json" "$T/phone.html" ||
    fail "report.html as rendered disagrees with the JSON or is malformed"
# A hybrid (adl-desktop: P and E cores): the per-type rows too, and
# --interval's table and plot.
"$P" run scenarios/kvm-haltpoll-fio.ini --quick --reps 2 --per-cpu --interval 50 --quiet --format json \
    --output "$T/h.json" --report "$T/hyb" || fail "hybrid quick run"
browse --dump-dom "file://$T/hyb/report.html" >"$T/hdom.html" 2>"$T/hdom.err" || fail "hybrid dump-dom"
! grep -h ':CONSOLE' "$T/hdom.err" || fail "the hybrid page logged to the console"
grep -q 'id="per-type-table"' "$T/hdom.html" || fail "hybrid: no per-type table"
grep -q 'id="interval-table"' "$T/hdom.html" && grep -q 'id="fig-interval"' "$T/hdom.html" ||
    fail "--interval: no table or plot in report.html"
python3 tests/browser/check_report.py "$T/hdom.html" "$T/h.json" "$T/phone.html" ||
    fail "hybrid report.html as rendered disagrees with the JSON or is malformed"
ok "report.html tables match the JSON; ids unique, figures captioned, nothing leaked"
