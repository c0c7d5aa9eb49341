"""The statistics beyond Graham 2015 against the peers' own values on REALSumm (../shared/reference, made by
mt-metrics-eval's stats.py and nlpstats 0.0.1; its README says which call made which value) and
against nlpstats itself on small random data."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from metaeval.stats import kendall, levels, resampling
from metaeval.stats.williams import williams_t, williams_test
from reference import require

REFERENCE = REPO.parent / "shared" / "reference"
REALSUMM = REPO.parent / "shared" / "data" / "realsumm"
METRICS = ["BERTScore_P", "BERTScore_R", "BERTScore_F", "MoverScore", "JS2"]
LEVEL = {"system": "system", "segment": "global", "segment_item_avg": "input"}   # mt-metrics-eval's names


@pytest.fixture(scope="module")
def realsumm():
    """(X (5, 24, 100), Z (24, 100)) in the README's order: systems by sorted(), topics numerically."""
    require(None if (REFERENCE / "README.md").exists() and REALSUMM.exists() else f"{REFERENCE} is absent",
            "the peers' reference values")
    judged = pd.read_csv(REALSUMM / "judgments.tsv", sep="\t")
    scores = pd.read_csv(REALSUMM / "metric_scores.tsv", sep="\t")
    systems, topics = sorted(judged.summarizer.unique()), sorted(judged.topic.unique())

    def grid(frame, column):
        return frame.pivot(index="summarizer", columns="topic", values=column).loc[systems, topics].to_numpy(float)

    x = np.stack([grid(scores[scores.metric == m], "score") for m in METRICS])
    return x, grid(judged, "litepyramid_recall")


def table(name: str) -> pd.DataFrame:
    return pd.read_csv(REFERENCE / name, sep="\t")


def by_metric(frame: pd.DataFrame, column: str = "value") -> np.ndarray:
    return frame.set_index("metric").loc[METRICS, column].to_numpy(float)


def test_kendall_variants_and_kendall_like(realsumm):
    x, z = realsumm
    ref = table("kendall_variants.tsv")
    for (level, name), rows in ref[ref.variant.isin(["b", "c", "23", "acc23"])].groupby(["level", "variant"]):
        np.testing.assert_allclose(kendall.kendall_variants(x, z, LEVEL[level], name), by_metric(rows), rtol=0, atol=1e-12)
    for level, rows in ref[ref.variant == "kendall_like_thresh0"].groupby("level"):
        np.testing.assert_allclose(kendall.kendall_like(x, z, LEVEL[level], 0.0), by_metric(rows), rtol=0, atol=1e-12)
    for level, rows in ref[ref.variant.str.endswith("_at_opt_eps")].groupby(["level", "variant"]):
        level, name = level[0], level[1].split("_")[0]
        values = [kendall.kendall_variants(x[k], z, LEVEL[level], name, eps)
                  for k, eps in enumerate(by_metric(rows, "epsilon"))]
        np.testing.assert_allclose(values, by_metric(rows), rtol=0, atol=1e-12)


@pytest.mark.slow
def test_tie_calibration(realsumm):
    x, z = realsumm
    ref = table("kendall_variants.tsv")
    for (level, name), rows in ref[ref.variant.str.endswith("_tiesopt")].groupby(["level", "variant"]):
        name = name.split("_")[0]
        value, eps = kendall.tie_calibration(x, z, LEVEL[level], name)
        np.testing.assert_allclose(value, by_metric(rows), rtol=0, atol=1e-12)
        theirs = by_metric(rows, "epsilon")
        for k in range(len(METRICS)):
            if eps[k] != theirs[k]:
                # Several epsilons reach the same optimum (BERTScore_R, item-averaged acc23: 15191 of
                # 27600 pairs agree at 0 and at 0.00042). We return the smallest; mt-metrics-eval's
                # choice falls out of rounding in its running float sum. Both are exact optima:
                assert eps[k] < theirs[k]
                at_theirs = kendall.kendall_variants(x[k], z, LEVEL[level], name, theirs[k])
                assert at_theirs == pytest.approx(value[k], abs=1e-12)
    # the differing case is the one named above, and only it
    value, eps = kendall.tie_calibration(x, z, "input", "acc23")
    assert eps[1] == 0.0 and eps[0] > 0 and eps[3] > 0


def test_pairwise_accuracy(realsumm):
    x, z = realsumm
    ref = table("pairwise_accuracy.tsv")
    np.testing.assert_allclose(kendall.pairwise_accuracy(x, z), by_metric(ref, "accuracy"), rtol=0, atol=1e-12)
    assert (by_metric(ref, "num_pairs") == 276).all()


