"""The bootstrap as it was before it was vectorised: one sample at a time, with numpy
reductions over the gathered topics and systems. Kept as the reference the vectorised
metaeval.stats.bootstrap is tested against (tests/test_correlation.py); not used by the workflow.

Bootstrap confidence intervals of system-level Pearson r (Deutsch, Dror & Roth 2021,
"A Statistical Analysis of Summarization Evaluation Metrics using Resampling Methods", TACL).

Percentile bootstrap, seeded (``numpy.random.default_rng(seed)``): each sample draws systems,
topics or both with replacement (``resample``). When topics are resampled every system score is
recomputed from the drawn topics exactly as it is defined - the mean (``_A``) or median (``_M``)
of a per-summary metric, the corpus BLEU or chrF of the summed sufficient statistics (sacrebleu's
``compute_bleu``, chrF's F; mean over a summarizer's reference sets), the mean human score. A system whose
score is undefined in a sample (none of its summaries drawn) is left out of that sample. The
interval is the (1 - confidence)/2 and (1 + confidence)/2 percentiles of the sample
correlations; a correlation undefined on the full data gets no interval (NaN).
"""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np

from metaeval.metrics.bleu import bleu_from_statistics
from metaeval.metrics.chrf import chrf_from_counts
from metaeval.stats.bootstrap import PerSummary
from metaeval.stats.core import RESAMPLING
from metaeval.variants import Variant, is_sentence_bleu


def pearson_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r between every column of x (n, a) and every column of y (n, b): (a, b); NaN where
    a column is constant (the library's until the bootstrap was vectorised)."""
    xc = x - x.mean(axis=0)
    yc = y - y.mean(axis=0)
    sx = np.sqrt((xc ** 2).sum(axis=0))
    sy = np.sqrt((yc ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc.T @ yc) / np.outer(sx, sy)
    r[np.outer(sx == 0, sy == 0) | (sx == 0)[:, None] | (sy == 0)[None, :]] = np.nan
    return np.clip(r, -1, 1)


class _Stacked:
    """The per-summary grids the mean and median variants aggregate, stacked into one (K, S, T)
    array, so a sample's means and medians are two vectorised reductions."""

    def __init__(self, ps: PerSummary, variants: Sequence[Variant]):
        keys = [k for k in ps.metrics if not is_sentence_bleu(k)]   # sentence BLEU is not aggregated
        keys = [k for k in keys if k not in ps.corpus_stats]          # nor sentence chrF
        self.x = np.stack([ps.metrics[k] for k in keys]) if keys else np.zeros((0, len(ps.summarizers), len(ps.topics)))
        self.has_nan = bool(np.isnan(self.x).any())
        index = {k: i for i, k in enumerate(keys)}
        self.mean_cols, self.rows, self.is_median, self.corpus_cols = [], [], [], []
        for v, variant in enumerate(variants):
            if variant.corpus_level:
                self.corpus_cols.append((v, variant))
            else:
                self.mean_cols.append(v)
                self.rows.append(index[variant.summary_metric])
                self.is_median.append(variant.statistic == "M")
        self.mean_cols = np.array(self.mean_cols, dtype=int)
        self.rows = np.array(self.rows, dtype=int)
        self.is_median = np.array(self.is_median, dtype=bool)


def corpus_per_summarizer(stats: np.ndarray, variant: Variant) -> np.ndarray:
    """Corpus BLEU or chrF of every summarizer from its per-topic statistics (S, T, sets, k), NaN
    where a summarizer has none: the score of the summed statistics per reference set, averaged
    over the sets the summarizer has."""
    score = bleu_from_statistics if variant.family == "bleu" else lambda x: chrf_from_counts([int(v) for v in x])
    summed = np.nansum(stats, axis=1)                                  # (S, sets, 10)
    has = ~np.all(np.isnan(stats[..., 0]), axis=1)                      # (S, sets)
    out = np.full(stats.shape[0], np.nan)
    for s in range(stats.shape[0]):
        values = [score(summed[s, k]) for k in np.flatnonzero(has[s])]
        if values:
            out[s] = np.mean(values)
    return out


def variant_scores(ps: PerSummary, topic_idx: np.ndarray, variants: Sequence[Variant],
                   stacked: _Stacked | None = None) -> np.ndarray:
    """System scores (S, V) of the variants, from the topics ``topic_idx`` (with repetition)."""
    st = stacked or _Stacked(ps, variants)
    out = np.full((len(ps.summarizers), len(variants)), np.nan)
    if len(st.mean_cols):
        x = st.x[:, :, topic_idx]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(x, axis=2) if st.has_nan else x.mean(axis=2)
            median = np.nanmedian(x, axis=2) if st.has_nan else np.median(x, axis=2)
        out[:, st.mean_cols] = np.where(st.is_median[:, None], median[st.rows], mean[st.rows]).T
    for v, variant in st.corpus_cols:
        out[:, v] = corpus_per_summarizer(ps.corpus_stats[str(variant)][:, topic_idx], variant)
    return out


def human_scores(ps: PerSummary, topic_idx: np.ndarray, combinations: Sequence[str]) -> np.ndarray:
    """Mean human score (S, C) of every combination over the topics ``topic_idx``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.stack([np.nanmean(ps.human[c][:, topic_idx], axis=1) for c in combinations], axis=1)


def bootstrap_pearson(ps: PerSummary, variants: Sequence[Variant], combinations: Sequence[str],
                      system_metric: np.ndarray, system_human: np.ndarray, samples: int, resample: str, seed: int,
                      confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of Pearson r for every (variant, combination): (lo, hi), each
    (V, C). ``system_metric`` (S, V) and ``system_human`` (S, C) are the full-data system scores,
    used as they are when only systems are resampled."""
    if resample not in RESAMPLING:
        raise ValueError(f"unknown resampling {resample!r}; expected one of {RESAMPLING}")
    rng = np.random.default_rng(seed)
    n_sys, n_top = len(ps.summarizers), len(ps.topics)
    rs = np.full((samples, len(variants), len(combinations)), np.nan)
    all_topics = np.arange(n_top)
    stacked = _Stacked(ps, variants)
    for b in range(samples):
        sys_idx = rng.integers(0, n_sys, n_sys) if resample in ("systems", "both") else np.arange(n_sys)
        top_idx = rng.integers(0, n_top, n_top) if resample in ("topics", "both") else all_topics
        if resample == "systems":
            m, h = system_metric, system_human
        else:
            m, h = variant_scores(ps, top_idx, variants, stacked), human_scores(ps, top_idx, combinations)
        m, h = m[sys_idx], h[sys_idx]
        for c in range(len(combinations)):
            ok = ~np.isnan(h[:, c])
            mm = m[ok]
            complete = ~np.isnan(mm).any(axis=0)
            if ok.sum() >= 3:
                rs[b, complete, c] = pearson_columns(mm[:, complete], h[ok][:, [c]])[:, 0]
                # variants with a missing system in this sample: their own complete cases
                for v in np.flatnonzero(~complete):
                    sel = ~np.isnan(mm[:, v])
                    if sel.sum() >= 3:
                        rs[b, v, c] = pearson_columns(mm[sel][:, [v]], h[ok][sel][:, [c]])[0, 0]
    tail = (1 - confidence) / 2 * 100  # percentile bootstrap
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanpercentile(rs, tail, axis=0)
        hi = np.nanpercentile(rs, 100 - tail, axis=0)
    return lo, hi
