"""``format: table``: a release no importer knows, read by declaring where its fields are.

A data set's config entry maps the release's files (CSV, TSV, JSON or JSON lines) onto the
canonical form (docs/datasets.md, "Bring any benchmark by declaring it"): which column or field holds
the topic, the summarizer, the summary (text or a list of sentences), the document, the split and
the subset; where the references are (a field, a file of their own, or the summaries of one system);
how the human scores are laid out (``wide``: a column per dimension; ``long``: a dimension and a
score column, one row per summary and dimension, with an optional annotator column; ``annotators``:
fields holding lists of ``{dimension: score}`` objects, one list per annotator group); and which
columns, of the same file or of other files, hold metric scores. The dimensions (min, max,
description, kind, role, the annotations they aggregate) and the human components are declared in
the entry, as dataset.yaml declares them.

Reading the files (CSV through the csv module and TSV split on tabs, as text; JSON through the
contract's reader, which refuses a key given twice): :mod:`metaeval.data.table_files`.
Row filters, files aligned by line (the topics' order), ``{topic}`` paths: :mod:`metaeval.data.table_rows`.

A path may hold ``{system}`` (``scores/{system}.csv``): the files it matches give the summarizer,
taken from the path, and ``*`` globs more. Every error names the release file, its row (CSV row 1 is
the header) or line, the field, what was expected, and the config key that declared the field
(``datasets.<name>.columns.topic``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping

from .canonical_files import (annotation_means, check_imported, check_preferences, check_sentences, check_value,
                              lone_judged_humans)
from .contract import Annotation, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, fail
from .dataset_yaml import KIND_BOUNDS, aggregation_spec, dimension_spec, parse_aggregation
# the files, records and fields of a release (re-exported: the registry and the tests use them here)
from .table_files import (READERS, SPLITTERS, SYSTEM, Record, _check_columns, _Reader, expand, nltk_problem,  # noqa: F401
                          reader_of, records, release_files, sentences_of)
# the mapping's records (their names stay importable from here)
from .table_mapping import (LAYOUTS, Columns, Judgments, MetricFile, References, TableOptions,  # noqa: F401
                            Topics, _Collected)
from .table_rows import (TOPIC, _aligned_columns, _check_agreement, _file_keys, _label, _named_files, _rows,
                         _spec, _where)


# ----------------------------------------------------------------------------- the mapping

def _build(cls, raw: Mapping[str, Any] | None, **nested: Any):
    """A mapping dataclass from its config section, field by field (unknown keys are the schema's to refuse)."""
    raw = dict(raw or {})
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in raw.items() if k in names and k not in nested}
    return cls(**values, **{k: v for k, v in nested.items() if v is not None})


def _dimension(name: str, spec: Mapping[str, Any]) -> Dimension:
    kind = spec.get("kind", "graded")
    lo, hi = KIND_BOUNDS.get(kind, (None, None))
    source = spec.get("annotations") or {}
    return Dimension(name, float(spec.get("min", lo)), float(spec.get("max", hi)), str(spec.get("description", "")),
                     kind, source.get("dimension"), source.get("group"), spec.get("role"))


def table_options(entry: Mapping[str, Any], name: str = "<name>") -> TableOptions:
    """The import job's record of a validated ``format: table`` entry (tuples only, so that its
    ``repr`` is stable: Snakemake's params trigger compares it)."""
    refs, judg = entry.get("references") or {}, entry.get("judgments") or {}
    return TableOptions(
        key=f"datasets.{name}", path=entry["path"], reader=entry.get("reader"),
        columns=_build(Columns, entry.get("columns")),
        sentence_splitter=tuple(sorted((entry.get("sentence_splitter") or {}).items())),
        references=_build(References, refs, columns=_build(Columns, refs.get("columns")) if refs.get("columns") else None,
                          **_file_keys(refs)),
        judgments=_build(Judgments, judg,
                         columns=_build(Columns, judg.get("columns")) if judg.get("columns") else None,
                         wide=tuple((judg.get("columns_of") or {}).items()) or None,
                         groups=tuple((judg.get("groups") or {}).items()) or None,
                         missing=tuple(judg.get("missing") or ()) or None, **_file_keys(judg)),
        dimensions=tuple(_dimension(d, spec or {}) for d, spec in (entry.get("dimensions") or {}).items()),
        human=tuple((k, tuple(v or ())) for k, v in (entry.get("human") or {}).items()),
        aggregation=_freeze(entry.get("aggregation")),
        metric_columns=tuple(entry.get("metric_columns") or ()),
        metric_files=tuple(_build(MetricFile, m, columns=_build(Columns, m.get("columns")) if m.get("columns") else None,
                                  metrics=tuple(m.get("metrics") or ()), **_file_keys(m))
                           for m in entry.get("metric_files") or ()),
        aligned=bool(entry.get("aligned")), where=_where(entry.get("where")), header=tuple(entry.get("header") or ()),
        topics=_build(Topics, entry.get("topics"), **_file_keys(entry.get("topics"))),
        texts=entry.get("texts", True) is not False,
        **{k: entry.get(k) or "" for k in ("description", "source", "license", "citation")})


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    return value


