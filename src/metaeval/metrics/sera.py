"""SERA, Summarization Evaluation by Relevance Analysis (Cohan & Goharian 2016, "Revisiting
Summarization Evaluation for Scientific Articles", LREC, §5).

A summary is turned into a query, the query retrieves documents from a corpus, and a candidate
summary is good when it retrieves what the reference (gold) summaries retrieve.

* **SERA-n** = (1/M) Σ_i |R_C ∩ R_Gi| / |R_C|, over the M references G_i, where R_C and R_Gi are
  the top-n documents retrieved by the candidate and by reference i.
* **SERA-DIS-n** discounts a match by the distance of its ranks: a document at rank j in R_C and
  k in R_Gi counts 1 / log2(|j − k| + 2) (1 at the same rank); each reference's sum is divided by
  the best attainable sum, min(|R_C|, |R_Gi|) same-rank matches (the log base cancels).
* An empty result list (a query with no indexed term) scores 0.

Queries (the paper's reformulations): ``plain`` = the summary's tokens without stop words (SMART
list, as ROUGE -s) and numbers; ``keywords`` = the terms and phrases of up to three consecutive
content tokens whose idf on the index, log(N / df), is above the mean idf of the index's
single-word terms (stop words are never indexed). Noun-phrase queries are not offered: they need a
part-of-speech tagger whose models cannot be installed from a package registry here.

Retrieval is sparse-matrix code over an index of 1-3-gram counts (the phrase terms are columns of
the same matrix): query likelihood with Dirichlet smoothing (Zhai & Lafferty 2004), the paper's
model, or BM25 (Lucene's form). A document is retrieved only if it contains a query term (as a
Lucene OR query); ties are broken by corpus order, so results are deterministic. No retrieval
library was used: Lucene-based ones (pyserini) need a JVM, and the Python BM25 packages have no
language model.
"""

from __future__ import annotations

import functools
import io
import json
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
from scipy import sparse

from ..files import atomic_path
from .tokenize import ALPHABETICAL, morph_stem, spl_lines, stopwords

MODELS = ("lm_dirichlet", "bm25")
QUERIES = ("plain", "keywords")
QUERY_TAG = {"plain": "PL", "keywords": "KW"}
MAX_PHRASE = 3
_TOKEN = re.compile(rb"[a-z0-9]+")
_NUMBER = re.compile(r"[0-9]+")


# ----------------------------------------------------------------------------- text

def content_runs(sentences: Sequence[str], stem: bool, exceptions: tuple[str, ...] = ALPHABETICAL
                 ) -> list[list[str]]:
    """Runs of consecutive content tokens (not stop words, not numbers), lower-cased as ROUGE does
    and optionally stemmed as ROUGE -m does (with the exception files loaded in order
    ``exceptions``, :mod:`metaeval.metrics.tokenize`); a stop word, a number or a sentence end ends
    a run."""
    stop = stopwords()
    runs: list[list[str]] = []
    for line in spl_lines(sentences):
        run: list[str] = []
        for raw in _TOKEN.findall(line):
            tok = raw.decode("ascii")
            if tok in stop or _NUMBER.fullmatch(tok):
                if run:
                    runs.append(run)
                run = []
                continue
            run.append(morph_stem(tok, exceptions) if stem and len(tok) > 3 else tok)
        if run:
            runs.append(run)
    return runs


def ngrams(runs: Iterable[Sequence[str]], max_n: int = MAX_PHRASE) -> dict[str, int]:
    """Counts of the 1..max_n-grams inside the runs, phrases joined by a space."""
    out: dict[str, int] = {}
    for run in runs:
        for n in range(1, max_n + 1):
            for i in range(len(run) - n + 1):
                key = " ".join(run[i:i + n])
                out[key] = out.get(key, 0) + 1
    return out


# ----------------------------------------------------------------------------- index

@dataclass
class Index:
    """Documents x terms counts (1-3-grams of content tokens), in corpus order."""

    doc_ids: list[str]
    terms: list[str]
    counts: sparse.csr_matrix     # (D, T) int64
    stem: bool
    exceptions: tuple[str, ...] = ALPHABETICAL   # the stemmer's exception table (queries use the same)

    @functools.cached_property
    def term_index(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self.terms)}

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        """Document lengths in single-word tokens."""
        unigram = np.array([" " not in t for t in self.terms], dtype=bool)
        return np.asarray(self.counts[:, unigram].sum(axis=1)).ravel().astype(float)

    @functools.cached_property
    def df(self) -> np.ndarray:
        return np.diff(self.counts.tocsc().indptr).astype(float)


