"""Soft pairwise accuracy against mt-metrics-eval's pce.py: the peers' values on REALSumm
(../shared/reference/pairwise_accuracy.tsv, its README gives the call) and, for missing items,
values computed with pce.py itself and kept here."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from metaeval.stats import soft_pairwise as sp
from reference import require

REFERENCE = REPO.parent / "shared" / "reference"
REALSUMM = REPO.parent / "shared" / "data" / "realsumm"
METRICS = ["BERTScore_P", "BERTScore_R", "BERTScore_F", "MoverScore", "JS2"]


def test_equals_pce_on_realsumm():
    """stats.Correlation(24, gold_seg, metric_seg).PairwiseConfidenceError(average_by='none')[0] on the
    24 x 100 matrices (systems by sorted(), topics numerically), to 1e-12 (here: to the bit)."""
    require(None if (REFERENCE / "pairwise_accuracy.tsv").exists() and REALSUMM.exists() else f"{REFERENCE} is absent",
            "the peers' reference values")
    judged = pd.read_csv(REALSUMM / "judgments.tsv", sep="\t", dtype={"topic": str})
    scores = pd.read_csv(REALSUMM / "metric_scores.tsv", sep="\t", dtype={"topic": str})
    systems = sorted(judged.summarizer.unique())
    topics = list(judged.topic.unique())
    topics = [topics[k] for k in sp.item_order(topics)]        # numerically: 0, 1, ..., 99
    assert topics[:3] == ["0", "1", "2"] and topics[-1] == "99"

    def grid(frame, column):
        return frame.pivot(index="summarizer", columns="topic", values=column).loc[systems, topics].to_numpy(float)

    x = np.stack([grid(scores[scores.metric == m], "score") for m in METRICS])
    z = grid(judged, "litepyramid_recall")
    ref = pd.read_csv(REFERENCE / "pairwise_accuracy.tsv", sep="\t").set_index("metric")
    expected = ref.loc[METRICS, "soft_pairwise_accuracy"].to_numpy(float)
    np.testing.assert_allclose(sp.soft_pairwise_accuracy(z, x), expected, rtol=0, atol=1e-12)


# A small case computed with pce.py itself: mt-metrics-eval commit
# 68a481aea1a787392d55af8f76ac8ef40c5f4664 (mt_metrics_eval/stats.py and pce.py unmodified, run outside
# this repository with numpy 2.x), rows = systems, columns = items 0..11. The calls:
#   g = [None if (i, j) missing else HUMAN[i][j] for i in range(6) for j in range(12)]
#   m = [METRIC[i][j] for i in range(6) for j in range(12)]
#   stats.Correlation(6, g, m).PairwiseConfidenceError(average_by="none")[0]
# (PairwiseConfidenceError through AverageCorrelation: filter_nones=True, 1000 permutations, seed 4).
HUMAN = [[3.38, 1.07, 1.55, 4.0, 4.98, 0.71, 0.39, 0.9, 1.8, 0.85, 2.94, 3.08],
         [0.93, 3.23, 0.42, 2.73, 5.28, 4.4, 3.38, 2.03, 1.43, 2.61, 1.79, 4.77],
         [1.87, 2.17, 4.84, 2.14, 2.14, 1.15, 3.14, 2.12, 5.24, 2.23, 4.67, 3.24],
         [3.54, 6.02, 5.69, 1.6, 2.43, 2.12, 5.73, 3.97, 3.06, 5.37, 2.94, 4.61],
         [2.74, 1.72, 5.08, 3.28, 3.31, 2.98, 2.86, 4.45, 3.27, 3.73, 2.61, 4.13],
         [4.93, 4.1, 4.02, 6.72, 2.24, 3.63, 4.59, 4.99, 2.21, 3.21, 2.27, 2.04]]
METRIC = [[0.52, 0.05, 1.65, 1.26, 1.82, 0.61, 0.75, 0.13, 0.17, 0.22, 0.73, 1.4],
          [0.39, 1.11, 0.21, 1.56, 1.26, 1.03, 1.55, 0.55, 0.65, 0.35, 0.55, 1.69],
          [-0.24, 0.23, 1.71, 1.99, 0.92, 0.31, 0.43, 0.87, 0.07, 0.64, 1.2, 0.66],
          [2.45, 0.32, 1.69, 0.52, 1.01, -0.33, 1.44, 0.29, 0.84, 1.73, 0.98, 1.26],
          [0.93, 0.62, 1.77, 1.0, -0.08, 0.41, 1.07, 0.79, 0.5, 1.19, 0.76, 1.78],
          [1.79, 0.97, 1.27, 0.3, 0.19, 1.0, -0.06, 1.3, 0.81, 1.58, 0.92, 1.74]]
PCE_VALUES = {
    "complete": (frozenset(), 0.7931333333333334),
    # items 2 and 7 missing (None) for every system: dropped
    "same items": (frozenset((i, j) for i in range(6) for j in (2, 7)), 0.8012666666666667),
    # one different item per system (system i misses item (3 i + 1) mod 12): each keeps 11 items and
    # pce.py pairs them by position
    "different items": (frozenset((i, (3 * i + 1) % 12) for i in range(6)), 0.7452666666666666),
}
# pce.py raises (cannot reshape) when the systems keep different numbers of items; we keep the items
# every system has: pce.py's value on the same matrices without items 1, 4 and 5 (the call above with
# those columns removed and no None), 0.8605333333333334.
UNEQUAL = (frozenset({(0, 1), (1, 4), (1, 5)}), 0.8605333333333334)


@pytest.mark.parametrize("case", [*PCE_VALUES, "unequal"])
def test_missing_items_as_pce(case):
    missing, expected = UNEQUAL if case == "unequal" else PCE_VALUES[case]
    human = np.array(HUMAN)
    for i, j in missing:
        human[i, j] = np.nan
    h, m, how = sp.pack(human, np.array(METRIC))
    assert (how == "") == (not missing)
    assert sp.soft_pairwise_accuracy(h, m[None])[0] == pytest.approx(expected, abs=1e-12)


def test_missing_metric_scores_are_dropped_with_the_human_ones():
    """A metric's missing score drops the entry on both sides, as a missing human score does."""
    metric = np.array(METRIC)
    for i in range(6):
        metric[i, 2] = metric[i, 7] = np.nan
    h, m, _ = sp.pack(np.array(HUMAN), metric)
    assert h.shape == (6, 10)
    assert sp.soft_pairwise_accuracy(h, m[None])[0] == pytest.approx(PCE_VALUES["same items"][1], abs=1e-12)


