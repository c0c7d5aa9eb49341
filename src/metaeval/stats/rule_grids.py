"""A data set's aggregation rule (:mod:`metaeval.stats.aggregation`) applied to whole grids of
annotators' scores at once: the human ceiling and human parity (:mod:`metaeval.stages.annotators`)
aggregate "the other annotators" by it, and the correlation bootstrap with annotators resampled
(:mod:`metaeval.stats.annotator_resampling`) aggregates each sample's drawn annotators by it.

:func:`aggregate_stack` is the element-wise form of :func:`metaeval.stats.aggregation.aggregate`:
for every cell, the rule over the annotators' scores that are not NaN (NaN where there is none),
with the same definitions - the median of an even count is the mean of the two middle values; the
majority value is the one more than half of the scores equal (else the mean); the trimmed mean cuts
``floor(trim * n)`` scores at each end (``scipy.stats.trim_mean``'s count). The means are numpy's
(pairwise summation), so a value may differ from ``aggregate``'s ``math.fsum`` mean in the last
bit (tested to 1e-12).

:func:`aggregate_multisets` applies the rule to a *multiset* of annotators (an annotator drawn c
times counts c times, as in a bootstrap draw): for the mean that is the count-weighted mean, for the
other rules the rule applied to the scores repeated by their counts.
"""

from __future__ import annotations

import warnings

import numpy as np

from .aggregation import Aggregation


def _nanmean(x: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=0)


def _majority_else_mean(x: np.ndarray) -> np.ndarray:
    """(k, ...) -> (...): the value more than half of the defined scores equal, else their mean. A
    majority is unique, so which of several equally frequent values is looked at does not matter."""
    same = (x[:, None] == x[None, :]).sum(axis=1)              # (k, ...): how many scores equal each (NaN: 0)
    n = (~np.isnan(x)).sum(axis=0)
    best = np.argmax(same, axis=0)
    value = np.take_along_axis(x, best[None], axis=0)[0]
    count = np.take_along_axis(same, best[None], axis=0)[0]
    return np.where(count * 2 > n, value, _nanmean(x))


def _trimmed_mean(x: np.ndarray, trim: float) -> np.ndarray:
    """(k, ...) -> (...): the mean after cutting floor(trim * n) of the n defined scores at each end."""
    s = np.sort(x, axis=0)                                      # NaN sort last
    n = (~np.isnan(x)).sum(axis=0)
    cut = np.floor(trim * n)
    rank = np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1))
    keep = (rank >= cut) & (rank < n - cut)
    kept = keep.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(kept > 0, np.where(keep, s, 0.0).sum(axis=0) / np.where(kept > 0, kept, 1), np.nan)


def aggregate_stack(x: np.ndarray, rule: Aggregation) -> np.ndarray:
    """The rule over the first axis of ``x`` (k annotators, ...), ignoring NaN (module docstring)."""
    x = np.asarray(x, dtype=float)
    if x.shape[0] == 0:
        return np.full(x.shape[1:], np.nan)
    if rule.rule == "mean":
        return _nanmean(x)
    if rule.rule == "median":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmedian(x, axis=0)
    if rule.rule == "majority_else_mean":
        return _majority_else_mean(x)
    if rule.rule == "trimmed_mean":
        return _trimmed_mean(x, rule.trim)
    raise ValueError(f"unknown aggregation rule {rule.rule!r}")


def aggregate_multisets(grids: np.ndarray, counts: np.ndarray, rule: Aggregation) -> np.ndarray:
    """(B, ...) the rule over each sample's multiset of annotators: ``grids`` (E, ...) the E
    annotators' scores, ``counts`` (B, E) how often each is drawn in each sample (an annotator
    drawn c times counts c times; NaN where no drawn annotator has a score)."""
    grids = np.asarray(grids, dtype=float)
    counts = np.asarray(counts).astype(np.int64)
    out = np.full((counts.shape[0], *grids.shape[1:]), np.nan)
    width = int(counts.sum(axis=1).max()) if counts.size else 0
    for b in range(counts.shape[0]):
        drawn = np.full((width, *grids.shape[1:]), np.nan)
        idx = np.repeat(np.arange(grids.shape[0]), counts[b])
        drawn[:len(idx)] = grids[idx]
        out[b] = aggregate_stack(drawn, rule)
    return out
