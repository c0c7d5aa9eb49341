"""The configuration, validated once and turned into typed options.

* Defaults live only in the schema (``workflow/schemas/config.schema.yaml``, each key's
  ``default``) and, as documentation, in ``config/config.yaml`` (a test checks the two agree).
  :func:`validated` fills them in and checks types and keys; every problem is one line naming
  the config key (``config key rouge.alpha: 2 is greater than the maximum of 1``).
* :func:`check` adds what a schema cannot say: input paths that must exist, options that exclude
  each other, variant ids that must parse.
* :class:`Options` holds, for every kind of job, a ``NamedTuple`` with exactly the values that job
  uses (:mod:`metaeval.records`), built by field name from its config section (a stage's by
  :meth:`Options.record`, the other fields from :func:`metaeval.derived.derived_fields`). A rule passes its
  record through ``params:``, so changing a config value re-runs exactly the jobs whose record holds
  it (Snakemake compares the records' ``repr``; a dataclass would be invisible to its params
  trigger). Confidence levels are fractions everywhere (0.95).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .config_checks import ConfigError, check_calibration, check_delta, check_statistics, require_computed
from .data import catalog
from .data.contract import DatasetError
from .data.formats import ABOUT, FORMATS, SCORES, simulation_params
from .data.judges import LLM_SUMMEVAL_DIMENSIONS, JudgeSpec, metric_id, metric_name, pointwise_dimensions
from .data.safe_yaml import load as read_yaml
from .data.targets import check_declared_targets
from .derived import derived_fields
from .files import read_text
from .metrics.tokenize import exception_order
from . import registry
from .outputs import RESULTS, file as output_file
from .records import (AcrossOptions, AgreementOptions, AnnotatorsOptions, CalibrationJobs, CalibrationModelOptions,
                      CalibrationRunOptions, CalibrationTablesOptions, ChrfOptions, CorrelateOptions,
                      CorrelationTablesOptions, FactualityOptions, FileMetricsOptions, GatherOptions, HumanOptions,
                      IntervalOptions, LeaderboardOptions,
                      RerankOptions, RougeOptions, ScaleOptions, ScoreJob, SeraIndexOptions, SeraOptions,
                      SimulationParams, StatisticsOptions, SweepOptions, ToScoreOptions, JudgeScoresOptions,
                      from_section)
from .variants import MEASURE_PATTERN, Variant, is_measure, parse_all

SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"
DATASET_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]*"
# Folders of results/ that are not data sets: the cross-data-set stage's and the archives'.
RESERVED_NAMES = ("all", "archive", "to_score")
# The Snakefile's {dataset} wildcard constraint: a data set name, never a reserved folder.
DATASET_WILDCARD = rf"(?!(?:{'|'.join(RESERVED_NAMES)})/){DATASET_NAME}"
# The config sections a data set's results depend on (resolved, archived, hashed): the registry's.
SECTIONS = tuple(registry.dataset_sections())
# The top-level keys of metrics computed elsewhere, for every configured data set: score files and
# declarations (also part of each data set's resolved config).
SCORE_KEYS = ("metric_scores", "metrics")


# The selectors of annotators.variants besides variant ids (metaeval.stages.annotators.select_variants).
ANNOTATOR_SELECTORS = ("top", "baselines", "bleu", "chrf", "metrics", "all")


def check_config_files(paths: Sequence[Path | str]) -> dict[str, Any]:
    """Read each existing config file with the project's safe YAML loader
    (:mod:`metaeval.data.safe_yaml`), so that a tag asking for a Python object (``!!python/object``),
    a key given twice, aliases that expand to millions of values or a lone surrogate is an error
    naming the file and the line, not Snakemake's "not valid JSON or YAML" (or a silent last-key
    win). The Snakefile runs it on ``config/config.yaml`` before its ``configfile:`` directive and on
    every ``--configfile`` (which Snakemake has read by then: a file it cannot read at all gets its
    own message first). Returns each file's document, by the path as given."""
    def error(path: str, line: int | None, problem: str) -> ConfigError:
        return ConfigError(f"config file {path}{f', line {line}' if line else ''}: {problem}")

    documents = {}
    for given in paths:
        path = Path(given)
        if not path.is_file():
            continue
        try:
            text = read_text(path)
        except UnicodeDecodeError as e:
            raise ConfigError(f"config file {path}: not valid UTF-8 ({e.reason} at byte {e.start})") from None
        documents[str(given)] = read_yaml(text, path, error, aliases=True)[0]
    return documents


