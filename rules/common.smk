# Helpers shared by the rules: the configured data sets, the output contract, and what each job
# reads. OPTIONS (metaeval.options.Options) is built in the Snakefile from the validated config.
from operator import attrgetter
from pathlib import Path

from metaeval import outputs as OUT
from metaeval import registry
from metaeval.data import shared_scores
from metaeval.data.datasets import FILES
from metaeval.data.formats import FORMATS
from metaeval.metrics.families import REGISTRY as FAMILIES
from metaeval.options import DATASET_WILDCARD
from metaeval.provenance import code_version, git_state

# The software environment of every job (used with --software-deployment-method conda).
METAEVAL_ENV = "../environment.yml"

DATASETS = sorted(OPTIONS.datasets)
SETTINGS = OPTIONS.rouge.settings
SHARDS = list(range(OPTIONS.scale.shards))
COMBINATIONS = list(OPTIONS.human.combinations)
CHRF_METRICS = list(OPTIONS.chrf.metrics) if OPTIONS.chrf_enabled else []
ANALYSIS = {"mem_mb": OPTIONS.scale.analysis_mem_mb, "runtime": OPTIONS.scale.analysis_runtime}
SCORING = {"mem_mb": OPTIONS.scale.scoring_mem_mb, "runtime": OPTIONS.scale.scoring_runtime}


def code(script, modules=()):
    """The hash of the library modules a script imports (metaeval.provenance.code_version), with
    ``modules``: those it imports by name at run time (the registry's hooks, a generic door's stage)."""
    return code_version(f"{workflow.basedir}/workflow/scripts/{script}.py", modules=tuple(modules))


def reported(files, category):
    """Mark the Markdown tables and PNG figures among named ``files`` for ``snakemake --report``."""
    captions = {".md": "../workflow/report/table.rst", ".png": "../workflow/report/figure.rst"}
    return {key: report(path, caption=captions[Path(path).suffix], category=category)
            if Path(path).suffix in captions else path for key, path in files.items()}


def canonical_inputs(wildcards):
    """What the validation job of a data set reads: the release as it is (the user's canonical
    folder), or its importer's output (metaeval.data.formats)."""
    entry = OPTIONS.dataset(wildcards.dataset)
    fmt = FORMATS[entry["format"]]
    if fmt.stage is None:
        return fmt.inputs(entry)
    return {k: v for k, v in OUT.files(fmt.stage, wildcards.dataset).items() if k in FILES}


def release_inputs(fmt):
    """An input function: the release files the import job of format ``fmt`` reads, by name (so that
    editing one re-runs the import); for a catalog benchmark whose format reads files when they are
    there (summedits' if_present), its fetch manifest too, so that a fetch that now has one re-runs
    the import."""

    def inputs(wildcards):
        out = fmt.inputs(OPTIONS.dataset(wildcards.dataset))
        if wildcards.dataset in OPTIONS.benchmarks and "if_present" in fmt.release_keys:
            out["manifest"] = OUT.file("fetch", "manifest", wildcards.dataset)
        return out

    return inputs


def release_texts(wildcards):
    """The file of texts of a score-only release (FRANK's benchmark_data.json), for the texts-out job:
    a catalog benchmark's fetch manifest (which says whether the file could be had), or the file
    itself when it is beside the user's release; none otherwise."""
    options = OPTIONS.to_score(wildcards.dataset)
    if options.texts_file is None:
        return {}
    if options.release is not None:
        return {"texts_manifest": OUT.file("fetch", "manifest", wildcards.dataset)}
    return {"texts": options.texts_file} if Path(options.texts_file).is_file() else {}


def data_files(*keys):
    """Named inputs: the validated canonical copy's files (all, or the given keys)."""
    files = OUT.files("data")
    return {k: files[k] for k in (keys or files)}


