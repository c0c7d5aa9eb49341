"""Statistics stage: the resampling statistics of Deutsch, Dror & Roth (2021, TACL), the
Kendall variants and tie calibration of Deutsch, Foster & Freitag (2023), the pairwise accuracy of
Kocmi et al. (2021), and two none of their tools has - a null baseline and the uncertainty of the
winner - for a set of tested variants (:func:`candidates`) and human combinations.

load (:mod:`metaeval.stages.analysis_inputs`) -> :func:`compute` -> :class:`StatisticsResult` ->
:func:`write`. The statistics are :mod:`metaeval.stats.levels`, :mod:`metaeval.stats.resampling`
and :mod:`metaeval.stats.kendall`; the optimal set and clusters use :mod:`metaeval.stats.williams`'
``optimal`` and ``assign_clusters``, as the Williams tests do.

What a variant is at each level:

* system level: the variant's own system scores (system_scores.tsv: the mean or median of its
  per-summary metric, corpus BLEU), so the values equal correlations.tsv's; when inputs are
  resampled they are recomputed from the drawn inputs (:func:`metaeval.stats.bootstrap.variant_scores`);
  the human system score is the mean over the system's judged summaries;
* input and global levels: the variant's per-summary metric (ROUGE P/R/F, smoothed sentence BLEU,
  SERA, a file metric), so a mean (_A) and a median (_M) variant of one metric agree there;
* permutation tests (between two metrics' correlations or accuracies): PERM-SYSTEMS at the system
  level swaps the variants' own system scores (each variant's standardised over the systems), so the
  tested difference is the tables'; PERM-INPUTS and PERM-BOTH, and every other level, swap the
  standardised per-summary grids, averaged per system at the system level, as nlpstats and
  mt-metrics-eval do - for a median or corpus-BLEU variant that is the mean of the same per-summary
  metric (nlpstats standardises per summary; the p-values of the two differ slightly).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .. import figures, tables
from ..records import StatisticsOptions
from ..stats import kendall
from ..stats.levels import LEVELS, statistic, weighted_means
from ..stats.resampling import bootstrap, winner
from ..stats.williams import assign_clusters, optimal
from ..variants import Variant
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs, on_common_ground
from .correlation import common_ground_notes, constancy_notes
from .human import resolve_targets
from .statistics_resampled import Combination, SystemScores, nan, pair_tests, resampled

LEVEL_COLUMNS = ("variant", "combination", "level", "coefficient", "value", "n", "lo", "hi", "resampling",
                 "null_95", "null_99", "null_p")
OPTIMAL_COLUMNS = ("variant", "combination", "statistic", "value", "optimal", "cluster")
KENDALL_COLUMNS = ("variant", "combination", "level", "kendall", "value", "epsilon")
ACCURACY_COLUMNS = ("variant", "combination", "accuracy", "lo", "hi", "null_95", "null_99", "null_p", "baseline",
                    "delta", "p")
WINNER_COLUMNS = ("variant", "combination", "statistic", "value", "p_best", "rank_lo", "rank_hi")
TOP_FIGURE = 20


# ----------------------------------------------------------------------------- the tested variants

def candidates(variants: Sequence[Variant], pearson_main: np.ndarray, options: StatisticsOptions) -> list[int]:
    """Indices (in the order of system_scores.tsv) of the tested variants: the union of
    ``statistics.variants``' selectors - ``top`` (the ``top`` variants with the highest Pearson r with
    the main combination), ``baselines`` (correlation.baselines), ``bleu``, ``metrics`` (neither ROUGE
    nor BLEU), ``all``, variant ids - and the accuracy baseline. Ids the data lack are left out."""
    ids = [str(v) for v in variants]
    chosen: set[int] = set()
    for sel in options.variants:
        if sel == "top":
            order = [v for v in np.argsort(-np.nan_to_num(pearson_main, nan=-np.inf), kind="stable")
                     if not np.isnan(pearson_main[v])]
            chosen.update(int(v) for v in order[:options.top_variants])
        elif sel == "baselines":
            chosen.update(ids.index(b) for b in options.baselines if b in ids)
        elif sel in ("bleu", "metrics"):
            chosen.update(i for i, v in enumerate(variants) if v.family == {"bleu": "bleu", "metrics": "metric"}[sel])
        elif sel == "all":
            chosen.update(range(len(ids)))
        elif sel in ids:
            chosen.add(ids.index(sel))
    if options.accuracy_baseline in ids:
        chosen.add(ids.index(options.accuracy_baseline))
    return sorted(chosen)


# ----------------------------------------------------------------------------- the result

@dataclass
class StatisticsResult:
    variants: list[str]                     # tested
    levels: list[dict[str, object]]         # LEVEL_COLUMNS
    permutation: dict[str, np.ndarray]      # combination -> (K, K) p[i, j]: i's statistic > j's
    optimal: list[dict[str, object]]        # OPTIMAL_COLUMNS
    kendall: list[dict[str, object]]        # KENDALL_COLUMNS
    accuracy: list[dict[str, object]]       # ACCURACY_COLUMNS
    winner: list[dict[str, object]]         # WINNER_COLUMNS
    notes: list[tuple[str, str]]
    permutation_statistic: str = ""
    options: StatisticsOptions | None = None   # the options in effect (:func:`few_systems` may change them)


def load(inputs: Mapping[str, str], options: StatisticsOptions) -> AnalysisInputs:
    return analysis_inputs.load_named(inputs, options.summarizers)


def _items(grids: np.ndarray, z: np.ndarray, scores: np.ndarray, level: str) -> np.ndarray:
    """n of every variant at a level: systems with both scores, inputs with a defined correlation
    (at least 3 systems with both), or summaries with both."""
    both = ~np.isnan(grids) & ~np.isnan(z)
    if level == "system":
        return (~np.isnan(scores) & ~np.isnan(weighted_means(z))).sum(axis=1)
    if level == "input":
        return (both.sum(axis=1) >= 3).sum(axis=1)
    return both.sum(axis=(1, 2))


def few_systems(options: StatisticsOptions, n_sys: int) -> StatisticsOptions:
    """The options for a data set with fewer than 3 systems, where nothing is defined at the system
    level: the bootstrap (inputs resampled: drawing 2 systems out of 2 would often leave one) and the
    null baseline also at the global (pooled) level, and the permutation tests of the global-level
    correlation, whole inputs swapped (PERM-INPUTS), when they were configured at the system level
    or with whole systems swapped. With one system there is nothing to permute within an input, so
    no null baseline."""
    level = "global" if options.permutation_level == "system" else options.permutation_level
    method = "inputs" if options.permutation == "systems" else options.permutation
    resampling = tuple(dict.fromkeys((*options.resampling_levels, "global")))
    return options._replace(permutation_level=level, permutation=method, resampling_levels=resampling,
                            resample="inputs", null_samples=options.null_samples if n_sys > 1 else 0)


def _pooled_pearson(inp: AnalysisInputs, main: str) -> np.ndarray:
    """Every variant's global-level (pooled) Pearson r with the main combination, NaN for a variant
    whose per-summary metric an earlier variant already has (a mean and a median variant are one
    metric at that level), so "top" picks distinct metrics."""
    seen: set[str] = set()
    out = nan(len(inp.variants))
    stat = statistic("global", "pearson")
    for k, v in enumerate(inp.variants):
        if v.summary_metric not in seen:
            seen.add(v.summary_metric)
            out[k] = float(stat(inp.per_summary.metrics[v.summary_metric], inp.per_summary.human[main]))
    return out


def compute(inp: AnalysisInputs, options: StatisticsOptions) -> StatisticsResult:
    """Everything the stage reports (see the module docstring and :class:`StatisticsResult`). With
    fewer than 3 systems the tests move to the global level (:func:`few_systems`) and "top" is
    chosen by the pooled Pearson r."""
    inp, left_out = on_common_ground(inp)
    notes = [*constancy_notes(inp), *common_ground_notes(left_out, len(inp.summarizers))]
    n_sys = len(inp.summarizers)
    o = few_systems(options, n_sys) if n_sys < 3 else options
    combos = list(dict.fromkeys(resolve_targets(o.combinations, inp.combinations, inp.primary).values()))
    perm_combos = resolve_targets(o.permutation_combinations, inp.combinations, inp.primary)
    for c in dict.fromkeys((*o.combinations, *o.permutation_combinations)):
        if c not in ("main", "all") and c not in inp.combinations:
            notes.append(("skipped_combination", f"{c}: not a target of this data set (see human/skipped.tsv and "
                                                 "human/targets.tsv)"))
    main = inp.main
    with np.errstate(invalid="ignore", divide="ignore"):
        pear_main = (nan(len(inp.variants)) if not main else _pooled_pearson(inp, main) if n_sys < 3 else
                     SystemScores("pearson", inp.per_summary, tuple(inp.variants), inp.system_metric.T)(
                         None, inp.per_summary.human[main]))
    tested = candidates(inp.variants, pear_main, o)
    ids = [inp.variant_ids[v] for v in tested]
    missing = [v for v in o.variants if v not in ("top", "baselines", "bleu", "metrics", "all")
               and v not in inp.variant_ids]
    if missing:
        notes.append(("missing_variant", f"not in this data set's scores, so not tested: {', '.join(missing)}"))
    if n_sys < 3:
        notes.append(("too_few_systems", f"only {n_sys} summarizer(s): system-level correlations, accuracies and "
                                         "their tests need at least 3, so they are NA; the tested variants are the "
                                         "top ones by their global-level (pooled) Pearson r, the bootstrap and null "
                                         f"baseline ({o.null_samples} samples) run at the levels "
                                         f"{', '.join(o.resampling_levels)} with inputs resampled, and the "
                                         f"permutation tests compare the {o.permutation_level}-level "
                                         f"{o.permutation_coefficient} ({o.permutation} swapped)"))
    result = StatisticsResult(ids, [], {}, [], [], [], [], notes,
                              f"{o.permutation_level}-level {o.permutation_coefficient}", o)
    if not ids:
        notes.append(("no_variants", "no tested variant: nothing to compute"))
        return result
    # a constant metric or human side divides by 0 on the way to its NA (named in the notes)
    # each target tests the variants it serves (a metric declared for one dimension: that target only)
    with np.errstate(invalid="ignore", divide="ignore"):
        for comb in combos:
            here, ids_here = _served(inp, tested, ids, comb)
            d = Combination.of(inp, here, comb)
            samples = _levels(d, comb, ids_here, o, result.levels)
            _kendall(d, comb, ids_here, o, result.kendall)
            _accuracy(d, comb, ids_here, o, result.accuracy, notes)
            _winner(d, comb, ids_here, o, samples, result.winner)
        for name, comb in perm_combos.items():
            here, ids_here = _served(inp, tested, ids, comb)
            if o.permutation_samples > 0 and len(ids_here) > 1:
                p = _permutation(Combination.of(inp, here, comb), comb, ids_here, o, result)
                # kept over every tested variant (NA for those the target does not serve), under the
                # configured combination's name (e.g. main)
                at = [ids.index(v) for v in ids_here]
                result.permutation[name] = np.full((len(ids), len(ids)), np.nan)
                result.permutation[name][np.ix_(at, at)] = p
    notes.append(("settings", f"seed {o.seed}; {o.bootstrap_samples} bootstrap samples resampling {o.resample}; "
                              f"{o.permutation_samples} permutations ({o.permutation}) of the "
                              f"{result.permutation_statistic}; {o.null_samples} null samples; alpha = {o.alpha}"))
    return result


def _levels(d: Combination, comb: str, ids, o: StatisticsOptions, rows: list) -> dict[str, np.ndarray]:
    """Correlation-level rows; returns the system-level bootstrap samples by coefficient (for the winner)."""
    samples: dict[str, np.ndarray] = {}
    for level in (lv for lv in LEVELS if lv in o.levels):
        n = _items(d.grids, d.z, d.scores, level)
        for coef in o.coefficients:
            stat = d.statistic(level, coef)
            value = np.asarray(stat(d.grids, d.z), dtype=float)
            drawn_here = level in o.resampling_levels
            # fewer than 3 systems: every system-level value, interval and null quantile is NA, so
            # nothing is drawn (few_systems moves the resampling to the pooled level)
            undefined = level == "system" and d.grids.shape[1] < 3
            lo, hi, q95, q99, p, drawn = resampled(d, level, coef, coef, o) if drawn_here and not undefined \
                else (nan(len(ids)),) * 6
            if level == "system" and drawn.ndim == 2:
                samples[coef] = drawn
            for k, v in enumerate(ids):
                rows.append({"variant": v, "combination": comb, "level": level, "coefficient": coef,
                             "value": float(value[k]), "n": int(n[k]), "lo": float(lo[k]), "hi": float(hi[k]),
                             "resampling": o.resample if drawn_here and o.bootstrap_samples > 0 else "none",
                             "null_95": float(q95[k]), "null_99": float(q99[k]), "null_p": float(p[k])})
    return samples


def _kendall(d: Combination, comb: str, ids, o: StatisticsOptions, rows: list) -> None:
    """Kendall variants (epsilon 0) and tie-calibrated 23 / acc23 (with their epsilon) at the system
    and input (item) level."""
    zsys = weighted_means(d.z)
    for level in ("system", "input"):
        values = []
        for name in o.kendall_variants:
            if level == "system":
                values.append((name, kendall.tau(d.scores, zsys, variant=name), np.zeros(len(ids))))
            else:
                values.append((name, kendall.kendall_variants(d.grids, d.z, "input", name), np.zeros(len(ids))))
        if level in o.tie_calibration:
            for name in ("23", "acc23"):
                x, z = (d.scores[:, :, None], zsys[:, None]) if level == "system" else (d.grids, d.z)
                value, eps = kendall.tie_calibration(x, z, level, name)
                values.append((f"{name}_calibrated", value, eps))
        for name, value, eps in values:
            for k, v in enumerate(ids):
                rows.append({"variant": v, "combination": comb, "level": level, "kendall": name,
                             "value": float(value[k]), "epsilon": float(eps[k]) if not np.isnan(value[k]) else np.nan})


def _accuracy(d: Combination, comb: str, ids, o: StatisticsOptions, rows: list, notes: list) -> None:
    """Pairwise accuracy with its bootstrap interval and null baseline, and a permutation test of
    every variant's accuracy against the baseline's (two-sided)."""
    stat = d.statistic("system", kendall.variant("acc23"))
    acc = np.asarray(stat(d.grids, d.z), dtype=float)
    lo, hi, q95, q99, p_null, _ = resampled(d, "system", kendall.variant("acc23"), "acc23", o)
    delta = p = nan(len(ids))
    base = o.accuracy_baseline
    if base not in ids:
        notes.append(("accuracy_baseline", f"{base}: not in this data set's scores, so the accuracies are not "
                                           "tested against it"))
    elif o.permutation_samples > 0 and len(ids) > 1:
        b_idx = ids.index(base)
        others = [k for k in range(len(ids)) if k != b_idx]
        x, z = d.permutation_grids("system", o.permutation)
        res = pair_tests(d, [(k, b_idx) for k in others], x, z, kendall.pairwise_accuracy_statistic(), "acc23", o)
        delta, p = nan(len(ids)), nan(len(ids))
        delta[others], p[others] = res["delta"], res["two_sided"]
    for k, v in enumerate(ids):
        rows.append({"variant": v, "combination": comb, "accuracy": float(acc[k]), "lo": float(lo[k]),
                     "hi": float(hi[k]), "null_95": float(q95[k]), "null_99": float(q99[k]),
                     "null_p": float(p_null[k]), "baseline": base, "delta": float(delta[k]), "p": float(p[k])})


def _winner(d: Combination, comb: str, ids, o: StatisticsOptions, samples: Mapping[str, np.ndarray], rows: list) -> None:
    """P(best) and the rank interval of every tested variant from the system-level bootstrap of
    ``winner_coefficient`` (the levels' samples when computed, else drawn with the same seed)."""
    if o.bootstrap_samples <= 0:
        return
    stat = d.statistic("system", o.winner_coefficient)
    value = np.asarray(stat(d.grids, d.z), dtype=float)
    undefined = np.isnan(value)
    s = samples.get(o.winner_coefficient)
    if s is None and undefined.all():      # no variant has a value: every row is NA, nothing to draw
        s = nan((o.bootstrap_samples, len(ids)))
    elif s is None:
        s = bootstrap(d.grids, d.z, stat, o.resample, o.bootstrap_samples, o.seed, o.confidence).samples
    w = winner(s, o.confidence)
    for k, v in enumerate(ids):
        rows.append({"variant": v, "combination": comb, "statistic": f"system-level {o.winner_coefficient}",
                     "value": float(value[k]), "p_best": np.nan if undefined[k] else float(w.p_best[k]),
                     "rank_lo": np.nan if undefined[k] else float(w.rank_lo[k]),
                     "rank_hi": np.nan if undefined[k] else float(w.rank_hi[k])})


def _served(inp: AnalysisInputs, tested: Sequence[int], ids: Sequence[str], comb: str) -> tuple[list[int], list[str]]:
    """The tested variants (indices, ids) the target ``comb`` serves (:meth:`AnalysisInputs.serves`)."""
    mask = inp.variants_for(comb)
    keep = [k for k, v in enumerate(tested) if mask[v]]
    return [tested[k] for k in keep], [ids[k] for k in keep]


def _permutation(d: Combination, comb: str, ids, o: StatisticsOptions, result: StatisticsResult) -> np.ndarray:
    """The p-value matrix of the permutation tests among ``ids`` (returned) and the optimal set /
    clusters it gives (the Williams tests' rules: :func:`metaeval.stats.williams.optimal` and
    ``assign_clusters``)."""
    stat = statistic(o.permutation_level, o.permutation_coefficient)
    x, z = d.permutation_grids(o.permutation_level, o.permutation)
    i, j = np.triu_indices(len(ids), 1)
    res = pair_tests(d, list(zip(i.tolist(), j.tolist())), x, z, stat,
                      f"{o.permutation_level}/{o.permutation_coefficient}", o)
    # p[i, j]: one-sided p that i's statistic exceeds j's (as permutation_matrix)
    p = np.full((len(ids), len(ids)), np.nan)
    p[i, j], p[j, i] = res["greater"], res["less"]
    value = np.asarray(stat(x, z), dtype=float)
    defined = ~np.isnan(value)
    opt = optimal(p, o.alpha, defined)
    order = np.array([k for k in np.argsort(-np.nan_to_num(value, nan=-np.inf), kind="stable") if defined[k]],
                     dtype=int)
    clusters = assign_clusters(p, order, o.alpha) if len(order) else np.zeros(len(ids), dtype=int)
    for k, v in enumerate(ids):
        result.optimal.append({"variant": v, "combination": comb, "statistic": result.permutation_statistic,
                               "value": float(value[k]), "optimal": "yes" if opt[k] else ("no" if defined[k] else "NA"),
                               "cluster": str(int(clusters[k])) if defined[k] else "NA"})
    return p


# ----------------------------------------------------------------------------- writing

def _ci(row: Mapping[str, object], lo: str = "lo", hi: str = "hi") -> str:
    if np.isnan(float(row[lo])):
        return ""
    return f" [{tables.fixed(row[lo])}, {tables.fixed(row[hi])}]"


def _below_null(row: Mapping[str, object], value: str) -> str:
    """A dagger when the value does not exceed the null's 95th percentile."""
    q = float(row["null_95"])
    return "" if np.isnan(q) or np.isnan(float(row[value])) or float(row[value]) > q else " †"


LEVELS_CAPTION = (
    "Correlation levels (Deutsch, Dror & Roth 2021). How to read this: system = correlation of the systems' "
    "scores (as Table 1); input = per input, across the systems' summaries, averaged over the inputs; global = "
    "all summaries pooled. Brackets: the {conf} percentile bootstrap interval ({resample} resampled); † = not "
    "above the 95th percentile of the null baseline (the same statistic for a metric that carries no "
    "information: human scores permuted among the systems within each input), i.e. indistinguishable from "
    "chance. The TSV has the null's 95th and 99th percentiles and the p-value of every value.")
OPTIMAL_CAPTION = (
    "Permutation tests between the tested variants' {stat} ({method} permuted, {samples} samples; Deutsch et al. "
    "2021). How to read this: optimal = not significantly beaten by another tested variant at alpha = {alpha} "
    "(one-sided p, as Graham's Williams-based optimal set); clusters as mt-metrics-eval's AssignRanks "
    "(1 = best). The p-value matrices are permutation_<combination>.tsv. \"Optimal\" in Table 1 and the "
    "other tables rests on the {basis} tests (statistics.optimal).")
KENDALL_CAPTION = (
    "Kendall variants and tie calibration (Deutsch, Foster & Freitag 2023; mt-metrics-eval's definitions). "
    "How to read this: b and c are the classic tau-b / tau-c; 23 counts a pair the metric ties correctly as "
    "agreement and one it ties wrongly as disagreement; acc23 is the share of pairs ordered or tied as the "
    "humans do. The calibrated values treat metric differences up to epsilon as ties, with the epsilon that "
    "maximises the value (one for all inputs at the input level) - compare metrics by these when some metrics "
    "produce ties and others do not.")
ACCURACY_CAPTION = (
    "Pairwise accuracy of system rankings (Kocmi et al. 2021): the share of system pairs that the metric orders "
    "as the humans do. How to read this: brackets = {conf} bootstrap interval ({resample}); null 95th = the "
    "accuracy a metric without information reaches in 95 % of permutations († = not above it); Δ and p = "
    "difference from {base} and its two-sided permutation p-value ({method} permuted).")
WINNER_CAPTION = (
    "The uncertainty of the winner: from the {samples} bootstrap samples ({resample}) of the system-level "
    "{coef} correlation, the probability that each variant is the best one and the {conf} interval of its rank "
    "(1 = best), top {top} by value. How to read this: a clear winner has P(best) near 1 and rank interval "
    "[1, 1]; several variants sharing P(best) and overlapping rank intervals means the data cannot single out "
    "one best metric.")
# the report's captions of the notes and the figure (the stage registry names them, "module:NAME")
NOTES_CAPTION = ("Notes of the statistics: undefined cases, skipped combinations and the settings (seed, samples, "
                 "methods).")
WINNER_FIGURE_CAPTION = (
    "How to read this: left, the probability that each of the top 20 variants is the best one over the bootstrap "
    "samples; right, the interval of its rank (1 = best) and, as a dot, the rank of its value on the full data. "
    "Long, overlapping intervals mean the order of these variants is not settled by the data.")


def _percent(x: float) -> str:
    return f"{100 * x:g} %"


def write(result: StatisticsResult, options: StatisticsOptions, out: Mapping[str, str]) -> None:
    """The stage's tables and figure (``out``: the statistics stage's files by key)."""
    o = result.options or options
    tables.write_tsv(tables.frame(result.levels, LEVEL_COLUMNS), out["levels"])
    for key, path in out.items():
        if key.startswith("permutation_"):
            comb = key[len("permutation_"):]
            p = result.permutation.get(comb)
            rows = [] if p is None else [[v, *p[i]] for i, v in enumerate(result.variants)]
            tables.write_tsv(tables.frame(rows, ["variant", *(result.variants if p is not None else [])]), path)
    tables.write_tsv(tables.frame(result.optimal, OPTIMAL_COLUMNS), out["optimal"])
    tables.write_tsv(tables.frame(result.kendall, KENDALL_COLUMNS), out["kendall"])
    tables.write_tsv(tables.frame(result.accuracy, ACCURACY_COLUMNS), out["accuracy"])
    tables.write_tsv(tables.frame(result.winner, WINNER_COLUMNS), out["winner"])
    tables.write_tsv(tables.frame(result.notes, ["kind", "note"]), out["notes"])
    conf = _percent(o.confidence)

    by: dict[tuple, dict[str, dict]] = {}
    for r in result.levels:
        by.setdefault((r["combination"], r["variant"], r["level"]), {})[r["coefficient"]] = r
    rows = [[comb, v, level, *(tables.fixed(c[k]["value"]) + _ci(c[k]) + _below_null(c[k], "value")
                               if k in c else "" for k in o.coefficients)]
            for (comb, v, level), c in by.items()]
    tables.write_markdown(out["levels_md"], LEVELS_CAPTION.format(conf=conf, resample=o.resample),
                          ["combination", "variant", "level", *o.coefficients], rows)

    rows = [[r["combination"], r["variant"], tables.fixed(r["value"]), r["optimal"], r["cluster"]]
            for r in sorted(result.optimal, key=lambda r: (r["combination"], -_num(r["value"])))]
    tables.write_markdown(out["optimal_md"], OPTIMAL_CAPTION.format(
        stat=result.permutation_statistic, method=o.permutation, samples=o.permutation_samples, alpha=o.alpha,
        basis=o.optimal), ["combination", "variant", "value", "optimal", "cluster"], rows)

    kinds = list(dict.fromkeys(r["kendall"] for r in result.kendall))
    byk: dict[tuple, dict[str, dict]] = {}
    for r in result.kendall:
        byk.setdefault((r["combination"], r["variant"], r["level"]), {})[r["kendall"]] = r
    rows = [[comb, v, level, *(_kendall_cell(c[k]) if k in c else "" for k in kinds)]
            for (comb, v, level), c in byk.items()]
    tables.write_markdown(out["kendall_md"], KENDALL_CAPTION, ["combination", "variant", "level", *kinds], rows)

    rows = [[r["combination"], r["variant"], tables.fixed(r["accuracy"]) + _ci(r) + _below_null(r, "accuracy"),
             tables.fixed(r["null_95"]), tables.fixed(r["delta"]), tables.fixed(r["p"])] for r in result.accuracy]
    tables.write_markdown(out["accuracy_md"], ACCURACY_CAPTION.format(
        conf=conf, resample=o.resample, base=o.accuracy_baseline, method=o.permutation),
        ["combination", "variant", "accuracy", "null 95th", "Δ vs baseline", "p"], rows)

    top = _top_winners(result.winner)
    rows = [[r["combination"], r["variant"], tables.fixed(r["value"]), tables.fixed(r["p_best"]),
             f"[{tables.fixed(r['rank_lo'], 0)}, {tables.fixed(r['rank_hi'], 0)}]"] for r in top]
    tables.write_markdown(out["winner_md"], WINNER_CAPTION.format(
        samples=o.bootstrap_samples, resample=o.resample, coef=o.winner_coefficient, conf=conf, top=TOP_FIGURE),
        ["combination", "variant", o.winner_coefficient, "P(best)", "rank interval"], rows)
    _winner_figure(top, out["winner_png"], out["winner_svg"])


def _num(x) -> float:
    x = float(x)
    return -np.inf if np.isnan(x) else x


def _kendall_cell(r: Mapping[str, object]) -> str:
    text = tables.fixed(r["value"])
    return text + (f" (ε={float(r['epsilon']):.3g})" if r["kendall"].endswith("_calibrated")
                   and not np.isnan(float(r["value"])) else "")


def _top_winners(rows: Sequence[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """The first combination's top variants by value (the figure shows one combination)."""
    if not rows:
        return []
    comb = rows[0]["combination"]
    mine = [r for r in rows if r["combination"] == comb and not np.isnan(float(r["value"]))]
    return sorted(mine, key=lambda r: -float(r["value"]))[:TOP_FIGURE]


def _winner_figure(rows: Sequence[Mapping[str, object]], png: str, svg: str) -> None:
    """P(best) (left) and the rank interval (right) of the top variants, best at the top."""
    plt = figures.pyplot()
    n = max(1, len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 0.3 * n + 1.2), sharey=True)
    y = np.arange(len(rows))[::-1]
    names = [str(r["variant"]) for r in rows]
    left.barh(y, [float(r["p_best"]) for r in rows], color="#4c72b0")
    left.set_xlim(0, 1)
    left.set_xlabel("P(best)")
    for yi, r in zip(y, rows):
        right.plot([float(r["rank_lo"]), float(r["rank_hi"])], [yi, yi], color="#555", lw=2)
    right.plot([1 + i for i in range(len(rows))], y, "o", color="#c44e52", ms=4, label="rank of the point value")
    right.set_xlabel("rank (interval)")
    right.invert_xaxis()
    if rows:
        right.legend(loc="lower left", fontsize=7)
        left.set_title(f"{rows[0]['combination']}", fontsize=9)
    left.set_yticks(y, names)
    figures.save(fig, png, svg)


def answer(files: Mapping[str, str], a) -> str:
    """The report's answer hook (metaeval.registry), from the statistics job's winner table: the best
    variant's probability of being the best over the bootstrap samples, and the most probable winner
    if that is another variant."""
    winner_tsv = files.get("winner")
    if not winner_tsv or not Path(winner_tsv).exists() or a.best is None:
        return ""
    w = tables.read_tsv(winner_tsv, numeric=("p_best",))
    w = w[(w["combination"] == a.combination) & w["p_best"].notna()]
    if not len(w):
        return ""
    p = dict(zip(w["variant"], w["p_best"]))
    top = w.sort_values("p_best", ascending=False, kind="stable").iloc[0]
    text = ""
    if a.best["variant"] in p:
        text = (f" Over the bootstrap samples it is the best of the {len(w)} variants the statistics job tests "
                f"(statistics.variants) with probability "
                f"{p[a.best['variant']]:.2f}")
        if top["variant"] != a.best["variant"]:
            text += f"; the most probable winner is {html.escape(top['variant'])} ({top['p_best']:.2f})"
        text += "."
    return text




def methods(config: Mapping) -> list[str]:
    """The report's methods lines (metaeval.registry): the choices of the statistics job, and where our definitions differ from the peers'."""
    st, c = config.get("statistics", {}), config.get("correlation", {})
    if not st.get("enabled"):
        return ["Statistics beyond Graham 2015 (correlation levels, permutation tests, Kendall variants, pairwise "
                "accuracy, null baseline, winner): disabled (statistics.enabled: false)."]
    base = st.get("accuracy_baseline") or config.get("agreement", {}).get("baseline")
    return [
        f"Tested variants ({', '.join(st.get('variants', []))}; top = the {st.get('top_variants')} variants with the "
        f"highest system-level Pearson r with the main combination) for the combinations "
        f"{', '.join(st.get('combinations', []))}; seed {st.get('seed')} for every resampling.",
        f"Correlation levels (Deutsch, Dror & Roth 2021) {', '.join(st.get('levels', []))} for "
        f"{', '.join(st.get('coefficients', []))} (Kendall's tau-b); at the system level the variants' own system "
        "scores (mean, median, corpus BLEU), at the input and global levels their per-summary scores; undefined "
        f"(NA) with fewer than 3 items or a constant side. {st.get('bootstrap_samples')} bootstrap samples "
        f"resampling {st.get('resample')} (percentile intervals at {st.get('confidence')}) and a null baseline of "
        f"{st.get('null_samples')} samples (human scores permuted among the systems within each input; "
        f"95th/99th percentiles and p = (1 + count(null >= value)) / (1 + samples)) at the levels "
        f"{', '.join(st.get('resampling_levels', []))}. Signed correlations throughout: nlpstats takes absolute "
        "values, we do not (a metric that ranks systems backwards is not good).",
        f"Permutation tests ({st.get('permutation')}; {st.get('permutation_samples')} samples) between every pair "
        f"of tested variants' {st.get('permutation_level')}-level {st.get('permutation_coefficient')}; metric "
        "scores standardised before swapping (nlpstats, mt-metrics-eval); one-sided p = count(delta* >= delta) / "
        "samples as mt-metrics-eval (nlpstats' default is two-sided). With whole systems swapped at the system "
        "level the variants' own system scores are swapped; otherwise their per-summary scores. Optimal set and "
        f"clusters by the Williams tests' rules at alpha = {c.get('alpha')}; \"optimal\" in the correlation tables "
        f"rests on the {st.get('optimal')} tests (statistics.optimal). Our Williams test is one-sided on signed "
        "correlations; mt-metrics-eval's p comes from |t| and is the same in either order.",
        f"Kendall variants {', '.join(st.get('kendall_variants', []))} at the system and input (item) level and "
        f"tie calibration (at {', '.join(st.get('tie_calibration', [])) or 'no level'}) of 23 and acc23 exactly as "
        "mt-metrics-eval's stats.py (KendallWithTiesOpt, sample_rate 1.0; one epsilon for all inputs).",
        "Pairwise accuracy (Kocmi et al. 2021) = acc23 of the system scores (a pair tied by both counts as "
        f"agreement, as mt-metrics-eval); bootstrap interval and null baseline as above; two-sided permutation "
        f"test of each variant's accuracy against {base}.",
        f"Uncertainty of the winner: from the system-level {st.get('winner_coefficient')} bootstrap samples, "
        "P(best) (ties for the best share the sample) and the percentile interval of each variant's rank.",
    ]
