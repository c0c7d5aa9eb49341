"""The stage registry (metaeval.registry) and what is derived from it: every declaration resolves,
the hand-written places that name stages agree with it, the house stays small, and a new analysis
stage added the way docs/layout.md says runs through snakemake to the report."""
from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
from operator import attrgetter
from pathlib import Path

import pytest
import yaml

from conftest import REPO, job_counts, scenario, snakemake
from metaeval import outputs, registry
from metaeval.files import between_markers
from metaeval.options import SCORE_KEYS, SECTIONS, Options, load_schema
from metaeval.provenance import import_closure

LAYOUT = REPO / "docs" / "layout.md"
LIBRARY = REPO / "src" / "metaeval"
MAX_MODULE_LINES = 600
MAX_PARAMETERS = 8


def defaults() -> Options:
    return Options.from_config({"datasets": {"d": {"format": "simulated"}}})


# --------------------------------------------------------------------------- declarations resolve

def test_every_declaration_resolves():
    schema = load_schema()["properties"]
    options = defaults()
    for s in registry.STAGES:
        assert (REPO / "rules" / f"{s.rules_file}.smk").is_file(), s.name
        assert s.module and (LIBRARY.joinpath(*s.module.split(".")).with_suffix(".py")).is_file(), s.name
        assert all(section in schema for section in s.sections), s.name
        if s.record:
            assert isinstance(options.record(s.name), registry.hook(s.record)), s.name
        for path in s.expand.values():
            assert list(attrgetter(path)(options)), path
        for hook in (s.answer, s.methods):
            assert hook is None or callable(registry.hook(hook)), hook
        assert set(s.context) <= set(s.files), s.name
        for section in s.report:
            assert all(i.key in registry.stage(i.stage).files for i in section.items), section.title
        if s.reads:
            assert s.script is None or (REPO / "workflow" / "scripts" / f"{s.script}.py").is_file(), s.name
            for item in s.reads:
                assert item == registry.ANALYSIS_INPUTS or item.split(":")[1] in registry.stage(item.split(":")[0]).files


def test_the_resolved_config_holds_the_sections_the_stages_read():
    resolved = defaults().resolved("d")
    # the top-level score files and metric declarations serve every data set
    assert set(resolved) == {"datasets", *SCORE_KEYS, *SECTIONS} and set(SCORE_KEYS) == {"metric_scores", "metrics"}
    # every section of the schema but the data sets, the top-level score files and declarations
    # (resolved apart), the catalog's benchmarks (each a data set entry) and where their files come
    # from, the resources and the runs across or beside the data sets (the schema's sections, not the
    # registry's: a new stage's section is in both)
    assert set(SECTIONS) == set(load_schema()["properties"]) - {"datasets", *SCORE_KEYS, "benchmarks",
                                                                "benchmarks_mirror", "scale", "across",
                                                                "leaderboard", "delta", "calibration"}


def test_final_targets_follow_each_stages_switch_and_needs():
    values = {"human.combinations": ["arithmetic"], "statistics.permutation_combinations": ["arithmetic"]}
    everything = outputs.final("d", values, lambda s: True)
    assert "results/d/statistics/permutation_arithmetic.tsv" in everything
    assert "results/d/scores/system_scores.tsv" in everything
    assert "results/d/scores/scoring_signature.txt" not in everything      # scores' final keys only
    off = {"statistics": {"enabled": False}, "annotators": {"enabled": False}}
    config = {**{k: {"enabled": True} for k in ("chrf", "sera", "soft_pairwise")}, **off}
    score_only = outputs.final("d", values, lambda s: registry.applies(s, config, texts=False))
    assert not [p for p in score_only if "/statistics/" in p or "/annotators/" in p or "/sweeps/" in p
                or "/intervals/" in p]
    assert "results/d/factuality/answer.tsv" in score_only and "results/d/report.html" in score_only


# --------------------------------------------------------------------------- what names stages agrees with it

def test_docs_stage_table_is_the_registrys():
    assert between_markers(LAYOUT, "registry:stages") == registry.markdown_table()


def test_snakefile_floor_plan_names_the_registrys_rules_files():
    text = (REPO / "Snakefile").read_text(encoding="utf-8")
    named = re.findall(r"^#   (\w+)\.smk", text, flags=re.M)
    assert named == ["common", *registry.rules_files()]
    assert sorted(p.stem for p in (REPO / "rules").glob("*.smk")) == sorted(named)


