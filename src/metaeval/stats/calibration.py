"""Calibration on known truth: the error rates, power and coverage of the project's own tests and
intervals on scores simulated from a model whose truth is known by construction.

Regenerating text and scoring it with ROUGE thousands of times is slow, and the true correlations
of the text simulator (:mod:`metaeval.data.simulate`) are not known in closed form. So the
calibration simulates at the level of the *scores*, from a model fitted to a data set.

**The fitted model** (:func:`fit_components`): every scorer k (the human combination, then metrics)
on a complete grid of S systems x T topics is a multivariate two-way crossed random-effects model

    y[k, s, t] = mean_k + U[k, s] + V[k, t] + W[k, s, t],
    U[., s] ~ N(0, Sigma_sys),  V[., t] ~ N(0, Sigma_top),  W[., s, t] ~ N(0, Sigma_res),

all independent. It is fitted by the method of moments of the two-way ANOVA without replication
(the multivariate form of Searle, Casella & McCulloch 1992, "Variance Components", §4.7: mean
products of rows MP_r = T cov(row means), of columns MP_c = S cov(column means), residual
MP_e = sum of products of the interaction residuals / ((S - 1)(T - 1)); E[MP_r] = Sigma_res +
T Sigma_sys, E[MP_c] = Sigma_res + S Sigma_top, E[MP_e] = Sigma_res), each matrix then projected
onto the positive semi-definite cone (negative eigenvalues set to 0).

**The simulated pair** (:class:`PairModel`, :func:`simulate_grids`): the human H and two metrics
A and B. Metric A has the fitted metric's variance components and B is A with a weaker tie to the
human quality. With independent standard normals Z_H, Z_A, Z_3 per system,

    U_H = sd_h Z_H
    U_A = sd_m (r Z_H + sqrt(1 - r^2) Z_A)                          r = the fitted correlation
    U_B = sd_m ((r - dr) Z_H + sqrt(1 - (r - dr)^2) (kappa Z_A + sqrt(1 - kappa^2) Z_3))

where kappa is the fitted partial correlation, given the human, of two metrics' system effects
(how much of their non-human part they share). Topic effects and per-summary residuals of (H, A, B)
are normal with the fitted variances of the human and the metric, the fitted correlation of human
and metric for (H, A) and (H, B), and the fitted correlation of the two metrics for (A, B)
(raised to 2 c^2 - 1 if needed for a valid covariance). At dr = 0 the grids of A and B are
exchangeable.

**The truth.** Systems are drawn from the population above (the topics too); "power" is the
probability of rejecting over that population of systems, topics and summaries.

* rho_k(inf) = corr(U_k, U_H): the correlation, over the population of systems, of a metric's and
  the humans' *expected* system scores (infinitely many topics): r for A, r - dr for B, so the two
  differ by exactly dr.
* rho_k(T) = corr over the population of systems of the T-topic mean scores that the system-level
  Pearson r correlates (the topic effects shift every system alike and cancel):

      rho_k(T) = (Sigma_sys[h, k] + Sigma_res[h, k] / T)
                 / sqrt((Sigma_sys[h, h] + Sigma_res[h, h] / T) (Sigma_sys[k, k] + Sigma_res[k, k] / T))

  Since A and B share their residual variances and their residual covariance with H,
  rho_A(T) - rho_B(T) = dr sd_h sd_m / sqrt(...): positive for every T exactly when dr > 0, and 0
  when dr = 0. The Williams test and the permutation tests test H0: rho_A(T) = rho_B(T) against
  rho_A(T) > rho_B(T) (one-sided, as the project's Williams test).

**What is computed per replicate** (:func:`run_point`): the system-level Pearson r of A and of B
with H; the one-sided Williams test (:func:`metaeval.stats.williams.williams_test`); the
permutation tests PERM-SYSTEMS / PERM-INPUTS / PERM-BOTH of r_A - r_B
(:func:`metaeval.stats.resampling.permutation_test`, p = its ``greater``); a test rejects when
p < alpha, as :func:`metaeval.stats.williams.optimal`. Coverage: the share of replicates whose
percentile bootstrap interval of A's system-level r (:func:`metaeval.stats.resampling.bootstrap`,
BOOT-SYSTEMS / BOOT-INPUTS / BOOT-BOTH) contains rho_A(T), and rho_A(inf).

**Agreement verdicts** (:func:`verdict_rates`): one pair of systems per replicate whose true human
difference is D_H = delta sd_h (delta in units of the between-system sd of the humans' expected
scores); the metric's true difference is drawn from the population given D_H,
D_A ~ N(beta D_H, 2 sd_m^2 (1 - r^2)), beta = r sd_m / sd_h. The per-topic scores of the two systems
add their residuals (topic effects cancel in paired differences); the verdicts are
:func:`metaeval.stats.verdicts.paired_verdicts` (paired two-sided Wilcoxon). The rate at
delta = 0 is P(verdict != 0) (a difference claimed where the humans' true means are equal; alpha
for the human verdict, more for a metric whose own true difference is not 0); at delta > 0 it is
P(verdict = "the truly better system is better").

Randomness: replicate i of a grid point draws from ``default_rng([seed, S, T, i])``, so the
numbers do not depend on batching, and every difference dr of a grid point uses the same draws
(common random numbers: the power curve in dr is smooth).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields
from typing import Callable, Iterable, Sequence

import numpy as np

from .levels import pearson, statistic
from .resampling import bootstrap, permutation_test
from .verdicts import paired_verdicts
from .williams import williams_test

PERMUTATIONS = ("systems", "inputs", "both")
BOOTSTRAPS = ("systems", "inputs", "both")
CORRELATION_TESTS = ("williams", *(f"perm_{m}" for m in PERMUTATIONS))
VERDICT_TESTS = ("verdict_human", "verdict_metric")
TESTS = (*CORRELATION_TESTS, *VERDICT_TESTS)
TEST_NAMES = {"williams": "Williams", "perm_systems": "PERM-SYSTEMS", "perm_inputs": "PERM-INPUTS",
              "perm_both": "PERM-BOTH", "verdict_human": "verdict (human scores)",
              "verdict_metric": "verdict (metric A)"}
DELTA_R, DELTA_SD = "delta_r", "delta_sd"
SYSTEM_PEARSON = statistic("system", "pearson")


# ----------------------------------------------------------------------------- the fitted model

@dataclass
class Components:
    """A fitted multivariate two-way random-effects model of K scorers (axis order as given)."""

    mean: np.ndarray       # (K,)
    system: np.ndarray     # (K, K) Sigma_sys
    topic: np.ndarray      # (K, K) Sigma_top
    residual: np.ndarray   # (K, K) Sigma_res


def nearest_psd(c: np.ndarray) -> np.ndarray:
    """The symmetric matrix with c's eigenvectors and its negative eigenvalues set to 0."""
    c = (np.asarray(c, dtype=float) + np.asarray(c, dtype=float).T) / 2
    values, vectors = np.linalg.eigh(c)
    return (vectors * np.clip(values, 0, None)) @ vectors.T


