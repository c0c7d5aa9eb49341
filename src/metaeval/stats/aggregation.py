"""How a data set aggregates its annotators' scores of one summary into the judgment its benchmark
reports: one rule, declared once per data set (dataset.yaml ``aggregation:``, or the config entry's
``aggregation:``), and used alike by the canonical copy's judgments, the human ceiling and human
parity (:mod:`metaeval.stages.annotators`) and every stage that reads the judgments.

=====================  =====================================================================
``mean``               the arithmetic mean (SummEval, Fabbri et al. 2021: the mean of 3 experts)
``median``             the median (the mean of the two middle values for an even count)
``majority_else_mean`` the value more than half of the annotators gave, else the mean (with three
                       annotators: the value two of them agree on)
``trimmed_mean``       the mean after cutting ``trim`` of the values at each end
                       (``scipy.stats.trim_mean``: ``int(trim * n)`` values cut from each end)
=====================  =====================================================================

``group`` restricts every dimension without a group of its own to one annotator group (the
"one group's mean" of a benchmark that reports its experts only).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple, Sequence

RULES = ("mean", "median", "majority_else_mean", "trimmed_mean")


class Aggregation(NamedTuple):
    """A data set's rule for turning annotators' scores into one judgment."""

    rule: str = "mean"
    trim: float = 0.1              # trimmed_mean: the share cut at each end
    group: str | None = None       # only this annotator group (default: every annotator)

    def describe(self) -> str:
        """The rule in words, for the report's methods and the data set summary."""
        how = {"mean": "the mean", "median": "the median",
               "majority_else_mean": "the majority value (given by more than half of the annotators), else the mean",
               "trimmed_mean": f"the mean with {self.trim:g} of the values trimmed at each end"}[self.rule]
        return how + (f" of the {self.group} annotators" if self.group else " of the annotators")

    @property
    def is_default(self) -> bool:
        return self == Aggregation()


def aggregate(values: Sequence[float], rule: Aggregation | str = "mean") -> float:
    """One summary's judgment from its annotators' scores by ``rule`` (module docstring); NaN for
    no score. ``mean`` sums with ``math.fsum`` (exactly rounded), as the contract's rule has always
    been computed."""
    rule = Aggregation(rule) if isinstance(rule, str) else rule
    x = [float(v) for v in values if not math.isnan(v)]
    n = len(x)
    if n == 0:
        return math.nan
    if rule.rule == "mean":
        return math.fsum(x) / n
    if rule.rule == "median":
        s = sorted(x)
        return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    if rule.rule == "majority_else_mean":
        value, count = Counter(x).most_common(1)[0]
        return value if count * 2 > n else math.fsum(x) / n
    if rule.rule == "trimmed_mean":
        cut = int(rule.trim * n)
        s = sorted(x)[cut:n - cut]
        return math.fsum(s) / len(s)
    raise ValueError(f"unknown aggregation rule {rule.rule!r}; expected one of {', '.join(RULES)}")
