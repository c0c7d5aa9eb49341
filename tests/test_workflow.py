"""The workflow end to end: snakemake on a tiny config in a temporary directory."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SHARED_DATA, write_tiny

pytestmark = pytest.mark.workflow


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
    return proc


def tiny_config(workdir: Path, extra: dict | None = None) -> dict:
    write_tiny(workdir / "input" / "tiny")
    cfg = {"datasets": {
        "sim": {"format": "simulated", "topics": 8, "systems": 5, "humans": 3},
        "tiny": {"format": "canonical", "path": "input/tiny"},
    }, "correlation": {"bootstrap_samples": 100}}
    cfg.update(extra or {})
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    (workdir / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    return cfg


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    workdir = tmp_path_factory.mktemp("wf")
    tiny_config(workdir)
    snakemake(workdir, "--cores", "2")
    return workdir


def test_main_job_outputs(finished_run):
    for d in ("sim", "tiny"):
        table = dict(l.split("\t") for l in (finished_run / f"results/{d}/data/summary.tsv").read_text().splitlines())
        assert table["name"] in (d, "tiny")
        assert (finished_run / f"results/{d}/logs/validate_dataset.log").exists()
    sim = dict(l.split("\t") for l in (finished_run / "results/sim/data/summary.tsv").read_text().splitlines())
    assert sim["topics"] == "8" and sim["systems"] == "5" and sim["judged_human_summaries"] == "24"


def test_second_run_is_a_noop(finished_run):
    out = snakemake(finished_run, "-n", "--cores", "2").stdout
    assert "Nothing to be done" in out


def test_bad_dataset_stops_with_file_and_line(tmp_path):
    tiny_config(tmp_path)
    (tmp_path / "input/tiny/judgments.tsv").write_text("topic\tsummarizer\trelevance\tfluency\nT1\t1\t9\t4\n")
    proc = snakemake(tmp_path, "--cores", "1", check=False)
    assert proc.returncode != 0
    log = (tmp_path / "results/tiny/logs/validate_dataset.log").read_text()
    assert "judgments.tsv, line 2, field 'relevance'" in log and "outside the declared range" in log
    assert not (tmp_path / "results/tiny/data/summaries.jsonl").exists()  # no half-written output


def test_bad_config_names_the_key(tmp_path):
    tiny_config(tmp_path, {"rouge": {"alpha": 2}})
    proc = snakemake(tmp_path, "-n", check=False)
    assert proc.returncode != 0 and "config key rouge.alpha" in proc.stdout + proc.stderr


def test_shared_summeval_validates_and_summarises(tmp_path):
    if not (SHARED_DATA / "summeval").exists():
        pytest.skip("../shared/data/summeval is not available")
    cfg = {"datasets": {"summeval": {"format": "canonical", "path": str(SHARED_DATA / "summeval")}}}
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(tmp_path, "--cores", "2", "results/summeval/data/summary.tsv")
    table = dict(l.split("\t") for l in (tmp_path / "results/summeval/data/summary.tsv").read_text().splitlines())
    assert table["judged_system_summaries"] == "1600" and table["references_per_topic_min"] == "11"


def test_lint_reports_nothing(tmp_path):
    tiny_config(tmp_path)
    proc = snakemake(tmp_path, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run, as {rule: count}."""
    lines = dry_run_output.split("Job stats:")[1].splitlines()
    counts = {}
    for line in lines[3:]:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts


def test_scoring_outputs(finished_run):
    rows = (finished_run / "results/sim/scores/summary_scores.tsv").read_text().splitlines()
    assert rows[0] == "topic\tsummarizer\tmeasure\tstem\tstopwords_removed\tP\tR\tF"
    judged = 8 * (5 + 3)  # topics x (systems + judged humans)
    assert len(rows) - 1 == judged * 9 * 4
    system = [l.split("\t") for l in (finished_run / "results/sim/scores/system_scores.tsv").read_text().splitlines()[1:]]
    per_summarizer = {}
    for s, variant, score in system:
        per_summarizer.setdefault(s, set()).add(variant)
        assert score != ""
    assert len(per_summarizer) == 8
    assert all(len(v) == 192 + 4 + 16 for v in per_summarizer.values())   # + SERA: 8 metrics x mean/median
    assert "R2_ST1_RS0_A_P" in per_summarizer["1"] and "BLEU_ST1_RS1" in per_summarizer["A"]
    signature = (finished_run / "results/sim/scores/scoring_signature.txt").read_text()
    assert "ROUGE-1.5.5-exact" in signature and "tok:none" in signature


def test_wlcs_weight_change_rescores_only_rouge_w(finished_run):
    (finished_run / "w.yaml").write_text("rouge:\n  wlcs_weight: 1.5\n")
    out = snakemake(finished_run, "-n", "--configfile", str(finished_run / "config/config.yaml"),
                    str(finished_run / "w.yaml")).stdout
    counts = job_counts(out)
    assert counts["score_rouge"] == 8  # RW x 4 settings x 2 data sets; nothing else is re-scored
    assert "preprocess" not in counts and "score_bleu" not in counts and "human_scores" not in counts
    rescored = [l for l in out.splitlines() if l.strip().startswith("output:") and "/scores/parts/" in l]
    assert len(rescored) == 8 and all("/parts/RW_ST" in l for l in rescored)


