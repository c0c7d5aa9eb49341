"""Import one of BARTScore's unified pickles (read without running code) into the canonical form."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.data.bartscore import import_bartscore_pkl
from metaeval.data.datasets import write_dataset
from metaeval.logs import job_log

with job_log(snakemake.log[0], "import_bartscore") as log:
    ds = import_bartscore_pkl(snakemake.input.pickle, name=snakemake.params.name, release=snakemake.params.options,
                              annotations=snakemake.input.get("annotations"))
    write_dataset(ds, dict(snakemake.output.items()))
    log.info("%d summaries, %d judged, %d annotations", len(ds.summaries), len(ds.judgments), len(ds.annotations))
