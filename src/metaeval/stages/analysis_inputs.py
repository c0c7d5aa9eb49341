"""What every analysis stage reads: a data set's metric and human scores as arrays.

* System level: ``system_metric`` (summarizers x variants, from system_scores.tsv) and
  ``system_human`` (summarizers x human combinations, from system_human.tsv).
* Per summary, on a (summarizer, topic) grid with NaN where a summarizer has no summary: every
  per-summary metric (ROUGE P/R/F per measure and setting, smoothed sentence BLEU, and the metrics
  of the long tables such as SERA's and chrF's), the sufficient statistics of every corpus-level
  variant (BLEU per setting, chrF), and every human combination
  (:class:`metaeval.stats.bootstrap.PerSummary`).

A per-summary metric a score file declares for one dimension (an LLM judge asked about coherence)
serves that target only (``meant_for``; :meth:`AnalysisInputs.serves`): every stage compares, ranks
and tests it under that target alone, and a target's common ground is set by the metrics it serves.

Summarizers are sorted; ``summarizers='systems'`` keeps the systems, ``'all'`` the judged humans too.
Topics are the sorted topics of summary_human.tsv. Variants and per-summary metrics keep the order
of their tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np
import pandas as pd

from .. import tables
from ..data.metric_scores import declared_dimensions, read_metrics
from ..metrics.families import REGISTRY, corpus_families
from ..stats.bootstrap import PerSummary
from ..stats.coverage import common_items
from ..variants import Variant, summary_metric_id
from .human import pooled_of, primary_of, primary_target


@dataclass
class AnalysisInputs:
    summarizers: list[str]
    kinds: list[str]                       # 'system' or 'human', per summarizer
    variants: list[Variant]
    system_metric: np.ndarray              # (S, V)
    combinations: list[str]                # every target (Graham's combinations, dimensions, composites)
    system_human: np.ndarray               # (S, C)
    per_summary: PerSummary
    primary: str | None = None             # the primary target (human/targets.tsv), None: the main combination
    # the summary level pools every judged summary whatever the number of summarizers (targets.tsv's
    # summary_level: the data set's benchmark correlates so, as XSumFaith's paper)
    pooled: bool = False
    # per-summary metric -> the one target it was declared for (metrics.tsv's dimension); the others serve all
    meant_for: Mapping[str, str] = field(default_factory=dict)

    def serves(self, metric: str, target: str) -> bool:
        """Whether the per-summary metric ``metric`` is compared under ``target``: every metric but one
        declared for another dimension (a judge asked about coherence serves coherence only; one declared
        for a dimension the data set lacks serves none)."""
        declared = self.meant_for.get(metric)
        return declared is None or declared == target

    def variants_for(self, target: str) -> np.ndarray:
        """(V,) mask of the variants compared under ``target`` (their per-summary metric :meth:`serves` it)."""
        return np.array([self.serves(v.summary_metric, target) for v in self.variants], dtype=bool)

    def metrics_for(self, target: str) -> list[str]:
        """The per-summary metrics compared under ``target``, in the order of :attr:`summary_metric`."""
        return [m for m in self.per_summary.metrics if self.serves(m, target)]

    @property
    def main(self) -> str | None:
        """The target the single-target tables and the answer are about."""
        marked = self.primary if self.primary in self.combinations else None
        return primary_target(self.combinations, marked)

    @property
    def variant_ids(self) -> list[str]:
        return [str(v) for v in self.variants]

    @property
    def summary_metric(self) -> dict[str, np.ndarray]:
        return self.per_summary.metrics


def corpus_stats_paths(inputs: Mapping[str, str]) -> dict[str, str]:
    """The sufficient statistics among a job's named inputs, by corpus-level variant id (each
    corpus-level family's :meth:`~metaeval.metrics.family.CorpusFamily.stats_variant`:
    ``bleu_stats_ST1_RS0`` -> ``BLEU_ST1_RS0``, ``chrf_stats_CHRF++`` -> ``CHRF++``)."""
    out = {}
    for key, path in inputs.items():
        for family in corpus_families():
            variant = family.stats_variant(key)
            if variant is not None:
                out[variant] = path
    return dict(sorted(out.items()))


def score_tables(inputs: Mapping[str, str]) -> dict[str, str]:
    """The families' long per-summary tables among a job's named inputs, by family name, in the
    registry's order (:attr:`metaeval.metrics.family.Family.table`: SERA's, chrF's, the file
    metrics')."""
    return {f.name: inputs[f.table] for f in REGISTRY.values() if f.table and inputs.get(f.table)}


def _index(values: pd.Series, positions: Mapping[str, int]) -> np.ndarray:
    return values.map(positions).fillna(-1).to_numpy(dtype=np.int64)


