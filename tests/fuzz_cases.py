"""The fuzz suite's inputs, property and runner (tests/test_fuzz.py runs it).

For every reader of user input: a small valid release built here (the tiny data set of .test/input
and files in the shape of the real releases), and hypothesis strategies of *structured* mutations
of it: a field removed, retyped (text, number, list, mapping, null, boolean), renamed or given
twice; numbers at their extremes and in other spellings (1e308, 1e-320, 400-digit integers, NaN,
inf, other scripts' digits, underscores); odd Unicode (lone surrogates, U+2028, NUL, right-to-left
marks, combining marks, emoji, tabs and newlines inside names); deep nesting; truncation; and for
pickles, changes at the opcode level (lengths, nesting, opcodes that build objects, memo indices).

The property of every example: the reader either succeeds, and then the numbers it returns equal a
direct computation from the file (a judgment is ``float`` of its cell, a judgment aggregated from
annotations is their mean, a score is the file's score), or it raises the project's own error
(:class:`metaeval.data.contract.DatasetError`, :class:`metaeval.options.ConfigError`) whose message
names the user's file. Anything else is a finding: another exception, an error naming no user file,
a wrong number, more than :data:`EXAMPLE_SECONDS` for one example, or the process dying (a
segmentation fault, the memory limit :data:`MEMORY_BYTES`).

Run as a script (``python tests/fuzz_cases.py READER EXAMPLES OUT``) it is one reader's fuzzing
process: limits set on itself (address space, CPU time), hypothesis seeded (``derandomize``; or
METAEVAL_FUZZ_SEED), every example's input written to ``OUT/work`` and read by a forked
:class:`Worker` (a crash, a limit or a timeout ends only the worker: the fuzzing goes on in a new
one), the input of each class of finding kept as ``OUT/finding-<n>``, and a JSON report at
``OUT/report.json`` (examples, outcomes, seconds, peak memory, findings). :func:`run` starts it in
a process of its own and reads its report; a process that dies all the same is a finding whose
input is ``OUT/crash-input``.
"""
from __future__ import annotations

import copy
import json
import math
import os
import pickle
import pickletools
import resource
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / ".test" / "input" / "tiny"

MEMORY_BYTES = 1536 * 2**20      # the address space of a fuzzing process (1.5 GB)
EXAMPLE_SECONDS = 10.0           # the wall time of one example (one reader call on one input)
START_SECONDS = 30.0             # a process's start-up and set-up, besides its examples
PER_EXAMPLE_CPU = 0.5            # CPU seconds per example a process may take on average (RLIMIT_CPU)


def process_seconds(examples: int) -> float:
    """The CPU (and wall) limit of one reader's fuzzing process."""
    return START_SECONDS + PER_EXAMPLE_CPU * examples


# ============================================================================ odd values

NUMBER_SPELLINGS = [
    "1e308", "-1e308", "1.7976931348623157e308", "1e309", "-1e309", "1e-320", "4.9e-324", "-1e-320", "0", "-0",
    "0.0", "00", "007", "1" * 400, "-" + "9" * 400, "NaN", "nan", "-nan", "inf", "-inf", "Infinity", "-Infinity",
    "1_000", "0x1F", "0o17", "0b1", "1:30", "\u0661\u0662", "\u0660", "\uff11\uff12", "\u096a\u0968", "\u00b2",
    "\u00bd", "\u216b", " 3", "3 ", "+.5", "7.", ".", "-", "e5", "1e", "1e+", "--1", "+-1", "1,5", "1.5.2",
    "3\u00a0", "\u20083", "1e-5", "2.5E+2", "+3", "0.5", "5", "1", "1e400", "-1e-400", "9" * 30,
]
ODD_CHARS = [
    "\ud83d", "\udfff", "\udc80", "\u2028", "\u2029", "\x00", "\u202e", "\u200f", "\u0301", "\U0001F600",
    "\t", "\n", "\r", "\x85", "\x1c", "\x7f", "\ufeff", "\U0010FFFF", "\ufffe", "\u00a0", " ", "\\", '"', "'",
    "{", "}", "[", "]", ":", "#", "&", "*", "!", "|", ">", "%", "@", "`", ",", "-", ".", "/",
]
NAMES = ["ref0", "ref1", "ref12", "topic", "summarizer", "T1", "T2", "1", "2", "A", "B", "relevance", "fluency",
         "coherence", "M8", "bart", "pgn", "all", "x", "", " ", "M8 ",
         "n" * 300, "w " * 5001]   # the last two: a name longer than a file name may be, a sentence too long

numbers = st.one_of(
    st.sampled_from([1e308, -1e308, 1e-320, 5e-324, 0, 0.0, -0.0, 2**53 + 1, 2**63, -2**63 - 1, 2**64, 10**400,
                     -10**400, math.nan, math.inf, -math.inf, 1, 3, 5, 0.5]),
    st.integers(), st.floats(), st.integers(min_value=-10**500, max_value=10**500))
odd_text = st.lists(st.one_of(st.sampled_from(ODD_CHARS), st.sampled_from(NAMES), st.text(max_size=3),
                              st.sampled_from(NUMBER_SPELLINGS)), max_size=5).map("".join)
scalars = st.one_of(st.none(), st.booleans(), numbers, odd_text)
any_value = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(odd_text, scalars, max_size=3))
DEPTHS = [2, 70, 1_000, 100_000]


class Pairs(list):
    """A JSON object written from (key, value) pairs, so that a key can be given twice."""


@dataclass
class Nested:
    """``value`` inside ``depth`` levels of lists (or objects)."""
    depth: int
    value: Any
    kind: str = "list"


def _paths(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every value inside ``value`` (iteratively: no depth limit)."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Pairs):
            items = [(i, pair[1]) for i, pair in enumerate(v)]
        elif isinstance(v, dict):
            items = list(v.items())
        elif isinstance(v, list):
            items = list(enumerate(v))
        else:
            continue
        for k, item in items:
            out.append((v, k))
            stack.append(item)
    return out


def _get(container: Any, key: Any) -> Any:
    return container[key][1] if isinstance(container, Pairs) else container[key]


def _set(container: Any, key: Any, value: Any) -> None:
    if isinstance(container, Pairs):
        container[key] = (container[key][0], value)
    else:
        container[key] = value


VALUE_OPS = ["remove", "retype", "number", "text", "nest", "duplicate", "rename", "extreme"]


@st.composite
def mutated_value(draw, value: Any, max_ops: int = 3) -> Any:
    """``value`` (a JSON-like structure; a copy is changed) with 1 to ``max_ops`` structured
    mutations at places drawn from it."""
    value = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, max_ops))):
        paths = _paths(value)
        if not paths:
            break
        container, key = paths[draw(st.integers(0, len(paths) - 1))]
        op = draw(st.sampled_from(VALUE_OPS))
        old = _get(container, key)
        if op == "remove":
            if isinstance(container, dict):
                del container[key]
            else:
                container.pop(key)
        elif op == "retype":
            _set(container, key, draw(any_value))
        elif op in ("number", "extreme"):
            _set(container, key, draw(numbers) if op == "number" else draw(st.sampled_from(NUMBER_SPELLINGS)))
        elif op == "text":
            new = draw(odd_text)
            if isinstance(old, str) and draw(st.booleans()):
                i = draw(st.integers(0, len(old)))
                new = old[:i] + new + old[i:]
            _set(container, key, new)
        elif op == "nest":
            _set(container, key, Nested(draw(st.sampled_from(DEPTHS)), old, draw(st.sampled_from(["list", "object"]))))
        elif op == "duplicate" and isinstance(container, dict):
            pairs = Pairs(container.items())
            pairs.append((key, draw(st.one_of(st.just(old), any_value))))
            container.clear()
            container["\0pairs"] = pairs     # replaced below by the Pairs themselves
        elif op == "rename" and isinstance(container, dict):
            container[draw(odd_text)] = container.pop(key)
    return _resolve_pairs(value)


def _resolve_pairs(value: Any) -> Any:
    """Replace the marker the "duplicate" mutation leaves by its Pairs."""
    if isinstance(value, dict) and list(value) == ["\0pairs"]:
        value = value["\0pairs"]
    if isinstance(value, Pairs):
        return Pairs((k, _resolve_pairs(v)) for k, v in value)
    if isinstance(value, dict):
        return {k: _resolve_pairs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_pairs(v) for v in value]
    if isinstance(value, Nested):
        return Nested(value.depth, _resolve_pairs(value.value), value.kind)
    return value


