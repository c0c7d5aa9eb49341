"""The data set contract's vocabulary (``docs/DATASET_FORMAT.md``): the files of a data set folder,
the records a data set is made of, the error every reader raises, and the checks every file's reader
shares (UTF-8 text, names that survive a TSV line, JSON-lines objects).

Every problem raises :class:`DatasetError` whose message names the file, the line (or row) and
the field, and says what was expected. Summary text is kept byte for byte: nothing here
lower-cases, strips or folds it.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..stats.aggregation import Aggregation
from .pyramid import TopicPyramid

SUMMARY_KINDS = ("system", "human")
# What a human dimension's values are (dataset.yaml ``dimensions.<d>.kind``; docs/DATASET_FORMAT.md):
# graded scores on [min, max]; binary labels 0/1; proportions on [0, 1]; a preference between the
# two judged summaries of a topic (1 = preferred, 0 = the other).
DIMENSION_KINDS = ("graded", "binary", "proportion", "preference")
# What a dimension is for, where the release says so (dataset.yaml ``dimensions.<d>.role``): a
# ``factual`` dimension judges factual consistency, so the factuality protocols run on it (as on
# every binary, proportion or preference dimension).
DIMENSION_ROLES = ("factual",)
FACTUAL_KINDS = ("binary", "proportion", "preference")
ANNOTATION_HEADER = ("topic", "summarizer", "dimension", "annotator", "group", "score")
HUMAN_COMPONENTS = ("coverage", "linguistic_quality")
# The files of a data set folder, by key (docs/DATASET_FORMAT.md); the first three are required.
FILES = {"dataset": "dataset.yaml", "summaries": "summaries.jsonl", "judgments": "judgments.tsv",
         "documents": "documents.jsonl", "pyramids": "pyramids.jsonl", "annotations": "annotations.tsv"}
REQUIRED = ("dataset", "summaries", "judgments")
# Scores of metrics computed elsewhere, read from a canonical folder when present (metaeval.data.metric_scores).
METRIC_SCORES = "metric_scores.tsv"
ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


class DatasetError(ValueError):
    """A data set file breaks the contract; the message says where and what was expected."""


def _where(path: Path | str, line: int | None = None, field_name: str | None = None) -> str:
    where = str(path)
    if line is not None:
        where += f", line {line}"
    if field_name is not None:
        where += f", field '{field_name}'"
    return where


def fail(path: Path | str, line: int | None, field_name: str | None, problem: str) -> DatasetError:
    return DatasetError(f"{_where(path, line, field_name)}: {problem}")


@dataclass(frozen=True)
class Summary:
    """One summary: who wrote it for which topic, and its sentences (text as given)."""

    topic: str
    summarizer: str
    kind: str
    sentences: tuple[str, ...]
    line: int = 0
    split: str | None = None       # optional: the data set's split (e.g. FRANK's valid / test)
    subset: str | None = None      # optional: a part of the data set (e.g. FRANK's cnndm / bbc)

    @property
    def key(self) -> tuple[str, str]:
        return (self.topic, self.summarizer)

    @property
    def has_ascii_alphanumeric(self) -> bool:
        """Whether ROUGE-1.5.5 can see any token in it: it keeps only A-Z, a-z and 0-9."""
        return any(ASCII_ALNUM.search(sentence) for sentence in self.sentences)

    @property
    def is_empty(self) -> bool:
        return all(not s.strip() for s in self.sentences)


@dataclass(frozen=True)
class Dimension:
    """A human dimension. ``kind`` is one of :data:`DIMENSION_KINDS`. A dimension whose judgments
    come from annotations.tsv (no column in judgments.tsv) is the mean of the annotations of
    ``annotations_of`` (default: itself) by the annotators of ``annotation_group`` (default: all)."""

    name: str
    min: float
    max: float
    description: str = ""
    kind: str = "graded"
    annotations_of: str | None = None
    annotation_group: str | None = None
    role: str | None = None

    @property
    def is_factual(self) -> bool:
        """Whether the factuality protocols run on it: declared ``role: factual``, or a binary,
        proportion or preference kind (labels and choices of consistency)."""
        return self.role == "factual" or self.kind in FACTUAL_KINDS

    def rescale(self, value: float) -> float:
        """Map a score onto [0, 1] by the declared min/max."""
        return (value - self.min) / (self.max - self.min)


@dataclass(frozen=True)
class Annotation:
    """One annotator's score of one summary on one dimension (annotations.tsv)."""

    topic: str
    summarizer: str
    dimension: str
    annotator: str
    group: str
    score: float

    @property
    def key(self) -> tuple[str, str]:
        return (self.topic, self.summarizer)


