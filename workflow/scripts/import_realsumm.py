"""Import REALSumm's own release (scores_dicts/abs.pkl and ext.pkl, read without running code) into
the canonical form and a score file of the authors' metric scores."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.data.datasets import write_dataset
from metaeval.data.metric_scores import HEADER
from metaeval.data.realsumm import import_realsumm_pkl
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_realsumm") as log:
    ds, scores, _ = import_realsumm_pkl(snakemake.input.pickles, snakemake.params.name)
    out = dict(snakemake.output.items())
    write_dataset(ds, {k: v for k, v in out.items() if k != "metric_scores"})
    tables.write_tsv(tables.frame(scores, HEADER), out["metric_scores"])
    for warning in ds.warnings:
        log.info("%s", warning)
    log.info("%d summaries, %d judged, %d metric scores", len(ds.summaries), len(ds.judgments), len(scores))