# ----------------------------------------------------------------------------- the importer

def import_table(options: TableOptions, name: str) -> tuple[Dataset, list[tuple[str, str, str, float]]]:
    """Read a release by its declared mapping: the canonical data set and the metric scores
    (topic, summarizer, metric, score), sorted."""
    o = dataclasses.replace(options, key=f"datasets.{name}")
    key = o.key
    dims = {d.name: d for d in o.dimensions}
    if not dims:
        raise DatasetError(f"config key {key}.dimensions: missing; expected the human dimensions with min and max")
    for what, splitter in o.sentence_splitter:
        if splitter == "nltk" and nltk_problem():
            raise DatasetError(f"config key {key}.sentence_splitter.{what}: {nltk_problem()}")
    c = _Collected()
    twins = NameTwins()
    files = _named_files(o.path, f"{key}.path")
    for path, system, path_topic in files:
        _read_summaries(o, path, system, c, twins, dims, path_topic)
    if not c.summaries:
        raise DatasetError(f"config key {key}.path: {o.path}: no records; expected one record per summary")
    _read_references(o, c, twins)
    if o.judgments.path:
        for path, system, path_topic in _named_files(o.judgments.path, f"{key}.judgments.path"):
            reader = _Reader(path, reader_of(path, o.judgments.reader), key)
            cols = _merged(o.columns, o.judgments.columns)
            cols = _aligned_columns(cols, o.judgments.columns, o.judgments.aligned)
            first = True
            for where, rec, line_topic in _rows(o, c, reader, _spec("judgments", o.judgments, o.judgments.columns.topic),
                                                cols.summarizer, system, path_topic):
                if first:
                    _check_columns(path, reader.reader, rec, _judgment_columns(o, cols, dims, f"{key}.judgments"))
                    first = False
                topic, summarizer = _key(reader, where, rec, cols, system, f"judgments.columns", line_topic)
                if (topic, summarizer) not in c.summaries:
                    raise fail(path, where, cols.summarizer or "summarizer",
                               f"judges ({topic!r}, {summarizer!r}), which has no summary in {o.path} (config key "
                               f"{key}.judgments.path)")
                _check_agreement(o, reader, where, rec, (topic, summarizer), o.judgments.columns, c, "judgments")
                _read_judgment(o, reader, where, rec, (topic, summarizer), c, dims)
    if o.references.system and not o.references.judged:
        # the references are not judged: their rows are the release's, not the data set's judgments
        c.judgments = {k: v for k, v in c.judgments.items() if k[1] != o.references.system}
        c.annotations = [a for a in c.annotations if a.summarizer != o.references.system]
    aggregation = parse_aggregation(_thaw(o.aggregation), f"config key {key}")
    groups = sorted({a.group for a in c.annotations})
    if aggregation.group is not None and aggregation.group not in groups:
        raise DatasetError(f"config key {key}.aggregation.group: {aggregation.group!r} names no annotator group of the "
                           f"release (its groups: {', '.join(map(repr, groups)) or 'none: it has no annotations'}); "
                           "expected one of its groups")
    if c.annotations:
        means = annotation_means(dims, c.annotations, aggregation)
        for d, values in means.items():
            if any(d in row for row in c.judgments.values()):
                continue
            for k, v in values.items():
                c.judgments.setdefault(k, {})[d] = v
    for row in c.judgments.values():
        for d in dims:
            row.setdefault(d, math.nan)
    for d in dims:
        if c.judgments and all(math.isnan(row[d]) for row in c.judgments.values()):
            raise DatasetError(f"config key {key}.dimensions.{d}: no score of this dimension in the release; expected "
                               "at least one (or remove the dimension)")
    if not c.judgments:
        raise DatasetError(f"config key {key}.judgments: {o.judgments.path or o.path}: no summary has a score of a "
                           "declared dimension; expected at least one judged summary")
    # a preference judges pairs: refused here naming the release's record (validation would name the copy)
    places = {k: c.where.get(k, (o.path, None)) for k in c.judgments}   # a reference's: the entry's path
    check_preferences(o.path, dims, c.judgments, {k: w for k, (_, w) in places.items()},
                      {k: f for k, (f, _) in places.items()}, f" (config key {key}.dimensions declares it a preference)")
    for path_files in o.metric_files:
        _read_metric_file(o, path_files, c)
    # after the metric scores: a judged reference alone in its topic is kept when they score it
    if o.references.system and o.references.judged:
        _check_judged_references(o, c)
    human = {k: list(v) for k, v in o.human}
    meta: dict[str, Any] = {
        "name": name,
        "description": o.description or f"imported from {o.path} by its declared mapping (format: table)",
        "source": o.source or o.path,
        "license": o.license,
        "citation": o.citation,
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": human,
    }
    if o.references.system and o.references.judged and lone_judged_humans(c.summaries.values(), c.judgments):
        meta["judged_lone_references"] = True
    meta.update({} if o.texts else {"texts": False})      # a score-only release
    if not aggregation.is_default:
        meta["aggregation"] = aggregation_spec(aggregation)
    documents = {t: docs for t, (docs, _, _) in c.documents.items()}
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=list(c.summaries.values()),
                 judgments=c.judgments, documents=documents or None, annotations=c.annotations,
                 aggregation=aggregation, has_texts=o.texts)
    scores = sorted((t, s, m, v) for (t, s, m), (v, _) in c.scores.items())
    ds.warnings.extend(_metrics_equal_to_dimensions(o, c, dims))
    return ds, scores


