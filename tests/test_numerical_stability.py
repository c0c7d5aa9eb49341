"""Every statistic is right for any finite input (found by the fuzz suite): with scores of 1e300 and
-1e300 the sums of squares overflowed and the system-level r came out 0.000 where scipy gives
0.719. Each routine that centres, sums or squares is checked against scipy (or an exact reference)
on extreme values (1e300, -1e300, 1e-300, values near the largest double, 1e300 plus small noise,
sides of very different magnitude), and against itself: scaling a side by any power of two must
not change a single bit of the result (the scaling is exact, and ordinary data are left as they
are)."""
from __future__ import annotations

import itertools
import math
import statistics
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from metaeval.stages.factuality_protocols import pearson_interval
from metaeval.stats import ceiling, levels
from metaeval.stats.bootstrap import resampled_means, resampled_medians, weighted_pearson
from metaeval.stats.core import corrcoef, pearson
from metaeval.stats.correlation import column_correlations, point_correlations
from metaeval.stats.partial import group_sums, partial_correlation, residualise, williams_partial
from metaeval.stats.stable import ORDINARY, binary_scale, mean_of, median_of, nanmean, ordinary

RNG = np.random.default_rng(29)
BASE_X, BASE_Y = RNG.normal(size=12), RNG.normal(size=12)
BASE_Y += BASE_X                                        # correlated, r about 0.7


def extreme_cases():
    """(name, x, y): finite data on which a textbook formula overflows or underflows."""
    mixed = BASE_X.copy()
    mixed[0], mixed[1] = 1e300, -1e300                    # the case: one huge score each way
    near_max = np.sign(BASE_X) * (1.5 + np.abs(BASE_X)) * 1e307
    noisy = 1e300 * (1 + 1e-9 * BASE_X)                    # 1e300 plus small noise: centre before summing
    return [("pm1e300", mixed, BASE_Y), ("1e300", BASE_X * 1e300, BASE_Y), ("1e-300", BASE_X * 1e-300, BASE_Y),
            ("both_tiny", BASE_X * 1e-300, BASE_Y * 1e-300), ("near_max", near_max, BASE_Y * 1e300),
            ("noisy_1e300", noisy, BASE_Y), ("huge_and_tiny", BASE_X * 1e300, BASE_Y * 1e-300)]


CASES = extreme_cases()
IDS = [c[0] for c in CASES]


def close(a, b, rtol=1e-9):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=rtol, atol=1e-12, equal_nan=True)


# ----------------------------------------------------------------------------- the scaling itself

def test_ordinary_data_are_the_very_same_array_and_extreme_vectors_are_scaled_exactly():
    x = RNG.normal(size=(3, 10))
    same, e = binary_scale(x, axis=1)
    assert same is x and not e.any()
    x[1] *= 2.0**700
    scaled, e = binary_scale(x, axis=1)
    assert e.ravel().tolist() == [0, 700 + math.frexp(np.abs(x[1] / 2.0**700).max())[1], 0]
    assert np.array_equal(np.ldexp(scaled, e), x)                   # exact both ways
    assert 0.5 <= np.abs(scaled[1]).max() < 1
    row = x[0]
    assert ordinary(row) is row
    tiny = x[0] * 2.0**-900
    assert np.array_equal(np.ldexp(ordinary(tiny), binary_scale(tiny)[1]), tiny)
    assert ORDINARY == 64


@pytest.mark.parametrize("k, j", [(0, 0), (300, 0), (-300, 5), (900, -900), (65, -65), (1000, 1000)])
def test_scaling_a_side_by_a_power_of_two_changes_no_bit(k, j):
    """The exactness that keeps ordinary results bit for bit: r of 2^k x and 2^j y is r of x, y."""
    x, y = np.ldexp(BASE_X, k), np.ldexp(BASE_Y, j)
    assert pearson(x, y) == pearson(BASE_X, BASE_Y)
    w = np.arange(12) % 3 + 0.0
    assert pearson(x, y, w) == pearson(BASE_X, BASE_Y, w)
    assert corrcoef(x, y)[0, 1] == corrcoef(BASE_X, BASE_Y)[0, 1] == np.corrcoef(BASE_X, BASE_Y)[0, 1]
    xb, yb, wb = np.tile(x, (4, 1))[:, :, None], np.tile(y, (4, 1)), np.tile(w, (4, 1))
    ref = weighted_pearson(np.tile(BASE_X, (4, 1))[:, :, None], np.tile(BASE_Y, (4, 1)), wb)
    assert np.array_equal(weighted_pearson(xb, yb, wb), ref)
    xm = xb.copy()
    xm[0, 3] = np.nan                                               # the branch with missing values
    ref_m = np.tile(BASE_X, (4, 1))[:, :, None].copy()
    ref_m[0, 3] = np.nan
    assert np.array_equal(weighted_pearson(xm, yb, wb), weighted_pearson(ref_m, np.tile(BASE_Y, (4, 1)), wb),
                          equal_nan=True)


