"""SERA and SERA-DIS of every judged summary (Cohan & Goharian 2016)."""
from pathlib import Path

from metaeval.datasets import load_dataset
from metaeval.logs import job_log
from metaeval.sera import read_index, run_sera

with job_log(snakemake.log[0], f"SERA {snakemake.wildcards.dataset}") as log:
    i, p, o = snakemake.input, snakemake.params, snakemake.output
    run_sera(load_dataset(Path(i.summaries).parent), read_index(i.index), p.cutoffs, p.queries, p.model, p.mu, p.bm25,
             p.corpus or "the data set's documents.jsonl", o.scores, o.signature, log)
