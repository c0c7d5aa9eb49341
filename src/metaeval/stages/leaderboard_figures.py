"""The leaderboard at a glance, in two pictures about the focus metrics (SVG in the report across data
sets, PNG for a paper): a dot plot per benchmark (small multiples: every target and level of it, the
focus metrics' values with their intervals beside the column's best metric, the common baselines and the
column's random floor where one is computed) and a rank heatmap (every metric ranked in at least two
columns, the focus first, x every column, coloured by its rank within the column; grey: no value there,
the reason on hover in the SVG).

The random floor is read, not computed: ``leaderboard_floor.tsv`` (dataset, target, level, subset,
statistic, floor_mean, floor_lo, floor_hi) when the workflow writes one; without it no floor is drawn,
and the caption says so. Every value drawn is the leaderboard's (``leaderboard.tsv``).

load (the leaderboard, the floor) -> :func:`compute` (:class:`Glance`) -> :func:`write`.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from .. import figures, tables
from ..files import read_text, write_text
from ..tables import NA
from .leaderboard_page import Leaderboard, level_name
from .leaderboard_verdict import Key

FLOOR_COLUMNS = ("dataset", "target", "level", "subset", "statistic", "floor_mean", "floor_lo", "floor_hi")
# a cell of a metric the board does not show in a column (a score file declares it for another target)
NOT_SHOWN = "not on the board for this target (its score file declares it for another one)"


@dataclass(frozen=True)
class Point:
    """One metric's value in one column of the dot plot."""
    metric: str
    name: str
    role: str                   # focus | best | baseline
    value: float
    lo: float
    hi: float


@dataclass(frozen=True)
class DotRow:
    column: Key
    label: str
    points: tuple[Point, ...]
    floor: tuple[float, float, float] | None        # (mean, lo, hi) of the column's random floor


@dataclass(frozen=True)
class Heatmap:
    metrics: tuple[str, ...]
    names: tuple[str, ...]
    columns: tuple[Key, ...]
    position: np.ndarray        # metrics x columns: (rank - 1) / (ranked - 1), 0 = best; NaN: no value
    reasons: dict[tuple[int, int], str]       # (i, j) -> why the cell has no value


@dataclass(frozen=True)
class Glance:
    panels: tuple[tuple[str, tuple[DotRow, ...]], ...]      # (dataset, its rows), in the board's order
    focus: tuple[str, ...]
    baselines: tuple[str, ...]
    names: dict[str, str]
    heatmap: Heatmap
    floor: bool                 # whether a random floor was given
    # a benchmark where no focus metric has a value -> why (its panel is that line alone)
    absent: dict[str, str] = field(default_factory=dict)


def load_floor(path: str | None) -> pd.DataFrame | None:
    """The random floor table, or None when there is none; a table without its columns is refused."""
    if not path or not Path(path).exists():
        return None
    frame = tables.read_tsv(path)
    missing = [c for c in FLOOR_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: the random floor table lacks the column(s) {', '.join(missing)} "
                         f"(expected: {', '.join(FLOOR_COLUMNS)})")
    return frame


def _f(x: object) -> float:
    return math.nan if x is None or x == NA or x == "" else float(x)


