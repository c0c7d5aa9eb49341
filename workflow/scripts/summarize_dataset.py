"""Write the data-set summary table (results/{dataset}/data/summary.tsv)."""
from metaeval import tables
from metaeval.data.datasets import read_dataset, summary_table
from metaeval.logs import job_log

with job_log(snakemake.log[0], "summarize_dataset"):
    ds = read_dataset(dict(snakemake.input.items()))
    tables.write_tsv(tables.frame(summary_table(ds), ["statistic", "value"]), snakemake.output.summary)