def json_text(value: Any) -> str:
    """JSON of a mutated value: Pairs give a key twice, Nested nests (to any depth), NaN/Infinity
    as Python writes them, lone surrogates as ``\\ud83d`` escapes."""
    if isinstance(value, Nested):
        inner = json_text(value.value)
        if value.kind == "list":
            return "[" * value.depth + inner + "]" * value.depth
        return '{"n": ' * value.depth + inner + "}" * value.depth
    if isinstance(value, (dict, Pairs)):
        items = value if isinstance(value, Pairs) else value.items()
        return "{" + ", ".join(f"{json.dumps(str(k))}: {json_text(v)}" for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(json_text(v) for v in value) + "]"
    return json.dumps(value)


def plain(value: Any, max_depth: int) -> Any:
    """A mutated value as Python data (a key given twice: the last one; nesting cut at
    ``max_depth`` levels), for the writers that cannot give a key twice (YAML, pickle)."""
    if isinstance(value, Nested):
        inner = plain(value.value, max_depth)
        for _ in range(min(value.depth, max_depth)):
            inner = [inner] if value.kind == "list" else {"n": inner}
        return inner
    if isinstance(value, (dict, Pairs)):
        return {k: plain(v, max_depth) for k, v in (value if isinstance(value, Pairs) else value.items())}
    if isinstance(value, list):
        return [plain(v, max_depth) for v in value]
    return value


# ============================================================================ text and bytes

JSON_SNIPPETS = ['{"topic": "T1", "topic": "T2"}', "\\ud83d", "\\udfff", "\\u0000", "\\u2028", "NaN", "Infinity",
                 "-Infinity", ",", ":", "[", "{", '"', "\\", "null", "1e999", "9" * 5000]
YAML_SNIPPETS = ["&a ", "*a", "<<: ", "!!python/object/apply:os.system ['true'] ", "!!binary ", "!!set ",
                 "!!timestamp ", "!!float ", "!!int ", "? ", "- ", "---\n", "...\n", "%YAML 1.1\n", "{", "}", "[", "]",
                 ": ", "\n  ", '"\\ud83d"', "'", "|\n", "a: &b [1]\nc: *b\n", "relevance: {min: 1, max: 5}\n",
                 "dimensons: {}\n", "human: {}\n", "2001-13-45", "!!bool maybe"]
TSV_SNIPPETS = ["\t", "\n", "\r", "\t\t", "\r\n", "T1\t1", "T1\tB", "topic", "\n\n"]
TEXT_OPS = ["truncate", "insert", "delete", "duplicate_line", "delete_line", "number", "crlf", "bom", "nest", "snippet"]


@st.composite
def mutated_text(draw, text: str, snippets: list[str], max_ops: int = 3) -> str:
    """``text`` with 1 to ``max_ops`` changes at drawn offsets."""
    import re

    for _ in range(draw(st.integers(1, max_ops))):
        op = draw(st.sampled_from(TEXT_OPS))
        i = draw(st.integers(0, len(text)))
        lines = text.split("\n")
        k = draw(st.integers(0, len(lines) - 1))
        if op == "truncate":
            text = text[:i]
        elif op == "insert":
            text = text[:i] + draw(st.one_of(odd_text, st.sampled_from(NUMBER_SPELLINGS))) + text[i:]
        elif op == "snippet":
            text = text[:i] + draw(st.sampled_from(snippets)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 20)):]
        elif op == "duplicate_line":
            text = "\n".join(lines[:k + 1] + [lines[k]] + lines[k + 1:])
        elif op == "delete_line":
            text = "\n".join(lines[:k] + lines[k + 1:])
        elif op == "number":
            spans = [m.span() for m in re.finditer(r"[0-9][0-9.eE+-]*", text)]
            if spans:
                a, b = spans[draw(st.integers(0, len(spans) - 1))]
                text = text[:a] + draw(st.sampled_from(NUMBER_SPELLINGS)) + text[b:]
        elif op == "crlf":
            text = text.replace("\n", "\r\n")
        elif op == "bom":
            text = "\ufeff" + text
        elif op == "nest":
            d = draw(st.sampled_from(DEPTHS))
            text = text[:i] + draw(st.sampled_from(["[", "{", "- ", "{a: "])) * d + text[i:]
    return text


@st.composite
def text_bytes(draw, text: str) -> bytes:
    """Text as the bytes of a file: UTF-8 (a lone surrogate as the invalid bytes it would be), now
    and then with a few bytes that are not UTF-8 put in."""
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        i = draw(st.integers(0, len(data)))
        data = data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i:]
    return data


@st.composite
def mutated_tsv(draw, text: str) -> str:
    """A TSV with cells replaced (odd numbers, odd text, empty), removed or added, and rows
    duplicated or removed; or changed as text."""
    if draw(st.integers(0, 3)) == 0:
        return draw(mutated_text(text, TSV_SNIPPETS))
    rows = mutated_rows(draw, [line.split("\t") for line in text.rstrip("\n").split("\n")],
                        st.one_of(odd_text, st.just("")))
    return "".join("\t".join(row) + "\n" for row in rows)


def mutated_rows(draw, rows: list[list[str]], cells) -> list[list[str]]:
    """``rows`` with one to three cells replaced (``cells``, odd numbers), removed or added, or rows
    duplicated or removed (the TSV and CSV mutations share it)."""
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(0, len(rows) - 1))
        if not rows[r]:
            continue
        c = draw(st.integers(0, len(rows[r]) - 1))
        op = draw(st.sampled_from(["cell", "cell", "number", "remove_cell", "add_cell", "duplicate_row", "remove_row"]))
        if op == "cell":
            rows[r][c] = draw(cells)
        elif op == "number":
            rows[r][c] = draw(st.one_of(st.sampled_from(NUMBER_SPELLINGS), numbers.map(repr)))
        elif op == "remove_cell":
            rows[r].pop(c)
        elif op == "add_cell":
            rows[r].insert(c, draw(odd_text))
        elif op == "duplicate_row":
            rows.insert(r, list(rows[r]))
        elif op == "remove_row":
            rows.pop(r)
            if not rows:
                rows = [[]]
    return rows


@st.composite
def mutated_jsonl(draw, records: list[dict]) -> str:
    """JSON lines with one or two records mutated (fields removed, retyped, given twice; odd values;
    deep nesting), a record duplicated or removed; or changed as text."""
    if draw(st.integers(0, 3)) == 0:
        return draw(mutated_text("".join(json.dumps(r) + "\n" for r in records), JSON_SNIPPETS))
    records = list(records)
    for _ in range(draw(st.integers(1, 2))):
        i = draw(st.integers(0, len(records) - 1))
        op = draw(st.sampled_from(["mutate", "mutate", "mutate", "duplicate", "remove", "not_an_object"]))
        if op == "mutate":
            records[i] = draw(mutated_value(records[i]))
        elif op == "duplicate":
            records.insert(i, records[i])
        elif op == "remove" and len(records) > 1:
            records.pop(i)
        elif op == "not_an_object":
            records[i] = draw(any_value)
    return "".join(json_text(r) + "\n" for r in records)


@st.composite
def mutated_json_list(draw, records: list[dict]) -> str:
    """A JSON list of records mutated as :func:`mutated_jsonl` mutates its lines, one record a line."""
    if draw(st.integers(0, 3)) == 0:
        return draw(mutated_text("[" + ",\n".join(json.dumps(r) for r in records) + "]\n", JSON_SNIPPETS))
    lines = draw(mutated_jsonl(records)).rstrip("\n").split("\n")
    return "[" + ",\n".join(line for line in lines if line) + "]\n"


CSV_SNIPPETS = ['"', '""', '","', ",", '"a\nb"', '"x"y', "\r\n", "\n\n", '"""', "\r", ",,"]


@st.composite
def mutated_csv(draw, text: str) -> str:
    """A CSV with cells replaced (odd numbers, odd text with commas, quotes and line breaks, empty),
    removed or added, rows duplicated or removed, written with proper quoting or joined raw; or
    changed as text."""
    import csv
    import io

    if draw(st.integers(0, 3)) == 0:
        return draw(mutated_text(text, CSV_SNIPPETS))
    rows = mutated_rows(draw, list(csv.reader(io.StringIO(text, newline=""))),
                        st.one_of(odd_text, st.sampled_from(CSV_SNIPPETS), st.just("")))
    if draw(st.booleans()):
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(rows)
        return out.getvalue()
    return "".join(",".join(row) + "\n" for row in rows)


@st.composite
def mutated_yaml(draw, value: Any) -> str:
    """YAML of a structured mutation of ``value`` (deep nesting up to 100 levels; a key twice as a
    line given twice), or YAML text changed (anchors, aliases, tags, merge keys, nesting, truncation)."""
    import yaml

    if draw(st.booleans()):
        return draw(mutated_text(yaml.safe_dump(value, sort_keys=False), YAML_SNIPPETS))
    return yaml.safe_dump(plain(draw(mutated_value(value)), 100), sort_keys=False, allow_unicode=draw(st.booleans()))


# ============================================================================ pickles

