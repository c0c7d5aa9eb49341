"""Import a NIST DUC/TAC folder and its judgment tables into the canonical form."""
from pathlib import Path

from metaeval.datasets import write_dataset
from metaeval.importers import import_duc_tac
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_duc_tac") as log:
    s = dict(snakemake.params.settings)
    ds = import_duc_tac(s.pop("path"), name=snakemake.params.name, **s)
    write_dataset(ds, Path(snakemake.output[0]).parent)
    log.info("%d summaries, %d judged", len(ds.summaries), len(ds.judgments))
