"""Correlations and the bootstrap: against scipy and hand-built cases, seeded, with undefined cases
reported."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metaeval.options import default_options
from metaeval.stages.analysis_inputs import AnalysisInputs
from metaeval.stages.correlation import compute
from metaeval.stats.bootstrap import PerSummary, bootstrap_pearson, resampled_corpus_bleu
from metaeval.stats.core import Plan
from metaeval.stats.correlation import point_correlations, summary_level
from metaeval.metrics.bleu import corpus_bleu
from metaeval.variants import Variant
from reference_bootstrap import pearson_columns


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


OPTIONS = default_options().correlate._replace(combinations=("arithmetic",), bootstrap_samples=50, seed=1)


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
    args = (inp.per_summary, inp.variants, inp.combinations, inp.system_metric, inp.system_human)
    lo1, hi1 = bootstrap_pearson(*args, Plan(200, resample, seed=7, confidence=0.95))
    lo2, hi2 = bootstrap_pearson(*args, Plan(200, resample, seed=7, confidence=0.95))
    lo3, _ = bootstrap_pearson(*args, Plan(200, resample, seed=8, confidence=0.95))
    assert np.array_equal(lo1, lo2) and np.array_equal(hi1, hi2) and not np.array_equal(lo1, lo3)
    r = point_correlations(inp.system_metric[:, 0], inp.system_human[:, 0])[0]
    assert lo1[0, 0] <= r <= hi1[0, 0]


def test_bootstrap_over_systems_is_the_percentile_of_resampled_pearson():
    """Resampling systems only: the interval is the 2.5/97.5 percentiles of Pearson r over the same
    draws of system indices, computed here with scipy."""
    inp = _inputs()
    lo, hi = bootstrap_pearson(inp.per_summary, inp.variants[:1], inp.combinations, inp.system_metric[:, :1],
                               inp.system_human, Plan(300, "systems", 11, 0.95))
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
    got = resampled_corpus_bleu(stats_[None], np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]]))  # two samples
    assert got[0, 0] == corpus_bleu(hyps, refs)
    assert got[1, 0] == corpus_bleu([hyps[0], hyps[0], hyps[2]], [refs[0], refs[0], refs[2]])


def test_analysis_reports_constant_metric_and_too_few_systems():
    res = compute(_inputs(constant=True), OPTIONS)
    rows = {r["variant"]: r for r in res.rows}
    assert np.isnan(rows["R2_ST0_RS0_A_R"]["pearson"]) and rows["R2_ST0_RS0_A_R"]["optimal"] == "NA"
    assert np.isnan(rows["R2_ST0_RS0_A_R"]["pearson_lo"])        # an undefined r has no interval
    assert rows["R1_ST0_RS0_A_R"]["optimal"] == "yes" and rows["R1_ST0_RS0_A_R"]["cluster"] == "1"
    assert any(k == "constant_metric" and "R2_ST0_RS0_A_R" in v for k, v in res.notes)
    few = compute(_inputs(n_sys=3), OPTIONS._replace(bootstrap_samples=20))
    assert any(k == "williams_undefined" for k, _ in few.notes)
    assert all(r["optimal"] == "NA" for r in few.rows)
    perfect = _inputs()
    perfect.system_metric[:, 0] = perfect.system_human[:, 0]  # |r| = 1 is handled, not a crash
    assert compute(perfect, OPTIONS._replace(bootstrap_samples=20, resample="systems")).rows[0]["pearson"] == pytest.approx(1.0)


def _grids(n_sys=7, n_top=12, seed=3, missing=True):
    """Per-summary grids with the shapes of real ones: two ROUGE-like metrics with ties (so medians
    of even counts occur), BLEU and chrF statistics (and sentence chrF, which no variant averages),
    two human combinations, and missing summaries."""
    rng = np.random.default_rng(seed)
    quality = rng.uniform(0, 1, n_sys)
    metric = lambda: np.round(quality[:, None] + rng.normal(0, 0.3, (n_sys, n_top)), 2)  # noqa: E731
    grids = {"R1_ST0_RS0_R": metric(), "R2_ST0_RS0_R": metric()}
    human = {"arithmetic": quality[:, None] + rng.normal(0, 0.2, (n_sys, n_top)),
             "coverage": quality[:, None] + rng.normal(0, 0.4, (n_sys, n_top))}
    length = rng.integers(20, 40, (n_sys, n_top, 1, 1)).astype(float)
    total = np.concatenate([length - k for k in range(4)], axis=3)
    correct = np.floor(total * rng.uniform(0.1, 0.6, (n_sys, n_top, 1, 4)))
    stats_ = np.concatenate([length, length + rng.integers(-5, 5, length.shape), correct, total], axis=3)
    hyp = rng.integers(0, 60, (n_sys, n_top, 1, 6, 1))         # chrF: hyp, ref, match per order
    ref = rng.integers(1, 60, hyp.shape)
    chrf = np.concatenate([hyp, ref, np.minimum(hyp, ref) // 2], axis=4).reshape(n_sys, n_top, 1, 18).astype(float)
    grids["CHRF"] = rng.uniform(0, 100, (n_sys, n_top))
    if missing:
        for g in [*grids.values(), *human.values()]:
            g[2, 5] = np.nan                                  # system 2 has no summary for topic 5
        stats_[2, 5] = chrf[2, 5] = np.nan
        human["coverage"][4, 7] = np.nan                      # a missing judgment
    ps = PerSummary([str(i) for i in range(n_sys)], [f"t{t}" for t in range(n_top)], grids,
                    {"BLEU_ST0_RS0": stats_, "CHRF": chrf}, human)
    variants = [Variant.parse(v) for v in ("R1_ST0_RS0_A_R", "R1_ST0_RS0_M_R", "R2_ST0_RS0_M_R", "BLEU_ST0_RS0",
                                           "CHRF")]
    return ps, variants


@pytest.mark.parametrize("resample", ["systems", "topics", "both"])
@pytest.mark.parametrize("missing", [False, True])
def test_vectorised_bootstrap_equals_the_sample_by_sample_one(resample, missing):
    """The same draws give the same intervals as the implementation it replaced
    (tests/reference_bootstrap.py), to rounding."""
    import reference_bootstrap as ref
    from metaeval.stats import bootstrap

    ps, variants = _grids(missing=missing)
    full = np.arange(len(ps.topics))
    counts = np.ones((1, len(ps.topics)))
    system_metric = ref.variant_scores(ps, full, variants)
    np.testing.assert_allclose(bootstrap.variant_scores(ps, variants, counts)[0], system_metric, rtol=0, atol=1e-12)
    system_human = ref.human_scores(ps, full, list(ps.human))
    args = (ps, variants, list(ps.human), system_metric, system_human)
    lo, hi = bootstrap.bootstrap_pearson(*args, Plan(400, resample, 5, 0.9))
    lo0, hi0 = ref.bootstrap_pearson(*args, 400, resample, 5, 0.9)
    assert not np.isnan(lo).all()
    np.testing.assert_allclose(lo, lo0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hi, hi0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("walk", ["numpy", "compiled"])
def test_resampled_medians_equal_numpys(walk, monkeypatch):
    """Both walks (numpy for small grids, in chunks of samples; the compiled kernel for large ones)
    give numpy's nanmedian of the drawn topics, a row without any drawn value NaN."""
    from metaeval.stats import bootstrap
    from metaeval.stats.bootstrap import counts, resampled_medians

    monkeypatch.setattr(bootstrap, "_SMALL_MEDIANS", 10 ** 12 if walk == "numpy" else -1)
    monkeypatch.setattr(bootstrap, "_MEDIAN_CHUNK", 30 * 9 * 7)       # chunks of 7 samples
    rng = np.random.default_rng(9)
    x = np.round(rng.normal(size=(30, 9)), 1)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[3, :] = np.nan
    x[4, 1:] = np.nan
    idx = rng.integers(0, 9, (50, 9))
    got = resampled_medians(x, counts(idx, 9))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.stack([np.nanmedian(x[:, i], axis=1) for i in idx], axis=1)
    np.testing.assert_array_equal(got, want)


