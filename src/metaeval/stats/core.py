"""The statistics core: the one correlation, ranks, resampling and interval routine every stage
uses, in the way of google-research/mt-metrics-eval's ``stats.py`` (one ``Correlation`` routine,
one resampling routine whose significance tests take the statistic as an argument).

* :func:`pearson` - Pearson's r over one axis, optionally weighted (item i counted w[i] times, the
  bootstrap's draw counts), NaN items left out, vectorised over the other axes;
  :func:`pearson_against` the same for many x against one y (y's side computed once).
* :func:`ranks` - average ranks (``scipy.stats.rankdata``'s default) or competition ranks
  (``method="min"``) along one axis, optionally weighted.
* :func:`draws`, :func:`counts`, :func:`bootstrap` - the seeded draws of systems and topics and the
  engine that evaluates a statistic on every sample, chunk by chunk; :func:`paired_bootstrap_p`
  (Koehn 2004) compares two statistics on the same draws. Permutation tests take the statistic the
  same way (:func:`metaeval.stats.resampling.permutation_test`).
* :func:`percentile_interval` - the percentile bootstrap interval.

Spearman's rho is :func:`pearson` of :func:`ranks`; Kendall's tau variants live in
:mod:`metaeval.stats.kendall` and :mod:`metaeval.stats.levels` (pair counts). One routine keeps its
own floating-point order of the same definition, so that the numbers it writes stay bit for bit:
:func:`metaeval.stats.bootstrap.weighted_pearson` (the correlation stage's bootstrap). Bootstraps
whose draws are not systems and topics keep their own seeded draws (and so their numbers) and use
:func:`percentile_interval`: within systems (:mod:`metaeval.stats.partial`), within labels
(:mod:`metaeval.stats.binary`), items (:mod:`metaeval.stats.agreement_alpha`), summaries
(:mod:`metaeval.stages.factuality_protocols`); :mod:`metaeval.stats.ceiling` draws topics with a
held-out annotator.
"""

from __future__ import annotations

import warnings
from typing import Callable, NamedTuple

import numpy as np

from .stable import binary_scale

MIN_ITEMS = 3
RESAMPLING = ("systems", "topics", "both")


# ----------------------------------------------------------------------------- correlation

def corrcoef(*arrays, rowvar: bool = True):
    """``np.corrcoef`` of the variables of ``arrays`` (as numpy takes them), an extreme variable first
    scaled by a power of two (:func:`binary_scale`): numpy's own numbers on ordinary data, and right
    where numpy's would overflow (its covariance sums products of the centred values)."""
    scaled = [binary_scale(a, axis=-1 if rowvar or np.ndim(a) == 1 else 0)[0] for a in arrays]
    return np.corrcoef(*scaled, rowvar=rowvar)


def _constant(x, w, axis):
    """Whether the items with positive weight all have the same value of x along ``axis``."""
    used = w > 0
    return np.where(used, x, -np.inf).max(axis=axis) == np.where(used, x, np.inf).min(axis=axis)


