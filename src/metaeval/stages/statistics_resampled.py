"""The statistics stage's resampled statistics of the tested variants, each variant's (and each
pair's) its own: the bootstrap and null baseline of a level's correlation (:func:`resampled`) and
the permutation tests between variants (:func:`pair_tests`), for one human combination
(:class:`Combination`). The draws depend on the seed and the grid's shape alone, never on the other
variants, so the job's memo (:mod:`metaeval.memo`) keeps each variant's rows and a re-run computes
only those of a variant that joined.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

import numpy as np

from .. import memo
from ..records import StatisticsOptions
from ..stats.bootstrap import PerSummary, variant_scores
from ..stats.levels import COEFFICIENT, statistic, weighted_means
from ..stats.resampling import bootstrap, null_distribution, permutation_test
from ..variants import Variant
from .analysis_inputs import AnalysisInputs


def nan(shape) -> np.ndarray:
    return np.full(shape, np.nan)


@dataclass(frozen=True)
class SystemScores:
    """A system-level coefficient of the variants' own system scores (``scores`` (V, S)) with the
    human system means, as a statistic f(x, z, sys_w, top_w) for :mod:`metaeval.stats.resampling`.
    x (the per-summary grids) only gives the shapes; with resampled inputs the variant scores are
    recomputed from the drawn inputs (means, medians, corpus BLEU), as the correlation stage's
    bootstrap does. ``coefficient``: a name or f(x, y, w)."""

    coefficient: str | Callable
    ps: PerSummary = field(repr=False)
    variants: tuple[Variant, ...]
    scores: np.ndarray = field(repr=False)
    # resampled scores by draw counts: every bootstrap of a combination draws the same inputs (one
    # seed), and recomputing medians and corpus BLEU is most of their cost
    cache: dict = field(default_factory=dict, repr=False, compare=False)
    level = "system"

    def __call__(self, x, z, sys_w=None, top_w=None):
        f = self.coefficient if callable(self.coefficient) else COEFFICIENT[self.coefficient]
        if top_w is None:
            m = self.scores
        else:
            top_w = np.asarray(top_w)
            key = (top_w.shape, top_w.tobytes())
            if key not in self.cache:
                c = top_w.reshape(-1, top_w.shape[-1])
                self.cache[key] = np.moveaxis(variant_scores(self.ps, self.variants, c), 2, 1).reshape(
                    *top_w.shape[:-2], -1, self.scores.shape[1])
            m = self.cache[key]
        return f(m, weighted_means(np.asarray(z, dtype=float), top_w), sys_w)


@dataclass(eq=False)
class Combination:
    """One combination's inputs to the statistics: the tested variants' grids (K, S, T), the human
    grid (S, T), the variants' system scores (K, S), and the statistic of a level and coefficient."""

    variants: tuple[Variant, ...]
    grids: np.ndarray
    z: np.ndarray
    scores: np.ndarray
    ps: PerSummary
    # what each variant's statistics depend on, for the memo: at the system level its id, scores
    # and corpus statistics; at the others its per-summary grid alone (a mean and a median variant
    # of one metric are one row there)
    keys: list[str]
    grid_keys: list[str]
    cache: dict = field(default_factory=dict)     # SystemScores' resampled scores
    parts: dict[tuple[int, ...], "Combination"] = field(default_factory=dict)     # take()'s

    @classmethod
    def of(cls, inp: AnalysisInputs, tested: Sequence[int], comb: str) -> "Combination":
        """The ``tested`` variants of the analysis inputs with the human combination ``comb``."""
        variants = tuple(inp.variants[v] for v in tested)
        ps = inp.per_summary
        grids = np.stack([ps.metrics[v.summary_metric] for v in variants]) \
            if tested else np.zeros((0, len(inp.summarizers), len(ps.topics)))
        scores = inp.system_metric[:, list(tested)].T
        keys = [memo.digest(str(v), grids[k], scores[k], ps.corpus_stats.get(str(v))) for k, v in enumerate(variants)]
        return cls(variants, grids, ps.human[comb], scores, ps, keys, [memo.digest(g) for g in grids])

    def take(self, rows: Sequence[int]) -> "Combination":
        """The same combination for the variants at ``rows`` alone (itself for all of them). The
        same rows give the same part, so the statistics of one combination share its resampled
        scores (:class:`SystemScores`' cache) as they share the draws."""
        rows = tuple(rows)
        if rows == tuple(range(len(self.variants))):
            return self
        if rows not in self.parts:
            self.parts[rows] = replace(self, variants=tuple(self.variants[k] for k in rows),
                                       grids=self.grids[list(rows)], scores=self.scores[list(rows)],
                                       keys=[self.keys[k] for k in rows],
                                       grid_keys=[self.grid_keys[k] for k in rows], cache={}, parts={})
        return self.parts[rows]

    def permutation_grids(self, level: str, method: str) -> tuple[np.ndarray, np.ndarray]:
        """What the permutation tests swap: with whole systems swapped at the system level, the
        variants' own system scores (as one-input grids, so the tested difference is the one of the
        tables); otherwise the per-summary grids."""
        if level == "system" and method == "systems":
            return self.scores[:, :, None], weighted_means(self.z)[:, None]
        return self.grids, self.z

    def row_keys(self, x: np.ndarray) -> list[str]:
        """The memo's keys of the rows of x: the grids' (:meth:`permutation_grids` may give them) or
        the variants' own."""
        return self.grid_keys if x is self.grids else self.keys

    def statistic(self, level: str, coefficient):
        if level == "system":
            return SystemScores(coefficient, self.ps, self.variants, self.scores, self.cache)
        return statistic(level, coefficient)


