"""The one YAML loader for files the user gives (dataset.yaml; the config files are checked with it
before Snakemake reads them), built on PyYAML's public API (its safe constructor: no tag can run
code or build an object).

Beyond ``yaml.safe_load`` it refuses, each with the file and the line:

- anchors (``&name``) and aliases (``*name``), and so merge keys (``<<``): a few hundred bytes of
  nested aliases ("billion laughs") expand to gigabytes in any reader that walks the document;
- a mapping key given twice (``yaml.safe_load`` keeps the last one silently);
- nesting deeper than :data:`MAX_DEPTH` levels (the parser recurses per level);
- text that is not proper Unicode (a lone surrogate written as ``"\\ud83d"``).

Numbers are read by the contract's rules (:data:`metaeval.data.contract.NUMBER`): a plain scalar of
ASCII digits with an optional sign, decimal point and exponent is a number (``12``, ``-0.5``,
``1e-3``, ``2.5E+2``); YAML 1.1's other forms (``1_000``, ``0x1F``, ``0o17``, ``1:30``, ``.inf``,
``.nan``) are text, so a field that needs a number says so. A number that is not finite (``1e999``)
is refused. :class:`Dumper` writes with the same rules, so what it writes reads back the same.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any, Callable

import yaml
from yaml.composer import Composer
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from .contract import NUMBER

MAX_DEPTH = 64
MAX_EXPANDED = 1_000_000
INT_TAG, FLOAT_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
MERGE_TAG = "tag:yaml.org,2002:merge"
# the contract's numbers (metaeval.data.contract.NUMBER): those without a point or exponent are integers
_INT = re.compile(r"^[+-]?[0-9]+$")
_FLOAT = re.compile(rf"^(?:{NUMBER.pattern})$")
_DIGIT_STARTS = list("+-0123456789.")


class Refused(yaml.YAMLError):
    """What this loader refuses; ``line`` is 1-based (None: unknown)."""

    def __init__(self, line: int | None, problem: str) -> None:
        super().__init__(problem)
        self.line, self.problem = line, problem


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


class _Resolver(Resolver):
    """YAML 1.1's implicit types, except that numbers are the contract's (see the module)."""


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (INT_TAG, FLOAT_TAG)]
    for first, resolvers in Resolver.yaml_implicit_resolvers.items()}
_Resolver.add_implicit_resolver(INT_TAG, _INT, _DIGIT_STARTS)
_Resolver.add_implicit_resolver(FLOAT_TAG, _FLOAT, _DIGIT_STARTS)


class _Composer(Composer):
    """Builds the node tree; refuses anchors, aliases (unless ``aliases``) and deep nesting before
    any value is built."""

    _depth = 0
    aliases = False

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if not self.aliases and isinstance(event, yaml.AliasEvent):
            raise Refused(_line(event.start_mark), f"an alias (*{event.anchor}); anchors and aliases are not "
                          "allowed: write the value out where it is used")
        if not self.aliases and getattr(event, "anchor", None) is not None:
            raise Refused(_line(event.start_mark), f"an anchor (&{event.anchor}); anchors and aliases are not "
                          "allowed: write the value out where it is used")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise Refused(_line(event.start_mark), f"nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _text(node: Any, value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Refused(_line(node.start_mark), f"{value[:40]!r} contains a lone surrogate U+{ord(value[e.start]):04X} "
                      "(a cut-off character, e.g. half of an emoji); expected proper Unicode text") from None
    return value


class _Constructor(SafeConstructor):
    """The safe constructor with the contract's numbers, unique keys and proper Unicode text."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        """PyYAML's construction, whose errors on a value its tag cannot be (``!!timestamp x``,
        ``!!bool maybe``, a date ``2001-13-45``) are a ValueError, KeyError or AttributeError rather
        than a YAMLError: each is refused with the value's line."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError) as e:
            value = node.value if isinstance(node, yaml.ScalarNode) else f"a {node.id}"
            tag = node.tag.removeprefix("tag:yaml.org,2002:")
            detail = f" ({e})" if type(e) is ValueError else ""      # datetime's "month must be in 1..12"
            raise Refused(_line(node.start_mark), f"{value!r} cannot be read as a {tag}{detail}; expected a value of "
                          "that type, or text in quotes") from None

    def construct_yaml_int(self, node: Any) -> int:
        text = self.construct_scalar(node)
        if not _INT.match(text):
            raise Refused(_line(node.start_mark), f"{text!r} is not an integer; expected ASCII digits with an "
                          "optional sign")
        return int(text)

    def construct_yaml_float(self, node: Any) -> float:
        text = self.construct_scalar(node)
        if not _FLOAT.match(text):
            raise Refused(_line(node.start_mark), f"{text!r} is not a number; expected ASCII digits with an "
                          "optional sign, decimal point and exponent (e.g. 0.5, -2, 1e-3)")
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise Refused(_line(node.start_mark), f"{text} is too large for a double; expected a finite number")
        return value

    def construct_undefined(self, node: Any) -> Any:
        raise Refused(_line(node.start_mark), f"the tag {node.tag!r} asks for a Python object or a type this "
                      "file cannot have; expected plain values (text, numbers, true/false, lists and mappings): "
                      "nothing in this file may build objects or run code")

    def construct_yaml_str(self, node: Any) -> str:
        return _text(node, self.construct_scalar(node))

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int | None] = {}
            for key_node, _ in node.value:
                if key_node.tag == MERGE_TAG:
                    raise Refused(_line(key_node.start_mark), "a merge key (<<); expected every key written out")
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key, False)
                except TypeError:
                    raise Refused(_line(key_node.start_mark), "a key that is a list or a mapping; expected a name") from None
                if first is not False:
                    raise Refused(_line(key_node.start_mark), f"the key {key!r} appears twice in this mapping (first on "
                                  f"line {first}); expected each key once")
                seen[key] = _line(key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


_Constructor.add_constructor(INT_TAG, _Constructor.construct_yaml_int)
_Constructor.add_constructor(FLOAT_TAG, _Constructor.construct_yaml_float)
_Constructor.add_constructor("tag:yaml.org,2002:str", _Constructor.construct_yaml_str)
_Constructor.add_constructor(None, _Constructor.construct_undefined)


class Loader(Reader, Scanner, Parser, _Composer, _Constructor, _Resolver):
    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _Composer.__init__(self)
        _Constructor.__init__(self)
        _Resolver.__init__(self)


class Dumper(yaml.SafeDumper):
    """Writes what :class:`Loader` reads back the same: no anchors or aliases (a value used twice is
    written twice), and text that looks like a contract number quoted."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


Dumper.yaml_implicit_resolvers = {k: list(v) for k, v in _Resolver.yaml_implicit_resolvers.items()}
for _first, _resolvers in Resolver.yaml_implicit_resolvers.items():
    # keep the default resolvers too, so that text PyYAML would read as a number is still quoted
    Dumper.yaml_implicit_resolvers.setdefault(_first, [])
    Dumper.yaml_implicit_resolvers[_first] += [r for r in _resolvers if r not in Dumper.yaml_implicit_resolvers[_first]]


def dump(data: Any) -> str:
    """``yaml.safe_dump(data, sort_keys=False, allow_unicode=True)`` with :class:`Dumper`."""
    return yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True)


def key_lines(node: Any) -> dict[tuple[str, ...], int]:
    """Line number (1-based) of every mapping key path (and list item) of a composed document."""
    lines: dict[tuple[str, ...], int] = {}
    stack = [(node, ())]
    while stack:
        n, path = stack.pop()
        if isinstance(n, yaml.MappingNode):
            for key, value in n.value:
                sub = path + (str(key.value),)
                lines.setdefault(sub, key.start_mark.line + 1)
                stack.append((value, sub))
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[path + (str(i),)] = item.start_mark.line + 1
                stack.append((item, path + (str(i),)))
    return lines


ErrorFactory = Callable[[str, "int | None", str], Exception]


def expanded_size(node: Any, limit: int) -> int:
    """How many nodes a document has with every alias written out (counted once per node, so a
    billion laughs costs microseconds); stops counting above ``limit``."""
    sizes: dict[int, int] = {}

    def size(n: Any) -> int:
        if id(n) not in sizes:
            children = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else (
                n.value if isinstance(n, yaml.SequenceNode) else [])
            sizes[id(n)] = min(limit + 1, 1 + sum(size(c) for c in children))
        return sizes[id(n)]

    return size(node)


def _unprintable(text: str, e: yaml.reader.ReaderError) -> tuple[int, str]:
    """(line, problem) of a character YAML does not allow (NUL and other control characters,
    U+FFFE, U+FFFF): PyYAML refuses the whole text before reading it."""
    line = text.count("\n", 0, e.position) + 1
    column = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
    char = chr(e.character) if isinstance(e.character, int) else str(e.character)
    label = unicodedata.name(char, "") or ("a noncharacter" if ord(char) in (0xFFFE, 0xFFFF) else "a control character")
    return line, (f"the character U+{ord(char):04X} ({label}) at column {column}, which YAML does not allow; "
                  "expected printable text (write such a character as an escape, e.g. \"\\x00\", inside double "
                  "quotes)")


def load(text: str, path: Path | str, error: ErrorFactory, aliases: bool = False
         ) -> tuple[Any, dict[tuple[str, ...], int]]:
    """(the document's value, the line of every key path) of YAML ``text`` read from ``path``. A
    problem raises ``error(path, line, problem)``; a malformed document's problem starts with
    "malformed YAML". With ``aliases`` (the config files, which other tools write) anchors and
    aliases are allowed as long as the document written out has at most :data:`MAX_EXPANDED` nodes."""
    try:
        loader = Loader(text)
    except yaml.reader.ReaderError as e:      # raised before any token: a character YAML does not allow
        raise error(str(path), *_unprintable(text, e)) from None
    loader.aliases = aliases
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        if aliases and expanded_size(node, MAX_EXPANDED) > MAX_EXPANDED:
            raise Refused(None, f"its aliases expand to more than {MAX_EXPANDED:,} values (nested aliases, a "
                          "\"billion laughs\"); expected the values written out")
        value = loader.construct_document(node)
    except Refused as e:
        raise error(str(path), e.line, e.problem) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise error(str(path), _line(mark), f"malformed YAML: {e}") from None
    except yaml.YAMLError as e:
        raise error(str(path), None, f"malformed YAML: {e}") from None
    except RecursionError:
        raise error(str(path), None, "nested too deeply") from None
    finally:
        loader.dispose()
    return value, key_lines(node)
