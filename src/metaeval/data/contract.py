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
import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..files import read_bytes
from ..logs import CheckError
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
# annotations.tsv's optional column before ``score``: the part of the summary an annotation judges
# (QAGS's sentences); a summary's annotation by an annotator is then the mean over its parts
ANNOTATION_PART = "part"
HUMAN_COMPONENTS = ("coverage", "linguistic_quality")
# The files of a data set folder, by key (docs/DATASET_FORMAT.md); the first three are required.
FILES = {"dataset": "dataset.yaml", "summaries": "summaries.jsonl", "judgments": "judgments.tsv",
         "documents": "documents.jsonl", "pyramids": "pyramids.jsonl", "annotations": "annotations.tsv"}
REQUIRED = ("dataset", "summaries", "judgments")
# Scores of metrics computed elsewhere, read from a canonical folder when present (metaeval.data.metric_scores).
METRIC_SCORES = "metric_scores.tsv"
ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
# The names importers give the references of a topic (ref0, ref1, ...): no system of a release may
# have one, or it would replace (or be replaced by) a reference.
REFERENCE_NAME = re.compile(r"ref[0-9]+")
# A number as the contract writes it (docs/DATASET_FORMAT.md, "Numbers"): ASCII digits, an optional
# sign, decimal point and exponent. Read only through :func:`parse_number`.
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
NUMBER_EXPECTED = "a number: ASCII digits with an optional sign, decimal point and exponent (e.g. 3, -0.25, 1e-3)"


class DatasetError(CheckError):
    """A data set file breaks the contract; the message says where and what was expected. A lone
    surrogate in it (from the data, or a file name the file system could not decode) is written as
    its escape, so that the message itself can always be logged."""

    def __init__(self, message: str = "") -> None:
        if isinstance(message, str):
            message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(message)


def _where(path: Path | str, line: int | str | None = None, field_name: str | None = None) -> str:
    """``path, line N, field 'f'``; a release without lines (a JSON list, a pickle) names the record
    instead: ``line`` is then text (``record 9 (hash, model)``) and the form ``path: record 9 (...)``."""
    where = str(path)
    if isinstance(line, str):
        where += f": {line}"
    elif line is not None:
        where += f", line {line}"
    if field_name is not None:
        where += f", field '{field_name}'"
    return where


def fail(path: Path | str, line: int | str | None, field_name: str | None, problem: str) -> DatasetError:
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
    """One annotator's score of one summary on one dimension (annotations.tsv), or of one part of it
    (``part``: e.g. a sentence's number, as QAGS judges sentence by sentence; "" = the summary)."""

    topic: str
    summarizer: str
    dimension: str
    annotator: str
    group: str
    score: float
    part: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.topic, self.summarizer)


def per_summary(annotations: list[Annotation]) -> list[Annotation]:
    """Every annotator's annotation of every summary (and dimension): as given, or, where the
    annotator judged parts of it, the mean of its parts' scores (the share of QAGS sentences a worker
    said yes to), in the order of first appearance."""
    if not any(a.part for a in annotations):
        return annotations
    parts: dict[tuple[str, str, str, str], list[Annotation]] = {}
    for a in annotations:
        parts.setdefault((a.topic, a.summarizer, a.dimension, a.annotator), []).append(a)
    return [Annotation(*key[:4], given[0].group, math.fsum(a.score for a in given) / len(given))
            for key, given in parts.items()]


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

    @property
    def has_references(self) -> bool:
        """Whether the release has reference summaries (dataset.yaml ``references: false``: none, its
        summaries and sources have texts for metrics of the user's, the workflow's reference-based
        metrics do not apply)."""
        return self.meta.get("references", True) is not False

    @property
    def pooled_summary_level(self) -> bool:
        """Whether the benchmark correlates at the summary level over all judged summaries pooled
        (dataset.yaml ``summary_level: pooled``, as XSumFaith's paper does)."""
        return self.meta.get("summary_level") == "pooled"

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

    @functools.cached_property
    def lone_references(self) -> frozenset[tuple[str, str]]:
        """The judged human summaries that are their topic's only human summary, kept when
        dataset.yaml says ``judged_lone_references: true`` (a release that judges its reference
        with metrics of its own): the reference-based metrics the workflow computes (ROUGE, BLEU,
        chrF, SERA) have no other reference to score them against and leave them unscored."""
        if not self.meta.get("judged_lone_references"):
            return frozenset()
        humans: dict[str, int] = {}
        for s in self.summaries:
            if s.kind == "human":
                humans[s.topic] = humans.get(s.topic, 0) + 1
        return frozenset(s.key for s in self.summaries
                         if s.kind == "human" and s.key in self.judgments and humans[s.topic] < 2)