def score_parts(*kinds):
    """An input function: the score jobs' files of the given kinds (keys of the ``score`` stage),
    named by part_key, for the jobs that read the parts (the gathering, the intervals)."""

    def inputs(wildcards):
        parts = {}
        if not OPTIONS.has_texts(wildcards.dataset):
            return parts  # a score-only data set: nothing to score
        for stem, stop in SETTINGS:
            for k in SHARDS:
                files = OUT.files("score", wildcards.dataset, stem=stem, stop=stop, shard=k)
                parts.update({OUT.part_key(kind, stem, stop, k): files[kind] for kind in kinds})
        return parts

    return inputs


def sera_corpus(wildcards):
    """What the SERA index is built from: the configured corpus, or the data set's documents."""
    return OPTIONS.sera.corpus or OUT.file("data", "documents", wildcards.dataset)


def family_files(*kinds):
    """An input function: the files of the given kinds (``scores``: the long per-summary table,
    ``stats``: the sufficient statistics, ``signature``; ``gathered``: the kinds the gathering job
    reads of each family) of every metric family with its own job that is scored for the data set
    (metaeval.metrics.families), named as the jobs that read them name them (``sera``,
    ``chrf_stats_CHRF``, ``file_metrics_signature``...)."""

    def inputs(wildcards):
        out = {}
        for family in FAMILIES.values():
            if family.stage is None or not family.active(OPTIONS, wildcards.dataset):
                continue
            wanted = family.gathered if kinds == ("gathered",) else kinds
            files = OUT.files(family.stage, wildcards.dataset, **family.output_values(OPTIONS))
            out.update({family.input_name(k): path for k, path in files.items() if family.file_kind(k) in wanted})
        return out

    return inputs


def file_metric_sources(wildcards):
    """The score files of metrics computed elsewhere (a canonical folder's metric_scores.tsv, the
    entry's metric_scores, the top-level metric_scores)."""
    return OPTIONS.file_metric_sources(wildcards.dataset)


def file_metric_inputs(wildcards):
    """The file metrics job's score files: the data set's own, and the top-level ones ancient(), since
    the job depends only on their rows that concern the data set (whose digest is in its params,
    :func:`shared_rows`): editing another data set's rows re-runs none of this data set's jobs."""
    return OPTIONS.own_metric_sources(wildcards.dataset) + [ancient(p) for p in OPTIONS.config["metric_scores"]]


def shared_rows(wildcards):
    """The digest of the rows of each top-level score file that concern the data set
    (metaeval.data.shared_scores), read when the workflow starts."""
    return shared_scores.digests(OPTIONS.config["metric_scores"], wildcards.dataset, DATASETS)


def file_metric_files(**names):
    """An input function: the file metrics job's files under the given input names
    (``file_metric_files(file_metrics="scores")``); none when the data set has no score file."""

    def inputs(wildcards):
        if not OPTIONS.file_metric_sources(wildcards.dataset):
            return {}
        files = OUT.files("file_metrics", wildcards.dataset)
        return {name: files[key] for name, key in names.items()}

    return inputs


def scores_outputs(dataset="{dataset}"):
    """The gathering job's outputs (the BLEU statistics only when BLEU is on)."""
    files = OUT.files("scores", dataset, setting=OUT.setting_tags(SETTINGS))
    return {k: v for k, v in files.items() if OPTIONS.bleu_enabled or not k.startswith("bleu_stats_")}


def bleu_stats(wildcards):
    """The merged BLEU statistics per setting, written by the gathering job (``bleu_stats_ST1_RS0``...;
    none when BLEU is off or the data set has no texts)."""
    bleu = FAMILIES["bleu"]
    if not bleu.active(OPTIONS, wildcards.dataset):
        return {}
    return {k: v for k, v in scores_outputs(wildcards.dataset).items() if bleu.stats_variant(k)}


