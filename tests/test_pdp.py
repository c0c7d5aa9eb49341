"""Pairwise Difference Pearson equals mt-metrics-eval's own ``stats.py``
(``Correlation.Pearson(average_by, pdp=True)``) on REALSumm and SummEval, at the summary level
(within each topic, every pair of systems: ``average_by='item'``) and at the system level. The peer's
code is read from the stored snapshot of google-research/mt-metrics-eval (a git directory; no
network); the test skips cleanly where neither it nor the data are there (fails in CI)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, shared_dataset
from metaeval.stats.correlation import pairwise_difference_pearson
from reference import require

MIRROR = Path(os.environ.get("METAEVAL_MT_METRICS_EVAL",
                             REPO.parent / ".mirror" / "google-research+mt-metrics-eval" / "repo"))
PEER_FILES = ("__init__.py", "stats.py", "pce.py", "tau_optimization.py")


@pytest.fixture(scope="module")
def mtme_stats(tmp_path_factory):
    """mt-metrics-eval's stats module, the peer's files as its repository holds them."""
    if not MIRROR.exists():
        require(f"{MIRROR} is not there", "mt-metrics-eval's stats.py")
    root = tmp_path_factory.mktemp("mtme")
    (root / "mt_metrics_eval").mkdir()
    for name in PEER_FILES:
        text = subprocess.run(["git", f"--git-dir={MIRROR}", "show", f"HEAD:mt_metrics_eval/{name}"],
                              capture_output=True, text=True, check=True).stdout
        (root / "mt_metrics_eval" / name).write_text(text)
    sys.path.insert(0, str(root))
    try:
        from mt_metrics_eval import stats
    finally:
        sys.path.remove(str(root))
    return stats


def _grid(frame: pd.DataFrame, value: str) -> np.ndarray:
    """(systems, topics), both sorted."""
    return frame.pivot(index="summarizer", columns="topic", values=value).sort_index().sort_index(axis=1).to_numpy(float)


def _realsumm():
    root = shared_dataset("realsumm")
    human = pd.read_csv(root / "judgments.tsv", sep="\t", dtype={"topic": str})
    scores = pd.read_csv(root / "metric_scores.tsv", sep="\t", dtype={"topic": str})
    metrics = {m: _grid(f, "score") for m, f in scores.groupby("metric")}
    return _grid(human, "litepyramid_recall"), dict(sorted(metrics.items())[:6])


def _summeval():
    root = shared_dataset("summeval")
    human = pd.read_csv(root / "judgments.tsv", sep="\t")
    rows = [json.loads(line) for line in (root / "summaries.jsonl").read_text().splitlines()]
    summaries = pd.DataFrame([{"topic": r["topic"], "summarizer": r["summarizer"],
                               "tokens": sum(len(s.split()) for s in r["sentences"]),
                               "types": len({w for s in r["sentences"] for w in s.split()})}
                              for r in rows if r["kind"] == "system"])
    both = human.merge(summaries, on=["topic", "summarizer"])
    # two simple metrics of the summaries' text: their length and their distinct words
    return _grid(both, "relevance"), {"tokens": _grid(both, "tokens"), "types": _grid(both, "types")}


@pytest.mark.reference
@pytest.mark.parametrize("load", [_realsumm, _summeval], ids=["realsumm", "summeval"])
def test_pairwise_difference_pearson_equals_mt_metrics_eval(load, mtme_stats):
    human, metrics = load()
    n_sys = human.shape[0]
    gold = [None if np.isnan(x) else float(x) for x in human.ravel()]
    for name, grid in metrics.items():
        peer = mtme_stats.Correlation(n_sys, gold, [float(x) for x in grid.ravel()])
        assert pairwise_difference_pearson(grid, human) == pytest.approx(peer.Pearson("item", pdp=True)[0],
                                                                         rel=0, abs=1e-12), name
        system_h, system_m = np.nanmean(human, axis=1), grid.mean(axis=1)
        peer = mtme_stats.Correlation(n_sys, list(system_h), list(system_m))
        ours = pairwise_difference_pearson(system_m[:, None], system_h[:, None])
        assert ours == pytest.approx(peer.Pearson("none", pdp=True)[0], rel=0, abs=1e-12), name
    # several metrics at once give each its own value
    stacked = np.stack(list(metrics.values()))
    singles = [pairwise_difference_pearson(g, human) for g in metrics.values()]
    np.testing.assert_array_equal(pairwise_difference_pearson(stacked, human), singles)
