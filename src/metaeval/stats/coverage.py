"""Common ground: the items every compared metric scores.

Two metrics' correlations (or AUCs, accuracies) are compared, ranked or tested only on the same
items: a Williams test of two correlations assumes both rest on the same systems (Williams 1959;
Graham 2015 §3), and a paired bootstrap resamples the same topics of both. A metric that cannot
score some items (ROUGE, BLEU, chrF and SERA leave a topic's only human summary unscored: there is no
other reference to score it against) sets the ground of every metric of its column; its fuller value
is reported beside, labelled, and never ranked.
"""

from __future__ import annotations

import numpy as np


def common_items(values: np.ndarray) -> np.ndarray:
    """(n,) mask of the items (rows of ``values``, (n, m): m metrics' scores, NaN = unscored) that
    every metric scoring any item scores. A metric that scores nothing is not compared and sets no
    ground; with no such metric every item is kept."""
    scored = ~np.isnan(np.asarray(values, dtype=float))
    compared = scored.any(axis=0)
    return scored[:, compared].all(axis=1) if compared.any() else np.ones(scored.shape[0], dtype=bool)


def common_cells(grids: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """The cells of a grid (e.g. summarizer x topic) that every grid scoring any cell scores (the
    summary level's common ground); all True without such a grid."""
    scored = [~np.isnan(g) for g in grids]
    scored = [s for s in scored if s.any()]
    return np.logical_and.reduce(scored) if scored else np.ones(shape, dtype=bool)
