"""Reading the score and human tables of a data set, and writing the correlation analysis
(Graham 2015 §3, §4, §6): correlations.tsv, williams_{combination}.tsv,
summary_level_correlations.tsv and notes.tsv. The statistics live in ``human``, ``correlation``
and ``williams``; this module only moves tables in and out of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from .correlation import PerSummary, bootstrap_pearson, point_correlations, summary_level
from .datasets import Dataset, atomic_write_text
from .scoring import read_bleu_stats, read_metric_scores
from .human import SummaryHuman, SystemHuman, available_combinations, components, summary_human_scores, system_human_scores
from .williams import adjust, assign_clusters, optimal, williams_matrix


def fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "NA"
    return repr(float(x))


# ----------------------------------------------------------------------------- human tables

def write_human_tables(ds: Dataset, combinations: Sequence[str], order: str, out_summary: str, out_system: str,
                       out_skipped: str) -> tuple[SummaryHuman, SystemHuman]:
    ok, skipped = available_combinations(components(ds), combinations)
    sh = summary_human_scores(ds, ok)
    sy = system_human_scores(sh, order)
    lines = ["topic\tsummarizer\tkind\tcoverage\tlinguistic_quality\t" + "\t".join(ok)]
    for i, (t, s) in enumerate(sh.keys):
        lines.append("\t".join([t, s, sh.kinds[i], fmt(sh.coverage[i]), fmt(sh.linguistic_quality[i]),
                                *(fmt(sh.combinations[c][i]) for c in ok)]))
    atomic_write_text(out_summary, "\n".join(lines) + "\n")
    lines = ["summarizer\tkind\tcombination\tscore\tn_scored\tn_judged"]
    for c in ok:
        for j, s in enumerate(sy.summarizers):
            lines.append("\t".join([s, sy.kinds[j], c, fmt(sy.scores[c][j]), str(sy.counts[c][j]), str(sy.judged[j])]))
    atomic_write_text(out_system, "\n".join(lines) + "\n")
    atomic_write_text(out_skipped, "combination\treason\n" + "".join(f"{c}\t{r}\n" for c, r in skipped.items()))
    return sh, sy


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, l.split("\t"))) for l in lines[1:]]


def _num(x: str) -> float:
    return math.nan if x in ("", "NA") else float(x)


# ----------------------------------------------------------------------------- inputs

@dataclass
class Inputs:
    systems: list[str]                       # the summarizers that enter the correlation
    kinds: list[str]                         # 'system' or 'human', per summarizer
    variants: list[str]
    system_metric: np.ndarray                # (S, V)
    combinations: list[str]
    system_human: np.ndarray                 # (S, C)
    per_summary: PerSummary
    summary_metric: dict[str, np.ndarray] = field(default_factory=dict)  # per-summary P/R/F and BLEU, (S, T)
    notes: list[tuple[str, str]] = field(default_factory=list)


def bleu_stats_by_setting(paths: Mapping[str, str]) -> dict[tuple[int, int], str]:
    """The workflow's BLEU statistics inputs, named "ST1_RS0" etc., keyed by (stem, stop)."""
    return {(int(k[2]), int(k[6])): v for k, v in paths.items() if re.fullmatch(r"ST[01]_RS[01]", k)}


