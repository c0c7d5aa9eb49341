"""Across data sets: one verdict from several data sets (results/all/).

For one human combination (``across.combination``, e.g. coverage) and every variant computed on
every data set that has that combination:

* its system-level Pearson r (with the data set's bootstrap interval), Spearman rho and Kendall tau
  per data set side by side, its rank among the common variants per data set (1 = highest r), the
  mean rank, and on how many data sets it is *beaten* - some other common variant correlates
  significantly more strongly (the data set's one-sided test, p < alpha: the statistics job's
  permutation test when it runs for this combination (``statistics.optimal: permutation``, or the
  combination listed in ``statistics.combinations``), else Williams') - and so whether
  it is *robustly optimal* (beaten on at most ``beaten_at_most`` data sets);
* a replicability analysis (:mod:`metaeval.stats.replicability`, Dror et al. 2017) of "A correlates
  better than B" for every ordered pair of the compared variants (``across.variants`` and the
  ``top`` variants by mean rank): each data set's p-value of that test, the partial conjunction
  p-values, the estimated number of data sets where A is better, and those data sets named;
* the variants left out (not computed on every data set) and the data sets left out (without the
  combination), each with the reason; a heat map of ranks and a forest plot of the top variants'
  r with intervals per data set; and a report that states the answer first.

load (each data set's correlations.tsv and p-value matrix) -> :func:`compute` (:class:`Across`) ->
:func:`write`.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import figures, tables
from ..files import write_text
from ..records import AcrossOptions
from ..pages import figure_html, page, table_html
from ..stats.core import ranks
from ..stats.replicability import replicability
from ..tables import NA
from .correlation_tables import matrix_p

CORRELATION_KEYS = ("pearson", "pearson_lo", "pearson_hi", "spearman", "kendall")


@dataclass
class Pair:
    a: str
    b: str
    p: list[float]             # per compared data set (NaN: the test was undefined there)
    datasets: list[str]        # the data sets with a defined p
    pc: list[float]            # partial conjunction p-values p^1..p^N over those
    k_hat: int
    holds_on: list[str]


@dataclass
class Across:
    combination: str
    datasets: list[str]                    # the data sets compared
    skipped: list[tuple[str, str]]         # (data set, reason)
    variants: list[str]                    # the common variants, by mean rank
    values: dict[str, np.ndarray]          # CORRELATION_KEYS -> (V, D)
    rank: np.ndarray                       # (V, D), NaN where r is undefined
    beaten: np.ndarray                     # (V, D) bool
    tested: np.ndarray                     # (V, D) bool: in that data set's p-value matrix
    excluded: list[tuple[str, str]]        # (variant, reason)
    compared: list[str]
    pairs: list[Pair]
    options: AcrossOptions

    @property
    def mean_rank(self) -> np.ndarray:
        return _mean_rank(self.rank)

    @property
    def beaten_on(self) -> np.ndarray:
        return self.beaten.sum(axis=1)

    @property
    def defined_on(self) -> np.ndarray:
        """On how many data sets the variant's r is defined (and so ranked)."""
        return (~np.isnan(self.rank)).sum(axis=1)

    @property
    def robust(self) -> np.ndarray:
        """Beaten on at most ``beaten_at_most`` data sets, with a verdict on every one of them: its r
        defined (an NA r is not ranked, so it is no verdict) and tested there."""
        return ((self.beaten_on <= self.options.beaten_at_most) & self.tested.all(axis=1)
                & (self.defined_on == len(self.datasets)))

    @property
    def test_name(self) -> str:
        return ("the statistics job's permutation test" if self.options.tests == "permutation"
                else "Williams test")


# ----------------------------------------------------------------------------- loading

def load(correlations: Mapping[str, str], williams: Mapping[str, str], combination: str
         ) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
    """Per data set: its correlation rows of ``combination`` (indexed by variant) and its Williams
    matrix of that combination (indexed by variant; empty when it has none)."""
    corr, will = {}, {}
    for d, path in correlations.items():
        f = tables.read_tsv(path, numeric=CORRELATION_KEYS)
        corr[d] = f[f["combination"] == combination].set_index("variant")
        w = tables.read_tsv(williams[d])
        will[d] = w.set_index("variant") if len(w.columns) > 1 else pd.DataFrame()
    return corr, will


# ----------------------------------------------------------------------------- computing

def _mean_rank(rank: np.ndarray) -> np.ndarray:
    """Each variant's mean rank over the data sets where its r is defined."""
    with np.errstate(all="ignore"):
        return np.nanmean(rank, axis=1)


