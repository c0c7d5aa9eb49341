"""Validate a canonical data set; write its normalised copy and its summary table to results/{dataset}/data/."""
from metaeval import tables
from metaeval.data.contract import FILES
from metaeval.data.datasets import read_dataset, summary_table, write_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], "validate_dataset") as log:
    ds = read_dataset(dict(snakemake.input.items()), human_override=snakemake.params.human,
                      aggregation_override=snakemake.params.aggregation)
    for message in ds.warnings:
        log.warning("%s", message)
    write_dataset(ds, {k: snakemake.output[k] for k in FILES})
    tables.write_tsv(tables.frame(summary_table(ds), ["statistic", "value"]), snakemake.output.summary)
    log.info("valid: %d summaries, %d judged, %d topics", len(ds.summaries), len(ds.judgments), len(ds.topics))