def load_inputs(system_scores: str, summary_scores: str, bleu_stats: Mapping[tuple[int, int], str],
                summary_human: str, system_human: str, summarizers: str, other_scores: Sequence[str] = ()) -> Inputs:
    """Read the scoring and human tables (and the long per-summary tables of other metrics, such as
    SERA); keep the summarizers the option names ('systems' or 'all')."""
    human_rows = read_tsv(system_human)
    kinds = {r["summarizer"]: r["kind"] for r in human_rows}
    combinations = list(dict.fromkeys(r["combination"] for r in human_rows))
    keep = sorted(s for s, k in kinds.items() if summarizers == "all" or k == "system")
    s_index = {s: i for i, s in enumerate(keep)}
    sys_human = np.full((len(keep), len(combinations)), np.nan)
    for r in human_rows:
        if r["summarizer"] in s_index:
            sys_human[s_index[r["summarizer"]], combinations.index(r["combination"])] = _num(r["score"])
    values: dict[tuple[str, str], float] = {}
    seen: dict[str, None] = {}
    for r in read_tsv(system_scores):
        seen.setdefault(r["variant"])
        values[(r["summarizer"], r["variant"])] = _num(r["score"])
    variants = list(seen)
    sys_metric = np.array([[values.get((s, v), np.nan) for v in variants] for s in keep]).reshape(len(keep), len(variants))
    # per-summary grid
    srows = read_tsv(summary_human)
    topics = sorted({r["topic"] for r in srows})
    t_index = {t: i for i, t in enumerate(topics)}
    human_grid = {c: np.full((len(keep), len(topics)), np.nan) for c in combinations}
    for r in srows:
        if r["summarizer"] in s_index:
            for c in combinations:
                human_grid[c][s_index[r["summarizer"]], t_index[r["topic"]]] = _num(r[c])
    rouge: dict[tuple[str, int, int, str], np.ndarray] = {}
    summary_metric: dict[str, np.ndarray] = {}
    for r in read_tsv(summary_scores):
        s = r["summarizer"]
        if s not in s_index or r["topic"] not in t_index:
            continue
        st, rs = int(r["stem"]), int(r["stopwords_removed"])
        prfs = ("F",) if r["measure"] == "BLEU" else ("P", "R", "F")
        for prf in prfs:
            key = (r["measure"], st, rs, prf)
            if key not in rouge:
                rouge[key] = np.full((len(keep), len(topics)), np.nan)
                name = f"{r['measure']}_ST{st}_RS{rs}" + ("" if r["measure"] == "BLEU" else f"_{prf}")
                summary_metric[name] = rouge[key]
            rouge[key][s_index[s], t_index[r["topic"]]] = _num(r[prf])
    stats: dict[tuple[int, int], np.ndarray] = {}
    for (st, rs), path in bleu_stats.items():
        rows = read_bleu_stats(path)
        n_sets = 1 + max((k for _, _, k, _ in rows), default=0)
        arr = np.full((len(keep), len(topics), n_sets, 10), np.nan)
        for t, s, k, values in rows:
            if s in s_index and t in t_index:
                arr[s_index[s], t_index[t], k] = values
        stats[(st, rs)] = arr
    other: dict[str, np.ndarray] = {}
    for path in other_scores:
        for t, s, metric, value in read_metric_scores(path):
            if s in s_index and t in t_index:
                if metric not in other:
                    other[metric] = summary_metric[metric] = np.full((len(keep), len(topics)), np.nan)
                other[metric][s_index[s], t_index[t]] = value
    ps = PerSummary(keep, topics, rouge, stats, human_grid, other)
    return Inputs(keep, [kinds[s] for s in keep], variants, sys_metric, combinations, sys_human, ps, summary_metric)


# ----------------------------------------------------------------------------- the analysis

@dataclass
class CorrelationResult:
    rows: list[dict[str, object]]
    williams: dict[str, np.ndarray]          # combination -> (V, V) p-values
    notes: list[tuple[str, str]]


def analyse(inp: Inputs, samples: int, resample: str, seed: int, confidence: float, alpha: float,
            correction: str | None) -> CorrelationResult:
    notes = list(inp.notes)
    n_sys = len(inp.systems)
    V, C = len(inp.variants), len(inp.combinations)
    pear = np.full((V, C), np.nan)
    spear = np.full((V, C), np.nan)
    kend = np.full((V, C), np.nan)
    ns = np.zeros((V, C), dtype=int)
    for v in range(V):
        for c in range(C):
            pear[v, c], spear[v, c], kend[v, c], ns[v, c] = point_correlations(inp.system_metric[:, v], inp.system_human[:, c])
    for v, name in enumerate(inp.variants):
        col = inp.system_metric[:, v]
        if np.all(np.isnan(col)) or np.nanmax(col) == np.nanmin(col):
            notes.append(("constant_metric", f"{name}: the same score for every system, so its correlation is "
                                             "undefined; it is reported as NA and left out of the Williams tests"))
    lo, hi = bootstrap_pearson(inp.per_summary, inp.variants, inp.combinations, inp.system_metric, inp.system_human,
                               samples, resample, seed, confidence) if samples > 0 and n_sys >= 3 else \
        (np.full((V, C), np.nan), np.full((V, C), np.nan))
    williams: dict[str, np.ndarray] = {}
    rows: list[dict[str, object]] = []
    if n_sys < 4:
        notes.append(("williams_undefined", f"only {n_sys} summarizers: the Williams test needs at least 4 "
                                            "(n - 3 degrees of freedom); no significance tests, optimal or clusters"))
    for c, comb in enumerate(inp.combinations):
        if n_sys >= 4:
            ok = ~np.isnan(inp.system_human[:, c])
            m = inp.system_metric[ok]
            with np.errstate(invalid="ignore", divide="ignore"):
                mm = np.corrcoef(m, rowvar=False) if m.shape[0] > 1 else np.full((V, V), np.nan)
            mm = np.atleast_2d(mm)
            p = adjust(williams_matrix(pear[:, c], np.clip(mm, -1, 1), int(ok.sum())), correction)
            williams[comb] = p
            opt = optimal(p, alpha, ~np.isnan(pear[:, c]))
            order = np.array([v for v in np.argsort(-np.nan_to_num(pear[:, c], nan=-np.inf), kind="stable")
                              if not np.isnan(pear[v, c])], dtype=int)
            clusters = assign_clusters(p, order, alpha) if len(order) else np.zeros(V, dtype=int)
        else:
            williams[comb] = np.full((V, V), np.nan)
            opt, clusters = None, None
        for v, name in enumerate(inp.variants):
            defined = not np.isnan(pear[v, c])
            rows.append({
                "variant": name, "combination": comb, "n": int(ns[v, c]), "pearson": pear[v, c],
                "pearson_lo": lo[v, c], "pearson_hi": hi[v, c], "spearman": spear[v, c], "kendall": kend[v, c],
                "optimal": "NA" if opt is None or not defined else ("yes" if opt[v] else "no"),
                "cluster": "NA" if clusters is None or not defined else str(int(clusters[v])),
            })
    return CorrelationResult(rows, williams, notes)


