"""Correlations and the bootstrap: against scipy, seeded, with undefined cases reported."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metaeval.analysis import Inputs, analyse
from metaeval.correlation import PerSummary, bootstrap_pearson, pearson_columns, point_correlations


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


def _inputs(n_sys=6, n_top=8, seed=0, constant=False):
    rng = np.random.default_rng(seed)
    quality = np.linspace(0, 1, n_sys)
    human = quality[:, None] + rng.normal(0, 0.1, (n_sys, n_top))
    good = quality[:, None] + rng.normal(0, 0.1, (n_sys, n_top))
    bad = rng.normal(0, 0.1, (n_sys, n_top))
    rouge = {("R1", 0, 0, "R"): good, ("R2", 0, 0, "R"): np.full_like(bad, 0.5) if constant else bad}
    ps = PerSummary([str(i) for i in range(n_sys)], [f"t{t}" for t in range(n_top)], rouge, {}, {"arithmetic": human})
    variants = ["R1_ST0_RS0_A_R", "R2_ST0_RS0_A_R"]
    sys_metric = np.stack([good.mean(1), rouge[("R2", 0, 0, "R")].mean(1)], axis=1)
    return Inputs(ps.systems, ["system"] * n_sys, variants, sys_metric, ["arithmetic"], human.mean(1)[:, None], ps)


@pytest.mark.parametrize("resample", ["systems", "topics", "both"])
def test_bootstrap_is_seeded(resample):
    inp = _inputs()
    args = (inp.per_summary, inp.variants, inp.combinations, inp.system_metric, inp.system_human, 200, resample)
    lo1, hi1 = bootstrap_pearson(*args, seed=7)
    lo2, hi2 = bootstrap_pearson(*args, seed=7)
    lo3, _ = bootstrap_pearson(*args, seed=8)
    assert np.array_equal(lo1, lo2) and np.array_equal(hi1, hi2) and not np.array_equal(lo1, lo3)
    r = point_correlations(inp.system_metric[:, 0], inp.system_human[:, 0])[0]
    assert lo1[0, 0] <= r <= hi1[0, 0]


def test_analysis_reports_constant_metric_and_too_few_systems():
    res = analyse(_inputs(constant=True), 50, "both", 1, 0.95, 0.05, None)
    rows = {r["variant"]: r for r in res.rows}
    assert np.isnan(rows["R2_ST0_RS0_A_R"]["pearson"]) and rows["R2_ST0_RS0_A_R"]["optimal"] == "NA"
    assert rows["R1_ST0_RS0_A_R"]["optimal"] == "yes" and rows["R1_ST0_RS0_A_R"]["cluster"] == "1"
    assert any(k == "constant_metric" and "R2_ST0_RS0_A_R" in v for k, v in res.notes)
    few = analyse(_inputs(n_sys=3), 20, "both", 1, 0.95, 0.05, None)
    assert any(k == "williams_undefined" for k, _ in few.notes)
    assert all(r["optimal"] == "NA" for r in few.rows)
    perfect = _inputs()
    perfect.system_metric[:, 0] = perfect.system_human[:, 0]  # |r| = 1 is handled, not a crash
    assert analyse(perfect, 20, "systems", 1, 0.95, 0.05, None).rows[0]["pearson"] == pytest.approx(1.0)
