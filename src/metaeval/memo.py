"""The memo of a job: results of computations vectorised over metrics, kept one row per metric (or
pair of metrics) between runs of the job, so that a job re-run because a metric joined its inputs
computes that metric's rows and reads the others'.

A call names its computation and the *context* every row shares (the human scores, the sample
counts, the seed, the statistic; :func:`digest` of them with the library's source and the versions
of the libraries it calls, so any edit of the code or upgrade of a library starts afresh), and one key per row: the digest of everything that row's result depends on
(its metric's scores and id). :func:`rows` reads the rows kept under that context, has ``compute``
work out the others (the same vectorised routine on the missing rows alone: every statistic so
memoised treats its metric rows independently, and the tests check that the rows it keeps are
identical to a fresh computation's, bit for bit), and keeps the current rows for the next run.

The memo is off unless a job switches it on (:func:`kept_in`, by the door, with the folder the
output contract names): a function called outside a job computes everything. It is a cache, not a
result: deleting ``results/{dataset}/memo/`` changes no output, only the time a re-run takes. So it
is never the only source of a result it cannot verify:

* an entry is a folder of ``.npy`` arrays read without pickle (or of JSON rows) and the SHA-256 of
  its name and contents written beside them (``sha256``, with the names of the files it covers);
  nothing of an entry is parsed before its digest is checked, and an entry whose digest, files,
  shapes, dtypes or value types are not what the memo wrote (an edited number, a shortened row, a
  file put in its place, a link) is absent: its rows are computed again, and the entry is written
  anew;
* a row is written only when it was computed, now or by the run that wrote a verified entry;
* the memo never follows a link out of its own folder: a job's folder (or the ``memo`` folder) that
  is a symbolic link, or not a folder, switches the memo off for the job (a note in its log; nothing
  there is read, written or removed), and a link in an entry's place is removed, never followed;
* the clean-up after a job removes only the entries it did not use, named as the memo names them
  (``<computation>.<32 hex digits>``): nothing else in the folder is the memo's.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import io
import json
import os
import re
import shutil
import stat
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .logs import log

# The folder under a data set's results that holds its jobs' memos (not archived: a cache, not a result).
FOLDER = "memo"
# The folder of the running job's memo and the entries it used (None: no memo).
_CURRENT: contextvars.ContextVar[tuple[Path, set[str]] | None] = contextvars.ContextVar("memo", default=None)
_KEYS, _NAMES, _ROWS, _DIGEST = "keys.npy", "names.npy", "rows.json", "sha256"
# The name of an entry (a computation's name, the digest of its context), or of one being written.
_ENTRY = re.compile(r"[A-Za-z_]+\.[0-9a-f]{32}(\.tmp[0-9]+)?")
# The name of a file of an entry (an array's is <name>.npy), and the most its digest's file holds.
_FILE_NAME = re.compile(r"[A-Za-z0-9_]+\.(?:npy|json)")
_LISTING_BYTES = 1 << 16
# What an entry's array may hold: booleans and numbers (not text, objects or complex numbers).
_ARRAY_KINDS = "biuf"
# What a JSON row's values may be (what :func:`_plain` writes).
_SCALARS = (type(None), bool, int, float, str)


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


# A requirement's distribution name (PEP 508: the name before any extras, bounds or marker).
_REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


# The requirements that run the jobs and compute nothing a memo keeps (their trees are large, and
# reading their metadata costs every job time).
NOT_COMPUTING = frozenset({"snakemake", "requests"})


def library_versions(distribution: str = "metaeval") -> tuple[tuple[str, str], ...]:
    """(name, version) of Python and of every library the package's computations may call: the
    distribution's requirements (pyproject.toml's dependencies: numpy, scipy, statsmodels, numba,
    pandas, ...) and theirs in turn (numba's llvmlite), sorted by name; a library not installed is
    ``absent``. Left out: optional extras (the test tools) and the workflow engine's tree
    (:data:`NOT_COMPUTING`), which run jobs but compute no row."""
    from importlib import metadata     # defers importlib.metadata: read once per job, by code_digest

    def requirements(name: str) -> list[str]:
        try:
            listed = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            return []
        return [m.group(1).lower().replace("_", "-") for r in listed if "extra ==" not in r.replace('"', "")
                .replace("'", "") and (m := _REQUIREMENT_NAME.match(r))]

    seen: dict[str, str] = {}
    todo = requirements(distribution)
    while todo:
        name = todo.pop()
        if name in seen or name in NOT_COMPUTING:
            continue
        try:
            seen[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            seen[name] = "absent"
            continue
        todo += requirements(name)
    import platform                    # defers platform: the interpreter's version, once per job
    return (("python", platform.python_version()), ("numpy", np.__version__),
            *sorted((n, v) for n, v in seen.items() if n != "numpy"))


@lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of the library's source (every module of the package) and of the versions of
    Python and every library it depends on (:func:`library_versions`): a row computed under another
    scipy, statsmodels or numba is computed again, never mixed with the new ones."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256(repr(library_versions()).encode())
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _unusable(folder: Path) -> str | None:
    """Why a job's memo folder cannot be used (a link, here or at the ``memo`` folder above it, would
    take the memo's writes and its clean-up outside; a file is not the memo's), or None."""
    for path in (folder.parent, folder):
        if path.is_symlink():
            return f"{path} is a symbolic link"
        if path.exists() and not path.is_dir():
            return f"{path} is not a folder"
    return None


@contextlib.contextmanager
def kept_in(directory: str | Path | None) -> Iterator[None]:
    """Switch the memo on for a job, in ``directory`` (None: off). On success, the entries this job
    did not use are removed, so the folder holds what the last run computed and no more. A folder
    that is a link, or not a folder, switches the memo off (every row is computed; nothing there is
    read, written or removed)."""
    if directory is None:
        yield
        return
    folder = Path(directory)
    problem = _unusable(folder)
    if problem:
        log.warning("memo off: %s; every row is computed and nothing there is read, written or removed (delete it "
                    "to have the memo again)", problem)
        yield
        return
    used: set[str] = set()
    token = _CURRENT.set((folder, used))
    try:
        yield
    finally:
        _CURRENT.reset(token)
    if folder.is_dir() and not _unusable(folder):
        for entry in folder.iterdir():
            if entry.name not in used and _ENTRY.fullmatch(entry.name):
                _remove(entry)


def _remove(path: Path) -> None:
    """Remove an entry of the memo's (a folder, or a file or link in its place; a link itself, never
    what it points to)."""
    if path.is_symlink() or not path.is_dir():
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    else:
        shutil.rmtree(path, ignore_errors=True)


def _say(name: str, kept: int, total: int) -> None:
    log.info("memo %s: %d of %d rows read from the last run, %d computed", name, kept, total, total - kept)


def _sealed(label: str, files: Sequence[tuple[str, bytes]]) -> str:
    """The SHA-256 of an entry: its name, then each file's name, length and bytes, in order."""
    h = hashlib.sha256(f"metaeval memo entry {label}\n".encode())
    for name, data in files:
        h.update(f"{name} {len(data)}\n".encode())
        h.update(data)
    return h.hexdigest()


