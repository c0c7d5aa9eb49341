"""What the annotators stage (:mod:`metaeval.stages.annotators`) holds its annotators and metrics
against: per analysed target and annotator group, the score of any subset of the group's annotators
aggregated by the data set's rule (:mod:`metaeval.stats.aggregation`: dataset.yaml's
``aggregation:``, as the validated copy records it), and the notes that say which target that is.

A *unit* is one analysed target for one group:

* an annotated dimension (annotations.tsv), under its own name: per summary the rule over the
  subset's scores (:func:`metaeval.stats.rule_grids.aggregate_stack`; the mean rule is numpy's
  nanmean, as before the rule existed);
* the primary target when it is one of Graham's combinations (Graham 2015) or a composite of
  annotated dimensions: per summary the combination (:func:`metaeval.stats.combinations.combine`) or the
  composite (:func:`metaeval.stages.human.composite`) of the rescaled dimensions, each aggregated by
  the rule over the subset - as the human-scores stage forms the target from the judgments.

The data set's judgments of a dimension (the dimension target's per-summary values, from
human/summary_human.tsv) are compared with the rule over *all* annotators of the group the data set
aggregates (the dimension's ``annotations.group``, else the aggregation's ``group``, else every
annotator): equal (to 1e-9) on every judged summary, the ceiling's targets are the data set's own
aggregate with one annotator (set) held out; else judgments.tsv carries an aggregate of its own, and
a note says so (the ceiling cannot use it: it contains the held-out annotator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from ..data.contract import Dimension
from ..stats import ceiling as ce
from ..stats.aggregation import Aggregation
from ..stats.rule_grids import aggregate_stack
from .analysis_inputs import AnalysisInputs
from .human import NEEDS, combine, composite, read_composites

ALL = "all"
LABELS = {"mean": "mean", "median": "median", "majority_else_mean": "majority-else-mean",
          "trimmed_mean": "trimmed mean"}
TOLERANCE = 1e-9


@dataclass
class AnnotatorInputs:
    analysis: AnalysisInputs
    dimensions: dict[str, Dimension]        # dataset.yaml's
    human: dict[str, list[str]]             # components -> dimensions
    # (dimension, annotator) -> (S, T) grid of the analysis' summarizers and topics
    grids: dict[tuple[str, str], np.ndarray]
    groups: dict[str, list[str]]            # group -> annotators (in order of first appearance)
    # dimension -> (topic, summarizer, part ("" = the summary), annotator, score): alpha's units
    items: dict[str, list[tuple[str, str, str, str, float]]]
    aggregation: Aggregation = Aggregation()                # the data set's rule (dataset.yaml)
    composites: dict[str, tuple[str, list[str]]] = field(default_factory=dict)   # composite target -> (func, dims)


def rule_label(rule: Aggregation | str) -> str:
    """The rule in a few words (``mean``, ``median``, ``majority-else-mean``, ``trimmed mean``)."""
    return LABELS[rule if isinstance(rule, str) else rule.rule]


Form = Callable[[Callable[[str], np.ndarray]], np.ndarray]


class Unit:
    """One analysed target for one group: its annotators and the per-summary target of any subset
    of them (cached); ``form`` builds a combination or composite from the aggregated dimensions
    (None: the annotated dimension itself)."""

    def __init__(self, ai: AnnotatorInputs, dimension: str, annotators: Sequence[str], form: Form | None = None):
        self.ai, self.dimension, self.names, self.form = ai, dimension, list(annotators), form
        self.cache: dict[tuple[int, ...], np.ndarray] = {}

    def aggregate(self, dim: str, subset: Sequence[int]) -> np.ndarray:
        """(S, T): the subset's scores of ``dim`` by the data set's rule (NaN where none scored)."""
        shape = (len(self.ai.analysis.summarizers), len(self.ai.analysis.per_summary.topics))
        grids = [self.ai.grids[(dim, self.names[a])] for a in subset if (dim, self.names[a]) in self.ai.grids]
        if not grids:
            return np.full(shape, np.nan)
        if self.ai.aggregation.rule == "mean":
            return ce.nanmean(np.stack(grids), axis=0)
        return aggregate_stack(np.stack(grids), self.ai.aggregation)

    def grid(self, subset: tuple[int, ...]) -> np.ndarray:
        if subset not in self.cache:
            self.cache[subset] = (self.aggregate(self.dimension, subset) if self.form is None
                                  else self.form(lambda d: self.aggregate(d, subset)))
        return self.cache[subset]


def graham_form(ai: AnnotatorInputs, combination: str, sources: Mapping[str, Sequence[str]]) -> Form:
    """Graham's combination of the components' rescaled dimension aggregates (``sources``:
    component -> annotated dimensions), as the human-scores stage forms it."""

    def form(agg: Callable[[str], np.ndarray]) -> np.ndarray:
        parts = {}
        for part, dims in sources.items():
            rescaled = [(agg(d) - ai.dimensions[d].min) / (ai.dimensions[d].max - ai.dimensions[d].min) for d in dims]
            parts[part] = ce.nanmean(np.stack(rescaled), axis=0) if rescaled else None
        shape = next(v for v in parts.values() if v is not None).shape
        nan = np.full(shape, np.nan)
        return combine(combination, parts.get("coverage", nan), parts.get("linguistic_quality", nan))

    form.dims = list(dict.fromkeys(d for dims in sources.values() for d in dims))     # type: ignore[attr-defined]
    return form


def composite_form(ai: AnnotatorInputs, func: str, dims: Sequence[str]) -> Form:
    """A composite (``mean``, ``geometric`` or ``harmonic``) of the declared dimensions, each
    rescaled by its declared min/max from its annotations' aggregate."""

    def form(agg: Callable[[str], np.ndarray]) -> np.ndarray:
        parts = []
        for d in dims:
            dim = ai.dimensions[d]
            parts.append(((agg(dim.annotations_of or d) - dim.min) / (dim.max - dim.min)).ravel())
        shape = (len(ai.analysis.summarizers), len(ai.analysis.per_summary.topics))
        return composite(func, parts).reshape(shape)

    form.dims = list(dict.fromkeys(ai.dimensions[d].annotations_of or d for d in dims))  # type: ignore[attr-defined]
    return form


