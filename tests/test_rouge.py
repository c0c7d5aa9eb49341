"""ROUGE without the Perl reference: Lin (2004)'s published examples, edge cases, jackknifing,
and the score tables."""
from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from metaeval.metrics.rouge import Task, encode, parse_measure, reference_sets, round5, rouge_single, score
from metaeval.stages.scoring import (ScoringError, TokenRecord, bleu_scores, score_measure, scoring_task,
                              system_scores_frame)
from metaeval.metrics.tokenize import Setting, morph_stem, perl_split_ws, tokenize_summary, tokens_of
from metaeval.metrics.porter import porter_stem

PLAIN = Setting(False, False)
REF = "police killed the gunman"


def f_of(candidate: str, measure: str) -> float:
    return rouge_single(tokenize_summary([candidate], PLAIN), [tokenize_summary([REF], PLAIN)],
                        parse_measure(measure))[2]


@pytest.mark.parametrize("candidate,rouge_l,rouge_s,rouge_su4", [
    ("police kill the gunman", 0.75, 0.5, 0.55556),
    ("the gunman kill police", 0.5, 0.16667, 0.22222),
    ("the gunman police killed", 0.5, 0.33333, 0.44444),
])
def test_lin_2004_examples(candidate, rouge_l, rouge_s, rouge_su4):
    assert f_of(candidate, "RL") == rouge_l
    assert f_of(candidate, "RS*") == rouge_s
    assert f_of(candidate, "RSU4") == rouge_su4


def test_preprocessing_rules():
    text = "State-of-the-art CAFÉ costs $3.50 , naïve 1990s!!".encode()
    assert tokens_of(text.lower(), PLAIN) == ["state", "of", "the", "art", "caf", "costs", "3", "50", "na", "ve", "1990s"]
    # stop words go before stemming ("better" is a SMART stop word); exceptions before Porter
    assert tokens_of(b"the running mice were better", Setting(True, True)) == ["run", "mouse"]
    assert tokens_of(b"the running mice were better", Setting(True, False)) == ["the", "run", "mouse", "be", "well"]


@pytest.mark.parametrize("exceptions,expected", [
    # by hand from the four .exc files: better/best are adj (good) and adv (well); testes is noun
    # (testis) and verb (testes); the later file wins. Without a table Porter stems every word.
    (("adj", "adv", "noun", "verb"), ["well", "well", "testes", "go", "child"]),
    (("noun", "adv", "verb", "adj"), ["good", "good", "testes", "go", "child"]),
    (("verb", "noun", "adv", "adj"), ["good", "good", "testis", "go", "child"]),
    ((), ["better", "best", "test", "went", "children"]),
])
def test_stemmer_exception_tables(exceptions, expected):
    text = b"better best testes went children"
    assert tokens_of(text, Setting(True, False, exceptions=exceptions)) == expected
    assert [morph_stem(t.decode(), exceptions) for t in text.split()] == expected   # its cache is keyed by the table
    assert perl_split_ws(b"  a  b ") == [b"", b"a", b"b"]
    assert [porter_stem(w) for w in ("relational", "agreement", "yelling", "happily", "caresses")] == \
        ["relat", "agreem", "yell", "happili", "caress"]  # 1.5.5: -ement, then -ent


def test_empty_and_tokenless_summaries_score_zero():
    empty = tokenize_summary([], PLAIN)
    only_punct = tokenize_summary([". , !"], PLAIN)
    ref = tokenize_summary([REF], PLAIN)
    for m in ("R1", "R2", "RL", "RW", "RS4", "RSU4"):
        assert rouge_single(empty, [ref], parse_measure(m)) == (0.0, 0.0, 0.0)
        assert rouge_single(only_punct, [ref], parse_measure(m)) == (0.0, 0.0, 0.0)
        # a reference without tokens (ROUGE-1.5.5 dies here on ROUGE-W) scores 0, no error
        assert rouge_single(ref, [empty], parse_measure(m)) == (0.0, 0.0, 0.0)


def test_round5_is_perl_sprintf():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.random(20000), np.array([0.123455, 0.000005, 0.5, 2 / 3, 1.0, 0.0, 0.987655])])
    assert np.array_equal(round5(xs), np.array([float(f"{x:.5f}") for x in xs]))


