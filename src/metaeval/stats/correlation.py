"""Correlation of metric scores with human scores (Graham 2015 §3, §6).

* :func:`point_correlations`: Pearson r, Spearman rho and Kendall tau-b between a metric's
  and a human combination's scores over the items where both are defined; undefined (NaN) with
  fewer than 3 items or a constant side. The system-level table uses it. The numbers are scipy's to
  the last bit (``spearmanr``: ``np.corrcoef`` of the average ranks; ``kendalltau``: the integer
  C - D over the square roots of the untied pair counts, :func:`kendall_tau_b`), without scipy's
  per-call overhead (about 1 ms a call; the correlation job makes thousands).
* :func:`column_correlations`: the same three coefficients, with the same definitions, between
  every column of one matrix and every column of another at once (numpy): Pearson's r
  (:func:`metaeval.stats.core.pearson`); Spearman's rho = Pearson's r of the average ranks
  (:func:`metaeval.stats.core.ranks`); Kendall's tau-b = (C - D) / sqrt((P - T_x)(P - T_y))
  over the P pairs of items, C / D concordant / discordant, T_x / T_y tied in x / y (scipy's
  ``kendalltau(variant='b')``). Agrees with scipy to about 1e-15 (tested).
* :func:`summary_level`: the summary-level correlation - within each topic, across summarizers,
  averaged over the topics where it is defined (a different question from the system level: does
  the metric rank the summaries of one input correctly?).
* :func:`summary_level_intervals`: percentile bootstrap intervals of that correlation's Pearson r,
  resampling topics (inputs), and the paired bootstrap test of every metric against the best one
  (Koehn 2004's paired bootstrap resampling, one-sided); with fewer than 3 summarizers a topic has
  no within-topic correlation, and the summary level is the correlation over all judged summaries
  pooled (as QAGS, SummaC and FRANK report it), with its interval from the same topic draws.
* :func:`paired_bootstrap_matrix`: that paired test for every ordered pair of metrics (the
  leaderboard's wins and losses at the summary level).
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np

from .. import memo
from .core import (corrcoef, counts, draws, paired_bootstrap_p, pearson, pearson_against, percentile_interval, ranks,
                   sorted_pair_counts)
from .stable import binary_scale


def point_correlations(metric: np.ndarray, human: np.ndarray) -> tuple[float, float, float, int]:
    """Pearson, Spearman, Kendall tau-b and n over the items where both are defined."""
    ok = ~np.isnan(metric) & ~np.isnan(human)
    m, h = metric[ok], human[ok]
    n = int(ok.sum())
    if n < 3 or np.ptp(m) == 0 or np.ptp(h) == 0:
        return np.nan, np.nan, np.nan, n
    spearman = np.corrcoef(np.column_stack((ranks(m), ranks(h))), rowvar=False)[1, 0]   # as scipy's spearmanr
    return float(np.clip(corrcoef(m, h)[0, 1], -1, 1)), float(spearman), kendall_tau_b(m, h), n


# Up to this many items the pairs are compared at once (n^2 / 2 comparisons); beyond, they are
# counted after sorting (:func:`metaeval.stats.core.sorted_pair_counts`, n log n): the same integers.
PAIRWISE_MAX_N = 200


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b of two vectors, exactly as ``scipy.stats.kendalltau(x, y,
    variant="b")`` computes it: (C - D) / sqrt(P - T_x) / sqrt(P - T_y), C - D the integer sum over
    the P pairs of sign(x_i - x_j) sign(y_i - y_j), T_x / T_y the pairs tied in x / y; NaN if either
    side is all tied or has a NaN (scipy's ``nan_policy="propagate"``); clipped to [-1, 1]."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if np.isnan(x).any() or np.isnan(y).any():
        return float("nan")
    if n > PAIRWISE_MAX_N:
        con, dis, only_x, only_y, _ = sorted_pair_counts(x, y)
        con_minus_dis, untied_x, untied_y = con - dis, con + dis + only_y, con + dis + only_x
    else:
        i, j = np.triu_indices(n, 1)
        sx = (x[i] > x[j]).astype(np.int64) - (x[i] < x[j])
        sy = (y[i] > y[j]).astype(np.int64) - (y[i] < y[j])
        con_minus_dis, untied_x, untied_y = int((sx * sy).sum()), int(np.count_nonzero(sx)), int(np.count_nonzero(sy))
    if untied_x == 0 or untied_y == 0:
        return float("nan")
    tau = con_minus_dis / np.sqrt(untied_x) / np.sqrt(untied_y)
    return float(np.minimum(1.0, max(-1.0, tau)))


class _Columns:
    """The columns of x defined (not constant) on a set of rows, with what every column of y
    correlated with them needs of them alone: computed once however many columns of y share
    those rows (Pearson is symmetric bit for bit, so x's side can be the cached one)."""

    def __init__(self, cols: np.ndarray, xs: np.ndarray):
        self.cols = cols
        self.pearson = pearson_against(xs, axis=0)
        self.spearman = pearson_against(ranks(xs, axis=0), axis=0)
        i, j = np.triu_indices(len(xs), 1)
        self.pairs = i, j
        self.signs = np.sign(xs[i] - xs[j])
        self.untied = (self.signs != 0).sum(axis=0)

    def tau_b(self, y: np.ndarray) -> np.ndarray:
        """Kendall's tau-b of every column with the vector y (n,)."""
        i, j = self.pairs
        dy = np.sign(y[i] - y[j])
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = (self.signs * dy[:, None]).sum(axis=0) / np.sqrt(self.untied * float((dy != 0).sum()))
        return np.clip(tau, -1, 1)


def column_correlations(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(pearson, spearman, kendall, n), each (a, b), between every column of x (n, a) and every
    column of y (n, b), over the rows where both are defined; NaN with fewer than 3 rows or a
    constant column (as :func:`point_correlations`)."""
    a, b = x.shape[1], y.shape[1]
    out = [np.full((a, b), np.nan) for _ in range(3)]
    counts = np.zeros((a, b), dtype=int)
    okx = ~np.isnan(x)
    # columns of x with the same rows defined share every mask below
    patterns, group = np.unique(okx.T, axis=0, return_inverse=True)
    prepared: dict[tuple[int, bytes], _Columns | None] = {}
    for k in range(b):
        oky = ~np.isnan(y[:, k])
        for g, pattern in enumerate(patterns):
            cols = np.flatnonzero(group.ravel() == g)
            rows = pattern & oky
            n = int(rows.sum())
            counts[cols, k] = n
            if n < 3:
                continue
            ys = y[rows, k]
            if np.ptp(ys) == 0:
                continue
            key = (g, rows.tobytes())
            if key not in prepared:
                xs = x[rows][:, cols]
                defined = np.ptp(xs, axis=0) > 0
                prepared[key] = _Columns(cols[defined], xs[:, defined]) if defined.any() else None
            c = prepared[key]
            if c is None:
                continue
            out[0][c.cols, k] = c.pearson(ys[:, None])
            out[1][c.cols, k] = c.spearman(ranks(ys)[:, None])
            out[2][c.cols, k] = c.tau_b(ys)
    return out[0], out[1], out[2], counts


def within_topic(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], combinations: Sequence[str]
                 ) -> np.ndarray:
    """Pearson, Spearman and Kendall tau-b within every topic, across summarizers: (3, T, M, C) for
    the (S, T) grids of the metrics M and the human combinations C; NaN where undefined."""
    names = list(metrics)
    x = np.stack([metrics[m] for m in names], axis=2)                # (S, T, M)
    y = np.stack([human[c] for c in combinations], axis=2)           # (S, T, C)
    n_topics = x.shape[1]
    per_topic = np.full((3, n_topics, len(names), len(combinations)), np.nan)
    for t in range(n_topics):
        p, s, k, _ = column_correlations(x[:, t], y[:, t])
        per_topic[:, t] = p, s, k
    return per_topic


def summary_level(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], combinations: Sequence[str],
                  per_topic: np.ndarray | None = None) -> list[tuple[str, str, int, float, float, float]]:
    """Within-topic correlations averaged over topics, for every (S, T) metric grid and human
    combination grid: (metric, combination, topics where defined, pearson, spearman, kendall).
    ``per_topic``: :func:`within_topic` of the same grids, when already computed."""
    names = list(metrics)
    if not names or not combinations:
        return []
    if per_topic is None:
        per_topic = within_topic(metrics, human, combinations)
    defined = ~np.isnan(per_topic[0])                                 # (T, M, C)
    rows = []
    for i, name in enumerate(names):
        for j, c in enumerate(combinations):
            sel = defined[:, i, j]
            mean = lambda v: float(np.mean(v[sel])) if sel.any() else np.nan  # noqa: E731
            rows.append((name, c, int(sel.sum()), mean(per_topic[0][:, i, j]), mean(per_topic[1][:, i, j]),
                         mean(per_topic[2][:, i, j])))
    return rows


def pooled(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], combinations: Sequence[str]
           ) -> list[tuple[str, str, int, int, float, float, float]]:
    """The correlation over all summaries pooled (every (summarizer, topic) cell where both scores
    are defined), for every metric and combination: (metric, combination, topics with such a
    summary, summaries, pearson, spearman, kendall); NaN with fewer than 3 summaries or a constant
    side (:func:`point_correlations`)."""
    rows = []
    for name, grid in metrics.items():
        for c in combinations:
            ok = ~np.isnan(grid) & ~np.isnan(human[c])
            p, s, k, n = point_correlations(grid[ok], human[c][ok])
            rows.append((name, c, int(ok.any(axis=0).sum()), n, p, s, k))
    return rows


def summary_level_intervals(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray],
                            combinations: Sequence[str], pooled_level: bool, samples: int, seed: int,
                            confidence: float, per_topic: np.ndarray | None = None
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, p_vs_best) of :func:`summary_level_samples`' point values and samples (that
    function's docstring states the method)."""
    point, boot = summary_level_samples(metrics, human, combinations, pooled_level, samples, seed, per_topic)
    return intervals_and_p_vs_best(point, boot, confidence)


def summary_level_samples(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray],
                          combinations: Sequence[str], pooled_level: bool, samples: int, seed: int,
                          per_topic: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(point (M, C), samples (B, M, C)) of the summary-level Pearson r of every metric (in the
    order of ``metrics``) with every combination, and its bootstrap over ``samples`` draws of topics
    with replacement (``draws(seed, ...)``, as every bootstrap of the project; a topic drawn twice
    counts twice). :func:`intervals_and_p_vs_best` turns them into the percentile interval and, for
    each combination, the one-sided paired bootstrap p-value that the best metric (highest r on the
    full data) does not correlate better than this one: the share of the samples where
    r_best* - r* <= 0 among those where both are defined (Koehn 2004, "Statistical Significance
    Tests for Machine Translation Evaluation", §4; the same draws serve every metric, so the test is
    paired); :func:`paired_bootstrap_matrix`, the same test for every ordered pair of metrics.

    Within-topic level (``pooled_level`` False): a sample's r is the mean of the drawn topics'
    within-topic r (:func:`within_topic`), so the per-topic values are computed once. Pooled level:
    the Pearson r over the drawn topics' summaries, each topic weighted by its draw count."""
    names = list(metrics)
    M, C = len(names), len(combinations)
    nan = np.full((M, C), np.nan)
    if not M or not C or samples <= 0:
        return nan, np.full((max(samples, 0), M, C), np.nan)
    n_sys, n_top = metrics[names[0]].shape
    _, top_idx = draws(seed, samples, n_sys, n_top, "topics")
    w = counts(top_idx, n_top).astype(float)                              # (B, T)
    boot = np.full((samples, M, C), np.nan)
    if not pooled_level:
        r = within_topic(metrics, human, combinations)[0] if per_topic is None else per_topic[0]   # (T, M, C)
        defined = ~np.isnan(r)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = np.tensordot(w, np.where(defined, r, 0.0), axes=(1, 0))
            boot = total / np.tensordot(w, defined.astype(float), axes=(1, 0))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)                # a metric undefined on every topic
            point = np.nanmean(np.where(defined, r, np.nan), axis=0) if n_top else nan
    else:
        def compute(rows: list[int]) -> dict[str, np.ndarray]:
            point, boot = np.full((len(rows), C), np.nan), np.full((samples, len(rows), C), np.nan)
            for k, i in enumerate(rows):
                for j, c in enumerate(combinations):
                    ok = ~np.isnan(metrics[names[i]]) & ~np.isnan(human[c])
                    point[k, j] = point_correlations(metrics[names[i]][ok], human[c][ok])[0]
                    if not np.isnan(point[k, j]):
                        boot[:, k, j] = pooled_samples(metrics[names[i]], human[c], w)
            return {"point": point, "boot": boot}

        # each metric's samples are its own (the draws are the seed's): the job's memo keeps them
        keys = [memo.digest(name, metrics[name]) for name in names]
        context = (tuple(combinations), [human[c] for c in combinations], samples, seed)
        out = memo.rows("pooled_summary_level", context, keys, compute, {"boot": 1})
        point, boot = out["point"], out["boot"]
    return point, boot


def pooled_samples(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson's r (B,) of the grids x and y (S, T) over the cells where both are defined, topic t's
    cells counted w[b, t] times (w (B, T): the topic draws of B samples), by the rule of
    :func:`metaeval.stats.core.pearson` (NaN with fewer than 3 items, the counts summed, or a side
    constant over the drawn cells), from each topic's count, sums, sums of squares and of products:
    a sample costs O(T), not O(cells). The values are first brought to ordinary magnitude by a power
    of two where extreme (:func:`metaeval.stats.stable.binary_scale`: exact) and centred at their
    means over every defined cell, so the sums of squares of a sample lose no digits to its mean. A
    side is constant in a sample only if every drawn topic's values are equal (counted with the
    sums), and then if the drawn topics' values are one."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    topic = np.nonzero(ok)[1]
    T = x.shape[1]
    xv, _ = binary_scale(x[ok])
    yv, _ = binary_scale(y[ok])
    xc, yc = xv - xv.mean(), yv - yv.mean()
    bounds = []
    for v in (xv, yv):
        lo, hi = np.full(T, np.inf), np.full(T, -np.inf)
        np.minimum.at(lo, topic, v)
        np.maximum.at(hi, topic, v)
        bounds.append((lo, hi))
    sums = np.stack([*(np.bincount(topic, weights=v, minlength=T)
                       for v in (np.ones_like(xc), xc, yc, xc * xc, yc * yc, xc * yc)),
                     *((lo < hi).astype(float) for lo, hi in bounds)], axis=1)            # (T, 8)
    n, sx, sy, sxx, syy, sxy, mixed_x, mixed_y = (w @ sums).T
    constant = []
    for (lo, hi), mixed in zip(bounds, (mixed_x, mixed_y)):
        flat = np.zeros(w.shape[0], dtype=bool)
        maybe = np.flatnonzero(mixed == 0)              # every drawn topic's values equal: one value?
        if maybe.size:
            drawn = w[maybe] > 0
            flat[maybe] = np.where(drawn, lo, np.inf).min(axis=1) == np.where(drawn, hi, -np.inf).max(axis=1)
        constant.append(flat)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip((sxy - sx * sy / n) / np.sqrt((sxx - sx * sx / n) * (syy - sy * sy / n)), -1.0, 1.0)
    return np.where((n < 3) | constant[0] | constant[1], np.nan, r)


def intervals_and_p_vs_best(point: np.ndarray, boot: np.ndarray, confidence: float
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, p_vs_best), each (M, C), from the point values (M, C) and bootstrap samples (B, M, C)
    of :func:`summary_level_samples`: the percentile interval at ``confidence`` and the paired
    bootstrap p-value against each combination's best metric (NaN for the best itself and where r
    is undefined)."""
    M, C = point.shape
    if not boot.shape[0] or not M or not C:
        return np.full((M, C), np.nan), np.full((M, C), np.nan), np.full((M, C), np.nan)
    with np.errstate(invalid="ignore"):
        lo, hi = percentile_interval(boot, confidence)
    undefined = np.isnan(point)
    lo[undefined], hi[undefined] = np.nan, np.nan
    p = np.full((M, C), np.nan)
    for j in range(C):
        if undefined[:, j].all():
            continue
        best = int(np.nanargmax(point[:, j]))
        p[:, j] = paired_bootstrap_p(boot[:, best, j][:, None], boot[:, :, j])
        p[best, j] = np.nan
        p[undefined[:, j], j] = np.nan
    return lo, hi, p


def paired_bootstrap_matrix(boot: np.ndarray, block: int = 32) -> np.ndarray:
    """p[u, v], (M, M), from the bootstrap samples (B, M) of M metrics' r drawn together (the same
    topics for every metric): the one-sided paired bootstrap p-value that metric u does *not*
    correlate better than metric v (Koehn 2004, §4; :func:`metaeval.stats.core.paired_bootstrap_p`
    for every ordered pair), so ``p[u, v] < alpha`` is "u significantly better than v", as a
    Williams matrix reads. The row of a combination's best metric is its ``p_vs_best`` column. NaN
    on the diagonal and where a metric has no defined sample. Rows are computed ``block`` at a time
    (memory B x block x M)."""
    B, M = boot.shape
    p = np.full((M, M), np.nan)
    for start in range(0, M, block):
        rows = slice(start, min(start + block, M))
        p[rows] = paired_bootstrap_p(boot[:, rows, None], boot[:, None, :])
    np.fill_diagonal(p, np.nan)
    return p
