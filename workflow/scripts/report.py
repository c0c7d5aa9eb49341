"""The self-contained HTML report of one data set."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import report

with job_log(snakemake.log[0], f"report {snakemake.wildcards.dataset}"):
    html = report.build(dict(snakemake.input.items()), snakemake.params.config)
    report.write(html, dict(snakemake.output.items()))