CORRELATION_COLUMNS = ("variant", "combination", "n", "pearson", "pearson_lo", "pearson_hi", "spearman", "kendall",
                       "optimal", "cluster")


def write_correlations(result: CorrelationResult, path: str) -> None:
    lines = ["\t".join(CORRELATION_COLUMNS)]
    for r in result.rows:
        lines.append("\t".join(fmt(r[k]) if isinstance(r[k], float) else str(r[k]) for k in CORRELATION_COLUMNS))
    atomic_write_text(path, "\n".join(lines) + "\n")


def write_williams(p: np.ndarray, variants: Sequence[str], path: str) -> None:
    lines = ["variant\t" + "\t".join(variants)]
    for i, v in enumerate(variants):
        lines.append(v + "\t" + "\t".join(fmt(x) for x in p[i]))
    atomic_write_text(path, "\n".join(lines) + "\n")


def write_summary_level(inp: Inputs, path: str) -> None:
    rows = summary_level(inp.per_summary, list(inp.summary_metric), inp.summary_metric, inp.combinations)
    lines = ["level\tmetric\tcombination\ttopics\tpearson\tspearman\tkendall"]
    for name, comb, n_topics, p, s, k in rows:
        lines.append("\t".join(["summary (within topic, mean over topics)", name, comb, str(n_topics), fmt(p), fmt(s), fmt(k)]))
    atomic_write_text(path, "\n".join(lines) + "\n")


def write_notes(notes: Sequence[tuple[str, str]], path: str) -> None:
    atomic_write_text(path, "topic\tnote\n" + "".join(f"{k}\t{v}\n" for k, v in notes))


def run_correlation(system_scores: str, summary_scores: str, bleu_stats: Mapping[str, str], summary_human: str,
                    system_human: str, skipped: str, combinations: Sequence[str], summarizers: str, samples: int,
                    resample: str, seed: int, confidence: float, alpha: float, correction: str | None,
                    out_correlations: str, out_williams: Sequence[str], out_summary_level: str, out_notes: str,
                    log=None, other_scores: Sequence[str] = ()) -> CorrelationResult:
    """The whole correlation stage from the tables on disk to the tables on disk."""
    inp = load_inputs(system_scores, summary_scores, bleu_stats_by_setting(bleu_stats), summary_human, system_human,
                      summarizers, other_scores)
    if log:
        log.info("%d summarizers x %d variants x %d combinations; %d bootstrap samples (%s)", len(inp.systems),
                 len(inp.variants), len(inp.combinations), samples, resample)
    result = analyse(inp, samples, resample, seed, confidence, alpha, correction)
    skipped_reasons = {r["combination"]: r["reason"] for r in read_tsv(skipped)}
    for comb, reason in skipped_reasons.items():
        result.notes.append(("skipped_combination", f"{comb}: {reason}"))
    result.notes.append(("williams", f"Williams tests are for Pearson's r; alpha = {alpha}; "
                                     f"correction = {correction or 'none (as Graham 2015)'}"))
    write_correlations(result, out_correlations)
    for comb, path in zip(combinations, out_williams):
        if comb in result.williams:
            write_williams(result.williams[comb], inp.variants, path)
        else:
            atomic_write_text(path, "variant\n")  # skipped combination: see notes.tsv
    write_summary_level(inp, out_summary_level)
    write_notes(result.notes, out_notes)
    return result
