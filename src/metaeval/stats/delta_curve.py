"""What a score difference means: how often humans agree with a metric's verdict on a pair of
systems, as a function of the size of the metric's difference (after Kocmi, Zouhar, Federmann &
Post 2024, "Navigating the Metrics Maze: Reconciling Score Magnitudes and Accuracies", ACL).

* Pairs (:func:`pair_deltas`): for every pair of systems, the metric's delta = |score a - score b|
  of the (oriented: higher is better) system scores, and whether the humans agree with the metric's
  verdict - the system the metric scores higher also has the higher human system score. A pair the
  metric ties (no verdict) or the humans tie (no preference) has no agreement (NaN) and is left out
  of the fit.
* The curve (:func:`fit_logistic`): P(agree | delta) = 1 / (1 + exp(-b delta)), a logistic
  regression through 1/2 at delta 0 (no intercept), fitted by maximum likelihood on the individual
  pairs (Newton-Raphson; statsmodels' ``Logit(agree, delta)`` without a constant gives the same b).
  Monotone in delta; at a zero difference the metric's verdict is a coin flip. Kocmi et al. fit a
  sigmoid a / (1 + exp(-b delta)) (their MT-Thresholds tool's form: a / 2 at delta 0, asymptote a)
  by least squares to the accuracies of binned deltas, over thousands of pairs of MT systems. We
  differ in two ways, for the size of summarization benchmarks (tens to hundreds of pairs): every
  pair enters the fit (a binomial likelihood, no bins: binning would leave a handful of pairs per
  bin), and the asymptote is 1 (their fitted a are 0.88-0.99), which leaves one parameter, a concave
  likelihood with a unique maximum, and a fit stable enough to repeat for every bootstrap sample; a
  free intercept instead (tried) puts the curve far from 1/2 at delta 0 on small benchmarks. Where
  every pair with a verdict agrees (or every one disagrees) no finite fit exists: the slope is
  +infinity (-infinity), the curve a step at 0 (``converged`` False): every difference has
  agreement 1 (0), and the thresholds are 0 (NA).
* Thresholds (:func:`thresholds`): the smallest delta at which the curve reaches an accuracy q
  (80, 90, 95 %), within the observed deltas: NaN (NA) where the curve does not reach q by the
  largest observed delta (the data never reach it: beyond them it is an extrapolation), and where
  the slope is not positive (the metric's bigger differences are not more often right).
* The interval (:func:`bootstrap_fits`): the pairs are resampled with replacement (seeded,
  ``numpy.random.default_rng(seed)``), the curve refitted on each sample (the same Newton steps, the
  draws as weights), and the percentile interval taken of the curve at a delta, or of a threshold
  (a sample that does not reach q counts as +infinity, so an upper end that is not reached is NA).
  Pairs share systems, so they are not independent; the interval does not model that dependence.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .core import percentile_interval

ITERATIONS = 50          # Newton steps at most (a non-separated fit converges in well under 10)
TOLERANCE = 1e-10        # on the largest change of a (scaled) coefficient
ETA_CLIP = 35.0          # |b x| beyond this: p is 0 or 1 to double precision


class Fit(NamedTuple):
    b: np.ndarray            # (R,) slope per unit of delta: P(agree) = 1 / (1 + exp(-b delta))
    converged: np.ndarray    # (R,) bool


def pair_indices(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (a, b), a < b, in ``numpy.triu_indices`` order."""
    return np.triu_indices(n_systems, 1)


