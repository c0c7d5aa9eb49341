"""The names the jobs that read the score jobs' files give them (the gathering job, the intervals):
one named input per kind of file, preprocessing setting and topic shard (``scores__ST1_RS0__shard0``).

A value below the stages and the output contract (which re-exports these names), so that the
scoring stage names its parts without importing the contract or the stage registry.
"""

from __future__ import annotations

import re
from typing import Mapping

from .variants import setting_tag


def part_key(kind: str, stem: int, stop: int, shard: int) -> str:
    """The gathering job's name for one score job's file (``kind``: a key of the ``score`` stage:
    ``scores``, ``bleu_stats`` or ``bleu_signature``)."""
    return f"{kind}__{setting_tag(stem, stop)}__shard{shard}"


def parts_by_setting(inputs: Mapping[str, str], kind: str) -> dict[tuple[int, int], list[str]]:
    """A job's named inputs of one kind of score-job file (:func:`part_key`), by (stem, stop), in shard order."""
    found = {}
    for key, path in inputs.items():
        m = re.fullmatch(rf"{kind}__ST([01])_RS([01])__shard([0-9]+)", key)
        if m:
            found[(int(m[1]), int(m[2]), int(m[3]))] = path
    out: dict[tuple[int, int], list[str]] = {}
    for (stem, stop, _), path in sorted(found.items()):
        out.setdefault((stem, stop), []).append(path)
    return out
