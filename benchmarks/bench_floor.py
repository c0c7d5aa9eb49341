"""Benchmark of the random floor (metaeval.stats.floor): what it costs per leaderboard column kind.

    .venv/bin/python benchmarks/bench_floor.py [--repeats 3] [--permutations N] [--simulate]

On FRANK as released (../shared/data/raw/frank, read by the library's importer: of its 2,246
summaries of 9 systems, the 2,159 every baseline metric scores, two subsets, the valid / test
splits), or with
``--simulate`` (or without the copy) on a seeded FRANK-shaped data set of the same size
(bench_factuality.simulated: 9 systems x 250 summaries), times for each column kind the column's own
statistic once, and its floor as the stages compute it (:func:`permutation_floor` with the
column's statistic and resampling unit) with the configured ``floor.permutations`` (config.yaml;
``--permutations`` overrides) and with ``floor.permutations: 0``; prints the floor's time over the
statistic's (the reference, timed in the same run) and per draw. The kinds: system r (the systems'
mean scores), summary r (within each topic, mean over topics), pooled r, AUC, the balanced
accuracy's mean over the subsets, partial r (within systems) and ranking accuracy (on preference
pairs made here of each article's most and least factual summaries: FRANK has none of its own).
Then the factuality job's compute (as configured, its bootstrap included) with the configured
permutations and with 0, alternating, after one untimed run (imports and caches): the share of the
job the floor is. Medians of ``--repeats`` runs; no timing is asserted.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from metaeval.options import default_options
from metaeval.stages import factuality
from metaeval.stages.factuality_protocols import FactualityInputs, labels_of, preference_pairs
from metaeval.stats.binary import auc
from metaeval.stats.core import pearson_against
from metaeval.stats.floor import (mean_held_out_balanced_accuracy, mean_within_group_pearson, per_row,
                                  permutation_floor, ranking_accuracy_of)
from metaeval.stats.partial import partial_residuals

REPO = Path(__file__).resolve().parents[1]
FRANK = REPO.parent / "shared" / "data" / "raw" / "frank"
DIMENSION = "Factuality"


def frank_inputs() -> FactualityInputs:
    """FRANK's summaries every baseline metric scores, with its factuality, splits and subsets."""
    from metaeval.data.frank import import_frank

    ds, rows, _ = import_frank(FRANK)
    scores: dict[str, dict[tuple[str, str], float]] = {}
    for topic, summarizer, metric, score in rows:
        scores.setdefault(metric, {})[(topic, summarizer)] = score
    summaries = sorted(ds.summaries, key=lambda s: (s.topic, s.summarizer))
    keep = [s for s in summaries if all((s.topic, s.summarizer) in m for m in scores.values())]
    key = [(s.topic, s.summarizer) for s in keep]
    metrics = {m: np.array([v[k] for k in key]) for m, v in sorted(scores.items())}
    h = np.array([ds.judgments[k][DIMENSION] for k in key])
    return FactualityInputs("frank", np.array([s.topic for s in keep], dtype=object),
                            np.array([s.summarizer for s in keep], dtype=object),
                            np.array([s.split for s in keep], dtype=object), np.array([s.subset for s in keep], dtype=object),
                            {DIMENSION: h}, {DIMENSION: "proportion"}, [DIMENSION], [], metrics,
                            {m: "file" for m in metrics})


def simulated_inputs() -> FactualityInputs:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_factuality import simulated

    return simulated(9, 250, 15)


def with_preferences(inp: FactualityInputs) -> tuple[np.ndarray, np.ndarray]:
    """(preferred, other) index pairs: each topic's most and least factual summaries, where they differ."""
    h = inp.dimensions[DIMENSION]
    p, q = [], []
    for t in np.unique(inp.topics):
        idx = np.flatnonzero(inp.topics == t)
        hi, lo = idx[np.argmax(h[idx])], idx[np.argmin(h[idx])]
        if h[hi] > h[lo]:
            p.append(hi)
            q.append(lo)
    return np.array(p, dtype=np.int64), np.array(q, dtype=np.int64)


