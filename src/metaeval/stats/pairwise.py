"""Pairwise significance of systems under one metric (Graham 2015 §5, Figure 4), and ranks.

* Ranks: 1 = best, ties share the lower rank (competition ranking).
* Pairwise significance: Shapiro-Wilk on each system's per-summary scores;
  a paired t-test where the variant is mean-based (``_A_``) and neither system's scores are shown
  non-normal (p >= alpha), else a Wilcoxon signed-rank test (median-based variants, BLEU, or
  normality rejected); both two-sided over the topics the two systems share. The table names the
  test used for each pair. The top group: systems that no other system significantly beats.
"""

from __future__ import annotations

import math

import warnings
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import core
from .stable import binary_scale
from .verdicts import wilcoxon_pvalues


def ranks(scores: np.ndarray) -> np.ndarray:
    """1 = highest score; ties share the lower rank (competition ranking, :func:`metaeval.stats.core.ranks`)."""
    return core.ranks(-np.asarray(scores, dtype=float), method="min").astype(int)


@dataclass
class PairTest:
    a: str
    b: str
    test: str
    p: float
    n_topics: int
    winner: str   # a, b, or '' (no significant difference)


def normality(per_summary: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Shapiro-Wilk p per system (rows of ``per_summary``, NaN = no summary); normal = not rejected."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    p = np.full(per_summary.shape[0], np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, row in enumerate(per_summary):
            x = row[~np.isnan(row)]
            if len(x) >= 3 and np.ptp(x) > 0:
                p[i] = stats.shapiro(x).pvalue
    return p, ~(p < alpha)


def wilcoxon_or_t(per_summary: np.ndarray, pairs: Sequence[tuple[int, int]], normal: np.ndarray) -> list[float]:
    """The two-sided p of every pair (i, j) of rows of ``per_summary`` over the topics both have: 1
    with fewer than 2 such topics or no difference; scipy's paired t-test when both rows are
    ``normal``; else scipy's Wilcoxon signed-rank test (``wilcoxon(d)``), the pairs with the same
    number of topics in one vectorised call (:func:`metaeval.stats.verdicts.wilcoxon_pvalues`: each
    row's p as scipy gives it for that row alone; one call per pair cost about 1 ms each)."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    p = [1.0] * len(pairs)
    wilcoxon_rows: dict[int, list[tuple[int, np.ndarray]]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, (i, j) in enumerate(pairs):
            ok = ~np.isnan(per_summary[i]) & ~np.isnan(per_summary[j])
            d = per_summary[i, ok] - per_summary[j, ok]
            if len(d) < 2 or not np.any(d != 0):
                continue
            if normal[i] and normal[j]:
                p[k] = float(stats.ttest_rel(per_summary[i, ok], per_summary[j, ok]).pvalue)
            else:
                wilcoxon_rows.setdefault(len(d), []).append((k, d))
        for rows in wilcoxon_rows.values():
            for (k, _), pk in zip(rows, wilcoxon_pvalues(np.array([d for _, d in rows]))):
                p[k] = float(pk)
    return p


def pairwise_tests(systems: Sequence[str], per_summary: np.ndarray, mean_based: bool, alpha: float
                   ) -> tuple[list[PairTest], np.ndarray]:
    """Every unordered pair of systems under the best variant; returns the tests and
    ``beats[i, j]`` = system i significantly better than system j. Scores of extreme magnitude are
    first scaled, all by one power of two (exact; every test here is scale-free), so differences
    and variances cannot overflow (:func:`metaeval.stats.stable.binary_scale`)."""
    flat, e = binary_scale(per_summary.reshape(1, -1))
    if e.any():
        per_summary = flat.reshape(per_summary.shape)
    _, normal = normality(per_summary, alpha)
    beats = np.zeros((len(systems), len(systems)), dtype=bool)
    pairs = [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]
    ps = wilcoxon_or_t(per_summary, pairs, normal if mean_based else np.zeros(len(systems), dtype=bool))
    out = []
    for (i, j), p in zip(pairs, ps):
        ok = ~np.isnan(per_summary[i]) & ~np.isnan(per_summary[j])
        d = per_summary[i, ok] - per_summary[j, ok]
        use_t = mean_based and normal[i] and normal[j]
        # two systems that share no topic (FRANK's CNN/DM and XSum systems) have no difference to test
        centre = (math.nan if len(d) == 0 else d.mean() if use_t
                  else (np.median(d) if np.median(d) != 0 else d.mean()))
        winner = ""
        if p < alpha and centre != 0:
            winner = systems[i] if centre > 0 else systems[j]
            if centre > 0:
                beats[i, j] = True
            else:
                beats[j, i] = True
        out.append(PairTest(systems[i], systems[j], "paired t-test" if use_t else "Wilcoxon signed-rank",
                            p, int(ok.sum()), winner))
    return out, beats


def top_group(systems: Sequence[str], beats: np.ndarray) -> list[str]:
    """The systems that no other system significantly beats."""
    return [s for k, s in enumerate(systems) if not beats[:, k].any()]
