"""Write the data-set summary table (results/{dataset}/data/summary.tsv)."""
from pathlib import Path

from metaeval.datasets import load_dataset, summary_table, write_summary_table
from metaeval.logs import job_log

with job_log(snakemake.log[0], "summarize_dataset"):
    ds = load_dataset(Path(snakemake.input[0]).parent)
    write_summary_table(summary_table(ds), snakemake.output[0])