def _within_by_loops(metric, human, idx):
    """Mean of the drawn topics' within-topic Pearson r (scipy), a topic drawn twice counting twice."""
    rs = []
    for t in idx:
        ok = ~np.isnan(metric[:, t]) & ~np.isnan(human[:, t])
        if ok.sum() >= 3 and np.ptp(metric[ok, t]) > 0 and np.ptp(human[ok, t]) > 0:
            rs.append(stats.pearsonr(metric[ok, t], human[ok, t])[0])
    return np.mean(rs) if rs else np.nan


def _pooled_by_loops(metric, human, idx):
    """Pearson r (scipy) over the summaries of the drawn topics, repeated as drawn."""
    x = np.concatenate([metric[:, t] for t in idx])
    y = np.concatenate([human[:, t] for t in idx])
    ok = ~np.isnan(x) & ~np.isnan(y)
    return stats.pearsonr(x[ok], y[ok])[0] if ok.sum() >= 3 and np.ptp(x[ok]) > 0 else np.nan


@pytest.mark.slow
@pytest.mark.parametrize("n_sys,pooled_level", [(5, False), (1, True), (2, True)])
def test_summary_level_intervals_and_paired_test_by_loops(n_sys, pooled_level):
    """Intervals and the paired bootstrap p against the best metric, recomputed with plain loops
    over the same seeded topic draws (default_rng(seed).integers per sample) and scipy."""
    from metaeval.stats.correlation import summary_level_intervals
    rng = np.random.default_rng(7)
    T, B, seed = 30, 200, 11
    human = rng.normal(size=(n_sys, T))
    metrics = {"good": human + rng.normal(0, 0.5, (n_sys, T)), "weak": human + rng.normal(0, 2.0, (n_sys, T)),
               "noise": rng.normal(size=(n_sys, T))}
    metrics["good"][0, 3] = np.nan                                  # a missing score
    lo, hi, p = summary_level_intervals(metrics, {"h": human}, ["h"], pooled_level, B, seed, 0.9)
    draw = np.random.default_rng(seed)
    idx = [draw.integers(0, T, T) for _ in range(B)]
    f = _pooled_by_loops if pooled_level else _within_by_loops
    boot = np.array([[f(metrics[m], human, i) for m in metrics] for i in idx])     # (B, M)
    assert lo[:, 0] == pytest.approx(np.percentile(boot, 5, axis=0), abs=1e-12)
    assert hi[:, 0] == pytest.approx(np.percentile(boot, 95, axis=0), abs=1e-12)
    # "good" is the best on the full data; p = share of samples where it does not beat the other
    assert np.isnan(p[0, 0])
    for k in (1, 2):
        assert p[k, 0] == pytest.approx(np.mean(boot[:, 0] - boot[:, k] <= 0), abs=1e-12)
    assert p[2, 0] < 0.01
    # every ordered pair: p[u, v] = share of the same samples where u does not beat v, by loops; the
    # best metric's row is the p_vs_best column above
    from metaeval.stats.correlation import paired_bootstrap_matrix, summary_level_samples
    point, samples = summary_level_samples(metrics, {"h": human}, ["h"], pooled_level, B, seed)
    matrix = paired_bootstrap_matrix(samples[:, :, 0], block=2)
    for u in range(3):
        for v in range(3):
            expected = np.nan if u == v else np.mean(boot[:, u] - boot[:, v] <= 0)
            assert matrix[u, v] == pytest.approx(expected, abs=1e-12, nan_ok=True)
    assert matrix[0, 1:] == pytest.approx(p[1:, 0], abs=0)


