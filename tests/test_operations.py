"""The three ways the repository is used, as tested features: incremental reruns after config
changes, reproducible archives, and running at scale (shards, profiles); plus reliability
(interrupted runs, different --cores) and the reports."""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
import yaml

from conftest import REPO, job_counts, scenario, scenario_config, snakemake
from metaeval import registry
from metaeval.memo import FOLDER as MEMO

pytestmark = pytest.mark.workflow

SMALL = scenario_config("operations.yaml")
# The jobs downstream of the scores: every analysis stage's (the registry's), the report, the verdict
# across data sets and the target rule.
ANALYSIS_RULES = {*registry.job_rules("analysis", "report", "across"), "all"}


def setup_dir(path: Path, extra: dict | None = None) -> Path:
    scenario(path, "operations.yaml", extra)
    return path


def tables(root: Path, dataset: str = "sim", final_only: bool = False) -> dict[str, str]:
    """SHA-256 of every result file of a data set but logs, the jobs' memos (a cache of their rows,
    not a result: metaeval.memo), the import stage and the HTML report (``final_only``: also without
    the per-shard caches, which differ in how topics are split)."""
    base = root / "results" / dataset
    skip = ("logs/", f"{MEMO}/", "simulate/") + (("scores/parts/", "scores/tokens/") if final_only else ())
    out = {}
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base).as_posix()
        if p.is_file() and not rel.startswith(skip) and rel != "report.html":
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def dry_run(workdir: Path, extra_config: dict) -> str:
    extra = workdir / "extra.yaml"
    extra.write_text(yaml.safe_dump(extra_config))
    return snakemake(workdir, "-n", "--configfile", str(workdir / "config/config.yaml"), str(extra)).stdout


def job_datasets(out: str) -> set[str]:
    return set(re.findall(r"wildcards: .*?dataset=([A-Za-z0-9_-]+)", out))


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    workdir = setup_dir(tmp_path_factory.mktemp("ops"))
    snakemake(workdir, "--cores", "2")
    return workdir


def test_second_run_is_a_noop(run):
    assert "Nothing to be done" in snakemake(run, "-n").stdout


def test_report_and_snakemake_report(run):
    html = (run / "results/sim/report.html").read_text()
    assert "Table 1. Pearson r" in html and "data:image/png;base64," in html and "Methods" in html
    assert "sacrebleu" in html and "snakemake" in html  # software versions
    snakemake(run, "--report", str(run / "snakemake_report.html"))
    assert (run / "snakemake_report.html").stat().st_size > 10000


@pytest.mark.parametrize("extra", [{"human_scores": {"order": "average_then_combine"}},
                                   {"correlation": {"alpha": 0.01}},
                                   {"agreement": {"alpha": 0.01}}])
def test_analysis_options_rerun_no_scoring_job(run, extra):
    counts = job_counts(dry_run(run, extra))
    assert counts and set(counts) <= ANALYSIS_RULES, counts


def test_sera_sweep_and_interval_options_rerun_only_their_jobs(run):
    counts = job_counts(dry_run(run, {"sera": {"model": "bm25"}}))
    assert counts["score_sera"] == 2 and "sera_index" not in counts and "score" not in counts
    assert "sweeps" not in counts                                           # the sweeps never read SERA
    counts = job_counts(dry_run(run, {"sera": {"stemming": 0}}))
    assert counts["sera_index"] == 2 and counts["score_sera"] == 2 and "score" not in counts
    assert set(job_counts(dry_run(run, {"intervals": {"seed": 3}}))) == {"system_intervals", "report", "all"}
    assert set(job_counts(dry_run(run, {"sweeps": {"word_limits": [10]}}))) == {"sweeps", "report", "all"}