def fit_components(y: np.ndarray) -> Components:
    """Method-of-moments (ANOVA) fit of the model to complete grids y (K, S, T) (module docstring)."""
    y = np.asarray(y, dtype=float)
    if np.isnan(y).any():
        raise ValueError("the grids must be complete (no missing score)")
    _, n_sys, n_top = y.shape
    if n_sys < 2 or n_top < 2:
        raise ValueError(f"the model needs at least 2 systems and 2 topics; got {n_sys} and {n_top}")
    rows, cols, grand = y.mean(axis=2), y.mean(axis=1), y.mean(axis=(1, 2))
    dr, dc = rows - grand[:, None], cols - grand[:, None]
    e = y - rows[:, :, None] - cols[:, None, :] + grand[:, None, None]
    mp_rows = n_top * dr @ dr.T / (n_sys - 1)
    mp_cols = n_sys * dc @ dc.T / (n_top - 1)
    mp_res = np.einsum("kst,jst->kj", e, e) / ((n_sys - 1) * (n_top - 1))
    return Components(grand, nearest_psd((mp_rows - mp_res) / n_top), nearest_psd((mp_cols - mp_res) / n_sys),
                      nearest_psd(mp_res))


def _corr(c: np.ndarray, i: int, j: int) -> float:
    den = math.sqrt(c[i, i] * c[j, j])
    return float(c[i, j] / den) if den > 0 else 0.0


