"""System-level correlations, bootstrap intervals, Williams tests, optimal variants, clusters."""
from metaeval import tables
from metaeval.logs import job_log
from metaeval.stages import analysis_inputs, correlation

with job_log(snakemake.log[0], f"correlate {snakemake.wildcards.dataset}") as log:
    i, o = dict(snakemake.input.items()), snakemake.params.options
    inp = analysis_inputs.load_named(i, o.summarizers)
    log.info("%d summarizers x %d variants x %d combinations; %d bootstrap samples (%s)", len(inp.summarizers),
             len(inp.variants), len(inp.combinations), o.samples, o.resample)
    skipped = dict(tables.read_tsv(i["skipped"]).itertuples(index=False, name=None))
    result = correlation.compute(inp, o, skipped)
    correlation.write(result, o.combinations, dict(snakemake.output.items()))
