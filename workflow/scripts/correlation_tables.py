"""The correlation tables (Graham 2015's Tables 1, 2, 4; Table 5 SERA, Table 6 file metrics), Figures 1-3 and
the answer per target."""
from metaeval.forkserver import run_warm

run_warm()   # the rest runs in a process that has the libraries imported

from metaeval.logs import job_log
from metaeval.stages import correlation_tables as ct
from metaeval.stages.human import primary_of

with job_log(snakemake.log[0], f"correlation tables {snakemake.wildcards.dataset}"):
    i = dict(snakemake.input.items())
    williams_of = ct.williams_reader({k[len("williams_"):]: v for k, v in i.items() if k.startswith("williams_")},
                                     i["targets_williams"])
    corr, will, summary_human, file_metrics, summary_level = ct.load(
        i["correlations"], williams_of, i["summary_human"], i.get("file_metrics"), i["summary_level"], i["targets"])
    ct.write(ct.compute(corr, will, summary_human, file_metrics, snakemake.params.options, summary_level,
                        williams_of, primary_of(i["targets"])),
             dict(snakemake.output.items()))
