"""Correlation tables and figures (the tables and figures of Graham 2015), from the correlation
stage's tables.

* Table 1: every variant sorted by Pearson r with the main human combination (the arithmetic
  mean when the data set has both components), optimal variants marked.
* Table 2: the share of the optimal ROUGE variants attributable to each option (n-gram method,
  stemming, stop words, mean/median, P/R/F).
* Table 4: the top variants of every combination, r per combination, optimal ones marked.
* Table 5: the metrics that are neither ROUGE nor BLEU nor read from files (SERA) next to BLEU,
  chrF and the best ROUGE variant.
* Table 6: the metrics read from score files (:mod:`metaeval.data.metric_scores`) with their rank
  among all variants, next to BLEU, chrF and the three best ROUGE variants.
* Figure 1: coverage vs linguistic quality of every judged summary.
* Figure 2: densities of coverage, linguistic quality and their arithmetic mean.
* Figure 3: pairwise Williams test results for BLEU, the top variants and the baselines: a
  coloured cell means the row variant correlates significantly more strongly with humans than
  the column variant (p < alpha), darker for smaller p.

load -> :func:`compute` (display tables and the figures' data, :class:`Tables`) -> :func:`write`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from .. import figures, tables
from ..records import CorrelationTablesOptions
from ..stats.core import gaussian_density
from ..tables import NA
from ..variants import OPTIONS, Variant
from .human import COMBINATIONS, primary_of

OPTION_LABELS = {"stemming": {"ST0": "not stemmed", "ST1": "stemmed"},
                 "stop words": {"RS0": "stop words kept", "RS1": "stop words removed"},
                 "mean/median": {"A": "mean (A)", "M": "median (M)"},
                 "P/R/F": {"P": "precision", "R": "recall", "F": "F"}}


def main_combination(combinations: Sequence[str], primary: str | None = None) -> str:
    """The target the single-target tables show: the primary one (human/targets.tsv: the entry's
    mark) when given, else Graham's arithmetic mean if present, else the first."""
    if primary is not None and primary in combinations:
        return primary
    return "arithmetic" if "arithmetic" in combinations else combinations[0]


class DisplayTable(NamedTuple):
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class Tables:
    combination: str
    table1: DisplayTable
    table2: DisplayTable
    table4: DisplayTable
    table5: DisplayTable
    table6: DisplayTable
    summary_human: list[dict[str, str]]     # Figures 1 and 2
    williams_variants: list[str]            # Figure 3: shown variants (rows and columns)
    williams_p: np.ndarray
    alpha: float
    correlations: list[dict[str, str]]      # the top-variants figure
    baseline: str
    summary_level: list[dict[str, str]]     # the top-variants figure without a system-level r
    answers: list[dict[str, object]] = ()    # the answer per target and level (answers.tsv)


def _family(variant_id: str) -> str:
    return Variant.parse(variant_id).family


def table1(corr: list[dict[str, str]], comb: str) -> DisplayTable:
    rows = [r for r in corr if r["combination"] == comb]
    rows.sort(key=lambda r: -float(r["pearson"]) if r["pearson"] != "NA" else math.inf)
    table = [[str(i + 1), r["variant"], tables.fixed(r["pearson"]),
              f"[{tables.fixed(r['pearson_lo'])}, {tables.fixed(r['pearson_hi'])}]",
              "*" if r["optimal"] == "yes" else "", r["cluster"]] for i, r in enumerate(rows)]
    ns = sorted({int(r["n"]) for r in rows if r["pearson"] != "NA"}) or [0]
    n = str(ns[0]) if len(ns) == 1 else f"{ns[0]} to {ns[-1]} (per row: correlations.tsv)"
    return DisplayTable(f"Table 1. Pearson r of every metric variant with human scores ({comb}), n = {n} systems, "
                        "the ones every variant scores; * = optimal (no other variant significantly better, "
                        "Williams test).", ["rank", "variant", "r", "95% CI", "optimal", "cluster"], table)


def table2(corr: list[dict[str, str]], comb: str) -> DisplayTable:
    rouge = [(r, Variant.parse(r["variant"])) for r in corr if _family(r["variant"]) == "rouge"]
    opt = [v for r, v in rouge if r["combination"] == comb and r["optimal"] == "yes"]
    table = []
    for option in OPTIONS:
        for value in sorted({v.option(option) for _, v in rouge}, key=lambda x: (len(x), x)):
            k = sum(1 for o in opt if o.option(option) == value)
            label = OPTION_LABELS.get(option, {}).get(value, value)
            table.append([option, label, str(k), f"{100 * k / len(opt):.1f}" if opt else "NA"])
    return DisplayTable(f"Table 2. Share of the {len(opt)} optimal ROUGE variants ({comb}) attributable to each option.",
                        ["option", "value", "optimal variants", "share (%)"], table)


