"""Fetch a catalog benchmark's release files into the cache, verified, and copy them, verified again,
to results/{name}/release/ with a manifest."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data import fetch
from metaeval.logs import job_log

release = snakemake.params.release
with job_log(snakemake.log[0], f"fetch {release.benchmark}"):
    fetched = fetch.compute(release, snakemake.params.source)
    fetch.write(fetched, snakemake.output.manifest)
