"""Factual consistency: the meta-evaluation protocols of FRANK, QAGS, SummaC and Rank19,
for every per-summary metric (the built-in ROUGE / BLEU / chrF / SERA scores and the metrics of
score files alike).

Which dimensions: the dimensions the data set declares factual (dataset.yaml ``role: factual``, or a
binary, proportion or preference kind; :attr:`metaeval.data.contract.Dimension.is_factual`), but the
ablations; of them, those ``factuality.dimensions`` names when it names any (default: FRANK's
``Factuality``, QAGS's and Rank19's ``fact``, SummEval's ``consistency``). A data set without a
factual dimension gets no protocol: one note, header-only tables, and no section in the report. Each protocol applies where the data fits
and otherwise writes a note (notes.tsv):

1. Partial correlation controlling for the system (FRANK; :mod:`metaeval.stats.partial`), with
   bootstrap intervals and Williams tests between metrics: needs >= 2 systems with at least
   ``min_summaries_per_system`` summaries each, and a graded, proportion or binary dimension.
2. Error-category ablation (FRANK): for every dimension named ``<ablation_prefix><category>``
   (FRANK's ``Flip_`` fields: the factuality with that category's errors ignored), the metric's
   correlation with it, and the drop from its correlation with the full dimension
   (difference = r(full) - r(ablated), FRANK's ``ablation``): a large positive difference means the
   metric sees that category's errors.
3. Binary labels (QAGS, SummaC; :mod:`metaeval.stats.binary`): a binary dimension, or a proportion
   with the label 1 = value >= ``proportion_cutoff``: ROC AUC with a bootstrap interval, balanced
   accuracy at the threshold chosen on the validation split and applied to the test split (the
   data set's own split when its summaries carry one, else a seeded split of the topics), and
   DeLong tests between metrics' AUCs.
4. Preference pairs (Rank19; :mod:`metaeval.stats.ranking`): ranking accuracy with a
   Clopper-Pearson interval, ties apart, and exact McNemar tests between metrics.
5. Summary-level Pearson, Spearman and Kendall across all summaries by subset x split (and both
   together), with a bootstrap interval of Pearson's r.

The bootstrap intervals of 1. and 5. are most of the job's time; by default they are computed for the
``interval_metrics`` best metrics of each scope, the file metrics and the baselines, the others' are
NA with a note (``factuality.interval_metrics: all``: every metric). A metric's interval is the same
whichever others get one.

Shape: :func:`load` (the validated data set and the analysis inputs) -> :func:`compute` (pure,
returns :class:`FactualityResult`; the protocols' rows come from
:mod:`metaeval.stages.factuality_protocols`) -> :func:`write`. :func:`answer_sentence` gives the report's
answer for a factuality data set.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import tables
from ..data.contract import Dimension
from ..data.datasets import DatasetError, read_dataset
from ..figures import pyplot, save
from ..records import FactualityOptions
from ..stats.partial import NAN_PARTIAL, bootstrap_partial, bootstrap_partial_many, partial_correlation
from . import analysis_inputs, factuality_protocols as protocols
from .factuality_protocols import ALL, CORRELATED_KINDS, FactualityInputs, scopes

FACTUALITY_KINDS = ("binary", "proportion", "preference")


# ----------------------------------------------------------------------------- inputs

DATA_KEYS = ("dataset", "summaries", "judgments", "annotations")

# The note that says the protocols do not apply (the report leaves the section out and says so).
NOT_APPLICABLE = ("not applicable: the data set declares no factual dimension (dataset.yaml role: factual, or a binary, "
                  "proportion or preference kind), so the factual-consistency protocols do not apply")


def factual_dimensions(dimensions: Mapping[str, Dimension], o: FactualityOptions, ablations: Sequence[str]) -> list[str]:
    """The dimensions the protocols run on: the factual ones (:attr:`Dimension.is_factual`) but the
    ablations; of them, those ``factuality.dimensions`` names (in its order) when it names any."""
    factual = [d for d, dim in dimensions.items() if dim.is_factual and d not in ablations]
    named = [d for d in o.dimensions if d in factual]
    return named or factual


def applies(notes_tsv: str) -> str | None:
    """None when the protocols ran; else the reason they did not apply (from notes.tsv)."""
    f = tables.read_tsv(notes_tsv)
    return NOT_APPLICABLE if (f["note"] == NOT_APPLICABLE).any() else None


def load(inputs: Mapping[str, str], o: FactualityOptions) -> FactualityInputs:
    """The validated data set's judged summaries (of correlation.summarizers) with their dimensions,
    splits and subsets, and every per-summary metric of the analysis inputs (analysis_inputs)."""
    ds = read_dataset({k: inputs[k] for k in DATA_KEYS if inputs.get(k)})
    judged = sorted((s for s in ds.summaries if s.key in ds.judgments and protocols.analysed(s, o)), key=lambda s: s.key)
    ai = analysis_inputs.load_named(inputs, o.summarizers)
    ps = ai.per_summary
    s_index = {s: i for i, s in enumerate(ps.summarizers)}
    t_index = {t: i for i, t in enumerate(ps.topics)}
    rows = np.array([s_index.get(s.summarizer, -1) for s in judged], dtype=np.int64)
    cols = np.array([t_index.get(s.topic, -1) for s in judged], dtype=np.int64)
    ok = (rows >= 0) & (cols >= 0)
    file_ids = set()
    if inputs.get("file_metrics"):
        file_ids = set(tables.read_tsv(inputs["file_metrics"])["metric"])
    metrics, sources, notes = {}, {}, []
    for mid, grid in ps.metrics.items():
        if o.metrics and mid not in o.metrics:
            continue
        v = np.full(len(judged), np.nan)
        v[ok] = grid[rows[ok], cols[ok]]
        metrics[mid] = v
        sources[mid] = "file" if mid in file_ids else "built-in"
    for mid in o.metrics:
        if mid not in metrics:
            notes.append(("inputs", "", f"factuality.metrics names {mid}, which this data set has no per-summary "
                                        "score of; left out"))
    dims = {d: np.array([ds.judgments[s.key].get(d, np.nan) for s in judged], dtype=float) for d in ds.dimensions}
    kinds = {d: dim.kind for d, dim in ds.dimensions.items()}
    ablations = [d for d in ds.dimensions if o.ablation_prefix and d.startswith(o.ablation_prefix)]
    analysed = factual_dimensions(ds.dimensions, o, ablations)
    if not analysed:
        notes.append(("inputs", "", NOT_APPLICABLE))
    elif not any(d in o.dimensions for d in analysed):
        notes.append(("inputs", "", f"none of factuality.dimensions ({', '.join(o.dimensions)}) is a factual dimension "
                                    f"of this data set; analysing every factual one ({', '.join(analysed)})"))
    inp = FactualityInputs(ds.name, np.array([s.topic for s in judged], dtype=object),
                           np.array([s.summarizer for s in judged], dtype=object),
                           np.array([s.split or "" for s in judged], dtype=object),
                           np.array([s.subset or "" for s in judged], dtype=object),
                           dims, kinds, analysed, ablations, metrics, sources, inputs["summaries"], notes,
                           dict(ai.meant_for))
    check_splits(inp, o)
    return inp


def check_splits(inp: FactualityInputs, o: FactualityOptions) -> None:
    """A data set whose summaries carry splits must have the configured validation and test
    splits (an error naming the file, the field and the config key); one without splits gets a
    seeded split (:func:`split_masks`)."""
    names = inp.split_names
    if not names:
        return
    for key, value in (("validation_split", validation_split(inp, o)), ("test_split", o.test_split)):
        if value not in names:
            given = " or ".join(map(repr, o.validation_split)) if key == "validation_split" else repr(value)
            raise DatasetError(f"{inp.summaries_path}, field 'split': no summary has the split {given} named by "
                               f"config key factuality.{key}; this data set's splits are {', '.join(names)} "
                               f"(set factuality.{key} to one of them)")


def validation_split(inp: FactualityInputs, o: FactualityOptions) -> str:
    """The first split of ``factuality.validation_split`` the data set has (FRANK's valid,
    SummEdits' evaluation), else the first named."""
    return next((v for v in o.validation_split if v in inp.split_names), o.validation_split[0])


def split_masks(inp: FactualityInputs, o: FactualityOptions) -> tuple[np.ndarray, np.ndarray, str]:
    """(validation mask, test mask, how): the data set's own splits, or else a seeded split of the
    sorted topics (``validation_fraction`` of them, ``default_rng(seed)``), so that every summary
    of a topic is on one side."""
    if inp.split_names:
        chosen = validation_split(inp, o)
        return (inp.splits == chosen, inp.splits == o.test_split, f"the data set's splits ({chosen} / {o.test_split})")
    topics = np.array(sorted(set(inp.topics)), dtype=object)
    rng = np.random.default_rng(o.seed)
    k = int(round(o.validation_fraction * topics.size))
    valid = set(topics[rng.permutation(topics.size)[:k]])
    v = np.array([t in valid for t in inp.topics], dtype=bool)
    return v, ~v, (f"a seeded split of the topics ({k} of {topics.size} for validation, seed {o.seed}; the data "
                   "set has no split)")


# ----------------------------------------------------------------------------- compute

@dataclass
class FactualityResult:
    name: str
    partial: pd.DataFrame
    williams: pd.DataFrame
    ablation: pd.DataFrame
    summary: pd.DataFrame
    binary: pd.DataFrame
    auc_tests: pd.DataFrame
    ranking: pd.DataFrame
    ranking_tests: pd.DataFrame
    answer: pd.DataFrame
    notes: pd.DataFrame
    split_how: str
    means: pd.DataFrame              # BINARY_MEANS_COLUMNS: each metric's mean over the subsets
    floor: pd.DataFrame = None       # protocols.FLOOR_COLUMNS: the random floor of each leaderboard column


PARTIAL_COLUMNS = ["dimension", "subset", "split", "metric", "source", "n", "systems", "pearson", "pearson_lo",
                   "pearson_hi", "pearson_p", "pearson_p_strict", "spearman", "spearman_lo", "spearman_hi",
                   "spearman_p", "spearman_ranks", "n_covered", "pearson_covered"]
WILLIAMS_COLUMNS = ["dimension", "subset", "split", "metric_a", "metric_b", "n", "r_a", "r_b", "r_ab", "p"]
ABLATION_COLUMNS = ["dimension", "category", "ablated_dimension", "metric", "source", "correlation", "n", "r_full",
                    "r_ablated", "difference"]
SUMMARY_COLUMNS = ["dimension", "subset", "split", "metric", "source", "n", "pearson", "pearson_lo", "pearson_hi",
                   "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p"]
BINARY_COLUMNS = ["dimension", "labels", "subset", "metric", "source", "n", "consistent", "auc", "auc_lo", "auc_hi",
                  "threshold", "n_validation", "balanced_accuracy_validation", "n_test", "balanced_accuracy_test",
                  "balanced_accuracy_test_lo", "balanced_accuracy_test_hi", "oracle_threshold", "balanced_accuracy_oracle",
                  "n_covered", "auc_covered"]
BINARY_MEANS_COLUMNS = ["dimension", "labels", "metric", "source", "subsets", "auc", "balanced_accuracy_test",
                        "balanced_accuracy_oracle"]
AUC_TEST_COLUMNS = ["dimension", "labels", "subset", "metric_a", "metric_b", "n", "auc_a", "auc_b", "difference", "se",
                    "z", "p"]
RANKING_COLUMNS = ["dimension", "metric", "source", "pairs", "correct", "ties", "incorrect", "accuracy", "lo", "hi",
                   "accuracy_ties_half", "pairs_covered", "accuracy_covered"]
RANKING_TEST_COLUMNS = ["dimension", "metric_a", "metric_b", "pairs", "a_only", "b_only", "p"]
ANSWER_COLUMNS = ["dimension", "protocol", "statistic", "metric", "value", "lo", "hi", "metrics", "scope", "sentence"]
NOTE_COLUMNS = ["analysis", "dimension", "note"]


def compute(inp: FactualityInputs, o: FactualityOptions) -> FactualityResult:
    notes: list[tuple[str, str, str]] = list(inp.notes)
    partial_rows, williams_rows, ablation_rows, summary_rows = [], [], [], []
    binary_rows, auc_rows, ranking_rows, ranking_test_rows, means_rows, floor_rows = [], [], [], [], [], []
    if not inp.metrics:
        notes.append(("inputs", "", "no per-summary metric scores: nothing to analyse"))
    every_valid, every_test, split_how = split_masks(inp, o)
    everything = inp
    for d in everything.analysed:
        # each dimension's protocols: the metrics it serves, on the summaries all of them score
        inp, kept = everything.for_dimension(d, notes)
        metrics = list(inp.metrics)
        starts = len(binary_rows), len(partial_rows), len(ranking_rows)
        valid_mask, test_mask = every_valid[kept], every_test[kept]
        all_scopes = scopes(inp)
        kind = inp.kinds[d]
        h = inp.dimensions[d]
        defined = np.isfinite(h)
        # 5. summary-level correlations by subset x split
        if kind in CORRELATED_KINDS:
            for sub, sp, m in all_scopes:
                point = dict(zip(metrics, protocols.scope_correlations(d, m & defined, h, inp, metrics)))
                with_interval = protocols.interval_metrics({k: v[0] for k, v in point.items()}, inp, o)
                asked = [mid for mid in metrics if np.isfinite(point[mid][0]) and mid in with_interval]
                interval = dict(zip(asked, protocols.scope_intervals(d, m & defined, h, inp, asked, o)))
                for mid in metrics:
                    ok = m & defined & np.isfinite(inp.metrics[mid])
                    r = point[mid]
                    lo, hi = interval.get(mid, (np.nan, np.nan))
                    summary_rows.append([d, sub, sp, mid, inp.sources[mid], int(ok.sum()), r[0], lo, hi, r[1], r[2],
                                         r[3], r[4], r[5]])
            protocols.interval_note(notes, "summary-level", d, metrics, o)
        else:
            notes.append(("summary-level", d, f"a {kind} dimension: summary-level correlations do not apply (see the "
                                              "ranking accuracy)"))
        # 1. partial correlation controlling for the system
        applies, why = protocols.partial_applies(inp.systems[defined], o.min_summaries_per_system)
        if kind not in CORRELATED_KINDS:
            notes.append(("partial", d, f"a {kind} dimension: the partial correlation does not apply"))
        elif not applies:
            notes.append(("partial", d, why))
        else:
            for sub, sp, m in all_scopes:
                ok_scope, why_scope = protocols.partial_applies(inp.systems[m & defined], o.min_summaries_per_system)
                if not ok_scope:
                    notes.append(("partial", d, f"{sub} / {sp}: {why_scope}"))
                    continue
                scope = m & defined
                point = {}
                for mid in metrics:
                    sel = scope & np.isfinite(inp.metrics[mid])
                    point[mid] = partial_correlation(inp.metrics[mid][sel], h[sel], inp.systems[sel]) \
                        if sel.any() else NAN_PARTIAL
                with_interval = protocols.interval_metrics({k: pc.pearson for k, pc in point.items()}, inp, o)
                # metrics defined on every summary of the scope share the resamples (one batch); each
                # metric's interval is the same whichever others are in the batch
                full = [k for k in metrics if k in with_interval and np.isfinite(inp.metrics[k][scope]).all()]
                batch = dict(zip(full, bootstrap_partial_many(
                    np.array([inp.metrics[k][scope] for k in full]).reshape(len(full), -1), h[scope],
                    inp.systems[scope], o.bootstrap_samples, o.seed, o.confidence)))
                for mid in metrics:
                    x = inp.metrics[mid]
                    sel = scope & np.isfinite(x)
                    pc = point[mid]
                    if not np.isfinite(pc.pearson) or mid not in with_interval:
                        ci = (np.nan,) * 4
                    elif mid in batch:
                        ci = tuple(float(v) for v in batch[mid])
                    else:
                        ci = bootstrap_partial(x[sel], h[sel], inp.systems[sel], o.bootstrap_samples, o.seed,
                                               o.confidence)
                    partial_rows.append([d, sub, sp, mid, inp.sources[mid], pc.n, pc.systems, pc.pearson, ci[0],
                                         ci[1], pc.pearson_p, pc.pearson_p_strict, pc.spearman, ci[2], ci[3],
                                         pc.spearman_p, pc.spearman_ranks])
                williams_rows += protocols.williams_tests(d, sub, sp, m & defined, inp, metrics, h)
            protocols.interval_note(notes, "partial", d, metrics, o)
        # 2. error-category ablation
        if inp.ablations and d not in inp.ablations and kind in CORRELATED_KINDS:
            ablation_rows += protocols.ablation(d, inp, o, metrics, applies)
        elif inp.ablations and d not in inp.ablations:
            notes.append(("ablation", d, f"a {kind} dimension: no ablation"))
        # 3. binary labels
        labels = protocols.labels_of(h, kind, o.proportion_cutoff)
        if labels is None:
            if kind != "preference":
                notes.append(("binary", d, f"a {kind} dimension: no binary labels (the detection protocol needs a "
                                           "binary dimension or a proportion with factuality.proportion_cutoff)"))
        else:
            rule = "binary" if kind == "binary" else f"{d} >= {o.proportion_cutoff:g}"
            b_rows, a_rows = protocols.detection(protocols.Labels(d, rule, labels, valid_mask, test_mask), inp, o,
                                                 metrics, notes)
            binary_rows, auc_rows = binary_rows + b_rows, auc_rows + a_rows
        # 4. preference pairs
        if kind == "preference":
            r_rows, t_rows = protocols.ranking(d, inp, o, metrics, h, notes)
            ranking_rows, ranking_test_rows = ranking_rows + r_rows, ranking_test_rows + t_rows
        else:
            notes.append(("ranking", d, f"a {kind} dimension: ranking accuracy needs a preference dimension"))
        for kind, rows, start in zip(("binary", "partial", "ranking"), (binary_rows, partial_rows, ranking_rows), starts):
            protocols.with_covered(rows[start:], kind, everything, d, kept, o)
        means = protocols.subset_means(binary_rows[starts[0]:], BINARY_COLUMNS)     # this dimension's
        means_rows += means
        floor_rows += protocols.floors(inp, o, binary_rows, partial_rows, ranking_rows, means, (valid_mask, test_mask))
    inp = everything
    result = FactualityResult(
        inp.name, tables.frame(partial_rows, PARTIAL_COLUMNS), tables.frame(williams_rows, WILLIAMS_COLUMNS),
        tables.frame(ablation_rows, ABLATION_COLUMNS), tables.frame(summary_rows, SUMMARY_COLUMNS),
        tables.frame(binary_rows, BINARY_COLUMNS), tables.frame(auc_rows, AUC_TEST_COLUMNS),
        tables.frame(ranking_rows, RANKING_COLUMNS), tables.frame(ranking_test_rows, RANKING_TEST_COLUMNS),
        tables.frame([], ANSWER_COLUMNS), tables.frame(notes, NOTE_COLUMNS), split_how,
        tables.frame(means_rows, BINARY_MEANS_COLUMNS), tables.frame(floor_rows, protocols.FLOOR_COLUMNS))
    result.answer = tables.frame([best_answer(result, inp, o)], ANSWER_COLUMNS)
    return result


# ----------------------------------------------------------------------------- the answer

PROTOCOLS = {
    "ranking": ("ranking accuracy on preference pairs (Falke et al. 2019)", "accuracy"),
    "auc": ("ROC AUC of the binary labels (QAGS / SummaC)", "AUC"),
    "partial": ("partial Pearson correlation controlling for the system (FRANK)", "partial r"),
    "summary": ("summary-level Pearson correlation across all summaries (QAGS)", "r"),
}


def best_answer(result: FactualityResult, inp: FactualityInputs, o: FactualityOptions) -> list:
    """The protocol that fits the first analysed dimension of a factuality kind (binary, proportion,
    preference), else the first graded one declared factual: preference -> ranking accuracy; binary ->
    AUC; proportion or graded -> the partial Pearson
    when >= 2 systems allow it, else the summary-level Pearson. The best metric under it, on all
    summaries, with its interval. A data set without such a dimension gets no answer."""
    # a dimension of a factuality kind first, else a graded one declared factual (SummEval's consistency)
    dims = [d for d in inp.analysed if inp.kinds[d] in FACTUALITY_KINDS] or list(inp.analysed)
    if not dims:
        return ["", "none", "", "", np.nan, np.nan, np.nan, 0, "", ""]
    d = dims[0]
    kind = inp.kinds[d]
    if kind == "preference":
        t = result.ranking[result.ranking["dimension"] == d]
        key, col, lo, hi = "ranking", "accuracy", "lo", "hi"
    elif kind == "binary":
        t = result.binary[(result.binary["dimension"] == d) & (result.binary["subset"] == ALL)]
        key, col, lo, hi = "auc", "auc", "auc_lo", "auc_hi"
    else:
        t = result.partial[(result.partial["dimension"] == d) & (result.partial["subset"] == ALL)
                           & (result.partial["split"] == ALL)]
        key, col, lo, hi = "partial", "pearson", "pearson_lo", "pearson_hi"
        if not len(t) or not np.isfinite(t[col].astype(float)).any():
            t = result.summary[(result.summary["dimension"] == d) & (result.summary["subset"] == ALL)
                               & (result.summary["split"] == ALL)]
            key = "summary"
    values = t[col].astype(float).to_numpy() if len(t) else np.array([])
    if not values.size or not np.isfinite(values).any():
        return [d, key, PROTOCOLS[key][1], "", np.nan, np.nan, np.nan, 0, "all summaries", ""]
    i = int(np.nanargmax(values))
    row = t.iloc[i]
    best = [d, key, PROTOCOLS[key][1], row["metric"], float(row[col]), float(row[lo]), float(row[hi]),
            int(np.isfinite(values).sum()), "all summaries", ""]
    best[-1] = _sentence(best, inp.name)
    return best


def _sentence(best: Sequence, name: str) -> str:
    d, key, stat, metric, value, lo, hi, n = best[:8]
    ci = "" if not np.isfinite(lo) else f", 95% CI [{lo:.3f}, {hi:.3f}]"
    return (f"For factual consistency ({d}), judged by {PROTOCOLS[key][0]}, the best of the {n} metrics on {name} is "
            f"{metric} ({stat} = {value:.3f}{ci}, all summaries).")


def answer_sentence(answer_tsv: str) -> str:
    """The report's answer for a factuality data set: the sentence of the factuality job's answer
    table (HTML-escaped, the metric in bold), or "" when the data set has no factuality dimension."""
    t = tables.read_tsv(answer_tsv)
    if not len(t) or not t.iloc[0]["sentence"] or t.iloc[0]["sentence"] == tables.NA:
        return ""
    row = t.iloc[0]
    text = html.escape(row["sentence"])
    metric = html.escape(row["metric"])
    return text.replace(f" is {metric} (", f" is <b>{metric}</b> (", 1)


# ----------------------------------------------------------------------------- write

CAPTIONS = {
    "partial": "Partial correlation of each metric with the human factuality score controlling for the system "
               "(FRANK). How to read this: the correlation left after each system's mean is removed from both the "
               "metric and the human score, i.e. how well the metric orders summaries within systems; pearson and "
               "spearman (FRANK's: of the residuals) with {conf} bootstrap intervals (summaries resampled within "
               "each system), p with n - 2 degrees of freedom as FRANK's code (p strict: n - systems - 1 df); "
               "spearman ranks: pingouin's partial Spearman (partial Pearson of the ranks). Rows: dimension, subset "
               "(all = every subset), split (all = every split).",
    "ablation": "Error-category ablation (FRANK). How to read this: r full is the metric's correlation with the "
                "factuality score, r ablated its correlation when one category's errors are ignored (the release's "
                "Flip_ fields); difference = r full - r ablated. A large positive difference means the metric is "
                "sensitive to that category of errors; near zero or negative, it does not see them.",
    "summary": "Summary-level correlations across all summaries by subset and split. How to read this: Pearson (with "
               "a {conf} bootstrap interval over summaries), Spearman and Kendall tau-b between the metric and the "
               "human score over every judged summary of the subset and split (all = together), p two-sided (scipy). "
               "With one summary per document (QAGS) this is the only summary-level correlation defined.",
    "binary": "Detecting consistent summaries (QAGS, SummaC). How to read this: AUC = the probability that a "
              "consistent summary scores above an inconsistent one (0.5 = chance), with a {conf} bootstrap interval; "
              "balanced accuracy (mean of the true positive and true negative rates, 0.5 = chance) at the threshold "
              "chosen on the validation summaries and applied unchanged to the test summaries ({split}); BA oracle: "
              "at the threshold chosen on the test summaries themselves, as SummaC's benchmark chooses it (an upper "
              "bound, not a held-out result). labels: how a summary's label is read (a proportion at the stated "
              "cut-off).",
    "ranking": "Ranking accuracy on preference pairs (Falke et al. 2019). How to read this: of the pairs of a correct "
               "and an incorrect summary, the share where the metric scores the correct one strictly higher (0.5 = "
               "chance), with a {conf} Clopper-Pearson interval; ties (equal scores) count as not correct and are "
               "listed apart; accuracy ties half counts each tie as half correct.",
}


def _fmt(v) -> str:
    return tables.fixed(v)


def _pvalue(v) -> str:
    return tables.NA if v is None or not np.isfinite(float(v)) else f"{float(v):.3g}"


def _md_rows(df: pd.DataFrame, cols: Sequence[str], numeric: Sequence[str], pcols: Sequence[str] = ()) -> list[list[str]]:
    out = []
    for r in df[list(cols)].itertuples(index=False):
        out.append([_pvalue(v) if c in pcols else _fmt(v) if c in numeric else str(v) for c, v in zip(cols, r)])
    return out


def _ablation_figure(result: FactualityResult, png: str, svg: str) -> None:
    plt = pyplot()
    ab = result.ablation
    if len(ab):
        d = ab["dimension"].iloc[0]
        ab = ab[ab["dimension"] == d]
        cats = list(dict.fromkeys(ab["category"]))
        mets = list(dict.fromkeys(ab["metric"]))
        grid = np.full((len(mets), len(cats)), np.nan)
        for r in ab.itertuples(index=False):
            grid[mets.index(r.metric), cats.index(r.category)] = float(r.difference)
        fig, axis = plt.subplots(figsize=(1.0 + 0.55 * len(cats), 1.2 + 0.3 * len(mets)))
        lim = np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 1.0
        im = axis.imshow(grid, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto")
        axis.set_xticks(range(len(cats)), cats, rotation=60, ha="right")
        axis.set_yticks(range(len(mets)), mets)
        for i in range(len(mets)):
            for j in range(len(cats)):
                if np.isfinite(grid[i, j]):
                    axis.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=6)
        fig.colorbar(im, ax=axis, label="r(full) - r(category ignored)")
        axis.set_title(f"Which errors each metric sees ({d})")
    else:
        fig, axis = plt.subplots(figsize=(4, 1))
        axis.axis("off")
        axis.text(0.5, 0.5, "No error-category ablation: the data set has no ablation fields", ha="center", va="center")
    save(fig, png, svg)


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
ABLATION_FIGURE_CAPTION = (
    "How to read this: each cell is a metric's correlation with the factuality score minus its correlation "
    "when that category's errors are ignored (FRANK's ablation). Red (positive): the metric's agreement "
    "with humans rests on noticing these errors; white or blue: it does not see them.")

BINARY_MEANS_CAPTION = (
    "Detecting consistent summaries, the mean over the subsets (SummEdits' domains: its paper's overall score). "
    "How to read this: each metric's AUC, balanced accuracy on the test split (threshold chosen on the validation "
    "split) and the oracle's balanced accuracy (threshold chosen on the test split itself, as SummaC's benchmark "
    "does: an upper bound, not a result), averaged over the subsets with equal weight.")

AUC_TESTS_CAPTION = (
    "How to read this: DeLong's test of two metrics' AUCs on the same summaries (subset all: every summary; else the "
    "subset's): difference = AUC a - AUC b, se its standard error, p two-sided; p < 0.05 means the two metrics "
    "detect consistent summaries differently well.")

RANKING_TESTS_CAPTION = (
    "How to read this: the exact McNemar test between two metrics on the same pairs: a only = pairs metric "
    "a ranks correctly and b does not, b only the reverse (ties count as not correct); p two-sided; p < "
    "0.05 means one metric ranks the pairs significantly more often correctly.")

NOTES_CAPTION = (
    "How to read this: the notes of the factuality analyses: which protocol does not apply to this data set "
    "and why, and left-out metrics.")


def write(result: FactualityResult, o: FactualityOptions, out: Mapping[str, str]) -> None:
    conf = f"{o.confidence:g}"
    tables.write_tsv(result.partial, out["partial_tsv"])
    tables.write_markdown(out["partial_md"], CAPTIONS["partial"].format(conf=conf),
                          ["dimension", "subset", "split", "metric", "n", "systems", "pearson", "95% CI", "p",
                           "spearman", "95% CI", "p", "spearman ranks"],
                          [[r.dimension, r.subset, r.split, r.metric, str(r.n), str(r.systems), _fmt(r.pearson),
                            f"[{_fmt(r.pearson_lo)}, {_fmt(r.pearson_hi)}]", _pvalue(r.pearson_p), _fmt(r.spearman),
                            f"[{_fmt(r.spearman_lo)}, {_fmt(r.spearman_hi)}]", _pvalue(r.spearman_p),
                            _fmt(r.spearman_ranks)] for r in result.partial.itertuples(index=False)])
    tables.write_tsv(result.williams, out["williams"])
    tables.write_tsv(result.floor, out["floor"])
    tables.write_tsv(result.ablation, out["ablation_tsv"])
    tables.write_markdown(out["ablation_md"], CAPTIONS["ablation"], ["dimension", "category", "metric", "correlation",
                                                                    "n", "r full", "r ablated", "difference"],
                          _md_rows(result.ablation, ["dimension", "category", "metric", "correlation", "n", "r_full",
                                                     "r_ablated", "difference"], ["r_full", "r_ablated", "difference"]))
    _ablation_figure(result, out["ablation_png"], out["ablation_svg"])
    tables.write_tsv(result.summary, out["summary_tsv"])
    tables.write_markdown(out["summary_md"], CAPTIONS["summary"].format(conf=conf),
                          ["dimension", "subset", "split", "metric", "n", "pearson", "95% CI", "p", "spearman", "p",
                           "kendall", "p"],
                          [[r.dimension, r.subset, r.split, r.metric, str(r.n), _fmt(r.pearson),
                            f"[{_fmt(r.pearson_lo)}, {_fmt(r.pearson_hi)}]", _pvalue(r.pearson_p), _fmt(r.spearman),
                            _pvalue(r.spearman_p), _fmt(r.kendall), _pvalue(r.kendall_p)]
                           for r in result.summary.itertuples(index=False)])
    tables.write_tsv(result.binary, out["binary_tsv"])
    tables.write_markdown(out["binary_md"], CAPTIONS["binary"].format(conf=conf, split=result.split_how),
                          ["dimension", "labels", "subset", "metric", "n", "consistent", "AUC", "95% CI", "threshold",
                           "BA validation", "BA test", "95% CI", "BA oracle"],
                          [[r.dimension, r.labels, r.subset, r.metric, str(r.n), str(r.consistent), _fmt(r.auc),
                            f"[{_fmt(r.auc_lo)}, {_fmt(r.auc_hi)}]", f"{float(r.threshold):.4g}",
                            _fmt(r.balanced_accuracy_validation), _fmt(r.balanced_accuracy_test),
                            f"[{_fmt(r.balanced_accuracy_test_lo)}, {_fmt(r.balanced_accuracy_test_hi)}]",
                            _fmt(r.balanced_accuracy_oracle)] for r in result.binary.itertuples(index=False)])
    tables.write_tsv(result.means, out["binary_means_tsv"])
    tables.write_markdown(out["binary_means_md"], BINARY_MEANS_CAPTION, ["dimension", "metric", "subsets", "AUC",
                                                                         "BA test", "BA oracle"],
                          _md_rows(result.means, ["dimension", "metric", "subsets", "auc", "balanced_accuracy_test",
                                                  "balanced_accuracy_oracle"],
                                   ["auc", "balanced_accuracy_test", "balanced_accuracy_oracle"]))
    tables.write_tsv(result.auc_tests, out["auc_tests"])
    tables.write_tsv(result.ranking, out["ranking_tsv"])
    tables.write_markdown(out["ranking_md"], CAPTIONS["ranking"].format(conf=conf),
                          ["dimension", "metric", "pairs", "correct", "ties", "incorrect", "accuracy", "95% CI",
                           "accuracy ties half"],
                          [[r.dimension, r.metric, str(r.pairs), str(r.correct), str(r.ties), str(r.incorrect),
                            _fmt(r.accuracy), f"[{_fmt(r.lo)}, {_fmt(r.hi)}]", _fmt(r.accuracy_ties_half)]
                           for r in result.ranking.itertuples(index=False)])
    tables.write_tsv(result.ranking_tests, out["ranking_tests"])
    tables.write_tsv(result.answer, out["answer"])
    tables.write_tsv(result.notes, out["notes"])


def methods(config: Mapping) -> list[str]:
    """The factuality job's choices for the report's methods section."""
    f = config.get("factuality", {})
    conf, seed, b = f.get("confidence"), f.get("seed"), f.get("bootstrap_samples")
    return [
        "Factual consistency: the dimensions the data set declares factual (dataset.yaml role: factual, or a binary, "
        f"proportion or preference kind; of them {', '.join(f.get('dimensions', []))} when it has any of these); "
        "a data set with none gets no protocol; every per-summary metric (built-in and from score files"
        + (f", restricted to {', '.join(f['metrics'])}" if f.get("metrics") else "") + f"); seed {seed}, {b} "
        f"bootstrap samples, percentile intervals at {conf}"
        + (" for every metric." if f.get("interval_metrics") == "all" else
           f" for the {f.get('interval_metrics')} best metrics of each scope (by the point estimate), the file "
           "metrics and the baselines (factuality.interval_metrics)."),
        "Partial correlation controlling for the system (FRANK, Pagnoni et al. 2021, as their evaluate.py): metric "
        "and human score residualised on one-hot system indicators (each system's mean removed), Pearson and "
        "Spearman of the residuals, p with n - 2 degrees of freedom as FRANK's code (also the strict n - k - 2, "
        "k = systems - 1, as pingouin); pingouin's partial Spearman (of the ranks) beside; bootstrap resampling "
        f"summaries within each system; needs >= 2 systems with >= {f.get('min_summaries_per_system')} summaries; "
        "Williams tests (one-sided, n - 3 df) between every ordered pair of metrics on the residualised "
        "correlations, as FRANK's metric_metric_correlation.",
        f"Error-category ablation: every dimension named {f.get('ablation_prefix')}<category>; difference = r(full) - "
        "r(category ignored), partial Pearson where the partial correlation applies, else Pearson; all summaries.",
        f"Binary labels: a binary dimension as given, a proportion as 1 when >= {f.get('proportion_cutoff')} "
        "(consistent) else 0. ROC AUC (Mann-Whitney, ties one half) on all summaries of each subset, bootstrap "
        "within each label; balanced accuracy at the threshold maximising it on the validation split (the first of "
        f"the data set's splits {', '.join(map(repr, f.get('validation_split', [])))} when its summaries carry "
        f"splits, else a seeded split of {f.get('validation_fraction')} of the topics), applied to the test split "
        f"({f.get('test_split')!r} or the rest), and the oracle's, at the threshold maximising it on the test split "
        "itself (SummaC's benchmark; labelled as such); with two or more subsets, each metric's mean over the "
        "subsets (SummEdits' overall score); DeLong's test (two-sided, Sun & Xu 2014's placement values) between "
        "every pair of metrics' AUCs on all summaries and in each subset.",
        "Preference pairs: ranking accuracy = correct / pairs (ties not correct, listed apart), Clopper-Pearson "
        "interval; exact McNemar test (binomial sign test on discordant pairs) between every pair of metrics.",
        "Summary-level correlations across all summaries (not within topics: one summary per system and document "
        "makes within-topic correlations undefined for one-system data sets) by subset x split, scipy p-values, "
        "Pearson's bootstrap interval over summaries. The answer: preference -> ranking accuracy; binary -> AUC; "
        "proportion -> partial Pearson when it applies, else the summary-level Pearson; on all summaries.",
    ]


def answer(files: Mapping[str, str], verdict) -> str:
    """The report's answer hook (metaeval.registry): a paragraph of its own for a factuality data set
    (:func:`answer_sentence`), whatever the correlation stage's ``verdict``."""
    return answer_sentence(files["answer"]) if Path(files["answer"]).exists() else ""