def test_pooled_summary_level_is_scipy_over_all_summaries():
    from metaeval.stats.correlation import pooled
    rng = np.random.default_rng(3)
    metric, human = rng.normal(size=(1, 40)), rng.normal(size=(1, 40))
    metric[0, 5] = np.nan
    (name, comb, topics, n, p, s, k), = pooled({"m": metric}, {"h": human}, ["h"])
    ok = ~np.isnan(metric[0])
    assert (topics, n) == (39, 39)
    assert (p, s, k) == pytest.approx((stats.pearsonr(metric[0, ok], human[0, ok])[0],
                                       stats.spearmanr(metric[0, ok], human[0, ok])[0],
                                       stats.kendalltau(metric[0, ok], human[0, ok])[0]), abs=1e-12)


def test_one_system_data_set_gets_pooled_summary_level_rows():
    """A one-system data set (QAGS-like): no system-level correlation, and the summary level pools
    every judged summary - values from scipy, interval present, the best metric has no p."""
    inp = _inputs(n_sys=1, n_top=40, seed=2)
    result = compute(inp, OPTIONS._replace(bootstrap_samples=100))
    assert all(np.isnan(r["pearson"]) for r in result.rows)
    rows = {r["metric"]: r for r in result.summary_level}
    human = inp.per_summary.human["arithmetic"][0]
    good = rows["R1_ST0_RS0_R"]
    assert good["level"] == "summary (all judged summaries pooled)" and good["summaries"] == 40
    assert good["pearson"] == pytest.approx(stats.pearsonr(inp.summary_metric["R1_ST0_RS0_R"][0], human)[0])
    assert good["pearson_lo"] < good["pearson"] < good["pearson_hi"]
    best, other = sorted(rows.values(), key=lambda r: -r["pearson"])
    assert np.isnan(best["p_vs_best"]) and 0 <= other["p_vs_best"] <= 1
    assert any(kind == "summary_level" for kind, _ in result.notes)


