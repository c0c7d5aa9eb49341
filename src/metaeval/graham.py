"""Graham (2015)'s tables and figures from the correlation tables.

* Table 1: every variant sorted by Pearson r with the main human combination (the arithmetic
  mean when the data set has both components), optimal variants marked.
* Table 2: the share of the optimal variants attributable to each option (n-gram method,
  stemming, stop words, P/R/F, mean/median).
* Table 4: the top variants of every combination, r per combination, optimal ones marked.
* Figure 1: coverage vs linguistic quality of every judged summary.
* Figure 2: densities of coverage, linguistic quality and their arithmetic mean.
* Figure 3: pairwise Williams test results for BLEU, the top variants and the baselines: a
  coloured cell means the row variant correlates significantly more strongly with humans than
  the column variant (p < alpha), darker for smaller p.

Figures are written as PNG and SVG with fixed metadata, so the same inputs give the same bytes.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from .analysis import read_tsv
from .datasets import atomic_write_text
from .correlation import split_variant

OPTIONS = {"n-gram method": 0, "stemming": 1, "stop words": 2, "mean/median": 3, "P/R/F": 4}
OPTION_LABELS = {"stemming": {"ST0": "not stemmed", "ST1": "stemmed"},
                 "stop words": {"RS0": "stop words kept", "RS1": "stop words removed"},
                 "mean/median": {"A": "mean (A)", "M": "median (M)"},
                 "P/R/F": {"P": "precision", "R": "recall", "F": "F"}}


def main_combination(combinations: Sequence[str]) -> str:
    return "arithmetic" if "arithmetic" in combinations else combinations[0]


def _f(x: str, digits: int = 3) -> str:
    return "NA" if x in ("NA", "") else f"{float(x):.{digits}f}"


def _markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _write(stem: Path, header: Sequence[str], rows: Sequence[Sequence[str]], caption: str) -> None:
    atomic_write_text(stem.with_suffix(".tsv"), "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    atomic_write_text(stem.with_suffix(".md"), f"{caption}\n\n" + _markdown(header, rows))


def table1(corr: list[dict[str, str]], comb: str, out: Path) -> list[dict[str, str]]:
    rows = [r for r in corr if r["combination"] == comb]
    rows.sort(key=lambda r: -float(r["pearson"]) if r["pearson"] != "NA" else math.inf)
    table = [[str(i + 1), r["variant"], _f(r["pearson"]), f"[{_f(r['pearson_lo'])}, {_f(r['pearson_hi'])}]",
              "*" if r["optimal"] == "yes" else "", r["cluster"]] for i, r in enumerate(rows)]
    _write(out, ["rank", "variant", "r", "95% CI", "optimal", "cluster"], table,
           f"Table 1. Pearson r of every metric variant with human scores ({comb}), n = {rows[0]['n'] if rows else 0} "
           "systems; * = optimal (no other variant significantly better, Williams test).")
    return rows


def table2(corr: list[dict[str, str]], comb: str, out: Path) -> None:
    rouge = [r for r in corr if split_variant(r["variant"])[0] == "rouge"]
    opt = [r["variant"] for r in rouge if r["combination"] == comb and r["optimal"] == "yes"]
    table = []
    for option, pos in OPTIONS.items():
        values = sorted({r["variant"].split("_")[pos] for r in rouge},
                        key=lambda v: (len(v), v))
        for v in values:
            k = sum(1 for o in opt if o.split("_")[pos] == v)
            label = OPTION_LABELS.get(option, {}).get(v, v)
            table.append([option, label, str(k), f"{100 * k / len(opt):.1f}" if opt else "NA"])
    _write(out, ["option", "value", "optimal variants", "share (%)"], table,
           f"Table 2. Share of the {len(opt)} optimal ROUGE variants ({comb}) attributable to each option.")


def _pearson_rows(by: dict[tuple[str, str], dict[str, str]], variants: Sequence[str], combinations: Sequence[str]
                  ) -> list[list[str]]:
    """One row per variant: its Pearson r with every combination, * where it is optimal."""
    table = []
    for v in variants:
        cells = []
        for comb in combinations:
            r = by.get((v, comb))
            cells.append("NA" if r is None else _f(r["pearson"]) + ("*" if r["optimal"] == "yes" else ""))
        table.append([v, *cells])
    return table


def table4(corr: list[dict[str, str]], combinations: Sequence[str], top: int, out: Path) -> None:
    chosen: list[str] = []
    by = {(r["variant"], r["combination"]): r for r in corr}
    for comb in combinations:
        rows = sorted((r for r in corr if r["combination"] == comb and r["pearson"] != "NA"),
                      key=lambda r: -float(r["pearson"]))
        for r in rows[:top]:
            if r["variant"] not in chosen:
                chosen.append(r["variant"])
    _write(out, ["variant", *combinations], _pearson_rows(by, chosen, combinations),
           f"Table 4. Pearson r of the top {top} variants of every human combination; * = optimal for that combination.")


def table5(corr: list[dict[str, str]], combinations: Sequence[str], comb: str, out: Path) -> None:
    """The metrics that are neither ROUGE nor BLEU (SERA), next to BLEU and the best ROUGE variant."""
    by = {(r["variant"], r["combination"]): r for r in corr}
    variants = list(dict.fromkeys(r["variant"] for r in corr))
    others = [v for v in variants if split_variant(v)[0] == "other"]
    ranked = sorted((r for r in corr if r["combination"] == comb and r["pearson"] != "NA"
                     and split_variant(r["variant"])[0] == "rouge"), key=lambda r: -float(r["pearson"]))
    shown = others + [v for v in variants if split_variant(v)[0] == "bleu"] + [r["variant"] for r in ranked[:1]]
    _write(out, ["metric", *combinations], _pearson_rows(by, shown, combinations),
           "Table 5. SERA (Cohan & Goharian 2016; SERA<n> / SERADIS<n> = simple / rank-discounted overlap of the top n "
           "results; PL plain and KW keyword queries; _A mean, _M median over summaries) against BLEU and the best ROUGE "
           f"variant ({comb}): Pearson r with every human combination; * = optimal (Williams tests among all metrics)."
           + ("" if others else " SERA was not computed (disabled, or the data set has no documents and no corpus "
                                "is configured)."))


def _figure_setup():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "metaeval"
    plt.rcParams["font.size"] = 9
    return plt


def _save(fig, stem: Path) -> None:
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        path = stem.with_suffix(f".{ext}")
        tmp = path.with_name(f".{path.name}.tmp.{ext}")
        fig.savefig(tmp, format=ext, metadata=meta, dpi=150, bbox_inches="tight")
        tmp.replace(path)


def figure1(summary_human: list[dict[str, str]], out: Path) -> None:
    plt = _figure_setup()
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
    _save(fig, out)
    plt.close(fig)


def figure2(summary_human: list[dict[str, str]], out: Path) -> None:
    from scipy.stats import gaussian_kde

    plt = _figure_setup()
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
    _save(fig, out)
    plt.close(fig)


def figure3(corr: list[dict[str, str]], williams_path: Path, comb: str, baselines: Sequence[str], top: int,
            alpha: float, out: Path) -> None:
    plt = _figure_setup()
    rows = read_tsv(williams_path) if williams_path.exists() else []
    variants = list(rows[0].keys())[1:] if rows else []
    ranked = [r["variant"] for r in sorted((r for r in corr if r["combination"] == comb and r["pearson"] != "NA"),
                                            key=lambda r: -float(r["pearson"]))]
    bleu = [v for v in ranked if v.startswith("BLEU")][:1]
    shown = list(dict.fromkeys([*bleu, *[v for v in ranked if not v.startswith("BLEU")][:top],
                                *[b for b in baselines if b in variants]]))
    idx = {v: i for i, v in enumerate(variants)}
    p = np.array([[float(rows[idx[a]][b]) if rows and rows[idx[a]][b] != "NA" else np.nan for b in shown] for a in shown]) \
        if shown and rows else np.zeros((0, 0))
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
    _save(fig, out)
    plt.close(fig)


def write_all(correlations: str, williams: Sequence[str], summary_human: str, out_dir: str, baselines: Sequence[str],
              top: int, alpha: float) -> None:
    corr = read_tsv(correlations)
    combinations = list(dict.fromkeys(r["combination"] for r in corr))
    out = Path(out_dir)
    comb = main_combination(combinations) if combinations else "arithmetic"
    table1(corr, comb, out / "table1")
    table2(corr, comb, out / "table2")
    table4(corr, combinations, top, out / "table4")
    table5(corr, combinations, comb, out / "table5")
    sh = read_tsv(summary_human)
    figure1(sh, out / "figure1_coverage_vs_lq")
    figure2(sh, out / "figure2_densities")
    wpath = next((Path(w) for w in williams if Path(w).name == f"williams_{comb}.tsv"), Path(out / f"williams_{comb}.tsv"))
    figure3(corr, wpath, comb, baselines, top, alpha, out / "figure3_williams")
