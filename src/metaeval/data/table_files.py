"""The files of a ``format: table`` release (:mod:`metaeval.data.table`): the paths a mapping
matches (``{system}`` and globs), the records of each file, its fields and the sentence splitters.

CSV and TSV are read with every cell as text (no number or missing-value guessing: ``NA`` stays
the text ``NA``), a row cut short told from one with empty cells: a CSV by the csv module (quoted
cells), a TSV split on tabs (TSV has no quoting, so a summary starting with ``"`` keeps its quotes).
JSON and JSON lines are read by the
contract's own reader (:func:`~metaeval.data.contract.json_objects`,
:func:`~metaeval.data.contract.load_json`), not pandas': pandas' JSON reader keeps the last of a key
given twice without a word and guesses types (``"007"``, ``1e400``); the contract refuses a
duplicate key, naming the file and line. Numbers are parsed only by
:func:`~metaeval.data.contract.parse_number`.
"""

from __future__ import annotations

import csv
import glob
import io
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

from .canonical_files import split_text
from .contract import (DatasetError, check_name, check_text, check_texts, fail, json_objects, load_json,
                       may_hold_surrogates, parse_number, read_text)
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
    gives the summarizer; ``*``, ``?`` and ``[..]`` glob within a path part, ``**`` across any
    number of folders (none included). A plain path is itself (system None)."""
    if SYSTEM not in pattern and not glob.has_magic(pattern):
        return [(pattern, None)]
    before, _, after = pattern.partition(SYSTEM)
    regex = re.compile(_glob_regex(before) + (r"(?P<system>[^/]+)" + _glob_regex(after) if SYSTEM in pattern else ""))
    out = []
    for path in sorted(glob.glob(pattern.replace(SYSTEM, "*"), recursive=True)):
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
    for path in sorted(glob.glob(pattern.replace(SYSTEM, "*").replace(TOPIC, "*"), recursive=True)):
        m = regex.fullmatch(path)
        if m and Path(path).is_file():
            named = m.groupdict()
            out.append((path, named.get("system"), named.get("topic")))
    return out


# A glob's wildcards, as Python's glob reads them with recursive=True: ``**/`` (any folders, or
# none), ``**``, ``*``, ``?`` and a class ``[..]`` (``[!..]`` negated; ``[`` without its ``]`` is itself).
_GLOB_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[!?\]?[^\]]*\]")


def _glob_regex(part: str) -> str:
    out, at = [], 0
    for m in _GLOB_TOKEN.finditer(part):
        out.append(re.escape(part[at:m.start()]))
        token = m.group()
        if token == "**/":
            out.append(r"(?:[^/]*/)*")
        elif token == "**":
            out.append(r".*")
        elif token == "*":
            out.append(r"[^/]*")
        elif token == "?":
            out.append(r"[^/]")
        else:
            negated = token.startswith("[!")
            body = token[2 if negated else 1:-1]
            out.append("[" + ("^/" if negated else "") + body.replace("\\", "\\\\").replace("^", "\\^") + "]")
        at = m.end()
    out.append(re.escape(part[at:]))
    return "".join(out)


# Snakemake reads ``<name>`` in a file name as a path variable of its own (replaced, or an error).
_PATHVAR = re.compile(r"<[a-z][a-z0-9_]*>")


def file_name_problem(path: str) -> str | None:
    """Why a file a mapping matches cannot be an input of a job, or None: a name that is not UTF-8
    (Snakemake cannot write it into its locks) or that holds a Snakemake path variable ``<name>``."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError as e:
        return (f"the file name {shown(path)} is not UTF-8 (byte 0x{ord(path[e.start]) - 0xDC00:02x}); expected a file "
                "name in UTF-8 (rename the file)")
    m = _PATHVAR.search(path)
    if m:
        return (f"the file name {path!r} holds {m.group()!r}, which Snakemake reads as a path variable; expected a "
                "name without <...> (rename the file)")
    return None


def shown(path: str) -> str:
    """A path as text that can always be printed: bytes that are not UTF-8 as escapes."""
    return "'" + path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace") + "'"


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
        text = read_text(path)
        twice: list[str] = []
        data = load_json(text, path, None, "a JSON list of objects", object_pairs_hook=_marking_twice(twice))
        if not isinstance(data, list):
            raise fail(path, None, None, f"a JSON {type(data).__name__}; expected a list of objects, one per record")
        surrogates = may_hold_surrogates(text)   # searched once: per record it would be quadratic
        for i, rec in enumerate(data, start=1):
            if not isinstance(rec, dict):
                raise fail(path, f"record {i}", None, f"a JSON {type(rec).__name__}; expected an object")
            if twice:
                _refuse_twice(path, f"record {i}", rec)
            if surrogates:
                check_texts(path, f"record {i}", rec)
            yield f"record {i}", rec
    else:
        raise DatasetError(f"config key {key}.reader: {path}: cannot tell the file's format from its name; expected "
                           f"a .csv, .tsv, .json, .jsonl or .txt file or a reader ({', '.join(READERS)})")


