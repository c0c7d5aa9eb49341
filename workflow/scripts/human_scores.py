"""Human scores per judged summary and per summarizer (Graham 2015 §3)."""
from pathlib import Path

from metaeval.analysis import write_human_tables
from metaeval.datasets import load_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"human scores {snakemake.wildcards.dataset}") as log:
    ds = load_dataset(Path(snakemake.input[0]).parent)
    out = snakemake.output
    write_human_tables(ds, snakemake.params.combinations, snakemake.params.order, out.summaries, out.systems, out.skipped)
