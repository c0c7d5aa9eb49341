"""LLM judges' outputs, read: declared parse rules, a judge's responses and choices, and the scores
they give (docs/judges.md).

A **parse rule** is declared, not coded (``parse_rules.yaml`` beside this module; a config's
``parse_rules:`` adds more in the same form): ordered patterns, each with a capture and a mapping to
a value (a number, a word such as "four", a letter such as "B" -> 2; for a pairwise rule the summary
shown first, second, or a tie). A response that no pattern reads is a **parse failure**: counted per
judge x method x dimension and never scored.

A **judge** is a metric of a data set, named by judge and method (``gpt-4-0314:rts``), scored under
the dimension it was asked about. Its responses come from

* a release laid out as LLM_summeval's (``layout: llm_summeval``: Shen et al. 2023,
  ``eval_model_generations/<judge>/eval_<summarizer>_generations/<dimension>_<method>.txt``, JSON
  lines ``{id, resp}``, and ``comp_res/<judge>/<A>-<B>_<dimension>[_toggle].result``, JSON lines
  ``{id, resp}`` of the choice between A's and B's summaries, ``_toggle`` shown in the swapped
  order), or
* the user's files (TSV with a header): **pointwise** ``topic, summarizer, dimension`` and
  ``response`` (read by the judge's rule) or ``score``, an optional ``sample`` (several samples per
  summary: the judge's score is their mean) and an optional ``dataset`` first column; **pairwise**
  ``topic, summarizer_a, summarizer_b, dimension, order (ab|ba)`` and ``choice (a|b|tie)`` or
  ``response`` (read by the judge's pairwise rule, which says first / second / tie), with the same
  optional ``dataset`` column.

An item judged more than once (the same summary, dimension and sample) follows the judge's
``duplicates`` policy: ``last`` (the last response, as LLM_summeval's extract_model_scores.py keeps
it) or ``mean`` (of the responses read), and the count is reported.

load (:func:`read_judge`) -> :func:`scores` -> :class:`JudgeScores`; bad input is a
:class:`~metaeval.data.contract.DatasetError` naming the file, the line and the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .contract import NUMBER, DatasetError, check_name, fail, load_json, parse_number, read_text
from .safe_yaml import load as load_yaml

RULES_FILE = Path(__file__).with_name("parse_rules.yaml")
RULE_KINDS = ("pointwise", "pairwise")
POSITIONS = ("first", "second", "tie")
ORDERS = ("ab", "ba")
CHOICES = ("a", "b", "tie")
DUPLICATE_POLICIES = ("last", "mean")
LAYOUTS = ("llm_summeval", "files")
# the dimensions LLM_summeval's judges were asked about (SummEval's)
LLM_SUMMEVAL_DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
_PATTERN_KEYS = ("pattern", "lowercase", "strip", "occurrence", "within", "capture", "map")
_RULE_KEYS = ("kind", "description", "patterns")
EXAMPLES = 3                      # parse failures quoted per judge x method x dimension in the log


# ----------------------------------------------------------------------------- parse rules

@dataclass(frozen=True)
class Pattern:
    pattern: re.Pattern
    lowercase: bool
    strip: bool
    last: bool
    within: re.Pattern | None
    capture: int
    mapping: Mapping[str, Any] | None     # None: the captured text is a number

    def read(self, response: str) -> Any:
        """The value this pattern reads from ``response``, or None."""
        text = response.lower() if self.lowercase else response
        text = text.strip() if self.strip else text
        if self.last:
            found = list(self.pattern.finditer(text))
            match = found[-1] if found else None
        else:
            match = self.pattern.search(text)
        if match is None:
            return None
        if self.within is not None:
            match = self.within.search(match.group(0))
            if match is None:
                return None
        captured = match.group(self.capture)
        if captured is None:
            return None
        if self.mapping is None:
            return float(captured) if NUMBER.fullmatch(captured) else None
        return self.mapping.get(captured.strip())


@dataclass(frozen=True)
class ParseRule:
    name: str
    kind: str                     # pointwise (a number) | pairwise (first | second | tie)
    description: str
    patterns: tuple[Pattern, ...]

    def read(self, response: str) -> Any:
        """The first value a pattern reads, in the declared order; None: a parse failure."""
        for p in self.patterns:
            value = p.read(response)
            if value is not None:
                return value
        return None


def _pattern(path: str, where: str, spec: Any, kind: str) -> Pattern:
    if not isinstance(spec, dict):
        raise fail(path, None, where, f"expected a mapping with {', '.join(_PATTERN_KEYS)}")
    unknown = sorted(set(spec) - set(_PATTERN_KEYS))
    if unknown:
        raise fail(path, None, f"{where}.{unknown[0]}", f"unknown key; expected only {', '.join(_PATTERN_KEYS)}")

    def regex(key: str) -> re.Pattern | None:
        if spec.get(key) is None and key == "within":
            return None
        if not isinstance(spec.get(key), str) or not spec[key]:
            raise fail(path, None, f"{where}.{key}", "expected a regular expression")
        try:
            return re.compile(spec[key])
        except re.error as e:
            raise fail(path, None, f"{where}.{key}", f"not a regular expression ({e})") from None

    compiled, within = regex("pattern"), regex("within")
    for key in ("lowercase", "strip"):
        if not isinstance(spec.get(key, False), bool):
            raise fail(path, None, f"{where}.{key}", "expected true or false")
    occurrence = spec.get("occurrence", "first")
    if occurrence not in ("first", "last"):
        raise fail(path, None, f"{where}.occurrence", f"{occurrence!r}; expected first or last")
    capture = spec.get("capture", 1)
    groups = (within or compiled).groups
    if isinstance(capture, bool) or not isinstance(capture, int) or not 0 <= capture <= groups:
        raise fail(path, None, f"{where}.capture", f"{capture!r}; expected a group of the expression (0 to {groups})")
    mapping = spec.get("map")
    if mapping == "number":
        if kind != "pointwise":
            raise fail(path, None, f"{where}.map", "a pairwise rule maps to first, second or tie, not a number")
        return Pattern(compiled, spec.get("lowercase", False), spec.get("strip", False), occurrence == "last", within,
                       capture, None)
    if not isinstance(mapping, dict) or not mapping:
        raise fail(path, None, f"{where}.map", "expected number or a mapping of captured text to a value")
    values = {}
    for text, value in mapping.items():
        if kind == "pointwise":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise fail(path, None, f"{where}.map.{text}", f"{value!r}; expected a number")
            value = float(value)
        elif value not in POSITIONS:
            raise fail(path, None, f"{where}.map.{text}", f"{value!r}; expected one of {', '.join(POSITIONS)}")
        values[str(text)] = value
    return Pattern(compiled, spec.get("lowercase", False), spec.get("strip", False), occurrence == "last", within,
                   capture, values)


def rules_from(document: Any, path: str) -> dict[str, ParseRule]:
    """Parse rules from a YAML document's value (name -> {kind, description, patterns})."""
    if not isinstance(document, dict):
        raise fail(path, None, None, "expected parse rules by name")
    out = {}
    for name, spec in document.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.+-]*", name):
            raise fail(path, None, repr(name), "a rule's name is a letter followed by letters, digits and _.+-")
        if not isinstance(spec, dict):
            raise fail(path, None, name, f"expected a mapping with {', '.join(_RULE_KEYS)}")
        unknown = sorted(set(spec) - set(_RULE_KEYS))
        if unknown:
            raise fail(path, None, f"{name}.{unknown[0]}", f"unknown key; expected only {', '.join(_RULE_KEYS)}")
        kind = spec.get("kind", "pointwise")
        if kind not in RULE_KINDS:
            raise fail(path, None, f"{name}.kind", f"{kind!r}; expected one of {', '.join(RULE_KINDS)}")
        patterns = spec.get("patterns")
        if not isinstance(patterns, list) or not patterns:
            raise fail(path, None, f"{name}.patterns", "expected one or more patterns")
        out[name] = ParseRule(name, kind, str(spec.get("description", "")),
                              tuple(_pattern(path, f"{name}.patterns[{i}]", p, kind) for i, p in enumerate(patterns)))
    return out


