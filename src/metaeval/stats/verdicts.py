"""Verdicts on pairs of summarizers and their agreement with the human verdicts (Owczarzak,
Conroy, Dang & Nenkova 2012, "An Assessment of the Accuracy of Automatic Evaluation in
Summarization"; the AESOP task).

For every pair of summarizers (A, B) and every scorer (a human combination or a per-summary
metric), a paired two-sided Wilcoxon signed-rank test over the topics both summarized gives a
verdict: A better (+1), B better (-1) or no significant difference (0) at ``alpha``; the
direction is the sign of the median of the paired differences, the mean where the median is 0.
Pairs with fewer than ``min_topics`` common topics are untestable (NaN); a pair with the same
score on every common topic has p = 1.

The p-value of a pair is what ``scipy.stats.wilcoxon`` (zero_method='wilcox', no continuity
correction, method='auto') gives for that pair alone, whatever the other pairs are
(:func:`wilcoxon_pvalues`): n differences, zeros dropped from the ranks,

* no zero and no tied |difference|, n <= 50: the exact null distribution;
* zeros or ties, n <= 13: the exact permutation distribution (all 2^n sign flips);
* otherwise: the normal approximation with the tie-corrected variance.

Per metric x human combination (Owczarzak's Tables 2 and 3), over the testable pairs:

* ``diff``: share of the human-significant pairs the metric also finds significant, same direction;
* ``no_diff``: share of the human-non-significant pairs the metric also finds non-significant;
* ``contradictions``: pairs where both are significant in opposite directions (count and share);
* ``accuracy``: share of pairs with the same three-way verdict, with a 95 % Clopper-Pearson
  interval (:func:`clopper_pearson`); ``direction``: share of pairs whose mean differences have the
  same sign.

A pooled two-proportion z-test (:func:`two_proportion_z`) compares a metric's accuracy with a
baseline metric's. Both are statsmodels' ``proportion_confint(method='beta')`` and
``proportions_ztest`` computed the same way with scipy (equal to the last bit, tested), which
spares the agreement job statsmodels' 2-second import.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Mapping, Sequence

import numpy as np

from .core import ranks
from .stable import binary_scale

EXACT_MAX_N = 50          # scipy: exact distribution up to 50 differences without zeros or ties
PERMUTATION_MAX_N = 13    # scipy: 2^13 sign flips < its 9999 resamples, so the permutation test is exact
METHOD = ("paired two-sided Wilcoxon signed-rank test over the topics both summarized; each pair's p-value is "
          "scipy's for that pair alone: exact distribution for n <= 50 without zeros or tied differences, exact "
          "permutation distribution for n <= 13 otherwise, else the tie-corrected normal approximation")


def wilcoxon_method(d: np.ndarray) -> str:
    """The method scipy's ``wilcoxon(method='auto')`` uses for one complete row of differences."""
    return str(wilcoxon_methods(np.asarray(d, dtype=float)[None])[0])


def wilcoxon_methods(d: np.ndarray) -> np.ndarray:
    """:func:`wilcoxon_method` of every row of ``d`` (P, n; complete): exact up to 50 differences
    without a zero or a tie (the sorted magnitudes strictly increase from above 0), else the
    permutation test up to 13, else the normal approximation."""
    rows, n = d.shape
    if n > EXACT_MAX_N:
        return np.full(rows, "asymptotic")
    magnitudes = np.sort(np.abs(d), axis=1)
    clean = (np.diff(magnitudes, axis=1) != 0).all(axis=1)
    if n:
        clean &= magnitudes[:, 0] != 0
    return np.where(clean, "exact", "permutation" if n <= PERMUTATION_MAX_N else "asymptotic")


