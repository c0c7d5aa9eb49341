"""Annotators in the correlation bootstrap (``correlation.resample_annotators``).

Scheme. Every bootstrap sample of :func:`metaeval.stats.bootstrap.bootstrap_pearson` keeps its draws
of systems and topics (the same as without this option) and in addition draws, for every annotator
group of annotations.tsv (in sorted order), the group's m annotators with replacement from
``numpy.random.default_rng([seed, 22])`` (sample by sample: the groups in order). An annotator drawn
c times counts c times. In each sample, every dimension whose judgments come from annotations (a
dimension with annotations of its own name, or dataset.yaml's ``annotations: {dimension, group}``)
is, per summary, the data set's aggregation rule (:mod:`metaeval.stats.aggregation`) over the
scores of the drawn annotators of its group (its own ``annotations.group``, else the aggregation's
``group``, else every group) who scored that summary: for the mean rule the count-weighted mean;
for the median, majority-else-mean and trimmed-mean rules the rule applied to the drawn *multiset*
(each drawn annotator's score repeated as often as drawn;
:func:`metaeval.stats.rule_grids.aggregate_multisets`). A summary that annotators scored but none of
the drawn ones has no value for that dimension in the sample, and one no annotator scored keeps its
judgment (judgments.tsv). Where judgments.tsv gives a dimension an aggregate of its own, the samples
still re-aggregate the drawn annotators by the rule (the annotators stage's notes.tsv says where the
two differ). The human-scores stage's definitions then apply unchanged
(:mod:`metaeval.stages.human`) to every target: a dimension target is the dimension on its own
scale; for Graham's combinations each dimension is rescaled by its declared min/max, coverage and
linguistic quality are the means of their dimensions, the combination per summary and the system
score the mean over the drawn topics (``combine_then_average``; or the components averaged first,
``average_then_combine``); a composite (``overall: mean(coherence, fluency)``) is its function of
the rescaled dimensions, per summary (or of their means over the drawn topics). Dimensions with
judgments of their own and the pyramid combinations keep their values. So an interval carries the
noise of the annotators as well as that of the systems and topics: the question it answers is
"how would the correlation vary with other annotators from the same pool" (the annotators are
treated as a sample, as the topics are).
With every annotator drawn once the human scores are exactly the human-scores stage's (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .aggregation import Aggregation
from .combinations import COMBINATIONS, combine, composite
from .rule_grids import aggregate_multisets

COMPONENTS = ("coverage", "linguistic_quality")
STREAM = 22          # the second word of the annotator draws' seed: a stream apart from the systems' and topics'


@dataclass
class AnnotatorModel:
    """What the human scores of a data set are made of, on the (summarizer, topic) grid of the
    analysis: per dimension the annotators it aggregates (group, index in that group, (S, T)
    scores) and, where no annotator of it scored a summary, the judgments (S, T); the rule; the
    composite targets (name -> (function, dimensions))."""

    summarizers: list[str]
    topics: list[str]
    groups: dict[str, list[str]]                                  # group -> annotators
    scale: dict[str, tuple[float, float]]                         # dimension -> (min, max)
    components: dict[str, list[str]]                              # component -> dimensions
    fixed: dict[str, np.ndarray]                                  # dimension -> (S, T)
    annotated: dict[str, list[tuple[str, int, np.ndarray]]]       # dimension -> [(group, index, (S, T))]
    pyramid: dict[str, np.ndarray]                                # pyramid combination -> (S, T)
    aggregation: Aggregation = Aggregation()
    composites: dict[str, tuple[str, list[str]]] = field(default_factory=dict)


def build(ds, summarizers: Sequence[str], topics: Sequence[str], pyramid_grids: Mapping[str, np.ndarray] = {},
          composites: Mapping[str, tuple[str, Sequence[str]]] = {}) -> AnnotatorModel:
    """The model of a validated :class:`metaeval.data.datasets.Dataset` on the analysis' grid (every
    declared dimension: each may be a target; ``composites``: the composite targets)."""
    s_index = {s: i for i, s in enumerate(summarizers)}
    t_index = {t: i for i, t in enumerate(topics)}
    shape = (len(summarizers), len(topics))
    groups: dict[str, list[str]] = {}
    for a in ds.annotations:
        members = groups.setdefault(a.group, [])
        if a.annotator not in members:
            members.append(a.annotator)
    groups = {g: groups[g] for g in sorted(groups)}
    by_source: dict[tuple[str, str], np.ndarray] = {}
    # an annotator's annotation of a summary: its score, or the mean of its parts' (QAGS's sentences)
    given: dict[tuple[str, str, int, int], list[float]] = {}
    for a in ds.annotations:
        s, t = s_index.get(a.summarizer), t_index.get(a.topic)
        if s is not None and t is not None:
            given.setdefault((a.dimension, a.annotator, s, t), []).append(a.score)
    for (dimension, annotator, s, t), scores in given.items():
        grid = by_source.setdefault((dimension, annotator), np.full(shape, np.nan))
        grid[s, t] = math.fsum(scores) / len(scores)
    group_of = {a: g for g, members in groups.items() for a in members}
    dims = list(dict.fromkeys([*(d for part in COMPONENTS for d in ds.human.get(part, [])), *ds.dimensions]))
    rule = getattr(ds, "aggregation", Aggregation())
    fixed, annotated = {}, {}
    for d in dims:
        dim = ds.dimensions[d]
        source = dim.annotations_of or d
        chosen = [(group_of[a], groups[group_of[a]].index(a), grid) for (dd, a), grid in sorted(by_source.items())
                  if dd == source and ((dim.annotation_group or rule.group) is None
                                       or group_of[a] == (dim.annotation_group or rule.group))]
        if chosen:
            annotated[d] = chosen
        # the judgments: a dimension without annotations, or a summary no annotator of it scored
        grid = np.full(shape, np.nan)
        for (topic, summarizer), values in ds.judgments.items():
            s, t = s_index.get(summarizer), t_index.get(topic)
            if s is not None and t is not None:
                grid[s, t] = values.get(d, math.nan)
        if chosen:
            grid[np.logical_or.reduce([~np.isnan(g) for _, _, g in chosen])] = np.nan
        fixed[d] = grid
    return AnnotatorModel(list(summarizers), list(topics), groups,
                          {d: (ds.dimensions[d].min, ds.dimensions[d].max) for d in dims},
                          {p: list(ds.human.get(p, [])) for p in COMPONENTS}, fixed, annotated, dict(pyramid_grids),
                          rule, {k: (f, list(d)) for k, (f, d) in composites.items()})


def draw_weights(model: AnnotatorModel, samples: int, seed: int) -> dict[str, np.ndarray]:
    """group -> (B, m) counts of each annotator in each sample (the scheme of the module docstring)."""
    rng = np.random.default_rng([seed, STREAM])
    out = {g: np.zeros((samples, len(m))) for g, m in model.groups.items()}
    for b in range(samples):
        for g, members in model.groups.items():
            np.add.at(out[g][b], rng.integers(0, len(members), len(members)), 1.0)
    return out


def _weighted_mean(entries: list[tuple[str, int, np.ndarray]], weights: Mapping[str, np.ndarray]) -> np.ndarray:
    """(B, S, T) count-weighted mean of the annotators' grids (NaN where no drawn annotator scored)."""
    num = den = 0.0
    for group, index, grid in entries:
        w = weights[group][:, index][:, None, None]              # (B, 1, 1)
        ok = ~np.isnan(grid)
        num = num + w * np.where(ok, grid, 0.0)[None]
        den = den + w * ok[None]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _mean_over(grids: list[np.ndarray]) -> np.ndarray | None:
    if not grids:
        return None
    stack = np.stack(grids)
    ok = ~np.isnan(stack)
    n = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(ok, stack, 0.0).sum(axis=0) / np.where(n > 0, n, 1), np.nan)