def test_statistics_options_rerun_only_the_statistics_job(run):
    """A statistics.* value reaches the statistics job (and the report, which reads its tables and
    records the choices; the leaderboard, which reads its pairwise accuracy, and the verdict across
    data sets, which opens with the leaderboard); the basis of "optimal" also reaches the correlation
    job and what reads it."""
    for extra in ({"seed": 3}, {"permutation": "both"}, {"variants": ["top"]}, {"resampling_levels": []}):
        assert set(job_counts(dry_run(run, {"statistics": extra}))) == {"statistics", "report", "leaderboard",
                                                                         "across", "all"}, extra
    counts = job_counts(dry_run(run, {"statistics": {"optimal": "permutation"}}))
    # with two data sets the verdict across them reads the correlations (and now the permutation tests)
    assert set(counts) == {"statistics", "correlate", "correlation_tables", "rerank", "report", "leaderboard",
                           "across", "all"}, counts
    counts = job_counts(dry_run(run, {"statistics": {"enabled": False}}))
    # nothing new to compute; the report loses its sections, the leaderboard its pairwise accuracy
    assert set(counts) == {"report", "leaderboard", "across", "all"}, counts


def test_factuality_options_rerun_only_the_factuality_job(run):
    """A factuality.* value reaches the factuality job and the report (which records the choices), and
    the leaderboard (its protocols' columns) with the verdict across data sets, which opens with it."""
    for extra in ({"seed": 3}, {"proportion_cutoff": 0.5}, {"dimensions": ["coverage"]}):
        assert set(job_counts(dry_run(run, {"factuality": extra}))) == {"factuality", "report", "leaderboard",
                                                                         "across", "all"}, extra


def test_stemming_and_wlcs_weight_rescore_only_affected_jobs(run):
    # the variant ids the analyses name must be computed (checked at start), so they follow the setting
    unstemmed = {"rouge": {**SMALL["rouge"], "stemming": [0]},
                 "correlation": {**SMALL["correlation"], "baselines": ["R1_ST0_RS0_M_R", "R2_ST0_RS0_M_R"]},
                 "agreement": {"baseline": "R2_ST0_RS0_A_R"}, "rerank": {"original": "R2_ST0_RS0_M_R"}}
    counts = job_counts(dry_run(run, unstemmed))
    assert "score" not in counts and counts["gather_scores"] == 2         # a setting dropped: nothing re-scored
    out = dry_run(run, {"rouge": {**SMALL["rouge"], "wlcs_weight": 1.4}})
    assert job_counts(out)["score"] == 4        # one job per setting (2) and data set (2) scores every measure
    assert "human_scores" not in job_counts(out) and "score_sera" not in job_counts(out)
    out = dry_run(run, {"rouge": {**SMALL["rouge"], "stopwords_removed": [0, 1]}})
    outputs = "\n".join(l for l in out.splitlines() if l.strip().startswith("output:"))
    rescored = set(re.findall(r"parts/(\S+?)\.shard", outputs))
    assert rescored and all("_RS1" in r for r in rescored)  # only the new settings are scored


def test_stemmer_exceptions_rerun_only_the_jobs_that_stem(run):
    out = dry_run(run, {"rouge": {**SMALL["rouge"], "stemmer_exceptions": ["noun", "adv", "verb", "adj"]}})
    counts = job_counts(out)
    outputs = "\n".join(l for l in out.splitlines() if l.strip().startswith("output:"))
    rescored = set(re.findall(r"parts/(\S+?)\.shard", outputs))
    assert rescored and all("ST1_RS" in r for r in rescored)   # the unstemmed settings are kept
    # SERA stems its index and queries (sera.stemming: 1); the sweeps' variants are stemmed
    assert counts["score"] == 2 and counts["sera_index"] == 2 and counts["sweeps"] == 2, counts
    assert counts["gather_scores"] == 2 and "human_scores" not in counts


def test_adding_a_data_set_runs_only_its_jobs(run):
    datasets = {**SMALL["datasets"], "extra": {"format": "simulated", "topics": 6, "systems": 4, "humans": 2, "seed": 9}}
    out = dry_run(run, {"datasets": datasets})
    assert job_datasets(out) == {"extra"}


def test_editing_a_data_set_file_reruns_that_data_set_from_import(run):
    path = run / "input/tiny/judgments.tsv"
    st, original = path.stat(), path.read_bytes()
    try:
        # an edit (Snakemake >= 8 compares checksums, so touching alone would not count)
        path.write_bytes(original.replace(b"T2\t2\t2\t3", b"T2\t2\t2.5\t3"))
        out = snakemake(run, "-n").stdout
        counts = job_counts(out)
        assert job_datasets(out) == {"tiny"} and counts["validate_dataset"] == 1 and counts["score"] == 2
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "Nothing to be done" in snakemake(run, "-n").stdout


