"""Re-ranking stage (Graham 2015 §5, Table 3 and Figure 4): the systems ranked by the best variant
and by the original one, and which systems the best variant significantly separates.

* The *best* variant is the highest-correlated optimal variant for a chosen human combination
  (``auto``) or an explicit id; the *original* is Hong et al. (2014)'s median ROUGE-2 recall,
  stemmed, stop words kept (``R2_ST1_RS0_M_R``). Ranks (1 = best, ties share the lower rank) under
  both, rank changes, and Kendall tau-b between the two rankings.
* Pairwise significance under the best variant (:mod:`metaeval.stats.pairwise`): Shapiro-Wilk,
  then a paired t-test or a Wilcoxon signed-rank test per pair; the top group is the systems no
  other system significantly beats.

load (:mod:`metaeval.stages.analysis_inputs` and correlations.tsv) -> :func:`compute` ->
:class:`Reranking` -> :func:`write`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .. import figures, tables
from ..logs import CheckError
from ..records import RerankOptions
from ..stats import pairwise as pw
from ..stats.correlation import kendall_tau_b
from ..variants import Variant
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs
from .correlation_tables import main_combination


def choose_best(correlations: Sequence[dict[str, str]], combination: str, best: str, fallback: str) -> tuple[str, str]:
    """(variant, how it was chosen). Without any defined correlation (fewer than 3 systems, or a
    constant human score) ``auto`` falls back to ``fallback`` and says so."""
    if best != "auto":
        return best, "given in the configuration"
    rows = [r for r in correlations if r["combination"] == combination and r["pearson"] not in ("NA", "")]
    if not rows:
        return fallback, (f"auto impossible: no correlation with {combination} is defined (too few systems or "
                          "constant human scores); the original variant is used")
    optimal = [r for r in rows if r["optimal"] == "yes"]
    pool = optimal or rows
    top = max(pool, key=lambda r: float(r["pearson"]))
    how = (f"auto: highest Pearson r with {combination} among the optimal variants" if optimal else
           f"auto: highest Pearson r with {combination} (no Williams tests: fewer than 4 systems)")
    return top["variant"], how


@dataclass
class Reranking:
    combination: str
    best: str
    how: str
    original: str
    systems: list[str]
    best_scores: np.ndarray
    original_scores: np.ndarray
    tau: float
    normality_p: np.ndarray
    tests: list[pw.PairTest]
    beats: np.ndarray
    top_group: list[str]
    alpha: float
    left_out: list[tuple[str, str]] = field(default_factory=list)   # (system, why it is in no test or group)


def load(inputs: Mapping[str, str], options: RerankOptions) -> tuple[AnalysisInputs, list[dict[str, str]]]:
    """The score and human tables, and correlations.tsv's rows (as text)."""
    return analysis_inputs.load_named(inputs, options.summarizers), tables.read_tsv(inputs["correlations"]).to_dict("records")


def compute(inp: AnalysisInputs, correlations: list[dict[str, str]], options: RerankOptions,
            target: str | None = None, tested: dict | None = None) -> Reranking:
    """The re-ranking for ``target`` (default: ``rerank.combination`` when the data set has it, else
    the primary target). ``tested``: the significance tests already made, by variant (they depend
    on the variant alone; :func:`by_target` shares them between the targets)."""
    available = list(dict.fromkeys(r["combination"] for r in correlations))
    comb = target or (options.combination if options.combination in available
                      else main_combination(available, inp.primary))
    col = {v: i for i, v in enumerate(inp.variant_ids)}
    original = options.original
    if original not in col and inp.variant_ids:
        # a score-only data set computes no ROUGE: the ranking is compared with the first of its own variants
        original = inp.variant_ids[0]
    variant, how = choose_best(correlations, comb, options.best, original)
    if original != options.original:
        how += (f"; the configured original {options.original} is not computed on this data set (no summary texts), "
                f"so the ranking is compared with {original}")
    for v in (variant, original):
        if v not in col:
            raise CheckError(f"variant {v!r} is not in system_scores.tsv (known: e.g. {', '.join(inp.variant_ids[:3])})")
    sb, so = inp.system_metric[:, col[variant]], inp.system_metric[:, col[original]]
    both = ~np.isnan(sb) & ~np.isnan(so)        # the two rankings are compared on the systems both score
    tau = kendall_tau_b(sb[both], so[both]) if both.sum() > 1 else math.nan
    chosen = Variant.parse(variant)
    tested = {} if tested is None else tested
    if variant not in tested:
        tested[variant] = scored_tests(inp.summarizers, inp.summary_metric[chosen.summary_metric], sb,
                                       chosen.statistic == "A", options.alpha)
    normal_p, tests, beats = tested[variant]
    scored = [s for s, x in zip(inp.summarizers, sb) if not np.isnan(x)]
    left_out = [(s, f"no score under {variant}") for s, x in zip(inp.summarizers, sb) if np.isnan(x)]
    return Reranking(comb, variant, how, original, inp.summarizers, sb, so, tau, normal_p, tests, beats,
                     pw.top_group(scored, beats[np.ix_(~np.isnan(sb), ~np.isnan(sb))]), options.alpha, left_out)


def scored_tests(systems: Sequence[str], per: np.ndarray, scores: np.ndarray, mean_based: bool, alpha: float
                 ) -> tuple[np.ndarray, list[pw.PairTest], np.ndarray]:
    """(Shapiro-Wilk p per system, the pairwise tests, beats (S, S)) among the systems the variant
    scores: a system without a score is in no test and beats or loses to no one (NaN, False)."""
    ok = ~np.isnan(scores)
    normal = np.full(len(systems), np.nan)
    beats = np.zeros((len(systems), len(systems)), dtype=bool)
    normal[ok] = pw.normality(per[ok], alpha)[0]
    tests, sub = pw.pairwise_tests([s for s, k in zip(systems, ok) if k], per[ok], mean_based, alpha)
    beats[np.ix_(ok, ok)] = sub
    return normal, tests, beats


