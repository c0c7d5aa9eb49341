"""Texts out: every judged summary of a data set with its references and its source, as a metric's
own code reads them (``results/to_score/{dataset}.jsonl``, target ``to_score``), so that a new
metric can be computed elsewhere and its scores brought back in one score file
(docs/benchmarks.md, "Texts out").

One JSON object per line (UTF-8, not ASCII-escaped), sorted by (topic, summarizer) in code-point
order, with the keys in this order:

* ``dataset``, ``topic``, ``summarizer``: the names the score file's rows give back;
* ``summary``: the summary's sentences joined with a line feed (``"\\n"``: one sentence a line, the
  ``text`` form of summaries.jsonl), or null in a data set without texts;
* ``references``: the texts of the topic's human (reference) summaries, joined alike, in summarizer
  order, chosen as the scoring stage chooses them (:func:`metaeval.metrics.rouge.reference_sets`): a
  judged human summary without itself (jackknifing), any other summary with all of them (with
  ``rouge.jackknife_systems`` the built-in metrics also average over the leave-one-out sets; a
  metric of yours may do the same with this list); empty in a release without reference summaries
  (SummEdits); null in a data set without texts;
* ``source``: the topic's document text, or the list of its texts when it has several, in
  documents.jsonl's order; null when the data set has none;
* ``note``: null, or why a field is null and where its text could come from (the release format's
  :attr:`metaeval.data.formats.ReleaseFormat.texts_from`); the job's log says it once.

A score-only release whose texts are in a file of their own (FRANK's ``benchmark_data.json``: the
format's :attr:`~metaeval.data.formats.ReleaseFormat.texts_file`) gives them here when the file is
there: for a benchmark of the catalog when its fetch job could have it (its manifest says, and the
file's SHA-256 is checked against it before it is read), for a release of the user's when it is
beside the release's other files. The record's ``summary`` is then the release's summary text,
``references`` its one reference summary and ``source`` its article.

load -> :func:`compute` -> :class:`ToScore` -> :func:`write` (one atomic write).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Mapping

from ..data.contract import Dataset, DatasetError
from ..data.datasets import read_dataset
from ..data.fetch import manifest_rows
from ..data.frank import Texts, read_texts
from ..files import write_text
from ..metrics.rouge import reference_sets
from ..records import ToScoreOptions

# How a summary's sentences become one text (stated in every record's docs: the module docstring).
SENTENCE_JOINER = "\n"
KEYS = ("dataset", "topic", "summarizer", "summary", "references", "source", "note")


@dataclass
class ToScore:
    records: list[dict[str, Any]]     # one per judged summary, keys as :data:`KEYS`, sorted
    notes: list[str]                  # what is missing, once each (also in the records' ``note``)


@dataclass
class Loaded:
    dataset: Dataset
    texts: dict[tuple[str, str], Texts] | None     # a score-only release's file of texts, when it was there
    absent: str                                    # why that file is not there ("" when it is, or none is known)


def text_of(sentences: tuple[str, ...]) -> str:
    return SENTENCE_JOINER.join(sentences)


def missing(ds: Dataset, options: ToScoreOptions, absent: str = "") -> list[str]:
    """What the data set lacks of the texts a metric reads, with where it could come from."""
    where = f" {options.texts_from}" if options.texts_from else ""
    if absent:
        where = f" {absent}{where}"
    if not ds.has_texts:
        return [f"data set {options.dataset!r} has no texts (a score-only data set: no summary, reference or "
                f"source text).{where or ' Its canonical folder would need summaries with sentences (docs/DATASET_FORMAT.md).'}"]
    if not ds.has_references:
        return [f"data set {options.dataset!r} has no reference summaries (references is an empty list).{where}"]
    if not ds.documents:
        return [f"data set {options.dataset!r} has no source documents (source is null).{where or ' A documents.jsonl in its canonical folder would give them (docs/DATASET_FORMAT.md).'}"]
    return []


def compute(loaded: Loaded, options: ToScoreOptions) -> ToScore:
    """The records of every judged summary (:data:`KEYS`)."""
    ds, texts = loaded.dataset, loaded.texts
    if texts is not None:
        return _from_texts_file(ds, texts, options)
    notes = missing(ds, options, loaded.absent)
    note = " ".join(notes) or None
    docs = ds.documents or {}
    records = []
    for s in sorted(ds.judged(), key=lambda s: (s.topic, s.summarizer)):
        summary = references = None
        if ds.has_texts and not ds.has_references:
            summary, references = text_of(s.sentences), []
        elif ds.has_texts:
            refs = ds.references(s.topic)
            peer = next((i for i, r in enumerate(refs) if r.summarizer == s.summarizer), None)
            chosen = reference_sets(list(range(len(refs))), peer, jackknife=False)[0]
            summary, references = text_of(s.sentences), [text_of(refs[i].sentences) for i in chosen]
        texts = docs.get(s.topic)
        source = None if not texts else texts[0] if len(texts) == 1 else list(texts)
        # a data set with documents may leave a topic without any
        lacking = None if texts or not docs else f"topic {s.topic!r} has no document in documents.jsonl (source is null)."
        values = (options.dataset, s.topic, s.summarizer, summary, references, source, note or lacking)
        records.append(dict(zip(KEYS, values)))
    return ToScore(records, notes)


def _from_texts_file(ds: Dataset, texts: Mapping[tuple[str, str], Texts], options: ToScoreOptions) -> ToScore:
    """The records of a score-only data set from its release's file of texts (by topic and summarizer)."""
    name = os.path.basename(options.texts_file or "")
    records, lacking = [], 0
    for s in sorted(ds.judged(), key=lambda s: (s.topic, s.summarizer)):
        t = texts.get((s.topic, s.summarizer))
        lacking += t is None
        note = None if t is not None else f"{name} has no record of this summary (topic {s.topic!r}, summarizer " \
                                          f"{s.summarizer!r}): no text."
        values = (options.dataset, s.topic, s.summarizer, *((t.summary, [t.reference], t.article) if t else
                                                             (None, None, None)), note)
        records.append(dict(zip(KEYS, values)))
    notes = [f"data set {options.dataset!r}: the texts of {len(records) - lacking} of {len(records)} judged summaries "
             f"from the release's {name} (summary, its reference summary, the article)."]
    if lacking:
        notes.append(f"{lacking} judged summaries have no record in {name}: their texts are null (their note says so).")
    return ToScore(records, notes)


