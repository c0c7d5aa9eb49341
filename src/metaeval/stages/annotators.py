"""Annotators stage: annotators as data - their agreement, the human ceiling, and whether
a metric is as good as one more annotator.

load (annotations.tsv, dataset.yaml and :mod:`metaeval.stages.analysis_inputs`) -> :func:`compute`
-> :class:`AnnotatorsResult` -> :func:`write`. The statistics are
:mod:`metaeval.stats.agreement_alpha` (Krippendorff's alpha, by the ``krippendorff`` package, with a
bootstrap over items) and :mod:`metaeval.stats.ceiling` (leave-k-annotators-out ceiling, human parity).

What is analysed:

* dimensions: every dimension of annotations.tsv under its own name (its own scale; alpha at the
  level of measurement of its kind) - when the data set's dimension is a target, its ceiling is that
  target's - and the primary target (human/targets.tsv: the entry's mark, else arithmetic when the
  data set has it, else the first) when it is one of Graham's combinations or a composite whose
  dimensions all have annotations: per annotator (or set of annotators) the combination of the
  rescaled dimension aggregates, as the human-scores stage forms it from the judgments
  (:mod:`metaeval.stages.annotator_targets`);
* the targets: "the other annotators" (and a held-out set, and another group's predictor) are
  aggregated by the data set's rule (dataset.yaml ``aggregation:`` as the validated copy records
  it; :mod:`metaeval.stats.aggregation`): the mean, the median, the majority value else the mean,
  or a trimmed mean. notes.tsv names a rule other than the mean and says, per dimension, whether
  the rule over all annotators is the data set's judgment or judgments.tsv carries its own;
* groups: every annotator group of annotations.tsv and, with two or more groups, ``all``; the
  reference group (the report's sentence and figure) is ``expert`` when there is one, else the first;
* predictors: the selected metric variants (``annotators.variants``) and each other group's
  aggregate (by the rule; ``<group> mean`` for the mean);
* the summarizers of the correlation stage (``correlation.summarizers``) and the topics of
  summary_human.tsv (the grids of :mod:`metaeval.stages.analysis_inputs`).

A data set without annotations (annotations.tsv with a header only) gets one note and header-only
tables; whether the file has rows is known only when the job runs.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .. import figures, tables
from ..data.contract import Dimension, read_text
from ..data.datasets import FILES, read_dataset
from ..data.dataset_yaml import parse_aggregation, parse_dataset_yaml
from ..records import AnnotatorsOptions
from ..stats import agreement_alpha as ka
from ..stats import ceiling as ce
from ..stats.aggregation import Aggregation
from ..stats.annotator_resampling import build
from ..stats.bootstrap import resampled_means, variant_scores
from ..stats.correlation import point_correlations
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs
from .human import PYRAMID_SCORES
from .annotator_targets import ALL, AnnotatorInputs, Unit, composites_of, main_form, rule_label, target_notes

ALPHA_COLUMNS = ("dimension", "kind", "measurement", "group", "annotators", "items", "pairable", "alpha", "lo", "hi",
                 "samples")
CEILING_COLUMNS = ("dimension", "group", "annotators", "held_out", "target_size", "predictor", "kind", "level",
                   "coefficient", "value", "sets")
PARITY_COLUMNS = ("dimension", "group", "annotators", "predictor", "kind", "comparison", "level", "coefficient",
                  "value", "single_annotator", "difference", "p_parity", "p_below", "p_above", "samples")


# ----------------------------------------------------------------------------- inputs

def load(inputs: Mapping[str, str], options: AnnotatorsOptions) -> AnnotatorInputs:
    """The validated copy's dataset.yaml (with its aggregation rule) and annotations.tsv
    (``dataset``, ``annotations``) and the analysis inputs
    (:func:`metaeval.stages.analysis_inputs.load_named`; ``targets``: human/targets.tsv)."""
    inp = analysis_inputs.load_named(inputs, options.summarizers)
    path = Path(inputs["dataset"])
    meta, dims, human = parse_dataset_yaml(path, read_text(path))
    return from_annotations(inp, dims, human, tables.read_tsv(inputs["annotations"]),
                            parse_aggregation(meta.get("aggregation"), path),
                            composites_of(inputs.get("targets"), list(dims)))


def from_annotations(inp: AnalysisInputs, dims: Mapping[str, Dimension], human: Mapping[str, list[str]],
                     frame, aggregation: Aggregation = Aggregation(),
                     composites: Mapping[str, tuple[str, list[str]]] = {}) -> AnnotatorInputs:
    """Grids of every (dimension, annotator) from an annotations.tsv frame (``group`` optional:
    without it every annotator is in ``all``); ``aggregation``: the data set's rule;
    ``composites``: the composite targets (:func:`metaeval.stages.annotator_targets.composites_of`)."""
    s_index = {s: i for i, s in enumerate(inp.summarizers)}
    t_index = {t: i for i, t in enumerate(inp.per_summary.topics)}
    S, T = len(s_index), len(t_index)
    grids: dict[tuple[str, str], np.ndarray] = {}
    groups: dict[str, list[str]] = {}
    items: dict[str, list] = {}
    group_col = frame["group"] if "group" in frame.columns else [ALL] * len(frame)
    part_col = frame["part"] if "part" in frame.columns else [""] * len(frame)
    scores = tables.to_float(frame["score"]) if len(frame) else np.zeros(0)
    parts: dict[tuple[str, int, int], list[float]] = {}
    for topic, summ, dim, ann, group, part, score in zip(frame["topic"], frame["summarizer"], frame["dimension"],
                                                         frame["annotator"], group_col, part_col, scores):
        members = groups.setdefault(group, [])
        if ann not in members:
            members.append(ann)
        items.setdefault(dim, []).append((topic, summ, part, ann, float(score)))
        s, t = s_index.get(summ), t_index.get(topic)
        if s is not None and t is not None:   # else a summarizer the analysis leaves out (e.g. a reference)
            parts.setdefault((dim, ann, s, t), []).append(float(score))
    for (dim, ann, s, t), given in parts.items():   # a summary judged by parts: the mean of its parts
        grid = grids.get((dim, ann))
        if grid is None:
            grid = grids[(dim, ann)] = np.full((S, T), np.nan)
        grid[s, t] = math.fsum(given) / len(given)
    return AnnotatorInputs(inp, dict(dims), {k: list(v) for k, v in human.items()}, grids, groups, items,
                           aggregation, {k: (f, list(d)) for k, (f, d) in composites.items()})


# ----------------------------------------------------------------------------- the result

@dataclass
class AnnotatorsResult:
    alpha: list[dict[str, object]] = field(default_factory=list)      # ALPHA_COLUMNS
    ceiling: list[dict[str, object]] = field(default_factory=list)    # CEILING_COLUMNS
    parity: list[dict[str, object]] = field(default_factory=list)     # PARITY_COLUMNS
    notes: list[tuple[str, str]] = field(default_factory=list)
    reference_group: str | None = None
    combination: str | None = None        # the primary target, when analysed
    variants: list[str] = field(default_factory=list)
    aggregation: Aggregation = Aggregation()   # the rule the targets are aggregated by


def reference_group(groups: Sequence[str]) -> str | None:
    """The group the report's sentence and figure use: ``expert`` when present, else the first."""
    real = [g for g in groups if g != ALL]
    return "expert" if "expert" in real else (real[0] if real else (ALL if ALL in groups else None))


