"""Agreement stage (Owczarzak et al. 2012): the verdict of every scorer - every human combination
and every per-summary metric - on every pair of summarizers, and how often each metric's verdicts
agree with the humans' (the statistics are :mod:`metaeval.stats.verdicts`).

load (:mod:`metaeval.stages.analysis_inputs`, all summarizers) -> :func:`compute` ->
:class:`AgreementResult` -> :func:`write` (verdicts.tsv, agreement.tsv, Owczarzak's Tables 2 and 3
as Markdown, the accuracy and score-difference figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .. import figures, memo, tables
from ..records import AgreementOptions
from ..stats import verdicts as vd
from ..variants import Variant
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs
from .correlation_tables import main_combination

PAIR_TYPES = ("system-system", "human-system")
AGREEMENT_COLUMNS = ("metric", "combination", "pair_type", "pairs", "human_significant", "diff", "no_diff",
                     "contradictions", "contradiction_share", "correct", "accuracy", "accuracy_lo", "accuracy_hi",
                     "direction", "z_vs_baseline", "p_vs_baseline", "vs_baseline", "safe_difference")
VERDICT_NAMES = {1.0: "a better", -1.0: "b better", 0.0: "no difference"}


# What a scorer of verdicts.tsv is (its ``scorer_kind``): a human target or a metric. The two are
# kept apart everywhere: a metric may bear a target's name (an LLM judge's "coherence").
SCORER_KINDS = ("human", "metric")


@dataclass
class AgreementResult:
    summarizers: list[str]
    pairs: tuple[np.ndarray, np.ndarray, list[str]]
    human: dict[str, vd.Verdicts]             # human target -> verdicts on every pair
    metrics: dict[str, vd.Verdicts]           # per-summary metric -> verdicts on every pair
    rows: list[dict]                          # AGREEMENT_COLUMNS
    combinations: list[str]
    baseline: str
    alpha: float
    main: str | None = None                   # the target the Markdown tables and figures show


def _verdicts(grids: Sequence[np.ndarray], ii: np.ndarray, jj: np.ndarray, alpha: float, min_topics: int
              ) -> list[vd.Verdicts]:
    """:func:`metaeval.stats.verdicts.verdicts_of_scorers` of each grid, in order (scorers by
    position: a human target and a metric may share a name). Each scorer's verdicts are its own
    (every pair's depends on that pair alone), so the job's memo keeps them by the scorer's scores."""
    fields = ("p", "mean_diff", "median_diff", "n_topics", "verdict")

    def compute(rows: list[int]) -> dict[str, np.ndarray]:
        found = vd.verdicts_of_scorers({str(r): grids[r] for r in rows}, ii, jj, alpha, min_topics)
        return {f: np.stack([getattr(found[str(r)], f) for r in rows]) if rows else np.zeros((0, len(ii)))
                for f in fields}

    keys = [memo.digest(np.asarray(g, dtype=float)) for g in grids]
    out = memo.rows("verdicts", ("verdicts", ii, jj, alpha, min_topics), keys, compute)
    return [vd.Verdicts(*(out[f][k] for f in fields)) for k in range(len(grids))]


def agreement_tables(human: Mapping[str, np.ndarray], metrics: Mapping[str, np.ndarray], summarizers: Sequence[str],
                     kinds: Sequence[str], combinations: Sequence[str], alpha: float, min_topics: int, baseline: str
                     ) -> AgreementResult:
    """Verdicts of every scorer on every pair and the agreement of every metric with every human
    combination, per pair type. Pure: arrays in, rows out. ``baseline`` is a per-summary metric id.
    The human targets and the metrics are two name spaces: a metric named like a target is a metric."""
    ii, jj, types = vd.pair_grid(summarizers, kinds)
    types_arr = np.array(types)
    found = _verdicts([*human.values(), *metrics.values()], ii, jj, alpha, min_topics)
    human_verdicts = dict(zip(human, found[:len(human)]))
    metric_verdicts = dict(zip(metrics, found[len(human):]))
    rows = []
    for comb in combinations:
        h = human_verdicts[comb]
        for pair_type in ("all", *PAIR_TYPES):
            mask = np.ones(len(ii), dtype=bool) if pair_type == "all" else types_arr == pair_type
            if not mask.any():
                continue
            base = vd.agreement(metric_verdicts[baseline], h, mask) if baseline in metric_verdicts else None
            for name, v in metric_verdicts.items():
                a = vd.agreement(v, h, mask)
                z, p = vd.compare_to_baseline(a.correct, a.pairs, base.correct, base.pairs) if base else (np.nan, np.nan)
                better = "" if math.isnan(p) or p >= alpha else ("better" if z > 0 else "worse")
                rows.append({"metric": name, "combination": comb, "pair_type": pair_type, **a.__dict__,
                             "z_vs_baseline": z, "p_vs_baseline": p, "vs_baseline": better or "ns",
                             "safe_difference": vd.safe_difference(v, h) if pair_type == "all" else np.nan})
    return AgreementResult(list(summarizers), (ii, jj, types), human_verdicts, metric_verdicts, rows,
                           list(combinations), baseline, alpha)


def load(inputs: Mapping[str, str], options: AgreementOptions | None = None) -> AnalysisInputs:
    """The score and human tables, every judged summarizer (systems and humans); ``options`` is the
    stage shape's (the generic door passes it; nothing of it is read here)."""
    return analysis_inputs.load_named(inputs, "all")


def compute(inp: AnalysisInputs, options: AgreementOptions) -> AgreementResult:
    human = inp.per_summary.human
    # the configured combinations first (as they always were), then every other target
    configured = [c for c in options.combinations if c in human]
    targets = configured + [c for c in inp.combinations if c not in configured]
    # a metric declared for one dimension has verdicts only where it serves a target, and agreement rows there only
    served = {m: g for m, g in inp.summary_metric.items() if any(inp.serves(m, c) for c in targets)}
    result = agreement_tables(human, served, inp.summarizers, inp.kinds, targets, options.alpha,
                              options.min_topics, Variant.parse(options.baseline).summary_metric)
    result.rows = [r for r in result.rows if inp.serves(r["metric"], r["combination"])]
    result.main = inp.main
    return result


# ----------------------------------------------------------------------------- writing

# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
ACCURACY_FIGURE_CAPTION = (
    "Probability that the metric's verdict on a pair of summarizers agrees with the human verdict, with 95% "
    "intervals; the dashed line is the baseline metric.")

DIFFERENCES_FIGURE_CAPTION = (
    "Metric score differences of every pair, oriented so that the human-preferred summarizer is on the "
    "right: coloured by human significance (left) and by agreement (right); beyond the dotted lines the "
    "metric never contradicts the humans.")


def write(res: AgreementResult, options: AgreementOptions, out: Mapping[str, str]) -> None:
    """The verdicts, the agreement table, Tables 2 and 3 and the two figures (the stage shape's
    ``write``: ``options`` are the record the result was computed with)."""
    ii, jj, types = res.pairs
    s = res.summarizers
    rows = []
    for kind, scorers in zip(SCORER_KINDS, (res.human, res.metrics)):
        for name, v in scorers.items():
            for k in range(len(ii)):
                verdict = "untestable" if math.isnan(v.verdict[k]) else VERDICT_NAMES[float(v.verdict[k])]
                rows.append((s[ii[k]], s[jj[k]], types[k], name, kind, int(v.n_topics[k]), v.p[k], v.median_diff[k],
                             v.mean_diff[k], verdict))
    tables.write_tsv(tables.frame(rows, ["a", "b", "pair_type", "scorer", "scorer_kind", "n_topics", "p", "median_diff",
                                         "mean_diff", "verdict"]), out["verdicts"])
    tables.write_tsv(tables.frame(res.rows, AGREEMENT_COLUMNS), out["agreement"])
    comb = res.main if res.main in res.combinations else (main_combination(res.combinations) if res.combinations else None)
    rows = [r for r in res.rows if r["combination"] == comb]
    present = [t for t in PAIR_TYPES if any(r["pair_type"] == t for r in rows)]
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    by = {(r["metric"], r["pair_type"]): r for r in rows}
    pct = lambda x: "NA" if isinstance(x, float) and math.isnan(x) else f"{100 * x:.1f}"  # noqa: E731
    t2 = [[m, *[f"{pct(by[(m, t)]['diff'])} / {pct(by[(m, t)]['no_diff'])} / {by[(m, t)]['contradictions']}"
                for t in present]] for m in metrics]
    tables.write_markdown(out["table2_md"], f"Agreement with human verdicts ({comb}), Owczarzak et al. (2012) Table 2: "
                          "% diff (human-significant pairs the metric also finds significant, same direction) / % no diff "
                          "(human-non-significant pairs the metric also finds non-significant) / contradictions.",
                          ["metric", *present], t2)
    t3 = [[m, *[f"{pct(by[(m, t)]['accuracy'])} [{pct(by[(m, t)]['accuracy_lo'])}, {pct(by[(m, t)]['accuracy_hi'])}]"
                f" / {pct(by[(m, t)]['direction'])} {'(' + by[(m, t)]['vs_baseline'] + ')' if by[(m, t)]['vs_baseline'] != 'ns' else ''}"
                for t in present]] for m in metrics]
    tables.write_markdown(out["table3_md"], f"Accuracy of the three-way verdict with 95% CI / agreement on the direction "
                          f"of the mean difference ({comb}), Owczarzak et al. (2012) Table 3; (better)/(worse): "
                          f"significantly different from the baseline {res.baseline} (two-proportion z-test).",
                          ["metric", *present], t3)
    _accuracy_figure(rows, res.baseline, comb, out["accuracy_png"], out["accuracy_svg"])
    _difference_figure(res, comb, out["differences_png"], out["differences_svg"])


def _accuracy_figure(rows: list[dict], baseline: str, comb: str | None, png: str, svg: str) -> None:
    plt = figures.pyplot()
    sel = [r for r in rows if r["pair_type"] == "all"]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.16 * len(sel) + 1.5), 3.8))
    if sel:
        x = np.arange(len(sel))
        acc = np.array([r["accuracy"] for r in sel], dtype=float)
        lo = np.array([r["accuracy_lo"] for r in sel], dtype=float)
        hi = np.array([r["accuracy_hi"] for r in sel], dtype=float)
        colors = ["tab:green" if r["vs_baseline"] == "better" else "tab:red" if r["vs_baseline"] == "worse" else "tab:blue"
                  for r in sel]
        ax.errorbar(x, acc, yerr=figures.error_bars(acc, lo, hi, f"accuracy figure ({comb})"), fmt="none",
                    ecolor="grey", elinewidth=0.8)
        ax.scatter(x, acc, c=colors, s=10, zorder=3)
        base = next((r for r in sel if r["metric"] == baseline), None)
        if base:
            ax.axhline(base["accuracy"], color="black", linestyle="--", linewidth=0.8, label=f"baseline {baseline}")
            ax.legend(loc="lower right")
        ax.set_xticks(x, [r["metric"] for r in sel], rotation=90, fontsize=6)
    ax.set_ylabel("agreement with human verdicts")
    ax.set_title(f"Agreement probability with 95% CI ({comb}); green/red: better/worse than baseline")
    figures.save(fig, png, svg)


