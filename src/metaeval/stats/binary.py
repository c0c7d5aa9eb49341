"""A metric as a detector of factually consistent summaries (binary labels: 1 = consistent).

* ROC AUC = the Mann-Whitney probability that a consistent summary scores above an inconsistent
  one, ties counting one half (Hanley & McNeil 1982); equal to scikit-learn's ``roc_auc_score``.
* Its interval: percentile bootstrap over summaries resampled within each label (both classes keep
  their sizes, so every sample has an AUC), ``default_rng(seed)``.
* Two metrics' AUCs on the same summaries: DeLong, DeLong & Clarke-Pearson (1988), in the
  placement-value form of Sun & Xu (2014): V10 (each positive's share of negatives below it, ties
  one half), V01 (each negative's share of positives above it), the covariance
  S = S10 / m + S01 / n of the two AUCs, z = (A_a - A_b) / sqrt(var_a + var_b - 2 cov_ab), two-sided
  normal p.
* Balanced accuracy (the SummaC protocol, Laban et al. 2022): the threshold that maximises the
  balanced accuracy (mean of the true positive and true negative rates; scikit-learn's
  ``balanced_accuracy_score``) on the validation summaries, among the midpoints between their
  sorted distinct scores (and one below / above all), a summary predicted consistent when its score
  is >= the threshold; the lowest best threshold on ties; then applied unchanged to the test
  summaries.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .core import counts, percentile_interval, ranks


def auc(scores, labels) -> float:
    """ROC AUC of ``scores`` for ``labels`` (1 positive, 0 negative), ties one half; NaN without both classes."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    pos, neg = s[y == 1], s[y == 0]
    if pos.size == 0 or neg.size == 0:
        return np.nan
    r = ranks(np.concatenate([pos, neg]))
    return float((r[:pos.size].sum() - pos.size * (pos.size + 1) / 2) / (pos.size * neg.size))