def wilcoxon_pvalues(d: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p-value of every row of ``d`` (P, T; no NaN), each as scipy
    gives it for that row alone: rows are grouped by :func:`wilcoxon_method` and every group is one
    vectorised scipy call with that method."""
    d = np.asarray(d, dtype=float)
    p = np.full(d.shape[0], np.nan)
    if d.shape[0] == 0:
        return p
    from scipy import stats

    methods = wilcoxon_methods(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("exact", "permutation", "asymptotic"):
            rows = np.flatnonzero(methods == method)
            if not len(rows):
                continue
            if method == "permutation":
                # scipy's own permutation test over the 2^n sign flips, as wilcoxon runs it, but with
                # the statistic vectorised (wilcoxon passes one that runs once per row and flip in
                # Python: seconds per target) and the flips in batches of a bounded size
                flips = max(1, PERMUTATION_VALUES // (len(rows) * d.shape[1]))
                p[rows] = stats.permutation_test((d[rows],), signed_rank_sum, permutation_type="samples",
                                                 vectorized=True, axis=1, alternative="two-sided",
                                                 batch=flips).pvalue
            else:
                p[rows] = stats.wilcoxon(d[rows], axis=1, method=method).pvalue
    return p


PERMUTATION_VALUES = 1 << 21   # differences per batch of sign flips in :func:`wilcoxon_pvalues` (16 MB)


def signed_rank_sum(d: np.ndarray, axis: int = -1) -> np.ndarray:
    """Wilcoxon's W+ of every row along ``axis``: the sum of the average ranks of |d| over the
    positive differences, zeros dropped before ranking (``zero_method='wilcox'``): the statistic
    scipy's ``wilcoxon`` gives its permutation test (its ``_wilcoxon_statistic``'s r_plus), the
    same to the bit (ranks are multiples of 1/2, their sums exact)."""
    d = np.moveaxis(np.asarray(d, dtype=float), axis, -1)
    nonzero = np.where(d == 0, np.nan, d)
    # average ranks of the non-zero magnitudes (scipy's rankdata; NaN, the zeros, sort last and
    # take no rank from the others, as its nan_policy="omit")
    r = ranks(np.abs(nonzero), axis=-1)
    return np.where(nonzero > 0, r, 0.0).sum(axis=-1)


@dataclass
class Verdicts:
    """Verdicts of one scorer on every pair: p-values, mean differences and verdicts (P,)."""

    p: np.ndarray
    mean_diff: np.ndarray
    median_diff: np.ndarray
    n_topics: np.ndarray
    verdict: np.ndarray   # +1, -1, 0; NaN = untestable

    def rows(self, which: slice) -> "Verdicts":
        """The verdicts of some of the pairs."""
        return Verdicts(*(getattr(self, f.name)[which] for f in fields(self)))


def paired_verdicts(a: np.ndarray, b: np.ndarray, alpha: float, min_topics: int) -> Verdicts:
    """Wilcoxon verdicts for pairs given as rows: ``a`` and ``b`` are (P, T) per-topic scores of
    summarizer A and B of each pair, NaN where a summarizer has no summary for a topic. A pair of
    extreme magnitude is compared scaled by one power of two (exact; the test is scale-free), so
    its differences cannot overflow; its mean and median differences are scaled back."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both, e = binary_scale(np.concatenate([a, b], axis=-1), axis=-1)
    if e.any():
        a, b = both[..., :a.shape[-1]], both[..., a.shape[-1]:]
    d = a - b
    n_pairs = d.shape[0]
    ok = ~np.isnan(d)
    n = ok.sum(axis=1)
    p = np.full(n_pairs, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.where(n > 0, np.nansum(d, axis=1) / np.maximum(n, 1), np.nan)
        median = np.nanmedian(np.where(ok.any(axis=1)[:, None], d, 0.0), axis=1)
    testable = n >= min_topics
    nonzero = np.any(np.nan_to_num(d) != 0, axis=1)
    p[testable & ~nonzero] = 1.0  # identical scores on every common topic: no difference
    complete = testable & nonzero & ok.all(axis=1)
    p[complete] = wilcoxon_pvalues(d[complete])
    # pairs tested on a subset of the topics: those sharing the same subset are tested in one call
    # (each still as scipy tests it alone, on its common topics)
    incomplete = np.flatnonzero(testable & nonzero & ~ok.all(axis=1))
    if len(incomplete):
        subsets, which = np.unique(ok[incomplete], axis=0, return_inverse=True)
        for k, common in enumerate(subsets):
            rows = incomplete[which.reshape(-1) == k]
            p[rows] = wilcoxon_pvalues(d[rows][:, common])
    direction = np.sign(np.where(median != 0, median, mean))
    verdict = np.where(p < alpha, direction, 0.0)
    verdict[~testable] = np.nan
    if e.any():
        with np.errstate(over="ignore"):
            mean, median = np.ldexp(mean, e[:, 0]), np.ldexp(median, e[:, 0])
    return Verdicts(p, mean, median, n, verdict)


BATCH_VALUES = 1 << 20     # scores per batch of scorers in :func:`verdicts_of_scorers` (8 MB of float64)


def verdicts_of_scorers(grids: Mapping[str, np.ndarray], first: np.ndarray, second: np.ndarray, alpha: float,
                        min_topics: int) -> dict[str, Verdicts]:
    """:func:`paired_verdicts` of every scorer's (S, T) grid on the pairs (``first[k]``, ``second[k]``)
    of its rows, with the scorers' pairs stacked into batches of about :data:`BATCH_VALUES` scores:
    every pair's verdict depends on that pair alone, so a batch gives each scorer exactly its own
    verdicts, with a few calls of scipy's test instead of a few per scorer."""
    names = list(grids)
    out: dict[str, Verdicts] = {}
    if not names:
        return out
    pairs = len(first)
    per_scorer = max(1, pairs * np.asarray(grids[names[0]]).shape[-1])
    step = max(1, BATCH_VALUES // per_scorer)
    for start in range(0, len(names), step):
        batch = names[start:start + step]
        v = paired_verdicts(np.concatenate([np.asarray(grids[n])[first] for n in batch]),
                            np.concatenate([np.asarray(grids[n])[second] for n in batch]), alpha, min_topics)
        out.update({n: v.rows(slice(k * pairs, (k + 1) * pairs)) for k, n in enumerate(batch)})
    return out


@dataclass
class Agreement:
    pairs: int
    human_significant: int
    diff: float
    no_diff: float
    contradictions: int
    contradiction_share: float
    correct: int
    accuracy: float
    accuracy_lo: float
    accuracy_hi: float
    direction: float


@lru_cache(maxsize=None)
def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Clopper & Pearson's (1934) exact interval of a binomial proportion k / n: the alpha/2 quantile
    of Beta(k, n - k + 1) and the 1 - alpha/2 quantile of Beta(k + 1, n - k); 0 and 1 at the edges.
    Cached: the agreement tables ask for the same (k, n) many times (every metric, target and pair
    type), and each scipy quantile costs about 0.1 ms."""
    from scipy import stats

    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2.0, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.isf(alpha / 2.0, k + 1, n - k))
    return lo, hi


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """Pooled two-proportion z-test of k1/n1 against k2/n2: z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2))
    with p = (k1 + k2) / (n1 + n2); two-sided p-value from the standard normal."""
    # scipy.stats.norm.sf(x) is special.ndtr(-x) (its _sf): the same number without the
    # distribution's per-call argument checks
    from scipy.special import ndtr

    count, nobs = np.asarray([k1, k2]), np.asarray([n1, n2])
    prop = count * 1.0 / nobs
    pooled = np.sum(count) * 1.0 / np.sum(nobs)
    z = (prop[0] - prop[1] - 0) / np.sqrt(pooled * (1 - pooled) * np.sum(1.0 / nobs))
    return float(z), float(ndtr(-np.abs(z)) * 2)


def agreement(metric: Verdicts, human: Verdicts, mask: np.ndarray | None = None) -> Agreement:
    """Agreement of a metric's verdicts with the human verdicts over the testable pairs (in ``mask``)."""
    sel = ~np.isnan(metric.verdict) & ~np.isnan(human.verdict)
    if mask is not None:
        sel &= mask
    m, h = metric.verdict[sel], human.verdict[sel]
    n = int(sel.sum())
    hs = h != 0
    share = lambda k, total: k / total if total else np.nan  # noqa: E731
    contradictions = int(np.sum(hs & (m != 0) & (m == -h)))
    correct = int(np.sum(m == h))
    lo, hi = clopper_pearson(correct, n) if n else (np.nan, np.nan)
    md, hd = metric.mean_diff[sel], human.mean_diff[sel]
    return Agreement(n, int(hs.sum()), share(int(np.sum(hs & (m == h))), int(hs.sum())),
                     share(int(np.sum(~hs & (m == 0))), int((~hs).sum())), contradictions, share(contradictions, n),
                     correct, share(correct, n), float(lo), float(hi), share(int(np.sum(np.sign(md) == np.sign(hd))), n))


