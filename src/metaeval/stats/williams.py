"""Williams test for the difference between dependent correlations, and what Graham (2015) does
with it.

Williams (1959), as given by Steiger (1980, eq. 10) and used by Graham & Baldwin (2014) and
Graham (2015) §4: with r12 = r(M_new, H), r13 = r(M_base, H), r23 = r(M_new, M_base) over n
systems,

    K = 1 - r12^2 - r13^2 - r23^2 + 2 r12 r13 r23
    t = (r12 - r13) sqrt((n - 1)(1 + r23)) / sqrt(2 K (n - 1)/(n - 3) + ((r12 + r13)/2)^2 (1 - r23)^3)

which is t-distributed with n - 3 degrees of freedom under H0: rho12 = rho13. The test is
one-sided: p = P(T >= t) for H1: rho12 > rho13, on signed correlations. R's psych::r.test (2.2.9)
computes the same t but reports P(T >= |t|); the two agree whenever r12 >= r13
(tests/test_williams.py compares with R itself). Older psych used n - 2 degrees of freedom
(the 0.2092 in the nlp-williams README); we do not.
"""

from __future__ import annotations

import numpy as np


def williams_t(r12, r13, r23, n):
    """The Williams t statistic (element-wise over arrays). Where r12 == r13 it is 0.

    Computed on arrays of at least one dimension (the result has the inputs' broadcast shape), so
    that one pair gives the same bits alone as in a matrix of pairs: numpy raises a numpy scalar to
    the power 3 with the C library's pow but an array with its vectorised loop (SVML on AVX-512),
    and the two can differ in the last bit."""
    shape = np.broadcast_shapes(np.shape(r12), np.shape(r13), np.shape(r23))
    r12, r13, r23 = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (r12, r13, r23))
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    den = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    diff = r12 - r13
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(den)
    return np.where(diff == 0, 0.0, t).reshape(shape)


def williams_test(r12, r13, r23, n: int):
    """One-sided p-value that the correlation r12 (new metric with humans) exceeds r13 (base
    metric with humans), given r23 between the two metrics and n systems. Needs n >= 4."""
    if n < 4:
        raise ValueError(f"the Williams test needs at least 4 systems (n - 3 degrees of freedom); got n = {n}")
    # scipy.stats.t.sf(t, df) is special.stdtr(df, -t) (its _sf); called directly, the same numbers
    # without importing scipy.stats (half a second in every job that runs a Williams test)
    from scipy.special import stdtr

    return stdtr(n - 3, -williams_t(r12, r13, r23, n))


def williams_matrix(metric_human: np.ndarray, metric_metric: np.ndarray, n: int) -> np.ndarray:
    """p[i, j] = p-value of the test that metric i correlates more strongly with humans than
    metric j does (NaN on the diagonal and where a correlation is undefined)."""
    h = np.asarray(metric_human, dtype=float)
    p = williams_test(h[:, None], h[None, :], metric_metric, n)
    p = np.asarray(p, dtype=float)
    np.fill_diagonal(p, np.nan)
    bad = np.isnan(h)
    p[bad, :] = np.nan
    p[:, bad] = np.nan
    return p


def adjust(p: np.ndarray, method: str | None) -> np.ndarray:
    """Multiple-comparison correction over all tested ordered pairs (statsmodels' multipletests):
    None (the paper's choice), 'holm' or 'fdr_bh' (Benjamini-Hochberg)."""
    if not method:
        return p
    from statsmodels.stats.multitest import multipletests

    out = p.copy()
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method=method)[1]
    return out


def optimal(p: np.ndarray, alpha: float, defined: np.ndarray | None = None) -> np.ndarray:
    """Graham's optimal variants: those that no other metric significantly outperforms
    (no p[i, j] < alpha in column j). Metrics whose correlation is undefined (``defined`` False)
    are not optimal."""
    beaten = np.any(np.nan_to_num(p, nan=1.0) < alpha, axis=0)
    return ~beaten if defined is None else ~beaten & defined


def assign_clusters(p: np.ndarray, order: np.ndarray, alpha: float) -> np.ndarray:
    """Significance clusters (rank groups) as mt-metrics-eval's AssignRanks (Freitag et al.):
    walk the metrics in ``order`` (decreasing correlation); a metric opens a new cluster when a
    metric placed earlier in the current cluster significantly outperforms it (p <= alpha).
    Returns the cluster (1 = best) of every metric, in the original indexing."""
    clusters = np.zeros(p.shape[0], dtype=int)   # undefined metrics (not in order) stay 0
    current, start = 1, 0
    for pos, j in enumerate(order):
        earlier = order[start:pos]
        if len(earlier) and np.any(np.nan_to_num(p[earlier, j], nan=1.0) <= alpha):
            current += 1
            start = pos
        clusters[j] = current
    return clusters
