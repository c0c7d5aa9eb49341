"""System-level correlations, bootstrap intervals, Williams tests, optimal variants, clusters."""
from metaeval.analysis import run_correlation
from metaeval.logs import job_log

with job_log(snakemake.log[0], f"correlate {snakemake.wildcards.dataset}") as log:
    i, o, p = snakemake.input, snakemake.output, snakemake.params
    bleu = {key: path for key, path in i.items() if key.startswith("ST")}
    run_correlation(i.system_scores, i.summary_scores, bleu, i.summary_human, i.system_human, i.skipped,
                    p.combinations, p.summarizers, p.samples, p.resample, p.seed, p.confidence, p.alpha, p.correction,
                    o.correlations, list(o.williams), o.summary_level, o.notes, log,
                    [i.sera] if "sera" in i.keys() else [])
