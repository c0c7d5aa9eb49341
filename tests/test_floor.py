"""The random floor of a leaderboard column (metaeval.stats.floor) against a direct simulation written
here with loops and scipy: the system level (the best variant's system scores permuted across the
summarizers), the summary level (the best metric's scores permuted within each topic, the mean over
topics of scipy's Pearson r) and the AUC of binary labels (the scores permuted across the summaries,
the AUC from scipy's Mann-Whitney U); each draw as the module docstring states it. And the gathered
table is byte-stable."""
from __future__ import annotations

import filecmp

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval import tables
from metaeval.options import default_options
from metaeval.stages import correlation, factuality, leaderboard
from metaeval.stages.factuality_protocols import FactualityInputs
from metaeval.stages.leaderboard import DatasetFiles

from test_common_ground import OPTIONS as COMMON, _inputs

PERMUTATIONS, SEED = 300, 11
OPTIONS = COMMON._replace(floor_permutations=PERMUTATIONS, floor_seed=SEED, floor_confidence=0.95)


def _summary(values: list[float]) -> tuple[float, float, float]:
    v = np.array(values)
    return float(v.mean()), float(np.percentile(v, 2.5)), float(np.percentile(v, 97.5))


def _permuted_within(x: np.ndarray, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw: uniform keys for every position; each group's positions, in ascending order, take the
    group's values in the order of their keys."""
    keys = rng.random(x.size)
    out = np.empty_like(x)
    for g in np.unique(groups):
        positions = np.flatnonzero(groups == g)
        out[positions] = x[positions[np.argsort(keys[positions], kind="stable")]]
    return out


def _row(rows, level):
    (row,) = [r for r in rows if r["level"] == level]
    return row


def test_system_and_summary_level_floors_equal_a_direct_simulation():
    inp, system, human = _inputs()
    res = correlation.compute(inp, OPTIONS)
    pear = {r["variant"]: r["pearson"] for r in res.rows}
    best = max(pear, key=pear.get)
    row = _row(res.floor, "system")
    assert row["metric"] == best and row["statistic"] == "r"
    # the common ground: the summarizers every metric scores (the reference left out)
    x, y = system[:-1, [v.id for v in inp.variants].index(best)], human[:-1]
    rng = np.random.default_rng(SEED)
    sims = [stats.pearsonr(_permuted_within(x, np.zeros(x.size), rng), y)[0] for _ in range(PERMUTATIONS)]
    assert row["n"] == x.size == 13
    np.testing.assert_allclose([row["floor_mean"], row["floor_lo"], row["floor_hi"]], _summary(sims), rtol=0,
                               atol=1e-12)

    row = _row(res.floor, "summary")
    levels = {r["metric"]: r["pearson"] for r in res.summary_level}
    assert row["metric"] == max(levels, key=levels.get)
    grid = inp.per_summary.metrics[row["metric"]][:-1]          # systems x topics, the reference left out
    h = inp.per_summary.human["arithmetic"][:-1]
    cells = np.isfinite(grid) & np.isfinite(h)
    topics = np.broadcast_to(np.arange(grid.shape[1]), grid.shape)[cells]
    xs, ys = grid[cells], h[cells]
    rng = np.random.default_rng(SEED)
    sims = []
    for _ in range(PERMUTATIONS):
        p = _permuted_within(xs, topics, rng)
        sims.append(np.mean([stats.pearsonr(p[topics == t], ys[topics == t])[0] for t in np.unique(topics)]))
    np.testing.assert_allclose([row["floor_mean"], row["floor_lo"], row["floor_hi"]], _summary(sims), rtol=0,
                               atol=1e-12)
    # a random metric scores about nothing; the best metric is well above its floor
    assert abs(row["floor_mean"]) < 0.05 and row["floor_hi"] < levels[row["metric"]]


def _binary_inputs():
    rng = np.random.default_rng(5)
    n = 120
    labels = (rng.random(n) < 0.4).astype(float)
    good = labels + rng.normal(0, 0.8, n)
    tied = np.round(labels + rng.normal(0, 1.5, n))                   # many ties
    return FactualityInputs("toy", np.array([f"t{i // 4:03d}" for i in range(n)]), np.array([f"s{i % 4}" for i in range(n)]),
                            np.full(n, ""), np.full(n, ""), {"consistent": labels}, {"consistent": "binary"},
                            ["consistent"], [], {"good": good, "tied": tied}, {"good": "file", "tied": "file"}), labels


def test_auc_floor_equals_a_direct_simulation():
    inp, labels = _binary_inputs()
    o = default_options().factuality._replace(bootstrap_samples=0, floor_permutations=PERMUTATIONS, floor_seed=SEED,
                                              floor_confidence=0.95)
    result = factuality.compute(inp, o)
    floor = result.floor.to_dict("records")
    row = _row(floor, "auc")
    aucs = dict(zip(result.binary["metric"], result.binary["auc"]))
    assert row["metric"] == max(aucs, key=aucs.get) == "good" and row["subset"] == "all"
    x = inp.metrics["good"]
    rng = np.random.default_rng(SEED)
    sims = []
    for _ in range(PERMUTATIONS):
        p = _permuted_within(x, np.zeros(x.size), rng)
        u = stats.mannwhitneyu(p[labels == 1], p[labels == 0]).statistic
        sims.append(u / ((labels == 1).sum() * (labels == 0).sum()))
    np.testing.assert_allclose([row["floor_mean"], row["floor_lo"], row["floor_hi"]], _summary(sims), rtol=0,
                               atol=1e-12)
    assert 0.45 < row["floor_mean"] < 0.55


def test_the_gathered_floor_table_is_byte_stable(tmp_path):
    inp, _, _ = _inputs()
    paths = []
    for k in range(2):
        res = correlation.compute(inp, OPTIONS)
        out = {"correlations": tmp_path / f"c{k}.tsv", "williams_arithmetic": tmp_path / f"w{k}.tsv",
               "targets_williams": tmp_path / f"tw{k}.tsv", "summary_level": tmp_path / f"s{k}.tsv",
               "summary_level_tests": tmp_path / f"st{k}.tsv", "notes": tmp_path / f"n{k}.tsv",
               "floor": tmp_path / f"f{k}.tsv"}
        correlation.write(res, ("arithmetic",), {a: str(b) for a, b in out.items()})
        targets = pd.DataFrame([["arithmetic", "dimension", "x", "no", "yes", ""]],
                               columns=["target", "kind", "scale", "combination", "primary", "definition"])
        empty = pd.DataFrame(columns=["dimension", "subset", "metric", "metric_a", "metric_b", "p", "split"])
        d = DatasetFiles("d", True, targets, tables.read_tsv(out["correlations"]), lambda t: None,
                         tables.read_tsv(out["summary_level"]), tables.read_tsv(out["summary_level_tests"]),
                         pd.DataFrame(columns=["metric", "name"]), empty, empty, empty, empty, empty, empty,
                         floors=leaderboard.read_floors([str(out["floor"])]))
        board = leaderboard.compute([d], default_options().leaderboard._replace(datasets=("d",)))
        files = {k2: str(tmp_path / f"{k2}{k}") for k2 in ("leaderboard_tsv", "tests_tsv", "floor_tsv", "leaderboard_md",
                                                            "leaderboard_html")}
        leaderboard.write(board, files)
        paths.append(files)
    for key in ("floor_tsv", "leaderboard_md", "leaderboard_html"):
        assert filecmp.cmp(paths[0][key], paths[1][key], shallow=False), key
    gathered = tables.read_tsv(paths[0]["floor_tsv"])
    assert list(gathered.columns) == ["dataset", "target", "level", "subset", "statistic", "floor_mean", "floor_lo",
                                      "floor_hi"]
    assert list(gathered["level"]) == ["system", "summary"]
    assert "random floor" in open(paths[0]["leaderboard_md"]).read()
