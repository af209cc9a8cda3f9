#!/usr/bin/env python3
"""Draws ColdPlanCost's curves (its output on stdin) as an SVG on stdout: CPU per new text and retained heap
against distinct texts, log scales, one line per kind of text."""
import sys

from svgplot import COLORS, W, Curve, figure, number, panel, tables

found = tables(sys.stdin)
cpu = [Curve(name, [(number(r[0]), number(r[1])) for r in rows], COLORS[k]) for k, (name, rows) in
       enumerate(found.items())]
heap = [Curve(c.name, [(number(r[0]), number(r[2]) / 1024) for r in rows], c.color) for c, rows in
        zip(cpu, found.values())]
print(figure([panel(0, "CPU per new text", "µs (log)", cpu, True),
              panel(W + 20, "retained heap", "MB", heap, False)], cpu))
