"""What soft pairwise accuracy (every variant and target) and the curves of what a score difference
means cost the main job, on SummEval, in one sitting.

    .venv/bin/python benchmarks/bench_soft_pairwise.py [--runs 2] [--dataset summeval]

The main job (``--cores 2``) of this tree on ../shared/data/summeval (the canonical folder: 100
topics x 16 systems), each time in a fresh working directory, alternately with
``soft_pairwise.enabled: true`` (the soft pairwise job per data set and the pooled ``delta_curves``
job) and ``false`` (neither), ``--runs`` times each (the numba cache warmed first by the small
scenario). Prints each run's wall time, the two jobs' own times (their logs), and the ratio of the
median wall times with / without, against the budget of 1.2 (SPA for every metric adds at most 20 %);
and, less sensitive to the machine's load changing between runs, within each run with SPA the two
jobs' own times over the other jobs' own times. Uses bench_pipeline.py's runner (a fork server of
its own per run, as the main job starts one).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import DATASETS, DONE, NEEDS, REPO, config_for, run_config, warm  # noqa: E402

BUDGET = 1.2


def job_seconds(workdir: Path, pattern: str) -> float:
    return sum(float(m[1]) for log in workdir.glob(pattern) if (m := DONE.search(log.read_text())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--dataset", default="summeval", choices=[d for d in DATASETS if d != "benchmarks"])
    a = ap.parse_args()
    if a.dataset in NEEDS and not NEEDS[a.dataset].exists():
        print(f"{NEEDS[a.dataset]} is missing")
        return 1
    walls: dict[bool, list[float]] = {True: [], False: []}
    shares: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        warm(REPO, tmp)
        for k in range(a.runs):
            for enabled in (True, False):
                cfg = config_for(REPO, a.dataset)
                cfg.setdefault("soft_pairwise", {})["enabled"] = enabled
                work = tmp / f"{'with' if enabled else 'without'}-{k}"
                r = run_config(REPO, work, cfg, a.dataset)
                walls[enabled].append(r["wall"])
                own = ""
                if enabled:
                    spa = job_seconds(work, "results/*/logs/soft_pairwise.log")
                    curves = job_seconds(work, "results/all/logs/delta_curves.log")
                    rest = job_seconds(work, "results/*/logs/*.log") - spa - curves   # all/: curves
                    shares.append((spa + curves) / rest)
                    own = (f"; soft_pairwise job {spa:.1f} s, delta_curves job {curves:.1f} s, the other jobs "
                           f"{rest:.1f} s (own times)")
                print(f"{'with' if enabled else 'without'} SPA, run {k + 1}: {r['wall']:.1f} s wall, "
                      f"{r['jobs']} jobs{own}", flush=True)
    with_, without = statistics.median(walls[True]), statistics.median(walls[False])
    ratio = with_ / without
    print(f"\n{a.dataset}: median wall with {with_:.1f} s, without {without:.1f} s: ratio {ratio:.2f} "
          f"(budget {BUDGET}: {'met' if ratio <= BUDGET else 'NOT met'})")
    # each run with SPA against the run without it that follows it (adjacent, so under similar load)
    paired = [w / wo for w, wo in zip(walls[True], walls[False])]
    print(f"paired wall ratios {', '.join(f'{r:.2f}' for r in paired)}: median {statistics.median(paired):.2f} "
          f"(budget {BUDGET}: {'met' if statistics.median(paired) <= BUDGET else 'NOT met'})")
    share = statistics.median(shares)
    print(f"within the runs with SPA: the two jobs' own times are {100 * share:.1f} % of the other jobs' "
          f"(median of {len(shares)} runs; budget 20 %: {'met' if share <= BUDGET - 1 else 'NOT met'})")
    print("config:", yaml.safe_dump({"soft_pairwise": config_for(REPO, a.dataset).get("soft_pairwise")},
                                    default_flow_style=True).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
