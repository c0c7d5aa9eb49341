"""Texts out: every judged summary of a data set with its references and source, one JSON object a
line, for a metric computed elsewhere (results/to_score/{dataset}.jsonl)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import to_score

with job_log(snakemake.log[0], f"to_score {snakemake.wildcards.dataset}") as log:
    options = snakemake.params.options
    result = to_score.compute(to_score.load(dict(snakemake.input.items()), options), options)
    for note in result.notes:
        log.warning("%s", note)
    to_score.write(result, snakemake.output[0])
    log.info("%d judged summaries written to %s", len(result.records), snakemake.output[0])
