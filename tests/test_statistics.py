"""The statistics beyond Graham 2015 against scipy, brute-force loops written here, and data with a known
truth (exchangeable metrics, a simulated model, an uninformative metric)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from metaeval.stats import core, kendall, levels, resampling
from metaeval.stats.williams import assign_clusters, optimal

SCIPY = {"pearson": lambda a, b: stats.pearsonr(a, b)[0], "spearman": lambda a, b: stats.spearmanr(a, b)[0],
         "kendall": lambda a, b: stats.kendalltau(a, b)[0]}


def _grids(seed: int, m: int = 3, s: int = 6, t: int = 8, missing: bool = True):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(s, t))
    x = z + rng.normal(size=(m, s, t))
    x[-1] = np.round(x[-1])                          # ties
    if missing:
        z[1, 2] = np.nan
        x[0, 4, 5] = np.nan
    return x, z


def _resampled_reference(x, z, level, coefficient, rows, cols):
    """The statistic of the explicitly drawn grid, with scipy, as nlpstats defines the levels."""
    x, z = x[rows][:, cols], z[rows][:, cols]
    f = SCIPY[coefficient]
    if level == "system":
        a, b = np.nanmean(x, axis=1), np.nanmean(z, axis=1)
        ok = ~np.isnan(a) & ~np.isnan(b)
        return f(a[ok], b[ok])
    if level == "global":
        ok = ~np.isnan(x) & ~np.isnan(z)
        return f(x[ok], z[ok])
    rs = []
    for k in range(x.shape[1]):
        ok = ~np.isnan(x[:, k]) & ~np.isnan(z[:, k])
        if ok.sum() >= 3 and np.ptp(x[ok, k]) > 0 and np.ptp(z[ok, k]) > 0:
            rs.append(f(x[ok, k], z[ok, k]))
    return np.mean(rs)


@pytest.mark.parametrize("level", levels.LEVELS)
@pytest.mark.parametrize("coefficient", levels.COEFFICIENTS)
def test_weighted_statistics_are_those_of_the_drawn_grid(level, coefficient):
    x, z = _grids(1)
    rng = np.random.default_rng(2)
    rows, cols = rng.integers(0, 6, (4, 6)), rng.integers(0, 8, (4, 8))
    sw, tw = resampling.counts(rows, 6), resampling.counts(cols, 8)
    got = levels.correlate(x, z, level, coefficient, sw[:, None], tw[:, None])      # (4 draws, 3 metrics)
    want = [[_resampled_reference(x[m], z, level, coefficient, rows[b], cols[b]) for m in range(3)] for b in range(4)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    plain = [_resampled_reference(x[m], z, level, coefficient, np.arange(6), np.arange(8)) for m in range(3)]
    np.testing.assert_allclose(levels.correlate(x, z, level, coefficient), plain, rtol=0, atol=1e-12)


def test_undefined_correlations():
    x, z = _grids(3, missing=False)
    x[1] = 2.0                                       # a constant metric
    assert np.isnan(levels.correlate(x, z, "system", "pearson")[1])
    assert np.isnan(levels.pearson(np.array([1.0, 2.0]), np.array([2.0, 1.0])))    # fewer than 3 items


def _brute_counts(x, y, eps):
    c = d = tx = ty = txy = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        if np.isnan(x[i]) or np.isnan(x[j]) or np.isnan(y[i]) or np.isnan(y[j]):
            continue
        xt, yt = abs(x[i] - x[j]) <= eps, y[i] == y[j]
        if xt and yt:
            txy += 1
        elif xt:
            tx += 1
        elif yt:
            ty += 1
        elif (x[i] - x[j]) * (y[i] - y[j]) > 0:
            c += 1
        else:
            d += 1
    return c, d, tx, ty, txy


def test_kendall_variants_against_brute_force_and_scipy():
    rng = np.random.default_rng(4)
    x, y = np.round(rng.normal(size=30) * 3) / 3, np.round(rng.normal(size=30))
    x[7] = np.nan
    for eps in (0.0, 0.34, 1.0):
        c, d, tx, ty, txy = _brute_counts(x, y, eps)
        n = c + d + tx + ty + txy
        assert kendall.tau(x, y, variant="23", epsilon=eps) == pytest.approx((c + txy - d - tx - ty) / n, abs=1e-15)
        assert kendall.tau(x, y, variant="acc23", epsilon=eps) == pytest.approx((c + txy) / n, abs=1e-15)
    ok = ~np.isnan(x)
    for name in ("b", "c"):
        assert kendall.tau(x, y, variant=name) == pytest.approx(stats.kendalltau(x[ok], y[ok], variant=name)[0], abs=1e-14)
    with pytest.raises(ValueError):
        kendall.tau(x, y, variant="c", epsilon=0.1)


def _brute_tie_calibration(groups, name):
    """Every candidate epsilon (0 and every metric difference), evaluated by the loops above."""
    candidates = sorted({0.0} | {abs(a[i] - a[j]) for a, _ in groups for i, j in itertools.combinations(range(len(a)), 2)})
    best = (-np.inf, None)
    for eps in candidates:
        values = []
        for a, b in groups:
            c, d, tx, ty, txy = _brute_counts(a, b, eps)
            n = c + d + tx + ty + txy
            values.append((c + txy - (d + tx + ty if name == "23" else 0)) / n)
        if np.mean(values) > best[0] + 1e-12:       # the smallest epsilon of the best value
            best = (np.mean(values), eps)
    return best


@pytest.mark.parametrize("name", ["23", "acc23"])
def test_tie_calibration_against_brute_force(name):
    rng = np.random.default_rng(5)
    z = np.round(rng.normal(size=(6, 4)))                 # human ties make epsilon > 0 pay
    x = (z + rng.normal(scale=0.8, size=(2, 6, 4))).round(1)
    value, eps = kendall.tie_calibration(x, z, "input", name)
    for m in range(2):
        want = _brute_tie_calibration([(x[m][:, t], z[:, t]) for t in range(4)], name)
        assert (value[m], eps[m]) == pytest.approx(want, abs=1e-12)
    value, eps = kendall.tie_calibration(x, z, "global", name)
    assert (value[0], eps[0]) == pytest.approx(_brute_tie_calibration([(x[0].ravel(), z.ravel())], name), abs=1e-12)
    assert eps.max() > 0


def test_pairwise_accuracy_and_kendall_like_by_hand():
    z = np.array([[3.0], [2.0], [2.0], [1.0]])
    x = np.array([[[0.9], [0.5], [0.5], [0.7]]])
    # pairs (0,1) (0,2) (0,3) agree; (1,2) tied in both agrees; (1,3) (2,3) disagree
    assert kendall.pairwise_accuracy(x, z)[0] == pytest.approx(4 / 6)
    # Kendall-like: the tied-in-both pair is discordant: (3 - 3) / 6
    assert kendall.kendall_like(x, z, "system")[0] == pytest.approx(0.0)
    # with thresh 1, the human-tied pair (1,2) is not counted: (3 - 2) / 5
    assert kendall.kendall_like(x, z, "system", thresh=1.0)[0] == pytest.approx(1 / 5)


def test_bootstrap_is_seeded_chunk_independent_and_undefined_gets_no_interval(monkeypatch):
    x, z = _grids(6)
    x[1] = 1.0
    stat = levels.statistic("input", "kendall")
    a = resampling.bootstrap(x, z, stat, "both", 300, seed=3)
    monkeypatch.setattr(resampling, "_BUDGET", 50)
    b = resampling.bootstrap(x, z, stat, "both", 300, seed=3)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert np.isnan(a.lo[1]) and np.isnan(a.hi[1]) and not np.isnan(a.lo[0])
    assert a.lo[0] <= a.point[0] <= a.hi[0]


@pytest.mark.parametrize("method", resampling.PERMUTATION)
def test_permutation_system_shortcut_equals_swapped_grids(method):
    x, z = _grids(7)
    stat = levels.statistic("system", "spearman")
    generic = lambda a, b, sys_w=None, top_w=None: stat(a, b, sys_w, top_w)   # noqa: E731 - no .level
    pairs = [(0, 1), (2, 0), (1, 2)]
    fast = resampling.permutation_test(x, z, pairs, stat, method, 400, seed=1)
    slow = resampling.permutation_test(x, z, pairs, generic, method, 400, seed=1)
    for field in ("delta", "greater", "less", "two_sided"):
        np.testing.assert_allclose(getattr(fast, field), getattr(slow, field), rtol=0, atol=1e-12)


def test_whole_system_swaps_give_each_metrics_system_means_swapped_by_hand():
    """With whole systems swapped, the permuted system means of both metrics of every pair are, by
    a loop over samples, pairs and systems, the other metric's mean over its defined topics where
    the system is swapped and the metric's own elsewhere (NaN without a defined topic)."""
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 5, 6))
    x[1, 2, :4] = np.nan
    x[3, 0] = np.nan                                           # a system without any topic
    pairs = np.array([(0, 1), (2, 3), (1, 3)])
    rows = rng.random((9, 5)) < 0.5
    ma, mb = resampling._swapped_system_means(x, pairs, rows, None)
    with np.errstate(invalid="ignore"):
        own = np.array([[np.nanmean(x[m, s]) if (~np.isnan(x[m, s])).any() else np.nan for s in range(5)]
                        for m in range(4)])
    for b in range(9):
        for k, (i, j) in enumerate(pairs):
            for s in range(5):
                want_a, want_b = (own[j, s], own[i, s]) if rows[b, s] else (own[i, s], own[j, s])
                np.testing.assert_array_equal([ma[b, k, s], mb[b, k, s]], [want_a, want_b])


