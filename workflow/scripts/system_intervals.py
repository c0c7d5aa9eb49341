"""Bootstrap confidence intervals of every system's ROUGE scores (as ROUGE-1.5.5 -c 95 -r 1000)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.parts import parts_by_setting
from metaeval.stages import intervals

with job_log(snakemake.log[0], f"intervals {snakemake.wildcards.dataset}"):
    o = snakemake.params.options
    rows = intervals.compute(intervals.load(parts_by_setting(dict(snakemake.input.items()), "scores")), o)
    intervals.write(rows, o, dict(snakemake.output.items()))
