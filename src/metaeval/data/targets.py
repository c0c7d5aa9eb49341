"""A data set's targets, as its declarations define them: Graham's combinations it can compute, each
dimension under its own name, the composites an entry declares, and the primary target (see
:mod:`metaeval.stages.human`, which computes their scores). Below the stages, so that the config
check can run the same checks on a table entry's declared dimensions, naming the config key."""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from ..records import HumanOptions
from ..stats.combinations import COMBINATIONS, COMPOSITE_FUNCTIONS
from .contract import HUMAN_COMPONENTS, DatasetError, Dimension
from .datasets import Dataset

PYRAMID_SCORES = ("pyramid", "modified_pyramid")
NEEDS = {"arithmetic": ("coverage", "linguistic_quality"), "geometric": ("coverage", "linguistic_quality"),
         "harmonic": ("coverage", "linguistic_quality"), "coverage": ("coverage",),
         "linguistic_quality": ("linguistic_quality",), "pyramid": ("pyramids",), "modified_pyramid": ("pyramids",)}


def available_combinations(human: Mapping[str, Sequence[str]], wanted: Sequence[str] = COMBINATIONS
                           ) -> tuple[list[str], dict[str, str]]:
    """The combinations that can be computed, and {skipped: reason}."""
    ok, skipped = [], {}
    for name in wanted:
        missing = [part for part in NEEDS[name] if not human.get(part)]
        if missing == ["pyramids"]:
            skipped[name] = "needs SCU annotations, but the data set has no pyramids.jsonl"
        elif missing:
            skipped[name] = (f"needs {' and '.join(missing).replace('_', ' ')}, but the data set lists no "
                             f"{' or '.join(missing).replace('_', ' ')} dimensions")
        else:
            ok.append(name)
    return ok, skipped


def components(ds: Dataset) -> dict[str, list[str]]:
    """What :func:`available_combinations` checks: the data set's components and its pyramids."""
    return {**ds.human, "pyramids": ["pyramids.jsonl"] if ds.pyramids else []}



# Columns of summary_human.tsv a target may not be named as.
RESERVED_TARGETS = ("topic", "summarizer", "kind")


class Target(NamedTuple):
    """One thing the analyses correlate metrics with (see the module docstring)."""

    name: str
    kind: str            # combination | dimension | composite
    definition: str
    factual: bool = False
    expression: str = ""  # a composite's declaration (``mean(coherence, fluency)``)


def parse_composite(name: str, expression: str, dimensions: Sequence[str], entry: str = "config key datasets.<name>"
                    ) -> tuple[str, list[str]]:
    """``mean(coherence, fluency)`` -> ("mean", ["coherence", "fluency"]); an error names the entry."""
    text = expression.strip()
    head, _, rest = text.partition("(")
    func, args = head.strip(), rest.removesuffix(")").split(",") if rest.endswith(")") else None
    where = f"{entry}.targets.composites.{name}"
    if func not in COMPOSITE_FUNCTIONS or args is None:
        raise DatasetError(f"{where}: {expression!r}; expected one of {', '.join(f + '(a, b, ...)' for f in COMPOSITE_FUNCTIONS)} "
                           "over declared dimensions")
    dims = [a.strip() for a in args]
    for d in dims:
        if d not in dimensions:
            raise DatasetError(f"{where}: {d!r} is not a dimension of the data set (declared: {', '.join(dimensions)})")
    if len(set(dims)) != len(dims) or not dims:
        raise DatasetError(f"{where}: {expression!r}; expected distinct dimensions")
    return func, dims


def judgment_source(ds: Dataset, d) -> str:
    """Where a dimension's judgments come from, in words: its annotators aggregated by the data set's
    rule (``the mean of the expert annotators' relevance scores``), or judgments.tsv."""
    if not (d.name in ds.aggregated or d.annotations_of or d.annotation_group):
        return "as judgments.tsv gives it"
    rule = ds.aggregation._replace(group=d.annotation_group or ds.aggregation.group)
    of = d.annotations_of or d.name
    return rule.describe() + ("" if of == d.name else f"' {of} scores")