BY_TARGET_COLUMNS = ("target", "best_variant", "chosen", "original_variant", "kendall_tau_b", "top_group", "alpha",
                     "left_out")


def by_target(inp: AnalysisInputs, correlations: list[dict[str, str]], options: RerankOptions) -> list[dict[str, object]]:
    """The re-ranking of every target (one row each, :data:`BY_TARGET_COLUMNS`): its best variant,
    Kendall tau-b against the original ranking and the top group under the best variant."""
    rows, tested = [], {}
    for target in dict.fromkeys(r["combination"] for r in correlations):
        r = compute(inp, correlations, options, target, tested)
        rows.append({"target": target, "best_variant": r.best, "chosen": r.how, "original_variant": r.original,
                     "kendall_tau_b": r.tau, "top_group": ",".join(r.top_group), "alpha": r.alpha,
                     "left_out": ",".join(name for name, _ in r.left_out) or "none"})
    return rows


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
FIGURE4_CAPTION = (
    "Significant wins under the best variant: a coloured cell means the row system is significantly better "
    "than the column system.")

SUMMARY_CAPTION = (
    "The chosen variants, Kendall tau-b between the rankings and the top group.")

BY_TARGET_CAPTION = (
    "Every target's re-ranking: the best variant for it (highest Pearson r among the optimal variants), "
    "Kendall tau-b between its ranking of the systems and the original variant's, and the systems no other "
    "system significantly beats under it.")


def write_by_target(rows: Sequence[Mapping[str, object]], path: str) -> None:
    tables.write_tsv(tables.frame(list(rows), BY_TARGET_COLUMNS), path)


def write(r: Reranking, out: Mapping[str, str]) -> None:
    rb, ro = scored_ranks(r.best_scores), scored_ranks(r.original_scores)
    order = np.argsort(np.where(np.isnan(r.best_scores), np.inf, rb), kind="stable")
    header = ["summarizer", f"{r.best} score", "rank", f"{r.original} score", "rank (original)", "rank change",
              "note"]
    why = dict(r.left_out)
    cell = lambda x: "NA" if np.isnan(x) else f"{x:.5f}"     # noqa: E731
    rank = lambda x: "NA" if np.isnan(x) else str(int(x))     # noqa: E731
    rows = [[r.systems[i], cell(r.best_scores[i]), rank(rb[i]), cell(r.original_scores[i]), rank(ro[i]),
             "NA" if np.isnan(rb[i] + ro[i]) else f"{int(ro[i] - rb[i]):+d}", why.get(r.systems[i], "")]
            for i in order]
    caption = (f"Graham (2015) Table 3: systems ranked by the best variant {r.best} ({r.how}) and by the original "
               f"{r.original}; Kendall tau-b between the rankings = {r.tau:.3f}, on the systems both score. Rank "
               "change > 0: the system moves up under the best variant. A system without a score is unranked (NA) "
               "and in no test or group (note).")
    tables.write_table(out["table3_tsv"], out["table3_md"], caption, header, rows)
    rows = [(s, p, "NA" if math.isnan(p) else ("no" if p < r.alpha else "yes")) for s, p in zip(r.systems, r.normality_p)]
    tables.write_tsv(tables.frame(rows, ["summarizer", "shapiro_wilk_p", "normal"]), out["normality"])
    rows = [(t.a, t.b, t.test, t.p, t.n_topics, t.winner or "none") for t in r.tests]
    tables.write_tsv(tables.frame(rows, ["a", "b", "test", "p", "n_topics", "significantly_better"]), out["pairwise"])
    items = [("combination", r.combination), ("best_variant", r.best), ("chosen", r.how),
             ("original_variant", r.original), ("kendall_tau_b", r.tau), ("alpha", r.alpha),
             ("top_group", ",".join(r.top_group)),
             ("left_out", "; ".join(f"{name}: {why}" for name, why in r.left_out) or "none")]
    tables.write_tsv(tables.frame(items, ["item", "value"]), out["summary"])
    _significance_figure([r.systems[i] for i in order], r.beats[np.ix_(order, order)], r.best, r.alpha,
                         out["figure4_png"], out["figure4_svg"])


def scored_ranks(scores: np.ndarray) -> np.ndarray:
    """Ranks among the scored systems (1 = highest, ties share the lower rank); NaN without a score."""
    out = np.full(len(scores), np.nan)
    ok = ~np.isnan(scores)
    out[ok] = pw.ranks(scores[ok])
    return out


def _significance_figure(systems: Sequence[str], beats: np.ndarray, variant: str, alpha: float, png: str,
                         svg: str) -> None:
    plt = figures.pyplot()
    n = len(systems)
    fig, ax = plt.subplots(figsize=(1.5 + 0.3 * n, 1.5 + 0.3 * n))
    ax.imshow(np.where(beats, 1.0, np.nan), cmap="Greens", vmin=0, vmax=1.2)
    ax.set_xticks(range(n), systems, rotation=90)
    ax.set_yticks(range(n), systems)
    ax.set_xlabel("loses")
    ax.set_ylabel("wins")
    ax.set_title(f"Significant wins under {variant} (p < {alpha})")
    figures.save(fig, png, svg)
