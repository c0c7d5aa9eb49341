"""Resampling methods of Deutsch, Dror & Roth (2021, TACL, §3-4; nlpstats 0.0.1
``nlpstats.correlations.bootstrap`` / ``permutation_test``), plus two none of the peers has (a null
baseline and the uncertainty of the winner). Vectorised over metrics, pairs and resamples.

A *statistic* is f(x, z, sys_w=None, top_w=None) -> (...) of metric grids x (..., S, T) and the
human grid z (S, T), weighted by draw counts: :func:`metaeval.stats.levels.statistic` (a
correlation at a level) or :func:`metaeval.stats.kendall.pairwise_accuracy_statistic`.

* :func:`bootstrap` - BOOT-SYSTEMS / BOOT-INPUTS / BOOT-BOTH percentile intervals. Draws as
  :func:`metaeval.stats.core.draws` (``default_rng(seed)``, per sample the systems, then the
  inputs; nlpstats draws rows then columns the same way, from ``np.random``). A sample is the
  statistic of the drawn grid (:func:`metaeval.stats.core.bootstrap`); undefined samples are dropped;
  the interval is :func:`metaeval.stats.core.percentile_interval` of the rest; a statistic undefined on the full data gets none.
* :func:`permutation_test` - PERM-SYSTEMS / PERM-INPUTS / PERM-BOTH between two metrics: each metric's
  grid is standardised ((x - mean) / sd over all its summaries, as nlpstats and mt-metrics-eval's
  ``PermutationSigDiff``), then per sample whole rows (systems), whole columns (inputs), or rows
  then columns (both: summary (s, t) swapped iff row s xor column t) are swapped between the two
  with probability 1/2 (``rng.random() < 0.5`` per row / column, systems first); delta* = f(a*) -
  f(b*). p-values are count / samples with no +1, as both peers (0 means < 1/samples), and
  differences within 1e-10 count as equal (the peers compare floats exactly):
  ``greater`` count(delta* >= delta) (mt-metrics-eval's one-sided p), ``two_sided``
  count(|delta*| >= |delta|) (nlpstats' default). The same swaps serve every pair.
* :func:`null_distribution` - the statistic of an uninformative metric: the human scores permuted
  among the systems within each input (only among the summaries that have one), seeded; returns
  quantiles and the upper p-value (1 + count(null >= observed)) / (1 + samples).
* :func:`winner` - from bootstrap samples (B, M) of a higher-is-better statistic: the probability
  that each metric is the best (a tie for the best splits the sample equally) and the percentile
  interval of its rank (1 = best, ties share the lower rank; undefined = last).

Samples are drawn up front and processed in chunks bounded in memory, so results do not depend on
the chunk size.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from . import core
from .bootstrap import blocked_product
from .core import counts, draws, percentile_interval
from .levels import weighted_means
from .stable import binary_scale

PERMUTATION = ("systems", "inputs", "both")
_BUDGET = 4_000_000   # elements of a chunk's resampled grids
# Differences this close count as equal: rank statistics take few values, and the same value
# reached by two routes must not be split by rounding.
_TIE = 1e-10


@dataclass
class Bootstrap:
    lo: np.ndarray        # (...), NaN where the statistic is undefined on the full data
    hi: np.ndarray
    samples: np.ndarray   # (B, ...), NaN for an undefined sample
    point: np.ndarray     # the statistic on the full data


def _chunk(samples: int, per_sample: int) -> int:
    return max(1, min(samples, _BUDGET // max(1, per_sample)))


def bootstrap(x, z, statistic, resample: str, samples: int, seed: int, confidence: float = 0.95,
              indices: tuple[np.ndarray | None, np.ndarray | None] | None = None) -> Bootstrap:
    """Percentile bootstrap of ``statistic`` for every metric grid in x (..., S, T) against z (S, T).
    ``resample``: systems, topics (= inputs) or both. ``indices`` = (system draws (B, S) or None,
    topic draws (B, T) or None) replaces the seeded draws (e.g. to replay another tool's stream)."""
    x, z = np.asarray(x, dtype=float), np.asarray(z, dtype=float)
    n_sys, n_top = x.shape[-2:]
    resample = {"inputs": "topics"}.get(resample, resample)
    sys_idx, top_idx = indices if indices is not None else draws(seed, samples, n_sys, n_top, resample)
    point = np.asarray(statistic(x, z))
    lead = (1,) * (x.ndim - 2)   # the draws' axis goes before the metric axes

    def drawn_grids(rows, cols, start, stop):
        sw = None if rows is None else counts(rows, n_sys).reshape(stop - start, *lead, n_sys)
        tw = None if cols is None else counts(cols, n_top).reshape(stop - start, *lead, n_top)
        return statistic(x, z, sys_w=sw, top_w=tw)

    samples = (sys_idx if sys_idx is not None else top_idx).shape[0]
    out = core.bootstrap(drawn_grids, (sys_idx, top_idx), _chunk(samples, x.size))
    lo, hi = percentile_interval(out, confidence)
    undefined = np.isnan(point)
    return Bootstrap(np.where(undefined, np.nan, lo), np.where(undefined, np.nan, hi), out, point)


def permutation_masks(seed: int, samples: int, n_sys: int, n_top: int, method: str
                      ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(system swaps (B, S) or None, input swaps (B, T) or None) from ``default_rng(seed)``: all
    systems' uniforms first, then all inputs'; a row / column is swapped where its uniform < 0.5."""
    if method not in PERMUTATION:
        raise ValueError(f"unknown permutation method {method!r}; expected one of {PERMUTATION}")
    rng = np.random.default_rng(seed)
    rows = rng.random((samples, n_sys)) < 0.5 if method in ("systems", "both") else None
    cols = rng.random((samples, n_top)) < 0.5 if method in ("inputs", "both") else None
    return rows, cols


def standardise(x: np.ndarray) -> np.ndarray:
    """(x - mean) / sd over each grid's summaries (last two axes; NaN ignored; ddof 0). A grid of
    extreme magnitude is first scaled by a power of two (:func:`metaeval.stats.stable.binary_scale`:
    exact, and the standardised values do not depend on it), so its squares cannot overflow."""
    flat, e = binary_scale(x.reshape(*x.shape[:-2], -1), axis=-1)
    if e.any():
        x = flat.reshape(x.shape)
    mean = np.nanmean(x, axis=(-2, -1), keepdims=True)
    return (x - mean) / np.nanstd(x, axis=(-2, -1), keepdims=True)


@dataclass
class Permutation:
    delta: np.ndarray        # (K,) f(a) - f(b) on the data
    greater: np.ndarray      # (K,) p for H1: f(a) > f(b): count(delta* >= delta) / samples
    less: np.ndarray         # (K,) count(delta* <= delta) / samples
    two_sided: np.ndarray    # (K,) count(|delta*| >= |delta|) / samples


def permutation_test(x, z, pairs, statistic, method: str, samples: int, seed: int,
                     masks: tuple[np.ndarray | None, np.ndarray | None] | None = None) -> Permutation:
    """Permutation tests of f(x[a]) - f(x[b]) for every (a, b) in ``pairs`` (K, 2), x (M, S, T).
    ``masks`` replaces the seeded swaps (see :func:`permutation_masks`)."""
    x = standardise(np.asarray(x, dtype=float))
    z = np.asarray(z, dtype=float)
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    n_sys, n_top = x.shape[-2:]
    rows, cols = masks if masks is not None else permutation_masks(seed, samples, n_sys, n_top, method)
    samples = (rows if rows is not None else cols).shape[0]
    xa, xb = x[pairs[:, 0]], x[pairs[:, 1]]
    point = np.asarray(statistic(x, z))
    delta = point[pairs[:, 0]] - point[pairs[:, 1]]
    greater, less, both = (np.zeros(len(pairs)) for _ in range(3))
    system_level = getattr(statistic, "level", None) == "system"
    z_sys = weighted_means(z)
    step = _chunk(samples, len(pairs) * n_sys * (1 if system_level else 2 * n_top))
    for a in range(0, samples, step):
        b = min(samples, a + step)
        r = None if rows is None else rows[a:b]
        c = None if cols is None else cols[a:b]
        if system_level:
            ma, mb = _swapped_system_means(x, pairs, r, c)
            d = statistic.of_scores(ma, z_sys) - statistic.of_scores(mb, z_sys)
        else:
            swap = np.zeros((b - a, n_sys, n_top), dtype=bool)
            if r is not None:
                swap ^= r[:, :, None]
            if c is not None:
                swap ^= c[:, None, :]
            swap = swap[:, None]                               # (B, 1, S, T) against (K, S, T)
            d = statistic(np.where(swap, xb, xa), z) - statistic(np.where(swap, xa, xb), z)
        greater += (d >= delta - _TIE).sum(axis=0)
        less += (d <= delta + _TIE).sum(axis=0)
        both += (np.abs(d) >= np.abs(delta) - _TIE).sum(axis=0)
    undefined = np.isnan(delta)
    return Permutation(delta, *(np.where(undefined, np.nan, c / samples) for c in (greater, less, both)))


def _swapped_system_means(x, pairs, rows, cols):
    """System means (B, K, S) of both grids of every pair after the swaps, without building the
    swapped grids: with column swaps the swapped part of a row is a matrix product with the
    swaps, and a swapped row exchanges its swapped and kept parts."""
    used, inverse = np.unique(pairs, return_inverse=True)          # only the metrics in a pair
    x, pairs = x[used], inverse.reshape(pairs.shape)
    valid = ~np.isnan(x)
    if cols is None:
        # whole systems swapped: a swapped system takes the other metric's total and count whole
        # (t_a - t_a + t_b is t_b exactly), so its mean is the other metric's system mean itself
        n = valid.sum(axis=-1).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(n > 0, np.where(valid, x, 0.0).sum(axis=-1) / n, np.nan)     # (M, S)
        a, b = means[pairs[:, 0]], means[pairs[:, 1]]                                      # (K, S)
        swap = rows[:, None, :]
        return np.where(swap, b, a), np.where(swap, a, b)
    parts = []
    for v in (np.where(valid, x, 0.0), valid.astype(float)):      # sums, then counts
        total = v.sum(axis=-1)[None]                               # (1, M, S)
        # (B, M, S): sum over swapped columns, a metric's the same bits whatever else is tested with it
        moved = (np.moveaxis(blocked_product(v.reshape(-1, v.shape[-1]), cols.astype(float)).reshape(
                     *v.shape[:-1], -1), -1, 0) if cols is not None else np.zeros((1, *total.shape[1:])))
        if rows is not None:
            moved = np.where(rows[:, None, :], total - moved, moved)
        sa, sb = moved[:, pairs[:, 0]], moved[:, pairs[:, 1]]
        ta, tb = total[:, pairs[:, 0]], total[:, pairs[:, 1]]
        parts.append((ta - sa + sb, tb - sb + sa))
    (sum_a, sum_b), (n_a, n_b) = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_a > 0, sum_a / n_a, np.nan), np.where(n_b > 0, sum_b / n_b, np.nan)


def permutation_matrix(x, z, statistic, method: str, samples: int, seed: int) -> np.ndarray:
    """p[i, j] = one-sided permutation p-value that metric i's statistic exceeds metric j's (NaN on
    the diagonal and where either is undefined), for :func:`metaeval.stats.williams.optimal` and
    ``assign_clusters``. Each unordered pair is tested once: p[j, i] is its ``less``."""
    m = np.asarray(x).shape[0]
    i, j = np.triu_indices(m, 1)
    res = permutation_test(x, z, np.column_stack([i, j]), statistic, method, samples, seed)
    p = np.full((m, m), np.nan)
    p[i, j], p[j, i] = res.greater, res.less
    return p


@dataclass
class Null:
    quantiles: np.ndarray   # (Q, ...) of the null distribution, at ``levels``
    levels: np.ndarray      # (Q,)
    p: np.ndarray           # (...) upper p-value of the observed statistic
    samples: np.ndarray     # (B, ...)


def permute_within_inputs(z: np.ndarray, samples: int, seed: int, start: int = 0) -> np.ndarray:
    """(B, S, T): z with each input's human scores shuffled among the systems that have one
    (``default_rng(seed)``: a uniform per sample, system and input, sorted). ``start``: these are
    samples start:start + samples of that stream (its generator advanced past the earlier ones, one
    64-bit step per uniform), so a long null distribution is drawn a chunk at a time."""
    z = np.asarray(z, dtype=float)
    valid = ~np.isnan(z)
    stream = np.random.PCG64(seed)          # default_rng(seed)'s bit generator
    stream.advance(start * z.size)
    keys = np.random.Generator(stream).random((samples, *z.shape))
    shuffled = np.argsort(np.where(valid, keys, np.inf), axis=1, kind="stable")   # valid ones first
    slots = np.broadcast_to(np.argsort(~valid, axis=0, kind="stable"), shuffled.shape)
    out = np.empty(shuffled.shape)
    np.put_along_axis(out, slots, np.take_along_axis(np.broadcast_to(z, shuffled.shape), shuffled, axis=1), axis=1)
    return out


def null_distribution(x, z, statistic, samples: int, seed: int, levels=(0.95, 0.99)) -> Null:
    """The statistic of every metric in x (..., S, T) against human scores permuted within inputs."""
    x = np.asarray(x, dtype=float)
    observed = np.asarray(statistic(x, np.asarray(z, dtype=float)))
    out = np.empty((samples, *observed.shape))
    step = _chunk(samples, x.size)
    for a in range(0, samples, step):
        b = min(samples, a + step)
        zp = permute_within_inputs(z, b - a, seed, start=a)
        out[a:b] = statistic(x, zp.reshape(b - a, *(1,) * (x.ndim - 2), *zp.shape[1:]))
    levels = np.asarray(levels, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        q = np.nanquantile(out, levels, axis=0)
    p = (1 + (out >= observed).sum(axis=0)) / (1 + (~np.isnan(out)).sum(axis=0))
    return Null(q, levels, np.where(np.isnan(observed), np.nan, p), out)


@dataclass
class Winner:
    p_best: np.ndarray      # (M,)
    rank_lo: np.ndarray     # (M,)
    rank_hi: np.ndarray     # (M,)


def winner(samples: np.ndarray, confidence: float = 0.95) -> Winner:
    """Probability of being the best and the rank interval of every metric from bootstrap samples
    (B, M) of a higher-is-better statistic, all metrics from the same draws."""
    s = np.where(np.isnan(samples), -np.inf, samples)
    best = s == s.max(axis=1, keepdims=True)
    best &= np.isfinite(s)
    share = best / np.maximum(best.sum(axis=1, keepdims=True), 1)
    ranks = core.ranks(-s, axis=1, method="min")                   # 1 + number strictly better
    return Winner(share.mean(axis=0), *percentile_interval(ranks, confidence))
