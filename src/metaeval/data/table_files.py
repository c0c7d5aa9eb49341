"""The files of a ``format: table`` release (:mod:`metaeval.data.table`): the paths a mapping
matches (``{system}`` and globs), the records of each file, its fields and the sentence splitters.

CSV and TSV are read through pandas with every cell as text (``dtype=str``, no missing-value
guessing: ``NA`` stays the text ``NA``) by its python engine, which tells a cell missing from a row
cut short from an empty one (the C engine reads both as empty). JSON and JSON lines are read by the
contract's own reader (:func:`~metaeval.data.contract.json_objects`,
:func:`~metaeval.data.contract.load_json`), not pandas': pandas' JSON reader keeps the last of a key
given twice without a word and guesses types (``"007"``, ``1e400``); the contract refuses a
duplicate key, naming the file and line. Numbers are parsed only by
:func:`~metaeval.data.contract.parse_number`.
"""

from __future__ import annotations

import glob
import io
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from .canonical_files import split_text
from .contract import (DatasetError, _unique_keys, check_name, check_text, fail, json_objects, load_json, parse_number,
                       read_text)
from .sentences import split_sentences

READERS = ("csv", "tsv", "json", "jsonl", "lines")
SPLITTERS = ("none", "metaeval", "nltk")
# The placeholder of a path whose files give the summarizer (one file per system).
SYSTEM = "{system}"
# The placeholder of a path whose files give the topic (one file per topic), as {system} gives the summarizer.
TOPIC = "{topic}"
# The one field of a plain-text file read one text per line (reader ``lines``).
LINE_FIELD = "text"
# nltk's Punkt model: data nltk downloads, not part of the package
PUNKT = "tokenizers/punkt_tab/english/"


# ----------------------------------------------------------------------------- paths and files

def expand(pattern: str) -> list[tuple[str, str | None]]:
    """(file, system) of every file a path matches, sorted: ``{system}`` matches one path part and
    gives the summarizer; ``*``, ``?`` and ``[..]`` glob. A plain path is itself (system None)."""
    if SYSTEM not in pattern and not glob.has_magic(pattern):
        return [(pattern, None)]
    before, _, after = pattern.partition(SYSTEM)
    regex = re.compile(_glob_regex(before) + (r"(?P<system>[^/]+)" + _glob_regex(after) if SYSTEM in pattern else ""))
    out = []
    for path in sorted(glob.glob(pattern.replace(SYSTEM, "*"))):
        m = regex.fullmatch(path)
        if m and Path(path).is_file():
            out.append((path, m.groupdict().get("system")))
    return out


def expand_named(pattern: str) -> list[tuple[str, str | None, str | None]]:
    """(file, system, topic) of every file a path matches, sorted: :func:`expand`, with ``{topic}``
    matching one path part and giving the topic as ``{system}`` gives the summarizer."""
    if TOPIC not in pattern:
        return [(f, s, None) for f, s in expand(pattern)]
    parts = re.split(r"(\{system\}|\{topic\})", pattern)
    regex = re.compile("".join(f"(?P<{p[1:-1]}>[^/]+)" if p in (SYSTEM, TOPIC) else _glob_regex(p) for p in parts))
    out = []
    for path in sorted(glob.glob(pattern.replace(SYSTEM, "*").replace(TOPIC, "*"))):
        m = regex.fullmatch(path)
        if m and Path(path).is_file():
            named = m.groupdict()
            out.append((path, named.get("system"), named.get("topic")))
    return out


def _glob_regex(part: str) -> str:
    return "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)


