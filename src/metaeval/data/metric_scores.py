"""Scores of metrics the workflow does not compute, read from files (``metric_scores.tsv``).

A score file is a long TSV (docs/DATASET_FORMAT.md): the header ``topic, summarizer, metric,
score`` and one row per scored summary and metric. A canonical data set folder's
``metric_scores.tsv`` is read automatically; a config entry may name more files
(``datasets.<name>.metric_scores``). dataset.yaml's ``metrics:`` and the entry's ``metrics:``
(which wins, key by key) may declare per metric a display name and ``higher_is_better: false``:
such a metric is negated for every analysis, so that "higher is better" holds for every score the
analyses see, and labelled "negated" wherever it is listed.

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
from typing import Collection, Iterable, Mapping, Sequence

from .. import tables
from ..files import write_text
from ..metrics.families import metric_id_problem
from .contract import Dataset, DatasetError, check_name, fail, parse_number, read_text
from .dataset_yaml import MetricDeclaration, parse_metric_declarations
from .datasets import read_dataset
HEADER = ("topic", "summarizer", "metric", "score")
METRIC_COLUMNS = ("metric", "name", "higher_is_better", "orientation", "description", "summaries", "judged",
                  "judged_missing", "sources")


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
    checksums: list[tuple[str, str]]           # (file, sha256) of every source file, in the given order
    notes: list[str]

    def oriented(self) -> list[tuple[str, str, str, float]]:
        """(topic, summarizer, metric, score) with every lower-is-better metric negated."""
        sign = {m.metric: 1.0 if m.declaration.higher_is_better else -1.0 for m in self.metrics}
        return [(r.topic, r.summarizer, r.metric, sign[r.metric] * r.score) for r in self.rows]


# ----------------------------------------------------------------------------- reading

def read_score_file(path: str, summaries: Collection[tuple[str, str]]) -> list[ScoreRow]:
    """One score file's rows; ``summaries`` holds every (topic, summarizer) of the data set."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or tuple(lines[0].rstrip("\r").split("\t")) != HEADER:
        got = lines[0].rstrip("\r").split("\t") if lines else []
        raise fail(path, 1, None, f"header is {got}; expected the four tab-separated columns {list(HEADER)}")
    rows: list[ScoreRow] = []
    problems: dict[str, str | None] = {}
    for line_no, raw in enumerate(lines[1:], start=2):
        raw = raw.rstrip("\r")
        if not raw.strip():
            continue
        cells = raw.split("\t")
        if len(cells) != 4:
            raise fail(path, line_no, None, f"{len(cells)} tab-separated cells; expected 4 (topic, summarizer, metric, score)")
        topic, summarizer, metric, cell = cells
        for field_name, value in (("topic", topic), ("summarizer", summarizer), ("metric", metric)):
            check_name(path, line_no, field_name, value)
        if (topic, summarizer) not in summaries:
            raise fail(path, line_no, "summarizer",
                       f"scores ({topic!r}, {summarizer!r}), which has no summary in summaries.jsonl")
        if metric not in problems:
            problems[metric] = metric_id_problem(metric)
        if problems[metric]:
            raise fail(path, line_no, "metric", f"{metric!r}: {problems[metric]}")
        # the contract's numbers only: float() would also take 'nan', 'inf' and other scripts' digits
        value = parse_number(path, line_no, "score", cell.strip(), "a finite decimal number")
        rows.append(ScoreRow(topic, summarizer, metric, value, path, line_no))
    if not rows:
        raise fail(path, None, None, "no score rows after the header; expected one row per scored summary and metric")
    return rows


def sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- checking

def compute(paths: Sequence[str], summaries: Collection[tuple[str, str]], judged: Iterable[tuple[str, str]],
            declared: Mapping[str, MetricDeclaration], overrides: Mapping[str, Mapping[str, object]],
            partial_coverage: bool, override_key: str) -> FileMetrics:
    """Read and check every score file. ``declared``: dataset.yaml's ``metrics:``; ``overrides``:
    the config entry's (metric -> the keys it gives; ``override_key`` names it in errors), which
    win over dataset.yaml's key by key."""
    seen: dict[tuple[str, str, str], ScoreRow] = {}
    for path in paths:
        for row in read_score_file(path, summaries):
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
    judged_keys = sorted(set(judged))
    metrics, notes = [], []
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
        given = {k: v for k, v in overrides.get(metric, {}).items() if v is not None}
        decl = dataclasses.replace(declared.get(metric, MetricDeclaration()), **given)
        if not decl.higher_is_better:
            notes.append(f"{metric}: lower is better; negated for every analysis")
        metrics.append(FileMetric(metric, decl, len(rows), judged_n, len(missing), files))
    rows_sorted = sorted(seen.values(), key=lambda r: (r.topic, r.summarizer, r.metric))
    return FileMetrics(rows_sorted, metrics, [(p, sha256(p)) for p in paths], notes)


# ----------------------------------------------------------------------------- writing

def signature_lines(result: FileMetrics) -> list[str]:
    """One scoring-signature line per metric: its source files (by name, with their checksums: the
    content identifies a file, not where it was read from) and its orientation."""
    sums = dict(result.checksums)
    return [f"{m.metric}|file:{','.join(f'{Path(s).name}@sha256:{sums[s][:16]}' for s in m.sources)}|"
            f"higher_is_better:{'yes' if m.declaration.higher_is_better else 'no (negated)'}" for m in result.metrics]


def write(result: FileMetrics, out: Mapping[str, str]) -> None:
    """``scores``: the oriented per-summary table the analyses read (sorted by topic, summarizer,
    metric); ``metrics``: one row per metric; ``signature``: :func:`signature_lines`. (The archive
    keeps the source files themselves.)"""
    tables.write_tsv(tables.frame(result.oriented(), HEADER), out["scores"])
    tables.write_tsv(tables.frame([(m.metric, m.name, "yes" if m.declaration.higher_is_better else "no", m.orientation,
                                    m.declaration.description, m.summaries, m.judged, m.judged_missing,
                                    ", ".join(Path(s).name for s in m.sources)) for m in result.metrics], METRIC_COLUMNS), out["metrics"])
    write_text(out["signature"], "".join(f"{line}\n" for line in signature_lines(result)))


def read_metrics(path: str) -> list[dict[str, str]]:
    """metrics.tsv's rows as text cells (for the tables and the report)."""
    return tables.read_tsv(path).to_dict("records")


def check(sources: Sequence[str], ds: Dataset, dataset_yaml: str, options) -> FileMetrics:
    """Check the score files ``sources`` against the data set ``ds`` (read from ``dataset_yaml`` and
    its folder) with the job's :class:`metaeval.options.FileMetricsOptions`. The validation job runs
    it on the user's files, before any analysis; the file metrics job through :func:`load`."""
    declared = parse_metric_declarations(ds.meta.get("metrics"), dataset_yaml)
    overrides = {m: {"name": n, "higher_is_better": h, "description": d} for m, n, h, d in options.declarations}
    return compute(sources, {s.key for s in ds.summaries}, ds.judgments, declared, overrides, options.partial_coverage, options.key)


def load(sources: Sequence[str], data: Mapping[str, str], options) -> FileMetrics:
    """Check the score files ``sources`` against the validated data set (its files by key,
    :data:`metaeval.data.datasets.FILES`) with the job's :class:`metaeval.options.FileMetricsOptions`."""
    return check(sources, read_dataset(data), data["dataset"], options)
