"""Gather the per-(measure, setting, shard) tables (and SERA's) into summary_scores.tsv and system_scores.tsv."""
from pathlib import Path

from metaeval.logs import job_log
from metaeval.scoring import gather

with job_log(snakemake.log[0], f"gather scores {snakemake.wildcards.dataset}"):
    i, p, o = snakemake.input, snakemake.params, snakemake.output
    stats_out = {(s, r): path for (s, r), path in zip(p.settings, o.bleu_stats)} if p.bleu["enabled"] else {}
    sera = [i.sera] if "sera" in i.keys() else []
    signatures = [Path(i.sera_signature).read_text().strip()] if sera else []
    gather(list(i.parts), p.measures, p.settings, p.shards, p.bleu, p.rouge, o.summaries, o.systems, o.signature,
           stats_out, sera, signatures)
