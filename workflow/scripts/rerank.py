"""Systems re-ranked by the best variant; pairwise significance under it."""
from metaeval import tables
from metaeval.logs import job_log
from metaeval.stages import analysis_inputs, rerank

with job_log(snakemake.log[0], f"rerank {snakemake.wildcards.dataset}"):
    i, o = dict(snakemake.input.items()), snakemake.params.options
    inp = analysis_inputs.load_named(i, o.summarizers)
    correlations = tables.read_tsv(i["correlations"]).to_dict("records")
    rerank.write(rerank.compute(inp, correlations, o), dict(snakemake.output.items()))