def _ranks(r: np.ndarray) -> np.ndarray:
    """Rank 1 = highest r per column; ties share the lower rank (competition ranking,
    :func:`metaeval.stats.core.ranks`); NaN stays NaN (sorted last, it outranks no defined r)."""
    return np.where(np.isnan(r), np.nan, ranks(-r, axis=0, method="min"))


def compute(corr: Mapping[str, pd.DataFrame], will: Mapping[str, pd.DataFrame], options: AcrossOptions) -> Across:
    datasets, skipped = [], []
    for d in options.datasets:
        if len(corr[d]) == 0:
            skipped.append((d, f"no human combination {options.combination!r} (its human components lack it)"))
        elif corr[d]["pearson"].isna().all():
            skipped.append((d, "no system-level correlation is defined (fewer than 3 systems or constant human "
                               "scores); its own report answers at the summary level"))
        else:
            datasets.append(d)
    present = {d: set(corr[d].index) for d in datasets}
    # a data set that shares no variant with the others (a score-only data set has only its own
    # file metrics) cannot be ranked beside them: the one sharing least is left out until some is common
    while len(datasets) > 1 and not set.intersection(*present.values()):
        shared = {d: sum(len(present[d] & present[e]) for e in datasets if e != d) for d in datasets}
        worst = min(datasets, key=lambda d: (shared[d], d))
        skipped.append((worst, "shares no variant with the other data sets (e.g. a score-only data set, whose "
                               "metrics are its own score files)"))
        datasets.remove(worst)
        del present[worst]
    every = set.intersection(*present.values()) if present else set()
    order = list(dict.fromkeys(v for d in datasets for v in corr[d].index))
    common = [v for v in order if v in every]
    excluded = [(v, "not computed on " + ", ".join(d for d in datasets if v not in present[d])
                 + " (compared where it is computed: leaderboard.tsv)") for v in order if v not in every]
    values = {k: np.array([[corr[d].loc[v, k] for d in datasets] for v in common], dtype=np.float64).reshape(
        len(common), len(datasets)) for k in CORRELATION_KEYS}
    rank = _ranks(values["pearson"])
    beaten = np.zeros(rank.shape, dtype=bool)
    tested = np.zeros(rank.shape, dtype=bool)     # the variant has a row in the data set's p-value matrix
    for j, d in enumerate(datasets):
        w = will[d]
        if w.empty or not common:
            continue
        tested[:, j] = [v in w.index for v in common]
        sub = w.reindex(index=common, columns=common)
        p = np.array([tables.to_float(sub[c]) for c in common]).T          # p[u, v]: u beats v
        np.fill_diagonal(p, np.nan)
        beaten[:, j] = np.any(p < options.alpha, axis=0)
    # the variants in order of mean rank (ties in the given order); a variant whose r is NA on some
    # data set (constant there) comes after those ranked on every one, whatever its mean rank elsewhere
    by_mean = np.lexsort((np.nan_to_num(_mean_rank(rank), nan=np.inf), np.isnan(rank).sum(axis=1)))
    variants = [common[i] for i in by_mean]
    for v in options.variants:
        if v not in every:
            excluded.append((v, "named in across.variants but " + (
                "not computed on " + ", ".join(d for d in datasets if v not in present[d]) if v in order
                else "computed on none of the data sets")))
    compared = list(dict.fromkeys([*(v for v in options.variants if v in every), *variants[:options.top]]))
    pairs = [_pair(a, b, datasets, will, options) for a in compared for b in compared if a != b]
    return Across(options.combination, datasets, skipped, variants, {k: v[by_mean] for k, v in values.items()},
                  rank[by_mean], beaten[by_mean], tested[by_mean], excluded, compared, pairs, options)


def _pair(a: str, b: str, datasets: Sequence[str], will: Mapping[str, pd.DataFrame], options: AcrossOptions) -> Pair:
    p = [matrix_p(will[d], a, b) for d in datasets]
    defined = [(d, x) for d, x in zip(datasets, p) if not math.isnan(x)]
    if not defined:
        return Pair(a, b, p, [], [], 0, [])
    rep = replicability([x for _, x in defined], options.alpha, options.method)
    return Pair(a, b, p, [d for d, _ in defined], rep.pc.tolist(), rep.k_hat, [defined[i][0] for i in rep.holds_on])


# ----------------------------------------------------------------------------- every target

