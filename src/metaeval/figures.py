"""Figure helpers every stage uses: one matplotlib set-up and one byte-stable save to PNG and SVG
(no timestamps or software names in the files, a fixed SVG hash salt)."""

from __future__ import annotations

from pathlib import Path

from .files import atomic_path

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
