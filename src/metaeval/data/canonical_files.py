"""The readers of a canonical folder's files besides dataset.yaml (``docs/DATASET_FORMAT.md``):
summaries.jsonl, judgments.tsv, annotations.tsv, documents.jsonl and pyramids.jsonl. Each checks its
file against the contract and the data set's other files (every judged summary exists, every value
is in its dimension's range); errors name the file, the line and the field.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .contract import (ANNOTATION_HEADER, ANNOTATION_PART, SUMMARY_KINDS, Annotation, Dimension, NameTwins, Summary,
                       check_name, fail, json_objects, parse_number, per_summary, read_text)
from ..stats.aggregation import Aggregation, aggregate
from .pyramid import TopicPyramid

# The longest sentence the scoring accepts, in whitespace-separated words: ROUGE-L/W hold
# matrices of (longest sentence + 1)^2 cells (17 bytes each; 425 MB at this limit).
MAX_SENTENCE_WORDS = 5000


# ----------------------------------------------------------------------------- summaries.jsonl

def split_text(text: str) -> tuple[str, ...]:
    """The sentences of a record that gives ``text``: one sentence per line, as the contract says."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last sentence; it does not start a new one
    return tuple(lines)


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
    check_sentences(path, line_no, "sentences[{i}]" if has_sent else "text", sentences)
    return Summary(rec["topic"], rec["summarizer"], rec["kind"], sentences, line_no, **labels)


def check_sentences(path: Path | str, line: int | str | None, field_name: str, sentences: Sequence[str]) -> None:
    """No sentence has more than :data:`MAX_SENTENCE_WORDS` words; ``field_name`` may hold
    ``{i}``, the sentence's index."""
    for i, sentence in enumerate(sentences):
        # a sentence of n characters has at most n words: only long ones are split and counted
        words = len(sentence.split()) if len(sentence) > MAX_SENTENCE_WORDS else 0
        if words > MAX_SENTENCE_WORDS:
            raise fail(path, line, field_name.format(i=i), f"{words} words; expected at most {MAX_SENTENCE_WORDS} words "
                       "per sentence (ROUGE-L/W's memory grows with the square of the longest sentence; split it into "
                       "sentences)")


def check_imported(path: Path | str, where: int | str | None, summary: Summary, text_field: str,
                   twins: NameTwins | None = None, fields: tuple[str, str] = ("topic", "summarizer")) -> None:
    """What the canonical form requires of a summary (the rules of :func:`parse_summary_record`
    and :func:`read_summaries`), checked by an importer where it makes one: an error then names the
    release file and its record, never the canonical copy written from it (whose reader would
    refuse it later). Non-empty names that survive the tables, one spelling of each name
    (``twins``), sentences of at most :data:`MAX_SENTENCE_WORDS` words (``text_field`` names them);
    ``fields``: the release's names of the topic and summarizer fields."""
    for field_name, name in zip(fields, (summary.topic, summary.summarizer)):
        if not name:
            raise fail(path, where, field_name, "empty; expected a non-empty name")
        check_name(path, where, field_name, name)
        if twins is not None:
            twins.check(path, where, field_name, name)
    check_sentences(path, where, text_field, summary.sentences)


def read_summaries(path: Path, texts: bool = True) -> list[Summary]:
    summaries: list[Summary] = []
    seen: dict[tuple[str, str], int] = {}
    twins = NameTwins()
    for line_no, rec in json_objects(path, "one summary object per line"):
        s = parse_summary_record(path, line_no, rec, texts)
        twins.check(path, line_no, "topic", s.topic)
        twins.check(path, line_no, "summarizer", s.summarizer)
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
            # the contract's numbers only: float() would also take 'nan', 'inf' and other scripts' digits
            value = parse_number(path, line_no, col, cell, "a number or an empty cell")
            scores[col] = check_value(path, line_no, col, cell, dims[col], value)
        out[key] = scores
        where[key] = line_no
    if not out and len(derived) < len(dims):
        raise fail(path, None, None, "no judgment rows after the header; expected one row per judged summary")
    for col in columns:
        if all(math.isnan(scores[col]) for scores in out.values()):
            raise fail(path, None, col, "every cell of this dimension is empty; expected at least one judgment "
                       "(fill it, or remove the column and its entry in dataset.yaml)")
    return out, where


