"""Reading, validating and writing data sets in the canonical form.

The contract is ``docs/DATASET_FORMAT.md`` (a copy of the project's dataset contract): a folder
with ``dataset.yaml``, ``summaries.jsonl``, ``judgments.tsv`` and optionally ``documents.jsonl``.
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
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import yaml

from ..files import write_text
from .pyramid import TopicPyramid

SUMMARY_KINDS = ("system", "human")
# What a human dimension's values are (dataset.yaml ``dimensions.<d>.kind``; docs/DATASET_FORMAT.md):
# graded scores on [min, max]; binary labels 0/1; proportions on [0, 1]; a preference between the
# two judged summaries of a topic (1 = preferred, 0 = the other).
DIMENSION_KINDS = ("graded", "binary", "proportion", "preference")
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


# ----------------------------------------------------------------------------- dataset.yaml

def _yaml_lines(text: str) -> dict[tuple[str, ...], int]:
    """Line number (1-based) of every mapping key path in a YAML document, for error messages."""
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (str(key.value),)
                lines[sub] = key.start_mark.line + 1
                walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[path + (str(i),)] = item.start_mark.line + 1
                walk(item, path + (str(i),))

    try:
        walk(yaml.compose(text), ())
    except yaml.YAMLError:
        pass
    return lines


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


# The longest sentence the scoring accepts, in whitespace-separated words: ROUGE-L/W hold
# matrices of (longest sentence + 1)^2 cells (17 bytes each; 425 MB at this limit).
MAX_SENTENCE_WORDS = 5000


def _unique_keys(path: Path | str, line_no: int):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise fail(path, line_no, k, "the key appears twice in this object; expected each key once")
            out[k] = v
        return out
    return hook


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# Bounds implied by a kind; a graded dimension declares its own.
KIND_BOUNDS = {"binary": (0.0, 1.0), "proportion": (0.0, 1.0), "preference": (0.0, 1.0)}
DIMENSION_KEYS = ("min", "max", "description", "kind", "annotations")


def _parse_dimension(path: Path, lines: Mapping[tuple[str, ...], int], name: str, spec: Any) -> Dimension:
    """One ``dimensions:`` entry: {min, max, description, kind, annotations: {dimension, group}}."""
    line = lines.get(("dimensions", name))
    fname = f"dimensions.{name}"

    def at(*keys: str) -> int | None:
        return lines.get(("dimensions", name, *keys), line)

    if name in ("topic", "summarizer"):
        raise fail(path, line, fname, "'topic' and 'summarizer' are reserved column names")
    if not isinstance(spec, dict):
        raise fail(path, line, fname, "expected a mapping {min: number, max: number}")
    unknown = sorted(set(map(str, spec)) - set(DIMENSION_KEYS))
    if unknown:
        raise fail(path, at(unknown[0]), f"{fname}.{unknown[0]}", f"unknown key; expected only {', '.join(DIMENSION_KEYS)}")
    kind = spec.get("kind", "graded")
    if kind not in DIMENSION_KINDS:
        raise fail(path, at("kind"), f"{fname}.kind", f"{kind!r}; expected one of {', '.join(DIMENSION_KINDS)}")
    bounds = KIND_BOUNDS.get(kind)
    for bound in ("min", "max"):
        if bound not in spec and bounds is not None:
            continue  # implied by the kind
        if not _is_number(spec.get(bound)):
            raise fail(path, at(bound), f"{fname}.{bound}", f"missing or not a number (got {spec.get(bound)!r})")
    lo = float(spec.get("min", bounds[0] if bounds else 0))
    hi = float(spec.get("max", bounds[1] if bounds else 0))
    if bounds is not None and (lo, hi) != bounds:
        raise fail(path, at("min"), fname, f"a {kind} dimension has min 0 and max 1 (got {lo:g} and {hi:g}); "
                   "leave them out or set them so")
    if not hi > lo:
        raise fail(path, line, fname, f"max ({spec['max']}) must be greater than min ({spec['min']})")
    source = spec.get("annotations")
    of = group = None
    if source is not None:
        if not isinstance(source, dict) or set(map(str, source)) - {"dimension", "group"}:
            raise fail(path, at("annotations"), f"{fname}.annotations",
                       "expected a mapping {dimension: <annotated dimension>, group: <annotator group>} (both optional)")
        for key in ("dimension", "group"):
            if key in source and (not isinstance(source[key], str) or not source[key]):
                raise fail(path, at("annotations", key), f"{fname}.annotations.{key}", "expected a name")
        of, group = source.get("dimension"), source.get("group")
    return Dimension(name, lo, hi, str(spec.get("description", "")), kind, of, group)


def dimension_spec(d: Dimension) -> dict[str, Any]:
    """A dimension as dataset.yaml declares it (the inverse of :func:`_parse_dimension`): the
    issue-21 keys only where they differ from their defaults."""
    spec: dict[str, Any] = {"min": d.min, "max": d.max, "description": d.description}
    if d.kind != "graded":
        spec["kind"] = d.kind
    source = {k: v for k, v in (("dimension", d.annotations_of), ("group", d.annotation_group)) if v is not None}
    if source:
        spec["annotations"] = source
    return spec


def parse_dataset_yaml(path: Path, text: str, human_override: Mapping[str, list[str]] | None = None
                       ) -> tuple[dict[str, Any], dict[str, Dimension], dict[str, list[str]]]:
    """Validate dataset.yaml; return (meta, dimensions, human components)."""
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise fail(path, mark.line + 1 if mark else None, None, f"malformed YAML: {e}") from None
    lines = _yaml_lines(text)
    if not isinstance(meta, dict):
        raise fail(path, 1, None, "expected a mapping with keys name, dimensions, human, ...")
    if not isinstance(meta.get("name"), str) or not meta["name"].strip():
        raise fail(path, lines.get(("name",)), "name", "missing or not a string; expected the data set's name")
    dims_raw = meta.get("dimensions")
    if not isinstance(dims_raw, dict) or not dims_raw:
        raise fail(path, lines.get(("dimensions",)), "dimensions",
                   "missing or empty; expected a mapping of every judgment column to {min, max}")
    dims: dict[str, Dimension] = {}
    for name, spec in dims_raw.items():
        dims[str(name)] = _parse_dimension(path, lines, str(name), spec)
    for d in dims.values():
        if d.annotations_of is not None and d.annotations_of not in dims:
            raise fail(path, lines.get(("dimensions", d.name, "annotations", "dimension")),
                       f"dimensions.{d.name}.annotations.dimension",
                       f"{d.annotations_of!r} is not a declared dimension (declared: {', '.join(dims)})")
    texts = meta.get("texts", True)
    if not isinstance(texts, bool):
        raise fail(path, lines.get(("texts",)), "texts", f"{texts!r} is not true or false (false: summaries "
                   "without text, a score-only data set)")
    human_raw = human_override if human_override is not None else meta.get("human")
    source = "config human override" if human_override is not None else None
    if not isinstance(human_raw, dict):
        raise fail(path, lines.get(("human",)), "human",
                   "missing; expected {coverage: [dimensions], linguistic_quality: [dimensions]}")
    human: dict[str, list[str]] = {}
    for comp in HUMAN_COMPONENTS:
        lst = human_raw.get(comp, [])
        if lst is None:
            lst = []
        line = lines.get(("human", comp), lines.get(("human",)))
        where_path = source or path
        if not isinstance(lst, list) or not all(isinstance(d, str) for d in lst):
            raise fail(where_path, None if source else line, f"human.{comp}",
                       "expected a list of dimension names (may be empty)")
        for i, d in enumerate(lst):
            if d not in dims:
                raise fail(where_path, None if source else lines.get(("human", comp, str(i)), line),
                           f"human.{comp}",
                           f"dimension '{d}' is not declared under dimensions: (declared: {', '.join(dims)})")
        human[comp] = list(lst)
    unknown = set(human_raw) - set(HUMAN_COMPONENTS)
    if unknown:
        raise fail(source or path, None if source else lines.get(("human", sorted(unknown)[0])), "human",
                   f"unknown component(s) {sorted(unknown)}; expected only {list(HUMAN_COMPONENTS)}")
    if not human["coverage"] and not human["linguistic_quality"]:
        raise fail(source or path, None if source else lines.get(("human",)), "human",
                   "both components are empty; at least one must list a dimension")
    parse_metric_declarations(meta.get("metrics"), path, lines)
    return meta, dims, human


@dataclass(frozen=True)
class MetricDeclaration:
    """What dataset.yaml's ``metrics:`` (or a config entry's) says of a metric in metric_scores.tsv."""

    name: str = ""                 # display name ("" = the metric's id)
    higher_is_better: bool = True
    description: str = ""


DECLARATION_KEYS = ("name", "higher_is_better", "description")


def parse_metric_declarations(raw: Any, where: Path | str, lines: Mapping[tuple[str, ...], int] | None = None
                              ) -> dict[str, MetricDeclaration]:
    """Validate a ``metrics:`` mapping (metric id -> {name, higher_is_better, description}) of
    dataset.yaml (``lines`` from its text) or of a config entry (``where`` names the config key)."""
    lines = lines or {}
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise fail(where, lines.get(("metrics",)), "metrics",
                   "expected a mapping of metric ids (as in metric_scores.tsv) to {name, higher_is_better, description}")
    out: dict[str, MetricDeclaration] = {}
    for metric, spec in raw.items():
        line, fname = lines.get(("metrics", str(metric))), f"metrics.{metric}"
        spec = {} if spec is None else spec
        if not isinstance(spec, dict):
            raise fail(where, line, fname, "expected a mapping {name: text, higher_is_better: true|false, description: text}")
        unknown = sorted(set(map(str, spec)) - set(DECLARATION_KEYS))
        if unknown:
            raise fail(where, lines.get(("metrics", str(metric), unknown[0]), line), f"{fname}.{unknown[0]}",
                       f"unknown key; expected only {', '.join(DECLARATION_KEYS)}")
        hib = spec.get("higher_is_better", True)
        if not isinstance(hib, bool):
            raise fail(where, lines.get(("metrics", str(metric), "higher_is_better"), line), f"{fname}.higher_is_better",
                       f"{hib!r} is not true or false")
        for key in ("name", "description"):
            if not isinstance(spec.get(key, ""), str):
                raise fail(where, lines.get(("metrics", str(metric), key), line), f"{fname}.{key}", "expected text")
        out[str(metric)] = MetricDeclaration(spec.get("name", ""), hib, spec.get("description", ""))
    return out


# ----------------------------------------------------------------------------- summaries.jsonl

def split_text(text: str) -> tuple[str, ...]:
    """The sentences of a record that gives ``text``: one sentence per line, as the contract says."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last sentence; it does not start a new one
    return tuple(lines)


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