def analysis_inputs(wildcards):
    """The score and human tables the correlation, agreement and re-ranking jobs read, and the file
    metrics' declarations (the dimension a metric was declared for is the one target it serves)."""
    d = wildcards.dataset
    return {
        **bleu_stats(wildcards),
        **family_files("scores", "stats")(wildcards),
        **file_metric_files(file_metrics_declared="metrics")(wildcards),
        "system_scores": OUT.file("scores", "systems", d),
        "summary_scores": OUT.file("scores", "summaries", d),
        "summary_human": OUT.file("human", "summaries", d),
        "system_human": OUT.file("human", "systems", d),
        "targets": OUT.file("human", "targets", d),
    }


def across_inputs(wildcards):
    """Each data set's correlations and its p-value matrix of across.combination (the statistics
    job's permutation tests when it runs them for that combination, else Williams'), by data set."""
    comb = OPTIONS.across.combination
    out = {}
    for d in DATASETS:
        out[f"correlations__{d}"] = OUT.file("correlation", "correlations", d)
        out[f"williams__{d}"] = (
            OUT.file("statistics", "permutation_{combination}", d, combination=comb)
            if OPTIONS.across.tests == "permutation"
            else OUT.file("correlation", "williams_{combination}", d, combination=comb)
        )
        # every target's Williams tests, for the verdict per target
        out[f"stacked__{d}"] = OUT.file("correlation", "targets_williams", d)
        for c in COMBINATIONS:
            out[f"williams_{c}__{d}"] = OUT.file("correlation", "williams_{combination}", d, combination=c)
    return out


def delta_thresholds():
    """The pooled deltas humans agree with (delta_thresholds.tsv) when they are computed: the report
    across data sets sets them beside the leaderboard."""
    if not OPTIONS.config["soft_pairwise"]["enabled"]:
        return {}
    return {"delta_thresholds": OUT.file("delta", "thresholds", OUT.ACROSS)}


def leaderboard_floor():
    """The random floor of the leaderboard's columns when a stage writes one (leaderboard_floor.tsv):
    the dot plot of the report across data sets draws it."""
    return {"leaderboard_floor": OUT.file(s.name, key, OUT.ACROSS) for s in registry.STAGES if s.kind == "across"
            for key, path in s.files.items() if path == "leaderboard_floor.tsv"}


def leaderboard_inputs(wildcards):
    """What the leaderboard reads of each data set, by ``{file key}__{data set}``: its targets,
    correlations and Williams tests (every target's), summary-level correlations and tests, its
    file metrics, its counts, and the factual-consistency protocols' tables."""
    out = {}
    for d in DATASETS:
        for stage, key in (("summary", "summary"), ("human", "targets"), ("correlation", "correlations"),
                           ("correlation", "summary_level"), ("correlation", "summary_level_tests"),
                           ("factuality", "binary_tsv"), ("factuality", "binary_means_tsv"),
                           ("factuality", "auc_tests"), ("factuality", "partial_tsv"), ("factuality", "williams"),
                           ("factuality", "ranking_tsv"), ("factuality", "ranking_tests")):
            out[f"{key}__{d}"] = OUT.file(stage, key, d)
        if OPTIONS.file_metric_sources(d):     # a data set without score files has no file metrics
            out[f"metrics__{d}"] = OUT.file("file_metrics", "metrics", d)
        # soft pairwise accuracy and pairwise accuracy beside r at the system level, when their jobs run
        if OPTIONS.config["soft_pairwise"]["enabled"]:
            out[f"spa__{d}"] = OUT.file("soft_pairwise", "spa", d)
        if OPTIONS.statistics_enabled:
            out[f"accuracy__{d}"] = OUT.file("statistics", "accuracy", d)
        out[f"stacked__{d}"] = OUT.file("correlation", "targets_williams", d)
        # the random floor of every column, from the two stages that hold the scores
        out[f"floor_correlation__{d}"] = OUT.file("correlation", "floor", d)
        out[f"floor_factuality__{d}"] = OUT.file("factuality", "floor", d)
        for c in COMBINATIONS:
            out[f"williams_{c}__{d}"] = OUT.file("correlation", "williams_{combination}", d, combination=c)
    return out


