"""Calibration on known truth (metaeval.stats.calibration, metaeval.stages.calibration): the fit
recovers known variance components, the derived truth matches the generator, the tests' type-I
errors and the intervals' coverage are within binomial bands of their nominal values where theory
says they must be (and outside where the model says they cannot be), power grows with the
difference, the topics-needed logic, and the `calibration` target on the small scenario."""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import scenario, snakemake
from metaeval import outputs
from metaeval.options import ConfigError, Options
from metaeval.stages import calibration as stage
from metaeval.stats import calibration as cal

# A model like the one fitted to the default data set (arithmetic, R2_ST1_RS0_A_R / R1_ST1_RS0_A_R).
FITTED = cal.PairModel(mean_human=0.5, mean_metric=0.08, sd_human=0.118, sd_metric=0.041, r=0.776, kappa=0.74,
                       topic_var_human=2e-4, topic_var_metric=7e-5, topic_r_human_metric=-0.07, topic_r_metrics=0.7,
                       residual_var_human=0.0173, residual_var_metric=0.0023, residual_r_human_metric=0.43,
                       residual_r_metrics=0.61)
# kappa = 1: at dr = 0 the metrics share their system effects, so A and B are exchangeable summary by
# summary and every permutation scheme is exact.
EXCHANGEABLE = dataclasses.replace(FITTED, kappa=1.0)


def settings(**kw) -> cal.RunSettings:
    base = dict(systems=12, topics=10, replicates=300, differences=(), verdict_differences=(), permutation_samples=100,
                bootstrap_samples=0, confidence=0.95, alpha=0.05, min_topics=5, seed=11)
    return cal.RunSettings(**{**base, **kw})


def band(p: float, n: int) -> float:
    """Three binomial standard errors of a rate p over n replicates."""
    return 3 * math.sqrt(p * (1 - p) / n)


def rates(rows) -> dict[str, float]:
    return {r.test: r.rejections / r.replicates for r in rows}


# --------------------------------------------------------------------------- the model

def test_fit_recovers_known_components():
    """Grids drawn (here, with numpy's multivariate normal) from known Sigma_sys, Sigma_top,
    Sigma_res: the ANOVA estimates are within 4 Wishart standard errors, sqrt((s_ii s_jj + s_ij^2) / n)."""
    rng = np.random.default_rng(1)
    n_sys, n_top = 300, 200
    sys_ = np.array([[4.0, 1.5, 1.0], [1.5, 2.0, 0.8], [1.0, 0.8, 1.5]]) * 1e-2
    top = np.array([[1.0, 0.3, 0.2], [0.3, 0.5, 0.1], [0.2, 0.1, 0.6]]) * 1e-2
    res = np.array([[9.0, 2.0, 1.0], [2.0, 3.0, 1.2], [1.0, 1.2, 2.5]]) * 1e-2
    u = rng.multivariate_normal(np.zeros(3), sys_, n_sys)
    v = rng.multivariate_normal(np.zeros(3), top, n_top)
    w = rng.multivariate_normal(np.zeros(3), res, (n_sys, n_top))
    y = np.array([0.5, 0.2, 0.3])[:, None, None] + u.T[:, :, None] + v.T[:, None, :] + np.moveaxis(w, -1, 0)
    fit = cal.fit_components(y)
    for est, true, noise, n in ((fit.system, sys_, sys_ + res / n_top, n_sys - 1),
                                (fit.topic, top, top + res / n_sys, n_top - 1),
                                (fit.residual, res, res, (n_sys - 1) * (n_top - 1))):
        se = np.sqrt((np.outer(np.diag(noise), np.diag(noise)) + noise ** 2) / n)
        assert np.all(np.abs(est - true) <= 4 * se), (est, true, se)
    # the system-level correlation of the expected scores, from the recovered components
    assert cal.system_correlation(fit, math.inf, 1) == pytest.approx(1.5 / math.sqrt(4 * 2), abs=0.06)


