"""Validate a canonical data set and write its normalised copy to results/{dataset}/data/."""
from metaeval.data.datasets import read_dataset, write_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], "validate_dataset") as log:
    ds = read_dataset(dict(snakemake.input.items()), human_override=snakemake.params.human)
    write_dataset(ds, dict(snakemake.output.items()))
    log.info("valid: %d summaries, %d judged, %d topics", len(ds.summaries), len(ds.judgments), len(ds.topics))
