"""Bad inputs and configs, one scenario folder each under .test/bad/: the case's files overlay a
scenario of .test/ (its config merged in), snakemake runs as the case says, and the run must fail
with the exact message, where the case says, leave none of the listed outputs, and change none of
the user's files."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import SCENARIOS, scenario, snakemake

pytestmark = pytest.mark.workflow
CASES = sorted(p for p in (SCENARIOS / "bad").iterdir() if (p / "case.yaml").is_file())


def checksums(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "input").rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_fails_early_with_its_message(case, tmp_path):
    spec = yaml.safe_load((case / "case.yaml").read_text(encoding="utf-8"))
    scenario(tmp_path, spec.get("scenario", "config.yaml"), spec.get("config"))
    for f in case.rglob("*"):
        if f.is_file() and f.name != "case.yaml":
            target = tmp_path / f.relative_to(case)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, target)
    before = checksums(tmp_path)
    proc = snakemake(tmp_path, *spec.get("run", ["--cores", "1"]), check=False)
    expect = spec["expect"]
    assert proc.returncode != 0, proc.stdout + proc.stderr
    where = expect.get("in")
    text = (tmp_path / where).read_text(encoding="utf-8") if where else proc.stdout + proc.stderr
    assert expect["message"] in text, text[-3000:]
    for path in expect.get("absent", []):
        assert not (tmp_path / path).exists(), path
    assert checksums(tmp_path) == before       # the user's files are only ever read