def _metrics_equal_to_dimensions(o: TableOptions, c: _Collected, dims: Mapping[str, Dimension]) -> list[str]:
    """A metric whose scores are a dimension's judgments on every judged summary (its column mapped
    twice, or a copy of it): legal, but its correlation with that dimension is 1 by construction."""
    out = []
    metrics = sorted({m for _, _, m in c.scores})
    for metric in metrics:
        for d in dims:
            judged = [(k, row[d]) for k, row in c.judgments.items() if not math.isnan(row[d])]
            if judged and all(c.scores.get((*k, metric), (math.nan,))[0] == v for k, v in judged):
                out.append(f"config key {o.key}: the metric {metric!r} equals the dimension {d!r} on all {len(judged)} "
                           f"summaries judged on it (the same column, or a copy of it); its correlation with {d!r} "
                           "is 1 by construction")
    return out


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return {k: _thaw(v) for k, v in value}
    return value


def _files(pattern: str, config_key: str) -> list[tuple[str, str | None]]:
    found = expand(pattern)
    if not found or not all(Path(f).is_file() for f, _ in found):
        raise DatasetError(f"config key {config_key}: {pattern!r} matches no file; expected a file, or a pattern "
                           f"({SYSTEM} and * globs) matching at least one (relative paths are relative to the working "
                           "directory)")
    return found


def _merged(base: Columns, override: Columns) -> Columns:
    """A file's columns: the entry's topic/summarizer unless the file's own mapping names others."""
    return Columns(override.topic or base.topic, override.summarizer or base.summarizer)


