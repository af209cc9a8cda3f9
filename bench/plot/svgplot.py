"""Curves as SVG without a plotting library: the bench's pictures in docs/ (cold_path_svg.py, lease_scale_svg.py,
write_scale_svg.py). Panels side by side, a log x axis, a log or linear y axis, one polyline per curve, the
legend under the panels."""
import math
import re

W, H, PAD = 360, 260, 50
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def tables(lines):
    """The markdown tables of a bench program's output, each under its `curve, <label>:` line (or, with no
    such line, under the label None): {label: [row cells, ...]}, header and rule left out, numbers as written."""
    found = {}
    label = None
    for line in lines:
        m = re.match(r"curve, (.*?):", line)
        if m:
            label = m.group(1)
            found[label] = []
            continue
        if line.startswith("|") and not line.startswith("|-"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if re.match(r"^[\d,.]+$", cells[0]):
                found.setdefault(label, []).append(cells)
    return found


def number(cell):
    """The first number of a cell: `1,000` is 1000, `0.974 [0.96–0.99]` is 0.974, `+0.19` is 0.19."""
    return float(re.match(r"[+]?(-?[\d,]*\.?\d+)", cell).group(1).replace(",", ""))


def k_label(x):
    return f"{x // 1000}k" if x >= 1000 else f"{x:g}"


class Curve:
    """A named line: points (x, y), a colour, dashed or not."""

    def __init__(self, name, points, color, dash=False):
        self.name, self.points, self.color, self.dash = name, points, color, dash


def panel(x0, title, ylabel, curves, ylog, xlabel="distinct texts",
          xticks=(1000, 2000, 5000, 10000, 20000, 50000, 100000), ylim=None, refline=None, ystep=None):
    """One panel at x offset x0. ylim (lo, hi) fixes a linear axis's range (default 0 to the top value + 10%),
    ystep its grid (default quarters); refline draws a horizontal line at that y (1.0 for ratios)."""
    xs = [p[0] for c in curves for p in c.points]
    ys = [max(p[1], 0.01) for c in curves for p in c.points]
    xlo, xhi = math.log10(min(xs)), math.log10(max(xs))
    if xhi == xlo:  # one point: a decade around it
        xlo, xhi = xlo - 0.5, xhi + 0.5
    if ylog:
        ylo, yhi = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        yhi = max(yhi, ylo + 1)
    elif ylim:
        ylo, yhi = ylim
    else:
        ylo, yhi = 0, max(ys) * 1.1

    def px(x):
        return x0 + PAD + (math.log10(x) - xlo) / (xhi - xlo) * (W - PAD - 10)

    def py(y):
        v = math.log10(max(y, 0.01)) if ylog else min(max(y, ylo), yhi)
        return H - PAD + 10 - (v - ylo) / (yhi - ylo) * (H - PAD - 20)

    out = [f'<text x="{x0 + W / 2}" y="14" text-anchor="middle" font-size="13">{title}</text>']
    out.append(f'<rect x="{x0 + PAD}" y="10" width="{W - PAD - 10}" height="{H - PAD}" fill="none" stroke="#999"/>')
    for x in [x for x in xticks if xlo <= math.log10(x) <= xhi]:
        out.append(f'<text x="{px(x):.1f}" y="{H - PAD + 26}" text-anchor="middle" font-size="10">{k_label(x)}</text>')
    if ylog:
        ticks = [10 ** e for e in range(int(ylo), int(yhi) + 1)]
    elif ylim:
        step = ystep or (yhi - ylo) / 4
        ticks = [ylo + step * i for i in range(int(round((yhi - ylo) / step)) + 1)]
    else:
        ticks = [yhi / 1.1 * f for f in (0, 0.25, 0.5, 0.75, 1)]
    for y in ticks:
        out.append(f'<line x1="{x0 + PAD}" x2="{x0 + W - 10}" y1="{py(y):.1f}" y2="{py(y):.1f}" stroke="#eee"/>')
        text = f"{y:g}" if ylog else f"{y:.1f}" if not ylim else f"{y:.2f}"
        out.append(f'<text x="{x0 + PAD - 4}" y="{py(y) + 3:.1f}" text-anchor="end" font-size="10">{text}</text>')
    if refline is not None:
        out.append(f'<line x1="{x0 + PAD}" x2="{x0 + W - 10}" y1="{py(refline):.1f}" y2="{py(refline):.1f}"'
                   f' stroke="#999" stroke-dasharray="2,2"/>')
    out.append(f'<text x="{x0 + W / 2 + 20}" y="{H - 8}" text-anchor="middle" font-size="11">{xlabel}</text>')
    out.append(f'<text x="{x0 + 12}" y="{H / 2}" font-size="11" transform="rotate(-90 {x0 + 12} {H / 2})"'
               f' text-anchor="middle">{ylabel}</text>')
    for c in curves:
        path = " ".join(f"{px(p[0]):.1f},{py(p[1]):.1f}" for p in c.points)
        dash = ' stroke-dasharray="6,3"' if c.dash else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{c.color}" stroke-width="2"{dash}/>')
        for p in c.points:
            out.append(f'<circle cx="{px(p[0]):.1f}" cy="{py(p[1]):.1f}" r="2.5" fill="{c.color}"/>')
    return out


def figure(panels, legend):
    """The SVG document: panels (from panel(), at x offsets 0, W + 20, ...) and a legend of curves under them."""
    body = [line for p in panels for line in p]
    dash = ' stroke-dasharray="6,3"'
    for k, c in enumerate(legend):
        if c.dash:
            body.append(f'<line x1="{PAD + 10}" x2="{PAD + 22}" y1="{H + 9.5 + 16 * k}" y2="{H + 9.5 + 16 * k}"'
                        f' stroke="{c.color}" stroke-width="2"{dash}/>')
        else:
            body.append(f'<rect x="{PAD + 10}" y="{H + 8 + 16 * k}" width="12" height="3" fill="{c.color}"/>')
        body.append(f'<text x="{PAD + 28}" y="{H + 13 + 16 * k}" font-size="11">{c.name}</text>')
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(panels) * W + (len(panels) - 1) * 20}"'
            f' height="{H + 16 * len(legend) + 14}" font-family="sans-serif">')
    return "\n".join([head, '<rect width="100%" height="100%" fill="white"/>'] + body + ["</svg>"])