def system_correlation(c: Components, topics: float, k: int, h: int = 0) -> float:
    """rho_k(T): the population correlation of scorer k's and scorer h's T-topic system means
    (``topics`` = inf: of the expected system scores)."""
    cov = c.system + (0.0 if math.isinf(topics) else 1.0 / topics) * c.residual
    return _corr(cov, h, k)


@dataclass(frozen=True)
class PairModel:
    """The simulated (human H, metric A, metric B) model (module docstring), from a fitted model."""

    mean_human: float
    mean_metric: float
    sd_human: float             # between-system sd of the humans' expected scores
    sd_metric: float
    r: float                    # rho_A(inf)
    kappa: float                # partial correlation of the metrics' system effects given the human
    topic_var_human: float
    topic_var_metric: float
    topic_r_human_metric: float
    topic_r_metrics: float
    residual_var_human: float
    residual_var_metric: float
    residual_r_human_metric: float
    residual_r_metrics: float

    @classmethod
    def from_components(cls, c: Components) -> PairModel:
        """From a fit of (human, metric A's source, a second metric) (3 scorers)."""
        s = c.system
        if s[0, 0] <= 0 or s[1, 1] <= 0:
            raise ValueError("the human scores or the metric do not vary between systems (no system variance "
                             "component): their correlation is undefined")
        rest = s - np.outer(s[:, 0], s[0, :]) / s[0, 0]          # system covariances given the human
        return cls(float(c.mean[0]), float(c.mean[1]), math.sqrt(s[0, 0]), math.sqrt(s[1, 1]), _corr(s, 0, 1),
                   _corr(rest, 1, 2), float(c.topic[0, 0]), float(c.topic[1, 1]), _corr(c.topic, 0, 1),
                   _corr(c.topic, 1, 2), float(c.residual[0, 0]), float(c.residual[1, 1]), _corr(c.residual, 0, 1),
                   _corr(c.residual, 1, 2))

    def block(self, kind: str) -> np.ndarray:
        """The (H, A, B) covariance of the topic effects or of the residuals: exchangeable in A and
        B, the metrics' correlation raised to 2 c^2 - 1 if needed (the least for a valid matrix)."""
        vh, vm, c, d = (getattr(self, f"{kind}_{x}") for x in ("var_human", "var_metric", "r_human_metric",
                                                               "r_metrics"))
        d = max(d, 2 * c * c - 1)
        ch = c * math.sqrt(vh * vm)
        return np.array([[vh, ch, ch], [ch, vm, d * vm], [ch, d * vm, vm]])

    def components(self, delta: float) -> Components:
        """The (H, A, B) model at difference ``delta`` = rho_A(inf) - rho_B(inf)."""
        ra, rb = self.r, self.r - delta
        sh, sm = self.sd_human, self.sd_metric
        ab = sm * sm * (ra * rb + self.kappa * math.sqrt(max(0.0, 1 - ra * ra)) * math.sqrt(max(0.0, 1 - rb * rb)))
        system = np.array([[sh * sh, sh * sm * ra, sh * sm * rb], [sh * sm * ra, sm * sm, ab],
                           [sh * sm * rb, ab, sm * sm]])
        return Components(np.array([self.mean_human, self.mean_metric, self.mean_metric]), system,
                          self.block("topic"), self.block("residual"))

    def truth(self, delta: float, topics: float) -> tuple[float, float]:
        """(rho_A(T), rho_B(T)) at difference ``delta`` (``topics`` = inf: rho(inf))."""
        c = self.components(delta)
        return system_correlation(c, topics, 1), system_correlation(c, topics, 2)

    def rows(self) -> list[tuple[str, float]]:
        return [(f.name, float(getattr(self, f.name))) for f in fields(self)]

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, float]]) -> PairModel:
        values = dict(rows)
        return cls(**{f.name: float(values[f.name]) for f in fields(cls)})


