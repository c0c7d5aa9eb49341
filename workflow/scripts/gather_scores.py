"""Gather the per-(measure, setting, shard) tables (and SERA's, chrF's and the file metrics') into summary_scores.tsv and system_scores.tsv."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import scoring

with job_log(snakemake.log[0], f"gather scores {snakemake.wildcards.dataset}"):
    i, o = dict(snakemake.input.items()), snakemake.params.options
    gathered = scoring.load_parts(i, o.rouge, o.bleu, o.shards)
    scoring.write_gathered(gathered, o.rouge, dict(snakemake.output.items()))
