"""Validate a canonical data set and its score files (as the file metrics job checks them, so that a
bad one stops the run before any analysis; the config entry's metric declarations are checked
against the files by the file metrics job); write its normalised copy and its summary table to
results/{dataset}/data/."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.data import metric_scores
from metaeval.data.contract import FILES
from metaeval.data.datasets import check_lone_references_scored, read_dataset, summary_table, write_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], "validate_dataset") as log:
    files = {k: v for k, v in snakemake.input.items() if k in FILES}
    ds = read_dataset(files, human_override=snakemake.params.human, aggregation_override=snakemake.params.aggregation)
    ds.meta.update(snakemake.params.about)
    for message in ds.warnings:
        log.warning("%s", message)
    score_files = list(snakemake.input.score_files)
    scored = set()
    if score_files:
        checked = metric_scores.check(score_files, ds, files["dataset"], snakemake.params.file_metrics)
        log.info("score files valid: %d metrics, %d scores from %d files", len(checked.metrics), len(checked.rows),
                 len(score_files))
        scored = {(r.topic, r.summarizer) for r in checked.rows}
    check_lone_references_scored(ds, scored, files["judgments"])
    write_dataset(ds, {k: snakemake.output[k] for k in FILES})
    tables.write_tsv(tables.frame(summary_table(ds), ["statistic", "value"]), snakemake.output.summary)
    log.info("valid: %d summaries, %d judged, %d topics", len(ds.summaries), len(ds.judgments), len(ds.topics))