TARGET_COLUMNS = ("target", "datasets", "best", "mean_rank", "variants", "robustly_optimal", "robust_variants",
                  "left_out")


def load_frames(correlations: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """Each data set's correlations.tsv (numeric columns as floats), read once for every target."""
    return {d: tables.read_tsv(path, numeric=CORRELATION_KEYS) for d, path in correlations.items()}


def shared_targets(frames: Mapping[str, pd.DataFrame]) -> list[str]:
    """The targets (same name) of two or more data sets, in the order they first appear."""
    seen: dict[str, int] = {}
    for f in frames.values():
        for t in dict.fromkeys(f["combination"]):
            seen[t] = seen.get(t, 0) + 1
    return [t for t, n in seen.items() if n >= 2]


def by_target(frames: Mapping[str, pd.DataFrame], williams_of, options: AcrossOptions) -> list[dict[str, object]]:
    """The verdict across data sets for every shared target (Williams tests; ``williams_of(d, target)``
    gives a data set's table of a target, or None): the variant with the best mean rank and the
    robustly optimal ones."""
    rows = []
    for target in shared_targets(frames):
        corr = {d: f[f["combination"] == target].set_index("variant") for d, f in frames.items()}
        will = {}
        for d in frames:
            w = williams_of(d, target)
            will[d] = w.set_index("variant") if w is not None and len(w.columns) > 1 else pd.DataFrame()
        r = compute(corr, will, options._replace(combination=target, tests="williams"))
        robust = [v for v, ok in zip(r.variants, r.robust) if ok]
        rows.append({"target": target, "datasets": ",".join(r.datasets), "best": r.variants[0] if r.variants else NA,
                     "mean_rank": float(r.mean_rank[0]) if r.variants else math.nan, "variants": len(r.variants),
                     "robustly_optimal": len(robust), "robust_variants": ",".join(robust[:10]),
                     "left_out": "; ".join(f"{d}: {why}" for d, why in r.skipped)})
    return rows


def targets_table(rows: Sequence[Mapping[str, object]]) -> tuple[str, list[str], list[list[str]]]:
    caption = ("The verdict across data sets for every target two or more data sets share (by name): the variant with "
               "the best mean rank of Pearson r over the data sets, and the robustly optimal variants (significantly "
               "beaten, Williams test, on at most across.beaten_at_most data sets; the first 10 shown).")
    body = [[str(r["target"]), str(r["datasets"]).replace(",", ", "), str(r["best"]), tables.fixed(r["mean_rank"], 1),
             f"{r['robustly_optimal']} of {r['variants']}", str(r["robust_variants"]).replace(",", ", ")] for r in rows]
    return caption, ["target", "data sets", "best by mean rank", "mean rank", "robustly optimal", "the first of them"], body


def write_targets(rows: Sequence[Mapping[str, object]], out: Mapping[str, str]) -> None:
    tables.write_tsv(tables.frame(list(rows), TARGET_COLUMNS), out["targets_tsv"])
    tables.write_markdown(out["targets_md"], *targets_table(rows))


# ----------------------------------------------------------------------------- writing

def variants_frame(r: Across) -> pd.DataFrame:
    cols = {"variant": r.variants, "mean_rank": r.mean_rank, "beaten_on": r.beaten_on,
            "robustly_optimal": np.where(r.robust, "yes", "no")}
    for j, d in enumerate(r.datasets):
        for k in CORRELATION_KEYS:
            cols[f"{k}_{d}"] = r.values[k][:, j]
        cols[f"rank_{d}"] = r.rank[:, j]
        cols[f"beaten_{d}"] = np.where(~r.tested[:, j], "NA", np.where(r.beaten[:, j], "yes", "no"))
    return pd.DataFrame(cols)


def _fmt_rank(x: float) -> str:
    return "NA" if math.isnan(x) else str(int(x))


def variants_table(r: Across, limit: int | None = None) -> tuple[str, list[str], list[list[str]]]:
    rows = []
    for i, v in enumerate(r.variants[:limit]):
        cells = [f"{tables.fixed(r.values['pearson'][i, j])} ({_fmt_rank(r.rank[i, j])}"
                 f"{', beaten' if r.beaten[i, j] else '' if r.tested[i, j] else ', untested'})" for j in range(len(r.datasets))]
        rows.append([str(i + 1), v, tables.fixed(r.mean_rank[i], 1), *cells, str(len(r.datasets) - r.beaten_on[i]),
                     "yes" if r.robust[i] else ""])
    caption = (f"Every variant computed on all {len(r.datasets)} data sets ({r.combination}), by mean rank: Pearson r "
               "with the human scores per data set (rank among these variants; 'beaten' = another variant correlates "
               f"significantly more strongly there, {r.test_name} p < {r.options.alpha}; 'untested' = not among the "
               "variants that test covers), the number of data sets where "
               f"it is not beaten, and whether it is robustly optimal (beaten on at most {r.options.beaten_at_most}).")
    return caption, ["#", "variant", "mean rank", *r.datasets, "not beaten on", "robustly optimal"], rows


def replicability_table(r: Across) -> tuple[str, list[str], list[list[str]]]:
    rows = [[p.a, p.b, *(tables.fixed(x, 4) for x in p.p), f"{p.k_hat} of {len(p.datasets)}",
             ", ".join(p.holds_on) or "none"] for p in r.pairs]
    caption = (f"Replicability (Dror et al. 2017, partial conjunction, {r.options.method}, alpha = {r.options.alpha}): "
               f"for each ordered pair, the one-sided p-value ({r.test_name}) of 'A correlates better than B' on each data set, "
               "the estimated number of data sets where it holds, and those data sets.")
    return caption, ["A", "B", *(f"p {d}" for d in r.datasets), "holds on", "data sets"], rows


def write(r: Across, out: Mapping[str, str], targets: Sequence[Mapping[str, object]] = (),
          leaderboard_html: str = "", opening: str = "") -> None:
    tables.write_tsv(variants_frame(r), out["variants_tsv"])
    tables.write_markdown(out["variants_md"], *variants_table(r))
    pc_n = len(r.datasets)
    rows = [(p.a, p.b, *p.p, *(p.pc + [math.nan] * (pc_n - len(p.pc))), len(p.datasets), p.k_hat,
             ",".join(p.holds_on)) for p in r.pairs]
    tables.write_tsv(tables.frame(rows, ("variant_a", "variant_b", *(f"p_{d}" for d in r.datasets),
                                         *(f"partial_conjunction_{u}" for u in range(1, pc_n + 1)),
                                         "datasets", "k_hat", "holds_on")), out["replicability_tsv"])
    tables.write_markdown(out["replicability_md"], *replicability_table(r))
    notes = [("dataset", d, why) for d, why in r.skipped] + [("variant", v, why) for v, why in r.excluded]
    tables.write_tsv(tables.frame(notes, ("kind", "name", "reason")), out["excluded"])
    figure_ranks(r, out["ranks_png"], out["ranks_svg"])
    figure_forest(r, out["forest_png"], out["forest_svg"])
    write_targets(targets, out)
    write_text(out["report"], report_html(r, out, targets, leaderboard_html, opening))


def forest_variants(r: Across, top: int = 10) -> list[str]:
    """The variants of the forest plot: the top by mean rank and the compared ones."""
    return list(dict.fromkeys([*r.variants[:top], *r.compared]))


def figure_ranks(r: Across, png: str, svg: str, top: int = 30) -> None:
    plt = figures.pyplot()
    shown = r.variants[:top]
    fig, ax = plt.subplots(figsize=(2.5 + 1.1 * max(1, len(r.datasets)), 1.2 + 0.28 * max(1, len(shown))))
    if shown and r.datasets:
        grid = r.rank[:len(shown)]
        im = ax.imshow(grid, cmap="viridis_r", aspect="auto")
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                ax.text(j, i, _fmt_rank(grid[i, j]), ha="center", va="center", fontsize=7,
                        color="white" if not math.isnan(grid[i, j]) and grid[i, j] > np.nanmax(grid) / 2 else "black")
        ax.set_xticks(range(len(r.datasets)), r.datasets, rotation=30, ha="right")
        ax.set_yticks(range(len(shown)), shown, fontsize=7)
        fig.colorbar(im, ax=ax, label="rank (1 = highest r)")
    else:
        ax.text(0.5, 0.5, "no variant is computed on every data set", ha="center", transform=ax.transAxes)
    ax.set_title(f"Ranks of the top {len(shown)} variants by mean rank ({r.combination})")
    figures.save(fig, png, svg)


def figure_forest(r: Across, png: str, svg: str) -> None:
    plt = figures.pyplot()
    shown = forest_variants(r)
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.32 * max(1, len(shown))))
    index = {v: i for i, v in enumerate(r.variants)}
    offsets = np.linspace(-0.3, 0.3, max(1, len(r.datasets)))
    for j, d in enumerate(r.datasets):
        y = np.arange(len(shown)) + offsets[j]
        rows = [index[v] for v in shown]
        x = r.values["pearson"][rows, j]
        lo, hi = r.values["pearson_lo"][rows, j], r.values["pearson_hi"][rows, j]
        err = np.nan_to_num(figures.error_bars(x, lo, hi, f"forest figure, {d}"), nan=0.0)
        ax.errorbar(x, y, xerr=err, fmt="o", ms=3, capsize=2, label=d)
    ax.set_yticks(range(len(shown)), shown, fontsize=7)
    ax.invert_yaxis()
    ax.axvline(0, color="#999", lw=0.6)
    ax.set_xlabel(f"Pearson r with {r.combination} (95% bootstrap interval)")
    if r.datasets:
        ax.legend(fontsize=7, loc="lower left")
    ax.set_title("Top variants and the compared ones, per data set")
    figures.save(fig, png, svg)