def pair_deltas(metric: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For system scores ``metric`` (V, S) and ``human`` (C, S): (metric difference a - b (V, P),
    human difference a - b (C, P), delta = |metric difference| (V, P), agreement (V, C, P): 1 where
    the two differences have the same sign, 0 where opposite, NaN where either is 0 or missing)."""
    metric, human = np.atleast_2d(np.asarray(metric, dtype=float)), np.atleast_2d(np.asarray(human, dtype=float))
    a, b = pair_indices(metric.shape[1])
    dm = metric[:, a] - metric[:, b]
    dh = human[:, a] - human[:, b]
    sm, sh = np.sign(dm), np.sign(dh)
    agree = (sm[:, None, :] == sh[None, :, :]).astype(float)
    agree[((sm == 0) | np.isnan(sm))[:, None, :] | ((sh == 0) | np.isnan(sh))[None, :, :]] = np.nan
    return dm, dh, np.abs(dm), agree


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> Fit:
    """Maximum-likelihood logistic regression of ``y`` (0/1) on ``x`` without an intercept, one fit
    per row of the (R, n) arrays, ``w`` the rows' weights (counts of a bootstrap draw; 0 = left out).
    Newton-Raphson from b = 0 on x scaled by each row's largest weighted |x| (for the conditioning),
    at most :data:`ITERATIONS` steps, rows that have converged set aside; a row without information
    (no weight, or every x 0) keeps b = 0."""
    x, y = np.atleast_2d(np.asarray(x, dtype=float)), np.atleast_2d(np.asarray(y, dtype=float))
    w = np.ones_like(x) if w is None else np.atleast_2d(np.asarray(w, dtype=float))
    scale = np.max(np.where(w > 0, np.abs(x), 0.0), axis=1)
    scale[scale == 0] = 1.0
    u = x / scale[:, None]
    R = x.shape[0]
    b = np.zeros(R)
    done = np.zeros(R, dtype=bool)
    act = np.arange(R)                       # the rows still moving (separated rows take every step)
    for _ in range(ITERATIONS):
        ua, wa = u[act], w[act]
        p = 1.0 / (1.0 + np.exp(-np.clip(b[act, None] * ua, -ETA_CLIP, ETA_CLIP)))
        g = (wa * (y[act] - p) * ua).sum(axis=1)
        h = (wa * p * (1.0 - p) * ua * ua).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            step = np.where(h > 0, g / h, 0.0)
        b[act] += step
        still = np.abs(step) >= TOLERANCE
        done[act[~still]] = True
        act = act[still]
        if not len(act):
            break
    # still moving after every step: every pair with a difference agrees (or every one disagrees),
    # so the likelihood grows without bound: b is +inf (-inf), the curve a step at 0
    b[~done] = np.sign(b[~done]) * np.inf
    return Fit(b / scale, done)


def accuracy_at(fit: Fit, delta) -> np.ndarray:
    """The fitted P(agree) at ``delta``: (R,) for a number, (R, G) for G deltas."""
    d = np.asarray(delta, dtype=float)
    x = np.atleast_1d(d)[None, :]
    with np.errstate(invalid="ignore"):
        eta = np.where(x == 0, 0.0, fit.b[:, None] * x)       # an infinite slope is 1/2 at 0
    out = 1.0 / (1.0 + np.exp(-np.clip(eta, -700, 700)))
    return out[:, 0] if d.ndim == 0 else out


def thresholds(fit: Fit, levels: Sequence[float], max_delta) -> np.ndarray:
    """The smallest delta in [0, max_delta] where the fitted curve reaches each accuracy level
    (above 1/2): logit(q) / b, (R, L); NaN where the curve does not reach it by ``max_delta``
    (scalar or (R,)), or never (b <= 0)."""
    q = np.asarray(levels, dtype=float)[None, :]
    b = fit.b[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        at = np.where(b > 0, np.log(q / (1 - q)) / b, np.nan)
    top = np.broadcast_to(np.asarray(max_delta, dtype=float), fit.b.shape)[:, None]
    return np.where(at <= top, at, np.nan)


def bootstrap_fits(x: np.ndarray, y: np.ndarray, samples: int, seed: int) -> Fit:
    """The fit of each of ``samples`` bootstrap samples of the pairs (``x``, ``y``: (n,)): the draws
    ``default_rng(seed).integers(0, n, (samples, n))`` as counts (weights) of each pair."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)
    if not samples or not n:
        return Fit(np.full(samples, np.nan), np.zeros(samples, dtype=bool))
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    w = np.zeros((samples, n))
    np.add.at(w, (np.repeat(np.arange(samples), n), draws.ravel()), 1.0)
    return fit_logistic(np.broadcast_to(x, (samples, n)), np.broadcast_to(y, (samples, n)), w)


def interval(values: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval over axis 0 (:func:`metaeval.stats.core.percentile_interval`), NaN
    samples counting as +infinity (a threshold not reached); an end at infinity is NaN."""
    v = np.where(np.isnan(values), np.inf, values)
    with np.errstate(invalid="ignore"):
        lo, hi = percentile_interval(v, confidence)
    return np.where(np.isfinite(lo), lo, np.nan), np.where(np.isfinite(hi), hi, np.nan)