def pearson(x, y, w=None, axis: int = -1, tolerance: float = 0.0):
    """Pearson's r of x and y (broadcast) along ``axis``: sum(xc yc) / sqrt(sum(xc^2) sum(yc^2)) of
    the centred values, clipped to [-1, 1]; with weights w, item i counts w[i] times (the weighted
    means and sums of Deutsch, Dror & Roth 2021, nlpstats' correlation of a resampled grid). Items
    where x or y is NaN are left out. Undefined (NaN), the project's rule: fewer than 3 items or a
    constant side (scipy returns +-1 for 2 items); with ``tolerance`` > 0 also where the denominator
    (of the unscaled values) is at most tolerance * max(1, denominator) (residuals that are zero up
    to rounding, FRANK's partial correlation).

    Without weights or missing values the means are those of x and y themselves (numpy's mean
    along the axis), with them the weighted sums of the valid items; both give the same numbers
    where both apply (w = 1 multiplies exactly). A side of extreme magnitude is first scaled by a
    power of two (:func:`binary_scale`: exact; ordinary data are untouched), so r is right for any
    finite values (1e300 with -1e300 included)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if w is not None:
        return _pearson_weighted(x, y, w, axis, tolerance)
    incomplete = np.isnan(x).any(axis=axis) | np.isnan(y).any(axis=axis)
    if not incomplete.any():
        return _pearson_complete(x, y, axis, tolerance)
    shape = np.broadcast_shapes(x.shape, y.shape)
    if incomplete.all() or not _rows_split_exactly(x, y, shape, axis):
        return _pearson_weighted(x, y, None, axis, tolerance)
    # the vectors with a missing item take the weighted route, the others the plain one: the same
    # numbers as all weighted (w = 1 multiplies exactly; every vector is summed in its own order),
    # at a fraction of the cost when few vectors miss an item (a metric undefined for some systems)
    incomplete = np.broadcast_to(incomplete, shape[:-1])
    xb, yb = np.broadcast_to(x, shape), np.broadcast_to(y, shape)
    r = np.empty(shape[:-1])
    r[~incomplete] = _pearson_complete(xb[~incomplete], yb[~incomplete], -1, tolerance)
    r[incomplete] = _pearson_weighted(xb[incomplete], yb[incomplete], None, -1, tolerance)
    return r


def _rows_split_exactly(x, y, shape, axis: int) -> bool:
    """Whether the vectors of x and y along ``axis`` can be computed in two groups with the same
    bits: along the last axis (x of the full shape), each vector contiguous in memory, where numpy
    sums every vector with its pairwise inner loop whether it is alone, in a copy, or among others
    in any order of the other axes."""
    return ((axis == -1 or axis == len(shape) - 1) and len(shape) > 1 and x.shape == shape
            and _vectors_contiguous(x) and _vectors_contiguous(y))


def _vectors_contiguous(a) -> bool:
    """Whether every vector along the last axis is contiguous and no other axis steps inside one."""
    if a.ndim == 0 or a.shape[-1] < 2:
        return True
    return a.strides[-1] == a.itemsize and all(abs(s) >= a.itemsize * a.shape[-1]
                                               for s, n in zip(a.strides[:-1], a.shape[:-1]) if n > 1)


def pearson_against(y, axis: int = -1) -> Callable[[np.ndarray], np.ndarray]:
    """``f(x) = pearson(x, y, axis=axis)`` for many x against one y, y's side (its centred values
    and sum of squares) computed once: the same numbers, for a fraction of the work when y is the
    larger side (every predictor against a stack of targets)."""
    y = np.asarray(y, dtype=float)
    if np.isnan(y).any():
        return lambda x: pearson(x, y, axis=axis)
    y_side = _centred(y, axis)

    def of(x):
        x = np.asarray(x, dtype=float)
        if np.isnan(x).any():
            return pearson(x, y, axis=axis)
        return _pearson_of(_centred(x, axis), y_side, np.broadcast_shapes(x.shape, y.shape)[axis], axis, 0.0)

    return of


class _Side(NamedTuple):
    """One side of a Pearson correlation: centred (binary-scaled) values, their sum of squares,
    whether the vector is constant, the binary exponent."""
    centred: np.ndarray
    squares: np.ndarray
    constant: np.ndarray
    exponent: np.ndarray


def _centred(v, axis: int) -> _Side:
    constant = v.max(axis=axis) == v.min(axis=axis)
    vs, e = binary_scale(v, axis)
    with np.errstate(invalid="ignore"):
        vc = vs - vs.mean(axis=axis, keepdims=True)
    return _Side(vc, (vc * vc).sum(axis=axis), constant, e)


def _pearson_complete(x, y, axis: int, tolerance: float):
    """:func:`pearson` of vectors without a missing item."""
    return _pearson_of(_centred(x, axis), _centred(y, axis), np.broadcast_shapes(x.shape, y.shape)[axis], axis,
                       tolerance)


def _pearson_of(xs: _Side, ys: _Side, n: int, axis: int, tolerance: float):
    undefined = (n < MIN_ITEMS) | xs.constant | ys.constant
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt(xs.squares * ys.squares)
        r = np.clip((xs.centred * ys.centred).sum(axis=axis) / den, -1, 1)
    if tolerance > 0:
        undefined = undefined | _within_rounding(den, np.squeeze(xs.exponent + ys.exponent, axis=axis), tolerance)
    return np.where(undefined, np.nan, r)


def _pearson_weighted(x, y, w, axis: int, tolerance: float):
    """:func:`pearson` with weights (None: 1), items where x or y is NaN left out."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    w = np.where(ok, 1.0 if w is None else w, 0.0)
    x, y = np.where(w > 0, x, 0.0), np.where(w > 0, y, 0.0)
    n = w.sum(axis=axis)
    undefined = (n < MIN_ITEMS) | _constant(x, w, axis) | _constant(y, w, axis)
    (xs, ex), (ys, ey) = binary_scale(x, axis), binary_scale(y, axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        xc = xs - (w * xs).sum(axis=axis, keepdims=True) / np.expand_dims(n, axis)
        yc = ys - (w * ys).sum(axis=axis, keepdims=True) / np.expand_dims(n, axis)
        den = np.sqrt((w * xc * xc).sum(axis=axis) * (w * yc * yc).sum(axis=axis))
        r = np.clip((w * xc * yc).sum(axis=axis) / den, -1, 1)
    if tolerance > 0:
        undefined = undefined | _within_rounding(den, np.squeeze(ex + ey, axis=axis), tolerance)
    return np.where(undefined, np.nan, r)


def _within_rounding(den, shift, tolerance: float):
    """Whether the denominator of the unscaled values (den 2^shift; infinite when it overflows: then
    it is far from zero) is at most tolerance * max(1, itself)."""
    true = np.ldexp(den, shift)
    return ~((true > tolerance * np.maximum(1.0, np.abs(true))) | np.isinf(true))


# ----------------------------------------------------------------------------- ranks

def ranks(x, axis: int = -1, w=None, method: str = "average"):
    """Ranks (1-based, ascending) along ``axis``, item i counted w[i] times: ``average`` - tied
    items share the mean of their positions (``scipy.stats.rankdata``, the data with item i
    repeated w[i] times); ``min`` - tied items share the lowest (``rankdata(method="min")``,
    competition ranking: 1 + the weight of the items strictly below). Exact: integer positions and
    their halves. NaN sorts last, each NaN its own value (callers put NaN back where they need it)."""
    if method not in ("average", "min"):
        raise ValueError(f"unknown ranking method {method!r}")
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    order = np.argsort(x, axis=-1)               # ties share their rank whatever their order
    if w is None and x.size:
        return np.moveaxis(_run_ranks(x, order, method == "min"), -1, axis)
    xs = np.take_along_axis(x, order, axis=-1)
    n = x.shape[-1]
    idx = np.arange(n)
    new = np.ones(xs.shape, dtype=bool)          # the first of a run of equal values
    new[..., 1:] = xs[..., 1:] != xs[..., :-1]
    end = np.ones(xs.shape, dtype=bool)          # the last of a run
    end[..., :-1] = new[..., 1:]
    first = np.maximum.accumulate(np.where(new, idx, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(end, idx, n - 1), axis=-1), axis=-1), axis=-1)
    if w is None:
        before, tied = first.astype(float), (last - first + 1).astype(float)
    else:                                        # positions counted in weights: a cumulative sum
        w = np.moveaxis(np.asarray(w, dtype=float), axis, -1)
        shape = np.broadcast_shapes(x.shape, w.shape)
        order = np.broadcast_to(order, shape)
        ws = np.take_along_axis(np.broadcast_to(w, shape), order, axis=-1)
        cw = np.cumsum(ws, axis=-1)
        first, last = np.broadcast_to(first, shape), np.broadcast_to(last, shape)
        before = np.take_along_axis(cw, first, axis=-1) - np.take_along_axis(ws, first, axis=-1)
        tied = np.take_along_axis(cw, last, axis=-1) - before
    out = np.empty(order.shape)
    np.put_along_axis(out, order, before + 1 if method == "min" else before + (tied + 1) / 2, axis=-1)
    return np.moveaxis(out, -1, axis)


