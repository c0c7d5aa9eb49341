"""dataset.yaml of a data set folder (``docs/DATASET_FORMAT.md``): its name, its human dimensions
(range, kind, the annotations they are the mean of), its human components, and the declarations of
the metrics of its score files. Errors name the file, the line and the key.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import safe_yaml
from ..stats.aggregation import RULES, Aggregation
from .contract import DIMENSION_KINDS, DIMENSION_ROLES, HUMAN_COMPONENTS, DatasetError, Dimension, check_name, fail


def _error(path: str, line: int | None, problem: str) -> DatasetError:
    return fail(path, line, None, problem)


def read_yaml(path: Path | str, text: str) -> tuple[Any, dict[tuple[str, ...], int]]:
    """A YAML file the user gives, read by the one safe loader (:mod:`.safe_yaml`): (its value, the
    line of every key path). Anchors, aliases, a key twice, deep nesting, numbers other than the
    contract's and lone surrogates are errors naming the file and the line."""
    return safe_yaml.load(text, path, _error)


def unknown_key(key: str, allowed: Sequence[str]) -> str:
    """The message of an unknown key: what is allowed, and the closest allowed key if one is close."""
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key; {hint}expected only {', '.join(allowed)}"


def _is_number(x: Any) -> bool:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer too large for a double
        return False


# Bounds implied by a kind; a graded dimension declares its own.
KIND_BOUNDS = {"binary": (0.0, 1.0), "proportion": (0.0, 1.0), "preference": (0.0, 1.0)}
DIMENSION_KEYS = ("min", "max", "description", "kind", "annotations", "role")
# The keys of dataset.yaml (docs/DATASET_FORMAT.md): the contract's, metaeval's extensions, the two
# the normalised copy writes (what the data set has; recomputed, never trusted, when read) and the
# known truth a simulated data set records (metaeval.data.simulate).
DATASET_KEYS = ("name", "description", "source", "license", "citation", "dimensions", "human", "texts", "metrics",
                "has_documents", "has_pyramids", "simulation", "aggregation", "judged_lone_references", "references",
                "summary_level")
# dataset.yaml's summary_level: how its benchmark correlates at the summary level (pooled: over every
# judged summary, as XSumFaith's paper does; within_topic: within each topic, averaged, the default
# where topics have 3 summarizers or more)
SUMMARY_LEVELS = ("within_topic", "pooled")


def parse_dimension(path: Path, lines: Mapping[tuple[str, ...], int], name: str, spec: Any) -> Dimension:
    """One ``dimensions:`` entry: {min, max, description, kind, annotations: {dimension, group}}."""
    line = lines.get(("dimensions", name))
    fname = f"dimensions.{name}"

    def at(*keys: str) -> int | None:
        return lines.get(("dimensions", name, *keys), line)

    if not name.strip():
        raise fail(path, line, fname, f"{name!r}: an empty dimension name; expected a name (it heads a column of "
                   "judgments.tsv and names a target)")
    check_name(path, line, fname, name)   # a column name of the TSV tables: no tab or line break
    if name in ("topic", "summarizer"):
        raise fail(path, line, fname, "'topic' and 'summarizer' are reserved column names")
    if not isinstance(spec, dict):
        raise fail(path, line, fname, "expected a mapping {min: number, max: number}")
    unknown = sorted(set(map(str, spec)) - set(DIMENSION_KEYS))
    if unknown:
        raise fail(path, at(unknown[0]), f"{fname}.{unknown[0]}", unknown_key(unknown[0], DIMENSION_KEYS))
    kind = spec.get("kind", "graded")
    if kind not in DIMENSION_KINDS:
        raise fail(path, at("kind"), f"{fname}.kind", f"{kind!r}; expected one of {', '.join(DIMENSION_KINDS)}")
    bounds = KIND_BOUNDS.get(kind)
    for bound in ("min", "max"):
        if bound not in spec and bounds is not None:
            continue  # implied by the kind
        if not _is_number(spec.get(bound)):
            raise fail(path, at(bound), f"{fname}.{bound}", f"missing or not a number (got {spec.get(bound)!r})")
    lo = float(spec.get("min", bounds[0] if bounds else 0))
    hi = float(spec.get("max", bounds[1] if bounds else 0))
    if bounds is not None and (lo, hi) != bounds:
        raise fail(path, at("min"), fname, f"a {kind} dimension has min 0 and max 1 (got {lo:g} and {hi:g}); "
                   "leave them out or set them so")
    if not hi > lo:
        raise fail(path, line, fname, f"max ({spec['max']}) must be greater than min ({spec['min']})")
    if not math.isfinite(hi - lo):
        # scores are rescaled by (x - min) / (max - min): an infinite range makes every one 0
        raise fail(path, line, fname, f"max - min ({hi:g} - {lo:g}) overflows a double; expected a range of "
                   "finite width")
    source = spec.get("annotations")
    of = group = None
    if source is not None:
        if not isinstance(source, dict) or set(map(str, source)) - {"dimension", "group"}:
            raise fail(path, at("annotations"), f"{fname}.annotations",
                       "expected a mapping {dimension: <annotated dimension>, group: <annotator group>} (both optional)")
        for key in ("dimension", "group"):
            if key in source and (not isinstance(source[key], str) or not source[key]):
                raise fail(path, at("annotations", key), f"{fname}.annotations.{key}", "expected a name")
        of, group = source.get("dimension"), source.get("group")
    role = spec.get("role")
    if role is not None and role not in DIMENSION_ROLES:
        raise fail(path, at("role"), f"{fname}.role", f"{role!r}; expected one of {', '.join(DIMENSION_ROLES)} "
                   "(or no role)")
    return Dimension(name, lo, hi, str(spec.get("description", "")), kind, of, group, role)


