"""Score every judged summary of one topic shard with every ROUGE measure and BLEU under one setting."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages import scoring

w, job = snakemake.wildcards, snakemake.params.job
with job_log(snakemake.log[0], f"score {w.dataset} ST{w.stem}_RS{w.stop} shard {w.shard}") as log:
    ds = read_dataset(dict(snakemake.input.items()))
    result = scoring.score_setting(ds, int(w.stem), int(w.stop), int(w.shard), job)
    scoring.write_setting(result, dict(snakemake.output.items()))
    log.info("%d scores (%d measures%s)", len(result.rows), len(job.measures), " and BLEU" if job.bleu else "")
