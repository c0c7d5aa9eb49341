"""Soft pairwise accuracy and the pairs of systems (results/{dataset}/soft_pairwise/).

* ``soft_pairwise_accuracy.tsv``: the soft pairwise accuracy (:mod:`metaeval.stats.soft_pairwise`,
  Thompson et al. 2024, as mt-metrics-eval's pce.py) of every variant (ROUGE, BLEU, chrF, SERA,
  file and released metrics) against every target, at the system level, with its bootstrap
  interval over items. The permutation test compares the systems' sums of per-summary scores, so a
  variant's SPA is its per-summary metric's (``item_scores``): a mean (_A) and a median (_M) variant
  of one metric share it, and a corpus-BLEU variant has the one of smoothed sentence BLEU.
* ``pair_deltas.tsv``: for every variant, target and pair of systems, the variant's system-score
  difference, the human one, and whether they agree (:func:`metaeval.stats.delta_curve.pair_deltas`);
  the across-data-set curves of "what a difference means" (:mod:`metaeval.stages.delta`) read it.

Systems only (judged human summaries are not systems here), sorted by name; items (topics) sorted
numerically when every id is an integer (:func:`metaeval.stats.soft_pairwise.item_order`).

load (:mod:`metaeval.stages.analysis_inputs`) -> :func:`compute` -> :class:`SoftPairwiseResult` -> :func:`write`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from .. import tables
from ..records import SoftPairwiseOptions
from ..stats import delta_curve
from ..stats import soft_pairwise as sp
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs

SPA_COLUMNS = ("variant", "item_scores", "target", "spa", "lo", "hi", "n_systems", "n_items", "n_pairs")
PAIR_COLUMNS = ("variant", "target", "system_a", "system_b", "metric_diff", "human_diff", "delta", "agree")
TOP = 25


@dataclass
class SoftPairwiseResult:
    rows: list[dict[str, object]]           # SPA_COLUMNS
    pairs: pd.DataFrame                     # PAIR_COLUMNS
    notes: list[tuple[str, str]]
    primary: str | None


def load(inputs: Mapping[str, str], options: SoftPairwiseOptions) -> AnalysisInputs:
    return analysis_inputs.load_named(inputs, "systems")


def _spa_by_item_scores(inp: AnalysisInputs, options: SoftPairwiseOptions, notes: list[tuple[str, str]]
                        ) -> dict[tuple[str, str], tuple[float, float, float, int]]:
    """(per-summary metric, target) -> (spa, lo, hi, items). Every scorer sharing a set of kept
    (system, item) entries is computed in one batch (its human rows and metric rows stacked)."""
    ps = inp.per_summary
    order = sp.item_order(ps.topics)
    metrics = list(dict.fromkeys(v.summary_metric for v in inp.variants if v.summary_metric in ps.metrics))
    grids = {m: ps.metrics[m][:, order] for m in metrics}
    groups: dict[bytes, dict] = {}        # kept entries -> rows to compute and comparisons
    hows: dict[str, set[str]] = {}
    for target in inp.combinations:
        h = ps.human[target][:, order]
        for m in (m for m in metrics if inp.serves(m, target)):
            keep = ~np.isnan(h) & ~np.isnan(grids[m])
            hp, mp, how = sp.pack(h, grids[m])
            if how:
                hows.setdefault(how, set()).add(target)
            key = keep.tobytes() + bytes(str(hp.shape), "ascii")
            g = groups.setdefault(key, {"rows": [], "index": {}, "pairs": []})
            for name, matrix in ((("human", target), hp), (("metric", m), mp)):
                if name not in g["index"]:
                    g["index"][name] = len(g["rows"])
                    g["rows"].append(matrix)
            g["pairs"].append((m, target, g["index"][("human", target)], g["index"][("metric", m)]))
    for how, targets in sorted(hows.items()):
        notes.append(("missing_items", f"{how} (targets: {', '.join(sorted(targets))})"))
    out = {}
    for g in groups.values():
        scores = np.stack(g["rows"])
        S, n = scores.shape[1:]
        comparisons = [(hi, mi) for _, _, hi, mi in g["pairs"]]
        if n == 0 or S < 2:
            for m, target, _, _ in g["pairs"]:
                out[(m, target)] = (np.nan, np.nan, np.nan, n)
            continue
        p = sp.pairwise_p_values(scores, options.permutations, options.seed)
        values = sp.spa(p[[c[0] for c in comparisons]], p[[c[1] for c in comparisons]])
        boot = sp.bootstrap_spa(scores, comparisons, options.bootstrap_samples, options.bootstrap_seed,
                                options.permutations, options.seed)
        lo, hi = sp.interval(boot, options.confidence) if options.bootstrap_samples else (
            np.full(len(comparisons), np.nan), np.full(len(comparisons), np.nan))
        for k, (m, target, _, _) in enumerate(g["pairs"]):
            out[(m, target)] = (float(values[k]), float(lo[k]), float(hi[k]), n)
    return out


def _pairs(inp: AnalysisInputs) -> pd.DataFrame:
    """Every variant x target it serves x pair of systems (PAIR_COLUMNS), variants and targets in their
    tables' order."""
    V, C = len(inp.variants), len(inp.combinations)
    dm, dh, delta, agree = delta_curve.pair_deltas(inp.system_metric.T, inp.system_human.T)
    a, b = delta_curve.pair_indices(len(inp.summarizers))
    P = len(a)
    names = np.array(inp.summarizers, dtype=object)
    served = np.repeat(np.stack([inp.variants_for(c) for c in inp.combinations], axis=1).ravel(), P) \
        if V and C else np.zeros(0, dtype=bool)
    frame = pd.DataFrame({
        "variant": np.repeat(np.array(inp.variant_ids, dtype=object), C * P),
        "target": np.tile(np.repeat(np.array(inp.combinations, dtype=object), P), V),
        "system_a": np.tile(names[a], V * C), "system_b": np.tile(names[b], V * C),
        "metric_diff": np.repeat(dm, C, axis=0).ravel(), "human_diff": np.tile(dh, (V, 1)).ravel(),
        "delta": np.repeat(delta, C, axis=0).ravel(), "agree": agree.ravel()}, columns=list(PAIR_COLUMNS))
    return frame if served.all() else frame[served].reset_index(drop=True)


