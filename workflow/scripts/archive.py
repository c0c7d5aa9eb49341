"""Write the reproducible archive of one data set."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages.archive import write_archive

w, p = snakemake.wildcards, snakemake.params
with job_log(snakemake.log[0], f"archive {w.dataset}"):
    write_archive(w.dataset, p.results, p.config, w.confighash, p.git, snakemake.output[0],
                  list(snakemake.input.score_files))
