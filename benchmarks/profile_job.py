"""Profile one job of the workflow on its own inputs, with the process's CPU time as the clock (so
that other work on the machine inflates the figures less than it would wall time).

    # once: run the workflow keeping the jobs' scripts (Snakemake writes each with its inputs pickled in)
    snakemake --cores 2 --skip-script-cleanup [--forcerun statistics correlate ...]
    # then, per job, with either tree's library first on the path:
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=<tree>/src python benchmarks/profile_job.py out.prof .snakemake/scripts/tmpXXXX.<job>.py
    python -c "import pstats; pstats.Stats('out.prof').sort_stats('cumulative').print_stats(30)"

OPENBLAS_NUM_THREADS=1 is what Snakemake sets for a one-thread job; without it BLAS may split its
sums over threads and the outputs differ in the last bit from run to run. Run from the working
directory of that workflow run (the script's paths are relative to it); it rewrites that job's
outputs. docs/performance.md ("The analyses at the engine's pace") used it.
"""
import cProfile
import os
import runpy
import sys
import time


def main() -> int:
    out, script = sys.argv[1], sys.argv[2]
    os.environ["METAEVAL_FORKSERVER"] = "0"     # profile here, not in a fork server's child
    sys.argv = [script]
    profile = cProfile.Profile(timer=time.process_time)
    profile.enable()
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        profile.disable()
        profile.dump_stats(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