def read_rules(path: Path | str = RULES_FILE) -> dict[str, ParseRule]:
    """The parse rules of a YAML file (the tool's own: ``parse_rules.yaml``)."""
    def error(where: str, line: int | None, problem: str) -> DatasetError:
        return fail(where, line, None, problem)

    document, _ = load_yaml(read_text(path), path, error)
    return rules_from(document, str(path))


def builtin_rules() -> dict[str, ParseRule]:
    return read_rules(RULES_FILE)


# ----------------------------------------------------------------------------- a judge's declaration

@dataclass(frozen=True)
class JudgeSpec:
    """One judge of a data set: where its responses are and how they are read.

    ``layout`` llm_summeval: ``root`` is the release folder, ``judges`` the judge models and
    ``methods`` the method -> rule of each (every judge x method file present is read; a pair's
    choices are read with ``pairwise_rule``). ``files``: ``pointwise`` / ``pairwise`` TSV files of
    the user's, ``rule`` the pointwise rule (None: a ``score`` column), ``pairwise_rule`` the pairwise
    one (None: a ``choice`` column). ``name`` is the judge (with ``method`` the metric's name)."""
    dataset: str
    layout: str
    name: str = ""
    method: str = ""
    root: str = ""
    judges: tuple[str, ...] = ()
    methods: tuple[tuple[str, str], ...] = ()
    pointwise: str | None = None
    pairwise: str | None = None
    rule: str | None = None
    pairwise_rule: str | None = None
    duplicates: str = "last"
    # llm_summeval: the (judge, method) pairs its release has, so that its metrics are declared before any job
    present: tuple[tuple[str, str], ...] = ()


