"""The statistics stage on the small scenario (.test/config/config.yaml, run once per
session): its files exist, and its values equal independent computations from the tables the
workflow wrote - scipy and plain loops over the samples, replaying the seeded draws, never the
functions under test."""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval import outputs
from metaeval.options import Options

pytestmark = pytest.mark.workflow
OPTIONS = Options.from_config({"datasets": {"sim": {"format": "simulated"}}}).statistics   # the defaults


def tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def grids(run: Path):
    """(systems, topics, per-summary metric -> (S, T), arithmetic human (S, T), system scores by
    variant, system arithmetic human) of the sim data set, from its TSVs with pandas."""
    d = run / "results/sim"
    hu = tsv(d / "human/summary_human.tsv")
    sh = tsv(d / "human/system_human.tsv")
    systems = sorted(sh[sh.kind == "system"].summarizer.unique())
    topics = sorted(hu.topic.unique())
    human = (hu.set_index(["summarizer", "topic"])["arithmetic"].replace("NA", np.nan).astype(float)
             .unstack().reindex(index=systems, columns=topics).to_numpy())
    sc = tsv(d / "scores/summary_scores.tsv")
    sc = sc[(sc.measure == "R2") & (sc.stem == "1") & (sc.stopwords_removed == "0")]
    r2 = sc.set_index(["summarizer", "topic"])["R"].astype(float).unstack().reindex(index=systems, columns=topics)
    sy = tsv(d / "scores/system_scores.tsv").pivot(index="summarizer", columns="variant", values="score")
    sys_human = sh[sh.combination == "arithmetic"].set_index("summarizer")["score"].astype(float)
    return systems, topics, r2.to_numpy(), human, sy.loc[systems].astype(float), sys_human.loc[systems].to_numpy()


def test_statistics_files_exist_and_the_tiny_data_set_gets_notes(small_run):
    for dataset in ("sim", "tiny"):
        for path in outputs.files("statistics", dataset, combination=["main"]).values():
            assert (small_run / path).is_file(), path
    notes = tsv(small_run / "results/tiny/statistics/notes.tsv")
    assert "too_few_systems" in set(notes.kind)                  # 2 systems: NA with a note, not a crash
    levels = tsv(small_run / "results/tiny/statistics/correlation_levels.tsv")
    assert (levels[levels.level == "system"].value == "NA").all()


def test_system_level_values_equal_scipy_and_the_correlation_table(small_run):
    d = small_run / "results/sim"
    levels = tsv(d / "statistics/correlation_levels.tsv")
    corr = tsv(d / "analysis/correlations.tsv")
    corr = corr[corr.combination == "arithmetic"].set_index("variant")
    _, _, _, _, sy, zsys = grids(small_run)
    system = levels[(levels.level == "system") & (levels.combination == "arithmetic")]
    assert set(system.coefficient) == {"pearson", "spearman", "kendall"} and len(system) > 3 * 10
    f = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
    for row in system.itertuples():
        x = sy[row.variant].to_numpy()
        if np.ptp(x) == 0:
            assert row.value == "NA" and row.lo == "NA"
            continue
        assert float(row.value) == pytest.approx(f[row.coefficient](x, zsys)[0], abs=1e-12)
        assert float(row.value) == pytest.approx(float(corr.loc[row.variant, row.coefficient]), abs=1e-12)


