"""Writing files so that no reader ever sees half of one: write to a temporary name in the same
folder, then rename (atomic on POSIX). A failed write removes its temporary file.

Reading text files the user gives: :func:`read_bytes` (and :func:`read_text`) drop a leading UTF-8
byte-order mark, which Excel and Notepad write, so that every reader sees the file's first cell as
typed (a header ``\ufeffdataset`` is ``dataset``)."""

from __future__ import annotations

import contextlib
import glob
import os
from pathlib import Path
from typing import Iterator


def temporary_name(path: Path) -> Path:
    """The hidden temporary name ``path`` is written under before the rename."""
    return path.with_name(f".{path.name}.tmp{os.getpid()}")


@contextlib.contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure it is removed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A job killed outright (SIGKILL, power loss) cannot remove its temporary file; the next
    # write of the same output removes what earlier processes left.
    for stale in path.parent.glob(f".{glob.escape(path.name)}.tmp*"):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    tmp = temporary_name(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


BOM = b"\xef\xbb\xbf"      # UTF-8's byte-order mark


def without_bom(data: bytes) -> bytes:
    """A text file's bytes without a leading UTF-8 byte-order mark."""
    return data[len(BOM):] if data.startswith(BOM) else data


def read_bytes(path: Path | str) -> bytes:
    """The bytes of a text file, without a leading UTF-8 byte-order mark."""
    return without_bom(Path(path).read_bytes())


def read_text(path: Path | str, encoding: str = "utf-8", errors: str = "strict") -> str:
    """A text file decoded (``encoding``, ``errors`` as :meth:`bytes.decode`), without a leading UTF-8
    byte-order mark."""
    return read_bytes(path).decode(encoding, errors)


def write_text(path: Path | str, text: str) -> None:
    """Write UTF-8 text (newlines as given) atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def write_bytes(path: Path | str, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_between_markers(path: Path | str, marker: str, text: str) -> None:
    """Put ``text`` between the ``<!-- marker -->`` and ``<!-- /marker -->`` lines of a Markdown file (a
    table the docs show and the code derives: the stage registry's, the benchmark catalog's)."""
    whole = Path(path).read_text(encoding="utf-8")
    head, rest = whole.split(f"<!-- {marker} -->\n", 1)
    _, tail = rest.split(f"<!-- /{marker} -->", 1)
    write_text(path, f"{head}<!-- {marker} -->\n{text}\n<!-- /{marker} -->{tail}")


def between_markers(path: Path | str, marker: str) -> str:
    """What stands between the ``<!-- marker -->`` lines of a Markdown file (see :func:`write_between_markers`)."""
    text = Path(path).read_text(encoding="utf-8").split(f"<!-- {marker} -->\n")[1].split(f"<!-- /{marker} -->")[0]
    return text.removesuffix("\n")
