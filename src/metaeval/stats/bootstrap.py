"""Bootstrap confidence intervals of system-level Pearson r (Deutsch, Dror & Roth 2021,
"A Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods", TACL).

Percentile bootstrap, seeded (``numpy.random.default_rng(seed)``): each sample draws systems,
topics or both with replacement (``resample``; per sample the systems first, then the topics;
:func:`metaeval.stats.core.draws`, evaluated by :func:`metaeval.stats.core.bootstrap`).
When topics are resampled every system score is recomputed from the drawn topics exactly as it is
defined - the mean (``_A``) or median (``_M``) of a per-summary metric, the corpus BLEU or chrF of
the summed sufficient statistics (sacrebleu's ``compute_bleu``; chrF's F of
:func:`metaeval.metrics.chrf.f_scores`; mean over a summarizer's reference sets), the mean human
score; a system with no summary among the drawn topics has no score in that
sample and is left out of it. A sample's correlation is Pearson's r over the drawn systems (a
system drawn twice counts twice); it is undefined (left out) with fewer than 3 drawn systems or
when the drawn scores of either side are all equal. The interval is the (1 - confidence)/2 and
(1 + confidence)/2 percentiles (numpy's linear interpolation) of the defined sample correlations;
a correlation undefined on the full data gets no interval (NaN; the caller's rule).

Computation (all samples at once, linear in topics): the draws become a (samples x topics) count
matrix C; means are one matrix product with C; medians walk each summarizer's sorted per-summary
values with C's counts (a compiled kernel); summed BLEU and chrF statistics are a product with C; Pearson's
r of every variant and combination over the drawn systems is a weighted Pearson with the systems'
draw counts as weights (a system without a score in a sample gets weight 0 for that variant).
``tests/reference_bootstrap.py`` keeps the sample-by-sample implementation
this replaced; the two agree to 1e-12 (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..metrics.families import REGISTRY, of_form
from ..variants import Variant
from . import core
from .core import Plan, counts, draws, percentile_interval
from .stable import binary_scale



@dataclass
class PerSummary:
    """Per-summary scores on a (summarizer, topic) grid, NaN where a summarizer has no summary.

    ``metrics``: per-summary metric id (:attr:`metaeval.variants.Variant.summary_metric`) -> (S, T);
    ``corpus_stats``: corpus-level variant id (``BLEU_ST1_RS0``, ``CHRF``) -> (S, T, reference
    sets, k) sufficient statistics (:data:`metaeval.metrics.bleu.STATISTICS`,
    :attr:`metaeval.metrics.chrf.ChrfSpec.statistics`); ``human``: combination -> (S, T).
    """

    summarizers: list[str]
    topics: list[str]
    metrics: dict[str, np.ndarray]
    corpus_stats: dict[str, np.ndarray] = field(default_factory=dict)
    human: dict[str, np.ndarray] = field(default_factory=dict)
    # the metrics' rows sorted for the medians (:func:`sorted_rows`) by the metrics' ids: the sort
    # does not depend on the draws, and a bootstrap asks for its medians a few samples at a time
    sorted_cache: dict = field(default_factory=dict, repr=False, compare=False)


# ----------------------------------------------------------------------------- resampled system scores

# The rows and samples of every matrix product of :func:`resampled_means`: a product's rounding
# follows its shape (the BLAS picks its kernel by size), so with one shape for every product a row's
# sums are the same bits whichever rows (metrics) and samples are computed with it, as the job's
# memo (metaeval.memo) needs when it computes a metric that joins alone.
PRODUCT_ROWS, PRODUCT_SAMPLES = 128, 128


def blocked_product(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a @ c.T (a: (R, T), c: (B, T)) as products of one shape (:data:`PRODUCT_ROWS` x T times
    T x :data:`PRODUCT_SAMPLES`, the last block padded with zeros), so each entry depends on its own
    row and sample alone."""
    R, T = a.shape
    B = c.shape[0]
    out = np.empty((R, B))
    left, right = np.zeros((PRODUCT_ROWS, T)), np.zeros((T, PRODUCT_SAMPLES))
    for r0 in range(0, R, PRODUCT_ROWS):
        r1 = min(R, r0 + PRODUCT_ROWS)
        left[:r1 - r0] = a[r0:r1]
        left[r1 - r0:] = 0.0
        for b0 in range(0, B, PRODUCT_SAMPLES):
            b1 = min(B, b0 + PRODUCT_SAMPLES)
            right[:, :b1 - b0] = c[b0:b1].T
            right[:, b1 - b0:] = 0.0
            out[r0:r1, b0:b1] = (left @ right)[:r1 - r0, :b1 - b0]
    return out


