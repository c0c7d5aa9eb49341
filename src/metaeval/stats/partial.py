"""Partial correlation of a metric and a human score controlling for the system (FRANK, Pagnoni,
Balachandran & Tsvetkov 2021, §5 and their released ``evaluation/evaluate.py``).

FRANK's definition: regress the metric and the human score each on one-hot indicators of the
system (an ordinary least-squares fit with an intercept, which predicts each system's mean), keep
the residuals, i.e. subtract each system's mean, and correlate the residuals:

* partial Pearson = Pearson r of the residuals; its p-value as ``scipy.stats.pearsonr`` of the
  residuals gives it, with n - 2 degrees of freedom (FRANK's code). The strict test of a partial
  correlation with k = (systems - 1) covariates has n - k - 2 degrees of freedom (pingouin's
  ``partial_corr``); we report both;
* partial Spearman (FRANK) = Spearman rho of the residuals (ranks taken after removing the system
  means), p-value from ``scipy.stats.spearmanr`` of the residuals (n - 2 df);
* partial Spearman of ranks (pingouin's ``partial_corr(method="spearman")``): the partial Pearson
  of the ranked metric and human scores given the system. It differs from FRANK's (which ranks the
  residuals); we report it as well so both definitions can be compared.

FRANK's script passes the one-hot matrix sparse, so scikit-learn's LinearRegression solves it by
the iterative lsqr: its residuals are within ~1e-5 of the exact group-mean residuals used here
(Pearson agrees to ~1e-10, Spearman of the residuals to ~1e-5 on the release); with a dense matrix
(an exact least-squares fit) the two agree to 1e-9 (tests/test_factuality.py).

The Pearson partial correlation equals pingouin's ``partial_corr(x, y, covar=<system dummies>)``
(tests/test_factuality.py checks to 1e-9). Williams tests between two metrics' partial
correlations are FRANK's ``metric_metric_correlation``: the three residualised Pearson r's of the
summaries both metrics score, and the Williams t (n - 3 df, :mod:`metaeval.stats.williams`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .core import pearson, percentile_interval, ranks
from .stable import binary_scale, ordinary
from .williams import williams_test

# residuals that are zero up to rounding (a metric constant within every system) have no correlation
_TOLERANCE = 1e-12
_UNIT = 2.0**-53      # the unit roundoff of a double


def _residual_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of residuals along the last axis (:func:`metaeval.stats.core.pearson`), NaN where
    either side's residuals are zero up to rounding."""
    return pearson(x, y, tolerance=_TOLERANCE)


class Partial(NamedTuple):
    """One metric's partial correlations with the human score over n summaries of k+1 systems."""
    n: int
    systems: int
    pearson: float
    pearson_p: float          # n - 2 df (FRANK's code)
    pearson_p_strict: float   # n - (systems - 1) - 2 df (pingouin)
    spearman: float           # Spearman of the residuals (FRANK)
    spearman_p: float         # n - 2 df (scipy.stats.spearmanr of the residuals)
    spearman_ranks: float     # partial Pearson of the ranks (pingouin's method="spearman")


NAN_PARTIAL = Partial(0, 0, *(np.nan,) * 6)


def group_codes(groups) -> np.ndarray:
    """Integer codes 0..G-1 of the group labels (order of first sorted label)."""
    _, codes = np.unique(np.asarray(groups), return_inverse=True)
    return codes.reshape(-1)


