# metaeval: which summarization metric should I trust?
#
# The floor plan. Each stage is one file under rules/:
#   common.smk   helpers: the configured data sets and their input files
#   data.smk     import (SummEval jsonl, DUC/TAC, simulated), validate, summarise a data set
#   scoring.smk  ROUGE-1.5.5-exact preprocessing and scoring, BLEU (sacrebleu), SERA, bootstrap intervals
#   human.smk    human scores: coverage, linguistic quality and their combinations
#   correlation.smk  correlations, Williams tests, optimal variants; Graham's tables and figures
#   agreement.smk    AESOP-style agreement of metric and human verdicts on pairs (Owczarzak et al. 2012)
#   rerank.smk       systems re-ranked by the best variant, pairwise significance (Graham 2015 §5)
#   sweeps.smk       single vs all references (Lin 2004), word limits and compression (Pastra & Saggion 2003)
#   report.smk       one self-contained HTML report per data set
#   archive.smk      `snakemake archive`: reproducible archives of each data set's results
# Every config value a job uses reaches it through `params:`, so a changed value re-runs
# exactly the jobs it affects (see the README, "Incremental reruns").

from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


try:
    validate(config, "workflow/schemas/config.schema.yaml")
except WorkflowError as error:
    from metaeval.config import schema_error_message

    raise WorkflowError(
        schema_error_message(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml"),
        error,
    )


wildcard_constraints:
    dataset="[A-Za-z0-9][A-Za-z0-9_-]*",
    measure=r"R(?:[1-9]|L|W|SU?(?:[0-9]+|\*))",
    stem="[01]",
    stop="[01]",
    confighash="[0-9a-f]{12}",
    shard="[0-9]+",


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/scoring.smk"
include: "rules/human.smk"
include: "rules/correlation.smk"
include: "rules/agreement.smk"
include: "rules/rerank.smk"
include: "rules/sweeps.smk"
include: "rules/report.smk"
include: "rules/archive.smk"


rule all:
    input:
        final_outputs(),
    default_target: True