def select_variants(inp: AnalysisInputs, options: AnnotatorsOptions) -> tuple[list[int], list[str]]:
    """Indices of the selected variants (``annotators.variants``: top = the ``top`` variants with the
    highest system-level Pearson r with the primary target, :attr:`AnalysisInputs.main`; baselines =
    correlation.baselines, bleu = the BLEU variant with the highest such r, chrf = every chrF variant,
    metrics = every variant neither ROUGE nor BLEU, all, or variant ids) and the ids asked for but
    missing."""
    ids = inp.variant_ids
    if inp.combinations:
        main = inp.combinations.index(inp.main)
        r = np.array([point_correlations(inp.system_metric[:, v], inp.system_human[:, main])[0]
                      for v in range(len(ids))])
    else:
        r = np.full(len(ids), np.nan)
    order = [int(v) for v in np.argsort(-np.nan_to_num(r, nan=-np.inf), kind="stable") if not np.isnan(r[v])]
    chosen: list[int] = []
    missing = []
    for sel in options.variants:
        if sel == "top":
            chosen += order[:options.top]
        elif sel == "baselines":
            chosen += [ids.index(b) for b in options.baselines if b in ids]
        elif sel == "bleu":
            chosen += [v for v in order if inp.variants[v].family == "bleu"][:1]
        elif sel == "chrf":
            chosen += [v for v, x in enumerate(inp.variants) if x.family == "chrf"]
        elif sel == "metrics":
            chosen += [v for v, x in enumerate(inp.variants) if x.family not in ("rouge", "bleu")]
        elif sel == "all":
            chosen += list(range(len(ids)))
        elif sel in ids:
            chosen.append(ids.index(sel))
        else:
            missing.append(sel)
    return list(dict.fromkeys(chosen)), missing