def _difference_figure(res: AgreementResult, comb: str | None, png: str, svg: str) -> None:
    plt = figures.pyplot()
    rows = [r for r in res.rows if r["combination"] == comb and r["pair_type"] == "all"]
    best = max(rows, key=lambda r: -1 if math.isnan(r["accuracy"]) else r["accuracy"])["metric"] if rows else None
    shown = list(dict.fromkeys(m for m in (res.baseline, best) if m in res.metrics))
    fig, axes = plt.subplots(len(shown) or 1, 2, figsize=(9, 3 * max(1, len(shown))), squeeze=False)
    h = res.human.get(comb) if comb else None
    for k, name in enumerate(shown):
        v = res.metrics[name]
        sel = ~np.isnan(v.verdict) & ~np.isnan(h.verdict)
        d, mv, hv = v.mean_diff[sel], v.verdict[sel], h.verdict[sel]
        # orient every pair so that the human prefers (or ties to) summarizer a
        sign = np.where(h.mean_diff[sel] < 0, -1.0, 1.0)
        d, mv, hv = d * sign, mv * sign, hv * sign
        bins = np.linspace(d.min(), d.max(), 31) if len(d) and np.ptp(d) > 0 else 10
        # stacked as filled outlines: one polygon per group instead of a rectangle per bin and group
        # (drawing hundreds of rectangles in both formats was most of this stage's time)
        axes[k, 0].hist([d[hv != 0], d[hv == 0]], bins=bins, stacked=True, histtype="stepfilled",
                        color=["tab:blue", "lightgrey"], label=["human: significant", "human: no difference"])
        agree, contra = mv == hv, (hv != 0) & (mv == -hv)
        axes[k, 1].hist([d[agree], d[~agree & ~contra], d[contra]], bins=bins, stacked=True,
                        histtype="stepfilled", color=["tab:green", "tab:orange", "tab:red"],
                        label=["agree", "disagree", "contradict"])
        safe = vd.safe_difference(v, h)
        axes[k, 0].set_title(f"{name}: by human significance", fontsize=9)
        axes[k, 1].set_title(f"{name}: by agreement with humans", fontsize=9)
        for ax in axes[k]:
            ax.set_xlabel("mean score difference (human-preferred minus other)", fontsize=8)
            ax.legend(fontsize=7)
            if not math.isnan(safe) and safe > 0:
                for s in (-safe, safe):
                    ax.axvline(s, color="black", linestyle=":", linewidth=0.8)
        axes[k, 0].set_ylabel("pairs")
    fig.suptitle(f"Metric score differences of every pair ({comb}); dotted: no contradiction beyond")
    fig.tight_layout()
    figures.save(fig, png, svg)
