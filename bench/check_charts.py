#!/usr/bin/env python3
"""Checks the benchmark's charts against the run they were drawn from (CI).

usage: check_charts.py RESULTS.jsonl DIR

Both SVG files must exist and parse as XML, and hold one marker per measured row: in
roofline.svg a circle per resident row and a triangle (polygon) per CPU row; in speedup.svg
a circle per resident row and a triangle per end-to-end row (each with a CPU time to divide
by). Legends are drawn with lines and text only, so markers are the only circles and
polygons.
"""
import json
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def count(path, tag):
    root = ET.parse(path).getroot()  # raises on malformed XML
    return sum(1 for e in root.iter() if e.tag in (tag, SVG + tag))


def main():
    results, out = sys.argv[1], sys.argv[2]
    rows = [json.loads(l) for l in open(results) if l.strip()]
    rows = [r for r in rows if r["kind"] == "row" and r["seconds"] is not None]
    timed = lambda mode: [r for r in rows if r["mode"] == mode]
    cpu_keys = {(r["routine"], r["size"]) for r in timed("cpu")}
    with_cpu = lambda mode: [r for r in timed(mode) if (r["routine"], r["size"]) in cpu_keys]
    want = {
        ("roofline.svg", "circle"): len(timed("resident")),
        ("roofline.svg", "polygon"): len(timed("cpu")),
        ("speedup.svg", "circle"): len(with_cpu("resident")),
        ("speedup.svg", "polygon"): len(with_cpu("e2e")),
    }
    bad = 0
    for (name, tag), n in want.items():
        got = count(f"{out}/{name}", tag)
        ok = got == n and n > 0
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name}: {got} {tag} markers, {n} measured rows")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