def test_correlation_levels_and_fisher_intervals(realsumm):
    x, z = realsumm
    ref = table("nlpstats_correlations.tsv")
    n = {"system": 24, "input": 24, "global": 2400}
    for (level, coefficient), rows in ref.groupby(["level", "coefficient"]):
        r = levels.correlate(x, z, level, coefficient)
        np.testing.assert_allclose(r, by_metric(rows), rtol=0, atol=1e-12)
        lo, hi = levels.fisher_interval(by_metric(rows), n[level], coefficient)
        np.testing.assert_allclose(lo, by_metric(rows, "fisher_lower"), rtol=0, atol=1e-12)
        np.testing.assert_allclose(hi, by_metric(rows, "fisher_upper"), rtol=0, atol=1e-12)


def test_williams_sidedness(realsumm):
    """Ours: one-sided on signed r, p(a > b) = P(T >= t). mt-metrics-eval: P(T >= |t|) (the same in
    either order; two-sided doubles it). nlpstats: the same t on |r|."""
    x, z = realsumm
    ref = table("williams_mtme.tsv")
    sys_x = levels.weighted_means(x)
    r_h = levels.correlate(x, z, "system", "pearson")
    index = {m: k for k, m in enumerate(METRICS)}
    for row in ref.itertuples():
        a, b = index[row.metric_a], index[row.metric_b]
        r_ab = float(levels.pearson(sys_x[a], sys_x[b]))
        assert (r_h[a], r_h[b], r_ab) == pytest.approx((row.r_a, row.r_b, row.r_ab), abs=1e-12)
        assert float(williams_t(r_h[a], r_h[b], r_ab, 24)) == pytest.approx(row.stat, abs=1e-9)
        ours_ab, ours_ba = float(williams_test(r_h[a], r_h[b], r_ab, 24)), float(williams_test(r_h[b], r_h[a], r_ab, 24))
        assert min(ours_ab, ours_ba) == pytest.approx(row.p, rel=1e-9, abs=1e-15)     # mt: the smaller side
        assert ours_ab + ours_ba == pytest.approx(1.0, abs=1e-12)
        assert 2 * min(ours_ab, ours_ba) == pytest.approx(row.p_two_sided, rel=1e-9, abs=1e-15)
        absolute = float(williams_test(abs(r_h[a]), abs(r_h[b]), abs(r_ab), 24))
        assert absolute == pytest.approx(row.nlpstats_p_greater, rel=1e-9, abs=1e-15)
        if min(r_h[a], r_h[b]) < 0:    # BERTScore_P: signed and absolute tests disagree
            assert 2 * min(ours_ab, ours_ba) != pytest.approx(row.nlpstats_p_two_sided, rel=1e-3)


def _nlpstats_draws(seed: int, samples: int, n_sys: int, n_top: int, method: str):
    """The rows and columns nlpstats' bootstrap draws after np.random.seed(seed) (np.random.choice,
    rows then columns per sample)."""
    np.random.seed(seed)
    rows, cols = [], []
    for _ in range(samples):
        if method in ("systems", "both"):
            rows.append(np.random.choice(n_sys, n_sys, replace=True))
        if method in ("inputs", "both"):
            cols.append(np.random.choice(n_top, n_top, replace=True))
    return (np.array(rows) if rows else None), (np.array(cols) if cols else None)


def _nlpstats_swaps(seed: int, samples: int, n_sys: int, n_top: int, method: str):
    """The row and column swaps nlpstats' permutation test draws after np.random.seed(seed)."""
    np.random.seed(seed)
    rows, cols = [], []
    for _ in range(samples):
        if method in ("systems", "both"):
            rows.append(np.random.rand(n_sys, 1).reshape(n_sys) > 0.5)
        if method in ("inputs", "both"):
            cols.append(np.random.rand(1, n_top).reshape(n_top) > 0.5)
    return (np.array(rows) if rows else None), (np.array(cols) if cols else None)


@pytest.mark.slow
def test_bootstrap_within_monte_carlo_spread_and_replayed(realsumm):
    x, z = realsumm
    ref = table("nlpstats_bootstrap.tsv")
    stat = levels.statistic("system", "pearson")
    for method, rows in ref.groupby("resampling_method"):
        ours = resampling.bootstrap(x, z, stat, method, 10000, seed=14)
        replay = resampling.bootstrap(x, z, stat, method, 0, 0, indices=_nlpstats_draws(0, 10000, 24, 100, method))
        for end, got, replayed in (("lower", ours.lo, replay.lo), ("upper", ours.hi, replay.hi)):
            part = rows[rows.stat == end]
            assert (np.abs(got - by_metric(part, "mean")) <= 4 * by_metric(part, "sd")).all()
            np.testing.assert_allclose(replayed, by_metric(part), rtol=0, atol=1e-12)   # nlpstats' seed-0 stream