def _file(entry: Path, name: str, limit: int = -1) -> bytes:
    """A file of an entry (at most ``limit`` bytes and one more), read without following a link (a
    link or other non-file: OSError)."""
    fd = os.open(entry / name, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{entry / name} is not a file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit + 1 if limit >= 0 else -1)
    finally:
        os.close(fd)


def _verified(entry: Path) -> dict[str, bytes] | None:
    """The files of an entry, by name, if the entry is a folder (not a link) whose ``sha256`` (the
    digest, then the names of the files it covers, a line each) is the digest of its name and those
    files; else None. Nothing of an entry is parsed before it verifies."""
    try:
        if entry.is_symlink() or not entry.is_dir():
            return None
        listing = _file(entry, _DIGEST, _LISTING_BYTES).decode("ascii").split("\n")
        sealed, names = listing[0], listing[1:]
        if len(names) != len(set(names)) or not all(_FILE_NAME.fullmatch(n) for n in names):
            return None
        files = {n: _file(entry, n) for n in names}
    except (OSError, UnicodeDecodeError):
        return None
    return files if sealed == _sealed(entry.name, list(files.items())) else None


def _array(data: bytes) -> np.ndarray:
    return np.load(io.BytesIO(data), allow_pickle=False)


def _read(entry: Path, axes: Mapping[str, int]) -> tuple[dict[str, int], dict[str, np.ndarray]] | None:
    """The kept rows' keys (key -> row) and arrays; None when the entry does not verify
    (:func:`_verified`), or its keys, names or arrays are not what the memo writes: distinct text
    keys, the names of its other files, arrays of numbers with one slice per key along their axis."""
    files = _verified(entry)
    if files is None or _KEYS not in files or _NAMES not in files:
        return None
    try:
        keys, names = _array(files[_KEYS]), _array(files[_NAMES])
        if keys.dtype.kind != "U" or keys.ndim != 1 or names.dtype.kind != "U" or names.ndim != 1:
            return None
        keys, names = keys.tolist(), names.tolist()
        if sorted(f"{n}.npy" for n in names) != sorted(set(files) - {_KEYS, _NAMES}):
            return None
        found = {n: _array(files[f"{n}.npy"]) for n in names}
    except (ValueError, EOFError):
        return None
    if len(set(keys)) != len(keys):
        return None
    for n, a in found.items():
        ax = axes.get(n, 0)
        if a.dtype.kind not in _ARRAY_KINDS or a.ndim <= ax or a.shape[ax] != len(keys):
            return None
    return {str(k): i for i, k in enumerate(keys)}, found


def _entry(name: str, context: Sequence[object]) -> Path | None:
    """The running job's entry of a computation and context (marked used), or None without a memo."""
    current = _CURRENT.get()
    if current is None:
        return None
    folder, used = current
    label = f"{name}.{digest(code_digest(), name, *context)[:32]}"
    used.add(label)
    return folder / label