def dimension_spec(d: Dimension) -> dict[str, Any]:
    """A dimension as dataset.yaml declares it (the inverse of :func:`parse_dimension`): the
    keys of the benchmarks as released only where they differ from their defaults."""
    spec: dict[str, Any] = {"min": d.min, "max": d.max, "description": d.description}
    if d.kind != "graded":
        spec["kind"] = d.kind
    source = {k: v for k, v in (("dimension", d.annotations_of), ("group", d.annotation_group)) if v is not None}
    if source:
        spec["annotations"] = source
    if d.role is not None:
        spec["role"] = d.role
    return spec


AGGREGATION_KEYS = ("rule", "trim", "group")


def parse_aggregation(raw: Any, where: Path | str, line: int | None = None) -> Aggregation:
    """dataset.yaml's (or a config entry's) ``aggregation:``: a rule name, or {rule, trim, group}
    (:mod:`metaeval.stats.aggregation`); absent = the mean of every annotator."""
    if raw is None:
        return Aggregation()
    spec = {"rule": raw} if isinstance(raw, str) else raw
    if not isinstance(spec, dict):
        raise fail(where, line, "aggregation", f"expected a rule ({', '.join(RULES)}) or {{rule, trim, group}}")
    unknown = sorted(set(map(str, spec)) - set(AGGREGATION_KEYS))
    if unknown:
        raise fail(where, line, f"aggregation.{unknown[0]}", f"unknown key; expected only {', '.join(AGGREGATION_KEYS)}")
    rule = spec.get("rule", "mean")
    if rule not in RULES:
        raise fail(where, line, "aggregation.rule", f"{rule!r}; expected one of {', '.join(RULES)}")
    trim = spec.get("trim", 0.1)
    if not _is_number(trim) or not 0 <= trim < 0.5:
        raise fail(where, line, "aggregation.trim", f"{trim!r}; expected the share cut at each end, 0 <= trim < 0.5")
    group = spec.get("group")
    if group is not None and (not isinstance(group, str) or not group):
        raise fail(where, line, "aggregation.group", "expected the name of an annotator group")
    return Aggregation(rule, float(trim), group)


def aggregation_spec(a: Aggregation) -> dict[str, Any]:
    """An aggregation as dataset.yaml declares it (the inverse of :func:`parse_aggregation`)."""
    spec: dict[str, Any] = {"rule": a.rule}
    if a.rule == "trimmed_mean":
        spec["trim"] = a.trim
    if a.group is not None:
        spec["group"] = a.group
    return spec