# ----------------------------------------------------------------------------- each routine against scipy

@pytest.mark.parametrize("name, x, y", CASES, ids=IDS)
def test_pearson_and_corrcoef_equal_scipy_on_extreme_values(name, x, y):
    expected = stats.pearsonr(x, y).statistic
    assert close(pearson(x, y), expected)
    assert close(pearson(y, x), expected)
    assert close(corrcoef(x, y)[0, 1], expected)
    assert close(corrcoef(np.vstack([x, y]).T, rowvar=False)[0, 1], expected)
    p, s, k, n = point_correlations(x, y)
    assert n == 12 and close(p, expected)
    assert close(s, stats.spearmanr(x, y).statistic) and close(k, stats.kendalltau(x, y).statistic)
    # weights repeat items; NaN items are left out
    w = np.arange(12) % 3 + 0.0
    rep = np.repeat(np.arange(12), w.astype(int))
    assert close(pearson(x, y, w), stats.pearsonr(x[rep], y[rep]).statistic)
    xn = x.copy()
    xn[5] = np.nan
    ok = ~np.isnan(xn)
    assert close(pearson(xn, y), stats.pearsonr(x[ok], y[ok]).statistic)


@pytest.mark.parametrize("name, x, y", CASES, ids=IDS)
def test_column_correlations_and_levels_equal_scipy_on_extreme_values(name, x, y):
    cols = np.stack([x, -x, x * 0.5], axis=1)
    p, s, k, n = column_correlations(cols, y[:, None])
    for c in range(3):
        assert close(p[c, 0], stats.pearsonr(cols[:, c], y).statistic), c
        assert close(s[c, 0], stats.spearmanr(cols[:, c], y).statistic), c
        assert close(k[c, 0], stats.kendalltau(cols[:, c], y).statistic), c
    assert close(levels.spearman(x, y), stats.spearmanr(x, y).statistic)
    assert close(levels.kendall(x, y), stats.kendalltau(x, y).statistic)
    assert close(levels.correlate(x[None, :, None], y[None, :, None], "global", "pearson"),
                 stats.pearsonr(x, y).statistic)


def test_system_level_means_do_not_overflow():
    """Systems' means over topics (levels, ceiling, the bootstrap's resampled means and medians):
    scores near the largest double sum beyond it, their mean does not."""
    grid = np.array([[1.7e308, 1.6e308, 1.5e308], [-1.7e308, 1.0, 2.0], [3.0, 4.0, 5.0], [1e308, 1e308, -1e308]])
    exact = [float(sum(map(Fraction, row)) / 3) for row in grid]
    assert close(levels.weighted_means(grid), exact, rtol=1e-15)
    assert close(nanmean(grid, axis=1), exact, rtol=1e-15)
    assert close(ceiling.system_scores(grid), exact, rtol=1e-15)
    c = np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]])
    drawn = [float((2 * Fraction(r[0]) + Fraction(r[2])) / 3) for r in grid]
    assert close(resampled_means(grid, c), np.column_stack([exact, drawn]), rtol=1e-15)
    medians = resampled_medians(grid, np.array([[1.0, 1.0, 0.0]]))[:, 0]
    assert close(medians, [float((Fraction(r[0]) + Fraction(r[1])) / 2) for r in grid], rtol=1e-15)
    assert mean_of([1.7e308, 1.7e308]) == 1.7e308 and median_of([1.7e308, 1.7e308, 0.0, 1.7e308]) == 1.7e308
    for values in ([0.1, 0.2, 0.7], [1.0, 2.0, 3.0, 10.0], [1e-320, 3e-320]):   # ordinary: as before
        assert mean_of(values) == math.fsum(values) / len(values)
        assert median_of(values) == statistics.median(values)


