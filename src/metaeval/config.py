"""Defaults and derived settings for the workflow configuration (pure functions).

The schema (workflow/schemas/config.schema.yaml) checks types and keys; this module fills in
defaults and checks what a schema cannot (paths that must exist, options that exclude each other),
naming the offending key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

SIMULATION_DEFAULTS = {"seed": 20150601, "topics": 40, "systems": 16, "humans": 4, "units": 10,
                       "sentences": 6, "documents": 3}
DUC_TAC_DEFAULTS = {"grade_direction": "A_best", "one_sentence_per_line": True, "tac_columns": {},
                    "tac_scales": {}, "description": "", "source": "", "license": "", "citation": ""}
ROUGE_DEFAULTS = {"measures": ["R1", "R2", "R3", "R4", "RL", "RW", "RS4", "RSU4"], "stemming": [0, 1],
                  "stopwords_removed": [0, 1], "wlcs_weight": 1.2, "alpha": 0.5, "multiple_references": "A",
                  "jackknife_systems": False, "word_limit": None, "byte_limit": None}
BLEU_DEFAULTS = {"enabled": True, "per_summary_smoothing": "exp"}
HUMAN_DEFAULTS = {"combinations": ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", "pyramid",
                                   "modified_pyramid"],
                  "order": "combine_then_average"}
CORRELATION_DEFAULTS = {"summarizers": "systems", "bootstrap_samples": 1000, "resample": "both", "confidence": 0.95,
                        "seed": 20150601, "alpha": 0.05, "correction": None,
                        "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R", "R4_ST1_RS0_M_R"], "top_variants": 10}
SCALE_DEFAULTS = {"shards": 1, "scoring_mem_mb": 2000, "scoring_runtime": 30, "analysis_mem_mb": 4000,
                  "analysis_runtime": 60}
AGREEMENT_DEFAULTS = {"alpha": 0.05, "min_topics": 5, "baseline": "R2_ST1_RS0_A_R"}
RERANK_DEFAULTS = {"combination": "arithmetic", "best": "auto", "original": "R2_ST1_RS0_M_R", "alpha": 0.05}
SERA_DEFAULTS = {"enabled": True, "corpus": None, "cutoffs": [5, 10], "queries": ["plain", "keywords"],
                 "model": "lm_dirichlet", "mu": 2000.0, "bm25_k1": 1.2, "bm25_b": 0.75, "stemming": 1}
SWEEPS_DEFAULTS = {"variants": ["R1_ST1_RS0_A_R", "R2_ST1_RS0_A_R", "RL_ST1_RS0_A_F", "RSU4_ST1_RS0_A_R", "BLEU_ST1_RS0"],
                   "word_limits": [25, 50, 100, 200], "compression": [10, 20, 30, 40, 50], "combination": "arithmetic"}
INTERVALS_DEFAULTS = {"resamples": 1000, "confidence": 95.0, "seed": 0,
                      "shown": ["R1_ST1_RS0_A_R", "R2_ST1_RS0_A_R", "RL_ST1_RS0_A_F", "RSU4_ST1_RS0_A_R"]}


class ConfigError(ValueError):
    """A configuration value is wrong; the message names the key."""


def dataset_entry(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The data set entry with its format's defaults filled in."""
    entry = dict(config["datasets"][name])
    defaults = {"simulated": SIMULATION_DEFAULTS, "duc_tac": DUC_TAC_DEFAULTS}.get(entry["format"], {})
    return {**defaults, **entry}


def simulation_params(entry: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(entry.get(k, v)) for k, v in SIMULATION_DEFAULTS.items()}


def section(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    defaults = {"rouge": ROUGE_DEFAULTS, "bleu": BLEU_DEFAULTS, "human_scores": HUMAN_DEFAULTS,
                "correlation": CORRELATION_DEFAULTS, "agreement": AGREEMENT_DEFAULTS, "rerank": RERANK_DEFAULTS,
                "scale": SCALE_DEFAULTS, "sera": SERA_DEFAULTS, "sweeps": SWEEPS_DEFAULTS,
                "intervals": INTERVALS_DEFAULTS}[name]
    return {**defaults, **(config.get(name) or {})}


def check_config(config: Mapping[str, Any]) -> None:
    """Checks beyond the schema: input paths exist, exclusive options."""
    for name, raw in config["datasets"].items():
        entry = dataset_entry(config, name)
        key = f"datasets.{name}"
        paths: list[tuple[str, str]] = []
        if entry["format"] in ("canonical", "duc_tac"):
            paths.append(("path", entry["path"]))
        if entry["format"] == "summeval_jsonl":
            paths.extend((f"paths[{i}]", p) for i, p in enumerate(entry["paths"]))
        for k in ("see_table", "manual_peer"):
            if entry.get(k):
                paths.append((k, entry[k]))
        for k, p in paths:
            if not Path(p).exists():
                raise ConfigError(f"config key {key}.{k}: {p!r} does not exist (relative paths are "
                                  "relative to the working directory)")
        if entry["format"] == "duc_tac" and not (entry.get("see_table") or entry.get("manual_peer")):
            raise ConfigError(f"config key {key}: a duc_tac data set needs see_table and/or manual_peer")
        if entry["format"] == "simulated" and simulation_params(entry)["sentences"] > simulation_params(entry)["units"]:
            raise ConfigError(f"config key {key}.sentences: must not exceed units")
    corpus = section(config, "sera")["corpus"]
    if corpus is not None and not Path(corpus).is_file():
        raise ConfigError(f"config key sera.corpus: {corpus!r} is not a file (expected a file in the "
                          "documents.jsonl form; relative paths are relative to the working directory)")
    rouge = section(config, "rouge")
    if rouge["word_limit"] is not None and rouge["byte_limit"] is not None:
        raise ConfigError("config keys rouge.word_limit and rouge.byte_limit: give one or the other, not both "
                          "(as ROUGE-1.5.5's -l and -b)")


def schema_error_message(config: Mapping[str, Any], schema_file: str | Path) -> str | None:
    """The most relevant schema violation as one line naming the config key, or None if valid.

    Snakemake's own message names the key too, deep inside a dump of the schema; this puts it first.
    """
    import jsonschema
    import yaml

    schema = yaml.safe_load(Path(schema_file).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(dict(config)))
    if error is None:
        return None
    key = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    return f"config key {key}: {error.message}"


def code_version(*modules: str) -> str:
    """A short hash of the library modules a job runs, passed to it as a param so that Snakemake's
    params trigger re-runs the job when that code changes (its code trigger sees only the script)."""
    import hashlib
    import importlib

    digest = hashlib.sha256()
    for name in sorted(modules):
        module = importlib.import_module(f"metaeval.{name}")
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


SECTIONS = ("rouge", "bleu", "human_scores", "correlation", "agreement", "rerank", "sera", "sweeps", "intervals")


def resolved(config: Mapping[str, Any], dataset: str) -> dict[str, Any]:
    """Everything that determines one data set's results: its entry (with defaults) and every
    analysis section (with defaults). Archived with the results and shown in the report."""
    out: dict[str, Any] = {"datasets": {dataset: dataset_entry(config, dataset)}}
    for name in SECTIONS:
        out[name] = section(config, name)
    return out


def config_hash(resolved_config: Mapping[str, Any]) -> str:
    """A short, stable hash of a resolved configuration (sorted-key JSON)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(resolved_config, sort_keys=True).encode("utf-8")).hexdigest()[:12]
