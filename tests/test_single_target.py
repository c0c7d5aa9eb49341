"""A metric declared for one dimension (an LLM judge asked about coherence) serves that target only:
every stage compares, ranks and tests it there alone, and each target's common ground below the
system level is set by the metrics it serves, so a judge that could not score one summary takes that
summary out of its own target's column only. Values checked with scipy and numpy by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from metaeval.options import default_options
from metaeval.records import SoftPairwiseOptions
from metaeval.stages import agreement, correlation, soft_pairwise, statistics
from metaeval.stages.analysis_inputs import AnalysisInputs
from metaeval.stages.factuality_protocols import FactualityInputs
from metaeval.stats.bootstrap import PerSummary
from metaeval.variants import Variant

S, T = 6, 8
TARGETS = ["coherence", "relevance"]
MEANT_FOR = {"JCOH": "coherence", "JREL": "relevance", "JFLU": "fluency"}   # fluency: not a target here


def _inputs():
    rng = np.random.default_rng(11)
    quality = np.linspace(0, 1, S)
    human = {c: quality[:, None] + rng.normal(0, 0.3, (S, T)) for c in TARGETS}
    grids = {m: quality[:, None] + rng.normal(0, 0.4, (S, T)) for m in ("R1_ST1_RS0_R", "JCOH", "JREL", "JFLU")}
    grids["JCOH"][0, 0] = np.nan            # the coherence judge's one unreadable response
    ps = PerSummary([f"s{i}" for i in range(S)], [f"t{t}" for t in range(T)], grids, {}, human)
    variants = [Variant.parse(v) for v in ("R1_ST1_RS0_A_R", "JCOH_A", "JREL_A", "JFLU_A")]
    system = np.column_stack([np.nanmean(grids[m], axis=1) for m in ("R1_ST1_RS0_R", "JCOH", "JREL", "JFLU")])
    sys_human = np.column_stack([human[c].mean(1) for c in TARGETS])
    return AnalysisInputs(ps.summarizers, ["system"] * S, variants, system, TARGETS, sys_human, ps,
                          meant_for=MEANT_FOR), grids, human


def _within_topic_mean(x, y):
    """The summary level by hand: Pearson r within each topic over the cells both score, averaged."""
    rs = []
    for t in range(x.shape[1]):
        ok = ~np.isnan(x[:, t]) & ~np.isnan(y[:, t])
        rs.append(stats.pearsonr(x[ok, t], y[ok, t])[0])
    return float(np.mean(rs))


def test_the_system_level_compares_a_judge_under_its_own_target_only():
    inp, grids, human = _inputs()
    res = correlation.compute(inp, default_options().correlate._replace(bootstrap_samples=0))
    rows = {(r["variant"], r["combination"]): r for r in res.rows}
    expected = stats.pearsonr(np.nanmean(grids["JCOH"], 1), human["coherence"].mean(1))[0]
    assert rows[("JCOH_A", "coherence")]["pearson"] == pytest.approx(expected, abs=1e-12)
    assert rows[("JCOH_A", "coherence")]["n"] == S
    for v, c in (("JCOH_A", "relevance"), ("JREL_A", "coherence"), ("JFLU_A", "coherence"), ("JFLU_A", "relevance")):
        assert math.isnan(rows[(v, c)]["pearson"]) and rows[(v, c)]["n"] == 0
        assert rows[(v, c)]["optimal"] == "NA"
    # a Williams test never involves a judge outside its target
    judge = [str(v) for v in inp.variants].index("JCOH_A")
    assert np.isnan(res.williams["relevance"][judge]).all()
    assert not np.isnan(res.williams["coherence"][judge, 0])
    notes = [n for k, n in res.notes if k == "single_target"]
    assert any(n.startswith("JCOH: declared for coherence") for n in notes)
    assert any("JFLU" in n and "a dimension this data set does not have" in n for n in notes)


def test_the_summary_level_ground_is_per_target():
    inp, grids, human = _inputs()
    res = correlation.compute(inp, default_options().correlate._replace(bootstrap_samples=0))
    rows = {(r["metric"], r["combination"]): r for r in res.summary_level}
    r1 = grids["R1_ST1_RS0_R"]
    # relevance: the coherence judge is not among its metrics, so every summary counts
    assert rows[("R1_ST1_RS0_R", "relevance")]["summaries"] == S * T
    assert rows[("R1_ST1_RS0_R", "relevance")]["pearson"] == pytest.approx(
        _within_topic_mean(r1, human["relevance"]), abs=1e-12)
    # coherence: the summary the judge could not score is out for every metric of the column
    cut = human["coherence"].copy()
    cut[0, 0] = np.nan
    assert rows[("R1_ST1_RS0_R", "coherence")]["summaries"] == S * T - 1
    assert rows[("R1_ST1_RS0_R", "coherence")]["pearson"] == pytest.approx(_within_topic_mean(r1, cut), abs=1e-12)
    assert rows[("JCOH", "coherence")]["pearson"] == pytest.approx(_within_topic_mean(grids["JCOH"], cut), abs=1e-12)
    # ...and ROUGE's fuller value, on all it scores, beside (not ranked)
    assert rows[("R1_ST1_RS0_R", "coherence")]["summaries_covered"] == S * T
    assert rows[("R1_ST1_RS0_R", "coherence")]["pearson_covered"] == pytest.approx(
        _within_topic_mean(r1, human["coherence"]), abs=1e-12)
    for m, c in (("JCOH", "relevance"), ("JREL", "coherence"), ("JFLU", "relevance")):
        assert math.isnan(rows[(m, c)]["pearson"]) and rows[(m, c)]["summaries"] == 0
        assert math.isnan(rows[(m, c)]["pearson_covered"])


def test_the_statistics_and_soft_pairwise_accuracy_test_a_judge_under_its_own_target_only():
    inp, _, _ = _inputs()
    o = default_options().statistics._replace(bootstrap_samples=50, permutation_samples=50, null_samples=0,
                                              variants=("all",), combinations=("all",),
                                              permutation_combinations=("all",),
                                              accuracy_baseline="R1_ST1_RS0_A_R")
    res = statistics.compute(inp, o)
    tested = {(r["variant"], r["combination"]) for r in res.levels}
    assert ("JCOH_A", "coherence") in tested and ("JREL_A", "relevance") in tested
    assert not {("JCOH_A", "relevance"), ("JREL_A", "coherence")} & tested
    assert not any(v == "JFLU_A" for v, _ in tested)
    ids = res.variants
    p = res.permutation["relevance"]
    assert np.isnan(p[ids.index("JCOH_A")]).all() and not np.isnan(p[ids.index("JREL_A"), ids.index("R1_ST1_RS0_A_R")])
    spa = soft_pairwise.compute(inp, SoftPairwiseOptions(permutations=20, seed=1, bootstrap_samples=0, bootstrap_seed=1,
                                                         confidence=0.95))
    values = {(r["variant"], r["target"]): r["spa"] for r in spa.rows}
    assert math.isnan(values[("JCOH_A", "relevance")]) and not math.isnan(values[("JCOH_A", "coherence")])
    assert set(spa.pairs.loc[spa.pairs["variant"] == "JCOH_A", "target"]) == {"coherence"}


def test_agreement_counts_a_judge_under_its_own_target_only():
    inp, grids, human = _inputs()
    res = agreement.compute(inp, default_options().agreement._replace(combinations=tuple(TARGETS),
                                                                      baseline="R1_ST1_RS0_A_R"))
    pairs = {(r["metric"], r["combination"]) for r in res.rows}
    assert ("JCOH", "coherence") in pairs and ("JREL", "relevance") in pairs
    assert not {("JCOH", "relevance"), ("JREL", "coherence")} & pairs
    assert "JFLU" not in res.metrics


def test_each_factual_dimension_keeps_the_summaries_its_own_metrics_score():
    n = 12
    metrics = {"m": np.arange(n, dtype=float), "judge_a": np.r_[np.nan, np.arange(1, n, dtype=float)]}
    inp = FactualityInputs("toy", np.array([f"t{i}" for i in range(n)], dtype=object),
                           np.array([f"s{i % 3}" for i in range(n)], dtype=object), np.array([""] * n, dtype=object),
                           np.array([""] * n, dtype=object), {"a": np.ones(n), "b": np.ones(n)},
                           {"a": "binary", "b": "binary"}, ["a", "b"], [], metrics,
                           {"m": "built-in", "judge_a": "file"}, meant_for={"judge_a": "a"})
    notes: list = []
    a, kept_a = inp.for_dimension("a", notes)
    b, kept_b = inp.for_dimension("b", notes)
    assert list(a.metrics) == ["m", "judge_a"] and kept_a.sum() == n - 1 and not kept_a[0]
    assert list(b.metrics) == ["m"] and kept_b.all()
    assert [d for _, d, _ in notes] == ["a"]


def test_a_factual_dimension_ranks_on_its_ground_and_gives_the_fuller_value_beside():
    from metaeval.stages import factuality

    rng = np.random.default_rng(3)
    n = 120
    labels = (rng.random(n) < 0.5).astype(float)
    systems = np.array([f"s{i % 4}" for i in range(n)], dtype=object)
    good = labels + rng.normal(0, 0.8, n)
    judge = labels + rng.normal(0, 0.5, n)
    judge[:10] = np.nan                         # ten responses the judge's rule could not read
    inp = FactualityInputs("toy", np.array([f"t{i // 4:03d}" for i in range(n)], dtype=object), systems,
                           np.array([""] * n, dtype=object), np.array([""] * n, dtype=object),
                           {"consistent": labels, "other": labels.copy()}, {"consistent": "binary", "other": "binary"},
                           ["consistent", "other"], [], {"good": good, "judge": judge},
                           {"good": "built-in", "judge": "file"}, meant_for={"judge": "consistent"})
    o = default_options().factuality._replace(bootstrap_samples=0, floor_permutations=0)
    res = factuality.compute(inp, o)
    b = res.binary.set_index(["dimension", "subset", "metric"])
    mine = b.loc[("consistent", "all", "good")]
    assert int(mine["n"]) == n - 10
    assert mine["auc"] == pytest.approx(stats.mannwhitneyu(good[10:][labels[10:] == 1], good[10:][labels[10:] == 0]
                                                           ).statistic / ((labels[10:] == 1).sum() *
                                                                          (labels[10:] == 0).sum()), abs=1e-12)
    assert int(mine["n_covered"]) == n
    assert mine["auc_covered"] == pytest.approx(stats.mannwhitneyu(good[labels == 1], good[labels == 0]).statistic
                                                / ((labels == 1).sum() * (labels == 0).sum()), abs=1e-12)
    # the other dimension: the judge is not among its metrics, and every summary counts
    assert ("other", "all", "judge") not in b.index
    assert int(b.loc[("other", "all", "good"), "n"]) == n
    p = res.partial.set_index(["dimension", "subset", "split", "metric"])
    assert int(p.loc[("consistent", "all", "all", "good"), "n_covered"]) == n
