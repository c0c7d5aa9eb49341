"""The catalog's fetch jobs in the workflow, against a loopback mirror of the release files
(tests/mirror.py) that misbehaves on request: a tampered file stops the run before any import, a
dropped connection is retried, an unreachable host is named with how to set a mirror, a run killed
mid-file leaves no partial file and the next completes, a folder mirror serves the same, a dry run
fetches nothing, and where the files come from re-runs nothing."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

import mirror
from conftest import REPO, shared_dataset, snakemake
from metaeval.data import catalog

pytestmark = pytest.mark.workflow

RANK19 = catalog.benchmarks()["rank19"].release
FILE = RANK19.files[0]
URL_PATH = f"{RANK19.repository}/{RANK19.commit}/{FILE.path}"


@pytest.fixture(scope="module")
def mirror_folder(tmp_path_factory) -> Path:
    shared_dataset("raw")
    return mirror.build(tmp_path_factory.mktemp("mirror"))


def workdir(tmp_path: Path, config: dict | None = None) -> Path:
    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    (work / "config/config.yaml").write_text(yaml.safe_dump({"benchmarks": ["rank19"], **(config or {})}))
    return work


def env(url: str, cache: Path) -> dict:
    return mirror.environment(url, cache)


def cache_files(cache: Path) -> list[str]:
    return sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file() and ".locks" not in p.parts)


def test_a_tampered_file_stops_the_run_before_any_import(tmp_path, mirror_folder):
    work, cache = workdir(tmp_path), tmp_path / "cache"
    with mirror.serve(mirror_folder, mirror.Behaviour(tamper={URL_PATH})) as (url, _):
        proc = snakemake(work, "--cores", "2", "to_score", env=env(url, cache), check=False)
    assert proc.returncode != 0
    data = (mirror_folder / URL_PATH).read_bytes()
    found = __import__("hashlib").sha1(b"blob %d\0" % len(data) + bytes([data[0] ^ 1]) + data[1:]).hexdigest()
    expected = (f"rank19: {FILE.path}: the file fetched from {url}/{URL_PATH} is not the release's: its git blob id "
                f"is {found}, expected {FILE.git_blob}")
    assert expected in proc.stderr
    assert expected in (work / "results/rank19/logs/fetch.log").read_text()
    assert not (work / "results/rank19/import_bartscore").exists() and not (work / "results/rank19/data").exists()
    assert not (work / "results/rank19/release" / FILE.path).exists()
    assert cache_files(cache) == []


def test_a_dropped_connection_is_retried_and_an_unreachable_host_named(tmp_path, mirror_folder):
    work, cache = workdir(tmp_path), tmp_path / "cache"
    with mirror.serve(mirror_folder, mirror.Behaviour(drop={URL_PATH: 1})) as (url, served):
        snakemake(work, "--cores", "2", "to_score", env=env(url, cache))
    assert served.requests[URL_PATH] == 2
    log = (work / "results/rank19/logs/fetch.log").read_text()
    assert "the connection broke during the transfer" in log and "trying again in 1 s" in log
    assert (work / "results/to_score/rank19.jsonl").exists()
    # a host nobody answers on: the error names the URL and how to set a mirror
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    other = workdir(tmp_path / "offline")
    proc = snakemake(other, "--cores", "1", "to_score", env=env(f"http://127.0.0.1:{port}", tmp_path / "cache2"),
                     check=False)
    assert proc.returncode != 0
    assert (f"rank19: {FILE.path}: could not fetch http://127.0.0.1:{port}/{URL_PATH} (4 tries; the last: could not "
            "connect") in proc.stderr
    assert "offline or behind a firewall, point the workflow at a mirror of the release files: the config key " \
           "benchmarks_mirror or the environment variable METAEVAL_MIRROR" in proc.stderr


def test_a_run_killed_mid_file_leaves_no_partial_file_and_the_next_completes(tmp_path, mirror_folder):
    work, cache = workdir(tmp_path), tmp_path / "cache"
    cached = cache / URL_PATH
    with mirror.serve(mirror_folder, mirror.Behaviour(slow={URL_PATH: 0.05})) as (url, _):
        cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(work), "--cores", "1",
               "to_score"]
        proc = subprocess.Popen(cmd, env=env(url, cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline = time.time() + 300
        while time.time() < deadline and not any(p.stat().st_size for p in cached.parent.glob(f".{cached.name}.tmp*")):
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)      # the whole run, as by a power loss
        proc.wait()
        partial = list(cached.parent.glob(f".{cached.name}.tmp*"))
        assert len(partial) == 1 and 0 < partial[0].stat().st_size < FILE.bytes
        assert not cached.exists() and not (work / "results/rank19/release" / FILE.path).exists()
        snakemake(work, "--unlock")               # a killed Snakemake leaves its lock behind
        snakemake(work, "--cores", "2", "to_score", env=env(url, cache))
    assert cached.read_bytes() == (mirror_folder / URL_PATH).read_bytes()
    assert not list(cached.parent.glob(f".{cached.name}.tmp*"))
    assert (work / "results/to_score/rank19.jsonl").exists()


def test_a_folder_mirror_from_the_config_and_a_new_source_re_run_nothing(tmp_path, mirror_folder):
    work, cache = workdir(tmp_path, {"benchmarks_mirror": str(mirror_folder)}), tmp_path / "cache"
    environment = {k: v for k, v in env("", cache).items() if k != "METAEVAL_MIRROR"}
    dry = snakemake(work, "-n", "--cores", "2", "to_score", env=environment).stdout
    assert "fetch_rank19" in dry and not cache.exists()          # a dry run fetches nothing
    snakemake(work, "--cores", "2", "to_score", env=environment)
    assert cache_files(cache) == [URL_PATH]
    # served over HTTP instead, from another cache: nothing to do
    (work / "config/config.yaml").write_text(yaml.safe_dump({"benchmarks": ["rank19"]}))
    with mirror.serve(mirror_folder) as (url, served):
        dry = snakemake(work, "-n", "--cores", "2", "to_score", env=env(url, tmp_path / "other")).stdout
    assert "Nothing to be done" in dry and served.requests == {}
    # a mirror folder that does not exist stops the run naming the key
    (work / "config/config.yaml").write_text(yaml.safe_dump({"benchmarks": ["rank19"],
                                                             "benchmarks_mirror": str(tmp_path / "nowhere")}))
    proc = snakemake(work, "-n", "to_score", env=environment, check=False)
    assert proc.returncode != 0 and f"config key benchmarks_mirror: '{tmp_path / 'nowhere'}' is not a folder" in \
        proc.stdout + proc.stderr


def test_a_name_the_catalog_lacks_lists_the_catalogs_names(tmp_path):
    work = workdir(tmp_path)
    (work / "config/config.yaml").write_text(yaml.safe_dump({"benchmarks": ["rank19", "summevl"]}))
    proc = snakemake(work, "-n", check=False)
    assert proc.returncode != 0
    assert (f"config key benchmarks[1]: 'summevl' is not a benchmark of the catalog; did you mean 'summeval'? "
            f"expected one of {', '.join(catalog.benchmarks())} (or benchmarks: all)") in proc.stdout + proc.stderr