def test_rules_files_do_not_number_their_stages():
    for path in (REPO / "rules").glob("*.smk"):
        assert not re.match(r"# Stage \d", path.read_text(encoding="utf-8")), path


def test_config_readme_navigation_names_every_section():
    text = (REPO / "config" / "README.md").read_text(encoding="utf-8")
    nav = next(line for line in text.split("\n\n") if line.startswith("Sections: "))
    linked = re.findall(r"\[(\w+)\]\(#", nav)
    assert set(load_schema()["properties"]) <= set(linked), set(load_schema()["properties"]) - set(linked)


def test_a_generic_doors_code_version_covers_the_stage_module():
    closure = import_closure(REPO / "workflow/scripts/analysis_stage.py", ("metaeval.stages.agreement",))
    assert LIBRARY / "stages" / "agreement.py" in closure and LIBRARY / "stats" / "verdicts.py" in closure
    assert LIBRARY / "stages" / "agreement.py" not in import_closure(REPO / "workflow/scripts/analysis_stage.py")


def test_every_door_starts_warm_first():
    """Each door hands itself to the fork server before it imports anything heavy
    (metaeval.forkserver): its first statements after the docstring are the import and the call."""
    for script in sorted((REPO / "workflow" / "scripts").glob("*.py")):
        body = ast.parse(script.read_text(encoding="utf-8")).body[1:3]
        assert [ast.unparse(node) for node in body] == ["from metaeval.forkserver import run_warm", "run_warm()"], script


# --------------------------------------------------------------------------- the house stays small

