"""Soft pairwise accuracy (Thompson, Mathur, Deutsch & Freitag 2024, "Improving Statistical
Significance in Human Evaluation of Automatic Metrics via Soft Pairwise Accuracy", WMT), exactly as
mt-metrics-eval computes it (``pce.py``'s ``compute_pairwise_p_values`` and
``compute_one_minus_pce``, called by ``stats.PairwiseConfidenceError``).

* For every pair of systems i < j, the p-value of a paired permutation test that system i is better
  than system j: each of ``permutations`` permutations swaps the two systems' scores of every item
  with probability 1/2; p = count(null delta >= observed delta) / permutations, the delta being the
  difference of the systems' summed item scores. One set of random swaps serves every pair (pce.py).
* The swaps are pce.py's: ``numpy.random.default_rng(seed)`` (seed 4 by default), a
  (permutations x items) float32 matrix of ``rng.random``, rounded to 0/1 and mapped to -1/+1; the
  scores are cast to float32 and every sum and difference is float32, as pce.py's, so the p-values
  are pce.py's to the bit (the ``>=`` comparisons see the same float32 numbers).
* SPA = 1 - mean over the pairs of |p_human - p_metric| (``compute_one_minus_pce``).
* Order matters for the random stream: systems are the rows in the caller's order (sorted by name),
  items the columns sorted as :func:`item_order` (numerically when every id is an integer).
* Missing scores (:func:`pack`): mt-metrics-eval's ``filter_nones`` drops the (system, item)
  entries whose human score is None, then reshapes each system's remaining entries into a row; we
  drop the entries where the human or the metric score is missing (mt-metrics-eval accepts no
  missing metric score) and pack the rows the same way, so each row holds its system's remaining
  items in item order. Where the systems keep different numbers of items, pce.py cannot reshape
  (it raises); we then keep the items every system has, and say so.
* The bootstrap interval (:func:`bootstrap_spa`, ours: mt-metrics-eval has none) resamples the
  packed matrix's columns (items) with replacement (``numpy.random.default_rng(bootstrap_seed)``),
  recomputes each sample's SPA as above on the drawn columns (the same swaps; the float32 products
  of all scorers at once, :func:`pairwise_p_values`'s ``exact=False``), and takes the percentile
  interval.

Vectorised: every scorer's (metric or human) rows are multiplied with the swaps (pce.py's
``signs @ scores.T`` for each scorer; in the bootstrap one product of all of them side by side, see
:func:`pairwise_p_values`), and the pairs of every scorer are counted by one
compiled loop (:func:`metaeval.stats.kernels.pair_exceedances`, the same float32 differences and
comparisons); no Python loop over pairs or permutations.
"""

from __future__ import annotations

import re
from typing import Sequence

import numpy as np

from . import kernels
from .core import percentile_interval

PCE_SEED = 4                  # pce.compute_pairwise_p_values' default seed
PCE_PERMUTATIONS = 1000       # stats.PairwiseConfidenceError's default num_permutations
INTEGER = re.compile(r"[+-]?[0-9]+")


def item_order(items: Sequence[str]) -> list[int]:
    """The positions of ``items`` in the order the permutations see them: sorted numerically when
    every id is an integer (REALSumm's topics 0..99, as the peers' README orders them), else as
    strings (Python's ``sorted``)."""
    ids = [str(t) for t in items]
    if ids and all(INTEGER.fullmatch(t) for t in ids):
        return sorted(range(len(ids)), key=lambda k: (int(ids[k]), ids[k]))
    return sorted(range(len(ids)), key=lambda k: ids[k])


