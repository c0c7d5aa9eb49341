"""The whole main job, cold, per data set: wall time, and time and peak memory per stage, before and
after a change, in one session.

    .venv/bin/python benchmarks/bench_pipeline.py [--data default summeval summeval_release sim400 sim2000 benchmarks]
                                                  [--before run|recorded|skip] [--before-commit f6c4bbb]

For each data set the main job runs in a fresh working directory (``--cores 2``; the numba cache is
warmed first by a run of the small scenario in each tree, so compilation is not counted) and the
table gives the wall time, the number of jobs, and per stage the sum of its jobs' own times and
their largest peak memory (every job logs both; a job's own time excludes starting Python and
importing its libraries, which the wall time includes). Data sets, each tree with its own
config/config.yaml (so its own defaults):

* ``default``: the embedded one, 40 topics x 16 systems + 4 humans;
* ``summeval``: the canonical folder ../shared/data/summeval, 100 x 16, 11 references;
* ``summeval_release``: SummEval as released (``summeval_jsonl``, ../shared/data/raw/summeval-official,
  12 systems x 100, 3 experts + 5 crowd workers): since "every dimension a target", every dimension is a target beside
  Graham's combinations, before it Graham's combinations alone, so the ratio is the cost of the
  whole answer per dimension against the old answer;
* ``sim400`` / ``sim2000``: simulated, 400 x 24 + 4 humans (11,200 judged summaries) and 2,000 x 30
  + 4 humans (68,000); sim2000 runs on the current tree only (linearity: its time over sim400's);
* ``benchmarks``: the seven released benchmarks of .test/config/benchmarks.yaml in one command
  (``snakemake --cores 2 --configfile .test/config/benchmarks.yaml``; ../shared/data/raw).

``--before run`` (the default) runs the same on ``--before-commit`` (default f6c4bbb, the last
commit before "every dimension a target") in a git worktree in the same session, so the
ratios compare like with like on whatever load the machine has; ``recorded`` uses the figures the
issue measured at f6c4bbb on a quiet machine (SummEval and sim400 only); ``skip`` shows the current
tree alone. The budgets of the speed issue are checked at the end (ratio after / before).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))       # tests/mirror.py: the catalog's benchmarks from the copies of their files
BEFORE = "f6c4bbb"          # "every dimension a target" not started
SHARED = REPO.parent / "shared" / "data"
SUMMEVAL = SHARED / "summeval"
RELEASE = SHARED / "raw" / "summeval-official"
DATASETS = {
    "default": None,
    "summeval": {"format": "canonical", "path": str(SUMMEVAL)},
    "summeval_release": {"format": "summeval_jsonl",
                         "paths": sorted(str(p) for p in RELEASE.glob("M*_outputs_annotations.jsonl"))},
    "sim400": {"format": "simulated", "topics": 400, "systems": 24, "humans": 4},
    "sim2000": {"format": "simulated", "topics": 2000, "systems": 30, "humans": 4},
    "benchmarks": "benchmarks",     # .test/config/benchmarks.yaml's seven data sets
}
NEEDS = {"summeval": SUMMEVAL, "summeval_release": RELEASE, "benchmarks": SHARED / "raw"}
AFTER_ONLY = {"sim2000"}
# The main job at f6c4bbb on a quiet 2-core machine (seconds; the measurement).
RECORDED = {"summeval": 72.9, "sim400": 267.0}
# The issue's budgets: the largest ratio after / before (sim2000: its time over sim400's, this tree).
BUDGETS = {"default": 0.5, "summeval": 0.5, "summeval_release": 0.5, "sim400": 0.35, "benchmarks": 0.5}
LINEAR = 6.1            # sim2000 has 6.1x sim400's judged summaries
MEMORY_MB = 1024        # no job over 1 GB (sim400)
STAGES = [  # (stage, log-name prefixes), old and new job names
    ("data", ("simulate_dataset", "import_", "validate_dataset", "summarize_dataset")),
    ("scoring", ("preprocess_", "score_", "gather_scores", "sera_index", "file_metrics")),
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
    ("across", ("across",)),
]
DONE = re.compile(r"done in ([0-9.]+) s, peak memory ([0-9]+) MB")


def config_for(code: Path, dataset: str) -> dict:
    """``code``'s own config/config.yaml with the data set(s) of ``dataset``."""
    cfg = yaml.safe_load((code / "config/config.yaml").read_text())
    entry = DATASETS[dataset]
    if entry == "benchmarks":
        extra = yaml.safe_load((code / ".test/config/benchmarks.yaml").read_text())
        if "benchmarks" in extra:    # the catalog's: read from the copies of their files, as a tree before it did
            from mirror import local_entry

            cfg["datasets"] = {name: local_entry(name, SHARED / "raw") for name in extra["benchmarks"]}
            return cfg
        for name, item in extra["datasets"].items():     # its paths are relative to the repository
            for key in ("path", "paths"):
                if key in item:
                    item[key] = [str((code / p).resolve()) for p in item[key]] if key == "paths" else \
                        str((code / item[key]).resolve())
        cfg.update(extra)
        # the release folder beside the tree being run may not exist (a temporary worktree): the shared one
        text = yaml.safe_dump(cfg).replace(str((code.parent / "shared").resolve()), str(SHARED.parent))
        return yaml.safe_load(text)
    cfg["datasets"] = {dataset: entry or cfg["datasets"]["default"]}
    return cfg


