"""Replicability analysis across data sets (Dror, Baumer, Bogomolov & Reichart 2017, "Replicability
Analysis for Natural Language Processing: Testing Significance with Multiple Datasets", TACL;
partial conjunction testing of Benjamini & Heller 2008).

Given the p-values p_1..p_N of one hypothesis ("metric A correlates better than metric B") on N
data sets, the partial conjunction null "fewer than u of the N nulls are false" has the p-value

* Bonferroni (valid under any dependence): p^u = (N - u + 1) * p_(u), where p_(1) <= ... <= p_(N);
* Fisher (independent data sets): p^u = P(chi2 with 2(N - u + 1) degrees of freedom >= -2 sum_{i=u}^N
  ln p_(i)), the combination of the N - u + 1 largest p-values.

p^u is made non-decreasing in u (p^u = max_{v <= u} p^v), and the estimated number of data sets
on which the effect holds is k_hat = #{u : p^u <= alpha}; the data sets named are those of the
k_hat smallest p-values (Holm's rejections). This is the authors' own procedure
(rtmdrr/replicability-analysis-NLP, ``find_k_estimator``, ``calc_partial_cunjunction``, ``Holm``) and
SacreROUGE's ``partial-conjunction-test`` (Bonferroni). A p-value of 0 (Fisher) counts as the
smallest positive double.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

METHODS = ("bonferroni", "fisher")


def partial_conjunction(pvalues: Sequence[float], method: str = "bonferroni") -> np.ndarray:
    """p^u for u = 1..N (non-decreasing), from N p-values (NaN not allowed: leave such data sets out)."""
    if method not in METHODS:
        raise ValueError(f"unknown partial conjunction method {method!r}; expected one of {METHODS}")
    p = np.sort(np.asarray(pvalues, dtype=np.float64))
    n = len(p)
    if n == 0:
        return np.zeros(0)
    if np.isnan(p).any():
        raise ValueError("partial conjunction needs a p-value for every data set (NaN given)")
    u = np.arange(1, n + 1)
    if method == "bonferroni":
        pc = np.minimum(1.0, (n - u + 1) * p)
    else:
        from scipy.stats import chi2

        logs = -2.0 * np.log(np.maximum(p, np.finfo(np.float64).tiny))
        tail = np.cumsum(logs[::-1])[::-1]                 # sum over p_(u)..p_(N)
        pc = chi2.sf(tail, 2 * (n - u + 1))
    return np.maximum.accumulate(pc)


class Replication(NamedTuple):
    k_hat: int                  # estimated number of data sets where the effect holds
    holds_on: tuple[int, ...]   # indices of those data sets (the k_hat smallest p-values)
    pc: np.ndarray              # partial conjunction p-values p^1..p^N


def replicability(pvalues: Sequence[float], alpha: float = 0.05, method: str = "bonferroni") -> Replication:
    """k_hat and the data sets it names (see the module docstring)."""
    pc = partial_conjunction(pvalues, method)
    k = int(np.sum(pc <= alpha))
    order = np.argsort(np.asarray(pvalues, dtype=np.float64), kind="stable")
    return Replication(k, tuple(sorted(int(i) for i in order[:k])), pc)