def _functions(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + [
                x.arg for x in (a.vararg, a.kwarg) if x is not None]
            if names and names[0] in ("self", "cls"):
                names = names[1:]
            yield node, len(names)


def _numba_kernel(node: ast.FunctionDef) -> bool:
    return any("numba" in ast.unparse(d) for d in node.decorator_list)


def python_files() -> list[Path]:
    return sorted([*LIBRARY.rglob("*.py"), *(REPO / "workflow" / "scripts").glob("*.py")])


def _rule_graph(workdir: Path, *targets: str) -> tuple[dict[str, set[str]], set[str]]:
    """The rule graph of a dry run (``--rulegraph``): every job rule's successors, and the rules."""
    dot = snakemake(workdir, *targets, "--rulegraph", "dot").stdout
    label = dict(re.findall(r'(\d+)\[label = "([^"]+)"', dot))
    jobs = set(registry.job_rules())
    after: dict[str, set[str]] = {label[n]: set() for n in label if label[n] in jobs}
    for a, b in re.findall(r"(\d+) -> (\d+)", dot):
        if label[a] in jobs and label[b] in jobs:
            after[label[a]].add(label[b])
    return after, set(after)


@pytest.mark.workflow
@pytest.mark.parametrize("targets", [(), ("calibration",), ("archive",), ("to_score",)])
def test_priorities_start_the_longest_chain_of_waiting_jobs_first(tmp_path, targets):
    """Of two rules whose jobs can run at the same time (neither waits on the other), the one with the
    longer chain of jobs waiting on it, one after another, has the higher priority; and a job's
    priority is above every job that waits on it. Chains counted on the rule graph of the small
    scenario's main job, its calibration, its archive and its texts out."""
    scenario(tmp_path)
    after, rules = _rule_graph(tmp_path, *targets)
    assert {"correlate", "statistics", "gather_scores"} <= rules or targets

    def reach(r: str) -> set[str]:
        out, todo = set(), list(after[r])
        while todo:
            n = todo.pop()
            if n not in out:
                out.add(n)
                todo.extend(after[n])
        return out

    def chain(r: str) -> int:
        return max((1 + chain(n) for n in after[r]), default=0)

    reachable = {r: reach(r) for r in rules}
    for u in rules:
        for v in after[u]:
            assert registry.rule_priority(u) > registry.rule_priority(v), (u, v)
        for v in rules:
            if v in reachable[u] or u in reachable[v] or chain(u) <= chain(v):
                continue
            assert registry.rule_priority(u) > registry.rule_priority(v), (u, chain(u), v, chain(v))
    # chains as long: the heavier job first (Stage.weight)
    if not targets:
        assert chain("agreement") == chain("rerank")
        assert registry.rule_priority("agreement") > registry.rule_priority("rerank")


def test_no_module_over_the_line_limit():
    long = {p.relative_to(REPO).as_posix(): n for p in python_files()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long


# Numba kernels are exempt: a compiled kernel takes flat arrays and scalars (no records), and each of
# these is called by one wrapper of few parameters.
NUMBA_EXEMPT = {("src/metaeval/metrics/rouge.py", "_lcs_pairs"), ("src/metaeval/metrics/rouge.py", "_aggregate")}


def test_no_function_over_the_parameter_limit():
    wide, kernels = [], set()
    for path in python_files():
        for node, count in _functions(path):
            if count > MAX_PARAMETERS:
                where = (path.relative_to(REPO).as_posix(), node.name)
                (kernels.add(where) if _numba_kernel(node) else wide.append((*where, count)))
    assert not wide
    assert kernels <= NUMBA_EXEMPT


# --------------------------------------------------------------------------- adding a stage, as the docs say

TOY_MODULE = '''"""A toy analysis stage: how many summaries of each summarizer the humans judged."""
from __future__ import annotations

from typing import NamedTuple

import pandas as pd

from .. import tables


class ToyOptions(NamedTuple):
    minimum: int


def load(inputs, options):
    return tables.read_tsv(inputs["summaries"])


def compute(human, options):
    counts = human.groupby("summarizer").size().reset_index(name="judged")
    return counts[counts["judged"] >= options.minimum]


# the report's caption of counts.tsv, next to the code that writes it (the registry names it)
COUNTS_CAPTION = "Toy: the counts as a table."


def write(result, options, outputs):
    tables.write_tsv(result, outputs["counts"])
    tables.write_markdown(outputs["counts_md"], f"Toy: judged summaries per summarizer (at least {options.minimum}).",
                          ["summarizer", "judged"], [[str(a), str(b)] for a, b in result.itertuples(index=False)])


def methods(config):
    return [f"Toy stage: summarizers with at least {config['toy']['minimum']} judged summaries."]
'''

TOY_ENTRY = '''    Stage("toy", {"counts": "toy/counts.tsv", "counts_md": "toy/counts.md"}, "a toy stage",
          rules_file="analysis", module="stages.toy", sections=("toy",), record="metaeval.stages.toy:ToyOptions",
          final=True, reads=("human:summaries",), category="Toy", methods="metaeval.stages.toy:methods",
          report=(ReportSection("Toy section", (ReportItem("toy", "counts_md"),
                                                ReportItem("toy", "counts", "metaeval.stages.toy:COUNTS_CAPTION"))),)),
'''

TOY_TEST = '''from metaeval.stages import toy


def test_counts():
    import pandas as pd
    frame = pd.DataFrame({"summarizer": ["a", "a", "b"]})
    assert toy.compute(frame, toy.ToyOptions(2)).to_dict("records") == [{"summarizer": "a", "judged": 2}]
'''


FAMILY_MODULE = '''"""A toy metric family: a summary's length in words (its job: metaeval.stages.words)."""
from __future__ import annotations

from .family import MeanMedianFamily


class Words(MeanMedianFamily):
    name = signature_kind = stage = "words"
    needs_texts = True

    def owns_metric(self, metric):
        return metric == "WORDS"


def words(sentences, per_sentence):
    n = len(" ".join(sentences).split())
    return n / len(sentences) if per_sentence and sentences else float(n)
'''

FAMILY_STAGE = '''"""The toy metric family's job: every judged summary's length in words (metaeval.metrics.words)."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from .. import tables
from ..data.canonical_files import read_summaries
from ..files import write_text
from ..metrics.words import words


class WordsOptions(NamedTuple):
    per_sentence: bool


def load(inputs, options):
    return read_summaries(Path(inputs["summaries"]))


def compute(summaries, options):
    return [(s.topic, s.summarizer, "WORDS", words(s.sentences, options.per_sentence)) for s in summaries]


def write(rows, options, outputs):
    tables.write_tsv(tables.frame(rows, ["topic", "summarizer", "metric", "score"]), outputs["scores"])
    write_text(outputs["signature"], f"words|per_sentence:{options.per_sentence}\\n")
'''

FAMILY_ENTRY = '''    Stage("words", {"scores": "scores/words_scores.tsv", "signature": "scores/words_signature.txt"},
          "a toy metric family", kind="scoring", rules_file="analysis", module="stages.words", sections=("words",),
          record="metaeval.stages.words:WordsOptions", needs=("texts",), reads=("data:summaries",)),
'''

FAMILY_TEST = '''from metaeval.data.contract import Summary
from metaeval.stages import words


def test_words():
    s = Summary("T", "1", "system", ("a b .", "c"))
    assert words.compute([s], words.WordsOptions(False)) == [("T", "1", "WORDS", 4.0)]
'''


def documented_steps(heading: str, name: str) -> set[str]:
    """The files docs/layout.md says a new stage or metric family touches, for one named ``name``."""
    section = LAYOUT.read_text(encoding="utf-8").split(f"## {heading}")[1].split("\n## ")[0]
    steps = re.findall(r"^\d\. `([^`]+)`", section, flags=re.M)
    return {s.replace("<stage>", name).replace("<family>", name) for s in steps}


def add_schema_section(schema_path: Path, name: str, key: str, value: dict) -> None:
    schema = yaml.safe_load(schema_path.read_text(encoding="utf-8"))
    schema["properties"][name] = {"$ref": f"#/$defs/{name}", "default": {}}
    schema["$defs"][name] = {"type": "object", "additionalProperties": False, "properties": {key: value}}
    schema_path.write_text(yaml.safe_dump(schema, sort_keys=False), encoding="utf-8")


def add_stage_entry(registry_path: Path, entry: str) -> None:
    text = registry_path.read_text(encoding="utf-8")
    assert text.count("\n)\n# end of STAGES") == 1
    registry_path.write_text(text.replace("\n)\n# end of STAGES", "\n" + entry + ")\n# end of STAGES"), encoding="utf-8")


def add_config_section(repo: Path, name: str, key: str, default: str, what: str) -> None:
    """What docs/layout.md's steps say a new config section needs besides its schema entry: its
    defaults in config/config.yaml, and in config/README.md its section (keys, defaults, what a
    change re-runs), its row of the re-run table and its link in the navigation line."""
    config = repo / "config/config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"\n# {what}\n{name}:\n  {key}: {default}\n",
                      encoding="utf-8")
    readme = repo / "config/README.md"
    text = readme.read_text(encoding="utf-8")
    nav, row = " · [what a change re-runs](#what-a-change-re-runs).", "| `calibration.*` | the calibration jobs only"
    assert text.count(nav) == 1 and text.count(row) == 1
    text = text.replace(nav, f" · [{name}](#{name})" + nav)
    text = text.replace(row, f"| `{name}.*` | `{name}`, `report` | |\n" + row)
    text += (f"\n## `{name}`\n\n{what}.\n\nRe-runs: `{name}`, `report`.\n\n| key | default | what it changes |\n"
             f"|---|---|---|\n| `{key}` | `{default}` | {what} |\n")
    readme.write_text(text, encoding="utf-8")


def regenerate_stage_table(repo: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    subprocess.run([sys.executable, "-m", "metaeval.registry", "--write", str(repo / "docs/layout.md")], env=env,
                   check=True, cwd=repo)


# The tests that check the documentation and the hand-written places against the code: the toy
# stage's copy must pass them, so docs/layout.md's steps name every place a new stage touches.
DOCS_TESTS = ("tests/test_docs.py", "tests/test_foundations.py", "tests/test_registry.py", "tests/test_layers.py",
              "tests/test_formats.py", "tests/test_no_issue_numbers.py")


def tree_hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file()}


COPIED = ("Snakefile", "rules", "workflow", "src", "config", "profiles", "tests", "docs", ".test", "pyproject.toml",
          "environment.yml", "README.md", "benchmarks", ".ci")


@pytest.mark.workflow
def test_a_toy_stage_and_a_toy_metric_family_added_as_the_docs_say_run_to_the_report(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPIED:
        src = REPO / name
        (shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
         if src.is_dir() else shutil.copy2(src, repo / name))
    before = tree_hashes(repo)

    (repo / "src/metaeval/stages/toy.py").write_text(TOY_MODULE, encoding="utf-8")
    add_stage_entry(repo / "src/metaeval/registry.py", TOY_ENTRY)
    add_schema_section(repo / "workflow/schemas/config.schema.yaml", "toy", "minimum",
                       {"type": "integer", "minimum": 1, "default": 1})
    add_config_section(repo, "toy", "minimum", "1", "Toy stage: the judged summaries per summarizer, at least this many")
    regenerate_stage_table(repo)
    (repo / "tests/test_toy.py").write_text(TOY_TEST, encoding="utf-8")
    after = tree_hashes(repo)
    assert {k for k in after if before.get(k) != after[k]} == documented_steps("Adding a stage", "toy")

    # ... and a metric family scored by a job of its own
    (repo / "src/metaeval/metrics/words.py").write_text(FAMILY_MODULE, encoding="utf-8")
    (repo / "src/metaeval/stages/words.py").write_text(FAMILY_STAGE, encoding="utf-8")
    families = repo / "src/metaeval/metrics/families.py"
    text = families.read_text(encoding="utf-8")
    assert text.count("Chrf(), FileMetrics()") == 1
    families.write_text(text.replace("Chrf(), FileMetrics()", "Chrf(), words.Words(), FileMetrics()")
                        .replace("from .family import", "from . import words\nfrom .family import"), encoding="utf-8")
    add_stage_entry(repo / "src/metaeval/registry.py", FAMILY_ENTRY)
    add_schema_section(repo / "workflow/schemas/config.schema.yaml", "words", "per_sentence",
                       {"type": "boolean", "default": False})
    add_config_section(repo, "words", "per_sentence", "false", "Toy metric family: words per sentence, not per summary")
    regenerate_stage_table(repo)
    (repo / "tests/test_words.py").write_text(FAMILY_TEST, encoding="utf-8")
    final = tree_hashes(repo)
    touched = {k for k in final if after.get(k) != final[k]}
    assert touched == documented_steps("Adding a metric family", "words")

    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    # the new tests, and the checks of the documentation and of the hand-written places on the copy
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m",
                           "not workflow and not reference", "tests/test_toy.py", "tests/test_words.py", *DOCS_TESTS],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:]

    work = tmp_path / "work"
    # the tiny data set alone, without the optional scorers, so that the run takes seconds
    scenario(work, extra={"toy": {"minimum": 2}, "sera": {"enabled": False}, "chrf": {"enabled": False},
                          "statistics": {"enabled": False}, "annotators": {"variants": ["top"]}})
    cfg = yaml.safe_load((work / "config/config.yaml").read_text(encoding="utf-8"))
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    (work / "config/config.yaml").write_text(yaml.safe_dump(cfg), encoding="utf-8")
    snakemake(work, "--cores", "2", snakefile=repo / "Snakefile", env=env)

    counts = (work / "results/tiny/toy/counts.tsv").read_text(encoding="utf-8")
    assert counts.splitlines() == ["summarizer\tjudged", "1\t2", "2\t2"]    # .test/input/tiny: 2 topics judged
    report = (work / "results/tiny/report.html").read_text(encoding="utf-8")
    assert "Toy section" in report and "Toy: judged summaries per summarizer (at least 2)." in report
    assert "Toy stage: summarizers with at least 2 judged summaries." in report
    assert "Toy: the counts as a table." in report
    # the family's scores reach the analyses: its variants are correlated like every other metric's
    correlations = (work / "results/tiny/analysis/correlations.tsv").read_text(encoding="utf-8")
    assert "\nWORDS_A\t" in correlations and "\nWORDS_M\t" in correlations
    assert "words|per_sentence:False" in (work / "results/tiny/scores/scoring_signature.txt").read_text()
    dry = snakemake(work, "-n", snakefile=repo / "Snakefile", env=env)
    assert "Nothing to be done" in dry.stdout + dry.stderr
    # a caption sits in the module that writes its file: editing it re-runs that stage and the report only
    toy = repo / "src/metaeval/stages/toy.py"
    toy.write_text(toy.read_text(encoding="utf-8").replace("the counts as a table", "the counts, as a table"),
                   encoding="utf-8")
    dry = snakemake(work, "-n", snakefile=repo / "Snakefile", env=env)
    assert job_counts(dry.stdout) == {"toy": 1, "report": 1, "all": 1}
