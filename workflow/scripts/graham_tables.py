"""Graham (2015)'s Tables 1, 2, 4 and Figures 1-3 from the correlation tables."""
from pathlib import Path

from metaeval.graham import write_all
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"graham tables {snakemake.wildcards.dataset}"):
    i, p = snakemake.input, snakemake.params
    write_all(i.correlations, list(i.williams), i.summary_human, str(Path(i.correlations).parent), p.baselines,
              p.top, p.alpha)
