"""A whole data set in the canonical form: read and validated from its folder's files, its
normalised copy written, and its summary table.

The contract is ``docs/DATASET_FORMAT.md`` (a copy of the project's dataset contract): a folder
with ``dataset.yaml``, ``summaries.jsonl``, ``judgments.tsv`` and optionally ``documents.jsonl``,
``pyramids.jsonl`` and ``annotations.tsv``. Its records and errors are in :mod:`.contract`, the
reader of dataset.yaml in :mod:`.dataset_yaml`, the readers of the other files in
:mod:`.canonical_files`. Every problem raises :class:`DatasetError` naming the file, the line (or
row) and the field.
"""

from __future__ import annotations

import json
import math
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Collection, Mapping

from ..files import write_text
from .canonical_files import (annotation_means, check_judged_references, check_preferences, read_annotations,
                              read_documents, read_judgments, read_pyramids, read_summaries)
from .contract import (ANNOTATION_HEADER, ANNOTATION_PART, FILES, REQUIRED, SUMMARY_KINDS, Dataset, DatasetError,
                       Summary, fail, read_text)
from . import safe_yaml
from .dataset_yaml import aggregation_spec, parse_aggregation, parse_dataset_yaml


def folder_files(folder: Path | str) -> dict[str, str]:
    """The data set files of a folder, by key (only those that exist)."""
    folder = Path(folder)
    return {key: str(folder / name) for key, name in FILES.items() if (folder / name).is_file()}


def folder_paths(folder: Path | str) -> dict[str, str]:
    """Every data set file of a folder by key, whether it exists or not (where to write a data set)."""
    return {key: str(Path(folder) / name) for key, name in FILES.items()}