def dimension_targets(ds: Dataset, options: HumanOptions, combinations: Sequence[str],
                      declared_in: str | None = None) -> tuple[list[Target], dict[str, str]]:
    """The dimension targets (every declared dimension, or the entry's list), and the combinations
    that are also a dimension (what their definition adds). ``declared_in``: the config key of the
    dimensions when the config declares them (a table entry's ``dimensions``), for the errors."""
    where = (lambda name: f"{declared_in}.{name}") if declared_in else (lambda name: f"dimension {name!r}")
    if not options.dimensions:
        return [], {}
    wanted = list(options.target_dimensions) if options.target_dimensions else list(ds.dimensions)
    out, same = [], {}
    for name in wanted:
        if name not in ds.dimensions:
            raise DatasetError(f"{options.entry}.targets.dimensions: {name!r} is not a dimension of the "
                               f"data set (declared: {', '.join(ds.dimensions)})")
        d = ds.dimensions[name]
        if name in RESERVED_TARGETS:
            raise DatasetError(f"{where(name)}: the name is a column of human/summary_human.tsv; rename the "
                               "dimension to make it a target")
        if name in combinations:
            parts = {p: ds.human.get(p, []) for p in NEEDS[name]}
            if name in HUMAN_COMPONENTS and parts == {name: [name]} and (d.min, d.max) == (0.0, 1.0):
                same[name] = f" (and the dimension {name}: its only dimension, already on [0, 1])"
                continue
            raise DatasetError(f"{where(name)}: Graham's combination of that name is also a target; rename "
                               "the dimension, or leave the combination out of human_scores.combinations")
        scale = f"{d.min:g}-{d.max:g}" if d.kind == "graded" else d.kind
        out.append(Target(name, "dimension", f"{name} ({scale}; {judgment_source(ds, d)})", d.is_factual))
    return out, same



def targets(ds: Dataset, options: HumanOptions, declared_in: str | None = None
            ) -> tuple[list[Target], dict[str, str], dict[str, tuple[str, list[str]]]]:
    """Every target in order (combinations, dimensions, composites), the left-out ones with the
    reason, and the composites' definitions (``declared_in``: as :func:`dimension_targets`)."""
    ok, skipped = available_combinations(components(ds), options.combinations)
    factual_dims = {d for d, dim in ds.dimensions.items() if dim.is_factual}
    dims, same = dimension_targets(ds, options, ok, declared_in)
    out = [Target(c, "combination", COMBINATION_DEFINITIONS[c] + same.get(c, ""),
                  c in HUMAN_COMPONENTS and bool(ds.human.get(c)) and set(ds.human[c]) <= factual_dims)
           for c in ok]
    out += dims
    composites = {}
    for name, expression in options.composites:
        if name in {t.name for t in out} or name in RESERVED_TARGETS:
            raise DatasetError(f"{options.entry}.targets.composites.{name}: the name is already a target "
                               "(or a column of human/summary_human.tsv); choose another")
        composites[name] = parse_composite(name, expression, list(ds.dimensions), options.entry)
        out.append(Target(name, "composite", f"{expression} of the dimensions rescaled to [0, 1]",
                          all(d in factual_dims for d in composites[name][1]), expression))
    return out, skipped, composites


def check_declared_targets(dimensions: Mapping[str, Dimension], human: Mapping[str, Sequence[str]],
                           options: HumanOptions) -> None:
    """The targets of a data set whose dimensions and components the config entry declares (a table
    entry), checked when the config is, by the checks :func:`targets` and :func:`primary_target`
    run in the human-scores job: a malformed composite, an unknown target or primary, a composite
    or a dimension named as another target. The errors name the config key."""
    declared = Dataset(name="", meta={}, dimensions=dict(dimensions), human={k: list(v) for k, v in human.items()},
                       summaries=[], judgments={})
    found, _, _ = targets(declared, options, f"{options.entry}.dimensions")
    primary_target([t.name for t in found], options.primary, options.entry)


COMBINATION_DEFINITIONS = {
    "arithmetic": "(C + L) / 2 of coverage C and linguistic quality L (Graham 2015)",
    "geometric": "sqrt(C L) (Graham 2015)", "harmonic": "2 C L / (C + L) (Graham 2015)",
    "coverage": "C: the mean of the coverage dimensions rescaled to [0, 1]",
    "linguistic_quality": "L: the mean of the linguistic quality dimensions rescaled to [0, 1]",
    "pyramid": "the pyramid score of the summary's SCUs", "modified_pyramid": "the modified pyramid score (Cohan & Goharian 2016)",
}


def primary_target(names: Sequence[str], marked: str | None, entry: str = "config key datasets.<name>") -> str | None:
    """The primary target: the one the entry marks, else the main combination (arithmetic when present,
    else the first target)."""
    if not names:
        return None
    if marked:
        if marked not in names:
            raise DatasetError(f"{entry}.targets.primary: {marked!r} is not a target of the data "
                               f"set (its targets: {', '.join(names)})")
        return marked
    return "arithmetic" if "arithmetic" in names else names[0]


def resolve_targets(configured: Sequence[str], available: Sequence[str], primary: str | None = None
                    ) -> dict[str, str]:
    """A stage's configured target names -> the data set's targets, for those it has: ``main`` is
    the primary target (:func:`primary_target`), ``all`` every target (in the data set's order)."""
    main = primary_target(list(available), primary if primary in available else None) if available else None
    out: dict[str, str] = {}
    for c in configured:
        if c == "all":
            out.update({t: t for t in available if t not in out.values()})
        elif (main if c == "main" else c) in available:
            out[c] = main if c == "main" else c
    return out
