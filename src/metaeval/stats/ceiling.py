"""The human ceiling: how well annotators agree with each other, on the scale of metric correlations.

Method (split-half reliability; Spearman 1910, Brown 1910; the "human baseline" of WMT's metric
meta-evaluation, Freitag et al. 2021/2023, where a held-out set of human ratings is scored against
the others like a metric). For a group of m annotators and each k = 1 .. m - 1, every set H of k
annotators is *held out*: the mean of H's scores (per summary) is correlated with the mean of the
other m - k annotators' scores - the *target* - exactly as a metric is correlated with human
scores, and every predictor (a metric, another group's mean) is correlated with the *same* target.
Values are averaged over the held-out sets (all of them, or ``max_sets`` drawn without repetition,
seeded). "Mean" stands for the data set's aggregation rule (:mod:`metaeval.stats.aggregation`,
applied per summary by :func:`metaeval.stats.rule_grids.aggregate_stack`): with a median,
majority-else-mean or trimmed-mean rule, the held-out set and the target are the rule over their
annotators, so a metric is judged against the same kind of target as the correlation tables use.
The classical-model formula below is for the mean. k = 1 is leave one annotator out: "a single
annotator against the mean of the others". k = 0 is the full group's mean as the target (no
annotator held out): what the correlation tables report for a metric.

Levels (the project's definitions): system level = Pearson / Spearman / Kendall tau-b over the
summarizers of their mean score over their judged summaries (the human system score is the mean over
topics of the per-summary mean of the annotators); summary level = within each topic across the
summarizers, averaged over the topics where it is defined (:func:`metaeval.stats.correlation.
summary_level`, the correlation stage's summary-level table), or, where the correlation stage pools
(fewer than 3 summarizers, or a benchmark that correlates so: QAGS, XSumFaith), over every judged
summary pooled (``pooled``).

What is comparable: a metric's and a held-out set's correlations with the same targets (the same
k, group, dimension and level) - both are judged against the mean of m - k annotators, so both are
limited by the same target noise. Not comparable: a value at k with one at another k (the targets
average a different number of annotators; by Spearman-Brown a mean of k annotators with single-rater
reliability rho has reliability k rho / (1 + (k - 1) rho)), a correlation against the m - 1 others
with one against the full mean of m (the correlation tables'), or values across dimensions or levels.
Under the classical model (item true score variance s_t^2, independent annotator noise s_e^2), the
held-out mean of k correlates with the mean of the other m - k at
V / sqrt((V + s_e^2 / k)(V + s_e^2 / (m - k))), V = s_t^2 (tested on simulated data).

Human parity (:func:`parity`): a bootstrap over topics (items, drawn with replacement) and
annotators (in each sample one held-out annotator drawn uniformly from the group; the target is
the mean of the others, or their aggregate by the data set's rule): P(the predictor's correlation
with the held-out target >= the held-out annotator's), and one-sided centred-bootstrap p-values
(Hall & Wilson 1991) of the difference d = r(predictor) - r(annotator): ``p_below`` for H1 d < 0
(the predictor is worse than one annotator), ``p_above`` for H1 d > 0; p = (1 + #{d* - d <= d}) /
(1 + B) and (1 + #{d* - d >= d}) / (1 + B). Systems are not resampled (they are what is ranked); the metric's
system scores are recomputed from the drawn topics, as the correlation bootstrap does.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from .bootstrap import resampled_means
from .core import counts, pearson_against, ranks
from .stable import nanmean as stable_nanmean
from .correlation import column_correlations, point_correlations

COEFFICIENTS = ("pearson", "spearman", "kendall")
LEVELS = ("system", "summary")


def nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """numpy's nanmean without the warning of an all-NaN slice (NaN there), for any finite values
    (:func:`metaeval.stats.stable.nanmean`)."""
    return stable_nanmean(x, axis)


def system_scores(grids: np.ndarray) -> np.ndarray:
    """Mean over topics (last axis) of (..., S, T) grids: the system scores."""
    return nanmean(grids, axis=-1)


def held_out_sets(m: int, k: int, max_sets: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """The held-out sets of k of m annotators: all C(m, k) when there are at most ``max_sets``,
    else ``max_sets`` of them drawn without repetition (sorted)."""
    every = list(itertools.combinations(range(m), k))
    if len(every) <= max_sets:
        return every
    chosen = rng.choice(len(every), size=max_sets, replace=False)
    return [every[i] for i in sorted(chosen)]


@dataclass
class Correlations:
    """Correlations of P predictors with Q targets at both levels: ``system`` and ``summary`` are
    (3, P, Q) (pearson, spearman, kendall); ``per_topic`` (3, P, Q, T) the within-topic values."""

    system: np.ndarray
    summary: np.ndarray
    per_topic: np.ndarray


def slice_correlations(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson, Spearman and Kendall tau-b (3, P, Q, N) of every x[p, :, n] with every y[q, :, n]
    (x (P, S, N), y (Q, S, N): N slices, e.g. topics or bootstrap samples, of S items each), with
    the definitions of :func:`metaeval.stats.correlation.column_correlations` (NaN with fewer than
    3 items or a constant side). Slices without missing values are computed all at once; a slice
    with one goes through ``column_correlations`` (its rows where both are defined)."""
    P, S, N = x.shape
    Q = y.shape[0]
    out = np.full((3, P, Q, N), np.nan)
    if S < 3 or not P or not Q or not N:
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        for c, (a, b) in enumerate(((x, y), (ranks(x, axis=1), ranks(y, axis=1)))):
            against = pearson_against(b, axis=1)
            for p in range(P):       # one predictor at a time bounds the memory at (Q, S, N)
                out[c, p] = against(a[p][None])
        i, j = np.triu_indices(S, 1)
        dx, dy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
        num = np.einsum("pkn,qkn->pqn", dx, dy)
        den = np.sqrt((dx != 0).sum(axis=1)[:, None] * (dy != 0).sum(axis=1)[None].astype(float))
        out[2] = np.clip(num / den, -1, 1)
    constant = (np.ptp(x, axis=1) == 0)[:, None] | (np.ptp(y, axis=1) == 0)[None]       # (P, Q, N)
    out[:, constant] = np.nan
    missing = np.isnan(x).any(axis=(0, 1)) | np.isnan(y).any(axis=(0, 1))
    for n in np.flatnonzero(missing):
        p, s, k, _ = column_correlations(x[:, :, n].T, y[:, :, n].T)
        out[:, :, :, n] = p, s, k
    return out