def load_dataset(folder: Path | str, human_override: Mapping[str, list[str]] | None = None,
                 aggregation_override: Any = None) -> Dataset:
    """Read and validate a canonical data set folder. Never writes to it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder}: not a folder; expected a data set folder with dataset.yaml, "
                           "summaries.jsonl and judgments.tsv")
    for key in REQUIRED:
        if not (folder / FILES[key]).is_file():
            raise DatasetError(f"{folder / FILES[key]}: missing; a data set folder needs dataset.yaml, summaries.jsonl "
                               "and judgments.tsv")
    ds = read_dataset(folder_files(folder), human_override, aggregation_override)
    for message in ds.warnings:
        warnings.warn(message, stacklevel=2)
    return ds


def read_dataset(paths: Mapping[str, str], human_override: Mapping[str, list[str]] | None = None,
                 aggregation_override: Any = None) -> Dataset:
    """Read and validate a data set given its files by key (:data:`FILES`; ``documents`` and
    ``pyramids`` optional). Never writes to them. What is legal but worth a word (empty summaries)
    is in ``warnings`` (the validation job logs it; :func:`load_dataset` warns).
    ``aggregation_override``: the config entry's ``aggregation:``, in place of dataset.yaml's."""
    ypath = Path(paths["dataset"])
    meta, dims, human = parse_dataset_yaml(ypath, read_text(ypath), human_override)
    aggregation = (parse_aggregation(aggregation_override, "config key datasets.<name>.aggregation")
                   if aggregation_override is not None else parse_aggregation(meta.get("aggregation"), ypath))
    texts = meta.get("texts", True)
    spath = Path(paths["summaries"])
    summaries = read_summaries(spath, texts)
    lines = {s.key: s.line for s in summaries}
    apath = Path(paths["annotations"]) if paths.get("annotations") else None
    annotations = read_annotations(apath, dims, lines) if apath and apath.is_file() else []
    means = annotation_means(dims, annotations, aggregation)
    jpath = Path(paths["judgments"])
    judgments, jlines = read_judgments(jpath, dims, lines, means)
    aggregated = []
    for d, values in means.items():
        if any(d in row for row in judgments.values()):
            continue  # judgments.tsv gives this dimension: its values are the data set's own
        aggregated.append(d)
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
    references = meta.get("references", True) is not False
    if not references and topics_with_refs:
        first = next(s for s in summaries if s.kind == "human")
        raise fail(spath, first.line, "kind", f"a human summary ({first.topic!r}, {first.summarizer!r}), but "
                   "dataset.yaml says references: false (a release without reference summaries); expected none")
    for key, line_no in sorted(jlines.items(), key=lambda kv: kv[1]) if texts and references else ():
        if key[0] not in topics_with_refs:
            raise fail(jpath, line_no, "topic",
                       f"topic {key[0]!r} has judged summaries but no human (reference) summary in summaries.jsonl")
    if texts and references and not meta.get("judged_lone_references"):
        check_judged_references(jpath, summaries, judgments, jlines)
    dpath = Path(paths["documents"]) if paths.get("documents") else None
    # An empty documents.jsonl (as the normalised copy writes for a data set without documents)
    # means the same as no file.
    documents = (read_documents(dpath, {s.topic for s in summaries}) or None) if dpath and dpath.is_file() else None
    ppath = Path(paths["pyramids"]) if paths.get("pyramids") else None
    pyramids = (read_pyramids(ppath, lines) or None) if ppath and ppath.is_file() else None
    ds = Dataset(name=str(meta["name"]), meta=meta, dimensions=dims, human=human,
                 summaries=summaries, judgments=judgments, documents=documents, pyramids=pyramids,
                 annotations=annotations, has_texts=texts, aggregation=aggregation, aggregated=tuple(aggregated))
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


def check_lone_references_scored(ds: Dataset, scored: Collection[tuple[str, str]], judgments_path: str) -> None:
    """``judged_lone_references``: a judged human summary alone in its topic is kept only when the
    score files score it; were the workflow's reference-based metrics (which leave it unscored) its
    only metrics, judging it would be pointless, so that case is refused as without the key."""
    missing = sorted(ds.lone_references - set(scored))
    if missing:
        t, s = missing[0]
        raise fail(judgments_path, None, "summarizer",
                   f"judges the human summary ({t!r}, {s!r}), the only human summary of its topic, and no score file "
                   f"scores it ({len(missing)} such summar{'y' if len(missing) == 1 else 'ies'}); dataset.yaml's "
                   "judged_lone_references keeps such a summary for metrics of the score files (ROUGE, BLEU, chrF and "
                   "SERA have no other reference to score it against): add its scores, another reference of the "
                   "topic, or leave it unjudged")


def _sort_key(s: Summary) -> tuple[str, int, str]:
    return (s.topic, SUMMARY_KINDS.index(s.kind), s.summarizer)


def _part_order(part: str) -> tuple[int, int | str]:
    """Parts in order: numbers (QAGS's sentences) by value, then names."""
    return (0, int(part)) if part.isdigit() else (1, part)


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
    # a dimension aggregated from annotations.tsv says so in the copy (whose judgments.tsv gives its values)
    plain = [d for d in ds.aggregated if not ds.dimensions[d].annotations_of and not ds.dimensions[d].annotation_group]
    if plain and isinstance(meta.get("dimensions"), dict):
        meta["dimensions"] = {name: ({**spec, "annotations": {"dimension": name}} if name in plain else spec)
                              for name, spec in meta["dimensions"].items()}
    meta.pop("aggregation", None)
    if not ds.aggregation.is_default:      # the rule every later stage reads, as the copy declares it
        meta["aggregation"] = aggregation_spec(ds.aggregation)
    write_text(paths["dataset"], safe_yaml.dump(meta))
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
        # a part column only where annotations judge parts of a summary (the contract's six otherwise)
        parts = any(a.part for a in ds.annotations)
        rows = ["\t".join([*ANNOTATION_HEADER[:-1], *([ANNOTATION_PART] if parts else []), ANNOTATION_HEADER[-1]])]
        for a in sorted(ds.annotations, key=lambda a: (order[a.key], dim_order[a.dimension], a.group, a.annotator,
                                                       _part_order(a.part))):
            rows.append("\t".join([a.topic, a.summarizer, a.dimension, a.annotator, a.group,
                                   *([a.part] if parts else []), repr(float(a.score))]))
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
    # rows only a data set with the extensions of the benchmarks as released has, so that older data sets' tables stay as they were
    if not ds.has_texts:
        rows.append(("texts", "no (score-only: text metrics are skipped)"))
    elif not ds.has_references:
        rows.append(("references", "none (the release has no reference summaries: the workflow's text metrics, all "
                                   "reference-based, are skipped)"))
    for key in ("split", "subset"):
        counts = Counter(getattr(s, key) for s in judged if getattr(s, key) is not None)
        if counts:
            rows.append((f"judged_summaries_by_{key}", ",".join(f"{k}:{n}" for k, n in sorted(counts.items()))))
    if not ds.aggregation.is_default:
        rows.append(("aggregation", ds.aggregation.describe()))
    if ds.lone_references:
        rows.append(("judged_lone_references", f"{len(ds.lone_references)} (their topic's only human summary: ROUGE, "
                     "BLEU, chrF and SERA leave them unscored)"))
    if ds.annotations:
        groups: dict[str, set[str]] = {}
        for a in ds.annotations:
            groups.setdefault(a.group, set()).add(a.annotator)
        rows.append(("annotations", str(len(ds.annotations))))
        rows.append(("annotated_summaries", str(len({a.key for a in ds.annotations}))))
        if any(a.part for a in ds.annotations):
            rows.append(("annotated_parts", str(len({(*a.key, a.part) for a in ds.annotations}))))
        rows.append(("annotators_by_group", ",".join(f"{g}:{len(v)}" for g, v in sorted(groups.items()))))
    for d in ds.dimensions.values():
        if d.kind != "graded":
            rows.append((f"{d.name}_kind", d.kind))
        if d.annotations_of or d.annotation_group:
            rows.append((f"{d.name}_from_annotations",
                         f"mean of {d.annotations_of or d.name} by {d.annotation_group or 'every annotator'}"
                         if ds.aggregation.is_default else
                         f"{ds.aggregation.rule} of {d.annotations_of or d.name} by "
                         f"{d.annotation_group or ds.aggregation.group or 'every annotator'}"))
        if d.role is not None:
            rows.append((f"{d.name}_role", d.role))
    for d in ds.dimensions:
        vals = [ds.judgments[k][d] for k in ds.judgments if not math.isnan(ds.judgments[k][d])]
        rows.append((f"{d}_n", str(len(vals))))
        rows.append((f"{d}_mean", _num(sum(vals) / len(vals)) if vals else "NA"))
        rows.append((f"{d}_min", _num(min(vals)) if vals else "NA"))
        rows.append((f"{d}_max", _num(max(vals)) if vals else "NA"))
    return rows


def _num(x: float) -> str:
    return f"{x:.6g}"
