"""The output contract: the files of every stage (as :mod:`metaeval.registry` declares them), the
main job's targets and the report's inputs.

Paths are under ``results/{dataset}/``. A stage's files are named (``files("correlation")`` ->
``{"correlations": "results/{dataset}/analysis/correlations.tsv", ...}``); rules declare them as
named outputs and writers receive them by name, so a file's name is written in the registry and
nowhere else.

Placeholders in braces are filled by :func:`files` when a value is given (a list of values
expands the file into one entry per value, e.g. one Williams matrix per human combination) and
are otherwise left as Snakemake wildcards (``{stem}``, ``{stop}``, ``{measure}``, ``{shard}``).
"""

from __future__ import annotations

import itertools
import re
from typing import Callable, Iterable, Mapping, Sequence

from . import registry
from .memo import FOLDER as MEMO
from .parts import part_key, parts_by_setting  # noqa: F401 (the contract's names of score-job parts)
from .variants import setting_tag

RESULTS = "results"


# Stage -> {file key: path under results/{dataset}/}, as each stage declares it (metaeval.registry).
STAGES: dict[str, dict[str, str]] = {s.name: dict(s.files) for s in registry.STAGES}
ACROSS = "all"

ARCHIVE = f"{RESULTS}/archive/{{dataset}}-{{confighash}}.tar.gz"
ARCHIVE_LOG = f"{RESULTS}/archive/logs/{{dataset}}-{{confighash}}.log"
# Texts out (target ``to_score``): every judged summary of a data set, to score elsewhere.
TO_SCORE = f"{RESULTS}/to_score/{{dataset}}.jsonl"
TO_SCORE_LOG = f"{RESULTS}/to_score/logs/{{dataset}}.log"

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _fill(template: str, values: Mapping[str, object]) -> str:
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)


def files(stage: str, dataset: str = "{dataset}", **values: object) -> dict[str, str]:
    """The named files of a stage for one data set (or the ``{dataset}`` wildcard). ``values`` fill
    placeholders; a list or tuple expands each file whose key has that placeholder."""
    out: dict[str, str] = {}
    for key, rel in STAGES[stage].items():
        names = _PLACEHOLDER.findall(key)
        lists = {n: values[n] for n in names if n in values and isinstance(values[n], (list, tuple))}
        missing = [n for n in names if n not in values]
        if missing:
            raise KeyError(f"files({stage!r}): key {key!r} needs a value for {missing}")
        scalars = {k: v for k, v in values.items() if not isinstance(v, (list, tuple))}
        for combo in itertools.product(*lists.values()) if lists else [()]:
            v = {**scalars, **dict(zip(lists, combo)), "dataset": dataset}
            out[_fill(key, v)] = f"{RESULTS}/{dataset}/" + _fill(rel, v)
    return out


def file(stage: str, key: str, dataset: str = "{dataset}", **values: object) -> str:
    """One file of a stage (``key`` as in :data:`STAGES`, placeholders filled by ``values``)."""
    rel = STAGES[stage][key]
    return f"{RESULTS}/{dataset}/" + _fill(rel, {**values, "dataset": dataset})


def dataset_dir(dataset: str = "{dataset}") -> str:
    """The folder of all of a data set's results."""
    return f"{RESULTS}/{dataset}"


def log(job: str, dataset: str = "{dataset}") -> str:
    """The log of one job (``job`` may hold wildcards, e.g. ``preprocess_ST{stem}_RS{stop}``)."""
    return f"{RESULTS}/{dataset}/logs/{job}.log"


def memo(job: str, dataset: str = "{dataset}") -> str:
    """The folder of a job's memo (:mod:`metaeval.memo`): not an output but the rows it computed, kept
    for its next run; deleting it changes no result."""
    return f"{RESULTS}/{dataset}/{MEMO}/{job}"


def setting_tags(settings: Iterable[tuple[int, int]]) -> list[str]:
    return [setting_tag(s, r) for s, r in settings]


# ----------------------------------------------------------------------------- the main job

def final(dataset: str, values: Mapping[str, Sequence[object]], applies: Callable[[registry.Stage], bool]
          ) -> list[str]:
    """Every final output of one data set (the targets of the main job and of its archive): the
    files of every stage the registry marks final and for which ``applies(stage)`` holds, each
    placeholder ``p`` of a stage expanded over ``values[stage.expand[p]]``."""
    out: list[str] = []
    for s in registry.STAGES:
        if s.final is True and applies(s):
            out += files(s.name, dataset, **{p: list(values[path]) for p, path in s.expand.items()}).values()
        elif s.final and applies(s):
            out += [file(s.name, key, dataset) for key in s.final]
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------- the report

ReportItem = registry.ReportItem
ReportSection = registry.ReportSection


def input_key(item: ReportItem) -> str:
    """The named input of the report rule for one item: ``{stage}__{key}``."""
    return f"{item.stage}__{item.key}"


def report_inputs(dataset: str = "{dataset}", combinations: Sequence[str] = (),
                  applies: Callable[[registry.Stage], bool] = lambda s: True) -> dict[str, str]:
    """The report rule's named inputs: its context, the Williams table of every combination (for
    the opening answer: ``williams__{combination}``) and every item of every section, but those of
    the stages for which ``applies(stage)`` does not hold (jobs switched off or not applicable)."""
    items = [*registry.report_context(), *(i for s in registry.report_sections() for i in s.items)]
    items = [i for i in items if applies(registry.stage(i.stage))]
    williams = {f"williams__{c}": file("correlation", "williams_{combination}", dataset, combination=c)
                for c in combinations}
    return {**{input_key(i): file(i.stage, i.key, dataset) for i in items}, **williams}
