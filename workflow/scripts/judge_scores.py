"""The door of the judges' reading job: metaeval.stages.judge_scores' load -> compute -> write."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import judge_scores

with job_log(snakemake.log[0], f"judge scores {snakemake.wildcards.dataset}"):
    options = snakemake.params.options
    result = judge_scores.compute(judge_scores.load(dict(snakemake.input.items()), options), options)
    judge_scores.write(result, options, dict(snakemake.output.items()))