def parse_summary_record(path: Path, line_no: int, rec: Mapping[str, Any], texts: bool = True) -> Summary:
    """One summaries.jsonl record. With ``texts`` False (dataset.yaml ``texts: false``) a record
    names a summary without giving its text."""
    for key in ("topic", "summarizer", "kind"):
        if key not in rec:
            raise fail(path, line_no, key, "missing; every record needs topic, summarizer, kind and sentences (or text)")
        if not isinstance(rec[key], str) or not rec[key]:
            raise fail(path, line_no, key, f"expected a non-empty string, got {rec[key]!r}")
    for key in ("topic", "summarizer"):
        check_name(path, line_no, key, rec[key])
    if rec["kind"] not in SUMMARY_KINDS:
        raise fail(path, line_no, "kind", f"expected 'system' or 'human', got {rec['kind']!r}")
    labels = {}
    for key in ("split", "subset"):
        if key in rec:
            if not isinstance(rec[key], str) or not rec[key]:
                raise fail(path, line_no, key, f"expected a non-empty string, got {rec[key]!r}")
            check_name(path, line_no, key, rec[key])
            labels[key] = rec[key]
    has_sent, has_text = "sentences" in rec, "text" in rec
    if not texts:
        if has_sent or has_text:
            raise fail(path, line_no, "sentences" if has_sent else "text",
                       "dataset.yaml says texts: false (a score-only data set); expected no text in summaries.jsonl")
        return Summary(rec["topic"], rec["summarizer"], rec["kind"], (), line_no, **labels)
    if has_sent == has_text:
        raise fail(path, line_no, "sentences",
                   "expected exactly one of 'sentences' (list of strings) or 'text' (one string)")
    if has_sent:
        sents = rec["sentences"]
        if not isinstance(sents, list):
            raise fail(path, line_no, "sentences", f"expected a list of strings, got {type(sents).__name__}")
        for i, s in enumerate(sents):
            if not isinstance(s, str):
                raise fail(path, line_no, f"sentences[{i}]", f"expected a string, got {s!r}")
        sentences = tuple(sents)
    else:
        if not isinstance(rec["text"], str):
            raise fail(path, line_no, "text", f"expected a string, got {type(rec['text']).__name__}")
        sentences = split_text(rec["text"])
    for i, sentence in enumerate(sentences):
        # a sentence of n characters has at most n words: only long ones are split and counted
        words = len(sentence.split()) if len(sentence) > MAX_SENTENCE_WORDS else 0
        if words > MAX_SENTENCE_WORDS:
            where = f"sentences[{i}]" if has_sent else "text"
            raise fail(path, line_no, where, f"{words} words; expected at most {MAX_SENTENCE_WORDS} words per sentence "
                       "(ROUGE-L/W's memory grows with the square of the longest sentence; split it into sentences)")
    return Summary(rec["topic"], rec["summarizer"], rec["kind"], sentences, line_no, **labels)