def metric_name(judge: str, method: str) -> str:
    """How a judge x method is named (``gpt-4-0314:rts``; no method: the judge)."""
    return f"{judge}:{method}" if method else judge


def metric_id(judge: str, method: str, dimension: str) -> str:
    """The score file's metric id of a judge x method asked about one dimension: metric ids take no
    ``:`` (metaeval.metrics.families.metric_id_problem), so ``gpt-4-0314.rts.coherence``."""
    return ".".join(p for p in (judge, method, dimension) if p)


# ----------------------------------------------------------------------------- what is read

@dataclass(frozen=True)
class Response:
    """One pointwise response (or given score) of a judge: its value, None for a parse failure."""
    judge: str                    # the metric's name, judge:method
    dimension: str
    topic: str
    summarizer: str
    sample: str
    value: float | None
    response: str
    source: str
    line: int


@dataclass(frozen=True)
class Choice:
    """One pairwise choice: which of the pair (``a``, ``b``) the judge preferred, or a tie, shown in
    ``order`` (ab: a first); None for a parse failure."""
    judge: str
    dimension: str
    topic: str
    a: str
    b: str
    order: str
    choice: str | None
    response: str
    source: str
    line: int

    @property
    def position(self) -> str | None:
        """The choice as the judge saw it: the summary shown first, second, or a tie."""
        if self.choice is None or self.choice == "tie":
            return self.choice
        return "first" if (self.choice == "a") == (self.order == "ab") else "second"


@dataclass
class JudgeRead:
    """Everything read of the judges of one data set."""
    responses: list[Response] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    # metric name -> (judge, method, duplicates policy)
    metrics: dict[str, tuple[str, str, str]] = field(default_factory=dict)


def _position_choice(position: str, order: str) -> str:
    if position == "tie":
        return "tie"
    return "a" if (position == "first") == (order == "ab") else "b"


def _rule(rules: Mapping[str, ParseRule], name: str, kind: str, where: str) -> ParseRule:
    rule = rules.get(name)
    if rule is None:
        raise DatasetError(f"{where}: parse rule {name!r} is not declared; expected one of {', '.join(sorted(rules))}")
    if rule.kind != kind:
        raise DatasetError(f"{where}: parse rule {name!r} is a {rule.kind} rule; expected a {kind} one")
    return rule


def _json_lines(path: Path) -> Iterable[tuple[int, dict]]:
    for no, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        rec = load_json(line, path, no, "a JSON object per line")
        if not isinstance(rec, dict):
            raise fail(path, no, None, "expected a JSON object")
        for key in ("id", "resp"):
            if not isinstance(rec.get(key), str):
                raise fail(path, no, key, f"missing or not text; expected the {'article id' if key == 'id' else 'response'}")
        check_name(path, no, "id", rec["id"])
        yield no, rec