def test_system_level_bootstrap_endpoints_equal_a_plain_loop(small_run):
    """BOOT-BOTH of the system-level Pearson r of a mean variant: per sample the systems, then the
    topics drawn from default_rng(seed); system scores = means over the drawn topics (a topic drawn
    twice counts twice); scipy's pearsonr over the drawn systems; percentiles of the defined samples."""
    systems, topics, r2, human, _, _ = grids(small_run)
    S, T = len(systems), len(topics)
    rng = np.random.default_rng(OPTIONS.seed)
    rs = []
    for _ in range(OPTIONS.bootstrap_samples):
        si, ti = rng.integers(0, S, S), rng.integers(0, T, T)
        m = [np.nanmean(r2[s, ti]) for s in si]
        h = [np.nanmean(human[s, ti]) for s in si]
        if len(set(m)) > 1 and len(set(h)) > 1:
            rs.append(stats.pearsonr(m, h)[0])
    lo, hi = np.percentile(rs, [2.5, 97.5])
    levels = tsv(small_run / "results/sim/statistics/correlation_levels.tsv")
    row = levels[(levels.variant == "R2_ST1_RS0_A_R") & (levels.level == "system") & (levels.coefficient == "pearson")
                 & (levels.combination == "arithmetic")].iloc[0]
    assert row.resampling == "both"
    assert float(row.lo) == pytest.approx(lo, abs=1e-9) and float(row.hi) == pytest.approx(hi, abs=1e-9)


def test_permutation_p_value_of_one_pair_equals_a_plain_loop(small_run):
    """PERM-SYSTEMS of the system-level Pearson r: both variants' system scores standardised, each
    system's pair swapped where its uniform from default_rng(seed) is < 0.5, p = share of samples
    whose difference is at least the observed one (mt-metrics-eval's one-sided p)."""
    d = small_run / "results/sim"
    p = tsv(d / "statistics/permutation_main.tsv").set_index("variant")
    _, _, _, _, sy, zsys = grids(small_run)
    a_id, b_id = [v for v in p.index if np.ptp(sy[v]) > 0][:2]
    a, b = ((sy[v].to_numpy() - sy[v].mean()) / sy[v].std(ddof=0) for v in (a_id, b_id))
    delta = stats.pearsonr(a, zsys)[0] - stats.pearsonr(b, zsys)[0]
    swaps = np.random.default_rng(OPTIONS.seed).random((OPTIONS.permutation_samples, len(a))) < 0.5
    count = 0
    for sw in swaps:
        d_star = stats.pearsonr(np.where(sw, b, a), zsys)[0] - stats.pearsonr(np.where(sw, a, b), zsys)[0]
        count += d_star >= delta - 1e-10
    assert float(p.loc[a_id, b_id]) == count / OPTIONS.permutation_samples
    assert p.loc[a_id, a_id] == "NA"
    opt = tsv(d / "statistics/optimal.tsv")
    assert set(opt.optimal) <= {"yes", "no", "NA"} and "yes" in set(opt.optimal)


def _acc23(x, y, eps=0.0):
    """acc23 by a loop over the pairs: agree when both order the pair the same way or both tie it
    (a metric difference within eps is a tie)."""
    good = n = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        tx = abs(dx) <= eps
        good += (tx and dy == 0) or (not tx and dy != 0 and np.sign(dx) == np.sign(dy))
        n += 1
    return good / n


def test_kendall_variants_tie_calibration_and_accuracy_by_hand(small_run):
    d = small_run / "results/sim"
    _, _, _, _, sy, zsys = grids(small_run)
    k = tsv(d / "statistics/kendall.tsv")
    k = k[(k.level == "system") & (k.combination == "arithmetic")].set_index(["variant", "kendall"])
    acc = tsv(d / "statistics/accuracy.tsv").set_index("variant")
    checked = 0
    for v in acc.index:
        x = sy[v].to_numpy()
        if np.ptp(x) == 0:
            continue
        assert float(k.loc[(v, "b"), "value"]) == pytest.approx(stats.kendalltau(x, zsys)[0], abs=1e-12)
        assert float(k.loc[(v, "acc23"), "value"]) == pytest.approx(_acc23(x, zsys), abs=1e-12)
        assert float(acc.loc[v, "accuracy"]) == pytest.approx(_acc23(x, zsys), abs=1e-12)
        candidates = sorted({0.0, *(abs(a - b) for a, b in itertools.combinations(x, 2))})
        values = [_acc23(x, zsys, e) for e in candidates]
        best = max(values)
        row = k.loc[(v, "acc23_calibrated")]
        assert float(row.value) == pytest.approx(best, abs=1e-12)
        assert float(row.epsilon) == candidates[values.index(best)]       # the smallest best epsilon
        checked += 1
    assert checked >= 10
    base = acc.loc[OPTIONS.accuracy_baseline]
    assert base.p == "NA" and base.baseline == OPTIONS.accuracy_baseline


