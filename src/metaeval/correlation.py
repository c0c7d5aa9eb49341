"""System-level correlation of metric variants with human scores (Graham 2015 §3, §6), with
bootstrap confidence intervals (Deutsch, Dror & Roth 2021), and the summary-level table.

* Point estimates: Pearson r, Spearman rho and Kendall tau-b (scipy) between a variant's system
  scores and a human combination's system scores, over the n summarizers that have both.
* Bootstrap 95 % intervals of Pearson r (percentile method), seeded: resample ``systems``,
  ``topics`` or ``both`` with replacement (Deutsch et al. 2021, "Statistical analysis of summarization
  evaluation metrics using resampling methods", TACL). When topics are resampled, every system
  score is recomputed from the resampled topics exactly as it is defined: mean (A) or median (M)
  of per-summary ROUGE, corpus BLEU from summed sufficient statistics, mean human score. A sample in
  which a score is undefined for some system drops that system from that sample.
* Summary level: within each topic, the correlation across summarizers of per-summary metric and
  human scores, averaged over the topics where it is defined (clearly a different question: does
  the metric rank summaries of one input correctly?).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
from scipy import stats

RESAMPLING = ("systems", "topics", "both")


def pearson_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r between every column of x (n, a) and every column of y (n, b): (a, b); NaN where
    a column is constant."""
    xc = x - x.mean(axis=0)
    yc = y - y.mean(axis=0)
    sx = np.sqrt((xc ** 2).sum(axis=0))
    sy = np.sqrt((yc ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc.T @ yc) / np.outer(sx, sy)
    r[np.outer(sx == 0, sy == 0) | (sx == 0)[:, None] | (sy == 0)[None, :]] = np.nan
    return np.clip(r, -1, 1)


def point_correlations(metric: np.ndarray, human: np.ndarray) -> tuple[float, float, float, int]:
    """Pearson, Spearman, Kendall tau-b and n over the systems where both are defined."""
    ok = ~np.isnan(metric) & ~np.isnan(human)
    m, h = metric[ok], human[ok]
    n = int(ok.sum())
    if n < 3 or np.ptp(m) == 0 or np.ptp(h) == 0:
        return np.nan, np.nan, np.nan, n
    return (float(np.clip(np.corrcoef(m, h)[0, 1], -1, 1)), float(stats.spearmanr(m, h)[0]),
            float(stats.kendalltau(m, h, variant="b")[0]), n)


@dataclass
class PerSummary:
    """Per-summary inputs to topic resampling, on a (system, topic) grid (NaN = no summary).

    ``rouge``: {(measure, stem, stop, prf): (S, T) array}; ``bleu_stats``: {(stem, stop): (S, T, sets, 10)}
    sufficient statistics per reference set (hyp_len, ref_len, correct_1..4, total_1..4); ``human``: {combination: (S, T)};
    ``other``: {per-summary metric id, e.g. SERA5_PL: (S, T)}, whose variants are ``<id>_A`` (mean) and ``<id>_M`` (median).
    """

    systems: list[str]
    topics: list[str]
    rouge: dict[tuple[str, int, int, str], np.ndarray]
    bleu_stats: dict[tuple[int, int], np.ndarray]
    human: dict[str, np.ndarray]
    other: dict[str, np.ndarray] = field(default_factory=dict)


def split_variant(name: str) -> tuple[str, object, str | None]:
    """A system-level variant id -> (family, per-summary key, statistic):
    R2_ST1_RS0_A_P -> ("rouge", ("R2", 1, 0, "P"), "A"); BLEU_ST1_RS0 -> ("bleu", (1, 0), None);
    SERA5_PL_M -> ("other", "SERA5_PL", "M")."""
    parts = name.split("_")
    if parts[0] == "BLEU":
        return "bleu", (int(parts[1][2:]), int(parts[2][2:])), None
    if len(parts) == 5 and parts[1].startswith("ST") and parts[2].startswith("RS"):
        return "rouge", (parts[0], int(parts[1][2:]), int(parts[2][2:]), parts[4]), parts[3]
    return "other", "_".join(parts[:-1]), parts[-1]


def bleu_from_stats(s: np.ndarray) -> np.ndarray:
    """Corpus BLEU (0-100, no smoothing, as multi-bleu.perl) from summed sufficient statistics
    (..., 10): [hyp_len, ref_len, correct_1..4, total_1..4]."""
    hyp, ref = s[..., 0], s[..., 1]
    correct, total = s[..., 2:6], s[..., 6:10]
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.where(correct > 0, np.log(np.where(correct > 0, correct, 1) / np.where(total > 0, total, 1)), -np.inf)
        bp = np.where(hyp >= ref, 1.0, np.exp(1 - ref / np.where(hyp > 0, hyp, np.nan)))
        bleu = 100 * np.nan_to_num(bp, nan=0.0) * np.exp(logp.mean(axis=-1))
    return np.where(np.isfinite(bleu), bleu, 0.0)


class _Stacked:
    """Per-summary ROUGE of every (measure, setting, P/R/F) stacked into one (K, S, T) array, so a
    bootstrap sample's means and medians are two vectorised reductions."""

    def __init__(self, ps: PerSummary, variants: Sequence[str]):
        grids = {**ps.rouge, **ps.other}
        self.keys = list(grids)
        self.x = np.stack([grids[k] for k in self.keys]) if self.keys else np.zeros((0, len(ps.systems), len(ps.topics)))
        self.has_nan = bool(np.isnan(self.x).any())
        index = {k: i for i, k in enumerate(self.keys)}
        self.rouge_cols, self.rouge_rows, self.rouge_stat = [], [], []
        self.bleu_cols, self.bleu_keys = [], []
        for v, name in enumerate(variants):
            family, key, statistic = split_variant(name)
            if family == "bleu":
                self.bleu_cols.append(v)
                self.bleu_keys.append(key)
            else:   # ROUGE and other per-summary metrics: a mean or median over summaries
                self.rouge_cols.append(v)
                self.rouge_rows.append(index[key])
                self.rouge_stat.append(statistic)
        self.rouge_cols = np.array(self.rouge_cols, dtype=int)
        self.rouge_rows = np.array(self.rouge_rows, dtype=int)
        self.is_median = np.array([st == "M" for st in self.rouge_stat], dtype=bool)


def variant_scores(ps: PerSummary, topic_idx: np.ndarray, variants: Sequence[str], stacked: "_Stacked | None" = None
                   ) -> np.ndarray:
    """System scores (S, V) of the variants, from the topics ``topic_idx`` (with repetition)."""
    import warnings

    st = stacked or _Stacked(ps, variants)
    out = np.full((len(ps.systems), len(variants)), np.nan)
    if len(st.rouge_cols):
        x = st.x[:, :, topic_idx]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(x, axis=2) if st.has_nan else x.mean(axis=2)
            median = np.nanmedian(x, axis=2) if st.has_nan else np.median(x, axis=2)
        out[:, st.rouge_cols] = np.where(st.is_median[:, None], median[st.rouge_rows], mean[st.rouge_rows]).T
    for v, key in zip(st.bleu_cols, st.bleu_keys):
        stats_ = ps.bleu_stats[key][:, topic_idx]                     # (S, T, sets, 10)
        score = bleu_from_stats(np.nansum(stats_, axis=1)).mean(axis=1)  # mean over jackknife sets
        score[np.all(np.isnan(stats_[:, :, 0, 0]), axis=1)] = np.nan
        out[:, v] = score
    return out


def human_scores(ps: PerSummary, topic_idx: np.ndarray, combinations: Sequence[str]) -> np.ndarray:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.stack([np.nanmean(ps.human[c][:, topic_idx], axis=1) for c in combinations], axis=1)


def bootstrap_pearson(ps: PerSummary, variants: Sequence[str], combinations: Sequence[str], system_metric: np.ndarray,
                      system_human: np.ndarray, samples: int, resample: str, seed: int, confidence: float = 0.95
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of Pearson r for every (variant, combination): (lo, hi), each
    (V, C). ``system_metric`` (S, V) and ``system_human`` (S, C) are the full-data system scores,
    used as they are when only systems are resampled."""
    if resample not in RESAMPLING:
        raise ValueError(f"unknown resampling {resample!r}; expected one of {RESAMPLING}")
    rng = np.random.default_rng(seed)
    n_sys, n_top = len(ps.systems), len(ps.topics)
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
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo = np.nanpercentile(rs, tail, axis=0)
        hi = np.nanpercentile(rs, 100 - tail, axis=0)
    return lo, hi


def summary_level(ps: PerSummary, metric_names: Sequence[str], per_summary_metric: Mapping[str, np.ndarray],
                  combinations: Sequence[str]) -> list[tuple[str, str, int, float, float, float]]:
    """Within-topic correlations averaged over topics: (metric, combination, topics, pearson,
    spearman, kendall)."""
    rows = []
    for name in metric_names:
        x = per_summary_metric[name]
        for c in combinations:
            h = ps.human[c]
            rp, rsp, rk = [], [], []
            for t in range(len(ps.topics)):
                p, s, k, n = point_correlations(x[:, t], h[:, t])
                if not np.isnan(p):
                    rp.append(p)
                    rsp.append(s)
                    rk.append(k)
            mean = lambda v: float(np.mean(v)) if v else np.nan  # noqa: E731
            rows.append((name, c, len(rp), mean(rp), mean(rsp), mean(rk)))
    return rows
