"""Import a release declared as a table (format: table; the mapping is the data set's config entry)
into the canonical form and a score file of its metric columns (header only when it maps none)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.data.datasets import write_dataset
from metaeval.data.metric_scores import HEADER
from metaeval.data.table import import_table
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_table") as log:
    ds, scores = import_table(snakemake.params.options, snakemake.params.name)
    out = dict(snakemake.output.items())
    write_dataset(ds, {k: v for k, v in out.items() if k != "metric_scores"})
    tables.write_tsv(tables.frame(scores, HEADER), out["metric_scores"])
    for warning in ds.warnings:
        log.warning("%s", warning)
    log.info("%d summaries, %d judged, %d metric scores", len(ds.summaries), len(ds.judgments), len(scores))
