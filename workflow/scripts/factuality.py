"""The factual-consistency protocols (FRANK, QAGS, SummaC, Rank19) for one data set."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval import memo
from metaeval.logs import job_log
from metaeval.stages import factuality

with job_log(snakemake.log[0], f"factuality {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp = factuality.load(dict(snakemake.input.items()), o)
    log.info("%d judged summaries of %d systems; dimensions %s; %d metrics", inp.topics.size,
             len(set(inp.systems)), ", ".join(inp.analysed), len(inp.metrics))
    with memo.kept_in(snakemake.params.memo):   # rows an earlier run computed are read, not recomputed
        result = factuality.compute(inp, o)
    for analysis, dimension, note in result.notes.itertuples(index=False):
        log.info("note (%s, %s): %s", analysis, dimension, note)
    factuality.write(result, o, dict(snakemake.output.items()))