def test_permutation_p_values_are_uniform_for_exchangeable_metrics():
    """Two metrics with the same noise around the human scores: under H0 the p-values are uniform
    (a permutation p-value without +1 is slightly anti-conservative: P(p <= a) ~ a + 1/samples)."""
    rng = np.random.default_rng(8)
    stat = levels.statistic("system", "pearson")
    ps = []
    for _ in range(150):
        z = rng.normal(size=(10, 1)) + rng.normal(size=(10, 15))
        x = z + rng.normal(scale=2.0, size=(2, 10, 15))
        ps.append(resampling.permutation_test(x, z, [(0, 1)], stat, "both", 200, seed=int(rng.integers(1 << 30))).two_sided[0])
    assert stats.kstest(ps, "uniform").pvalue > 0.001
    assert 0.01 <= np.mean(np.array(ps) <= 0.1) <= 0.2


def test_permutation_matrix_feeds_optimal_and_clusters():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(12, 1)) + 0.3 * rng.normal(size=(12, 20))
    x = np.stack([z + s * rng.normal(size=(12, 20)) for s in (0.1, 0.12, 3.0)])
    p = resampling.permutation_matrix(x, z, levels.statistic("system", "pearson"), "both", 500, seed=2)
    assert np.isnan(np.diag(p)).all()
    assert p[0, 2] < 0.01 and p[2, 0] > 0.99 and 0.05 < p[0, 1] < 0.95
    assert optimal(p, 0.05).tolist() == [True, True, False]
    assert assign_clusters(p, np.array([0, 1, 2]), 0.05).tolist() == [1, 1, 2]


