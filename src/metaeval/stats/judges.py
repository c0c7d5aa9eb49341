"""What the field asks of a judge (an LLM judge, or any metric): small pure functions, each stating
its method and its source.

* :func:`per_system_correlations` / :func:`meta_correlation`: LLM_summeval's calc_meta_corr.py (Shen
  et al. 2023): within each system, the correlation of the metric's and the humans' scores over
  its summaries; then the correlation of those per-system correlations with the systems' quality
  (their mean human score). Negative: the better the systems, the less the metric agrees with the
  humans.
* :func:`pairwise_agreement`, :func:`cohen_kappa`, :func:`position_consistency`,
  :func:`position_bias`, :func:`head_to_head`: a judge's choices between two systems' summaries
  against the experts' preference (their means compared; equal means a tie), as calc_h2h_pairs.py
  and FastChat's agreement with and without ties.
* :func:`alt_test`: the alternative annotator test (Calderon, Reichart & Dror 2025; their
  alt_test_example.ipynb, nitaytech/AltTest).
* :func:`wilson_interval`: the interval of a share.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, NamedTuple, Sequence

import numpy as np

from . import core


class Correlations(NamedTuple):
    spearman: float
    pearson: float
    kendall: float


class MetaCorrelation(NamedTuple):
    """Each coefficient's meta-correlation and its p-value, over ``systems`` systems."""
    spearman: float
    spearman_p: float
    pearson: float
    pearson_p: float
    kendall: float
    kendall_p: float
    systems: int


def per_system_correlations(human: Sequence[float], metric: Sequence[float]) -> Correlations:
    """Spearman's rho, Pearson's r and Kendall's tau (tau-b) of one system's summaries' metric and
    human scores (scipy.stats' spearmanr, pearsonr, kendalltau, as calc_meta_corr.py calls them);
    NaN where a side is constant."""
    # scipy.stats deferred: importing it costs a job that never correlates
    from scipy.stats import kendalltau, pearsonr, spearmanr

    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    if len(h) < 2 or np.ptp(h) == 0 or np.ptp(m) == 0:
        return Correlations(math.nan, math.nan, math.nan)
    return Correlations(float(spearmanr(h, m)[0]), float(pearsonr(h, m)[0]), float(kendalltau(h, m)[0]))


