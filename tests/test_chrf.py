"""chrF and chrF++ equal sacrebleu's own: every value below is compared with what sacrebleu's
public ``CHRF().sentence_score`` / ``corpus_score`` return for the same texts (the summary's
sentences joined by a single space) and references, computed here independently of the library's
statistics."""
from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from conftest import shared_dataset, write_tiny
from metaeval.data.datasets import load_dataset
from metaeval.metrics.bleu import reference_streams
from metaeval.options import ChrfOptions, ConfigError, Options
from metaeval.stages import chrf as stage
from metaeval.stages.chrf import corpus_chrf_from_stats
from metaeval.stages.scoring import expand_stats, read_stats
from metaeval.variants import Variant

BOTH = ("CHRF", "CHRF++")
SACREBLEU = {"CHRF": dict(word_order=0), "CHRF++": dict(word_order=2)}


def sacrebleu_metric(name: str, **options) -> CHRF:
    return CHRF(**SACREBLEU[name], **options)


def texts_and_references(ds, jackknife: bool = False):
    """Per judged summary: its text and its reference sets (texts), chosen as the workflow
    documents it: the topic's human summaries in summarizer order, the summary itself left out,
    with ``jackknife`` a system summary against each leave-one-out set."""
    out = {}
    for s in ds.judged():
        refs = sorted((r for r in ds.references(s.topic) if r.summarizer != s.summarizer), key=lambda r: r.summarizer)
        texts = [" ".join(r.sentences) for r in refs]
        sets = [texts[:i] + texts[i + 1:] for i in range(len(texts))] if jackknife and s.kind == "system" \
            and len(texts) > 1 else [texts]
        out[(s.topic, s.summarizer)] = (" ".join(s.sentences), sets)
    return out


def expected_corpus(items, metric: CHRF) -> dict[str, float]:
    """Per summarizer: sacrebleu's corpus_score for every reference-set index k (a summary with fewer
    sets keeps its last), averaged over k."""
    by: dict[str, list] = {}
    for (_, summarizer), (hyp, sets) in items.items():
        by.setdefault(summarizer, []).append((hyp, sets))
    out = {}
    for summarizer, rows in by.items():
        width = max(len(sets) for _, sets in rows)
        values = [metric.corpus_score([h for h, _ in rows],
                                      reference_streams([sets[min(k, len(sets) - 1)] for _, sets in rows])).score
                  for k in range(width)]
        out[summarizer] = sum(values) / len(values)
    return out


@pytest.mark.reference
def test_equals_sacrebleu_on_summeval():
    """Every one of SummEval's 1,600 judged summaries (11 references each): sentence chrF and
    chrF++ equal sacrebleu's sentence_score, and every system's corpus chrF / chrF++ (from the
    written statistics, as the gathering job computes it) equals its corpus_score."""
    ds = load_dataset(shared_dataset("summeval"))
    result = stage.compute(ds, ChrfOptions(BOTH, 6, False, False))
    items = texts_and_references(ds)
    assert len(items) == 1600 and {len(sets[0]) for _, sets in items.values()} == {11}
    scores = {(t, s, m): v for t, s, m, v in result.rows}
    assert len(scores) == 2 * 1600
    for name in BOTH:
        metric = sacrebleu_metric(name)
        for (topic, summarizer), (hyp, sets) in items.items():
            assert scores[(topic, summarizer, name)] == metric.sentence_score(hyp, sets[0]).score, (topic, summarizer)
        corpus = dict(corpus_chrf_from_stats(expand_stats(result.stats[name])))
        expected = expected_corpus(items, metric)
        assert sorted(corpus) == sorted(expected) and len(corpus) == 16
        for summarizer, value in expected.items():
            assert corpus[summarizer] == pytest.approx(value, rel=0, abs=1e-9), summarizer


HARD = [  # punctuation around words, one-character words, references shorter than the character order
    {"topic": "T1", "summarizer": "A", "kind": "human", "sentences": ["The cat (sat) on the mat.", "It purred!"]},
    {"topic": "T1", "summarizer": "B", "kind": "human", "sentences": ["A cat, sitting on a mat: happy."]},
    {"topic": "T1", "summarizer": "C", "kind": "human", "sentences": ["cat"]},
    {"topic": "T1", "summarizer": "D", "kind": "human", "sentences": ["The cat (sat) on the mat.", "It purred!"]},
    {"topic": "T1", "summarizer": "1", "kind": "system", "sentences": ["The cat sat .", "The mat was red ."]},
    {"topic": "T1", "summarizer": "2", "kind": "system", "sentences": []},
    {"topic": "T2", "summarizer": "A", "kind": "human", "sentences": ["Dogs bark at night ."]},
    {"topic": "T2", "summarizer": "1", "kind": "system", "sentences": ["Dogs bark ."]},
    {"topic": "T2", "summarizer": "2", "kind": "system", "sentences": ["Night", "falls over the town ... really"]},
]
HARD_JUDGMENTS = "topic\tsummarizer\trelevance\tfluency\n" + "".join(
    f"{t}\t{s}\t3\t3\n" for t, s in [("T1", "1"), ("T1", "2"), ("T1", "B"), ("T1", "C"), ("T2", "1"), ("T2", "2")])


