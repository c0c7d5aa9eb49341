"""Scores of metrics the workflow does not compute, read from files (``metric_scores.tsv``).

A score file is a long TSV (docs/DATASET_FORMAT.md): the header ``topic, summarizer, metric,
score`` and one row per scored summary and metric, or the same with a ``dataset`` column first
(``dataset, topic, summarizer, metric, score``: each row names its data set). A canonical data set
folder's ``metric_scores.tsv`` is read automatically; a config entry may name more files
(``datasets.<name>.metric_scores``: a ``dataset`` column there may name only that data set); the
top-level ``metric_scores`` names files for every configured data set (:class:`Scope`: each data set
takes the rows that name it; a row naming a data set that is not configured is an error naming the
configured ones; without a ``dataset`` column such a file serves a single configured data set only).
dataset.yaml's ``metrics:``, the top-level ``metrics:`` and the entry's ``metrics:`` (each wins over
the one before, key by key) may declare per metric a display name, ``higher_is_better: false`` (such
a metric is negated for every analysis, so that "higher is better" holds for every score the
analyses see, and labelled "negated" wherever it is listed) and the human ``dimension`` it is meant
for (written to metrics.tsv; a dimension the data set does not have is a note, since a top-level
declaration meets several data sets).

Validation (each error names the file, the line and the field): the header; a (topic, summarizer)
without a summary in summaries.jsonl; a (topic, summarizer, metric) given twice, in one file or
across files; a score that is not an ASCII decimal number (``nan``, ``inf`` refused); a metric id
that cannot name a variant or collides with a built-in metric
(:func:`metaeval.metrics.families.metric_id_problem`); a metric that scores some judged summaries but not
others (an error unless the entry sets ``partial_coverage: true``; then each metric's count of
judged summaries without a score is reported, and a summarizer's mean and median use the scores
that exist); a metric that scores no judged summary; a declaration of a metric no file has.

load -> :func:`compute` -> :class:`FileMetrics` -> :func:`write` (the
oriented per-summary table every analysis reads, one row per metric, and the signature lines of
the scoring signature).
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable, Mapping, NamedTuple, Sequence

from .. import tables
from ..files import write_text
from ..metrics.families import metric_id_problem
from .contract import Dataset, DatasetError, check_name, fail, parse_number, read_text
from .dataset_yaml import MetricDeclaration, parse_metric_declarations
from .datasets import read_dataset
from .shared_scores import DATASET_COLUMN, own_digest

HEADER = ("topic", "summarizer", "metric", "score")
# A file for several data sets names each row's data set in a first column (DATASET_COLUMN).
DATASET_HEADER = (DATASET_COLUMN, *HEADER)
METRIC_COLUMNS = ("metric", "name", "higher_is_better", "orientation", "description", "dimension", "summaries",
                  "judged", "judged_missing", "sources")


class Scope(NamedTuple):
    """Which rows of the score files one data set takes: ``dataset`` its name, ``configured`` the
    names of every configured data set, ``shared`` the files of the top-level ``metric_scores``
    (the others are the data set's own: a ``dataset`` column there may name only ``dataset``),
    ``declarations`` the top-level ``metrics:`` (metric -> the keys it gives; a declared metric the
    data set has no score of is a note, not an error)."""

    dataset: str = ""
    configured: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()
    declarations: Mapping[str, Mapping[str, object]] = {}

    def is_shared(self, path: str) -> bool:
        """Whether ``path`` is a top-level file (as the job's inputs name it: ``./x`` is ``x``)."""
        return Path(path) in {Path(p) for p in self.shared}


@dataclass(frozen=True)
class ScoreRow:
    topic: str
    summarizer: str
    metric: str
    score: float
    source: str
    line: int


@dataclass(frozen=True)
class FileMetric:
    """One metric read from score files, with its declaration and its coverage of the data set."""

    metric: str
    declaration: MetricDeclaration
    summaries: int              # summaries with a score
    judged: int                 # judged summaries with a score
    judged_missing: int         # judged summaries without one (0 unless partial coverage is allowed)
    sources: tuple[str, ...]    # the files its rows came from (as named in the config or the folder)

    @property
    def name(self) -> str:
        return self.declaration.name or self.metric

    @property
    def orientation(self) -> str:
        return "as given" if self.declaration.higher_is_better else "negated (lower is better)"


@dataclass
class FileMetrics:
    rows: list[ScoreRow]                       # sorted by topic, summarizer, metric
    metrics: list[FileMetric]                  # sorted by id
    checksums: list[tuple[str, str]]           # (file, sha256) of every source file (a top-level file's: of the
                                               # data set's own rows), in the given order
    notes: list[str]
    judged: int = 0                            # the data set's judged summaries

    def coverage(self) -> list[str]:
        """One line per metric: how many of the data set's judged summaries it scores."""
        return [f"{m.metric}: {m.judged} of {self.judged} judged summaries scored ({m.summaries} summaries in all; "
                f"from {', '.join(m.sources)})" for m in self.metrics]

    def oriented(self) -> list[tuple[str, str, str, float]]:
        """(topic, summarizer, metric, score) with every lower-is-better metric negated."""
        sign = {m.metric: 1.0 if m.declaration.higher_is_better else -1.0 for m in self.metrics}
        return [(r.topic, r.summarizer, r.metric, sign[r.metric] * r.score) for r in self.rows]


# ----------------------------------------------------------------------------- reading

def _header(path: str, lines: Sequence[str], scope: Scope) -> tuple[str, ...]:
    """The file's columns (:data:`HEADER` or :data:`DATASET_HEADER`), checked against its place in
    the config (a top-level file for several data sets must name each row's data set)."""
    got = tuple(lines[0].rstrip("\r").split("\t")) if lines else ()
    if got not in (HEADER, DATASET_HEADER):
        raise fail(path, 1, None, f"header is {list(got)}; expected the four tab-separated columns {list(HEADER)}, "
                   f"or five with {DATASET_COLUMN!r} first ({', '.join(DATASET_HEADER)})")
    if scope.is_shared(path) and got == HEADER and len(scope.configured) > 1:
        raise fail(path, 1, DATASET_COLUMN,
                   f"no {DATASET_COLUMN!r} column, but a file of the top-level metric_scores applies to every "
                   f"configured data set ({', '.join(scope.configured)}); expected the header "
                   f"{', '.join(DATASET_HEADER)} (each row naming its data set), or the file in one entry's "
                   "datasets.<name>.metric_scores")
    return got


def _own_row(path: str, line_no: int, name: str, scope: Scope) -> bool:
    """Whether a row naming data set ``name`` is the data set's own; a name it may not hold is an error."""
    check_name(path, line_no, DATASET_COLUMN, name)
    if scope.is_shared(path):
        if name not in scope.configured:
            raise fail(path, line_no, DATASET_COLUMN,
                       f"{name!r} is not a configured data set; expected one of the data sets of the config "
                       f"key datasets: {', '.join(scope.configured)}")
    elif name != scope.dataset:
        raise fail(path, line_no, DATASET_COLUMN,
                   f"{name!r} is not this file's data set {scope.dataset!r}; a file of "
                   f"datasets.{scope.dataset}.metric_scores (or of its folder or release) holds rows of "
                   f"{scope.dataset!r} only (a file for several data sets goes in the top-level metric_scores)")
    return name == scope.dataset


def read_score_file(path: str, summaries: Collection[tuple[str, str]], scope: Scope = Scope()) -> list[ScoreRow]:
    """One score file's rows of the data set (all of them, or with a ``dataset`` column those that
    name it: :class:`Scope`); ``summaries`` holds every (topic, summarizer) of the data set."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    columns = _header(path, lines, scope)
    named = columns == DATASET_HEADER
    rows: list[ScoreRow] = []
    problems: dict[str, str | None] = {}
    data_lines = 0
    for line_no, raw in enumerate(lines[1:], start=2):
        raw = raw.rstrip("\r")
        if not raw.strip():
            continue
        data_lines += 1
        cells = raw.split("\t")
        if len(cells) != len(columns):
            raise fail(path, line_no, None, f"{len(cells)} tab-separated cells; expected {len(columns)} "
                       f"({', '.join(columns)})")
        if named and not _own_row(path, line_no, cells.pop(0), scope):
            continue
        topic, summarizer, metric, cell = cells
        for field_name, value in (("topic", topic), ("summarizer", summarizer), ("metric", metric)):
            check_name(path, line_no, field_name, value)
        if (topic, summarizer) not in summaries:
            raise fail(path, line_no, "summarizer",
                       f"scores ({topic!r}, {summarizer!r}), which has no summary in summaries.jsonl"
                       + (f" of data set {scope.dataset!r}" if named else ""))
        if metric not in problems:
            problems[metric] = metric_id_problem(metric)
        if problems[metric]:
            raise fail(path, line_no, "metric", f"{metric!r}: {problems[metric]}")
        # the contract's numbers only: float() would also take 'nan', 'inf' and other scripts' digits
        value = parse_number(path, line_no, "score", cell.strip(), "a finite decimal number")
        rows.append(ScoreRow(topic, summarizer, metric, value, path, line_no))
    # a top-level file may hold no row of this data set (a metric computed on others only)
    if not data_lines or (not rows and not scope.is_shared(path)):
        raise fail(path, None, None, "no score rows after the header; expected one row per scored summary and metric")
    return rows


def sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- checking

def compute(paths: Sequence[str], summaries: Collection[tuple[str, str]], judged: Iterable[tuple[str, str]],
            declared: Mapping[str, MetricDeclaration], overrides: Mapping[str, Mapping[str, object]],
            partial_coverage: bool, override_key: str, scope: Scope = Scope()) -> FileMetrics:
    """Read and check every score file. ``declared``: dataset.yaml's ``metrics:``; ``overrides``:
    the config entry's (metric -> the keys it gives; ``override_key`` names it in errors), which
    win over the top-level ones (``scope.declarations``), which win over dataset.yaml's, key by key.
    ``scope``: which rows of the files are the data set's (:class:`Scope`)."""
    seen: dict[tuple[str, str, str], ScoreRow] = {}
    notes: list[str] = []
    for path in paths:
        rows = read_score_file(path, summaries, scope)
        if not rows:
            notes.append(f"{path}: no row of data set {scope.dataset!r} (a top-level score file)")
        for row in rows:
            key = (row.topic, row.summarizer, row.metric)
            if key in seen:
                first = seen[key]
                raise fail(path, row.line, "metric",
                           f"second score of {row.metric!r} for ({row.topic!r}, {row.summarizer!r}); first in "
                           f"{first.source}, line {first.line}; expected one score per summary and metric")
            seen[key] = row
    by_metric: dict[str, list[ScoreRow]] = {}
    for row in seen.values():
        by_metric.setdefault(row.metric, []).append(row)
    for source, decls in (("dataset.yaml", declared), (override_key, overrides)):
        for metric in decls:
            if metric not in by_metric:
                raise DatasetError(f"{source}: metrics.{metric} declares a metric that no score file has "
                                   f"(metrics in the files: {', '.join(sorted(by_metric)) or 'none'})")
    for metric in sorted(set(scope.declarations) - set(by_metric)):
        notes.append(f"config key metrics.{metric}: no score of {metric!r} for data set {scope.dataset!r}; "
                     "the declaration applies where the metric is scored")
    judged_keys = sorted(set(judged))
    metrics = []
    for metric in sorted(by_metric):
        rows = by_metric[metric]
        scored = {(r.topic, r.summarizer) for r in rows}
        missing = [k for k in judged_keys if k not in scored]
        judged_n = len(judged_keys) - len(missing)
        files = tuple(dict.fromkeys(r.source for r in rows))
        if judged_n == 0:
            raise DatasetError(f"{', '.join(files)}: metric {metric!r} scores none of the {len(judged_keys)} judged "
                               "summaries; expected scores of the summaries in judgments.tsv")
        if missing and not partial_coverage:
            t, s = missing[0]
            raise DatasetError(
                f"{', '.join(files)}: metric {metric!r} has no score for {len(missing)} of the {len(judged_keys)} judged "
                f"summaries (first: topic {t!r}, summarizer {s!r}); expected a score for every judged summary, or set "
                f"{override_key.rsplit('.', 1)[0]}.partial_coverage: true to analyse the summaries that have one")
        if missing:
            notes.append(f"{metric}: no score for {len(missing)} of {len(judged_keys)} judged summaries (partial "
                         "coverage allowed); its system scores are means and medians of the scores that exist")
        given = {k: v for source in (scope.declarations, overrides)
                 for k, v in source.get(metric, {}).items() if v is not None}
        decl = dataclasses.replace(declared.get(metric, MetricDeclaration()), **given)
        if not decl.higher_is_better:
            notes.append(f"{metric}: lower is better; negated for every analysis")
        metrics.append(FileMetric(metric, decl, len(rows), judged_n, len(missing), files))
    rows_sorted = sorted(seen.values(), key=lambda r: (r.topic, r.summarizer, r.metric))
    sums = [(p, own_digest(p, scope.dataset) if scope.is_shared(p) else sha256(p)) for p in paths]
    return FileMetrics(rows_sorted, metrics, sums, notes, len(judged_keys))


# ----------------------------------------------------------------------------- writing

def signature_lines(result: FileMetrics) -> list[str]:
    """One scoring-signature line per metric: its source files (by name, with their checksums: the
    content identifies a file, not where it was read from; a top-level file's checksum is of the
    data set's own rows, :func:`metaeval.data.shared_scores.own_rows`, so that an edit of another data
    set's rows leaves it true) and its orientation."""
    sums = dict(result.checksums)
    return [f"{m.metric}|file:{','.join(f'{Path(s).name}@sha256:{sums[s][:16]}' for s in m.sources)}|"
            f"higher_is_better:{'yes' if m.declaration.higher_is_better else 'no (negated)'}" for m in result.metrics]


def write(result: FileMetrics, out: Mapping[str, str]) -> None:
    """``scores``: the oriented per-summary table the analyses read (sorted by topic, summarizer,
    metric); ``metrics``: one row per metric; ``signature``: :func:`signature_lines`. (The archive
    keeps the source files themselves.)"""
    tables.write_tsv(tables.frame(result.oriented(), HEADER), out["scores"])
    tables.write_tsv(tables.frame([(m.metric, m.name, "yes" if m.declaration.higher_is_better else "no", m.orientation,
                                    m.declaration.description, m.declaration.dimension, m.summaries, m.judged,
                                    m.judged_missing,
                                    ", ".join(Path(s).name for s in m.sources)) for m in result.metrics], METRIC_COLUMNS), out["metrics"])
    write_text(out["signature"], "".join(f"{line}\n" for line in signature_lines(result)))


def read_metrics(path: str) -> list[dict[str, str]]:
    """metrics.tsv's rows as text cells (for the tables and the report)."""
    return tables.read_tsv(path).to_dict("records")


def declared_dimensions(rows: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """metric -> the dimension its metrics.tsv row declares it for, of the metrics declared for one
    (an LLM judge asked about coherence: the one target it serves)."""
    out = {}
    for r in rows:
        dimension = str(r.get("dimension", "") or "")
        if dimension not in ("", tables.NA, "nan"):
            out[str(r["metric"])] = dimension
    return out


def dimension_notes(result: FileMetrics, dimensions: Collection[str]) -> list[str]:
    """A note per metric declared for a dimension the data set does not have (a top-level
    declaration meets data sets with other dimensions: not an error)."""
    return [f"{m.metric}: declared for dimension {m.declaration.dimension!r}, which this data set does not have "
            f"(its dimensions: {', '.join(dimensions) or 'none'}); it is meant for no target here"
            for m in result.metrics if m.declaration.dimension and m.declaration.dimension not in dimensions]


def check(sources: Sequence[str], ds: Dataset, dataset_yaml: str, options) -> FileMetrics:
    """Check the score files ``sources`` against the data set ``ds`` (read from ``dataset_yaml`` and
    its folder) with the job's :class:`metaeval.options.FileMetricsOptions`. The validation job runs
    it on the user's files, before any analysis; the file metrics job through :func:`load`."""
    declared = parse_metric_declarations(ds.meta.get("metrics"), dataset_yaml)
    overrides, shared = ({m: dict(zip(("name", "higher_is_better", "description", "dimension"), keys))
                          for m, *keys in given} for given in (options.declarations, options.shared_declarations))
    scope = Scope(options.dataset, options.configured, options.shared, shared)
    result = compute(sources, {s.key for s in ds.summaries}, ds.judgments, declared, overrides, options.partial_coverage,
                     options.key, scope)
    result.notes.extend(dimension_notes(result, list(ds.dimensions)))
    return result


def load(sources: Sequence[str], data: Mapping[str, str], options) -> FileMetrics:
    """Check the score files ``sources`` against the validated data set (its files by key,
    :data:`metaeval.data.datasets.FILES`) with the job's :class:`metaeval.options.FileMetricsOptions`."""
    return check(sources, read_dataset(data), data["dataset"], options)
