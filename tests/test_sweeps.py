"""Reference-count and length sweeps: each condition scores exactly what it says, rankings and
their consistency, Pastra & Saggion's average-rank aggregation, and the written tables."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from metaeval.stages import sweeps
from metaeval.metrics.rouge import parse_measure
from metaeval.stages.scoring import score_dataset
from conftest import simulation
from metaeval.data.simulate import simulate
from metaeval.metrics.tokenize import Setting

VARIANTS = ["R1_ST1_RS0_A_R", "R2_ST0_RS0_M_F", "BLEU_ST1_RS0"]


@pytest.fixture(scope="module")
def ds():
    return simulate(simulation(topics=6, systems=5, humans=3))


def test_all_references_equal_the_main_scores(ds):
    scores, topics = sweeps.condition_scores(ds, sweeps.Condition("all"), ["R1_ST1_RS0_A_R"], 0.5, "A", {})
    main = score_dataset(ds, [parse_measure("R1")], [Setting(True, False)])[("R1", 1, 0)]
    systems = {s.summarizer for s in ds.summaries if s.kind == "system"}
    for s in systems:
        rs = [r for _, who, _, r, _ in main if who == s]
        assert scores["R1_ST1_RS0_A_R"][s] == pytest.approx(math.fsum(rs) / len(rs), abs=1e-15)
    assert topics == 6 and set(scores["R1_ST1_RS0_A_R"]) == systems      # humans are not ranked


def test_single_reference_condition_uses_only_that_summarizers_reference(ds):
    conditions = sweeps.reference_conditions(ds)
    assert [c.name for c in conditions] == ["all", "A", "B", "C"]      # named by the summarizer id
    cond = conditions[2]
    records = sweeps._records(ds, cond, 0, 0, {})
    humans = {(r.topic, r.summarizer) for r in records if r.kind == "human"}
    assert humans == {(t, "B") for t in ds.topics}
    assert all(r.judged for r in records if r.kind == "system")


def test_reference_conditions_follow_the_summarizer_not_the_position(tmp_path):
    """SummEval-like ids sort as ref0, ref1, ref10, ref2: the condition of ref10 holds ref10's
    summaries, and a summarizer that wrote for some topics only covers those topics."""
    from conftest import tiny_records, write_tiny
    from metaeval.data.datasets import load_dataset

    recs = tiny_records()
    for r in recs:
        if r["kind"] == "human":
            r["summarizer"] = {"A": "ref0", "B": "ref10"}[r["summarizer"]]
    judgments = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t3\t4\nT2\t1\t4\t5\n"
    with pytest.warns(UserWarning):
        data = load_dataset(write_tiny(tmp_path / "d", records=recs, judgments=judgments))
    conditions = sweeps.reference_conditions(data)
    assert [(c.name, c.reference) for c in conditions] == [("all", None), ("ref0", "ref0"), ("ref10", "ref10")]
    ref10 = sweeps._records(data, conditions[2], 0, 0, {})
    assert {(r.topic, r.summarizer) for r in ref10 if r.kind == "human"} == {("T1", "ref10")}   # T2 has only ref0


def test_word_limits_truncate_summaries_and_references(ds):
    words = sweeps.source_words(ds)
    records = sweeps._records(ds, sweeps.Condition("w5", word_limit=5), 0, 0, words)
    assert all(len(r.tokenized.tokens) <= 5 for r in records)
    c = sweeps._records(ds, sweeps.Condition("c1", compression=1.0), 0, 0, words)
    limit = {t: max(1, round(words[t] / 100)) for t in ds.topics}
    assert all(len(r.tokenized.tokens) <= limit[r.topic] for r in c)


def test_ranks_kendall_and_average_rank_aggregation():
    assert sweeps.ranks({"a": 0.3, "b": 0.5, "c": 0.3}) == {"a": 2.5, "b": 1.0, "c": 2.5}
    assert sweeps.kendall({"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1}) == pytest.approx(-1.0)
    assert math.isnan(sweeps.kendall({"a": 1}, {"a": 2}))
    sw = sweeps.Sweep([sweeps.Condition("w1", word_limit=1), sweeps.Condition("w2", word_limit=2)], {"w1": 1, "w2": 1},
                      {"w1": {"V": {"a": 3.0, "b": 2.0, "c": 1.0}}, "w2": {"V": {"a": 1.0, "b": 3.0, "c": 2.0}}}, {})
    # by hand: (a, b) and (a, c) are discordant, (b, c) concordant: tau = (1 - 2) / 3
    assert sweeps.consistency(sw) == [("V", "w1", "w2", pytest.approx(-1 / 3))]


def test_sweeps_write_their_tables(ds, tmp_path):
    from scipy.stats import pearsonr, rankdata

    conds = sweeps.length_conditions([10, 1000], [5.0], True)
    sw = sweeps.run_sweep(ds, conds, VARIANTS, 0.5, "A", True)
    mean_rank = sw.aggregates["mean rank over word limits"]["R1_ST1_RS0_A_R"]
    systems = sorted(mean_rank)
    by_limit = [rankdata([-sw.scores[n]["R1_ST1_RS0_A_R"][s] for s in systems]) for n in ("w10", "w1000")]
    assert [mean_rank[s] for s in systems] == pytest.approx(list((by_limit[0] + by_limit[1]) / 2))
    human = {"arithmetic": {s: float(i) for i, s in enumerate(systems)}}
    out = {k: str(tmp_path / f"{k}.out") for k in ("scores", "correlations", "consistency", "markdown",
                                                   "figure_png", "figure_svg")}
    sweeps.write_sweep(sw, human, "arithmetic", "lengths", "Length", out)
    corr = pd.read_csv(out["correlations"], sep="\t", dtype=str, keep_default_na=False)
    assert len(corr) == (len(conds) + 1) * len(VARIANTS)     # + the word-limit aggregate (one compression rate)
    w10 = corr[(corr.condition == "w10") & (corr.variant == "R1_ST1_RS0_A_R")].pearson.item()
    expected = pearsonr([sw.scores["w10"]["R1_ST1_RS0_A_R"][s] for s in systems], list(range(len(systems))))[0]
    assert float(w10) == pytest.approx(expected, abs=1e-12)
    table = Path(out["markdown"]).read_text().split("\n\n", 1)[1]
    assert f"| R1_ST1_RS0_A_R | {expected:.3f} |" in table
    refs = sweeps.run_sweep(ds, sweeps.reference_conditions(ds), VARIANTS, 0.5, "A", False)
    assert [c.name for c in refs.conditions] == ["all", "A", "B", "C"]


def test_conditions_scored_together_equal_each_scored_alone(ds):
    """sweep_scores shares the tokenised summaries and (summary, reference) pairs of the
    conditions: every score must be what the condition gives alone, to the last bit."""
    words = sweeps.source_words(ds)
    conditions = sweeps.reference_conditions(ds) + sweeps.length_conditions([5, 1000], [1.0, 50.0], True)
    variants = ["R1_ST1_RS0_A_R", "R2_ST0_RS0_M_P", "RL_ST1_RS0_A_F", "RSU4_ST1_RS0_A_R", "BLEU_ST1_RS0"]
    together, topics = sweeps.sweep_scores(ds, conditions, variants, 0.5, "A", words)
    for c in conditions:
        alone, n = sweeps.condition_scores(ds, c, variants, 0.5, "A", words)
        assert together[c.name] == alone and topics[c.name] == n
        assert alone == _engine_scores(ds, c, variants, words)


def _engine_scores(ds, cond, variants, words):
    """The condition scored as the score jobs score a corpus (scoring.score_chunks on its records)."""
    from metaeval.stages.scoring import corpus_bleu_from_stats, expand_stats, score_chunks
    from metaeval.variants import Variant

    out = {}
    for v in variants:
        p = Variant.parse(v)
        records = sweeps._records(ds, cond, *p.setting, words)
        scored = score_chunks([records], [] if p.family == "bleu" else [parse_measure(p.measure)], 0.5, "A", False,
                              p.family == "bleu")
        if p.family == "bleu":
            out[v] = dict(corpus_bleu_from_stats(expand_stats(scored.bleu_stats)))
            continue
        per = {}
        for (_, who), prf in zip(scored.rows, scored.prf[p.measure]):
            per.setdefault(who, []).append(prf["PRF".index(p.prf)])
        out[v] = {s: math.fsum(x) / len(x) if p.statistic == "A" else statistics.median(x) for s, x in per.items()}
    return out


@pytest.mark.parametrize("stem,stop", [(0, 0), (1, 1)])
def test_word_limits_cut_from_the_whole_tokenisation_equal_rouge_truncation(ds, stem, stop):
    """Tokens.truncated cuts the whole summary's tokens; it must equal tokenize_summary under -l
    for every limit, with ROUGE's quirks: leading white space (an empty first field), punctuation
    fields without tokens, hyphens, stop words, non-ASCII bytes, tabs, empty lines."""
    from types import SimpleNamespace
    from metaeval.metrics.tokenize import tokenize_summary
    from metaeval.stages.scoring import setting_from_tag

    summary = SimpleNamespace(topic="T", summarizer="S", sentences=[
        "  The cats' well-known habits -- of the Running dogs, were better.", "", "\tA\u00a0b\u00e9c d.e  --  ",
        "It is what it is: 3.5 percent of the $100 budget!", "one", "\u2014 \u2014", "Last words here ."])
    tokens = sweeps.Tokens(ds)
    for limit in range(1, 45):
        expected = tokenize_summary(summary.sentences, setting_from_tag(stem, stop, limit))
        assert tokens(summary, stem, stop, limit) == expected, limit
    for s in ds.summaries[:12]:
        for limit in (0, 1, 2, 7, 20, 50, 120, 400):
            assert tokens(s, stem, stop, limit) == tokenize_summary(s.sentences, setting_from_tag(stem, stop, limit))
