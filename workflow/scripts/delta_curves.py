"""What a score difference means, across the data sets (results/all/): curves, thresholds, figures."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import delta

with job_log(snakemake.log[0], "what a score difference means"):
    pairs = {k[len("pairs__"):]: v for k, v in snakemake.input.items() if k.startswith("pairs__")}
    o = snakemake.params.options
    delta.write(delta.compute(delta.load(pairs), o), dict(snakemake.output.items()))