def test_bootstrap_coverage_on_a_simulated_model():
    """Fixed systems with true means a (metric) and b (human); summaries add independent noise.
    BOOT-INPUTS of the system-level Pearson r should cover r(a, b) about 95 % of the time."""
    rng = np.random.default_rng(10)
    a = np.linspace(0, 1, 8)
    b = a + np.array([0.3, -0.2, 0.1, 0.25, -0.3, 0.0, 0.2, -0.1])
    truth = np.corrcoef(a, b)[0, 1]
    stat = levels.statistic("system", "pearson")
    hits = 0
    for k in range(120):
        x = a[:, None] + rng.normal(scale=0.5, size=(8, 60))
        z = b[:, None] + rng.normal(scale=0.5, size=(8, 60))
        bs = resampling.bootstrap(x[None], z, stat, "inputs", 400, seed=k)
        hits += bs.lo[0] <= truth <= bs.hi[0]
    assert 0.86 <= hits / 120 <= 0.995


def test_null_distribution():
    rng = np.random.default_rng(11)
    z = rng.normal(size=(10, 1)) + rng.normal(size=(10, 12))
    z[3, 4] = np.nan
    informative, noise = z + 0.5 * rng.normal(size=z.shape), rng.normal(size=z.shape)
    x = np.stack([np.nan_to_num(informative, nan=0.0), noise])
    shuffled = resampling.permute_within_inputs(z, 5, seed=1)
    for s in shuffled:                   # each input keeps its values and its missing summary
        assert np.array_equal(np.sort(s, axis=0), np.sort(z, axis=0), equal_nan=True)
    assert not np.array_equal(shuffled[0], z, equal_nan=True)
    null = resampling.null_distribution(x, z, levels.statistic("system", "pearson"), 500, seed=2)
    assert null.p[0] < 0.01 and null.p[1] > 0.01
    assert (null.quantiles[0] <= null.quantiles[1]).all() and null.quantiles.shape == (2, 2)
    acc = resampling.null_distribution(x, z, kendall.pairwise_accuracy_statistic(), 300, seed=2)
    assert 0.5 < acc.quantiles[0, 1] < 0.85        # chance accuracy is 1/2; its 95th percentile above


