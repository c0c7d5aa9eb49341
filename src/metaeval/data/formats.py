"""The release formats a data set's config entry names (``format:``), each declared once, in the way
of sacrerouge's registered dataset readers: format name -> the module that reads it -> the schema
definition its entry is validated by.

A :class:`ReleaseFormat` says everything the workflow needs to know of a format before any job
runs: the module that reads the release, the import job that runs it (its stage, whose files are
``results/{dataset}/<stage>/``, and its rule and script, ``workflow/scripts/<script>.py``), the
schema definition of its entry (``$defs`` of ``workflow/schemas/config.schema.yaml``), the paths of
an entry that must exist and its own checks, whether its summaries have texts, the score file its
importer writes, the release files its import job reads and the record it passes the importer.

Whatever depends on a format looks it up in :data:`FORMATS`: the config checks and the options of
the import jobs (:mod:`metaeval.options`), the import stages of the output contract
(:mod:`metaeval.outputs`), the import rules and the validation job's inputs (``rules/data.smk``,
``rules/common.smk``). Adding a format is its module, its entry here, its schema definition (with
its name in the ``format`` enum), its import script and its tests (``tests/test_formats.py``
checks that the registry, the schema and the scripts agree).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple

from ..records import SimulationParams
from .contract import FILES, METRIC_SCORES, REQUIRED, DatasetError
from .dataset_yaml import parse_dimension, read_yaml

Entry = Mapping[str, Any]      # a data set's validated config entry (defaults filled in)

# What the declarations need of a release before its importer runs (the importers read them from
# here): FRANK's files (metaeval.data.frank) and the splits of its summaries, and the name of a
# DUC/TAC summary file (metaeval.data.importers). The declarations import no importer, so that the
# jobs whose code covers them (the report's, through the stage registry) do not re-run when an
# importer is edited; a check that needs an importer's code looks its module up when it runs
# (:func:`_importer`), as the stage registry's hooks are looked up.
FRANK_HUMAN = "human_annotations.json"
FRANK_BASELINES = "baseline_factuality_metrics_outputs.json"
FRANK_FILES = (FRANK_HUMAN, FRANK_BASELINES)   # what a frank data set's folder needs
# the release's summaries, references and articles: not read by the import (the data set stays
# score-only whether or not the file is there), given to a metric of yours by the texts-out job
FRANK_TEXTS = "benchmark_data.json"
FRANK_SPLITS = ("valid", "test")
# XSumFaith's three files (metaeval.data.xsumfaith), by their names in the release
XSUMFAITH_SPANS = "hallucination_annotations_xsum_summaries.csv"
XSUMFAITH_FACTUAL = "factuality_annotations_xsum_summaries.csv"
XSUMFAITH_SCORES = "eval_scores_xsum_summaries.csv"
XSUMFAITH_FILES = (XSUMFAITH_SPANS, XSUMFAITH_FACTUAL, XSUMFAITH_SCORES)
# SummEdits' domain files (metaeval.data.summedits): summedits_<domain>.json, each record in one split
SUMMEDITS_FILE = re.compile(r"^summedits_(?P<domain>[a-z0-9_]+)\.json$")
SUMMEDITS_SPLITS = ("evaluation", "test")
SUMMARY_FILE = re.compile(r"^(?P<topic>[^.]+)\.M\.(?P<length>[^.]+)\.(?P<x>[^.]+)\.(?P<summarizer>[A-Za-z0-9]+)$")


class DucTacOptions(NamedTuple):
    """What the duc_tac importer reads besides the data set's name: a config entry of format
    ``duc_tac`` (declared with the format, read by metaeval.data.importers), or a record built by
    hand with the schema's defaults.
    ``tac_columns`` and ``tac_scales`` are sorted (key, value) pairs, so that the record's ``repr``
    is stable (Snakemake's params trigger compares it)."""
    path: str                      # the folder searched for the summary files
    see_table: str | None = None
    manual_peer: str | None = None
    grade_direction: str = "A_best"
    one_sentence_per_line: bool = True
    tac_columns: tuple[tuple[str, int], ...] = ()
    tac_scales: tuple[tuple[str, tuple[float, float]], ...] = ()
    description: str = ""
    source: str = ""
    license: str = ""
    citation: str = ""


def _importer(module: str):
    """An importer's module (``table``, ``table_files``), looked up by name when an entry's paths,
    checks or record need it (only the config checks and the rules do, before any job runs)."""
    return importlib.import_module(f"metaeval.data.{module}")


# The key, among an import stage's files, of the score file its importer writes (metric_scores.tsv).
SCORES = "metric_scores"
# What any data set entry may say of the data set, over its release's own words (dataset.yaml's keys):
# the report's data-set section (a catalog benchmark's source, licence and citation are the catalog's)
ABOUT = ("description", "source", "license", "citation")


def _none(entry: Entry) -> None:
    return None


def _no_problem(key: str, entry: Entry) -> str | None:
    return None


def _has_texts(entry: Entry) -> bool:
    return True


def _no_score_files(entry: Entry) -> list[str]:
    return []


def _path(entry: Entry) -> list[tuple[str, str]]:
    return [("path", entry["path"])]


@dataclass(frozen=True, kw_only=True)
class ReleaseFormat:
    """One release format. The callables take the data set's validated config entry."""

    name: str                       # the value of ``format:``
    schema: str                     # its definition under the schema's $defs
    module: str                     # the module that reads the release
    stage: str | None               # the import job's stage (None: the validation job reads the release as it is)
    script: str | None              # the import job's rule and workflow/scripts/<script>.py (None: no import job)
    paths: Callable[[Entry], list[tuple[str, str]]]   # (config key under the entry, path) that must exist
    inputs: Callable[[Entry], dict[str, Any]]         # the release files its first job reads, by name
    problem: Callable[[str, Entry], str | None] = _no_problem   # its own checks: the message of the first problem
    options: Callable[[Entry], Any] = _none           # what its import job passes the importer (``params.options``)
    # whether the workflow's text metrics apply: its summaries have texts and references (SummEdits'
    # have texts but no references)
    has_texts: Callable[[Entry], bool] = _has_texts
    score_files: Callable[[Entry], list[str]] = _no_score_files  # score files of the release read as they are
    writes_scores: bool = False     # its importer writes a score file (``SCORES`` among the stage's files)
    # whether an entry's import job writes scores to read (a table entry only when it maps metric columns)
    has_scores: Callable[[Entry], bool] = lambda e: True
    partial_coverage: bool = False  # its score files may leave a judged summary without a score (the default)
    splits: tuple[str, ...] = ()    # the splits of its summaries, known before any job runs
    # the dimensions and human components the entry itself declares (None: they are in the release's
    # files), so that its targets are checked with the config
    declared: Callable[[Entry], tuple[dict[str, Any], dict[str, list[str]]]] | None = None
    title: str = ""                 # what messages call the release
    # where the texts its release lacks (summaries, references, sources) could come from, for the
    # texts-out job (metaeval.stages.to_score); "" when it lacks none or no other copy is known
    texts_from: str = ""
    # the release file holding the texts of a score-only release (FRANK's benchmark_data.json), which
    # the texts-out job gives out when it is there; None: no such file
    texts_file: Callable[[Entry], str | None] = _none
    # the key of an entry that names its release files: "path" (one file or folder) or "paths" (a list)
    files_key: str = "path"
    # other keys of an entry that name release files, read by the import when given (bartscore_pkl's
    # ``annotations``; summedits' ``if_present``): a catalog benchmark's are checked against its files
    # and put under its fetch job's folder, as its files key is
    release_keys: tuple[str, ...] = ()

    def files(self) -> dict[str, str]:
        """The import stage's files by key (:data:`FILES` and, if it writes one, the score file)."""
        return {**FILES, **({SCORES: METRIC_SCORES} if self.writes_scores else {})}


# ----------------------------------------------------------------------------- canonical

_FOLDER = "expected a data set folder with dataset.yaml, summaries.jsonl and judgments.tsv (docs/DATASET_FORMAT.md)"


def _canonical_problem(key: str, entry: Entry) -> str | None:
    folder = Path(entry["path"])
    if not folder.is_dir():
        return f"config key {key}.path: {entry['path']!r} is a file; {_FOLDER}"
    for required in REQUIRED:
        if not (folder / FILES[required]).is_file():
            return f"config key {key}.path: {entry['path']!r} has no {FILES[required]}; {_FOLDER}"
    return None


def _canonical_inputs(entry: Entry) -> dict[str, str]:
    """The folder's files the validation job reads: the required ones, and the optional ones it has."""
    folder = Path(entry["path"])
    return {key: str(folder / name) for key, name in FILES.items() if key in REQUIRED or (folder / name).exists()}


def _canonical_texts(entry: Entry) -> bool:
    """``texts: false`` (a score-only data set) or ``references: false`` (no reference summaries: the
    text metrics, all reference-based, do not apply) in the folder's dataset.yaml (read here with the
    safe loader; the validation job reports any other problem of the file)."""
    path = Path(entry["path"]) / FILES["dataset"]
    try:
        meta, _ = read_yaml(path, path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, DatasetError):
        return True
    return not (isinstance(meta, dict) and (meta.get("texts") is False or meta.get("references") is False))


def _canonical_scores(entry: Entry) -> list[str]:
    """The folder's metric_scores.tsv, read when it exists."""
    path = Path(entry["path"]) / METRIC_SCORES
    return [str(path)] if path.is_file() else []


# ----------------------------------------------------------------------------- the importers' formats

def _bartscore_problem(key: str, entry: Entry) -> str | None:
    if not Path(entry["path"]).is_file():
        return (f"config key {key}.path: {entry['path']!r} is not a file; expected one of BARTScore's unified files "
                "(<Release>/data.pkl)")
    return None


def _frank_problem(key: str, entry: Entry) -> str | None:
    for name in FRANK_FILES:
        if not (Path(entry["path"]) / name).is_file():
            return (f"config key {key}.path: {entry['path']!r} has no {name}; expected FRANK's data/ folder with "
                    f"{' and '.join(FRANK_FILES)}")
    return None


def _frank_inputs(entry: Entry) -> dict[str, str]:
    folder = Path(entry["path"])
    return {Path(name).stem: str(folder / name) for name in FRANK_FILES}


def _xsumfaith_problem(key: str, entry: Entry) -> str | None:
    names = [Path(p).name for p in entry["paths"]]
    for i, (path, name) in enumerate(zip(entry["paths"], names)):
        if name not in XSUMFAITH_FILES or names.count(name) > 1:
            return (f"config key {key}.paths[{i}]: {path!r}; expected XSumFaith's three files, once each, under their "
                    f"release names ({', '.join(XSUMFAITH_FILES)})")
        if not Path(path).is_file():
            return f"config key {key}.paths[{i}]: {path!r} is not a file"
    missing = [n for n in XSUMFAITH_FILES if n not in names]
    return f"config key {key}.paths: no {missing[0]}; expected all three of {', '.join(XSUMFAITH_FILES)}" \
        if missing else None


def _summedits_files(entry: Entry) -> list[tuple[str, str]]:
    return [(f"{k}[{i}]", p) for k in ("paths", "if_present") for i, p in enumerate(entry.get(k) or ())]


def _summedits_problem(key: str, entry: Entry) -> str | None:
    """Every file named summedits_<domain>.json, each domain once; the ``paths`` must exist (a file of
    ``if_present`` may not: it is read when it is there)."""
    domains: dict[str, str] = {}
    for k, path in _summedits_files(entry):
        found = SUMMEDITS_FILE.match(Path(path).name)
        if not found:
            return (f"config key {key}.{k}: {path!r}; expected a SummEdits domain file named summedits_<domain>.json "
                    "(the release's names, data/summedits/ of salesforce/factualNLG)")
        if found["domain"] in domains:
            return f"config key {key}.{k}: {path!r} is a second file of the domain {found['domain']!r} ({domains[found['domain']]})"
        domains[found["domain"]] = k
        if k.startswith("paths") and not Path(path).is_file():
            return f"config key {key}.{k}: {path!r} is not a file"
    return None


def _bartscore_inputs(entry: Entry) -> dict[str, str]:
    """The pickle, and QAGS's per-worker judgments when the entry names them."""
    return {"pickle": entry["path"], **({"annotations": entry["annotations"]} if entry.get("annotations") else {})}


def _realsumm_problem(key: str, entry: Entry) -> str | None:
    for i, path in enumerate(entry["paths"]):
        if not Path(path).is_file():
            return (f"config key {key}.paths[{i}]: {path!r} is not a file; expected REALSumm's score dictionaries "
                    "(scores_dicts/abs.pkl, ext.pkl)")
    return None


def _duc_tac_paths(entry: Entry) -> list[tuple[str, str]]:
    return _path(entry) + [(k, entry[k]) for k in ("see_table", "manual_peer") if entry.get(k)]


def _duc_tac_problem(key: str, entry: Entry) -> str | None:
    if not (entry.get("see_table") or entry.get("manual_peer")):
        return f"config key {key}: a duc_tac data set needs see_table and/or manual_peer"
    return None


def _duc_tac_inputs(entry: Entry) -> dict[str, list[str]]:
    """Every summary file and judgment table, so that editing one re-runs the import."""
    files = sorted(str(p) for p in Path(entry["path"]).rglob("*") if SUMMARY_FILE.match(p.name))
    return {"summaries": files, "tables": [entry[k] for k in ("see_table", "manual_peer") if entry.get(k)]}


def duc_tac_options(entry: Entry) -> DucTacOptions:
    return DucTacOptions(entry["path"], entry.get("see_table"), entry.get("manual_peer"), entry["grade_direction"],
                         entry["one_sentence_per_line"], tuple(sorted(entry["tac_columns"].items())),
                         tuple((k, tuple(v)) for k, v in sorted(entry["tac_scales"].items())), entry["description"],
                         entry["source"], entry["license"], entry["citation"])


def _simulated_problem(key: str, entry: Entry) -> str | None:
    return f"config key {key}.sentences: must not exceed units" if entry["sentences"] > entry["units"] else None


def simulation_params(entry: Entry) -> SimulationParams:
    return SimulationParams(*(int(entry[f]) for f in SimulationParams._fields))


# ----------------------------------------------------------------------------- declared tables

def _table_paths(entry: Entry) -> list[tuple[str, str]]:
    """The plain paths of a table entry that must exist (a pattern is checked by :func:`_table_problem`)."""
    files = _importer("table_files")
    return [(k, p) for k, p in files.entry_paths(entry) if files.expand_named(p) == [(p, None, None)]]


def _table_problem(key: str, entry: Entry) -> str | None:
    """What the schema cannot say of a table entry: a pattern that matches no file, where the
    references are (exactly one place), a splitter nltk cannot run offline."""
    table, files = _importer("table"), _importer("table_files")
    SYSTEM, nltk_problem = table.SYSTEM, table.nltk_problem
    for k, pattern in files.entry_paths(entry):
        found = files.expand_named(pattern)
        if not found:
            return (f"config key {key}.{k}: {pattern!r} matches no file; expected a file, or a pattern ({SYSTEM} and "
                    "* globs) matching at least one (relative paths are relative to the working directory)")
        for path, *_ in found:
            if files.file_name_problem(path):
                return (f"config key {key}.{k}: {pattern!r} matches a file Snakemake cannot take: "
                        f"{files.file_name_problem(path)}")
    refs = entry.get("references") or {}
    if refs.get("column") is not None and refs.get("path") is not None:
        return (f"config key {key}.references: both column and path; expected one place of the reference summaries "
                "(a field of the summaries or a file of references; system may be given with either)")
    if all(refs.get(k) is None for k in ("column", "path", "system")) and entry.get("texts", True) is not False:
        return (f"config key {key}.references: none of column, path and system; expected where the release keeps its "
                "reference summaries (a field of the summaries, a file of references, or the system whose summaries "
                "are the references)")
    if refs.get("judged") and refs.get("system") is None:
        return f"config key {key}.references.judged: only the summaries of a references.system can be judged"
    if not (entry.get("columns") or {}).get("summarizer") and "{system}" not in entry["path"]:
        return (f"config key {key}.columns.summarizer: missing; expected the column of the summarizer, or {SYSTEM} "
                "in the path (one file per system)")
    for what, splitter in (entry.get("sentence_splitter") or {}).items():
        if splitter == "nltk" and nltk_problem():
            return f"config key {key}.sentence_splitter.{what}: {nltk_problem()}"
    for name, spec in entry["dimensions"].items():
        try:   # the dimension checks of dataset.yaml, naming the config key
            parse_dimension(f"config key {key}", {}, name, spec)
        except DatasetError as e:
            return str(e)
    metrics = [(f"metric_columns[{i}]", m) for i, m in enumerate(entry.get("metric_columns") or ())]
    metrics += [(f"metric_files[{i}].metrics[{j}]", m) for i, f in enumerate(entry.get("metric_files") or ())
                for j, m in enumerate(f.get("metrics") or ())]
    # the validation job's check of metric ids (which would name the imported copy), looked up when
    # there are metric columns: its module imports the metric engines (numpy, pandas)
    id_problem = importlib.import_module("metaeval.metrics.families").metric_id_problem if metrics else None
    for k, metric in metrics:
        if id_problem(metric):
            return f"config key {key}.{k}: {metric!r}: {id_problem(metric)}"
    if not entry.get("human"):
        return (f"config key {key}.human: missing; a table entry declares its human components "
                "({coverage: [dimensions], linguistic_quality: [dimensions]})")
    for comp, dims in entry["human"].items():
        for d in dims or ():
            if d not in entry["dimensions"]:
                return (f"config key {key}.human.{comp}: {d!r} is not a dimension declared under {key}.dimensions "
                        f"({', '.join(entry['dimensions'])})")
    return None


def _table_inputs(entry: Entry) -> dict[str, list[str]]:
    """Every file the mapping reads, globs expanded, so that editing one re-runs the import."""
    return {"tables": _importer("table").release_files(entry)}


def _table_declared(entry: Entry) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """A table entry's dimensions (name -> Dimension) and human components, as its import declares them."""
    return {d.name: d for d in _table_options(entry).dimensions}, dict(entry.get("human") or {})


def _table_options(entry: Entry):
    return _importer("table").table_options(entry)


# ----------------------------------------------------------------------------- the registry

FORMATS: dict[str, ReleaseFormat] = {f.name: f for f in (
    ReleaseFormat(name="canonical", schema="canonical", module="metaeval.data.datasets", stage=None, script=None,
                  paths=_path, inputs=_canonical_inputs, problem=_canonical_problem, has_texts=_canonical_texts,
                  score_files=_canonical_scores),
    ReleaseFormat(name="summeval_jsonl", schema="summeval_jsonl", module="metaeval.data.importers",
                  stage="import_summeval", script="import_summeval",
                  paths=lambda e: [(f"paths[{i}]", p) for i, p in enumerate(e["paths"])],
                  inputs=lambda e: {"paths": list(e["paths"])}, files_key="paths"),
    ReleaseFormat(name="bartscore_pkl", schema="bartscore_pkl", module="metaeval.data.bartscore",
                  stage="import_bartscore", script="import_bartscore",
                  inputs=_bartscore_inputs, problem=_bartscore_problem, release_keys=("annotations",),
                  paths=lambda e: _path(e) + ([("annotations", e["annotations"])] if e.get("annotations") else []),
                  options=lambda e: e.get("release")),   # which release's layout (None: the file's folder name)
    ReleaseFormat(name="frank", schema="frank", module="metaeval.data.frank", stage="import_frank",
                  script="import_frank", paths=_path, inputs=_frank_inputs, problem=_frank_problem,
                  has_texts=lambda e: False, writes_scores=True, splits=FRANK_SPLITS, title="FRANK's release",
                  texts_from="FRANK's scores (human_annotations.json, baseline_factuality_metrics_outputs.json) come "
                             "without texts: the summaries, their reference summaries and the articles are in "
                             "benchmark_data.json of the same release (github.com/artidoro/frank, folder data/), one "
                             "record per article hash (the topic) and model_name (the summarizer). The catalog's "
                             "frank (benchmarks: [frank]) fetches it when it can be had; a frank folder of yours "
                             "gives it when the file is beside human_annotations.json.",
                  texts_file=lambda e: str(Path(e["path"]) / FRANK_TEXTS),
                  # the release has no score of some metrics for a few summaries (null)
                  partial_coverage=True),
    ReleaseFormat(name="realsumm_pkl", schema="realsumm_pkl", module="metaeval.data.realsumm",
                  stage="import_realsumm", script="import_realsumm",
                  paths=lambda e: [(f"paths[{i}]", p) for i, p in enumerate(e["paths"])],
                  inputs=lambda e: {"pickles": list(e["paths"])}, problem=_realsumm_problem, writes_scores=True,
                  files_key="paths",
                  title="REALSumm's release",
                  texts_from="REALSumm's own release (scores_dicts/abs.pkl, ext.pkl) has no source articles; "
                             "BARTScore's copy of REALSumm (github.com/neulab/BARTScore, SUM/REALSumm/data.pkl) has "
                             "them for the same 100 topics (doc ids): a data set of format bartscore_pkl with that "
                             "file gives texts with sources."),
    ReleaseFormat(name="xsumfaith", schema="xsumfaith", module="metaeval.data.xsumfaith", stage="import_xsumfaith",
                  script="import_xsumfaith", paths=lambda e: [(f"paths[{i}]", p) for i, p in enumerate(e["paths"])],
                  inputs=lambda e: {"paths": list(e["paths"])}, problem=_xsumfaith_problem, writes_scores=True,
                  files_key="paths", title="XSumFaith's release",
                  texts_from="XSumFaith's release has no articles: they are the XSum corpus's (Narayan et al. 2018), "
                             "the BBC article whose id is the topic (the XSum data set's id field)."),
    ReleaseFormat(name="summedits", schema="summedits", module="metaeval.data.summedits", stage="import_summedits",
                  script="import_summedits", paths=lambda e: [(f"paths[{i}]", p) for i, p in enumerate(e["paths"])],
                  inputs=lambda e: {"paths": list(e["paths"])}, problem=_summedits_problem, files_key="paths",
                  release_keys=("if_present",), splits=SUMMEDITS_SPLITS, title="SummEdits' release",
                  # the domain files read when they are there (the import job's inputs are the others)
                  options=lambda e: tuple(e.get("if_present") or ()),
                  # no reference summaries: the workflow's text metrics (all reference-based) do not apply
                  has_texts=lambda e: False,
                  texts_from="SummEdits' release has no reference summaries: a metric of yours reads the summary "
                             "and its document (source)."),
    ReleaseFormat(name="duc_tac", schema="duc_tac", module="metaeval.data.importers", stage="import_duc_tac",
                  script="import_duc_tac", paths=_duc_tac_paths, inputs=_duc_tac_inputs, problem=_duc_tac_problem,
                  options=duc_tac_options),
    ReleaseFormat(name="simulated", schema="simulated", module="metaeval.data.simulate", stage="simulate",
                  script="simulate_dataset", paths=lambda e: [], inputs=lambda e: {}, problem=_simulated_problem,
                  options=simulation_params),
    ReleaseFormat(name="table", schema="table", module="metaeval.data.table", stage="import_table",
                  script="import_table", paths=_table_paths, inputs=_table_inputs, problem=_table_problem,
                  options=_table_options, writes_scores=True, has_texts=lambda e: e.get("texts", True) is not False,
                  has_scores=lambda e: bool(e.get("metric_columns") or e.get("metric_files")),
                  declared=_table_declared, title="the declared table"),
)}
# The formats read by an import job (the others are read as they are by the validation job).
IMPORTED = tuple(f for f in FORMATS.values() if f.stage is not None)