def compute(ai: AnnotatorInputs, options: AnnotatorsOptions) -> AnnotatorsResult:
    """Everything the stage reports (module docstring)."""
    o = options
    inp = ai.analysis
    res = AnnotatorsResult()
    if not ai.items:
        res.notes.append(("no_annotations", "this data set has no per-annotator judgments (annotations.tsv has no "
                                            "rows): no agreement, ceiling or parity to compute"))
        return res
    groups, members = group_members(ai)
    res.reference_group = reference_group(groups)
    res.alpha, notes = alpha_rows(ai, o)
    res.notes += notes

    chosen, missing = select_variants(inp, o)
    res.variants = [inp.variant_ids[v] for v in chosen]
    if missing:
        res.notes.append(("missing_variant", f"not in this data set's scores: {', '.join(missing)}"))
    res.aggregation = ai.aggregation
    units: list[tuple[str, Callable[[str, list[str]], Unit]]] = [
        (d, lambda g, names, d=d: Unit(ai, d, names)) for d in sorted(ai.items)]
    if inp.combinations:
        main = inp.main
        form, why = main_form(ai, main) if main not in ai.items else (None, "")
        if main in ai.items or form is not None:
            res.combination = main          # an annotated dimension is analysed under its own name already
        else:
            res.notes.append(("combination", f"{main}: not analysed per annotator ({why})"))
        if form is not None:
            units.insert(0, (main, lambda g, names, c=main, f=form: Unit(ai, c, names, f)))
    # the summary level as the correlation stage's: within topic, or every judged summary pooled
    pooled = inp.pooled or len(inp.summarizers) < 3
    if len(inp.summarizers) < 3:
        res.notes.append(("too_few_systems", f"only {len(inp.summarizers)} summarizer(s): every system-level "
                                             "correlation needs at least 3, so the system-level ceiling and parity "
                                             "are NA"))
    if pooled:
        res.notes.append(("summary_level", "the summary level is every judged summary pooled, as the correlation "
                                           "stage's (human parity there: Pearson's r only)"))
    draws_cache: dict = {}
    analysed: dict[tuple[str, str], Unit] = {}
    for dimension, make in units:
        annotated = {a for (d, a) in ai.grids if d == dimension} if dimension in ai.items else None
        for group in groups:
            names = [a for a in members[group] if annotated is None or a in annotated]
            if not names:
                continue
            unit = analysed[(dimension, group)] = make(group, names)
            if len(names) < 2:
                res.notes.append(("one_annotator", f"{dimension}, {group}: one annotator, so no leave-one-out "
                                                   "ceiling or parity"))
            # a metric declared for one dimension is a predictor of that dimension only
            served = inp.variants_for(dimension)
            predictors = _predictors(ai, dimension, group, groups, members, make, [v for v in chosen if served[v]])
            for r in ce.ceiling(len(names), names, unit.grid, predictors, o.max_held_out_sets, o.seed,
                                rule_label(ai.aggregation), pooled):
                res.ceiling.append({"dimension": dimension, "group": group, "annotators": len(names),
                                    "held_out": r.k, "target_size": r.rest, "predictor": r.predictor,
                                    "kind": r.kind, "level": r.level, "coefficient": r.coefficient,
                                    "value": r.value, "sets": r.sets})
            if o.bootstrap_samples > 0 and len(names) >= 2:
                _parity(unit, group, predictors, chosen, o, res, draws_cache, pooled)
    res.notes += target_notes(ai, analysed, groups)
    res.notes.append(("settings", f"seed {o.seed}; {o.bootstrap_samples} bootstrap samples (alpha: items; parity: "
                                  f"topics and the held-out annotator); at most {o.max_held_out_sets} held-out sets "
                                  f"per k; confidence {o.confidence}"))
    return res


