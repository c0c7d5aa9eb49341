"""profiles/slurm on a real (one-node) SLURM cluster: the tiny data set run through
snakemake-executor-plugin-slurm gives results byte-identical to a local run.

The cluster (tests/slurm/cluster.py) is started on this machine for the test and stopped after it;
it needs root and Debian's slurmctld, slurmd, slurm-client and munge. Without them the test skips,
except in CI (METAEVAL_REQUIRE_REFERENCE=1), where it fails. The cluster has no accounting
database (no slurmdbd): `sacct` answers "accounting storage is disabled", so the plugin is told to
read job states from `squeue` (--slurm-status-command squeue; the cluster keeps finished jobs
visible to squeue for MinJobAge=600 s), and account validation finds no accounts (sacctmgr fails,
sshare lists none) and submits with the given account unchecked."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SCENARIOS, job_counts, scenario_config, snakemake
from reference import require
from slurm.cluster import local_cluster, unavailable

pytestmark = pytest.mark.workflow

PROFILE = REPO / "profiles" / "slurm"


def tiny_workdir(path: Path) -> Path:
    """A working directory for the operations scenario restricted to the tiny data set."""
    cfg = scenario_config("operations.yaml")
    cfg["datasets"] = {"tiny": cfg["datasets"]["tiny"]}
    shutil.copytree(SCENARIOS / "input", path / "input")
    (path / "config").mkdir(parents=True)
    (path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    return path


def default_resources(partition: str) -> list[str]:
    """The profile's default resources with the cluster's partition and an account (any name: the
    cluster does not check accounts). On the command line they replace the profile's whole list."""
    resources = yaml.safe_load((PROFILE / "config.yaml").read_text())["default-resources"]
    resources.update(slurm_account="metaeval", slurm_partition=partition)
    return [f"{k}={v}" for k, v in resources.items()]


def digests(workdir: Path) -> dict[str, str]:
    """SHA-256 of every file under results/ but the jobs' logs."""
    base = workdir / "results"
    return {p.relative_to(base).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(base.rglob("*")) if p.is_file() and "logs" not in p.relative_to(base).parts}


def test_slurm_profile_on_a_local_cluster_matches_a_local_run(tmp_path):
    plugin = importlib.util.find_spec("snakemake_executor_plugin_slurm")
    require(None if plugin else "not installed", "snakemake-executor-plugin-slurm")
    require(unavailable(), "a one-node SLURM cluster")

    local = tiny_workdir(tmp_path / "local")
    counts = job_counts(snakemake(local, "--cores", "2").stderr)
    cluster_jobs = sum(counts.values()) - counts.pop("all")  # the target rule runs where snakemake runs

    remote = tiny_workdir(tmp_path / "slurm")
    # the job scripts run `python -m snakemake` on the node with the submitting environment
    # (sbatch --export=ALL): this interpreter's bin folder first on PATH, like an activated venv
    env_bin = str(Path(sys.executable).parent)
    with local_cluster(cpus=2) as cluster:
        env = {**cluster.env, "PATH": env_bin + os.pathsep + cluster.env["PATH"]}
        start = time.monotonic()
        cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(remote),
               "--profile", str(PROFILE), "--default-resources", *default_resources(cluster.partition),
               # no accounting database: job states from squeue; the first status check 3 s after
               # a submission (the plugin's default, 40 s, would make the run minutes longer)
               "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "3",
               "--slurm-keep-successful-logs"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        except subprocess.TimeoutExpired as e:
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
            pytest.fail(f"snakemake timed out:\n{err[-6000:]}\njobs: {cluster.jobs()}\n{cluster.logs(15)}")
        elapsed = time.monotonic() - start
        jobs = cluster.jobs()
        detail = f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}\njobs: {jobs}\n{cluster.logs(15)}"
        assert proc.returncode == 0, detail
    print(f"workflow through SLURM: {elapsed:.0f} s, {len(jobs)} jobs:", *jobs, sep="\n")
    # every job but the target ran on the cluster, once, and completed, with the run time and
    # memory of its rule's resources
    assert len(jobs) == cluster_jobs and all(j.split()[1] == "COMPLETED" for j in jobs), detail
    assert all(j.split()[2] != "UNLIMITED" and j.split()[3] != "0" for j in jobs), detail
    assert len(list((remote / ".snakemake/slurm_logs").rglob("*.log"))) == cluster_jobs

    expected, got = digests(local), digests(remote)
    assert "tiny/scores/system_scores.tsv" in expected and "tiny/report.html" in expected
    assert got.keys() == expected.keys()
    assert [k for k in expected if got[k] != expected[k]] == []