def _run_ranks(x: np.ndarray, order: np.ndarray, lowest: bool) -> np.ndarray:
    """:func:`ranks` without weights of ``x`` (the last axis ranked) given its ``order`` along that
    axis: every run of equal sorted values (a row's first value opens one; NaN never equals NaN)
    at positions first..last of the row gets (first + last + 2) / 2, or first + 1 when ``lowest``.
    Why apart: one pass over the runs of all rows at once, on flat positions (a run never crosses a
    row; the row's offset is subtracted at the end), instead of the weighted path's two running
    extrema: the same numbers (integers and their halves are exact) in about half the time - the
    bootstrap of FRANK's partial Spearman ranks every resample (:mod:`metaeval.stats.partial`)."""
    n = x.shape[-1]
    offsets = np.arange(0, x.size, n).reshape(x.shape[:-1] + (1,))
    flat = (order + offsets).ravel()             # flat position of the k-th smallest of each row
    xs = x.ravel()[flat]
    new = np.empty(x.size, dtype=bool)           # the first of a run of equal values
    np.not_equal(xs[1:], xs[:-1], out=new[1:])
    new[::n] = True
    start = np.flatnonzero(new)
    stop = np.append(start[1:], x.size)          # one past the run's last
    value = (start + 1.0) if lowest else (start + stop + 1) / 2
    out = np.empty(x.size)
    out[flat] = np.repeat(value, stop - start)
    out = out.reshape(x.shape)
    out -= offsets                               # flat positions -> positions in the row
    return out