def read_summaries(path: Path, texts: bool = True) -> list[Summary]:
    summaries: list[Summary] = []
    seen: dict[tuple[str, str], int] = {}
    for line_no, rec in json_objects(path, "one summary object per line"):
        s = parse_summary_record(path, line_no, rec, texts)
        if s.key in seen:
            raise fail(path, line_no, "summarizer",
                       f"duplicate (topic, summarizer) = ({s.topic!r}, {s.summarizer!r}); first seen on line {seen[s.key]}")
        seen[s.key] = line_no
        summaries.append(s)
    if not summaries:
        raise fail(path, None, None, "no summaries; expected one JSON object per line")
    return summaries


# ----------------------------------------------------------------------------- judgments.tsv

def _tsv_rows(path: Path, lines: Sequence[str], width: int) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of every non-blank line after the header; a row of another width than
    the header's is an error naming the line."""
    for line_no, raw in enumerate(lines[1:], start=2):
        raw = raw.rstrip("\r")
        if not raw.strip():
            continue
        cells = raw.split("\t")
        if len(cells) != width:
            raise fail(path, line_no, None, f"{len(cells)} tab-separated cells; expected {width} as in the header")
        yield line_no, cells


def read_judgments(path: Path, dims: Mapping[str, Dimension], summary_keys: Mapping[tuple[str, str], int],
                   derived: Iterable[str] = ()
                   ) -> tuple[dict[tuple[str, str], dict[str, float]], dict[tuple[str, str], int]]:
    """Parse judgments.tsv; return ({(topic, summarizer): {dim: value}}, {key: line number}).
    Dimensions in ``derived`` (their values come from annotations.tsv) may have no column, and
    then the file may have no rows."""
    derived = set(derived)
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise fail(path, 1, None, "empty file; expected a header 'topic<TAB>summarizer<TAB>dimension...'")
    header = lines[0].rstrip("\r").split("\t")
    if header[:2] != ["topic", "summarizer"]:
        raise fail(path, 1, None, f"header starts with {header[:2]}; expected the first two columns 'topic' and 'summarizer'")
    columns = header[2:]
    for c in columns:
        if c not in dims:
            raise fail(path, 1, c, f"column is not a dimension declared in dataset.yaml (declared: {', '.join(dims)})")
    if len(set(columns)) != len(columns):
        raise fail(path, 1, None, "a dimension column appears twice")
    missing = [d for d in dims if d not in columns and d not in derived]
    if missing:
        raise fail(path, 1, missing[0], "dimension declared in dataset.yaml has no column (and no annotations in "
                   "annotations.tsv to take its values from)")
    out: dict[tuple[str, str], dict[str, float]] = {}
    where: dict[tuple[str, str], int] = {}
    for line_no, cells in _tsv_rows(path, lines, len(header)):
        key = (cells[0], cells[1])
        if key not in summary_keys:
            raise fail(path, line_no, "summarizer",
                       f"judges ({cells[0]!r}, {cells[1]!r}), which has no summary in summaries.jsonl")
        if key in out:
            raise fail(path, line_no, "summarizer",
                       f"second judgment row for ({cells[0]!r}, {cells[1]!r}); first on line {where[key]}")
        scores: dict[str, float] = {}
        for col, cell in zip(columns, cells[2:]):
            cell = cell.strip()
            if cell == "":
                scores[col] = math.nan
                continue
            # ASCII decimal numbers only: float() would also take 'nan', 'inf' and other scripts' digits
            if not NUMBER.fullmatch(cell):
                raise fail(path, line_no, col, f"{cell!r} is not a number; expected a number or an empty cell")
            scores[col] = check_value(path, line_no, col, cell, dims[col])
        out[key] = scores
        where[key] = line_no
    if not out and len(derived) < len(dims):
        raise fail(path, None, None, "no judgment rows after the header; expected one row per judged summary")
    for col in columns:
        if all(math.isnan(scores[col]) for scores in out.values()):
            raise fail(path, None, col, "every cell of this dimension is empty; expected at least one judgment "
                       "(fill it, or remove the column and its entry in dataset.yaml)")
    return out, where


