"""Gather the per-(measure, setting) tables into summary_scores.tsv and system_scores.tsv."""
from metaeval.logs import job_log
from metaeval.scoring import gather

with job_log(snakemake.log[0], f"gather scores {snakemake.wildcards.dataset}"):
    p = snakemake.params
    gather(snakemake.input, p.measures, p.settings, p.bleu, p.rouge,
           snakemake.output.summaries, snakemake.output.systems, snakemake.output.signature)