@pytest.mark.parametrize("name, x, y", CASES, ids=IDS)
def test_system_level_via_levels_and_ceiling_equal_scipy(name, x, y):
    grid_x, grid_y = np.stack([x, x], axis=1), np.stack([y, y], axis=1)     # 2 equal topics: exact means
    r = levels.correlate(grid_x, grid_y, "system", "pearson")
    assert close(r, stats.pearsonr(x, y).statistic)
    out = ceiling.slice_correlations(x[None, :, None], y[None, :, None])
    assert close(out[0, 0, 0, 0], stats.pearsonr(x, y).statistic)
    assert close(out[1, 0, 0, 0], stats.spearmanr(x, y).statistic)
    assert close(out[2, 0, 0, 0], stats.kendalltau(x, y).statistic)


@pytest.mark.parametrize("name, x, y", CASES, ids=IDS)
def test_the_bootstraps_weighted_pearson_equals_scipy_on_the_drawn_rows(name, x, y):
    w = np.array([[1, 2, 0, 1, 1, 3, 0, 1, 1, 1, 0, 1], [0, 1, 1, 1, 2, 1, 1, 0, 1, 1, 2, 1]], dtype=float)
    xb, yb = np.stack([x, x])[:, :, None], np.stack([y, y])
    r = weighted_pearson(xb, yb, w)
    xm = xb.copy()
    xm[:, 7] = np.nan                                                 # missing for one system
    rm = weighted_pearson(xm, yb, w)
    for b in range(2):
        rep = np.repeat(np.arange(12), w[b].astype(int))
        assert close(r[b, 0], stats.pearsonr(x[rep], y[rep]).statistic), b
        rep = rep[rep != 7]
        assert close(rm[b, 0], stats.pearsonr(x[rep], y[rep]).statistic), b
    # an undrawn system far larger than the drawn ones does not disturb them
    far = x.copy()
    far[2] = 1e308
    assert close(weighted_pearson(np.stack([far, far])[:, :, None], yb, w)[0, 0], r[0, 0])


def test_the_permutation_tests_standardise_extreme_grids_exactly():
    """The statistics stage's permutation tests standardise each grid ((x - mean) / sd): a grid
    of 1e300-scale scores gives the same standardised values, bit for bit, as the grid brought to
    order 1 by a power of two, and the same p-values."""
    from metaeval.stats.levels import statistic
    from metaeval.stats.resampling import permutation_test, standardise

    grids = RNG.normal(size=(2, 6, 5))
    grids[1] += grids[0]
    huge = np.ldexp(grids, np.array([1000, -1000])[:, None, None])
    assert np.array_equal(standardise(huge), standardise(grids))
    z = grids[0] + RNG.normal(size=(6, 5))
    args = ([[0, 1]], statistic("system", "pearson"), "both", 200, 3)
    got, expected = permutation_test(huge, z, *args), permutation_test(grids, z, *args)
    for field in ("delta", "greater", "less", "two_sided"):
        assert np.array_equal(getattr(got, field), getattr(expected, field)), field


def test_pairwise_system_tests_and_thresholds_for_extreme_scores():
    """Graham's pairwise system tests (t-test, Wilcoxon, Shapiro-Wilk: scale-free) give the same
    p-values on scores of 1e300 as on the same scores brought to order 1 by a power of two; the
    factuality threshold between scores near the largest double is finite and separates them."""
    from metaeval.stats.binary import best_threshold
    from metaeval.stats.pairwise import pairwise_tests

    scores = RNG.normal(size=(3, 10))
    scores[0] += 1
    plain, _ = pairwise_tests(["a", "b", "c"], scores, True, 0.05)
    for k in (1000, -1000):
        huge, _ = pairwise_tests(["a", "b", "c"], np.ldexp(scores, k), True, 0.05)
        assert [(t.p, t.winner) for t in huge] == [(t.p, t.winner) for t in plain]
    # consistent summaries score 1.6e308 and 1.7e308, inconsistent ones 1e308 and 1.5e308: the
    # midpoint 1.55e308 separates them (the sum 3.1e308 overflowed: the threshold was inf)
    assert best_threshold([1.7e308, 1.6e308, 1.5e308, 1e308], [1, 1, 0, 0]) == (1.5e308 / 2 + 1.6e308 / 2, 1.0)
    assert best_threshold([0.1, 0.3, 0.2, 0.5], [1, 1, 0, 0]) == (-0.9, 0.5)