def combination_sources(ai: AnnotatorInputs, combination: str) -> tuple[dict[str, list[str]] | None, str]:
    """component -> the annotated dimensions its dimensions take their values from, or None and why."""
    annotated = {d for d, _ in ai.grids}
    sources: dict[str, list[str]] = {}
    for part in NEEDS.get(combination, ()):
        if part == "pyramids":
            return None, "rests on SCU annotations, not on annotators"
        names = []
        for d in ai.human.get(part, []):
            dim = ai.dimensions.get(d)
            source = (dim.annotations_of or d) if dim else d
            if source not in annotated:
                return None, f"its {part.replace('_', ' ')} dimension {d} has no annotations"
            names.append(source)
        if not names:
            return None, f"it has no {part.replace('_', ' ')} dimensions"
        sources[part] = list(dict.fromkeys(names))
    return sources, ""


def main_form(ai: AnnotatorInputs, main: str) -> tuple[Form | None, str]:
    """How the primary target is formed per annotator subset, or None and why it is not analysed
    per annotator (an annotated dimension needs no form: it is analysed under its own name)."""
    if main in NEEDS:
        sources, why = combination_sources(ai, main)
        return (graham_form(ai, main, sources), "") if sources is not None else (None, why)
    if main in ai.composites:
        func, dims = ai.composites[main]
        annotated = {d for d, _ in ai.grids}
        missing = [d for d in dims if (ai.dimensions[d].annotations_of or d) not in annotated]
        if missing:
            return None, f"its dimension {missing[0]} has no annotations"
        return composite_form(ai, func, dims), ""
    dim = ai.dimensions.get(main)
    if dim is not None and dim.annotations_of and dim.annotations_of != main:
        return None, (f"its values are the annotations of {dim.annotations_of}, analysed under that name")
    return None, "it has no annotations of its own"