def datasets_named_by_user(documents: Sequence[Any], overrides: Mapping[str, Any]) -> set[str] | None:
    """The data sets the user's own config names: the ``datasets:`` keys of every ``--configfile``'s
    document (as :func:`check_config_files` read them) and of ``--config``; None when none of them
    names a data set. Snakemake merges these over ``config/config.yaml``, so without this the
    embedded simulated data set would silently join every run of a user's benchmarks (and the
    verdict across them)."""
    named: set[str] | None = None
    for document in [*documents, dict(overrides)]:
        if isinstance(document, Mapping) and isinstance(document.get("datasets"), Mapping):
            named = (named or set()) | set(document["datasets"])
        if isinstance(document, Mapping) and document.get("benchmarks"):  # the catalog's: data sets too
            named = (named or set()) | catalog.named(document["benchmarks"])
    return named


def user_datasets_only(config: Mapping[str, Any], named: set[str] | None) -> tuple[Any, list[str]]:
    """(the ``datasets`` of ``config`` the user named, the names left out). When the user's config
    names no data set, they are all kept (the README's first command runs the embedded
    default data set alone); when it does, the data sets of ``config/config.yaml`` it does not name
    (the embedded simulated one) are left out of the run: name ``default`` to keep it."""
    datasets = config.get("datasets")
    if named is None or not isinstance(datasets, Mapping):
        return datasets, []
    return {d: v for d, v in datasets.items() if d in named}, sorted(d for d in datasets if d not in named)


# ----------------------------------------------------------------------------- schema and defaults

def load_schema(path: Path | str = SCHEMA) -> dict[str, Any]:
    """The config schema (the workflow's own file; libyaml's safe loader when PyYAML has it, the
    same document in an eighth of the time, which every start of the workflow waits for)."""
    import yaml

    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _validator(schema: Mapping[str, Any]):
    """A JSON-schema validator that fills in each property's ``default`` as it validates (the
    jsonschema FAQ's recipe, public API only)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    validate_properties = base.VALIDATORS["properties"]

    def properties_with_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, sub in properties.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(base, {"properties": properties_with_defaults})(schema)


def validated(config: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A deep copy of ``config`` with every default filled in; raises :class:`ConfigError` naming
    the key of the most relevant schema violation."""
    import jsonschema

    schema = load_schema() if schema is None else schema
    out = copy.deepcopy(dict(config))
    error = jsonschema.exceptions.best_match(_validator(schema).iter_errors(out))
    if error is not None:
        key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise ConfigError(f"config key {key}: {error.message}")
    return out


def judge_specs(config: Mapping[str, Any]) -> dict[str, tuple[JudgeSpec, ...]]:
    """By data set, its judges (metaeval.data.judges.JudgeSpec): those of the chosen catalog releases
    that join it (catalog.judges_of), then the config's ``judges.own``; none when ``judges.enabled``
    is false."""
    if not config["judges"]["enabled"]:
        return {}
    out: dict[str, list[JudgeSpec]] = {}
    for dataset, declared in catalog.judges_of(list(config["benchmarks"]), RESULTS).items():
        for d in declared:
            out.setdefault(dataset, []).append(JudgeSpec(
                dataset, "llm_summeval", root=d["root"], judges=tuple(d["judges"]),
                methods=tuple(sorted(d["methods"].items())), pairwise_rule=d.get("pairwise_rule"),
                duplicates=d.get("duplicates", "last"),
                present=tuple((j, m) for j, m in d["present"] if m in d["methods"])))
    for j in config["judges"]["own"]:
        out.setdefault(j["dataset"], []).append(JudgeSpec(
            j["dataset"], "files", name=j["name"], method=j.get("method", ""), pointwise=j.get("pointwise"),
            pairwise=j.get("pairwise"), rule=j.get("rule"), pairwise_rule=j.get("pairwise_rule"),
            duplicates=j.get("duplicates", "last")))
    return {k: tuple(v) for k, v in sorted(out.items())}


