"""System-level correlations, bootstrap intervals, Williams tests, optimal variants, clusters."""
from metaeval.logs import job_log
from metaeval.stages import correlation

with job_log(snakemake.log[0], f"correlate {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp, skipped = correlation.load(dict(snakemake.input.items()), o)
    log.info("%d summarizers x %d variants x %d combinations; %d bootstrap samples (%s)", len(inp.summarizers),
             len(inp.variants), len(inp.combinations), o.samples, o.resample)
    result = correlation.compute(inp, o, skipped, correlation.read_permutation_basis(dict(snakemake.input.items())))
    correlation.write(result, o.combinations, dict(snakemake.output.items()))
