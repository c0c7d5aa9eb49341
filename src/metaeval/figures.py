"""Figure helpers every stage uses: one matplotlib set-up and one byte-stable save to PNG and SVG
(no timestamps or software names in the files, a fixed SVG hash salt)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from .files import atomic_path
from .logs import log

DPI = 150


def pyplot():
    """matplotlib's pyplot on the Agg backend with the workflow's settings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "metaeval"
    plt.rcParams["font.size"] = 9
    return plt


def save(fig, png: Path | str, svg: Path | str) -> None:
    """Write the figure to both files (atomically) and close it, cropped to its tight bounding box
    (as ``bbox_inches="tight"``, whose extra layout pass savefig would repeat per format: found
    once here, with matplotlib's own padding)."""
    plt = pyplot()
    fig.set_dpi(DPI)            # text is measured at the resolution the PNG is drawn at
    fig.draw_without_rendering()
    box = fig.get_tightbbox().padded(plt.rcParams["savefig.pad_inches"])
    for path, fmt, meta in ((png, "png", {"Software": None}), (svg, "svg", {"Date": None, "Creator": None})):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=fmt, metadata=meta, dpi=DPI, bbox_inches=box)
    plt.close(fig)


def error_bars(center: Sequence[float], lower: Sequence[float], upper: Sequence[float], figure: str) -> np.ndarray:
    """The lengths of error bars from ``center`` down to ``lower`` and up to ``upper``, as
    matplotlib's ``errorbar`` takes them ((2, n)), clamped at zero: a value may lie a rounding error
    outside its own interval (a constant score's bootstrap bounds are means of equal numbers summed
    in another order, 0.33333333333333337 beside the mean 0.3333333333333333), which matplotlib
    refuses as a negative length. A clamped bar is logged as a note naming ``figure``; NaN stays NaN
    (no bar)."""
    c, lo, hi = (np.asarray(x, dtype=float) for x in (center, lower, upper))
    bars = np.vstack([c - lo, hi - c])
    below = bars < 0                    # NaN compares False: left as it is
    if below.any():
        log.info("%s: %d of %d error bars drawn with zero length: the value lies outside its interval by at most %.3g "
                 "(rounding; the tables give both as computed)", figure, int(below.sum()), bars.size,
                 float(-bars[below].min()))
        bars[below] = 0.0
    return bars