def compare_to_baseline(correct: int, n: int, base_correct: int, base_n: int) -> tuple[float, float]:
    """Two-proportion z-test of a metric's accuracy against the baseline's: (z, two-sided p)."""
    if not n or not base_n or (correct + base_correct) in (0, n + base_n):
        return np.nan, np.nan
    return two_proportion_z(correct, n, base_correct, base_n)


def safe_difference(metric: Verdicts, human: Verdicts) -> float:
    """The smallest |mean score difference| above which the metric never contradicts the human
    verdict on this data set (0 if it never contradicts; NaN without testable pairs)."""
    sel = ~np.isnan(metric.verdict) & ~np.isnan(human.verdict)
    if not sel.any():
        return np.nan
    m, h, d = metric.verdict[sel], human.verdict[sel], np.abs(metric.mean_diff[sel])
    contra = (h != 0) & (m != 0) & (m == -h)
    return float(d[contra].max()) if contra.any() else 0.0


def pair_grid(summarizers: Sequence[str], kinds: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Every unordered pair (i < j) of summarizers and its type: 'system-system' or 'human-system'
    (pairs of two humans are left out, as in the paper)."""
    ii, jj, types = [], [], []
    for i in range(len(summarizers)):
        for j in range(i + 1, len(summarizers)):
            kind = {kinds[i], kinds[j]}
            if kind == {"human"}:
                continue
            ii.append(i)
            jj.append(j)
            types.append("system-system" if kind == {"system"} else "human-system")
    return np.array(ii, dtype=int), np.array(jj, dtype=int), types