def test_item_order():
    assert sp.item_order(["10", "2", "1", "-3"]) == [3, 2, 1, 0]
    assert sp.item_order(["10", "2", "b"]) == [0, 1, 2]            # not all integers: as strings


def test_bootstrap_sample_is_pce_on_the_drawn_items():
    human, metric = np.array(HUMAN), np.array(METRIC)
    scores = np.stack([human, metric, metric[::-1]])
    samples = sp.bootstrap_spa(scores, [(0, 1), (0, 2)], 3, bootstrap_seed=7)
    draws = np.random.default_rng(7).integers(0, 12, size=(3, 12))
    for b in range(3):
        drawn = scores[:, :, draws[b]]
        p = sp.pairwise_p_values(drawn, exact=False)
        np.testing.assert_array_equal(samples[b], sp.spa(p[[0, 0]], p[[1, 2]]))
        # pce.py's own sums (exact) differ at most in a near-tie count: a few permutations of one pair
        exact = sp.soft_pairwise_accuracy(human[:, draws[b]], drawn[1:])
        np.testing.assert_allclose(samples[b], exact, rtol=0, atol=5 / (1000 * 15))
    lo, hi = sp.interval(samples, 0.95)
    assert (lo <= samples.max(axis=0)).all() and (hi >= samples.min(axis=0)).all()


def test_degenerate():
    assert np.isnan(sp.soft_pairwise_accuracy(np.ones((1, 4)), np.ones((2, 1, 4)))).all()    # one system: no pair
    h, m, how = sp.pack(np.full((3, 2), np.nan), np.ones((3, 2)))
    assert h.shape == (3, 0) and how.endswith("every system keeps 0 items")
    assert np.isnan(sp.soft_pairwise_accuracy(h, m[None])).all()                           # no item


def test_stage_orders_items_numerically_and_shares_spa_between_mean_and_median():
    from metaeval.records import SoftPairwiseOptions
    from metaeval.stages import soft_pairwise as stage
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stats.bootstrap import PerSummary
    from metaeval.variants import Variant

    human, metric = np.array(HUMAN)[:, :11], np.array(METRIC)[:, :11]
    topics = [str(t) for t in (10, 2, 1, 0, 3, 4, 5, 6, 7, 8, 9)]     # column k holds topic topics[k]
    systems = [f"s{k}" for k in range(6)]
    variants = [Variant.parse("R2_ST1_RS0_A_R"), Variant.parse("R2_ST1_RS0_M_R")]
    ps = PerSummary(systems, topics, {"R2_ST1_RS0_R": metric}, {}, {"coverage": human})
    sys_metric = np.stack([metric.mean(axis=1), np.median(metric, axis=1)], axis=1)
    inp = AnalysisInputs(systems, ["system"] * 6, variants, sys_metric, ["coverage"], human.mean(axis=1)[:, None], ps)
    r = stage.compute(inp, SoftPairwiseOptions(1000, 4, 20, 1, 0.95))
    numeric = [3, 2, 1, 4, 5, 6, 7, 8, 9, 10, 0]                       # topics 0, 1, 2, ..., 10
    expected = sp.soft_pairwise_accuracy(human[:, numeric], metric[None][:, :, numeric])[0]
    string_order = [3, 2, 1, 0, 4, 5, 6, 7, 8, 9, 10]                   # 0, 1, 10, 2, 3, ...
    assert sp.soft_pairwise_accuracy(human[:, string_order], metric[None][:, :, string_order])[0] != expected
    assert [row["spa"] for row in r.rows] == [expected, expected]
    assert [row["n_pairs"] for row in r.rows] == [15, 15] and r.rows[0]["lo"] <= expected <= r.rows[0]["hi"]
    assert len(r.pairs) == 2 * 15 and set(r.pairs["variant"]) == {"R2_ST1_RS0_A_R", "R2_ST1_RS0_M_R"}
    first = r.pairs.iloc[0]
    assert (first["system_a"], first["system_b"]) == ("s0", "s1")
    assert first["metric_diff"] == sys_metric[0, 0] - sys_metric[1, 0]
    assert first["agree"] == float(np.sign(first["metric_diff"]) == np.sign(human[0].mean() - human[1].mean()))
