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
(the pooled summary level; AUC of binary labels), within each subset across its validation and test
summaries (the balanced accuracy's mean over the subsets: each subset's threshold chosen on its
validation summaries, applied to its test summaries), within each system (the partial correlation
controlling for the system: its null keeps the systems' means), within each preference pair (ranking
accuracy: the two summaries' scores swapped or not).

Draw k of :func:`within_group_draws` (``numpy.random.default_rng(seed)``): ``keys = rng.random(n)``;
within each group, its positions in ascending order receive the group's values ordered by their keys
(ties of keys, of probability 0, in position order).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterator, NamedTuple

import numpy as np

from .binary import balanced_accuracy, best_threshold
from .ranking import outcomes


class Floor(NamedTuple):
    mean: float
    lo: float
    hi: float
    permutations: int        # the draws where the statistic was defined


NAN_FLOOR = Floor(np.nan, np.nan, np.nan, 0)
BLOCK = 100                  # draws per block: a block of index arrays is (BLOCK, n)


def within_group_draws(groups: np.ndarray, permutations: int, seed: int) -> Iterator[np.ndarray]:
    """``permutations`` index arrays ``idx`` in blocks of rows (module docstring; ``rng.random((b,
    n))`` is b successive draws of n keys), ``x[idx]`` being ``x`` permuted within each group of
    ``groups`` (integer codes, one per position). The blocks of the last two groupings are kept
    (read-only): a data set's targets mostly share one ground, so their floors share the draws."""
    groups = np.ascontiguousarray(groups, dtype=np.int64)
    yield from _draw_blocks(groups.tobytes(), permutations, seed)


@lru_cache(maxsize=2)
def _draw_blocks(groups_key: bytes, permutations: int, seed: int) -> tuple[np.ndarray, ...]:
    groups = np.frombuffer(groups_key, dtype=np.int64)
    n = groups.size
    rng = np.random.default_rng(seed)
    by_group = np.argsort(groups, kind="stable")        # each group's positions, ascending
    blocks = []
    for start in range(0, permutations, BLOCK):
        b = min(BLOCK, permutations - start)
        keys = rng.random((b, n))
        order = np.lexsort((np.broadcast_to(np.arange(n), (b, n)), keys, np.broadcast_to(groups, (b, n))), axis=-1)
        idx = np.empty((b, n), dtype=np.int32 if n < 2 ** 31 else np.int64)
        idx[:, by_group] = order
        idx.flags.writeable = False
        blocks.append(idx)
    return tuple(blocks)


def permutation_floor(statistic: Callable[[np.ndarray], np.ndarray], x: np.ndarray, groups: np.ndarray | None,
                      permutations: int, seed: int, confidence: float) -> Floor:
    """The mean and the central ``confidence`` range (numpy's linear quantiles) of ``statistic`` (of
    a (draws, n) block of permuted scores, one value per draw) of ``x`` permuted within ``groups``
    (None: one group), over the draws where it is defined."""
    x = np.asarray(x, dtype=float)
    if permutations < 1 or x.size == 0:
        return NAN_FLOOR
    codes = np.zeros(x.size, dtype=np.int64) if groups is None else np.unique(groups, return_inverse=True)[1]
    values = np.concatenate([np.asarray(statistic(x[idx]), dtype=float).reshape(-1)
                             for idx in within_group_draws(codes, permutations, seed)])
    values = values[np.isfinite(values)]
    if not values.size:
        return NAN_FLOOR
    lo, hi = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Floor(float(values.mean()), float(lo), float(hi), int(values.size))


# ------------------------------------------------------------------ the columns' statistics, per draw (rows)

def mean_within_group_pearson(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per row of ``x`` (draws, n): the mean over the groups (topics) of Pearson r within each
    against ``y``, over the groups where it is defined (3 or more values, neither side constant): the
    summary level of Graham's table and mt-metrics-eval's ``average_by='item'``. Vectorised (sums by
    group, ``numpy.add.reduceat``)."""
    x = np.atleast_2d(x)
    order = np.argsort(groups, kind="stable")
    g, xs, ys = groups[order], x[:, order], y[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, g.size])

    def centred(v: np.ndarray) -> np.ndarray:
        return v - np.repeat(np.add.reduceat(v, starts, axis=-1) / counts, counts, axis=-1)

    dx, dy = centred(xs), centred(ys)
    varying = ((np.maximum.reduceat(xs, starts, axis=-1) > np.minimum.reduceat(xs, starts, axis=-1)) &
               (np.maximum.reduceat(ys, starts) > np.minimum.reduceat(ys, starts)) & (counts >= 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.add.reduceat(dx * dy, starts, axis=-1) / np.sqrt(np.add.reduceat(dx * dx, starts, axis=-1) *
                                                                np.add.reduceat(dy * dy, starts))
    r = np.where(varying, r, 0.0)
    defined = varying.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined > 0, r.sum(axis=-1) / defined, np.nan)


def per_row(statistic: Callable[[np.ndarray], float]) -> Callable[[np.ndarray], np.ndarray]:
    """A statistic of one vector of scores applied to every row of a block of draws."""
    return lambda block: np.array([statistic(row) for row in block], dtype=float)


def ranking_accuracy_of(x: np.ndarray, pairs: int) -> float:
    """Ranking accuracy of the scores ``x`` = (the preferred summaries' ``pairs`` scores, then the
    others'): the share of the pairs where the preferred scores higher (ties are not correct;
    :func:`metaeval.stats.ranking.ranking_accuracy`)."""
    o = outcomes(x[:pairs], x[pairs:])
    o = o[np.isfinite(o)]
    return float((o > 0).sum() / o.size) if o.size else np.nan


def mean_held_out_balanced_accuracy(labels: np.ndarray, validation: np.ndarray, test: np.ndarray,
                                    groups: np.ndarray) -> Callable[[np.ndarray], float]:
    """The statistic of the leaderboard's balanced-accuracy column (SummEdits' overall score, Laban et
    al. 2023), as a function of one vector of scores aligned with ``labels`` (1 consistent, 0 not):
    in each group (subset), the balanced accuracy on its ``test`` summaries at the threshold that
    maximises it on its ``validation`` summaries (:func:`metaeval.stats.binary.best_threshold`,
    :func:`~metaeval.stats.binary.balanced_accuracy`), then the mean over the groups; NaN where a
    group's is undefined (as the factuality stage's mean over the subsets)."""
    labels = np.asarray(labels, dtype=float)
    parts = [(np.flatnonzero(validation & (groups == g)), np.flatnonzero(test & (groups == g)))
             for g in np.unique(groups)]

    def statistic(x: np.ndarray) -> float:
        values = []
        for v, t in parts:
            threshold, _ = best_threshold(x[v], labels[v])
            values.append(balanced_accuracy(x[t], labels[t], threshold) if np.isfinite(threshold) else np.nan)
        return float(np.mean(values)) if values and np.isfinite(values).all() else np.nan

    return statistic