_POINTWISE_FILE = re.compile(r"(?P<dimension>[a-z_]+)_(?P<method>[a-z]+)\.txt")
_PAIRWISE_FILE = re.compile(r"(?P<a>[^-/]+)-(?P<b>[^_/]+)_(?P<dimension>[a-z]+)(?P<toggle>_toggle)?\.result")


def read_llm_summeval(spec: JudgeSpec, rules: Mapping[str, ParseRule], out: JudgeRead) -> None:
    """The responses of a release laid out as LLM_summeval's (see the module's docstring)."""
    root = Path(spec.root)
    methods = dict(spec.methods)
    for judge in spec.judges:
        folder = root / "eval_model_generations" / judge
        for system_dir in sorted(folder.glob("eval_*_generations")):
            summarizer = system_dir.name[len("eval_"):-len("_generations")]
            for path in sorted(system_dir.iterdir()):
                m = _POINTWISE_FILE.fullmatch(path.name)
                if not m or m["method"] not in methods:
                    continue
                rule = _rule(rules, methods[m["method"]], "pointwise", str(path))
                name = metric_name(judge, m["method"])
                out.metrics[name] = (judge, m["method"], spec.duplicates)
                for no, rec in _json_lines(path):
                    out.responses.append(Response(name, m["dimension"], rec["id"], summarizer, "", rule.read(rec["resp"]),
                                                  rec["resp"], str(path), no))
        pair_folder = root / "comp_res" / judge
        if spec.pairwise_rule and pair_folder.is_dir():
            rule = _rule(rules, spec.pairwise_rule, "pairwise", str(pair_folder))
            name = metric_name(judge, "h2h")
            out.metrics.setdefault(name, (judge, "h2h", spec.duplicates))
            for path in sorted(pair_folder.iterdir()):
                m = _PAIRWISE_FILE.fullmatch(path.name)
                if not m:
                    continue
                order = "ba" if m["toggle"] else "ab"
                for no, rec in _json_lines(path):
                    position = rule.read(rec["resp"])
                    out.choices.append(Choice(name, m["dimension"], rec["id"], m["a"], m["b"], order,
                                              None if position is None else _position_choice(position, order),
                                              rec["resp"], str(path), no))


class _Table:
    """A user's TSV file with a header: each row by column name, the line number kept."""

    def __init__(self, path: str, required: Sequence[str], one_of: Sequence[str], optional: Sequence[str]):
        self.path = path
        lines = read_text(path).splitlines()
        if not lines:
            raise fail(path, 1, None, f"empty; expected a header with {', '.join(required)} and one of "
                                      f"{' or '.join(one_of)}")
        self.header = lines[0].split("\t")
        for column in required:
            if column not in self.header:
                raise fail(path, 1, column, f"missing column; expected the header to name {', '.join(required)} and "
                                            f"one of {' or '.join(one_of)} (tab-separated)")
        given = [c for c in one_of if c in self.header]
        if len(given) != 1:
            raise fail(path, 1, " / ".join(one_of), f"expected exactly one of the columns {' or '.join(one_of)}")
        self.value_column = given[0]
        known = {*required, *one_of, *optional}
        for column in self.header:
            if column not in known:
                raise fail(path, 1, column, f"unknown column; expected only {', '.join(sorted(known))}")
        if len(set(self.header)) != len(self.header):
            raise fail(path, 1, None, "a column is named twice")
        self.rows = []
        for no, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            cells = line.split("\t")
            if len(cells) != len(self.header):
                raise fail(path, no, None, f"{len(cells)} fields; expected {len(self.header)} as the header names")
            self.rows.append((no, dict(zip(self.header, cells))))

    def name(self, no: int, row: Mapping[str, str], column: str) -> str:
        value = row[column]
        if not value.strip():
            raise fail(self.path, no, column, "empty; expected a name")
        check_name(self.path, no, column, value)
        return value


