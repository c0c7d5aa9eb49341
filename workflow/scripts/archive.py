"""Write the reproducible archive of one data set."""
from pathlib import Path

from metaeval.archive import write_archive
from metaeval.logs import job_log

w = snakemake.wildcards
with job_log(snakemake.log[0], f"archive {w.dataset}"):
    write_archive(w.dataset, Path("results") / w.dataset, snakemake.params.config, w.confighash,
                  snakemake.params.workflow_dir, snakemake.output[0])