# The values of the registry's placeholders (a stage's ``expand``: an Options attribute path).
EXPANSIONS = {path: list(attrgetter(path)(OPTIONS)) for s in registry.STAGES for path in s.expand.values()}


def applies(dataset):
    """Whether a registered stage runs for a data set (its switch, what it needs of the data set)."""
    texts, judged = OPTIONS.has_texts(dataset), bool(OPTIONS.judges.get(dataset))
    return lambda stage: registry.applies(stage, OPTIONS.config, texts, judged)


def final_outputs(dataset):
    """Every final output of one data set (the main job's targets and the archive's contents)."""
    return OUT.final(dataset, EXPANSIONS, applies(dataset))


def all_outputs():
    """The main job's targets: every data set's, and the verdict across them when there are two or more."""
    across = list(OUT.files("across", OUT.ACROSS).values()) if len(DATASETS) >= 2 else []
    across += list(OUT.files("leaderboard", OUT.ACROSS).values()) if DATASETS else []
    # what a score difference means, pooled over the data sets (one is enough): from the soft pairwise job's pairs
    if OPTIONS.config["soft_pairwise"]["enabled"]:
        across += list(OUT.files("delta", OUT.ACROSS, variant=list(OPTIONS.delta_figures)).values())
    return [path for d in DATASETS for path in final_outputs(d)] + across


def report_inputs(wildcards):
    """The report's named inputs: every section's files but those of the stages that do not apply
    (switched off, or the text metrics' stages for a score-only data set)."""
    return OUT.report_inputs(wildcards.dataset, combinations=COMBINATIONS, applies=applies(wildcards.dataset))


def stage_inputs(stage):
    """An input function: what a registered analysis stage reads (its ``reads``: the analysis bundle
    and files of other stages, each named by its key)."""

    def inputs(wildcards):
        named = {}
        for item in stage.reads:
            if item == registry.ANALYSIS_INPUTS:
                named.update(analysis_inputs(wildcards))
            else:
                source, key = item.split(":")
                named[key] = OUT.file(source, key, wildcards.dataset)
        return named

    return inputs


def code_of(stage):
    """The code version of a registered stage's job: its door's import closure and, for the generic
    door, its library module's."""
    if stage.script:
        return code(stage.script)
    return code("analysis_stage", modules=[f"metaeval.{stage.module}", *([stage.record.split(":")[0]] if stage.record else [])])


def permutation_basis(wildcards):
    """The statistics job's permutation matrices, for the correlation job when "optimal" rests on them."""
    if not OPTIONS.optimal_by_permutation:
        return {}
    files = OUT.files("statistics", wildcards.dataset, combination=list(OPTIONS.statistics.permutation_combinations))
    return {k: v for k, v in files.items() if k.startswith("permutation_")}


def delta_pairs(wildcards):
    """Every data set's pairs of systems (the soft pairwise job's pair_deltas.tsv), by data set: what
    the curves of what a score difference means and their query read (rules/delta.smk)."""
    return {f"pairs__{d}": OUT.file("soft_pairwise", "pairs", d) for d in DATASETS}


def judge_sources(wildcards):
    """What the judges' reading job reads: the fetch manifest of each joining catalog release (its
    files are that job's outputs) and the user's judge files."""
    named = {}
    for spec in OPTIONS.judges.get(wildcards.dataset, ()):
        if spec.layout == "llm_summeval":
            named[f"release_{Path(spec.root).parent.name}"] = OUT.file("fetch", "manifest", Path(spec.root).parent.name)
        for key in ("pointwise", "pairwise"):
            if getattr(spec, key):
                named[f"{key}_{spec.name}_{spec.method}"] = getattr(spec, key)
    return named
