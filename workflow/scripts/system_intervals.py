"""Bootstrap confidence intervals of every system's ROUGE scores (as ROUGE-1.5.5 -c 95 -r 1000)."""
from pathlib import Path

from metaeval.intervals import system_intervals, write_intervals
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"intervals {snakemake.wildcards.dataset}"):
    p = snakemake.params
    rows = system_intervals(snakemake.input[0], p.resamples, p.confidence, p.seed)
    write_intervals(rows, p.shown, p.resamples, p.confidence, p.seed, str(Path(snakemake.output[0]).parent))
