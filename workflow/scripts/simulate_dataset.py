"""Generate the embedded default benchmark (metaeval.simulate) in the canonical form."""
from pathlib import Path

from metaeval.datasets import write_dataset
from metaeval.logs import job_log
from metaeval.simulate import SimulationParams, simulate

with job_log(snakemake.log[0], "simulate_dataset") as log:
    ds = simulate(SimulationParams(**snakemake.params.settings), name=snakemake.params.name)
    write_dataset(ds, Path(snakemake.output[0]).parent)
    log.info("%d summaries, %d judged", len(ds.summaries), len(ds.judgments))