# ----------------------------------------------------------------------------- resampling

class Plan(NamedTuple):
    """A seeded percentile bootstrap: how many samples, what is resampled (systems, topics or
    both), the seed of ``numpy.random.default_rng`` and the interval's confidence."""
    samples: int
    resample: str
    seed: int
    confidence: float = 0.95


def draws(seed: int, samples: int, n_sys: int, n_top: int, resample: str
          ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(system indices (B, S) or None, topic indices (B, T) or None), drawn with replacement
    sample by sample from ``default_rng(seed)``: the systems, then the topics (nlpstats'
    ``bootstrap`` draws rows then columns the same way, from ``np.random``)."""
    if resample not in RESAMPLING:
        raise ValueError(f"unknown resampling {resample!r}; expected one of {RESAMPLING}")
    rng = np.random.default_rng(seed)
    sys_idx = np.empty((samples, n_sys), dtype=np.int64) if resample in ("systems", "both") else None
    top_idx = np.empty((samples, n_top), dtype=np.int64) if resample in ("topics", "both") else None
    for b in range(samples):
        if sys_idx is not None:
            sys_idx[b] = rng.integers(0, n_sys, n_sys)
        if top_idx is not None:
            top_idx[b] = rng.integers(0, n_top, n_top)
    return sys_idx, top_idx


def counts(idx: np.ndarray, n: int) -> np.ndarray:
    """(B, n) float64: how often each item is drawn in each sample (one bincount of every sample's
    draws offset by its row)."""
    b = idx.shape[0]
    flat = (np.arange(b)[:, None] * n + np.asarray(idx, dtype=np.int64)).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def bootstrap(statistic: Callable[[np.ndarray | None, np.ndarray | None, int, int], np.ndarray],
              drawn: tuple[np.ndarray | None, np.ndarray | None], chunk: int) -> np.ndarray:
    """The bootstrap samples (B, ...) of a statistic: ``statistic(system draws (b, S) or None,
    topic draws (b, T) or None, start, stop)`` gives samples start:stop from their draws
    (:func:`draws`); evaluated ``chunk`` samples at a time to bound the memory, so the samples do
    not depend on the chunk size."""
    sys_idx, top_idx = drawn
    samples = (sys_idx if sys_idx is not None else top_idx).shape[0]
    out = None
    for start in range(0, samples, max(1, chunk)):
        stop = min(samples, start + max(1, chunk))
        part = np.asarray(statistic(None if sys_idx is None else sys_idx[start:stop],
                                    None if top_idx is None else top_idx[start:stop], start, stop))
        if out is None:
            out = np.empty((samples, *part.shape[1:]))
        out[start:stop] = part
    return out


def paired_bootstrap_p(best: np.ndarray, other: np.ndarray) -> np.ndarray:
    """One-sided paired bootstrap p-value that ``best`` does not exceed ``other`` (Koehn 2004,
    "Statistical Significance Tests for Machine Translation Evaluation", §4): the share of the
    samples (axis 0, the same draws for both) where best* - other* <= 0, among those where both
    are defined."""
    d = best - other
    both = ~np.isnan(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((d <= 0) & both).sum(axis=0) / both.sum(axis=0)


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile bootstrap interval (Efron & Tibshirani 1993, §13.3) over axis 0: the
    (1 - confidence)/2 and 1 - (1 - confidence)/2 percentiles, numpy's linear interpolation, NaN
    samples dropped; NaN where no sample is defined."""
    tail = (1 - confidence) / 2 * 100
    samples = np.asarray(samples, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN columns: no interval
        if samples.ndim < 2 or not samples.shape[0] or not samples.size:
            return np.nanpercentile(samples, tail, axis=0), np.nanpercentile(samples, 100 - tail, axis=0)
        # numpy's nanpercentile goes column by column in Python; the columns without NaN take
        # percentile's one vectorised pass, which gives the same values (nanpercentile computes
        # each column with it once its NaNs are dropped).
        lo, hi = np.percentile(samples, [tail, 100 - tail], axis=0)
        missing = np.isnan(samples).any(axis=0)
        if missing.any():
            lo[missing] = np.nanpercentile(samples[:, missing], tail, axis=0)
            hi[missing] = np.nanpercentile(samples[:, missing], 100 - tail, axis=0)
        return lo, hi


def gaussian_density(values: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Gaussian kernel density estimate of 1-D ``values`` at ``grid``, as scipy's
    ``gaussian_kde(values)(grid)`` with its default bandwidth (Scott's rule, Scott 1992,
    "Multivariate Density Estimation", §6.3): kernel variance = var(values, ddof=1) * n^(-2/5);
    the density is the mean of the n normal densities. Here for a figure, without scipy.stats'
    second of import."""
    values, grid = np.asarray(values, dtype=float), np.asarray(grid, dtype=float)
    bandwidth = np.sqrt(np.var(values, ddof=1)) * values.size ** -0.2
    u = (grid[:, None] - values[None, :]) / bandwidth
    return np.exp(-0.5 * u * u).sum(axis=1) / (values.size * bandwidth * np.sqrt(2 * np.pi))


def sorted_pair_counts(x, y) -> tuple[int, int, int, int, int]:
    """(concordant, discordant, tied in x only, tied in y only, tied in both) of the pairs of 1-D x
    and y (items with NaN on either side left out), exact ties, in O(n log n): Knight's (1966,
    JASA 61, "A computer method for calculating Kendall's tau with ungrouped data") way, which scipy's
    ``kendalltau`` also takes. Sorted by (x, y), a pair is discordant exactly when its y values are
    inverted; the ties come from the runs of equal x, equal y and equal (x, y); concordant is the rest."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[ok], y[ok]
    n = x.size
    if n < 2:
        return 0, 0, 0, 0, 0
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    same_x = xs[1:] == xs[:-1]
    tied_x, tied_both = _tied_pairs(same_x), _tied_pairs(same_x & (ys[1:] == ys[:-1]))
    _, y_rank, y_runs = np.unique(ys, return_inverse=True, return_counts=True)
    tied_y = int((y_runs * (y_runs - 1) // 2).sum())
    dis = _inversions(y_rank.reshape(-1), y_runs.size)
    con = n * (n - 1) // 2 - dis - tied_x - tied_y + tied_both
    return con, dis, tied_x - tied_both, tied_y - tied_both, tied_both


def _tied_pairs(same: np.ndarray) -> int:
    """The pairs within the runs of a sorted sequence, given where each item equals the one before."""
    run = np.diff(np.flatnonzero(np.r_[True, ~same, True]))       # the lengths of the runs
    return int((run * (run - 1) // 2).sum())


def _inversions(r: np.ndarray, m: int) -> int:
    """The pairs i < j with r[i] > r[j] of integers 0 <= r < m, one bit of r at a time from the
    highest (a wavelet tree): among the items whose higher bits agree, kept in their original order,
    every item with the bit 0 counts the items before it with the bit 1; then each such group is
    split stably by the bit. O(n log m) in whole numbers."""
    a = r.astype(np.int64)
    n, total = a.size, 0
    for b in range(max(1, int(m - 1).bit_length()) - 1, -1, -1):
        prefix, bit = a >> (b + 1), (a >> b) & 1
        start = np.flatnonzero(np.r_[True, prefix[1:] != prefix[:-1]])        # the groups' first items
        group = np.repeat(np.arange(start.size), np.diff(np.r_[start, n]))
        ones = np.cumsum(bit) - bit                                              # ones before each item
        ones_before = ones - ones[start][group]                                  # ... within its group
        total += int(ones_before[bit == 0].sum())
        zero = 1 - bit
        zeros = np.cumsum(zero) - zero
        zeros_before = zeros - zeros[start][group]
        zeros_in_group = np.add.reduceat(zero, start)[group]
        place = start[group] + np.where(bit == 0, zeros_before, zeros_in_group + ones_before)
        moved = np.empty_like(a)
        moved[place] = a
        a = moved
    return total
