"""Reference-count and length sweeps: each condition scores exactly what it says, rankings and
their consistency, Pastra & Saggion's average-rank aggregation, and the written tables."""
from __future__ import annotations

import math

import pytest

from metaeval import sweeps
from metaeval.rouge import parse_measure
from metaeval.scoring import score_dataset
from metaeval.simulate import SimulationParams, simulate
from metaeval.tokenize import Setting

VARIANTS = ["R1_ST1_RS0_A_R", "R2_ST0_RS0_M_F", "BLEU_ST1_RS0"]


@pytest.fixture(scope="module")
def ds():
    return simulate(SimulationParams(topics=6, systems=5, humans=3))


def test_all_references_equal_the_main_scores(ds):
    scores, topics = sweeps.condition_scores(ds, sweeps.Condition("all"), ["R1_ST1_RS0_A_R"], 0.5, "A", {})
    main = score_dataset(ds, [parse_measure("R1")], [Setting(True, False)])[("R1", 1, 0)]
    systems = {s.summarizer for s in ds.summaries if s.kind == "system"}
    for s in systems:
        rs = [r for _, who, _, r, _ in main if who == s]
        assert scores["R1_ST1_RS0_A_R"][s] == pytest.approx(math.fsum(rs) / len(rs), abs=1e-15)
    assert topics == 6 and set(scores["R1_ST1_RS0_A_R"]) == systems      # humans are not ranked


def test_single_reference_condition_uses_only_that_reference(ds):
    cond = sweeps.Condition("ref2", reference=1)
    records = sweeps._records(ds, cond, 0, 0, {})
    humans = {(r.topic, r.summarizer) for r in records if r.kind == "human"}
    assert humans == {(t, ds.references(t)[1].summarizer) for t in ds.topics}
    assert all(r.judged for r in records if r.kind == "system")


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
    cons = sweeps.consistency(sw)
    assert cons == [("V", "w1", "w2", pytest.approx(sweeps.kendall(sw.scores["w1"]["V"], sw.scores["w2"]["V"])))]


def test_sweeps_write_their_tables(ds, tmp_path):
    conds = sweeps.length_conditions([10, 1000], [5.0], True)
    sw = sweeps.run_sweep(ds, conds, VARIANTS, 0.5, "A", True)
    mean_rank = sw.aggregates["mean rank over word limits"]["R1_ST1_RS0_A_R"]
    r10, r1000 = (sweeps.ranks(sw.scores[n]["R1_ST1_RS0_A_R"]) for n in ("w10", "w1000"))
    assert mean_rank == {s: (r10[s] + r1000[s]) / 2 for s in r10}
    human = {"arithmetic": {s: float(i) for i, s in enumerate(sorted(r10))}}
    sweeps.write_sweep(sw, human, "arithmetic", "lengths", "Length", tmp_path)
    corr = (tmp_path / "lengths_correlations.tsv").read_text().splitlines()
    assert len(corr) == 1 + (len(conds) + 1) * len(VARIANTS)     # + the word-limit aggregate (one compression rate)
    assert (tmp_path / "figure_lengths.png").exists() and (tmp_path / "lengths.md").read_text().startswith("Length")
    refs = sweeps.run_sweep(ds, sweeps.reference_conditions(ds), VARIANTS, 0.5, "A", False)
    assert [c.name for c in refs.conditions] == ["all", "ref1", "ref2", "ref3"]