def _records(jackknife_refs=("A", "B", "C")):
    toks = lambda s: tokenize_summary([s], PLAIN)  # noqa: E731
    texts = {"A": "police killed the gunman", "B": "the gunman was shot by police", "C": "police shot the armed man"}
    recs = [TokenRecord("T", "1", "system", True, toks("police shot the gunman")),
            TokenRecord("T", "2", "system", True, toks("a man was killed"))]
    recs += [TokenRecord("T", h, "human", h == "A", toks(texts[h])) for h in jackknife_refs]
    return recs


def test_jackknifing_human_and_systems():
    recs = _records()
    rows, task = scoring_task(recs, jackknife_systems=False)
    assert rows == [("T", "1"), ("T", "2"), ("T", "A")]
    assert task.reference_sets[0] == [[2, 3, 4]] and task.reference_sets[2] == [[3, 4]]  # A vs B, C
    _, task_jk = scoring_task(recs, jackknife_systems=True)
    assert task_jk.reference_sets[0] == [[3, 4], [2, 4], [2, 3]]
    m = parse_measure("R1")
    jk = score_measure(recs, m, 0.5, "A", True)
    corpus = encode([r.tokenized for r in recs])
    loo = [score(corpus, m, Task([0], [[s]]))[1][0] for s in ([3, 4], [2, 4], [2, 3])]
    assert jk[0][3] == pytest.approx(sum(loo) / 3)


def test_jackknifing_without_other_reference_is_an_error():
    recs = _records(jackknife_refs=("A",))
    with pytest.raises(ScoringError, match="topic 'T', summarizer 'A': no reference summary left"):
        scoring_task(recs, jackknife_systems=False)


def test_reference_sets():
    assert reference_sets([5, 6, 7], None, False) == [[5, 6, 7]]
    assert reference_sets([5, 6, 7], 6, True) == [[5, 7]]
    assert reference_sets([5, 6, 7], None, True) == [[6, 7], [5, 7], [5, 6]]
    assert reference_sets([5], None, True) == [[5]]


def test_system_table_has_graham_variants():
    parts = {}
    for mid in ("R1", "R2", "R3", "R4", "RL", "RW", "RS4", "RSU4"):
        for st in (0, 1):
            for rs in (0, 1):
                parts[(mid, st, rs)] = [("T1", "s", 0.1, 0.2, 0.3), ("T2", "s", 0.3, 0.4, 0.5), ("T3", "s", 0.2, 0.9, 0.4)]
    table = system_scores_frame(parts, {(0, 0): [("s", 12.5)]})
    variants = dict(zip(table.variant, table.score))
    assert len([v for v in variants if not v.startswith("BLEU")]) == 192
    assert variants["R2_ST1_RS0_A_P"] == pytest.approx(0.2)
    assert variants["R2_ST1_RS0_M_R"] == statistics.median([0.2, 0.4, 0.9])
    assert variants["BLEU_ST0_RS0"] == 12.5


def test_bleu_scores_per_summary_and_system():
    from metaeval.metrics.bleu import corpus_bleu, sentence_bleu
    from metaeval.stages.scoring import corpus_bleu_from_stats, expand_stats

    recs = _records()
    result = bleu_scores(recs, False, "exp")
    assert [r[:2] for r in result.per_summary] == [("T", "1"), ("T", "2"), ("T", "A")]
    assert all(0 <= r[2] <= 100 for r in result.per_summary)
    assert any("nrefs:3" in s for s in result.signatures) and any("nrefs:2" in s for s in result.signatures)
    per_system = dict(corpus_bleu_from_stats(expand_stats(result.stats)))
    assert sorted(per_system) == ["1", "2", "A"]
    # the corpus BLEU from the summed statistics is sacrebleu's corpus BLEU of the summarizer's summaries
    text = lambda r: " ".join(r.tokenized.tokens)  # noqa: E731
    assert per_system["1"] == pytest.approx(corpus_bleu([text(recs[0])], [[text(r) for r in recs[2:]]]), abs=1e-12)
    assert per_system["A"] == pytest.approx(corpus_bleu([text(recs[2])], [[text(r) for r in recs[3:]]]), abs=1e-12)
    # the per-summary BLEU (from the same statistics) is sacrebleu's smoothed sentence BLEU
    for (t, s, score), rec in zip(result.per_summary, recs):
        refs = [text(r) for r in recs if r.kind == "human" and r.summarizer != s]
        assert score == sentence_bleu(text(rec), refs, "exp")
    # jackknifed systems: one statistics row per leave-one-out set; corpus = mean over the sets
    jk = bleu_scores(recs, True, "exp")
    assert sum(1 for t, s, k, _ in jk.stats if s == "1") == 3