def group_members(ai: AnnotatorInputs) -> tuple[list[str], dict[str, list[str]]]:
    """The analysed groups (sorted; ``all`` last when there are two or more) and their annotators."""
    groups = sorted(ai.groups)
    if len(groups) > 1:
        groups.append(ALL)
    members = {g: ai.groups[g] for g in ai.groups}
    members[ALL] = [a for g in sorted(ai.groups) for a in ai.groups[g]]
    return groups, members


def alpha_rows(ai: AnnotatorInputs, o: AnnotatorsOptions) -> tuple[list[dict[str, object]], list[tuple[str, str]]]:
    """Krippendorff's alpha (ALPHA_COLUMNS) of every annotated dimension and group over every
    annotated summary (references too), or every annotated part of one where annotators judged parts
    (QAGS's sentences), with its bootstrap interval; nominal where the annotations are all 0 or 1
    (labels); and notes of undefined values."""
    groups, members = group_members(ai)
    rows: list[dict[str, object]] = []
    notes: list[tuple[str, str]] = []
    for d in sorted(ai.items):
        dim = ai.dimensions.get(d)
        kind = dim.kind if dim else "graded"
        level = "nominal" if all(x[4] in (0.0, 1.0) for x in ai.items[d]) else ka.level_of(kind)
        item_index: dict[tuple[str, str, str], int] = {}
        for topic, summ, part, _, _ in ai.items[d]:
            item_index.setdefault((topic, summ, part), len(item_index))
        annotated = {x[3] for x in ai.items[d]}
        for group in groups:
            names = [a for a in members[group] if a in annotated]
            if not names:
                continue
            row = {a: i for i, a in enumerate(names)}
            data = np.full((len(names), len(item_index)), np.nan)
            for topic, summ, part, ann, score in ai.items[d]:
                if ann in row:
                    data[row[ann], item_index[(topic, summ, part)]] = score
            value = ka.alpha(data, level)
            b = ka.bootstrap_alpha(data, level, o.bootstrap_samples, o.seed, o.confidence) \
                if not math.isnan(value) else ka.AlphaInterval(math.nan, math.nan, np.zeros(0))
            if math.isnan(value):
                notes.append(("alpha_undefined", f"{d}, {group}: alpha undefined (fewer than 2 annotators, no item "
                                                 "rated twice, or no variation)"))
            rows.append({"dimension": d, "kind": kind, "measurement": level, "group": group,
                         "annotators": len(names), "items": int((~np.isnan(data)).any(axis=0).sum()),
                         "pairable": ka.pairable(data), "alpha": value, "lo": b.lo, "hi": b.hi,
                         "samples": int((~np.isnan(b.samples)).sum())})
    return rows, notes


def _predictors(ai, dimension, group, groups, members, make, chosen):
    """name -> (kind, per-summary grid, own system scores or None): the metrics, then the other
    groups' aggregates by the data set's rule (``<group> mean`` for the mean; none for ``all``)."""
    inp = ai.analysis
    shape = (len(inp.summarizers), len(inp.per_summary.topics))
    out: dict[str, tuple[str, np.ndarray, np.ndarray | None]] = {}
    for v in chosen:
        variant = inp.variants[v]
        grid = inp.per_summary.metrics.get(variant.summary_metric)
        out[inp.variant_ids[v]] = ("metric", grid if grid is not None else np.full(shape, np.nan),
                                   inp.system_metric[:, v])
    if group != ALL:
        annotated = {a for (d, a) in ai.grids if d == dimension} if dimension in ai.items else None
        for other in groups:
            if other in (group, ALL):
                continue
            names = [a for a in members[other] if annotated is None or a in annotated]
            if names:
                out[f"{other} {rule_label(ai.aggregation)}"] = ("group_mean",
                                                                 make(other, names).grid(tuple(range(len(names)))),
                                                                 None)
    return out


