"""The memo of a job: results of computations vectorised over metrics, kept one row per metric (or
pair of metrics) between runs of the job, so that a job re-run because a metric joined its inputs
computes that metric's rows and reads the others'.

A call names its computation and the *context* every row shares (the human scores, the sample
counts, the seed, the statistic; :func:`digest` of them with the library's source, so any edit of
the code starts afresh), and one key per row: the digest of everything that row's result depends on
(its metric's scores and id). :func:`rows` reads the rows kept under that context, has ``compute``
work out the others (the same vectorised routine on the missing rows alone: every statistic so
memoised treats its metric rows independently, and the tests check that the rows it keeps are
identical to a fresh computation's, bit for bit), and keeps the current rows for the next run.

The memo is off unless a job switches it on (:func:`kept_in`, by the door, with the folder the
output contract names): a function called outside a job computes everything. It is a cache, not a
result: deleting ``results/{dataset}/memo/`` changes no output, only the time a re-run takes. It is
stored as ``.npy`` arrays read without pickle and as JSON, and an entry that cannot be read is
recomputed.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .logs import log

# The folder under a data set's results that holds its jobs' memos (not archived: a cache, not a result).
FOLDER = "memo"
# The folder of the running job's memo and the entries it used (None: no memo).
_CURRENT: contextvars.ContextVar[tuple[Path, set[str]] | None] = contextvars.ContextVar("memo", default=None)
_KEYS, _NAMES, _ROWS = "keys.npy", "names.npy", "rows.json"


def _update(h, part: object) -> None:
    if isinstance(part, np.ndarray):
        a = np.ascontiguousarray(part)
        h.update(f"array {a.dtype.str} {a.shape}\n".encode())
        h.update(a.tobytes())
    elif isinstance(part, (list, tuple)):
        h.update(f"sequence {len(part)}\n".encode())
        for p in part:
            _update(h, p)
    elif part is None or isinstance(part, (str, int, float, bool, np.integer, np.floating)):
        h.update(f"{type(part).__name__} {part!r}\n".encode())
    else:
        raise TypeError(f"memo.digest: cannot digest a {type(part).__name__} (give arrays, numbers, strings)")


def digest(*parts: object) -> str:
    """The SHA-256 (hex) of arrays (dtype, shape and bytes), numbers, strings and sequences of them."""
    h = hashlib.sha256()
    for p in parts:
        _update(h, p)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of the library's source (every module of the package) and numpy's version."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256(np.__version__.encode())
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@contextlib.contextmanager
def kept_in(directory: str | Path | None) -> Iterator[None]:
    """Switch the memo on for a job, in ``directory`` (None: off). On success, the entries this job
    did not use are removed, so the folder holds what the last run computed and no more."""
    if directory is None:
        yield
        return
    folder = Path(directory)
    used: set[str] = set()
    token = _CURRENT.set((folder, used))
    try:
        yield
    finally:
        _CURRENT.reset(token)
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name not in used:
                shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)


def _say(name: str, kept: int, total: int) -> None:
    log.info("memo %s: %d of %d rows read from the last run, %d computed", name, kept, total, total - kept)


def _read(entry: Path) -> tuple[dict[str, int], dict[str, np.ndarray]] | None:
    """The kept rows' keys (key -> row) and arrays; None when any file the entry lists is missing or
    is not a plain array."""
    try:
        keys = np.load(entry / _KEYS, allow_pickle=False)
        names = [str(n) for n in np.load(entry / _NAMES, allow_pickle=False)]
        arrays = {n: np.load(entry / f"{n}.npy", allow_pickle=False) for n in names}
    except (OSError, ValueError, EOFError):
        return None
    return {str(k): i for i, k in enumerate(keys)}, arrays


def _entry(name: str, context: Sequence[object]) -> Path | None:
    """The running job's entry of a computation and context (marked used), or None without a memo."""
    current = _CURRENT.get()
    if current is None:
        return None
    folder, used = current
    label = f"{name}.{digest(code_digest(), name, *context)[:32]}"
    used.add(label)
    return folder / label