def _replace(entry: Path, files: Sequence[tuple[str, bytes]]) -> None:
    """The entry's folder written beside it (``files`` and their digest), then put in its place whole
    (a crash leaves the old entry or none). Whatever stands in its place (an older entry, a file, a
    link) is removed first, a link without following it."""
    tmp = entry.with_name(f"{entry.name}.tmp{os.getpid()}")
    _remove(tmp)
    tmp.mkdir(parents=True)
    for name, data in files:
        (tmp / name).write_bytes(data)
    (tmp / _DIGEST).write_text("\n".join([_sealed(entry.name, files), *(name for name, _ in files)]), encoding="ascii")
    _remove(entry)
    os.replace(tmp, entry)


def _npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, a, allow_pickle=False)
    return out.getvalue()


def _write(entry: Path, keys: Sequence[str], arrays: Mapping[str, np.ndarray]) -> None:
    """The entry as a folder of .npy files: the keys, the arrays' names, each array."""
    _replace(entry, [(_KEYS, _npy(np.asarray(list(keys), dtype="U64"))),
                     (_NAMES, _npy(np.asarray(list(arrays), dtype=str))),
                     *((f"{name}.npy", _npy(np.asarray(a))) for name, a in arrays.items())])


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


def _fits(kept: np.ndarray, fresh: np.ndarray, axis: int) -> bool:
    """Whether kept rows can stand beside computed ones: the same dtype and the same shape but
    along the rows' axis."""
    return kept.dtype == fresh.dtype and kept.ndim == fresh.ndim and \
        all(a == b for d, (a, b) in enumerate(zip(kept.shape, fresh.shape)) if d != axis)


def _unique_rows(name: str, context: Sequence[object], keys: list[str],
                 compute: Callable[[list[int]], Mapping[str, np.ndarray]], axes: Mapping[str, int]
                 ) -> dict[str, np.ndarray]:
    """:func:`rows` of distinct keys."""
    entry = _entry(name, context) if keys else None
    if entry is None:
        return dict(compute(list(range(len(keys)))))
    stored = _read(entry, axes)
    index, kept = stored if stored is not None else ({}, {})
    missing = [i for i, k in enumerate(keys) if k not in index]
    _say(name, len(keys) - len(missing), len(keys))
    fresh = {n: np.asarray(a) for n, a in compute(missing).items()} if missing else {}
    names = list(fresh) if missing else list(kept)
    if stored is not None and missing and (set(names) != set(kept) or
                                           not all(_fits(kept[n], fresh[n], axes.get(n, 0)) for n in names)):
        # the kept entry has other outputs, dtypes or shapes than the computation: start afresh
        return _recompute(entry, keys, compute)
    at_missing = {i: j for j, i in enumerate(missing)}
    out: dict[str, np.ndarray] = {}
    for n in names:
        ax = axes.get(n, 0)
        out[n] = np.concatenate([np.take(fresh[n], [at_missing[i]], axis=ax) if i in at_missing
                                 else np.take(kept[n], [index[k]], axis=ax) for i, k in enumerate(keys)], axis=ax)
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


def _read_records(entry: Path) -> dict[str, tuple] | None:
    """The kept rows by key; None when the entry does not verify (:func:`_verified`) or is not what
    the memo writes: distinct text keys, as many rows, each a list of numbers, text or null."""
    files = _verified(entry)
    if files is None or set(files) != {_ROWS}:
        return None
    try:
        stored = json.loads(files[_ROWS].decode("utf-8"))
        keys, found = stored["keys"], stored["rows"]
    except (ValueError, KeyError, TypeError):
        return None
    if not (isinstance(keys, list) and isinstance(found, list) and len(keys) == len(found)
            and all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys)
            and all(isinstance(r, list) and all(type(v) in _SCALARS for v in r) for r in found)):
        return None
    return {k: tuple(r) for k, r in zip(keys, found)}


def records(name: str, context: Sequence[object], keys: Sequence[str],
            compute: Callable[[int], Sequence[object]]) -> list[tuple]:
    """Rows of numbers and strings, one per key, for a computation done row by row: ``compute(i)``
    is row i's tuple. A row read from the memo and a computed one are the same Python values (a
    float's repr is exact in JSON), so the tables written from them are the same bytes."""
    entry = _entry(name, context)
    kept = (_read_records(entry) or {}) if entry is not None else {}
    unique = set(keys)
    if entry is not None:
        _say(name, len(unique & kept.keys()), len(unique))
    found = dict(kept)
    computed = False
    for i, k in enumerate(keys):       # rows with the same key are computed once
        if k not in found:
            found[k] = tuple(_plain(v) for v in compute(i))
            computed = True
    if entry is not None and (computed or len(kept) != len(unique)):
        order = list(dict.fromkeys(keys))
        text = json.dumps({"keys": order, "rows": [list(found[k]) for k in order]}, allow_nan=True)
        _replace(entry, [(_ROWS, text.encode("utf-8"))])
    return [found[k] for k in keys]