def resampled_means(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Means of every row of x (R, T; NaN = no value) over the drawn topics of every sample
    (c: (B, T) counts): (R, B), NaN where no drawn topic has a value; for any finite values (a row
    of extreme magnitude is summed scaled by a power of two: :func:`metaeval.stats.stable.binary_scale`).
    Each row's means are the same bits whatever other rows and samples are asked with it
    (:func:`blocked_product`)."""
    valid = ~np.isnan(x)
    x, e = binary_scale(x, axis=1)         # extreme rows summed scaled by a power of two (exact)
    sums = blocked_product(np.where(valid, x, 0.0), c)
    n = blocked_product(valid.astype(np.float64), c)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(n > 0, sums / np.where(n > 0, n, 1.0), np.nan)
    return np.ldexp(means, e) if e.any() else means


def sorted_rows(x: np.ndarray) -> tuple[np.ndarray, ...]:
    """(each row's values in ascending order, that order, where x has a value, the rows' binary
    scale exponents) of x (R, T; NaN = no value): what :func:`resampled_medians` needs of x,
    whatever the draws."""
    valid = ~np.isnan(x)
    x, e = binary_scale(x, axis=1)         # extreme rows: the middle values' mean scaled (exact)
    order = np.argsort(np.where(valid, x, np.inf), axis=1, kind="stable")
    return np.take_along_axis(x, order, axis=1), order, valid, e


def resampled_medians(x: np.ndarray, c: np.ndarray, rows: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """Medians (numpy's: the mean of the two middle values for an even count) of every row of x
    (R, T; NaN = no value) over the drawn topics of every sample (c: (B, T) counts): (R, B).
    ``rows``: :func:`sorted_rows` of x, when already computed."""
    values, order, valid, e = sorted_rows(x) if rows is None else rows
    total = np.rint(valid.astype(np.float64) @ c.T).astype(np.int64)
    drawn = np.rint(c).astype(np.int64)
    if x.size * c.shape[0] <= _SMALL_MEDIANS:
        out = _walked_medians(values, order, valid, drawn, total)
    else:
        out = np.empty((x.shape[0], c.shape[0]))
        from .kernels import resampled_medians as kernel   # defers numba: compiled; imported where needed only

        kernel(values, order, valid.sum(axis=1), drawn, total, out)
    return np.ldexp(out, e) if e.any() else out


# Up to this many (row, topic, sample) cells the medians are walked with numpy: importing numba
# and loading the cached kernel (numba also loads scipy.linalg) takes about 0.6 s, what numpy needs
# for some 50 million cells
_SMALL_MEDIANS = 50_000_000
_MEDIAN_CHUNK = 2_000_000    # cells per numpy walk


def _walked_medians(values, order, valid, drawn, total) -> np.ndarray:
    """The compiled kernel's walk (:func:`metaeval.stats.kernels.resampled_medians`) with numpy: per
    row and sample, the running count of drawn copies along the sorted values; the middle values
    are the first positions where it passes (n - 1) // 2 and n // 2; the median is the one value or
    the two values' mean, the same operations as the kernel. (R, B), NaN where nothing is drawn."""
    rows, samples = total.shape
    out = np.full((rows, samples), np.nan)
    in_order = np.take_along_axis(valid, order, axis=1)                 # (R, T): the sorted values that exist
    step = max(1, _MEDIAN_CHUNK // max(1, values.size))
    r = np.arange(rows)[:, None]
    for a in range(0, samples, step):
        b = min(samples, a + step)
        running = np.cumsum(drawn[a:b][:, order] * in_order, axis=2)   # (b - a, R, T)
        n = total[:, a:b].T                                             # (b - a, R)
        k1, k2 = (n - 1) // 2, n // 2
        j1 = np.minimum((running <= k1[..., None]).sum(axis=2), values.shape[1] - 1)
        j2 = np.minimum((running <= k2[..., None]).sum(axis=2), values.shape[1] - 1)
        low, high = values[r, j1.T], values[r, j2.T]                    # (R, b - a)
        with np.errstate(invalid="ignore"):
            out[:, a:b] = np.where(n.T <= 0, np.nan, np.where((k1 == k2).T, low, (low + high) / 2))
    return out


def resampled_corpus_bleu(stats: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Corpus BLEU (B, S) of every summarizer in every sample from its per-topic statistics
    (S, T, sets, 10): :func:`resampled_corpus_scores` with sacrebleu's ``compute_bleu`` (the BLEU
    family's corpus score; kept by name for the tests that check it against sacrebleu)."""
    return resampled_corpus_scores(stats, c, REGISTRY["bleu"].corpus_scores)


def resampled_corpus_chrf(stats: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Corpus chrF (B, S) as :func:`resampled_corpus_bleu`, chrF's F of the summed statistics
    (S, T, sets, 3 x orders) computed for all samples at once."""
    return resampled_corpus_scores(stats, c, REGISTRY["chrf"].corpus_scores)


def resampled_corpus_scores(stats: np.ndarray, c: np.ndarray, score) -> np.ndarray:
    """The corpus score (B, S) of every summarizer in every sample: ``score`` (rows of int64
    statistics -> one value each: a corpus-level family's
    :meth:`metaeval.metrics.family.CorpusFamily.corpus_scores`) of the summed statistics of the
    drawn topics per reference set, averaged over the sets the summarizer has; NaN without any."""
    valid = ~np.isnan(stats[..., 0])                                      # (S, T, sets)
    summed = np.einsum("bt,stkx->bskx", c, np.nan_to_num(stats))         # integers, exact in float64
    has = np.einsum("bt,stk->bsk", c, valid.astype(np.float64)) > 0
    counts_ = np.rint(summed).astype(np.int64)
    values = np.asarray(score(counts_.reshape(-1, counts_.shape[-1])), dtype=np.float64).reshape(has.shape)
    return mean_over_sets(values, has)


def mean_over_sets(values: np.ndarray, has: np.ndarray) -> np.ndarray:
    """The mean (B, S) of ``values`` (B, S, sets) over the sets where ``has``: the one value itself,
    math.fsum of the values / their number with more (correctly rounded, so the mean of two is
    (a + b) / 2 exactly, done at once for every cell); NaN without any. Cells with three or more
    sets (rare) are summed one by one."""
    n = has.sum(axis=-1)
    out = np.full(n.shape, np.nan)
    first = np.argmax(has, axis=-1)[..., None]
    one = n == 1
    out[one] = np.take_along_axis(values, first, axis=-1)[..., 0][one]
    two = n == 2
    if two.any():
        last = (has.shape[-1] - 1 - np.argmax(has[..., ::-1], axis=-1))[..., None]
        pair = np.take_along_axis(values, first, axis=-1)[..., 0] + np.take_along_axis(values, last, axis=-1)[..., 0]
        out[two] = pair[two] / 2
    for cell in zip(*np.nonzero(n > 2)):
        out[cell] = math.fsum(values[cell][has[cell]]) / int(n[cell])
    return out


def variant_scores(ps: PerSummary, variants: Sequence[Variant], c: np.ndarray) -> np.ndarray:
    """System scores (B, S, V) of the variants in every sample (c: (B, T) topic counts)."""
    n_sys = len(ps.summarizers)
    out = np.full((c.shape[0], n_sys, len(variants)), np.nan)
    by_metric: dict[str, list[int]] = {}
    for v, variant in enumerate(variants):
        if not variant.corpus_level:
            by_metric.setdefault(variant.summary_metric, []).append(v)
    for stat in ("A", "M"):
        cols = [(v, m) for m, vs in by_metric.items() for v in vs if variants[v].statistic == stat]
        metrics = list(dict.fromkeys(m for _, m in cols))
        if not metrics:
            continue
        x = np.concatenate([ps.metrics[m] for m in metrics])             # (M * S, T)
        if stat == "M":
            key = tuple(metrics)
            if key not in ps.sorted_cache:
                ps.sorted_cache[key] = sorted_rows(x)
            scores = resampled_medians(x, c, ps.sorted_cache[key])
        else:
            scores = resampled_means(x, c)
        scores = scores.reshape(len(metrics), n_sys, -1)                  # (M, S, B)
        row = {m: i for i, m in enumerate(metrics)}
        for v, m in cols:
            out[:, :, v] = scores[row[m]].T
    for v, variant in enumerate(variants):
        if variant.corpus_level:
            out[:, :, v] = resampled_corpus_scores(ps.corpus_stats[str(variant)], c,
                                                   of_form(variant.family).corpus_scores)
    return out


def human_scores(ps: PerSummary, combinations: Sequence[str], c: np.ndarray) -> np.ndarray:
    """Mean human score (B, S, C) of every combination in every sample."""
    return np.stack([resampled_means(ps.human[k], c).T for k in combinations], axis=2)


# ----------------------------------------------------------------------------- correlations

def weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson r (B, V) of every column of x (B, S, V) with y (B, S) over the systems, system s
    counted w[b, s] times, over the systems where both have a value (NaN = none): as Pearson's r of
    the drawn rows. NaN with fewer than 3 such rows or when either side's values are all equal.
    The definition of :func:`metaeval.stats.core.pearson` with its own order of floating-point
    operations (squared deviations weighted as w (xc^2), not (w xc) xc; an einsum without missing
    values): kept so that the correlation stage's written intervals stay bit for bit the same.
    A side of extreme magnitude is scaled by a power of two over the systems
    (:func:`metaeval.stats.stable.binary_scale`: exact; ordinary scores are used as they are), so no
    finite scores overflow."""
    if not np.isnan(x).any() and not np.isnan(y).any():
        return _weighted_pearson_complete(x, y, w)
    weights = w[:, :, None] * (~np.isnan(x) & ~np.isnan(y)[:, :, None])          # (B, S, V)
    x0, y0 = np.nan_to_num(x), np.nan_to_num(y)[:, :, None]
    constant_x, constant_y = _constant(x0, weights), _constant(np.broadcast_to(y0, x0.shape), weights)
    # extreme scores scaled over the items that count (one of weight 0 could be far larger; unused)
    x0, y0 = binary_scale(x0, axis=1, used=weights > 0)[0], binary_scale(y0, axis=1, used=weights > 0)[0]
    n = weights.sum(axis=1)                                                       # (B, V)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (weights * x0).sum(axis=1) / n
        my = (weights * y0).sum(axis=1) / n
        xc, yc = x0 - mx[:, None, :], y0 - my[:, None, :]
        cov = (weights * xc * yc).sum(axis=1)
        r = np.clip(cov / np.sqrt((weights * xc ** 2).sum(axis=1) * (weights * yc ** 2).sum(axis=1)), -1, 1)
    r[constant_x | constant_y | (n < 3)] = np.nan
    return r


def _constant(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Whether the values of x (B, S, V) with positive weight are all equal, per (sample, variant)."""
    used = weights > 0
    return np.where(used, x, -np.inf).max(axis=1) == np.where(used, x, np.inf).min(axis=1)


def _weighted_pearson_complete(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`weighted_pearson` when no value is missing (every system keeps its draw count)."""
    drawn = (w > 0)[:, :, None]
    constant_x = np.where(drawn, x, -np.inf).max(axis=1) == np.where(drawn, x, np.inf).min(axis=1)
    y_drawn = np.where(w > 0, y, np.nan)
    constant_y = np.nanmax(y_drawn, axis=1) == np.nanmin(y_drawn, axis=1)
    # extreme scores scaled over the drawn systems (an undrawn one could be far larger; unused)
    x, y = binary_scale(x, axis=1, used=drawn)[0], binary_scale(y, axis=1, used=w > 0)[0]
    n = w.sum(axis=1)                                                             # (B,)
    mx = np.einsum("bs,bsv->bv", w, x) / n[:, None]
    my = np.einsum("bs,bs->b", w, y) / n
    xc = x - mx[:, None, :]
    wyc = w * (y - my[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.einsum("bsv,bs->bv", xc, wyc) / np.sqrt(np.einsum("bsv,bs->bv", xc * xc, w)
                                                        * np.einsum("bs,bs->b", wyc, y - my[:, None])[:, None])
    r = np.clip(r, -1, 1)
    r[constant_x | constant_y[:, None] | (n < 3)[:, None]] = np.nan
    return r


def sample_correlations(m: np.ndarray, h: np.ndarray, sys_idx: np.ndarray | None) -> np.ndarray:
    """Pearson r (B, V, C) of every sample from its system scores m (B, S, V), human scores
    h (B, S, C) and drawn systems (B, S indices, or None = every system once)."""
    n_samples, n_sys = m.shape[:2]
    w = counts(sys_idx, n_sys) if sys_idx is not None else np.ones((n_samples, n_sys))
    return np.stack([weighted_pearson(m, h[:, :, c], w) for c in range(h.shape[2])], axis=2)


def bootstrap_pearson(ps: PerSummary, variants: Sequence[Variant], combinations: Sequence[str],
                      system_metric: np.ndarray, system_human: np.ndarray, plan: Plan, human=None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of Pearson r for every (variant, combination): (lo, hi), each
    (V, C), from ``plan`` (samples, resample, seed, confidence; the draws of
    :func:`metaeval.stats.core.draws`, the interval :func:`metaeval.stats.core.percentile_interval`).
    ``system_metric`` (S, V) and ``system_human`` (S, C) are the full-data system scores,
    used as they are when only systems are resampled. ``human`` (annotators resampled:
    :class:`metaeval.stats.annotator_resampling.HumanResampler`): f(topic counts (b, T), start,
    stop) -> the human system scores (b, S, C) of samples start:stop, instead of the means of the
    human grids (with every topic counted once when topics are not resampled)."""
    n_sys, n_top = len(ps.summarizers), len(ps.topics)

    def sample_pearson(sys_idx, top_idx, start, stop):
        if top_idx is None:
            m = np.broadcast_to(system_metric, (stop - start, *system_metric.shape))
            h = np.broadcast_to(system_human, (stop - start, *system_human.shape)) if human is None else \
                human(np.ones((stop - start, n_top)), start, stop)
        else:
            c = counts(top_idx, n_top)
            m = variant_scores(ps, variants, c)
            h = human_scores(ps, combinations, c) if human is None else human(c, start, stop)
        return sample_correlations(m, h, sys_idx)

    chunk = max(1, int(4e6 // max(1, n_sys * len(variants) + n_top)))    # bounds the memory of a batch
    rs = core.bootstrap(sample_pearson, draws(plan.seed, plan.samples, n_sys, n_top, plan.resample), chunk)
    return percentile_interval(rs, plan.confidence)
