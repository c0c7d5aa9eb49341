"""Score every judged summary of one topic shard with one ROUGE measure under one setting."""
from metaeval.logs import job_log
from metaeval.rouge import parse_measure
from metaeval.scoring import read_tokens, score_measure, write_part

w = snakemake.wildcards
with job_log(snakemake.log[0], f"score {w.dataset} {w.measure}_ST{w.stem}_RS{w.stop} shard {w.shard}") as log:
    p = snakemake.params
    measure = parse_measure(w.measure, p.wlcs_weight if p.wlcs_weight is not None else 1.2)
    rows = score_measure(read_tokens(snakemake.input[0]), measure, p.alpha, p.mode, p.jackknife_systems)
    write_part(rows, snakemake.output[0])
    log.info("%d summaries scored", len(rows))
