"""Gather the per-(measure, setting, shard) tables into summary_scores.tsv and system_scores.tsv."""
from metaeval.logs import job_log
from metaeval.scoring import gather

with job_log(snakemake.log[0], f"gather scores {snakemake.wildcards.dataset}"):
    p, o = snakemake.params, snakemake.output
    stats_out = {(s, r): path for (s, r), path in zip(p.settings, o.bleu_stats)} if p.bleu["enabled"] else {}
    gather(snakemake.input, p.measures, p.settings, p.shards, p.bleu, p.rouge, o.summaries, o.systems, o.signature,
           stats_out)