def compute(board: Leaderboard, floor: pd.DataFrame | None = None) -> Glance:
    """The two pictures' contents from the leaderboard (and the random floor, when given)."""
    cells = {(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"]), str(r["metric"])): r
             for r in board.rows}
    baselines = tuple(m for m in board.metrics if board.kinds.get(m) == "baseline" and m not in board.focus)
    floors: dict[Key, tuple[float, float, float]] = {}
    if floor is not None:
        for r in floor.to_dict("records"):
            floors[(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"]))] = (
                _f(r["floor_mean"]), _f(r["floor_lo"]), _f(r["floor_hi"]))
    panels: dict[str, list[DotRow]] = {}
    for c in board.columns:
        points = []
        best = next((str(r["best"]) for m in board.metrics if (r := cells.get((*c, m))) is not None), NA)
        for role, metrics in (("focus", board.focus), ("best", (best,)), ("baseline", baselines)):
            for m in metrics:
                r = cells.get((*c, m))
                if r is None or r["rank"] == NA:
                    continue
                points.append(Point(m, board.names.get(m, m), role, _f(r["value"]), _f(r["lo"]), _f(r["hi"])))
        label = f"{c[1]} · {level_name(c[2], c[3])}"
        panels.setdefault(c[0], []).append(DotRow(c, label, tuple(points), floors.get(c)))
    absent = {}
    for d, rows in panels.items():
        if board.focus and not any(p.role == "focus" for row in rows for p in row.points):
            notes = dict.fromkeys(str(r["note"]) for r in board.rows if r["dataset"] == d and r["metric"] in board.focus)
            absent[d] = "; ".join(n for n in notes if n) or "not computed"
    return Glance(tuple((d, tuple(rows)) for d, rows in panels.items()), tuple(board.focus), baselines,
                  dict(board.names), heatmap(board, cells), floor is not None, absent)


def heatmap(board: Leaderboard, cells: Mapping[tuple[str, str, str, str, str], Mapping[str, object]]) -> Heatmap:
    """Every metric ranked in at least two columns (the focus metrics always), in the board's order (the
    focus first), against every column."""
    ranked = {m: sum(1 for c in board.columns if (r := cells.get((*c, m))) is not None and r["rank"] != NA)
              for m in board.metrics}
    metrics = [m for m in board.metrics if ranked[m] >= 2 or (m in board.focus and ranked[m])]
    position = np.full((len(metrics), len(board.columns)), np.nan)
    reasons = {}
    for i, m in enumerate(metrics):
        for j, c in enumerate(board.columns):
            r = cells.get((*c, m))
            if r is None:
                reasons[(i, j)] = NOT_SHOWN
            elif r["rank"] == NA:
                reasons[(i, j)] = str(r["note"])
            else:
                of = int(r["of"])
                position[i, j] = (int(r["rank"]) - 1) / (of - 1) if of > 1 else 0.0
    return Heatmap(tuple(metrics), tuple(board.names.get(m, m) for m in metrics), tuple(board.columns), position,
                   reasons)


# ----------------------------------------------------------------------------- drawing

DOTS_CAPTION = ("How to read this: one panel per benchmark, one line per target and level (its statistic: Pearson r, "
                "AUC, partial r, ranking or balanced accuracy). Coloured dots: the focus metrics, with their 95% "
                "intervals; a black diamond: the column's best metric; grey squares and triangles: the common "
                "baselines. A dot left of the diamond whose interval does not reach it is likely worse than the best "
                "(the table's test says whether it is).")
FLOOR_DRAWN = (" The grey band: the column's random floor (what a metric of random scores reaches: its mean and "
               "interval, leaderboard_floor.tsv).")
FLOOR_ABSENT = " No random floor is drawn: the workflow wrote none (leaderboard_floor.tsv)."
HEATMAP_CAPTION = ("How to read this: a row per metric ranked in at least two columns (the focus metrics first), a "
                   "column per benchmark, target and level; the colour is the metric's rank within the column, from "
                   "the best (dark) to the last (light), scaled by the number of metrics ranked there. Grey: no value "
                   "in that column (hover for the reason in the report).")

_BASELINE_MARKERS = ("s", "^", "v", "P", "X")


def dots_caption(g: Glance) -> str:
    return DOTS_CAPTION + (FLOOR_DRAWN if g.floor else FLOOR_ABSENT)


def figure_dots(g: Glance, png: str, svg: str) -> None:
    plt = figures.pyplot()
    # a benchmark without a value of a focus metric: one line saying why, not its columns' best alone
    sizes = [1 if d in g.absent else max(1, len(rows)) for d, rows in g.panels] or [1]
    row_in, gap_in, top_in, bottom_in = 0.24, 0.45, 0.9, 0.55
    height = top_in + bottom_in + row_in * sum(sizes) + gap_in * (len(sizes) - 1)
    fig, axes = plt.subplots(len(sizes), 1, figsize=(8, height), sharex=True, squeeze=False,
                             gridspec_kw={"height_ratios": sizes, "hspace": gap_in / (row_in * sum(sizes) / len(sizes))})
    fig.subplots_adjust(top=1 - top_in / height, bottom=bottom_in / height)
    colours = {m: f"C{i % 10}" for i, m in enumerate(g.focus)}
    markers = {m: _BASELINE_MARKERS[i % len(_BASELINE_MARKERS)] for i, m in enumerate(g.baselines)}
    handles: dict[str, object] = {}
    for ax, (dataset, rows) in zip(axes[:, 0], g.panels):
        if dataset in g.absent:
            ax.set_yticks([0], [f"{len(rows)} column{'s' if len(rows) != 1 else ''}"], fontsize=7)
            ax.set_ylim(0.5, -0.5)
            ax.text(0.5, 0, f"no value of the focus metrics here: {g.absent[dataset]}", ha="center", va="center",
                    fontsize=7, color="#555", transform=ax.get_yaxis_transform())
            ax.set_title(dataset, fontsize=9, loc="left")
            continue
        for y, row in enumerate(rows):
            if row.floor is not None and not math.isnan(row.floor[1]):
                h = ax.plot([row.floor[1], row.floor[2]], [y, y], lw=7, color="#d0d0d0", solid_capstyle="butt",
                            zorder=1)[0]
                ax.plot([row.floor[0]], [y], marker="|", ms=9, color="#888", zorder=2)
                handles.setdefault("random floor", h)
            focus = [p for p in row.points if p.role == "focus"]
            offsets = np.linspace(-0.22, 0.22, len(focus)) if len(focus) > 1 else [0.0]
            for p, dy in zip(focus, offsets):
                err = figures.error_bars([p.value], [p.lo], [p.hi], f"leaderboard dot plot, {dataset}")
                h = ax.errorbar([p.value], [y + dy], xerr=np.nan_to_num(err, nan=0.0), fmt="o", ms=4.5, capsize=2,
                                color=colours[p.metric], zorder=4)
                handles.setdefault(p.name, h)
            for p in row.points:
                if p.role == "best":
                    h = ax.plot([p.value], [y], marker="D", ms=5, mfc="none", mec="black", ls="", zorder=5)[0]
                    handles.setdefault("the column's best", h)
                elif p.role == "baseline":
                    h = ax.plot([p.value], [y], marker=markers[p.metric], ms=4, color="#777", ls="", zorder=3)[0]
                    handles.setdefault(p.name, h)
        ax.set_yticks(range(len(rows)), [r.label for r in rows], fontsize=7)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_title(dataset, fontsize=9, loc="left")
        ax.axvline(0, color="#bbb", lw=0.6, zorder=0)
        ax.grid(axis="x", color="#eee", lw=0.5)
    axes[-1, 0].set_xlabel("the column's statistic (Pearson r, AUC, partial r, accuracy), 95% interval")
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(4, len(handles)), fontsize=7,
                   bbox_to_anchor=(0.5, 1 - (top_in - 0.1) / height), frameon=False)
    fig.suptitle("The focus metrics per benchmark, target and level", y=1 - 0.05 / height, va="top")
    _save(fig, png, svg)


def figure_heatmap(h: Heatmap, png: str, svg: str) -> None:
    plt = figures.pyplot()
    from matplotlib.patches import Rectangle     # deferred: matplotlib loads with pyplot (figures.pyplot)

    n, k = len(h.metrics), len(h.columns)
    fig, ax = plt.subplots(figsize=(2.5 + 0.16 * max(k, 1), 2.0 + 0.2 * max(n, 1)))
    cmap = plt.get_cmap("viridis").with_extremes(bad=(1, 1, 1, 0))
    titles = {}
    if n and k:
        im = ax.imshow(h.position, cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        # grey cells as rectangles, one per run of a row's cells with one reason (each a tooltip in the SVG)
        for i in range(n):
            j = 0
            while j < k:
                why = h.reasons.get((i, j))
                if why is None:
                    j += 1
                    continue
                end = j
                while end + 1 < k and h.reasons.get((i, end + 1)) == why:
                    end += 1
                gid = f"lbh-{i}-{j}"
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), end - j + 1, 1, facecolor="#d4d4d4", edgecolor="white",
                                       lw=0.3, gid=gid))
                titles[gid] = f"{h.names[i]}: {why} ({end - j + 1} column{'s' if end > j else ''})"
                j = end + 1
        ax.set_xticks(range(k), [f"{c[0]} · {c[1]} · {level_name(c[2], c[3])}" for c in h.columns], rotation=90,
                      fontsize=5.5)
        ax.set_yticks(range(n), h.names, fontsize=6.5)
        bar = fig.colorbar(im, ax=ax, fraction=0.025, pad=0.01)
        bar.set_ticks([0, 1], labels=["best", "last"])
        bar.set_label("rank within the column", fontsize=7)
    else:
        ax.text(0.5, 0.5, "no metric is ranked in two columns", ha="center", transform=ax.transAxes)
    ax.set_title("Rank of every metric ranked in at least two columns (focus metrics first)", fontsize=9)
    _save(fig, png, svg)
    _add_titles(svg, titles)