class _Twice(dict):
    """A JSON object in which ``key`` was given twice (json keeps the last): refused by
    :func:`_refuse_twice` once the record holding it is known (a JSON list's hook cannot tell)."""
    key: str = ""


def _marking_twice(found: list[str]):
    """A ``json.loads`` hook marking an object with a key given twice (and noting that one was)."""
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out and not found:
                found.append(k)
            if k in out:
                marked = _Twice(out)
                marked.key = k
                out = marked
            out[k] = v
        return out
    return hook


def _refuse_twice(path: str, where: str, rec: Any) -> None:
    """The first object of a record (itself or nested) with a key given twice, refused naming the record."""
    stack = [(rec, None)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, _Twice):
            raise fail(path, where, f"{at}.{value.key}" if at else value.key,
                       "the key appears twice in this object; expected each key once")
        if isinstance(value, dict):
            stack.extend((v, f"{at}.{k}" if at else k) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{at or ''}[{j}]") for j, v in enumerate(value))


def _delimited(path: str, sep: str) -> Iterator[tuple[str, Record]]:
    """Rows of a CSV/TSV with every cell kept as text (no number or missing-value guessing), the
    header read as a row so that a column named twice is an error. A CSV is read by the csv module
    (RFC 4180 quoting: a quoted cell may hold commas and line breaks); a TSV has no quoting (the
    IANA text/tab-separated-values form: a cell holds no tab or line break), so it is split on tabs
    and a cell starting with ``"`` keeps its quotes. Blank lines are skipped; a row is named by its
    number (the header is row 1) and, where it differs, the line of the file it starts on."""
    text = read_text(path)   # UTF-8 checked and the byte-order mark dropped, as every file of the contract
    if not text.strip():
        raise fail(path, "row 1", None, "empty file; expected a header row naming the columns")
    header: list[str] | None = None
    columns: dict[str, int] = {}
    number = 0
    for line, cells in _delimited_rows(path, text, sep):
        number += 1
        where = f"row {number}" if line == number else f"row {number} (line {line})"
        if header is None:
            header = cells
            for i, name in enumerate(header):
                check_text(path, where, f"column {i + 1}", name)
                first = columns.setdefault(name, i)   # a mapping: linear in the columns
                if first != i:
                    raise fail(path, where, name, f"the column appears twice (columns {first + 1} and {i + 1}); "
                               "expected each column once")
            continue
        if len(cells) != len(header):
            raise fail(path, where, header[len(cells)] if len(cells) < len(header) else None,
                       f"{len(cells)} cells; expected {len(header)}, one per column of the header")
        rec = dict(zip(header, cells))
        for k, v in rec.items():
            check_text(path, where, k, v)
        yield where, rec
    if header is None:
        raise fail(path, "row 1", None, "no rows; expected a header row naming the columns")


def _delimited_rows(path: str, text: str, sep: str) -> Iterator[tuple[int, list[str]]]:
    """(the line a row starts on, its cells) of every non-blank row."""
    if sep == "\t":
        for line, row in enumerate(text.split("\n"), start=1):
            row = row.removesuffix("\r")
            if "\t" in row or row.strip():
                yield line, row.split("\t")
        return
    # a cell may be as long as the file (a whole document): the csv module's 128 KB default is no bound here
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    end = 0
    while True:
        try:
            cells = next(rows)
        except StopIteration:
            return
        except csv.Error as e:
            raise fail(path, end + 1, None, f"not a CSV table ({e}); expected a header and rows of as many cells, "
                       "a cell with a comma, a quote or a line break quoted (\"...\", a quote inside doubled)") from None
        start, end = end + 1, rows.line_num
        if len(cells) > 1 or cells and cells[0].strip():
            yield start, cells


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
    its columns named by the mapping's ``header``; every cell kept as text, as :func:`_delimited`
    reads them (a TSV without quoting, rows named by number and, where it differs, line)."""
    text = read_text(path)
    if not text.strip():
        raise fail(path, "row 1", None, "empty file; expected rows of " + ", ".join(header))
    for i, (line, cells) in enumerate(_delimited_rows(path, text, sep), start=1):
        where = f"row {i}" if line == i else f"row {i} (line {line})"
        if len(cells) != len(header):
            raise fail(path, where, None, f"{len(cells)} cells; expected {len(header)}, one per name of the "
                       f"mapping's header ({', '.join(header)})")
        rec = dict(zip(header, cells))
        for k, v in rec.items():
            check_text(path, where, k, v)
        yield where, rec


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
        if isinstance(value, float) and self.reader in ("json", "jsonl"):
            # 1.0 would be a name apart from 1, and NaN, Infinity or 1e999 no name at all
            raise fail(self.path, where, column, f"{value!r} is a JSON number with a fraction or an exponent; expected "
                       f"a name: text, or a whole number (config key {self.key}.{config_key})")
        if isinstance(value, int) and not isinstance(value, bool) and self.reader in ("json", "jsonl"):
            value = str(value)   # a JSON id may be a whole number (REALSumm's topics): its digits are the name
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
