"""The systems scored against all references and against each single reference (Lin 2004)."""
from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages import sweeps

with job_log(snakemake.log[0], f"reference_sweep {snakemake.wildcards.dataset}") as log:
    i = dict(snakemake.input.items())
    ds = read_dataset({k: v for k, v in i.items() if k != "system_human"})
    sw, human, main, title = sweeps.compute(ds, i["system_human"], "references", snakemake.params.options, log)
    sweeps.write_sweep(sw, human, main, "references", title, dict(snakemake.output.items()))
