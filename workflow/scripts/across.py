"""One verdict across the configured data sets (results/all/): tables, figures and the report."""
from metaeval.logs import job_log
from metaeval.stages import across

with job_log(snakemake.log[0], "across data sets"):
    i, o = dict(snakemake.input.items()), snakemake.params.options
    corr, will = across.load({d: i[f"correlations__{d}"] for d in o.datasets},
                             {d: i[f"williams__{d}"] for d in o.datasets}, o.combination)
    result = across.compute(corr, will, o)
    across.write(result, dict(snakemake.output.items()))
