#!/usr/bin/env python3
"""plot.py: draws a lesson's figures from its transcript, never from typed numbers.

usage: python3 common/plot.py [--out DIR] TRANSCRIPT...

A lesson prints the data of each figure as (CUDA-CODE-STYLE.md, section 5)
    plotspec: FIG | KIND | TITLE | XLABEL | YLABEL
    ~ plot: FIG | SERIES | X | Y
KIND is bar (X is a category), line or logx (X is a number). One PNG per FIG
is written beside the transcript (or into DIR), named FIG.png, with the GPU
and the transcript's name in its footnote so a figure says where it came from.
A lesson whose default run prints no plot data (it keeps them for its --full
run, to keep its output readable) is drawn from the newest full-*.txt beside
the transcript given.
This is the course's only Python; it needs matplotlib and nothing else.
"""
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # no display: the figures go to files
import matplotlib.pyplot as plt  # noqa: E402


def read_transcript(path):
    header, specs, points = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("# ") and ": " in line and not specs and not points:
                key, _, value = line[2:].partition(": ")
                header.setdefault(key, value)
            elif line.startswith("plotspec: "):
                fields = [s.strip() for s in line[len("plotspec: "):].split("|")]
                if len(fields) != 5 or fields[1] not in ("bar", "line", "logx"):
                    raise ValueError(f"{path}: bad plotspec line: {line}")
                specs[fields[0]] = fields[1:]
            elif line.startswith("~ plot: "):
                fields = [s.strip() for s in line[len("~ plot: "):].split("|")]
                if len(fields) != 4:
                    raise ValueError(f"{path}: bad plot line: {line}")
                fig, series, x, y = fields
                points.setdefault(fig, {}).setdefault(series, []).append((x, float(y)))
    return header, specs, points


def newest_full_run(path):
    """The newest full-*.txt beside path (full-DATE.txt, then full-DATE-2.txt, ...), or None."""
    def order(p):
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", os.path.basename(p)[:-4])]
    runs = sorted(glob.glob(os.path.join(os.path.dirname(path) or ".", "full-*.txt")), key=order)
    return runs[-1] if runs else None


def draw(fig_id, spec, series, footnote, out_path):
    kind, title, xlabel, ylabel = spec
    fig, ax = plt.subplots(figsize=(9, 5))
    if kind == "bar":
        categories = []
        for pts in series.values():
            for x, _ in pts:
                if x not in categories:
                    categories.append(x)
        width = 0.8 / max(1, len(series))
        for i, (name, pts) in enumerate(series.items()):
            values = dict(pts)
            xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(categories))]
            ax.bar(xs, [values.get(c, 0.0) for c in categories], width, label=name)
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels(categories)
    else:
        for name, pts in series.items():
            pts = sorted((float(x), y) for x, y in pts)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        if kind == "logx":
            ax.set_xscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.text(0.01, 0.01, footnote, fontsize=7, color="gray")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out_path, dpi=110)
    plt.close(fig)


def main(argv):
    out_dir = None
    if len(argv) >= 2 and argv[0] == "--out":
        out_dir, argv = argv[1], argv[2:]
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    drawn = 0
    for path in argv:
        header, specs, points = read_transcript(path)
        full = None if points else newest_full_run(path)
        if full:
            path = full
            header, specs, points = read_transcript(path)
        missing = sorted(set(points) - set(specs))
        if missing:
            raise ValueError(f"{path}: plot data for {missing} has no plotspec line")
        if not points:
            raise ValueError(f"{path}: no plot data (lines '~ plot: ...')")
        if out_dir:
            target = os.path.join(out_dir, os.path.basename(header.get("lesson", "lesson")))
        else:
            target = os.path.dirname(path) or "."
        os.makedirs(target, exist_ok=True)
        footnote = (f"{header.get('lesson', '?')} on {header.get('gpu', '?')}, "
                    f"{header.get('date', '?')}, from {os.path.basename(path)}")
        for fig_id, series in points.items():
            out_path = os.path.join(target, f"{fig_id}.png")
            draw(fig_id, specs[fig_id], series, footnote, out_path)
            print(f"plot: wrote {out_path}")
            drawn += 1
    return 0 if drawn else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