def resampled_aucs(x: np.ndarray, y: np.ndarray, cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
    """The AUC (B,) of the positives' scores ``x`` (m,) against the negatives' ``y`` (k,) when positive
    i counts cx[b, i] times and negative j cy[b, j] times (each row of cx summing to m, of cy to k: a
    sample drawn within each label): the count-weighted Mann-Whitney sum over the negatives of the
    positives above each (ties one half), from the cumulative counts of the sorted positives, so a
    sample costs O(m + k) and no sort. Every term is a count or a half: the sums are exact."""
    m, k = x.size, y.size
    order = np.argsort(x, kind="stable")
    xs = x[order]
    below = np.concatenate([np.zeros((cx.shape[0], 1)), np.cumsum(cx[:, order], axis=1)], axis=1)   # (B, m + 1)
    left, right = np.searchsorted(xs, y, side="left"), np.searchsorted(xs, y, side="right")
    above = m - below[:, right]                                    # positives above each negative
    tied = below[:, right] - below[:, left]
    return (cy * (above + 0.5 * tied)).sum(axis=1) / (m * k)


@functools.lru_cache(maxsize=4)
def _label_draws(samples: int, seed: int, m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The summaries drawn within each label: (samples, m) positions among the m positives, then
    (samples, k) among the k negatives, from ``default_rng(seed)``. They depend on the sizes alone,
    so every metric scored on the same summaries shares them (kept read-only)."""
    rng = np.random.default_rng(seed)
    pos_draw, neg_draw = rng.integers(0, m, (samples, m)), rng.integers(0, k, (samples, k))
    pos_draw.flags.writeable = neg_draw.flags.writeable = False
    return pos_draw, neg_draw


@functools.lru_cache(maxsize=4)
def _label_counts(samples: int, seed: int, m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """How often each positive and each negative is drawn in each sample of :func:`_label_draws`
    (int32: exact, and half the memory traffic of the cumulative sums that use them)."""
    pos_draw, neg_draw = _label_draws(samples, seed, m, k)
    cx, cy = counts(pos_draw, m).astype(np.int32), counts(neg_draw, k).astype(np.int32)
    cx.flags.writeable = cy.flags.writeable = False
    return cx, cy


def bootstrap_auc(scores, labels, samples: int, seed: int, confidence: float) -> tuple[float, float]:
    """Percentile interval of the AUC; summaries resampled within each label (module docstring):
    the positives' draws, then the negatives', from ``default_rng(seed)``."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    pos_i, neg_i = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    if pos_i.size == 0 or neg_i.size == 0 or samples < 1:
        return (np.nan, np.nan)
    values = resampled_aucs(s[pos_i], s[neg_i], *_label_counts(samples, seed, pos_i.size, neg_i.size))
    lo, hi = percentile_interval(values, confidence)
    return float(lo), float(hi)


def placements(s: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placement values: V10 per positive, V01 per negative (ties one half), via ranks."""
    x, y = s[pos], s[~pos]
    m, n = x.size, y.size
    r_all = ranks(np.concatenate([x, y]))
    v10 = (r_all[:m] - ranks(x)) / n            # negatives below each positive, ties 1/2
    v01 = 1 - (r_all[m:] - ranks(y)) / m        # positives above each negative, ties 1/2
    return v10, v01


class DeLong(NamedTuple):
    auc_a: float
    auc_b: float
    difference: float
    se: float
    z: float
    p: float          # two-sided


def delong_test(a, b, labels) -> DeLong:
    """DeLong's test of two correlated AUCs (module docstring); the summaries where both scores are defined."""
    a, b, y = (np.asarray(v, dtype=float) for v in (a, b, labels))
    ok = np.isfinite(a) & np.isfinite(b) & np.isin(y, (0.0, 1.0))
    a, b, pos = a[ok], b[ok], y[ok] == 1
    if int(pos.sum()) < 2 or int((~pos).sum()) < 2:
        return DeLong(np.nan, np.nan, np.nan, np.nan, np.nan, np.nan)
    return delong_of_placements(placements(a, pos), placements(b, pos))


def delong_of_placements(pa: tuple[np.ndarray, np.ndarray], pb: tuple[np.ndarray, np.ndarray]) -> DeLong:
    """:func:`delong_test` from both metrics' :func:`placements` on the same summaries (at least 2
    of each label): many pairs of metrics scored on every summary share each metric's placements."""
    from scipy.special import ndtr     # imported where needed: scipy loads in a fraction of a second

    (va10, va01), (vb10, vb01) = pa, pb
    m, n = va10.size, va01.size
    auc_a, auc_b = float(va10.mean()), float(vb10.mean())
    # var_a + var_b - 2 cov_ab is the variance of the difference of the placements: two dot products
    # per pair instead of two covariance matrices (thousands of pairs share each metric's placements)
    d10, d01 = va10 - vb10, va01 - vb01
    d10, d01 = d10 - d10.mean(), d01 - d01.mean()
    var = float(d10 @ d10) / (m - 1) / m + float(d01 @ d01) / (n - 1) / n
    diff = auc_a - auc_b
    if not var > 1e-15:
        return DeLong(auc_a, auc_b, diff, 0.0, np.nan, 1.0 if diff == 0 else np.nan)
    se = float(np.sqrt(var))
    z = diff / se
    return DeLong(auc_a, auc_b, diff, se, float(z), float(2 * ndtr(-abs(z))))   # = 2 norm.sf(|z|)


def balanced_accuracy(scores, labels, threshold: float) -> float:
    """Mean of the true positive and true negative rates when score >= threshold predicts 1; NaN
    without both classes."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    pos, neg = y == 1, y == 0
    if not pos.any() or not neg.any():
        return np.nan
    pred = s >= threshold
    return float(((pred & pos).sum() / pos.sum() + (~pred & neg).sum() / neg.sum()) / 2)


def _midpoints(u: np.ndarray) -> np.ndarray:
    """(u[i] + u[i+1]) / 2; where that sum overflows (scores near the largest double), u[i]/2 +
    u[i+1]/2, the same number computed without overflow (halving is exact)."""
    with np.errstate(over="ignore"):
        mid = (u[:-1] + u[1:]) / 2
    return mid if np.isfinite(mid).all() else u[:-1] / 2 + u[1:] / 2


def _beyond(v: float, step: float) -> float:
    """v + step, or the next double beyond v where v is so large that the step is lost."""
    out = v + step
    return out if out != v else float(np.nextafter(v, step * np.inf))


def best_threshold(scores, labels) -> tuple[float, float]:
    """(threshold, its balanced accuracy) maximising the balanced accuracy on these summaries
    (candidates: midpoints of the sorted distinct scores, and one below / above them all; the
    lowest on ties)."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    u = np.unique(s)
    if u.size == 0:
        return (np.nan, np.nan)
    cands = np.concatenate([[_beyond(u[0], -1.0)], _midpoints(u), [_beyond(u[-1], 1.0)]])
    pos, neg = y == 1, y == 0
    if not pos.any() or not neg.any():
        return (np.nan, np.nan)
    # predictions at each candidate: s >= c; counts via sorted positions
    ps, ns = np.sort(s[pos]), np.sort(s[neg])
    tpr = (ps.size - np.searchsorted(ps, cands, side="left")) / ps.size
    tnr = np.searchsorted(ns, cands, side="left") / ns.size
    ba = (tpr + tnr) / 2
    i = int(np.argmax(ba))
    return float(cands[i]), float(ba[i])


def bootstrap_balanced_accuracy(scores, labels, threshold: float, samples: int, seed: int, confidence: float
                                ) -> tuple[float, float]:
    """Percentile interval of the balanced accuracy at a fixed threshold (summaries resampled within each label)."""
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    pos_i, neg_i = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    if pos_i.size == 0 or neg_i.size == 0 or samples < 1 or not np.isfinite(threshold):
        return (np.nan, np.nan)
    pos_draw, neg_draw = _label_draws(samples, seed, pos_i.size, neg_i.size)
    tp = (s[pos_i][pos_draw] >= threshold).mean(axis=1)
    tn = (s[neg_i][neg_draw] < threshold).mean(axis=1)
    lo, hi = percentile_interval((tp + tn) / 2, confidence)
    return float(lo), float(hi)
