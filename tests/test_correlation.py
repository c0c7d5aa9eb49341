"""Correlations and the bootstrap: against scipy and hand-built cases, seeded, with undefined cases
reported."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metaeval.options import CorrelateOptions
from metaeval.stages.analysis_inputs import AnalysisInputs
from metaeval.stages.correlation import compute
from metaeval.stats.bootstrap import PerSummary, bootstrap_pearson, corpus_bleu_per_summarizer
from metaeval.stats.correlation import pearson_columns, point_correlations, summary_level
from metaeval.metrics.bleu import corpus_bleu
from metaeval.variants import Variant


def test_pearson_columns_and_point_estimates():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(12, 4)), rng.normal(size=(12, 2))
    r = pearson_columns(x, y)
    for i in range(4):
        for j in range(2):
            assert r[i, j] == pytest.approx(np.corrcoef(x[:, i], y[:, j])[0, 1])
    x[:, 1] = 3.0
    assert np.isnan(pearson_columns(x, y)[1]).all()
    m, h = rng.normal(size=10), rng.normal(size=10)
    p, s, k, n = point_correlations(m, h)
    assert (p, s, k, n) == pytest.approx((stats.pearsonr(m, h)[0], stats.spearmanr(m, h)[0],
                                          stats.kendalltau(m, h)[0], 10))
    m[3] = np.nan
    assert point_correlations(m, h)[3] == 9


def test_summary_level_is_the_mean_of_within_topic_correlations():
    rng = np.random.default_rng(4)
    metric, human = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    human[:, 2] = 1.0                                   # topic 3: constant human score, undefined
    (name, comb, topics, p, s, k), = summary_level({"m": metric}, {"h": human}, ["h"])
    assert (name, comb, topics) == ("m", "h", 2)
    assert p == pytest.approx(np.mean([stats.pearsonr(metric[:, t], human[:, t])[0] for t in (0, 1)]))
    assert k == pytest.approx(np.mean([stats.kendalltau(metric[:, t], human[:, t])[0] for t in (0, 1)]))


OPTIONS = CorrelateOptions(("arithmetic",), "systems", 50, "both", 0.95, 1, 0.05, None)


def _inputs(n_sys=6, n_top=8, seed=0, constant=False):
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1, n_sys)
    human = quality[:, None] + rng.normal(0, 0.1, (n_sys, n_top))
    good = quality[:, None] + rng.normal(0, 0.1, (n_sys, n_top))
    bad = np.full_like(good, 0.5) if constant else rng.normal(0, 0.1, (n_sys, n_top))
    ps = PerSummary([str(i) for i in range(n_sys)], [f"t{t}" for t in range(n_top)],
                    {"R1_ST0_RS0_R": good, "R2_ST0_RS0_R": bad}, {}, {"arithmetic": human})
    variants = [Variant.parse("R1_ST0_RS0_A_R"), Variant.parse("R2_ST0_RS0_A_R")]
    sys_metric = np.stack([good.mean(1), bad.mean(1)], axis=1)
    return AnalysisInputs(ps.summarizers, ["system"] * n_sys, variants, sys_metric, ["arithmetic"],
                          human.mean(1)[:, None], ps)


@pytest.mark.parametrize("resample", ["systems", "topics", "both"])
def test_bootstrap_is_seeded(resample):
    inp = _inputs()
    args = (inp.per_summary, inp.variants, inp.combinations, inp.system_metric, inp.system_human, 200, resample)
    lo1, hi1 = bootstrap_pearson(*args, seed=7, confidence=0.95)
    lo2, hi2 = bootstrap_pearson(*args, seed=7, confidence=0.95)
    lo3, _ = bootstrap_pearson(*args, seed=8, confidence=0.95)
    assert np.array_equal(lo1, lo2) and np.array_equal(hi1, hi2) and not np.array_equal(lo1, lo3)
    r = point_correlations(inp.system_metric[:, 0], inp.system_human[:, 0])[0]
    assert lo1[0, 0] <= r <= hi1[0, 0]


def test_bootstrap_over_systems_is_the_percentile_of_resampled_pearson():
    """Resampling systems only: the interval is the 2.5/97.5 percentiles of Pearson r over the same
    draws of system indices, computed here with scipy."""
    inp = _inputs()
    lo, hi = bootstrap_pearson(inp.per_summary, inp.variants[:1], inp.combinations, inp.system_metric[:, :1],
                               inp.system_human, 300, "systems", 11, 0.95)
    rng = np.random.default_rng(11)
    rs = []
    for _ in range(300):
        idx = rng.integers(0, 6, 6)
        x, y = inp.system_metric[idx, 0], inp.system_human[idx, 0]
        rs.append(stats.pearsonr(x, y)[0] if np.ptp(x) > 0 else np.nan)
    assert (lo[0, 0], hi[0, 0]) == pytest.approx((np.nanpercentile(rs, 2.5), np.nanpercentile(rs, 97.5)), abs=1e-12)


def test_corpus_bleu_of_summed_statistics_is_sacrebleus_corpus_bleu():
    from metaeval.metrics.bleu import summary_statistics

    hyps = ["the cat sat on the mat", "a dog barked at night", "police killed the gunman"]
    refs = [["the cat is on the mat"], ["the dog barked at night", "at night a dog barked"], ["police kill the gunman"]]
    stats_ = np.array([[summary_statistics(h, r)] for h, r in zip(hyps, refs)], dtype=float)   # (T, sets, 10)
    got = corpus_bleu_per_summarizer(stats_[None])      # one summarizer, three topics
    assert got[0] == corpus_bleu(hyps, refs)


def test_analysis_reports_constant_metric_and_too_few_systems():
    res = compute(_inputs(constant=True), OPTIONS)
    rows = {r["variant"]: r for r in res.rows}
    assert np.isnan(rows["R2_ST0_RS0_A_R"]["pearson"]) and rows["R2_ST0_RS0_A_R"]["optimal"] == "NA"
    assert np.isnan(rows["R2_ST0_RS0_A_R"]["pearson_lo"])        # an undefined r has no interval
    assert rows["R1_ST0_RS0_A_R"]["optimal"] == "yes" and rows["R1_ST0_RS0_A_R"]["cluster"] == "1"
    assert any(k == "constant_metric" and "R2_ST0_RS0_A_R" in v for k, v in res.notes)
    few = compute(_inputs(n_sys=3), OPTIONS._replace(samples=20))
    assert any(k == "williams_undefined" for k, _ in few.notes)
    assert all(r["optimal"] == "NA" for r in few.rows)
    perfect = _inputs()
    perfect.system_metric[:, 0] = perfect.system_human[:, 0]  # |r| = 1 is handled, not a crash
    assert compute(perfect, OPTIONS._replace(samples=20, resample="systems")).rows[0]["pearson"] == pytest.approx(1.0)