def _root(c: np.ndarray) -> np.ndarray:
    """A symmetric square root of a positive semi-definite matrix (X @ root has covariance c)."""
    values, vectors = np.linalg.eigh(c)
    return (vectors * np.sqrt(np.clip(values, 0, None))) @ vectors.T


@dataclass
class Draws:
    """The standard normals of one replicate: per system (S, 3), per topic (T, 3), per summary (S, T, 3)."""

    system: np.ndarray
    topic: np.ndarray
    summary: np.ndarray


def draw(rng: np.random.Generator, systems: int, topics: int) -> Draws:
    return Draws(rng.standard_normal((systems, 3)), rng.standard_normal((topics, 3)),
                 rng.standard_normal((systems, topics, 3)))


def simulate_grids(model: PairModel, delta: float, d: Draws) -> np.ndarray:
    """The (H, A, B) score grids (3, S, T) of one replicate at difference ``delta`` (module docstring)."""
    ra, rb, k = model.r, model.r - delta, model.kappa
    zh, za, z3 = d.system.T
    u = np.stack([model.sd_human * zh,
                  model.sd_metric * (ra * zh + math.sqrt(max(0.0, 1 - ra * ra)) * za),
                  model.sd_metric * (rb * zh + math.sqrt(max(0.0, 1 - rb * rb))
                                     * (k * za + math.sqrt(max(0.0, 1 - k * k)) * z3))])
    v = (d.topic @ _root(model.block("topic"))).T                   # (3, T)
    w = np.moveaxis(d.summary @ _root(model.block("residual")), -1, 0)   # (3, S, T)
    mean = np.array([model.mean_human, model.mean_metric, model.mean_metric])
    return mean[:, None, None] + u[:, :, None] + v[:, None, :] + w


def replicate_rng(seed: int, systems: int, topics: int, replicate: int) -> np.random.Generator:
    return np.random.default_rng([seed, systems, topics, replicate])


# ----------------------------------------------------------------------------- one grid point

@dataclass(frozen=True)
class RunSettings:
    """How a grid point is simulated (the config's ``calibration`` section, resolved)."""

    systems: int
    topics: int
    replicates: int
    differences: tuple[float, ...]          # dr > 0; 0 is always simulated
    verdict_differences: tuple[float, ...]  # delta > 0 in sd_h; 0 is always simulated
    permutation_samples: int
    bootstrap_samples: int                  # 0 = no coverage
    confidence: float
    alpha: float
    min_topics: int
    seed: int


@dataclass
class Rejections:
    """One row of the error / power table."""

    test: str
    effect: str             # delta_r (rho_A(inf) - rho_B(inf)) or delta_sd (human system difference / sd_h)
    size: float
    systems: int
    topics: int
    replicates: int
    rejections: int
    true_a: float           # rho_A(T) (correlation tests), NaN for verdicts
    true_b: float

    @property
    def rate(self) -> float:
        return self.rejections / self.replicates

    @property
    def mc_se(self) -> float:
        """The Monte Carlo standard error of the rate (binomial)."""
        return math.sqrt(self.rate * (1 - self.rate) / self.replicates)


@dataclass
class Coverage:
    """One row of the coverage table: BOOT-<method> intervals of rho_A."""

    method: str
    systems: int
    topics: int
    replicates: int
    samples: int
    true_t: float
    covered_t: int
    true_inf: float
    covered_inf: int
    undefined: int          # replicates without an interval (counted as not covering)
    mean_width: float

    @property
    def coverage_t(self) -> float:
        return self.covered_t / self.replicates

    @property
    def coverage_inf(self) -> float:
        return self.covered_inf / self.replicates