def compute(inp: AnalysisInputs, options: SoftPairwiseOptions) -> SoftPairwiseResult:
    notes: list[tuple[str, str]] = []
    S = len(inp.summarizers)
    if S < 2:
        notes.append(("too_few_systems", f"only {S} system(s): no pair of systems, so no soft pairwise accuracy"))
    values = _spa_by_item_scores(inp, options, notes) if S >= 2 else {}
    rows = []
    n_pairs = S * (S - 1) // 2
    for target in inp.combinations:
        for v, vid in zip(inp.variants, inp.variant_ids):
            spa, lo, hi, n = values.get((v.summary_metric, target), (np.nan, np.nan, np.nan, 0))
            rows.append({"variant": vid, "item_scores": v.summary_metric, "target": target, "spa": spa, "lo": lo,
                         "hi": hi, "n_systems": S, "n_items": n, "n_pairs": n_pairs})
    notes.append(("settings", f"pce.py's permutations: {options.permutations}, seed {options.seed} (float32); "
                              f"{options.bootstrap_samples} bootstrap samples of the items, seed "
                              f"{options.bootstrap_seed}, {options.confidence:g} percentile intervals"))
    return SoftPairwiseResult(rows, _pairs(inp), notes, inp.main)


CAPTION = ("Soft pairwise accuracy (Thompson et al. 2024; mt-metrics-eval's pce.py: permutation p-values of every "
           "pair of systems from the human and from the metric scores, SPA = 1 - their mean absolute difference) of "
           "the top {top} variants for {target}. How to read this: 1 = the metric is as sure as the humans about "
           "every pair; unlike pairwise accuracy it rewards a metric for being unsure where the humans are. "
           "Brackets: {conf} bootstrap interval over the items. Every variant and target: soft_pairwise_accuracy.tsv.")


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
NOTES_CAPTION = "Notes of the soft pairwise accuracy: missing items and how they were handled, and the settings."


def write(result: SoftPairwiseResult, options: SoftPairwiseOptions, out: Mapping[str, str]) -> None:
    tables.write_tsv(tables.frame(result.rows, SPA_COLUMNS), out["spa"])
    tables.write_tsv(result.pairs, out["pairs"])
    tables.write_tsv(tables.frame(result.notes, ["kind", "note"]), out["notes"])
    target = result.primary
    mine = [r for r in result.rows if r["target"] == target and not np.isnan(r["spa"])]
    mine.sort(key=lambda r: -r["spa"])          # stable: ties keep the variants' order
    rows = [[str(r["variant"]), str(r["item_scores"]),
             tables.fixed(r["spa"]) + ("" if np.isnan(r["lo"]) else f" [{tables.fixed(r['lo'])}, {tables.fixed(r['hi'])}]"),
             str(r["n_items"])] for r in mine[:TOP]]
    tables.write_markdown(out["spa_md"], CAPTION.format(top=TOP, target=target or "the primary target",
                                                         conf=f"{100 * options.confidence:g} %"),
                          ["variant", "item scores", "SPA", "items"], rows)


def methods(config: Mapping) -> list[str]:
    """The report's methods lines (metaeval.registry)."""
    s = config.get("soft_pairwise", {})
    if not s.get("enabled", True):
        return ["Soft pairwise accuracy: disabled (soft_pairwise.enabled: false)."]
    return [f"Soft pairwise accuracy (Thompson, Mathur, Deutsch & Freitag 2024) exactly as mt-metrics-eval's pce.py: "
            f"{s.get('permutations')} paired permutations over the items (seed {s.get('seed')}, float32), systems "
            "sorted by name, items sorted (numerically when every id is an integer); entries missing on either side "
            "dropped as mt-metrics-eval's filter_nones (the items every system has when the systems keep different "
            f"numbers); {s.get('bootstrap_samples')} bootstrap samples of the items (seed {s.get('bootstrap_seed')}) "
            f"for its {s.get('confidence')} percentile interval."]