def pointwise_dimensions(path: str | None) -> list[str]:
    """The dimensions a user's pointwise file names (read when the workflow starts, so that each
    judge x dimension is declared a metric of that dimension alone); none when the file cannot be
    read (the judges' job then says why)."""
    if not path:
        return []
    try:
        lines = read_text(path).splitlines()
    except (OSError, DatasetError):
        return []
    header = lines[0].split("\t") if lines else []
    if "dimension" not in header:
        return []
    i = header.index("dimension")
    return sorted({cells[i] for cells in (line.split("\t") for line in lines[1:]) if len(cells) == len(header)
                   and cells[i].strip()})


def _file_rule(t: _Table, path: str, rules: Mapping[str, ParseRule], name: str, kind: str, give: str
               ) -> ParseRule | None:
    """The declared rule of a file of raw responses (None where the file gives the values themselves);
    responses without a rule are refused naming the file."""
    if t.value_column != "response":
        return None
    if not name:
        raise fail(path, 1, "response", f"responses need a {'pairwise ' if kind == 'pairwise' else ''}parse rule: "
                                        f"give the judge's {give}")
    return _rule(rules, name, kind, path)


def _rows_of(t: _Table, dataset: str) -> Iterable[tuple[int, dict]]:
    """A judge file's rows of ``dataset`` (a file without a dataset column is the data set's alone)."""
    return ((no, row) for no, row in t.rows if "dataset" not in row or row["dataset"] == dataset)


def read_files(spec: JudgeSpec, rules: Mapping[str, ParseRule], out: JudgeRead) -> None:
    """A judge of the user's: its pointwise and pairwise TSV files (see the module's docstring)."""
    name = metric_name(spec.name, spec.method)
    out.metrics[name] = (spec.name, spec.method, spec.duplicates)
    if spec.pointwise:
        t = _Table(spec.pointwise, ("topic", "summarizer", "dimension"), ("response", "score"), ("dataset", "sample"))
        rule = _file_rule(t, spec.pointwise, rules, spec.rule, "pointwise", "rule (or a score column)")
        for no, row in _rows_of(t, spec.dataset):
            text = row[t.value_column]
            value = rule.read(text) if rule else parse_number(spec.pointwise, no, "score", text)
            out.responses.append(Response(name, t.name(no, row, "dimension"), t.name(no, row, "topic"),
                                          t.name(no, row, "summarizer"), row.get("sample", ""), value, text,
                                          spec.pointwise, no))
    if spec.pairwise:
        t = _Table(spec.pairwise, ("topic", "summarizer_a", "summarizer_b", "dimension", "order"),
                   ("choice", "response"), ("dataset",))
        rule = _file_rule(t, spec.pairwise, rules, spec.pairwise_rule, "pairwise",
                          "pairwise_rule (or a choice column)")
        for no, row in _rows_of(t, spec.dataset):
            a, b = t.name(no, row, "summarizer_a"), t.name(no, row, "summarizer_b")
            if a == b:
                raise fail(spec.pairwise, no, "summarizer_b", f"{b!r} is also summarizer_a; expected two different "
                                                              "summarizers in a pair")
            order = row["order"]
            if order not in ORDERS:
                raise fail(spec.pairwise, no, "order", f"{order!r}; expected ab (summarizer_a shown first) or ba")
            text = row[t.value_column]
            if rule is None:
                if text not in CHOICES:
                    raise fail(spec.pairwise, no, "choice", f"{text!r}; expected a, b or tie")
                choice = text
            else:
                position = rule.read(text)
                choice = None if position is None else _position_choice(position, order)
            out.choices.append(Choice(name, t.name(no, row, "dimension"), t.name(no, row, "topic"), a, b, order,
                                      choice, text, spec.pairwise, no))


def read_judges(specs: Sequence[JudgeSpec], rules: Mapping[str, ParseRule]) -> JudgeRead:
    """Every judge of a data set, read (load)."""
    out = JudgeRead()
    for spec in specs:
        if spec.duplicates not in DUPLICATE_POLICIES:
            raise DatasetError(f"judge {spec.name or spec.root}: duplicates {spec.duplicates!r}; expected one of "
                               f"{', '.join(DUPLICATE_POLICIES)}")
        (read_llm_summeval if spec.layout == "llm_summeval" else read_files)(spec, rules, out)
    _check_rules_match(out)
    return out


