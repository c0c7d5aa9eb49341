"""Per-summary smoothed BLEU and the sufficient statistics of the corpus BLEU, for one setting and shard."""
from metaeval.files import write_text
from metaeval.logs import job_log
from metaeval.stages.scoring import bleu_scores, read_tokens, write_bleu_stats, write_part

w, job, out = snakemake.wildcards, snakemake.params.job, snakemake.output
with job_log(snakemake.log[0], f"score {w.dataset} BLEU_ST{w.stem}_RS{w.stop} shard {w.shard}"):
    result = bleu_scores(read_tokens(snakemake.input.tokens), job.jackknife_systems, job.smoothing)
    write_part(((t, s, None, None, f) for t, s, f in result.per_summary), out.scores)
    write_bleu_stats(result.stats, out.stats)
    write_text(out.signature, "".join(s + "\n" for s in result.signatures))