def _pearson_rows(by: dict[tuple[str, str], dict[str, str]], variants: Sequence[str], combinations: Sequence[str]
                  ) -> list[list[str]]:
    """One row per variant: its Pearson r with every combination, * where it is optimal."""
    table = []
    for v in variants:
        cells = []
        for comb in combinations:
            r = by.get((v, comb))
            cells.append("NA" if r is None else tables.fixed(r["pearson"]) + ("*" if r["optimal"] == "yes" else ""))
        table.append([v, *cells])
    return table


def _ranked(corr: list[dict[str, str]], comb: str) -> list[dict[str, str]]:
    """The rows of one combination with a defined Pearson r (correlations.tsv or the summary-level
    table), best first."""
    return sorted((r for r in corr if r["combination"] == comb and r["pearson"] != "NA"),
                  key=lambda r: -float(r["pearson"]))


def table4(corr: list[dict[str, str]], combinations: Sequence[str], top: int) -> DisplayTable:
    chosen: list[str] = []
    by = {(r["variant"], r["combination"]): r for r in corr}
    for comb in combinations:
        for r in _ranked(corr, comb)[:top]:
            if r["variant"] not in chosen:
                chosen.append(r["variant"])
    return DisplayTable(f"Table 4. Pearson r of the top {top} variants of every human combination; * = optimal for "
                        "that combination.", ["variant", *combinations], _pearson_rows(by, chosen, combinations))


def table5(corr: list[dict[str, str]], combinations: Sequence[str], comb: str, file_metrics: Sequence[str] = ()
           ) -> DisplayTable:
    """The metrics that are neither ROUGE nor BLEU nor chrF nor read from files (SERA), next to
    BLEU, chrF and the best ROUGE variant."""
    by = {(r["variant"], r["combination"]): r for r in corr}
    variants = list(dict.fromkeys(r["variant"] for r in corr))
    others = [v for v in variants if _family(v) == "metric" and Variant.parse(v).measure not in file_metrics]
    ranked = [r for r in _ranked(corr, comb) if _family(r["variant"]) == "rouge"]
    shown = others + [v for v in variants if _family(v) in ("bleu", "chrf")] + [r["variant"] for r in ranked[:1]]
    caption = ("Table 5. SERA (Cohan & Goharian 2016; SERA<n> / SERADIS<n> = simple / rank-discounted overlap of the "
               "top n results; PL plain and KW keyword queries; _A mean, _M median over summaries) against BLEU, chrF and "
               f"chrF++ (corpus level) and the best ROUGE variant ({comb}): Pearson r with every human combination; * = optimal (Williams tests among "
               "all metrics)." + ("" if others else " SERA was not computed (disabled, or the data set has no documents "
                                                    "and no corpus is configured)."))
    return DisplayTable(caption, ["metric", *combinations], _pearson_rows(by, shown, combinations))


