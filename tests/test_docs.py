"""The documentation cannot drift from what it documents.

- README.md opens with the two set-up commands (``.ci/run`` greps the second one) and stays short;
- every relative link (and #anchor) in README.md, docs/*.md and config/README.md resolves;
- config/README.md documents every section and key of the config schema with the schema's default,
  and nothing the schema lacks;
- every command the README's ``bash`` blocks show parses: each ``snakemake`` invocation runs as a dry
  run (``-n``) in a temporary copy of the repository, with the config files the README shows.

The expectations come from the files themselves (the schema, the file system, Snakemake), never
from the documentation's own claims."""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, copy_repository, require_workflow_marker, shared_dataset

README = REPO / "README.md"
CONFIG_README = REPO / "config" / "README.md"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
DOCS = [README, CONFIG_README, *sorted((REPO / "docs").glob("*.md"))]

# The two commands as they were before the README was rewritten, byte for byte.
MAIN_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/snakemake --cores 2"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest"
CI_PATTERN = r"^python3 -m venv .venv && .*\[test\].* -m pytest"  # .ci/run's grep

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, everything but letters, digits, ``_``,
    ``-`` and spaces dropped, spaces turned into ``-``."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = "".join(c for c in text if c.isalnum() or c in "_- ")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for line in text.splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*$", line)
        if m:
            base, n = slug(m.group(1)), 0
            name = base
            while name in out:  # GitHub numbers repeated headings
                n += 1
                name = f"{base}-{n}"
            out.add(name)
    return out


