"""What each kind of job uses: one ``NamedTuple`` per job, built by field name from its config section.

* A record's field is named as its section's key (``statistics.top_variants`` is
  ``StatisticsOptions.top_variants``), so :func:`from_section` takes it from the section, and a new
  config key is its schema entry (with its default) plus its record's field.
* The few other fields are given by name where :class:`metaeval.options.Options` builds the record:
  values of other sections (``StatisticsOptions.summarizers`` is ``correlation.summarizers``) and
  values derived from the config (``SeraOptions.mu`` only for the lm_dirichlet model).
* No record carries a default of its own: the schema's are the only ones
  (:func:`metaeval.options.default_options` builds every record from them, for tests).
* Records stay NamedTuples: a rule passes its record through ``params:``, and Snakemake
  compares the params' ``repr`` to decide what re-runs (a dataclass would be invisible to it).
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, TypeVar

Record = TypeVar("Record", bound=tuple)


def from_section(record: type[Record], section: Mapping[str, Any], **given: Any) -> Record:
    """A ``record`` whose fields are the ``section``'s keys of the same names, except the fields
    ``given`` by name (values of other sections, derived values). A list becomes a tuple: a record
    is immutable and compared by its ``repr``. A field neither in the section nor given is a
    programming error (the validated section holds every key of the schema)."""
    unknown = sorted(set(given) - set(record._fields))
    if unknown:
        raise TypeError(f"{record.__name__} has no field {', '.join(unknown)}")
    missing = [f for f in record._fields if f not in given and f not in section]
    if missing:
        raise KeyError(f"{record.__name__}: the section has no key {', '.join(missing)} and no value was given "
                       "(a field taken from its section is named as the section's key)")
    values = {f: given[f] if f in given else section[f] for f in record._fields}
    return record(**{f: tuple(v) if isinstance(v, list) else v for f, v in values.items()})


# ----------------------------------------------------------------------------- scoring

class RougeOptions(NamedTuple):
    """The ``rouge:`` section (the scoring signature records all of it)."""
    measures: tuple[str, ...]
    stemming: tuple[int, ...]
    stopwords_removed: tuple[int, ...]
    wlcs_weight: float
    alpha: float
    multiple_references: str
    jackknife_systems: bool
    word_limit: int | None
    byte_limit: int | None
    stemmer_exceptions: tuple[str, ...]     # the WordNet exception files' load order (() = none)

    @property
    def settings(self) -> list[tuple[int, int]]:
        """(stem, stop) preprocessing settings, stemming-major."""
        return [(s, r) for s in self.stemming for r in self.stopwords_removed]


class ScoreJob(NamedTuple):
    """One scoring job (a preprocessing setting and topic shard): every ROUGE measure (the ``rouge:``
    section) and BLEU (``bleu.enabled``, ``bleu.per_summary_smoothing``)."""
    measures: tuple[str, ...]
    wlcs_weight: float
    alpha: float
    multiple_references: str
    jackknife_systems: bool
    word_limit: int | None
    byte_limit: int | None
    shards: int
    bleu: bool
    per_summary_smoothing: str
    stemmer_exceptions: tuple[str, ...] | None   # None: the job does not stem (Options.score_job)


class ChrfOptions(NamedTuple):
    """The chrF job: which variants, sacrebleu's character order and whitespace option, and the
    reference sets (``rouge.jackknife_systems``, which chooses them for every metric)."""
    metrics: tuple[str, ...]
    char_order: int
    whitespace: bool
    jackknife_systems: bool


class SeraIndexOptions(NamedTuple):
    stemming: bool
    stemmer_exceptions: tuple[str, ...] | None   # rouge.stemmer_exceptions when stemming, else None


class SeraOptions(NamedTuple):
    """Each retrieval model's own parameters only (``mu`` / ``bm25`` None for the other model)."""
    cutoffs: tuple[int, ...]
    queries: tuple[str, ...]
    model: str
    mu: float | None
    bm25: tuple[float, float] | None
    corpus: str | None


class GatherOptions(NamedTuple):
    rouge: RougeOptions
    bleu: bool
    shards: int


class ScaleOptions(NamedTuple):
    shards: int
    scoring_mem_mb: int
    scoring_runtime: int
    analysis_mem_mb: int
    analysis_runtime: int


# ----------------------------------------------------------------------------- analyses

class IntervalOptions(NamedTuple):
    resamples: int
    confidence: float
    seed: int
    shown: tuple[str, ...]


class HumanOptions(NamedTuple):
    """The human-scores job of one data set (``human_scores:``, with the entry's ``targets:``)."""
    combinations: tuple[str, ...]
    order: str
    dimensions: bool                                   # every declared dimension is a target
    target_dimensions: tuple[str, ...]                 # the entry's targets.dimensions (empty: all)
    composites: tuple[tuple[str, str], ...]            # the entry's targets.composites: (name, expression)
    primary: str | None                                # the entry's targets.primary
    entry: str                                         # "config key datasets.<name>", for its errors


