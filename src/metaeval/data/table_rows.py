"""The rows of a ``format: table`` release's files (:mod:`metaeval.data.table`): row filters
(``where``), files aligned by line (``aligned: true``: the records follow the topics' order,
``topics``), the topic a path gives (``{topic}``), and the checks that files aligned by line agree
with the ids a release also gives (a count that differs, a topic column or a text that disagrees:
errors naming both files, the line and the config key).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from .contract import DatasetError, check_name, fail
from .table_mapping import Columns, TableOptions, Topics, _Collected  # noqa: F401 (Topics: its name here too)
from .table_files import (SYSTEM, TOPIC, Record, _check_columns, _Reader, expand_named, reader_of, records,
                          sentences_of)


# ----------------------------------------------------------------------------- filters and file keys

def _where(raw: Mapping[str, Any] | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A row filter ``{column: value or [values]}`` as (column, the values kept as text), in order."""
    return tuple((k, tuple(_text(x) for x in (v if isinstance(v, list) else [v]))) for k, v in (raw or {}).items())


def _text(value: Any) -> str:
    """A cell's text for comparing with a filter's value (a JSON number or boolean as JSON writes it)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)


def _file_keys(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """The keys every file mapping may give: ``where`` (a row filter) and ``header`` (the column
    names of a file without a header row), frozen as the records need them."""
    raw = raw or {}
    return {"where": _where(raw.get("where")) or None, "header": tuple(raw.get("header") or ()) or None}


@dataclass(frozen=True)
class _FileSpec:
    """What a file mapping says of its rows besides their fields: its config section under the
    entry (``""``: the summaries' file), whether they follow the topics' order, its row filter,
    the names of its columns (a file without a header row), and the column of its own topic ids."""
    section: str
    aligned: bool = False
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()
    header: tuple[str, ...] = ()
    id_column: str | None = None

    def at(self, name: str) -> str:
        return f"{self.section}.{name}" if self.section else name


def _spec(section: str, mapping: Any, id_column: str | None) -> _FileSpec:
    return _FileSpec(section, bool(mapping.aligned), mapping.where, mapping.header, id_column)


def _label(cols: Columns, field_name: str) -> str:
    """What an error calls a name field: its column, or where the name comes from."""
    return getattr(cols, field_name) or ("summarizer (from the path)" if field_name == "summarizer"
                                         else "topic (from the path or line)")


def _aligned_columns(cols: Columns, own: Columns, aligned: bool) -> Columns:
    """A file's columns; an aligned file's topic is its line's (an id column of its own is checked)."""
    return dataclasses.replace(cols, topic=own.topic) if aligned else cols


def _named_files(pattern: str, config_key: str) -> list[tuple[str, str | None, str | None]]:
    """:func:`_files` with the topic a path gives (``{topic}``): (file, system, topic)."""
    found = expand_named(pattern)
    if not found or not all(Path(f).is_file() for f, _, _ in found):
        raise DatasetError(f"config key {config_key}: {pattern!r} matches no file; expected a file, or a pattern "
                           f"({SYSTEM}, {TOPIC} and * globs) matching at least one (relative paths are relative to "
                           "the working directory)")
    return found


def _rows(o: TableOptions, c: _Collected, reader: _Reader, spec: _FileSpec, summarizer_column: str | None,
          system: str | None, path_topic: str | None) -> Iterator[tuple[int | str, Record, str | None]]:
    """(where, record, topic or None) of the records a file mapping keeps: its row filter
    (``where``) applied; in an aligned file each record's topic is the topic of the same position
    in the topics' order (each summarizer's records, when a column names the summarizer: the
    blocks of mt-metrics-eval's score files), and a topic id the file also gives must agree;
    ``{topic}`` in the path gives every record's topic."""
    recs = list(records(reader.path, reader.reader, o.key, spec.header))
    if spec.where:
        recs = _filtered(o, reader, recs, spec)
    if path_topic is not None:
        check_name(reader.path, None, "topic (from the path)", path_topic)
    if not spec.aligned:
        for where, rec in recs:
            yield where, rec, path_topic
        return
    order, source = _order(o, c)
    if summarizer_column is not None and system is None:
        blocks: dict[str | None, list[tuple[int | str, Record]]] = {}
        for where, rec in recs:
            who = reader.name(where, rec, summarizer_column, spec.at("columns.summarizer"))
            blocks.setdefault(who, []).append((where, rec))
    else:
        blocks = {system: recs}
    for who, block in blocks.items():
        if len(block) != len(order):
            whose = f" of summarizer {who!r}" if who is not None and system is None else ""
            kept = " kept by its filter (where)" if spec.where else ""
            if len(block) > len(order):
                line = f"the first record without a topic is {block[len(order)][0]}"
            else:
                line = f"the first topic without a record is {order[len(block)][0]!r} ({source}, {_at(order[len(block)][1])})"
            raise DatasetError(
                f"{reader.path}: {len(block)} record{'' if len(block) == 1 else 's'}{whose}{kept}, but {source} gives {len(order)} topics ({line}); "
                f"expected one record per topic, in the topics' order (config key {o.key}.{spec.at('aligned')}, "
                f"aligned with {o.key}.topics)")
        for (where, rec), (topic, topic_where) in zip(block, order):
            if spec.id_column is not None:
                given = reader.name(where, rec, spec.id_column, spec.at("columns.topic"))
                if given != topic:
                    raise fail(reader.path, where, spec.id_column,
                               f"{given!r}, but the record is aligned with topic {topic!r} ({source}, {_at(topic_where)}); "
                               f"expected the alignment to agree with the ids (config key {o.key}.{spec.at('aligned')})")
            yield where, rec, topic


def _at(where: int | str) -> str:
    return f"line {where}" if isinstance(where, int) else str(where)


def _filtered(o: TableOptions, reader: _Reader, recs: list[tuple[int | str, Record]], spec: _FileSpec
              ) -> list[tuple[int | str, Record]]:
    """The records whose every filtered column holds one of its values (as text)."""
    for column, _ in spec.where:
        if recs and reader.reader in ("csv", "tsv", "lines") and column not in recs[0][1]:
            raise DatasetError(f"{reader.path}: row 1 (header), field {column!r}: no such column (config key "
                               f"{o.key}.{spec.at('where')}.{column}); expected one of {', '.join(map(repr, recs[0][1]))}")
    kept = [(w, r) for w, r in recs
            if all(_text(reader.value(w, r, column, spec.at(f"where.{column}"))) in values for column, values in spec.where)]
    if not kept:
        wanted = " and ".join(f"{column} in {list(values)}" for column, values in spec.where)
        raise DatasetError(f"{reader.path}: none of its {len(recs)} records has {wanted} (config key "
                           f"{o.key}.{spec.at('where')}); expected the filter to keep at least one record")
    return kept


def _order(o: TableOptions, c: _Collected) -> tuple[list[tuple[str, int | str]], str]:
    """The topics' order of the aligned files, read once: the records of ``topics.path`` (its ids,
    or the topics whose documents its records give; named by position when no file pairs ids with
    documents), or else the topics in their order in the summaries' file."""
    if c.order is not None:
        return c.order
    t = o.topics
    if t.path is None:
        if o.aligned or not c.summaries:
            raise DatasetError(f"config key {o.key}.topics: missing; the files aligned by line need the topics' "
                               "order: topics: {path: a file with one topic per record, column: its id and/or "
                               "document: its source document}")
        firsts = {}
        for (topic, _), where in c.where.items():
            firsts.setdefault(topic, where[1])
        c.order = (list(firsts.items()), o.path)
        return c.order
    if t.column is None and t.document is None:
        raise DatasetError(f"config key {o.key}.topics: expected column (the topic's id) and/or document (its source "
                           "document), the fields of topics.path that give the topics")
    found = _named_files(t.path, f"{o.key}.topics.path")
    if len(found) != 1:
        raise DatasetError(f"config key {o.key}.topics.path: {t.path!r} matches {len(found)} files; expected one file "
                           "giving the topics' order")
    path = found[0][0]
    reader = _Reader(path, reader_of(path, t.reader), o.key)
    spec = _FileSpec("topics", False, t.where, t.header)
    recs = [(w, r) for w, r, _ in _rows(o, c, reader, spec, None, None, None)]
    if not recs:
        raise fail(path, None, None, f"no records; expected one per topic (config key {o.key}.topics.path)")
    _check_columns(path, reader.reader, recs[0][1], {f"{o.key}.topics.column": t.column,
                                                     f"{o.key}.topics.document": t.document})
    ids = _ids_by_document(o, c) if t.column is None else {}
    out: list[tuple[str, int | str]] = []
    seen: dict[str, int | str] = {}
    for k, (where, rec) in enumerate(recs, start=1):
        docs = _document_of(o, reader, where, rec, t.document, "topics.document") if t.document else None
        if t.column is not None:
            name = reader.name(where, rec, t.column, "topics.column")
        elif ids:
            hit = ids.get(tuple(docs))
            if hit is None:
                sources = ", ".join(sorted({p for _, p in ids.values()}))
                raise fail(path, where, t.document, f"no topic of {sources} has this document; expected each record "
                           f"of the topics' order to be the document of one topic there (config key "
                           f"{o.key}.topics.document)")
            name = hit[0]
        else:
            name = str(k)        # no ids anywhere: a topic is named by its position
        if name in seen:
            raise fail(path, where, t.column or t.document, f"topic {name!r} a second time (first at {_at(seen[name])}); "
                       f"expected each topic once in the topics' order (config key {o.key}.topics.path)")
        seen[name] = where
        if docs is not None:
            _set_document(c, name, docs, path, where, t.document)
        out.append((name, where))
    c.order = (out, path)
    return c.order


def _document_of(o: TableOptions, reader: _Reader, where: int | str, rec: Record, column: str, section: str
                 ) -> list[str]:
    """A document field as the canonical form keeps it (the rule of :func:`_read_document`)."""
    value = reader.value(where, rec, column, section)
    splitter = o.splitter("document")
    if isinstance(value, str) and splitter == "none":
        return [value]
    if isinstance(value, list) and splitter == "none":
        return list(sentences_of(value, "none", reader.path, where, column, f"{o.key}.{section}"))
    return ["\n".join(sentences_of(value, splitter, reader.path, where, column, f"{o.key}.{section}"))]


def _set_document(c: _Collected, topic: str, docs: list[str], path: str, where: int | str, column: str) -> None:
    if topic in c.documents:
        first, first_path, first_where = c.documents[topic]
        if first != docs:
            raise fail(path, where, column, f"differs from the document of topic {topic!r} in {first_path}, "
                       f"{_at(first_where)}; expected one document per topic")
    else:
        c.documents[topic] = (docs, path, where)


def _ids_by_document(o: TableOptions, c: _Collected) -> dict[tuple[str, ...], tuple[str, str]]:
    """document -> (topic id, file) from the files that pair them: the documents read so far (the
    summaries' file, when not aligned) and a judgments file that names both columns."""
    out: dict[tuple[str, ...], tuple[str, str]] = {}

    def add(docs: list[str], topic: str, path: str, where: int | str, column: str) -> None:
        hit = out.setdefault(tuple(docs), (topic, path))
        if hit[0] != topic:
            raise fail(path, where, column, f"the document of topic {topic!r} is also the document of topic {hit[0]!r} "
                       f"in {hit[1]}; expected one topic per document to align the files by their documents")

    for topic, (docs, path, where) in c.documents.items():
        add(docs, topic, path, where, o.columns.document or "document")
    j, cols = o.judgments, o.judgments.columns
    if j.path and not j.aligned and cols.topic and cols.document:
        for path, system, path_topic in _named_files(j.path, f"{o.key}.judgments.path"):
            reader = _Reader(path, reader_of(path, j.reader), o.key)
            for where, rec, _ in _rows(o, c, reader, _spec("judgments", j, None), None, system, path_topic):
                topic = reader.name(where, rec, cols.topic, "judgments.columns.topic")
                add(_document_of(o, reader, where, rec, cols.document, "judgments.columns.document"), topic, path,
                    where, cols.document)
    return out


def _check_agreement(o: TableOptions, reader: _Reader, where: int | str, rec: Record, key: tuple[str, str],
                     own: Columns, c: _Collected, section: str) -> None:
    """A file that gives a summary's text or its topic's document beside its ids (the judgments of
    a release whose summaries are aligned by line) must agree with the summaries' files: a
    misaligned line is an error naming both files."""
    if own.text is not None and o.texts:
        sentences = sentences_of(reader.value(where, rec, own.text, f"{section}.columns.text"), o.splitter("text"),
                                 reader.path, where, own.text, f"{o.key}.{section}.columns.text")
        if sentences != c.summaries[key].sentences:
            first_path, first_where = c.where[key]
            raise fail(reader.path, where, own.text,
                       f"differs from the summary of ({key[0]!r}, {key[1]!r}) in {first_path}, {_at(first_where)}; "
                       f"expected the same text (config key {o.key}.{section}.columns.text): the files aligned by "
                       "line must agree with the ids")
    if own.document is not None and key[0] in c.documents:
        docs = _document_of(o, reader, where, rec, own.document, f"{section}.columns.document")
        first, first_path, first_where = c.documents[key[0]]
        if docs != first:
            raise fail(reader.path, where, own.document,
                       f"differs from the document of topic {key[0]!r} in {first_path}, {_at(first_where)} (config key "
                       f"{o.key}.{section}.columns.document); expected the same document: the files aligned by line "
                       "must agree with the ids")
