"""Per-summary smoothed BLEU and the sufficient statistics of the corpus BLEU, for one setting and shard."""
from metaeval.datasets import atomic_write_text
from metaeval.logs import job_log
from metaeval.scoring import bleu_scores, read_tokens, write_bleu_stats, write_part

w = snakemake.wildcards
with job_log(snakemake.log[0], f"score {w.dataset} BLEU_ST{w.stem}_RS{w.stop} shard {w.shard}"):
    result = bleu_scores(read_tokens(snakemake.input[0]), snakemake.params.jackknife_systems, snakemake.params.smoothing)
    write_part(((t, s, None, None, f) for t, s, f in result.per_summary), snakemake.output.summaries)
    write_bleu_stats(result.stats, snakemake.output.stats)
    atomic_write_text(snakemake.output.signature, "".join(s + "\n" for s in result.signatures))
