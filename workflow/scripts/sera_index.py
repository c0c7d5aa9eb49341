"""Build the SERA retrieval index of a data set's documents (or the configured corpus), once."""
from metaeval.logs import job_log
from metaeval.sera import build_index, corpus_documents, write_index

with job_log(snakemake.log[0], f"SERA index {snakemake.wildcards.dataset}") as log:
    index = build_index(corpus_documents(snakemake.input[0]), bool(snakemake.params.stemming))
    write_index(index, snakemake.output[0])
    log.info("%d documents, %d terms (1-3-grams)", len(index.doc_ids), len(index.terms))