def _check_rules_match(read: JudgeRead) -> None:
    """A rule that reads none of a file's responses is an error naming the file (a rule that never
    matches is a wrong rule, not a judge that never answers)."""
    by_file: dict[str, list] = {}
    for r in read.responses:
        by_file.setdefault(r.source, []).append(r.value)
    for c in read.choices:
        by_file.setdefault(c.source, []).append(c.choice)
    for source, values in by_file.items():
        if values and all(v is None for v in values):
            first = next(x for x in (*read.responses, *read.choices) if x.source == source)
            raise fail(source, first.line, "response", f"the parse rule reads none of its {len(values)} responses "
                       f"(the first: {first.response[:80]!r}); expected a rule whose patterns match the judge's answers")


# ----------------------------------------------------------------------------- scores and counts

@dataclass(frozen=True)
class ParseCount:
    judge: str
    dimension: str
    responses: int
    failures: int
    duplicates: int               # items judged more than once (the same summary and sample)
    examples: tuple[str, ...]     # failures quoted (file:line: response)


@dataclass(frozen=True)
class ItemScore:
    judge: str
    dimension: str
    topic: str
    summarizer: str
    score: float                  # the mean over the samples' kept values
    samples: tuple[float, ...]    # each sample's kept value, by sample name


@dataclass
class JudgeScores:
    items: list[ItemScore]
    counts: list[ParseCount]
    choices: list[Choice]         # read, failures kept (choice None), duplicates resolved to the last


def _count(counts: dict[tuple[str, str], list], judge: str, dim: str, group: Sequence, failed: Sequence) -> None:
    """Add one item's responses (or choices) to its judge and dimension's counts: responses, parse
    failures, items judged more than once, and the failures' places and texts."""
    c = counts.setdefault((judge, dim), [0, 0, 0, []])
    c[0] += len(group)
    c[1] += len(failed)
    c[2] += len(group) > 1
    c[3].extend(f"{r.source}:{r.line}: {r.response[:120]!r}" for r in failed)


def scores(read: JudgeRead) -> JudgeScores:
    """The judges' scores of each summary (compute): per item (judge, dimension, topic, summarizer,
    sample) the kept value by the judge's duplicates policy, None when it is a failure (``last``: the
    last response; ``mean``: the mean of those read); then the mean over samples."""
    grouped: dict[tuple, list[Response]] = {}
    for r in read.responses:
        grouped.setdefault((r.judge, r.dimension, r.topic, r.summarizer, r.sample), []).append(r)
    counts: dict[tuple[str, str], list] = {}
    by_item: dict[tuple, dict[str, float]] = {}
    for (judge, dim, topic, summarizer, sample), rs in grouped.items():
        _count(counts, judge, dim, rs, [r for r in rs if r.value is None])
        policy = read.metrics[judge][2]
        if policy == "last":
            value = rs[-1].value
        else:
            read_values = [r.value for r in rs if r.value is not None]
            value = sum(read_values) / len(read_values) if read_values else None
        if value is not None:
            by_item.setdefault((judge, dim, topic, summarizer), {})[sample] = value
    pair_groups: dict[tuple, list[Choice]] = {}
    for ch in read.choices:
        pair_groups.setdefault((ch.judge, ch.dimension, ch.topic, *sorted((ch.a, ch.b)), ch.order), []).append(ch)
    for (judge, dim, *_), chs in pair_groups.items():
        _count(counts, judge, dim, chs, [ch for ch in chs if ch.choice is None])
    items = [ItemScore(j, d, t, s, sum(v[k] for k in sorted(v)) / len(v), tuple(v[k] for k in sorted(v)))
             for (j, d, t, s), v in sorted(by_item.items())]
    return JudgeScores(items, [ParseCount(j, d, c[0], c[1], c[2], tuple(c[3][:EXAMPLES]))
                               for (j, d), c in sorted(counts.items())],
                       [chs[-1] for _, chs in sorted(pair_groups.items(), key=lambda kv: kv[0])])