def check_value(path: Path | str, line_no: int, field_name: str, cell: str, d: Dimension) -> float:
    """A judgment or annotation cell (an ASCII decimal number) checked against its dimension's
    range and kind."""
    v = float(cell)
    if v < d.min or v > d.max:
        raise fail(path, line_no, field_name, f"{cell} is outside the declared range [{d.min:g}, {d.max:g}]")
    if d.kind in ("binary", "preference") and v not in (0.0, 1.0):
        raise fail(path, line_no, field_name, f"{cell} is not a label of a {d.kind} dimension; expected 0 or 1")
    return v


def check_preferences(path: Path | str, dims: Mapping[str, Dimension], judgments: Mapping[tuple[str, str], Mapping[str, float]],
                      lines: Mapping[tuple[str, str], int]) -> None:
    """A preference dimension judges exactly two summaries of each topic it judges: the preferred
    one 1, the other 0."""
    for d in (d for d in dims.values() if d.kind == "preference"):
        by_topic: dict[str, list[tuple[tuple[str, str], float]]] = {}
        for key, scores in judgments.items():
            if not math.isnan(scores.get(d.name, math.nan)):
                by_topic.setdefault(key[0], []).append((key, scores[d.name]))
        for topic, pairs in sorted(by_topic.items()):
            pairs.sort(key=lambda kv: lines.get(kv[0], 0))
            labels = sorted(v for _, v in pairs)
            if len(pairs) != 2 or labels != [0.0, 1.0]:
                line = lines.get(pairs[-1][0]) if len(pairs) > 2 else lines.get(pairs[0][0])
                raise fail(path, line, d.name, f"topic {topic!r} has {len(pairs)} judged summar"
                           f"{'y' if len(pairs) == 1 else 'ies'} with labels {[f'{v:g}' for v in labels]}; a "
                           "preference judges a pair: exactly two summaries of the topic, the preferred one 1 "
                           "and the other 0")


