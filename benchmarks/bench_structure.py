"""The shape of the house before and after a change, measured on both trees in one run.

    .venv/bin/python benchmarks/bench_structure.py [--before f6c4bbb]

Prints, for ``--before`` (a commit, read with ``git archive``) and for the working tree:

* the files touched to add a stage, a metric family and a release format. Before: measured on the
  commits that added them (the annotators and factuality stages; chrF; the FRANK format, counted as
  the files whose added lines name it). After: the files docs/layout.md's steps list ("Adding a
  stage", "... a metric family", "... a release format"); tests/test_registry.py adds a toy stage
  touching exactly those and runs it to the report;
* the definitions of the Pearson correlation, of ranks and of the percentile interval: functions
  whose own body computes one (:data:`PATTERNS`; a call of the one definition does not count);
* the largest module's lines and the most parameters of any function (numba kernels apart), in
  src/metaeval and workflow/scripts.
"""
from __future__ import annotations

import argparse
import ast
import io
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BEFORE = "f6c4bbb"
# The commits that added each kind of thing before the registries, and how to count their files.
STAGE_COMMITS = {"annotators": "5751fe8", "factuality": "4372e81"}
FAMILY_COMMITS = {"chrF": "8304f14"}
FORMAT_COMMITS = {"frank": ("bfe9ce3", "524d87d")}

# A function defines a statistic when its own body (nested functions apart) matches, in the
# lines of its source:
PATTERNS = {
    # Pearson from its formula: a centred cross product over the root of the centred squares
    "pearson": re.compile(r"sqrt\([^\n]*\b(xc|ac)\b|\b(xc|ac)\b[^\n]*sqrt\("),
    # ranks: scipy's rankdata, or ranks from a sort (an argsort, then ties by runs or cumulative sums)
    # in a function that speaks of ranks (a sort for something else, a threshold search, is no rank)
    "ranks": re.compile(r"rankdata\(|argsort\((?:[^\n]*\n){0,12}?[^\n]*(accumulate|cumsum|searchsorted)\("),
    # the percentile interval: a percentile or quantile at the tails
    "interval": re.compile(r"(nan)?(percentile|quantile)\("),
}


def tree_of(commit: str, dest: Path) -> Path:
    data = subprocess.run(["git", "-C", str(REPO), "archive", commit, "src", "workflow/scripts"],
                          capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def python_files(root: Path) -> list[Path]:
    return sorted([*(root / "src" / "metaeval").rglob("*.py"), *(root / "workflow" / "scripts").glob("*.py")])


def own_lines(node: ast.AST, lines: list[str]) -> list[str]:
    """The source lines of a function but those of the functions nested in it."""
    nested = {i for child in ast.walk(node) if child is not node and isinstance(child, (ast.FunctionDef, ast.Lambda))
              for i in range(child.lineno, (child.end_lineno or child.lineno) + 1)}
    body_start = node.body[0].lineno
    if isinstance(node.body[0], ast.Expr) and isinstance(getattr(node.body[0], "value", None), ast.Constant):
        body_start = (node.body[0].end_lineno or body_start) + 1     # the docstring is not code
    return [lines[i - 1] for i in range(body_start, (node.end_lineno or body_start) + 1) if i not in nested]


def measure(root: Path) -> dict[str, object]:
    definitions = {k: [] for k in PATTERNS}
    largest, widest = ("", 0), ("", 0)
    for path in python_files(root):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        rel = path.relative_to(root).as_posix()
        if len(lines) > largest[1]:
            largest = (rel, len(lines))
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, *(v for v in (a.vararg, a.kwarg) if v))]
            count = len(names) - (names[:1] in (["self"], ["cls"]))
            numba = any("numba" in ast.unparse(d) for d in node.decorator_list)
            if not numba and count > widest[1]:
                widest = (f"{rel}:{node.name}", count)
            body = "\n".join(l.split("#")[0] for l in own_lines(node, lines))
            for kind, pattern in PATTERNS.items():
                if pattern.search(body) and (kind != "ranks" or "rank" in f"{node.name} {body}"):
                    definitions[kind].append(f"{rel}:{node.name}")
    return {"definitions": definitions, "largest": largest, "widest": widest}


def changed_files(commit: str, naming: str | None = None) -> set[str]:
    """The files a commit changed (``naming``: only those whose added lines contain it)."""
    if naming is None:
        out = subprocess.run(["git", "-C", str(REPO), "show", "--format=", "--name-only", commit],
                             capture_output=True, text=True, check=True).stdout
        return {l for l in out.splitlines() if l}
    diff = subprocess.run(["git", "-C", str(REPO), "show", "--format=", "-U0", commit],
                          capture_output=True, text=True, check=True).stdout
    found, current = set(), None
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            current = line[6:]
        elif line.startswith("+") and not line.startswith("+++") and naming.lower() in line.lower() and current:
            found.add(current)
    return found


def documented_steps(heading: str) -> list[str]:
    """The files a docs/layout.md section's numbered steps name."""
    text = (REPO / "docs" / "layout.md").read_text(encoding="utf-8")
    if f"## {heading}" not in text:
        return []
    section = text.split(f"## {heading}")[1].split("\n## ")[0]
    return re.findall(r"^\d\. `([^`]+)`", section, flags=re.M)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before = measure(tree_of(args.before, Path(tmp)))
    after = measure(REPO)

    print(f"files touched to add ...            before ({args.before})           after (docs/layout.md's steps)")
    stage = {name: len(changed_files(c)) for name, c in STAGE_COMMITS.items()}
    family = {name: len(changed_files(c)) for name, c in FAMILY_COMMITS.items()}
    fmt = {name: len(set().union(*(changed_files(c, name) for c in cs))) for name, cs in FORMAT_COMMITS.items()}
    for label, measured, heading in (("a stage", stage, "Adding a stage"), ("a metric family", family,
                                     "Adding a metric family"), ("a release format", fmt, "Adding a release format")):
        steps = documented_steps(heading)
        shown = ", ".join(f"{k} {v}" for k, v in measured.items())
        print(f"  {label:<32} {shown:<32} {len(steps)}: {', '.join(steps)}")
    print("\ndefinitions of                     before  after")
    for kind in PATTERNS:
        print(f"  {kind:<32} {len(before['definitions'][kind]):>6}  {len(after['definitions'][kind]):>5}")
        for where in before["definitions"][kind]:
            print(f"      before: {where}")
        for where in after["definitions"][kind]:
            print(f"      now:    {where}")
    print("\n                                   before                               after")
    print(f"  largest module (lines)           {before['largest'][1]:>4} {before['largest'][0]:<31} "
          f"{after['largest'][1]:>4} {after['largest'][0]}")
    print(f"  most parameters of a function    {before['widest'][1]:>4} {before['widest'][0]:<31} "
          f"{after['widest'][1]:>4} {after['widest'][0]}")


if __name__ == "__main__":
    main()
