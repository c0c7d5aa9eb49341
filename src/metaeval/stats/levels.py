"""Correlations of metric with human scores at the three levels of Deutsch, Dror & Roth (2021,
TACL, "A Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods", §2;
nlpstats 0.0.1 ``nlpstats.correlations.correlate``), vectorised over metrics and resamples.

Scores are (systems S x inputs T) grids, NaN = no summary; a metric array may carry leading axes
(metrics, resamples): X (..., S, T) against the human Z (..., S, T), broadcast.

* ``system``: each system's mean over its inputs (NaN ignored, as ``np.nanmean``), then one
  correlation over the systems;
* ``input`` (our "summary level"): for each input, the correlation over the systems that have a
  summary with both scores, then the mean over the inputs where it is defined (undefined inputs
  dropped, as nlpstats does);
* ``global``: one correlation over all (system, input) summaries pooled.

Coefficients: Pearson's r (:func:`metaeval.stats.core.pearson`); Spearman's rho = Pearson's r of average ranks (scipy ``spearmanr``);
Kendall's tau-b (scipy ``kendalltau``'s default, also nlpstats'): (C - D) / sqrt((P - T_x)(P - T_y)).
A correlation is undefined (NaN) with fewer than 3 items or a constant side (the project's rule;
scipy returns +-1 for 2 items, which nlpstats would then average in).

Resampling enters as weights: ``sys_w`` (..., S) and ``top_w`` (..., T) count how often each system
and input is drawn, and every statistic is the one of the drawn grid (a summary counts
sys_w[s] * top_w[t] times; a system's mean weighs its inputs by top_w; an input drawn twice counts
twice in the input-level mean). For Kendall, two copies of one item are a pair tied on both sides,
which tau-b ignores. All weights 1 (the default) is the plain statistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .core import MIN_ITEMS, pearson, ranks, sorted_pair_counts
from .stable import binary_scale

COEFFICIENTS = ("pearson", "spearman", "kendall")
LEVELS = ("system", "input", "global")
_BLOCK = 2_000_000   # elements per temporary array in the pairwise Kendall counts
# from this many items the exact-tie counts sort instead of comparing every pair (the two give the
# same whole numbers with whole-number weights; the pairwise blocks are faster below it)
_SORTED_FROM = 200
_FEW_ROWS = 256      # up to this many unweighted rows, sorted with numpy (no compiled kernel to load)


def _valid_weights(x, y, w):
    """Weights with 0 wherever x or y is missing, broadcast to the common shape."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    return np.where(ok, 1.0 if w is None else w, 0.0)


def spearman(x, y, w=None):
    """Weighted Spearman rho over the last axis: Pearson r of the weighted average ranks
    (:func:`metaeval.stats.core.ranks`, the data with item i repeated w[i] times)."""
    w = _valid_weights(x, y, w)
    # items of weight 0 (missing on either side) take a rank but add nothing to the others' ranks
    return pearson(ranks(x, w=w), ranks(y, w=w), w)