def test_analysis_outputs(finished_run):
    sim = finished_run / "results/sim/analysis"
    header = (sim / "correlations.tsv").read_text().splitlines()[0]
    assert header == "variant\tcombination\tn\tpearson\tpearson_lo\tpearson_hi\tspearman\tkendall\toptimal\tcluster"
    rows = [l.split("\t") for l in (sim / "correlations.tsv").read_text().splitlines()[1:]]
    # 5 systems; 212 variants (192 ROUGE, 4 BLEU, 16 SERA); 7 combinations (incl. both pyramid scores)
    assert len(rows) == 212 * 7 and all(r[2] == "5" for r in rows)
    assert any(r[8] == "yes" for r in rows)
    williams = (sim / "williams_arithmetic.tsv").read_text().splitlines()
    assert len(williams) == 213 and williams[0].split("\t")[1] == "R1_ST0_RS0_A_P"
    assert (sim / "williams_pyramid.tsv").read_text().count("\n") == 213
    for name in ("table1.md", "table2.tsv", "table4.md", "figure1_coverage_vs_lq.png", "figure3_williams.svg"):
        assert (sim / name).stat().st_size > 0
    # the tiny data set has 2 systems: reported, not a crash
    notes = (finished_run / "results/tiny/analysis/notes.tsv").read_text()
    assert "williams_undefined" in notes


def test_topic_resampling_recomputes_system_scores_exactly(finished_run):
    """With every topic drawn once, the bootstrap's recomputation gives back system_scores.tsv
    (ROUGE means and medians, and corpus BLEU from the summed sufficient statistics)."""
    import numpy as np

    from metaeval.analysis import load_inputs
    from metaeval.correlation import variant_scores

    d = finished_run / "results/sim"
    stats = {(a, b): str(d / f"scores/bleu_stats_ST{a}_RS{b}.tsv") for a in (0, 1) for b in (0, 1)}
    inp = load_inputs(str(d / "scores/system_scores.tsv"), str(d / "scores/summary_scores.tsv"), stats,
                      str(d / "human/summary_human.tsv"), str(d / "human/system_human.tsv"), "systems",
                      [str(d / "scores/sera_scores.tsv")])
    assert any(v.startswith("SERADIS10_KW") for v in inp.variants)
    again = variant_scores(inp.per_summary, np.arange(len(inp.per_summary.topics)), inp.variants)
    np.testing.assert_allclose(again, inp.system_metric, rtol=0, atol=1e-9)


def test_agreement_and_rerank_outputs(finished_run):
    sim = finished_run / "results/sim"
    rows = [l.split("\t") for l in (sim / "agreement/agreement.tsv").read_text().splitlines()]
    header = rows[0]
    types = {r[header.index("pair_type")] for r in rows[1:]}
    assert types == {"all", "system-system", "human-system"}  # judged humans give human-system pairs
    verdicts = (sim / "agreement/verdicts.tsv").read_text()
    assert "a better" in verdicts or "b better" in verdicts  # 8 topics: exact Wilcoxon p can go below 0.05
    summary = dict(l.split("\t") for l in (sim / "rerank/summary.tsv").read_text().splitlines()[1:])
    assert summary["original_variant"] == "R2_ST1_RS0_M_R" and summary["best_variant"]
    table = (sim / "rerank/table3.tsv").read_text().splitlines()
    assert len(table) == 1 + 5  # the 5 systems
    pairwise = (sim / "rerank/pairwise.tsv").read_text()
    assert "paired t-test" in pairwise or "Wilcoxon" in pairwise


def test_sera_intervals_and_sweeps(finished_run):
    sim, tiny = finished_run / "results/sim", finished_run / "results/tiny"
    sera = (sim / "scores/sera_scores.tsv").read_text().splitlines()
    assert sera[0] == "topic\tsummarizer\tmetric\tscore" and len(sera) - 1 == 8 * (5 + 3) * 8
    assert (sim / "scores/sera/index.zip").stat().st_size > 0
    assert "SERA|model:lm_dirichlet" in (sim / "scores/scoring_signature.txt").read_text()
    # the tiny data set has no documents: no SERA rows, no SERA variants, and the run goes on
    assert (tiny / "scores/sera_scores.tsv").read_text().count("\n") == 1
    assert "SERA" not in (tiny / "scores/system_scores.tsv").read_text()
    assert "SERA10_KW_A" in (sim / "analysis/table5.md").read_text()
    skipped = (tiny / "human/skipped.tsv").read_text()
    assert "pyramid\tneeds SCU annotations" in skipped
    intervals = (sim / "intervals/system_intervals.tsv").read_text().splitlines()
    assert len(intervals) - 1 == 8 * 8 * 4 * 3          # summarizers x measures x settings x P/R/F
    refs = {l.split("\t")[0] for l in (sim / "sweeps/references_correlations.tsv").read_text().splitlines()[1:]}
    assert refs == {"all", "ref1", "ref2", "ref3"}
    lengths = {l.split("\t")[0] for l in (sim / "sweeps/lengths_correlations.tsv").read_text().splitlines()[1:]}
    assert {"w25", "w200", "c10", "c50", "mean rank over word limits", "mean rank over compression rates"} <= lengths
    report = (sim.parent.parent / "results/sim/report.html").read_text()
    for title in ("SERA and pyramid scores", "Confidence intervals", "Single versus multiple references",
                  "Length and compression"):
        assert title in report