def table6(corr: list[dict[str, str]], comb: str, file_metrics: Sequence[Mapping[str, str]]) -> DisplayTable:
    """The metrics read from score files (``file_metrics``: metrics.tsv's rows), each variant
    with its r, 95% interval, Spearman rho, Kendall tau and rank among all variants (main
    combination), next to BLEU, chrF and the three best ROUGE variants."""
    ranked = _ranked(corr, comb)
    rank = {r["variant"]: i + 1 for i, r in enumerate(ranked)}
    info = {m["metric"]: m for m in file_metrics}
    files = [r for r in ranked if _family(r["variant"]) == "metric" and Variant.parse(r["variant"]).measure in info]
    undefined = [r for r in corr if r["combination"] == comb and r["pearson"] == "NA"
                 and _family(r["variant"]) == "metric" and Variant.parse(r["variant"]).measure in info]
    bleu = [r for r in ranked if _family(r["variant"]) in ("bleu", "chrf")]
    rouge = [r for r in ranked if _family(r["variant"]) == "rouge"][:3]
    rows = []
    for r in sorted([*files, *undefined, *bleu, *rouge], key=lambda r: rank.get(r["variant"], math.inf)):
        m = info.get(Variant.parse(r["variant"]).measure) if _family(r["variant"]) == "metric" else None
        rows.append([str(rank.get(r["variant"], "NA")), r["variant"], m["name"] if m else "",
                     m["orientation"] if m else "", tables.fixed(r["pearson"]),
                     f"[{tables.fixed(r['pearson_lo'])}, {tables.fixed(r['pearson_hi'])}]",
                     tables.fixed(r["spearman"]), tables.fixed(r["kendall"]), "*" if r["optimal"] == "yes" else ""])
    caption = (f"Table 6. Metrics read from score files ({comb}): Pearson r with its 95% interval, Spearman rho, "
               f"Kendall tau and rank among all {len(ranked)} variants with a defined r, next to BLEU, chrF and the "
               "three best ROUGE variants; _A mean, _M median over a summarizer's summaries; a metric whose lower scores "
               "are better is negated; * = optimal (no other variant significantly better, Williams test); a variant may "
               "lack the star while one ranked below it has it: the test is more powerful between variants that "
               "agree closely with each other.")
    if not file_metrics:
        caption += (" No score file: put a metric_scores.tsv in the data set folder or name files in the config "
                    "(datasets.<name>.metric_scores; docs/DATASET_FORMAT.md).")
    return DisplayTable(caption, ["rank", "variant", "metric", "orientation", "r", "95% CI", "rho", "tau", "optimal"],
                        rows)


class Answer(NamedTuple):
    """The report's opening verdict for one human combination (see :func:`answer`)."""
    combination: str
    best: dict[str, str] | None          # the best variant's correlation row
    not_worse: int                       # other variants the best does not significantly beat
    variants: int                        # variants with a defined r
    baseline: str
    baseline_rank: int | None            # rank by r, 1 = best; None if not computed or undefined
    baseline_beaten_by: int              # variants significantly better than the baseline
    alpha: float
    baseline_computed: bool = True       # False: not among the data set's variants (e.g. no texts: no ROUGE)


def matrix_p(matrix, a: str, b: str) -> float:
    """The one-sided p-value of "a correlates better than b" in a p-value matrix (a Williams or
    permutation table indexed by variant, or None); NaN where the test is undefined or untested."""
    if matrix is None or a not in matrix.index or b not in matrix.columns:
        return math.nan
    return float(tables.to_float([matrix.loc[a, b]])[0])


def answer(corr: list[dict[str, str]], williams, comb: str, baseline: str, alpha: float) -> Answer:
    """The best variant by Pearson r among the optimal ones (Williams), how many variants it does
    not significantly beat (p >= alpha, one-sided Williams test of best > other), the baseline's
    rank and how many variants significantly beat it (p < alpha)."""
    ranked = _ranked(corr, comb)
    optimal = [r for r in ranked if r["optimal"] == "yes"] or ranked
    best = optimal[0] if optimal else None
    w = williams.set_index("variant") if williams is not None and len(williams) else None
    ids = [r["variant"] for r in ranked]
    not_worse = sum(1 for v in ids if best and v != best["variant"] and not matrix_p(w, best["variant"], v) < alpha)
    rank = ids.index(baseline) + 1 if baseline in ids else None
    beaten_by = sum(1 for v in ids if v != baseline and matrix_p(w, v, baseline) < alpha)
    return Answer(comb, best, not_worse, len(ids), baseline, rank, beaten_by, alpha,
                  any(r["variant"] == baseline for r in corr))


class SummaryAnswer(NamedTuple):
    """The opening verdict at the summary level, for a data set without a defined system-level
    correlation (fewer than 3 systems): see :func:`summary_answer`."""
    combination: str
    level: str                           # the summary-level table's level (within topic, or pooled)
    best: dict[str, str]                 # the best metric's summary-level row
    not_worse: int                       # other metrics with paired bootstrap p >= alpha against it
    metrics: int                         # metrics with a defined r
    baseline: str                        # the baseline's per-summary metric
    baseline_row: dict[str, str] | None  # its row (None: not computed or undefined)
    baseline_rank: int | None
    alpha: float
    baseline_computed: bool = True       # False: not among the data set's metrics (e.g. no texts: no ROUGE)


