"""Import the official SummEval paired annotation jsonl into the canonical form."""
from pathlib import Path

from metaeval.datasets import write_dataset
from metaeval.importers import import_summeval_jsonl
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_summeval") as log:
    ds = import_summeval_jsonl(list(snakemake.input), name=snakemake.params.name)
    write_dataset(ds, Path(snakemake.output[0]).parent)
    log.info("%d summaries, %d judged", len(ds.summaries), len(ds.judgments))