@pytest.mark.slow
def test_permutation_within_monte_carlo_spread_and_replayed(realsumm):
    x, z = realsumm
    stat = levels.statistic("system", "pearson")
    for row in table("nlpstats_permutation.tsv").itertuples():
        pair = [(METRICS.index(row.metric_x), METRICS.index(row.metric_y))]
        ours = resampling.permutation_test(x, z, pair, stat, row.permutation_method, 10000, seed=14).two_sided[0]
        # all-zero runs (sd 0): allow 4 binomial standard errors of a p below 1 / 10000
        spread = max(row.sd, np.sqrt(1e-4 * (1 - 1e-4) / 1e4))
        assert abs(ours - row.mean) <= 4 * spread
        masks = _nlpstats_swaps(0, 10000, 24, 100, row.permutation_method)
        replay = resampling.permutation_test(x, z, pair, stat, row.permutation_method, 0, 0, masks=masks)
        assert replay.two_sided[0] == row.value


# ----------------------------------------------------------------------------- nlpstats itself

@pytest.fixture(scope="module")
def nlpstats():
    try:
        from nlpstats import correlations
    except ImportError as e:
        require(str(e), "nlpstats 0.0.1")
    return correlations


def _small(seed: int):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(7, 9))
    x = z + rng.normal(scale=1.5, size=(3, 7, 9))
    x[2] = np.round(x[2])          # ties in a metric
    return x, z


def test_correlate_equals_nlpstats(nlpstats):
    x, z = _small(1)
    for level in levels.LEVELS:
        for coefficient in levels.COEFFICIENTS:
            theirs = [nlpstats.correlate(m, z, level, coefficient) for m in x]
            np.testing.assert_allclose(levels.correlate(x, z, level, coefficient), theirs, rtol=0, atol=1e-12)
    z[3, 2] = np.nan                  # nlpstats: system level uses nanmean
    theirs = [nlpstats.correlate(m, z, "system", "pearson") for m in x]
    np.testing.assert_allclose(levels.correlate(x, z, "system", "pearson"), theirs, rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("level", levels.LEVELS)
@pytest.mark.parametrize("method", ["systems", "inputs", "both"])
def test_bootstrap_and_permutation_replay_nlpstats(nlpstats, level, method):
    x, z = _small(2)
    stat = levels.statistic(level, "spearman")
    np.random.seed(5)
    theirs = nlpstats.bootstrap(x[0], z, level, "spearman", method, n_resamples=200)
    ours = resampling.bootstrap(x[:1], z, stat, method, 0, 0, indices=_nlpstats_draws(5, 200, 7, 9, method))
    assert (ours.lo[0], ours.hi[0]) == pytest.approx((theirs.lower, theirs.upper), abs=1e-12)
    # Pearson here: a rank statistic's permuted differences equal the observed one exactly in
    # theory, and which side rounding puts them on differs between implementations
    np.random.seed(6)
    theirs = nlpstats.permutation_test(x[0], x[1], z, level, "pearson", method, n_resamples=200)
    swaps = _nlpstats_swaps(6, 200, 7, 9, method)
    ours = resampling.permutation_test(x, z, [(0, 1)], levels.statistic(level, "pearson"), method, 0, 0, masks=swaps)
    assert ours.two_sided[0] == pytest.approx(theirs.pvalue, abs=1e-12)


def test_fisher_and_williams_equal_nlpstats(nlpstats):
    x, z = _small(3)
    for coefficient in levels.COEFFICIENTS:
        r = levels.correlate(x[0], z, "system", coefficient)
        assert levels.fisher_interval(r, 7, coefficient) == pytest.approx(
            tuple(nlpstats.fisher(x[0], z, "system", coefficient)), abs=1e-12)
    r = levels.correlate(x, z, "system", "pearson")
    sys_x = levels.weighted_means(x)
    r01 = float(levels.pearson(sys_x[0], sys_x[1]))
    # nlpstats' "greater" is our one-sided test on absolute correlations
    assert float(williams_test(abs(r[0]), abs(r[1]), abs(r01), 7)) == pytest.approx(
        nlpstats.williams_test(x[0], x[1], z, "system", "pearson", alternative="greater").pvalue, abs=1e-12)
