"""Systems re-ranked by the best variant; pairwise significance under it."""
from pathlib import Path

from metaeval.comparisons import run_rerank
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"rerank {snakemake.wildcards.dataset}"):
    p = snakemake.params
    run_rerank(dict(snakemake.input.items()), p.combination, p.best, p.original, p.alpha, p.summarizers,
               str(Path(snakemake.output[0]).parent))
