#!/usr/bin/env python3
"""Draws WriteScaleCurve's curves (its output on stdin) as an SVG on stdout: fenced's UPDATE throughput as a ratio
of raw pgjdbc's in the same run, against protected tables configured and against client threads.

    python3 bench/plot/write_scale_svg.py < write-scale.txt > docs/write-scale-curve.svg"""
import math
import sys

from svgplot import COLORS, W, Curve, figure, number, panel, tables

found = list(tables(sys.stdin).items())
ratios = [number(c) for _, rows in found for r in rows for c in r[1:3]]
ylim = (min(0.5, math.floor(min(ratios) * 10) / 10), max(1.2, math.ceil(max(ratios) * 10) / 10))
panels = []
for k, (label, rows) in enumerate(found):
    curves = [Curve("(c) fenced / (b) the same SQL by hand on raw pgjdbc: fenced's client side",
                    [(number(r[0]), number(r[1])) for r in rows], COLORS[0]),
              Curve("(c) fenced / (a) raw pgjdbc, unfenced UPDATE: all of fencing",
                    [(number(r[0]), number(r[2])) for r in rows], COLORS[1])]
    x = label.split(" (")[0]
    ticks = (1, 10, 100, 1000, 2000) if x.startswith("protected") else (1, 2, 4, 8, 16, 32, 64)
    panels.append(panel(k * (W + 20), "throughput ratio, by " + x, "ratio", curves, False, x, ticks, ylim, 1.0, 0.1))
print(figure(panels, curves))