def test_pair_model_from_components_reads_the_fit():
    c = cal.Components(np.array([0.5, 0.1, 0.2]), np.array([[4.0, 1.2, 1.0], [1.2, 1.0, 0.5], [1.0, 0.5, 1.0]]),
                       np.diag([1.0, 2.0, 3.0]), np.array([[9.0, 1.5, 0.0], [1.5, 1.0, 0.6], [0.0, 0.6, 4.0]]))
    m = cal.PairModel.from_components(c)
    assert (m.sd_human, m.sd_metric, m.r) == pytest.approx((2.0, 1.0, 1.2 / 2.0))
    # partial correlation of metrics 1 and 2 given the human: (0.5 - 1.2 * 1.0 / 4) / sqrt((1 - 0.36)(1 - 0.25))
    assert m.kappa == pytest.approx(0.2 / math.sqrt(0.64 * 0.75))
    assert (m.residual_r_human_metric, m.residual_r_metrics) == pytest.approx((0.5, 0.3))
    assert (m.topic_var_metric, m.topic_r_metrics) == pytest.approx((2.0, 0.0))


def test_truth_matches_the_generator():
    """rho(T) derived in closed form = the correlation of T-topic system means pooled over many
    simulated systems (centred within each replicate: the topic effects shift all systems alike);
    at T = 3 it is clearly below rho(inf), so confusing the two would fail."""
    delta, n_sys, n_top, reps = 0.3, 50, 3, 400
    means = []
    for i in range(reps):
        g = cal.simulate_grids(FITTED, delta, cal.draw(np.random.default_rng([5, i]), n_sys, n_top)).mean(axis=2)
        means.append(g - g.mean(axis=1, keepdims=True))
    m = np.concatenate(means, axis=1)
    observed = np.corrcoef(m)
    ta, tb = FITTED.truth(delta, n_top)
    tol = 3 * (1 - 0.6 ** 2) / math.sqrt(m.shape[1])            # ~3 standard errors of a correlation near 0.6
    assert observed[0, 1] == pytest.approx(ta, abs=tol)
    assert observed[0, 2] == pytest.approx(tb, abs=tol)
    assert FITTED.truth(delta, math.inf) == pytest.approx((0.776, 0.476))
    assert ta < 0.776 - 3 * tol


# --------------------------------------------------------------------------- error rates and power

def test_type_one_errors_within_a_binomial_band_when_the_metrics_are_exchangeable():
    s = settings()
    got = rates(cal.correlation_rejections(EXCHANGEABLE, 0.0, s))
    assert set(got) == {"williams", "perm_systems", "perm_inputs", "perm_both"}
    for test, rate in got.items():
        assert abs(rate - s.alpha) <= band(s.alpha, s.replicates), (test, rate)


def test_permuting_inputs_overrejects_when_equally_good_metrics_differ():
    """kappa < 1: equal true correlations but different system effects. Williams still holds alpha;
    PERM-INPUTS tests exchangeability of the two grids, so it rejects far more often."""
    s = settings()
    got = rates(cal.correlation_rejections(FITTED, 0.0, s))
    assert abs(got["williams"] - s.alpha) <= band(s.alpha, s.replicates)
    assert got["perm_inputs"] > s.alpha + band(s.alpha, s.replicates)


def test_power_increases_with_the_difference():
    s = settings(replicates=300, permutation_samples=0)
    williams = [rates(cal.correlation_rejections(FITTED, d, s))["williams"] for d in (0.0, 0.15, 0.3, 0.45)]
    assert all(a < b for a, b in zip(williams, williams[1:])), williams
    human = [rates(cal.verdict_rates(FITTED, d, s))["verdict_human"] for d in (0.0, 0.5, 1.0, 1.5)]
    assert all(a < b for a, b in zip(human, human[1:])), human


def test_human_verdicts_hold_alpha_when_the_true_means_are_equal():
    s = settings(replicates=1500, topics=20)
    got = rates(cal.verdict_rates(FITTED, 0.0, s))
    assert abs(got["verdict_human"] - s.alpha) <= band(s.alpha, s.replicates)
    # the metric's own true difference is not 0 when the humans' is (r < 1): it claims differences
    assert got["verdict_metric"] > s.alpha + band(s.alpha, s.replicates)


