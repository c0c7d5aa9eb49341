"""Systems re-ranked by the best variant; pairwise significance under it; the re-ranking of every target."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import rerank

with job_log(snakemake.log[0], f"rerank {snakemake.wildcards.dataset}"):
    o = snakemake.params.options
    inp, correlations = rerank.load(dict(snakemake.input.items()), o)
    rerank.write(rerank.compute(inp, correlations, o), dict(snakemake.output.items()))
    rerank.write_by_target(rerank.by_target(inp, correlations, o), snakemake.output.by_target)
