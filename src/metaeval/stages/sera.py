"""SERA stage (Cohan & Goharian 2016): build the retrieval index of a data set's documents once,
then score every judged summary (the engine is :mod:`metaeval.metrics.sera`).

* index: documents (the data set's documents.jsonl, or the configured corpus) -> ``index.zip``;
* scores: data set + index -> the long table ``topic, summarizer, metric, score`` of SERA-n and
  SERA-DIS-n for every query reformulation and cut-off, and a signature of the options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, NamedTuple

from .. import __version__, tables
from ..data.contract import fail, json_objects
from ..data.datasets import Dataset
from ..files import write_text
from ..metrics import sera
from ..metrics.tokenize import NO_EXCEPTIONS, exceptions_label
from ..records import SeraIndexOptions, SeraOptions


def corpus_documents(path: Path | str) -> list[tuple[str, str]]:
    """The documents of a file in the documents.jsonl form ({"topic", "documents": [...]}, one line
    per topic): ids "<topic>#<k>" in file order. (Unlike a data set's own documents.jsonl, a
    configured corpus's topics need not be the data set's.)"""
    out = []
    for line_no, rec in json_objects(path, '{"topic": ..., "documents": [text, ...]}'):
        docs = rec.get("documents")
        if not isinstance(docs, list) or not all(isinstance(d, str) for d in docs):
            raise fail(path, line_no, "documents", "expected a list of strings")
        out.extend((f"{rec.get('topic', line_no)}#{k}", d) for k, d in enumerate(docs))
    return out


def build_index(corpus_file: str, options: SeraIndexOptions) -> sera.Index:
    """The index of a corpus file; stemmed (as ROUGE -m, with rouge.stemmer_exceptions) if asked."""
    return sera.build_index(corpus_documents(corpus_file), options.stemming,
                            options.stemmer_exceptions or NO_EXCEPTIONS)


def items_of(ds: Dataset) -> list[sera.Item]:
    """The judged summaries with their references: every human summary of the topic except the
    summary itself (a judged human summary is jackknifed). Averaging SERA over all references
    equals averaging it over the leave-one-out reference sets, so no jackknife option is needed."""
    return [sera.Item(s.topic, s.summarizer, s.sentences,
                      tuple(r.sentences for r in ds.references(s.topic) if r.summarizer != s.summarizer))
            for s in ds.judged() if s.key not in ds.lone_references]   # those have no other reference


class SeraScores(NamedTuple):
    rows: list[tuple[str, str, str, float]]      # topic, summarizer, metric id, score
    signature: str
    notes: list[str]


def signature(options: SeraOptions, index: sera.Index) -> str:
    """A reproducibility signature of the SERA options, in sacrebleu's style."""
    params = f"mu:{options.mu:g}" if options.model == "lm_dirichlet" else f"k1:{options.bm25[0]:g},b:{options.bm25[1]:g}"
    return "|".join(["SERA", f"model:{options.model}", params, f"n:{','.join(map(str, options.cutoffs))}",
                     f"queries:{','.join(options.queries)}", f"stem:{int(index.stem)}",
                     *([f"stemexc:{exceptions_label(index.exceptions)}"] if index.stem else []),
                     f"docs:{len(index.doc_ids)}",
                     "corpus:" + (options.corpus or "the data set's documents.jsonl"),
                     f"metaeval:{__version__}"])


def compute(ds: Dataset, index: sera.Index, options: SeraOptions) -> SeraScores:
    """Score every judged summary. Without documents (an empty index) there are no rows: SERA is
    then absent from every analysis."""
    k1, b = options.bm25 if options.bm25 else (1.2, 0.75)
    items = items_of(ds)
    rows = sera.score_items(items, index, options.cutoffs, options.queries, options.model, options.mu or 2000.0,
                            k1, b) if index.doc_ids else []
    notes = [f"{len(items)} judged summaries, {len(index.doc_ids)} documents indexed, {len(rows)} scores"]
    if not index.doc_ids:
        notes.append("no documents: SERA is not computed for this data set")
    elif len(index.doc_ids) <= max(options.cutoffs):
        notes.append("the corpus has no more documents than the largest cut-off: SERA at that cut-off is constant")
    return SeraScores(rows, signature(options, index), notes)


def write(result: SeraScores, out: Mapping[str, str]) -> None:
    tables.write_tsv(tables.frame(result.rows, ["topic", "summarizer", "metric", "score"]), out["scores"])
    write_text(out["signature"], result.signature + "\n")