def judge_declarations(specs: Sequence[JudgeSpec], entry: Mapping[str, Any]) -> list[tuple]:
    """The file metrics' declarations of the judges' metrics of a release laid out as LLM_summeval's
    (their names and dimensions are known before any job: judge x method x SummEval's dimensions);
    a user's judge's metrics are declared by the score file's ids (judge.method.dimension)."""
    out = []
    for spec in specs:
        if spec.layout != "llm_summeval":
            for dim in pointwise_dimensions(spec.pointwise):
                out.append((metric_id(spec.name, spec.method, dim), f"{metric_name(spec.name, spec.method)} ({dim})",
                            None, f"LLM judge {spec.name}, asked about {dim}", dim))
            continue
        for judge, method in spec.present:
            if judge in spec.judges:
                for dim in LLM_SUMMEVAL_DIMENSIONS:
                    out.append((metric_id(judge, method, dim), f"{metric_name(judge, method)} ({dim})", None,
                                f"LLM judge {judge}, method {method}, asked about {dim}", dim))
    return out


def with_benchmarks(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with the catalog's benchmarks it names among its data sets (:func:`catalog.with_benchmarks`)."""
    try:
        datasets, names = catalog.with_benchmarks(config.get("datasets"), config.get("benchmarks"), RESULTS)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    return {**config, "datasets": datasets, "benchmarks": names}


def schema_defaults(schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every section but ``datasets`` with its defaults (what an empty section means)."""
    return {k: v for k, v in validated({"datasets": {"x": {"format": "simulated"}}}, schema).items() if k != "datasets"}


def default_options() -> Options:
    """The options of the schema's defaults, with one simulated data set: the records tests and
    benchmarks start from (``default_options().factuality._replace(seed=3)``), since no record has
    defaults of its own that could disagree with the schema."""
    return Options.from_config({"datasets": {"sim": {"format": "simulated"}}})


# ----------------------------------------------------------------------------- checks beyond the schema

def check(config: Mapping[str, Any]) -> None:
    """Checks a schema cannot express; ``config`` has its defaults (:func:`validated`)."""
    fetched = set(config["benchmarks"])
    for name, entry in config["datasets"].items():
        key = f"datasets.{name}"
        if not re.fullmatch(DATASET_NAME, name):
            raise ConfigError(f"config key {key}: {name!r} is not a data set name; expected letters, digits, '_' and "
                              "'-', starting with a letter or digit (it names the folder results/<name>/)")
        if name in RESERVED_NAMES:
            held = {"all": "the cross-data-set results", "archive": "the archives", "to_score": "the texts to score"}
            raise ConfigError(f"config key {key}: {name!r} is reserved (results/{name}/ holds {held[name]}); "
                              "rename the data set")
        # the format's own paths (metaeval.data.formats), then the score files any entry may name; a
        # catalog benchmark's release files are its fetch job's (the catalog's own checks: catalog.read)
        fmt = FORMATS[entry["format"]]
        paths = [] if name in fetched else fmt.paths(entry)
        paths += [(f"metric_scores[{i}]", p) for i, p in enumerate(entry.get("metric_scores", []))]
        for k, p in paths:
            _check_input_path(f"{key}.{k}", p, score_file=k.startswith("metric_scores"))
        problem = None if name in fetched else fmt.problem(key, entry)
        if problem:
            raise ConfigError(problem)
        if fmt.declared:
            _check_declared_targets(config, name, *fmt.declared(entry))
    for i, p in enumerate(config["metric_scores"]):
        _check_input_path(f"metric_scores[{i}]", p, score_file=True)
    rouge = config["rouge"]
    for i, m in enumerate(rouge["measures"]):
        if not is_measure(m):
            raise ConfigError(f"config key rouge.measures[{i}]: {m!r} is not a ROUGE measure; expected one matching "
                              f"{MEASURE_PATTERN} (R1..R9, RL, RW, RS<d>, RSU<d>, RS*, RSU*)")
    try:
        exception_order(rouge["stemmer_exceptions"])
    except ValueError as e:
        raise ConfigError(f"config key rouge.stemmer_exceptions: {e}") from None
    if rouge["word_limit"] is not None and rouge["byte_limit"] is not None:
        raise ConfigError("config keys rouge.word_limit and rouge.byte_limit: give one or the other, not both "
                          "(as ROUGE-1.5.5's -l and -b)")
    corpus = config["sera"]["corpus"]
    if corpus is not None and not _looked_up("sera.corpus", corpus, Path.is_file):
        raise ConfigError(f"config key sera.corpus: {corpus!r} is not a file (expected a file in the "
                          "documents.jsonl form; relative paths are relative to the working directory)")
    for key, ids in (("correlation.baselines", config["correlation"]["baselines"]),
                     ("agreement.baseline", [config["agreement"]["baseline"]]),
                     ("rerank.original", [config["rerank"]["original"]]),
                     ("sweeps.variants", config["sweeps"]["variants"]),
                     ("intervals.shown", config["intervals"]["shown"])):
        try:
            parsed = parse_all(ids, key)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        # The analyses read these from the scores (the sweeps and intervals score on their own).
        for i, v in enumerate(parsed if key in ("correlation.baselines", "agreement.baseline", "rerank.original")
                              else []):
            require_computed(v, f"{key}[{i}]" if key == "correlation.baselines" else key, config)
        if key in ("sweeps.variants", "intervals.shown"):
            for i, v in enumerate(parsed):
                allowed = ("rouge", "bleu") if key == "sweeps.variants" else ("rouge",)
                if v.family not in allowed or (key == "intervals.shown" and v.statistic != "A"):
                    what = "ROUGE or BLEU variants" if key == "sweeps.variants" else "ROUGE mean variants (…_A_P/R/F)"
                    raise ConfigError(f"config key {key}[{i}]: {v} is not allowed here; expected {what}")
    across = config["across"]
    # the across stage runs with two or more data sets only; a single one never needs its combination
    if len(config["datasets"]) >= 2 and across["combination"] not in config["human_scores"]["combinations"]:
        raise ConfigError(f"config key across.combination: {across['combination']!r} is not one of "
                          f"human_scores.combinations {list(config['human_scores']['combinations'])}")
    try:
        # ids must parse; one a configuration does not compute is listed by the stage as left out
        parse_all(across["variants"], "across.variants")
    except ValueError as e:
        raise ConfigError(str(e)) from None
    best = config["rerank"]["best"]
    if best != "auto":
        try:
            variant = Variant.parse(best)
        except ValueError as e:
            raise ConfigError(f"config key rerank.best: 'auto' or a variant id: {e}") from None
        require_computed(variant, "rerank.best", config, "'auto' or ")
    check_calibration(config)
    check_statistics(config)
    check_delta(config)
    check_factuality(config)
    # the annotators stage's variant ids must parse (a data set lacking one gets a note)
    for i, v in enumerate(config["annotators"]["variants"]):
        if v not in ANNOTATOR_SELECTORS:
            try:
                Variant.parse(v)
            except ValueError as e:
                raise ConfigError(f"config key annotators.variants[{i}]: {e}; or one of "
                                  f"{', '.join(ANNOTATOR_SELECTORS)}") from None


def _check_input_path(key: str, path: str, score_file: bool) -> None:
    """An input the config names (``key``: the full config key) exists, is a file if it is a score
    file, and is outside results/."""
    if not _looked_up(key, path, Path.exists):
        raise ConfigError(f"config key {key}: {path!r} does not exist (relative paths are relative to the working "
                          "directory)")
    if score_file and not Path(path).is_file():
        raise ConfigError(f"config key {key}: {path!r} is not a file; expected a score file "
                          "([dataset,] topic, summarizer, metric, score; docs/DATASET_FORMAT.md)")
    if Path(path).resolve().is_relative_to(Path(RESULTS).resolve()):
        # The workflow owns results/: a job would overwrite or delete the user's files there.
        raise ConfigError(f"config key {key}: {path!r} is inside the workflow's output folder {RESULTS}/, whose "
                          "files the workflow writes and deletes; expected a data set folder outside it (copy the "
                          "files elsewhere, e.g. data/<name>/)")


def human_options(config: Mapping[str, Any], name: str) -> HumanOptions:
    """The human-scores job of a data set: the ``human_scores`` section and the entry's ``targets:``."""
    t = config["datasets"][name].get("targets", {})
    return from_section(HumanOptions, config["human_scores"], target_dimensions=tuple(t.get("dimensions", ())),
                        composites=tuple(sorted(t.get("composites", {}).items())), primary=t.get("primary"),
                        entry=f"config key datasets.{name}")


def _check_declared_targets(config: Mapping[str, Any], name: str, dimensions: Mapping[str, Any],
                            human: Mapping[str, Sequence[str]]) -> None:
    """An entry that declares its dimensions and components (a table entry) has its targets checked
    with the config, naming the config key, instead of by the human-scores job after the import and
    scoring (a canonical data set's dimensions are in its files: that job checks them)."""
    try:
        check_declared_targets(dimensions, human, human_options(config, name))
    except DatasetError as e:
        raise ConfigError(str(e)) from None


def _looked_up(key: str, path: str, test: Callable[[Path], bool]) -> bool:
    """``test`` (``Path.exists``, ``Path.is_file``) of the path a config key gives; a path the file
    system cannot look up (a name too long, a folder it may not read) is that key's error, not an
    OSError."""
    try:
        return test(Path(path))
    except OSError as e:
        shown = repr(path) if len(path) <= 100 else f"{path[:100]!r}... ({len(path)} characters)"
        raise ConfigError(f"config key {key}: {shown} cannot be looked up ({e.strerror}); expected a path the file "
                          "system can read (relative paths are relative to the working directory)") from None


# ----------------------------------------------------------------------------- what each job uses


def calibration_options(config: Mapping[str, Any]) -> CalibrationJobs:
    """The calibration jobs' records from the validated config's ``calibration`` section (the
    simulated data sets unless it names others; the verdicts at agreement.min_topics)."""
    c = config["calibration"]
    names = c["datasets"]
    if names is None:
        names = [k for k, v in sorted(config["datasets"].items()) if v["format"] == "simulated"]
    main = from_section(CalibrationRunOptions, c, differences=[float(x) for x in c["differences"]],
                        verdict_differences=[float(x) for x in c["verdict_differences"]],
                        confidence=float(c["confidence"]), alpha=float(c["alpha"]),
                        min_topics=config["agreement"]["min_topics"])
    grid = main._replace(topics=None, replicates=c["grid_replicates"], bootstrap_samples=0)
    tables = from_section(CalibrationTablesOptions, c, power=float(c["power"]), topics_grid=sorted(c["topics_grid"]),
                          alpha=float(c["alpha"]))
    return CalibrationJobs(datasets=tuple(names), model=from_section(CalibrationModelOptions, c), main=main, grid=grid,
                           tables=tables)


def check_factuality(config: Mapping[str, Any]) -> None:
    """The ``factuality:`` splits (one of those named) against the data sets whose splits are known at
    parse time (their format's: FRANK's valid / test, SummEdits' evaluation / test); other data sets'
    are checked when the job reads their summaries."""
    f = config["factuality"]
    for name, entry in sorted(config["datasets"].items()):
        fmt = FORMATS[entry["format"]]
        if not fmt.splits:
            continue
        for key in ("validation_split", "test_split"):
            if not set(given := [f[key]] if isinstance(f[key], str) else f[key]) & set(fmt.splits):
                raise ConfigError(f"config key factuality.{key}: {' or '.join(map(repr, given))} is not a split of data "
                                  f"set {name} ({fmt.title} has the splits {', '.join(fmt.splits)})")


class Options:
    """Everything the workflow's jobs use, built once from the validated config."""

    def __init__(self, config: Mapping[str, Any]):
        self.config = config
        r, b, s, h, c = (config[k] for k in ("rouge", "bleu", "scale", "human_scores", "correlation"))
        self.datasets: dict[str, dict[str, Any]] = {k: dict(v) for k, v in sorted(config["datasets"].items())}
        # the data sets that are benchmarks of the catalog, whose release files a fetch job brings
        self.benchmarks: dict[str, catalog.Benchmark] = {n: catalog.benchmarks()[n] for n in config["benchmarks"]}
        # by data set, its judges: a catalog release that joins it (LLM_summeval's), then judges.own
        self.judges: dict[str, tuple[JudgeSpec, ...]] = judge_specs(config)
        # stemmer_exceptions reaches only the records of jobs that stem, so that changing it re-runs
        # exactly those (and what reads their outputs)
        exceptions = exception_order(r["stemmer_exceptions"])
        self.derived = derived_fields(config)
        self.rouge = from_section(RougeOptions, r, stemmer_exceptions=exceptions)
        self.bleu_enabled: bool = b["enabled"]
        self.scale = from_section(ScaleOptions, s)
        # the stages' records (each stage's registry entry names its record: Options.record)
        self.score = self.record("score")
        self.chrf_enabled: bool = config["chrf"]["enabled"]
        self.chrf = self.record("chrf")
        self.sera_enabled: bool = config["sera"]["enabled"]
        self.sera_index = self.record("sera_index")
        self.sera = self.record("sera")
        self.gather = GatherOptions(rouge=self.rouge, bleu=self.bleu_enabled, shards=s["shards"])
        self.intervals = self.record("intervals")
        self.human = self.record("human")
        self.statistics_enabled: bool = config["statistics"]["enabled"]
        self.statistics = self.record("statistics")
        # "optimal" in correlations.tsv rests on the statistics job's permutation tests
        self.optimal_by_permutation: bool = self.statistics_enabled and self.statistics.optimal == "permutation"
        self.correlate = self.record("correlation")
        self.correlation_tables = self.record("correlation_tables")
        self.agreement = self.record("agreement")
        self.rerank = self.record("rerank")
        self.across = self.record("across")
        self.leaderboard = self.record("leaderboard")
        self.sweeps = self.record("reference_sweep")
        self.calibration = calibration_options(config)
        # the variants with a figure of what a difference means (results/all/delta/figure_<variant>.png)
        self.delta_figures: tuple[str, ...] = tuple(config["delta"]["variants"])
        self.factuality = self.record("factuality")
        # annotators as data
        self.annotators_enabled: bool = config["annotators"]["enabled"]
        self.annotators = self.record("annotators")

    def record(self, stage: str) -> Any:
        """A stage's options record, the one way every stage's record is built: the ``record`` its
        registry entry names (``"module:Record"``), built by field name from its first config
        section (:func:`metaeval.records.from_section`), with the fields :func:`metaeval.derived.derived_fields`
        gives it; None for a stage without a record."""
        s = registry.stage(stage)
        if s.record is None:
            return None
        section = self.config[s.sections[0]] if s.sections else {}
        return from_section(registry.hook(s.record), section, **self.derived.get(stage, {}))

    @classmethod
    def from_config(cls, config: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> Options:
        """Validate (defaults filled in), check, and build."""
        full = validated(with_benchmarks(config), schema)
        check(full)
        return cls(full)

    # -- per job

    def score_job(self, stem: int) -> ScoreJob:
        """The score job of a stemming setting (its ``{stem}`` wildcard): only a stemming job's
        record holds the exception table it uses."""
        return self.score if int(stem) else self.score._replace(stemmer_exceptions=None)

    def dataset(self, name: str) -> dict[str, Any]:
        return self.datasets[name]

    def human_job(self, name: str) -> HumanOptions:
        """The human-scores job of a data set: the section's values and the entry's ``targets:``."""
        return human_options(self.config, name)

    def simulation(self, name: str) -> SimulationParams:
        return simulation_params(self.datasets[name])

    def own_metric_sources(self, name: str) -> list[str]:
        """The score files of a data set alone: its release's (a canonical folder's metric_scores.tsv
        when it exists) or the one its importer writes (FRANK's baseline metrics), then the entry's
        ``metric_scores`` in the given order."""
        e = self.datasets[name]
        fmt = FORMATS[e["format"]]
        imported = [output_file(fmt.stage, SCORES, name)] if fmt.writes_scores and fmt.has_scores(e) else []
        judged = [output_file("judge_scores", "scores", name)] if self.judges.get(name) else []
        return fmt.score_files(e) + imported + judged + list(e.get("metric_scores", []))

    def file_metric_sources(self, name: str) -> list[str]:
        """Every score file a data set's rows may be in: its own (:meth:`own_metric_sources`), then
        the top-level ``metric_scores``, which apply to every configured data set."""
        return self.own_metric_sources(name) + list(self.config["metric_scores"])

    def has_texts(self, name: str) -> bool:
        """Whether a data set's summaries have texts, known before any job runs (so that the text
        metrics' jobs are left out of a score-only data set's DAG): as its format says
        (metaeval.data.formats; FRANK's release has none; a canonical folder says ``texts: false`` in
        dataset.yaml)."""
        e = self.datasets[name]
        return FORMATS[e["format"]].has_texts(e)

    def gather_job(self, name: str) -> GatherOptions:
        """The gathering job of a data set: a score-only data set gathers no ROUGE or BLEU."""
        if self.has_texts(name):
            return self.gather
        return GatherOptions(self.rouge._replace(measures=(), stemming=(), stopwords_removed=()), False,
                             self.scale.shards)

    def file_metrics(self, name: str) -> FileMetricsOptions:
        e = self.datasets[name]
        decl, shared_decl = (tuple((m, d.get("name"), d.get("higher_is_better"), d.get("description"), d.get("dimension"))
                                   for m, d in sorted(given.items()))
                             for given in (e.get("metrics", {}), self.config["metrics"]))
        # a format whose release leaves some summaries without a score (FRANK's): partial by default
        partial = e.get("partial_coverage", FORMATS[e["format"]].partial_coverage)
        if self.judges.get(name):
            # a judge's parse failures leave summaries without its score (counted in judges/parse.tsv)
            partial = True
            decl = tuple(sorted({*decl, *judge_declarations(self.judges[name], self.datasets[name])}))
        shared = tuple(self.config["metric_scores"])
        # the configured names matter only to top-level files (adding a data set re-runs no other job)
        configured = tuple(self.datasets) if shared else ()
        return FileMetricsOptions(decl, bool(partial), f"config key datasets.{name}.metrics", name, configured, shared,
                                  shared_decl)

    def judge_scores(self, name: str) -> JudgeScoresOptions:
        """The judges' reading job of a data set: its judges and the config's parse rules."""
        rules = self.config["judges"]["parse_rules"]
        return JudgeScoresOptions(self.judges.get(name, ()), json.dumps(rules, sort_keys=True) if rules else "")

    def to_score(self, name: str) -> ToScoreOptions:
        """The texts-out job of a data set (:class:`metaeval.records.ToScoreOptions`)."""
        fmt = FORMATS[self.datasets[name]["format"]]
        release = catalog.release_folder(name, RESULTS) if name in self.benchmarks else None
        return ToScoreOptions(name, fmt.texts_from, fmt.texts_file(self.datasets[name]), release)

    def about(self, name: str) -> tuple[tuple[str, str], ...]:
        """What the entry says of the data set (:data:`ABOUT`), over what its release says."""
        e = self.datasets[name]
        return tuple((k, e[k]) for k in ABOUT if e.get(k))

    def validation_score_check(self, name: str) -> FileMetricsOptions:
        """What the validation job's check of the data set's own score files needs (partial coverage
        allowed?), not the metrics' declarations (names, orientation, dimension) nor the top-level
        files, which the file metrics job checks: changing those re-runs it, not the validation."""
        return self.file_metrics(name)._replace(declarations=(), configured=(), shared=(), shared_declarations=())

    def resolved(self, dataset: str) -> dict[str, Any]:
        """Everything that determines one data set's results: its entry, the score files and metric
        declarations of the top level, and every analysis section (with defaults). Archived with the
        results and shown in the report."""
        out: dict[str, Any] = {"datasets": {dataset: self.datasets[dataset]}}
        for name in SCORE_KEYS:
            out[name] = self.config[name]
        for name in SECTIONS:
            out[name] = self.config[name]
        return out

    def config_hash(self, dataset: str) -> str:
        return config_hash(self.resolved(dataset))


def config_hash(resolved_config: Mapping[str, Any]) -> str:
    """A short, stable hash of a resolved configuration (sorted-key JSON)."""
    return hashlib.sha256(json.dumps(resolved_config, sort_keys=True).encode("utf-8")).hexdigest()[:12]
