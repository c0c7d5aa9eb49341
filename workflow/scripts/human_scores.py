"""Human scores per judged summary and per summarizer (Graham 2015 §3)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages import human

with job_log(snakemake.log[0], f"human scores {snakemake.wildcards.dataset}"):
    ds = read_dataset(dict(snakemake.input.items()))
    human.write(human.compute(ds, snakemake.params.options), dict(snakemake.output.items()))
