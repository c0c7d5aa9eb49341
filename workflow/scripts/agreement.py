"""Agreement of metric and human verdicts on every pair of summarizers."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import agreement

with job_log(snakemake.log[0], f"agreement {snakemake.wildcards.dataset}"):
    inp = agreement.load(dict(snakemake.input.items()))
    agreement.write(agreement.compute(inp, snakemake.params.options), dict(snakemake.output.items()))