def verdict_html(r: Across) -> str:
    """The opening verdict across data sets, in plain words."""
    if not r.datasets or not r.variants:
        return ('<p class="answer">No variant is computed on every compared data set, so there is no verdict '
                "(see the excluded variants).</p>")
    best = r.variants[0]
    robust = [v for v, ok in zip(r.variants, r.robust) if ok]
    k = r.options.beaten_at_most
    text = (f"Across {len(r.datasets)} data sets ({', '.join(html.escape(d) for d in r.datasets)}; {r.combination}), "
            f"the variant with the best mean rank is <b>{html.escape(best)}</b> (mean rank {tables.fixed(r.mean_rank[0], 1)} "
            f"of {len(r.variants)}). ")
    text += (f"Robustly optimal (significantly beaten on {'no data set' if k == 0 else f'at most {k} data sets'}): "
             + (", ".join(html.escape(v) for v in robust[:12]) + (f" and {len(robust) - 12} more" if len(robust) > 12
                                                                  else "") if robust else "none") + ".")
    named = [p for p in r.pairs if p.a in r.options.variants and p.b in r.options.variants]
    everywhere = [p for p in named if p.datasets and p.k_hat == len(r.datasets)]
    strongest = sorted((p for p in named if p.k_hat >= 2 and p not in everywhere), key=lambda p: -p.k_hat)[:4]
    if named:
        text += (" Among the compared variants (across.variants), " + (
            "; ".join(f"{html.escape(p.a)} &gt; {html.escape(p.b)}" for p in everywhere) + " on every data set"
            if everywhere else "no difference holds on every data set"))
        if strongest:
            text += "; the most replicated: " + "; ".join(
                f"{html.escape(p.a)} &gt; {html.escape(p.b)} on {p.k_hat} of {len(p.datasets)} "
                f"({html.escape(', '.join(p.holds_on))})" for p in strongest)
        text += " (replicability analysis below)."
    return f'<p class="answer">{text}</p>'