def _key(reader: _Reader, where: int | str, rec: Record, cols: Columns, system: str | None,
         section: str, topic: str | None = None) -> tuple[str, str]:
    """(topic, summarizer) of a record; ``topic`` given: the record's topic by its line (an aligned
    file) or its path (``{topic}``)."""
    if cols.topic is None and topic is None:
        raise DatasetError(f"config key {reader.key}.{section}.topic: missing; expected the column of the topic, "
                           f"{TOPIC} in the path, or aligned: true (the rows follow the topics' order)")
    if topic is None:
        topic = reader.name(where, rec, cols.topic, f"{section}.topic")
    if system is not None:
        summarizer = system
        check_name(reader.path, where, "summarizer (from the path)", system)
    elif cols.summarizer is not None:
        summarizer = reader.name(where, rec, cols.summarizer, f"{section}.summarizer")
    else:
        raise DatasetError(f"config key {reader.key}.{section}.summarizer: missing; expected the column of the "
                           f"summarizer, or {SYSTEM} in the path (one file per system)")
    return topic, summarizer


def _judgment_columns(o: TableOptions, cols: Columns, dims: Mapping[str, Dimension], section: str
                      ) -> dict[str, str | None]:
    j = o.judgments
    wanted: dict[str, str | None] = {f"{section}.columns.topic" if j.path else f"{o.key}.columns.topic": cols.topic}
    if j.layout == "wide":
        wide = dict(j.wide)
        wanted.update({f"{section}.columns_of.{d}": wide.get(d, d) for d in dims if _judged_directly(dims[d])})
    elif j.layout == "long":
        wanted.update({f"{section}.{k}": getattr(j, k) for k in ("dimension", "score", "annotator", "group")})
    return wanted


def _judged_directly(d: Dimension) -> bool:
    """Whether a dimension has a column of its own (not the aggregate of another's annotations)."""
    return d.annotations_of is None and d.annotation_group is None


def _read_summaries(o: TableOptions, path: str, system: str | None, c: _Collected, twins: NameTwins,
                    dims: Mapping[str, Dimension], path_topic: str | None = None) -> None:
    reader = _Reader(path, reader_of(path, o.reader), o.key)
    cols = o.columns
    first = True
    for where, rec, line_topic in _rows(o, c, reader, _spec("", o, o.columns.topic), cols.summarizer, system, path_topic):
        if first:
            wanted = {f"{o.key}.columns.{f.name}": getattr(cols, f.name) for f in fields(Columns)}
            if o.references.column:
                wanted[f"{o.key}.references.column"] = o.references.column
            if not o.judgments.path:
                wanted.update(_judgment_columns(o, cols, dims, f"{o.key}.judgments"))
            wanted.update({f"{o.key}.metric_columns[{i}]": m for i, m in enumerate(o.metric_columns)})
            _check_columns(path, reader.reader, rec, wanted)
            first = False
        topic, summarizer = _key(reader, where, rec, cols, system, "columns", line_topic)
        key = (topic, summarizer)
        for field_name, value in zip(("topic", "summarizer"), key):
            twins.check(path, where, _label(cols, field_name), value)
        if cols.text is None and o.texts:
            raise DatasetError(f"config key {o.key}.columns.text: missing; expected the column of the summary's text "
                               "(or texts: false, a score-only release)")
        sentences = sentences_of(reader.value(where, rec, cols.text, "columns.text"), o.splitter("text"), path, where,
                                 cols.text, f"{o.key}.columns.text") if o.texts else ()
        kind = "human" if o.references.system == summarizer else "system"
        extra = {k: reader.name(where, rec, getattr(cols, k), f"columns.{k}") for k in ("split", "subset")
                 if getattr(cols, k) is not None}
        summary = Summary(topic, summarizer, kind, sentences, 0, **extra)
        if key in c.summaries:
            # a long layout repeats the summary on each of its rows: the same summary, or an error
            if o.judgments.layout != "long" or o.judgments.path or c.summaries[key].sentences != sentences:
                first_path, first_where = c.where[key]
                raise fail(path, where, cols.summarizer or cols.topic,
                           f"a second record for ({topic!r}, {summarizer!r}); the first is {first_path}, {first_where}"
                           + (" (a long layout may repeat a summary only with the same text)"
                              if o.judgments.layout == "long" else ""))
        else:
            check_imported(path, where, summary, (cols.text or "text") + " sentence {i}",
                           fields=(_label(cols, "topic"), _label(cols, "summarizer")))
            c.summaries[key] = summary
            c.where[key] = (path, where)
        if cols.document is not None:
            _read_document(o, reader, where, rec, topic, c)
        if o.references.column is not None:
            _read_reference_field(o, reader, where, rec, topic, c)
        if not o.judgments.path:
            _read_judgment(o, reader, where, rec, key, c, dims)
        for metric in o.metric_columns:
            _read_score(reader, where, rec, key, metric, metric, c, f"{o.key}.metric_columns")