@pytest.mark.slow
def test_bootstrap_coverage_of_the_true_r():
    """BOOT-SYSTEMS covers rho_A(T) (what r estimates) within a band of 0.95 at 60 systems; at 5
    topics rho_A(T) = 0.704 is well below rho_A(inf) = 0.776, which it covers far less often; BOOT-INPUTS
    ignores the sampling of systems and undercovers."""
    s = settings(systems=60, topics=5, replicates=200, bootstrap_samples=200)
    cov = {c.method: c for c in cal.coverage(FITTED, s)}
    assert cov["systems"].true_t == pytest.approx(FITTED.truth(0.0, 5)[0])
    assert abs(cov["systems"].coverage_t - 0.95) <= band(0.95, s.replicates)
    assert cov["systems"].coverage_inf < 0.95 - band(0.95, s.replicates)
    assert cov["inputs"].coverage_t < 0.95 - band(0.95, s.replicates)
    assert cov["systems"].undefined == 0


def test_replicates_are_seeded_by_their_index():
    """Replicate i's data come from default_rng([seed, S, T, i]) alone: the same whatever the other
    replicates, so a run is reproducible and a longer run extends a shorter one."""
    a = cal.correlation_rejections(FITTED, 0.2, settings(replicates=30, permutation_samples=20))
    again = cal.correlation_rejections(FITTED, 0.2, settings(replicates=30, permutation_samples=20))
    longer = cal.correlation_rejections(FITTED, 0.2, settings(replicates=60, permutation_samples=20))
    assert [x.rejections for x in again] == [x.rejections for x in a]
    assert all(x.rejections <= y.rejections for x, y in zip(a, longer))
    g = cal.simulate_grids(FITTED, 0.2, cal.draw(np.random.default_rng([11, 12, 10, 3]), 12, 10))
    assert np.array_equal(g, cal.simulate_grids(FITTED, 0.2, cal.draw(cal.replicate_rng(11, 12, 10, 3), 12, 10)))


# --------------------------------------------------------------------------- topics needed

def test_topics_needed_on_a_hand_made_power_table():
    power = [  # (test, effect, size, topics, rate), deliberately out of order
        ("williams", "delta_r", 0.2, 40, 0.85), ("williams", "delta_r", 0.2, 10, 0.30),
        ("williams", "delta_r", 0.2, 20, 0.79), ("williams", "delta_r", 0.0, 10, 0.90),   # size 0: not a target
        ("williams", "delta_r", 0.1, 10, 0.20), ("williams", "delta_r", 0.1, 20, 0.50),
        ("perm_both", "delta_r", 0.2, 10, 0.80), ("perm_both", "delta_r", 0.2, 20, 0.70),  # exactly 0.8 counts
        ("verdict_human", "delta_sd", 0.5, 20, 0.95), ("verdict_human", "delta_sd", 0.5, 10, 0.1),
    ]
    assert cal.topics_needed(power, 0.8) == [("williams", "delta_r", 0.2, 40), ("williams", "delta_r", 0.1, None),
                                             ("perm_both", "delta_r", 0.2, 10),
                                             ("verdict_human", "delta_sd", 0.5, 20)]


# --------------------------------------------------------------------------- config

def test_calibration_config_defaults_and_checks():
    o = Options.from_config({"datasets": {"a": {"format": "simulated"}, "b": {"format": "simulated"}}})
    assert o.calibration.datasets == ("a", "b")
    assert o.calibration.main.replicates == 1000 and o.calibration.main.bootstrap_samples == 500
    assert o.calibration.grid.replicates == 300 and o.calibration.grid.bootstrap_samples == 0
    assert o.calibration.grid.topics is None and o.calibration.tables.topics_grid == (10, 20, 40, 80, 160)
    assert o.calibration.main.min_topics == 5
    sim = {"datasets": {"a": {"format": "simulated"}}}
    for extra, message in (({"datasets": ["nope"]}, "calibration.datasets[0]"),
                           ({"metrics": ["R2_ST1_RS0_M_R", "R1_ST1_RS0_A_R"]}, "calibration.metrics[0]"),
                           ({"metrics": ["R2_ST1_RS0_A_R", "R2_ST1_RS0_A_R"]}, "calibration.metrics"),
                           ({"systems": 3}, "calibration.systems")):
        with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
            Options.from_config({**sim, "calibration": extra})
    # whether the configuration computes the metrics is the calibration job's check (only `snakemake
    # calibration` runs it), so the target's settings never stop a main job
    Options.from_config({**sim, "calibration": {"metrics": ["R2_ST1_RS0_A_R", "R5_ST1_RS0_A_R"]}})


