"""The systems scored against all references and each single reference (Lin 2004), and with every
summary cut to word limits and compression rates (Pastra & Saggion 2003)."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import sweeps

with job_log(snakemake.log[0], f"sweeps {snakemake.wildcards.dataset}") as log:
    ds, system_human = sweeps.load(dict(snakemake.input.items()))
    shared = {}     # the summaries' tokens, for both sweeps
    for prefix in ("references", "lengths"):
        sw, human, main, title = sweeps.compute(ds, system_human, prefix, snakemake.params.options, log, shared)
        out = {k[len(prefix) + 1:]: v for k, v in snakemake.output.items() if k.startswith(prefix + "_")}
        sweeps.write_sweep(sw, human, main, prefix, title, out)
