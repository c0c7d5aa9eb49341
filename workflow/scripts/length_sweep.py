"""The systems scored with every summary cut to word limits and compression rates (Pastra & Saggion 2003)."""
from metaeval.data.datasets import read_dataset
from metaeval.logs import job_log
from metaeval.stages import sweeps

with job_log(snakemake.log[0], f"length_sweep {snakemake.wildcards.dataset}") as log:
    i = dict(snakemake.input.items())
    ds = read_dataset({k: v for k, v in i.items() if k != "system_human"})
    sw, human, main, title = sweeps.compute(ds, i["system_human"], "lengths", snakemake.params.options, log)
    sweeps.write_sweep(sw, human, main, "lengths", title, dict(snakemake.output.items()))
