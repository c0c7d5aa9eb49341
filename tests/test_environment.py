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


def test_check_only_packages_named_in_environment_yml_have_the_test_extras_bounds():
    """environment.yml's header names the check-only packages (pyproject.toml's ``test`` extra,
    not installed by conda) where a bound matters; each bound it gives is the extra's."""
    extra = dict(_norm(s) for s in tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["test"])
    header = " ".join(l.lstrip("# ") for l in (REPO / "environment.yml").read_text().splitlines() if l.startswith("#"))
    named = dict(_norm(m) for m in re.findall(r"[A-Za-z][A-Za-z0-9_.-]*(?:[<>=!~]=?[0-9][0-9.]*,?)+", header))
    assert {"pingouin", "scikit-learn", "hypothesis"} <= set(named)
    for name, bounds in named.items():
        assert extra.get(name) == bounds.rstrip(","), (name, bounds, extra.get(name))