# --------------------------------------------------------------------------- the target

FAST = {  # the small scenario's simulated data set with one setting and two measures, tiny simulations
    "rouge": {"measures": ["R1", "R2"], "stemming": [1], "stopwords_removed": [0]},
    "bleu": {"enabled": False}, "sera": {"enabled": False}, "chrf": {"enabled": False},
    "correlation": {"baselines": ["R2_ST1_RS0_M_R"]},
    "sweeps": {"variants": ["R2_ST1_RS0_A_R"]}, "intervals": {"shown": ["R2_ST1_RS0_A_R"]},
    "calibration": {"topics_grid": [4, 8], "replicates": 40, "grid_replicates": 20, "permutation_samples": 20,
                    "bootstrap_samples": 20, "differences": [0.3], "verdict_differences": [1.0]},
}


def residual_var_human(run: Path) -> float:
    """The humans' per-summary residual variance recomputed from summary_human.tsv with pandas
    (two-way ANOVA without replication: rows = systems, columns = topics)."""
    h = pd.read_csv(run / "results/sim/human/summary_human.tsv", sep="\t")
    h = h[h["kind"] == "system"].pivot(index="summarizer", columns="topic", values="arithmetic").to_numpy()
    s, t = h.shape
    resid = h - h.mean(axis=1, keepdims=True) - h.mean(axis=0, keepdims=True) + h.mean()
    return float((resid ** 2).sum() / ((s - 1) * (t - 1)))


@pytest.mark.workflow
def test_calibration_target_on_the_small_scenario(tmp_path):
    cfg = scenario(tmp_path, extra=FAST)
    del cfg["datasets"]["tiny"]                       # too few systems for a model; only sim is calibrated
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "--cores", "2", "calibration")
    files = outputs.files("calibration", "sim")
    for path in [*files.values(), *outputs.files("calibration_main", "sim").values(),
                 *(outputs.file("calibration_grid", "rejections", "sim", topics=t) for t in (4, 8))]:
        assert (tmp_path / path).is_file(), path
    model = dict(pd.read_csv(tmp_path / outputs.file("calibration_model", "model", "sim"), sep="\t",
                             dtype=str)[["parameter", "value"]].itertuples(index=False, name=None))
    assert (model["systems"], model["topics"], model["metric_a"]) == ("5", "8", "R2_ST1_RS0_A_R")
    assert float(model["residual_var_human"]) == pytest.approx(residual_var_human(tmp_path), rel=1e-9)
    main = pd.read_csv(tmp_path / outputs.file("calibration_main", "rejections", "sim"), sep="\t")
    assert set(main["test"]) == set(cal.TESTS) and set(main["topics"]) == {8} and set(main["systems"]) == {5}
    assert np.allclose(main["rate"], main["rejections"] / main["replicates"])
    assert set(main["replicates"]) == {40}
    # the topics-needed table from the power table, recomputed here
    power = pd.read_csv(tmp_path / files["power"], sep="\t")
    needed = pd.read_csv(tmp_path / files["topics_needed_tsv"], sep="\t", keep_default_na=False)
    for row in needed.itertuples(index=False):
        sel = power[(power["test"] == row.test) & (power["size"] == row.size) & (power["rate"] >= 0.8)]
        expected = str(int(sel["topics"].min())) if len(sel) else "NA"
        assert row.topics_needed == expected, row
    # byte-stable: the main simulation and the tables again, in this process, give the same bytes
    o = Options.from_config(cfg).calibration
    model = stage.read_model(str(tmp_path / outputs.file("calibration_model", "model", "sim")))
    again = {k: str(tmp_path / "again" / Path(v).name) for k, v in
             {**outputs.files("calibration_main", "sim"), **files}.items()}
    (tmp_path / "again").mkdir()
    stage.write_run(stage.run(model, o.main), again)
    grid = [str(tmp_path / outputs.file("calibration_grid", "rejections", "sim", topics=t)) for t in (4, 8)]
    stage.write_tables(stage.gather(str(tmp_path / outputs.file("calibration_model", "model", "sim")),
                                    again["rejections"], again["coverage"], grid, o.tables), again)
    for key, path in {**outputs.files("calibration_main", "sim"), **files}.items():
        assert Path(again[key]).read_bytes() == (tmp_path / path).read_bytes(), key
