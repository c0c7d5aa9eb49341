"""Pairwise Difference Pearson equals mt-metrics-eval's own ``stats.py``
(``Correlation.Pearson(average_by, pdp=True)``) on REALSumm and SummEval, at the summary level
(within each topic, every pair of systems: ``average_by='item'``) and at the system level. The peer's
code is read from the stored snapshot of google-research/mt-metrics-eval (a git directory; no
network) where it is there; the live comparison skips without it, even in CI, which has the data but
not the snapshot. A second test, which always runs where the data are (and in CI), compares with the
values that ``stats.py`` printed on the same data, kept here as literals."""
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

MIRROR = Path(os.environ.get("METAEVAL_MT_METRICS_EVAL",
                             REPO.parent / ".mirror" / "google-research+mt-metrics-eval" / "repo"))
PEER_FILES = ("__init__.py", "stats.py", "pce.py", "tau_optimization.py")


@pytest.fixture(scope="module")
def mtme_stats(tmp_path_factory):
    """mt-metrics-eval's stats module, the peer's files as its repository holds them."""
    if not MIRROR.exists():
        # not a CI failure: CI has the data, not the snapshot; test_equals_printed_values covers it there
        pytest.skip(f"mt-metrics-eval's stats.py unavailable: {MIRROR} is not there")
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


# mt-metrics-eval's own values, printed once by its stats.py on the data of _realsumm and _summeval
# above: google-research/mt-metrics-eval at commit 68a481aea1a787392d55af8f76ac8ef40c5f4664
# (mt_metrics_eval/__init__.py, stats.py, pce.py, tau_optimization.py unmodified, read with
# `git show`; numpy 2.4.6, scipy 1.17.1). For each metric grid g (systems x topics, both sorted) and the
# human grid h of the same shape:
#   summary level: stats.Correlation(n_sys, [None if nan else x for x in h.ravel()],
#                                    list(g.ravel())).Pearson("item", pdp=True)[0]
#   system level:  stats.Correlation(n_sys, list(np.nanmean(h, axis=1)),
#                                    list(g.mean(axis=1))).Pearson("none", pdp=True)[0]
# REALSumm: litepyramid_recall against the release's metrics (24 systems x 100 topics); SummEval:
# expert relevance against the summaries' length in tokens and their distinct words (16 x 100).
# Each pair is (summary level, system level).
PRINTED = {
    "realsumm": {"BERTScore_F": (0.34013976850712424, 0.32918243104640177),
                 "BERTScore_P": (0.15204635964785868, -0.07100304247856258),
                 "BERTScore_R": (0.44810811838017583, 0.7577126318223458),
                 "JS2": (0.3688190278024356, 0.7638264230406513),
                 "MoverScore": (0.3582298265130159, 0.39634321812417495)},
    "summeval": {"tokens": (0.16992305081505138, 0.24024137644418342),
                 "types": (0.24915030648620773, 0.38415874971460073)},
}


@pytest.mark.parametrize("name, load", [("realsumm", _realsumm), ("summeval", _summeval)],
                         ids=["realsumm", "summeval"])
def test_equals_printed_values(name, load):
    human, metrics = load()
    assert sorted(metrics) == sorted(PRINTED[name])
    for metric, grid in metrics.items():
        summary_level, system_level = PRINTED[name][metric]
        assert pairwise_difference_pearson(grid, human) == pytest.approx(summary_level, rel=0, abs=1e-12), metric
        ours = pairwise_difference_pearson(grid.mean(axis=1)[:, None], np.nanmean(human, axis=1)[:, None])
        assert ours == pytest.approx(system_level, rel=0, abs=1e-12), metric
