"""The random floor of a leaderboard column (metaeval.stats.floor) against a direct simulation written
here with loops and scipy: the system level (the best variant's system scores permuted across the
summarizers), the summary level (the best metric's scores permuted within each topic, the mean over
topics of scipy's Pearson r), the AUC of binary labels (the scores permuted across the summaries,
the AUC from scipy's Mann-Whitney U) and the balanced accuracy's mean over the subsets (the scores
permuted within each subset, the threshold best on the validation split and the balanced accuracy on
the test split counted by hand); each draw as the module docstring states it. And the gathered table
is byte-stable."""
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


def _balanced_accuracy_by_hand(s, y, threshold) -> float:
    """Mean of the true positive rate (score >= threshold) and the true negative rate, by counting."""
    pos = [a for a, b in zip(s, y) if b == 1]
    neg = [a for a, b in zip(s, y) if b == 0]
    return (sum(a >= threshold for a in pos) / len(pos) + sum(a < threshold for a in neg) / len(neg)) / 2


def _best_threshold_by_hand(s, y) -> float:
    """The candidate (one below the scores, the midpoints of the sorted distinct scores, one above)
    with the highest balanced accuracy, the lowest of equals."""
    u = sorted(set(float(a) for a in s))
    candidates = [u[0] - 1.0] + [(a + b) / 2 for a, b in zip(u, u[1:])] + [u[-1] + 1.0]
    best, best_ba = None, -1.0
    for c in candidates:
        ba = _balanced_accuracy_by_hand(s, y, c)
        if ba > best_ba:
            best, best_ba = c, ba
    return best


def _subset_inputs():
    """Two subsets (3 summaries in 5 cnndm, 2 bbc) with the splits valid (every 4th), test and a
    third, other, split the protocol leaves out; a binary dimension; a good metric and one with ties."""
    rng = np.random.default_rng(8)
    n = 240
    labels = (rng.random(n) < 0.45).astype(float)
    good = labels + rng.normal(0, 0.9, n)
    tied = np.round(labels + rng.normal(0, 1.5, n))
    subsets = np.array(["cnndm" if i % 5 < 3 else "bbc" for i in range(n)])
    splits = np.array(["valid" if i % 4 == 0 else "other" if i % 10 == 7 else "test" for i in range(n)])
    return FactualityInputs("toy", np.array([f"t{i // 4:03d}" for i in range(n)]),
                            np.array([f"s{i % 4}" for i in range(n)]), splits, subsets, {"consistent": labels},
                            {"consistent": "binary"}, ["consistent"], [], {"good": good, "tied": tied},
                            {"good": "file", "tied": "file"}), labels


def test_balanced_accuracy_floor_equals_a_direct_simulation(tmp_path):
    """The balanced-accuracy column (the mean over the subsets of the balanced accuracy on the test
    split at the threshold best on the validation split): the best metric's scores permuted within
    each subset across its validation and test summaries, each draw's threshold chosen anew on the
    permuted validation scores, by loops here; and the leaderboard shows it as that column's floor."""
    inp, labels = _subset_inputs()
    o = default_options().factuality._replace(bootstrap_samples=0, floor_permutations=PERMUTATIONS, floor_seed=SEED,
                                              floor_confidence=0.95)
    result = factuality.compute(inp, o)
    row = _row(result.floor.to_dict("records"), "balanced_accuracy")
    means = dict(zip(result.means["metric"], result.means["balanced_accuracy_test"]))
    assert row["metric"] == max(means, key=means.get) and row["subset"] == "mean"
    assert row["statistic"] == "balanced accuracy"
    x = inp.metrics[row["metric"]]
    keep = np.isin(inp.splits, ["valid", "test"])
    xs, ys, subs, splits = x[keep], labels[keep], inp.subsets[keep], inp.splits[keep]
    assert row["n"] == xs.size == 240 - 24
    rng = np.random.default_rng(SEED)
    sims = []
    for _ in range(PERMUTATIONS):
        p = _permuted_within(xs, subs, rng)
        per_subset = []
        for sub in ("bbc", "cnndm"):
            v, t = (subs == sub) & (splits == "valid"), (subs == sub) & (splits == "test")
            threshold = _best_threshold_by_hand(p[v], ys[v])
            per_subset.append(_balanced_accuracy_by_hand(p[t], ys[t], threshold))
        sims.append(sum(per_subset) / len(per_subset))
    np.testing.assert_allclose([row["floor_mean"], row["floor_lo"], row["floor_hi"]], _summary(sims), rtol=0,
                               atol=1e-12)
    assert 0.45 < row["floor_mean"] < 0.55 and row["permutations"] == PERMUTATIONS
    # the leaderboard's balanced-accuracy column gets it as its floor
    tables.write_tsv(result.floor, tmp_path / "floor.tsv")
    text = {k: tables.read_tsv(_written(getattr(result, k), tmp_path / f"{k}.tsv"))
            for k in ("binary", "auc_tests", "means")}
    targets = pd.DataFrame([["consistent", "dimension", "x", "yes", "yes", ""]],
                           columns=["target", "kind", "definition", "factual", "primary", "expression"])
    # a data set with the factuality protocols only: the other tables with their columns and no row
    empty = pd.DataFrame(columns=["variant", "combination", "target", "metric", "level", "dimension", "subset", "split",
                                  "p", "metric_a", "metric_b", "n", "pearson", "pearson_lo", "pearson_hi", "summaries",
                                  "pdp"])
    d = DatasetFiles("toy", True, targets, empty, lambda t: None, empty, empty,
                     pd.DataFrame(columns=["metric", "name"]), text["binary"], text["auc_tests"], empty, empty, empty,
                     empty, binary_means=text["means"], floors=leaderboard.read_floors([str(tmp_path / "floor.tsv")]))
    board = leaderboard.compute([d], default_options().leaderboard._replace(datasets=("toy",)))
    gathered = {(r["level"], r["subset"]): r for r in leaderboard.floor_rows(board)}
    shown = gathered[("balanced_accuracy", "mean")]
    assert shown["statistic"] == "balanced accuracy"
    assert (shown["floor_mean"], shown["floor_lo"], shown["floor_hi"]) == pytest.approx(_summary(sims), abs=1e-12)


def _written(frame: pd.DataFrame, path) -> str:
    tables.write_tsv(frame, path)
    return str(path)


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