# Opcodes put in at an opcode boundary: the ones that build objects or call code, memo indices
# out of range, stack and mark operations, numbers and text the protocol can hold but JSON cannot.
PICKLE_SNIPPETS = [
    b"b", b"cos\nsystem\n", b"\x8c\x02os\x8c\x06system\x93", b"R", b"Pfoo\n", b"Q", b"\x82\x01", b"(i__builtin__\nlist\n",
    b"\x81", b"o", b"h\xff", b"j\xff\xff\xff\xff", b"r\xff\xff\xff\x0f", b"0", b"2", b"(", b"1", b".", b"\x94", b"N",
    b"]", b"}", b")", b"\x8f", b"\x90", b"\x91", b"\x8a\x09" + b"\xff" * 9, b"L" + b"9" * 400 + b"L\n",
    b"I99999999999999999999\n", b"F1e999\n", b"Fnan\n", b"G" + struct.pack(">d", math.nan),
    b"G" + struct.pack(">d", math.inf), b"V\\ud83d\n", b"X\x03\x00\x00\x00\xed\xa0\xbd", b"\x96" + b"\xff" * 8,
    b"\x97", b"\x98", b"C\x03abc", b"\x88", b"\x89", b"\x8b\xff\xff\xff\x7f", b"u", b"a", b"e", b"s", b"t", b"l",
    b"d", b"\x85", b"\x86", b"\x87",
]
# Opcodes with a length argument: (length offset after the opcode, its size in bytes, signed).
PICKLE_LENGTHS = {"BINUNICODE": (4, False), "BINBYTES": (4, False), "SHORT_BINUNICODE": (1, False),
                  "SHORT_BINBYTES": (1, False), "BINUNICODE8": (8, False), "BINBYTES8": (8, False),
                  "FRAME": (8, False), "LONG1": (1, False), "LONG4": (4, True), "BINPUT": (1, False),
                  "LONG_BINPUT": (4, False), "BINGET": (1, False), "LONG_BINGET": (4, False)}
PUSHES = {"BINUNICODE", "SHORT_BINUNICODE", "UNICODE", "BININT", "BININT1", "BININT2", "BINFLOAT", "NONE",
          "LONG1", "NEWTRUE", "NEWFALSE", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "BINGET", "LONG_BINGET"}
PICKLE_OPS = ["truncate", "byte", "wrap", "wrap", "length", "insert", "insert"]


def _ops(data: bytes) -> list[tuple[str, int]]:
    """(opcode name, position) of a pickle's opcodes, as far as they can be read."""
    out = []
    try:
        for op, _, pos in pickletools.genops(data):
            out.append((op.name, pos))
    except Exception:   # a pickle changed before: as far as it goes
        pass
    return out


def unframed(data: bytes) -> bytes:
    """The pickle without its FRAME opcodes (protocol 4+), so that bytes put in do not break a
    frame's length (the unpickler reads an unframed pickle the same)."""
    ops = _ops(data)
    for name, pos in reversed(ops):
        if name == "FRAME":
            data = data[:pos] + data[pos + 9:]
    return data