@dataclass
class PointResult:
    rejections: list[Rejections]
    coverage: list[Coverage]


def replicate(model: PairModel, delta: float, s: RunSettings, i: int) -> tuple[np.ndarray, list[int], list[int]]:
    """Replicate i of a grid point: its (H, A, B) grids (3, S, T), then the seeds of its
    permutation tests and of its bootstrap intervals (one per method), all from its own stream."""
    rng = replicate_rng(s.seed, s.systems, s.topics, i)
    g = simulate_grids(model, delta, draw(rng, s.systems, s.topics))
    seeds = [int(x) for x in rng.integers(0, 2 ** 31 - 1, len(PERMUTATIONS) + len(BOOTSTRAPS))]
    return g, seeds[:len(PERMUTATIONS)], seeds[len(PERMUTATIONS):]


def correlation_rejections(model: PairModel, delta: float, s: RunSettings) -> list[Rejections]:
    """Williams and the three permutation tests of "A correlates more strongly than B" at
    difference ``delta`` over the replicates of a grid point."""
    n = s.replicates
    r = np.empty((n, 3))                           # r_AH, r_BH, r_AB
    perm = np.zeros((len(PERMUTATIONS), n), dtype=bool)
    for i in range(n):
        g, seeds, _ = replicate(model, delta, s, i)
        m = g.mean(axis=2)
        r[i] = pearson(m[1], m[0]), pearson(m[2], m[0]), pearson(m[1], m[2])
        for j, method in enumerate(PERMUTATIONS):
            if s.permutation_samples:
                p = permutation_test(g[1:], g[0], [[0, 1]], SYSTEM_PEARSON, method, s.permutation_samples, seeds[j])
                perm[j, i] = p.greater[0] < s.alpha
    with np.errstate(invalid="ignore"):
        williams = np.asarray(williams_test(r[:, 0], r[:, 1], r[:, 2], s.systems)) < s.alpha
    ta, tb = model.truth(delta, s.topics)
    counts = [int(williams.sum()), *(int(x) for x in perm.sum(axis=1))]
    tests = CORRELATION_TESTS if s.permutation_samples else CORRELATION_TESTS[:1]
    return [Rejections(t, DELTA_R, delta, s.systems, s.topics, n, c, ta, tb) for t, c in zip(tests, counts)]


def coverage(model: PairModel, s: RunSettings) -> list[Coverage]:
    """Coverage of rho_A(T) and rho_A(inf) by the bootstrap intervals of A's system-level r (the
    same replicates as :func:`correlation_rejections`: A and H do not depend on the difference)."""
    true_t, true_inf = model.truth(0.0, s.topics)[0], model.r
    out = []
    hits = np.zeros((len(BOOTSTRAPS), 3))          # covered T, covered inf, undefined
    widths = [[] for _ in BOOTSTRAPS]
    for i in range(s.replicates):
        g, _, seeds = replicate(model, 0.0, s, i)
        for j, method in enumerate(BOOTSTRAPS):
            b = bootstrap(g[1:2], g[0], SYSTEM_PEARSON, method, s.bootstrap_samples, seeds[j], s.confidence)
            lo, hi = float(b.lo[0]), float(b.hi[0])
            if math.isnan(lo) or math.isnan(hi):
                hits[j, 2] += 1
                continue
            hits[j, 0] += lo <= true_t <= hi
            hits[j, 1] += lo <= true_inf <= hi
            widths[j].append(hi - lo)
    for j, method in enumerate(BOOTSTRAPS):
        out.append(Coverage(method, s.systems, s.topics, s.replicates, s.bootstrap_samples, true_t, int(hits[j, 0]),
                            true_inf, int(hits[j, 1]), int(hits[j, 2]),
                            float(np.mean(widths[j])) if widths[j] else math.nan))
    return out


