"""Correlation stage (Graham 2015 §3, §4, §6): for every variant and human combination, Pearson,
Spearman and Kendall over the summarizers with a bootstrap interval of Pearson r; Williams tests
between every ordered pair of variants; optimal variants and significance clusters; and the
summary-level table.

load (:mod:`metaeval.stages.analysis_inputs`) -> :func:`compute` -> :class:`CorrelationResult`
-> :func:`write` (correlations.tsv, williams_{combination}.tsv, summary_level_correlations.tsv,
notes.tsv). The statistics are :mod:`metaeval.stats.correlation`, :mod:`metaeval.stats.bootstrap`
and :mod:`metaeval.stats.williams`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .. import tables
from ..metrics.families import owner
from ..records import CorrelateOptions
from ..stats.annotator_resampling import HumanResampler
from ..stats.bootstrap import bootstrap_pearson
from ..stats.core import Plan, corrcoef, pearson_against
from ..stats.coverage import common_cells
from ..stats.floor import mean_within_group_pearson, permutation_floor
from ..stats.correlation import (intervals_and_p_vs_best, paired_bootstrap_matrix, pairwise_difference_pearson,
                                 point_correlations, pooled, summary_level, summary_level_samples, within_topic)
from ..stats.williams import adjust, assign_clusters, optimal, williams_matrix
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs, on_common_ground
from .human import COMBINATIONS

CORRELATION_COLUMNS = ("variant", "combination", "n", "pearson", "pearson_lo", "pearson_hi", "spearman", "kendall",
                       "optimal", "cluster", "n_covered", "pearson_covered", "pdp")
SUMMARY_LEVEL = "summary (within topic, mean over topics)"
POOLED_LEVEL = "summary (all judged summaries pooled)"
SUMMARY_LEVEL_COLUMNS = ("level", "metric", "combination", "topics", "pearson", "spearman", "kendall", "summaries",
                         "pearson_lo", "pearson_hi", "p_vs_best", "pdp", "summaries_covered", "pearson_covered")
# the random floor of every column this stage answers (metaeval.stats.floor), by the leaderboard's level names
FLOOR_COLUMNS = ("target", "level", "subset", "statistic", "metric", "n", "permutations", "floor_mean", "floor_lo",
                 "floor_hi")


@dataclass
class CorrelationResult:
    rows: list[dict[str, object]]            # one per (combination, variant), CORRELATION_COLUMNS
    variants: list[str]
    williams: dict[str, np.ndarray]          # computed combination -> (V, V) p-values
    summary_level: list[dict[str, object]]  # SUMMARY_LEVEL_COLUMNS
    notes: list[tuple[str, str]]
    summary_metrics: list[str] = field(default_factory=list)       # the per-summary metrics, in order
    # combination -> (M, M): p[u, v] = the paired bootstrap p-value that u does not correlate better than v
    summary_level_tests: dict[str, np.ndarray] = field(default_factory=dict)
    floor: list[dict[str, object]] = field(default_factory=list)      # FLOOR_COLUMNS


def load(inputs: Mapping[str, str], options: CorrelateOptions) -> tuple[AnalysisInputs, dict[str, str]]:
    """The score and human tables, and the human combinations that were skipped (with the reason)."""
    skipped = dict(tables.read_tsv(inputs["skipped"]).itertuples(index=False, name=None))
    return analysis_inputs.load_named(inputs, options.summarizers), skipped


def _constant(values: np.ndarray) -> bool:
    return bool(np.all(np.isnan(values)) or np.nanmax(values) == np.nanmin(values))


def unscored_reference_notes(inp: AnalysisInputs) -> list[tuple[str, str]]:
    """The judged human summarizers the text metrics of the workflow (ROUGE, BLEU, chrF, SERA) leave
    unscored: a judged reference that is its topic's only human summary has no other reference to
    be scored against (dataset.yaml's ``judged_lone_references``). Counts their judged summaries and
    says on how many summarizers those metrics' correlations rest (column ``n``)."""
    # the families the workflow computes own their variants' per-summary ids (a score file's own none)
    text_metrics = [v for v, variant in enumerate(inp.variants) if owner(variant.summary_metric) is not None]
    if not text_metrics:
        return []
    judged = ~np.all(np.isnan(inp.system_human), axis=1)
    unscored = [i for i, kind in enumerate(inp.kinds)
                if kind == "human" and judged[i] and np.all(np.isnan(inp.system_metric[i, text_metrics]))]
    if not unscored:
        return []
    grids = [g for g in inp.per_summary.human.values()]
    summaries = sum(int(np.sum(np.any([~np.isnan(g[i]) for g in grids], axis=0))) for i in unscored) if grids else 0
    names = ", ".join(inp.summarizers[i] for i in unscored)
    rest = int(np.sum(judged)) - len(unscored)
    return [("unscored_references", f"{summaries} judged human summar{'y' if summaries == 1 else 'ies'} of {names} "
             "are their topics' only human summaries: ROUGE, BLEU, chrF and SERA, which score a summary against the "
             "topic's other references, leave them unscored, so the correlations of those metrics rest on the "
             f"{rest} judged summarizers they score (column n); the metrics of the score files score them")]


def constancy_notes(inp: AnalysisInputs) -> list[tuple[str, str]]:
    """Why correlations are undefined, naming the cause once: one summarizer, a human combination
    with the same score for every summarizer, every metric constant (or every ROUGE and BLEU
    variant), or single constant metrics."""
    n_sys = len(inp.summarizers)
    few = ("only {n} summarizer{s}: a correlation across summarizers needs at least 3, so every system-level "
           "correlation is NA and there are no system-level tests; the summary level pools all judged summaries "
           "(summary_level_correlations.tsv)").format(n=n_sys, s="s" if n_sys != 1 else "")
    if n_sys < 2:
        return [("one_summarizer", few)]
    notes = [("too_few_summarizers", few)] if n_sys < 3 else []
    notes += [("constant_human", f"{comb}: the same human score for every summarizer, so every correlation with it "
                                 "is undefined (NA)")
              for c, comb in enumerate(inp.combinations) if _constant(inp.system_human[:, c])]
    constant = [name for v, name in enumerate(inp.variant_ids) if _constant(inp.system_metric[:, v])]
    # ROUGE and BLEU read ROUGE-1.5.5's tokens, which ignore text without ASCII letters or digits;
    # chrF and SERA read the text itself, so they may vary when all of ROUGE and BLEU cannot
    tokens = [str(v) for v in inp.variants if v.family in ("rouge", "bleu")]
    everything = bool(constant) and len(constant) == len(inp.variant_ids)
    grouped = inp.variant_ids if everything else tokens if tokens and set(tokens) <= set(constant) else []
    if grouped:
        which, whose = ("metric", "every correlation is") if everything else ("ROUGE and BLEU", "their correlations are")
        notes.append(("constant_metric", f"all {len(grouped)} {which} variants give every summarizer the same score, "
                                         f"so {whose} undefined (NA); see the data set's warnings in "
                                         "logs/validate_dataset.log (e.g. text without ASCII letters or digits, "
                                         "which ROUGE-1.5.5 ignores)"))
        constant = [name for name in constant if name not in set(grouped)]
    if constant and n_sys >= 3:   # with 2, every system-level r is NA anyway: a note per metric would only repeat it
        notes += [("constant_metric", f"{name}: the same score for every system, so its correlation is "
                                      "undefined; it is reported as NA and left out of the Williams tests")
                  for name in constant]
    return notes


def covered_correlations(inp: AnalysisInputs) -> tuple[np.ndarray, np.ndarray]:
    """(pearson, n), each (V, C): every variant's Pearson r on all the summarizers it scores, its
    fuller value where it covers more than the common ground (reported, never ranked)."""
    V, C = len(inp.variants), len(inp.combinations)
    r, n = np.full((V, C), np.nan), np.zeros((V, C), dtype=int)
    for v in range(V):
        for c in range(C):
            r[v, c], _, _, n[v, c] = point_correlations(inp.system_metric[:, v], inp.system_human[:, c])
    return r, n


def single_target_notes(inp: AnalysisInputs) -> list[tuple[str, str]]:
    """The note of the metrics declared for one dimension each (an LLM judge asked about one): each is
    compared, ranked and tested under that target only."""
    by_target: dict[str, list[str]] = {}
    for metric, target in sorted(inp.meant_for.items()):
        if metric in inp.per_summary.metrics:
            by_target.setdefault(target if target in inp.combinations else "", []).append(metric)
    out = [("single_target", f"{', '.join(ms)}: declared for {t}, so compared, ranked and tested under {t} only "
                             "(NA under every other target)") for t, ms in by_target.items() if t]
    if "" in by_target:
        out.append(("single_target", f"{', '.join(by_target[''])}: declared for a dimension this data set does not "
                                     "have, so compared under no target"))
    return out


def common_ground_notes(left_out: Sequence[str], n: int) -> list[tuple[str, str]]:
    """The note of the summarizers left out of the common ground (none when every variant scores
    every summarizer)."""
    if not left_out:
        return []
    return [("common_ground", f"{', '.join(left_out)}: not scored by every metric, so left out of every correlation "
                              f"and test here: every metric is ranked and tested on the {n} summarizers all of them "
                              "score (column n); n_covered and pearson_covered give each metric's r on all it "
                              "scores, not ranked")]


def read_permutation_basis(inputs: Mapping[str, str]) -> dict[str, tuple[list[str], np.ndarray]]:
    """The statistics job's permutation p-value matrices among a job's named inputs
    (``permutation_{combination}``), by combination: (tested variant ids, p)."""
    out = {}
    for key, path in inputs.items():
        if key.startswith("permutation_"):
            f = tables.read_tsv(path)
            ids = list(f["variant"])
            out[key[len("permutation_"):]] = (ids, np.array([tables.to_float(f[v]) for v in ids]).T.reshape(
                len(ids), len(ids)) if ids else np.zeros((0, 0)))
    return out


def permutation_optimal(variant_ids: Sequence[str], r: np.ndarray, tested: Sequence[str], p_tested: np.ndarray,
                        alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(optimal, cluster, decided) of every variant from the permutation tests among the tested
    ones: the Williams tests' rules (``optimal``, ``assign_clusters``) on their p-values, ordered by
    ``r``; the untested variants are not decided (NA)."""
    index = {v: i for i, v in enumerate(variant_ids)}
    p = np.full((len(variant_ids), len(variant_ids)), np.nan)
    rows = [index[v] for v in tested]
    p[np.ix_(rows, rows)] = p_tested
    decided = np.zeros(len(variant_ids), dtype=bool)
    decided[rows] = True
    decided &= ~np.isnan(r)
    order = np.array([v for v in np.argsort(-np.nan_to_num(r, nan=-np.inf), kind="stable") if decided[v]], dtype=int)
    clusters = assign_clusters(p, order, alpha) if len(order) else np.zeros(len(variant_ids), dtype=int)
    return optimal(p, alpha, decided), clusters, decided


def compute(inp: AnalysisInputs, options: CorrelateOptions, skipped: Mapping[str, str] = {},
            basis: Mapping[str, tuple[list[str], np.ndarray]] | None = None, annotators=None) -> CorrelationResult:
    """Everything the stage reports; ``skipped`` = the human combinations the human-scores stage
    could not compute, with the reason (reported in the notes); ``basis``: the permutation tests
    "optimal" rests on when ``options.optimal`` is permutation (:func:`read_permutation_basis`);
    ``annotators``: the :class:`metaeval.stats.annotator_resampling.AnnotatorModel` of the data set
    when the bootstrap also resamples annotators (``correlation.resample_annotators``)."""
    notes: list[tuple[str, str]] = []
    notes += unscored_reference_notes(inp)
    full = inp
    inp, left_out = on_common_ground(inp)
    notes += common_ground_notes(left_out, len(inp.summarizers))
    n_sys = len(inp.summarizers)
    V, C = len(inp.variants), len(inp.combinations)
    pear, spear, kend = np.full((V, C), np.nan), np.full((V, C), np.nan), np.full((V, C), np.nan)
    ns = np.zeros((V, C), dtype=int)
    for v in range(V):
        for c in range(C):
            pear[v, c], spear[v, c], kend[v, c], ns[v, c] = point_correlations(inp.system_metric[:, v],
                                                                               inp.system_human[:, c])
    notes = constancy_notes(inp) + notes
    covered_r, covered_n = covered_correlations(full) if left_out else (pear.copy(), ns.copy())
    # a metric declared for one dimension is compared under that target only: NA (n 0) under the others
    off = ~np.stack([inp.variants_for(c) for c in inp.combinations], axis=1) if V and C else np.zeros((V, C), bool)
    for a in (pear, spear, kend, covered_r):
        a[off] = np.nan
    ns[off], covered_n[off] = 0, 0
    notes += single_target_notes(inp)
    # Pairwise Difference Pearson of the system scores: every pair of systems is one item's pair
    pdp = np.stack([pairwise_difference_pearson(inp.system_metric.T[:, :, None], inp.system_human[:, c:c + 1])
                    for c in range(C)], axis=1) if V and C else np.full((V, C), np.nan)
    pdp[off] = np.nan
    human = None
    if options.resample_annotators:       # annotators as data (metaeval.stats.annotator_resampling states the scheme)
        if annotators is not None and annotators.annotated:
            human = HumanResampler(annotators, inp.combinations, options.bootstrap_samples, options.seed, options.human_order)
            notes.append(("resample_annotators", "the bootstrap intervals also resample annotators (each group's "
                                                 "annotators drawn with replacement per sample; a judgment is "
                                                 f"{annotators.aggregation.describe()} drawn)"))
        else:
            notes.append(("resample_annotators", "no human dimension comes from per-annotator judgments: the "
                                                 "intervals resample systems and topics only"))
    if options.bootstrap_samples > 0 and n_sys >= 3:
        plan = Plan(options.bootstrap_samples, options.resample, options.seed, options.confidence)
        lo, hi = bootstrap_pearson(inp.per_summary, inp.variants, inp.combinations, inp.system_metric,
                                   inp.system_human, plan, human)
    else:
        lo, hi = np.full((V, C), np.nan), np.full((V, C), np.nan)
    undefined = np.isnan(pear)        # an undefined correlation has no interval
    lo[undefined] = np.nan
    hi[undefined] = np.nan
    williams: dict[str, np.ndarray] = {}
    rows: list[dict[str, object]] = []
    if n_sys == 3:
        notes.append(("williams_undefined", f"only {n_sys} summarizers: the Williams test needs at least 4 "
                                            "(n - 3 degrees of freedom); no significance tests, optimal or clusters"))
    for c, comb in enumerate(inp.combinations):
        if n_sys >= 4:
            ok = ~np.isnan(inp.system_human[:, c])
            m = inp.system_metric[ok]
            with np.errstate(invalid="ignore", divide="ignore"):
                mm = corrcoef(m, rowvar=False) if m.shape[0] > 1 else np.full((V, V), np.nan)
            mm = np.atleast_2d(mm)
            p = adjust(williams_matrix(pear[:, c], np.clip(mm, -1, 1), int(ok.sum())), options.correction)
            williams[comb] = p
            opt = optimal(p, options.alpha, ~np.isnan(pear[:, c]))
            order = np.array([v for v in np.argsort(-np.nan_to_num(pear[:, c], nan=-np.inf), kind="stable")
                              if not np.isnan(pear[v, c])], dtype=int)
            clusters = assign_clusters(p, order, options.alpha) if len(order) else np.zeros(V, dtype=int)
            decided = ~np.isnan(pear[:, c])
            if options.optimal == "permutation":
                tested, p_tested = (basis or {}).get(comb, ([], np.zeros((0, 0))))
                opt, clusters, decided = permutation_optimal(inp.variant_ids, pear[:, c], tested, p_tested,
                                                             options.alpha)
        else:
            williams[comb] = np.full((V, V), np.nan)
            opt, clusters = None, None
        for v, name in enumerate(inp.variant_ids):
            defined = not np.isnan(pear[v, c]) and (opt is None or bool(decided[v]))
            rows.append({
                "variant": name, "combination": comb, "n": int(ns[v, c]), "pearson": pear[v, c],
                "pearson_lo": lo[v, c], "pearson_hi": hi[v, c], "spearman": spear[v, c], "kendall": kend[v, c],
                "optimal": "NA" if opt is None or not defined else ("yes" if opt[v] else "no"),
                "cluster": "NA" if clusters is None or not defined else str(int(clusters[v])),
                "n_covered": int(covered_n[v, c]), "pearson_covered": covered_r[v, c], "pdp": pdp[v, c],
            })
    for comb, reason in skipped.items():
        notes.append(("skipped_combination", f"{comb}: {reason}"))
    notes.append(("williams", f"Williams tests are for Pearson's r; alpha = {options.alpha}; "
                              f"correction = {options.correction or 'none (as Graham 2015)'}"))
    if options.optimal == "permutation":
        notes.append(("optimal", "optimal and cluster rest on the statistics job's permutation tests among its tested "
                                 f"variants (statistics.optimal: permutation; alpha = {options.alpha}); the other "
                                 "variants' are NA"))
    if n_sys < 3:
        notes.append(("summary_level", f"{n_sys} summarizer(s): no topic has 3 summaries to correlate within, so the "
                                       "summary level is the correlation over all judged summaries pooled"))
    elif inp.pooled:
        notes.append(("summary_level", "the data set's benchmark correlates over every judged summary (dataset.yaml "
                                       "summary_level: pooled): the summary level is all judged summaries pooled"))
    level, level_tests = summary_level_rows(inp, options)
    return CorrelationResult(rows, inp.variant_ids, williams, level, notes, list(inp.summary_metric), level_tests,
                             floor_rows(inp, pear, level, options))


def floor_rows(inp: AnalysisInputs, pear: np.ndarray, level_rows: Sequence[Mapping[str, object]],
               options: CorrelateOptions) -> list[dict[str, object]]:
    """The random floor (:mod:`metaeval.stats.floor`) of every target at the system level (the best
    variant's system scores permuted across the summarizers) and at the summary level (the best
    per-summary metric's scores permuted within each topic, or across all judged summaries when the
    level is pooled), on the same common ground as the values."""
    out = []
    grounds = summary_ground(inp)[0] if inp.summary_metric else {}
    for c, comb in enumerate(inp.combinations):
        if np.isfinite(pear[:, c]).any():
            v = int(np.nanargmax(pear[:, c]))
            x, y = inp.system_metric[:, v], inp.system_human[:, c]
            ok = np.isfinite(x) & np.isfinite(y)
            f = permutation_floor(pearson_against(y[ok]), x[ok], None, options.floor_permutations,
                                  options.floor_seed, options.floor_confidence)
            out.append({"target": comb, "level": "system", "subset": "all", "statistic": "r",
                        "metric": inp.variant_ids[v], "n": int(ok.sum()), "permutations": f.permutations,
                        "floor_mean": f.mean, "floor_lo": f.lo, "floor_hi": f.hi})
        rows = [r for r in level_rows if r["combination"] == comb and np.isfinite(float(r["pearson"]))]
        if not rows:
            continue
        best = max(rows, key=lambda r: float(r["pearson"]))      # the first of equals, in the table's order
        metric, pooled_level = str(best["metric"]), best["level"] == POOLED_LEVEL
        grid, human = inp.summary_metric[metric], grounds[comb]
        ok = np.isfinite(grid) & np.isfinite(human)
        topics = np.broadcast_to(np.arange(grid.shape[1]), grid.shape)[ok]
        x, y = grid[ok], human[ok]
        if pooled_level:
            f = permutation_floor(pearson_against(y), x, None, options.floor_permutations,
                                  options.floor_seed, options.floor_confidence)
        else:
            f = permutation_floor(lambda p, y=y, t=topics: mean_within_group_pearson(p, y, t), x, topics,
                                  options.floor_permutations, options.floor_seed, options.floor_confidence)
        out.append({"target": comb, "level": "pooled" if pooled_level else "summary", "subset": "all",
                    "statistic": "r", "metric": metric, "n": int(ok.sum()), "permutations": f.permutations,
                    "floor_mean": f.mean, "floor_lo": f.lo, "floor_hi": f.hi})
    return out


def summary_level_rows(inp: AnalysisInputs, options: CorrelateOptions
                       ) -> tuple[list[dict[str, object]], dict[str, np.ndarray]]:
    """The summary-level table (:data:`SUMMARY_LEVEL_COLUMNS`): within each topic, averaged over
    the topics (at least 3 summarizers), or all judged summaries pooled (fewer); Pearson r with its
    bootstrap interval over topics and the paired bootstrap p-value against the combination's best
    metric (:func:`metaeval.stats.correlation.summary_level_samples`; ``options.bootstrap_samples``
    draws); and per combination the same paired test between every ordered pair of metrics
    (:func:`metaeval.stats.correlation.paired_bootstrap_matrix`, (M, M) in the order of the metrics)."""
    metrics, combs = inp.summary_metric, inp.combinations
    if not metrics or not combs:
        return [], {}
    # each target's metrics on the summaries all of them score (a bootstrap test compares like with
    # like); a metric declared for another target is not among them, and its values there are NA
    served = np.array([[inp.serves(m, c) for c in combs] for m in metrics], dtype=bool)      # (M, C)
    human, full_human = summary_ground(inp)
    pooled_level = len(inp.summarizers) < 3 or inp.pooled
    points, per_topic = summary_points(metrics, human, combs, pooled_level)
    covered = summary_points(metrics, full_human, combs, pooled_level)[0] if full_human is not human else points
    if per_topic is not None:
        per_topic[:, :, ~served] = np.nan
    lo, hi, p_best = np.full((3, len(metrics), len(combs)), np.nan)
    tests: dict[str, np.ndarray] = {}
    # Graham's combinations and the other targets in two blocks, so that the combinations' intervals
    # keep their last bits whatever targets a data set adds (a matrix product's rounding follows its shape)
    for block in ([j for j, c in enumerate(combs) if c in COMBINATIONS], [j for j, c in enumerate(combs)
                                                                         if c not in COMBINATIONS]):
        if block:
            sub = None if per_topic is None else per_topic[..., block]
            point, boot = summary_level_samples(metrics, human, [combs[j] for j in block], pooled_level,
                                                options.bootstrap_samples, options.seed, sub)
            point[~served[:, block]] = np.nan
            boot[:, ~served[:, block]] = np.nan
            lo[:, block], hi[:, block], p_best[:, block] = intervals_and_p_vs_best(point, boot, options.confidence)
            for k, j in enumerate(block):
                if boot.shape[0]:
                    tests[combs[j]] = paired_bootstrap_matrix(boot[:, :, k])
    # Pairwise Difference Pearson: within each topic, every pair of summarizers (mt-metrics-eval's average_by='item')
    stacked = np.stack(list(metrics.values()))
    pdp = np.stack([pairwise_difference_pearson(stacked, human[c]) for c in combs], axis=1)
    pdp[~served] = np.nan
    rows = []
    for k, ((level, name, c, topics, n, p, s, tau), wider) in enumerate(zip(points, covered)):
        i, j = divmod(k, len(combs))
        if not served[i, j]:
            topics, n, p, s, tau, wider = 0, 0, np.nan, np.nan, np.nan, (*wider[:4], 0, np.nan)
        rows.append({"level": level, "metric": name, "combination": c, "topics": topics, "pearson": p,
                     "spearman": s, "kendall": tau, "summaries": n, "pearson_lo": lo[i, j], "pearson_hi": hi[i, j],
                     "p_vs_best": p_best[i, j], "pdp": pdp[i, j], "summaries_covered": wider[4],
                     "pearson_covered": wider[5]})
    return rows, {c: tests[c] for c in combs if c in tests}


def summary_ground(inp: AnalysisInputs) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(human, full human) grids by target: each target's human scores on its common ground (the
    (summarizer, topic) cells every per-summary metric it serves scores,
    :func:`metaeval.stats.coverage.common_cells`), and all of them (the same dict when no target
    loses a cell)."""
    metrics = inp.summary_metric
    shape = next(iter(metrics.values())).shape
    full = inp.per_summary.human
    human, cut = {}, False
    for c, g in full.items():
        common = common_cells([metrics[m] for m in inp.metrics_for(c)], shape)
        cut |= not common.all()
        human[c] = np.where(common, g, np.nan)
    return (human, full) if cut else (full, full)


def summary_points(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], combs: Sequence[str],
                   pooled_level: bool) -> tuple[list[tuple], np.ndarray | None]:
    """The summary level's point rows (level, metric, target, topics, summaries, pearson, spearman,
    kendall), per metric then target, and the within-topic correlations they average (None pooled)."""
    if pooled_level:
        return [(POOLED_LEVEL, *r) for r in pooled(metrics, human, combs)], None
    per_topic = within_topic(metrics, human, combs)
    both = lambda m, c: int((~np.isnan(metrics[m]) & ~np.isnan(human[c])).sum())  # noqa: E731
    return [(SUMMARY_LEVEL, name, c, topics, both(name, c), p, s, k)
            for name, c, topics, p, s, k in summary_level(metrics, human, combs, per_topic)], per_topic


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
NOTES_CAPTION = (
    "Notes: skipped combinations, undefined tests and the settings of the tests.")

SUMMARY_LEVEL_CAPTION = (
    "How to read this: does the metric rank the summaries of one input as the humans do? Within each topic, "
    "the correlation across its summarizers' summaries, averaged over the topics (with fewer than 3 "
    "summarizers, the correlation over all judged summaries pooled: the level says which); one row per "
    "per-summary metric (a mean and a median variant share it) and human combination. pearson_lo/hi: 95 % "
    "bootstrap interval over topics; p_vs_best: one-sided paired bootstrap p-value that the combination's "
    "best metric is not better than this one (small = significantly worse than the best).")


def write(result: CorrelationResult, combinations, out: Mapping[str, str]) -> None:
    """The stage's tables; ``combinations`` = the configured ones (a skipped combination gets an
    empty Williams table: see notes.tsv); the other targets' Williams matrices go to one stacked
    table (williams_targets.tsv), since which dimensions a data set has is known only once it is read."""
    tables.write_tsv(tables.frame(result.rows, CORRELATION_COLUMNS), out["correlations"])
    for comb in combinations:
        path = out[f"williams_{comb}"]
        if comb in result.williams:
            p = result.williams[comb]
            rows = [[v, *p[i]] for i, v in enumerate(result.variants)]
            tables.write_tsv(tables.frame(rows, ["variant", *result.variants]), path)
        else:
            tables.write_tsv(tables.frame([], ["variant"]), path)
    # every other target's matrix (the dimensions, the composites), stacked: target, variant, p per variant
    rows = [[comb, v, *p[i]] for comb, p in result.williams.items() if comb not in combinations
            for i, v in enumerate(result.variants)]
    tables.write_tsv(tables.frame(rows, ["target", "variant", *result.variants]), out["targets_williams"])
    tables.write_tsv(tables.frame(result.summary_level, SUMMARY_LEVEL_COLUMNS), out["summary_level"])
    # the summary level's paired tests between every ordered pair of metrics, stacked by target:
    # the row metric's p-value of "correlates better than the column metric"
    names = result.summary_metrics
    rows = [[comb, m, *p[i]] for comb, p in result.summary_level_tests.items() for i, m in enumerate(names)]
    tables.write_tsv(tables.frame(rows, ["target", "metric", *names]), out["summary_level_tests"])
    tables.write_tsv(tables.frame(result.notes, ["kind", "note"]), out["notes"])
    tables.write_tsv(tables.frame(result.floor, FLOOR_COLUMNS), out["floor"])


def read_correlations(path: str):
    return tables.read_tsv(path, numeric=("pearson", "pearson_lo", "pearson_hi", "spearman", "kendall"),
                           integer=("n",))
