"""What the field asks of a judge (results/{dataset}/judges/), per judge x dimension, beside every
metric (docs/judges.md; the statistics: :mod:`metaeval.stats.judges`).

* ``per_system.tsv``: for every per-summary metric (ROUGE, BLEU, chrF, SERA, score files, the
  judges) and every dimension (a judge only on the dimension it was asked about), each system's
  Spearman, Pearson and Kendall correlation with the experts over its summaries, and the
  system's quality (its experts' mean);
* ``meta_correlation.tsv``: the meta-correlation of those per-system correlations with the systems'
  quality (LLM_summeval's calc_meta_corr.py), with p-values, and the system-level Pearson r of
  the metric's and the experts' system means (over the summaries both score);
* ``pairwise.tsv``: per judge x dimension x pair of systems and pooled ("all"): agreement with the
  experts' preference in each order and over both (with Wilson intervals), without ties, Cohen's
  kappa, position consistency and position bias;
* ``head_to_head.tsv``: calc_h2h_pairs.py's verdict per pair, and the pairs it gets right;
* ``alt_test.tsv``: the alternative annotator test against the experts (neg_rmse at ``epsilon``);
* ``self_agreement.tsv``: a judge scored in several samples: the variance across samples and
  Krippendorff's alpha over them;
* ``disagreements.tsv``: the summaries where a judge and the experts differ most;
* ``judges.md`` (a table per dimension, and a table of the self-agreement when a judge was scored
  in several samples) and ``figure_per_system`` (each judge's per-system correlation against system
  quality, the paper's figure).

The experts are the annotations of ``expert_group`` (SummEval's three experts); a data set without
them compares with its human score of the dimension. load -> :func:`compute` -> :func:`write`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from .. import figures, tables
from ..files import write_text
from ..data.judges import metric_id
from ..records import JudgesOptions
from ..stats import agreement_alpha
from ..stats import judges as sj
from . import analysis_inputs
from .analysis_inputs import AnalysisInputs

PER_SYSTEM_COLUMNS = ("metric", "dimension", "system", "quality", "summaries", "spearman", "pearson", "kendall")
META_COLUMNS = ("metric", "dimension", "judge", "systems", "spearman", "spearman_p", "pearson", "pearson_p", "kendall",
                "kendall_p", "system_r")
PAIRWISE_COLUMNS = ("judge", "dimension", "pair", "items", "agreement_ab", "agreement_ba", "agreement", "lo", "hi",
                    "agreement_without_ties", "items_without_ties", "kappa", "consistency", "consistency_lo",
                    "consistency_hi", "first_shown", "decided", "failures")
H2H_COLUMNS = ("judge", "dimension", "pair", "items", "judge_wins", "expert_wins", "correct")
ALT_COLUMNS = ("judge", "dimension", "items", "annotators", "epsilon", "winning_rate", "advantage_probability", "passed")
SELF_COLUMNS = ("judge", "dimension", "summaries", "samples", "variance", "alpha")
DISAGREE_COLUMNS = ("judge", "dimension", "topic", "summarizer", "judge_score", "expert_mean", "difference")
FIGURE_CAPTION = ("Each judge's per-system Spearman correlation with the experts (over a system's summaries) against "
                  "the system's quality (its experts' mean score), one panel per dimension: a line falling to the "
                  "right is a judge that agrees less with the experts the better the systems (Shen et al. 2023, "
                  "Fig. 2). The meta-correlation column of the table above is that slope's rank correlation.")
SELF_AGREEMENT_CAPTION = ("Self-agreement of the judges scored in several samples per summary: the variance "
                          "across samples (of a summary's samples' scores, ddof 1, averaged over the summaries with "
                          "two or more) and Krippendorff's interval α over samples (the samples as coders, the "
                          "summaries as units; 1: every sample gives the same score).")
DISAGREEMENTS_CAPTION = ("The summaries where each judge and the experts differ most: the judge's score minus the "
                         "experts' mean (both on the dimension's scale), the largest differences first.")


@dataclass
class JudgesInputs:
    analysis: AnalysisInputs
    parse: pd.DataFrame
    samples: pd.DataFrame
    choices: pd.DataFrame
    experts: dict[str, dict[str, dict[tuple[str, str], float]]]   # dimension -> annotator -> (topic, summarizer) -> score


@dataclass
class JudgesResult:
    per_system: list[list] = field(default_factory=list)
    meta: list[list] = field(default_factory=list)
    pairwise: list[list] = field(default_factory=list)
    head_to_head: list[list] = field(default_factory=list)
    alt_test: list[list] = field(default_factory=list)
    self_agreement: list[list] = field(default_factory=list)
    disagreements: list[list] = field(default_factory=list)
    parse: list[list] = field(default_factory=list)
    figure: dict = field(default_factory=dict)   # (judge, dimension) -> [(quality, spearman)] per system


def load(inputs: Mapping[str, str], options: JudgesOptions) -> JudgesInputs:
    inp = analysis_inputs.load_named(inputs, "systems")
    ann = tables.read_tsv(inputs["annotations"], numeric=["score"])
    experts: dict = {}
    for row in ann[ann["group"] == options.expert_group].itertuples(index=False):
        experts.setdefault(row.dimension, {}).setdefault(row.annotator, {})[(row.topic, row.summarizer)] = row.score
    return JudgesInputs(inp, tables.read_tsv(inputs["parse"], numeric=["failure_rate"],
                                             integer=["responses", "failures", "duplicates"]),
                        tables.read_tsv(inputs["samples"]), tables.read_tsv(inputs["choices"]), experts)


def _judge_metrics(parse: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """metric id -> (judge name, dimension) of every pointwise judge x dimension."""
    out = {}
    for judge, dim in zip(parse["judge"], parse["dimension"]):
        name, _, method = judge.partition(":")
        out[metric_id(name, method, dim)] = (judge, dim)
    return out


def expert_grid(inp: JudgesInputs, dimension: str) -> np.ndarray:
    """The experts' mean of each (system, topic) on a dimension (NaN where none), or the data set's
    human score of it when it has no such annotators."""
    ps = inp.analysis.per_summary
    by_annotator = inp.experts.get(dimension)
    if not by_annotator:
        return ps.human.get(dimension, np.full((len(ps.summarizers), len(ps.topics)), np.nan))
    grid = np.full((len(ps.summarizers), len(ps.topics)), np.nan)
    t_index = {t: j for j, t in enumerate(ps.topics)}
    for i, s in enumerate(ps.summarizers):
        for t, j in t_index.items():
            values = [a[(t, s)] for a in by_annotator.values() if (t, s) in a]
            if values:
                grid[i, j] = sum(values) / len(values)
    return grid


def _per_system(inp: JudgesInputs, result: JudgesResult, dims: list[str], judge_metrics: Mapping[str, tuple]) -> dict:
    """Per-system correlations and meta-correlations of every metric x dimension; returns the judges'
    (metric, dimension) -> per-system rows for the figure."""
    ps = inp.analysis.per_summary
    for_figure = {}
    for dim in dims:
        human = expert_grid(inp, dim)
        names = [m for m in ps.metrics if judge_metrics.get(m) is None or judge_metrics[m][1] == dim]
        if not names:
            continue
        stack = np.stack([ps.metrics[m] for m in names])          # metric x system x topic
        corrs = np.full((len(names), len(ps.summarizers), 3), math.nan)
        for i in range(len(ps.summarizers)):
            both = ~np.isnan(stack[:, i]) & ~np.isnan(human[i])  # metric x topic
            # the metrics scoring the same summaries of the system correlated together
            patterns, which = np.unique(both, axis=0, return_inverse=True)
            for p, mask in enumerate(patterns):
                if mask.any():
                    rows = np.flatnonzero(which.reshape(-1) == p)
                    corrs[rows, i] = sj.per_system_correlations_many(human[i][mask], stack[rows][:, i][:, mask])
        for k, metric in enumerate(names):
            judge, grid = judge_metrics.get(metric), ps.metrics[metric]
            per, quality, rows = [], [], []
            sys_m, sys_h = [], []
            for i, system in enumerate(ps.summarizers):
                both = ~np.isnan(grid[i]) & ~np.isnan(human[i])
                if both.sum() == 0:
                    continue
                c = sj.Correlations(*(float(x) for x in corrs[k, i]))
                q = float(np.mean(human[i][~np.isnan(human[i])]))
                per.append(c)
                quality.append(q)
                sys_m.append(float(np.mean(grid[i][both])))
                sys_h.append(float(np.mean(human[i][both])))
                rows.append([metric, dim, system, q, int(both.sum()), *c])
            if not rows:
                continue
            result.per_system.extend(rows)
            m = sj.meta_correlation(per, quality)
            system_r = (float(np.corrcoef(sys_m, sys_h)[0, 1]) if len(sys_m) >= 3 and np.ptp(sys_m) > 0
                        and np.ptp(sys_h) > 0 else math.nan)
            result.meta.append([metric, dim, judge[0] if judge else "", m.systems, m.spearman, m.spearman_p, m.pearson,
                                m.pearson_p, m.kendall, m.kendall_p, system_r])
            if judge:
                for_figure[(judge[0], dim)] = [(r[3], r[5]) for r in rows]
    return for_figure


def _pairwise(inp: JudgesInputs, options: JudgesOptions, result: JudgesResult) -> None:
    ps = inp.analysis.per_summary
    s_index = {s: i for i, s in enumerate(ps.summarizers)}
    t_index = {t: j for j, t in enumerate(ps.topics)}
    ch = inp.choices
    if ch.empty:
        return
    grids = {}
    for (judge, dim), group in ch.groupby(["judge", "dimension"], sort=True):
        if dim not in grids:
            grids[dim] = expert_grid(inp, dim)
        human = grids[dim]
        per_pair: dict[str, dict] = {}
        for row in group.itertuples(index=False):
            pair = f"{row.summarizer_a}-{row.summarizer_b}"
            d = per_pair.setdefault(pair, {"ab": {}, "ba": {}, "pos": {"ab": {}, "ba": {}}, "failures": 0, "experts": {}})
            if not row.choice:
                d["failures"] += 1
                continue
            d[row.order][row.topic] = row.choice
            d["pos"][row.order][row.topic] = row.position
            i, k, j = s_index.get(row.summarizer_a), s_index.get(row.summarizer_b), t_index.get(row.topic)
            if None not in (i, k, j) and not (np.isnan(human[i, j]) or np.isnan(human[k, j])):
                d["experts"][row.topic] = sj.preference(human[i, j], human[k, j])
        pooled = PairChoices()
        correct = 0
        for pair in sorted(per_pair):
            d = per_pair[pair]
            e = d["experts"]
            ab = [t for t in sorted(d["ab"]) if t in e]
            ba = [t for t in sorted(d["ba"]) if t in e]
            both = [t for t in ab if t in d["ba"]]
            c = PairChoices([d["ab"][t] for t in ab], [e[t] for t in ab], [d["ba"][t] for t in ba], [e[t] for t in ba],
                            [d["ab"][t] for t in both], [d["ba"][t] for t in both],
                            [d["pos"]["ab"][t] for t in ab] + [d["pos"]["ba"][t] for t in ba], d["failures"])
            result.pairwise.append([judge, dim, pair, len(both), *_pair_stats(c, options.confidence)])
            if both:
                h = sj.head_to_head(c.cons_x, c.cons_y, [e[t] for t in both])
                result.head_to_head.append([judge, dim, pair, h.items, h.judge_wins, h.expert_wins, h.correct])
                correct += h.correct
            pooled.add(c)
        result.pairwise.append([judge, dim, "all", len(pooled.cons_x), *_pair_stats(pooled, options.confidence)])
        pairs = sum(1 for r in result.head_to_head if r[0] == judge and r[1] == dim)
        result.head_to_head.append([judge, dim, "all", pairs, math.nan, math.nan, f"{correct}/{pairs}"])


@dataclass
class PairChoices:
    """A judge's readable choices on the items the experts decide, of one pair of systems or pooled:
    shown in order ab and the experts' preferences on those items, the same in order ba, the choices
    of the items judged in both orders (ab's, then ba's), the first-shown positions chosen, and the
    responses no rule reads."""
    ab: list = field(default_factory=list)
    e_ab: list = field(default_factory=list)
    ba: list = field(default_factory=list)
    e_ba: list = field(default_factory=list)
    cons_x: list = field(default_factory=list)
    cons_y: list = field(default_factory=list)
    positions: list = field(default_factory=list)
    failures: int = 0

    def add(self, other: PairChoices) -> None:
        for name in ("ab", "e_ab", "ba", "e_ba", "cons_x", "cons_y", "positions"):
            getattr(self, name).extend(getattr(other, name))
        self.failures += other.failures


def _pair_stats(c: PairChoices, confidence: float) -> list:
    a_ab, n_ab = sj.agreement(c.ab, c.e_ab)
    a_ba, n_ba = sj.agreement(c.ba, c.e_ba)
    agree, n = a_ab + a_ba, n_ab + n_ba
    lo, hi = sj.wilson_interval(agree, n, confidence)
    nt_a, nt_n = sj.agreement(c.ab + c.ba, c.e_ab + c.e_ba, ties=False)
    k, kn = sj.position_consistency(c.cons_x, c.cons_y)
    k_lo, k_hi = sj.wilson_interval(k, kn, confidence)
    first, decided = sj.position_bias(c.positions)
    share = lambda x, m: x / m if m else math.nan  # noqa: E731
    return [share(a_ab, n_ab), share(a_ba, n_ba), share(agree, n), lo, hi, share(nt_a, nt_n), nt_n,
            sj.cohen_kappa(c.ab + c.ba, c.e_ab + c.e_ba), share(k, kn), k_lo, k_hi, share(first, decided), decided,
            c.failures]


def _judge_items(inp: JudgesInputs, metric: str) -> dict[tuple[str, str], float]:
    ps = inp.analysis.per_summary
    grid = ps.metrics[metric]
    return {(t, s): float(grid[i, j]) for i, s in enumerate(ps.summarizers) for j, t in enumerate(ps.topics)
            if not np.isnan(grid[i, j])}


def compute(inp: JudgesInputs, options: JudgesOptions) -> JudgesResult:
    result = JudgesResult()
    ps = inp.analysis.per_summary
    judge_metrics = {m: v for m, v in _judge_metrics(inp.parse).items() if m in ps.metrics}
    dims = sorted({d for _, d in judge_metrics.values()} | {d for d in inp.choices.get("dimension", [])})
    result.parse = [list(r) for r in inp.parse.itertuples(index=False)]
    result.figure = _per_system(inp, result, dims, judge_metrics)
    _pairwise(inp, options, result)
    for metric, (judge, dim) in sorted(judge_metrics.items()):
        items = _judge_items(inp, metric)
        humans = {a: {f"{t}\x1f{s}": v for (t, s), v in scores.items()} for a, scores in inp.experts.get(dim, {}).items()}
        if humans:
            at = sj.alt_test({f"{t}\x1f{s}": v for (t, s), v in items.items()}, humans, "neg_rmse", options.epsilon,
                             options.fdr)
            result.alt_test.append([judge, dim, len(items), at.annotators, options.epsilon, at.winning_rate,
                                    at.advantage_probability, bool(at.winning_rate >= 0.5)])
        human = expert_grid(inp, dim)
        s_index, t_index = {s: i for i, s in enumerate(ps.summarizers)}, {t: j for j, t in enumerate(ps.topics)}
        diffs = []
        for (t, s), v in items.items():
            h = human[s_index[s], t_index[t]]
            if not np.isnan(h):
                diffs.append((-abs(v - h), t, s, v, float(h), v - float(h)))
        for _, t, s, v, h, d in sorted(diffs)[:options.disagreements]:
            result.disagreements.append([judge, dim, t, s, v, h, d])
    if not inp.samples.empty:
        for (judge, dim), group in inp.samples.groupby(["judge", "dimension"], sort=True):
            values = [[float(x) for x in str(v).split()] for v in group["sample_values"]]
            k = max(len(v) for v in values)
            matrix = np.full((k, len(values)), np.nan)
            for j, v in enumerate(values):
                matrix[:len(v), j] = v
            result.self_agreement.append([judge, dim, len(values), k, sj.sample_variance(values),
                                          agreement_alpha.alpha(matrix, "interval")])
    return result


def _f(x, digits=3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else tables.fixed(x, digits)


def write(result: JudgesResult, options: JudgesOptions, out: Mapping[str, str]) -> None:
    tables.write_tsv(tables.frame(result.per_system, PER_SYSTEM_COLUMNS), out["per_system"])
    tables.write_tsv(tables.frame(result.meta, META_COLUMNS), out["meta"])
    tables.write_tsv(tables.frame(result.pairwise, PAIRWISE_COLUMNS), out["pairwise"])
    tables.write_tsv(tables.frame(result.head_to_head, H2H_COLUMNS), out["head_to_head"])
    tables.write_tsv(tables.frame(result.alt_test, ALT_COLUMNS), out["alt_test"])
    tables.write_tsv(tables.frame(result.self_agreement, SELF_COLUMNS), out["self_agreement"])
    tables.write_tsv(tables.frame(result.disagreements, DISAGREE_COLUMNS), out["disagreements"])
    _markdown(result, options, out["judges_md"])
    _figure(result, out["figure_png"], out["figure_svg"])


def _markdown(result: JudgesResult, options: JudgesOptions, path: str) -> None:
    """A table per dimension: each judge's parse failures, meta-correlation, system-level r,
    pairwise agreement, kappa, position consistency and bias, and the alternative annotator test;
    then, only when a judge was scored in several samples, a table of its self-agreement."""
    parse = {(r[0], r[1]): r for r in result.parse}
    meta = {(r[2], r[1]): r for r in result.meta if r[2]}
    pair = {(r[0], r[1]): r for r in result.pairwise if r[2] == "all"}
    h2h = {(r[0], r[1]): r[6] for r in result.head_to_head if r[2] == "all"}
    alt = {(r[0], r[1]): r for r in result.alt_test}
    header = ["judge", "parse failures", "duplicates", "meta ρ / r / τ", "system r", "agreement [CI]",
              "without ties", "κ", "consistency", "first shown", "pairs right", "alt-test ω / AP"]
    columns = ("Parse failures: responses no rule reads (never scored), of all; duplicates: items judged more "
               "than once. Meta ρ / r / τ: the per-system correlations with the experts correlated with the systems' "
               "quality (LLM_summeval's calc_meta_corr.py; negative: less agreement on better systems); system r: "
               "Pearson's r of the system means. Pairwise (both orders, every pair pooled): agreement with the "
               f"experts' preference ({100 * options.confidence:g} % Wilson interval), without tied items, Cohen's "
               "κ, position consistency (the same choice after the swap), the share of first-shown choices among "
               "decided ones, the pairs whose winner is the experts' (calc_h2h_pairs.py). Alt-test: the alternative "
               f"annotator test against the experts (ε = {options.epsilon:g}; passes at ω ≥ 0.5), its winning rate ω "
               "and advantage probability AP. Every metric's meta-correlation: meta_correlation.tsv.")
    blocks = []
    first = min((k[1] for k in parse), default="")
    for dim in sorted({k[1] for k in parse}):
        rows = []
        for judge in sorted(j for j, d in parse if d == dim):
            p, m, w, a = parse[(judge, dim)], meta.get((judge, dim)), pair.get((judge, dim)), alt.get((judge, dim))
            rows.append([
                judge, f"{p[3]} / {p[2]}", str(p[5]),
                " / ".join(_f(m[i]) for i in (4, 6, 8)) if m else "–", _f(m[10]) if m else "–",
                f"{_f(w[6])} [{_f(w[7])}, {_f(w[8])}]" if w else "–", _f(w[9]) if w else "–", _f(w[11]) if w else "–",
                _f(w[12]) if w else "–", _f(w[15]) if w else "–", h2h.get((judge, dim), "–"),
                f"{_f(a[5], 2)} / {_f(a[6], 2)}{' (passes)' if a[7] else ''}" if a else "–"])
        caption = f"{dim.capitalize()}. " + (columns if not blocks else f"The columns as in the {first} table.")
        blocks.append(tables.markdown_text(caption, header, rows))
    if result.self_agreement:
        blocks.append(tables.markdown_text(
            SELF_AGREEMENT_CAPTION, ["judge", "dimension", "summaries", "samples", "variance across samples",
                                     "α over samples"],
            [[judge, dim, str(n), str(k), _f(variance), _f(alpha)]
             for judge, dim, n, k, variance, alpha in result.self_agreement]))
    text = "\n\n".join(blocks) if blocks else "No judge of this data set scored a summary."
    write_text(path, text + "\n")


def _figure(result: JudgesResult, png: str, svg: str) -> None:
    plt = figures.pyplot()
    data = getattr(result, "figure", {})
    dims = sorted({d for _, d in data}) or ["(none)"]
    fig, axes = plt.subplots(1, len(dims), figsize=(3.2 * len(dims), 3.0), squeeze=False, sharey=True)
    for ax, dim in zip(axes[0], dims):
        for (judge, d), points in sorted(data.items()):
            if d != dim:
                continue
            pts = sorted(p for p in points if not math.isnan(p[1]))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, linewidth=1, label=judge)
        ax.set_title(dim)
        ax.set_xlabel("system quality (experts' mean)")
        ax.axhline(0, color="grey", linewidth=0.5)
    axes[0][0].set_ylabel("per-system Spearman ρ")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=3, fontsize=7, frameon=False)
    figures.save(fig, png, svg)
