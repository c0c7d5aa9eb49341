# metaeval: which summarization metric should I trust?
#
# The floor plan. The config is validated once and turned into typed options (metaeval.options;
# defaults live in workflow/schemas/config.schema.yaml); every file name comes from the output
# contract (metaeval.outputs). Each stage is one file under rules/:
#   common.smk       the options, the contract, and what each job reads
#   data.smk         import (SummEval jsonl, DUC/TAC, simulated), validate, summarise a data set
#   scoring.smk      ROUGE-1.5.5-exact preprocessing and scoring, BLEU (sacrebleu), SERA, bootstrap intervals
#   human.smk        human scores: coverage, linguistic quality and their combinations
#   correlation.smk  correlations, Williams tests, optimal variants; the correlation tables and figures
#   statistics.smk   issue 14: correlation levels, bootstrap, permutation tests, Kendall variants, tie
#                    calibration, pairwise accuracy, null baseline, uncertainty of the winner
#   factuality.smk   issue 23: factual consistency (FRANK partial correlation and ablation, QAGS / SummaC
#                    AUC and balanced accuracy, Rank19 ranking accuracy, correlations by subset)
#   annotators.smk   issue 22: annotators as data - Krippendorff's alpha, the human ceiling, human parity
#   agreement.smk    AESOP-style agreement of metric and human verdicts on pairs (Owczarzak et al. 2012)
#   rerank.smk       systems re-ranked by the best variant, pairwise significance (Graham 2015 §5)
#   sweeps.smk       single vs all references (Lin 2004), word limits and compression (Pastra & Saggion 2003)
#   report.smk       one self-contained HTML report per data set
#   across.smk       with two or more data sets: one verdict across them (results/all/)
#   archive.smk      `snakemake archive`: reproducible archives of each data set's results
#   calibration.smk  `snakemake calibration`: error rates, power and coverage of the tests on known truth
# Every config value a job uses reaches it through `params:` (a typed record per job), and so does
# the hash of the library modules its script imports, so a change re-runs exactly the jobs it
# affects (docs/scale.md, "Incremental reruns"; per option: config/README.md).

from snakemake.utils import min_version

from metaeval.options import ConfigError, Options, load_schema

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


try:
    OPTIONS = Options.from_config(config, load_schema(f"{workflow.basedir}/workflow/schemas/config.schema.yaml"))
except ConfigError as error:
    raise WorkflowError(str(error))


include: "rules/common.smk"


wildcard_constraints:
    dataset=DATASET_WILDCARD,
    stem="[01]",
    stop="[01]",
    confighash="[0-9a-f]{12}",
    shard="[0-9]+",


include: "rules/data.smk"
include: "rules/scoring.smk"
include: "rules/human.smk"
include: "rules/correlation.smk"
include: "rules/statistics.smk"
include: "rules/factuality.smk"
include: "rules/agreement.smk"
include: "rules/annotators.smk"
include: "rules/rerank.smk"
include: "rules/sweeps.smk"
include: "rules/report.smk"
include: "rules/across.smk"
include: "rules/archive.smk"
include: "rules/calibration.smk"


rule all:
    input:
        final_outputs(),
    default_target: True
