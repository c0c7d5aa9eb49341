"""Import SummEdits' release (one file per domain; a domain file the fetch could not have is left out,
and the log says so) into the canonical form."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.datasets import write_dataset
from metaeval.data.summedits import import_summedits
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_summedits") as log:
    entry = snakemake.params.options
    ds, notes = import_summedits(snakemake.input.paths, entry, snakemake.params.name)
    for note in notes:
        log.warning("%s", note)
    write_dataset(ds, dict(snakemake.output.items()))
    log.info("%d summaries in %d domains", len(ds.summaries), len({s.subset for s in ds.summaries}))
