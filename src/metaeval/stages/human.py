"""Human-scores stage: human scores as Graham (2015) §3 forms them.

Per judged summary, every dimension is rescaled to [0, 1] by its declared min/max; *coverage* is
the mean of the ``coverage`` dimensions and *linguistic quality* (LQ) the mean of the
``linguistic_quality`` dimensions (dataset.yaml, or the config's override). A missing cell is left
out of its mean; a summary with none of a component's dimensions has no value for it.

Combinations (Graham's gold standard is the arithmetic mean):

=====================  ==========================================
``arithmetic``         (C + L) / 2
``geometric``          sqrt(C L)
``harmonic``           2 C L / (C + L), 0 when either part is 0
``coverage``           C
``linguistic_quality`` L
``pyramid``            the pyramid score P of the summary (its SCUs, ``pyramids.jsonl``)
``modified_pyramid``   the modified pyramid score (Cohan & Goharian 2016 §4.2; ``metaeval.pyramid``)
=====================  ==========================================

A combination that needs a component the data set does not have is skipped, with the reason.

**Targets.** What every analysis correlates the metrics with is a *target*: Graham's combinations
above (where the data set declares their components), then every declared dimension under its own
name and on its own scale (the data set's judgment: its annotators aggregated by its rule,
:mod:`metaeval.stats.aggregation`), then the composites the config entry declares
(``overall: mean(coherence, fluency)``: the mean, geometric or harmonic mean of the rescaled
dimensions, per summary). A dimension that *is* a combination (the simulated data set's coverage:
the one coverage dimension, on [0, 1]) is that one target (its definition says so). ``targets.tsv`` lists every target with
its kind, its definition, whether it is factual (:attr:`metaeval.data.contract.Dimension.is_factual`)
and which one is primary: the one the entry marks, else the main combination
(:func:`metaeval.stages.correlation_tables.main_combination`).
System score = mean over the summarizer's judged summaries that have a value; ``order`` chooses
whether each summary is combined first and then averaged (``combine_then_average``, the paper's
order and the default) or each component is averaged first and the means combined
(``average_then_combine``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from .. import tables
from ..data import pyramid
from ..data.datasets import Dataset
from ..data.contract import HUMAN_COMPONENTS, DatasetError, Dimension
from ..records import HumanOptions
from ..stats.combinations import COMBINATIONS, COMPOSITE_FUNCTIONS, combine, composite  # noqa: F401 (the stage's names)
from ..data.targets import (COMBINATION_DEFINITIONS, NEEDS, PYRAMID_SCORES, RESERVED_TARGETS,  # noqa: F401 (the stage's names)
                            Target, available_combinations, check_declared_targets, components, dimension_targets,
                            judgment_source, parse_composite, primary_target, resolve_targets, targets)

ORDERS = ("combine_then_average", "average_then_combine")


@dataclass
class SummaryHuman:
    """Per judged summary: coverage, LQ (NaN where missing) and every combination."""

    keys: list[tuple[str, str]]
    kinds: list[str]
    coverage: np.ndarray
    linguistic_quality: np.ndarray
    combinations: dict[str, np.ndarray]
    pyramids: dict[str, np.ndarray] = field(default_factory=dict)   # pyramid, modified_pyramid


def summary_human_scores(ds: Dataset, combinations: Sequence[str]) -> SummaryHuman:
    keys = [s.key for s in ds.judged()]
    kinds = [s.kind for s in ds.judged()]

    def component(part: str) -> np.ndarray:
        dims = [ds.dimensions[d] for d in ds.human.get(part, [])]
        out = np.full(len(keys), np.nan)
        if not dims:
            return out
        for i, k in enumerate(keys):
            vals = [d.rescale(ds.judgments[k][d.name]) for d in dims if not math.isnan(ds.judgments[k][d.name])]
            if vals:
                out[i] = math.fsum(vals) / len(vals)
        return out

    c = component("coverage")
    l = component("linguistic_quality")
    pyr = {name: np.full(len(keys), np.nan) for name in PYRAMID_SCORES}
    for i, (topic, summarizer) in enumerate(keys):
        if ds.pyramids and topic in ds.pyramids:
            pyr["pyramid"][i], pyr["modified_pyramid"][i] = pyramid.summary_scores(ds.pyramids[topic], summarizer)
    return SummaryHuman(keys, kinds, c, l, {name: pyr[name] if name in pyr else combine(name, c, l)
                                            for name in combinations}, pyr)


@dataclass
class SystemHuman:
    """Per summarizer and combination: the system score and how many summaries it rests on."""

    summarizers: list[str]
    kinds: list[str]
    scores: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]
    judged: np.ndarray  # judged summaries per summarizer


def system_human_scores(sh: SummaryHuman, order: str = "combine_then_average",
                        composite_parts: Mapping[str, tuple[str, Sequence[np.ndarray]]] = {}) -> SystemHuman:
    """Per summarizer, the mean of each target over its summaries that have a value; with
    ``average_then_combine``, a combination (and a composite: ``composite_parts`` gives its function
    and its rescaled dimensions per summary) combines the means of its parts instead. A dimension
    and a pyramid score combine nothing, so either order is their plain mean."""
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; expected one of {ORDERS}")
    summarizers = sorted({s for _, s in sh.keys})
    kind_of = {s: k for (_, s), k in zip(sh.keys, sh.kinds)}
    idx = {s: [i for i, (_, x) in enumerate(sh.keys) if x == s] for s in summarizers}
    scores, counts = {}, {}
    for name, per_summary in sh.combinations.items():
        vals = np.full(len(summarizers), np.nan)
        cnt = np.zeros(len(summarizers), dtype=int)
        for j, s in enumerate(summarizers):
            if name in composite_parts and order != "combine_then_average":
                func, parts = composite_parts[name]
                means = []
                for part in parts:
                    x = part[idx[s]]
                    x = x[~np.isnan(x)]
                    means.append(np.array([math.fsum(x) / len(x) if len(x) else np.nan]))
                cnt[j] = max(int((~np.isnan(part[idx[s]])).sum()) for part in parts)
                vals[j] = float(composite(func, means)[0])
            elif order == "combine_then_average" or name in PYRAMID_SCORES or name not in COMBINATIONS:
                x = per_summary[idx[s]]
                x = x[~np.isnan(x)]
                cnt[j] = len(x)
                vals[j] = math.fsum(x) / len(x) if len(x) else np.nan
            else:
                parts = []
                n = 0
                for comp in (sh.coverage, sh.linguistic_quality):
                    x = comp[idx[s]]
                    x = x[~np.isnan(x)]
                    parts.append(math.fsum(x) / len(x) if len(x) else np.nan)
                    n = max(n, len(x))
                cnt[j] = n
                vals[j] = float(combine(name, parts[0], parts[1]))
        scores[name] = vals
        counts[name] = cnt
    judged = np.array([len(idx[s]) for s in summarizers])
    return SystemHuman(summarizers, [kind_of[s] for s in summarizers], scores, counts, judged)


# ----------------------------------------------------------------------------- the stage

class HumanScores(NamedTuple):
    summaries: SummaryHuman
    systems: SystemHuman
    combinations: list[str]          # every computed target, in order (Graham's combinations first)
    skipped: dict[str, str]          # combination (or dimension) -> why it is not a target
    targets: list[Target] = []
    primary: str | None = None
    # how the benchmark correlates at the summary level (dataset.yaml summary_level: XSumFaith's paper
    # pools every judged summary): every target's, in targets.tsv, for the analyses
    summary_level: str = "within_topic"


def compute(ds: Dataset, options: HumanOptions) -> HumanScores:
    """Every target per judged summary and per summarizer (module docstring)."""
    found, skipped, composites = targets(ds, options)
    ok = [t.name for t in found if t.kind == "combination"]
    sh = summary_human_scores(ds, ok)
    judged = [ds.judgments[k] for k in sh.keys]
    # each composite's rescaled dimensions per summary, formed once: combined per summary here, and
    # per system by average_then_combine
    parts = {name: (func, [np.array([ds.dimensions[d].rescale(row[d]) for row in judged], dtype=float) for d in dims])
             for name, (func, dims) in composites.items()}
    for t in found:
        if t.kind == "dimension":
            sh.combinations[t.name] = np.array([row[t.name] for row in judged], dtype=float)
        elif t.kind == "composite":
            sh.combinations[t.name] = composite(*parts[t.name])
    names = [t.name for t in found]
    sy = system_human_scores(sh, options.order, parts)
    return HumanScores(sh, sy, names, skipped, found, primary_target(names, options.primary, options.entry),
                       str(ds.meta.get("summary_level", "within_topic")))


def write(result: HumanScores, out: Mapping[str, str]) -> None:
    """summary_human.tsv (per judged summary), system_human.tsv (per summarizer and combination)
    and skipped.tsv."""
    sh, sy, ok = result.summaries, result.systems, result.combinations
    # the components C and L, then every target but the combinations of the same names (the same values)
    shown = [c for c in ok if c not in HUMAN_COMPONENTS]
    rows = [(t, s, sh.kinds[i], sh.coverage[i], sh.linguistic_quality[i], *(sh.combinations[c][i] for c in shown))
            for i, (t, s) in enumerate(sh.keys)]
    tables.write_tsv(tables.frame(rows, ["topic", "summarizer", "kind", *HUMAN_COMPONENTS, *shown]), out["summaries"])
    rows = [(s, sy.kinds[j], c, sy.scores[c][j], sy.counts[c][j], sy.judged[j])
            for c in ok for j, s in enumerate(sy.summarizers)]
    tables.write_tsv(tables.frame(rows, ["summarizer", "kind", "combination", "score", "n_scored", "n_judged"]),
                     out["systems"])
    tables.write_tsv(tables.frame(list(result.skipped.items()), ["combination", "reason"]), out["skipped"])
    rows = [(t.name, t.kind, t.definition, "yes" if t.factual else "no", "yes" if t.name == result.primary else "no",
             t.expression, result.summary_level) for t in result.targets]
    tables.write_tsv(tables.frame(rows, TARGET_COLUMNS), out["targets"])


# expression: a composite's declaration as the entry gives it (empty for the others)
# summary_level: within_topic, or pooled where the data set's benchmark correlates over every judged
# summary (dataset.yaml summary_level)
TARGET_COLUMNS = ("target", "kind", "definition", "factual", "primary", "expression", "summary_level")


def read_composites(path: str | None, dimensions: Sequence[str]) -> dict[str, tuple[str, list[str]]]:
    """The composite targets of targets.tsv: name -> (function, dimensions) (:func:`parse_composite`)."""
    if not path:
        return {}
    t = read_targets(path)
    return {name: parse_composite(name, expression, list(dimensions))
            for name, kind, expression in zip(t["target"], t["kind"], t["expression"]) if kind == "composite"}


def read_targets(path: str) -> pd.DataFrame:
    """human/targets.tsv: every target with its kind, definition, factual flag and primary flag."""
    return tables.read_tsv(path)


def pooled_of(path: str | None) -> bool:
    """Whether targets.tsv says the data set correlates at the summary level over every judged
    summary pooled (dataset.yaml ``summary_level: pooled``)."""
    if not path:
        return False
    t = read_targets(path)
    return "summary_level" in t.columns and bool((t["summary_level"] == "pooled").any())


def primary_of(path: str | None) -> str | None:
    """The primary target named in targets.tsv (None without the file or a target)."""
    if not path:
        return None
    t = read_targets(path)
    marked = t.loc[t["primary"] == "yes", "target"]
    return str(marked.iloc[0]) if len(marked) else None


def read_system_human(path: str) -> pd.DataFrame:
    return tables.read_tsv(path, numeric=("score",), integer=("n_scored", "n_judged"))


def systems_by_combination(path: str) -> dict[str, dict[str, float]]:
    """{combination: {system: score}} for the systems (not the judged humans) of system_human.tsv."""
    f = read_system_human(path)
    out: dict[str, dict[str, float]] = {}
    for s, kind, c, v in zip(f["summarizer"], f["kind"], f["combination"], f["score"].tolist()):
        if kind == "system" and not math.isnan(v):
            out.setdefault(c, {})[s] = v
    return out
