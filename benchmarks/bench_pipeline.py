"""The whole main job, cold, per data set: wall time, and time and peak memory per stage.

    .venv/bin/python benchmarks/bench_pipeline.py [--data default summeval sim400 sim2000] [--before recorded|run|skip]

For each data set the main job runs in a fresh working directory (``--cores 2``; the numba cache is
warmed first by a run of the small scenario, so compilation is not counted) and the table gives
the wall time, the number of jobs, and per stage the sum of its jobs' own times and their
largest peak memory (every job logs both; a job's own time excludes starting Python and importing
its libraries, which the wall time includes). Data sets: ``default`` (the embedded one, 40 topics
x 16 systems + 4 humans), ``summeval`` (../shared/data/summeval, 100 x 16, 11 references),
``sim400`` (simulated, 400 x 24 + 4 humans, 11,200 judged summaries) and ``sim2000`` (2,000 x 30
+ 4 humans, 68,000).

``--before run`` runs the same on the last commit before issue 12 (git worktree, its own
config); ``recorded`` (the default) uses the figures measured on this machine before issue 12
(below), since the old code needs about an hour for sim2000; ``skip`` shows only the current tree.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
BEFORE = "1c617f4"          # issue 11 landed, issue 12 not started
SUMMEVAL = REPO.parent / "shared" / "data" / "summeval"
DATASETS = {
    "default": None,
    "summeval": {"format": "canonical", "path": str(SUMMEVAL)},
    "sim400": {"format": "simulated", "topics": 400, "systems": 24, "humans": 4},
    "sim2000": {"format": "simulated", "topics": 2000, "systems": 30, "humans": 4},
}
# Whole main job before issue 12 on this 2-core machine (seconds): default and summeval measured at
# the start of this work (commit 59fea5f; 1c617f4 measured the same within 10 %); sim400 from the
# issue's own measurement (13 min 05 s); sim2000 was not run before (extrapolated from sim400's
# per-topic cost and its quadratic summary-level stage, it would take well over an hour).
RECORDED = {"default": 80.0, "summeval": 123.0, "sim400": 785.0, "sim2000": None}
STAGES = [  # (stage, log-name prefixes), old and new job names
    ("data", ("simulate_dataset", "import_", "validate_dataset", "summarize_dataset")),
    ("scoring", ("preprocess_", "score_", "gather_scores", "sera_index")),
    ("intervals", ("system_intervals",)),
    ("human scores", ("human_scores",)),
    ("correlation", ("correlate", "graham_tables", "correlation_tables")),
    ("agreement", ("agreement",)),
    ("re-ranking", ("rerank",)),
    ("sweeps", ("reference_sweep", "length_sweep", "sweeps")),
    ("statistics", ("statistics",)),
    ("annotators", ("annotators",)),
    ("factuality", ("factuality",)),
    ("report", ("report",)),
]
DONE = re.compile(r"done in ([0-9.]+) s, peak memory ([0-9]+) MB")


def run(code: Path, workdir: Path, dataset: str) -> dict:
    cfg = yaml.safe_load((code / "config/config.yaml").read_text())
    entry = DATASETS[dataset]
    cfg["datasets"] = {dataset: entry or cfg["datasets"]["default"]}
    return run_config(code, workdir, cfg, dataset)


def run_config(code: Path, workdir: Path, cfg: dict, dataset: str) -> dict:
    """The main job of ``code`` with config ``cfg`` in ``workdir``: wall time, jobs, and per stage
    the sum of its jobs' own times and their largest peak memory (bench_targets.py calls it too)."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    env = {**os.environ, "PYTHONPATH": str(code / "src")}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(workdir), "--cores",
                    "2", "all", "--quiet"], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t
    stages: dict[str, list[float]] = {}
    jobs = 0
    for log in (workdir / "results" / dataset / "logs").glob("*.log"):
        m = DONE.search(log.read_text())
        if not m:
            continue
        jobs += 1
        stage = next((s for s, prefixes in STAGES if log.stem.startswith(prefixes)), "other")
        seconds, mb = stages.setdefault(stage, [0.0, 0.0])
        stages[stage] = [seconds + float(m[1]), max(mb, float(m[2]))]
    return {"wall": wall, "jobs": jobs, "stages": stages}


@contextlib.contextmanager
def checkout(revision: str, folder: Path):
    """A detached git worktree of ``revision`` in ``folder`` for the duration (removed after), so
    that a benchmark runs the code before a change beside the current tree."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), revision],
                   check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], capture_output=True)


def warm(code: Path, tmp: Path) -> None:
    """One run of the small scenario, so that numba's cache holds the compiled kernels."""
    import shutil

    work = tmp / f"warm-{code.name}"
    shutil.copytree(REPO / ".test/input", work / "input")
    (work / "config").mkdir(parents=True, exist_ok=True)
    (work / "config/config.yaml").write_text((REPO / ".test/config/config.yaml").read_text())
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(work), "--cores", "2",
                    "--quiet"], env={**os.environ, "PYTHONPATH": str(code / "src")}, check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--before", default="recorded", choices=["recorded", "run", "skip"])
    args = ap.parse_args()
    data = [d for d in args.data if d != "summeval" or SUMMEVAL.exists()]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trees = {"after": REPO}
        if args.before == "run":
            trees["before"] = tmp / "before"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(trees["before"]), BEFORE],
                           check=True, capture_output=True)
        try:
            results: dict[str, dict[str, dict]] = {}
            for name, code in trees.items():
                warm(code, tmp)
                for d in data:
                    if name == "before" and d == "sim2000":
                        continue
                    results.setdefault(d, {})[name] = run(code, tmp / f"{name}-{d}", d)
                    r = results[d][name]
                    print(f"[{name}] {d}: {r['wall']:.1f} s, {r['jobs']} jobs", flush=True)
        finally:
            if "before" in trees:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(trees["before"])],
                               capture_output=True)
    print()
    print("| data set | before (s) | after (s) | speed-up | jobs | largest stage (s) | peak memory of any job (MB) |")
    print("|---|---|---|---|---|---|---|")
    for d in data:
        after = results[d]["after"]
        before = results[d].get("before", {}).get("wall") if args.before == "run" else \
            (RECORDED[d] if args.before == "recorded" else None)
        stage, (sec, _) = max(after["stages"].items(), key=lambda kv: kv[1][0])
        peak = max(mb for _, mb in after["stages"].values())
        ratio = f"{before / after['wall']:.1f}x" if before else "-"
        print(f"| {d} | {before if before else '-'} | {after['wall']:.1f} | {ratio} | {after['jobs']} | "
              f"{stage} {sec:.1f} | {peak:.0f} |")
    print()
    for d in data:
        for name, r in sorted(results[d].items()):
            print(f"{d}, per stage {name} (sum of job times s / peak MB):",
                  ", ".join(f"{s} {v[0]:.1f}/{v[1]:.0f}" for s, v in sorted(r["stages"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
