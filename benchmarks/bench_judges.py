"""The time the catalog's LLM judges (``llm_summeval``) add to a SummEval run, in one sitting: the
main job of ``benchmarks: [summeval]`` and of ``benchmarks: [summeval, llm_summeval]``, each cold (a
fresh working directory, a cache of its own, a fork server of its own, ``--cores 2``, the tree's
config/config.yaml as a user runs it), the release files fetched from a loopback mirror of
../shared/data/raw (tests/mirror.py). ``--rounds`` rounds alternate which run goes first; it prints
each run's median, the added time over SummEval's own run (budget: 0.25), and the judges' two jobs'
own times (their Snakemake benchmark files) of the last round.

    .venv/bin/python benchmarks/bench_judges.py [--rounds 1]
"""
from __future__ import annotations

import argparse
import os
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    if not RAW.exists():
        print(f"skipped: {RAW} is missing")
        return 0
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    times: dict[str, list[float]] = {name: [] for name in RUNS}
    with tempfile.TemporaryDirectory() as tmp, mirror.serve(mirror.build(Path(tmp) / "mirror")) as (url, _):
        tmp = Path(tmp)
        for r in range(args.rounds):
            order = list(RUNS) if r % 2 == 0 else list(RUNS)[::-1]
            for name in order:
                work = tmp / f"round{r}-{len(RUNS[name])}"
                t = time.perf_counter()
                times[name].append(run(work, RUNS[name], url))
                print(f"round {r + 1}, {name}: {times[name][-1]:.1f} s (wall {time.perf_counter() - t:.1f} s)",
                      flush=True)
    alone, joined = (statistics.median(times[n]) for n in RUNS)
    print(f"summeval alone: median {alone:.1f} s; summeval + llm_summeval: median {joined:.1f} s")
    print(f"added by llm_summeval: {joined - alone:.1f} s = {(joined - alone) / alone:.3f} of SummEval's own run "
          f"(budget {BUDGET:.2f})")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