def _parity(unit: Unit, group: str, predictors, chosen, o: AnnotatorsOptions, res: AnnotatorsResult,
            cache: dict, pooled: bool) -> None:
    """Human parity of every predictor of one unit (its dimension and the group's annotators), the
    summary level ``pooled`` or within topic."""
    inp, dimension, names = unit.ai.analysis, unit.dimension, unit.names
    pred_names = list(predictors)
    grids = np.stack([predictors[p][1] for p in pred_names])
    metric_variants = [inp.variants[v] for v in chosen]
    # the unit's metrics (those its dimension serves), as columns of every chosen variant's scores
    columns = [k for k, v in enumerate(chosen) if inp.variant_ids[v] in predictors]
    others = [p for p in pred_names if predictors[p][0] != "metric"]

    def system_of_draws(c: np.ndarray) -> np.ndarray:
        parts = []
        if columns:
            # every unit draws the same topics (one seed): recomputing medians and corpus BLEU once
            key = (c.shape, c.tobytes())
            if key not in cache:
                cache[key] = variant_scores(inp.per_summary, metric_variants, c)            # (B, S, V)
            parts.append(cache[key] if len(columns) == len(chosen) else cache[key][:, :, columns])
        for p in others:
            parts.append(resampled_means(predictors[p][1], c).T[:, :, None])               # (B, S, 1)
        return np.concatenate(parts, axis=2)

    for r in ce.parity(len(names), unit.grid, grids, pred_names, system_of_draws, o.bootstrap_samples, o.seed,
                       pooled):
        kind = predictors[r.predictor][0]
        comparison = (f"{r.predictor} vs {group} {rule_label(unit.ai.aggregation)}" if kind == "group_mean"
                      else f"metric vs a single {group} annotator")
        res.parity.append({"dimension": dimension, "group": group, "annotators": len(names),
                           "predictor": r.predictor, "kind": kind, "comparison": comparison, "level": r.level,
                           "coefficient": r.coefficient, "value": r.value, "single_annotator": r.annotator,
                           "difference": r.value - r.annotator, "p_parity": r.p_parity, "p_below": r.p_below,
                           "p_above": r.p_above, "samples": r.samples})


# ----------------------------------------------------------------------------- writing

ALPHA_CAPTION = (
    "Inter-annotator agreement: Krippendorff's alpha (the krippendorff package) per dimension and annotator group, "
    "interval level for graded scores and proportions, nominal for binary labels and preferences, with the {conf} "
    "percentile bootstrap interval over summaries ({samples} samples). How to read this: 1 = perfect agreement, "
    "0 = as much agreement as chance, below 0 = systematic disagreement; Krippendorff (2004) asks for alpha >= 0.8 "
    "for firm conclusions and >= 0.667 for tentative ones. A group with a higher alpha gives less noisy targets.")
CEILING_CAPTION = (
    "The human ceiling (leave one annotator out): each annotator of a group is correlated with the mean of the other "
    "annotators of the group, and every metric and the other groups' means with the same targets; values are means "
    "over the held-out annotators (Pearson r at the system level and at the summary level = within topic across "
    "systems, averaged over topics, or every summary pooled where the correlations pool). How to read this: 'single annotator' is what one more person reaches - a metric "
    "at or above it is as good as a human judge of this data; the gap between a metric and it is the room left. "
    "Compare within a row group only (same dimension, group and level). ceiling.tsv has Spearman and Kendall, "
    "every number k of held-out annotators (mean of k vs the other m - k) and the targets of the full group mean "
    "(held_out = 0).")
PARITY_CAPTION = (
    "Human parity (Pearson r): over {samples} bootstrap samples of topics and of the held-out annotator, P(≥) = the "
    "probability that the predictor correlates with the held-out target at least as well as the held-out annotator; "
    "p(below) = one-sided p-value of 'the predictor is worse than a single annotator' (centred bootstrap). How to "
    "read this: P(≥) near 1 = at human parity; p(below) < {alpha} = significantly below one annotator. The rows "
    "'<group> mean' are the named comparisons of one group's mean against the other's single annotators (e.g. the "
    "crowd mean against the experts). parity.tsv has Spearman and Kendall and p(above).")


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
FIGURE_CAPTION = (
    "Metrics and annotators on one axis. How to read this: each point is a Pearson r with the same targets "
    "- the mean of the other annotators of the reference group, each annotator left out in turn (left: "
    "system level; right: summary level, within topic and averaged over topics). Grey: each held-out "
    "annotator; black diamond and dashed line: their mean, the human ceiling; orange: the other groups' "
    "means; blue: the metrics. A metric right of the dashed line agrees with these annotators better than "
    "one more of them would.")

