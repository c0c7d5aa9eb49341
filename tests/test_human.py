"""Human scores: rescaling, components, combinations, skipped combinations, system scores."""
from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import TINY_YAML, write_tiny
from metaeval.data.datasets import load_dataset
from metaeval.stages.human import (available_combinations, combine, summary_human_scores, system_human_scores)


def test_combinations():
    assert combine("arithmetic", 0.2, 0.6) == pytest.approx(0.4)
    assert combine("geometric", 0.25, 1.0) == pytest.approx(0.5)
    assert combine("harmonic", 0.25, 1.0) == pytest.approx(0.4)
    assert combine("harmonic", 0.0, 0.0) == 0.0 and combine("harmonic", 0.0, 0.7) == 0.0
    assert math.isnan(float(combine("arithmetic", np.nan, 0.5)))
    with pytest.raises(ValueError):
        combine("product", 1, 1)


def test_skipped_with_reason():
    ok, skipped = available_combinations({"coverage": ["pyr"], "linguistic_quality": []})
    assert ok == ["coverage"]
    assert set(skipped) == {"arithmetic", "geometric", "harmonic", "linguistic_quality", "pyramid", "modified_pyramid"}
    assert "linguistic quality" in skipped["arithmetic"]


def test_rescaled_components_and_system_scores(tiny):
    with pytest.warns(UserWarning):
        ds = load_dataset(tiny)
    ok, _ = available_combinations(ds.human)
    sh = summary_human_scores(ds, ok)
    i = sh.keys.index(("T2", "1"))          # relevance 4.5 -> 0.875, fluency 5 -> 1.0
    assert sh.coverage[i] == pytest.approx(0.875) and sh.linguistic_quality[i] == 1.0
    j = sh.keys.index(("T1", "2"))          # fluency missing: LQ undefined, harmonic undefined
    assert math.isnan(sh.linguistic_quality[j]) and math.isnan(sh.combinations["arithmetic"][j])
    sy = system_human_scores(sh, "combine_then_average")
    k = sy.summarizers.index("2")
    assert sy.counts["arithmetic"][k] == 1 and sy.judged[k] == 2  # averaged over what exists
    cov = [0.0, 0.25]                                             # T1: 1 -> 0, T2: 2 -> 0.25
    assert sy.scores["coverage"][k] == pytest.approx(np.mean(cov))
    sy2 = system_human_scores(sh, "average_then_combine")
    # T1's missing fluency leaves LQ = T2's 0.5; coverage mean 0.125 -> arithmetic 0.3125
    assert sy2.scores["arithmetic"][k] == pytest.approx((0.125 + 0.5) / 2)


def test_coverage_only_dataset(tmp_path):
    yaml_text = TINY_YAML.replace("linguistic_quality: [fluency]", "linguistic_quality: []")
    with pytest.warns(UserWarning):
        ds = load_dataset(write_tiny(tmp_path / "d", yaml_text=yaml_text))
    ok, skipped = available_combinations(ds.human)
    assert ok == ["coverage"] and "arithmetic" in skipped