def test_wilcoxon_verdicts_of_extreme_scores():
    """The agreement stage's Wilcoxon verdicts: the same p-values and directions for scores of
    1e300 as for the same scores brought to order 1, and their mean and median differences scaled
    back exactly (an opposite pair near the largest double has a difference beyond it: inf)."""
    from metaeval.stats.verdicts import paired_verdicts

    a, b = RNG.normal(size=(3, 8)), RNG.normal(size=(3, 8))
    a[0] += 2
    b[1, 3] = np.nan
    plain = paired_verdicts(a, b, 0.05, 5)
    huge = paired_verdicts(np.ldexp(a, 1000), np.ldexp(b, 1000), 0.05, 5)
    assert np.array_equal(huge.p, plain.p) and np.array_equal(huge.verdict, plain.verdict, equal_nan=True)
    assert np.array_equal(huge.mean_diff, np.ldexp(plain.mean_diff, 1000))
    assert np.array_equal(huge.median_diff, np.ldexp(plain.median_diff, 1000))
    opposite = paired_verdicts(np.full((1, 6), 1.7e308), np.full((1, 6), -1.7e308), 0.05, 5)
    assert opposite.verdict[0] == 1 and opposite.p[0] < 0.05 and np.isinf(opposite.mean_diff[0])


def _exact_residuals(v: np.ndarray, codes: np.ndarray) -> np.ndarray:
    f = [Fraction(float(a)) for a in v]
    means = {g: sum(f[i] for i in np.flatnonzero(codes == g)) / int((codes == g).sum()) for g in set(codes.tolist())}
    return np.array([float(f[i] - means[codes[i]]) for i in range(len(f))])


@pytest.mark.parametrize("name, x, y", CASES, ids=IDS)
def test_frank_partial_correlation_equals_scipy_of_exact_residuals(name, x, y):
    systems = np.array(list("aaabbbbcccdd"))
    codes = np.unique(systems, return_inverse=True)[1]
    rx, ry = _exact_residuals(x, codes), _exact_residuals(y, codes)
    scale = lambda v: v / np.abs(v).max()                        # noqa: E731 - scipy's own overflows too
    expected = stats.pearsonr(scale(rx), scale(ry)).statistic
    part = partial_correlation(x, y, systems)
    assert close(part.pearson, expected, rtol=1e-8)
    assert close(part.spearman, stats.spearmanr(rx, ry).statistic, rtol=1e-8)
    assert close(residualise(x, codes), rx, rtol=1e-12) or name == "noisy_1e300"
    pair = williams_partial(x, -x + 0.5 * np.abs(x).max() * np.sin(np.arange(12)), y, systems)
    assert close(pair.r_a, expected, rtol=1e-8) and np.isfinite(pair.p)
    lo, hi = pearson_interval(x, y, 200, 7, 0.95)
    assert np.isfinite(lo) and lo <= stats.pearsonr(x, y).statistic <= hi
    # the interval of the same scores brought to order 1 by a power of two (exact): the same bits
    assert (lo, hi) == pearson_interval(np.ldexp(x, -math.frexp(np.abs(x).max())[1]), y, 200, 7, 0.95)


# ----------------------------------------------------------------------------- end to end: Table 6

