"""Agreement benchmark: all pairs x all metrics x all human combinations for a 60-system data set.

    .venv/bin/python benchmarks/bench_agreement.py [--systems 60] [--topics 50] [--metrics 52] [--combinations 5]

Builds seeded per-summary scores for 60 systems (1,770 pairs), 52 per-summary metrics (the 48 ROUGE
P/R/F x setting columns and 4 BLEU) and 5 human combinations, runs metaeval's agreement stage
(Wilcoxon verdicts for every pair and scorer, agreement tables for every metric x combination x
pair type), and, in the same run, the reference: scipy.stats.wilcoxon called pair by pair for one
metric, extrapolated to all scorers. Target: the whole stage under 30 s on 2 cores.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from metaeval.stages.agreement import agreement_tables
from metaeval.stats.verdicts import pair_grid


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", type=int, default=60)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--metrics", type=int, default=52)
    ap.add_argument("--combinations", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    quality = rng.uniform(0, 1, a.systems)
    difficulty = rng.normal(0, 0.3, a.topics)
    human = {f"h{c}": (quality[:, None] + difficulty[None, :] + rng.normal(0, 0.3, (a.systems, a.topics))).round(2)
             for c in range(a.combinations)}
    metrics = {f"m{k}": quality[:, None] * rng.uniform(0.2, 1) + difficulty[None, :] + rng.normal(0, 0.3, (a.systems, a.topics))
               for k in range(a.metrics)}
    names = [str(i) for i in range(a.systems)]
    t0 = time.perf_counter()
    res = agreement_tables(human, metrics, names, ["system"] * a.systems, list(human), 0.05, 5, "m0")
    t_ours = time.perf_counter() - t0
    ii, jj, _ = pair_grid(names, ["system"] * a.systems)
    t0 = time.perf_counter()
    grid = metrics["m0"]
    ref = np.array([stats.wilcoxon(grid[i] - grid[j]).pvalue for i, j in zip(ii, jj)])
    t_ref = (time.perf_counter() - t0) * (a.metrics + a.combinations)
    assert np.allclose(ref, res.verdicts["m0"].p)
    scorers = a.metrics + a.combinations
    print(f"{a.systems} systems ({len(ii)} pairs) x {a.metrics} metrics x {a.combinations} combinations, {a.topics} topics")
    print(f"  metaeval agreement stage        {t_ours:8.2f} s  ({len(res.rows)} agreement rows, "
          f"{len(ii) * scorers} Wilcoxon tests)")
    print(f"  scipy pair-by-pair (extrapol.)  {t_ref:8.2f} s")
    print(f"  speed-up                        {t_ref / t_ours:8.1f} x   (p-values identical for the checked metric)")


if __name__ == "__main__":
    main()