def test_null_p_values_of_uninformative_metrics_are_uniform():
    rng = np.random.default_rng(12)
    z = rng.normal(size=(8, 1)) + rng.normal(size=(8, 10))
    x = rng.normal(size=(200, 8, 10))
    null = resampling.null_distribution(x, z, levels.statistic("input", "pearson"), 400, seed=3)
    assert stats.kstest(null.p, "uniform").pvalue > 0.001


def test_winner():
    samples = np.array([[0.9, 0.8, 0.1], [0.7, 0.8, np.nan], [0.9, 0.9, 0.2], [0.95, 0.5, 0.3]])
    w = resampling.winner(samples, confidence=0.5)
    np.testing.assert_allclose(w.p_best, [(1 + 0 + 0.5 + 1) / 4, (0 + 1 + 0.5 + 0) / 4, 0])
    # ranks per sample: metric 0: 1, 2, 1, 1; metric 1: 2, 1, 1, 2; metric 2: 3, 3, 3, 3
    np.testing.assert_allclose(w.rank_lo, [np.percentile([1, 2, 1, 1], 25), np.percentile([2, 1, 1, 2], 25), 3])
    np.testing.assert_allclose(w.rank_hi, [np.percentile([1, 2, 1, 1], 75), np.percentile([2, 1, 1, 2], 75), 3])


def test_pair_counts_unweighted_equal_the_weighted_path_with_unit_weights():
    """pair_counts without weights (pairs i < j only, kinds from four masks) counts exactly what the
    weighted path counts with every weight 1 (whole numbers either way), with NaN, ties, signed
    zeros, a tie epsilon (also negative and per batch) and a y margin, over batches of rows."""
    rng = np.random.default_rng(3)
    for shape in ((300,), (4, 250), (3, 2, 60), (2,), (1,)):
        x = np.round(rng.normal(size=shape), 1)
        y = np.round(rng.normal(size=shape), 1)
        x[rng.random(shape) < 0.05] = np.nan
        y[rng.random(shape) < 0.05] = np.nan
        x[..., :3] = -0.0
        x[..., 3:5] = 0.0
        for epsilon, margin in ((0.0, 0.0), (0.1, 0.0), (0.0, 0.15), (-1.0, 0.0), (0.5, 0.3),
                                (np.full(shape[:-1] + (1, 1), 0.2), 0.0)):
            got = levels.pair_counts(x, y, None, epsilon, margin)
            want = levels.pair_counts(x, y, np.ones(shape[-1]), epsilon, margin)
            for g, w in zip(got, want):
                assert np.array_equal(g, w)


def test_sorted_pair_counts_equal_counting_every_pair_by_hand():
    """The O(n log n) counts (sort + inversions) against a plain double loop over the pairs, with
    ties on either side, NaN, signed zeros and integer ranks of many bits; and tau-b over 5,000
    items (the sorted path) against scipy's kendalltau."""
    import scipy.stats

    rng = np.random.default_rng(11)
    for trial in range(60):
        n = int(rng.integers(0, 70))
        x = rng.integers(0, int(rng.integers(1, 9)), n).astype(float) if trial % 2 else np.round(rng.normal(size=n), 1)
        y = rng.integers(0, int(rng.integers(1, 9)), n).astype(float) if trial % 3 else rng.normal(size=n)
        x[rng.random(n) < 0.1] = np.nan
        y[rng.random(n) < 0.1] = np.nan
        x[:2] = [-0.0, 0.0][:min(2, n)]
        want = [0, 0, 0, 0, 0]
        for i in range(n):
            for j in range(i + 1, n):
                dx, dy = x[i] - x[j], y[i] - y[j]
                if np.isnan(dx) or np.isnan(dy):
                    continue
                k = 4 if dx == 0 and dy == 0 else 2 if dx == 0 else 3 if dy == 0 else 0 if dx * dy > 0 else 1
                want[k] += 1
        assert core.sorted_pair_counts(x, y) == tuple(want)
    x = np.round(rng.normal(size=(3, 5000)), 2)
    y = rng.integers(1, 6, 5000).astype(float)
    want = [scipy.stats.kendalltau(row, y).statistic for row in x]
    np.testing.assert_allclose(levels.kendall(x, y), want, rtol=1e-13, atol=0)


