"""The statistics of the tested variants: correlation levels, bootstrap, permutation tests,
Kendall variants, tie calibration, pairwise accuracy, null baseline, uncertainty of the winner."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import memo
from metaeval.logs import job_log
from metaeval.stages import statistics

with job_log(snakemake.log[0], f"statistics {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp = statistics.load(dict(snakemake.input.items()), o)
    log.info("%d summarizers x %d variants; %d bootstrap, %d permutation, %d null samples", len(inp.summarizers),
             len(inp.variants), o.bootstrap_samples, o.permutation_samples, o.null_samples)
    with memo.kept_in(snakemake.params.memo):   # rows an earlier run computed are read, not recomputed
        result = statistics.compute(inp, o)
    log.info("%d tested variants: %s", len(result.variants), ", ".join(result.variants))
    statistics.write(result, o, dict(snakemake.output.items()))