@pytest.mark.filterwarnings("ignore:.*empty summary")
@pytest.mark.parametrize("jackknife", [False, True])
@pytest.mark.parametrize("char_order,whitespace", [(6, False), (4, True)])
def test_hard_cases_and_leave_one_out_sets_equal_sacrebleu(tmp_path, jackknife, char_order, whitespace):
    """Punctuation split off words (chrF++), an empty hypothesis, a one-word reference (orders
    without reference n-grams), two identical references (a tie: the first is kept), judged human
    summaries scored against the others, and with jackknifing every leave-one-out set: per summary
    the mean over its sets of sacrebleu's sentence_score, per summarizer the mean over set index k
    of its corpus_score; other char_order and whitespace options too."""
    ds = load_dataset(write_tiny(tmp_path / "hard", records=HARD, judgments=HARD_JUDGMENTS))
    result = stage.compute(ds, ChrfOptions(BOTH, char_order, whitespace, jackknife))
    items = texts_and_references(ds, jackknife)
    if jackknife:
        assert len(items[("T1", "1")][1]) == 4 and len(items[("T2", "1")][1]) == 1
    scores = {(t, s, m): v for t, s, m, v in result.rows}
    for name in BOTH:
        metric = sacrebleu_metric(name, char_order=char_order, whitespace=whitespace)
        for (topic, summarizer), (hyp, sets) in items.items():
            want = np.mean([metric.sentence_score(hyp, refs).score for refs in sets])
            assert scores[(topic, summarizer, name)] == pytest.approx(want, rel=0, abs=1e-9), (topic, summarizer)
        corpus = dict(corpus_chrf_from_stats(expand_stats(result.stats[name])))
        for summarizer, value in expected_corpus(items, metric).items():
            assert corpus[summarizer] == pytest.approx(value, rel=0, abs=1e-9), summarizer
    assert scores[("T1", "2", "CHRF")] == 0.0                    # the empty summary


@pytest.mark.filterwarnings("ignore:.*empty summary")
def test_written_statistics_give_the_same_corpus_scores(tmp_path):
    """The statistics table written by the chrF job reads back to the same corpus scores, and the
    per-summary table has the long form of SERA's."""
    ds = load_dataset(write_tiny(tmp_path / "hard", records=HARD, judgments=HARD_JUDGMENTS))
    result = stage.compute(ds, ChrfOptions(BOTH, 6, False, True))
    out = {"scores": str(tmp_path / "s.tsv"), "signature": str(tmp_path / "sig.txt"),
           **{f"stats_{n}": str(tmp_path / f"st_{n}.tsv") for n in BOTH}}
    stage.write(result, out)
    for name in BOTH:
        assert read_stats(out[f"stats_{name}"]) == result.stats[name]
    assert (tmp_path / "s.tsv").read_text().splitlines()[0] == "topic\tsummarizer\tmetric\tscore"
    signature = (tmp_path / "sig.txt").read_text()
    assert "system: CHRF++ nrefs:var|case:mixed|eff:yes|nc:6|nw:2|space:no|version:" in signature
    assert "per-summary: CHRF nrefs:per-summary|case:mixed|eff:yes|nc:6|nw:0|space:no|version:" in signature


def test_resampled_corpus_chrf_is_sacrebleus_corpus_chrf():
    """The bootstrap's corpus chrF of drawn topics (summed statistics, with repetition) equals
    sacrebleu's corpus_score of the drawn summaries."""
    from metaeval.metrics import chrf
    from metaeval.stats.bootstrap import resampled_corpus_chrf

    hyps = ["the cat sat on the mat", "a dog barked at night!", "police killed the gunman"]
    refs = [["the cat is on the mat"], ["the dog barked at night", "at night a dog barked"], ["police kill the gunman"]]
    spec = chrf.spec("CHRF++")
    stats = np.array([[chrf.corpus_statistics([h, *r], [0], [list(range(1, len(r) + 1))], [spec])["CHRF++"][0]]
                      for h, r in zip(hyps, refs)], dtype=float)                    # (T, sets, 24)
    got = resampled_corpus_chrf(stats[None], np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]))   # two samples
    metric = CHRF(word_order=2)
    assert got[0, 0] == pytest.approx(metric.corpus_score(hyps, reference_streams(refs)).score, abs=1e-9)
    drawn = [0, 0, 2]
    assert got[1, 0] == pytest.approx(metric.corpus_score([hyps[i] for i in drawn],
                                                          reference_streams([refs[i] for i in drawn])).score, abs=1e-9)


def test_variant_ids_and_config():
    for text in BOTH:
        v = Variant.parse(text)
        assert (v.family, v.measure, str(v), v.summary_metric, v.corpus_level) == ("chrf", text, text, text, True)
    for bad in ("CHRF_A", "CHRF++_M", "CHRF+", "chrF"):
        with pytest.raises(ValueError):
            Variant.parse(bad)
    base = {"datasets": {"d": {"format": "simulated"}}}
    assert Options.from_config(base).chrf == ChrfOptions(BOTH, 6, False, False)
    Options.from_config({**base, "rerank": {"best": "CHRF++"}})
    for chrf_section, problem in (({"enabled": False}, "chrf.enabled is false"),
                                  ({"metrics": ["CHRF"]}, "chrf.metrics is ['CHRF']")):
        with pytest.raises(ConfigError, match=problem.replace("[", r"\[").replace("]", r"\]")):
            Options.from_config({**base, "chrf": chrf_section, "rerank": {"best": "CHRF++"}})