def composites_of(targets_tsv: str | None, dimensions: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """The composite targets of human/targets.tsv: name -> (function, dimensions)."""
    if not targets_tsv or not Path(targets_tsv).exists():
        return {}
    return read_composites(targets_tsv, dimensions)


# ----------------------------------------------------------------------------- notes

def source_group(ai: AnnotatorInputs, unit: Unit, groups: Sequence[str]) -> str | None:
    """The analysed group whose annotators the data set aggregates into its judgment of the unit's
    dimension (of every dimension of its combination or composite, when they agree): the
    dimension's ``annotations.group``, else the aggregation's group, else every annotator."""
    found = set()
    for d in getattr(unit.form, "dims", [unit.dimension]):
        dim = ai.dimensions.get(d)
        found.add((dim.annotation_group if dim else None) or ai.aggregation.group)
    if len(found) != 1:
        return None
    group = found.pop()
    if group is not None:
        return group if group in groups else None
    return ALL if ALL in groups else (groups[0] if len(groups) == 1 else None)


def judgment_differences(unit: Unit, judgments: np.ndarray) -> tuple[int, int, float]:
    """(summaries where they differ, judged summaries, largest difference) between the data set's
    judgments and the rule over all of the unit's annotators (a judged summary without an aggregate
    differs, by NaN)."""
    agg = unit.grid(tuple(range(len(unit.names))))
    judged = ~np.isnan(judgments)
    diff = np.abs(agg - judgments)[judged]
    bad = np.isnan(diff) | (diff > TOLERANCE)
    finite = diff[~np.isnan(diff)]
    return int(bad.sum()), int(judged.sum()), float(finite.max()) if len(finite) else float("nan")


def target_notes(ai: AnnotatorInputs, units: Mapping[tuple[str, str], Unit], groups: Sequence[str]
                 ) -> list[tuple[str, str]]:
    """Which target the ceiling and parity compare against: the rule (when it is not the mean) and,
    per annotated dimension the data set judges from a group, whether the rule over all of that
    group's annotators is the data set's judgment (judgments.tsv) or judgments.tsv carries its own."""
    rule = ai.aggregation
    label = rule_label(rule)
    notes = []
    if not rule.is_default:
        text = (f"targets of the ceiling and parity: the {label} of the other annotators of each group (the data "
                f"set's aggregation: {rule.describe()}); held-out sets and the other groups' predictors are "
                f"aggregated by the same rule, and combinations are formed from the dimensions so aggregated")
        if rule.rule == "majority_else_mean":
            text += "; two annotators form a majority only when they agree, so the rule over two is their mean"
        notes.append(("aggregation", text))
    judged = ai.analysis.per_summary.human
    for (dimension, group), unit in units.items():
        if source_group(ai, unit, groups) != group:
            continue
        if dimension not in judged:
            if not rule.is_default:
                notes.append(("targets", f"{dimension} ({group}): not a target of this run, so not compared with "
                                         "the data set's judgments"))
            continue
        n_diff, n, largest = judgment_differences(unit, judged[dimension])
        if n_diff == 0 and not rule.is_default:
            notes.append(("targets", f"{dimension} ({group}): targets of the ceiling and parity: the {label} of the "
                                     f"other annotators, as the data set's judgments (the {label} of {_all(group)} "
                                     "equals judgments.tsv on every judged summary)"))
        elif n_diff:
            whose = ("the data set's judgments (judgments.tsv) carry an aggregate of their own" if unit.form is None
                     else "the target formed from the data set's judgments (judgments.tsv) is another aggregate")
            notes.append(("targets_differ",
                          f"{dimension} ({group}): {whose}: the {label} of {_all(group)} differs from it on "
                          f"{n_diff} of {n} "
                          f"judged summaries (largest difference {largest:.4g}); the correlation tables use the "
                          f"judgments, the ceiling and parity the {label} of the other annotators (the judgments "
                          "contain the held-out annotator)"))
    return notes


def _all(group: str) -> str:
    """``all expert annotators``; the group a release without groups gets (``all``): ``all annotators``."""
    return "all annotators" if group == "all" else f"all {group} annotators"
