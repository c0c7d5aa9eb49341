"""Kendall variants, tie calibration and pairwise accuracy, as mt-metrics-eval's ``stats.py`` and
``tau_optimization.py`` (google-research/mt-metrics-eval) define them; x = metric, y = human (gold).

Over the pairs of items, C concordant, D discordant, T_x tied in the metric only, T_y in the human
only, T_xy in both, N = all pairs; a metric pair is tied when |x_i - x_j| <= epsilon:

* ``b``: (C - D) / sqrt((N - T_x - T_xy)(N - T_y - T_xy)) (scipy's tau-b); NaN if either side is all tied;
* ``c``: 2 (C - D) / (n^2 (m - 1) / m), n items, m = min(distinct x, distinct y) (epsilon must be 0);
* ``23``: (C + T_xy - D - T_x - T_y) / N, ``acc23``: (C + T_xy) / N (Deutsch, Foster & Freitag 2023,
  "Ties matter"); NaN without pairs.

Levels (:func:`metaeval.stats.levels.correlate`): ``system`` (system means), ``global``
(mt-metrics-eval's flattened segment level, ``average_by='none'``), ``input`` (its
``average_by='item'``: per input over the systems, plain mean of the defined values).

* :func:`tie_calibration` - KendallWithTiesOpt with ``sample_rate=1.0``: the epsilon among 0 and
  every |x_i - x_j| that maximises 23 / acc23 (the smallest such epsilon), one epsilon for all
  inputs at the input level (their mean is maximised). Returns (value, epsilon).
* :func:`kendall_like` - WMT20's Kendall-like (C' - D') / (C' + D') over the pairs with
  |y_i - y_j| >= thresh, C' = pairs with y_i - y_j and x_i - x_j of the same strict sign, D' = the
  rest (metric ties are discordant); inputs are pooled pair-weighted (``macro=False``).
* :func:`pairwise_accuracy` - Kocmi et al. (2021): the share of system pairs whose metric
  difference has the sign of the human difference (mt-metrics-eval's ``Agreement``: both tied
  agrees) = acc23 at the system level with epsilon 0. With resampled systems, two copies of one
  system are not a pair.

Missing values (NaN on either side) leave their pairs out, as mt-metrics-eval's None golds.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .levels import Statistic, correlate, pair_counts, weighted_means

VARIANTS = ("b", "c", "23", "acc23")


def _distinct(x, w):
    """Number of distinct values of x (last axis) among the items with positive weight."""
    xs = np.sort(np.where(w > 0, x, np.nan), axis=-1)
    return (~np.isnan(xs[..., :1])).sum(-1) + ((xs[..., 1:] != xs[..., :-1]) & ~np.isnan(xs[..., 1:])).sum(-1)


def tau(x, y, w=None, variant: str = "b", epsilon: float = 0.0):
    """A Kendall variant over the last axis (item i counted w[i] times; NaN items left out)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown Kendall variant {variant!r}; expected one of {VARIANTS}")
    if epsilon < 0 or (epsilon > 0 and variant == "c"):
        raise ValueError("epsilon must be >= 0, and 0 for tau-c (as mt-metrics-eval)")
    con, dis, tx, ty, txy = pair_counts(x, y, w, epsilon)
    tot = con + dis + tx + ty + txy
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            out = (con - dis) / np.sqrt(tot - tx - txy) / np.sqrt(tot - ty - txy)
            out = np.where((tot - tx - txy == 0) | (tot - ty - txy == 0), np.nan, out)
        elif variant == "c":
            ok = ~np.isnan(x) & ~np.isnan(y)
            wv = np.where(ok, 1.0 if w is None else w, 0.0)
            n, m = wv.sum(-1), np.minimum(_distinct(x, wv), _distinct(y, wv))
            out = 2 * (con - dis) / (n ** 2 * (m - 1) / m)
            out = np.where((tot - tx - txy == 0) | (tot - ty - txy == 0), np.nan, out)
        elif variant == "23":
            out = (con + txy - dis - tx - ty) / tot
        else:
            out = (con + txy) / tot
    return np.where(tot > 0, out, np.nan)


def variant(name: str, epsilon: float = 0.0):
    """The Kendall variant as a coefficient f(x, y, w) for :func:`metaeval.stats.levels.correlate`."""
    return partial(tau, variant=name, epsilon=epsilon)