def test_null_permutations_drawn_in_chunks_are_the_whole_stream():
    """Samples a:b of the within-input permutations (the generator advanced past the earlier ones)
    are rows a:b of the permutations drawn at once, whose keys are default_rng(seed).random; and
    the null distribution does not depend on its chunk size."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=(7, 9))
    z[2, 3] = z[5, 0] = np.nan
    whole = resampling.permute_within_inputs(z, 12, seed=4)
    parts = np.concatenate([resampling.permute_within_inputs(z, b - a, 4, start=a) for a, b in ((0, 5), (5, 6), (6, 12))])
    assert np.array_equal(whole, parts, equal_nan=True)
    keys = np.random.default_rng(4).random((12, 7, 9))     # the documented keys, sorted per input
    order = np.argsort(np.where(np.isnan(z), np.inf, keys), axis=1, kind="stable")
    first = np.argsort(np.isnan(z), axis=0, kind="stable")     # the systems with a score, in order
    for b in range(12):
        for t in range(9):
            m = int((~np.isnan(z[:, t])).sum())
            assert np.array_equal(whole[b, first[:m, t], t], z[order[b, :m, t], t])
    x = rng.normal(size=(3, 7, 9))
    stat = levels.statistic("system", "pearson")
    one = resampling.null_distribution(x, z, stat, 40, seed=4)
    old = resampling._BUDGET
    resampling._BUDGET = x.size * 3          # chunks of 3 samples
    try:
        chunked = resampling.null_distribution(x, z, stat, 40, seed=4)
    finally:
        resampling._BUDGET = old
    assert np.array_equal(one.samples, chunked.samples, equal_nan=True)


def test_gaussian_density_is_scipys_gaussian_kde():
    """The figure's density curve against scipy's gaussian_kde (Scott's bandwidth) itself."""
    from scipy.stats import gaussian_kde

    from metaeval.stats.core import gaussian_density

    rng = np.random.default_rng(2)
    grid = np.linspace(0, 1, 201)
    for n in (2, 7, 400):
        values = rng.beta(2, 5, n)
        np.testing.assert_allclose(gaussian_density(values, grid), gaussian_kde(values)(grid), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("rows", ["few", "many"])
def test_sorted_pair_counts_equal_the_pairwise_blocks(rows, monkeypatch):
    """From 200 items the counts come from sorting (numpy for a few unweighted rows, the compiled
    merge sort otherwise), below from comparing every pair in blocks: with NaN, signed zeros,
    ties and whole-number weights (draw counts, one per item or per row), the same numbers."""
    rng = np.random.default_rng(8)
    monkeypatch.setattr(levels, "_FEW_ROWS", 10 ** 6 if rows == "few" else 0)
    for shape in ((300,), (4, 250), (3, 2, 260)):
        x, y = np.round(rng.normal(size=shape), 1), np.round(rng.normal(size=shape), 1)
        x[rng.random(shape) < 0.05] = np.nan
        y[rng.random(shape) < 0.05] = np.nan
        x[..., :3], x[..., 3:5] = -0.0, 0.0
        for w in (None, rng.integers(0, 4, shape[-1]).astype(float), rng.integers(0, 3, shape).astype(float)):
            got = levels.pair_counts(x, y, w)
            with monkeypatch.context() as m:
                m.setattr(levels, "_SORTED_FROM", 10 ** 9)
                want = levels.pair_counts(x, y, w)
            for g, h in zip(got, want):
                assert np.array_equal(g, h)