class CorrelateOptions(NamedTuple):
    """The correlation job (the ``correlation:`` section, with human_scores.combinations)."""
    combinations: tuple[str, ...]
    summarizers: str
    bootstrap_samples: int
    resample: str
    confidence: float
    seed: int
    alpha: float
    correction: str | None
    optimal: str                # statistics.optimal when the statistics job runs, else williams
    resample_annotators: bool   # the bootstrap also resamples annotators
    human_order: str            # human_scores.order (the human scores resampled annotators give)
    floor_permutations: int     # floor.permutations: the random floor's draws (0 = no floor)
    floor_seed: int
    floor_confidence: float


class CorrelationTablesOptions(NamedTuple):
    baselines: tuple[str, ...]
    top_variants: int
    alpha: float
    answer_baseline: str        # the baseline the report's answer ranks (agreement.baseline)
    optimal: str                # the basis of "optimal" (statistics.optimal when the statistics job runs)


class AgreementOptions(NamedTuple):
    combinations: tuple[str, ...]
    alpha: float
    min_topics: int
    baseline: str


class RerankOptions(NamedTuple):
    combination: str
    best: str
    original: str
    alpha: float
    summarizers: str


class SweepOptions(NamedTuple):
    """The sweeps job: the reference-count and the length sweep (with rouge.alpha and
    rouge.multiple_references)."""
    variants: tuple[str, ...]
    combination: str
    alpha: float
    multiple_references: str
    word_limits: tuple[int, ...]
    compression: tuple[float, ...]
    stemmer_exceptions: tuple[str, ...] | None   # None when no variant is stemmed


class AcrossOptions(NamedTuple):
    """The cross-data-set stage (results/all/)."""
    datasets: tuple[str, ...]
    combination: str
    method: str                 # partial conjunction: bonferroni | fisher
    alpha: float
    variants: tuple[str, ...]   # compared pairwise, besides the top ones by mean rank
    top: int
    beaten_at_most: int
    tests: str                  # whose p-values: "williams" (every variant) or "permutation" (the tested ones)


class LeaderboardOptions(NamedTuple):
    """The leaderboard (results/all/leaderboard.*): every metric per benchmark, target and level."""
    datasets: tuple[str, ...]
    focus: tuple[str, ...]          # the metrics marked (metric ids); empty: every file metric
    baselines: tuple[str, ...]      # built-in metrics always on the board (variant or per-summary ids)
    best_rouge: int                 # per column, this many best ROUGE metrics join the board
    combinations: tuple[str, ...]   # Graham's combinations shown besides the dimensions
    alpha: float
    targets_shown: int              # per data set, in the report's first table (all: the TSV)
    ablation_prefix: str            # FRANK's ablation dimensions are never targets here


class StatisticsOptions(NamedTuple):
    """The statistics job (the ``statistics:`` section; ``combinations`` as configured, ``main``
    resolved against the data set; ``permutation_combinations``: every human combination when
    "optimal" rests on the permutation tests, else ``combinations``)."""
    combinations: tuple[str, ...]
    permutation_combinations: tuple[str, ...]
    summarizers: str
    variants: tuple[str, ...]
    top_variants: int
    baselines: tuple[str, ...]
    seed: int
    confidence: float
    alpha: float
    levels: tuple[str, ...]
    coefficients: tuple[str, ...]
    bootstrap_samples: int
    resampling_levels: tuple[str, ...]
    resample: str
    permutation_samples: int
    permutation: str
    permutation_level: str
    permutation_coefficient: str
    kendall_variants: tuple[str, ...]
    tie_calibration: tuple[str, ...]
    accuracy_baseline: str
    null_samples: int
    winner_coefficient: str
    optimal: str


class FactualityOptions(NamedTuple):
    """The factuality job (the ``factuality:`` section; metaeval.stages.factuality)."""
    dimensions: tuple[str, ...]
    metrics: tuple[str, ...]
    proportion_cutoff: float
    validation_split: tuple[str, ...]     # the first of these a data set has
    test_split: str
    validation_fraction: float
    min_summaries_per_system: int
    ablation_prefix: str
    bootstrap_samples: int
    confidence: float
    seed: int
    interval_metrics: int | str     # how many best metrics per scope get bootstrap intervals, or "all"
    baselines: tuple[str, ...]      # per-summary ids of correlation.baselines and agreement.baseline (always intervals)
    summarizers: str                # correlation.summarizers: systems, or all (the judged human summarizers too)
    floor_permutations: int         # floor.permutations: the random floor's draws (0 = no floor)
    floor_seed: int
    floor_confidence: float


class SoftPairwiseOptions(NamedTuple):
    """The soft pairwise job (the ``soft_pairwise:`` section)."""
    permutations: int
    seed: int
    bootstrap_samples: int
    bootstrap_seed: int
    confidence: float