@pytest.mark.workflow
def test_table6_of_scores_of_1e300_and_minus_1e300_is_scipys(tmp_path):
    """The issue's case through the workflow: a score file with 1e300 on one line and -1e300 on
    another. Table 6 reported r = 0.000 [-0.083, 0.920] (marked optimal); now r is scipy's Pearson
    of the system means, inside its interval."""
    import yaml

    from conftest import simulation, snakemake
    from metaeval import tables
    from metaeval.data.datasets import folder_paths, write_dataset
    from metaeval.data.simulate import simulate

    ds = simulate(simulation(topics=4, systems=6, humans=2), "ext")
    write_dataset(ds, folder_paths(tmp_path / "input/ext"))
    judged = sorted(s.key for s in ds.summaries if s.key in ds.judgments)
    system_keys = sorted(s.key for s in ds.summaries if s.kind == "system")
    score = {k: sum(ds.judgments[k].values()) + 0.25 * (i % 3) for i, k in enumerate(judged)}
    score[system_keys[0]], score[system_keys[-1]] = 1e300, -1e300
    (tmp_path / "input/ext/metric_scores.tsv").write_text(
        "topic\tsummarizer\tmetric\tscore\n" + "".join(f"{t}\t{s}\tEXT\t{v!r}\n" for (t, s), v in score.items()))
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(yaml.safe_dump(
        {"datasets": {"ext": {"format": "canonical", "path": "input/ext"}},
         "rouge": {"measures": ["R1", "R2"], "stemming": [1], "stopwords_removed": [0]}, "sera": {"enabled": False},
         "correlation": {"bootstrap_samples": 200, "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]}}))
    snakemake(tmp_path, "--cores", "2", "results/ext/analysis/table6_file_metrics.md")
    corr = tables.read_tsv(tmp_path / "results/ext/analysis/correlations.tsv").to_dict("records")
    row = next(r for r in corr if r["variant"] == "EXT_A" and r["combination"] == "arithmetic")   # Table 6's
    human = tables.read_tsv(tmp_path / "results/ext/human/system_human.tsv")
    systems = sorted({s for _, s in system_keys})
    means = [float(sum(Fraction(score[k]) for k in system_keys if k[1] == s) / sum(k[1] == s for k in system_keys))
             for s in systems]
    human = human[human.combination == "arithmetic"].set_index("summarizer")
    h = human.loc[systems, "score"].astype(float).to_numpy()
    expected = stats.pearsonr(np.array(means) / 1e300, h).statistic
    r, lo, hi = (float(row[k]) for k in ("pearson", "pearson_lo", "pearson_hi"))
    assert r == pytest.approx(expected, abs=1e-12) and abs(r) > 0.01
    assert lo <= r <= hi and hi - lo < 2
    table6 = (tmp_path / "results/ext/analysis/table6_file_metrics.md").read_text(encoding="utf-8")
    assert f"| {expected:.3f} |" in table6, table6


def test_franks_williams_tests_of_extreme_scores():
    """The factuality stage's Williams tests on partial correlations (one residualisation shared by
    the metrics defined everywhere, else williams_partial): the same rows for metrics of 1e300 and
    of 1e-300 as for the same metrics brought to order 1 by a power of two."""
    from types import SimpleNamespace

    from metaeval.stages.factuality_protocols import williams_tests

    systems = np.array(list("aaabbbbcccdd"))
    h = BASE_Y + 0.3 * RNG.normal(size=12)
    a, b = BASE_X, -BASE_X + np.sin(np.arange(12))
    b_gap = b.copy()
    b_gap[4] = np.nan                                   # B not defined everywhere: williams_partial
    everything = np.ones(12, dtype=bool)
    for metric_b in (b, b_gap):
        plain = williams_tests("d", "all", "all", everything, SimpleNamespace(
            metrics={"A": a, "B": metric_b}, systems=systems), ["A", "B"], h)
        for k in (1000, -1000):
            scaled = williams_tests("d", "all", "all", everything, SimpleNamespace(
                metrics={"A": np.ldexp(a, k), "B": np.ldexp(metric_b, -k)}, systems=systems), ["A", "B"], h)
            assert scaled == plain, k
        assert all(np.isfinite(row[-1]) for row in plain)


@pytest.mark.parametrize("order", sorted(set(itertools.permutations(range(5)))))
def test_group_sums_are_the_exact_sums_rounded_in_every_order_of_the_members(order):
    """A plain sum keeps nothing below its largest term's last place: 1e300 + (-0.17) + (-1e300) is 0
    in one order and -0.17 in another (which order a BLAS kernel takes depends on the CPU). The
    group sums equal the exact sum (Fractions) rounded once, in every order of a group's members."""
    members = np.array([1e300, -1e300, -0.17, 0.3, 1e-5])[list(order)]
    values = np.concatenate([members, BASE_X[:4]])
    codes = np.array([1] * 5 + [0] * 4)
    expected = [float(sum(Fraction(float(v)) for v in values[codes == k])) for k in (0, 1)]
    assert group_sums(values, codes, 2).tolist() == expected
    # residualised: the exact residuals' order (and a batch gives each row's numbers)
    batch = residualise(np.vstack([values, values[::-1]]), np.vstack([codes, codes[::-1]])[0])
    assert np.array_equal(batch[0], residualise(values, codes))
    assert np.argsort(residualise(values, codes), kind="stable").tolist() == \
        np.argsort(_exact_residuals(values, codes), kind="stable").tolist()


def test_group_sums_of_ordinary_values_are_within_an_ulp_of_the_exact_sums():
    values = RNG.normal(size=(50, 40)) * np.exp(RNG.normal(scale=5, size=(50, 40)))
    codes = np.arange(40) % 3
    got = group_sums(values, codes, 3)
    exact = np.array([[float(sum(Fraction(float(v)) for v in row[codes == k])) for k in range(3)] for row in values])
    assert np.all(np.abs(got - exact) <= np.spacing(np.abs(exact)))