def pair_counts(x, y, w=None, epsilon: float = 0.0, y_margin: float = 0.0):
    """Weighted pair counts over the last axis: (concordant, discordant, tied in x only, tied in y
    only, tied in both), each summed over the pairs of distinct items i < j with weight
    w[i] * w[j] (NaN items left out). x pairs with |x_i - x_j| <= epsilon count as tied in x
    (mt-metrics-eval's ``_MatrixSufficientStatistics``: x = metric, y = gold); y ties are exact.
    Pairs with |y_i - y_j| < y_margin are left out (WMT20's Kendall-like threshold). Without
    epsilon and margin, from 200 items: sorted (:func:`_sorted_counts`), O(n log n); otherwise the
    O(n^2) pairs, computed in blocks of rows."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.shape[-1]
    batch = np.broadcast_shapes(x.shape[:-1], y.shape[:-1], np.shape(w)[:-1] if w is not None else ())
    if n >= _SORTED_FROM and np.all(np.asarray(epsilon) == 0) and y_margin == 0:
        return _sorted_counts(x, y, w, batch, n)
    out = np.zeros((5, *batch))
    step = max(1, _BLOCK // max(1, int(np.prod(batch)) * n))
    j = np.arange(n)
    if w is None:           # whole counts (exact): the pairs i < j only, the five kinds from four masks
        for a in range(0, n - 1, step):
            i = np.arange(a, min(n - 1, a + step))
            dx = x[..., i, None] - x[..., None, a:]
            dy = y[..., i, None] - y[..., None, a:]
            ok = (j[None, a:] > i[:, None]) & ~np.isnan(dx) & ~np.isnan(dy) & ~(np.abs(dy) < y_margin)
            tx, ty = np.abs(dx) <= epsilon, dy == 0
            ok_tx, ok_ty = ok & tx, ok & ty
            # untied pairs have dx != 0 and dy != 0 when epsilon >= 0: same sign = same side of 0
            same = (dx > 0) == (dy > 0) if np.all(np.asarray(epsilon) >= 0) else np.sign(dx) == np.sign(dy)
            n_ok, n_tx, n_ty, both, con = (_count(m) for m in (ok, ok_tx, ok_ty, ok_tx & ty,
                                                                  ok & ~(tx | ty) & same))
            out[0] += con
            out[1] += n_ok - n_tx - n_ty + both - con
            out[2] += n_tx - both
            out[3] += n_ty - both
            out[4] += both
        return tuple(out)
    for a in range(0, n - 1, step):
        i = np.arange(a, min(n - 1, a + step))
        dx = x[..., i, None] - x[..., None, :]
        dy = y[..., i, None] - y[..., None, :]
        upper = j[None, :] > i[:, None]
        ok = upper & ~np.isnan(dx) & ~np.isnan(dy) & ~(np.abs(dy) < y_margin)
        tx, ty = np.abs(dx) <= epsilon, dy == 0
        same = np.sign(dx) == np.sign(dy)
        kinds = (ok & ~tx & ~ty & same, ok & ~tx & ~ty & ~same, ok & tx & ~ty, ok & ~tx & ty, ok & tx & ty)
        ww = (w[..., i, None] * w[..., None, :]).reshape(*np.shape(w)[:-1], -1, 1)
        stacked = np.stack([kind.reshape(*kind.shape[:-2], -1) for kind in kinds], axis=-2).astype(float)
        out += np.moveaxis((stacked @ ww)[..., 0], -1, 0)
    return tuple(out)


def _sorted_counts(x, y, w, batch: tuple[int, ...], n: int) -> tuple[np.ndarray, ...]:
    """:func:`pair_counts` with exact ties by sorting, O(n log n) a row: a few unweighted rows with
    numpy (:func:`metaeval.stats.core.sorted_pair_counts`), otherwise the compiled merge sort
    (:func:`metaeval.stats.kernels.weighted_pair_counts`; missing items weigh 0). Whole-number
    weights (draw counts) give the same whole numbers as the pairwise blocks."""
    rows = int(np.prod(batch))
    xb, yb = np.broadcast_to(x, (*batch, n)).reshape(rows, n), np.broadcast_to(y, (*batch, n)).reshape(rows, n)
    if w is None and rows <= _FEW_ROWS:
        counts = np.array([sorted_pair_counts(a, b) for a, b in zip(xb, yb)], dtype=float).reshape(rows, 5)
    else:
        ok = ~np.isnan(xb) & ~np.isnan(yb)
        wb = np.where(ok, 1.0 if w is None else np.broadcast_to(w, (*batch, n)).reshape(rows, n), 0.0)
        xb, yb = np.where(ok, xb, 0.0), np.where(ok, yb, 0.0)
        order = np.lexsort((yb, xb), axis=-1)
        from .kernels import weighted_pair_counts   # defers numba: compiled; imported where needed only

        counts = np.empty((rows, 5))
        weighted_pair_counts(*(np.ascontiguousarray(np.take_along_axis(a, order, axis=-1)) for a in (xb, yb, wb)),
                             counts)
    return tuple(counts.T.reshape(5, *batch))


def _count(mask: np.ndarray):
    """The number of True cells of a (..., rows, columns) mask per leading index."""
    if mask.ndim == 2:
        return np.count_nonzero(mask)
    return np.count_nonzero(mask.reshape(*mask.shape[:-2], -1), axis=-1)


def kendall(x, y, w=None):
    """Weighted Kendall tau-b over the last axis (scipy's ``kendalltau(variant='b')`` of the data
    with item i repeated w[i] times)."""
    con, dis, tx, ty, _ = pair_counts(x, y, w)
    n = _valid_weights(x, y, w).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.clip((con - dis) / np.sqrt((con + dis + ty) * (con + dis + tx)), -1, 1)
    return np.where((n < MIN_ITEMS) | (con + dis + ty == 0) | (con + dis + tx == 0), np.nan, tau)


COEFFICIENT = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def weighted_means(x, w=None):
    """Mean over the last axis, NaN ignored, item i counted w[i] times; NaN without any value. For
    any finite values (:func:`metaeval.stats.stable.binary_scale`)."""
    valid = ~np.isnan(x)
    x, e = binary_scale(x, axis=-1)        # an extreme vector summed scaled by a power of two (exact)
    w = np.ones(x.shape[-1]) if w is None else np.asarray(w, dtype=float)
    num = np.matmul(np.where(valid, x, 0.0), w[..., :, None])[..., 0]
    den = np.matmul(valid.astype(float), w[..., :, None])[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(den > 0, num / den, np.nan)
    return np.ldexp(means, e[..., 0]) if e.any() else means


def correlate(x, z, level: str, coefficient, sys_w=None, top_w=None):
    """The ``coefficient`` (a name, or f(x, y, w) over the last axis such as a Kendall variant of
    :mod:`metaeval.stats.kendall`) between metric x (..., S, T) and human z (..., S, T) at
    ``level`` (system, input or global), with optional draw counts sys_w (..., S) and top_w (..., T)."""
    if level not in LEVELS or not (callable(coefficient) or coefficient in COEFFICIENTS):
        raise ValueError(f"unknown level {level!r} or coefficient {coefficient!r}")
    f = coefficient if callable(coefficient) else COEFFICIENT[coefficient]
    x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
    sw = None if sys_w is None else np.asarray(sys_w, dtype=float)
    tw = None if top_w is None else np.asarray(top_w, dtype=float)
    if level == "system":
        return f(weighted_means(x, tw), weighted_means(z, tw), sw)
    if level == "input":
        r = f(np.swapaxes(x, -1, -2), np.swapaxes(z, -1, -2), None if sw is None else sw[..., None, :])
        defined = ~np.isnan(r)
        tw = 1.0 if tw is None else tw
        with np.errstate(invalid="ignore", divide="ignore"):
            return (np.where(defined, r, 0.0) * tw).sum(-1) / (defined * tw).sum(-1)
    flat = x.shape[-2] * x.shape[-1]
    w = None
    if sw is not None or tw is not None:
        sw_ = np.ones(x.shape[-2]) if sw is None else sw
        tw_ = np.ones(x.shape[-1]) if tw is None else tw
        w = (sw_[..., :, None] * tw_[..., None, :]).reshape(*np.broadcast_shapes(sw_.shape[:-1], tw_.shape[:-1]), flat)
    return f(x.reshape(*x.shape[:-2], flat), z.reshape(*z.shape[:-2], flat), w)


@dataclass(frozen=True)
class Statistic:
    """A correlation at a level as the statistic f(x, z, sys_w=None, top_w=None) that
    :mod:`metaeval.stats.resampling` resamples (``coefficient``: a name or f(x, y, w))."""

    level: str
    coefficient: str | Callable

    def __call__(self, x, z, sys_w=None, top_w=None):
        return correlate(x, z, self.level, self.coefficient, sys_w, top_w)

    def of_scores(self, x, y, w=None):
        """The coefficient over the last axis of ready-made (e.g. system) scores."""
        return (self.coefficient if callable(self.coefficient) else COEFFICIENT[self.coefficient])(x, y, w)


def statistic(level: str, coefficient) -> Statistic:
    return Statistic(level, coefficient)


def fisher_interval(r, n, coefficient: str, confidence: float = 0.95):
    """Fisher-z interval of a correlation r from n items with Bonett & Wright's (2000) constants,
    as nlpstats' ``fisher``: tanh(atanh(r) -+ z_{(1+confidence)/2} c / sqrt(n - b)), Pearson b=3,
    c=1; Spearman b=3, c=sqrt(1 + r^2/2); Kendall b=4, c=sqrt(0.437). NaN where n <= b. nlpstats'
    n: systems at the system level, the most systems of any input at the input level, all
    summaries at the global level."""
    # scipy.stats.norm.ppf(q) is special.ndtri(q) (its _ppf, times scale 1 plus loc 0): called
    # directly, the same number without importing scipy.stats
    from scipy.special import ndtri

    r = np.asarray(r, dtype=float)
    b, c = {"pearson": (3, 1.0), "spearman": (3, np.sqrt(1 + r ** 2 / 2)), "kendall": (4, np.sqrt(0.437))}[coefficient]
    half = ndtri(1 - (1 - confidence) / 2) * c / np.sqrt(np.maximum(n - b, 1e-300))
    z = np.arctanh(r)
    lo, hi = np.tanh(z - half), np.tanh(z + half)
    return np.where(n > b, lo, np.nan), np.where(n > b, hi, np.nan)
