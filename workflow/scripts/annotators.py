"""The annotators as data: Krippendorff's alpha, the human ceiling and human parity."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import annotators

with job_log(snakemake.log[0], f"annotators {snakemake.wildcards.dataset}") as log:
    o = snakemake.params.options
    inp = annotators.load(dict(snakemake.input.items()), o)
    log.info("%d annotated dimensions; groups %s; %d summarizers x %d topics", len(inp.items),
             ", ".join(f"{g}:{len(a)}" for g, a in sorted(inp.groups.items())) or "none",
             len(inp.analysis.summarizers), len(inp.analysis.per_summary.topics))
    result = annotators.compute(inp, o)
    log.info("variants beside the annotators: %s", ", ".join(result.variants) or "none")
    annotators.write(result, o, dict(snakemake.output.items()))
