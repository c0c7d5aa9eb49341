"""A ``format: table`` entry's declared mapping as records: where each file's fields are, where the
references and the judgments are, the files of metric scores, the topics' order of the files
aligned by line, the whole entry (:class:`TableOptions`, built by :func:`metaeval.data.table.table_options`),
and what the importer collects as it reads (:class:`_Collected`). Below both the importer
(:mod:`metaeval.data.table`) and its row readers (:mod:`metaeval.data.table_rows`), which import them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .contract import Annotation, Dimension, Summary

LAYOUTS = ("wide", "long", "annotators")


@dataclass(frozen=True)
class Columns:
    """Where a file's fields are (``None``: the file has no such field)."""
    topic: str | None = None
    summarizer: str | None = None
    text: str | None = None
    document: str | None = None
    split: str | None = None
    subset: str | None = None


@dataclass(frozen=True)
class References:
    """Where the references are: a field of the summaries' file (``column``, one string or a list:
    ``ref0``..``refN``), a file of their own (``path``: topic and text, optionally a summarizer), or
    the summaries of one ``system`` (``judged``: whether its judgments are kept, so that it is
    evaluated against the topic's other references)."""
    column: str | None = None
    path: str | None = None
    reader: str | None = None
    columns: Columns = Columns()
    system: str | None = None
    judged: bool = False
    aligned: bool = False                          # rows follow the topics' order (see Topics)
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()   # row filter: (column, the values kept)
    header: tuple[str, ...] = ()                   # a CSV/TSV without a header row: its columns' names


@dataclass(frozen=True)
class Judgments:
    """How the human scores are laid out, in the summaries' file or (``path``) a file of their own."""
    layout: str = "wide"
    path: str | None = None
    reader: str | None = None
    columns: Columns = Columns()                  # topic/summarizer of ``path`` (default: the entry's)
    wide: tuple[tuple[str, str], ...] = ()        # wide: (dimension, column); default the dimension's name
    dimension: str | None = None                  # long: the dimension's column
    score: str | None = None                      # long: the score's column
    annotator: str | None = None                  # long: the annotator's column (then annotations.tsv)
    group: str | None = None                      # long: the annotator group's column
    groups: tuple[tuple[str, str], ...] = ()      # annotators: (group, field holding the group's list)
    aligned: bool = False
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    header: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()                 # wide: cells that mean "not judged" (mt-metrics-eval's None)


@dataclass(frozen=True)
class MetricFile:
    """Metric scores in other files: one column per metric, the summary's topic/summarizer mapped
    like the entry's (or by ``columns``); ``path`` may hold ``{system}``."""
    path: str
    reader: str | None = None
    columns: Columns = Columns()
    metrics: tuple[str, ...] = ()
    aligned: bool = False
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    header: tuple[str, ...] = ()


@dataclass(frozen=True)
class Topics:
    """The topics' order of the files aligned by line (``aligned: true``): one record per topic, in
    order, giving its id (``column``) and/or its source document (``document``). A topic given by
    its document alone takes its id from a file of the mapping that pairs ids and documents (the
    summaries' file or the judgments' file, when not aligned); without one it is named by its
    position (``1``, ``2``, ...)."""
    path: str | None = None
    reader: str | None = None
    column: str | None = None
    document: str | None = None
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    header: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableOptions:
    """A ``format: table`` entry, built field by field from its config section (:func:`table_options`)."""
    path: str
    key: str = "datasets.<name>"                   # the entry's config key (import_table names the data set)
    reader: str | None = None
    columns: Columns = Columns()
    sentence_splitter: tuple[tuple[str, str], ...] = ()   # (text field: text / references / document, splitter)
    references: References = References()
    judgments: Judgments = Judgments()
    dimensions: tuple[Dimension, ...] = ()
    human: tuple[tuple[str, tuple[str, ...]], ...] = ()
    aggregation: Any = None
    metric_columns: tuple[str, ...] = ()
    metric_files: tuple[MetricFile, ...] = ()
    aligned: bool = False                          # the summaries' file: rows follow the topics' order
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    header: tuple[str, ...] = ()
    topics: Topics = Topics()
    texts: bool = True                             # false: a score-only release (judgments and metric scores)
    description: str = ""
    source: str = ""
    license: str = ""
    citation: str = ""

    def splitter(self, what: str) -> str:
        return dict(self.sentence_splitter).get(what, "none" if what == "document" else "metaeval")


@dataclass
class _Collected:
    summaries: dict[tuple[str, str], Summary] = field(default_factory=dict)
    where: dict[tuple[str, str], tuple[str, int | str]] = field(default_factory=dict)
    documents: dict[str, tuple[list[str], str, int | str]] = field(default_factory=dict)
    refs: dict[str, tuple[tuple[tuple[str, ...], ...], str, int | str]] = field(default_factory=dict)
    judgments: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)
    judgment_where: dict[tuple[str, str, str], str] = field(default_factory=dict)
    annotations: list[Annotation] = field(default_factory=list)
    scores: dict[tuple[str, str, str], tuple[float, str]] = field(default_factory=dict)
    # the topics' order of the files aligned by line: ([(topic, where in its file)], its file)
    order: tuple[list[tuple[str, int | str]], str] | None = None