NOTES_CAPTION = (
    "Notes of the annotators stage: data sets or groups without enough annotators, undefined values and the "
    "settings.")


def write(result: AnnotatorsResult, options: AnnotatorsOptions, out: Mapping[str, str]) -> None:
    """The stage's tables and figure (``out``: the annotators stage's files by key)."""
    o = options
    tables.write_tsv(tables.frame(result.alpha, ALPHA_COLUMNS), out["alpha"])
    tables.write_tsv(tables.frame(result.ceiling, CEILING_COLUMNS), out["ceiling"])
    tables.write_tsv(tables.frame(result.parity, PARITY_COLUMNS), out["parity"])
    tables.write_tsv(tables.frame(result.notes, ["kind", "note"]), out["notes"])
    conf = f"{100 * o.confidence:g} %"
    rows = [[r["dimension"], r["measurement"], r["group"], str(r["annotators"]), str(r["pairable"]),
             tables.fixed(r["alpha"]) + ("" if math.isnan(float(r["lo"])) else
                                         f" [{tables.fixed(r['lo'])}, {tables.fixed(r['hi'])}]")]
            for r in result.alpha]
    tables.write_markdown(out["alpha_md"], ALPHA_CAPTION.format(conf=conf, samples=o.bootstrap_samples),
                          ["dimension", "level", "group", "annotators", "items rated twice+", "alpha [interval]"], rows)
    tables.write_markdown(out["ceiling_md"], ceiling_caption(result.aggregation), ["dimension", "group", "predictor",
                                                                                "system r",
                                                               "summary r"], _ceiling_rows(result.ceiling))
    rows = [[r["dimension"], r["group"], r["predictor"], r["level"], tables.fixed(r["value"]),
             tables.fixed(r["single_annotator"]), tables.fixed(r["p_parity"], 2), tables.fixed(r["p_below"])]
            for r in result.parity if r["coefficient"] == "pearson"]
    tables.write_markdown(out["parity_md"], PARITY_CAPTION.format(samples=o.bootstrap_samples, alpha=0.05),
                          ["dimension", "group", "predictor", "level", "r", "single annotator r", "P(≥)", "p(below)"],
                          rows)
    _figure(result, out["figure_png"], out["figure_svg"])


def ceiling_caption(rule: Aggregation) -> str:
    """The ceiling table's caption; a rule other than the mean is named where the caption says "mean"."""
    if rule.is_default:
        return CEILING_CAPTION
    return CEILING_CAPTION.replace(
        "with the mean of the other annotators of the group,",
        f"with the {rule_label(rule)} of the other annotators of the group (the data set's aggregation: "
        f"{rule.describe()}),").replace("(mean of k vs the other m - k)",
                                        f"({rule_label(rule)} of k vs the other m - k)")


def _ceiling_rows(rows: Sequence[Mapping[str, object]]) -> list[list[str]]:
    """k = 1 Pearson rows, one line per (dimension, group, predictor): system and summary r."""
    by: dict[tuple, dict[str, float]] = {}
    for r in rows:
        if r["held_out"] == 1 and r["coefficient"] == "pearson" and r["kind"] != "annotator":
            by.setdefault((r["dimension"], r["group"], r["predictor"]), {})[r["level"]] = r["value"]
    return [[d, g, f"**{p}**" if p == "single annotator" else p, tables.fixed(v.get("system")),
             tables.fixed(v.get("summary"))] for (d, g, p), v in by.items()]


def figure_rows(result_rows: Sequence[Mapping[str, object]], dimension: str | None, group: str | None
                ) -> list[tuple[str, str, float, float]]:
    """(predictor, kind, system r, summary r) of one dimension and group at k = 1 (Pearson): every
    annotator, the single-annotator mean, the other groups' means and the metrics, by system r."""
    by: dict[str, dict] = {}
    for r in result_rows:
        if (r["dimension"], r["group"], r["held_out"], r["coefficient"]) == (dimension, group, 1, "pearson"):
            by.setdefault(r["predictor"], {"kind": r["kind"]})[r["level"]] = float(r["value"])
    out = [(p, v["kind"], v.get("system", math.nan), v.get("summary", math.nan)) for p, v in by.items()]
    return sorted(out, key=lambda x: -np.nan_to_num(x[2], nan=-np.inf))