def _read_document(o: TableOptions, reader: _Reader, where: int | str, rec: Record, topic: str, c: _Collected) -> None:
    value = reader.value(where, rec, o.columns.document, "columns.document")
    splitter = o.splitter("document")
    if isinstance(value, str) and splitter == "none":
        docs = [value]        # one document, kept as the release has it
    elif isinstance(value, list) and splitter == "none":
        docs = list(sentences_of(value, "none", reader.path, where, o.columns.document, f"{o.key}.columns.document"))
    else:
        # split: one document, a sentence per line (documents.jsonl holds whole documents)
        docs = ["\n".join(sentences_of(value, splitter, reader.path, where, o.columns.document,
                                       f"{o.key}.columns.document"))]
    if topic in c.documents:
        first, first_path, first_where = c.documents[topic]
        if first != docs:
            raise fail(reader.path, where, o.columns.document, f"differs from the document of topic {topic!r} in "
                       f"{first_path}, {first_where}; expected one document per topic")
    else:
        c.documents[topic] = (docs, reader.path, where)


def _read_reference_field(o: TableOptions, reader: _Reader, where: int | str, rec: Record, topic: str,
                          c: _Collected) -> None:
    column = o.references.column
    value = reader.value(where, rec, column, "references.column")
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(r, (str, list)) for r in items):
        raise fail(reader.path, where, column, f"{value!r}; expected a reference (text) or a non-empty list of them "
                   f"(config key {o.key}.references.column)")
    refs = tuple(sentences_of(r, o.splitter("references"), reader.path, where, f"{column}[{i}]",
                              f"{o.key}.references.column") for i, r in enumerate(items))
    if topic in c.refs:
        first, first_path, first_where = c.refs[topic]
        if first != refs:
            raise fail(reader.path, where, column, f"differ from the references of topic {topic!r} in {first_path}, "
                       f"{first_where}; expected the same references on every record of a topic")
        return
    for i, sentences in enumerate(refs):
        check_sentences(reader.path, where, f"{column}[{i}]", sentences)
    c.refs[topic] = (refs, reader.path, where)


def _read_references(o: TableOptions, c: _Collected, twins: NameTwins) -> None:
    """The references: ``ref0``..``refN`` of a field, a file's, or one system's summaries (kind human)."""
    r = o.references
    if not o.texts and all(x is None for x in (r.column, r.path, r.system)):
        return     # a score-only release: no texts to score against references
    if r.column is not None and r.path is not None or all(x is None for x in (r.column, r.path, r.system)):
        raise DatasetError(f"config key {o.key}.references: expected column or path (not both), and/or system: where "
                           "the release keeps its reference summaries")
    named: dict[tuple[str, str], Summary] = {}
    for topic, (refs, path, where) in c.refs.items():
        for i, sentences in enumerate(refs):
            named[(topic, f"ref{i}")] = Summary(topic, f"ref{i}", "human", sentences)
    if r.path:
        for path, system, path_topic in _named_files(r.path, f"{o.key}.references.path"):
            reader = _Reader(path, reader_of(path, r.reader), o.key)
            cols = Columns(r.columns.topic or o.columns.topic, r.columns.summarizer, r.columns.text or o.columns.text)
            cols = _aligned_columns(cols, r.columns, r.aligned)
            count: dict[str, int] = {}
            first = True
            for where, rec, line_topic in _rows(o, c, reader, _spec("references", r, r.columns.topic), cols.summarizer,
                                                system, path_topic):
                if first:
                    _check_columns(path, reader.reader, rec, {f"{o.key}.references.columns.topic": cols.topic,
                                                              f"{o.key}.references.columns.text": cols.text,
                                                              f"{o.key}.references.columns.summarizer": cols.summarizer})
                    first = False
                topic = line_topic or reader.name(where, rec, cols.topic, "references.columns.topic")
                if system is not None or cols.summarizer is not None:
                    summarizer = system or reader.name(where, rec, cols.summarizer, "references.columns.summarizer")
                else:
                    summarizer = f"ref{count.get(topic, 0)}"   # numbered in the file's order, as ref0, ref1, ...
                count[topic] = count.get(topic, 0) + 1
                sentences = sentences_of(reader.value(where, rec, cols.text, "references.columns.text"),
                                         o.splitter("references"), path, where, cols.text,
                                         f"{o.key}.references.columns.text")
                summary = Summary(topic, summarizer, "human", sentences)
                check_imported(path, where, summary, cols.text + " sentence {i}", twins,
                               fields=(cols.topic, cols.summarizer or "summarizer"))
                if (topic, summarizer) in named:
                    raise fail(path, where, cols.topic, f"a second reference ({topic!r}, {summarizer!r})")
                named[(topic, summarizer)] = summary
    for key, summary in named.items():
        if key in c.summaries:
            path, where = c.where[key]
            raise fail(path, where, o.columns.summarizer or "summarizer",
                       f"{key[1]!r} is also the name of a reference of topic {key[0]!r} (references are named ref0, "
                       "ref1, ... in their order); expected another name for a system")
        c.summaries[key] = summary
    if r.system and not any(s.summarizer == r.system for s in c.summaries.values()):
        raise DatasetError(f"config key {o.key}.references.system: no summary of the summarizer {r.system!r}; "
                           f"expected the name of the system whose summaries are the references")


