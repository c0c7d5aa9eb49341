"""Validate a canonical data set and write its normalised copy to results/{dataset}/data/."""
from pathlib import Path

from metaeval.datasets import load_dataset, write_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], "validate_dataset") as log:
    ds = load_dataset(Path(snakemake.input.summaries).parent, human_override=snakemake.params.human)
    write_dataset(ds, Path(snakemake.output[0]).parent)
    log.info("valid: %d summaries, %d judged, %d topics", len(ds.summaries), len(ds.judgments), len(ds.topics))
