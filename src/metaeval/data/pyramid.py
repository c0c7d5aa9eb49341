"""Pyramid scores (Nenkova & Passonneau 2004; Cohan & Goharian 2016 §4.2) from summary content
units (SCUs) annotated in a data set's optional ``pyramids.jsonl`` (docs/DATASET_FORMAT.md).

An SCU's weight is the number of model (reference) summaries that express it, so the pyramid has
tiers T_n (weight n, the top) down to T_1. A summary expressing D_i SCUs of tier i scores

    P = D / Max,   D = Σ_i i · D_i,
    Max = Σ_{i=j+1}^{n} i · |T_i| + j · (X − Σ_{i=j+1}^{n} |T_i|),
    j = max { i : Σ_{t=i}^{n} |T_t| ≥ X },

the best score a summary of X SCUs could reach (all of the top tiers, the rest from tier j).
The **original** pyramid takes X = the number of SCUs the summary expresses (a precision-like
score); the **modified** pyramid takes X = the average number of SCUs in the model summaries,
Σ weights / models (recall-like; it can exceed 1 for a summary richer than the average model).
If X exceeds the pyramid's SCUs, j = 0 and Max is the weight of the whole pyramid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence


@dataclass(frozen=True)
class TopicPyramid:
    """One topic's pyramid: SCU id -> weight, how many model summaries built it, and the SCUs
    each annotated summary expresses."""

    topic: str
    models: int
    weights: Mapping[str, int]
    expressed: Mapping[str, tuple[str, ...]]

    def tier_sizes(self) -> dict[int, int]:
        sizes: dict[int, int] = {}
        for w in self.weights.values():
            sizes[w] = sizes.get(w, 0) + 1
        return sizes

    def average_model_size(self) -> float:
        return math.fsum(self.weights.values()) / self.models


def max_score(tier_sizes: Mapping[int, int], x: float) -> float:
    """Max for a summary of X SCUs (the formula in the module docstring)."""
    total, above = 0.0, 0
    for i in sorted(tier_sizes, reverse=True):
        if above + tier_sizes[i] >= x:          # tier i is j: it holds the rest of the X SCUs
            return total + i * (x - above)
        total += i * tier_sizes[i]
        above += tier_sizes[i]
    return total                                # X exceeds the pyramid: j = 0


def pyramid_score(weights: Sequence[int], tier_sizes: Mapping[int, int], x: float | None = None) -> float:
    """P = D / Max for a summary expressing SCUs of the given ``weights``; X defaults to their
    number (the original score). A summary of no SCUs scores 0."""
    x = len(weights) if x is None else x
    best = max_score(tier_sizes, x)
    return math.fsum(weights) / best if best > 0 else 0.0


def summary_scores(p: TopicPyramid, summarizer: str) -> tuple[float, float]:
    """(original, modified) pyramid score of one annotated summary; NaN when it is not annotated."""
    if summarizer not in p.expressed:
        return math.nan, math.nan
    w = [p.weights[u] for u in p.expressed[summarizer]]
    tiers = p.tier_sizes()
    return pyramid_score(w, tiers), pyramid_score(w, tiers, p.average_model_size())