def columns(inp: FactualityInputs, o) -> list[tuple[str, Callable[[np.ndarray], object], np.ndarray, np.ndarray | None,
                                                    Callable[[np.ndarray], object]]]:
    """(kind, the statistic of one vector, the scores, the resampling unit, the statistic of a block of
    draws) per column kind, of the metric with the highest pooled Pearson r (as a column's best)."""
    h = inp.dimensions[DIMENSION]
    best = max(inp.metrics, key=lambda m: float(pearson_against(h)(inp.metrics[m])))
    x = inp.metrics[best]
    out = []
    systems = np.unique(inp.systems)
    sx = np.array([x[inp.systems == s].mean() for s in systems])
    sy = np.array([h[inp.systems == s].mean() for s in systems])
    out.append(("system r", pearson_against(sy), sx, None, pearson_against(sy)))
    topics = np.unique(inp.topics, return_inverse=True)[1]
    within = lambda v, t=topics: mean_within_group_pearson(v, h, t)  # noqa: E731
    out.append(("summary r (within topics)", within, x, topics, within))
    out.append(("pooled r", pearson_against(h), x, None, pearson_against(h)))
    labels = labels_of(h, "proportion", o.proportion_cutoff)
    one_auc = lambda v: auc(v, labels)  # noqa: E731
    out.append(("AUC", one_auc, x, None, per_row(one_auc)))
    valid, test, _ = factuality.split_masks(inp, o)
    ok = valid | test
    ba = mean_held_out_balanced_accuracy(labels[ok], valid[ok], test[ok], inp.subsets[ok])
    out.append(("balanced accuracy (mean over subsets)", ba, x[ok], inp.subsets[ok], per_row(ba)))
    rx, ry, codes, pearson_of = partial_residuals(x, h, inp.systems)
    partial = lambda r: pearson_of(r, ry)  # noqa: E731
    out.append(("partial r (within systems)", partial, rx, codes, partial))
    p, q = with_preferences(inp)
    ranked = lambda v, n=p.size: ranking_accuracy_of(v, n)  # noqa: E731
    pairs = np.arange(p.size)
    out.append(("ranking accuracy", ranked, np.r_[x[p], x[q]], np.r_[pairs, pairs], per_row(ranked)))
    return out


def median_time(f: Callable[[], object], repeats: int, inner: int = 1) -> float:
    """The median over ``repeats`` of the time of one call (``inner`` calls timed together)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            f()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--permutations", type=int, default=None, help="default: config.yaml's floor.permutations")
    ap.add_argument("--simulate", action="store_true", help="a seeded FRANK-shaped data set, not FRANK's copy")
    a = ap.parse_args()
    o = default_options().factuality
    permutations = o.floor_permutations if a.permutations is None else a.permutations
    real = FRANK.is_dir() and not a.simulate
    inp = frank_inputs() if real else simulated_inputs()
    print(f"{'FRANK as released' if real else 'a seeded FRANK-shaped data set'}: {inp.topics.size} summaries, "
          f"{np.unique(inp.systems).size} systems, {len(inp.metrics)} metrics; floor.permutations = {permutations} "
          f"(seed {o.floor_seed}); medians of {a.repeats} runs")
    print(f"{'column':40s} {'n':>6s} {'statistic':>11s} {'floor':>10s} {'floor/stat':>11s} {'per draw':>10s} "
          f"{'floor at 0':>11s}")
    for kind, statistic, x, unit, block in columns(inp, o):
        t_stat = median_time(lambda: statistic(x), a.repeats, inner=20)
        t_floor = median_time(lambda: permutation_floor(block, x, unit, permutations, o.floor_seed,
                                                        o.floor_confidence), a.repeats)
        t_zero = median_time(lambda: permutation_floor(block, x, unit, 0, o.floor_seed, o.floor_confidence),
                             a.repeats, inner=20)
        per_draw = t_floor / permutations if permutations else float("nan")
        print(f"{kind:40s} {x.size:6d} {t_stat * 1e3:8.3f} ms {t_floor:8.3f} s {t_floor / t_stat:10.0f}x "
              f"{per_draw * 1e3:7.3f} ms {t_zero * 1e6:8.1f} µs")
    # the factuality job's compute, its other analyses included, with and without the floor
    factuality.compute(inp, o._replace(floor_permutations=0))
    runs: dict[int, list[float]] = {permutations: [], 0: []}
    for _ in range(a.repeats):
        for k in runs:
            runs[k].append(median_time(lambda: factuality.compute(inp, o._replace(floor_permutations=k)), 1))
    on, off = statistics.median(runs[permutations]), statistics.median(runs[0])
    print(f"factuality compute (bootstrap_samples = {o.bootstrap_samples}): floor.permutations = {permutations}: "
          f"{on:.2f} s; floor.permutations = 0: {off:.2f} s; the floor's share {(on - off) / on:.1%}")


if __name__ == "__main__":
    main()