def group_sums(values: np.ndarray, codes: np.ndarray, groups: int) -> np.ndarray:
    """The sum of each group's members (codes 0..groups-1) along the last axis, (..., groups): the
    exact sum rounded once, or within about one unit in its last place, through any cancellation and
    on any machine (the same numbers in any process: no BLAS kernel, so no order that depends on the
    CPU or the memory's alignment).

    Method: the members of each group added in index order by Ogita, Rump & Oishi's Sum2 ("Accurate
    sum and dot product", SIAM J. Sci. Comput. 26(6), 2005, Algorithm 4.4): Knuth's TwoSum keeps
    each addition's rounding error, the errors are summed beside and added at the end; the error is
    at most u|S| + g^2 sum|x| (their Proposition 4.5, u = 2^-53, g = (m - 1)u / (1 - (m - 1)u) for m
    members). Where the second term could exceed u|S| (a sum that cancels to within about 1e-11 of
    its terms' magnitudes, e.g. 1e300 - 1e300 - 0.17, or to zero), the sum is taken again by
    ``math.fsum`` (Shewchuk's exact summation, correctly rounded). A plain sum (the matrix product
    used before) keeps nothing below the last place of its largest term: summed in one order,
    1e300 + (-0.17) + (-1e300) is 0. Callers pass values of at most 2^64 (:func:`residualise` scales
    extreme ones), so no partial sum overflows."""
    values = np.asarray(values, dtype=float)
    members = [np.flatnonzero(codes == k) for k in range(groups)]
    counts = np.array([m.size for m in members], dtype=np.int64)
    width = int(counts.max()) if groups else 0
    position = np.full((groups, width), codes.size)          # past a group's end: the appended zero
    for k, m in enumerate(members):
        position[k, :m.size] = m
    padded = np.concatenate([values, np.zeros(values.shape[:-1] + (1,))], axis=-1)
    total = np.zeros(values.shape[:-1] + (groups,))
    errors, magnitude = np.zeros_like(total), np.zeros_like(total)
    for j in range(width):
        term = padded[..., position[:, j]]
        added = total + term
        back = added - total
        errors += (total - (added - back)) + (term - back)    # TwoSum: the rounding error, exactly
        total = added
        magnitude += np.abs(term)
    total = total + errors
    slack = np.maximum(counts - 1, 1) * _UNIT
    bound = (slack / (1 - slack)) ** 2 * magnitude * 2      # 2: room for the rounding of the bound itself
    for index in zip(*np.nonzero(bound > _UNIT * np.abs(total))):
        total[index] = math.fsum(values[index[:-1]][members[index[-1]]].tolist())
    return total


