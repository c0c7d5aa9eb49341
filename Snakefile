# metaeval: which summarization metric should I trust?
#
# The floor plan. The config is validated once and turned into typed options (metaeval.options;
# defaults live in workflow/schemas/config.schema.yaml). Every stage is declared once, in the stage
# registry (metaeval.registry: its files, its job, its config section, when it applies, its report
# sections); the rules files it names are included below, in the order of the pipeline:
#   common.smk       the options, the registry's targets, and what each job reads
#   fetch.smk        a catalog benchmark's release files, fetched at the pinned commit and verified (one job per benchmark)
#   data.smk         import a release (one rule per release format), validate, summarise a data set
#   scoring.smk      ROUGE exactly as ROUGE-1.5.5, BLEU, chrF, SERA, score files; ROUGE-1.5.5's intervals
#   judges.smk       LLM judges: their responses read by declared parse rules; their analysis beside every metric
#   human.smk        human scores: coverage, linguistic quality and their combinations
#   correlation.smk  correlations, Williams tests, optimal variants; Graham's tables and figures
#   analysis.smk     one rule per analysis stage the registry declares (statistics, annotators,
#                    agreement, re-ranking, factual consistency, ...), all of one pattern
#   sweeps.smk       single vs all references (Lin 2004), word limits and compression (Pastra & Saggion 2003)
#   report.smk       one self-contained HTML report per data set
#   across.smk       with two or more data sets: one verdict across them (results/all/)
#   delta.smk        what a score difference means, pooled over the data sets (results/all/); the delta.tsv query
#   calibration.smk  `snakemake calibration`: error rates, power and coverage of the tests on known truth
#   archive.smk      `snakemake archive`: reproducible archives of each data set's results
#   to_score.smk     `snakemake to_score`: every judged summary's texts, to score with a metric of your own
# docs/layout.md's stage table is generated from the registry (tests/test_registry.py).
# Every config value a job uses reaches it through `params:` (a typed record per job), and so does
# the hash of the library modules its script imports, so a change re-runs exactly the jobs it
# affects (docs/scale.md, "Incremental reruns"; per option: config/README.md).

import sys

from snakemake.utils import min_version

from metaeval import forkserver, registry
from metaeval.options import (ConfigError, Options, check_config_files, datasets_named_by_user, load_schema,
                              user_datasets_only)

min_version("9.0")

# Each job's script runs in a child of one process that has imported numpy, pandas, scipy,
# matplotlib and numba once (metaeval.forkserver; METAEVAL_FORKSERVER=0 switches it off). That
# process belongs to this run: started when the run starts its jobs (a dry run or --unlock starts
# none), ended when the run ends, so no job takes the settings of another run.
onstart:
    forkserver.start_run()


onsuccess:
    forkserver.end_run()


onerror:
    forkserver.end_run()


# The config files read with the project's safe YAML loader first: a `!!python/object` tag, a key
# given twice or nested aliases are an error naming the file and the line (metaeval.options).
try:
    CONFIG_DOCUMENTS = check_config_files(["config/config.yaml", *workflow.overwrite_configfiles])
except ConfigError as error:
    raise WorkflowError(str(error))


configfile: "config/config.yaml"


# A config of the user's that names its own data sets runs those alone: the embedded simulated data
# set of config/config.yaml joins only when the user names it (`default`).
config["datasets"], LEFT_OUT = user_datasets_only(
    config,
    datasets_named_by_user(
        [CONFIG_DOCUMENTS[str(p)] for p in workflow.overwrite_configfiles if str(p) in CONFIG_DOCUMENTS],
        workflow.config_settings.overwrite_config,
    ),
)
if LEFT_OUT and workflow.is_main_process:
    print(f"metaeval: data set(s) {', '.join(LEFT_OUT)} of config/config.yaml left out: your config names its "
          "own data sets (name them there to keep them)", file=sys.stderr)


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


for rules_file in registry.rules_files():

    include: f"rules/{rules_file}.smk"


rule all:
    input:
        all_outputs(),
    default_target: True
