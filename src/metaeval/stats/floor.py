"""The random floor of a leaderboard column: the value a metric with random scores gets under the
column's own statistic and resampling unit, as the mean and central range of that statistic over
seeded permutations of one metric's scores (a permutation test's null distribution, Fisher 1935;
the question mt-metrics-eval's users ask of every statistic: what does a random metric score?).

The scores permuted are those of the metric the data set's table ranks first in the column (its best
metric): the floor is then the null distribution of the very values the column's best is read
against. A rank statistic's floor depends on the metric only through its ties (AUC, ranking
accuracy); Pearson's depends on the shape of its scores too, which is why one metric is named.

The unit within which scores are permuted is the column's: across systems (system-level r), within
each topic across its summaries (the summary level, mean over topics), across all judged summaries
(the pooled summary level; AUC of binary labels), within each system (the partial correlation
controlling for the system: its null keeps the systems' means), within each preference pair (ranking
accuracy: the two summaries' scores swapped or not).

Draw k of :func:`within_group_draws` (``numpy.random.default_rng(seed)``): ``keys = rng.random(n)``;
within each group, its positions in ascending order receive the group's values ordered by their keys
(ties of keys, of probability 0, in position order).
"""

from __future__ import annotations

from typing import Callable, Iterator, NamedTuple

import numpy as np

from .ranking import outcomes


class Floor(NamedTuple):
    mean: float
    lo: float
    hi: float
    permutations: int        # the draws where the statistic was defined


NAN_FLOOR = Floor(np.nan, np.nan, np.nan, 0)


def within_group_draws(groups: np.ndarray, permutations: int, seed: int) -> Iterator[np.ndarray]:
    """``permutations`` index arrays ``idx`` (module docstring), ``x[idx]`` being ``x`` permuted
    within each group of ``groups`` (integer codes, one per position)."""
    groups = np.asarray(groups)
    rng = np.random.default_rng(seed)
    by_group = np.argsort(groups, kind="stable")        # each group's positions, ascending
    for _ in range(permutations):
        keys = rng.random(groups.size)
        idx = np.empty(groups.size, dtype=np.int64)
        idx[by_group] = np.lexsort((np.arange(groups.size), keys, groups))
        yield idx


def permutation_floor(statistic: Callable[[np.ndarray], float], x: np.ndarray, groups: np.ndarray | None,
                      permutations: int, seed: int, confidence: float) -> Floor:
    """The mean and the central ``confidence`` range (numpy's linear quantiles) of ``statistic`` of
    ``x`` permuted within ``groups`` (None: one group), over the draws where it is defined."""
    x = np.asarray(x, dtype=float)
    if permutations < 1 or x.size == 0:
        return NAN_FLOOR
    codes = np.zeros(x.size, dtype=np.int64) if groups is None else np.unique(groups, return_inverse=True)[1]
    values = np.array([statistic(x[idx]) for idx in within_group_draws(codes, permutations, seed)], dtype=float)
    values = values[np.isfinite(values)]
    if not values.size:
        return NAN_FLOOR
    lo, hi = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Floor(float(values.mean()), float(lo), float(hi), int(values.size))


# ------------------------------------------------------------------ the columns' statistics

def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two vectors; NaN when either is constant or there are fewer than 3 values."""
    if x.size < 3:
        return np.nan
    dx, dy = x - x.mean(), y - y.mean()
    den = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float((dx * dy).sum() / den) if den > 0 else np.nan


def mean_within_group_pearson(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """The mean over the groups (topics) of Pearson r within each, over the groups where it is defined
    (3 or more values, neither constant): the summary level of Graham's table and mt-metrics-eval's
    ``average_by='item'``. Vectorised over the groups (sums by group, ``numpy.add.reduceat``)."""
    order = np.argsort(groups, kind="stable")
    g, xs, ys = groups[order], x[order], y[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, g.size])

    def centred(v: np.ndarray) -> np.ndarray:
        return v - np.repeat(np.add.reduceat(v, starts) / counts, counts)

    dx, dy = centred(xs), centred(ys)
    varying = ((np.maximum.reduceat(xs, starts) > np.minimum.reduceat(xs, starts)) &
               (np.maximum.reduceat(ys, starts) > np.minimum.reduceat(ys, starts)) & (counts >= 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.add.reduceat(dx * dy, starts) / np.sqrt(np.add.reduceat(dx * dx, starts) * np.add.reduceat(dy * dy, starts))
    r = r[varying]
    return float(r.mean()) if r.size else np.nan


def ranking_accuracy_of(x: np.ndarray, pairs: int) -> float:
    """Ranking accuracy of the scores ``x`` = (the preferred summaries' ``pairs`` scores, then the
    others'): the share of the pairs where the preferred scores higher (ties are not correct;
    :func:`metaeval.stats.ranking.ranking_accuracy`)."""
    o = outcomes(x[:pairs], x[pairs:])
    o = o[np.isfinite(o)]
    return float((o > 0).sum() / o.size) if o.size else np.nan
