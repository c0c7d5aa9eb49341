"""What a score difference means: the pairs, the logistic curve through 1/2 (against statsmodels'
Logit and by hand), its thresholds, the bootstrap, and the across-data-set stage and its query."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from conftest import snakemake
from metaeval.stats import delta_curve as dc
from metaeval.records import DeltaOptions, DeltaQuery
from metaeval.stages import delta


def test_pairs_by_hand():
    # three systems: metric 0.1, 0.3, 0.2; humans 1, 3, 3 (b and c tied)
    dm, dh, d, agree = dc.pair_deltas(np.array([[0.1, 0.3, 0.2]]), np.array([[1.0, 3.0, 3.0]]))
    np.testing.assert_allclose(dm[0], [-0.2, -0.1, 0.1])          # pairs (a, b), (a, c), (b, c)
    np.testing.assert_allclose(d[0], [0.2, 0.1, 0.1])
    np.testing.assert_array_equal(dh[0], [-2.0, -2.0, 0.0])
    assert agree[0, 0, 0] == 1 and agree[0, 0, 1] == 1 and np.isnan(agree[0, 0, 2])   # humans tie b, c
    _, _, _, tied = dc.pair_deltas(np.array([[0.1, 0.1]]), np.array([[1.0, 2.0]]))
    assert np.isnan(tied[0, 0, 0])                                # the metric ties: no verdict


def test_fit_by_hand_two_pairs():
    """Two pairs at delta 1 (one agrees, one not) and two at delta 2 (both agree): the likelihood
    sigma(b) (1 - sigma(b)) sigma(2b)^2 is maximal where its derivative
    (1 - 2 sigma(b)) + 4 (1 - sigma(2b)) = 0; with s = sigma(b): 1 - 2 s + 4 (1 - s)^2 / (1 - 2 s + 2 s^2) = 0,
    i.e. 1 - 2s + 2s^2 - 2s + 4s^2 - 4s^3 + 4 - 8s + 4s^2 = 0 -> -4 s^3 + 10 s^2 - 12 s + 5 = 0."""
    fit = dc.fit_logistic(np.array([1.0, 1.0, 2.0, 2.0]), np.array([1.0, 0.0, 1.0, 1.0]))
    s = 1 / (1 + math.exp(-fit.b[0]))
    assert -4 * s ** 3 + 10 * s ** 2 - 12 * s + 5 == pytest.approx(0, abs=1e-12)
    # the root of that cubic in (1/2, 1), by bisection: s = 0.6925...
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if -4 * mid ** 3 + 10 * mid ** 2 - 12 * mid + 5 > 0 else (lo, mid)
    assert s == pytest.approx(lo, abs=1e-12)
    b = math.log(lo / (1 - lo))
    # thresholds: logit(q) / b, within the observed deltas (at most 2)
    th = dc.thresholds(fit, [0.8, 0.9, 0.95], 2.0)[0]
    assert th[0] == pytest.approx(math.log(4) / b, abs=1e-9)           # 1.7086...
    assert np.isnan(th[1]) and np.isnan(th[2])                       # beyond delta 2: never reached in the data
    assert dc.accuracy_at(fit, 1.5)[0] == pytest.approx(1 / (1 + math.exp(-1.5 * b)), abs=1e-12)


def test_fit_equals_statsmodels_logit():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 0.05, 60)
    y = (rng.uniform(size=60) < 1 / (1 + np.exp(-80 * x))).astype(float)
    ours = dc.fit_logistic(x, y)
    theirs = sm.Logit(y, x[:, None]).fit(disp=0, tol=1e-12).params[0]
    assert ours.converged[0] and ours.b[0] == pytest.approx(theirs, rel=1e-8)


def test_separated_pairs_give_a_step():
    fit = dc.fit_logistic(np.array([[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]), np.array([[1.0, 1, 1], [0.0, 0, 0]]))
    assert fit.b[0] == np.inf and fit.b[1] == -np.inf and not fit.converged.any()
    np.testing.assert_array_equal(dc.accuracy_at(fit, np.array([0.0, 0.1]))[0], [0.5, 1.0])
    th = dc.thresholds(fit, [0.8], 0.3)
    assert th[0, 0] == 0.0 and np.isnan(th[1, 0])


def test_bootstrap_weights_are_the_drawn_pairs():
    x = np.array([0.01, 0.02, 0.03, 0.05, 0.08, 0.1])
    y = np.array([0.0, 1, 0, 1, 1, 1])
    boot = dc.bootstrap_fits(x, y, 4, seed=11)
    draws = np.random.default_rng(11).integers(0, 6, size=(4, 6))
    for b in range(4):
        again = dc.fit_logistic(x[draws[b]], y[draws[b]])       # the drawn pairs themselves, repeated
        if np.isinf(again.b[0]):                                 # every drawn pair agrees
            assert boot.b[b] == again.b[0]
        else:
            assert boot.b[b] == pytest.approx(again.b[0], rel=1e-9)
    lo, hi = dc.interval(np.array([[1.0], [np.nan], [2.0], [3.0]]), 0.5)
    assert lo[0] == pytest.approx(1.75) and np.isnan(hi[0])         # NaN = not reached: +infinity


def pairs_frame(rows):
    return pd.DataFrame(rows, columns=["dataset", "variant", "target", "delta", "agree"])


def test_stage_pools_the_data_sets_and_answers():
    rows = [("a", "M", "t", d, y) for d, y in ((1.0, 1), (1.0, 0), (2.0, 1))] + [("b", "M", "t", 2.0, 1.0)]
    rows += [("b", "N", "t", 0.5, 0.0)]
    o = DeltaOptions(("M",), (0.8, 0.9), 50, 3, 0.95)
    r = delta.compute(pairs_frame(rows), o)
    m = next(x for x in r.thresholds if x["variant"] == "M")
    assert m["datasets"] == "a,b" and m["n_pairs"] == 4 and m["n_agree"] == 3
    b = dc.fit_logistic(np.array([1.0, 1, 2, 2]), np.array([1.0, 0, 1, 1])).b[0]
    assert m["slope"] == pytest.approx(b, rel=1e-12)
    assert m["threshold_80"] == pytest.approx(math.log(4) / b, rel=1e-9) and np.isnan(m["threshold_90"])
    n = next(x for x in r.thresholds if x["variant"] == "N")
    assert n["slope"] == -np.inf and np.isnan(n["threshold_80"])
    q = DeltaQuery("M", 1.5, None, 50, 3, 0.95)
    (ans,) = delta.answer(pairs_frame(rows), q)
    assert ans["agreement"] == pytest.approx(1 / (1 + math.exp(-1.5 * b)), abs=1e-12)
    assert ans["within_observed"] == "yes" and ans["lo"] <= ans["agreement"] <= ans["hi"]
    # the query's interval is the curves job's at the same delta (same draws)
    grid = r.curves[(r.curves["variant"] == "M")]
    at2 = delta.answer(pairs_frame(rows), q._replace(value=2.0))[0]
    last = grid.iloc[-1]
    assert last["delta"] == 2.0 and (at2["lo"], at2["hi"]) == (last["lo"], last["hi"])


def test_query_errors_name_the_key():
    with pytest.raises(ValueError, match="delta.metric"):
        delta.answer(pairs_frame([]), DeltaQuery(None, None, None, 10, 1, 0.95))
    with pytest.raises(ValueError, match="config key delta.metric: 'X'"):
        delta.answer(pairs_frame([("a", "M", "t", 1.0, 1.0)]), DeltaQuery("X", 0.1, None, 10, 1, 0.95))


@pytest.mark.workflow
def test_query_in_the_workflow(small_run):
    """The small scenario writes each data set's SPA and pairs and the pooled thresholds; asking for
    results/all/delta.tsv answers with the agreement of statsmodels' Logit on the pooled pairs."""
    sm = pytest.importorskip("statsmodels.api")
    res = small_run / "results"
    spa = pd.read_csv(res / "sim/soft_pairwise/soft_pairwise_accuracy.tsv", sep="\t")
    assert {"variant", "target", "spa", "lo", "hi", "n_systems", "n_pairs"} <= set(spa.columns)
    assert spa["spa"].between(0, 1).all() and (spa["n_pairs"] == 10).all()
    th = pd.read_csv(res / "all/delta_thresholds.tsv", sep="\t")
    assert {"threshold_80", "threshold_90", "threshold_95"} <= set(th.columns)
    assert (res / "all/delta/figure_R2_ST1_RS0_A_R.png").exists()
    snakemake(small_run, "--cores", "1", "results/all/delta.tsv", "--config",
              "delta={metric: R2_ST1_RS0_A_R, value: 0.05, target: arithmetic}")
    ans = pd.read_csv(res / "all/delta.tsv", sep="\t")
    pairs = pd.concat([pd.read_csv(res / f"{d}/soft_pairwise/pair_deltas.tsv", sep="\t") for d in ("sim", "tiny")])
    mine = pairs[(pairs["variant"] == "R2_ST1_RS0_A_R") & (pairs["target"] == "arithmetic")].dropna(subset=["agree"])
    b = sm.Logit(mine["agree"].to_numpy(), mine[["delta"]].to_numpy()).fit(disp=0, tol=1e-12).params[0]
    assert len(ans) == 1 and ans["n_pairs"][0] == len(mine)
    assert ans["agreement"][0] == pytest.approx(1 / (1 + math.exp(-0.05 * b)), rel=1e-6)
    bad = snakemake(small_run, "--cores", "1", "results/all/delta.tsv", "--config", "delta={metric: R2_ST1_RS0_A_R, value: -1}",
                    check=False)
    assert bad.returncode != 0 and "config key delta.value" in bad.stdout + bad.stderr


def test_no_pairs_gives_empty_tables_and_a_figure_that_says_so(tmp_path):
    from metaeval import outputs

    o = DeltaOptions(("M",), (0.8,), 10, 1, 0.95)
    r = delta.compute(pairs_frame([]), o)
    assert r.thresholds == [] and len(r.curves) == 0
    out = {k: str(tmp_path / v.split("/", 2)[2]) for k, v in outputs.files("delta", "all", variant=["M"]).items()}
    (tmp_path / "delta").mkdir()
    delta.write(r, out)
    assert (tmp_path / "delta/figure_M.png").exists()
    assert (tmp_path / "delta_thresholds.tsv").read_text().startswith("variant\ttarget\t")
