"""Targets and the aggregation of annotators: the rules against numpy / scipy and by hand, the targets
of a data set (dimensions under their own names, composites, the primary one), and the rules a
declaration must follow."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from conftest import TINY_YAML, write_tiny
from metaeval.data.contract import DatasetError
from metaeval.data.datasets import load_dataset
from metaeval.options import Options, default_options
from metaeval.stages import human
from metaeval.stats.aggregation import Aggregation, aggregate


def test_rules_against_numpy_scipy_and_by_hand():
    rng = np.random.default_rng(7)
    for n in range(1, 9):
        x = rng.integers(1, 6, size=n).astype(float)
        assert aggregate(x, "mean") == pytest.approx(np.mean(x), abs=1e-15)
        assert aggregate(x, "median") == np.median(x)
        for trim in (0.1, 0.2, 0.34):
            assert aggregate(x, Aggregation("trimmed_mean", trim)) == pytest.approx(stats.trim_mean(x, trim), abs=1e-15)
    # majority-else-mean by hand: two of three agree -> that value; all differ -> the mean; 2-2 -> no majority
    assert aggregate([4, 4, 1], "majority_else_mean") == 4.0
    assert aggregate([1, 3, 5], "majority_else_mean") == 3.0
    assert aggregate([2, 2, 4, 4], "majority_else_mean") == 3.0
    assert aggregate([2, 2, 2, 4], "majority_else_mean") == 2.0
    assert aggregate([5], "majority_else_mean") == 5.0
    assert math.isnan(aggregate([math.nan], "median"))
    assert aggregate([1, math.nan, 3], "mean") == 2.0      # a missing annotation is left out
    with pytest.raises(ValueError):
        aggregate([1.0], "mode")


def _job(entry: dict | None = None, **section):
    o = Options.from_config({"datasets": {"x": {"format": "simulated", **(entry or {})}}, "human_scores": section})
    return o.human_job("x")


def test_targets_of_the_tiny_data_set(tiny):
    with pytest.warns(UserWarning):
        ds = load_dataset(tiny)
    r = human.compute(ds, _job({"targets": {"composites": {"both": "mean(relevance, fluency)",
                                                           "strict": "harmonic(relevance, fluency)"},
                                            "primary": "relevance"}}))
    assert r.combinations == ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality",
                              "relevance", "fluency", "both", "strict"]
    assert [t.kind for t in r.targets][-4:] == ["dimension", "dimension", "composite", "composite"]
    assert r.primary == "relevance"
    sh, sy = r.summaries, r.systems
    i = sh.keys.index(("T2", "1"))                 # relevance 4.5 (1-5), fluency 5
    assert sh.combinations["relevance"][i] == 4.5  # its own scale
    assert sh.combinations["both"][i] == pytest.approx((0.875 + 1.0) / 2)
    assert sh.combinations["strict"][i] == pytest.approx(2 / (1 / 0.875 + 1 / 1.0))
    j = sh.keys.index(("T1", "2"))                 # relevance 1 -> 0, fluency missing
    assert sh.combinations["both"][j] == 0.0       # the mean of the dimensions present
    assert math.isnan(sh.combinations["strict"][j])
    k = sy.summarizers.index("2")                  # relevance 1 (T1) and 2 (T2): mean 1.5
    assert sy.scores["relevance"][k] == 1.5 and sy.counts["fluency"][k] == 1


def test_dimensions_off_and_chosen(tiny):
    with pytest.warns(UserWarning):
        ds = load_dataset(tiny)
    assert human.compute(ds, _job(dimensions=False)).combinations == [
        "arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality"]
    assert human.compute(ds, _job({"targets": {"dimensions": ["fluency"]}})).combinations[-1:] == ["fluency"]
    with pytest.raises(DatasetError, match="'nope' is not a dimension"):
        human.compute(ds, _job({"targets": {"dimensions": ["nope"]}}))
    with pytest.raises(DatasetError, match="targets.primary: 'nope' is not a target"):
        human.compute(ds, _job({"targets": {"primary": "nope"}}))
    for bad in ("sum(relevance, fluency)", "mean(relevance, nope)", "mean(relevance, relevance)", "mean"):
        with pytest.raises(DatasetError, match="targets.composites.x"):
            human.compute(ds, _job({"targets": {"composites": {"x": bad}}}))
    with pytest.raises(DatasetError, match="already a target"):
        human.compute(ds, _job({"targets": {"composites": {"fluency": "mean(relevance, fluency)"}}}))


def test_a_dimension_named_as_a_combination(tmp_path):
    # the simulated data set's case: its one coverage dimension, on [0, 1], is the combination coverage
    yaml_text = (TINY_YAML.replace("relevance: {min: 1, max: 5}", "coverage: {min: 0, max: 1}")
                 .replace("coverage: [relevance]", "coverage: [coverage]"))
    judgments = "topic\tsummarizer\tcoverage\tfluency\nT1\t1\t0.5\t4\nT2\t1\t0.25\t5\nT2\t2\t1\t3\n"
    with pytest.warns(UserWarning):
        ds = load_dataset(write_tiny(tmp_path / "a", yaml_text=yaml_text, judgments=judgments))
    r = human.compute(ds, default_options().human)
    assert r.combinations.count("coverage") == 1 and "coverage" not in r.skipped
    assert next(t for t in r.targets if t.name == "coverage").definition.endswith(
        "(and the dimension coverage: its only dimension, already on [0, 1])")
    # on another scale it would be a different target under the same name: refused, with the way out
    with pytest.warns(UserWarning):
        ds = load_dataset(write_tiny(tmp_path / "b", yaml_text=yaml_text.replace("{min: 0, max: 1}", "{min: 0, max: 2}"),
                                     judgments=judgments))
    with pytest.raises(DatasetError, match="Graham's combination of that name is also a target"):
        human.compute(ds, default_options().human)


def test_the_aggregation_rule_forms_the_judgments(tmp_path):
    """A dimension without a judgments.tsv column takes its annotators' scores by the data set's rule,
    declared in dataset.yaml or, over it, in the config entry."""
    yaml_text = TINY_YAML + "aggregation: median\n"
    judgments = "topic\tsummarizer\tfluency\nT1\t1\t4\nT1\t2\t3\nT2\t1\t5\nT2\t2\t3\nT1\tB\t5\n"
    rows = [("T1", "1", [3, 1, 5, 4]), ("T1", "2", [1, 1, 2, 5]), ("T2", "1", [4, 5, 5, 1]), ("T2", "2", [2, 3, 2, 2]),
            ("T1", "B", [5, 4, 5, 5])]
    folder = write_tiny(tmp_path / "d", yaml_text=yaml_text, judgments=judgments)
    (folder / "annotations.tsv").write_text("topic\tsummarizer\tdimension\tannotator\tscore\n" + "".join(
        f"{t}\t{s}\trelevance\ta{i}\t{v}\n" for t, s, vals in rows for i, v in enumerate(vals)))
    # majority-else-mean: a value held by more than half of the 4 (3 of 4), else the mean
    expected = {"median": [3.5, 1.5, 4.5, 2.0, 5.0], "majority_else_mean": [13 / 4, 9 / 4, 15 / 4, 2.0, 5.0],
                "mean": [13 / 4, 9 / 4, 15 / 4, 9 / 4, 19 / 4]}
    for rule, want in expected.items():
        with pytest.warns(UserWarning):
            ds = load_dataset(folder, aggregation_override=None if rule == "median" else rule)
        assert ds.aggregation.rule == rule
        assert [ds.judgments[(t, s)]["relevance"] for t, s, _ in rows] == want
    with pytest.raises(DatasetError, match="aggregation.rule"):
        load_dataset(folder, aggregation_override="mode")
