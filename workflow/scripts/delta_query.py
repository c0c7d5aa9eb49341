"""results/all/delta.tsv: the human agreement with a difference of delta.value in delta.metric."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import delta

with job_log(snakemake.log[0], "what a score difference means: the query"):
    q = snakemake.params.query
    pairs = {k[len("pairs__"):]: v for k, v in snakemake.input.items() if k.startswith("pairs__")}
    delta.write_answer(delta.answer(delta.load(pairs, [q.metric] if q.metric else []), q), snakemake.output.answer)
