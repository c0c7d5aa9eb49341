"""BLEU equals Moses multi-bleu.perl -lc. The expected lines are what multi-bleu.perl (mosesdecoder,
scripts/generic/multi-bleu.perl) printed for the corpora in bleu_corpora.py, run once by hand;
the script is not part of this repository."""
from __future__ import annotations

import pytest

from bleu_corpora import hand_made, random_corpus, summeval_corpus
from conftest import shared_dataset
from metaeval.metrics.bleu import corpus_bleu, corpus_metric, reference_streams, sentence_bleu
from metaeval.data.datasets import load_dataset

MULTI_BLEU = {
    "hand_made": "BLEU = 64.29, 95.7/73.7/53.3/45.5 (BP=1.000, ratio=1.000, hyp_len=23, ref_len=23)",
    "random_3refs": "BLEU = 43.00, 83.2/55.9/34.2/21.5 (BP=1.000, ratio=1.000, hyp_len=548, ref_len=548)",
    "random_short": "BLEU = 14.23, 93.5/55.1/32.5/17.3 (BP=0.345, ratio=0.484, hyp_len=217, ref_len=448)",
    "summeval_M8": "BLEU = 34.19, 73.6/42.5/26.1/16.7 (BP=1.000, ratio=1.029, hyp_len=2605, ref_len=2532)",
    "summeval_M23": "BLEU = 35.83, 77.6/45.5/27.3/17.1 (BP=1.000, ratio=1.043, hyp_len=5183, ref_len=4969)",
}


def multi_bleu_line(hyps, refs) -> str:
    """Our score printed with multi-bleu.perl's printf format."""
    s = corpus_metric().corpus_score(hyps, reference_streams(refs))
    p = s.precisions
    return (f"BLEU = {s.score:.2f}, {p[0]:.1f}/{p[1]:.1f}/{p[2]:.1f}/{p[3]:.1f} "
            f"(BP={s.bp:.3f}, ratio={s.sys_len / s.ref_len:.3f}, hyp_len={s.sys_len}, ref_len={s.ref_len})")


@pytest.mark.parametrize("name,corpus", [("hand_made", hand_made()), ("random_3refs", random_corpus(1, 40, 3, False)),
                                         ("random_short", random_corpus(2, 30, 2, True))])
def test_equals_multi_bleu(name, corpus):
    assert multi_bleu_line(*corpus) == MULTI_BLEU[name]


@pytest.mark.parametrize("system,n", [("M8", 50), ("M23", 100)])
def test_equals_multi_bleu_on_summeval(system, n):
    ds = load_dataset(shared_dataset("summeval"))
    assert multi_bleu_line(*summeval_corpus(ds, system, n)) == MULTI_BLEU[f"summeval_{system}"]


def test_variable_number_of_references():
    hyps, refs = hand_made()
    varying = [refs[0], refs[1][:1], refs[2], refs[3][:1]]
    # a duplicated reference changes nothing in BLEU, so padding must not add an (empty) reference
    duplicated = [refs[0], refs[1][:1] * 2, refs[2], refs[3][:1] * 2]
    assert corpus_bleu(hyps, varying) == corpus_bleu(hyps, duplicated)
    assert corpus_bleu(hyps, varying) != corpus_bleu(hyps, refs)


def test_sentence_bleu_smoothed_and_bounded():
    assert sentence_bleu("police killed the gunman", ["police killed the gunman"]) == pytest.approx(100)
    s = sentence_bleu("gunman police", ["police killed the gunman"])
    assert 0 < s < 100  # smoothing keeps a score without higher-order matches positive
    assert sentence_bleu("", ["police"]) == 0