def _topic_means(v: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(B, S) means over the drawn topics (c: (B, T) counts) of (B, S, T) or (S, T) values."""
    ok = ~np.isnan(v)
    spec = "bst,bt->bs" if v.ndim == 3 else "st,bt->bs"
    num = np.einsum(spec, np.where(ok, v, 0.0), c)
    den = np.einsum(spec, ok.astype(float), c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _drawn(model: AnnotatorModel, d: str, weights: Mapping[str, np.ndarray]) -> np.ndarray:
    """(B, S, T) or (1, S, T): dimension ``d`` per summary in every sample - the drawn annotators
    aggregated by the rule where anyone scored, else the judgment (module docstring)."""
    v = model.fixed[d][None]
    if d in model.annotated:
        entries = model.annotated[d]
        if model.aggregation.rule == "mean":
            drawn = _weighted_mean(entries, weights)
        else:
            counts = np.stack([weights[group][:, index] for group, index, _ in entries], axis=1)    # (B, E)
            drawn = aggregate_multisets(np.stack([grid for _, _, grid in entries]), counts, model.aggregation)
        v = np.where(np.isnan(drawn), v, drawn)
    return v


def _rescaled(model: AnnotatorModel, d: str, raw: np.ndarray, B: int) -> np.ndarray:
    lo, hi = model.scale[d]
    return np.broadcast_to((raw - lo) / (hi - lo), (B, *raw.shape[1:]))


def _composite(func: str, parts: Sequence[np.ndarray]) -> np.ndarray:
    """The human-scores stage's composite (:func:`metaeval.stats.combinations.composite`), element-wise
    over arrays of any shape."""
    shape = parts[0].shape
    return composite(func, [np.ascontiguousarray(p).ravel() for p in parts]).reshape(shape)


def human_system_scores(model: AnnotatorModel, combinations: Sequence[str], c: np.ndarray,
                        weights: Mapping[str, np.ndarray], order: str = "combine_then_average") -> np.ndarray:
    """Human system scores (B, S, C) of every target in every sample (Graham's combinations, the
    dimensions on their own scales, the composites; module docstring): topic counts ``c`` (B, T)
    and annotator counts ``weights`` (group -> (B, m))."""
    B = c.shape[0]
    raw: dict[str, np.ndarray] = {}

    def value(d: str) -> np.ndarray:
        if d not in raw:
            raw[d] = _drawn(model, d, weights)
        return raw[d]

    graham = [n for n in combinations if n in COMBINATIONS and n not in model.pyramid]
    parts: dict[str, np.ndarray | None] = {part: None for part in COMPONENTS}
    if graham:
        for part in COMPONENTS:
            parts[part] = _mean_over([_rescaled(model, d, value(d), B) for d in model.components[part]])
    nan = np.full((B, len(model.summarizers), len(model.topics)), np.nan)
    cov = parts["coverage"] if parts["coverage"] is not None else nan
    lq = parts["linguistic_quality"] if parts["linguistic_quality"] is not None else nan
    out = np.full((B, len(model.summarizers), len(combinations)), np.nan)
    for k, name in enumerate(combinations):
        if name in model.pyramid:
            out[:, :, k] = _topic_means(model.pyramid[name], c)
        elif name in graham and order == "combine_then_average":
            out[:, :, k] = _topic_means(combine(name, cov, lq), c)
        elif name in graham:
            out[:, :, k] = combine(name, _topic_means(cov, c), _topic_means(lq, c))
        elif name in model.composites:
            func, dims = model.composites[name]
            rescaled = [_rescaled(model, d, value(d), B) for d in dims]
            out[:, :, k] = (_topic_means(_composite(func, rescaled), c) if order == "combine_then_average"
                            else _composite(func, [_topic_means(x, c) for x in rescaled]))
        elif name in model.scale:
            out[:, :, k] = _topic_means(np.broadcast_to(value(name), (B, *value(name).shape[1:])), c)
    return out


class HumanResampler:
    """The ``human`` argument of :func:`metaeval.stats.bootstrap.bootstrap_pearson`: the human
    system scores of samples ``start:stop`` from their topic counts, with the annotators drawn
    (:func:`draw_weights`) for all samples up front."""

    def __init__(self, model: AnnotatorModel, combinations: Sequence[str], samples: int, seed: int, order: str):
        self.model, self.combinations, self.order = model, list(combinations), order
        self.weights = draw_weights(model, samples, seed)

    def __call__(self, c: np.ndarray, start: int, stop: int) -> np.ndarray:
        w = {g: x[start:stop] for g, x in self.weights.items()}
        return human_system_scores(self.model, self.combinations, c, w, self.order)
