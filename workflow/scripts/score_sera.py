"""SERA and SERA-DIS of every judged summary (Cohan & Goharian 2016)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.metrics.sera import read_index
from metaeval.stages import sera

with job_log(snakemake.log[0], f"SERA {snakemake.wildcards.dataset}") as log:
    i = snakemake.input
    ds = read_dataset({k: i[k] for k in ("dataset", "summaries", "judgments")})
    result = sera.compute(ds, read_index(i.index), snakemake.params.options)
    sera.write(result, dict(snakemake.output.items()))
    for note in result.notes:
        log.info("%s", note)
