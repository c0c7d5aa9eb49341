"""Calibration on known truth: the tables (error / power, coverage, topics needed) and the figure."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import calibration

with job_log(snakemake.log[0], f"calibration tables {snakemake.wildcards.dataset}") as log:
    i = snakemake.input
    grid = [path for key, path in i.items() if key.startswith("grid_")]
    result = calibration.gather(i.model, i.rejections, i.coverage, grid, snakemake.params.options)
    for row in result.needed:
        log.info("topics needed: %s %s = %g: %s", *row[:3], row[4] if row[4] is not None else f"> {row[7]}")
    calibration.write_tables(result, dict(snakemake.output.items()))