def links(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return LINK.findall(text)


# -------------------------------------------------------------------------------- the README itself

def test_readme_opens_with_the_two_commands_and_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    commands = [l for l in lines if l.startswith("python3 -m venv .venv && ")]
    assert commands == [MAIN_COMMAND, TEST_COMMAND]
    assert lines.index(MAIN_COMMAND) < 10 and lines.index(TEST_COMMAND) < 15
    found = [l for l in lines if re.match(CI_PATTERN, l)]
    assert found[0] == TEST_COMMAND


def test_no_command_or_config_of_the_docs_names_a_path_only_the_projects_machines_have():
    """A user's clone has nothing beside it: no command, config or code the README or the docs show
    (a fenced block, or an inline command or config) names ../shared or the copies in it."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        blocks = [body for _, body in FENCE.findall(text)]
        inline = [c for c in re.findall(r"`([^`\n]+)`", FENCE.sub("", text))
                  if re.search(r"snakemake|--config|\bpaths?:|format:", c)]
        found += [f"{doc.relative_to(REPO)}: {piece[:80]!r}" for piece in blocks + inline if "shared/data" in piece
                  or "../shared" in piece]
    # nor does a config file of the repository that the README's commands name
    named = {f for c in readme_commands() for f in config_files_of(c) if (REPO / f).is_file()}
    assert ".test/config/benchmarks.yaml" in named
    found += [f for f in sorted(named) if "shared/data" in (REPO / f).read_text(encoding="utf-8")]
    assert not found, "\n".join(found)


def test_every_guide_is_linked_from_the_readme():
    targets = {(README.parent / t.split("#")[0]).resolve() for t in links(README) if not t.startswith("#")}
    for doc in DOCS[1:]:
        assert doc.resolve() in targets, doc


# -------------------------------------------------------------------------------- links

@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve(doc):
    if doc in (README, CONFIG_README):
        assert links(doc), f"{doc} has no links at all: the link pattern is broken"
    for target in links(doc):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        assert dest.exists(), f"{doc.relative_to(REPO)}: link {target} -> {dest} does not exist"
        assert REPO in dest.parents or dest == REPO, f"{doc.relative_to(REPO)}: {target} leaves the repository"
        if anchor:
            assert dest.suffix == ".md", f"{doc.relative_to(REPO)}: {target}: an anchor into a non-Markdown file"
            assert anchor in anchors(dest), (f"{doc.relative_to(REPO)}: {target}: no heading #{anchor} in "
                                             f"{dest.relative_to(REPO)}; it has {sorted(anchors(dest))}")


def test_slug_is_githubs():
    # headings of this repository and the anchors GitHub gives them (read off github.com's rendering rules)
    assert slug("Human scores, correlations and Williams tests (Graham 2015 §3, §4, §6)") == \
        "human-scores-correlations-and-williams-tests-graham-2015-3-4-6"
    assert slug("metric_scores.tsv (optional; a metaeval extension of the shared contract)") == \
        "metric_scorestsv-optional-a-metaeval-extension-of-the-shared-contract"
    assert slug("ROUGE's stemming table (`rouge.stemmer_exceptions`)") == "rouges-stemming-table-rougestemmer_exceptions"


# -------------------------------------------------------------------------------- config/README.md

def schema_keys() -> dict[str, dict[str, object]]:
    """Every section of the schema with its keys and their defaults (``datasets``: the keys an entry
    of any format may have)."""
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    out: dict[str, dict[str, object]] = {}
    for name in schema["properties"]:
        if name == "datasets":
            keys: dict[str, object] = {}
            formats = defs["dataset"]["properties"]["format"]["enum"]
            for fmt in formats:
                for key, spec in defs[fmt]["properties"].items():
                    keys.setdefault(key, spec.get("default", "—"))
            for key in defs["entry_options"]["properties"]:
                keys.setdefault(key, "—")
            out[name] = keys
        elif "properties" in defs.get(name, {}):
            out[name] = {k: v.get("default") for k, v in defs[name]["properties"].items()}
        else:   # a top-level key that is no section (metric_scores, metrics): its own one-row table
            out[name] = {name: schema["properties"][name].get("default")}
    return out


def documented_keys() -> dict[str, dict[str, str]]:
    """The sections of config/README.md (``## `name` ``) and the first two cells of each key row."""
    out: dict[str, dict[str, str]] = {}
    section = None
    for line in CONFIG_README.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^## `(\w+)`\s*$", line)
        if m:
            section = m.group(1)
            assert section not in out, f"section {section} twice"
            out[section] = {}
            continue
        if line.startswith("## "):
            section = None
            continue
        m = re.match(r"^\| `(\w+)` \|(.*)\|\s*$", line)
        if m and section:
            cells = [c.strip() for c in m.group(2).split(" | ")]
            assert m.group(1) not in out[section], f"{section}.{m.group(1)} twice"
            # datasets: | key | formats | default | ...; others: | key | default | ...
            out[section][m.group(1)] = cells[1] if section == "datasets" else cells[0]
    return out


def shown(default: object) -> str:
    if default == "—" or default == "required":
        return str(default)
    return "`" + yaml.safe_dump(default, default_flow_style=True, width=10_000).strip().removesuffix("...").strip() + "`"


def test_config_readme_documents_every_section_and_key_of_the_schema():
    schema, docs = schema_keys(), documented_keys()
    assert list(docs) == list(schema), "sections: documented vs schema"
    for section, keys in schema.items():
        assert set(docs[section]) == set(keys), (
            f"{section}: undocumented {sorted(set(keys) - set(docs[section]))}, "
            f"not in the schema {sorted(set(docs[section]) - set(keys))}")


def test_config_readme_shows_the_schemas_defaults():
    schema, docs = schema_keys(), documented_keys()
    required = {"format", "path", "paths"}
    for section, keys in schema.items():
        for key, default in keys.items():
            want = "required" if section == "datasets" and key in required else shown(default)
            assert docs[section][key] == want, f"{section}.{key}: documented {docs[section][key]}, schema {want}"


def test_every_section_says_what_a_change_reruns():
    text = CONFIG_README.read_text(encoding="utf-8")
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        if block.startswith("`"):
            assert "\nRe-runs: " in block, block.splitlines()[0]
    rerun_table = text.split("## What a change re-runs", 1)[1].split("\n## ", 1)[0]
    for section, keys in schema_keys().items():
        row = f"`{section}`" if list(keys) == [section] else f"`{section}."   # a top-level key, or a section's keys
        assert row in rerun_table, f"the re-run table has no row for {section}"


# -------------------------------------------------------------------------------- the README's commands

def readme_blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(README.read_text(encoding="utf-8"))]


def readme_commands() -> list[str]:
    """Every snakemake invocation of the README's bash blocks (the part after the last ``&&``)."""
    out = []
    for lang, body in readme_blocks():
        if lang != "bash":
            continue
        for line in body.splitlines():
            step = line.split("&&")[-1].strip()
            if re.match(r"^(\.venv/bin/)?snakemake\b", step):
                out.append(step)
    return out


def readme_config_files() -> dict[str, str]:
    """The README's yaml blocks whose first line names them (``# my.yaml — ...``)."""
    out = {}
    for lang, body in readme_blocks():
        m = re.match(r"^# (\S+\.ya?ml)\b", body)
        if lang == "yaml" and m:
            out[m.group(1)] = body
    return out


def config_files_of(command: str) -> list[str]:
    """The file names a snakemake command gives ``--configfile`` (it takes every word up to the next
    option)."""
    words = shlex.split(command)
    if "--configfile" not in words:
        return []
    rest = words[words.index("--configfile") + 1:]
    return [w for w in rest[:next((i for i, w in enumerate(rest) if w.startswith("-")), len(rest))]]


def test_readme_shows_the_commands_of_the_four_tasks():
    commands = readme_commands()
    assert ".venv/bin/snakemake --cores 2" in commands
    assert any("my.yaml" in config_files_of(c) for c in commands)
    assert any(".test/config/benchmarks.yaml" in config_files_of(c) for c in commands)
    assert any(c.split()[-1] == "to_score" or " to_score " in c for c in commands)
    assert any(c.endswith(" archive") for c in commands)
    for name in readme_config_files():
        assert any(name in config_files_of(c) for c in commands), name


@pytest.mark.workflow
def test_readme_commands_parse_as_dry_runs(tmp_path):
    files = readme_config_files()
    commands = readme_commands()
    texts = {c: c + "".join(files[f] for f in files if f in c) for c in commands}
    for c in commands:  # config files named by the command: the README's, or the repository's
        for f in re.findall(r"--configfile (\S+)", c):
            if f not in files:
                texts[c] += (REPO / f).read_text(encoding="utf-8")
    needed = sorted({n for t in texts.values() for n in re.findall(r"\.\./shared/data/(\w+)", t)})
    for name in needed:  # skipped where ../shared/data is absent, failed in CI
        shared_dataset(name)
    root = copy_repository(tmp_path / "metaeval")
    if needed:
        (tmp_path / "shared").symlink_to(REPO.parent / "shared")  # ../shared/data as seen from the copy
    for name, body in files.items():
        (root / name).write_text(body, encoding="utf-8")
        # the user's own score file (README task 1): here without rows, its header only
        for scores in re.findall(r"^metric_scores: \[(\S+?)\]", body, re.M):
            (root / scores).write_text("dataset\ttopic\tsummarizer\tmetric\tscore\n", encoding="utf-8")
    procs = {}
    for c in commands:
        args = shlex.split(c)
        assert args[0] in ("snakemake", ".venv/bin/snakemake")
        require_workflow_marker("snakemake")
        procs[c] = subprocess.Popen([sys.executable, "-m", "snakemake", *args[1:], "-n", "--quiet", "rules"],
                                    cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for c, proc in procs.items():
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{c}\n{out}"
        assert re.search(r"^\s*total\s+\d+", out, re.M) or "Nothing to be done" in out, f"{c}\n{out}"
    assert not (root / "results").exists()  # a dry run writes no result