def kendall_variants(x, z, level: str, name: str, epsilon: float = 0.0):
    """A Kendall variant of every metric grid x (..., S, T) with the human grid z at ``level``."""
    return correlate(x, z, level, variant(name, epsilon))


def pairwise_accuracy_statistic() -> Statistic:
    """Pairwise accuracy of system rankings as a statistic for :mod:`metaeval.stats.resampling`
    (bootstrap interval; permutation test between two metrics' accuracies)."""
    return Statistic("system", variant("acc23"))


def pairwise_accuracy(x, z):
    """Pairwise accuracy (Kocmi et al. 2021) of every metric grid x (..., S, T)."""
    return pairwise_accuracy_statistic()(x, z)


def _groups(x, z, level):
    """(metric scores (..., G, n), human scores (G, n)) of the groups a level correlates over."""
    x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
    if level == "system":
        return weighted_means(x)[..., None, :], weighted_means(z)[None, :]
    if level == "global":
        return x.reshape(*x.shape[:-2], 1, -1), z.reshape(1, -1)
    if level == "input":
        return np.swapaxes(x, -1, -2), z.T
    raise ValueError(f"unknown level {level!r}")


def tie_calibration(x, z, level: str, name: str = "acc23") -> tuple[np.ndarray, np.ndarray]:
    """(best value, its epsilon) of the 23 or acc23 variant for every metric grid in x (M, S, T)
    (Deutsch, Foster & Freitag 2023, §5; mt-metrics-eval ``KendallWithTiesOpt``, sample_rate=1.0).

    Every pair contributes ``far`` while its metric difference exceeds epsilon and ``near`` (a
    metric tie) once it does not: acc23 far = concordant, near = tied in the human too; 23 adds
    -1 for every other pair. Sorting the pairs by |x_i - x_j| gives every candidate's value as a
    cumulative sum, exact in integers when every input has the same number of pairs."""
    if name not in ("23", "acc23"):
        raise ValueError("tie calibration is defined for the 23 and acc23 variants")
    xg, zg = _groups(x, z, level)
    n = zg.shape[-1]
    i, j = np.triu_indices(n, 1)
    dy = zg[:, i] - zg[:, j]                                         # (G, P)
    values, epsilons = [], []
    for xm in xg.reshape(-1, *xg.shape[-2:]):
        dx = xm[:, i] - xm[:, j]
        ok = ~np.isnan(dx) & ~np.isnan(dy)
        far = (np.sign(dx) * np.sign(dy) > 0).astype(np.int64)
        near = (dy == 0).astype(np.int64)
        if name == "23":
            far, near = 2 * far - 1, 2 * near - 1
        pairs = ok.sum(axis=1)
        used = pairs > 0
        if not used.any():
            values.append(np.nan), epsilons.append(np.nan)
            continue
        exact = np.unique(pairs[used]).size == 1                     # one common denominator
        weight = np.ones(len(pairs), dtype=np.int64) if exact else np.where(used, 1 / np.maximum(pairs, 1), 0.0)
        diff = np.abs(dx)[ok]
        change = ((near - far) * weight[:, None])[ok]
        base = (far * weight[:, None])[ok].sum()
        order = np.argsort(diff, kind="stable")
        diff, total = diff[order], base + np.cumsum(change[order])
        last = np.r_[diff[1:] != diff[:-1], True]                    # the end of each run of equal differences
        thresholds, totals = diff[last], total[last]
        if thresholds[0] > 0:                                       # epsilon 0 is always a candidate
            thresholds, totals = np.r_[0.0, thresholds], np.r_[base, totals]
        k = int(np.argmax(totals))
        scale = pairs[used][0] * used.sum() if exact else used.sum()
        values.append(totals[k] / scale), epsilons.append(float(thresholds[k]))
    shape = xg.shape[:-2]
    return np.array(values).reshape(shape), np.array(epsilons).reshape(shape)


def kendall_like(x, z, level: str, thresh: float = 0.0):
    """WMT20's Kendall-like of every metric grid x (..., S, T) at ``level`` (inputs pooled by
    their numbers of counted pairs, as mt-metrics-eval's ``Correlation.KendallLike``); NaN
    without any counted pair (mt-metrics-eval returns 0)."""
    xg, zg = _groups(x, z, level)
    con, dis, tx, ty, txy = (c.sum(axis=-1) for c in pair_counts(xg, zg, y_margin=thresh))
    tot = con + dis + tx + ty + txy
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tot > 0, (2 * con - tot) / tot, np.nan)
