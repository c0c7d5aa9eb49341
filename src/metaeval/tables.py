"""The one table layer: every TSV and Markdown table the workflow writes or reads goes through here.

Written tables are byte-stable: the same frame gives the same bytes.

* Cells: floats in Python's shortest round-trip form (``repr``: ``0.1``, ``1e-05``), integers as
  integers, text as given. A missing or undefined value is :data:`NA` (``NA``), the one NA token.
  A cell that does not apply to its row (BLEU has no precision or recall in
  ``summary_scores.tsv``) is left empty: in the columns listed in ``blank``, None and NaN are
  written as an empty cell instead.
* TSV: tab-separated, header first, ``\\n`` line ends, no quoting (names with a tab or a newline
  are refused when a data set is validated).
* Markdown: a caption paragraph, a blank line, a pipe table (``| a | b |`` / ``|---|---|``); what
  Markdown would render in a name or a text (an HTML tag, emphasis, a link) is escaped with a backslash.

Reading: every column is text until asked for (``numeric=``), so ids such as ``NA``, ``1`` or
``01`` stay what they are; ``NA`` and empty cells become NaN in numeric columns, and numbers are
parsed by Python's ``float`` (correctly rounded), so a written float reads back bit for bit.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from .files import atomic_path, write_text

NA = "NA"


def cell(value: object) -> str:
    """One cell as text (see the module docstring)."""
    if value is None:
        return NA
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return NA if math.isnan(value) else repr(float(value))
    return str(value)


def _absent(value: object) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))


_FLOATS = (float, np.float64)


def _column_text(values: list[object], blank: bool) -> list[str]:
    if values and all(type(v) in _FLOATS for v in values):       # the common case, formatted at once
        missing = "" if blank else NA
        return [repr(x) if x == x else missing for x in map(float, values)]
    if blank:
        return ["" if _absent(v) else cell(v) for v in values]
    return [cell(v) for v in values]


def tsv_text(frame: pd.DataFrame, blank: Sequence[str] = ()) -> str:
    """A frame as TSV text (header + one line per row)."""
    columns = [_column_text(frame.iloc[:, i].tolist(), c in blank) for i, c in enumerate(frame.columns)]
    lines = ["\t".join(str(c) for c in frame.columns)]
    lines.extend("\t".join(row) for row in zip(*columns))
    return "\n".join(lines) + "\n"


def write_tsv(frame: pd.DataFrame, path: Path | str, blank: Sequence[str] = ()) -> None:
    """Write a frame as TSV, atomically."""
    write_text(path, tsv_text(frame, blank))


def write_tsv_parts(frames: Iterable[pd.DataFrame], columns: Sequence[str], path: Path | str,
                    blank: Sequence[str] = ()) -> None:
    """Write frames with the same columns one after another as one TSV (the bytes of the
    concatenated frame, without ever holding all of it), atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write("\t".join(columns) + "\n")
        for f in frames:
            fh.write(tsv_text(f, blank).split("\n", 1)[1])


def frame(rows: Iterable[Sequence[object]] | Iterable[dict], columns: Sequence[str]) -> pd.DataFrame:
    """A frame of object columns (values kept exactly as given: no dtype inference)."""
    rows = list(rows)
    if rows and isinstance(rows[0], dict):
        rows = [[r[c] for c in columns] for r in rows]
    out = pd.DataFrame([list(r) for r in rows], columns=range(len(columns)), dtype=object)
    out.columns = list(columns)      # set afterwards: names may repeat
    return out


def read_tsv(path: Path | str, numeric: Sequence[str] = (), integer: Sequence[str] = ()) -> pd.DataFrame:
    """Read a TSV written by :func:`write_tsv` (or in the same form). Columns are text, but those
    in ``numeric`` (float64, NA/empty -> NaN) and ``integer`` (int64)."""
    out = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, na_filter=False,
                      quoting=csv.QUOTE_NONE, lineterminator="\n", engine="c")
    for c in numeric:
        out[c] = to_float(out[c])
    for c in integer:
        out[c] = out[c].astype(np.int64)
    return out


def to_float(values: Iterable[str]) -> np.ndarray:
    """Text cells to float64 with Python's ``float`` (NA and empty -> NaN). A pandas column is
    read as a list first (iterating it cell by cell costs pandas' indexing per cell)."""
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.tolist()
    return np.array([math.nan if v in (NA, "") else float(v) for v in values], dtype=np.float64)