def check_value(path: Path | str, line_no: int, field_name: str, cell: str, d: Dimension, v: float) -> float:
    """A judgment or annotation ``v`` (read from the text ``cell`` by
    :func:`~metaeval.data.contract.parse_number`) checked against its dimension's range and kind."""
    if v < d.min or v > d.max:
        raise fail(path, line_no, field_name, f"{cell} is outside the declared range [{d.min:g}, {d.max:g}]")
    if d.kind in ("binary", "preference") and v not in (0.0, 1.0):
        raise fail(path, line_no, field_name, f"{cell} is not a label of a {d.kind} dimension; expected 0 or 1")
    return v


def check_preferences(path: Path | str, dims: Mapping[str, Dimension], judgments: Mapping[tuple[str, str], Mapping[str, float]],
                      lines: Mapping[tuple[str, str], int | str], files: Mapping[tuple[str, str], str] | None = None,
                      declared: str = "") -> None:
    """A preference dimension judges exactly two summaries of each topic it judges: the preferred
    one 1, the other 0. ``files``: the file of each summary when they are several (a release's,
    else ``path``); ``declared``: where the dimension is declared, added to the error."""
    for d in (d for d in dims.values() if d.kind == "preference"):
        by_topic: dict[str, list[tuple[tuple[str, str], float]]] = {}
        for key, scores in judgments.items():
            if not math.isnan(scores.get(d.name, math.nan)):
                by_topic.setdefault(key[0], []).append((key, scores[d.name]))
        for topic, pairs in sorted(by_topic.items()):
            # in the order of the files (a release's place is text: "row 12 (line 14)", its number first)
            pairs.sort(key=lambda kv: (str((files or {}).get(kv[0], "")),
                                       int(re.search(r"[0-9]+|$", str(lines.get(kv[0], 0))).group() or 0)))
            labels = sorted(v for _, v in pairs)
            if len(pairs) != 2 or labels != [0.0, 1.0]:
                at = pairs[-1][0] if len(pairs) > 2 else pairs[0][0]
                raise fail((files or {}).get(at, path), lines.get(at), d.name, f"topic {topic!r} has {len(pairs)} "
                           f"judged summar{'y' if len(pairs) == 1 else 'ies'} with labels "
                           f"{[f'{v:g}' for v in labels]}; a preference judges a pair: exactly two summaries of the "
                           f"topic, the preferred one 1 and the other 0{declared}")


# ----------------------------------------------------------------------------- annotations.tsv

def read_annotations(path: Path, dims: Mapping[str, Dimension], summary_keys: Iterable[tuple[str, str]]
                     ) -> list[Annotation]:
    """annotations.tsv: one row per (summary, dimension, annotator); header ``topic summarizer
    dimension annotator score`` or with ``group`` before ``score`` (without it every annotator is in
    the group ``all``), and with ``part`` before ``score`` when rows judge parts of a summary (one
    row per part: an annotator judges a summary whole or by parts, not both). An annotator belongs to
    one group."""
    keys = set(summary_keys)
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    full, short = list(ANNOTATION_HEADER), [c for c in ANNOTATION_HEADER if c != "group"]
    headers = [full, short, *([*h[:-1], ANNOTATION_PART, h[-1]] for h in (full, short))]
    header = lines[0].rstrip("\r").split("\t") if lines else []
    if header not in headers:
        raise fail(path, 1, None, f"header {header}; expected the tab-separated columns {' '.join(full)} "
                   f"(group may be left out; {ANNOTATION_PART} before score where rows judge parts of a summary)")
    out: list[Annotation] = []
    seen: dict[tuple[str, ...], int] = {}
    whole: dict[tuple[str, str, str, str], tuple[bool, int]] = {}
    groups: dict[str, tuple[str, int]] = {}
    # names and score cells repeat on most lines: each distinct one is checked once (the first
    # line where it occurs is the one an error would name)
    checked_names: set[tuple[str, str]] = set()
    scores: dict[tuple[str, str], float] = {}
    for line_no, cells in _tsv_rows(path, lines, len(header)):
        row = dict(zip(header, cells))
        key = (row["topic"], row["summarizer"])
        if key not in keys:
            raise fail(path, line_no, "summarizer", f"annotates ({key[0]!r}, {key[1]!r}), which has no summary in "
                       "summaries.jsonl")
        if row["dimension"] not in dims:
            raise fail(path, line_no, "dimension", f"{row['dimension']!r} is not a dimension declared in dataset.yaml "
                       f"(declared: {', '.join(dims)})")
        for name in ("annotator", "group", ANNOTATION_PART):
            if name in row and (name, row[name]) not in checked_names:
                if not row[name] and name != ANNOTATION_PART:     # an empty part: the whole summary
                    raise fail(path, line_no, name, "empty; expected a name")
                check_name(path, line_no, name, row[name])
                checked_names.add((name, row[name]))
        group = row.get("group", "all")
        first = groups.setdefault(row["annotator"], (group, line_no))
        if first[0] != group:
            raise fail(path, line_no, "group", f"annotator {row['annotator']!r} is in group {first[0]!r} on line "
                       f"{first[1]}; expected one group per annotator")
        part = row.get(ANNOTATION_PART, "")
        ident = (*key, row["dimension"], row["annotator"], part)
        if ident in seen:
            of = f" (part {part!r})" if part else ""
            raise fail(path, line_no, "annotator", f"second score of {row['annotator']!r} for ({key[0]!r}, {key[1]!r})"
                       f"{of} on {row['dimension']!r}; first on line {seen[ident]}")
        seen[ident] = line_no
        by_parts, first_line = whole.setdefault(ident[:4], (bool(part), line_no))
        if by_parts != bool(part):
            raise fail(path, line_no, ANNOTATION_PART, f"{row['annotator']!r} judges ({key[0]!r}, {key[1]!r}) on "
                       f"{row['dimension']!r} {'by parts' if by_parts else 'whole'} on line {first_line}; expected "
                       "the summary whole or by parts, not both")
        cell = row["score"].strip()
        score = scores.get((cell, row["dimension"]))
        if score is None:
            value = parse_number(path, line_no, "score", cell, "an ASCII decimal number")
            score = scores[cell, row["dimension"]] = check_value(path, line_no, "score", cell, dims[row["dimension"]],
                                                                 value)
        out.append(Annotation(key[0], key[1], row["dimension"], row["annotator"], group, score, part))
    return out