def entry_paths(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(config key under the entry, path or pattern) of every file the mapping names: the
    summaries, a references and a judgments file, the metric files."""
    out = [("path", entry["path"])]
    out += [(f"{s}.path", entry[s]["path"]) for s in ("references", "judgments") if (entry.get(s) or {}).get("path")]
    out += [(f"metric_files[{i}].path", m["path"]) for i, m in enumerate(entry.get("metric_files") or ())]
    if (entry.get("topics") or {}).get("path"):
        out.append(("topics.path", entry["topics"]["path"]))   # the topics' order of files aligned by line
    return out


def release_files(entry: Mapping[str, Any]) -> list[str]:
    """Every file the mapping reads (globs expanded): the import job's inputs, so that editing one
    re-runs the import."""
    return sorted({f for _, p in entry_paths(entry) for f, _, _ in expand_named(p)})


def reader_of(path: str, declared: str | None) -> str:
    if declared:
        return declared
    suffix = Path(path).suffix.lower().lstrip(".")
    return {"jsonl": "jsonl", "ndjson": "jsonl", "json": "json", "csv": "csv", "tsv": "tsv", "tab": "tsv",
            "txt": "lines"}.get(suffix, "")


Record = dict[str, Any]


def records(path: str, reader: str, key: str, header: tuple[str, ...] = ()) -> Iterator[tuple[int | str, Record]]:
    """(where, record) of every record of a release file: a CSV/TSV row (``row N``, the header
    being row 1), a JSON-lines line (its number) or an element of a JSON list (``record N``); a
    plain-text line (reader ``lines``: one text per line, its field ``text``); with ``header`` a
    CSV/TSV without a header row, whose columns it names (``row N`` is then the file's line N)."""
    if reader == "lines":
        yield from _lines(path)
    elif header and reader in ("csv", "tsv"):
        yield from _headerless(path, "," if reader == "csv" else "\t", header)
    elif reader in ("csv", "tsv"):
        yield from _delimited(path, "," if reader == "csv" else "\t")
    elif reader == "jsonl":
        yield from json_objects(path, "one JSON object per line")
    elif reader == "json":
        data = load_json(read_text(path), path, None, "a JSON list of objects", object_pairs_hook=_unique_keys(path, None))
        if not isinstance(data, list):
            raise fail(path, None, None, f"a JSON {type(data).__name__}; expected a list of objects, one per record")
        for i, rec in enumerate(data, start=1):
            if not isinstance(rec, dict):
                raise fail(path, f"record {i}", None, f"a JSON {type(rec).__name__}; expected an object")
            yield f"record {i}", rec
    else:
        raise DatasetError(f"config key {key}.reader: {path}: cannot tell the file's format from its name; expected "
                           f"a .csv, .tsv, .json, .jsonl or .txt file or a reader ({', '.join(READERS)})")


def _delimited(path: str, sep: str) -> Iterator[tuple[str, Record]]:
    """Rows of a CSV/TSV read by pandas with every cell kept as text (no number or missing-value
    guessing); the header is read as a row so that a column named twice is an error (pandas would
    rename the second ``a.1``)."""
    import pandas as pd

    text = read_text(path)   # UTF-8 checked and the byte-order mark dropped, as every file of the contract
    if not text.strip():
        raise fail(path, "row 1", None, "empty file; expected a header row naming the columns")
    try:
        # the python engine: the C engine reads a row cut short as empty cells, this one leaves the
        # missing cells out (NaN), so that a short row is an error naming it
        frame = pd.read_csv(io.StringIO(text), sep=sep, header=None, dtype=str, keep_default_na=False,
                            na_filter=False, skip_blank_lines=True, engine="python")
    except (pd.errors.ParserError, ValueError) as e:
        raise fail(path, None, None, f"not a {'CSV' if sep == ',' else 'TSV'} table ({e}); expected a header and "
                   "rows of as many cells") from None
    rows = frame.values.tolist()
    if not rows:
        raise fail(path, "row 1", None, "no rows; expected a header row naming the columns")
    header = [str(c) for c in rows[0]]
    for i, name in enumerate(header):
        check_text(path, "row 1", f"column {i + 1}", name)
        if header.index(name) != i:
            raise fail(path, "row 1", name, f"the column appears twice (columns {header.index(name) + 1} and {i + 1}); "
                       "expected each column once")
    for i, cells in enumerate(rows[1:], start=2):
        width = sum(isinstance(v, str) for v in cells)
        if width != len(header):
            raise fail(path, f"row {i}", header[width] if width < len(header) else None,
                       f"{width} cells; expected {len(header)}, one per column of the header")
        rec = dict(zip(header, cells))
        for k, v in rec.items():
            check_text(path, f"row {i}", k, v)
        yield f"row {i}", rec


def _lines(path: str) -> Iterator[tuple[int, Record]]:
    """A plain-text file, one text per line (sources, references, system outputs): line N is the
    record ``{"text": line}``; a final newline ends the last line, an empty line is an empty text."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines, start=1):
        line = line[:-1] if line.endswith("\r") else line
        check_text(path, i, LINE_FIELD, line)
        yield i, {LINE_FIELD: line}


def _headerless(path: str, sep: str, header: tuple[str, ...]) -> Iterator[tuple[str, Record]]:
    """Rows of a CSV/TSV without a header row (mt-metrics-eval's score files: ``system<TAB>score``),
    its columns named by the mapping's ``header``; every cell kept as text, as :func:`_delimited`."""
    import pandas as pd

    text = read_text(path)
    if not text.strip():
        raise fail(path, "row 1", None, "empty file; expected rows of " + ", ".join(header))
    try:
        frame = pd.read_csv(io.StringIO(text), sep=sep, header=None, dtype=str, keep_default_na=False,
                            na_filter=False, skip_blank_lines=True, engine="python")
    except (pd.errors.ParserError, ValueError) as e:
        raise fail(path, None, None, f"not a {'CSV' if sep == ',' else 'TSV'} table ({e}); expected rows of "
                   f"{len(header)} cells ({', '.join(header)})") from None
    for i, cells in enumerate(frame.values.tolist(), start=1):
        width = sum(isinstance(v, str) for v in cells)
        if width != len(header) or len(cells) != len(header):
            raise fail(path, f"row {i}", None, f"{width} cells; expected {len(header)}, one per name of the "
                       f"mapping's header ({', '.join(header)})")
        rec = dict(zip(header, cells))
        for k, v in rec.items():
            check_text(path, f"row {i}", k, v)
        yield f"row {i}", rec


def _check_columns(path: str, reader: str, first: Record | None, wanted: Mapping[str, str | None]) -> None:
    """A CSV/TSV's header has every column the mapping names (a JSON record is checked field by field)."""
    if reader not in ("csv", "tsv") or first is None:
        return
    for config_key, column in wanted.items():
        if column is not None and column not in first:
            raise DatasetError(f"{path}: row 1 (header), field {column!r}: no such column (config key {config_key}); "
                               f"expected one of {', '.join(map(repr, first))}")


# ----------------------------------------------------------------------------- fields

class _Reader:
    """What one file's records are read with: the file, its reader, the entry's config key."""

    def __init__(self, path: str, reader: str, key: str) -> None:
        self.path, self.reader, self.key = path, reader, key

    def value(self, where: int | str, rec: Record, column: str, config_key: str) -> Any:
        if column not in rec:
            raise fail(self.path, where, column, f"missing (config key {self.key}.{config_key} names it); expected "
                       "the field in every record")
        return rec[column]

    def name(self, where: int | str, rec: Record, column: str, config_key: str) -> str:
        value = self.value(where, rec, column, config_key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and self.reader in ("json", "jsonl"):
            value = str(value)   # a JSON id may be a number (REALSumm's topics): its text is the name
        if not isinstance(value, str) or not value:
            raise fail(self.path, where, column, f"{value!r}; expected a non-empty name (config key "
                       f"{self.key}.{config_key})")
        check_name(self.path, where, column, value)
        return value

    def number(self, where: int | str, column: str, value: Any) -> float:
        # a CSV cell is text; a JSON number is a JSON number, or a string holding one (as FRANK's)
        return parse_number(self.path, where, column, value)


def sentences_of(value: Any, splitter: str, path: str, where: int | str, column: str, config_key: str
                 ) -> tuple[str, ...]:
    """A text field's sentences: a list of strings is its sentences; a string is split by
    ``splitter`` (``none``: one sentence per line)."""
    if isinstance(value, list):
        if not all(isinstance(s, str) for s in value):
            raise fail(path, where, column, f"a list holding {next(type(s).__name__ for s in value if not isinstance(s, str))}; "
                       f"expected text or a list of sentences (config key {config_key})")
        return tuple(value)
    if not isinstance(value, str):
        raise fail(path, where, column, f"{value!r}; expected text or a list of sentences (config key {config_key})")
    if splitter == "none":
        return split_text(value) if value else ()
    if splitter == "nltk":
        return tuple(_punkt()(value))
    return tuple(split_sentences(value))


def nltk_problem() -> str | None:
    """Why the ``nltk`` splitter cannot run here, or None: nltk's Punkt model is data nltk
    downloads (``punkt_tab``), not part of the package; the workflow never downloads anything."""
    try:
        import nltk
    except ImportError:
        return "nltk is not installed; install it (pip install nltk) or choose the splitter 'metaeval' or 'none'"
    try:
        nltk.data.find(PUNKT)
    except LookupError:
        return ("nltk's Punkt model (punkt_tab) is not installed and the workflow does not download it; run "
                "python -c \"import nltk; nltk.download('punkt_tab')\" once, or choose the splitter 'metaeval' "
                "(the importers' rules, docs/datasets.md) or 'none'")
    return None


def _punkt():
    problem = nltk_problem()
    if problem:
        raise DatasetError(problem)
    from nltk.tokenize import sent_tokenize

    return sent_tokenize
