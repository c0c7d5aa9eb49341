"""The house's layers: the import graph of src/metaeval, built from every import statement (at
module level, in functions, under ``if TYPE_CHECKING``), has no circle, and every import points to
the module's own layer or one below it, as docs/layout.md's picture of the layers says."""
from __future__ import annotations

import ast
import re
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "src" / "metaeval"
LAYOUT = REPO / "docs" / "layout.md"


@lru_cache(maxsize=None)
def module_files(package: Path) -> dict[str, Path]:
    """Every module of a package by dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The package's modules one module imports (name -> line of the first such import), from
    every import statement of the module wherever it stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    root = name.split(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [target] + [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:       # a name imported from a module
                target = target.rpartition(".")[0]
            if target and target != name and target.split(".")[0] == root:
                found.setdefault(target, node.lineno)
    return found


def import_graph(package: Path) -> dict[str, dict[str, int]]:
    modules = module_files(package)
    return {name: imports(name, path, modules) for name, path in modules.items()}


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), or a module importing
    itself: each is a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layers() -> list[tuple[str, list[str]]]:
    """docs/layout.md's picture of the layers, top to bottom: (layer, module patterns)."""
    block = LAYOUT.read_text(encoding="utf-8").split("<!-- layers -->")[1].split("<!-- /layers -->")[0]
    rows = [line for line in block.splitlines() if line.strip() and not line.startswith("```")]
    out = []
    for line in rows:
        layer, _, rest = line.partition(" ")
        patterns = rest.split("(")[0]
        out.append((layer, [p.strip().removesuffix(".py") for p in patterns.split(",") if p.strip()]))
    return out


def layer_of(name: str, picture: list[tuple[str, list[str]]]) -> int:
    """The rank of a module's layer (0: the lowest), from the one pattern that names its file
    (``data/*`` names data/__init__.py too)."""
    relative = module_files(PACKAGE)[name].relative_to(PACKAGE).with_suffix("").as_posix()
    hits = [rank for rank, (_, patterns) in enumerate(reversed(picture))
            for p in patterns if fnmatch(relative, p) or relative == p]
    assert len(hits) == 1, f"{name}: {len(hits)} layers of docs/layout.md name it; expected one"
    return hits[0]


def test_the_import_graph_has_no_circle():
    found = circles(import_graph(PACKAGE))
    assert not found, "import circles (every import statement counted): " + "; ".join(" <-> ".join(c) for c in found)


def test_a_circle_is_found_in_functions_and_under_type_checking(tmp_path):
    """The graph test can fail: a package whose only circles pass through an import inside a
    function and one under ``if TYPE_CHECKING``."""
    pkg = tmp_path / "toy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n    return x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import Y\n")
    (pkg / "d.py").write_text("from .c import Z\n")
    assert circles(import_graph(pkg)) == [["toy.a", "toy.b"], ["toy.c", "toy.d"]]


def test_every_import_points_down_the_layers_of_docs_layout():
    picture = layers()
    graph = import_graph(PACKAGE)
    upward = [f"{a} ({picture[len(picture) - 1 - layer_of(a, picture)][0]}) imports {b} "
              f"({picture[len(picture) - 1 - layer_of(b, picture)][0]}), line {line}"
              for a, targets in sorted(graph.items()) for b, line in sorted(targets.items())
              if layer_of(b, picture) > layer_of(a, picture)]
    assert not upward, "imports that point up the layers of docs/layout.md:\n" + "\n".join(upward)


def test_stages_take_their_records_and_never_the_options():
    graph = import_graph(PACKAGE)
    assert not [a for a, targets in graph.items() if a.startswith("metaeval.stages.") and "metaeval.options" in targets]


def test_imports_inside_functions_defer_a_heavy_library_and_say_so():
    """An import of the package's own modules inside a function is there only to defer a heavy
    library (numba's compiled kernels), with a comment saying so on its line."""
    modules = module_files(PACKAGE)
    bad = []
    for name, path in modules.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.level or (inner.module or "").startswith("metaeval")):
                    if not re.search(r"#.*\bdefers\b", lines[inner.lineno - 1]):
                        bad.append(f"{path.relative_to(REPO)}:{inner.lineno}: {lines[inner.lineno - 1].strip()}")
    assert not bad, "imports inside functions without a comment saying which heavy library they defer:\n" + "\n".join(bad)


@pytest.mark.parametrize("script", sorted(p.stem for p in (REPO / "workflow/scripts").glob("score*.py")))
def test_the_scoring_jobs_code_covers_no_importer_no_registry_and_no_other_stage(script):
    """The code version of a scoring job (its door's import closure) holds no release importer, no
    registry, no config layer and no stage but its own and the scoring stage it builds on, so that
    editing any of those re-runs no scoring."""
    from metaeval.provenance import import_closure, package_dir

    root = package_dir()
    closure = {p.relative_to(root).with_suffix("").as_posix() for p in import_closure(REPO / f"workflow/scripts/{script}.py")}
    importers = {"data/" + m for m in ("importers", "bartscore", "frank", "realsumm", "table", "table_files",
                                      "simulate", "formats", "metric_scores")}
    assert not closure & importers
    assert not closure & {"registry", "options", "outputs"}
    own = {"score": {"stages/scoring"}, "score_chrf": {"stages/chrf", "stages/scoring"},
           "score_sera": {"stages/sera"}}[script]
    assert {m for m in closure if m.startswith("stages/") and m != "stages/__init__"} == own
