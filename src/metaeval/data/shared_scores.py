"""The rows of a top-level score file (config key ``metric_scores``: files for every configured data
set) that concern one data set, and their digests.

The file metrics job of a data set reads the whole file but depends only on these rows: its rule
passes their digest through ``params:`` and names the file ``ancient()``, so that editing the rows
of one data set re-runs that data set's file metrics job and what follows it, not every data set's
(docs/scale.md, "Incremental reruns"). The rows that concern a data set are its own rows
(:func:`own_rows`: the header and the lines that name it) and every line whose first cell names no
configured data set (a row the job must refuse, or a malformed line), so that a bad edit re-runs
the jobs that report it. A file without a ``dataset`` column is its data set's whole. The scoring
signature and the archive take the data set's own rows (a checksum that another data set's edit
leaves true; an archived copy that re-runs alone). Read as bytes, without pandas: the rules import
this module when the workflow starts. A leading UTF-8 byte-order mark is not part of the rows (the
header's first cell is ``dataset`` all the same: :func:`metaeval.files.without_bom`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Collection, Sequence

from ..files import read_bytes, without_bom

DATASET_COLUMN = "dataset"


def _split(data: bytes) -> tuple[bytes, list[bytes]] | None:
    """(header, data lines) of a file with a ``dataset`` column first, else None."""
    lines = without_bom(data).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or lines[0].rstrip(b"\r").split(b"\t")[0] != DATASET_COLUMN.encode():
        return None
    return lines[0], lines[1:]


def _first(line: bytes) -> bytes:
    return line.split(b"\t", 1)[0]


def own_rows(data: bytes, dataset: str) -> bytes:
    """The header and the lines of a score file's bytes that name ``dataset`` (each ending with a line
    feed), or the whole file when it has no ``dataset`` column; without a byte-order mark either way."""
    split = _split(data)
    if split is None:
        return without_bom(data)
    header, lines = split
    own = dataset.encode("utf-8", "surrogatepass")
    return b"".join(line + b"\n" for line in [header, *(l for l in lines if _first(l) == own)])


def concerning_digest(data: bytes, dataset: str, configured: Collection[str]) -> str:
    """SHA-256 of what of a score file's bytes concerns ``dataset``: its own rows, then the lines
    whose first cell names no configured data set."""
    split = _split(data)
    names = {n.encode("utf-8", "surrogatepass") for n in configured}
    others = [l for l in split[1] if _first(l) not in names] if split else []
    return hashlib.sha256(b"\0".join([own_rows(data, dataset), *others])).hexdigest()


def digests(paths: Sequence[str], dataset: str, configured: Collection[str]) -> tuple[tuple[str, str], ...]:
    """(file, :func:`concerning_digest`) of each top-level score file, for the file metrics job's params."""
    return tuple((p, concerning_digest(read_bytes(p), dataset, configured)) for p in paths)


def own_digest(path: str | Path, dataset: str) -> str:
    """SHA-256 of the data set's own rows of a score file (:func:`own_rows`)."""
    return hashlib.sha256(own_rows(read_bytes(path), dataset)).hexdigest()
