"""chrF and chrF++ of every judged summary (sacrebleu's definition, on the raw text)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages import chrf

with job_log(snakemake.log[0], f"chrF {snakemake.wildcards.dataset}") as log:
    ds = read_dataset(dict(snakemake.input.items()))
    result = chrf.compute(ds, snakemake.params.options)
    chrf.write(result, dict(snakemake.output.items()))
    log.info("%d per-summary scores (%s)", len(result.rows), ", ".join(s.name for s in result.specs))