# ----------------------------------------------------------------------------- annotations.tsv

def read_annotations(path: Path, dims: Mapping[str, Dimension], summary_keys: Iterable[tuple[str, str]]
                     ) -> list[Annotation]:
    """annotations.tsv: one row per (summary, dimension, annotator); header ``topic summarizer
    dimension annotator score`` or with ``group`` before ``score`` (without it every annotator is in
    the group ``all``). An annotator belongs to one group."""
    keys = set(summary_keys)
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    full, short = list(ANNOTATION_HEADER), [c for c in ANNOTATION_HEADER if c != "group"]
    header = lines[0].rstrip("\r").split("\t") if lines else []
    if header not in (full, short):
        raise fail(path, 1, None, f"header {header}; expected the tab-separated columns {' '.join(full)} "
                   "(group may be left out)")
    out: list[Annotation] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    groups: dict[str, tuple[str, int]] = {}
    for line_no, cells in _tsv_rows(path, lines, len(header)):
        row = dict(zip(header, cells))
        key = (row["topic"], row["summarizer"])
        if key not in keys:
            raise fail(path, line_no, "summarizer", f"annotates ({key[0]!r}, {key[1]!r}), which has no summary in "
                       "summaries.jsonl")
        if row["dimension"] not in dims:
            raise fail(path, line_no, "dimension", f"{row['dimension']!r} is not a dimension declared in dataset.yaml "
                       f"(declared: {', '.join(dims)})")
        for name in ("annotator", "group"):
            if name in row:
                if not row[name]:
                    raise fail(path, line_no, name, "empty; expected a name")
                check_name(path, line_no, name, row[name])
        group = row.get("group", "all")
        first = groups.setdefault(row["annotator"], (group, line_no))
        if first[0] != group:
            raise fail(path, line_no, "group", f"annotator {row['annotator']!r} is in group {first[0]!r} on line "
                       f"{first[1]}; expected one group per annotator")
        ident = (*key, row["dimension"], row["annotator"])
        if ident in seen:
            raise fail(path, line_no, "annotator", f"second score of {row['annotator']!r} for ({key[0]!r}, {key[1]!r}) "
                       f"on {row['dimension']!r}; first on line {seen[ident]}")
        seen[ident] = line_no
        cell = row["score"].strip()
        if not NUMBER.fullmatch(cell):
            raise fail(path, line_no, "score", f"{cell!r} is not a number; expected an ASCII decimal number")
        score = check_value(path, line_no, "score", cell, dims[row["dimension"]])
        out.append(Annotation(key[0], key[1], row["dimension"], row["annotator"], group, score))
    return out


def annotation_means(dims: Mapping[str, Dimension], annotations: Sequence[Annotation]
                     ) -> dict[str, dict[tuple[str, str], float]]:
    """The judgment of every dimension that annotations can give, per summary: the mean of the
    annotations of the dimension's ``annotations_of`` (default: itself) by its ``annotation_group``
    (default: every annotator). The contract's rule for a dimension without a judgments.tsv column."""
    sums: dict[tuple[str, str | None], dict[tuple[str, str], list[float]]] = {}
    for a in annotations:
        for group in (None, a.group):
            sums.setdefault((a.dimension, group), {}).setdefault(a.key, []).append(a.score)
    out: dict[str, dict[tuple[str, str], float]] = {}
    for d in dims.values():
        source = sums.get((d.annotations_of or d.name, d.annotation_group))
        if source:
            out[d.name] = {k: math.fsum(v) / len(v) for k, v in source.items()}
    return out


# ----------------------------------------------------------------------------- documents.jsonl