def pooled_correlations(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson, Spearman and Kendall tau-b (3, P, Q) of every x[p] with every y[q] (x (P, S, T), y
    (Q, S, T)) over every (summarizer, topic) cell where both are defined, pooled
    (:func:`metaeval.stats.correlation.point_correlations`: NaN with fewer than 3 cells or a
    constant side; Kendall's pairs counted after sorting, so thousands of summaries cost n log n)."""
    xs, ys = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
    out = np.full((3, len(xs), len(ys)), np.nan)
    for p, a in enumerate(xs):
        for q, b in enumerate(ys):
            out[:, p, q] = point_correlations(a, b)[:3]
    return out


def correlate(predictors: np.ndarray, targets: np.ndarray, predictor_systems: np.ndarray | None = None,
              pooled: bool = False) -> Correlations:
    """Every predictor grid (P, S, T) with every target grid (Q, S, T): system level over the
    system scores (the predictors' own system scores ``predictor_systems`` (P, S) when given, e.g.
    a corpus-level metric's, else their means over topics), summary level within each topic over
    the summarizers, averaged over the topics where defined (NaN when none), or with ``pooled`` over
    every summary (:func:`pooled_correlations`)."""
    xs = system_scores(predictors) if predictor_systems is None else predictor_systems
    system = slice_correlations(xs[:, :, None], system_scores(targets)[:, :, None])[..., 0]
    per_topic = slice_correlations(predictors, targets)
    summary = pooled_correlations(predictors, targets) if pooled else nanmean(per_topic, axis=-1)
    return Correlations(system, summary, per_topic)


@dataclass
class CeilingRow:
    k: int                    # annotators held out (0: none, the full mean is the target)
    rest: int                 # annotators in the target
    predictor: str
    kind: str                 # annotator | annotators | group_mean | metric
    level: str
    coefficient: str
    value: float
    sets: int                 # held-out sets the value averages (where defined)


def ceiling(m: int, names: Sequence[str], grid_of: Callable[[tuple[int, ...]], np.ndarray],
            predictors: Mapping[str, tuple[str, np.ndarray, np.ndarray | None]], max_sets: int, seed: int,
            rule: str = "mean", pooled: bool = False) -> list[CeilingRow]:
    """The ceiling of one group and dimension (module docstring). ``grid_of(indices)`` = the (S, T)
    per-summary score of those annotators (of ``m``, named ``names``) aggregated by the data set's
    rule (``rule`` names it in the held-out sets' rows: "mean of 2 held out"); ``predictors``:
    name -> (kind, (S, T) per-summary grid, (S,) own system scores or None). Rows for k = 0 (the
    predictors against the full mean), every k = 1 .. m - 1 (the held-out sets' mean and every
    predictor, averaged over the same sets) and, at k = 1, each annotator; ``pooled``: the summary
    level over every summary pooled."""
    rng = np.random.default_rng(seed)
    pred_names = list(predictors)
    pred_grids = np.stack([predictors[p][1] for p in pred_names]) if pred_names else None
    rows: list[CeilingRow] = []

    def add(k, rest, predictor, kind, values: dict[str, np.ndarray]):
        """values: level -> (3, sets) correlations; the mean over defined sets."""
        for level in LEVELS:
            for c, coef in enumerate(COEFFICIENTS):
                v = values[level][c]
                ok = ~np.isnan(v)
                rows.append(CeilingRow(k, rest, predictor, kind, level, coef,
                                       float(np.mean(v[ok])) if ok.any() else math.nan, int(ok.sum())))

    everyone = tuple(range(m))
    if pred_names and m >= 1:
        full = grid_of(everyone)[None]
        corr = correlate(pred_grids, full, _own_systems(predictors, pred_names, pred_grids), pooled)
        for i, p in enumerate(pred_names):
            add(0, m, p, predictors[p][0], {lv: getattr(corr, lv)[:, i, :] for lv in LEVELS})
    for k in range(1, m):
        sets = held_out_sets(m, k, max_sets, rng)
        held = np.stack([grid_of(h) for h in sets])
        targets = np.stack([grid_of(tuple(a for a in everyone if a not in h)) for h in sets])
        corr = correlate(held, targets, pooled=pooled)
        diag = {lv: np.stack([getattr(corr, lv)[:, q, q] for q in range(len(sets))], axis=1) for lv in LEVELS}
        add(k, m - k, f"{rule} of {k} held out" if k > 1 else "single annotator", "annotators", diag)
        if k == 1:
            for q, (a,) in enumerate(sets):
                add(1, m - 1, names[a], "annotator", {lv: diag[lv][:, q:q + 1] for lv in LEVELS})
        if pred_names:
            pc = correlate(pred_grids, targets, _own_systems(predictors, pred_names, pred_grids), pooled)
            for i, p in enumerate(pred_names):
                add(k, m - k, p, predictors[p][0], {lv: getattr(pc, lv)[:, i, :] for lv in LEVELS})
    return rows


def _own_systems(predictors, names, grids) -> np.ndarray:
    own = [predictors[p][2] if predictors[p][2] is not None else system_scores(grids[i]) for i, p in enumerate(names)]
    return np.stack(own)


# ----------------------------------------------------------------------------- human parity

@dataclass
class ParityRow:
    predictor: str
    level: str
    coefficient: str
    value: float              # mean over held-out annotators of r(predictor, target)
    annotator: float          # mean over held-out annotators of r(annotator, target)
    p_parity: float           # P*(r(predictor) >= r(annotator))
    p_below: float
    p_above: float
    samples: int              # defined bootstrap samples


def parity(m: int, grid_of: Callable[[tuple[int, ...]], np.ndarray], predictor_grids: np.ndarray,
           predictor_names: Sequence[str], system_of_draws: Callable[[np.ndarray], np.ndarray],
           samples: int, seed: int, pooled: bool = False) -> list[ParityRow]:
    """Human parity of every predictor against a single annotator of a group of m (module
    docstring). ``predictor_grids`` (P, S, T): per-summary scores (summary level);
    ``system_of_draws(c)``: the predictors' system scores (B, S, P) for topic counts c (B, T)
    (all ones = the full data). Needs m >= 2. ``pooled``: the summary level over every summary
    pooled, resampled for Pearson's r only (each drawn topic's summaries weighted by its count;
    Spearman's and Kendall's parity there are NaN)."""
    if m < 2 or not len(predictor_names):
        return []
    T = predictor_grids.shape[2]
    rng = np.random.default_rng(seed)
    top_idx = np.empty((samples, T), dtype=np.int64)
    held = np.empty(samples, dtype=np.int64)
    for b in range(samples):        # per sample: the topics, then the held-out annotator
        top_idx[b] = rng.integers(0, T, T)
        held[b] = rng.integers(0, m)
    c = counts(top_idx, T) if samples else np.zeros((0, T))
    singles = np.stack([grid_of((a,)) for a in range(m)])                       # (m, S, T)
    targets = np.stack([grid_of(tuple(x for x in range(m) if x != a)) for a in range(m)])
    P = len(predictor_names)
    full_sys = system_of_draws(np.ones((1, T)))[0]                               # (S, P)
    # full data: the mean over held-out annotators
    corr_pred = correlate(predictor_grids, targets, full_sys.T, pooled)         # (3, P, m)
    corr_ann = correlate(singles, targets, pooled=pooled)                        # (3, m, m), diagonal
    diag = {lv: np.stack([getattr(corr_ann, lv)[:, a, a] for a in range(m)], axis=1) for lv in LEVELS}
    # summary level under the draws: topic-weighted means of the within-topic correlations
    pt_pred = corr_pred.per_topic                                                 # (3, P, m, T)
    pt_ann = np.stack([corr_ann.per_topic[:, a, a] for a in range(m)], axis=1)   # (3, m, T)
    boot_sum_pred = np.full((3, P, samples), np.nan)
    boot_sum_ann = np.full((3, samples), np.nan)
    for a in range(m):
        sel = held == a
        if not sel.any():
            continue
        cw = c[sel]                                                                # (b, T)
        if pooled:      # Pearson over the drawn topics' summaries, each counted as often as its topic
            boot_sum_pred[0][:, sel] = pooled_pearson_draws(predictor_grids, targets[a], cw).T
            boot_sum_ann[0, sel] = pooled_pearson_draws(singles[a][None], targets[a], cw)[:, 0]
            continue
        boot_sum_pred[:, :, sel] = _weighted_topic_mean(pt_pred[:, :, a, :], cw)
        boot_sum_ann[:, sel] = _weighted_topic_mean(pt_ann[:, a, None, :], cw)[:, 0]
    # system level under the draws: system scores from the drawn topics
    boot_sys_pred = np.full((3, P, samples), np.nan)
    boot_sys_ann = np.full((3, samples), np.nan)
    if samples:
        pred_sys = system_of_draws(c)                                              # (B, S, P)
        S = singles.shape[1]
        single_sys = resampled_means(singles.reshape(m * S, T), c).reshape(m, S, samples)
        target_sys = resampled_means(targets.reshape(m * S, T), c).reshape(m, S, samples)
        b = np.arange(samples)
        x = np.concatenate([np.transpose(pred_sys, (2, 1, 0)), single_sys[held, :, b].T[None]], axis=0)  # (P + 1, S, B)
        r = slice_correlations(x, target_sys[held, :, b].T[None])[:, :, 0, :]                    # (3, P + 1, B)
        boot_sys_pred, boot_sys_ann = r[:, :P], r[:, P]
    rows = []
    for level, full_pred, boot_pred, boot_ann in (("system", corr_pred.system, boot_sys_pred, boot_sys_ann),
                                                  ("summary", corr_pred.summary, boot_sum_pred, boot_sum_ann)):
        for ci, coef in enumerate(COEFFICIENTS):
            ann_value = _mean_defined(diag[level][ci])
            for i, name in enumerate(predictor_names):
                value = _mean_defined(full_pred[ci, i])
                d_hat = value - ann_value
                d = boot_pred[ci, i] - boot_ann[ci]
                d = d[~np.isnan(d)]
                if not len(d) or math.isnan(d_hat):
                    rows.append(ParityRow(name, level, coef, value, ann_value, math.nan, math.nan, math.nan, len(d)))
                    continue
                rows.append(ParityRow(name, level, coef, value, ann_value, float(np.mean(d >= 0)),
                                      float((1 + np.sum(d - d_hat <= d_hat)) / (1 + len(d))),
                                      float((1 + np.sum(d - d_hat >= d_hat)) / (1 + len(d))), len(d)))
    return rows


def pooled_pearson_draws(x: np.ndarray, y: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Pearson's r (b, P) of every x[p] (x (P, S, T)) with y (S, T) over the cells where both are
    defined, each topic's cells counted c[i, t] times (c (b, T): the topic draws of b samples), from
    each topic's sums (count, sum x, sum y, sum x^2, sum y^2, sum xy), so a sample costs O(T) per
    predictor; NaN where fewer than 3 cells are drawn or a side is constant."""
    ok = ~np.isnan(x) & ~np.isnan(y)[None]
    xs, ys = np.where(ok, x, 0.0), np.where(ok, y[None], 0.0)
    n, sx, sy, sxx, syy, sxy = (c @ part.sum(axis=1).T for part in (ok.astype(float), xs, ys, xs * xs, ys * ys,
                                                                      xs * ys))
    cells = (c > 0).astype(float) @ ok.sum(axis=1).T
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy = sxx - sx * sx / n, syy - sy * sy / n
        r = (sxy - sx * sy / n) / np.sqrt(vx * vy)
    defined = (cells >= 3) & (vx > 1e-12 * np.maximum(1.0, sxx)) & (vy > 1e-12 * np.maximum(1.0, syy))
    return np.where(defined, np.clip(r, -1.0, 1.0), np.nan)


def _mean_defined(v: np.ndarray) -> float:
    v = np.asarray(v, dtype=float)
    ok = ~np.isnan(v)
    return float(np.mean(v[ok])) if ok.any() else math.nan


def _weighted_topic_mean(per_topic: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(3, P, T) within-topic values and (b, T) topic counts -> (3, P, b): the count-weighted mean
    over the topics where the value is defined (NaN without any)."""
    ok = ~np.isnan(per_topic)
    num = np.einsum("cpt,bt->cpb", np.where(ok, per_topic, 0.0), c)
    den = np.einsum("cpt,bt->cpb", ok.astype(float), c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
