"""Score every judged summary of one topic shard with one ROUGE measure under one setting."""
from metaeval.logs import job_log
from metaeval.metrics.rouge import parse_measure
from metaeval.stages.scoring import read_tokens, score_measure, write_part

w, job = snakemake.wildcards, snakemake.params.job
with job_log(snakemake.log[0], f"score {w.dataset} {w.measure}_ST{w.stem}_RS{w.stop} shard {w.shard}") as log:
    measure = parse_measure(w.measure, job.wlcs_weight) if job.wlcs_weight is not None else parse_measure(w.measure)
    rows = score_measure(read_tokens(snakemake.input.tokens), measure, job.alpha, job.mode, job.jackknife_systems)
    write_part(rows, snakemake.output.scores)
    log.info("%d summaries scored", len(rows))
