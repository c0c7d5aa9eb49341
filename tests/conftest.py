"""Shared test helpers: the repository, the scenarios in .test/ (configs and the tiny data set are
files there, in the snakemake-workflows style), the real data sets in ../shared/data (skipped when
absent), running snakemake in a temporary directory, and the small scenario run once per session."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SCENARIOS = REPO / ".test"
TINY = SCENARIOS / "input" / "tiny"

TINY_YAML = (TINY / "dataset.yaml").read_text(encoding="utf-8")
TINY_JUDGMENTS = (TINY / "judgments.tsv").read_text(encoding="utf-8")

# The test being set up or run, so that running snakemake can check the test is marked for it
# (the fast tier, ``-m "not workflow and not reference"``, must run no snakemake: docs/scale.md).
_CURRENT: list[pytest.Item] = []


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Called before the item's fixtures are set up (this conftest's hook runs before pytest's own)."""
    _CURRENT[:] = [item]


def require_workflow_marker(what: str) -> None:
    """Fail a test that runs snakemake (itself or through a fixture) without the ``workflow`` marker."""
    if _CURRENT and _CURRENT[0].get_closest_marker("workflow") is None:
        raise AssertionError(f"{_CURRENT[0].nodeid} runs {what} but is not marked workflow "
                             "(pytest.mark.workflow: the fast tier leaves such tests out)")


def shared_dataset(name: str) -> Path:
    """A real data set (or release file) from ../shared/data, or skip the test cleanly when it is
    not there — except in CI (METAEVAL_REQUIRE_REFERENCE=1), which has them: there it fails."""
    from reference import require

    path = SHARED_DATA / name
    if not path.exists():
        require(f"{path} is not available", "the real data of ../shared/data")
    return path


def release_entry(name: str) -> dict:
    """A benchmark of the catalog as a data set entry of the user's own, its paths those of the copies
    of its release files in ../shared/data/raw (tests/mirror.py): the importer on the release, without
    a fetch. Skipped (failed in CI) where the copies are absent."""
    from mirror import local_entry

    return local_entry(name, shared_dataset("raw"))


def copy_repository(dest: Path) -> Path:
    """The repository's files as a fresh clone has them (no results, no environment), at ``dest``."""
    ignore = shutil.ignore_patterns(".git", ".venv", "results", ".snakemake", "__pycache__", "*.egg-info",
                                    ".pytest_cache", "resources")
    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


@pytest.fixture(scope="session")
def loopback_mirror(tmp_path_factory):
    """The benchmarks' release files served from 127.0.0.1 (tests/mirror.py: the copies of
    ../shared/data/raw laid out as a mirror): (its URL, its behaviour: requests counted, misbehaviour
    on request). Skipped (failed in CI) where the copies are absent."""
    import mirror

    shared_dataset("raw")
    root = mirror.build(tmp_path_factory.mktemp("mirror"))
    with mirror.serve(root) as served:
        yield served


def tiny_records() -> list[dict]:
    """The tiny data set's summary records (.test/input/tiny/summaries.jsonl), to vary in a test."""
    return [json.loads(l) for l in (TINY / "summaries.jsonl").read_text(encoding="utf-8").splitlines()]


def write_tiny(folder: Path, records: list[dict] | None = None, judgments: str | None = None,
               yaml_text: str | None = None) -> Path:
    """The tiny data set in ``folder``, with any of its three files replaced."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copytree(TINY, folder, dirs_exist_ok=True)
    if yaml_text is not None:
        (folder / "dataset.yaml").write_text(yaml_text)
    if records is not None:
        (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    if judgments is not None:
        (folder / "judgments.tsv").write_text(judgments)
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_tiny(tmp_path / "tiny")


def merge(base: dict, extra: dict | None) -> dict:
    """``extra`` merged into a copy of ``base``, mappings recursively (as snakemake merges --configfile)."""
    out = copy.deepcopy(base)
    for k, v in (extra or {}).items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


def scenario_config(name: str = "config.yaml") -> dict:
    return yaml.safe_load((SCENARIOS / "config" / name).read_text(encoding="utf-8"))


def scenario(workdir: Path, name: str = "config.yaml", extra: dict | None = None) -> dict:
    """Set up a working directory for a scenario of .test/: its inputs and, as config/config.yaml,
    the scenario's config (with ``extra`` merged in). Returns the config."""
    shutil.copytree(SCENARIOS / "input", workdir / "input", dirs_exist_ok=True)
    cfg = merge(scenario_config(name), extra)
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    return cfg


def snakemake(workdir: Path, *args: str, check: bool = True, env: dict | None = None,
              snakefile: Path = REPO / "Snakefile") -> subprocess.CompletedProcess:
    require_workflow_marker("snakemake")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "-d", str(workdir), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run, as {rule: count}."""
    if "Job stats:" not in dry_run_output:
        return {}
    lines = dry_run_output.split("Job stats:")[1].splitlines()
    counts = {}
    for line in lines[3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts


def simulation(**overrides):
    """The simulated data set's parameters: the schema's defaults with ``overrides``."""
    from metaeval.options import Options

    opts = Options.from_config({"datasets": {"sim": {"format": "simulated", **overrides}}})
    return opts.simulation("sim")


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> Path:
    """The small scenario (.test/config/config.yaml), run once: its working directory."""
    workdir = tmp_path_factory.mktemp("small")
    scenario(workdir)
    snakemake(workdir, "--cores", "2")
    return workdir
