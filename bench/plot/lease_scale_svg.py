#!/usr/bin/env python3
"""Draws LeaseScaleCurve's curves as an SVG on stdout, one output file per store given as arguments: grant latency
(p50, p99) and the renewal round's cost per held lease (wall time; CPU of client and server) against held leases,
log scales.

    python3 bench/plot/lease_scale_svg.py lease-postgres.txt lease-etcd.txt > docs/lease-scale-curve.svg"""
import re
import sys

from svgplot import COLORS, W, Curve, figure, number, panel, tables

grant, renewal = [], []
for k, path in enumerate(sys.argv[1:]):
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    store = next(re.match(r"lease store (\S+)", l).group(1) for l in lines if l.startswith("lease store "))
    store = {"postgres": "PostgreSQL", "etcd": "etcd"}.get(store, store)
    rows = [r for rows in tables(lines).values() for r in rows]
    color = COLORS[k]
    grant.append(Curve(f"{store}: grant p50 / renewal wall time", [(number(r[0]), number(r[1])) for r in rows], color))
    grant.append(Curve(f"{store}: grant p99 / renewal CPU, client + server",
                       [(number(r[0]), number(r[2])) for r in rows], color, dash=True))
    renewal.append(Curve("", [(number(r[0]), number(r[4])) for r in rows], color))
    cpu = [(number(r[0]), number(r[5]) + (number(r[6]) if r[6] != "n/a" else 0)) for r in rows]
    renewal.append(Curve("", cpu, color, dash=True))
ticks = (1000, 3000, 10000, 30000, 100000)
print(figure([panel(0, "grant latency, N leases held", "µs (log)", grant, True, "held leases", ticks),
              panel(W + 20, "renewal round, per held lease", "µs (log)", renewal, True, "held leases", ticks)],
             grant))