def per_system_correlations_many(human: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    """:func:`per_system_correlations` of many metrics at once: each row of ``metrics`` (k x n, the
    metrics' scores of one system's n summaries, none missing) against ``human`` (n), as a k x 3
    array (Spearman, Pearson, Kendall tau-b; NaN rows where a side is constant or n < 2). The same
    definitions, vectorised: Pearson's r of the centred vectors (scipy's pearsonr), Spearman's rho
    the Pearson r of the average ranks (scipy's spearmanr), tau-b = (concordant - discordant) /
    sqrt(pairs untied in the human scores x pairs untied in the metric's) (scipy's kendalltau,
    variant b) from the signs of every pair's differences, in chunks of rows to bound memory."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metrics, dtype=float).reshape(-1, len(h))
    out = np.full((len(m), 3), math.nan)
    if len(h) < 2 or np.ptp(h) == 0:
        return out
    ok = np.flatnonzero(np.ptp(m, axis=1) > 0)
    i, j = np.triu_indices(len(h), k=1)
    sh = np.sign(h[i] - h[j])
    rank_h = core.ranks(h)
    chunk = max(1, 2_000_000 // max(1, len(i)))
    for start in range(0, len(ok), chunk):
        rows = ok[start:start + chunk]
        x = m[rows]
        out[rows, 0] = np.clip(core.pearson(core.ranks(x, axis=1), rank_h[None, :]), -1.0, 1.0)
        out[rows, 1] = np.clip(core.pearson(x, h[None, :]), -1.0, 1.0)
        sm = np.sign(x[:, i] - x[:, j])
        out[rows, 2] = np.clip((sm @ sh) / np.sqrt(float(sh @ sh) * np.einsum("ij,ij->i", sm, sm)), -1.0, 1.0)
    return out


def meta_correlation(per_system: Sequence[Correlations], quality: Sequence[float]) -> MetaCorrelation:
    """calc_meta_corr.py's meta-correlation: the systems whose three per-system correlations are all
    numbers, each coefficient's correlations correlated, by the same coefficient, with the systems'
    mean human scores (Spearman with Spearman, Pearson with Pearson, Kendall with Kendall; scipy's
    two-sided p-values). NaN with fewer than three systems or a constant side."""
    from scipy.stats import kendalltau, pearsonr, spearmanr

    kept = [(c, q) for c, q in zip(per_system, quality) if not any(math.isnan(x) for x in c)]
    n = len(kept)
    q = np.array([k[1] for k in kept], dtype=float)
    out = []
    for i, f in enumerate((spearmanr, pearsonr, kendalltau)):
        v = np.array([k[0][i] for k in kept], dtype=float)
        if n < 3 or np.ptp(v) == 0 or np.ptp(q) == 0:
            out += [math.nan, math.nan]
        else:
            r = f(v, q)
            out += [float(r[0]), float(r[1])]
    return MetaCorrelation(*out, n)


def preference(mean_a: float, mean_b: float) -> str:
    """The experts' preference between two summaries: their mean scores compared, equal a tie."""
    return "a" if mean_a > mean_b else "b" if mean_b > mean_a else "tie"


def agreement(judge: Sequence[str], experts: Sequence[str], ties: bool = True) -> tuple[int, int]:
    """(agreeing items, items): the judge's choice (a, b or tie) is the experts'. Without ``ties``
    an item either side calls a tie is left out (FastChat's agreement without ties)."""
    pairs = [(j, e) for j, e in zip(judge, experts) if ties or (j != "tie" and e != "tie")]
    return sum(j == e for j, e in pairs), len(pairs)


def cohen_kappa(x: Sequence[str], y: Sequence[str]) -> float:
    """Cohen's (1960) kappa of two raters' labels of the same items: (p_o - p_e) / (1 - p_e), p_o the
    share of items labelled alike, p_e the chance agreement from each rater's label shares. NaN for
    no items; 1 when p_e = 1 and they agree everywhere."""
    n = len(x)
    if n == 0:
        return math.nan
    labels = sorted(set(x) | set(y))
    po = sum(a == b for a, b in zip(x, y)) / n
    pe = sum((list(x).count(c) / n) * (list(y).count(c) / n) for c in labels)
    if pe == 1:
        return 1.0 if po == 1 else math.nan
    return (po - pe) / (1 - pe)


def position_consistency(first_order: Sequence[str], second_order: Sequence[str]) -> tuple[int, int]:
    """(consistent items, items): the judge chose the same summarizer (or a tie) in both orders of a
    pair (choices named by summarizer, a / b / tie, not by position)."""
    return sum(x == y for x, y in zip(first_order, second_order)), len(first_order)


def position_bias(positions: Sequence[str]) -> tuple[int, int]:
    """(choices of the summary shown first, choices of either): the share of first-shown choices among
    the choices that are not a tie (0.5: no preference for a position)."""
    decided = [p for p in positions if p != "tie"]
    return sum(p == "first" for p in decided), len(decided)


def wins(choices: Sequence[str]) -> float:
    """calc_h2h_pairs.py's add_score: the first system's wins over the items, a tie counting 1/2."""
    return sum(1.0 if c == "a" else 0.5 if c == "tie" else 0.0 for c in choices)


class HeadToHead(NamedTuple):
    judge_wins: float             # the first system's wins by the judge, averaged over both orders
    expert_wins: float            # by the experts
    items: int
    correct: bool                 # the same winner (or both even)


def head_to_head(order_ab: Sequence[str], order_ba: Sequence[str], experts: Sequence[str]) -> HeadToHead:
    """calc_h2h_pairs.py's verdict on a pair of systems: each side's wins of the first system (ties
    1/2), the judge's the mean of its two orders; correct when both are above half the items, both
    at half, or both below (the authors compare with 50 of their 100 articles)."""
    n = len(experts)
    judge = (wins(order_ab) + wins(order_ba)) / 2
    human = wins(experts)
    half = n / 2
    correct = (judge > half and human > half) or (judge == half and human == half) or (judge < half and human < half)
    return HeadToHead(judge, human, n, bool(correct))


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's (1927) score interval of a share successes / n; NaN for n = 0."""
    if n == 0:
        return math.nan, math.nan
    from scipy.special import ndtri

    z = float(ndtri(1 - (1 - confidence) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# ----------------------------------------------------------------------------- the alternative annotator test

def neg_rmse(prediction: float, annotations: Sequence[float]) -> float:
    """AltTest's neg_rmse: minus the root mean squared difference of a prediction from the others'."""
    return -math.sqrt(sum((prediction - a) ** 2 for a in annotations) / len(annotations))


def accuracy(prediction, annotations: Sequence) -> float:
    """AltTest's accuracy: the share of the others' annotations equal to the prediction."""
    return sum(prediction == a for a in annotations) / len(annotations)


SCORING: Mapping[str, Callable] = {"neg_rmse": neg_rmse, "accuracy": accuracy}


def by_procedure(p_values: Sequence[float], q: float) -> list[int]:
    """Benjamini & Yekutieli's (2001) step-up procedure at false discovery rate q: the indices of the
    rejected hypotheses (the k smallest p-values, k the largest rank i with p_(i) <= i q / (m H_m),
    H_m = 1 + 1/2 + ... + 1/m), as AltTest's by_procedure."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) / m * (q / harmonic)
    below = np.nonzero(p[order] <= thresholds)[0]
    return [] if len(below) == 0 else [int(i) for i in order[:below[-1] + 1]]


class AltTestResult(NamedTuple):
    winning_rate: float           # the share of annotators the judge beats (passes at >= 0.5)
    advantage_probability: float  # the mean over annotators of P(judge's alignment >= the annotator's)
    annotators: int               # annotators tested (with at least min_instances items)
    p_values: tuple[float, ...]   # each tested annotator's one-sided t-test


def alt_test(judge: Mapping[str, float], humans: Mapping[str, Mapping[str, float]], scoring: str = "neg_rmse",
             epsilon: float = 0.2, q: float = 0.05, min_humans_per_instance: int = 2,
             min_instances_per_human: int = 30) -> AltTestResult:
    """The alternative annotator test (Calderon, Reichart & Dror 2025, Alg. 1; their code's
    ``alt_test``). Items with at least ``min_humans_per_instance`` annotators and a judge's value
    are kept. For each annotator h with at least ``min_instances_per_human`` kept items: on each
    item, the judge's and h's alignment with the other annotators (``scoring``), the indicators
    W_judge = [judge's >= h's] and W_h = [h's >= judge's]; the one-sided one-sample t-test of
    W_h - W_judge against ``epsilon`` (H1: mean < epsilon; scipy's ttest_1samp). The judge wins
    against the annotators whose hypotheses Benjamini-Yekutieli rejects at ``q``: the winning rate
    is their share; the advantage probability is the mean of W_judge's means."""
    from scipy.stats import ttest_1samp

    score = SCORING[scoring]
    annotators_of: dict[str, list[str]] = {}
    for h, anns in humans.items():
        for item in anns:
            annotators_of.setdefault(item, []).append(h)
    keep = {i for i, hs in annotators_of.items() if len(hs) >= min_humans_per_instance and i in judge}
    p_values, advantages = [], []
    for h, anns in humans.items():
        items = [i for i in anns if i in keep]
        if len(items) < min_instances_per_human:
            continue
        w_judge, w_human = [], []
        for i in items:
            others = [humans[o][i] for o in annotators_of[i] if o != h]
            human_score, judge_score = score(anns[i], others), score(judge[i], others)
            w_judge.append(1 if judge_score >= human_score else 0)
            w_human.append(1 if human_score >= judge_score else 0)
        diff = np.array(w_human, dtype=float) - np.array(w_judge, dtype=float)
        p_values.append(float(ttest_1samp(diff, epsilon, alternative="less").pvalue))
        advantages.append(float(np.mean(w_judge)))
    if not p_values:
        return AltTestResult(math.nan, math.nan, 0, ())
    return AltTestResult(len(by_procedure(p_values, q)) / len(p_values), float(np.mean(advantages)),
                         len(p_values), tuple(p_values))


def sample_variance(samples: Sequence[Sequence[float]]) -> float:
    """A judge's self-disagreement: the mean over summaries of the variance (ddof 1) of its samples'
    scores, over the summaries with two or more samples; NaN when none has."""
    v = [float(np.var(s, ddof=1)) for s in samples if len(s) >= 2]
    return float(np.mean(v)) if v else math.nan