def _check_judged_references(o: TableOptions, c: _Collected) -> None:
    """``references.judged``: each judged summary of the references' system is scored against the
    topic's other references (leave-one-out, as DUC/TAC judge their human summaries), so its topic
    needs another one; refused here naming the release's record (validation would refuse the copy)."""
    scored = {(t, s) for t, s, _ in c.scores}
    for key in lone_judged_humans(c.summaries.values(), [k for k in c.judgments if k[1] == o.references.system]):
        if key in scored:
            continue   # kept: metric scores of the release score it (ROUGE, BLEU, chrF and SERA leave it unscored)
        path, where = c.where[key]
        raise fail(path, where, o.columns.summarizer or "summarizer (from the path)",
                   f"the judged reference ({key[0]!r}, {key[1]!r}) is the only human summary of its topic "
                   f"(config key {o.key}.references.judged is true): a judged reference is scored against the "
                   "topic's other references, so the topic needs at least two human summaries to judge one against "
                   "the others; declare the other references (references.column or references.path), metric scores "
                   "of it (metric_columns or metric_files: ROUGE, BLEU, chrF and SERA then leave it unscored) or set "
                   "judged: false")


def _read_judgment(o: TableOptions, reader: _Reader, where: int | str, rec: Record, key: tuple[str, str],
                   c: _Collected, dims: Mapping[str, Dimension]) -> None:
    j = o.judgments
    if j.layout == "wide":
        wide = dict(j.wide)
        row = c.judgments.setdefault(key, {})
        for d in (d for d in dims.values() if _judged_directly(d)):
            column = wide.get(d.name, d.name)
            value = reader.value(where, rec, column, f"judgments.columns_of.{d.name}")
            if j.missing and isinstance(value, str) and value.strip() in j.missing:
                value = ""                 # the release's mark of a missing score (judgments.missing)
            if isinstance(value, str) and not value.strip() or value is None:
                row[d.name] = math.nan     # an empty cell (JSON null): not judged on this dimension
                continue
            row[d.name] = check_value(reader.path, where, column, str(value), d, reader.number(where, column, value))
        if all(math.isnan(v) for v in row.values()):
            del c.judgments[key]           # a summary the release does not judge
    elif j.layout == "long":
        dim = reader.value(where, rec, j.dimension, "judgments.dimension")
        if dim not in dims:
            raise fail(reader.path, where, j.dimension, f"{dim!r} is not a declared dimension (config key "
                       f"{o.key}.dimensions: {', '.join(dims)})")
        value = reader.value(where, rec, j.score, "judgments.score")
        score = check_value(reader.path, where, j.score, str(value), dims[dim], reader.number(where, j.score, value))
        if j.annotator:
            annotator = reader.name(where, rec, j.annotator, "judgments.annotator")
            group = reader.name(where, rec, j.group, "judgments.group") if j.group else "all"
            ident = (*key, dim + "\t" + annotator)
            if ident in c.judgment_where:
                raise fail(reader.path, where, j.annotator, f"a second score of {annotator!r} for {key} on {dim!r}; "
                           f"the first is {c.judgment_where[ident]}")
            c.judgment_where[ident] = f"{reader.path}, {where}"
            c.annotations.append(Annotation(*key, dim, annotator, group, score))
        else:
            ident = (*key, dim)
            if ident in c.judgment_where:
                raise fail(reader.path, where, j.dimension, f"a second score of {key} on {dim!r}; the first is "
                           f"{c.judgment_where[ident]} (with several annotators, declare judgments.annotator)")
            c.judgment_where[ident] = f"{reader.path}, {where}"
            c.judgments.setdefault(key, {})[dim] = score
    else:
        # the dimensions annotated: each dimension's own, or the one whose annotations it aggregates
        annotated = [dims[n] for n in dict.fromkeys(d.annotations_of or d.name for d in dims.values())]
        for group, column in j.groups:
            anns = reader.value(where, rec, column, f"judgments.groups.{group}")
            if not isinstance(anns, list) or not anns:
                raise fail(reader.path, where, column, "expected a non-empty list of {dimension: score} objects "
                           f"(config key {o.key}.judgments.groups.{group})")
            for i, a in enumerate(anns):
                for d in annotated:
                    at = f"{column}[{i}].{d.name}"
                    value = a.get(d.name) if isinstance(a, dict) else None
                    if value is None:
                        raise fail(reader.path, where, at, f"missing; expected a score of every declared dimension "
                                   f"(config key {o.key}.dimensions.{d.name})")
                    score = check_value(reader.path, where, at, str(value), d, reader.number(where, at, value))
                    # the release does not name its annotators: a position names one (expert1, crowd1, ...)
                    c.annotations.append(Annotation(*key, d.name, f"{group}{i + 1}", group, score))


