"""Import a NIST DUC/TAC folder and its judgment tables into the canonical form."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import write_dataset
from metaeval.data.importers import import_duc_tac
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_duc_tac") as log:
    ds = import_duc_tac(snakemake.params.options, name=snakemake.params.name)
    write_dataset(ds, dict(snakemake.output.items()))
    log.info("%d summaries, %d judged", len(ds.summaries), len(ds.judgments))