def _replace(entry: Path, fill: Callable[[Path], None]) -> None:
    """The entry's folder written by ``fill`` beside it, then put in its place whole (a crash leaves
    the old entry or none)."""
    tmp = entry.with_name(f"{entry.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    fill(tmp)
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(tmp, entry)


def _write(entry: Path, keys: Sequence[str], arrays: Mapping[str, np.ndarray]) -> None:
    """The entry as a folder of .npy files: the keys, the arrays' names, each array."""
    def fill(folder: Path) -> None:
        np.save(folder / _KEYS, np.asarray(list(keys), dtype="U64"), allow_pickle=False)
        np.save(folder / _NAMES, np.asarray(list(arrays), dtype=str), allow_pickle=False)
        for name, a in arrays.items():
            np.save(folder / f"{name}.npy", a, allow_pickle=False)

    _replace(entry, fill)


def rows(name: str, context: Sequence[object], keys: Sequence[str],
         compute: Callable[[list[int]], Mapping[str, np.ndarray]],
         axes: Mapping[str, int] | None = None) -> dict[str, np.ndarray]:
    """The results of a computation over rows (metrics, or pairs of metrics), each output array
    holding one slice per row along its axis (``axes``: output name -> axis, 0 when not named).
    ``compute(indices)`` returns them for the rows at ``indices`` (in that order); ``keys[i]`` is
    the digest of what row i's result depends on, ``context`` of what every row's does. Rows with
    the same key (two metrics with the same scores where only the scores matter) are computed once."""
    axes = dict(axes or {})
    unique = list(dict.fromkeys(keys))
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    out = _unique_rows(name, context, unique, lambda js: compute([first[unique[j]] for j in js]), axes)
    if len(unique) == len(keys):
        return out
    where = {k: j for j, k in enumerate(unique)}
    return {n: np.take(a, [where[k] for k in keys], axis=axes.get(n, 0)) for n, a in out.items()}


def _unique_rows(name: str, context: Sequence[object], keys: list[str],
                 compute: Callable[[list[int]], Mapping[str, np.ndarray]], axes: Mapping[str, int]
                 ) -> dict[str, np.ndarray]:
    """:func:`rows` of distinct keys."""
    entry = _entry(name, context) if keys else None
    if entry is None:
        return dict(compute(list(range(len(keys)))))
    stored = _read(entry) if entry.is_dir() else None
    index, kept = stored if stored is not None else ({}, {})
    missing = [i for i, k in enumerate(keys) if k not in index]
    _say(name, len(keys) - len(missing), len(keys))
    fresh = dict(compute(missing)) if missing else {}
    names = list(fresh) if missing else list(kept)
    if stored is not None and missing and set(names) != set(kept):
        # the kept entry has other outputs than the computation: start afresh
        return _recompute(entry, keys, compute)
    at_missing = {i: j for j, i in enumerate(missing)}
    out: dict[str, np.ndarray] = {}
    try:
        for n in names:
            ax = axes.get(n, 0)
            out[n] = np.concatenate([np.take(fresh[n], [at_missing[i]], axis=ax) if i in at_missing
                                     else np.take(kept[n], [index[k]], axis=ax) for i, k in enumerate(keys)], axis=ax)
    except (ValueError, IndexError):   # the kept rows do not fit the computed ones (another shape, fewer rows)
        return _recompute(entry, keys, compute)
    if missing or list(index) != keys:
        _write(entry, keys, out)
    return out


def _recompute(entry: Path, keys: Sequence[str], compute: Callable[[list[int]], Mapping[str, np.ndarray]]
               ) -> dict[str, np.ndarray]:
    """Every row computed afresh and kept (the kept entry did not fit the computed rows)."""
    out = dict(compute(list(range(len(keys)))))
    _write(entry, keys, out)
    return out


def _plain(value: object) -> object:
    """A row's value as JSON keeps it: numpy scalars as Python's, NaN and infinities as floats."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"memo.records: a row holds a {type(value).__name__} (give numbers and strings)")


def records(name: str, context: Sequence[object], keys: Sequence[str],
            compute: Callable[[int], Sequence[object]]) -> list[tuple]:
    """Rows of numbers and strings, one per key, for a computation done row by row: ``compute(i)``
    is row i's tuple. A row read from the memo and a computed one are the same Python values (a
    float's repr is exact in JSON), so the tables written from them are the same bytes."""
    entry = _entry(name, context)
    kept: dict[str, tuple] = {}
    try:
        if entry is not None and entry.is_dir():
            stored = json.loads((entry / _ROWS).read_text(encoding="utf-8"))
            kept = {str(k): tuple(row) for k, row in zip(stored["keys"], stored["rows"])}
    except (OSError, ValueError, KeyError, TypeError):
        kept = {}
    unique = set(keys)
    if entry is not None:
        _say(name, len(unique & kept.keys()), len(unique))
    found = dict(kept)
    for i, k in enumerate(keys):       # rows with the same key are computed once
        if k not in found:
            found[k] = tuple(_plain(v) for v in compute(i))
    out = [found[k] for k in keys]
    if entry is not None and (any(k not in kept for k in keys) or len(kept) != len(unique)):
        text = json.dumps({"keys": list(keys), "rows": [list(r) for r in out]}, allow_nan=True)
        _replace(entry, lambda folder: (folder / _ROWS).write_text(text, encoding="utf-8"))
    return out
