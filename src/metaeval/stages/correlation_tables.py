"""Correlation tables and figures (the tables and figures of Graham 2015), from the correlation
stage's tables.

* Table 1: every variant sorted by Pearson r with the main human combination (the arithmetic
  mean when the data set has both components), optimal variants marked.
* Table 2: the share of the optimal ROUGE variants attributable to each option (n-gram method,
  stemming, stop words, mean/median, P/R/F).
* Table 4: the top variants of every combination, r per combination, optimal ones marked.
* Table 5: the metrics that are neither ROUGE nor BLEU (SERA) next to BLEU, chrF and the best ROUGE
  variant.
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
from ..options import CorrelationTablesOptions
from ..variants import OPTIONS, Variant

OPTION_LABELS = {"stemming": {"ST0": "not stemmed", "ST1": "stemmed"},
                 "stop words": {"RS0": "stop words kept", "RS1": "stop words removed"},
                 "mean/median": {"A": "mean (A)", "M": "median (M)"},
                 "P/R/F": {"P": "precision", "R": "recall", "F": "F"}}


def main_combination(combinations: Sequence[str]) -> str:
    """The combination the single-combination tables show: Graham's arithmetic mean if present."""
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
    summary_human: list[dict[str, str]]     # Figures 1 and 2
    williams_variants: list[str]            # Figure 3: shown variants (rows and columns)
    williams_p: np.ndarray
    alpha: float


def _family(variant_id: str) -> str:
    return Variant.parse(variant_id).family


def table1(corr: list[dict[str, str]], comb: str) -> DisplayTable:
    rows = [r for r in corr if r["combination"] == comb]
    rows.sort(key=lambda r: -float(r["pearson"]) if r["pearson"] != "NA" else math.inf)
    table = [[str(i + 1), r["variant"], tables.fixed(r["pearson"]),
              f"[{tables.fixed(r['pearson_lo'])}, {tables.fixed(r['pearson_hi'])}]",
              "*" if r["optimal"] == "yes" else "", r["cluster"]] for i, r in enumerate(rows)]
    return DisplayTable(f"Table 1. Pearson r of every metric variant with human scores ({comb}), n = "
                        f"{rows[0]['n'] if rows else 0} systems; * = optimal (no other variant significantly better, "
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


def table5(corr: list[dict[str, str]], combinations: Sequence[str], comb: str) -> DisplayTable:
    """The metrics that are neither ROUGE nor BLEU (SERA), next to BLEU, chrF and the best ROUGE variant."""
    by = {(r["variant"], r["combination"]): r for r in corr}
    variants = list(dict.fromkeys(r["variant"] for r in corr))
    others = [v for v in variants if _family(v) == "metric"]
    ranked = [r for r in _ranked(corr, comb) if _family(r["variant"]) == "rouge"]
    shown = others + [v for v in variants if _family(v) in ("bleu", "chrf")] + [r["variant"] for r in ranked[:1]]
    caption = ("Table 5. SERA (Cohan & Goharian 2016; SERA<n> / SERADIS<n> = simple / rank-discounted overlap of the "
               "top n results; PL plain and KW keyword queries; _A mean, _M median over summaries) against BLEU, chrF and "
               f"chrF++ (corpus level) and the best ROUGE variant ({comb}): Pearson r with every human combination; * = optimal (Williams tests among "
               "all metrics)." + ("" if others else " SERA was not computed (disabled, or the data set has no documents "
                                                    "and no corpus is configured)."))
    return DisplayTable(caption, ["metric", *combinations], _pearson_rows(by, shown, combinations))


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


def main_of(corr: list[dict[str, str]]) -> str:
    combinations = list(dict.fromkeys(r["combination"] for r in corr))
    return main_combination(combinations) if combinations else "arithmetic"


def load(correlations: str, williams: Mapping[str, str], summary_human: str) -> tuple[list, object, list]:
    """The correlation rows, the main combination's Williams table (a frame) and the per-summary
    human scores, as text cells."""
    corr = tables.read_tsv(correlations).to_dict("records")
    path = williams.get(main_of(corr))
    return corr, tables.read_tsv(path) if path else None, tables.read_tsv(summary_human).to_dict("records")


def compute(corr: list[dict[str, str]], williams, summary_human: list[dict[str, str]],
            options: CorrelationTablesOptions) -> Tables:
    """``williams``: the main combination's Williams table (:func:`load`)."""
    combinations = list(dict.fromkeys(r["combination"] for r in corr))
    comb = main_of(corr)
    shown, p = figure3_data(corr, williams, comb, options.baselines, options.top)
    return Tables(comb, table1(corr, comb), table2(corr, comb), table4(corr, combinations, options.top),
                  table5(corr, combinations, comb), summary_human, shown, p, options.alpha)


# ----------------------------------------------------------------------------- writing

def write(t: Tables, out: Mapping[str, str]) -> None:
    for name in ("table1", "table2", "table4", "table5"):
        d: DisplayTable = getattr(t, name)
        tables.write_table(out[f"{name}_tsv"], out[f"{name}_md"], d.caption, d.header, d.rows)
    figure1(t.summary_human, out["figure1_png"], out["figure1_svg"])
    figure2(t.summary_human, out["figure2_png"], out["figure2_svg"])
    figure3(t.williams_variants, t.williams_p, t.combination, t.alpha, out["figure3_png"], out["figure3_svg"])


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
    from scipy.stats import gaussian_kde

    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    grid = np.linspace(0, 1, 201)
    drawn = False
    for col, label in (("coverage", "coverage"), ("linguistic_quality", "linguistic quality"),
                       ("arithmetic", "arithmetic mean")):
        vals = np.array([float(r[col]) for r in summary_human if r.get(col, "NA") != "NA"])
        if len(vals) > 1 and np.ptp(vals) > 0:
            ax.plot(grid, gaussian_kde(vals)(grid), label=label)
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