def read_documents(path: Path, topics: Iterable[str]) -> dict[str, list[str]]:
    docs: dict[str, list[str]] = {}
    known = set(topics)
    for line_no, rec in json_objects(path, "{topic, documents}"):
        if not isinstance(rec.get("topic"), str):
            raise fail(path, line_no, "topic", "missing or not a string")
        d = rec.get("documents")
        if not isinstance(d, list) or not all(isinstance(x, str) for x in d):
            raise fail(path, line_no, "documents", "expected a list of strings")
        if rec["topic"] in docs:
            raise fail(path, line_no, "topic", f"topic {rec['topic']!r} appears twice")
        if rec["topic"] not in known:
            raise fail(path, line_no, "topic", f"topic {rec['topic']!r} has no summary in summaries.jsonl")
        docs[rec["topic"]] = list(d)
    return docs


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def read_pyramids(path: Path, summary_keys: Iterable[tuple[str, str]]) -> dict[str, TopicPyramid]:
    """pyramids.jsonl: one line per topic, {"topic", "models", "scus": {id: weight},
    "summaries": {summarizer: [SCU id, ...]}} (see docs/DATASET_FORMAT.md)."""
    keys = set(summary_keys)
    topics = {t for t, _ in keys}
    out: dict[str, TopicPyramid] = {}
    for line_no, rec in json_objects(path, "{topic, models, scus, summaries}"):
        topic = rec.get("topic")
        if not isinstance(topic, str):
            raise fail(path, line_no, "topic", "missing or not a string")
        if topic not in topics:
            raise fail(path, line_no, "topic", f"topic {topic!r} has no summary in summaries.jsonl")
        if topic in out:
            raise fail(path, line_no, "topic", f"topic {topic!r} appears twice")
        models = rec.get("models")
        if not _is_int(models) or models < 1:
            raise fail(path, line_no, "models", f"expected the number of model summaries the pyramid was built "
                                                f"from, an integer >= 1 (got {models!r})")
        scus = rec.get("scus")
        if not isinstance(scus, dict) or not scus:
            raise fail(path, line_no, "scus", "expected a non-empty mapping {SCU id: weight}")
        for unit, w in scus.items():
            if not _is_int(w) or not 1 <= w <= models:
                raise fail(path, line_no, f"scus.{unit}", f"weight must be an integer from 1 to models ({models}); "
                                                          f"got {w!r}")
        annotated = rec.get("summaries")
        if not isinstance(annotated, dict):
            raise fail(path, line_no, "summaries", "expected a mapping {summarizer: [SCU id, ...]}")
        expressed: dict[str, tuple[str, ...]] = {}
        for summarizer, units in annotated.items():
            where = f"summaries.{summarizer}"
            if (topic, summarizer) not in keys:
                raise fail(path, line_no, where, f"no summary of topic {topic!r} by {summarizer!r} in summaries.jsonl")
            if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
                raise fail(path, line_no, where, "expected a list of SCU ids")
            unknown = [u for u in units if u not in scus]
            if unknown:
                raise fail(path, line_no, where, f"SCU {unknown[0]!r} is not listed under scus")
            if len(set(units)) != len(units):
                raise fail(path, line_no, where, "an SCU is listed twice (a summary expresses an SCU at most once)")
            expressed[summarizer] = tuple(units)
        out[topic] = TopicPyramid(topic, models, dict(scus), expressed)
    return out


# ----------------------------------------------------------------------------- whole data set

def folder_files(folder: Path | str) -> dict[str, str]:
    """The data set files of a folder, by key (only those that exist)."""
    folder = Path(folder)
    return {key: str(folder / name) for key, name in FILES.items() if (folder / name).is_file()}


def folder_paths(folder: Path | str) -> dict[str, str]:
    """Every data set file of a folder by key, whether it exists or not (where to write a data set)."""
    return {key: str(Path(folder) / name) for key, name in FILES.items()}


