"""Human targets as numbers: Graham's combinations of coverage C and linguistic quality L, and the
composites of rescaled dimensions a data set declares. Pure, element-wise functions, shared by the
human-scores stage (:mod:`metaeval.stages.human`) and the bootstrap that resamples annotators
(:mod:`metaeval.stats.annotator_resampling`).

* :func:`combine`: the arithmetic, geometric and harmonic means of C and L, or C or L alone
  (Graham 2015, section 3: the combinations of the DUC judgments).
* :func:`composite`: the mean of the rescaled dimensions present, or the geometric or harmonic
  mean of all of them.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

COMBINATIONS = ("arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", "pyramid",
                "modified_pyramid")
COMPOSITE_FUNCTIONS = ("mean", "geometric", "harmonic")


def combine(name: str, c: np.ndarray | float, l: np.ndarray | float) -> np.ndarray:
    """One combination of coverage C and linguistic quality L (element-wise; NaN stays NaN)."""
    c = np.asarray(c, dtype=float)
    l = np.asarray(l, dtype=float)
    if name == "arithmetic":
        return (c + l) / 2
    if name == "geometric":
        return np.sqrt(c * l)
    if name == "harmonic":
        with np.errstate(invalid="ignore", divide="ignore"):
            h = 2 * c * l / (c + l)
        return np.where((c == 0) | (l == 0), 0.0, h)
    if name == "coverage":
        return c
    if name == "linguistic_quality":
        return l
    raise ValueError(f"unknown combination {name!r}; expected one of {COMBINATIONS}")


def composite(func: str, parts: Sequence[np.ndarray]) -> np.ndarray:
    """The composite of rescaled dimensions, element-wise: the mean of those present (as Graham's
    components are formed), or the geometric or harmonic mean of all of them (NaN if one is missing;
    a harmonic mean with a 0 part is 0)."""
    x = np.vstack(parts)
    if func == "mean":
        present = ~np.isnan(x)
        n = present.sum(axis=0)
        with np.errstate(invalid="ignore"):
            return np.where(n > 0, np.nansum(x, axis=0) / np.maximum(n, 1), np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        if func == "geometric":
            return np.prod(x, axis=0) ** (1 / len(parts))
        h = len(parts) / np.sum(1 / x, axis=0)
    return np.where(np.any(x == 0, axis=0) & ~np.any(np.isnan(x), axis=0), 0.0, h)
