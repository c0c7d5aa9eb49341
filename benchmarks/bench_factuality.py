"""Benchmark of issue 23's factuality stage (metaeval.stages.factuality): load, compute, write.

    .venv/bin/python benchmarks/bench_factuality.py --results <workdir>/results/frank [--samples 1000]
    .venv/bin/python benchmarks/bench_factuality.py --simulate [--systems 9 --per-system 250 --metrics 15]

``--results`` times the stage on a data set the workflow has scored (its data/, scores/ and human/
tables), writing to a temporary folder; ``--simulate`` on seeded random scores of a FRANK-shaped data
set (systems x summaries per system, two subsets, two splits, 11 Flip_ fields). Prints the time of
each step and of each analysis (single-threaded numpy).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from metaeval import outputs
from metaeval.options import default_options
from metaeval.stages import factuality


def timed(label: str, f):
    start = time.perf_counter()
    out = f()
    print(f"{label:48s} {time.perf_counter() - start:8.2f} s", flush=True)
    return out


def stage_inputs(results: Path) -> dict[str, str]:
    data = outputs.STAGES["data"]
    inp = {"system_scores": "scores/system_scores.tsv", "summary_scores": "scores/summary_scores.tsv",
           "summary_human": "human/summary_human.tsv", "system_human": "human/system_human.tsv",
           **{k: data[k] for k in factuality.DATA_KEYS}}
    for key, rel in (("chrf", "scores/chrf_scores.tsv"), ("sera", "scores/sera_scores.tsv"),
                     ("file_metrics", "scores/file_metrics/scores.tsv")):
        if (results / rel).exists():
            inp[key] = rel
    return {k: str(results / v) for k, v in inp.items()}


def simulated(systems: int, per: int, metrics: int, seed: int = 1) -> factuality.FactualityInputs:
    rng = np.random.default_rng(seed)
    n = systems * per
    sy = np.repeat([f"m{i}" for i in range(systems)], per).astype(object)
    topics = np.array([f"t{i % per:05d}" for i in range(n)], dtype=object)
    h = np.round(rng.random(n), 2)
    dims = {"Factuality": h, **{f"Flip_C{k}": np.clip(h + 0.1 * rng.random(n), 0, 1) for k in range(11)}}
    ms = {f"metric{k}": h * rng.random() + rng.normal(size=n) for k in range(metrics)}
    return factuality.FactualityInputs(
        "simulated", topics, sy, np.where(rng.random(n) < 0.3, "valid", "test").astype(object),
        np.where(rng.random(n) < 0.5, "cnndm", "bbc").astype(object), dims, {d: "proportion" for d in dims},
        ["Factuality"], [d for d in dims if d.startswith("Flip_")], ms, {m: "file" for m in ms})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path)
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--systems", type=int, default=9)
    ap.add_argument("--per-system", type=int, default=250)
    ap.add_argument("--metrics", type=int, default=15)
    ap.add_argument("--samples", type=int, default=1000)
    args = ap.parse_args()
    o = default_options().factuality._replace(bootstrap_samples=args.samples)
    start = time.perf_counter()
    if args.results:
        inp = timed("load", lambda: factuality.load(stage_inputs(args.results), o))
    else:
        inp = simulated(args.systems, args.per_system, args.metrics)
    print(f"{inp.topics.size} summaries, {len(set(inp.systems))} systems, {len(inp.metrics)} metrics, "
          f"{args.samples} bootstrap samples")
    result = timed("compute", lambda: factuality.compute(inp, o))
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: str(Path(tmp) / Path(v).name) for k, v in outputs.files("factuality", "bench").items()}
        timed("write", lambda: factuality.write(result, o, out))
    print(f"{'total':48s} {time.perf_counter() - start:8.2f} s")


if __name__ == "__main__":
    main()