def read_text(path: Path | str) -> str:
    """A data set file's text. Not UTF-8 is an error naming the file, the line and the column of
    the first bad byte; a leading byte-order mark (as Excel writes) is dropped
    (:func:`metaeval.files.read_bytes`, the one reader of text files)."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise fail(path, line, None, f"not valid UTF-8 (byte 0x{data[e.start]:02x} at column {column}); "
                   "expected UTF-8 text") from None


def parse_number(path: Path | str, line: int | str | None, field_name: str | None, value: Any,
                 expected: str = NUMBER_EXPECTED, text: bool = True) -> float:
    """The one reader of numbers, by the contract's rules: text must match :data:`NUMBER` (so not
    ``nan``, ``inf``, ``1_000``, ``0x1F`` or other scripts' digits such as ``١٢``, all of which
    ``float()`` reads); a JSON or YAML number must not be a boolean; the value must be finite as a
    double (``1e400`` and a 400-digit integer are refused). Any other value is an error naming the
    file, the line (or record) and the field, ending with ``expected`` (what the field takes). With
    ``text`` False a string is refused (a JSON field whose numbers are JSON numbers)."""
    if isinstance(value, str) and text:
        if not NUMBER.fullmatch(value):
            raise fail(path, line, field_name, f"{value!r} is not a number; expected {expected}")
        number = float(value)
        if not math.isfinite(number):
            raise fail(path, line, field_name, f"{value!r} overflows a double; expected a finite number")
        return number
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(path, line, field_name, f"{value!r} is not a number; expected {expected}")
    try:
        number = float(value)
    except OverflowError:
        raise fail(path, line, field_name, f"an integer of {len(str(abs(value)))} digits overflows a double; "
                   "expected a finite number") from None
    if not math.isfinite(number):
        raise fail(path, line, field_name, f"{value!r} is not a finite number; expected {expected}")
    return number


def check_text(path: Path | str, line: int | str | None, field_name: str | None, value: str) -> str:
    """Text must be proper Unicode: a lone surrogate (``"\\ud83d"`` in JSON, half of an emoji cut
    off) cannot be written as UTF-8, so it is an error naming the file, the line (or record) and the
    field where it enters, not a UnicodeEncodeError when a job writes it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise fail(path, line, field_name, f"{value[max(0, e.start - 20):e.start + 20]!r} contains a lone surrogate "
                   f"U+{ord(value[e.start]):04X} (a cut-off character, e.g. half of an emoji; at character "
                   f"{e.start + 1}); expected proper Unicode text") from None
    return value


# JSON text that can hold a surrogate: only a \u escape of one (UTF-8 text cannot).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def may_hold_surrogates(json_text: str) -> bool:
    """Whether parsed JSON text can hold a lone surrogate: only if it has a ``\\u`` escape of one."""
    return _SURROGATE_ESCAPE.search(json_text) is not None


def check_texts(path: Path | str, line: int | str | None, value: Any, field_name: str | None = None,
                source: str | None = None) -> None:
    """:func:`check_text` on every string (key or value) of a parsed JSON value, naming the field
    by its path (``references[2]``, ``scores.Rouge 1``). With ``source`` (the JSON text it was
    parsed from) nothing is walked unless the text has a surrogate escape."""
    if source is not None and not may_hold_surrogates(source):
        return
    stack = [(value, field_name)]
    while stack:
        v, where = stack.pop()
        if isinstance(v, str):
            check_text(path, line, where, v)
        elif isinstance(v, dict):
            for k, item in v.items():
                sub = f"{where}.{k}" if where else str(k)
                check_text(path, line, where, str(k))
                stack.append((item, sub))
        elif isinstance(v, list):
            stack.extend((item, f"{where or ''}[{i}]") for i, item in enumerate(v))


