"""The time the catalog's LLM judges (``llm_summeval``) add to a SummEval run, in one sitting: the
main job of ``benchmarks: [summeval]`` and of ``benchmarks: [summeval, llm_summeval]``, each cold (a
fresh working directory, a cache of its own, a fork server of its own, ``--cores 2``, the tree's
config/config.yaml as a user runs it), the release files fetched from a loopback mirror of
../shared/data/raw (tests/mirror.py). ``--rounds`` rounds alternate which run goes first; it prints
each run's median and the time added over SummEval's own run (budget: 0.25), and the same of the
sums of the jobs' own times (their logs' "done in"; the judges' two jobs' shown per run). One job
alone: benchmarks/time_job.py.

    .venv/bin/python benchmarks/bench_judges.py [--rounds 1] [--jobs]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench_leaderboard import mirror_env, snakemake

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import mirror  # noqa: E402 (tests/mirror.py: the release files served from 127.0.0.1)

REPO = Path(__file__).resolve().parents[1]
RAW = REPO.parent / "shared" / "data" / "raw"
RUNS = {"summeval": ["summeval"], "summeval + llm_summeval": ["summeval", "llm_summeval"]}
BUDGET = 0.25


def run(work: Path, benchmarks: list[str], url: str) -> float:
    """One cold main job of ``benchmarks`` in ``work``: its wall time."""
    (work / "config").mkdir(parents=True)
    (work / "config/config.yaml").write_text((REPO / "config/config.yaml").read_text())
    (work / "bench.yaml").write_text(yaml.safe_dump({"benchmarks": benchmarks}))
    return snakemake(REPO, work, "--configfile", str(work / "bench.yaml"), env=mirror_env(url, work / "cache"))


def job_seconds(work: Path) -> dict[str, float]:
    """Each job's own time, from the last "done in N s" line of its log (results/*/logs/*.log)."""
    out = {}
    for log in sorted(work.glob("results/*/logs/*.log")):
        done = re.findall(r"done in ([0-9.]+) s", log.read_text(encoding="utf-8", errors="replace"))
        if done:
            out[f"{log.parts[-3]}/{log.stem}"] = float(done[-1])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", action="store_true", help="also print each job's own time in both runs (last round)")
    args = ap.parse_args()
    if not RAW.exists():
        print(f"skipped: {RAW} is missing")
        return 0
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    job_times: dict[str, list[float]] = {name: [] for name in RUNS}
    per_job: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        tmp = Path(tmp)
        for r in range(args.rounds):
            order = list(RUNS) if r % 2 == 0 else list(RUNS)[::-1]
            for name in order:
                work = tmp / f"round{r}-{len(RUNS[name])}"
                t = time.perf_counter()
                times[name].append(run(work, RUNS[name], url))
                jobs = per_job[name] = job_seconds(work)
                job_times[name].append(sum(jobs.values()))
                judges = ", ".join(f"{k} {v:.1f} s" for k, v in jobs.items() if "judge" in k)
                print(f"round {r + 1}, {name}: {times[name][-1]:.1f} s (jobs' own times {job_times[name][-1]:.1f} s"
                      f"{'; ' + judges if judges else ''}; wall {time.perf_counter() - t:.1f} s)", flush=True)
    alone, joined = (statistics.median(times[n]) for n in RUNS)
    print(f"summeval alone: median {alone:.1f} s; summeval + llm_summeval: median {joined:.1f} s")
    print(f"added by llm_summeval: {joined - alone:.1f} s = {(joined - alone) / alone:.3f} of SummEval's own run "
          f"(budget {BUDGET:.2f})")
    if args.jobs:
        a, b = (per_job[n] for n in RUNS)
        for job in sorted(set(a) | set(b), key=lambda j: a.get(j, 0) - b.get(j, 0)):
            print(f"  {job}: {a.get(job, 0):.1f} s -> {b.get(job, 0):.1f} s")
    alone, joined = (statistics.median(job_times[n]) for n in RUNS)
    print(f"the jobs' own times, summed: median {alone:.1f} s and {joined:.1f} s: {(joined - alone) / alone:.3f} added")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
