"""Build the SERA retrieval index of a data set's documents (or the configured corpus), once."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.metrics.sera import write_index
from metaeval.stages import sera

with job_log(snakemake.log[0], f"SERA index {snakemake.wildcards.dataset}") as log:
    index = sera.build_index(snakemake.input.corpus, snakemake.params.options)
    write_index(index, snakemake.output.index)
    log.info("%d documents, %d terms (1-3-grams)", len(index.doc_ids), len(index.terms))