def test_one_score_file_reruns_only_the_file_metrics_on_of_the_data_sets_it_touches(run):
    """A top-level score file (rows naming their data set): adding it, editing one data set's rows and
    declaring a metric re-run the file metrics jobs, the gathering and the analyses only, and an edit
    only those of the data set whose rows changed."""
    rows = []
    for dataset in ("sim", "tiny"):
        judged = (run / f"results/{dataset}/data/judgments.tsv").read_text().splitlines()[1:]
        rows += [f"{dataset}\t{t}\t{s}\tshared_len\t{i / 4!r}" for i, (t, s, *_) in enumerate(l.split("\t") for l in judged)]
    path = run / "shared_scores.tsv"
    path.write_text("dataset\ttopic\tsummarizer\tmetric\tscore\n" + "".join(r + "\n" for r in rows))
    extra = {"metric_scores": [str(path)]}
    downstream = {"file_metrics", "gather_scores", *ANALYSIS_RULES}
    added = job_counts(dry_run(run, extra))
    assert set(added) <= downstream and added["file_metrics"] == added["gather_scores"] == 2, added
    snakemake(run, "--cores", "2", "--configfile", str(run / "config/config.yaml"), str(run / "extra.yaml"))
    try:
        assert "Nothing to be done" in dry_run(run, extra)
        # one of tiny's rows edited: tiny's jobs only
        path.write_text(path.read_text().replace(rows[-1], rows[-1].rsplit("\t", 1)[0] + "\t9.5"))
        out = dry_run(run, extra)
        counts = job_counts(out)
        assert job_datasets(out) == {"tiny"} and counts["file_metrics"] == 1 and set(counts) <= downstream, counts
        # a declaration for every data set: their file metrics jobs and what follows, nothing before
        counts = job_counts(dry_run(run, {**extra, "metrics": {"shared_len": {"dimension": "fluency"}}}))
        assert counts["file_metrics"] == 2 and set(counts) <= downstream, counts
    finally:
        # back to the module's configuration; the file metrics' files, which it does not make, removed
        # so that the later tests compare the results of the same configuration
        for dataset in ("sim", "tiny"):
            shutil.rmtree(run / f"results/{dataset}/scores/file_metrics", ignore_errors=True)
        snakemake(run, "--cores", "2")
    assert "Nothing to be done" in snakemake(run, "-n").stdout


def test_archive_reproduces_byte_identical_results(run, tmp_path):
    snakemake(run, "--cores", "2", "archive")
    archives = sorted((run / "results/archive").glob("sim-*.tar.gz"))
    assert len(archives) == 1 and re.fullmatch(r"sim-[0-9a-f]{12}\.tar\.gz", archives[0].name)
    first = archives[0].read_bytes()
    snakemake(run, "--cores", "1", "archive", "--forcerun", "archive_dataset")
    assert archives[0].read_bytes() == first  # byte-stable archive
    with tarfile.open(archives[0]) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / archives[0].name[: -len(".tar.gz")]
    provenance = yaml.safe_load((root / "provenance.yaml").read_text())
    assert provenance["workflow_git_commit"] and "numpy" in provenance["package_versions"]
    assert provenance["original_dataset_entry"]["format"] == "simulated"
    sums = dict(reversed(l.split("  ")) for l in (root / "data/sim/SHA256SUMS").read_text().splitlines())
    assert hashlib.sha256((root / "data/sim/summaries.jsonl").read_bytes()).hexdigest() == sums["summaries.jsonl"]
    assert "snakemake" in (root / "README.md").read_text()
    snakemake(root, "--cores", "2")
    base = root / "archived_results/sim"
    expected = {p.relative_to(base).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(base.rglob("*")) if p.is_file()}
    expected = {k: v for k, v in expected.items() if not k.startswith(("logs/", "simulate/")) and k != "report.html"}
    assert tables(root) == expected


def test_shards_give_identical_results(run, tmp_path):
    """... and so do jobs started cold (the fork server switched off) against the warm ones of ``run``."""
    workdir = setup_dir(tmp_path / "sharded", {"scale": {"shards": 3}})
    snakemake(workdir, "--cores", "2", env={**os.environ, "METAEVAL_FORKSERVER": "0"})
    assert len(list((workdir / "results/sim/scores/parts").glob("ST0_RS0.shard*.tsv"))) == 3
    final = tables(workdir, final_only=True)
    assert "scores/system_scores.tsv" in final and "analysis/correlations.tsv" in final
    assert final == tables(run, final_only=True)