def test_summary_answer_from_a_hand_made_table():
    """The summary-level verdict: the best metric by r, others counted as not worse when their
    paired p >= alpha (by hand: B at 0.20 and D undefined -> 1 of 2 defined others), the baseline
    variant's per-summary metric ranked."""
    from metaeval.stages.correlation_tables import summary_answer
    from metaeval.stages.report import summary_answer_text
    level = "summary (all judged summaries pooled)"
    row = lambda m, r, p, c="coverage": {"level": level, "metric": m, "combination": c, "topics": "9",  # noqa: E731
                                         "summaries": "18", "pearson": r, "pearson_lo": "0.1", "pearson_hi": "0.7",
                                         "p_vs_best": p, "spearman": "NA", "kendall": "NA"}
    table = [row("R1_ST1_RS0_R", "0.3", "0.01"), row("A", "0.5", "NA"), row("B", "0.45", "0.2"), row("D", "NA", "NA"),
             row("A", "0.9", "NA", "other")]
    s = summary_answer(table, "coverage", "R1_ST1_RS0_A_R", 0.05)
    assert (s.best["metric"], s.not_worse, s.metrics, s.baseline, s.baseline_rank) == ("A", 1, 3, "R1_ST1_RS0_R", 3)
    text = summary_answer_text(s)
    assert "the best metric for coverage at the summary level is <b>A</b> (Pearson r = 0.500, 95% CI [0.100, 0.700], " \
           "over all 18 judged summaries pooled); 1 of the other 2 metrics is not significantly worse" in text
    assert summary_answer([row("A", "NA", "NA")], "coverage", "R1_ST1_RS0_A_R", 0.05) is None


