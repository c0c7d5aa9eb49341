"""System-level correlations, bootstrap intervals, Williams tests, optimal variants, clusters."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import memo
from metaeval.logs import job_log
from metaeval.stages import correlation

with job_log(snakemake.log[0], f"correlate {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp, skipped = correlation.load(dict(snakemake.input.items()), o)
    log.info("%d summarizers x %d variants x %d combinations; %d bootstrap samples (%s)", len(inp.summarizers),
             len(inp.variants), len(inp.combinations), o.bootstrap_samples, o.resample)
    # the annotators the bootstrap resamples (correlation.resample_annotators)
    model = None
    if o.resample_annotators:      # imported only then: the annotators module costs a second to import
        from metaeval.stages import annotators

        model = annotators.resampling_model(dict(snakemake.input.items()), inp)
    with memo.kept_in(snakemake.params.memo):   # rows an earlier run computed are read, not recomputed
        result = correlation.compute(inp, o, skipped,
                                     correlation.read_permutation_basis(dict(snakemake.input.items())), model)
    correlation.write(result, o.combinations, dict(snakemake.output.items()))