def resampled(d: Combination, level: str, coefficient, label: str, o: StatisticsOptions) -> tuple[np.ndarray, ...]:
    """(bootstrap lo, hi, null 95th and 99th percentiles, null p, bootstrap samples (B, K)) of the
    statistic of a level and coefficient (``label`` names it); NaN for what the sample counts switch
    off. Each variant's are its own (the draws do not depend on the others), so the memo keeps them."""

    def compute(rows: list[int]) -> dict[str, np.ndarray]:
        part = d.take(rows)
        stat = part.statistic(level, coefficient)
        lo = hi = q95 = q99 = p = drawn = nan(len(rows))
        if o.bootstrap_samples > 0:
            b = bootstrap(part.grids, part.z, stat, o.resample, o.bootstrap_samples, o.seed, o.confidence)
            lo, hi, drawn = b.lo, b.hi, b.samples
        if o.null_samples > 0:
            null = null_distribution(part.grids, part.z, stat, o.null_samples, o.seed, (0.95, 0.99))
            q95, q99, p = null.quantiles[0], null.quantiles[1], null.p
        return {"lo": lo, "hi": hi, "q95": q95, "q99": q99, "p": p, "drawn": drawn}

    context = ("statistics", level, label, d.z, o.resample, o.bootstrap_samples, o.seed, o.confidence,
               o.null_samples)
    keys = d.keys if level == "system" else d.grid_keys
    out = memo.rows("resampled", context, keys, compute, {"drawn": 1 if o.bootstrap_samples > 0 else 0})
    return out["lo"], out["hi"], out["q95"], out["q99"], out["p"], out["drawn"]


def pair_tests(d: Combination, pairs: list[tuple[int, int]], x: np.ndarray, z: np.ndarray, stat, label: str,
               o: StatisticsOptions) -> dict[str, np.ndarray]:
    """The permutation tests (:func:`metaeval.stats.resampling.permutation_test`) of ``pairs`` of
    the tested variants (rows of x): delta, greater, less, two_sided per pair. Every pair is swapped
    by the same seeded masks, so a pair's result is its own and the memo keeps it."""

    def compute(rows: list[int]) -> dict[str, np.ndarray]:
        res = permutation_test(x, z, [pairs[r] for r in rows], stat, o.permutation, o.permutation_samples, o.seed)
        return {"delta": res.delta, "greater": res.greater, "less": res.less, "two_sided": res.two_sided}

    rows = d.row_keys(x)
    keys = [memo.digest(rows[a], rows[b]) for a, b in pairs]
    context = ("statistics", label, z, o.permutation, o.permutation_samples, o.seed)
    return memo.rows("permutation", context, keys, compute)