def build_index(documents: Sequence[tuple[str, str]], stem: bool, exceptions: tuple[str, ...] = ALPHABETICAL
                ) -> Index:
    """Index (doc id, text) pairs; terms sorted, so the index is the same for the same corpus."""
    per_doc = [ngrams(content_runs(text.split("\n"), stem, exceptions)) for _, text in documents]
    terms = sorted({t for d in per_doc for t in d})
    ti = {t: i for i, t in enumerate(terms)}
    rows, cols, vals = [], [], []
    for r, d in enumerate(per_doc):
        for t, c in d.items():
            rows.append(r)
            cols.append(ti[t])
            vals.append(c)
    counts = sparse.csr_matrix((np.array(vals, dtype=np.int64), (np.array(rows, dtype=np.int64),
                                np.array(cols, dtype=np.int64))), shape=(len(documents), len(terms)))
    counts.sort_indices()
    return Index([i for i, _ in documents], terms, counts, stem, tuple(exceptions))


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def write_index(index: Index, path: Path | str) -> None:
    """A zip of .npy arrays and a JSON header with fixed timestamps: byte-identical for the same
    corpus. Written to a temporary name and renamed."""
    header = json.dumps({"doc_ids": index.doc_ids, "terms": index.terms, "stem": index.stem,
                         "exceptions": list(index.exceptions)}, ensure_ascii=False).encode("utf-8")
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in (("header.json", header), ("data.npy", _npy(index.counts.data)),
                           ("indices.npy", _npy(index.counts.indices.astype(np.int64))),
                           ("indptr.npy", _npy(index.counts.indptr.astype(np.int64)))):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def read_index(path: Path | str) -> Index:
    with zipfile.ZipFile(path) as z:
        header = json.loads(z.read("header.json"))
        arr = {n: np.load(io.BytesIO(z.read(f"{n}.npy"))) for n in ("data", "indices", "indptr")}
    shape = (len(header["doc_ids"]), len(header["terms"]))
    counts = sparse.csr_matrix((arr["data"], arr["indices"], arr["indptr"]), shape=shape)
    return Index(header["doc_ids"], header["terms"], counts, bool(header["stem"]), tuple(header["exceptions"]))


# ----------------------------------------------------------------------------- queries

def idf(index: Index) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(len(index.doc_ids) / index.df)


def keyword_threshold(index: Index) -> float:
    """Mean idf of the index's single-word terms (all non-stop words: stop words are not indexed)."""
    unigram = np.array([" " not in t for t in index.terms], dtype=bool)
    return float(idf(index)[unigram].mean()) if unigram.any() else math.inf


def query_terms(sentences: Sequence[str], kind: str, index: Index, threshold: float, idf_values: np.ndarray
                ) -> dict[str, int]:
    """The query of a summary: term -> count (only terms the index knows can match)."""
    runs = content_runs(sentences, index.stem, index.exceptions)
    if kind == "plain":
        return ngrams(runs, 1)
    if kind == "keywords":
        ti = index.term_index
        return {t: c for t, c in ngrams(runs).items() if t in ti and idf_values[ti[t]] > threshold}
    raise ValueError(f"unknown query reformulation {kind!r}; expected one of {QUERIES}")


def query_matrix(queries: Sequence[Mapping[str, int]], index: Index) -> sparse.csr_matrix:
    ti = index.term_index
    rows, cols, vals = [], [], []
    for r, q in enumerate(queries):
        for t, c in q.items():
            if t in ti:
                rows.append(r)
                cols.append(ti[t])
                vals.append(float(c))
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(queries), len(index.terms)))


# ----------------------------------------------------------------------------- retrieval

def document_weights(index: Index, model: str, mu: float = 2000.0, k1: float = 1.2, b: float = 0.75
                     ) -> tuple[sparse.csr_matrix, np.ndarray]:
    """(W, length term): score(q, d) = (q · W[d]) + |q| · length_term[d], rank-equivalent to
    query likelihood with Dirichlet smoothing, Σ_t q_t log((c_td + μ p_t) / (|d| + μ)), whose
    document-independent part Σ_t q_t log(μ p_t) is dropped; for BM25 the length term is 0 and
    W[d, t] = idf_t · c_td (k1 + 1) / (c_td + k1 (1 − b + b |d| / avgdl)),
    idf_t = ln(1 + (N − df_t + 0.5) / (df_t + 0.5)) (Lucene's BM25)."""
    x = index.counts.tocoo()
    lengths = index.lengths
    n_docs = len(index.doc_ids)
    if model == "lm_dirichlet":
        total = max(lengths.sum(), 1.0)
        p = np.asarray(index.counts.sum(axis=0)).ravel() / total
        w = np.log1p(x.data / (mu * p[x.col]))
        length_term = np.log(mu / (lengths + mu))
    elif model == "bm25":
        df = index.df
        idf_t = np.log1p((n_docs - df + 0.5) / (df + 0.5))
        avgdl = lengths.mean() if n_docs else 1.0
        norm = k1 * (1 - b + b * lengths[x.row] / (avgdl or 1.0))
        w = idf_t[x.col] * x.data * (k1 + 1) / (x.data + norm)
        length_term = np.zeros(n_docs)
    else:
        raise ValueError(f"unknown retrieval model {model!r}; expected one of {MODELS}")
    return sparse.csr_matrix((w, (x.row, x.col)), shape=x.shape), length_term