def pack(human: np.ndarray, metric: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """The (systems x items) matrices pce.py receives for one human and one metric grid (NaN =
    missing), and how missing entries were handled ("" when none is missing): the entries missing
    on either side are dropped and each system's remaining entries packed into its row, in item
    order (mt-metrics-eval's ``filter_nones`` then ``_Reshape(..., 'sys')``); when the systems keep
    different numbers of items, only the items every system has are kept."""
    human, metric = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    keep = ~np.isnan(human) & ~np.isnan(metric)
    if keep.all():
        return human, metric, ""
    counts = keep.sum(axis=1)
    S = human.shape[0]
    if S and (counts == counts[0]).all():
        n = int(counts[0])
        same = bool((keep == keep[:1]).all())
        how = (f"{int((~keep).sum())} missing (system, item) entries dropped; every system keeps {n} items"
               + ("" if same else ", not the same ones: as mt-metrics-eval, each system's remaining items "
                                  "are paired by position"))
        return human[keep].reshape(S, n), metric[keep].reshape(S, n), how
    complete = keep.all(axis=0)
    how = (f"the systems keep different numbers of items ({int(counts.min())} to {int(counts.max())}; "
           f"mt-metrics-eval cannot reshape them): the {int(complete.sum())} items every system has are kept")
    return human[:, complete], metric[:, complete], how


def signs(permutations: int, items: int, seed: int = PCE_SEED) -> np.ndarray:
    """pce.py's (permutations x items) float32 matrix of -1/+1 (2m - 1 of its docstring)."""
    rng = np.random.default_rng(seed)
    m = rng.random(size=(permutations, items), dtype=np.float32)
    np.rint(m, out=m, casting="same_kind")
    m *= 2.0
    m -= 1.0
    return m


def pairwise_p_values(scores: np.ndarray, permutations: int = PCE_PERMUTATIONS, seed: int = PCE_SEED,
                      swaps: np.ndarray | None = None, exact: bool = True) -> np.ndarray:
    """pce.py's p-values for every scorer at once: ``scores`` (K, S, n) -> (K, S(S-1)/2), the pairs
    i < j in ``numpy.triu_indices(S, 1)`` order (pce.py's upper triangle): p = count over the
    permutations of (null delta >= observed delta) / permutations, in float32 as pce.py
    (module docstring). ``swaps``: the sign matrix (:func:`signs`), when the caller has it.

    ``exact``: each scorer's product with the swaps is pce.py's own (P, n) @ (n, S) BLAS call, so
    its float32 sums are pce.py's to the bit. Otherwise one product of every scorer side by side
    (K S columns), several times faster; BLAS then rounds some sums differently in the last bit,
    which changes a count where a null delta equals the observed one in exact arithmetic - rare
    for continuous scores, common for discrete ones such as averaged ratings, and a change of a
    few permutations of a pair (the bootstrap samples use it: their spread is far larger)."""
    x = np.ascontiguousarray(scores, dtype=np.float32)
    K, S, n = x.shape
    if swaps is None:
        swaps = signs(permutations, n, seed)
    P = swaps.shape[0]
    iu, ju = np.triu_indices(S, 1)
    if K == 0 or not len(iu):
        return np.empty((K, len(iu)))
    totals = np.sum(x, axis=2)                                     # (K, S), float32 as pce.py's
    if exact:
        partial = np.ascontiguousarray(np.stack([np.matmul(swaps, x[k].T).T for k in range(K)]))   # (K, S, P)
    else:
        partial = np.ascontiguousarray(np.matmul(swaps, x.reshape(K * S, n).T).T).reshape(K, S, P)
    observed = totals[:, iu] - totals[:, ju]                       # (K, pairs) float32
    counts = np.empty((K, len(iu)), dtype=np.int64)
    kernels.pair_exceedances(partial, observed, iu, ju, counts)
    return counts / P


def spa(p_human: np.ndarray, p_metric: np.ndarray) -> np.ndarray:
    """1 - mean |p_human - p_metric| over the pairs (the last axis), pce.py's ``compute_one_minus_pce``;
    NaN without a pair."""
    d = np.abs(np.asarray(p_human, dtype=float) - np.asarray(p_metric, dtype=float))
    if d.shape[-1] == 0:
        return np.full(d.shape[:-1], np.nan)
    return 1.0 - np.mean(d, axis=-1)


def soft_pairwise_accuracy(human: np.ndarray, metrics: np.ndarray, permutations: int = PCE_PERMUTATIONS,
                           seed: int = PCE_SEED) -> np.ndarray:
    """SPA of each of ``metrics`` (K, S, n) against ``human`` (S, n), complete packed matrices
    (:func:`pack`), as ``stats.PairwiseConfidenceError``: (K,); NaN without an item or a pair."""
    if np.shape(human)[-1] == 0:
        return np.full(len(metrics), np.nan)
    both = np.concatenate([np.asarray(human, dtype=float)[None], np.asarray(metrics, dtype=float)])
    p = pairwise_p_values(both, permutations, seed)
    return spa(p[0], p[1:])


def bootstrap_spa(scores: np.ndarray, comparisons: Sequence[tuple[int, int]], samples: int, bootstrap_seed: int,
                  permutations: int = PCE_PERMUTATIONS, seed: int = PCE_SEED) -> np.ndarray:
    """Bootstrap samples of SPA (module docstring): ``scores`` (K, S, n), the packed matrices of
    humans and metrics over the same items; ``comparisons`` (human row, metric row) pairs; returns
    (samples, len(comparisons)). Each sample draws n columns with replacement
    (``default_rng(bootstrap_seed).integers(0, n, (samples, n))``) and computes pce.py's p-values of
    every row on them, with pce.py's swaps (the same for every sample)."""
    x = np.ascontiguousarray(scores, dtype=np.float32)
    K, S, n = x.shape
    out = np.full((samples, len(comparisons)), np.nan)
    if not samples or not comparisons or n == 0 or S < 2:
        return out
    draws = np.random.default_rng(bootstrap_seed).integers(0, n, size=(samples, n))
    swaps = signs(permutations, n, seed)
    h = np.array([c[0] for c in comparisons])
    m = np.array([c[1] for c in comparisons])
    for b in range(samples):
        p = pairwise_p_values(x[:, :, draws[b]], swaps=swaps, exact=False)
        out[b] = spa(p[h], p[m])
    return out


def interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of bootstrap samples (axis 0; :func:`metaeval.stats.core.percentile_interval`)."""
    return percentile_interval(samples, confidence)