def load_json(text: str, path: Path | str, line: int | None, expected: str, **hooks: Any) -> Any:
    """``json.loads`` whose every failure is the contract's error naming the file and the line:
    malformed JSON, an integer of more digits than Python converts (4,300), nesting too deep."""
    try:
        return json.loads(text, **hooks)
    except DatasetError:
        raise            # a hook's own error (a key given twice), already naming the place
    except json.JSONDecodeError as e:
        where = line if line is not None else e.lineno
        raise fail(path, where, None, f"malformed JSON ({e.msg} at column {e.colno}); expected {expected}") from None
    except ValueError as e:  # int('9' * 5000): "Exceeds the limit (4300 digits) for integer string conversion"
        raise fail(path, line, None, f"a number with too many digits ({e}); expected {expected}") from None
    except RecursionError:
        raise fail(path, line, None, f"nested too deeply; expected {expected}") from None


class JsonRecord(dict):
    """A JSON object of a release as :func:`record_pairs` reads it, remembering the first key it gave
    twice (the importers name it with the record: json keeps the last value silently)."""

    duplicate: str | None = None


def record_pairs(pairs: list[tuple[str, Any]]) -> JsonRecord:
    """``json``'s ``object_pairs_hook`` for a release's records (:class:`JsonRecord`)."""
    out = JsonRecord()
    for k, v in pairs:
        if k in out and out.duplicate is None:
            out.duplicate = k
        out[k] = v
    return out


# Characters a name may not contain: the tables are tab-separated lines (and Python's splitlines
# also breaks at U+2028/U+2029, U+0085, \x1c-\x1e), so such a name could not round-trip; and the
# other C0 and C1 controls (U+0000-U+001F, U+007F-U+009F: U+009B starts a terminal's escape
# sequence), which would reach the logs and the JSON outputs as they are.
_BAD_NAME_CHARS = {chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))} | {"\u2028", "\u2029"}


def check_name(path: Path | str, line: int | str | None, field_name: str, name: str) -> None:
    """A topic or summarizer name must survive the line-based TSV tables unchanged."""
    for c in name:
        if c in _BAD_NAME_CHARS:
            label = unicodedata.name(c, "") or {"\t": "TAB", "\r": "CARRIAGE RETURN", "\n": "LINE FEED"}.get(
                c, "CONTROL CHARACTER")
            raise fail(path, line, field_name, f"{name!r} contains U+{ord(c):04X} ({label}); expected a name "
                       "without tabs, line breaks or other control characters")


class NameTwins:
    """Names that differ only by surrounding white space ("M8 " and "M8") would be two summarizers
    (or topics) where the data means one: the second is an error naming both places."""

    def __init__(self) -> None:
        self._seen: dict[str, dict[str, tuple[str, int | str | None]]] = {}

    def check(self, path: Path | str, line: int | str | None, field_name: str, name: str) -> None:
        seen = self._seen.setdefault(field_name, {})
        stripped = name.strip()
        first = seen.setdefault(stripped, (name, _where(path, line)))
        if first[0] != name:
            raise fail(path, line, field_name, f"{name!r} differs from {first[0]!r} ({first[1]}) only by surrounding "
                       "white space; expected one spelling of each name")


def _unique_keys(path: Path | str, line_no: int | None):
    """A ``json.loads`` hook refusing a key given twice in one object (json keeps the last)."""
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
        rec = load_json(line, path, line_no, expected, object_pairs_hook=_unique_keys(path, line_no))
        if not isinstance(rec, dict):
            raise fail(path, line_no, None, f"expected a JSON object ({expected}), got {type(rec).__name__}")
        check_texts(path, line_no, rec, source=line)
        yield line_no, rec