def _save(fig, png: str, svg: str) -> None:
    """:func:`metaeval.figures.save`, with the SVG's text as text (smaller; the report inlines it)."""
    plt = figures.pyplot()
    with plt.rc_context({"svg.fonttype": "none"}):
        figures.save(fig, png, svg)


def _add_titles(svg: str, titles: Mapping[str, str]) -> None:
    """A ``<title>`` (a browser's tooltip) in each group ``titles`` names by id."""
    if not titles:
        return
    text = read_text(svg)
    text = re.sub(r'(<g id="(lbh-\d+-\d+)">)',
                  lambda m: m[1] + f"<title>{html.escape(titles[m[2]])}</title>" if m[2] in titles else m[1], text)
    write_text(svg, text)


def write(g: Glance, out: Mapping[str, str]) -> None:
    figure_dots(g, out["dots_png"], out["dots_svg"])
    figure_heatmap(g.heatmap, out["heatmap_png"], out["heatmap_svg"])


def inline_svg(path: str, caption: str) -> str:
    """An SVG file as a figure of a page (inline, so its tooltips work), with its caption."""
    text = read_text(path)
    text = text[text.index("<svg"):]
    return f'<figure class="lb-figure">{text}<figcaption class="caption">{html.escape(caption)}</figcaption></figure>'


def figures_html(g: Glance, out: Mapping[str, str]) -> str:
    """Both pictures for the report, each with its caption."""
    return (inline_svg(out["dots_svg"], dots_caption(g)) + inline_svg(out["heatmap_svg"], HEATMAP_CAPTION))
