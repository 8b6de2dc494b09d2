#!/usr/bin/env python3
"""Draws docs/curves/*.png from the CSV that CurveData prints (see scripts/plot-curves.sh).

Every point plotted comes from paramd's engine (a Renderer at 48 kHz, the sounding value of
the animated parameter); this script computes no curve itself. Keyframe values drawn as
markers are the animation's input, not its output.

usage: plot-curves.py CURVES.csv OUTPUT_DIR
"""
import csv
import io
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from PIL import Image  # noqa: E402  (installed with matplotlib)

plt.rcParams.update({
    "font.size": 7,
    "axes.titlesize": 8,
    "legend.fontsize": 6,
    "lines.linewidth": 1.1,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
})
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"]


def load(path):
    data = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            curves = data.setdefault(row["figure"], OrderedDict())
            xs, ys = curves.setdefault(row["curve"], ([], []))
            xs.append(float(row["x"]))
            ys.append(float(row["y"]))
    return data


def guides(ax, end=1.0):
    """Start and target levels, and the end of the requested duration."""
    ax.axhline(0, color="0.6", linewidth=0.6, zorder=0)
    ax.axhline(1, color="0.6", linewidth=0.6, zorder=0)
    if end is not None:
        ax.axvline(end, color="0.75", linewidth=0.6, linestyle=":", zorder=0)


def lines(ax, curves, title, xlabel="progress (1 s animation)"):
    for i, (name, (xs, ys)) in enumerate(curves.items()):
        ax.plot(xs, ys, color=COLOURS[i % len(COLOURS)], label=name)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    guides(ax)


def save(fig, path):
    """PNG with an adaptive 64-colour palette: a few tens of KB per figure."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    buf.seek(0)
    image = Image.open(buf).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)
    print(path)


def main(csv_path, out):
    data = load(csv_path)

    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    lines(ax, data["bezier"], "Cubic Béziers (Core Animation's named curves, a CSS cubic-bezier)")
    ax.set_ylabel("eased progress")
    ax.legend(loc="lower right")
    save(fig, f"{out}/bezier.png")

    families = [k for k in data if k.startswith("penner-")]
    fig, axes = plt.subplots(2, 5, figsize=(10, 4.4), sharex=True)
    for ax, family in zip(axes.flat, families):
        lines(ax, data[family], family.removeprefix("penner-"), xlabel="")
    axes.flat[0].legend(loc="upper left")
    fig.suptitle("Penner easings (easings.net forms): easeIn, easeOut, easeInOut + family; 1 s animation, progress on x", fontsize=8)
    fig.tight_layout()
    save(fig, f"{out}/penner.png")

    steps = data["steps"]
    fig, axes = plt.subplots(1, 4, figsize=(9, 2.3), sharey=True)
    for ax, (name, xy) in zip(axes, steps.items()):
        lines(ax, OrderedDict([(name, xy)]), name)
    fig.tight_layout()
    save(fig, f"{out}/steps.png")

    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    lines(ax, data["curvature"], "SuperCollider curvature curve(c)")
    ax.legend(loc="lower right")
    save(fig, f"{out}/curvature.png")

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    settle = data.get("spring:settle", {})
    for i, (name, (xs, ys)) in enumerate(data["spring"].items()):
        colour = COLOURS[i % len(COLOURS)]
        left.plot(xs, ys, color=colour, label=name)
        if name in settle:
            t = settle[name][0][0]
            left.plot([t], [1], marker="|", markersize=10, color=colour)
    left.set_title("Physical springs spring(m,k,c[,v]), in their own time (| = settle time)")
    left.set_xlabel("seconds")
    guides(left, end=None)
    left.legend(loc="lower right")
    lines(right, data["uikit"], "UIKit springs spring(ζ[,v]), fitted to a 1 s duration")
    right.legend(loc="lower right")
    fig.tight_layout()
    save(fig, f"{out}/springs.png")

    keys = data["keyframes:keys"]["values"]
    fig, axes = plt.subplots(1, 4, figsize=(10, 2.5), sharey=True)
    for ax, (name, xy) in zip(axes, data["keyframes"].items()):
        title = f"calc {name}" + (" (key times ignored)" if name == "paced" else "")
        lines(ax, OrderedDict([(name, xy)]), title)
        ax.plot(keys[0], keys[1], "o", color="black", markersize=3, zorder=3)
    axes[0].set_ylabel("value (keyframes: black dots)")
    fig.tight_layout()
    save(fig, f"{out}/keyframes.png")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