def summary_answer(summary_level: list[dict[str, str]], comb: str, baseline: str, alpha: float
                   ) -> SummaryAnswer | None:
    """The best metric by summary-level Pearson r with ``comb``, how many other metrics it does not
    significantly beat (the table's paired bootstrap p_vs_best >= alpha), and the rank of the
    baseline variant's per-summary metric; None when no metric has a defined r."""
    ranked = _ranked(summary_level, comb)
    if not ranked:
        return None
    metric = Variant.parse(baseline).summary_metric if baseline else ""
    names = [r["metric"] for r in ranked]
    not_worse = sum(1 for r in ranked[1:] if not tables.to_float([r["p_vs_best"]])[0] < alpha)
    rank = names.index(metric) + 1 if metric in names else None
    return SummaryAnswer(comb, ranked[0]["level"], ranked[0], not_worse, len(ranked), metric,
                         ranked[rank - 1] if rank else None, rank, alpha,
                         any(r["metric"] == metric for r in summary_level))


def figure_top(corr: list[dict[str, str]], comb: str, baseline: str, png: str, svg: str, top: int = 15,
               summary_level: list[dict[str, str]] = ()) -> None:
    """The top variants' Pearson r with their bootstrap intervals (and the baseline's), optimal ones
    filled; without any defined system-level r (fewer than 3 systems), the top metrics' summary-level
    r from ``summary_level`` (the correlation stage's table) instead."""
    ranked = _ranked(corr, comb)
    if not ranked and _ranked(list(summary_level), comb):
        return figure_top_summary(list(summary_level), comb, Variant.parse(baseline).summary_metric, png, svg, top)
    plt = figures.pyplot()
    shown = ranked[:top] + [r for r in ranked[top:] if r["variant"] == baseline]
    fig, ax = plt.subplots(figsize=(6.5, 1.2 + 0.3 * max(1, len(shown))))
    for i, r in enumerate(shown):
        x = float(r["pearson"])
        lo, hi = (tables.to_float([r["pearson_lo"], r["pearson_hi"]]))
        if not (math.isnan(lo) or math.isnan(hi)):
            ax.plot([lo, hi], [i, i], color="#555", lw=1)
        optimal = r["optimal"] == "yes"
        ax.plot([x], [i], "o", ms=5, color="tab:blue" if r["variant"] != baseline else "tab:red",
                mfc=None if optimal else "white")
    ax.set_yticks(range(len(shown)), [r["variant"] for r in shown], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"Pearson r with {comb} (95% bootstrap interval); filled = optimal")
    if not shown:
        ax.text(0.5, 0.5, "no variant has a defined correlation", ha="center", transform=ax.transAxes)
    ax.set_title(f"Top {min(top, len(ranked))} variants" + (f" and the baseline {baseline}" if
                                                             any(r["variant"] == baseline for r in shown) else ""))
    figures.save(fig, png, svg)


def figure_top_summary(summary_level: list[dict[str, str]], comb: str, baseline: str, png: str, svg: str,
                       top: int = 15) -> None:
    """The top metrics' summary-level Pearson r with their bootstrap intervals over topics (and the
    baseline's); filled = not significantly worse than the best (paired bootstrap)."""
    plt = figures.pyplot()
    ranked = _ranked(summary_level, comb)
    shown = ranked[:top] + [r for r in ranked[top:] if r["metric"] == baseline]
    fig, ax = plt.subplots(figsize=(6.5, 1.2 + 0.3 * max(1, len(shown))))
    for i, r in enumerate(shown):
        lo, hi, p = tables.to_float([r["pearson_lo"], r["pearson_hi"], r["p_vs_best"]])
        if not (math.isnan(lo) or math.isnan(hi)):
            ax.plot([lo, hi], [i, i], color="#555", lw=1)
        tied = i == 0 or not p < 0.05
        ax.plot([float(r["pearson"])], [i], "o", ms=5, color="tab:blue" if r["metric"] != baseline else "tab:red",
                mfc=None if tied else "white")
    ax.set_yticks(range(len(shown)), [r["metric"] for r in shown], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"summary-level Pearson r with {comb} (95% bootstrap interval over topics)")
    ax.set_title(f"Top {min(top, len(ranked))} metrics at the summary level ({shown[0]['level'].split('(')[-1][:-1]})")
    figures.save(fig, png, svg)