def run(code: Path, workdir: Path, dataset: str) -> dict:
    return run_config(code, workdir, config_for(code, dataset), None if dataset == "benchmarks" else dataset)


def run_config(code: Path, workdir: Path, cfg: dict, dataset: str | None) -> dict:
    """The main job of ``code`` with config ``cfg`` in ``workdir``: wall time, jobs, and per stage
    the sum of its jobs' own times and their largest peak memory, over ``dataset``'s logs (None:
    every data set's and the verdict across them; bench_targets.py calls it too)."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    # A fork server of its own (metaeval.forkserver): each run starts and ends its own, in a folder
    # of its own here.
    servers = tempfile.mkdtemp(prefix="fs")
    env = {**os.environ, "PYTHONPATH": str(code / "src"), "METAEVAL_FORKSERVER_DIR": servers}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(workdir), "--cores",
                    "2", "all", "--quiet"], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t
    shutil.rmtree(servers, ignore_errors=True)
    stages: dict[str, list[float]] = {}
    jobs = 0
    for log in (workdir / "results").glob(f"{dataset or '*'}/logs/*.log"):
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
    work = tmp / f"warm-{code.name}"
    shutil.copytree(REPO / ".test/input", work / "input")
    (work / "config").mkdir(parents=True, exist_ok=True)
    (work / "config/config.yaml").write_text((REPO / ".test/config/config.yaml").read_text())
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(code / "Snakefile"), "-d", str(work), "--cores", "2",
                    "--quiet"], env={**os.environ, "PYTHONPATH": str(code / "src")}, check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--before", default="run", choices=["run", "recorded", "skip"])
    ap.add_argument("--before-commit", default=BEFORE, help=f"the commit measured as 'before' (default {BEFORE})")
    args = ap.parse_args()
    data = [d for d in args.data if d not in NEEDS or NEEDS[d].exists()]
    for d in sorted(set(args.data) - set(data)):
        print(f"skipped {d}: {NEEDS[d]} is missing", flush=True)
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        tmp = Path(tmp)
        trees = {"after": REPO}
        if args.before == "run":
            trees["before"] = stack.enter_context(checkout(args.before_commit, tmp / "before"))
        for name, code in trees.items():
            warm(code, tmp)
        # the two trees alternate per data set, so that a change of the machine's load falls on both
        for d in data:
            for name, code in trees.items():
                if name == "before" and d in AFTER_ONLY:
                    continue
                r = results.setdefault(d, {})[name] = run(code, tmp / f"{name}-{d}", d)
                print(f"[{name}] {d}: {r['wall']:.1f} s, {r['jobs']} jobs", flush=True)
    print_tables(data, results, args.before)
    return 0


def before_wall(results: dict, d: str, how: str) -> float | None:
    if how == "run":
        return results[d].get("before", {}).get("wall")
    return RECORDED.get(d) if how == "recorded" else None


def print_tables(data: list[str], results: dict, how: str) -> None:
    """The wall times and ratios, the per-stage sums, and the issue's budgets."""
    print()
    print("| data set | before (s) | after (s) | after / before | jobs (before) | largest stage after (s) | peak memory of any job after (MB) |")
    print("|---|---|---|---|---|---|---|")
    for d in data:
        after = results[d]["after"]
        before = before_wall(results, d, how)
        jobs_before = results[d].get("before", {}).get("jobs", "-")
        stage, (sec, _) = max(after["stages"].items(), key=lambda kv: kv[1][0])
        peak = max(mb for _, mb in after["stages"].values())
        ratio = f"{after['wall'] / before:.2f}" if before else "-"
        print(f"| {d} | {f'{before:.1f}' if before else '-'} | {after['wall']:.1f} | {ratio} | {after['jobs']} "
              f"({jobs_before}) | {stage} {sec:.1f} | {peak:.0f} |")
    print()
    for d in data:
        for name, r in sorted(results[d].items()):
            print(f"{d}, per stage {name} (sum of job times s / peak MB):",
                  ", ".join(f"{s} {v[0]:.1f}/{v[1]:.0f}" for s, v in sorted(r["stages"].items())))
    print()
    print("| budget | measured | limit | met |")
    print("|---|---|---|---|")
    for d in data:
        before = before_wall(results, d, how)
        if d in BUDGETS and before:
            ratio = results[d]["after"]["wall"] / before
            print(f"| {d}: after / before | {ratio:.2f} | {BUDGETS[d]} | {'yes' if ratio <= BUDGETS[d] else 'NO'} |")
    if "sim400" in data:
        peak = max(mb for _, mb in results["sim400"]["after"]["stages"].values())
        print(f"| sim400: peak memory of any job (MB) | {peak:.0f} | {MEMORY_MB} | {'yes' if peak <= MEMORY_MB else 'NO'} |")
    if "sim400" in data and "sim2000" in data:
        ratio = results["sim2000"]["after"]["wall"] / results["sim400"]["after"]["wall"]
        print(f"| sim2000 / sim400 (this tree) | {ratio:.2f} | {LINEAR} | {'yes' if ratio <= LINEAR else 'NO'} |")


if __name__ == "__main__":
    sys.exit(main())
