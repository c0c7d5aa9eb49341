"""Benchmark of the statistics at SummEval's shape: M metrics x 16 systems x 100 inputs.

    .venv/bin/python benchmarks/bench_statistics.py [--metrics 200] [--samples 1000] [--peer-samples 200]
    .venv/bin/python benchmarks/bench_statistics.py --stage results/summeval [--samples 1000]

``--stage`` times the workflow's statistics stage (metaeval.stages.statistics: load, compute, write
to a temporary folder) on a data set the workflow has scored (its scores/ and human/ tables), with
the config's defaults and --samples bootstrap, permutation and null samples, and exits.

Simulated scores (seeded; the timings do not depend on the values). Where nlpstats 0.0.1 has the
same function (bootstrap, permutation_test), it is timed in the same run on one metric
(--peer-samples resamples), scaled linearly to all metrics and --samples resamples, and the ratio
printed. Single-threaded numpy; prints one line per statistic.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from metaeval.stats import kendall, levels, resampling


def timed(label: str, f, peer: float | None = None):
    start = time.perf_counter()
    out = f()
    took = time.perf_counter() - start
    ratio = "" if peer is None else f"   nlpstats (scaled) {peer:8.1f} s   x{peer / took:,.0f}"
    print(f"{label:62s} {took:7.2f} s{ratio}", flush=True)
    return out


def peer_seconds(f, samples: int, scale: float) -> float | None:
    try:
        import nlpstats.correlations  # noqa: F401
    except ImportError:
        return None
    start = time.perf_counter()
    f(samples)
    return (time.perf_counter() - start) * scale


def stage(results: str, samples: int) -> None:
    """The statistics stage's load / compute / write times on a scored data set's tables."""
    import tempfile
    from pathlib import Path

    from metaeval import outputs
    from metaeval.options import Options
    from metaeval.stages import statistics

    d = Path(results)
    o = Options.from_config({"datasets": {d.name: {"format": "simulated"}}}).statistics
    o = o._replace(bootstrap_samples=samples, permutation_samples=samples, null_samples=samples)
    inputs = {"system_scores": d / "scores/system_scores.tsv", "summary_scores": d / "scores/summary_scores.tsv",
              "summary_human": d / "human/summary_human.tsv", "system_human": d / "human/system_human.tsv",
              **{p.stem: p for p in sorted(d.glob("scores/bleu_stats_ST*.tsv"))}}
    for key, path in (("sera", d / "scores/sera_scores.tsv"), ("file_metrics", d / "scores/file_metrics/scores.tsv")):
        if path.exists():
            inputs[key] = path
    inp = timed("statistics stage: load", lambda: statistics.load({k: str(v) for k, v in inputs.items()}, o))
    result = timed("statistics stage: compute (defaults)", lambda: statistics.compute(inp, o))
    print(f"  {len(inp.summarizers)} systems x {len(inp.per_summary.topics)} inputs, {len(inp.variants)} variants, "
          f"{len(result.variants)} tested; {samples} bootstrap / permutation / null samples")
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: f"{tmp}/{Path(v).name}" for k, v in outputs.files("statistics", "x", combination=["main"]).items()}
        timed("statistics stage: write", lambda: statistics.write(result, o, out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--metrics", type=int, default=200)
    ap.add_argument("--systems", type=int, default=16)
    ap.add_argument("--inputs", type=int, default=100)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--peer-samples", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=0, help="permutation pairs (default: every metric vs the best)")
    ap.add_argument("--stage", help="a scored data set's results folder: time the statistics stage on it")
    a = ap.parse_args()
    if a.stage:
        return stage(a.stage, a.samples)
    rng = np.random.default_rng(0)
    z = rng.normal(size=(a.systems, 1)) + rng.normal(size=(a.systems, a.inputs))
    x = z + rng.normal(scale=rng.uniform(0.5, 3, (a.metrics, 1, 1)), size=(a.metrics, a.systems, a.inputs))
    b, m = a.samples, a.metrics
    print(f"{m} metrics x {a.systems} systems x {a.inputs} inputs, {b} resamples")
    for level in levels.LEVELS:
        for c in levels.COEFFICIENTS:
            timed(f"correlate {level} {c}", lambda: levels.correlate(x, z, level, c))
    scale = m * b / a.peer_samples
    for method in ("systems", "inputs", "both"):
        def peer(n, method=method):
            from nlpstats.correlations import bootstrap
            bootstrap(x[0], z, "system", "pearson", method, n_resamples=n)
        timed(f"bootstrap system pearson {method}",
              lambda: resampling.bootstrap(x, z, levels.statistic("system", "pearson"), method, b, seed=1),
              peer_seconds(peer, a.peer_samples, scale))
    for level, c in (("system", "kendall"), ("input", "pearson"), ("input", "spearman"), ("input", "kendall")):
        timed(f"bootstrap {level} {c} both",
              lambda: resampling.bootstrap(x, z, levels.statistic(level, c), "both", b, seed=1))
    best = int(np.argmax(levels.correlate(x, z, "system", "pearson")))
    pairs = [(best, k) for k in range(m) if k != best][: a.pairs or None]
    for method in ("systems", "inputs", "both"):
        def peer(n, method=method):
            from nlpstats.correlations import permutation_test
            permutation_test(x[0], x[1], z, "system", "pearson", method, n_resamples=n)
        timed(f"permutation system pearson {method}, {len(pairs)} pairs",
              lambda: resampling.permutation_test(x, z, pairs, levels.statistic("system", "pearson"), method, b, 1),
              peer_seconds(peer, a.peer_samples, len(pairs) * b / a.peer_samples))
    timed(f"permutation input pearson both, {min(20, len(pairs))} pairs",
          lambda: resampling.permutation_test(x, z, pairs[:20], levels.statistic("input", "pearson"), "both", b, 1))
    for level in ("system", "input"):
        for name in kendall.VARIANTS:
            timed(f"Kendall {name} {level}", lambda: kendall.kendall_variants(x, z, level, name))
    timed("Kendall acc23 global", lambda: kendall.kendall_variants(x, z, "global", "acc23"))
    timed("tie calibration acc23 input (jointly over inputs)", lambda: kendall.tie_calibration(x, z, "input", "acc23"))
    timed("tie calibration acc23 global, 10 metrics", lambda: kendall.tie_calibration(x[:10], z, "global", "acc23"))
    acc = kendall.pairwise_accuracy_statistic()
    timed("pairwise accuracy bootstrap inputs", lambda: resampling.bootstrap(x, z, acc, "inputs", b, seed=1))
    timed(f"pairwise accuracy permutation both, {len(pairs)} pairs",
          lambda: resampling.permutation_test(x, z, pairs, acc, "both", b, 1))
    timed("null baseline system pearson", lambda: resampling.null_distribution(x, z, levels.statistic("system", "pearson"), b, 2))
    timed("null baseline input pearson", lambda: resampling.null_distribution(x, z, levels.statistic("input", "pearson"), b, 2))
    bs = resampling.bootstrap(x, z, levels.statistic("system", "pearson"), "both", b, seed=1)
    timed("winner (P(best), rank interval)", lambda: resampling.winner(bs.samples))


if __name__ == "__main__":
    main()