def test_winner_probabilities_sum_to_one_and_the_figure_exists(small_run):
    d = small_run / "results/sim/statistics"
    w = tsv(d / "winner.tsv")
    w = w[w.combination == "arithmetic"]
    p_best = w.p_best.replace("NA", np.nan).astype(float)
    assert p_best.sum() == pytest.approx(1.0, abs=1e-12)
    assert (w.rank_lo.replace("NA", "1").astype(float) <= w.rank_hi.replace("NA", "1").astype(float)).all()
    assert (d / "figure_winner.png").stat().st_size > 1000 and (d / "figure_winner.svg").is_file()
    html = (d.parent / "report.html").read_text(encoding="utf-8")
    for title in ("Correlation levels, bootstrap intervals", "Kendall variants and tie calibration",
                  "Pairwise accuracy of system rankings", "The uncertainty of the winner", "Permutation tests ("):
        assert title in html


def test_two_systems_move_the_tests_to_the_global_level():
    """Fewer than 3 systems (Rank19-like pairs): the global-level Pearson r equals scipy over all
    summaries pooled, its bootstrap interval equals a plain-loop replay of the seeded topic draws,
    and the permutation tests compare global-level correlations (PERM-INPUTS)."""
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stages.statistics import compute
    from metaeval.stats.bootstrap import PerSummary
    from metaeval.variants import Variant

    rng = np.random.default_rng(5)
    T = 30
    human = np.stack([np.ones(T), np.zeros(T)])                     # correct / incorrect per topic
    good, weak = human + rng.normal(0, 0.5, (2, T)), human + rng.normal(0, 3.0, (2, T))
    ps = PerSummary(["correct", "incorrect"], [f"t{t}" for t in range(T)],
                    {"R1_ST1_RS0_R": good, "R2_ST1_RS0_R": weak}, {}, {"coverage": human})
    variants = [Variant.parse("R1_ST1_RS0_A_R"), Variant.parse("R2_ST1_RS0_A_R")]
    inp = AnalysisInputs(ps.summarizers, ["system"] * 2, variants, np.stack([good.mean(1), weak.mean(1)], 1),
                         ["coverage"], human.mean(1)[:, None], ps)
    o = OPTIONS._replace(bootstrap_samples=200, permutation_samples=200, null_samples=50, variants=("all",),
                         accuracy_baseline="R2_ST1_RS0_A_R")
    res = compute(inp, o)
    assert (res.options.permutation_level, res.options.permutation, res.options.resample) == ("global", "inputs",
                                                                                              "inputs")
    rows = {r["variant"]: r for r in res.levels if r["level"] == "global" and r["coefficient"] == "pearson"}
    draw = np.random.default_rng(o.seed)
    idx = [draw.integers(0, T, T) for _ in range(200)]
    for v, grid in (("R1_ST1_RS0_A_R", good), ("R2_ST1_RS0_A_R", weak)):
        assert rows[v]["value"] == pytest.approx(stats.pearsonr(grid.ravel(), human.ravel())[0], abs=1e-12)
        boot = [stats.pearsonr(grid[:, i].ravel(), human[:, i].ravel())[0] for i in idx]
        assert (rows[v]["lo"], rows[v]["hi"]) == pytest.approx(tuple(np.percentile(boot, [2.5, 97.5])), abs=1e-12)
    assert res.permutation["main"].shape == (2, 2)
    optimal = {r["variant"]: r["optimal"] for r in res.optimal}
    assert optimal == {"R1_ST1_RS0_A_R": "yes", "R2_ST1_RS0_A_R": "no"}
    assert any(k == "too_few_systems" for k, _ in res.notes)