def _read_score(reader: _Reader, where: int | str, rec: Record, key: tuple[str, str], metric: str, column: str,
                c: _Collected, config_key: str) -> None:
    value = reader.value(where, rec, column, config_key.split(".", 2)[-1])
    if value is None or isinstance(value, str) and not value.strip():
        return     # no score of this metric for this summary (partial_coverage says whether that is allowed)
    score = reader.number(where, column, value)
    ident = (*key, metric)
    if ident in c.scores:
        raise fail(reader.path, where, column, f"a second score of {metric!r} for {key}; the first is {c.scores[ident][1]}")
    c.scores[ident] = (score, f"{reader.path}, {where}")


def _read_metric_file(o: TableOptions, m: MetricFile, c: _Collected) -> None:
    section = f"metric_files[{o.metric_files.index(m)}]"
    for path, system, path_topic in _named_files(m.path, f"{o.key}.metric_files.path"):
        reader = _Reader(path, reader_of(path, m.reader), o.key)
        cols = _merged(o.columns, m.columns)
        cols = _aligned_columns(cols, m.columns, m.aligned)
        first = True
        for where, rec, line_topic in _rows(o, c, reader, _spec(section, m, m.columns.topic), cols.summarizer, system,
                                            path_topic):
            if first:
                _check_columns(path, reader.reader, rec, {f"{o.key}.metric_files.columns.topic": cols.topic,
                                                          **{f"{o.key}.metric_files.metrics[{i}]": x for i, x in enumerate(m.metrics)}})
                first = False
            key = _key(reader, where, rec, cols, system, "metric_files.columns", line_topic)
            if key not in c.summaries:
                raise fail(path, where, cols.summarizer or cols.topic, f"scores ({key[0]!r}, {key[1]!r}), which has no "
                           f"summary in {o.path} (config key {o.key}.metric_files.path)")
            for metric in m.metrics:
                _read_score(reader, where, rec, key, metric, metric, c, f"{o.key}.metric_files.metrics")