def retrieve(q: sparse.csr_matrix, index: Index, weights: tuple[sparse.csr_matrix, np.ndarray], depth: int,
             chunk: int = 512) -> list[list[int]]:
    """The top ``depth`` documents (corpus positions) of every query row; only documents with a
    query term; ties in corpus order."""
    w, length_term = weights
    present = (index.counts > 0).astype(np.float64).T.tocsr()
    qlen = np.asarray(q.sum(axis=1)).ravel()
    out: list[list[int]] = []
    for start in range(0, q.shape[0], chunk):
        block = q[start:start + chunk]
        scores = np.asarray((block @ w.T).todense()) + qlen[start:start + chunk, None] * length_term[None, :]
        matches = np.asarray(((block > 0).astype(np.float64) @ present).todense()) > 0
        out.extend(_top_documents(np.where(matches, scores, -np.inf), matches, depth))
    return out


def _top_documents(scores: np.ndarray, matches: np.ndarray, depth: int) -> list[list[int]]:
    """Per row, the ``depth`` matching documents of the highest scores, ties in corpus order: the
    depth-th best score of every row at once (one sort of the block; numpy's partition slows down
    on the many equal scores retrieval gives), then only the documents at or above it sorted by
    (score descending, position)."""
    n_docs = scores.shape[1]
    if n_docs > depth:
        floor = np.sort(scores, axis=1)[:, n_docs - depth]
        keep = matches & (scores >= floor[:, None])
    else:
        keep = matches
    out = []
    for row, kept in zip(scores, keep):
        cand = np.flatnonzero(kept)
        out.append(cand[np.lexsort((cand, -row[cand]))][:depth].tolist())
    return out


# ----------------------------------------------------------------------------- SERA

def sera(candidate: Sequence, references: Sequence[Sequence]) -> float:
    """SERA: mean over references of |R_C ∩ R_G| / |R_C| (0 when R_C is empty)."""
    if not references:
        return math.nan
    if not candidate:
        return 0.0
    c = set(candidate)
    return math.fsum(len(c & set(g)) / len(candidate) for g in references) / len(references)


def sera_dis(candidate: Sequence, references: Sequence[Sequence]) -> float:
    """SERA-DIS: every match discounted by 1 / log2(|j − k| + 2), each reference normalised by the
    best attainable score (min(|R_C|, |R_G|) same-rank matches)."""
    if not references:
        return math.nan
    values = []
    for g in references:
        best = min(len(candidate), len(g))
        if best == 0:
            values.append(0.0)
            continue
        rank = {d: k for k, d in enumerate(g)}
        got = math.fsum(1 / math.log2(abs(j - rank[d]) + 2) for j, d in enumerate(candidate) if d in rank)
        values.append(got / best)
    return math.fsum(values) / len(values)


def metric_id(discounted: bool, cutoff: int, query: str) -> str:
    """Per-summary metric id: SERA5_PL, SERADIS10_KW, ..."""
    return f"SERA{'DIS' if discounted else ''}{cutoff}_{QUERY_TAG[query]}"


@dataclass(frozen=True)
class Item:
    """One judged summary and the references it is scored against (jackknifed for human ones)."""

    topic: str
    summarizer: str
    sentences: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]


def score_items(items: Sequence[Item], index: Index, cutoffs: Sequence[int], queries: Sequence[str], model: str,
                mu: float, k1: float, b: float) -> list[tuple[str, str, str, float]]:
    """(topic, summarizer, metric id, score) for every item, cut-off, query kind and SERA/SERA-DIS.
    Each distinct text is queried once."""
    texts: dict[tuple[str, ...], int] = {}
    for it in items:
        for t in (it.sentences, *it.references):
            texts.setdefault(t, len(texts))
    ordered = sorted(texts, key=texts.get)
    weights = document_weights(index, model, mu, k1, b)
    idf_values = idf(index) if len(index.terms) else np.zeros(0)
    threshold = keyword_threshold(index)
    depth = max(cutoffs)
    rows = []
    results: dict[str, list[list[int]]] = {}
    for kind in queries:
        qs = [query_terms(t, kind, index, threshold, idf_values) for t in ordered]
        results[kind] = retrieve(query_matrix(qs, index), index, weights, depth) if len(index.doc_ids) else \
            [[] for _ in ordered]
    for it in items:
        for kind in queries:
            res = results[kind]
            cand = res[texts[it.sentences]]
            refs = [res[texts[r]] for r in it.references]
            for n in cutoffs:
                rows.append((it.topic, it.summarizer, metric_id(False, n, kind),
                             sera(cand[:n], [g[:n] for g in refs])))
                rows.append((it.topic, it.summarizer, metric_id(True, n, kind),
                             sera_dis(cand[:n], [g[:n] for g in refs])))
    return rows