def annotation_means(dims: Mapping[str, Dimension], annotations: Sequence[Annotation],
                     aggregation: Aggregation = Aggregation()) -> dict[str, dict[tuple[str, str], float]]:
    """The judgment of every dimension that annotations can give, per summary: the annotations of
    the dimension's ``annotations_of`` (default: itself) by its ``annotation_group`` (default: the
    aggregation's group, else every annotator), aggregated by the data set's rule (default: the
    mean; :mod:`metaeval.stats.aggregation`). The contract's rule for a dimension without a
    judgments.tsv column."""
    sums: dict[tuple[str, str | None], dict[tuple[str, str], list[float]]] = {}
    for a in per_summary(list(annotations)):
        for group in (None, a.group):
            sums.setdefault((a.dimension, group), {}).setdefault(a.key, []).append(a.score)
    out: dict[str, dict[tuple[str, str], float]] = {}
    for d in dims.values():
        source = sums.get((d.annotations_of or d.name, d.annotation_group or aggregation.group))
        if source:
            out[d.name] = {k: aggregate(v, aggregation) for k, v in source.items()}
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


def check_judged_references(path: Path | str, summaries: list[Summary], judgments: Mapping[tuple[str, str], Any],
                            lines: Mapping[tuple[str, str], int]) -> None:
    """A judged human summary is scored like a system against the topic's *other* human summaries
    (the leave-one-out of DUC/TAC; metaeval.metrics.rouge.reference_sets): a topic whose only human
    summary is judged has none left to score it against. Refused here, naming the judgment's line,
    rather than by the scoring job after validation passed."""
    for key in lone_judged_humans(summaries, sorted(judgments, key=lambda k: lines.get(k, 0))):
        raise fail(path, lines.get(key), "summarizer",
                   f"judges the human summary ({key[0]!r}, {key[1]!r}), the only human summary of its topic; a "
                   "judged human summary is scored against the topic's other human summaries (as DUC/TAC judge "
                   "their model summaries), so the topic needs at least two human summaries to judge one "
                   "against the others: add another reference of the topic, or leave this one unjudged")


def lone_judged_humans(summaries: Iterable[Summary], keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of the judged ``keys`` (in their order), the human summaries that are their topic's only
    human summary: a judged human summary is scored against the topic's other human summaries (the
    leave-one-out of DUC/TAC; metaeval.metrics.rouge.reference_sets), so these have none."""
    summaries = list(summaries)
    humans = Counter(s.topic for s in summaries if s.kind == "human")
    kinds = {s.key: s.kind for s in summaries}
    return [key for key in keys if kinds.get(key) == "human" and humans[key[0]] < 2]