@st.composite
def mutated_pickle(draw, data: bytes) -> bytes:
    """A pickle changed at the byte and opcode level: truncated, a byte replaced, a value wrapped
    in up to a million levels of tuples or lists, a length argument made huge, an opcode put in."""
    data = unframed(data)
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(PICKLE_OPS))
        ops = _ops(data)
        if op == "truncate" or not ops:
            data = data[:draw(st.integers(0, len(data)))]
        elif op == "byte" and data:
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
        elif op == "wrap":
            pushes = [(k, name, pos) for k, (name, pos) in enumerate(ops) if name in PUSHES]
            if not pushes:
                continue
            k, _, pos = pushes[draw(st.integers(0, len(pushes) - 1))]
            end = ops[k + 1][1] if k + 1 < len(ops) else len(data)
            d = draw(st.sampled_from([2, 1_000, 100_000, 1_000_000]))
            kind = draw(st.sampled_from(["tuple", "list", "tuple1"]))
            opener, closer = {"tuple": (b"(", b"t"), "list": (b"(", b"l"), "tuple1": (b"", b"\x85")}[kind]
            data = data[:pos] + opener * d + data[pos:end] + closer * d + data[end:]
        elif op == "length":
            sized = [(name, pos) for name, pos in ops if name in PICKLE_LENGTHS]
            if not sized:
                continue
            name, pos = sized[draw(st.integers(0, len(sized) - 1))]
            size, signed = PICKLE_LENGTHS[name]
            top = 2 ** (8 * size - (1 if signed else 0)) - 1
            n = draw(st.sampled_from([0, 1, top, top // 2, 2**31 - 1, 2**20]))
            n = min(n, top)
            data = data[:pos + 1] + n.to_bytes(size, "little", signed=signed) + data[pos + 1 + size:]
        elif op == "insert":
            pos = draw(st.sampled_from([p for _, p in ops] + [len(data)]))
            data = data[:pos] + draw(st.sampled_from(PICKLE_SNIPPETS)) + data[pos:]
    return data


# ============================================================================ the readers

class Finding(Exception):
    """The property does not hold for this example."""


@dataclass
class Reader:
    """One reader: its valid input (files by relative path), the strategy of mutated inputs, the
    call of the reader on a folder holding them, and the check of a successful result."""

    name: str
    base: Callable[[], dict[str, bytes]]
    mutations: Callable[[dict[str, bytes]], st.SearchStrategy[dict[str, bytes]]]
    call: Callable[[Path], Any]
    verify: Callable[[Path, Any], None]
    errors: tuple[str, ...] = ("DatasetError",)


def _u(text: str) -> bytes:
    return text.encode("utf-8")


# ---------------------------------------------------------------------------- the canonical folder

ANNOTATIONS = ("topic\tsummarizer\tdimension\tannotator\tgroup\tscore\n"
               "T1\t1\tcoherence\tx\texpert\t3\nT1\t1\tcoherence\ty\texpert\t4\nT1\t1\tcoherence\tz\tcrowd\t1\n"
               "T1\t2\tcoherence\tx\texpert\t2.5\nT2\t1\tcoherence\tx\texpert\t5\nT2\t2\tcoherence\ty\texpert\t1\n"
               "T1\tB\tcoherence\tx\texpert\t4\nT1\t1\trelevance\tx\texpert\t2\n")
DOCUMENTS = [{"topic": "T1", "documents": ["The cat sat on the mat .", "It was a red mat ."]},
             {"topic": "T2", "documents": ["Dogs bark at night ."]}]
PYRAMIDS = [{"topic": "T1", "models": 2, "scus": {"a": 2, "b": 1, "c": 1}, "summaries": {"1": ["a"], "2": ["a", "b"]}},
            {"topic": "T2", "models": 1, "scus": {"d": 1}, "summaries": {"1": ["d"], "2": []}}]
SCORES = ("topic\tsummarizer\tmetric\tscore\n" + "".join(
    f"{t}\t{s}\t{m}\t{v}\n" for m, vals in (("ext_score", ("0.5", "1e-3", "-2", "3", "0")),
                                             ("other.M-1", ("1e300", "-1e300", "12", "7.", "+.5")))
    for (t, s), v in zip((("T1", "1"), ("T1", "2"), ("T2", "1"), ("T2", "2"), ("T1", "B")), vals)))


def canonical_base() -> dict[str, bytes]:
    text = (TINY / "dataset.yaml").read_text(encoding="utf-8")
    text = text.replace("  fluency: {min: 1, max: 5}\n",
                        "  fluency: {min: 1, max: 5}\n  coherence: {min: 1, max: 5, annotations: {group: expert}}\n")
    files = {name: (TINY / name).read_bytes() for name in ("summaries.jsonl", "judgments.tsv")}
    files["dataset.yaml"] = _u(text)
    files["annotations.tsv"] = _u(ANNOTATIONS)
    files["documents.jsonl"] = _u("".join(json.dumps(r) + "\n" for r in DOCUMENTS))
    files["pyramids.jsonl"] = _u("".join(json.dumps(r) + "\n" for r in PYRAMIDS))
    files["metric_scores.tsv"] = _u(SCORES)
    return files


def _records(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _one_file(name: str, strategy: Callable[[bytes], st.SearchStrategy[str]]):
    """Mutations of one file of the folder, the others as they are."""
    def mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
        return strategy(base[name]).flatmap(text_bytes).map(lambda data: {**base, name: data})
    return mutations


def load_folder(folder: Path):
    from metaeval.data.datasets import load_dataset

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(folder)


def _tsv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header and data rows of a TSV as the contract reads them (the direct computation)."""
    lines = path.read_text(encoding="utf-8-sig").split("\n")
    rows = [line.rstrip("\r").split("\t") for line in lines[1:] if line.rstrip("\r").strip()]
    return lines[0].rstrip("\r").split("\t"), rows


def _same(got: float, cell: str, where: str) -> None:
    want = math.nan if cell.strip() == "" else float(cell)
    if not (got == want or (math.isnan(got) and math.isnan(want))):
        raise Finding(f"wrong number: {where} read as {got!r}, the file says {cell!r}")


def same_after_copy(folder: Path, ds) -> None:
    """What the validation and import jobs do next: write the normalised canonical copy (outside
    the user's folder) and read it back. It must be written, and read back with the same summaries,
    judgments and annotations."""
    from metaeval.data.datasets import folder_paths, write_dataset

    copy_folder = folder.parent / (folder.name + "-copy")
    shutil.rmtree(copy_folder, ignore_errors=True)
    write_dataset(ds, folder_paths(copy_folder))
    again = load_folder(copy_folder)
    if {s.key: s.sentences for s in again.summaries} != {s.key: s.sentences for s in ds.summaries}:
        raise Finding("the normalised copy's summaries differ from the data set's")
    if set(again.judgments) != set(ds.judgments):
        raise Finding("the normalised copy judges other summaries")
    for key, row in ds.judgments.items():
        for d, v in row.items():
            w = again.judgments[key][d]
            if not (v == w or (math.isnan(v) and math.isnan(w))):
                raise Finding(f"the normalised copy's {d} of {key} is {w!r}, the data set's {v!r}")
    if len(again.annotations) != len(ds.annotations):
        raise Finding("the normalised copy has other annotations")


def verify_judgments(folder: Path, ds) -> None:
    header, rows = _tsv_rows(folder / "judgments.tsv")
    for cells in rows:
        for col, cell in zip(header[2:], cells[2:]):
            _same(ds.judgments[(cells[0], cells[1])][col], cell, f"judgments.tsv ({cells[0]}, {cells[1]}) {col}")


def verify_annotations(folder: Path, ds) -> None:
    """Every judgment taken from annotations is the mean of the annotations it is made of (the
    expert group's, dataset.yaml says), computed here from the file."""
    header, rows = _tsv_rows(folder / "annotations.tsv")
    by_key: dict[tuple[str, str], list[float]] = {}
    for cells in rows:
        row = dict(zip(header, cells))
        if row["dimension"] == "coherence" and row.get("group", "all") == "expert":
            by_key.setdefault((row["topic"], row["summarizer"]), []).append(float(row["score"]))
    for key, values in ds.judgments.items():
        want = statistics.fmean(by_key[key]) if key in by_key else math.nan
        got = values["coherence"]
        if not (got == want or (math.isnan(got) and math.isnan(want))):
            raise Finding(f"wrong number: coherence of {key} is {got!r}; the mean of its expert annotations is {want!r}")
    verify_judgments(folder, ds)


def verify_summaries(folder: Path, ds) -> None:
    """Text is kept as given: every record's sentences are the summary's."""
    for line in (folder / "summaries.jsonl").read_text(encoding="utf-8-sig").split("\n"):
        if line.strip():
            rec = json.loads(line)
            if "sentences" in rec and tuple(rec["sentences"]) != ds.summary(rec["topic"], rec["summarizer"]).sentences:
                raise Finding(f"text changed: {rec['topic']}, {rec['summarizer']}")


def verify_documents(folder: Path, ds) -> None:
    for line in (folder / "documents.jsonl").read_text(encoding="utf-8-sig").split("\n"):
        if line.strip():
            rec = json.loads(line)
            if (ds.documents or {}).get(rec["topic"]) != rec["documents"]:
                raise Finding(f"documents of {rec['topic']!r} changed")


def verify_pyramids(folder: Path, ds) -> None:
    for line in (folder / "pyramids.jsonl").read_text(encoding="utf-8-sig").split("\n"):
        if line.strip():
            rec = json.loads(line)
            p = ds.pyramids[rec["topic"]]
            if dict(p.weights) != rec["scus"] or p.models != rec["models"]:
                raise Finding(f"pyramid of {rec['topic']!r} changed")


def call_scores(folder: Path):
    from metaeval.data import metric_scores
    from metaeval.options import FileMetricsOptions

    ds = load_folder(folder)
    options = FileMetricsOptions((), False, "datasets.d.metric_scores", "d", (), (), ())
    return metric_scores.check([str(folder / "metric_scores.tsv")], ds, str(folder / "dataset.yaml"), options)


def verify_scores(folder: Path, result) -> None:
    _, rows = _tsv_rows(folder / "metric_scores.tsv")
    got = {(r.topic, r.summarizer, r.metric): r.score for r in result.rows}
    for cells in rows:
        _same(got[tuple(cells[:3])], cells[3].strip(), f"metric_scores.tsv {tuple(cells[:3])}")


# ---------------------------------------------------------------------------- the top-level score file

# A file for two data sets (the tiny one, whose folder is beside it, and another): a metric named
# like the tiny data set's dimension ``relevance`` (an LLM judge's name) and one of its own.
SHARED_SCORES = "dataset\ttopic\tsummarizer\tmetric\tscore\n" + "other\tX9\tsys\tJ\t7\n" + "".join(
    f"tiny\t{t}\t{s}\t{m}\t{v}\n" for m, vals in (("relevance", ("0.5", "1e-3", "-2", "3", "0")),
                                                   ("J", ("1e300", "-1e300", "12", "7.", "+.5")))
    for (t, s), v in zip((("T1", "1"), ("T1", "2"), ("T2", "1"), ("T2", "2"), ("T1", "B")), vals)) + "other\tX9\tsys2\tK\t8\n"


def shared_scores_base() -> dict[str, bytes]:
    files = {f"tiny/{name}": data for name, data in canonical_base().items() if name != "metric_scores.tsv"}
    files["all.tsv"] = _u(SHARED_SCORES)
    return files


def shared_scores_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    """The file mutated as a TSV, then now and then saved with a byte-order mark and CRLF line ends."""
    def saved(args: tuple[str, bool, bool]) -> str:
        text, bom, crlf = args
        return ("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)
    return st.tuples(mutated_tsv(SHARED_SCORES), st.booleans(), st.booleans()).map(saved).flatmap(text_bytes).map(
        lambda data: {**base, "all.tsv": data})


def call_shared_scores(folder: Path):
    """The tiny data set's file metrics job with the file in the top-level metric_scores."""
    from metaeval.data import metric_scores
    from metaeval.options import FileMetricsOptions

    ds = load_folder(folder / "tiny")
    options = FileMetricsOptions((), False, "datasets.tiny.metric_scores", "tiny", ("other", "tiny"),
                                 (str(folder / "all.tsv"),), ())
    return metric_scores.check([str(folder / "all.tsv")], ds, str(folder / "tiny/dataset.yaml"), options)


def verify_shared_scores(folder: Path, result) -> None:
    """The tiny data set's scores are the file's rows that name it (read here: without a byte-order
    mark, each line without its CR); its archived rows are the header and those lines, and they
    read alone (the archive's rerun) as the same scores."""
    from metaeval.data import metric_scores
    from metaeval.data.shared_scores import own_rows

    data = (folder / "all.tsv").read_bytes()
    data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    lines = data.split(b"\n")
    mine = [line for line in lines[1:] if line.split(b"\t", 1)[0] == b"tiny"]
    got = {(r.topic, r.summarizer, r.metric): r.score for r in result.rows}
    if len(got) != len(mine):
        raise Finding(f"{len(got)} scores read for 'tiny'; the file has {len(mine)} rows naming it")
    for line in mine:
        cells = line.decode().rstrip("\r").split("\t")
        _same(got[tuple(cells[1:4])], cells[4].strip(), f"all.tsv {tuple(cells[:4])}")
    own = own_rows((folder / "all.tsv").read_bytes(), "tiny")
    if own != b"".join(line + b"\n" for line in [lines[0], *mine]):
        raise Finding("the archived rows of 'tiny' are not the header and the lines naming it")
    archived = folder / "archived.tsv"
    archived.write_bytes(own)
    again = metric_scores.read_score_file(str(archived), {s.key for s in load_folder(folder / "tiny").summaries},
                                          metric_scores.Scope("tiny"))
    if sorted((r.topic, r.summarizer, r.metric, r.score) for r in again) != \
            sorted((r.topic, r.summarizer, r.metric, r.score) for r in result.rows):
        raise Finding("the archived rows of 'tiny' read alone as other scores")


# ---------------------------------------------------------------------------- the jobs' memos

# A file whose bytes start so is made a symbolic link to the rest (the harness writes files only).
LINK = b"\0fuzz-link:"
MEMO_X = [[0.5, 1.0, -2.0], [3.0, 0.25, 1e150], [-0.0, 7.0, 1e-300], [2.0, 2.0, 2.0]]


def memo_calls(folder: Path | None) -> tuple[dict, list, list]:
    """A vectorised computation (two arrays, one along axis 1) and a row-by-row one (numbers, text,
    null, a boolean) of four metrics, with ``folder`` as the job's memo: their results and the rows
    each computed."""
    import numpy as np

    from metaeval import memo

    x = np.array(MEMO_X)
    calls: list = []

    def compute(rows):
        calls.append(("rows", list(rows)))
        part = x[rows]
        return {"sum": (part ** 2).sum(axis=1), "samples": np.stack([part[:, 0] * k for k in range(3)])}

    def record(i):
        calls.append(("records", i))
        return (float(x[i].sum()), i, f"m{i}", None, bool(i % 2))

    keys = [memo.digest(f"m{i}", row) for i, row in enumerate(x)]
    with memo.kept_in(folder):
        out = memo.rows("squares", ("ctx",), keys, compute, {"samples": 1})
        rows = memo.records("rows", ("ctx",), keys, record)
    return out, rows, calls


def memo_base() -> dict[str, bytes]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        memo_calls(Path(tmp) / "memo")
        files = {p.relative_to(tmp).as_posix(): p.read_bytes() for p in sorted(Path(tmp).rglob("*")) if p.is_file()}
    files["mine/keep.txt"] = b"the user's own file"
    return files


MEMO_OPS = ["bytes", "bytes", "values", "remove", "entry_as_file", "link", "link", "dir_for_file"]


@st.composite
def _memo_mutation(draw, base: dict[str, bytes]) -> dict[str, bytes]:
    """One or two of: a file's bytes mutated (rows.json as text; the others byte by byte), an array
    given other values of its shape and dtype (with or without its digest), a file removed, an
    entry replaced by a file, a file or an entry by a link (to the user's folder, or dangling), a
    file by a folder."""
    import io

    import numpy as np

    files = dict(base)
    for _ in range(draw(st.integers(1, 2))):
        names = sorted(n for n in files if n.startswith("memo/") and not files[n].startswith(LINK))
        if not names:
            break
        name = draw(st.sampled_from(names))
        entry = "/".join(name.split("/")[:2])
        op = draw(st.sampled_from(MEMO_OPS))
        if op == "bytes" and name.endswith(".json"):
            files[name] = draw(mutated_text(files[name].decode(errors="replace"), JSON_SNIPPETS).flatmap(text_bytes))
        elif op == "bytes":
            data, i = files[name], draw(st.integers(0, len(files[name])))
            files[name] = draw(st.sampled_from([data[:i], data[:i] + draw(st.binary(min_size=1, max_size=8)) + data[i:],
                                                data[:i] + bytes([(data[i:i + 1] or b"\0")[0] ^ 0xFF]) + data[i + 1:]]))
        elif op == "values" and name.endswith(".npy") and not name.endswith(("keys.npy", "names.npy")):
            try:
                a = np.load(io.BytesIO(files[name]), allow_pickle=False)
            except Exception:       # its bytes mutated already (numpy raises ValueError, TokenError, ...)
                continue
            other = np.array(draw(st.lists(numbers.filter(lambda v: isinstance(v, float)), min_size=a.size,
                                           max_size=a.size)) or [0.0] * a.size, dtype=a.dtype).reshape(a.shape)
            out = io.BytesIO()
            np.save(out, other, allow_pickle=False)
            files[name] = out.getvalue()
        elif op == "remove":
            del files[name]
        elif op in ("entry_as_file", "link") and draw(st.booleans()):
            for n in [n for n in files if n.startswith(entry + "/")]:
                del files[n]
            files[entry] = LINK + draw(st.sampled_from([b"../mine", b"../nowhere"])) if op == "link" else b"not an entry"
        elif op == "link":
            files[name] = LINK + draw(st.sampled_from([b"../../mine/keep.txt", b"../../nowhere", b"../../mine"]))
        elif op == "dir_for_file":
            files[f"{name}/inside"] = files.pop(name)
    return files


def memo_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    return _memo_mutation(base)


def call_memo(folder: Path):
    """The two computations with the (mutated) memo; the files marked as links made links first."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.read_bytes().startswith(LINK):
            target = path.read_bytes()[len(LINK):].decode()
            path.unlink()
            path.symlink_to(target)
    return memo_calls(folder / "memo")


def verify_memo(folder: Path, result) -> None:
    """Whatever the memo held, the results are a fresh computation's, bit for bit; the user's file
    beside it is untouched; and the memo is repaired: the next run computes nothing."""
    out, rows, _ = result
    fresh_out, fresh_rows, _ = memo_calls(None)
    if {k: v.tobytes() for k, v in out.items()} != {k: v.tobytes() for k, v in fresh_out.items()} or \
            repr(rows) != repr(fresh_rows):
        raise Finding(f"the memo's results differ from a fresh computation's: {rows!r} / {fresh_rows!r}")
    if (folder / "mine/keep.txt").read_bytes() != b"the user's own file":
        raise Finding("the user's file beside the memo changed")
    again, again_rows, calls = memo_calls(folder / "memo")
    if calls or repr(again_rows) != repr(fresh_rows):
        raise Finding(f"the memo was not repaired: the next run computed {calls}")


def _yaml_value(data: bytes) -> Any:
    import yaml

    return yaml.safe_load(data.decode())


# ---------------------------------------------------------------------------- SummEval

DIMS = ("coherence", "consistency", "fluency", "relevance")


def summeval_base() -> dict[str, bytes]:
    records = []
    for t in range(3):
        for m, model in enumerate(("M8", "M11")):
            records.append({
                "id": f"dm-test-{t:04x}", "model_id": model, "filepath": f"cnndm/dailymail/stories/{t}.story",
                "decoded": f"paul merson has restarted his row . townsend was brought on in the {80 + t}rd minute .",
                "references": [f"Andros Townsend an 8{t}rd minute sub .", "Merson and Townsend feud on twitter ."],
                "text": f"Paul Merson had another dig at Andros Townsend ({t}) .",
                "expert_annotations": [{d: 1 + (t + m + i + j) % 5 for j, d in enumerate(DIMS)} for i in range(3)],
                "turker_annotations": [{d: 1 + (t * m + i * j) % 5 for j, d in enumerate(DIMS)} for i in range(5)],
            })
    return {"M_outputs_annotations.jsonl": _u("".join(json.dumps(r) + "\n" for r in records))}


def call_summeval(folder: Path):
    from metaeval.data.importers import import_summeval_jsonl

    return import_summeval_jsonl([folder / "M_outputs_annotations.jsonl"])


def verify_summeval(folder: Path, ds) -> None:
    """Each dimension's judgment is the mean of the record's expert annotations, the turker_
    dimension's the mean of its crowd annotations."""
    for line in (folder / "M_outputs_annotations.jsonl").read_text(encoding="utf-8-sig").split("\n"):
        if not line.strip():
            continue
        rec = json.loads(line)
        row = ds.judgments[(rec["id"], rec["model_id"])]
        for d in DIMS:
            for name, field in ((d, "expert_annotations"), (f"turker_{d}", "turker_annotations")):
                want = statistics.fmean(float(a[d]) for a in rec[field])
                if row[name] != want:
                    raise Finding(f"wrong number: {name} of ({rec['id']}, {rec['model_id']}) is {row[name]!r}; the "
                                  f"mean of its {field} is {want!r}")


# ---------------------------------------------------------------------------- BARTScore's pickles

def bartscore_structure(release: str) -> dict:
    data = {}
    for t in range(3):
        rec: dict[str, Any] = {"src": f"the cat sat on the mat number {t} .", "ref_summ": f"a cat sat {t} ."}
        if release == "SummEval":
            rec["ref_summs"] = [f"a cat sat {t} .", "the mat was red ."]
            scores = lambda i: {d: 1 + (t + i) % 5 for d in ("coherence", "consistency", "fluency", "relevance")}
        else:
            scores = lambda i: {"litepyramid_recall": (t + i) / 4}
        rec["sys_summs"] = {f"M{i}.txt" if i else f"M{i}": {"sys_summ": f"the cat {i} sat .", "scores": scores(i)}
                            for i in range(3)}
        data[f"doc{t}"] = rec
    return data


def bartscore_base() -> dict[str, bytes]:
    return {f"{r}/data.pkl": pickle.dumps(bartscore_structure(r), protocol=4) for r in ("REALSumm", "SummEval")}


def bartscore_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    @st.composite
    def one(draw):
        release = draw(st.sampled_from(["REALSumm", "SummEval"]))
        value: Any = bartscore_structure(release)
        protocol = draw(st.integers(0, pickle.HIGHEST_PROTOCOL))
        if draw(st.booleans()):
            value = plain(draw(mutated_value(value)), 300)
        data = pickle.dumps(value, protocol=protocol)
        if draw(st.integers(0, 3)):
            data = draw(mutated_pickle(data))
        return {"data.pkl": data, "release": _u(release)}
    return one()


def call_bartscore(folder: Path):
    from metaeval.data.bartscore import import_bartscore_pkl

    return import_bartscore_pkl(folder / "data.pkl", "b", release=(folder / "release").read_text())


def verify_bartscore(folder: Path, ds) -> None:
    """Each judgment is the pickle's score (read back by the project's unpickler, which succeeded)."""
    from metaeval.data.safe_pickle import load_data_pickle

    data = load_data_pickle(folder / "data.pkl")
    for doc_id, rec in data.items():
        for system, entry in rec["sys_summs"].items():
            row = ds.judgments[(str(doc_id), str(system).removesuffix(".txt"))]
            for d, v in row.items():
                if v != float(entry["scores"][d]):
                    raise Finding(f"wrong number: {d} of ({doc_id}, {system}) is {v!r}, the pickle has "
                                  f"{entry['scores'][d]!r}")


# ---------------------------------------------------------------------------- REALSumm's own pickles

def realsumm_structure(half: str) -> dict:
    """REALSumm's layout with its NumPy scalars (BERTScore's float32, MoverScore's float64, the rest
    floats), two documents; ``shared`` is in both halves, the same."""
    import numpy as np
    from metaeval.data.realsumm import METRICS

    data = {}
    for doc in range(2):
        systems = {}
        for name in (f"{half}{doc % 2}.txt", f"{half}x.txt", "shared.txt"):
            k = len(name) + doc
            scores = {m: float(k) / 100 for m in METRICS}
            scores.update(bert_f_score=np.float32(k / 7), mover_score=np.float64(k / 3), litepyramid_recall=k / 20)
            systems[name] = {"system_summary": f"<t> the cat {k} sat . </t> <t> on the mat", "scores": scores}
        systems["shared.txt"] = {"system_summary": "<t> shared . </t>", "scores": {**systems["shared.txt"]["scores"],
                                                                                    "litepyramid_recall": 0.5}}
        data[doc] = {"doc_id": doc, "ref_summ": f"<t> a cat sat {doc} . </t>", "system_summaries": systems}
    return data


def realsumm_base() -> dict[str, bytes]:
    return {f"{h}.pkl": pickle.dumps(realsumm_structure(h), protocol=3) for h in ("abs", "ext")}


def realsumm_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    @st.composite
    def one(draw):
        half = draw(st.sampled_from(["abs", "ext"]))
        value: Any = realsumm_structure(half)
        # NumPy pickles a scalar's bytes through _codecs.encode below protocol 3 (refused): mostly 3 and up
        protocol = draw(st.sampled_from([2, 3, 4, pickle.HIGHEST_PROTOCOL]))
        if draw(st.booleans()):
            value = plain(draw(mutated_value(value)), 300)
        data = pickle.dumps(value, protocol=protocol)
        if draw(st.integers(0, 3)):
            data = draw(mutated_pickle(data))
        return {**base, f"{half}.pkl": data}
    return one()


def call_realsumm(folder: Path):
    from metaeval.data.realsumm import import_realsumm_pkl

    return import_realsumm_pkl([folder / "abs.pkl", folder / "ext.pkl"], "r")


def verify_realsumm(folder: Path, result) -> None:
    """Each judgment and score row is the pickles' value (read back by the project's unpickler,
    which succeeded), from every file the system is in."""
    from metaeval.data.realsumm import METRICS
    from metaeval.data.safe_pickle import load_data_pickle

    ds, rows, _ = result
    got = {(t, s, m): v for t, s, m, v in rows}
    for half in ("abs", "ext"):
        for doc_id, rec in load_data_pickle(folder / f"{half}.pkl").items():
            for system, entry in rec["system_summaries"].items():
                key = (str(doc_id), system.removesuffix(".txt"))
                pairs = [(ds.judgments[key]["litepyramid_recall"], entry["scores"]["litepyramid_recall"])]
                pairs += [(got[(*key, mid)], entry["scores"][name]) for name, (mid, _, _) in METRICS.items()]
                for mine, theirs in pairs:
                    if mine != float(theirs):
                        raise Finding(f"wrong number: {mine!r} for {key} in {half}.pkl, the pickle has {theirs!r}")


# ---------------------------------------------------------------------------- FRANK

FRANK_HUMAN, FRANK_BASE = "human_annotations.json", "baseline_factuality_metrics_outputs.json"


def frank_structure() -> tuple[list, list]:
    human, base = [], []
    for h in range(2):
        for model in ("bart", "pgn"):
            key = {"hash": f"b71b7737{h}", "model_name": model, "dataset": "cnndm" if h else "bbc"}
            human.append({**key, "Factuality": 0.5 + h / 4, "RelE": 1.0, "Flip_RelE": 0.75, "split": "test"})
            base.append({**key, "Rouge 1": 0.56566, "Bleu": 14.5031074737, "BertScore P Art": "0.9082",
                         "FEQA": None if h else 0.39, "split": "test"})
    return human, base


def frank_base() -> dict[str, bytes]:
    human, base = frank_structure()
    return {FRANK_HUMAN: _u(json.dumps(human)), FRANK_BASE: _u(json.dumps(base))}


def frank_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    @st.composite
    def one(draw):
        name = draw(st.sampled_from([FRANK_HUMAN, FRANK_BASE]))
        value = json.loads(base[name])
        if draw(st.integers(0, 3)):
            text = json_text(draw(mutated_value(value)))
        else:
            text = draw(mutated_text(json.dumps(value), JSON_SNIPPETS))
        return {**base, name: draw(text_bytes(text))}
    return one()


def call_frank(folder: Path):
    from metaeval.data.frank import import_frank

    return import_frank(folder)


def verify_frank(folder: Path, result) -> None:
    ds, rows, _ = result
    from metaeval.data.frank import metric_id

    for rec in json.loads((folder / FRANK_HUMAN).read_text(encoding="utf-8-sig")):
        for d, v in ds.judgments[(rec["hash"], rec["model_name"])].items():
            _same(v, str(rec[d]) if isinstance(rec[d], str) else repr(float(rec[d])), f"{FRANK_HUMAN} {d}")
    got = {(t, s, m): v for t, s, m, v in rows}
    for rec in json.loads((folder / FRANK_BASE).read_text(encoding="utf-8-sig")):
        for field, value in rec.items():
            if field not in ("hash", "model_name", "dataset", "split") and value is not None:
                _same(got[(rec["hash"], rec["model_name"], metric_id(field))],
                      value if isinstance(value, str) else repr(float(value)), f"{FRANK_BASE} {field}")


# ---------------------------------------------------------------------------- DUC / TAC

SEE_HEADER = "topic a b c d e f summarizer q1 q2 q3 q4 q5 q6 q7 x pu mpu y mu e\n"
DUC_SUMMARIZERS = ("1", "2", "A", "B")     # two human summaries a topic: a judged one is scored against the other


def duc_base() -> dict[str, bytes]:
    files = {}
    see, peer = [SEE_HEADER], ["# topic peer pyramid scus reps modified lq resp\n"]
    for t in ("D30001", "D30002"):
        for i, s in enumerate(DUC_SUMMARIZERS):
            files[f"summaries/{t}.M.100.T.{s}"] = _u(f"The cat {i} sat .\nIt purred on {t} .\n")
            see.append(f"{t} x x x x x x {s} A B C D E {i + 1} 2 x 10 {5 + i} x 8 0.{5 + i}\n")
            v = min(i, 2)                      # linguistic quality and responsiveness stay within 1-5
            peer.append(f"{t} {s} 0.{4 + i} 5 0 0.{3 + i}5 {3 + v} {'NA' if i == 2 else 2 + v}\n")
    files["see.txt"] = _u("".join(see))
    files["manual.peer"] = _u("".join(peer))
    return files


def duc_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    @st.composite
    def one(draw):
        files = dict(base)
        what = draw(st.sampled_from(["see.txt", "manual.peer", "manual.peer", "see.txt", "summary", "file name"]))
        summaries = sorted(k for k in files if k.startswith("summaries/"))
        if what in ("see.txt", "manual.peer"):
            files[what] = draw(mutated_text(files[what].decode(), TSV_SNIPPETS + [" ", "  ", "\u3000"]).flatmap(text_bytes))
        elif what == "summary":
            k = draw(st.sampled_from(summaries))
            files[k] = draw(mutated_text(files[k].decode(), ['<a name="1">[1]</a> <a href="#1" id=1>x</a>'])
                            .flatmap(text_bytes))
        else:
            k = draw(st.sampled_from(summaries))
            name = k.split("/", 1)[1]
            i = draw(st.integers(0, len(name)))
            odd = draw(odd_text).replace("/", "_").replace("\0", "_")
            new = (name[:i] + odd + name[i:]) if draw(st.booleans()) else name.replace("D3000", odd, 1)
            if new not in ("", ".", "..") and _escapable(new) and len(os.fsencode(new)) < 250:
                files[f"summaries/{new}"] = files.pop(k)
        return files
    return one()


def _escapable(name: str) -> bool:
    """Whether a file name can be made (a lone surrogate only as an undecodable byte, U+DC80-U+DCFF)."""
    try:
        os.fsencode(name)
        return True
    except UnicodeEncodeError:
        return False


def call_duc(folder: Path):
    from metaeval.data.importers import DucTacOptions, import_duc_tac

    return import_duc_tac(DucTacOptions(str(folder / "summaries"), see_table=str(folder / "see.txt"),
                                        manual_peer=str(folder / "manual.peer")), "duc")


def verify_duc(folder: Path, ds) -> None:
    """Each judgment is its table's cell (mean coverage from the SEE table, the pyramid score from
    manual.peer), or missing where the cell says so."""
    for name, col, dim in (("see.txt", 20, "mean_coverage"), ("manual.peer", 2, "pyramid")):
        for line in (folder / name).read_text(encoding="utf-8", errors="replace").split("\n"):
            cells = line.split()
            if len(cells) > col and not cells[0].startswith("#"):
                key = (cells[0], cells[7] if name == "see.txt" else cells[1])
                if key in ds.judgments and cells[col].upper() not in ("", "-", "NA", "NAN"):
                    try:
                        float(cells[col])
                    except ValueError:
                        continue   # the header
                    _same(ds.judgments[key][dim], cells[col], f"{name} {key} {dim}")


# ---------------------------------------------------------------------------- the config

def config_value() -> dict:
    import yaml

    from metaeval.options import validated

    config = yaml.safe_load((REPO / ".test" / "config" / "config.yaml").read_text(encoding="utf-8"))
    return json.loads(json.dumps(validated(config)))


def config_base() -> dict[str, bytes]:
    import yaml

    files = {"config.yaml": _u(yaml.safe_dump(config_value(), sort_keys=False))}
    for path in TINY.iterdir():
        files[f"input/tiny/{path.name}"] = path.read_bytes()
    return files


def config_mutations(base: dict[str, bytes]) -> st.SearchStrategy[dict[str, bytes]]:
    return mutated_yaml(config_value()).flatmap(text_bytes).map(lambda data: {**base, "config.yaml": data})


_SCHEMA: list = []


def call_config(folder: Path):
    """The config as the workflow reads it: the safe loader's check of the file, then Snakemake's
    value (a mapping) validated and checked (paths relative to the working directory)."""
    from metaeval.data import safe_yaml
    from metaeval.options import ConfigError, Options, check_config_files, load_schema

    if not _SCHEMA:
        _SCHEMA.append(load_schema())
    path = folder / "config.yaml"
    check_config_files([path])
    value, _ = safe_yaml.load(path.read_text(encoding="utf-8"), path, lambda p, l, m: ConfigError(m), aliases=True)
    if not isinstance(value, dict):
        return None     # Snakemake refuses a config that is not a mapping before any of ours runs
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return Options.from_config(value, _SCHEMA[0])
    finally:
        os.chdir(cwd)


def no_check(folder: Path, result: Any) -> None:
    return None


# ---------------------------------------------------------------------------- declared tables (format: table)

TABLE_TSV, TABLE_JSONL, TABLE_CSV, TABLE_JSON = "release.tsv", "release.jsonl", "release.csv", "release.json"


def table_tsv_base() -> dict[str, bytes]:
    """A release of one row per summary: wide scores, the reference in a column."""
    rows = [["topic", "system", "summary", "reference", "relevance", "fluency"]]
    for t in ("T1", "T2"):
        for s, (rel, flu) in (("1", ("3", "4")), ("2", ("1e-0", "")), ("3", ("4.5", "2.5E+0"))):
            rows.append([t, s, f"The cat sat on mat {t} . It purred .", f"A cat {t} sat .", rel, flu])
    return {TABLE_TSV: _u("".join("\t".join(r) + "\n" for r in rows))}


def table_csv_base() -> dict[str, bytes]:
    """The TSV release's rows as a CSV, a summary holding a comma and quotes (a quoted cell)."""
    import csv
    import io

    rows = [line.split("\t") for line in table_tsv_base()[TABLE_TSV].decode().splitlines()]
    rows[1][2] = 'The cat, "Tom", sat . It purred .'
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return {TABLE_CSV: _u(out.getvalue())}


def table_json_base() -> dict[str, bytes]:
    """The JSON-lines release's records as one JSON list."""
    records = _records(table_jsonl_base()[TABLE_JSONL])
    return {TABLE_JSON: _u("[" + ",\n".join(json.dumps(r) for r in records) + "]\n")}


def table_jsonl_base() -> dict[str, bytes]:
    """SummEval's layout: per-annotator lists of {dimension: score} objects, references as a list."""
    records = [{"doc": f"d{t}", "sys": f"M{m}", "out": ["Paul sat .", f"Townsend {t} ran ."], "refs": ["A ref .", "B ref ."],
                "experts": [{"coherence": 1 + (t + m + i) % 5, "fluency": 5 - (t + i) % 3} for i in range(3)]}
               for t in range(2) for m in range(2)]
    return {TABLE_JSONL: _u("".join(json.dumps(r) + "\n" for r in records))}


def _table_entry(folder: Path, jsonl: bool, file: str | None = None) -> dict:
    dims = {"relevance": {"min": 1, "max": 5}, "fluency": {"min": 1, "max": 5}}
    if jsonl:
        return {"path": str(folder / (file or TABLE_JSONL)), "columns": {"topic": "doc", "summarizer": "sys", "text": "out"},
                "references": {"column": "refs"}, "judgments": {"layout": "annotators", "groups": {"expert": "experts"}},
                "dimensions": {"coherence": {"min": 1, "max": 5}, "fluency": {"min": 1, "max": 5}},
                "human": {"coverage": ["coherence"]}}
    return {"path": str(folder / (file or TABLE_TSV)), "columns": {"topic": "topic", "summarizer": "system", "text": "summary"},
            "references": {"column": "reference"}, "dimensions": dims,
            "human": {"coverage": ["relevance"], "linguistic_quality": ["fluency"]}}


def call_table_tsv(folder: Path):
    from metaeval.data.table import import_table, table_options

    return import_table(table_options(_table_entry(folder, False)), "fuzz")[0]


def call_table_jsonl(folder: Path):
    from metaeval.data.table import import_table, table_options

    return import_table(table_options(_table_entry(folder, True)), "fuzz")[0]


def call_table_csv(folder: Path):
    from metaeval.data.table import import_table, table_options

    return import_table(table_options(_table_entry(folder, False, TABLE_CSV)), "fuzz")[0]


def call_table_json(folder: Path):
    from metaeval.data.table import import_table, table_options

    return import_table(table_options(_table_entry(folder, True, TABLE_JSON)), "fuzz")[0]


def verify_table_tsv(folder: Path, ds, name: str = TABLE_TSV) -> None:
    """Every judgment is ``float`` of its cell (an empty cell, none): a TSV's rows split here on
    tabs (TSV has no quoting), a CSV's read with the csv module."""
    import csv
    import io

    text = (folder / name).read_bytes().decode("utf-8").removeprefix("\ufeff")
    if name == TABLE_CSV:
        rows = [r for r in csv.reader(io.StringIO(text, newline="")) if len(r) > 1 or r and r[0].strip()]
    else:
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        rows = [line.split("\t") for line in lines if "\t" in line or line.strip()]
    header = rows[0]
    for row in rows[1:]:
        cells = dict(zip(header, row))
        key = (cells["topic"], cells["system"])
        for d in ("relevance", "fluency"):
            cell = cells.get(d, "").strip()
            got = ds.judgments.get(key, {}).get(d, math.nan)
            if cell == "":
                if not math.isnan(got):
                    raise Finding(f"wrong number: {d} of {key} is {got!r}; its cell is empty")
            else:
                _same(got, cell, f"{name} {d} of {key}")


def verify_table_csv(folder: Path, ds) -> None:
    verify_table_tsv(folder, ds, TABLE_CSV)


def verify_table_jsonl(folder: Path, ds, name: str = TABLE_JSONL) -> None:
    """Each dimension's judgment is the mean of the record's annotations."""
    text = (folder / name).read_text(encoding="utf-8-sig")
    records = json.loads(text) if name == TABLE_JSON else [json.loads(line) for line in text.split("\n") if line.strip()]
    for rec in records:
        row = ds.judgments[(str(rec["doc"]), str(rec["sys"]))]
        for d in ("coherence", "fluency"):
            want = statistics.fmean(float(a[d]) for a in rec["experts"])
            if row[d] != want:
                raise Finding(f"wrong number: {d} of ({rec['doc']}, {rec['sys']}) is {row[d]!r}; the mean of its "
                              f"annotations is {want!r}")


# ---------------------------------------------------------------------------- the registry

def _and_copy(verify: Callable[[Path, Any], None], dataset: Callable[[Any], Any] = lambda result: result):
    """``verify``, then :func:`same_after_copy` on the data set of the result."""
    def both(folder: Path, result: Any) -> None:
        verify(folder, result)
        same_after_copy(folder, dataset(result))
    return both


READERS: dict[str, Reader] = {r.name: r for r in (
    Reader("dataset_yaml", canonical_base, _one_file("dataset.yaml", lambda b: mutated_yaml(_yaml_value(b))),
           load_folder, _and_copy(verify_judgments)),
    Reader("summaries_jsonl", canonical_base, _one_file("summaries.jsonl", lambda b: mutated_jsonl(_records(b))),
           load_folder, _and_copy(verify_summaries)),
    Reader("judgments_tsv", canonical_base, _one_file("judgments.tsv", lambda b: mutated_tsv(b.decode())),
           load_folder, _and_copy(verify_judgments)),
    Reader("annotations_tsv", canonical_base, _one_file("annotations.tsv", lambda b: mutated_tsv(b.decode())),
           load_folder, _and_copy(verify_annotations)),
    Reader("documents_jsonl", canonical_base, _one_file("documents.jsonl", lambda b: mutated_jsonl(_records(b))),
           load_folder, _and_copy(verify_documents)),
    Reader("pyramids_jsonl", canonical_base, _one_file("pyramids.jsonl", lambda b: mutated_jsonl(_records(b))),
           load_folder, _and_copy(verify_pyramids)),
    Reader("metric_scores_tsv", canonical_base, _one_file("metric_scores.tsv", lambda b: mutated_tsv(b.decode())),
           call_scores, verify_scores),
    Reader("shared_scores_tsv", shared_scores_base, shared_scores_mutations, call_shared_scores, verify_shared_scores),
    Reader("memo_entries", memo_base, memo_mutations, call_memo, verify_memo, errors=()),
    Reader("summeval_jsonl", summeval_base,
           _one_file("M_outputs_annotations.jsonl", lambda b: mutated_jsonl(_records(b))), call_summeval, _and_copy(verify_summeval)),
    Reader("bartscore_pkl", bartscore_base, bartscore_mutations, call_bartscore, _and_copy(verify_bartscore)),
    Reader("frank", frank_base, frank_mutations, call_frank, _and_copy(verify_frank, lambda result: result[0])),
    Reader("realsumm_pkl", realsumm_base, realsumm_mutations, call_realsumm,
           _and_copy(verify_realsumm, lambda result: result[0])),
    Reader("duc_tac", duc_base, duc_mutations, call_duc, _and_copy(verify_duc)),
    Reader("table_tsv", table_tsv_base, _one_file(TABLE_TSV, lambda b: mutated_tsv(b.decode())), call_table_tsv,
           _and_copy(verify_table_tsv)),
    Reader("table_jsonl", table_jsonl_base, _one_file(TABLE_JSONL, lambda b: mutated_jsonl(_records(b))),
           call_table_jsonl, _and_copy(verify_table_jsonl)),
    Reader("table_csv", table_csv_base, _one_file(TABLE_CSV, lambda b: mutated_csv(b.decode())), call_table_csv,
           _and_copy(verify_table_csv)),
    Reader("table_json", table_json_base, _one_file(TABLE_JSON, lambda b: mutated_json_list(json.loads(b))),
           call_table_json, _and_copy(lambda folder, ds: verify_table_jsonl(folder, ds, TABLE_JSON))),
    Reader("config", config_base, config_mutations, call_config, no_check, errors=("ConfigError",)),
)}


# ============================================================================ one example

class Timeout(BaseException):
    """An example ran longer than EXAMPLE_SECONDS (BaseException: no reader's handler catches it)."""


def _alarm(signum, frame):
    raise Timeout()


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def check_example(reader: Reader, folder: Path) -> tuple[str, str | None]:
    """The property on the input in ``folder``: (``read``, None) when the reader succeeded with the
    right numbers, (``refused``, None) when it raised its own error naming the user's file, else
    (``finding``, what happened)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, EXAMPLE_SECONDS)
    try:
        try:
            result = reader.call(folder)
        except Exception as e:
            name = type(e).__name__
            message = str(e)
            if name not in reader.errors:
                frame = traceback.extract_tb(e.__traceback__)[-1]
                return "finding", (f"{name} (not the project's error) at {Path(frame.filename).name}:{frame.lineno}: "
                                   f"{message[:300]}")
            if str(folder) not in message and not (reader.name == "config" and message.startswith("config key ")):
                return "finding", f"{name} naming no file of the user's: {message[:300]}"
            return "refused", None
        try:
            reader.verify(folder, result)
        except Finding as e:
            return "finding", str(e)
        except Exception as e:      # the result lacks what the file has (or the check cannot read it)
            return "finding", (f"checking the result, or writing and reading its canonical copy, failed ({type(e).__name__} "
                               f"at {Path(traceback.extract_tb(e.__traceback__)[-1].filename).name}:"
                               f"{traceback.extract_tb(e.__traceback__)[-1].lineno}: {str(e)[:200]})")
        return "read", None
    except Timeout:
        return "finding", f"took more than {EXAMPLE_SECONDS:g} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


class Worker:
    """A forked child of the fuzzing process that runs one example after another (the reader's
    modules imported once, in the parent), so that a crash or a limit is one finding and the
    fuzzing goes on in a new child. The parent says "go" when an example's input is in ``folder``
    and reads the outcome; a child that outlives the example's time is killed by its pid."""

    def __init__(self, reader: Reader, folder: Path) -> None:
        self.reader, self.folder = reader, folder
        self.pid: int | None = None

    def _start(self) -> None:
        go_read, self.go = os.pipe()
        self.results, done_write = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child: an example per "go", its outcome as a line; never returns
            try:
                os.close(self.go)
                os.close(self.results)
                while os.read(go_read, 1) == b"g":
                    os.write(done_write, json.dumps(check_example(self.reader, self.folder)).encode() + b"\n")
            finally:
                os._exit(0)
        os.close(go_read)
        os.close(done_write)
        self.pid = pid

    def _end(self, kill: bool = False) -> int:
        if kill:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.go)
        os.close(self.results)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        return status

    def run(self) -> tuple[str, str | None]:
        """The outcome of the example now in ``folder`` (:func:`check_example`)."""
        import select

        if self.pid is None:
            self._start()
        os.write(self.go, b"g")
        line, deadline = b"", time.monotonic() + EXAMPLE_SECONDS + 5
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.results], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                self._end(kill=True)
                return "finding", f"took more than {EXAMPLE_SECONDS + 5:g} s (killed)"
            chunk = os.read(self.results, 65536)
            if not chunk:
                status = self._end()
                if os.WIFSIGNALED(status):
                    return "finding", f"the reader's process was killed by {signal.Signals(os.WTERMSIG(status)).name}"
                return "finding", f"the reader's process exited with status {os.WEXITSTATUS(status)} without a result"
            line += chunk
        outcome, finding = json.loads(line)
        return outcome, finding

    def close(self) -> None:
        if self.pid is not None:
            os.write(self.go, b"q")
            self._end()


def finding_class(finding: str) -> str:
    """What makes two findings the same class: the exception and the place, or the kind of problem."""
    head = finding.split(":")[0]
    return head if " at " in head or head.startswith(("took", "MemoryError", "RecursionError", "the reader's")) \
        else finding[:60]


# ============================================================================ one reader's process

def main(reader_name: str, examples: int, out: Path) -> None:
    from hypothesis import HealthCheck, Phase, given, seed, settings

    limit = int(process_seconds(examples))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
    sys.setrecursionlimit(10_000)
    reader = READERS[reader_name]
    base = reader.base()
    work = out / "work"
    for old in [work, out / "report.json", *out.glob("finding-*")]:
        shutil.rmtree(old) if old.is_dir() else old.unlink(missing_ok=True)
    # the valid input itself must read without a finding
    write_files(work, base if reader.name != "bartscore_pkl" else
                {"data.pkl": base["REALSumm/data.pkl"], "release": b"REALSumm"})
    findings: dict[str, dict[str, Any]] = {}
    outcome, valid = check_example(reader, work)   # in this process: it also imports what the reader needs, once
    if outcome != "read":
        findings["the valid input"] = {"finding": f"the valid input is not read: {valid}", "count": 1, "input": None}
    count = [0]
    outcomes = {"read": 0, "refused": 0, "finding": 0}
    start = time.perf_counter()

    worker = Worker(reader, work)

    def one(files: dict[str, bytes]) -> None:
        count[0] += 1
        try:
            write_files(work, files)
        except (OSError, ValueError):   # a file name this file system cannot hold: not an input
            return
        outcome, finding = worker.run()
        outcomes[outcome] += 1
        if finding:
            key = finding_class(finding)
            entry = findings.setdefault(key, {"finding": finding, "count": 0, "input": None})
            entry["count"] += 1
            if entry["input"] is None:
                saved = out / f"finding-{len(findings)}"
                shutil.copytree(work, saved, symlinks=True)     # an input's links (the memo's) as links
                entry["input"] = str(saved)

    test = settings(max_examples=examples, derandomize="METAEVAL_FUZZ_SEED" not in os.environ, database=None,
                    deadline=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
                    print_blob=False)(given(reader.mutations(base))(one))
    if "METAEVAL_FUZZ_SEED" in os.environ:
        test = seed(int(os.environ["METAEVAL_FUZZ_SEED"]))(test)
    try:
        test()
    finally:
        worker.close()
    usage, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    report = {"reader": reader_name, "examples": count[0], "seconds": round(time.perf_counter() - start, 2),
              "peak_rss_mb": round(max(usage.ru_maxrss, children.ru_maxrss) / 1024, 1), "outcomes": outcomes,
              "findings": list(findings.values())}
    (out / "report.json").write_text(json.dumps(report, indent=1))


def run(reader: str, examples: int, out: Path) -> dict[str, Any]:
    """Fuzz one reader in its own process (limited as :func:`main` says) and return its report; a
    process that dies (a signal, a limit) is a finding whose input is the folder ``out/crash-input``."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               # the repository's src last: a PYTHONPATH given (another checkout's src) comes first
               PYTHONPATH=os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(REPO / "src")) if p))
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, __file__, reader, str(examples), str(out)], capture_output=True,
                              text=True, env=env, timeout=process_seconds(examples) + 30)
        returncode, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired:
        returncode, stderr = "timeout", f"more than {process_seconds(examples) + 30:g} s of wall time"
    report_path = out / "report.json"
    if returncode == 0 and report_path.exists():
        report = json.loads(report_path.read_text())
    else:
        crash = out / "crash-input"
        if (out / "work").exists():
            shutil.move(out / "work", crash)
        how = (f"killed by {signal.Signals(-returncode).name}" if isinstance(returncode, int) and returncode < 0
               else f"exit status {returncode}")
        report = {"reader": reader, "examples": None, "findings": [
            {"finding": f"the process died ({how}): {stderr[-1500:]}", "count": 1, "input": str(crash)}]}
    report["wall_seconds"] = round(time.perf_counter() - start, 2)
    return report


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]))
