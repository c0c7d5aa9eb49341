"""The statistics core (metaeval.stats.core) against scipy and numpy, and the rule that every
stage calls it rather than a copy of its own."""

import pathlib
import re

import numpy as np
import pytest
from scipy import stats

from metaeval.stats import core

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "metaeval"


def test_pearson_is_scipys_over_the_defined_items_and_weights_repeat_items():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 30)), rng.normal(size=30)
    x[1, 5] = np.nan
    for k in range(4):
        ok = ~np.isnan(x[k])
        assert core.pearson(x, y)[k] == pytest.approx(stats.pearsonr(x[k, ok], y[ok])[0], abs=1e-12)
    w = rng.integers(0, 4, size=30).astype(float)
    rep = np.repeat(np.arange(30), w.astype(int))
    assert core.pearson(x[0], y, w) == pytest.approx(stats.pearsonr(x[0, rep], y[rep])[0], abs=1e-12)
    # along another axis, the same numbers
    assert np.array_equal(core.pearson(x.T, y[:, None], axis=0)[[0, 2, 3]], core.pearson(x, y)[[0, 2, 3]])


def test_pearson_of_vectors_with_and_without_missing_items_has_the_all_weighted_bits():
    """Where only some vectors miss an item, the complete ones go the plain route and the others the
    weighted one: every value equals, bit for bit, the weighted route for all (unit weights), and
    scipy's r on the defined items; also with extreme magnitudes, constant and short vectors, a
    tolerance, and y broadcast from one vector or from full shape."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(7, 9, 16))
    x[2, 3, 5] = x[6, 0, 0] = np.nan
    x[4, 1] = np.nan                                           # a vector with no item
    x[1, 2, :14] = np.nan                                      # two items left
    x[3, 4] = 1e300 * rng.normal(size=16)                     # scaled by a power of two
    x[5, 5] = 2.0                                              # constant
    for y in (rng.normal(size=16), rng.normal(size=(7, 9, 16))):
        for tolerance in (0.0, 1e-12):
            got = core.pearson(x, y, tolerance=tolerance)
            weighted = core.pearson(x, y, np.ones(16), tolerance=tolerance)
            assert np.array_equal(got, weighted, equal_nan=True)
        yb = np.broadcast_to(y, x.shape)
        for k in [(0, 0), (2, 3), (3, 4), (6, 8)]:
            ok = ~np.isnan(x[k])
            assert got[k] == pytest.approx(stats.pearsonr(x[k][ok], yb[k][ok])[0], abs=1e-12)
        assert np.isnan(got[4, 1]) and np.isnan(got[1, 2]) and np.isnan(got[5, 5])
    # vectors contiguous but the other axes in another order in memory (as numpy's where leaves a
    # product's axes): the same bits
    other = np.ascontiguousarray(np.moveaxis(x, 1, 0)).swapaxes(0, 1)
    assert not other.flags.c_contiguous and core._rows_split_exactly(other, y, other.shape, -1)
    assert np.array_equal(core.pearson(other, y), core.pearson(other, y, np.ones(16)), equal_nan=True)
    # along a middle axis (no split): the same numbers as along the last
    assert np.array_equal(core.pearson(np.moveaxis(x, 2, 1), y[:, :, None] if y.ndim == 1 else np.moveaxis(y, 2, 1),
                                       axis=1), core.pearson(x, y), equal_nan=True)


def test_pearson_against_one_side_has_pearsons_bits():
    """Many x against one y with y's side computed once: bit for bit pearson(x, y) along the same
    axis, for x and y with and without missing items, constant and extreme vectors, and scipy's r."""
    rng = np.random.default_rng(9)
    y = rng.normal(size=(6, 12, 5))
    y[2, :, 1] = 3.0                                           # constant
    y[4, :, 3] = 1e300 * rng.normal(size=12)
    xs = [rng.normal(size=(1, 12, 5)) for _ in range(3)]
    xs[1][0, 4, 2] = np.nan
    for target in (y, np.where(np.arange(12)[:, None] == 7, np.nan, y)):
        against = core.pearson_against(target, axis=1)
        for x in xs:
            assert np.array_equal(against(x), core.pearson(x, target, axis=1), equal_nan=True)
    r = core.pearson_against(y, axis=1)(xs[0])
    assert r[0, 0] == pytest.approx(stats.pearsonr(xs[0][0, :, 0], y[0, :, 0])[0], abs=1e-12)
    assert np.isnan(r[2, 1])


