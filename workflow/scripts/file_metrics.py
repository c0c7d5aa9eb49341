"""Check the score files of metrics computed elsewhere against the validated data set; write the
oriented per-summary table, one row per metric and the signature lines."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data import metric_scores
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"file metrics {snakemake.wildcards.dataset}") as log:
    i = snakemake.input
    result = metric_scores.load(list(i.sources), {k: i[k] for k in ("dataset", "summaries", "judgments")},
                                snakemake.params.options)
    for note in result.notes:
        log.warning("%s", note)
    metric_scores.write(result, dict(snakemake.output.items()))
    # what each metric covers of this data set (a top-level file serves several data sets)
    for line in result.coverage():
        log.info("%s", line)
    log.info("%d metrics, %d scores from %d files", len(result.metrics), len(result.rows), len(result.checksums))