@dataclass
class Dataset:
    """A validated data set. ``judgments`` maps (topic, summarizer) to {dimension: score or NaN}."""

    name: str
    meta: dict[str, Any]
    dimensions: dict[str, Dimension]
    human: dict[str, list[str]]
    summaries: list[Summary]
    judgments: dict[tuple[str, str], dict[str, float]]
    documents: dict[str, list[str]] | None = None
    warnings: list[str] = field(default_factory=list)
    pyramids: dict[str, TopicPyramid] | None = None
    annotations: list[Annotation] = field(default_factory=list)
    has_texts: bool = True         # dataset.yaml ``texts: false``: summaries without text (score-only)
    aggregation: Aggregation = Aggregation()   # how annotators' scores become a judgment
    aggregated: tuple[str, ...] = ()           # the dimensions whose judgments were aggregated from annotations.tsv

    def summary(self, topic: str, summarizer: str) -> Summary:
        return self._index[(topic, summarizer)]

    @functools.cached_property
    def _index(self) -> dict[tuple[str, str], Summary]:
        return {s.key: s for s in self.summaries}

    @functools.cached_property
    def _references(self) -> dict[str, list[Summary]]:
        refs: dict[str, list[Summary]] = {}
        for s in sorted(self.summaries, key=lambda s: s.summarizer):
            if s.kind == "human":
                refs.setdefault(s.topic, []).append(s)
        return refs

    def references(self, topic: str) -> list[Summary]:
        """The human (reference) summaries of a topic, in summarizer order."""
        return list(self._references.get(topic, []))

    @functools.cached_property
    def topics(self) -> list[str]:
        return sorted({s.topic for s in self.summaries})

    @functools.cached_property
    def unscorable(self) -> list[Summary]:
        """Summaries with text but no ASCII letter or digit: ROUGE-1.5.5 sees no token in them."""
        return [s for s in self.summaries if not s.is_empty and not s.has_ascii_alphanumeric]

    def judged(self) -> list[Summary]:
        return [s for s in self.summaries if s.key in self.judgments]


def read_text(path: Path | str) -> str:
    """A data set file's text. Not UTF-8 is an error naming the file, the line and the column of
    the first bad byte; a leading byte-order mark (as Excel writes) is dropped."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise fail(path, line, None, f"not valid UTF-8 (byte 0x{data[e.start]:02x} at column {column}); "
                   "expected UTF-8 text") from None
    return text.removeprefix("\ufeff")


# Characters a name may not contain: the tables are tab-separated lines (and Python's splitlines
# also breaks at U+2028/U+2029, U+0085, \x1c-\x1e), so such a name could not round-trip.
_BAD_NAME_CHARS = {c for c in map(chr, range(32))} | {"\x7f", "\x85", "\u2028", "\u2029"}


def check_name(path: Path | str, line: int, field_name: str, name: str) -> None:
    """A topic or summarizer name must survive the line-based TSV tables unchanged."""
    for c in name:
        if c in _BAD_NAME_CHARS:
            label = unicodedata.name(c, "") or {"\t": "TAB", "\r": "CARRIAGE RETURN", "\n": "LINE FEED"}.get(
                c, "CONTROL CHARACTER")
            raise fail(path, line, field_name, f"{name!r} contains U+{ord(c):04X} ({label}); expected a name "
                       "without tabs, line breaks or other control characters")


def _unique_keys(path: Path | str, line_no: int):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise fail(path, line_no, k, "the key appears twice in this object; expected each key once")
            out[k] = v
        return out
    return hook


def json_objects(path: Path | str, expected: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON-lines file; a line that is not
    valid JSON, or not an object, is an error naming the file and line."""
    text = read_text(path)
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line, object_pairs_hook=_unique_keys(path, line_no))
        except json.JSONDecodeError as e:
            raise fail(path, line_no, None, f"malformed JSON ({e.msg} at column {e.colno}); expected {expected}") from None
        if not isinstance(rec, dict):
            raise fail(path, line_no, None, f"expected a JSON object ({expected}), got {type(rec).__name__}")
        yield line_no, rec
