"""Agreement of metric and human verdicts on every pair of summarizers."""
from pathlib import Path

from metaeval.comparisons import run_agreement
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"agreement {snakemake.wildcards.dataset}"):
    p = snakemake.params
    run_agreement(dict(snakemake.input.items()), p.combinations, p.alpha, p.min_topics, p.baseline,
                  str(Path(snakemake.output[0]).parent))
