"""Import FRANK's release (human annotations and the baseline metrics' scores; no texts) into the
canonical form and a score file of the baseline metrics."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from pathlib import Path

from metaeval import tables
from metaeval.data.datasets import write_dataset
from metaeval.data.frank import import_frank
from metaeval.data.metric_scores import HEADER
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_frank") as log:
    ds, scores, declarations = import_frank(Path(snakemake.input.human_annotations).parent, snakemake.params.name)
    ds.meta["metrics"] = declarations
    out = dict(snakemake.output.items())
    write_dataset(ds, {k: v for k, v in out.items() if k != "metric_scores"})
    tables.write_tsv(tables.frame(sorted(scores), HEADER), out["metric_scores"])
    log.info("%d summaries, %d judged, %d metric scores", len(ds.summaries), len(ds.judgments), len(scores))