def load(system_scores: str, summary_scores: str, summary_human: str, system_human: str, summarizers: str,
         corpus_stats: Mapping[str, str] = {}, other_scores: Mapping[str, str] = {},
         targets: str | None = None) -> AnalysisInputs:
    """Read the scoring and human tables (and the long per-summary tables of the other families,
    by family name (:func:`score_tables`), and the statistics of the corpus-level variants, by
    variant id); keep the summarizers the option names ('systems' or 'all')."""
    sh = tables.read_tsv(system_human, numeric=("score",))
    kinds = dict(zip(sh["summarizer"], sh["kind"]))
    combinations = list(pd.unique(sh["combination"]))
    keep = sorted(s for s, k in kinds.items() if summarizers == "all" or k == "system")
    s_index = {s: i for i, s in enumerate(keep)}
    S = len(keep)
    sys_human = np.full((S, len(combinations)), np.nan)
    rows = _index(sh["summarizer"], s_index)
    cols = _index(sh["combination"], {c: i for i, c in enumerate(combinations)})
    ok = rows >= 0
    sys_human[rows[ok], cols[ok]] = sh["score"].to_numpy()[ok]

    sy = tables.read_tsv(system_scores, numeric=("score",))
    variant_ids = list(pd.unique(sy["variant"]))
    sys_metric = np.full((S, len(variant_ids)), np.nan)
    rows = _index(sy["summarizer"], s_index)
    cols = _index(sy["variant"], {v: i for i, v in enumerate(variant_ids)})
    ok = rows >= 0
    sys_metric[rows[ok], cols[ok]] = sy["score"].to_numpy()[ok]

    hu = tables.read_tsv(summary_human)
    topics = sorted(set(hu["topic"]))
    t_index = {t: i for i, t in enumerate(topics)}
    T = len(topics)
    rows, cols = _index(hu["summarizer"], s_index), _index(hu["topic"], t_index)
    ok = (rows >= 0) & (cols >= 0)
    human = {}
    for c in combinations:
        grid = np.full((S, T), np.nan)
        grid[rows[ok], cols[ok]] = tables.to_float(hu[c])[ok]
        human[c] = grid

    metrics: dict[str, np.ndarray] = {}
    sc = tables.read_tsv(summary_scores, numeric=("P", "R", "F"))
    rows, cols = _index(sc["summarizer"], s_index), _index(sc["topic"], t_index)
    ok = (rows >= 0) & (cols >= 0)
    sc = sc[ok]
    rows, cols = rows[ok], cols[ok]
    group = sc["measure"] + "\t" + sc["stem"] + "\t" + sc["stopwords_removed"]
    for key in pd.unique(group):
        sel = (group == key).to_numpy()
        measure, stem, stop = key.split("\t")
        for prf in (("F",) if measure == "BLEU" else ("P", "R", "F")):
            grid = np.full((S, T), np.nan)
            grid[rows[sel], cols[sel]] = sc[prf].to_numpy()[sel]
            metrics[summary_metric_id(measure, int(stem), int(stop), None if measure == "BLEU" else prf)] = grid

    stats: dict[str, np.ndarray] = {}
    for variant, path in corpus_stats.items():
        st = tables.read_tsv(path, integer=("set",))
        n_sets = 1 + int(st["set"].max()) if len(st) else 1
        names = list(st.columns[3:])                   # the statistics, after topic, summarizer, set
        arr = np.full((S, T, n_sets, len(names)), np.nan)
        rows, cols = _index(st["summarizer"], s_index), _index(st["topic"], t_index)
        ok = (rows >= 0) & (cols >= 0)
        values = st[names].to_numpy(dtype=np.float64)
        arr[rows[ok], cols[ok], st["set"].to_numpy()[ok]] = values[ok]
        stats[variant] = arr

    for family, path in other_scores.items():
        ot = REGISTRY[family].read_scores(path)
        rows, cols = _index(ot["summarizer"], s_index), _index(ot["topic"], t_index)
        ok = (rows >= 0) & (cols >= 0)
        ot = ot[ok]
        rows, cols = rows[ok], cols[ok]
        for metric in pd.unique(ot["metric"]):
            sel = (ot["metric"] == metric).to_numpy()
            if metric not in metrics:
                metrics[metric] = np.full((S, T), np.nan)
            metrics[metric][rows[sel], cols[sel]] = ot["score"].to_numpy()[sel]

    ps = PerSummary(keep, topics, metrics, stats, human)
    return AnalysisInputs(keep, [kinds[s] for s in keep], [Variant.parse(v) for v in variant_ids], sys_metric,
                          combinations, sys_human, ps, primary_of(targets), pooled_of(targets))


def on_common_ground(inp: AnalysisInputs) -> tuple[AnalysisInputs, list[str]]:
    """The inputs restricted to the summarizers every variant scoring any summarizer scores
    (:func:`metaeval.stats.coverage.common_items`), so that every system-level correlation and test
    between variants rests on one set of systems; and the names of the summarizers left out (with
    ``summarizers: all``, a judged reference the text metrics cannot score)."""
    keep = common_items(inp.system_metric)
    if keep.all():
        return inp, []
    rows = np.flatnonzero(keep)
    ps = inp.per_summary
    cut = PerSummary([ps.summarizers[i] for i in rows], ps.topics, {m: g[rows] for m, g in ps.metrics.items()},
                     {v: a[rows] for v, a in ps.corpus_stats.items()}, {c: g[rows] for c, g in ps.human.items()})
    return (AnalysisInputs([inp.summarizers[i] for i in rows], [inp.kinds[i] for i in rows], inp.variants,
                           inp.system_metric[rows], inp.combinations, inp.system_human[rows], cut, inp.primary,
                           inp.pooled, inp.meant_for),
            [s for s, k in zip(inp.summarizers, keep) if not k])


def load_named(inputs: Mapping[str, str], summarizers: str) -> AnalysisInputs:
    """:func:`load` from a job's named inputs (``system_scores``, ``summary_scores``,
    ``summary_human``, ``system_human``, and every family's statistics and long table it has:
    ``bleu_stats_ST..``, ``sera``, ``chrf``, ``chrf_stats_..``, ``file_metrics``, and the file
    metrics' declarations ``file_metrics_declared``)."""
    inp = load(inputs["system_scores"], inputs["summary_scores"], inputs["summary_human"], inputs["system_human"],
               summarizers, corpus_stats_paths(inputs), score_tables(inputs), inputs.get("targets"))
    declared = inputs.get("file_metrics_declared")
    return replace(inp, meant_for=declared_dimensions(read_metrics(declared)) if declared else {})