def verdict_rates(model: PairModel, delta: float, s: RunSettings) -> list[Rejections]:
    """The human and the metric A verdicts on a pair of systems whose true human difference is
    ``delta`` sd_h (module docstring): rejections = verdicts != 0 at delta = 0, else verdicts +1."""
    n, t = s.replicates, s.topics
    res = model.block("residual")[:2, :2]                    # (H, A) residuals
    root = _root(res)
    beta = model.r * model.sd_metric / model.sd_human
    spread = math.sqrt(2 * model.sd_metric ** 2 * max(0.0, 1 - model.r ** 2))
    a, b = np.empty((2, n, t)), np.empty((2, n, t))
    for i in range(n):
        # a stream of its own: the verdicts do not depend on the number of systems
        rng = np.random.default_rng([s.seed, 0, t, i, 1])
        z = rng.standard_normal(1 + 4 * t)
        dh = delta * model.sd_human
        da = beta * dh + spread * z[0]
        wa = z[1:1 + 2 * t].reshape(t, 2) @ root
        wb = z[1 + 2 * t:].reshape(t, 2) @ root
        a[0, i], a[1, i] = model.mean_human + dh + wa[:, 0], model.mean_metric + da + wa[:, 1]
        b[0, i], b[1, i] = model.mean_human + wb[:, 0], model.mean_metric + wb[:, 1]
    out = []
    for k, test in enumerate(VERDICT_TESTS):
        v = paired_verdicts(a[k], b[k], s.alpha, s.min_topics).verdict
        hit = (v != 0) & ~np.isnan(v) if delta == 0 else v == 1
        out.append(Rejections(test, DELTA_SD, delta, s.systems, t, n, int(hit.sum()), math.nan, math.nan))
    return out


def run_point(model: PairModel, s: RunSettings, log: Callable[[str], None] = lambda _: None) -> PointResult:
    """Every test at every difference (0 first) and, with bootstrap samples, the coverage, at one
    (systems, topics) point; ``log`` receives a line per difference."""
    rows: list[Rejections] = []
    for delta in (0.0, *s.differences):
        start = time.perf_counter()
        part = correlation_rejections(model, delta, s)
        rows += part
        log(f"S={s.systems} T={s.topics} dr={delta:g}: " + ", ".join(f"{TEST_NAMES[x.test]} {x.rate:.3f}"
                                                                     for x in part)
            + f" ({time.perf_counter() - start:.1f} s)")
    for delta in (0.0, *s.verdict_differences):
        part = verdict_rates(model, delta, s)
        rows += part
        log(f"T={s.topics} verdicts at delta={delta:g} sd: " + ", ".join(f"{TEST_NAMES[x.test]} {x.rate:.3f}"
                                                                        for x in part))
    cov: list[Coverage] = []
    if s.bootstrap_samples:
        start = time.perf_counter()
        cov = coverage(model, s)
        log(f"S={s.systems} T={s.topics} coverage of rho_A(T) = {cov[0].true_t:.3f}: "
            + ", ".join(f"BOOT-{c.method.upper()} {c.coverage_t:.3f}" for c in cov)
            + f" ({time.perf_counter() - start:.1f} s)")
    return PointResult(rows, cov)


# ----------------------------------------------------------------------------- topics needed

def topics_needed(power: Sequence[tuple[str, str, float, int, float]], target: float
                  ) -> list[tuple[str, str, float, int | None]]:
    """From power rows (test, effect, size, topics, rate): for every (test, effect, size > 0) the
    smallest number of topics whose rate is >= ``target`` (None when no number of topics reaches it),
    in the order the (test, effect, size) first appear."""
    best: dict[tuple[str, str, float], int | None] = {}
    for test, effect, size, topics, rate in power:
        if size <= 0:
            continue
        key = (test, effect, size)
        best.setdefault(key, None)
        if rate >= target and (best[key] is None or topics < best[key]):
            best[key] = topics
    return [(*k, v) for k, v in best.items()]
