"""The leaderboard (``results/all/leaderboard.*``): every judged metric beside every other, per
benchmark, target and level, with its interval, its rank, the test against the column's best and its
wins, ties and losses against every other metric of the column.

A *column* is one data set x one target x one level. The targets are those a data set judges under
their own names (its dimensions and composites; Graham's combinations only where
``leaderboard.combinations`` names them; never the ablation dimensions of factual consistency,
FRANK's ``Flip_`` fields, which are counterfactual analyses). The levels are those at which the data
set has an answer, each with its statistic and its pairwise test:

============  ====================================================================================
level         statistic (file of the data set); pairwise test
============  ====================================================================================
``system``    Pearson r of the system scores (analysis/correlations.tsv); Williams, one-sided
``summary``   Pearson r within topics, mean over topics (analysis/summary_level_correlations.tsv), or
``pooled``    over all judged summaries; paired bootstrap over topics, one-sided (Koehn 2004;
              analysis/summary_level_tests.tsv)
``auc``       ROC AUC of binary labels (factuality/binary.tsv), on every summary and, a column each, in
              each subset (SummEdits' domains); DeLong, two-sided (auc_tests.tsv)
``balanced_accuracy``  balanced accuracy on the test split at the threshold chosen on the validation
              split, the mean over the subsets (factuality/binary_means.tsv: SummEdits' overall
              score; subset ``mean``); no pairwise test
``partial``   partial r controlling for the system (partial_correlations.tsv); Williams (williams.tsv)
``ranking``   ranking accuracy of preference pairs (ranking_accuracy.tsv); exact McNemar (ranking_tests.tsv)
============  ====================================================================================

The *metrics* (rows) are the file metrics of every data set (a user's score files and the metrics a benchmark
ships), the baselines (``leaderboard.baselines``) and, per column, the ``leaderboard.best_rouge`` best ROUGE
metrics. A metric is its per-summary id (``R2_ST1_RS0_R``, ``BERTScore_F``); at the system level its value is
that of its mean variant (``R2_ST1_RS0_A_R``, ``BERTScore_F_A``), or of the corpus variant for BLEU and chrF.
A metric a score file declares for one dimension (``metrics: {judge: {dimension: coherence}}``) appears under
that dimension only.

In each column: the rank among the leaderboard's metrics defined there (1 = highest; ties share the lower
rank), the *best* (rank 1), whether a metric is significantly worse than the best (the column's test, p <
``alpha``), and its wins, ties and losses against every other metric of the column: a win over B when the test
says it is better (one-sided p < alpha; for the two-sided tests, p < alpha and a higher value), a loss when
the test says B is better, else a tie; a pair the test does not cover counts as neither. Every statistic here
is read from the data sets' own files: this stage computes ranks and counts only.

load (each data set's files) -> :func:`compute` (:class:`Leaderboard`) -> :func:`write`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import tables
from ..data.metric_scores import declared_dimensions
from ..files import write_text
from ..pages import page
from ..records import LeaderboardOptions
from ..tables import NA
from ..variants import MEASURE_PATTERN, Variant
from .correlation import POOLED_LEVEL, SUMMARY_LEVEL
from .leaderboard_page import (DELTAS, NO_REFERENCES, NO_TEXTS, NOT_AT_LEVEL, NOT_COMPUTED, NOT_SHIPPED, UNDEFINED,
                               Leaderboard, markdown_table)
from . import leaderboard_table, leaderboard_verdict

STATISTIC = {"system": "r", "summary": "r", "pooled": "r", "auc": "AUC", "partial": "partial r",
             "ranking": "accuracy", "balanced_accuracy": "balanced accuracy"}
TEST = {"system": "Williams (one-sided)", "summary": "paired bootstrap over topics (one-sided)",
        "pooled": "paired bootstrap over topics (one-sided)", "auc": "DeLong (two-sided)",
        "partial": "Williams (one-sided)", "ranking": "exact McNemar (two-sided)", "balanced_accuracy": "none"}
# a column's subset: every summary, one subset (a SummEdits domain), or the mean over the subsets
ALL, MEAN = "all", "mean"
# the correlation stage's two summary levels, by the leaderboard's names
SUMMARY_LEVELS = {SUMMARY_LEVEL: "summary", POOLED_LEVEL: "pooled"}

LEADERBOARD_COLUMNS = ("dataset", "target", "level", "subset", "metric", "name", "kind", "focus", "variant", "statistic",
                       "value", "lo", "hi", "rank", "of", "best", "p_vs_best", "worse_than_best", "test", "wins",
                       "ties", "losses", "spa", "spa_lo", "spa_hi", "pairwise_accuracy", "note", "n", "value_covered",
                       "n_covered", "pdp", "column_note")
# the system level's other statistics of a metric (NA at the other levels): soft pairwise accuracy
# (soft_pairwise/soft_pairwise_accuracy.tsv) and pairwise accuracy where the statistics job computes
# it (statistics/accuracy.tsv: its tested variants and combinations). The metric differences humans
# agree with 80/90/95 % of the time are pooled over the data sets (delta_thresholds.tsv, a job that
# waits on every data set's pairs): the report across data sets sets them beside the leaderboard
SYSTEM_EXTRAS = ("spa", "spa_lo", "spa_hi", "pairwise_accuracy")
# the random floor of every column (metaeval.stats.floor; read from the data sets' floor tables)
FLOOR_COLUMNS = ("dataset", "target", "level", "subset", "statistic", "floor_mean", "floor_lo", "floor_hi")
TESTS_COLUMNS = ("dataset", "target", "level", "subset", "metric", "other", "value", "other_value", "p_better", "p_worse",
                 "verdict", "test")

_ROUGE_METRIC = re.compile(rf"{MEASURE_PATTERN}_ST[01]_RS[01]_[PRF]")


def is_rouge_metric(metric: str) -> bool:
    """Whether a per-summary metric id is a built-in ROUGE score (``R2_ST1_RS0_R``)."""
    return _ROUGE_METRIC.fullmatch(metric) is not None


def summary_metric_of(name: str) -> str:
    """A metric named in the config as a variant id (``R2_ST1_RS0_A_R``) or as a per-summary id
    (``R2_ST1_RS0_R``, a file metric's name): its per-summary id."""
    try:
        return Variant.parse(name).summary_metric
    except ValueError:
        return name


# ----------------------------------------------------------------------------- loading

@dataclass
class DatasetFiles:
    """What the leaderboard reads of one data set (every frame as read, cells as text)."""
    name: str
    texts: bool
    targets: pd.DataFrame                 # human/targets.tsv
    correlations: pd.DataFrame            # analysis/correlations.tsv
    williams_of: Callable[[str], pd.DataFrame | None]
    summary_level: pd.DataFrame           # analysis/summary_level_correlations.tsv
    summary_tests: pd.DataFrame           # analysis/summary_level_tests.tsv
    file_metrics: pd.DataFrame            # scores/file_metrics/metrics.tsv
    binary: pd.DataFrame                  # factuality/binary.tsv
    auc_tests: pd.DataFrame
    partial: pd.DataFrame
    partial_tests: pd.DataFrame           # factuality/williams.tsv
    ranking: pd.DataFrame
    ranking_tests: pd.DataFrame
    spa: pd.DataFrame = field(default_factory=pd.DataFrame)         # soft_pairwise_accuracy.tsv
    accuracy: pd.DataFrame = field(default_factory=pd.DataFrame)    # statistics/accuracy.tsv
    binary_means: pd.DataFrame = field(default_factory=pd.DataFrame)   # factuality/binary_means.tsv
    references: bool = True               # False: a release without reference summaries (SummEdits)
    # (target, level, subset) -> (mean, lo, hi): analysis/floor.tsv and factuality/floor.tsv
    floors: dict[tuple[str, str, str], tuple[float, float, float]] = field(default_factory=dict)


def load_dataset(name: str, files: Mapping[str, str], williams_of: Callable[[str], pd.DataFrame | None]
                 ) -> DatasetFiles:
    """One data set's files (``files`` by the keys of :func:`metaeval.outputs`' stages; no
    ``metrics`` when the data set has no score file)."""
    read = tables.read_tsv
    summary = dict(read(files["summary"]).itertuples(index=False, name=None))
    metrics = read(files["metrics"]) if "metrics" in files else pd.DataFrame(columns=["metric", "name"])
    return DatasetFiles(name, not str(summary.get("texts", "yes")).startswith("no"), read(files["targets"]),
                        read(files["correlations"]), williams_of, read(files["summary_level"]),
                        read(files["summary_level_tests"]), metrics, read(files["binary_tsv"]),
                        read(files["auc_tests"]), read(files["partial_tsv"]), read(files["williams"]),
                        read(files["ranking_tsv"]), read(files["ranking_tests"]),
                        read(files["spa"]) if "spa" in files else pd.DataFrame(),
                        read(files["accuracy"]) if "accuracy" in files else pd.DataFrame(),
                        read(files["binary_means_tsv"]) if "binary_means_tsv" in files else pd.DataFrame(),
                        not str(summary.get("references", "")).startswith("none"),
                        read_floors([files[k] for k in ("floor_correlation", "floor_factuality") if k in files]))


def read_floors(paths: Sequence[str]) -> dict[tuple[str, str, str], tuple[float, float, float]]:
    """(target, level, subset) -> the random floor's (mean, lo, hi), from the correlation stage's and
    the factuality stage's floor tables (the latter name the target ``dimension``)."""
    out = {}
    for path in paths:
        f = tables.read_tsv(path, numeric=("floor_mean", "floor_lo", "floor_hi"))
        target = "target" if "target" in f.columns else "dimension"
        for r in f.to_dict("records"):
            out[(str(r[target]), str(r["level"]), str(r["subset"]))] = (r["floor_mean"], r["floor_lo"], r["floor_hi"])
    return out


def board_floors(frame) -> dict[tuple[str, str, str, str], tuple[float, float, float]]:
    """(dataset, target, level, subset) -> the random floor's (mean, lo, hi), from leaderboard_floor.tsv
    (read back for the report across data sets, whose leaderboard shows the floor row)."""
    rows = frame.to_dict("records")
    return {(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"])):
            tuple(math.nan if str(r[k]) in (NA, "", "nan") else float(r[k])
                  for k in ("floor_mean", "floor_lo", "floor_hi"))
            for r in rows}


# ----------------------------------------------------------------------------- the columns

@dataclass
class Column:
    """One column: its values by metric and the pairwise p-values of its test."""
    dataset: str
    target: str
    level: str
    values: dict[str, tuple[float, float, float, str]]      # metric -> (value, lo, hi, the id it was read as)
    # (a, b) -> the p-value of "a is better than b" (one-sided tests), or the two-sided p of the pair
    p: Callable[[str, str], float]
    two_sided: bool
    extras: dict[str, dict[str, float]] = field(default_factory=dict)   # metric -> SYSTEM_EXTRAS' values
    subset: str = ALL                     # every summary, one subset, or the mean over the subsets
    # metric -> (n, its value on all it covers, that n, Pairwise Difference Pearson): :func:`coverage`
    coverage: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.target, self.level, self.subset)

    @property
    def statistic(self) -> str:
        return STATISTIC[self.level]

    @property
    def test(self) -> str:
        return TEST[self.level]

    def p_better(self, a: str, b: str) -> float:
        """The p-value that ``a`` is better than ``b`` (NaN when the test does not cover the pair; for
        a two-sided test, its p where ``a``'s value is the higher, else 1)."""
        p = self.p(a, b)
        if self.two_sided and not math.isnan(p) and not self.values[a][0] > self.values[b][0]:
            return 1.0
        return p


def _values(frame: pd.DataFrame, metric: str, value: str, lo: str, hi: str
            ) -> dict[str, tuple[float, float, float, str]]:
    v, a, b = (tables.to_float(frame[c]) for c in (value, lo, hi))
    names = list(frame[metric])
    return {m: (v[i], a[i], b[i], m) for i, m in enumerate(names)}


def _matrix_lookup(matrix: pd.DataFrame | None, to_id: Mapping[str, str]) -> Callable[[str, str], float]:
    """p(a, b) from a square p-value table indexed by id (row beats column), the metrics mapped to
    their ids by ``to_id``."""
    if matrix is None or matrix.empty:
        return lambda a, b: math.nan
    index = {v: i for i, v in enumerate(matrix.index)}
    columns = {v: i for i, v in enumerate(matrix.columns)}
    cells = np.column_stack([tables.to_float(matrix[c]) for c in matrix.columns])    # read once, as floats

    def p(a: str, b: str) -> float:
        i, j = index.get(to_id.get(a, "")), columns.get(to_id.get(b, ""))
        return math.nan if i is None or j is None else float(cells[i, j])
    return p


def _pair_lookup(frame: pd.DataFrame, ordered: bool) -> Callable[[str, str], float]:
    """p(a, b) from a table of pairs (metric_a, metric_b, p): ordered (one-sided, a better than b)
    or unordered (two-sided, either order)."""
    p = tables.to_float(frame["p"]) if len(frame) else np.array([])
    pairs = {(a, b): p[i] for i, (a, b) in enumerate(zip(frame["metric_a"], frame["metric_b"]))} if len(frame) else {}

    def lookup(a: str, b: str) -> float:
        x = pairs.get((a, b))
        if x is None and not ordered:
            x = pairs.get((b, a))
        return math.nan if x is None else float(x)
    return lookup


def system_variants(variants: Sequence[str]) -> dict[str, str]:
    """metric -> the variant that gives its system score: its mean (``_A``) variant, or the corpus
    variant of BLEU and chrF (a metric with a median variant only has none)."""
    out: dict[str, str] = {}
    for v in variants:
        try:
            parsed = Variant.parse(v)
        except ValueError:
            continue
        if parsed.statistic == "A" or parsed.statistic is None:
            out.setdefault(parsed.summary_metric, v)
    return out


def leaderboard_targets(d: DatasetFiles, options: LeaderboardOptions) -> list[str]:
    """The data set's targets on the leaderboard, in its order (the primary target first when it is
    one of them): its dimensions and composites, the combinations ``options.combinations`` names,
    never an ablation dimension."""
    rows = d.targets.to_dict("records")
    chosen = [r for r in rows if (r["kind"] in ("dimension", "composite") or r["target"] in options.combinations)
              and not (options.ablation_prefix and str(r["target"]).startswith(options.ablation_prefix))]
    chosen.sort(key=lambda r: r["primary"] != "yes")
    return [str(r["target"]) for r in chosen]


def _by_variant(frame: pd.DataFrame, target: str, columns: Mapping[str, str], target_column: str = "target"
                ) -> dict[str, dict[str, float]]:
    """variant -> {name: value} of a per-variant table's rows of one target (``columns``: name ->
    the table's column)."""
    if not len(frame) or target_column not in frame.columns:
        return {}
    rows = frame[frame[target_column] == target]
    values = {name: tables.to_float(rows[c]) for name, c in columns.items() if c in rows.columns}
    return {v: {name: float(x[i]) for name, x in values.items()} for i, v in enumerate(rows["variant"])}


def system_extras(d: DatasetFiles, target: str, to_variant: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """metric -> its :data:`SYSTEM_EXTRAS` in one data set and target (NaN where not computed)."""
    spa = _by_variant(d.spa, target, {"spa": "spa", "spa_lo": "lo", "spa_hi": "hi"})
    accuracy = _by_variant(d.accuracy, target, {"pairwise_accuracy": "accuracy"}, "combination")
    return {m: {k: {**spa.get(v, {}), **accuracy.get(v, {})}.get(k, math.nan) for k in SYSTEM_EXTRAS}
            for m, v in to_variant.items()}


def deltas(thresholds: pd.DataFrame, board: Leaderboard) -> dict[tuple[str, str], dict[str, float]]:
    """(metric, target) -> the metric differences humans agree with 80/90/95 % of the time
    (delta_thresholds.tsv, pooled over the data sets; its mean variant's, as the system-level cells)."""
    variant_of = {(str(r["metric"]), str(r["target"])): str(r["variant"]) for r in board.rows
                  if r["level"] == "system" and r["variant"] != NA}
    columns = {d: f"threshold_{d[len('delta_'):]}" for d in DELTAS}
    by_target = {t: _by_variant(thresholds, t, columns) for t in {t for _, t in variant_of}}
    out = {}
    for (m, t), v in variant_of.items():
        values = by_target[t].get(v)
        if values:
            out[(m, t)] = {k: values.get(k, math.nan) for k in DELTAS}
    return out


def dataset_columns(d: DatasetFiles, options: LeaderboardOptions) -> list[Column]:
    """Every column of one data set: per target, the levels at which some metric has a value."""
    out = []
    corr = d.correlations
    level_rows = d.summary_level.assign(level=d.summary_level["level"].map(SUMMARY_LEVELS))
    tests = d.summary_tests.set_index(["target", "metric"]) if len(d.summary_tests) else pd.DataFrame()
    for target in leaderboard_targets(d, options):
        # system level
        rows = corr[corr["combination"] == target]
        to_variant = system_variants(list(rows["variant"]))
        by_variant = _values(rows, "variant", "pearson", "pearson_lo", "pearson_hi")
        values = {m: by_variant[v] for m, v in to_variant.items()}
        will = d.williams_of(target)
        matrix = will.set_index("variant") if will is not None and len(will.columns) > 1 else None
        out.append(Column(d.name, target, "system", values, _matrix_lookup(matrix, to_variant), False,
                          system_extras(d, target, to_variant),
                          coverage=coverage(rows, "variant", "n", to_variant, ("pearson_covered", "n_covered", "pdp"))))
        # the summary level, within topics or pooled
        for level in ("summary", "pooled"):
            rows = level_rows[(level_rows["combination"] == target) & (level_rows["level"] == level)]
            if not len(rows):
                continue
            values = _values(rows, "metric", "pearson", "pearson_lo", "pearson_hi")
            matrix = (tests.loc[target] if len(tests) and target in tests.index.get_level_values(0) else None)
            out.append(Column(d.name, target, level, values, _matrix_lookup(matrix, {m: m for m in values}), False,
                              coverage=coverage(rows, "metric", "summaries", None,
                                                ("pearson_covered", "summaries_covered", "pdp"))))
        # the factual-consistency protocols: AUC on every summary, then in each subset (a column each),
        # and the balanced accuracy's mean over the subsets
        b = d.binary[d.binary["dimension"] == target] if len(d.binary) else d.binary
        for subset in dict.fromkeys([ALL, *(b["subset"] if len(b) else ())]):
            rows = b[b["subset"] == subset]
            if len(rows):
                t = d.auc_tests[(d.auc_tests["dimension"] == target) & (d.auc_tests["subset"] == subset)]
                values = _values(rows, "metric", "auc", "auc_lo", "auc_hi")
                out.append(Column(d.name, target, "auc", values, _pair_lookup(t, ordered=False), True, subset=subset,
                                  coverage=coverage(rows, "metric", "n", None, ("auc_covered", "n_covered", None))))
        means = d.binary_means[d.binary_means["dimension"] == target] if len(d.binary_means) else d.binary_means
        if len(means):
            values = {m: (float(v), math.nan, math.nan, m)
                      for m, v in zip(means["metric"], tables.to_float(means["balanced_accuracy_test"]))}
            out.append(Column(d.name, target, "balanced_accuracy", values, lambda a, b: math.nan, True, subset=MEAN))
        pa = d.partial
        if len(pa):
            pa = pa[(pa["dimension"] == target) & (pa["subset"] == "all") & (pa["split"] == "all")]
        if len(pa):
            t = d.partial_tests
            t = t[(t["dimension"] == target) & (t["subset"] == "all") & (t["split"] == "all")]
            values = _values(pa, "metric", "pearson", "pearson_lo", "pearson_hi")
            out.append(Column(d.name, target, "partial", values, _pair_lookup(t, ordered=True), False,
                              coverage=coverage(pa, "metric", "n", None, ("pearson_covered", "n_covered", None))))
        ra = d.ranking[d.ranking["dimension"] == target] if len(d.ranking) else d.ranking
        if len(ra):
            t = d.ranking_tests[d.ranking_tests["dimension"] == target]
            values = _values(ra, "metric", "accuracy", "lo", "hi")
            out.append(Column(d.name, target, "ranking", values, _pair_lookup(t, ordered=False), True,
                              coverage=coverage(ra, "metric", "pairs", None, ("accuracy_covered", "pairs_covered", None))))
    return [c for c in out if any(not math.isnan(v[0]) for v in c.values.values())]


def coverage(frame: pd.DataFrame, metric: str, n: str, to_id: Mapping[str, str] | None = None,
             extra: tuple[str | None, str | None, str | None] = (None, None, None)
             ) -> dict[str, tuple[float, float, float, float]]:
    """metric -> (n, value on all it covers, that n, Pairwise Difference Pearson) of a column's rows
    (``to_id``: metric -> the id its row is read as; NaN where the table has no such column)."""
    cells = [tables.to_float(frame[c]) if c and c in frame.columns else np.full(len(frame), np.nan)
             for c in (n, *extra)]
    by_id = {str(m): tuple(float(x[i]) for x in cells) for i, m in enumerate(frame[metric])}
    ids = to_id if to_id is not None else {m: m for m in by_id}
    return {m: by_id[i] for m, i in ids.items() if i in by_id}


def column_note(c: Column, defined: Sequence[str]) -> str:
    """What a reader must know at the top of a column whose metrics cover different items: the n
    the ranked values share (or that they differ), and the metrics whose fuller value is beside."""
    ns = sorted({int(c.coverage[m][0]) for m in defined if m in c.coverage and not math.isnan(c.coverage[m][0])})
    fuller = [m for m in defined if m in c.coverage and c.coverage[m][2] > c.coverage[m][0]]
    if len(ns) > 1:
        return f"the metrics rest on different n ({', '.join(map(str, ns))}): compare their values with care"
    if fuller:
        return (f"ranked on the n = {ns[0] if ns else 'NA'} items every metric scores; {len(fuller)} metric"
                f"{'s' if len(fuller) > 1 else ''} ({', '.join(fuller[:3])}{', ...' if len(fuller) > 3 else ''}) "
                "cover more: value_covered, on n_covered, not ranked")
    return ""


# ----------------------------------------------------------------------------- computing

def _rank(values: Mapping[str, float], metric: str) -> int:
    x = values[metric]
    return 1 + sum(1 for v in values.values() if v > x)


def compute(datasets: Sequence[DatasetFiles], options: LeaderboardOptions) -> Leaderboard:
    columns = [c for d in datasets for c in dataset_columns(d, options)]
    file_metrics: dict[str, dict[str, object]] = {}
    per_dataset_files: dict[str, set[str]] = {}
    for d in datasets:
        fm = d.file_metrics.to_dict("records")
        per_dataset_files[d.name] = {str(r["metric"]) for r in fm}
        for r in fm:
            file_metrics.setdefault(str(r["metric"]), r)
    declared = declared_dimensions(file_metrics.values())
    baselines = [summary_metric_of(b) for b in options.baselines]
    focus = [summary_metric_of(f) for f in options.focus] or list(file_metrics)
    best_rouge: list[str] = []
    for c in columns:
        rouge = sorted(((v[0], m) for m, v in c.values.items() if is_rouge_metric(m) and not math.isnan(v[0])),
                       key=lambda x: -x[0])
        best_rouge += [m for _, m in rouge[:options.best_rouge]]
    # the focus first, then the metrics every data set with texts has, then each benchmark's own
    metrics = list(dict.fromkeys([*focus, *baselines, *best_rouge, *file_metrics]))
    kinds = {m: ("file metric" if m in file_metrics else "baseline" if m in baselines
                 else "best ROUGE" if m in best_rouge else "built-in") for m in metrics}
    names = {m: str(file_metrics[m].get("name") or m) if m in file_metrics else m for m in metrics}
    texts = {d.name: d.texts for d in datasets}
    references = {d.name: d.references for d in datasets}
    rows, tests, notes, column_notes = [], [], [], {}
    for f in focus:
        if not any(f in c.values for c in columns):
            notes.append(f"the focus metric {f} is on no data set")
    for c in columns:
        shown = [m for m in metrics if declared.get(m, c.target) == c.target]
        defined = {m: c.values[m][0] for m in shown if m in c.values and not math.isnan(c.values[m][0])}
        best = max(defined, key=lambda m: (defined[m], -metrics.index(m))) if defined else None
        column_notes[c.key] = column_note(c, list(defined))
        for m in shown:
            row = {"dataset": c.dataset, "target": c.target, "level": c.level, "subset": c.subset, "metric": m,
                   "name": names[m],
                   "kind": kinds[m], "focus": "yes" if m in focus else "no", "statistic": c.statistic,
                   "test": c.test, "of": len(defined), "best": best or NA}
            extras = c.extras.get(m, dict.fromkeys(SYSTEM_EXTRAS, math.nan))
            row.update(extras if c.level == "system" else dict.fromkeys(SYSTEM_EXTRAS, math.nan))
            n, covered, n_covered, pdp = c.coverage.get(m, (math.nan,) * 4)
            row.update(n=n, value_covered=covered if n_covered > n else math.nan,
                       n_covered=n_covered if n_covered > n else math.nan, pdp=pdp)
            if m not in defined:
                rows.append({**row, "variant": NA, "value": math.nan, "lo": math.nan, "hi": math.nan, "rank": NA,
                             "p_vs_best": math.nan, "worse_than_best": NA, "wins": NA, "ties": NA, "losses": NA,
                             "note": absent_reason(m, c, texts[c.dataset], m in file_metrics,
                                                   per_dataset_files[c.dataset], m in focus, references[c.dataset])})
                continue
            value, lo, hi, source = c.values[m]
            wins = ties = losses = 0
            for o in defined:
                if o == m:
                    continue
                better, worse = c.p_better(m, o), c.p_better(o, m)
                if math.isnan(better) and math.isnan(worse):
                    continue
                verdict = ("win" if better < options.alpha else "loss" if worse < options.alpha else "tie")
                wins, ties, losses = wins + (verdict == "win"), ties + (verdict == "tie"), losses + (verdict == "loss")
                if m in focus:
                    tests.append({"dataset": c.dataset, "target": c.target, "level": c.level, "subset": c.subset,
                                  "metric": m, "other": o, "value": value, "other_value": defined[o], "p_better": better,
                                  "p_worse": worse, "verdict": verdict, "test": c.test})
            p_best = math.nan if m == best else c.p_better(best, m)
            worse_than_best = ("best" if m == best else NA if math.isnan(p_best)
                               else "yes" if p_best < options.alpha else "no")
            rows.append({**row, "variant": source, "value": value, "lo": lo, "hi": hi, "rank": _rank(defined, m),
                         "p_vs_best": p_best, "worse_than_best": worse_than_best, "wins": wins, "ties": ties,
                         "losses": losses, "note": ""})
    for r in rows:
        r["column_note"] = column_notes.get((r["dataset"], r["target"], r["level"], r["subset"]), "")
    by_name = {d.name: d for d in datasets}
    floors = {c.key: by_name[c.dataset].floors[c.key[1:]] for c in columns if c.key[1:] in by_name[c.dataset].floors}
    return Leaderboard([c.key for c in columns], metrics, rows, tests, focus, names, kinds, options, notes,
                       column_notes={k: v for k, v in column_notes.items() if v}, floors=floors)


def floor_rows(board: Leaderboard) -> list[dict[str, object]]:
    """The random floor of every column with one (:data:`FLOOR_COLUMNS`), in the columns' order."""
    statistic = {(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"])): r["statistic"]
                 for r in board.rows}
    return [dict(zip(FLOOR_COLUMNS, (*c, statistic.get(c, STATISTIC[c[2]]), *board.floors[c])))
            for c in board.columns if c in board.floors]


def absent_reason(metric: str, column: Column, texts: bool, is_file_metric: bool, dataset_files: set[str],
                  focus: bool = False, references: bool = True) -> str:
    """Why a metric has no value in a column, in a few words: a focus metric (the user's) missing on
    a score-only data set could not be computed there, whatever else ships; a built-in metric on a
    release without reference summaries has none to compare with."""
    if metric in column.values:
        return UNDEFINED
    if is_file_metric and metric not in dataset_files:
        return NO_TEXTS if focus and not texts else NOT_SHIPPED
    if is_file_metric:
        return NOT_AT_LEVEL
    if not texts:
        return NO_TEXTS
    return NOT_COMPUTED if references else NO_REFERENCES


# ----------------------------------------------------------------------------- writing

# the counts of leaderboard.tsv: integers, empty where a row has none (NaN in the rows)
COUNT_COLUMNS = ("n", "n_covered")


def _count(value: object) -> int | None:
    """A count held as a float (NaN where missing) as the integer it is, None where missing."""
    x = float(value)
    return None if math.isnan(x) else int(x)


def write(board: Leaderboard, out: Mapping[str, str]) -> None:
    rows = [{**r, **{c: _count(r[c]) for c in COUNT_COLUMNS}} for r in board.rows]
    tables.write_tsv(tables.frame(rows, LEADERBOARD_COLUMNS), out["leaderboard_tsv"], blank=COUNT_COLUMNS)
    tables.write_tsv(tables.frame(board.tests, TESTS_COLUMNS), out["tests_tsv"])
    tables.write_tsv(tables.frame(floor_rows(board), FLOOR_COLUMNS), out["floor_tsv"])
    # the verdict in a sentence per focus metric first, then the table
    verdicts = leaderboard_verdict.markdown(leaderboard_verdict.board_verdicts(board))
    write_text(out["leaderboard_md"], (verdicts + "\n\n" if verdicts else "") + tables.markdown_text(*markdown_table(board)))
    write_text(out["leaderboard_html"], page("metaeval: leaderboard", "Which metric to trust on these benchmarks?",
                                             [leaderboard_table.verdict_html(board),
                                              leaderboard_table.html_section(board)], []))


def read(leaderboard_tsv: str, options: LeaderboardOptions, tests_tsv: str | None = None) -> Leaderboard:
    """The leaderboard back from its TSV (for the report across data sets, which opens with it), with
    its tests' rows when ``tests_tsv`` is given (the verdict counts them)."""
    frame = tables.read_tsv(leaderboard_tsv, numeric=("value", "lo", "hi", "p_vs_best", *SYSTEM_EXTRAS, "n",
                                                      "value_covered", "n_covered", "pdp"))
    rows = frame.to_dict("records")
    columns = list(dict.fromkeys((str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"]))
                                 for r in rows))
    metrics = list(dict.fromkeys(str(r["metric"]) for r in rows))
    focus = [m for m in metrics if any(r["metric"] == m and r["focus"] == "yes" for r in rows)]
    metrics = [*focus, *(m for m in metrics if m not in focus)]
    names = {str(r["metric"]): str(r["name"]) for r in rows}
    kinds = {str(r["metric"]): str(r["kind"]) for r in rows}
    tests = tables.read_tsv(tests_tsv).to_dict("records") if tests_tsv else []
    notes = {(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"])): str(r["column_note"])
             for r in rows if str(r.get("column_note", "") or "") not in ("", NA)}
    return Leaderboard(columns, metrics, rows, tests, focus, names, kinds, options, column_notes=notes)
