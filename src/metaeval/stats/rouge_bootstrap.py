"""Bootstrap confidence intervals of a system's ROUGE score, exactly as ROUGE-1.5.5 computes them
with ``-c 95 -r 1000`` (its ``bootstrapResampling`` and ``computeAverages``).

ROUGE-1.5.5 draws resample ``i`` (i = 0 .. r−1) after ``srand(i)``: n times ``int(rand(n))`` over
the system's n per-summary scores (in evaluation order), and averages them. Perl (since 5.20)
implements ``rand`` with its own drand48 on every platform:
x ← (0x5DEECE66D · x + 0xB) mod 2^48, seeded x = (seed << 16) + 0x330E, rand() = x / 2^48 — so the
resamples are reproduced bit for bit here (vectorised over the r resamples). The r sample means
are sorted; with c the confidence in percent and δ = r (100 − c) / 200 the interval is

    lower = s[⌊δ⌋] + (s[⌊δ⌋ + 1] − s[⌊δ⌋]) · ρ,  upper = s[u] + (s[u + 1] − s[u]) · ρ,
    u = ⌊r − δ − 1⌋, ρ = r − δ − 1 − u,

and ROUGE-1.5.5's printed "Average" is the mean of the r sample means (not the plain mean). The
``seed`` shifts the seeds (resample i uses seed + i); 0 reproduces ROUGE-1.5.5. Confidence levels
are fractions here as everywhere in metaeval (0.95 = ROUGE-1.5.5's ``-c 95``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)


def perl_resample_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples, n) indices: row i = Perl's ``srand(seed + i); int(rand(n))`` drawn n times."""
    x = ((np.arange(resamples, dtype=np.uint64) + np.uint64(seed)) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((resamples, n), dtype=np.int64)
    with np.errstate(over="ignore"):
        for j in range(n):
            x = (_A * x + _C) & _MASK   # uint64 arithmetic wraps mod 2^64; the low 48 bits are exact
            out[:, j] = np.floor(x.astype(np.float64) / 2.0 ** 48 * n).astype(np.int64)
    return out


def percent(confidence: float) -> float:
    """A confidence level as ROUGE-1.5.5's ``-c`` percentage (0.95 -> 95.0, exactly)."""
    return round(confidence * 100, 9)


@dataclass(frozen=True)
class Interval:
    mean: float            # the plain mean of the per-summary scores (the system score)
    resampled_mean: float  # what ROUGE-1.5.5 prints as the average: the mean of the sample means
    lower: float
    upper: float


def rouge_interval(scores: np.ndarray, resamples: int, confidence: float, seed: int,
                   indices: np.ndarray | None = None) -> Interval:
    """The bootstrap interval of the mean of ``scores`` (one system's per-summary scores, in
    evaluation order), as ROUGE-1.5.5 ``-c 100·confidence -r resamples`` (ROUGE-1.5.5's own run:
    resamples 1000, confidence 0.95, seed 0)."""
    scores = np.asarray(scores, dtype=float)
    if len(scores) == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan)
    idx = perl_resample_indices(len(scores), resamples, seed) if indices is None else indices
    return rouge_intervals(scores[None, :], idx, confidence)[0]


def rouge_intervals(scores: np.ndarray, idx: np.ndarray, confidence: float) -> list[Interval]:
    """:func:`rouge_interval` of every row of ``scores`` (G, n), all resampled with the same
    indices ``idx`` (resamples, n) - the same draws, as ROUGE-1.5.5 makes for systems with as many
    summaries."""
    from .kernels import draw_order_sums   # defers numba: compiled; imported where needed only

    scores = np.ascontiguousarray(scores, dtype=np.float64)
    resamples, n = idx.shape
    sums = np.empty((scores.shape[0], resamples))
    # ROUGE-1.5.5 adds the scores in draw order, then divides: the same summation order here
    draw_order_sums(scores, np.ascontiguousarray(idx), sums)
    return [_interval(row, s, n, resamples, confidence) for row, s in zip(scores, sums)]


def _interval(scores: np.ndarray, sums: np.ndarray, n: int, resamples: int, confidence: float) -> Interval:
    means = np.sort(sums / n)
    c = percent(confidence)
    delta = resamples * ((100 - c) / 2.0) / 100.0
    u_a = int(resamples - delta - 1)
    l_a = int(delta)
    ratio = resamples - delta - 1 - u_a

    def at(k: int) -> float:
        return float(means[min(k, resamples - 1)])

    lower = at(l_a) + (at(l_a + 1) - at(l_a)) * ratio
    upper = at(u_a) + (at(u_a + 1) - at(u_a)) * ratio
    return Interval(math.fsum(scores) / n, math.fsum(means) / resamples, lower, upper)
