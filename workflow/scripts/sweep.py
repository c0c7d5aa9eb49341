"""The reference-count or the length sweep of a data set (whichever rule runs this)."""
from pathlib import Path

from metaeval.datasets import load_dataset
from metaeval.logs import job_log
from metaeval.sweeps import run_sweep_tables

with job_log(snakemake.log[0], f"{snakemake.rule} {snakemake.wildcards.dataset}") as log:
    p = snakemake.params
    lengths = snakemake.rule == "length_sweep"
    run_sweep_tables(load_dataset(Path(snakemake.input.data[0]).parent), snakemake.input.system_human,
                     "lengths" if lengths else "references", p.variants, p.combination, p.alpha, p.mode,
                     p.word_limits if lengths else (), p.compression if lengths else (),
                     str(Path(snakemake.output[0]).parent), log)
