"""Benchmark of the factuality stage (metaeval.stages.factuality): load, compute, write.

    .venv/bin/python benchmarks/bench_factuality.py --results <workdir>/results/frank [--samples 1000]
    .venv/bin/python benchmarks/bench_factuality.py --simulate [--systems 9 --per-system 250 --metrics 15]
    .venv/bin/python benchmarks/bench_factuality.py --compare [--before 5d61f81] [--repeats 2]

``--results`` times the stage on a data set the workflow has scored (its data/, scores/ and human/
tables), writing to a temporary folder; ``--simulate`` on seeded random scores of a FRANK-shaped data
set (systems x summaries per system, two subsets, two splits, 11 Flip_ fields). Prints the time of
each step and of each analysis (single-threaded numpy).

``--compare`` times the factuality job (load, compute and write, as the job runs them) of the code
before (``--before``, a git worktree: bench_pipeline.checkout) and of this tree on the same inputs,
alternating before / after ``--repeats`` times, each run in a fresh process (its own peak memory):
SummEval from the release (summeval_jsonl, 12 systems x 100 articles, one factual dimension,
consistency), FRANK (frank, 9 systems, 2,246 summaries, 15 metrics) and a larger simulated
FRANK-shaped data set (``--systems``, ``--per-system``, ``--metrics``; defaults 24 x 150 x 30). The
inputs of SummEval and FRANK (their data/, scores/ and human/ tables) come from a run of this tree's
workflow up to the factuality job (``--omit-from factuality``, ``--cores 1``) unless
``--inputs <workdir>`` names a working directory that has them. Prints the median wall and CPU time
(user + system, every thread: steadier than the wall time on a shared machine) of each tree, the
ratios before / after and the peak memory (ru_maxrss of the process).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
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


REPO = Path(__file__).resolve().parents[1]
BEFORE = "5d61f81"        # main when the factuality work started
RAW = REPO.parent / "shared" / "data" / "raw"
RELEASES = {"summeval": lambda: {"format": "summeval_jsonl", "paths": sorted(
                str(p) for p in (RAW / "summeval-official").glob("M*_outputs_annotations.jsonl"))},
            "frank": lambda: {"format": "frank", "path": str(RAW / "frank")}}


def child(spec: dict) -> None:
    """One timed factuality job in this process (the tree on PYTHONPATH): load (or simulate), compute,
    write; prints {"seconds" (wall), "cpu" (user + system, every thread), "peak_mb", "module"} as JSON."""
    o = default_options().factuality._replace(bootstrap_samples=spec["samples"])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    if spec.get("results"):
        inp = factuality.load(stage_inputs(Path(spec["results"])), o)
    else:
        inp = simulated(spec["systems"], spec["per_system"], spec["metrics"])
    result = factuality.compute(inp, o)
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: str(Path(tmp) / Path(v).name) for k, v in outputs.files("factuality", "bench").items()}
        factuality.write(result, o, out)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu_start
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mb": usage.ru_maxrss / 1024, "module": factuality.__file__}))


def timed_job(code: Path, spec: dict) -> dict:
    """:func:`child` of ``code``'s tree in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(code / "src")}
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)], env=env,
                         check=True, capture_output=True, text=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert Path(r["module"]).resolve().is_relative_to(code.resolve()), r["module"]
    return r


def prepare(workdir: Path, names: list[str]) -> dict[str, Path]:
    """The factuality job's inputs of each release: this tree's workflow up to that job (``--cores 1``)."""
    import yaml

    cfg = yaml.safe_load((REPO / "config/config.yaml").read_text())
    cfg["datasets"] = {d: RELEASES[d]() for d in names}
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    targets = [f"results/{d}/factuality/notes.tsv" for d in names]
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--cores",
                    "1", "--omit-from", "factuality", "--quiet", *targets],
                   env={**os.environ, "PYTHONPATH": str(REPO / "src")}, check=True, capture_output=True)
    return {d: workdir / "results" / d for d in names}


def compare(args) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_pipeline import checkout

    names = [d for d in RELEASES if (RAW / ("summeval-official" if d == "summeval" else d)).exists()]
    specs = {}
    with tempfile.TemporaryDirectory() as tmp, checkout(args.before, Path(tmp) / "before") as before:
        tmp = Path(tmp)
        results = {d: Path(args.inputs) / "results" / d for d in names} if args.inputs else prepare(tmp / "inputs", names)
        for d in names:
            specs[d] = {"results": str(results[d]), "samples": args.samples}
        large = f"simulated {args.systems} x {args.per_system}, {args.metrics} metrics"
        specs[large] = {"systems": args.systems, "per_system": args.per_system, "metrics": args.metrics,
                        "samples": args.samples}
        runs: dict[str, dict[str, list[dict]]] = {}
        for d, spec in specs.items():
            for _ in range(args.repeats):
                for name, code in (("before", before), ("after", REPO)):       # alternating: the same load
                    r = timed_job(code, spec)
                    runs.setdefault(d, {}).setdefault(name, []).append(r)
                    print(f"[{name}] {d}: {r['seconds']:.1f} s, CPU {r['cpu']:.1f} s, {r['peak_mb']:.0f} MB", flush=True)
    print()
    print(f"| data set | before {args.before}: wall / CPU (s) | after: wall / CPU (s) | speed-up wall / CPU "
          "| peak memory before / after (MB) |")
    print("|---|---|---|---|---|")
    for d, by in runs.items():
        b, a = (statistics.median(r["seconds"] for r in by[k]) for k in ("before", "after"))
        cb, ca = (statistics.median(r["cpu"] for r in by[k]) for k in ("before", "after"))
        mb, ma = (max(r["peak_mb"] for r in by[k]) for k in ("before", "after"))
        print(f"| {d} | {b:.1f} / {cb:.1f} | {a:.1f} / {ca:.1f} | {b / a:.2f}x / {cb / ca:.2f}x | {mb:.0f} / {ma:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path)
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--inputs", help="a working directory with results/summeval and results/frank (--compare)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--systems", type=int)
    ap.add_argument("--per-system", type=int)
    ap.add_argument("--metrics", type=int)
    ap.add_argument("--samples", type=int, default=1000)
    args = ap.parse_args()
    if args.child:
        return child(json.loads(args.child))
    large = args.compare
    args.systems = args.systems or (24 if large else 9)
    args.per_system = args.per_system or (150 if large else 250)
    args.metrics = args.metrics or (30 if large else 15)
    if args.compare:
        return compare(args)
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