def test_interrupted_run_resumes_to_identical_results_with_other_cores(run, tmp_path):
    """Killed on one core as soon as the first score job's parts exist (the second score job, which
    the gathering waits for, still runs then), and resumed on two."""
    workdir = setup_dir(tmp_path / "interrupted")
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), "--cores", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    parts = workdir / "results/sim/scores/parts"
    deadline = time.time() + 300
    while time.time() < deadline and not (parts.exists() and any(parts.glob("*.tsv"))):
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)  # killed during scoring, as by a power loss
    proc.wait()
    assert any(parts.glob("*.tsv"))
    assert not (workdir / "results/sim/scores/system_scores.tsv").exists()
    snakemake(workdir, "--unlock")  # a killed Snakemake leaves its lock behind (docs/scale.md: Reliability)
    snakemake(workdir, "--cores", "2")  # the default profile re-runs incomplete jobs
    assert tables(workdir) == tables(run)


def reasons(dry_run_output: str) -> dict[str, set[str]]:
    """{rule: the reasons a dry run gives for its jobs}."""
    out: dict[str, set[str]] = {}
    for block in dry_run_output.split("rule ")[1:]:
        rule = block.split(":", 1)[0].strip()
        for line in block.splitlines():
            if line.strip().startswith("reason:"):
                out.setdefault(rule, set()).add(line.strip()[len("reason:"):].strip())
    return out


@pytest.mark.parametrize("module,importers,downstream", [
    # the Williams test is imported by the correlation stage only; its tables feed the correlation
    # tables, the re-ranking and the report
    # and by the statistics stage (its optimal set and clusters), which only the report reads
    # (the scenario's two data sets also get the verdict across them and the leaderboard, which read the
    # correlations),
    # and by the factuality stage (Williams tests between partial correlations, through stats/partial.py)
    ("stats/williams.py", {"correlate", "statistics", "factuality"},
     {"correlation_tables", "rerank", "report", "across", "leaderboard", "all"}),
    # the Wilcoxon verdicts by the agreement stage and the re-ranking (its pairwise Wilcoxon tests)
    # (and the report, for the method's description, which re-runs anyway because their tables are
    # its inputs)
    ("stats/verdicts.py", {"agreement", "rerank"}, {"report", "all"}),
])
def test_changing_a_library_module_reruns_exactly_the_jobs_that_import_it(run, tmp_path, module, importers,
                                                                            downstream):
    """A copy of the repository; its package imported through PYTHONPATH. The finished run's
    results are current for the copy (code versions do not depend on where the code is), and after
    a change to one deep module the jobs re-run for changed code are exactly those whose scripts
    import it, directly or through other modules, and the only other jobs that re-run are those
    downstream of them (Snakemake names one reason per job: an input that will be rewritten)."""
    import shutil

    copy = tmp_path / "repo"
    copy.mkdir()
    for part in ("Snakefile", "rules", "workflow", "src", "profiles"):
        (shutil.copytree if (REPO / part).is_dir() else shutil.copyfile)(REPO / part, copy / part)
    work = tmp_path / "work"
    shutil.copytree(run, work, symlinks=True)
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    dry = lambda: snakemake(work, "-n", "--cores", "2", env=env, snakefile=copy / "Snakefile").stdout  # noqa: E731
    assert "Nothing to be done" in dry()
    with open(copy / "src/metaeval" / module, "a") as fh:
        fh.write("\n# a change\n")
    why = reasons(dry())
    changed = {rule for rule, w in why.items() if any("Params have changed" in x for x in w)}
    assert changed == importers
    assert set(why) == importers | downstream


def test_slurm_profile_dry_run(tmp_path):
    pytest.importorskip("snakemake_executor_plugin_slurm")
    workdir = setup_dir(tmp_path / "slurm")
    out = snakemake(workdir, "--profile", str(REPO / "profiles/slurm"), "-n").stdout
    counts = job_counts(out)
    assert counts["score"] == 2 * 2 and "mem_mb=2000" in out and "runtime=30" in out
