"""Ranking accuracy on preference pairs (Falke et al. 2019, Rank19): how often a metric scores the
preferred (factually correct) summary of a pair above the other one.

* accuracy = correct / pairs, a tie (equal scores) counting as not correct; ties are also reported
  on their own, with ``accuracy_ties_half`` = (correct + ties / 2) / pairs;
* its interval: Clopper-Pearson (exact binomial) at the given confidence, as
  ``scipy.stats.binomtest(correct, pairs).proportion_ci(method="exact")``;
* two metrics on the same pairs: the exact McNemar test (a two-sided binomial sign test, p = 0.5,
  on the discordant pairs: a correct where b is not, b correct where a is not; ties count as not
  correct), as statsmodels' ``mcnemar(exact=True)``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np


class Ranking(NamedTuple):
    pairs: int
    correct: int
    ties: int
    incorrect: int
    accuracy: float
    lo: float
    hi: float
    accuracy_ties_half: float


def outcomes(preferred, other) -> np.ndarray:
    """Per pair: 1 the preferred summary scores higher, 0 tie, -1 lower; NaN where a score is missing."""
    p, o = np.asarray(preferred, dtype=float), np.asarray(other, dtype=float)
    out = np.sign(p - o)
    out[~(np.isfinite(p) & np.isfinite(o))] = np.nan
    return out


def ranking_accuracy(preferred, other, confidence: float = 0.95) -> Ranking:
    """Ranking accuracy with its Clopper-Pearson interval (module docstring), over the pairs both scores define."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    o = outcomes(preferred, other)
    o = o[np.isfinite(o)]
    n, c, t = o.size, int((o > 0).sum()), int((o == 0).sum())
    if n == 0:
        return Ranking(0, 0, 0, 0, np.nan, np.nan, np.nan, np.nan)
    ci = stats.binomtest(c, n).proportion_ci(confidence_level=confidence, method="exact")
    return Ranking(n, c, t, n - c - t, c / n, float(ci.low), float(ci.high), (c + t / 2) / n)


class McNemar(NamedTuple):
    pairs: int
    a_only: int       # pairs a ranks correctly and b does not
    b_only: int
    p: float          # two-sided exact


def mcnemar_exact(a_preferred, a_other, b_preferred, b_other) -> McNemar:
    """The exact McNemar test between two metrics' correctness on the same pairs (module docstring)."""
    oa, ob = outcomes(a_preferred, a_other), outcomes(b_preferred, b_other)
    ok = np.isfinite(oa) & np.isfinite(ob)
    ca, cb = oa[ok] > 0, ob[ok] > 0
    x, y = int((ca & ~cb).sum()), int((cb & ~ca).sum())
    return McNemar(int(ok.sum()), x, y, _two_sided_binomial(x, x + y))


@lru_cache(maxsize=None)
def _two_sided_binomial(k: int, n: int) -> float:
    """scipy's exact two-sided binomial p of k successes in n trials at 1/2 (1 when n = 0); many
    pairs of metrics share their discordant counts, so each count is tested once."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    return 1.0 if n == 0 else float(stats.binomtest(k, n, 0.5).pvalue)