COLOURS = {"annotator": "#8c8c8c", "annotators": "#222222", "group_mean": "#dd8452", "metric": "#4c72b0"}


def _figure(result: AnnotatorsResult, png: str, svg: str) -> None:
    """Metrics and annotators on one axis: the reference group's leave-one-out Pearson r at the
    system (left) and summary (right) level, of the main combination (else the first dimension)."""
    plt = figures.pyplot()
    dims = list(dict.fromkeys(r["dimension"] for r in result.ceiling))
    dim = result.combination if result.combination in dims else (dims[0] if dims else None)
    rows = figure_rows(result.ceiling, dim, result.reference_group)
    n = max(1, len(rows))
    fig, axes = plt.subplots(1, 2, figsize=(9, 0.28 * n + 1.4), sharey=True)
    y = np.arange(len(rows))[::-1]
    for ax, col, title in ((axes[0], 2, "system level"), (axes[1], 3, "summary level")):
        ceiling_value = next((r[col] for r in rows if r[1] == "annotators"), math.nan)
        for yi, r in zip(y, rows):
            ax.plot([r[col]], [yi], "o" if r[1] != "annotators" else "D", color=COLOURS[r[1]], ms=5)
        if not math.isnan(ceiling_value):
            ax.axvline(ceiling_value, color="#222222", lw=0.8, ls="--")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(f"Pearson r with the {rule_label(result.aggregation)} of the other {result.reference_group} "
                      "annotators")
    axes[0].set_yticks(y, [r[0] for r in rows], fontsize=7)
    if not rows:
        axes[0].text(0.5, 0.5, "no per-annotator judgments", ha="center", transform=axes[0].transAxes)
    else:
        fig.suptitle(f"{dim}: metrics and annotators against the same leave-one-out targets "
                     "(grey: annotators, black: their mean, orange: group means, blue: metrics)", fontsize=8)
    figures.save(fig, png, svg)


# ----------------------------------------------------------------------------- the report's sentence

def ceiling_sentence(ceiling_tsv: str | None, variant: str | None, combination: str | None,
                     notes_tsv: str | None = None) -> str:
    """One sentence for the report's answer: how far ``variant`` (the answer's best metric) is from
    the human ceiling of the primary target (or of the first analysed dimension), from the
    stage's ceiling.tsv: the metric's and a single annotator's system-level Pearson r against the
    same leave-one-out targets of the reference group, and the other groups' aggregates. The
    stage's notes.tsv (``notes_tsv``) names the rule the targets aggregate by when it is not the
    mean, and whether the data set's judgments are another aggregate. Empty when the table has
    nothing for them."""
    if not ceiling_tsv or not Path(ceiling_tsv).exists():
        return ""
    t = tables.read_tsv(ceiling_tsv, numeric=("value",), integer=("held_out", "annotators"))
    t = t[(t["held_out"] == 1) & (t["coefficient"] == "pearson") & (t["level"] == "system")]
    if not len(t):
        return ""
    dims = list(dict.fromkeys(t["dimension"]))
    dim = combination if combination in dims else dims[0]
    t = t[t["dimension"] == dim]
    group = reference_group(list(dict.fromkeys(t["group"])))
    t = t[t["group"] == group]
    value = dict(zip(t["predictor"], t["value"]))
    single = value.get("single annotator", math.nan)
    if math.isnan(single):
        return ""
    m = int(t["annotators"].iloc[0])
    rule, differs = _rule_notes(notes_tsv, dim, group)
    others = "the other annotator" if m == 2 else f"the other {m - 1}"
    target = (f"the mean of {others}" if rule is None else
              f"the {html.escape(rule)} of {others} (the data set's rule)" if m > 2 else others)
    text = (f" Against the human ceiling of {html.escape(dim)} (system level, each {html.escape(group)} annotator "
            f"left out in turn): a single {html.escape(group)} annotator reaches r = {tables.fixed(single)} against "
            f"{target}")
    if variant in value and not math.isnan(value[variant]):
        gap = value[variant] - single
        text += (f", {html.escape(variant)} r = {tables.fixed(value[variant])} against the same targets "
                 f"({'above' if gap >= 0 else 'below'} one annotator by {abs(gap):.3f})")
    kinds = dict(zip(t["predictor"], t["kind"]))
    means = [(p, v) for p, v in value.items() if kinds[p] == "group_mean" and not math.isnan(v)]
    if means:
        text += "; " + ", ".join(f"the {html.escape(p)} r = {tables.fixed(v)}" for p, v in means)
    if differs:
        text += (f" (the data set's own judgments of {html.escape(dim)}, which the correlations use, are another "
                 f"aggregate of the {html.escape(group)} annotators: see the annotators' notes)")
    return text + "."


