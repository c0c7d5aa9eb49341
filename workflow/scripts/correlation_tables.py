"""The correlation tables (Graham 2015's Tables 1, 2, 4; Table 5) and Figures 1-3."""
from metaeval.logs import job_log
from metaeval.stages import correlation_tables as ct

with job_log(snakemake.log[0], f"correlation tables {snakemake.wildcards.dataset}"):
    i = snakemake.input
    williams = {k[len("williams_"):]: v for k, v in i.items() if k.startswith("williams_")}
    corr, will, summary_human = ct.load(i.correlations, williams, i.summary_human)
    ct.write(ct.compute(corr, will, summary_human, snakemake.params.options), dict(snakemake.output.items()))