# ----------------------------------------------------------------------------- Markdown

# The characters Markdown would render rather than show in a cell or a caption (CommonMark and
# GitHub's extensions): a backslash escapes, | ends a cell, ` opens code, * and ~ emphasis and
# strike-through, < an HTML tag or an autolink, & an entity (&lt;), $ GitHub's math. Each is written
# with a backslash (any ASCII punctuation may be), so names and text show as they are.
_MD_ALWAYS = frozenset("\\|`*~<&$")


def _md_escape(text: str) -> str:
    """Text with what Markdown would render escaped (:data:`_MD_ALWAYS`; ``_`` unless it stands
    between two letters or digits, where it cannot open or close emphasis, so that ids such as
    ``R2_ST1_RS0_R`` stay as they are; ``]`` before ``(``, which would close a link or an image)."""
    text = str(text)
    if not any(c in _MD_ALWAYS or c in "_]" for c in text):
        return text
    out = []
    for i, c in enumerate(text):
        if c in _MD_ALWAYS:
            out.append("\\")
        elif c == "_":
            if not (0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()):
                out.append("\\")
        elif c == "]" and text[i + 1:i + 2] == "(":
            out.append("\\")
        out.append(c)
    return "".join(out)


def _md_unescape(text: str) -> str:
    """Text written by :func:`_md_escape`, escapes undone."""
    out, chars = [], iter(text)
    for c in chars:
        out.append(next(chars, "") if c == "\\" else c)
    return "".join(out)


def _md_cells(line: str) -> list[str]:
    """The cells of one Markdown table row written by :func:`markdown_table` (escapes undone)."""
    cells, current, chars = [], [], iter(line.strip()[1:-1])
    for c in chars:
        if c == "\\":
            current.append(next(chars, ""))
        elif c == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(c)
    return cells + ["".join(current).strip()]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    out = ["| " + " | ".join(map(_md_escape, header)) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(map(_md_escape, r)) + " |" for r in rows]
    return "\n".join(out) + "\n"


def markdown_text(caption: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """The caption paragraph and the table, every text escaped (:func:`_md_escape`)."""
    return f"{_md_escape(caption)}\n\n" + markdown_table(header, rows)


def write_markdown(path: Path | str, caption: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> None:
    """A Markdown table with its caption paragraph, atomically."""
    write_text(path, markdown_text(caption, header, rows))


def write_table(tsv: Path | str, md: Path | str, caption: str, header: Sequence[str],
                rows: Sequence[Sequence[str]]) -> None:
    """The same display table as TSV and as Markdown (cells already formatted as text)."""
    write_tsv(frame(rows, header), tsv)
    write_markdown(md, caption, header, rows)


def read_markdown(path: Path | str) -> tuple[str, list[str], list[list[str]]]:
    """(caption, header, rows) of a Markdown table written by :func:`write_markdown`."""
    text = Path(path).read_text(encoding="utf-8")
    caption, _, table = text.partition("\n\n")
    caption = _md_unescape(caption)
    lines = [l for l in table.splitlines() if l.startswith("|")]
    if len(lines) < 2:
        return caption, [], []
    return caption, _md_cells(lines[0]), [_md_cells(l) for l in lines[2:]]


def read_markdown_tables(path: Path | str) -> list[tuple[str, list[str], list[list[str]]]]:
    """Every (caption, header, rows) of a Markdown file of one or more tables, each written by
    :func:`markdown_text` (its caption paragraph, then its table) and joined by blank lines; a
    caption without a table has no header and no rows."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    for block in Path(path).read_text(encoding="utf-8").split("\n\n"):
        lines = [l for l in block.splitlines() if l.strip()]
        if lines and all(l.startswith("|") for l in lines) and out and not out[-1][1] and len(lines) >= 2:
            out[-1] = (out[-1][0], _md_cells(lines[0]), [_md_cells(l) for l in lines[2:]])
        elif lines:
            out.append((_md_unescape(block.strip()), [], []))
    return out


def fixed(value: object, digits: int = 3) -> str:
    """A number with a fixed number of decimals for display tables (``NA`` when missing)."""
    if value is None or value == "" or value == NA:
        return NA
    x = float(value)
    return NA if math.isnan(x) else f"{x:.{digits}f}"