def parse_dataset_yaml(path: Path, text: str, human_override: Mapping[str, list[str]] | None = None
                       ) -> tuple[dict[str, Any], dict[str, Dimension], dict[str, list[str]]]:
    """Validate dataset.yaml; return (meta, dimensions, human components)."""
    meta, lines = read_yaml(path, text)
    if not isinstance(meta, dict):
        raise fail(path, 1, None, "expected a mapping with keys name, dimensions, human, ...")
    for key in meta:
        if key not in DATASET_KEYS:
            raise fail(path, lines.get((str(key),)), str(key), unknown_key(str(key), DATASET_KEYS))
    if not isinstance(meta.get("name"), str) or not meta["name"].strip():
        raise fail(path, lines.get(("name",)), "name", "missing or not a string; expected the data set's name")
    dims_raw = meta.get("dimensions")
    if not isinstance(dims_raw, dict) or not dims_raw:
        raise fail(path, lines.get(("dimensions",)), "dimensions",
                   "missing or empty; expected a mapping of every judgment column to {min, max}")
    dims: dict[str, Dimension] = {}
    for name, spec in dims_raw.items():
        dims[str(name)] = parse_dimension(path, lines, str(name), spec)
    for d in dims.values():
        if d.annotations_of is not None and d.annotations_of not in dims:
            raise fail(path, lines.get(("dimensions", d.name, "annotations", "dimension")),
                       f"dimensions.{d.name}.annotations.dimension",
                       f"{d.annotations_of!r} is not a declared dimension (declared: {', '.join(dims)})")
    texts = meta.get("texts", True)
    if not isinstance(texts, bool):
        raise fail(path, lines.get(("texts",)), "texts", f"{texts!r} is not true or false (false: summaries "
                   "without text, a score-only data set)")
    if meta.get("references", True) is not True and meta.get("references") is not False:
        raise fail(path, lines.get(("references",)), "references", f"{meta['references']!r} is not true or false "
                   "(false: a release without reference summaries, whose summaries and sources have texts)")
    if meta.get("summary_level", SUMMARY_LEVELS[0]) not in SUMMARY_LEVELS:
        raise fail(path, lines.get(("summary_level",)), "summary_level", f"{meta['summary_level']!r}; expected "
                   f"{' or '.join(SUMMARY_LEVELS)} (how the benchmark correlates metrics with humans per summary)")
    if not isinstance(meta.get("judged_lone_references", False), bool):
        raise fail(path, lines.get(("judged_lone_references",)), "judged_lone_references",
                   f"{meta['judged_lone_references']!r} is not true or false (true: a judged human summary may be its "
                   "topic's only one, scored by the score files only)")
    human_raw = human_override if human_override is not None else meta.get("human")
    source = "config human override" if human_override is not None else None
    if not isinstance(human_raw, dict):
        raise fail(path, lines.get(("human",)), "human",
                   "missing; expected {coverage: [dimensions], linguistic_quality: [dimensions]}")
    human: dict[str, list[str]] = {}
    for comp in HUMAN_COMPONENTS:
        lst = human_raw.get(comp, [])
        if lst is None:
            lst = []
        line = lines.get(("human", comp), lines.get(("human",)))
        where_path = source or path
        if not isinstance(lst, list) or not all(isinstance(d, str) for d in lst):
            raise fail(where_path, None if source else line, f"human.{comp}",
                       "expected a list of dimension names (may be empty)")
        for i, d in enumerate(lst):
            if d not in dims:
                raise fail(where_path, None if source else lines.get(("human", comp, str(i)), line),
                           f"human.{comp}",
                           f"dimension '{d}' is not declared under dimensions: (declared: {', '.join(dims)})")
        human[comp] = list(lst)
    unknown = set(human_raw) - set(HUMAN_COMPONENTS)
    if unknown:
        first = str(sorted(unknown, key=str)[0])
        raise fail(source or path, None if source else lines.get(("human", first)), f"human.{first}",
                   unknown_key(first, HUMAN_COMPONENTS).replace("unknown key", "unknown component"))
    if not human["coverage"] and not human["linguistic_quality"]:
        raise fail(source or path, None if source else lines.get(("human",)), "human",
                   "both components are empty; at least one must list a dimension")
    parse_metric_declarations(meta.get("metrics"), path, lines)
    parse_aggregation(meta.get("aggregation"), path, lines.get(("aggregation",)))
    return meta, dims, human


@dataclass(frozen=True)
class MetricDeclaration:
    """What dataset.yaml's ``metrics:`` (or a config entry's) says of a metric in metric_scores.tsv."""

    name: str = ""                 # display name ("" = the metric's id)
    higher_is_better: bool = True
    description: str = ""
    dimension: str = ""            # the human dimension it is meant for ("" = every target), e.g. an LLM judge of coherence


DECLARATION_KEYS = ("name", "higher_is_better", "description", "dimension")


def parse_metric_declarations(raw: Any, where: Path | str, lines: Mapping[tuple[str, ...], int] | None = None
                              ) -> dict[str, MetricDeclaration]:
    """Validate a ``metrics:`` mapping (metric id -> {name, higher_is_better, description, dimension})
    of dataset.yaml (``lines`` from its text) or of the config (``where`` names the config key)."""
    lines = lines or {}
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise fail(where, lines.get(("metrics",)), "metrics",
                   "expected a mapping of metric ids (as in metric_scores.tsv) to {name, higher_is_better, description, "
                   "dimension}")
    out: dict[str, MetricDeclaration] = {}
    for metric, spec in raw.items():
        line, fname = lines.get(("metrics", str(metric))), f"metrics.{metric}"
        spec = {} if spec is None else spec
        if not isinstance(spec, dict):
            raise fail(where, line, fname, "expected a mapping {name: text, higher_is_better: true|false, description: text, "
                       "dimension: text}")
        unknown = sorted(set(map(str, spec)) - set(DECLARATION_KEYS))
        if unknown:
            raise fail(where, lines.get(("metrics", str(metric), unknown[0]), line), f"{fname}.{unknown[0]}",
                       unknown_key(unknown[0], DECLARATION_KEYS))
        hib = spec.get("higher_is_better", True)
        if not isinstance(hib, bool):
            raise fail(where, lines.get(("metrics", str(metric), "higher_is_better"), line), f"{fname}.higher_is_better",
                       f"{hib!r} is not true or false")
        for key in ("name", "description", "dimension"):
            if not isinstance(spec.get(key, ""), str):
                raise fail(where, lines.get(("metrics", str(metric), key), line), f"{fname}.{key}", "expected text")
        out[str(metric)] = MetricDeclaration(spec.get("name", ""), hib, spec.get("description", ""),
                                             spec.get("dimension", ""))
    return out
