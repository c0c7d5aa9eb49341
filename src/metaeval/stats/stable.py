"""Numerically stable building blocks: scaling by a power of two, and means and medians that
cannot overflow (found by the fuzz suite: every statistic right for any finite input).

A vector of extreme magnitude (its largest finite |value| beyond 2^64 or below 2^-64) is brought
into [0.5, 1) by a power of two before it is centred, summed or squared; a vector of ordinary
magnitude is used as it is, the very same array, so ordinary data give the numbers they always
gave, bit for bit (numpy's order of summation depends on the memory layout too, so even an exact
copy is not made). Scaling by 2^k is exact (a double's exponent changes, its digits do not), and
so are the sums, products, quotients and square roots formed afterwards, each rounded as unscaled:
fl(a 2^k + b 2^k) = fl(a + b) 2^k. Kept apart from :mod:`metaeval.stats.core` (and free of its
imports) because the scoring jobs use the means: a change to the statistics must not re-run them.
"""

from __future__ import annotations

import math
import statistics
import warnings
from typing import Sequence

import numpy as np

ORDINARY = 64     # |exponent| of a vector's largest magnitude up to which it is used as it is
_HIGH, _LOW = 2.0**ORDINARY, 2.0**(-ORDINARY - 1)   # frexp exponent within +-ORDINARY: _LOW <= |x| < _HIGH


def binary_scale(x, axis: int = -1, used=None):
    """(x', e): x with every vector along ``axis`` whose largest finite magnitude is extreme (above
    2^64 or below 2^-64, see below) multiplied by the power of two 2^-e that brings that magnitude
    into [0.5, 1) (``np.frexp``: max |x| = m 2^e, 0.5 <= m < 1), and e (keepdims; 0 for the vectors
    left as they are). ``used`` (broadcast with x): only those items count, and in a scaled x the
    others become 0. Without an extreme vector, x itself is returned: the very array, so ordinary
    data go through every routine exactly as before, bit for bit (numpy's order of summation
    depends on the memory layout too).

    Why a power of two: multiplying a double by 2^k changes its exponent only, so it is exact
    (unless the result is subnormal: a value 2^1022 times smaller than its vector's largest, which
    no sum with it can notice), and so is every sum, product, quotient and square root formed from
    such values afterwards, rounded as unscaled: fl(a 2^k + b 2^k) = fl(a + b) 2^k. A correlation
    of scaled vectors is the correlation of the vectors. Why 2^64: below it in magnitude (and above
    2^-64) no sum of squares of centred values, nor the product of two such sums, can overflow or
    underflow for any number of items a data set can have; beyond it they can (1e300 and -1e300 in
    one vector: each square is infinite), and scaled they cannot, as every centred value is then
    below 2 in magnitude."""
    x = np.asarray(x, dtype=float)
    big = np.fmax.reduce(np.abs(x), axis=axis, keepdims=True, initial=0.0)      # NaN ignored
    if ((big < _HIGH) & ((big >= _LOW) | (big == 0))).all():                     # the common case, fast
        return x, np.zeros(big.shape, dtype=int)
    chosen = x if used is None else np.where(used, x, 0.0)
    finite = np.where(np.isfinite(chosen), np.abs(chosen), 0.0)
    e = np.frexp(np.max(finite, axis=axis, keepdims=True, initial=0.0))[1]
    e = np.where(np.abs(e) > ORDINARY, np.clip(e, -1022, 1024), 0)
    if not e.any():
        return x, e
    return np.ldexp(chosen, -e), e


def ordinary(x, axis: int = -1):
    """x with its extreme vectors scaled by a power of two (:func:`binary_scale`; x itself when it
    has none). For the routines with an absolute tolerance (FRANK's partial correlation: residuals
    that are zero up to rounding), meant for values of order 1 and not scale-free: scores of 1e-300
    are then judged as scores of order 1 are, and ordinary scores are untouched."""
    return binary_scale(x, axis)[0]


def _far(values: Sequence[float]) -> int:
    """The power of two of the largest finite magnitude in ``values`` when it is extreme, else 0."""
    big = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    e = math.frexp(big)[1]
    return min(max(e, -1022), 1024) if abs(e) > ORDINARY else 0


def mean_of(values: Sequence[float]) -> float:
    """``math.fsum(values) / len(values)`` (the correctly rounded sum over n), also where that sum
    would overflow (two scores of 1e308): extreme values are summed scaled by a power of two and
    the mean scaled back, exactly (:func:`binary_scale`)."""
    e = _far(values)
    if not e:
        return math.fsum(values) / len(values)
    return math.ldexp(math.fsum(math.ldexp(v, -e) for v in values) / len(values), e)


def median_of(values: Sequence[float]) -> float:
    """``statistics.median(values)``, also where the two middle values' sum would overflow: with
    extreme values their mean is taken scaled by a power of two and scaled back, exactly."""
    e = _far(values)
    if not e:
        return statistics.median(values)
    ordered = sorted(values)
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    return math.ldexp((math.ldexp(low, -e) + math.ldexp(high, -e)) / 2, e)


def nanmean(x, axis: int = -1):
    """``np.nanmean`` along ``axis`` (NaN for an all-NaN slice, without a warning), also where the
    sum would overflow: an extreme vector is averaged scaled by a power of two and scaled back."""
    xs, e = binary_scale(x, axis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(xs, axis=axis)
    return np.ldexp(mean, np.squeeze(e, axis=axis)) if e.any() else mean