class DeltaOptions(NamedTuple):
    """The curves job (the ``delta:`` section)."""
    variants: tuple[str, ...]
    accuracies: tuple[float, ...]
    bootstrap_samples: int
    seed: int
    confidence: float


class DeltaQuery(NamedTuple):
    """The query job (the ``delta:`` section's question and the bootstrap settings)."""
    metric: str | None
    value: float | str | None   # text as snakemake's --config passes it (the schema checks it is a number)
    target: str | None
    bootstrap_samples: int
    seed: int
    confidence: float


class AnnotatorsOptions(NamedTuple):
    """The annotators job (the ``annotators:`` section, with correlation.summarizers and
    correlation.baselines)."""
    summarizers: str
    variants: tuple[str, ...]
    top: int
    baselines: tuple[str, ...]
    bootstrap_samples: int
    max_held_out_sets: int
    seed: int
    confidence: float


# ----------------------------------------------------------------------------- calibration

class CalibrationModelOptions(NamedTuple):
    """The calibration model job: the human combination and the two metrics it is fitted to."""
    combination: str
    metrics: tuple[str, str]


class CalibrationRunOptions(NamedTuple):
    """A calibration simulation job (metaeval.stats.calibration.RunSettings before the data set's
    numbers are known): the main job at the user's numbers, or a job of the topics grid."""
    systems: int | None              # None: the data set's
    topics: int | None               # None: the data set's (main job); the {topics} wildcard (grid jobs)
    replicates: int
    differences: tuple[float, ...]
    verdict_differences: tuple[float, ...]
    permutation_samples: int
    bootstrap_samples: int           # 0 in the grid jobs: coverage only at the user's numbers
    confidence: float
    alpha: float
    min_topics: int                  # agreement.min_topics: the verdicts as the agreement stage makes them
    seed: int


class CalibrationTablesOptions(NamedTuple):
    power: float
    topics_grid: tuple[int, ...]
    alpha: float


class CalibrationJobs(NamedTuple):
    datasets: tuple[str, ...]        # the data sets `snakemake calibration` calibrates on
    model: CalibrationModelOptions
    main: CalibrationRunOptions
    grid: CalibrationRunOptions
    tables: CalibrationTablesOptions


class SimulationParams(NamedTuple):
    """The parameters of the simulated data set's generator, :mod:`metaeval.data.simulate` (defaults:
    the config schema, ``datasets.<name>`` of format ``simulated``;
    :func:`metaeval.data.formats.simulation_params` builds them from a config entry). Kept here, away
    from numpy: unpickling any job's options loads this module."""

    seed: int
    topics: int
    systems: int
    humans: int
    units: int
    sentences: int
    documents: int


class ToScoreOptions(NamedTuple):
    """The texts-out job of one data set (:mod:`metaeval.stages.to_score`): its name, where its
    release's missing texts could come from (its format's ``texts_from``; "" for none), the release
    file holding the texts of a score-only release (its format's ``texts_file``: FRANK's
    benchmark_data.json; None for none) and, for a benchmark of the catalog, the folder of its
    fetched release (whose manifest says whether that file could be had; None otherwise)."""

    dataset: str
    texts_from: str
    texts_file: str | None
    release: str | None


Declaration = tuple[str, "str | None", "bool | None", "str | None", "str | None"]


class FileMetricsOptions(NamedTuple):
    """The file metrics job: the config entry's declarations (metric, name, higher_is_better,
    description, dimension; they win over the top-level ones, which win over dataset.yaml's), whether
    partial coverage is allowed, and which rows of the score files are the data set's
    (:class:`metaeval.data.metric_scores.Scope`)."""
    declarations: tuple[Declaration, ...]
    partial_coverage: bool
    key: str                   # the config key of the entry, for messages
    dataset: str               # the data set's name (a score file's ``dataset`` column names it)
    configured: tuple[str, ...]  # every configured data set, when there are top-level score files (else empty)
    shared: tuple[str, ...]    # the top-level score files (config key metric_scores)
    shared_declarations: tuple[Declaration, ...]   # the top-level metrics:


class JudgeScoresOptions(NamedTuple):
    """The judges' reading job of one data set (:mod:`metaeval.stages.judge_scores`): its judges
    (metaeval.data.judges.JudgeSpec records: the catalog's, whose release joins the data set, and the
    config's ``judges:``) and the config's ``parse_rules`` as canonical JSON ("" for none)."""
    judges: tuple
    parse_rules: str


class JudgesOptions(NamedTuple):
    """The judges' analysis job (the ``judges:`` section's settings: :mod:`metaeval.stages.judges`)."""
    epsilon: float                # the alternative annotator test's cost-benefit margin
    fdr: float                    # its false discovery rate (Benjamini-Yekutieli)
    expert_group: str             # the annotators the judge is compared with and tested against
    disagreements: int            # the summaries listed per judge and dimension
    confidence: float