def residualise(values: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``values`` minus its group's mean, along the last axis (the residuals of an OLS fit on one-hot
    group indicators with an intercept, as FRANK's LinearRegression on OneHotEncoder).

    Method: each group's sum accurate to its last place whatever the cancellation
    (:func:`group_sums`), divided by the group's size, subtracted from each member: every residual
    is then the exact residual up to a few roundings of the mean and one of the difference, so the
    residuals of a group keep the values' order and residuals of different groups are in the
    exact residuals' order unless they lie within a few units in the last place of the means
    (ties and order as exact arithmetic gives them, as far as doubles can hold them). Computed on
    the values scaled by a power of two (:func:`metaeval.stats.stable.binary_scale`) and scaled
    back: exact, so the same numbers bit for bit, and no group sum overflows (1e300 + 1e300)."""
    values, e = binary_scale(values, axis=-1)
    g = int(codes.max()) + 1 if codes.size else 0
    means = group_sums(values, codes, g) / np.bincount(codes, minlength=g)
    residuals = values - means[..., codes]
    return np.ldexp(residuals, e) if e.any() else residuals


def _t_p(r: float, df: int) -> float:
    """Two-sided p of a correlation r with df degrees of freedom (t = r sqrt(df / (1 - r^2)))."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    if not np.isfinite(r) or df < 1:
        return np.nan
    if abs(r) >= 1:
        return 0.0
    t = r * np.sqrt(df / (1 - r * r))
    return float(2 * stats.t.sf(abs(t), df))


def partial_residuals(metric, human, systems):
    """(metric residuals, human residuals, system codes, the Pearson r of residuals along the last
    axis) of the summaries where both scores are defined: what :func:`partial_correlation`'s Pearson
    correlates (NaN residuals with fewer than 2 systems or fewer than 3 summaries beyond one per system)."""
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = ordinary(x[ok]), ordinary(y[ok])
    codes = group_codes(np.asarray(systems)[ok])
    n, g = x.size, (int(codes.max()) + 1 if x.size else 0)
    if g < 2 or n - g < 2:
        return np.full(n, np.nan), np.full(n, np.nan), codes, _residual_pearson
    return residualise(x, codes), residualise(y, codes), codes, _residual_pearson


def partial_correlation(metric, human, systems) -> Partial:
    """FRANK's partial correlations (module docstring) over the summaries where both scores are
    defined. Undefined (NaN) with fewer than 2 systems, fewer than 3 summaries beyond one per
    system, or a constant residual."""
    rx, ry, codes, _ = partial_residuals(metric, human, systems)
    n, g = rx.size, (int(codes.max()) + 1 if rx.size else 0)
    if g < 2 or n - g < 2:
        return Partial(n, g, *(np.nan,) * 6)
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = ordinary(x[ok]), ordinary(y[ok])
    r = float(_residual_pearson(rx, ry))
    rho = float(_residual_pearson(ranks(rx), ranks(ry)))
    rho_ranks = float(_residual_pearson(residualise(ranks(x), codes), residualise(ranks(y), codes)))
    return Partial(n, g, r, _t_p(r, n - 2), _t_p(r, n - (g - 1) - 2), rho, _t_p(rho, n - 2), rho_ranks)


def within_system_draws(codes: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """(samples, n) indices of summaries drawn with replacement within each system (every system
    keeps its number of summaries): ``default_rng(seed)``, system by system in code order, all
    samples of a system at once."""
    rng = np.random.default_rng(seed)
    idx = np.empty((samples, codes.size), dtype=np.int64)
    for g in range(int(codes.max()) + 1):
        members = np.flatnonzero(codes == g)
        idx[:, members] = members[rng.integers(0, members.size, size=(samples, members.size))]
    return idx


def bootstrap_partial(metric, human, systems, samples: int, seed: int, confidence: float
                      ) -> tuple[float, float, float, float]:
    """Percentile bootstrap intervals (pearson_lo, pearson_hi, spearman_lo, spearman_hi) of FRANK's
    partial Pearson and Spearman: summaries resampled with replacement within each system (the
    design keeps every system and its number of summaries), residualised again in every sample;
    ``default_rng(seed)``."""
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = ordinary(x[ok]), ordinary(y[ok])
    codes = group_codes(np.asarray(systems)[ok])
    if x.size == 0 or codes.max() < 1 or samples < 1:
        return (np.nan,) * 4
    idx = within_system_draws(codes, samples, seed)
    rx, ry = residualise(x[idx], codes), residualise(y[idx], codes)
    r = _residual_pearson(rx, ry)
    rho = _residual_pearson(ranks(rx), ranks(ry))
    return tuple(float(v) for v in (*percentile_interval(r, confidence), *percentile_interval(rho, confidence)))


def bootstrap_partial_many(metrics: np.ndarray, human, systems, samples: int, seed: int, confidence: float
                           ) -> np.ndarray:
    """:func:`bootstrap_partial` of every row of ``metrics`` (M, n), all defined where ``human`` is:
    the same resamples (they depend only on the systems and the seed), so the same intervals, with
    the human side residualised and ranked once. Returns (M, 4)."""
    x, y = ordinary(np.asarray(metrics, dtype=float)), ordinary(np.asarray(human, dtype=float))
    codes = group_codes(np.asarray(systems))
    out = np.full((x.shape[0], 4), np.nan)
    if y.size == 0 or codes.max() < 1 or samples < 1 or not x.shape[0]:
        return out
    idx = within_system_draws(codes, samples, seed)
    ry = residualise(y[idx], codes)
    rank_y = ranks(ry)
    for k in range(x.shape[0]):
        rx = residualise(x[k][idx], codes)
        for j, v in enumerate((_residual_pearson(rx, ry), _residual_pearson(ranks(rx), rank_y))):
            out[k, 2 * j:2 * j + 2] = percentile_interval(v, confidence)
    return out


class WilliamsPair(NamedTuple):
    n: int
    r_a: float        # partial r of metric a with the human score
    r_b: float
    r_ab: float       # partial r between the two metrics
    p: float          # one-sided: a correlates more strongly than b (n - 3 df)


def williams_partial(a, b, human, systems) -> WilliamsPair:
    """FRANK's Williams test between two metrics on partial correlations: over the summaries both
    metrics and the human score define, all three residualised on the system, then the one-sided
    Williams test that a's partial r exceeds b's (:func:`metaeval.stats.williams.williams_test`)."""
    a, b, h = (np.asarray(v, dtype=float) for v in (a, b, human))
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
    codes = group_codes(np.asarray(systems)[ok])
    n = int(ok.sum())
    if n < 4 or codes.max() < 1:
        return WilliamsPair(n, np.nan, np.nan, np.nan, np.nan)
    ra, rb, rh = (residualise(ordinary(v[ok]), codes) for v in (a, b, h))
    r_a, r_b, r_ab = (float(_residual_pearson(u, v)) for u, v in ((ra, rh), (rb, rh), (ra, rb)))
    if not all(np.isfinite((r_a, r_b, r_ab))):
        return WilliamsPair(n, r_a, r_b, r_ab, np.nan)
    return WilliamsPair(n, r_a, r_b, r_ab, float(williams_test(r_a, r_b, r_ab, n)))