def figure3_data(corr: list[dict[str, str]], williams, comb: str, baselines: Sequence[str], top: int
                 ) -> tuple[list[str], np.ndarray]:
    """The variants Figure 3 shows (BLEU's best, the top variants, the baselines) and their
    p-values, from the main combination's Williams table (a frame: variant, then one column per
    variant; empty where the tests are undefined)."""
    variants = list(williams.columns[1:]) if williams is not None and len(williams) else []
    ranked = [r["variant"] for r in _ranked(corr, comb)]
    bleu = [v for v in ranked if _family(v) == "bleu"][:1]
    shown = list(dict.fromkeys([*bleu, *[v for v in ranked if _family(v) != "bleu"][:top],
                                *[b for b in baselines if b in variants]]))
    if not shown or not variants:
        return shown, np.zeros((0, 0))
    rows = williams.set_index("variant")
    return shown, np.array([tables.to_float(rows.loc[a, shown]) for a in shown])


def main_of(corr: list[dict[str, str]], primary: str | None = None) -> str:
    combinations = list(dict.fromkeys(r["combination"] for r in corr))
    return main_combination(combinations, primary) if combinations else "arithmetic"


def read_williams(files: Mapping[str, str], stacked: str | None, target: str):
    """One target's Williams p-value table (a frame with a ``variant`` column, as its
    williams_<combination>.tsv has it), from its own file or from williams_targets.tsv; None without one."""
    return williams_reader(files, stacked)(target)


def williams_reader(files: Mapping[str, str], stacked: str | None):
    """:func:`read_williams` of any target, williams_targets.tsv (every target's matrix, large) read
    at most once."""
    read: dict[str, object] = {}

    def of(target: str):
        if target in files:
            return tables.read_tsv(files[target])
        if not stacked:
            return None
        if "stacked" not in read:
            read["stacked"] = tables.read_tsv(stacked)
        f = read["stacked"]
        mine = f[f["target"] == target]
        return mine.drop(columns="target").reset_index(drop=True) if len(mine) else None

    return of


# The report's opening table: one row per target and level (answers.tsv).
ANSWER_COLUMNS = ("target", "level", "best", "r", "lo", "hi", "not_worse", "compared", "test", "baseline",
                  "baseline_rank", "primary")


def answer_rows(corr: list[dict[str, str]], summary_level: list[dict[str, str]], williams_of, baseline: str,
                alpha: float, primary: str) -> list[dict[str, object]]:
    """Per target (in the order of correlations.tsv) and level, the answer the report opens with:
    :func:`answer` at the system level (Williams tests), :func:`summary_answer` at the summary level
    (paired bootstrap over topics); ``williams_of(target)`` gives a target's Williams table."""
    rows: list[dict[str, object]] = []
    same = same_targets(corr, summary_level)
    for comb in dict.fromkeys(r["combination"] for r in corr):
        if comb in same:
            continue
        a = answer(corr, williams_of(comb), comb, baseline, alpha)
        b = a.best or {}
        twins = [t for t, first in same.items() if first == comb]
        name = " = ".join([comb, *twins])
        is_primary = "yes" if primary in (comb, *twins) else "no"
        rows.append({"target": name, "level": "system", "best": b.get("variant", NA), "r": b.get("pearson", NA),
                     "lo": b.get("pearson_lo", NA), "hi": b.get("pearson_hi", NA),
                     "not_worse": a.not_worse if a.best else NA, "compared": a.variants, "test": "Williams",
                     "baseline": baseline, "baseline_rank": a.baseline_rank or NA, "primary": is_primary})
        s = summary_answer(summary_level, comb, baseline, alpha)
        if s is None:
            continue
        rows.append({"target": name, "level": "summary", "best": s.best["metric"], "r": s.best["pearson"],
                     "lo": s.best["pearson_lo"], "hi": s.best["pearson_hi"], "not_worse": s.not_worse,
                     "compared": s.metrics, "test": "paired bootstrap", "baseline": s.baseline,
                     "baseline_rank": s.baseline_rank or NA, "primary": is_primary})
    return rows


