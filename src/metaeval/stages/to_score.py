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
  metric of yours may do the same with this list); null in a data set without texts;
* ``source``: the topic's document text, or the list of its texts when it has several, in
  documents.jsonl's order; null when the data set has none;
* ``note``: null, or why a field is null and where its text could come from (the release format's
  :attr:`metaeval.data.formats.ReleaseFormat.texts_from`); the job's log says it once.

load -> :func:`compute` -> :class:`ToScore` -> :func:`write` (one atomic write).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from ..data.contract import Dataset
from ..data.datasets import read_dataset
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


def text_of(sentences: tuple[str, ...]) -> str:
    return SENTENCE_JOINER.join(sentences)


def missing(ds: Dataset, options: ToScoreOptions) -> list[str]:
    """What the data set lacks of the texts a metric reads, with where it could come from."""
    where = f" {options.texts_from}" if options.texts_from else ""
    if not ds.has_texts:
        return [f"data set {options.dataset!r} has no texts (a score-only data set: no summary, reference or "
                f"source text).{where or ' Its canonical folder would need summaries with sentences (docs/DATASET_FORMAT.md).'}"]
    if not ds.documents:
        return [f"data set {options.dataset!r} has no source documents (source is null).{where or ' A documents.jsonl in its canonical folder would give them (docs/DATASET_FORMAT.md).'}"]
    return []


def compute(ds: Dataset, options: ToScoreOptions) -> ToScore:
    """The records of every judged summary (:data:`KEYS`)."""
    notes = missing(ds, options)
    note = " ".join(notes) or None
    docs = ds.documents or {}
    records = []
    for s in sorted(ds.judged(), key=lambda s: (s.topic, s.summarizer)):
        summary = references = None
        if ds.has_texts:
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


def load(data: Mapping[str, str]) -> Dataset:
    """The validated canonical copy (its files by key, :data:`metaeval.data.contract.FILES`)."""
    return read_dataset(data)


def write(result: ToScore, path: str) -> None:
    write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.records))
