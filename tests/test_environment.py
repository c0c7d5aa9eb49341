"""environment.yml (conda) and pyproject.toml (pip) name the same packages and version bounds."""
import re
import tomllib

import yaml

from conftest import REPO


def _norm(spec: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*(.*)$", spec)
    return m[1].lower().replace("_", "-"), m[2].replace(" ", "")


def test_conda_and_pip_agree():
    pip = dict(_norm(s) for s in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    env = yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"]
    conda = dict(_norm(s) for s in env if isinstance(s, str) and not s.startswith(("python", "pip")))
    for sub in (s for s in env if isinstance(s, dict)):
        conda.update(_norm(s) for s in sub["pip"] if not s.startswith("-"))
    assert conda == pip