@pytest.mark.reference
@pytest.mark.parametrize("stem,stop", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_engine_statistics_equal_sacrebleus_on_summeval(stem, stop):
    """Every per-summary statistic from the engine's n-gram counts, every per-summary (smoothed)
    BLEU and every summarizer's corpus BLEU equal sacrebleu's own on SummEval's 1,600 judged
    summaries with their 11 references."""
    from metaeval.metrics.bleu import sentence_bleu, summary_statistics
    from metaeval.metrics.tokenize import Setting
    from metaeval.stages.scoring import bleu_scores, corpus_bleu_from_stats, expand_stats, scoring_task, tokenize_dataset

    ds = load_dataset(shared_dataset("summeval"))
    records = tokenize_dataset(ds, Setting(bool(stem), bool(stop)))
    result = bleu_scores(records, False, "exp")
    rows, task = scoring_task(records, False)
    text = [" ".join(r.tokenized.tokens) for r in records]
    refs = [[text[m] for m in sets[0]] for sets in task.reference_sets]
    hyps = [text[p] for p in task.peers]
    assert len(result.stats) == len(rows) == 1600
    for (_, _, _, ours), (_, _, bleu), h, r in zip(result.stats, result.per_summary, hyps, refs):
        assert ours == summary_statistics(h, r)
        assert bleu == sentence_bleu(h, r, "exp")
    corpus = dict(corpus_bleu_from_stats(expand_stats(result.stats)))
    for summarizer in sorted(corpus):
        mine = [i for i, (_, s) in enumerate(rows) if s == summarizer]
        assert corpus[summarizer] == corpus_bleu([hyps[i] for i in mine], [refs[i] for i in mine])


def test_engine_statistics_with_jackknifed_reference_sets():
    """Leave-one-out reference sets (several sets per summary), ties of the closest reference
    length, a hypothesis longer than every reference and an empty one, against sacrebleu."""
    from metaeval.metrics.bleu import summary_statistics
    from metaeval.metrics.tokenize import Setting, tokenize_summary
    from metaeval.stages.scoring import TokenRecord, bleu_scores, scoring_task

    toks = lambda s: tokenize_summary([s], Setting(False, False))  # noqa: E731
    texts = {"A": "police killed the gunman", "B": "the gunman was shot by the police yesterday",
             "C": "police shot the man", "D": "a b c d e f"}
    recs = [TokenRecord("T", "1", "system", True, toks("police shot the gunman dead in the street at night")),
            TokenRecord("T", "2", "system", True, toks("")),
            TokenRecord("T", "3", "system", True, toks("the police shot the man the man"))]
    recs += [TokenRecord("T", h, "human", h == "A", toks(t)) for h, t in texts.items()]
    result = bleu_scores(recs, True, "exp")
    _, task = scoring_task(recs, True)
    text = [" ".join(r.tokenized.tokens) for r in recs]
    expected = [summary_statistics(text[p], [text[m] for m in refs])
                for p, sets in zip(task.peers, task.reference_sets) for refs in sets]
    assert [st for _, _, _, st in result.stats] == expected
    assert len(expected) == 3 * 4 + 1        # 3 systems x 4 leave-one-out sets; the judged human A: one set


def test_corpus_bleu_of_rows_has_sacrebleus_bits():
    """The vectorised corpus BLEU of many statistics rows equals sacrebleu's ``BLEU.compute_bleu``
    of each row exactly: realistic rows, rows with an order unmatched, an empty hypothesis,
    hypotheses shorter and longer than the reference, and counts near 2**40."""
    import numpy as np
    from sacrebleu.metrics import BLEU

    from metaeval.metrics.bleu import corpus_bleu_of_rows

    rng = np.random.default_rng(7)
    rows = rng.integers(0, 40, (20000, 10))
    rows[:, 6:] += rows[:, 2:6]                               # totals >= matches
    rows[:500, 2:6] = rng.integers(1, 3, (500, 4))            # every order matched, low counts
    rows[500:600, 0] = 0                                      # empty hypothesis
    rows[600:700, [2, 6]] = 0                                 # no unigram at all
    rows[700:800, 1] = rows[700:800, 0]                       # hypothesis as long as the reference
    big = rng.integers(0, 2 ** 40, (500, 10))
    big[:, 6:] += big[:, 2:6]
    rows = np.vstack([rows, big])
    expected = [BLEU.compute_bleu(r[2:6], r[6:], r[0], r[1], "none", None, False, 4).score for r in rows.tolist()]
    got = corpus_bleu_of_rows(rows)
    assert got.dtype == np.float64 and got.shape == (len(rows),)
    assert got.tolist() == expected
    assert 0 < np.count_nonzero(got) < len(rows)
    assert corpus_bleu_of_rows(np.zeros((0, 10), dtype=np.int64)).shape == (0,)