def test_kendall_tau_b_is_scipys_to_the_bit_on_both_paths():
    """Pairs compared at once (up to 200 items) and pairs counted after sorting (above): the same
    float as scipy's kendalltau, ties on either side, a constant side NaN."""
    from metaeval.stats.correlation import kendall_tau_b

    rng = np.random.default_rng(21)
    for n in (3, 40, 200, 201, 777, 1500):
        for _ in range(6):
            x = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
            y = rng.integers(0, int(rng.integers(2, 9)), n).astype(float)
            assert kendall_tau_b(x, y) == stats.kendalltau(x, y).statistic
    assert np.isnan(kendall_tau_b(np.ones(300), np.arange(300.0)))


def test_column_correlations_are_scipys_and_core_pearsons_bits_for_every_pair():
    """Every (column of x, column of y) pair over the rows both define: Pearson core.pearson on
    those rows, Spearman core.pearson of their ranks, Kendall tau-b scipy's; with
    columns of x sharing missing-row patterns, columns of y missing other rows, ties, a constant
    column and too few rows (NaN)."""
    from metaeval.stats.core import pearson, ranks
    from metaeval.stats.correlation import column_correlations

    rng = np.random.default_rng(21)
    x = np.round(rng.normal(size=(12, 7)), 1)                  # ties
    x[[1, 4], :3] = np.nan                                      # three columns miss the same rows
    x[:, 5] = 2.0                                               # constant
    x[:10, 6] = np.nan                                          # two rows left
    y = rng.normal(size=(12, 4))
    y[0, 1] = y[7, 2] = np.nan
    p, s, k, n = column_correlations(x, y)
    for a in range(x.shape[1]):
        for b in range(y.shape[1]):
            ok = ~np.isnan(x[:, a]) & ~np.isnan(y[:, b])
            assert n[a, b] == ok.sum()
            xa, yb = x[ok, a], y[ok, b]
            if ok.sum() < 3 or np.ptp(xa) == 0:
                assert np.isnan(p[a, b]) and np.isnan(s[a, b]) and np.isnan(k[a, b])
                continue
            assert p[a, b] == pytest.approx(pearson(xa, yb), abs=1e-15)
            assert s[a, b] == pytest.approx(pearson(ranks(xa), ranks(yb)), abs=1e-15)
            assert p[a, b] == pytest.approx(stats.pearsonr(xa, yb)[0], abs=1e-12)
            assert s[a, b] == pytest.approx(stats.spearmanr(xa, yb)[0], abs=1e-12)
            assert k[a, b] == pytest.approx(stats.kendalltau(xa, yb)[0], abs=1e-12)


def test_a_target_that_ranks_every_metric_alike_gets_one_answer_row():
    from metaeval.stages.correlation_tables import answer_rows

    # QAGS's coverage is its one coverage dimension, fact, rescaled: every correlation is the same, so
    # the answer names both in one row; "other" differs in one summary-level r and keeps its own row
    corr = [{"variant": v, "combination": t, "pearson": "NA", "pearson_lo": "NA", "pearson_hi": "NA", "optimal": "no",
             "cluster": "NA"} for t in ("coverage", "fact", "other") for v in ("R1_ST0_RS0_A_P", "R2_ST0_RS0_A_P")]
    level = [{"level": "summary (all judged summaries pooled)", "metric": m, "combination": t, "pearson": r,
              "pearson_lo": "0.1", "pearson_hi": "0.9", "p_vs_best": p}
             for t in ("coverage", "fact", "other")
             for m, r, p in (("R1_ST0_RS0_P", "0.5" if t != "other" else "0.4", "0.01"), ("R2_ST0_RS0_P", "0.6", "NA"))]
    rows = answer_rows(corr, level, lambda t: None, "R2_ST1_RS0_A_R", 0.05, "coverage")
    assert [(r["target"], r["level"], r["primary"]) for r in rows] == [
        ("coverage = fact", "system", "yes"), ("coverage = fact", "summary", "yes"),
        ("other", "system", "no"), ("other", "summary", "no")]
