#!/usr/bin/env python3
"""Draws ColdPlanCost's curves (its output on stdin) as an SVG on stdout: CPU per new text and retained heap
against distinct texts, log scales, one line per kind of text. No plotting library needed."""
import math
import re
import sys

curves = {}
label = None
for line in sys.stdin:
    m = re.match(r"curve, (.*?):", line)
    if m:
        label = m.group(1)
        curves[label] = []
        continue
    m = re.match(r"\| ([\d,]+) \| ([\d.]+) \| ([\d,-]+) \|", line)
    if m and label:
        curves[label].append((int(m.group(1).replace(",", "")), float(m.group(2)), int(m.group(3).replace(",", "")) / 1024))

W, H, PAD = 360, 260, 50
colors = ["#1f77b4", "#d62728", "#2ca02c"]


def panel(x0, title, ylabel, index, ylog):
    xs = [p[0] for c in curves.values() for p in c]
    ys = [max(p[index], 0.01) for c in curves.values() for p in c]
    xlo, xhi = math.log10(min(xs)), math.log10(max(xs))
    if ylog:
        ylo, yhi = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    else:
        ylo, yhi = 0, max(ys) * 1.1

    def px(x):
        return x0 + PAD + (math.log10(x) - xlo) / (xhi - xlo) * (W - PAD - 10)

    def py(y):
        v = math.log10(max(y, 0.01)) if ylog else y
        return H - PAD + 10 - (v - ylo) / (yhi - ylo) * (H - PAD - 20)

    out = [f'<text x="{x0 + W / 2}" y="14" text-anchor="middle" font-size="13">{title}</text>']
    out.append(f'<rect x="{x0 + PAD}" y="10" width="{W - PAD - 10}" height="{H - PAD}" fill="none" stroke="#999"/>')
    for x in [1000, 2000, 5000, 10000, 20000, 50000, 100000]:
        out.append(f'<text x="{px(x):.1f}" y="{H - PAD + 26}" text-anchor="middle" font-size="10">{x // 1000}k</text>')
    ticks = [10 ** e for e in range(int(ylo), int(yhi) + 1)] if ylog else [yhi / 1.1 * f for f in (0, 0.25, 0.5, 0.75, 1)]
    for y in ticks:
        out.append(f'<line x1="{x0 + PAD}" x2="{x0 + W - 10}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#eee"/>')
        text = f"{y:g}" if ylog else f"{y:.1f}"
        out.append(f'<text x="{x0 + PAD - 4}" y="{py(y) + 3:.1f}" text-anchor="end" font-size="10">{text}</text>')
    out.append(f'<text x="{x0 + W / 2 + 20}" y="{H - 8}" text-anchor="middle" font-size="11">distinct texts</text>')
    out.append(f'<text x="{x0 + 12}" y="{H / 2}" font-size="11" transform="rotate(-90 {x0 + 12} {H / 2})"'
               f' text-anchor="middle">{ylabel}</text>')
    for k, (name, pts) in enumerate(curves.items()):
        path = " ".join(f"{px(p[0]):.1f},{py(p[index]):.1f}" for p in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colors[k]}" stroke-width="2"/>')
        for p in pts:
            out.append(f'<circle cx="{px(p[0]):.1f}" cy="{py(p[index]):.1f}" r="2.5" fill="{colors[k]}"/>')
    return out


body = panel(0, "CPU per new text", "µs (log)", 1, True) + panel(W + 20, "retained heap", "MB", 2, False)
for k, name in enumerate(curves):
    body.append(f'<rect x="{PAD + 10}" y="{H + 8 + 16 * k}" width="12" height="3" fill="{colors[k]}"/>')
    body.append(f'<text x="{PAD + 28}" y="{H + 13 + 16 * k}" font-size="11">{name}</text>')
print(f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W + 20}" height="{H + 16 * len(curves) + 14}"'
      f' font-family="sans-serif">')
print('<rect width="100%" height="100%" fill="white"/>')
print("\n".join(body))
print("</svg>")