def same_targets(corr: Sequence[Mapping[str, str]], summary_level: Sequence[Mapping[str, str]]
                 ) -> dict[str, str]:
    """target -> the earlier target (in the order of correlations.tsv) whose every correlation, at
    the system and the summary level, equals its own to 1e-12: the two rank every metric alike, so
    the answer gives them one row (QAGS's ``coverage``, the rescaled mean of its one coverage
    dimension, is its ``fact``). A target with no defined correlation is never a twin."""
    def signature(target: str) -> np.ndarray:
        system = [r["pearson"] for r in corr if r["combination"] == target]
        summary = [r["pearson"] for r in summary_level if r["combination"] == target]
        return tables.to_float([*system, *summary])

    same: dict[str, str] = {}
    kept: list[tuple[str, np.ndarray]] = []
    for target in dict.fromkeys(r["combination"] for r in corr):
        sig = signature(target)
        twin = next((t for t, other in kept if len(other) == len(sig) and not np.isnan(sig).all()
                     and np.array_equal(np.isnan(other), np.isnan(sig))
                     and np.allclose(other, sig, rtol=0, atol=1e-12, equal_nan=True)), None)
        if twin is None:
            kept.append((target, sig))
        else:
            same[target] = twin
    return same


ANSWERS_CAPTION = ("The answer per target: for every human target (Graham's combinations, each dimension under its own "
                   "name, the composites) and level, the best metric, its Pearson r with the 95% bootstrap interval, how "
                   "many other metrics are not significantly worse than it (system level: Williams tests; summary level: "
                   "paired bootstrap over topics), of how many compared, and the rank of the common baseline; sorted by "
                   "r within each level.")


def answers_table(rows: Sequence[Mapping[str, object]]) -> DisplayTable:
    """The answers as a display table: numbers at 3 decimals, sorted by r within each level."""
    def key(r):
        x = tables.to_float([r["r"]])[0]
        return (r["level"] != "system", math.isnan(x), -x if not math.isnan(x) else 0.0)

    body = [[str(r["target"]) + (" (primary)" if r["primary"] == "yes" else ""), str(r["level"]), str(r["best"]),
             tables.fixed(r["r"]), NA if r["lo"] == NA else f"[{tables.fixed(r['lo'])}, {tables.fixed(r['hi'])}]",
             f"{r['not_worse']} of {int(r['compared']) - 1}" if r["not_worse"] != NA else NA,
             str(r["baseline_rank"])] for r in sorted(rows, key=key)]
    return DisplayTable(ANSWERS_CAPTION, ["target", "level", "best metric", "r", "95% CI", "not significantly worse",
                                          "baseline rank"], body)


def load(correlations: str, williams_of, summary_human: str, file_metrics: str | None = None,
         summary_level: str | None = None, targets: str | None = None) -> tuple[list, object, list, list, list]:
    """The correlation rows, the main target's Williams table (a frame), the per-summary
    human scores, the file metrics' metrics.tsv rows (none without score files) and the
    summary-level rows, as text cells; ``williams_of``: :func:`williams_reader` of the Williams
    files (its own reads are shared with the answers table's); ``targets``: human/targets.tsv
    (which target is primary)."""
    corr = tables.read_tsv(correlations).to_dict("records")
    primary = main_of(corr, primary_of(targets))
    metrics = tables.read_tsv(file_metrics).to_dict("records") if file_metrics else []
    level = tables.read_tsv(summary_level).to_dict("records") if summary_level else []
    return (corr, williams_of(primary), tables.read_tsv(summary_human).to_dict("records"), metrics, level)


def compute(corr: list[dict[str, str]], williams, summary_human: list[dict[str, str]],
            file_metrics: list[dict[str, str]], options: CorrelationTablesOptions,
            summary_level: list[dict[str, str]] = (), williams_of=None, primary: str | None = None) -> Tables:
    """``williams``: the main target's Williams table (:func:`load`); ``williams_of(target)``: any
    target's, for the answers table (None: the main target's only)."""
    # Graham's tables compare his combinations (the other targets have the answers table)
    combinations = [c for c in dict.fromkeys(r["combination"] for r in corr) if c in COMBINATIONS]
    comb = main_of(corr, primary)
    shown, p = figure3_data(corr, williams, comb, options.baselines, options.top_variants)
    ids = [m["metric"] for m in file_metrics]

    def optimal_basis(t: DisplayTable) -> DisplayTable:
        """statistics.optimal: the test behind what Tables 1 and 6 call optimal."""
        if options.optimal != "permutation":
            return t
        return t._replace(caption=t.caption.replace("Williams test)", "permutation tests among the variants the "
                                                                      "statistics job tests; the others NA)"))

    rows = answer_rows(corr, list(summary_level), williams_of or (lambda c: williams if c == comb else None),
                       options.answer_baseline, options.alpha, comb)
    return Tables(comb, optimal_basis(table1(corr, comb)), table2(corr, comb), table4(corr, combinations, options.top_variants),
                  table5(corr, combinations, comb, ids), optimal_basis(table6(corr, comb, file_metrics)),
                  summary_human, shown, p, options.alpha, corr, options.answer_baseline, list(summary_level), rows)