def load_dataset(folder: Path | str, human_override: Mapping[str, list[str]] | None = None) -> Dataset:
    """Read and validate a canonical data set folder. Never writes to it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder}: not a folder; expected a data set folder with dataset.yaml, "
                           "summaries.jsonl and judgments.tsv")
    for key in REQUIRED:
        if not (folder / FILES[key]).is_file():
            raise DatasetError(f"{folder / FILES[key]}: missing; a data set folder needs dataset.yaml, summaries.jsonl "
                               "and judgments.tsv")
    ds = read_dataset(folder_files(folder), human_override)
    for message in ds.warnings:
        warnings.warn(message, stacklevel=2)
    return ds


def read_dataset(paths: Mapping[str, str], human_override: Mapping[str, list[str]] | None = None) -> Dataset:
    """Read and validate a data set given its files by key (:data:`FILES`; ``documents`` and
    ``pyramids`` optional). Never writes to them. What is legal but worth a word (empty summaries)
    is in ``warnings`` (the validation job logs it; :func:`load_dataset` warns)."""
    ypath = Path(paths["dataset"])
    meta, dims, human = parse_dataset_yaml(ypath, read_text(ypath), human_override)
    texts = meta.get("texts", True)
    spath = Path(paths["summaries"])
    summaries = read_summaries(spath, texts)
    lines = {s.key: s.line for s in summaries}
    apath = Path(paths["annotations"]) if paths.get("annotations") else None
    annotations = read_annotations(apath, dims, lines) if apath and apath.is_file() else []
    means = annotation_means(dims, annotations)
    jpath = Path(paths["judgments"])
    judgments, jlines = read_judgments(jpath, dims, lines, means)
    for d, values in means.items():
        if any(d in row for row in judgments.values()):
            continue  # judgments.tsv gives this dimension: its values are the data set's own
        for key, value in values.items():
            judgments.setdefault(key, {})[d] = value
    for row in judgments.values():
        for d in dims:
            row.setdefault(d, math.nan)
    for d in dims:
        if judgments and all(math.isnan(row[d]) for row in judgments.values()):
            raise fail(jpath, None, d, "no judgment of this dimension in judgments.tsv or annotations.tsv; expected "
                       "at least one (or remove it from dataset.yaml)")
    check_preferences(jpath, dims, judgments, {**lines, **jlines})
    topics_with_refs = {s.topic for s in summaries if s.kind == "human"}
    for key, line_no in sorted(jlines.items(), key=lambda kv: kv[1]) if texts else ():
        if key[0] not in topics_with_refs:
            raise fail(jpath, line_no, "topic",
                       f"topic {key[0]!r} has judged summaries but no human (reference) summary in summaries.jsonl")
    dpath = Path(paths["documents"]) if paths.get("documents") else None
    # An empty documents.jsonl (as the normalised copy writes for a data set without documents)
    # means the same as no file.
    documents = (read_documents(dpath, {s.topic for s in summaries}) or None) if dpath and dpath.is_file() else None
    ppath = Path(paths["pyramids"]) if paths.get("pyramids") else None
    pyramids = (read_pyramids(ppath, lines) or None) if ppath and ppath.is_file() else None
    ds = Dataset(name=str(meta["name"]), meta=meta, dimensions=dims, human=human,
                 summaries=summaries, judgments=judgments, documents=documents, pyramids=pyramids,
                 annotations=annotations, has_texts=texts)
    n_empty = sum(1 for s in summaries if s.is_empty) if texts else 0
    if n_empty:
        ds.warnings.append(f"{spath}: {n_empty} empty summar{'y' if n_empty == 1 else 'ies'} "
                           "(legal; they score 0 on every metric)")
    if ds.unscorable:
        first = ds.unscorable[0]
        ds.warnings.append(f"{spath}: {len(ds.unscorable)} of {len(summaries)} summaries have no ASCII letter or digit "
                           f"(first: line {first.line}, ({first.topic!r}, {first.summarizer!r})); ROUGE-1.5.5, which "
                           "this workflow reproduces, keeps only a-z and 0-9, so they score 0 on every ROUGE and BLEU "
                           "measure (transliterate such text, or judge it with a metric of your own)")
    return ds


def _sort_key(s: Summary) -> tuple[str, int, str]:
    return (s.topic, SUMMARY_KINDS.index(s.kind), s.summarizer)


def _fmt(v: float) -> str:
    return "" if math.isnan(v) else repr(float(v))


def write_dataset(ds: Dataset, paths: Mapping[str, str]) -> None:
    """Write the normalised canonical copy to the files named by key (:data:`FILES`): records
    sorted by (topic, kind, summarizer), every record with ``sentences`` (none in a score-only data
    set) and its ``split``/``subset`` when it has them, judgments in dataset.yaml's dimension order
    (a dimension taken from annotations written out as its values), floats in shortest round-trip
    form, and always a documents.jsonl, a pyramids.jsonl and an annotations.tsv (empty, or the
    header only, when the data set has none). Each file is written to a temporary name and
    renamed, so no half-written file is left."""
    meta = dict(ds.meta)
    meta["human"] = {k: list(v) for k, v in ds.human.items()}
    meta["has_documents"] = ds.documents is not None
    meta["has_pyramids"] = ds.pyramids is not None
    if not ds.has_texts:
        meta["texts"] = False
    write_text(paths["dataset"], yaml.safe_dump(meta, sort_keys=False, allow_unicode=True))
    lines = []
    for s in sorted(ds.summaries, key=_sort_key):
        rec: dict[str, Any] = {"topic": s.topic, "summarizer": s.summarizer, "kind": s.kind}
        if ds.has_texts:
            rec["sentences"] = list(s.sentences)
        rec.update({k: v for k, v in (("split", s.split), ("subset", s.subset)) if v is not None})
        lines.append(json.dumps(rec, ensure_ascii=False))
    write_text(paths["summaries"], "".join(l + "\n" for l in lines))
    dims = list(ds.dimensions)
    rows = ["\t".join(["topic", "summarizer"] + dims)]
    order = {s.key: _sort_key(s) for s in ds.summaries}
    for key in sorted(ds.judgments, key=lambda k: order[k]):
        rows.append("\t".join([key[0], key[1]] + [_fmt(ds.judgments[key][d]) for d in dims]))
    write_text(paths["judgments"], "".join(r + "\n" for r in rows))
    docs = ds.documents or {}
    write_text(paths["documents"], "".join(
        json.dumps({"topic": t, "documents": docs[t]}, ensure_ascii=False) + "\n" for t in sorted(docs)))
    pyramids = ds.pyramids or {}
    write_text(paths["pyramids"], "".join(
        json.dumps({"topic": t, "models": p.models, "scus": dict(sorted(p.weights.items())),
                    "summaries": {s: list(u) for s, u in sorted(p.expressed.items())}}, ensure_ascii=False) + "\n"
        for t, p in sorted(pyramids.items())))
    if "annotations" in paths:
        dim_order = {d: i for i, d in enumerate(dims)}
        rows = ["\t".join(ANNOTATION_HEADER)]
        for a in sorted(ds.annotations, key=lambda a: (order[a.key], dim_order[a.dimension], a.group, a.annotator)):
            rows.append("\t".join([a.topic, a.summarizer, a.dimension, a.annotator, a.group, repr(float(a.score))]))
        write_text(paths["annotations"], "".join(r + "\n" for r in rows))


# ----------------------------------------------------------------------------- summary table

def summary_table(ds: Dataset) -> list[tuple[str, str]]:
    """The data set at a glance, as (statistic, value) rows for results/{dataset}/data/summary.tsv."""
    systems = sorted({s.summarizer for s in ds.summaries if s.kind == "system"})
    humans = sorted({s.summarizer for s in ds.summaries if s.kind == "human"})
    refs_per_topic = [len(ds.references(t)) for t in ds.topics] if ds.summaries else [0]
    judged = ds.judged()
    rows: list[tuple[str, str]] = [
        ("name", ds.name),
        ("topics", str(len(ds.topics))),
        ("systems", str(len(systems))),
        ("human_summarizers", str(len(humans))),
        ("references_per_topic_min", str(min(refs_per_topic))),
        ("references_per_topic_max", str(max(refs_per_topic))),
        ("references_per_topic_mean", _num(sum(refs_per_topic) / len(refs_per_topic))),
        ("summaries", str(len(ds.summaries))),
        ("judged_summaries", str(len(judged))),
        ("judged_system_summaries", str(sum(1 for s in judged if s.kind == "system"))),
        ("judged_human_summaries", str(sum(1 for s in judged if s.kind == "human"))),
        ("empty_summaries", str(sum(1 for s in ds.summaries if s.is_empty)) if ds.has_texts else "NA"),
        ("summaries_without_ascii_letters_or_digits", str(len(ds.unscorable))),
        ("has_documents", "yes" if ds.documents is not None else "no"),
        ("has_pyramids", "yes" if ds.pyramids is not None else "no"),
        ("coverage_dimensions", ",".join(ds.human["coverage"]) or "-"),
        ("linguistic_quality_dimensions", ",".join(ds.human["linguistic_quality"]) or "-"),
    ]
    # rows only a data set with the issue-21 extensions has, so that older data sets' tables stay as they were
    if not ds.has_texts:
        rows.append(("texts", "no (score-only: text metrics are skipped)"))
    for key in ("split", "subset"):
        counts = Counter(getattr(s, key) for s in judged if getattr(s, key) is not None)
        if counts:
            rows.append((f"judged_summaries_by_{key}", ",".join(f"{k}:{n}" for k, n in sorted(counts.items()))))
    if ds.annotations:
        groups: dict[str, set[str]] = {}
        for a in ds.annotations:
            groups.setdefault(a.group, set()).add(a.annotator)
        rows.append(("annotations", str(len(ds.annotations))))
        rows.append(("annotated_summaries", str(len({a.key for a in ds.annotations}))))
        rows.append(("annotators_by_group", ",".join(f"{g}:{len(v)}" for g, v in sorted(groups.items()))))
    for d in ds.dimensions.values():
        if d.kind != "graded":
            rows.append((f"{d.name}_kind", d.kind))
        if d.annotations_of or d.annotation_group:
            rows.append((f"{d.name}_from_annotations",
                         f"mean of {d.annotations_of or d.name} by {d.annotation_group or 'every annotator'}"))
    for d in ds.dimensions:
        vals = [ds.judgments[k][d] for k in ds.judgments if not math.isnan(ds.judgments[k][d])]
        rows.append((f"{d}_n", str(len(vals))))
        rows.append((f"{d}_mean", _num(sum(vals) / len(vals)) if vals else "NA"))
        rows.append((f"{d}_min", _num(min(vals)) if vals else "NA"))
        rows.append((f"{d}_max", _num(max(vals)) if vals else "NA"))
    return rows


def _num(x: float) -> str:
    return f"{x:.6g}"