def report_html(r: Across, out: Mapping[str, str], targets: Sequence[Mapping[str, object]] = (),
                leaderboard_html: str = "", opening: str = "") -> str:
    """results/all/report.html: the ``opening`` (the leaderboard's verdict on each focus metric), the
    leaderboard (every metric per benchmark, target and level), the verdict and the forest plot first,
    then every table and figure."""
    cap, header, rows = variants_table(r)
    tcap, theader, trows = targets_table(targets)
    rcap, rheader, rrows = replicability_table(r)
    notes = [["data set", d, why] for d, why in r.skipped] + [["variant", v, why] for v, why in r.excluded]
    lead = [opening, f'<h2 id="leaderboard">Leaderboard</h2>{leaderboard_html}<h2>The verdict across data sets</h2>'
            if leaderboard_html else "", verdict_html(r),
            f'<p class="caption">{html.escape(tcap)}</p>{table_html(theader, trows)}' if trows else "",
            figure_html(out["forest_png"], "Pearson r with 95% bootstrap intervals of the top "
                                                             "variants and the compared ones, per data set.")]
    sections = [("Variants across data sets", f'<p class="caption">{html.escape(cap)}</p>{table_html(header, rows)}'
                 + figure_html(out["ranks_png"], "Rank of the top variants (by mean rank) on each data set.")),
                ("Replicability of differences", f'<p class="caption">{html.escape(rcap)}</p>{table_html(rheader, rrows)}'),
                ("Left out", table_html(["kind", "name", "reason"], notes) if notes else "<p>Nothing was left out.</p>")]
    return page("metaeval: across data sets", "Which metric to trust across data sets?", lead, sections)