def _texts_file(inputs: Mapping[str, str], options: ToScoreOptions) -> tuple[str | None, str]:
    """(the path of the release's file of texts to read, or None; why it is not there). For a catalog
    benchmark its fetch manifest says whether it could be had, and its SHA-256 there is checked."""
    if "texts_manifest" not in inputs:
        return inputs.get("texts"), ""
    wanted = os.path.relpath(options.texts_file, options.release).replace(os.sep, "/")
    row = next((r for r in manifest_rows(inputs["texts_manifest"]) if r["path"] == wanted), None)
    if row is None or row["status"] != "verified":
        why = row["note"] if row else "not in the fetch job's manifest"
        return None, (f"The release's {wanted} {why}; with a network (or a mirror that has it) "
                      f"`snakemake --cores 2 --forcerun fetch_{options.dataset} to_score` fetches it.")
    with open(options.texts_file, "rb") as fh:
        found = hashlib.file_digest(fh, "sha256").hexdigest()
    if found != row["sha256"]:
        raise DatasetError(f"{options.texts_file}: its sha256 is {found}, not the {row['sha256']} its fetch job "
                           f"verified ({inputs['texts_manifest']}); the copy was changed: run the fetch again "
                           f"(snakemake --forcerun fetch_{options.dataset})")
    return options.texts_file, ""


def load(inputs: Mapping[str, str], options: ToScoreOptions) -> Loaded:
    """The validated canonical copy (its files by key, :data:`metaeval.data.contract.FILES`) and, for a
    score-only release with a file of texts, that file's texts when it is there."""
    path, absent = _texts_file(inputs, options)
    texts = None
    if path:
        try:
            texts = read_texts(path)
        except DatasetError as e:   # a file the data set can do without: its problem is said, not fatal
            absent = f"The release's {os.path.basename(path)} could not be read ({e})."
    return Loaded(read_dataset(inputs), texts, absent)


def write(result: ToScore, path: str) -> None:
    write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.records))
