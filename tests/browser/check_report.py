#!/usr/bin/env python3
"""Check report.html as a browser saw it (chromium --dump-dom) against the
run's JSON: every metric row's means and verdicts, the turbostat and
above/below tables, the variants' knobs; and the page's form: unique ids,
a caption under every figure, marked explain lines, no file name leaked,
nothing loaded from outside the page, no horizontal overflow at phone width.

usage: check_report.py DOM.html RESULT.json PHONE_DOM.html
Prints one line per failed check and exits 1 if any failed."""
import json
import re
import sys
from html.parser import HTMLParser


class Dom(HTMLParser):
    """Tables as rows of (tag, attrs, text) cells, every id, figures and
    captions, explain lines and every src/href."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs, self.tables = [], [], {}
        self.figures = self.captions = 0
        self.diff_lines = []
        self.body_attrs = {}
        self._table = self._row = self._cell = None
        self._diff = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        for k in ("src", "href", "xlink:href"):
            if k in a:
                self.refs.append(a[k])
        if tag == "body":
            self.body_attrs = a
        if tag == "table":
            self._table = self.tables.setdefault(a.get("id", ""), [])
        elif tag == "tr" and self._table is not None:
            self._row = {"attrs": a, "cells": []}
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = {"tag": tag, "class": a.get("class", ""), "text": ""}
            self._row["cells"].append(self._cell)
        elif tag == "figure":
            self.figures += 1
        elif tag == "figcaption":
            self.captions += 1
        elif tag == "span" and "diff" in a.get("class", ""):
            self._diff = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "tr":
            self._row = None
        elif tag in ("td", "th"):
            self._cell = None
        elif tag == "span" and self._diff is not None:
            self.diff_lines.append(self._diff)
            self._diff = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data
        if self._diff is not None:
            self._diff += data


def parse(path):
    d = Dom()
    with open(path, encoding="utf-8") as f:
        d.feed(f.read())
    return d


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def shown_close(text, value, what):
    """text shows value rounded to the decimals it has."""
    m = re.match(r"\s*([-+]?[0-9.]+(?:e[-+]?[0-9]+)?)", text)
    if not m:
        check(False, f"{what}: '{text}' is not a number (JSON {value})")
        return
    num = m.group(1)
    decimals = len(num.split(".")[1]) if "." in num and "e" not in num else 0
    tol = 0.5 * 10 ** -decimals + 1e-9 * abs(value)
    if "e" in num:
        tol = abs(value) * 1e-3
    check(abs(float(num) - value) <= tol, f"{what}: shown {text!r}, JSON {value}")


def main():
    dom, res, phone = parse(sys.argv[1]), json.load(open(sys.argv[2])), parse(sys.argv[3])
    variants = {v["name"]: v for v in res["variants"]}
    base = res["variants"][0]
    cmps = {(c["variant"], c["metric"]): c for c in res["comparisons"]}

    # Variants and their knobs.
    rows = [r for r in dom.tables.get("variants-table", []) if r["cells"][0]["tag"] == "td"]
    check([r["cells"][0]["text"] for r in rows] == list(variants), "variants table: names")
    for r in rows:
        v = variants.get(r["cells"][0]["text"], {})
        got = [c["text"] for c in r["cells"][1:6]]
        want = [v.get(k, "") for k in ("kernel", "patches", "cmdline", "sysfs", "config")]
        check(got == want, f"variants table: {got} != JSON {want}")

    # Metrics: the baseline mean, each compared variant's mean and verdict.
    seen = set()
    for r in dom.tables.get("metrics", []):
        metric = r["attrs"].get("data-metric")
        if metric is None:
            continue
        cells = {c["class"].split()[-1] if c["class"] else c["tag"]: c["text"] for c in r["cells"]}
        if "base" in cells:
            shown_close(cells["base"], base["metrics"][metric]["mean"], f"{metric} {base['name']}")
        name = r["attrs"].get("data-variant")
        if name is None:
            continue
        seen.add((name, metric))
        c = cmps.get((name, metric))
        if c is None:
            check("not reported" in "".join(cells.values()), f"{metric} {name}: no comparison")
            continue
        shown_close(cells["mean"], variants[name]["metrics"][metric]["mean"], f"{metric} {name}")
        verdict = [x for x in r["cells"] if "verdict" in x["class"]]
        check(verdict and verdict[0]["text"] == c["verdict"],
              f"{metric} {name}: verdict cell {verdict[0]['text'] if verdict else None} != {c['verdict']}")
        check(verdict and c["verdict"].replace("n/a", "na") in verdict[0]["class"].split(),
              f"{metric} {name}: verdict cell not classed (coloured) by its verdict")
    shown_metrics = {m for _, m in seen}
    for key in cmps:
        if not re.match(r"(cpus\.)?(residency|core_residency|pkg_residency|above_pct|below_pct)\.",
                        key[1]):
            check(key in seen, f"comparison {key} missing from the metrics table")
    check(len(shown_metrics) > 5, f"metrics table: only {len(shown_metrics)} metrics")

    # turbostat view: Busy%, Bzy_MHz, PkgWatt of every variant.
    ts = dom.tables.get("turbostat-table", [])
    head = [c["text"] for c in ts[0]["cells"]] if ts else []
    for r in ts[1:]:
        label = r["cells"][0]["text"]
        prefix = "cpus." if " cpus " in label else ""
        v = variants[label.split(" cpus ")[0]]
        for col, metric in (("Busy%", "busy_pct"), ("Bzy_MHz", "bzy_mhz"), ("PkgWatt", "pkg_watts")):
            text = r["cells"][head.index(col)]["text"]
            m = v["metrics"].get(prefix + metric)
            if m is None:
                check(text == "-", f"turbostat {label} {col}: {text!r} for a missing metric")
            else:
                shown_close(text, m["mean"], f"turbostat {label} {col}")
    check(len(ts) == 1 + len(variants) * (2 if res.get("cpus") else 1),
          "turbostat table: a row per variant")

    # above / below: every state's cell against above_pct.S / below_pct.S.
    ab = dom.tables.get("above-below", [])
    states = [c["text"] for c in ab[0]["cells"][1:]] if ab else []
    for r in ab[1:]:
        label = r["cells"][0]["text"]
        prefix = "cpus." if " cpus " in label else ""
        v = variants[label.split(" cpus ")[0]]
        for s, cell in zip(states, r["cells"][1:]):
            sfx = "" if s == "all" else "." + s
            a, b = v["metrics"].get(prefix + "above_pct" + sfx), v["metrics"].get(prefix + "below_pct" + sfx)
            if a is None or b is None:
                check(cell["text"] == "-", f"above/below {label} {s}: {cell['text']!r}")
                continue
            parts = cell["text"].split("/")
            check(len(parts) == 2, f"above/below {label} {s}: {cell['text']!r}")
            if len(parts) == 2:
                shown_close(parts[0], a["mean"], f"above {label} {s}")
                shown_close(parts[1], b["mean"], f"below {label} {s}")

    # --per-cpu and --interval: the per-CPU, per-type and interval tables
    # against the series' means.
    for table, prefix in (("per-cpu-table", "per_cpu"), ("per-type-table", "per_type."),
                          ("interval-table", "interval")):
        want = {}
        for v in res["variants"]:
            for name, sr in v.get("series", {}).items():
                if name.startswith(prefix):
                    want[(v["name"], name[len(prefix):] if prefix.endswith(".") else "")] = sr
        rows = dom.tables.get(table, [])
        check(bool(rows) == bool(want), f"{table}: {len(rows)} rows, {len(want)} series in JSON")
        nexp = sum(len(sr["replications"][0]) for sr in want.values())
        check(len(rows) == nexp + (1 if rows else 0), f"{table}: {len(rows) - 1} rows, JSON {nexp}")
        seen_rows = {}
        for r in rows[1:]:
            texts = [c["text"] for c in r["cells"]]
            typed = prefix.endswith(".")
            key = (texts[0], texts[1] if typed else "")
            sr = want.get(key)
            if sr is None:
                check(False, f"{table}: row {key} not in the JSON")
                continue
            i = seen_rows[key] = seen_rows.get(key, -1) + 1
            for c, text in enumerate(texts[2 if typed else 1:]):
                vals = [rep[i][c] for rep in sr["replications"]]
                shown_close(text, sum(vals) / len(vals), f"{table} {key} row {i} {sr['columns'][c]}")

    # Form.
    dup = sorted({i for i in dom.ids if dom.ids.count(i) > 1})
    check(not dup, f"ids used more than once: {dup[:5]}")
    check(dom.figures > 0 and dom.figures == dom.captions,
          f"{dom.figures} figures, {dom.captions} captions")
    outside = [r for r in dom.refs if not r.startswith("#")]
    check(not outside, f"references outside the page: {outside[:3]}")
    raw = open(sys.argv[1], encoding="utf-8").read()
    leaks = re.findall(r"[\w/.-]*\.(?:dat|gp)\b['\"]", raw)
    check(not leaks, f"file names leaked: {leaks[:3]}")
    check(any(l.startswith("*") for l in dom.diff_lines), "no explain line marked")
    check(int(phone.body_attrs.get("data-overflow", "1")) <= 0,
          f"page wider than a phone's screen: {phone.body_attrs.get('data-overflow')}")

    for f in failures[:20]:
        print("FAIL:", f)
    if len(failures) > 20:
        print(f"FAIL: ... and {len(failures) - 20} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
