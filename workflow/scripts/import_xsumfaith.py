"""Import XSumFaith's release (the workers' hallucinated spans and factuality answers, the authors'
scores) into the canonical form, its per-worker judgments as annotations, and a score file of the
authors' metrics."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import tables
from metaeval.data.datasets import write_dataset
from metaeval.data.metric_scores import HEADER
from metaeval.data.xsumfaith import import_xsumfaith
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_xsumfaith") as log:
    ds, scores, declarations = import_xsumfaith(snakemake.input.paths, snakemake.params.name)
    ds.meta["metrics"] = declarations
    out = dict(snakemake.output.items())
    write_dataset(ds, {k: v for k, v in out.items() if k != "metric_scores"})
    tables.write_tsv(tables.frame(sorted(scores), HEADER), out["metric_scores"])
    log.info("%d summaries, %d judged, %d annotations, %d metric scores", len(ds.summaries), len(ds.judgments),
             len(ds.annotations), len(scores))
