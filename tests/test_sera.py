"""SERA (Cohan & Goharian 2016): the paper's worked example, hand-computed retrieval with both
models, query reformulation, the index file, and the metric on a data set."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import write_tiny
from metaeval.metrics import sera
from metaeval.stages import sera as sera_stage
from metaeval.data.datasets import load_dataset


def test_paper_example_simple_and_discounted():
    # Cohan & Goharian (2016): candidate results <d1 d2 d3 d4>, gold <d3 d2 d1 d4>
    cand, gold = ["d1", "d2", "d3", "d4"], ["d3", "d2", "d1", "d4"]
    assert sera.sera(cand, [gold]) == 1.0
    dis = sera.sera_dis(cand, [gold])
    # d1: |1-3| -> 1/log2(4) = 0.5; d2, d4: same rank -> 1; d3: 0.5; best attainable = 4
    assert dis == pytest.approx(3 / 4)
    assert dis < 1.0


def test_sera_averages_over_references_and_handles_empty_lists():
    cand = ["a", "b", "c", "d", "e"]
    assert sera.sera(cand, [["a", "x", "y", "z", "w"], ["a", "b", "c", "d", "e"]]) == pytest.approx((0.2 + 1.0) / 2)
    assert sera.sera([], [["a"]]) == 0.0                   # a query that retrieves nothing
    assert sera.sera_dis(["a"], [[]]) == 0.0
    assert math.isnan(sera.sera(cand, []))                  # no reference: undefined
    assert sera.sera_dis(cand, [cand]) == pytest.approx(1.0)
    # adjacent swap: two matches at distance 1 -> 2 / log2(3) over 2
    assert sera.sera_dis(["a", "b"], [["b", "a"]]) == pytest.approx(1 / math.log2(3))


DOCS = [("d0", "The storm hit the coast . Storm damage was severe ."),
        ("d1", "Markets fell as the central bank raised rates ."),
        ("d2", "A storm warning was issued for the coast and the bay ."),
        ("d3", "The bank reported record profits in 2015 .")]


def test_index_counts_phrases_and_drops_stop_words_and_numbers(tmp_path):
    idx = sera.build_index(DOCS, stem=False)
    assert "the" not in idx.terms and "2015" not in idx.terms
    ti = idx.term_index
    assert idx.counts[0, ti["storm"]] == 2
    assert idx.counts[0, ti["storm hit"]] == 1
    assert "hit coast" not in ti                              # the stop word "the" ends the run
    assert idx.counts[0, ti["storm damage"]] == 1
    assert list(idx.lengths) == [6.0, 6.0, 5.0, 4.0]        # content unigrams per document
    path = tmp_path / "index.zip"
    sera.write_index(idx, path)
    first = path.read_bytes()
    sera.write_index(sera.build_index(DOCS, stem=False), path)
    assert path.read_bytes() == first                        # byte-identical for the same corpus
    back = sera.read_index(path)
    assert back.terms == idx.terms and (back.counts != idx.counts).nnz == 0


def lm_score(query: dict, doc: int, idx: sera.Index, mu: float) -> float:
    """Query likelihood with Dirichlet smoothing, straight from its definition."""
    ti = idx.term_index
    total = idx.lengths.sum()
    cf = np.asarray(idx.counts.sum(axis=0)).ravel()
    dl = idx.lengths[doc]
    return sum(c * math.log((idx.counts[doc, ti[t]] + mu * cf[ti[t]] / total) / (dl + mu)) for t, c in query.items())


def bm25_score(query: dict, doc: int, idx: sera.Index, k1: float, b: float) -> float:
    ti = idx.term_index
    n = len(idx.doc_ids)
    avgdl = idx.lengths.mean()
    out = 0.0
    for t, q in query.items():
        df = (idx.counts[:, ti[t]] > 0).sum()
        tf = idx.counts[doc, ti[t]]
        out += q * math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * idx.lengths[doc] / avgdl))
    return out


@pytest.mark.parametrize("model", ["lm_dirichlet", "bm25"])
def test_retrieval_ranks_as_the_formulas_do(model):
    idx = sera.build_index(DOCS, stem=False)
    queries = [{"storm": 1, "coast": 2}, {"bank": 1}, {"bank": 1, "storm": 1}, {"unknownword": 1}]
    weights = sera.document_weights(idx, model, mu=5.0, k1=1.2, b=0.75)
    got = sera.retrieve(sera.query_matrix(queries, idx), idx, weights, depth=4)
    for q, result in zip(queries, got):
        ti = idx.term_index
        matching = [d for d in range(4) if any(t in ti and idx.counts[d, ti[t]] > 0 for t in q)]
        score = (lambda d: lm_score(q, d, idx, 5.0)) if model == "lm_dirichlet" else (lambda d: bm25_score(q, d, idx, 1.2, 0.75))
        expected = sorted(matching, key=lambda d: (-round(score(d), 12), d))
        assert result == expected
    assert got[3] == []                                     # nothing matches: nothing retrieved


def test_keyword_queries_keep_terms_above_the_mean_idf():
    idx = sera.build_index(DOCS, stem=False)
    idf = sera.idf(idx)
    threshold = sera.keyword_threshold(idx)
    unigram = [i for i, t in enumerate(idx.terms) if " " not in t]
    assert threshold == pytest.approx(np.mean(idf[unigram]))
    q = sera.query_terms(["Storm damage at the bank ."], "keywords", idx, threshold, idf)
    assert "storm" not in q and "bank" not in q              # in 2 of 4 documents: idf below the mean
    assert q == {"damage": 1, "storm damage": 1}             # rare terms and phrases stay
    plain = sera.query_terms(["Storm damage at the bank in 2015 ."], "plain", idx, threshold, idf)
    assert plain == {"storm": 1, "damage": 1, "bank": 1}      # stop words and numbers removed


def test_scores_of_a_data_set(tmp_path):
    folder = write_tiny(tmp_path / "tiny")
    ds = load_dataset(folder)
    items = sera_stage.items_of(ds)
    # the judged human summary B is scored against A only (jackknifing)
    b = next(i for i in items if i.summarizer == "B")
    assert len(b.references) == 1
    docs = [("T1#0", "The cat sat on the mat and purred . A red mat ."), ("T2#0", "Dogs bark at night in the town ."),
            ("X#0", "Stock markets and interest rates .")]
    rows = sera.score_items(items, sera.build_index(docs, True), [1, 2], ["plain", "keywords"], "lm_dirichlet",
                            2000.0, 1.2, 0.75)
    got = {(t, s, m): v for t, s, m, v in rows}
    assert got[("T1", "1", "SERA1_PL")] == 1.0                # the cat summary retrieves the cat document
    assert got[("T1", "2", "SERA1_PL")] == 0.0                # the empty summary retrieves nothing
    assert {m for _, _, m, _ in rows} == {"SERA1_PL", "SERADIS1_PL", "SERA2_PL", "SERADIS2_PL", "SERA1_KW",
                                          "SERADIS1_KW", "SERA2_KW", "SERADIS2_KW"}
    assert len(rows) == len(items) * 8


def test_top_documents_rank_by_score_then_corpus_order():
    """The retrieval's top documents per query (a threshold from one sort of the block, then the few
    above it ranked) against ranking every matching document by (score descending, position), with
    many tied scores and rows with fewer matches than the depth."""
    import numpy as np

    from metaeval.metrics.sera import _top_documents

    rng = np.random.default_rng(4)
    for _ in range(200):
        q, d, depth = int(rng.integers(1, 6)), int(rng.integers(1, 40)), int(rng.integers(1, 12))
        scores = np.round(rng.normal(size=(q, d)), int(rng.integers(0, 2)))
        matches = rng.random((q, d)) < rng.random()
        want = [sorted(np.flatnonzero(m).tolist(), key=lambda j: (-s[j], j))[:depth] for s, m in zip(scores, matches)]
        assert _top_documents(np.where(matches, scores, -np.inf), matches, depth) == want
