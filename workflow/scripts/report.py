"""The self-contained HTML report of one data set."""
from pathlib import Path

from metaeval.logs import job_log
from metaeval.report import build_report

with job_log(snakemake.log[0], f"report {snakemake.wildcards.dataset}"):
    build_report(str(Path(snakemake.output[0]).parent), snakemake.params.config, snakemake.output[0])
