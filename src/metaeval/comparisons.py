"""Tables and figures of the two pairwise stages: agreement of verdicts (``agreement``) and
re-ranking (``rerank``). Reads the score and human tables, calls the statistics, writes TSV,
Markdown, PNG and SVG."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from . import agreement as ag
from . import rerank as rr
from .correlation import split_variant
from .analysis import Inputs, bleu_stats_by_setting, fmt, load_inputs, read_tsv
from .datasets import atomic_write_text
from .graham import _figure_setup, _markdown, _save, main_combination

PAIR_TYPES = ("system-system", "human-system")


def summary_metric_id(variant: str) -> str:
    """A system-level variant id -> the per-summary metric it is built from:
    R2_ST1_RS0_A_R -> R2_ST1_RS0_R; BLEU_ST0_RS0 stays; SERA5_PL_A -> SERA5_PL."""
    family, _, _ = split_variant(variant)
    parts = variant.split("_")
    if family == "bleu":
        return variant
    return "_".join(parts[:3] + parts[4:]) if family == "rouge" else "_".join(parts[:-1])


def _load(paths: Mapping[str, str], summarizers: str) -> Inputs:
    return load_inputs(paths["system_scores"], paths["summary_scores"], bleu_stats_by_setting(paths),
                       paths["summary_human"], paths["system_human"], summarizers,
                       [paths["sera"]] if paths.get("sera") else [])


# ----------------------------------------------------------------------------- agreement

def run_agreement(paths: Mapping[str, str], combinations: Sequence[str], alpha: float, min_topics: int,
                  baseline: str, out_dir: str) -> None:
    inp = _load(paths, "all")
    result = agreement_tables(inp.per_summary.human, inp.summary_metric, inp.systems, inp.kinds,
                              [c for c in combinations if c in inp.per_summary.human], alpha, min_topics,
                              summary_metric_id(baseline))
    write_agreement(result, inp.systems, out_dir)


def agreement_tables(human: Mapping[str, np.ndarray], metrics: Mapping[str, np.ndarray], summarizers: Sequence[str],
                     kinds: Sequence[str], combinations: Sequence[str], alpha: float, min_topics: int, baseline: str
                     ) -> dict:
    """Verdicts of every scorer on every pair and the agreement of every metric with every human
    combination, per pair type. Pure: arrays in, rows out."""
    ii, jj, types = ag.pair_grid(summarizers, kinds)
    types_arr = np.array(types)
    verdicts = {name: ag.paired_verdicts(grid[ii], grid[jj], alpha, min_topics)
                for name, grid in [*human.items(), *metrics.items()]}
    rows = []
    for comb in combinations:
        h = verdicts[comb]
        for pair_type in ("all", *PAIR_TYPES):
            mask = np.ones(len(ii), dtype=bool) if pair_type == "all" else types_arr == pair_type
            if not mask.any():
                continue
            base = ag.agreement(verdicts[baseline], h, mask) if baseline in verdicts else None
            for name in metrics:
                a = ag.agreement(verdicts[name], h, mask)
                z, p = ag.compare_to_baseline(a.correct, a.pairs, base.correct, base.pairs) if base else (np.nan, np.nan)
                better = "" if math.isnan(p) or p >= alpha else ("better" if z > 0 else "worse")
                rows.append({"metric": name, "combination": comb, "pair_type": pair_type, **a.__dict__,
                             "z_vs_baseline": z, "p_vs_baseline": p, "vs_baseline": better or "ns",
                             "safe_difference": ag.safe_difference(verdicts[name], h) if pair_type == "all" else np.nan})
    return {"pairs": (ii, jj, types), "verdicts": verdicts, "rows": rows, "combinations": list(combinations),
            "baseline": baseline, "alpha": alpha, "human": list(human)}


AGREEMENT_COLUMNS = ("metric", "combination", "pair_type", "pairs", "human_significant", "diff", "no_diff",
                     "contradictions", "contradiction_share", "correct", "accuracy", "accuracy_lo", "accuracy_hi",
                     "direction", "z_vs_baseline", "p_vs_baseline", "vs_baseline", "safe_difference")


def _cell(v) -> str:
    return fmt(v) if isinstance(v, float) else str(v)


def write_agreement(res: dict, summarizers: Sequence[str], out_dir: str) -> None:
    out = Path(out_dir)
    ii, jj, types = res["pairs"]
    lines = ["a\tb\tpair_type\tscorer\tn_topics\tp\tmedian_diff\tmean_diff\tverdict"]
    for name, v in res["verdicts"].items():
        for k in range(len(ii)):
            verdict = ("untestable" if math.isnan(v.verdict[k]) else
                       {1.0: "a better", -1.0: "b better", 0.0: "no difference"}[float(v.verdict[k])])
            lines.append("\t".join([summarizers[ii[k]], summarizers[jj[k]], types[k], name, str(int(v.n_topics[k])),
                                    fmt(v.p[k]), fmt(v.median_diff[k]), fmt(v.mean_diff[k]), verdict]))
    atomic_write_text(out / "verdicts.tsv", "\n".join(lines) + "\n")
    lines = ["\t".join(AGREEMENT_COLUMNS)] + ["\t".join(_cell(r[c]) for c in AGREEMENT_COLUMNS) for r in res["rows"]]
    atomic_write_text(out / "agreement.tsv", "\n".join(lines) + "\n")
    comb = main_combination(res["combinations"]) if res["combinations"] else None
    rows = [r for r in res["rows"] if r["combination"] == comb]
    present = [t for t in PAIR_TYPES if any(r["pair_type"] == t for r in rows)]
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    by = {(r["metric"], r["pair_type"]): r for r in rows}
    pct = lambda x: "NA" if isinstance(x, float) and math.isnan(x) else f"{100 * x:.1f}"  # noqa: E731
    t2 = [[m, *[f"{pct(by[(m, t)]['diff'])} / {pct(by[(m, t)]['no_diff'])} / {by[(m, t)]['contradictions']}"
                for t in present]] for m in metrics]
    atomic_write_text(out / "table2.md", f"Agreement with human verdicts ({comb}), Owczarzak et al. (2012) Table 2: "
                      "% diff (human-significant pairs the metric also finds significant, same direction) / % no diff "
                      "(human-non-significant pairs the metric also finds non-significant) / contradictions.\n\n"
                      + _markdown(["metric", *present], t2))
    t3 = [[m, *[f"{pct(by[(m, t)]['accuracy'])} [{pct(by[(m, t)]['accuracy_lo'])}, {pct(by[(m, t)]['accuracy_hi'])}]"
                f" / {pct(by[(m, t)]['direction'])} {'(' + by[(m, t)]['vs_baseline'] + ')' if by[(m, t)]['vs_baseline'] != 'ns' else ''}"
                for t in present]] for m in metrics]
    atomic_write_text(out / "table3.md", f"Accuracy of the three-way verdict with 95% CI / agreement on the direction of "
                      f"the mean difference ({comb}), Owczarzak et al. (2012) Table 3; (better)/(worse): significantly "
                      f"different from the baseline {res['baseline']} (two-proportion z-test).\n\n"
                      + _markdown(["metric", *present], t3))
    _accuracy_figure(rows, res["baseline"], comb, out / "figure_accuracy")
    _difference_figure(res, comb, out / "figure_differences")


def _accuracy_figure(rows: list[dict], baseline: str, comb: str | None, stem: Path) -> None:
    plt = _figure_setup()
    sel = [r for r in rows if r["pair_type"] == "all"]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.16 * len(sel) + 1.5), 3.8))
    if sel:
        x = np.arange(len(sel))
        acc = np.array([r["accuracy"] for r in sel], dtype=float)
        lo = np.array([r["accuracy_lo"] for r in sel], dtype=float)
        hi = np.array([r["accuracy_hi"] for r in sel], dtype=float)
        colors = ["tab:green" if r["vs_baseline"] == "better" else "tab:red" if r["vs_baseline"] == "worse" else "tab:blue"
                  for r in sel]
        ax.errorbar(x, acc, yerr=[acc - lo, hi - acc], fmt="none", ecolor="grey", elinewidth=0.8)
        ax.scatter(x, acc, c=colors, s=10, zorder=3)
        base = next((r for r in sel if r["metric"] == baseline), None)
        if base:
            ax.axhline(base["accuracy"], color="black", linestyle="--", linewidth=0.8, label=f"baseline {baseline}")
            ax.legend(loc="lower right")
        ax.set_xticks(x, [r["metric"] for r in sel], rotation=90, fontsize=6)
    ax.set_ylabel("agreement with human verdicts")
    ax.set_title(f"Agreement probability with 95% CI ({comb}); green/red: better/worse than baseline")
    _save(fig, stem)
    plt.close(fig)


def _difference_figure(res: dict, comb: str | None, stem: Path) -> None:
    plt = _figure_setup()
    rows = [r for r in res["rows"] if r["combination"] == comb and r["pair_type"] == "all"]
    best = max(rows, key=lambda r: -1 if math.isnan(r["accuracy"]) else r["accuracy"])["metric"] if rows else None
    shown = list(dict.fromkeys(m for m in (res["baseline"], best) if m in res["verdicts"]))
    fig, axes = plt.subplots(len(shown) or 1, 2, figsize=(9, 3 * max(1, len(shown))), squeeze=False)
    h = res["verdicts"].get(comb) if comb else None
    for k, name in enumerate(shown):
        v = res["verdicts"][name]
        sel = ~np.isnan(v.verdict) & ~np.isnan(h.verdict)
        d, mv, hv = v.mean_diff[sel], v.verdict[sel], h.verdict[sel]
        # orient every pair so that the human prefers (or ties to) summarizer a
        sign = np.where(h.mean_diff[sel] < 0, -1.0, 1.0)
        d, mv, hv = d * sign, mv * sign, hv * sign
        bins = np.linspace(d.min(), d.max(), 31) if len(d) and np.ptp(d) > 0 else 10
        axes[k, 0].hist([d[hv != 0], d[hv == 0]], bins=bins, stacked=True, color=["tab:blue", "lightgrey"],
                        label=["human: significant", "human: no difference"])
        agree, contra = mv == hv, (hv != 0) & (mv == -hv)
        axes[k, 1].hist([d[agree], d[~agree & ~contra], d[contra]], bins=bins, stacked=True,
                        color=["tab:green", "tab:orange", "tab:red"], label=["agree", "disagree", "contradict"])
        safe = ag.safe_difference(v, h)
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
    _save(fig, stem)
    plt.close(fig)


# ----------------------------------------------------------------------------- re-ranking

def run_rerank(paths: Mapping[str, str], combination: str, best: str, original: str, alpha: float,
               summarizers: str, out_dir: str) -> None:
    inp = _load(paths, summarizers)
    corr = read_tsv(paths["correlations"])
    available = list(dict.fromkeys(r["combination"] for r in corr))
    comb = combination if combination in available else main_combination(available)
    variant, how = rr.choose_best(corr, comb, best, original)
    out = Path(out_dir)
    col = {v: i for i, v in enumerate(inp.variants)}
    for v in (variant, original):
        if v not in col:
            raise ValueError(f"variant {v!r} is not in system_scores.tsv (known: e.g. {', '.join(inp.variants[:3])})")
    sb, so = inp.system_metric[:, col[variant]], inp.system_metric[:, col[original]]
    rb, ro = rr.ranks(sb), rr.ranks(so)
    from scipy.stats import kendalltau

    tau = float(kendalltau(sb, so, variant="b")[0]) if len(sb) > 1 else math.nan
    order = np.argsort(rb, kind="stable")
    header = ["summarizer", f"{variant} score", "rank", f"{original} score", "rank (original)", "rank change"]
    rows = [[inp.systems[i], f"{sb[i]:.5f}", str(rb[i]), f"{so[i]:.5f}", str(ro[i]), f"{ro[i] - rb[i]:+d}"] for i in order]
    atomic_write_text(out / "table3.tsv", "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    atomic_write_text(out / "table3.md", f"Graham (2015) Table 3: systems ranked by the best variant {variant} ({how}) "
                      f"and by the original {original}; Kendall tau-b between the rankings = {tau:.3f}. "
                      "Rank change > 0: the system moves up under the best variant.\n\n" + _markdown(header, rows))
    per = inp.summary_metric[summary_metric_id(variant)]
    mean_based = split_variant(variant)[2] == "A"
    normal_p, _ = rr.normality(per, alpha)
    atomic_write_text(out / "normality.tsv", "summarizer\tshapiro_wilk_p\tnormal\n" + "".join(
        f"{s}\t{fmt(p)}\t{'NA' if math.isnan(p) else ('no' if p < alpha else 'yes')}\n" for s, p in zip(inp.systems, normal_p)))
    tests, beats = rr.pairwise_tests(inp.systems, per, mean_based, alpha)
    atomic_write_text(out / "pairwise.tsv", "a\tb\ttest\tp\tn_topics\tsignificantly_better\n" + "".join(
        f"{t.a}\t{t.b}\t{t.test}\t{fmt(t.p)}\t{t.n_topics}\t{t.winner or 'none'}\n" for t in tests))
    top = rr.top_group(inp.systems, beats)
    atomic_write_text(out / "summary.tsv", "item\tvalue\n" + "".join(f"{k}\t{v}\n" for k, v in [
        ("combination", comb), ("best_variant", variant), ("chosen", how), ("original_variant", original),
        ("kendall_tau_b", fmt(tau)), ("alpha", str(alpha)), ("top_group", ",".join(top))]))
    _significance_figure([inp.systems[i] for i in order], beats[np.ix_(order, order)], variant, alpha, out / "figure4_significance")


def _significance_figure(systems: Sequence[str], beats: np.ndarray, variant: str, alpha: float, stem: Path) -> None:
    plt = _figure_setup()
    n = len(systems)
    fig, ax = plt.subplots(figsize=(1.5 + 0.3 * n, 1.5 + 0.3 * n))
    ax.imshow(np.where(beats, 1.0, np.nan), cmap="Greens", vmin=0, vmax=1.2)
    ax.set_xticks(range(n), systems, rotation=90)
    ax.set_yticks(range(n), systems)
    ax.set_xlabel("loses")
    ax.set_ylabel("wins")
    ax.set_title(f"Significant wins under {variant} (p < {alpha})")
    _save(fig, stem)
    plt.close(fig)