def _rule_notes(notes_tsv: str | None, dimension: str, group: str) -> tuple[str | None, bool]:
    """From the stage's notes.tsv: the rule the targets aggregate by (None: the mean) and whether
    the data set's judgments of ``dimension`` differ from the rule over ``group``'s annotators."""
    if not notes_tsv or not Path(notes_tsv).exists():
        return None, False
    notes = tables.read_tsv(notes_tsv)
    rule = None
    for kind, note in zip(notes["kind"], notes["note"]):
        if kind == "aggregation" and (found := re.match(r"targets of the ceiling and parity: the (.+?) of the other",
                                                         str(note))):
            rule = found[1]
    differs = any(kind == "targets_differ" and str(note).startswith(f"{dimension} ({group}):")
                  for kind, note in zip(notes["kind"], notes["note"]))
    return rule, differs


def methods(config: Mapping) -> list[str]:
    """The report's methods lines of the annotators stage and of annotator resampling."""
    an, c = config.get("annotators", {}), config.get("correlation", {})
    lines = []
    if not an.get("enabled", True):
        lines.append("Annotators: disabled (annotators.enabled: false).")
    else:
        lines.append(
            "Annotators, for data sets with per-annotator judgments: Krippendorff's alpha by the "
            "krippendorff package (interval level for graded scores and proportions, nominal for binary labels and "
            f"preferences) per dimension and annotator group, with a percentile bootstrap over summaries "
            f"({an.get('bootstrap_samples')} samples, seed {an.get('seed')}); the human ceiling by leaving annotators "
            "out (each set of k held-out annotators against the others of its group - split-half "
            "reliability, WMT's human baseline - at most "
            f"{an.get('max_held_out_sets')} sets per k), every metric ({', '.join(an.get('variants', []))}) and "
            "the other groups' means against the same targets, at the system level and the summary level (within "
            "topic, averaged over topics); human parity = P(a metric's correlation with the held-out target >= the "
            "held-out annotator's) over a bootstrap of topics and of the held-out annotator, with one-sided "
            "centred-bootstrap p-values. Every target (the others, a held-out set, another group) aggregates its "
            "annotators by the data set's rule, as its judgments do (dataset.yaml aggregation: the mean unless the "
            "data set or its entry declares the median, the majority value else the mean, or a trimmed mean; "
            "annotators/notes.tsv names the rule and says where judgments.tsv carries an aggregate of its own).")
    if c.get("resample_annotators"):
        lines.append("The correlation bootstrap also resamples annotators (correlation.resample_annotators): per "
                     "sample each group's annotators are drawn with replacement and every target (Graham's "
                     "combinations, each dimension, the composites) recomputed from them, the drawn annotators "
                     "aggregated by the data set's rule (an annotator drawn twice counts twice).")
    return lines


def resampling_model(inputs: Mapping[str, str], inp: AnalysisInputs):
    """The :class:`metaeval.stats.annotator_resampling.AnnotatorModel` of a data set (its validated
    canonical copy among a job's named inputs, :data:`metaeval.data.datasets.FILES` keys) on the
    analysis' grid, for the correlation bootstrap with annotators resampled."""
    ds = read_dataset({k: v for k, v in inputs.items() if k in FILES})
    pyramids = {c: inp.per_summary.human[c] for c in PYRAMID_SCORES if c in inp.per_summary.human}
    return build(ds, inp.summarizers, inp.per_summary.topics, pyramids,
                 composites_of(inputs.get("targets"), list(ds.dimensions)))


def answer(files: Mapping[str, str], a) -> str:
    """The report's answer hook (metaeval.registry): :func:`ceiling_sentence` for the answer's best metric
    (and the stage's notes.tsv, which names the rule of its targets)."""
    ceiling = files.get("ceiling")
    notes = files.get("notes")
    return ceiling_sentence(ceiling, a.best["variant"] if a.best is not None else None, a.combination, notes)
