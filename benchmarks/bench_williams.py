"""Williams-test benchmark: the full p-value matrix for 193 metrics x 5 human combinations.

    .venv/bin/python benchmarks/bench_williams.py [--metrics 193] [--systems 16] [--combinations 5]

Times metaeval's vectorised williams_matrix (plus the metric-metric correlation matrix it needs)
and, in the same run, a straightforward per-pair loop calling scipy for every ordered pair (the
reference), checks that both give the same p-values, and prints the ratio. Target: < 2 s.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats

from metaeval.stats.williams import williams_matrix


def per_pair_reference(h: np.ndarray, mm: np.ndarray, n: int) -> np.ndarray:
    v = len(h)
    p = np.full((v, v), np.nan)
    for i in range(v):
        for j in range(v):
            if i == j:
                continue
            r12, r13, r23 = h[i], h[j], mm[i, j]
            k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
            den = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
            t = 0.0 if r12 == r13 else (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / math.sqrt(den)
            p[i, j] = stats.t.sf(t, n - 3)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--metrics", type=int, default=193)
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--combinations", type=int, default=5)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    latent = rng.normal(size=a.systems)
    metrics = latent[:, None] + rng.normal(0, 0.5, (a.systems, a.metrics))
    humans = latent[:, None] + rng.normal(0, 0.3, (a.systems, a.combinations))
    t0 = time.perf_counter()
    mm = np.corrcoef(metrics, rowvar=False)
    ours = []
    for c in range(a.combinations):
        h = np.array([np.corrcoef(metrics[:, v], humans[:, c])[0, 1] for v in range(a.metrics)])
        ours.append(williams_matrix(h, mm, a.systems))
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = []
    for c in range(a.combinations):
        h = np.array([np.corrcoef(metrics[:, v], humans[:, c])[0, 1] for v in range(a.metrics)])
        ref.append(per_pair_reference(h, mm, a.systems))
    t_ref = time.perf_counter() - t0
    diff = max(float(np.nanmax(np.abs(o - r))) for o, r in zip(ours, ref))
    print(f"{a.metrics} metrics x {a.combinations} combinations, n = {a.systems} systems "
          f"({a.metrics * (a.metrics - 1) * a.combinations} ordered pairs)")
    print(f"  metaeval (vectorised)   {t_ours:8.3f} s")
    print(f"  per-pair scipy loop     {t_ref:8.3f} s")
    print(f"  speed-up                {t_ref / t_ours:8.1f} x   max |p difference| {diff:.1e}")


if __name__ == "__main__":
    main()