def test_pearson_is_undefined_with_fewer_than_3_items_or_a_constant_side():
    assert np.isnan(core.pearson([1.0, 2.0], [2.0, 1.0]))
    assert np.isnan(core.pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert np.isnan(core.pearson([1.0, 2.0, np.nan, 4.0], [1.0, 2.0, 3.0, np.nan]))
    # residuals that are zero up to rounding: undefined only with a tolerance
    noise = np.array([1e-17, -2e-17, 1e-17, 0.0])
    assert np.isfinite(core.pearson(noise, [1.0, 2.0, 3.0, 5.0]))
    assert np.isnan(core.pearson(noise, [1.0, 2.0, 3.0, 5.0], tolerance=1e-12))


@pytest.mark.parametrize("method", ["average", "min"])
def test_ranks_are_scipys_rankdata_and_weights_repeat_items(method):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 5, size=(6, 40)) / 3
    assert np.array_equal(core.ranks(a, method=method), stats.rankdata(a, axis=-1, method=method))
    assert np.array_equal(core.ranks(a.T, axis=0, method=method), stats.rankdata(a.T, axis=0, method=method))
    w = rng.integers(1, 4, size=40).astype(float)
    rep = np.repeat(np.arange(40), w.astype(int))
    first = np.searchsorted(rep, np.arange(40))        # each item's first copy in the repeated data
    expected = stats.rankdata(a[0, rep], method=method)[first]
    if method == "average":
        assert np.array_equal(core.ranks(a[0], w=w), expected)
    else:
        assert np.array_equal(core.ranks(a[0], w=w, method=method), expected)


@pytest.mark.parametrize("method", ["average", "min"])
def test_ranks_without_weights_equal_the_weighted_path_with_unit_weights(method):
    """The unweighted ranks (one pass over the runs of all rows) are the weighted path's with every
    weight 1, bit for bit: ties, NaN (each its own value, last), infinities, any axis, one item,
    empty rows."""
    rng = np.random.default_rng(5)
    for _ in range(100):
        shape = tuple(rng.integers(1, 9, rng.integers(1, 4)))
        a = np.round(rng.normal(size=shape), int(rng.integers(0, 3)))
        a[rng.random(shape) < 0.1] = np.nan
        a[rng.random(shape) < 0.05] = np.inf
        for axis in range(a.ndim):
            assert np.array_equal(core.ranks(a, axis, method=method),
                                  core.ranks(a, axis, w=np.ones(a.shape), method=method), equal_nan=True)
    assert core.ranks(np.empty((3, 0)), method=method).shape == (3, 0)
    assert np.array_equal(core.ranks([[2.0], [1.0]], axis=0, method=method), [[2.0], [1.0]])


def test_bootstrap_samples_do_not_depend_on_the_chunk_and_the_interval_is_numpys_percentiles():
    x = np.random.default_rng(2).normal(size=(5, 12))
    drawn = core.draws(3, 50, 5, 12, "both")

    def mean_of_draws(rows, cols, start, stop):
        return np.stack([x[r][:, c].mean() for r, c in zip(rows, cols)])

    a = core.bootstrap(mean_of_draws, drawn, 7)
    assert np.array_equal(a, core.bootstrap(mean_of_draws, drawn, 50))
    tail = (1 - 0.9) / 2 * 100
    assert core.percentile_interval(a, 0.9) == (np.percentile(a, tail), np.percentile(a, 100 - tail))
    assert core.paired_bootstrap_p(a, a) == 1.0 and core.paired_bootstrap_p(a + 1, a) == 0.0


def test_percentile_interval_equals_numpys_nanpercentile_column_by_column():
    """The vectorised pass over columns without NaN and nanpercentile over the others give, bit for
    bit, what numpy's nanpercentile gives for every column (2-D and 3-D samples; some NaN, all NaN,
    none; ties; one sample)."""
    rng = np.random.default_rng(11)
    cases = [rng.normal(size=(1000, 40)), rng.integers(0, 5, size=(999, 7)).astype(float),
             rng.normal(size=(200, 3, 5)), rng.normal(size=(1, 6))]
    cases[0][rng.random((1000, 40)) < 0.002] = np.nan
    cases[0][:, 3] = np.nan
    cases[2][rng.random((200, 3, 5)) < 0.01] = np.nan
    import warnings

    for samples in cases:
        for confidence in (0.95, 0.9, 0.5, 0.999):
            tail = (1 - confidence) / 2 * 100
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                expected = (np.nanpercentile(samples, tail, axis=0), np.nanpercentile(samples, 100 - tail, axis=0))
            got = core.percentile_interval(samples, confidence)
            for g, e in zip(got, expected):
                assert g.shape == e.shape
                assert np.array_equal(g, e, equal_nan=True)


def test_no_stage_or_stats_module_defines_its_own_pearson_ranks_or_percentile_interval():
    """Average ranks and the percentile interval are computed in metaeval.stats.core only, and the
    Pearson routines it replaced are gone; bootstrap.weighted_pearson keeps the correlation stage's
    own arithmetic (see metaeval.stats.core's docstring)."""
    found = []
    for path in SRC.rglob("*.py"):
        if path.name == "core.py":
            continue
        text = path.read_text()
        found += [f"{path.name}: {m}" for m in re.findall(
            r"np\.(?:nan)?percentile\(|rankdata\(|def (?:pearson|pearson_rows|_pearson_with|midranks|row_ranks)\(", text)]
    assert not found, found
