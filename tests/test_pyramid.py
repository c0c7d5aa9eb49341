"""Pyramid scores (Nenkova & Passonneau 2004; Cohan & Goharian 2016 §4.2): the formula on a tier
example worked by hand, the modified score, the pyramids.jsonl contract and its errors, and the
scores as human dimensions."""
from __future__ import annotations

import json
import math

import pytest

from conftest import write_tiny
from metaeval.data.datasets import DatasetError, load_dataset, folder_paths, write_dataset
from metaeval.stages.human import available_combinations, components, summary_human_scores, system_human_scores
from metaeval.data.pyramid import TopicPyramid, max_score, pyramid_score, summary_scores

# A pyramid of four tiers (four model summaries): |T4| = 2, |T3| = 2, |T2| = 3, |T1| = 4.
TIERS = {4: 2, 3: 2, 2: 3, 1: 4}


def test_tier_example():
    # A summary of X = 4 SCUs: one from T4, one from T3, two from T1 -> D = 4 + 3 + 1 + 1 = 9.
    # The optimal 4-SCU summary takes both of T4 and both of T3: j = 3, Max = 4*2 + 3*(4 - 2) = 14.
    assert max_score(TIERS, 4) == 14
    assert pyramid_score([4, 3, 1, 1], TIERS) == pytest.approx(9 / 14)
    # X = 5 reaches into T2: j = 2, Max = 4*2 + 3*2 + 2*(5 - 4) = 16
    assert max_score(TIERS, 5) == 16
    # X = 2: all from T4 -> j = 4, Max = 4*2 = 8; a summary of the two top SCUs is perfect
    assert pyramid_score([4, 4], TIERS) == 1.0
    # more SCUs than the pyramid has: Max is the whole pyramid's weight, 8 + 6 + 6 + 4 = 24
    assert max_score(TIERS, 20) == 24
    assert pyramid_score([], TIERS) == 0.0


def test_modified_pyramid_uses_the_average_model_size():
    weights = {"a": 4, "b": 4, "c": 3, "d": 3, "e": 2, "f": 2, "g": 2, "h": 1, "i": 1, "j": 1, "k": 1}
    p = TopicPyramid("T", 4, weights, {"s": ("a", "c", "h", "i"), "empty": ()})
    # average model size = sum of weights / models = 24 / 4 = 6: Max(6) = 4*2 + 3*2 + 2*2 = 18
    assert p.average_model_size() == 6
    original, modified = summary_scores(p, "s")
    assert original == pytest.approx(9 / 14)
    assert modified == pytest.approx(9 / 18)
    assert summary_scores(p, "empty") == (0.0, 0.0)
    assert all(math.isnan(x) for x in summary_scores(p, "not annotated"))


def pyramid_line(**over) -> str:
    rec = {"topic": "T1", "models": 2, "scus": {"u1": 2, "u2": 1, "u3": 1},
           "summaries": {"1": ["u1", "u3"], "2": [], "B": ["u1", "u2"]}}
    rec.update(over)
    return json.dumps(rec) + "\n"


def test_pyramids_file_read_written_and_used_as_human_scores(tmp_path):
    folder = write_tiny(tmp_path / "tiny")
    (folder / "pyramids.jsonl").write_text(pyramid_line())
    ds = load_dataset(folder)
    assert ds.pyramids["T1"].expressed["1"] == ("u1", "u3")
    ok, skipped = available_combinations(components(ds), ["coverage", "pyramid", "modified_pyramid"])
    assert ok == ["coverage", "pyramid", "modified_pyramid"] and not skipped
    sh = summary_human_scores(ds, ok)
    i = sh.keys.index(("T1", "1"))
    # tiers {2: 1, 1: 2}; summary "1" = 2 + 1 = 3 over Max(2) = 2 + 1 = 3 -> 1.0;
    # modified: X = 4 / 2 = 2 -> the same Max -> 1.0
    assert sh.combinations["pyramid"][i] == 1.0
    assert sh.combinations["modified_pyramid"][i] == 1.0
    assert sh.combinations["pyramid"][sh.keys.index(("T1", "2"))] == 0.0
    assert math.isnan(sh.combinations["pyramid"][sh.keys.index(("T2", "1"))])   # T2 has no pyramid
    sy = system_human_scores(sh)
    assert sy.scores["pyramid"][sy.summarizers.index("1")] == 1.0     # mean over the annotated summaries
    out = tmp_path / "copy"
    write_dataset(ds, folder_paths(out))
    assert load_dataset(out).pyramids == ds.pyramids


def test_data_set_without_pyramids_skips_them_with_a_reason(tmp_path):
    ds = load_dataset(write_tiny(tmp_path / "tiny"))
    ok, skipped = available_combinations(components(ds), ["coverage", "pyramid"])
    assert ok == ["coverage"]
    assert "pyramids.jsonl" in skipped["pyramid"]


@pytest.mark.parametrize("line, where, problem", [
    (pyramid_line(topic="T9"), "line 1, field 'topic'", "no summary"),
    (pyramid_line(models=0), "field 'models'", "integer >= 1"),
    (pyramid_line(scus={"u1": 3}), "field 'scus.u1'", "from 1 to models"),
    (pyramid_line(scus={}), "field 'scus'", "non-empty"),
    (pyramid_line(summaries={"9": []}), "field 'summaries.9'", "no summary of topic"),
    (pyramid_line(summaries={"1": ["u7"]}), "field 'summaries.1'", "'u7' is not listed"),
    (pyramid_line(summaries={"1": ["u1", "u1"]}), "field 'summaries.1'", "listed twice"),
    (pyramid_line() + pyramid_line(), "line 2, field 'topic'", "appears twice"),
    ("{not json\n", "line 1", "JSON"),
])
def test_pyramids_file_errors_name_file_line_and_field(tmp_path, line, where, problem):
    folder = write_tiny(tmp_path / "tiny")
    (folder / "pyramids.jsonl").write_text(line)
    with pytest.raises(DatasetError) as e:
        load_dataset(folder)
    msg = str(e.value)
    assert "pyramids.jsonl" in msg and where in msg and problem in msg


def test_simulated_pyramids_weight_units_by_the_humans_that_express_them():
    from conftest import simulation
    from metaeval.data.simulate import simulate

    ds = simulate(simulation(topics=3, systems=4, humans=3))
    for topic, p in ds.pyramids.items():
        assert p.models == 3
        humans = [s for s in ds.summaries if s.topic == topic and s.kind == "human"]
        assert sum(p.weights.values()) == sum(len(p.expressed[h.summarizer]) for h in humans)
        assert set(p.expressed) == {s.summarizer for s in ds.summaries if s.topic == topic}