# ----------------------------------------------------------------------------- writing

# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
FIGURE1_CAPTION = (
    "Figure 1. Each point is a judged summary: its coverage against its linguistic quality. A weak relation "
    "means the two components measure different things.")

FIGURE2_CAPTION = (
    "Figure 2. Distributions of coverage, linguistic quality and their arithmetic mean over all judged "
    "summaries.")

FIGURE3_CAPTION = (
    "Figure 3. Williams tests between BLEU, the top variants and the baselines: a green cell means the row "
    "variant correlates significantly more strongly with the human scores than the column variant; darker = "
    "smaller p.")


def write(t: Tables, out: Mapping[str, str]) -> None:
    for name in ("table1", "table2", "table4", "table5", "table6"):
        d: DisplayTable = getattr(t, name)
        tables.write_table(out[f"{name}_tsv"], out[f"{name}_md"], d.caption, d.header, d.rows)
    figure1(t.summary_human, out["figure1_png"], out["figure1_svg"])
    figure2(t.summary_human, out["figure2_png"], out["figure2_svg"])
    figure3(t.williams_variants, t.williams_p, t.combination, t.alpha, out["figure3_png"], out["figure3_svg"])
    figure_top(t.correlations, t.combination, t.baseline, out["top_png"], out["top_svg"],
               summary_level=t.summary_level)
    tables.write_tsv(tables.frame(list(t.answers), ANSWER_COLUMNS), out["answers_tsv"])
    shown = answers_table(t.answers)
    tables.write_markdown(out["answers_md"], shown.caption, shown.header, shown.rows)


def figure1(summary_human: list[dict[str, str]], png: str, svg: str) -> None:
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 4))
    for kind, marker, color in (("system", "o", "tab:blue"), ("human", "^", "tab:orange")):
        pts = [(float(r["coverage"]), float(r["linguistic_quality"])) for r in summary_human
               if r["kind"] == kind and r["coverage"] != "NA" and r["linguistic_quality"] != "NA"]
        if pts:
            x, y = zip(*pts)
            ax.scatter(x, y, s=8, alpha=0.5, marker=marker, color=color, label=f"{kind} summaries")
    ax.set_xlabel("coverage (rescaled to [0, 1])")
    ax.set_ylabel("linguistic quality (rescaled to [0, 1])")
    ax.set_title("Figure 1. Coverage vs linguistic quality")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right")
    else:
        ax.text(0.5, 0.5, "needs both coverage and linguistic quality", ha="center", transform=ax.transAxes)
    figures.save(fig, png, svg)


def figure2(summary_human: list[dict[str, str]], png: str, svg: str) -> None:
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    grid = np.linspace(0, 1, 201)
    drawn = False
    for col, label in (("coverage", "coverage"), ("linguistic_quality", "linguistic quality"),
                       ("arithmetic", "arithmetic mean")):
        vals = np.array([float(r[col]) for r in summary_human if r.get(col, "NA") != "NA"])
        if len(vals) > 1 and np.ptp(vals) > 0:
            ax.plot(grid, gaussian_density(vals, grid), label=label)
            drawn = True
    ax.set_xlabel("score (rescaled to [0, 1])")
    ax.set_ylabel("density")
    ax.set_title("Figure 2. Distributions of human scores")
    if drawn:
        ax.legend()
    figures.save(fig, png, svg)


def figure3(shown: Sequence[str], p: np.ndarray, comb: str, alpha: float, png: str, svg: str) -> None:
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(1.2 + 0.38 * len(shown), 1.2 + 0.38 * len(shown)))
    if p.size:
        shade = np.where(p < alpha, 1 - p / alpha, np.nan)
        ax.imshow(shade, cmap="Greens", vmin=0, vmax=1)
        ax.set_xticks(range(len(shown)), shown, rotation=90)
        ax.set_yticks(range(len(shown)), shown)
        ax.set_xlabel("base variant")
        ax.set_ylabel("new variant")
    else:
        ax.text(0.5, 0.5, "Williams tests undefined (fewer than 4 systems)", ha="center", transform=ax.transAxes)
    ax.set_title(f"Figure 3. Williams tests ({comb}): row beats column, p < {alpha}")
    figures.save(fig, png, svg)
