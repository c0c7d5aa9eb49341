"""Time one job of the workflow on its own inputs, warm: as the fork server runs it (the libraries
and the project's modules imported once, numba's compiler set up, each run in a child forked from
that process), the best of N runs' wall time.

    # once: run the workflow keeping the jobs' scripts (Snakemake writes each with its inputs pickled in)
    snakemake --cores 2 --skip-script-cleanup
    # then, per job, with either tree's library first on the path (from that run's working directory):
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=<tree>/src python benchmarks/time_job.py .snakemake/scripts/tmpXXXX.<job>.py [--runs 3]

Comparing two trees on the same script compares their libraries (the door's own lines are in the
script, so a door that changed needs the script Snakemake wrote from that tree). It rewrites that
job's outputs. docs/performance.md ("Critical path first, and less work in the analyses") used it;
benchmarks/profile_job.py profiles a job instead.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("script")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.environ["METAEVAL_FORKSERVER"] = "0"     # run here, not in a fork server's child
    from metaeval import forkserver, forkserver_process

    for name in (*forkserver.PRELOAD_FIRST, *forkserver.PRELOAD_THEN):
        forkserver_process._preload(name)
    best = float("inf")
    for _ in range(args.runs):          # each run in a child forked from the warm process, as a job is
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            sys.argv = [args.script]
            code = 0
            try:
                runpy.run_path(args.script, run_name="__main__")
            except BaseException as e:  # noqa: BLE001 - the child reports and exits, whatever happened
                print(f"{args.script}: {type(e).__name__}: {e}", file=sys.stderr)
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            return 1
        best = min(best, time.perf_counter() - start)
    print(f"{os.path.basename(args.script)}: best of {args.runs} runs {best:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
