"""Metrics read from score files (metaeval.data.metric_scores): the contract's checks, and the
whole workflow on REALSumm's released BERTScore / MoverScore / JS-2 scores, checked against scipy
on the raw file."""
from __future__ import annotations

import hashlib
import re
import shutil
import statistics
import tarfile
from pathlib import Path

import pandas as pd
import pytest
import scipy.stats
import yaml

from conftest import SHARED_DATA, TINY_YAML, job_counts, snakemake, write_tiny
from metaeval import tables
from metaeval.data import metric_scores as ms
from metaeval.data.contract import DatasetError
from metaeval.data.dataset_yaml import MetricDeclaration
from metaeval.data.datasets import read_dataset
from metaeval.options import ConfigError, Options
from reference import require

HEADER = "topic\tsummarizer\tmetric\tscore\n"
# The tiny data set's judged summaries: (T1, 1), (T1, 2), (T2, 1), (T2, 2), (T1, B).
FULL = "T1\t1\tM\t0.5\nT1\t2\tM\t0.125\nT2\t1\tM\t0.75\nT2\t2\tM\t0.25\nT1\tB\tM\t1.5\nT1\tA\tM\t2\n"


def score_file(folder: Path, text: str, name: str = "metric_scores.tsv") -> str:
    path = folder / name
    path.write_text(HEADER + text)
    return str(path)


def check(folder: Path, paths, declared=None, overrides=None, partial=False) -> ms.FileMetrics:
    ds = read_dataset({k: str(folder / f) for k, f in
                       (("dataset", "dataset.yaml"), ("summaries", "summaries.jsonl"), ("judgments", "judgments.tsv"))})
    return ms.compute(paths, {s.key for s in ds.summaries}, ds.judgments, declared or {}, overrides or {}, partial,
                      "config key datasets.tiny.metrics")


# ----------------------------------------------------------------------------- the contract

@pytest.mark.parametrize("text, message", [
    ("T1\t1\tM\n", "line 2: 3 tab-separated cells; expected 4 (topic, summarizer, metric, score)"),
    ("T1\t1\tM\tnan\n", "line 2, field 'score': 'nan' is not a number; expected a finite decimal number"),
    ("T1\t1\tM\t0.5\nT1\t1\tM\t0.6\n", "line 3, field 'metric': second score of 'M' for ('T1', '1'); first in"),
    ("T1\t1\tM\t1e999\n", "line 2, field 'score': '1e999' overflows a double; expected a finite number"),
    ("T1\t1\tBLEU_ST1_RS0\t0.5\n", "line 2, field 'metric': 'BLEU_ST1_RS0': collides with a metric the workflow"),
    ("T1\t1\tSERADIS10_KW\t0.5\n", "line 2, field 'metric': 'SERADIS10_KW': collides with a metric the workflow"),
    ("T1\t1\tCHRF++\t0.5\n", "line 2, field 'metric': 'CHRF++': collides with a metric the workflow"),
    ("T1\t1\tmy score\t0.5\n", "line 2, field 'metric': 'my score': expected a letter followed by"),
    ("T9\t1\tM\t0.5\n", "line 2, field 'summarizer': scores ('T9', '1'), which has no summary in summaries.jsonl"),
])
def test_score_file_errors_name_the_line_and_field(tiny, text, message):
    path = score_file(tiny, text)
    with pytest.raises(DatasetError) as e:
        check(tiny, [path])
    assert str(e.value).startswith(f"{path}, ") and message in str(e.value), str(e.value)


def test_the_metric_ids_docs_dataset_format_refuses_are_refused_and_the_others_accepted():
    """docs/DATASET_FORMAT.md's metric bullet names what is refused (the ids the workflow computes,
    names beginning like a ROUGE id, the start of an id) and what is a metric of its own; the code
    agrees with each example (it accepted R2, which the doc said was refused)."""
    from conftest import REPO
    from metaeval.metrics.families import metric_id_problem

    doc = (REPO / "docs/DATASET_FORMAT.md").read_text(encoding="utf-8")
    bullet = " ".join(doc.split("\n- `metric`: the metric's id", 1)[1].split("\n- `score`", 1)[0].split())
    refused = re.findall(r"`([^`]+)`", bullet.split("Refused:", 1)[1].split("Other names", 1)[0])
    accepted = re.findall(r"`([^`]+)`", re.search(r"Other names are metrics of their own \(([^)]*)\)", bullet)[1])
    assert "R2" in refused and "rouge2" in accepted and len(refused) >= 12 and len(accepted) >= 4
    assert [m for m in refused if m != "..." and not metric_id_problem(m)] == []
    assert [m for m in accepted if metric_id_problem(m)] == []


def test_wrong_header_and_empty_file(tiny):
    (tiny / "s.tsv").write_text("topic\tsummarizer\tscore\n")
    with pytest.raises(DatasetError, match=r"s.tsv, line 1: header is \['topic', 'summarizer', 'score'\]; expected"):
        check(tiny, [str(tiny / "s.tsv")])
    with pytest.raises(DatasetError, match="no score rows after the header"):
        check(tiny, [score_file(tiny, "")])


def test_coverage_partial_only_when_allowed(tiny):
    path = score_file(tiny, "T1\t1\tM\t0.5\nT2\t1\tM\t0.75\nT2\t2\tM\t0.25\n")
    with pytest.raises(DatasetError, match=r"metric 'M' has no score for 2 of the 5 judged summaries \(first: topic "
                                           r"'T1', summarizer '2'\).*datasets.tiny.partial_coverage: true"):
        check(tiny, [path])
    result = check(tiny, [path], partial=True)
    (m,) = result.metrics
    assert (m.summaries, m.judged, m.judged_missing) == (3, 3, 2)
    assert result.notes == ["M: no score for 2 of 5 judged summaries (partial coverage allowed); its system scores "
                            "are means and medians of the scores that exist"]
    with pytest.raises(DatasetError, match="metric 'X' scores none of the 5 judged summaries"):
        check(tiny, [score_file(tiny, "T1\tA\tX\t0.5\n")], partial=True)


def test_declarations_orient_and_the_config_wins_key_by_key(tiny):
    path = score_file(tiny, FULL)
    declared = {"M": MetricDeclaration("Metric M", False, "a distance")}
    result = check(tiny, [path], declared)
    raw = {(t, s): v for t, s, _, v in [l.split("\t") for l in FULL.splitlines()]}
    assert [(t, s, v) for t, s, _, v in result.oriented()] == sorted((t, s, -float(v)) for (t, s), v in raw.items())
    assert result.metrics[0].orientation == "negated (lower is better)"
    # the config sets only higher_is_better: the name and description stay dataset.yaml's
    result = check(tiny, [path], declared, {"M": {"name": None, "higher_is_better": True, "description": None}})
    assert result.metrics[0].declaration == MetricDeclaration("Metric M", True, "a distance")
    assert [v for *_, v in result.oriented()] == [float(v) for _, v in sorted(raw.items())]
    with pytest.raises(DatasetError, match=r"config key datasets.tiny.metrics: metrics.Q declares a metric that no "
                                           r"score file has \(metrics in the files: M\)"):
        check(tiny, [path], overrides={"Q": {"higher_is_better": False}})


def test_dataset_yaml_declarations_are_checked_with_their_line(tmp_path):
    folder = write_tiny(tmp_path / "t", yaml_text=TINY_YAML + "metrics:\n  M:\n    higher_is_better: maybe\n")
    with pytest.raises(DatasetError) as e:
        read_dataset({k: str(folder / f) for k, f in (("dataset", "dataset.yaml"), ("summaries", "summaries.jsonl"),
                                                      ("judgments", "judgments.tsv"))})
    line = TINY_YAML.count("\n") + 3
    assert str(e.value) == f"{folder / 'dataset.yaml'}, line {line}, field 'metrics.M.higher_is_better': 'maybe' is not true or false"


def test_config_names_score_files_that_must_exist(tiny):
    with pytest.raises(ConfigError, match=r"config key datasets.t.metric_scores\[0\]: 'nowhere.tsv' does not exist"):
        Options.from_config({"datasets": {"t": {"format": "canonical", "path": str(tiny),
                                                "metric_scores": ["nowhere.tsv"]}}})
    score_file(tiny, FULL)
    opts = Options.from_config({"datasets": {"t": {"format": "canonical", "path": str(tiny),
                                                   "metric_scores": [str(tiny / "judgments.tsv")]}}})
    assert opts.file_metric_sources("t") == [str(tiny / "metric_scores.tsv"), str(tiny / "judgments.tsv")]


def test_system_scores_of_file_metrics_are_means_and_medians(tiny):
    """gather_scores's system table from the oriented scores, against statistics.mean/median."""
    from metaeval.stages.scoring import system_scores_frame

    result = check(tiny, [score_file(tiny, FULL)], {"M": MetricDeclaration(higher_is_better=False)})
    other = tables.frame(result.oriented(), ms.HEADER)
    frame = system_scores_frame({}, {}, other)
    got = {(s, v): x for s, v, x in zip(frame["summarizer"], frame["variant"], frame["score"])}
    rows = [l.split("\t") for l in FULL.splitlines()]
    for who in ("1", "2"):
        xs = [-float(v) for _, s, _, v in rows if s == who]
        assert got[(who, "M_A")] == pytest.approx(statistics.mean(xs), abs=1e-15)
        assert got[(who, "M_M")] == statistics.median(xs)


# ----------------------------------------------------------------------------- the workflow on REALSumm

METRICS = ("BERTScore_P", "BERTScore_R", "BERTScore_F", "MoverScore", "JS2")


def raw_system_correlations(folder: Path, negate: tuple[str, ...] = ()) -> dict[str, tuple[float, float, float]]:
    """Pearson, Spearman, Kendall tau-b of each metric's system means with the mean LitePyramid
    recall, straight from the data set's files with scipy (the test's independent computation)."""
    import pandas as pd

    scores = pd.read_csv(folder / "metric_scores.tsv", sep="\t", dtype={"topic": str})
    human = pd.read_csv(folder / "judgments.tsv", sep="\t", dtype={"topic": str})
    h = human.groupby("summarizer")["litepyramid_recall"].mean().sort_index()
    out = {}
    for m in METRICS:
        x = scores[scores.metric == m].groupby("summarizer")["score"].mean().reindex(h.index)
        x = -x if m in negate else x
        out[m] = (scipy.stats.pearsonr(x, h)[0], scipy.stats.spearmanr(x, h)[0], scipy.stats.kendalltau(x, h)[0])
    return out


def correlations(workdir: Path) -> dict[str, dict[str, str]]:
    rows = tables.read_tsv(workdir / "results/realsumm/analysis/correlations.tsv").to_dict("records")
    return {r["variant"]: r for r in rows if r["combination"] == "coverage"}


@pytest.fixture(scope="module")
def realsumm_run(tmp_path_factory) -> Path:
    source = SHARED_DATA / "realsumm"
    if not (source / "metric_scores.tsv").exists():
        require(f"{source} is not available", "REALSumm with metric_scores.tsv")
    workdir = tmp_path_factory.mktemp("realsumm")
    shutil.copytree(source, workdir / "data/realsumm")     # a copy: the tests edit it
    config = {"datasets": {"realsumm": {"format": "canonical", "path": "data/realsumm"}},
              "rouge": {"measures": ["R1", "R2", "RSU4"], "stemming": [1], "stopwords_removed": [0]},
              "sera": {"enabled": False},
              "correlation": {"bootstrap_samples": 200, "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]},
              "sweeps": {"variants": ["R2_ST1_RS0_A_R"], "word_limits": [50], "compression": [20]},
              "intervals": {"shown": ["R2_ST1_RS0_A_R"], "resamples": 100}}
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    snakemake(workdir, "--cores", "2")
    return workdir


@pytest.mark.workflow
def test_realsumm_file_metrics_correlate_as_scipy_computes_from_the_raw_file(realsumm_run):
    corr = correlations(realsumm_run)
    expected = raw_system_correlations(realsumm_run / "data/realsumm")
    for m in METRICS:
        row = corr[f"{m}_A"]
        assert int(row["n"]) == 24
        for key, value in zip(("pearson", "spearman", "kendall"), expected[m]):
            assert float(row[key]) == pytest.approx(value, abs=1e-12), (m, key)
    # the reference README's value of BERTScore_P (system-level Pearson, negative)
    assert round(float(corr["BERTScore_P_A"]["pearson"]), 3) == -0.071


@pytest.mark.workflow
def test_realsumm_file_metrics_take_part_in_every_analysis(realsumm_run):
    res = realsumm_run / "results/realsumm"
    williams = tables.read_tsv(res / "analysis/williams_coverage.tsv")
    for m in ("BERTScore_R", "JS2", "MoverScore"):
        assert f"{m}_A" in williams.columns and f"{m}_M" in set(williams["variant"])
    agreement = tables.read_tsv(res / "agreement/agreement.tsv")
    assert {"BERTScore_R", "JS2", "MoverScore"} <= set(agreement["metric"])
    system = tables.read_tsv(res / "scores/system_scores.tsv")
    assert {"JS2_A", "JS2_M"} <= set(system["variant"])
    caption, header, rows = tables.read_markdown(res / "analysis/table6_file_metrics.md")
    shown = {r[1]: r for r in rows}
    corr = correlations(realsumm_run)
    ranked = sorted((v for v in corr if corr[v]["pearson"] != "NA"), key=lambda v: -float(corr[v]["pearson"]))
    assert shown["JS2_A"][0] == str(ranked.index("JS2_A") + 1) and shown["JS2_A"][3] == "as given"
    assert any(r[1].startswith("BLEU_") for r in rows) and "Table 6" in caption
    signature = (res / "scores/scoring_signature.txt").read_text()
    digest = hashlib.sha256((realsumm_run / "data/realsumm/metric_scores.tsv").read_bytes()).hexdigest()[:16]
    assert f"file\tJS2|file:metric_scores.tsv@sha256:{digest}|higher_is_better:yes" in signature
    assert "Metrics from score files" in (res / "report.html").read_text()


@pytest.mark.workflow
def test_the_answer_names_the_best_file_metric(realsumm_run):
    """The report's opening answer names the file metric with the highest r among all variants
    (recomputed here from correlations.tsv) and the Williams p of the best variant against it."""
    res = realsumm_run / "results/realsumm"
    corr = correlations(realsumm_run)
    defined = {v: float(r["pearson"]) for v, r in corr.items() if r["pearson"] != "NA"}
    ranked = sorted(defined, key=lambda v: -defined[v])
    files = [v for v in ranked if v.rsplit("_", 1)[0] in METRICS]
    best_file = files[0]
    best = next(v for v in ranked if corr[v]["optimal"] == "yes")
    williams = tables.read_tsv(res / "analysis/williams_coverage.tsv").set_index("variant")
    p = float(williams.loc[best, best_file])
    text = re.sub(r"<[^>]+>", "", re.search(r'class="answer".*?</p>', (res / "report.html").read_text(), re.S)[0])
    shown = "p &lt; 0.001" if p < 0.001 else f"p = {p:.3f}"
    verdict = "is significantly better" if p < 0.05 else "not significantly worse"
    assert (f"Of the metrics from score files, the best is {best_file} (r = {defined[best_file]:.3f}, 95% CI "
            f"[{float(corr[best_file]['pearson_lo']):.3f}, {float(corr[best_file]['pearson_hi']):.3f}]), "
            f"#{ranked.index(best_file) + 1} of {len(ranked)}") in text, text
    assert verdict in text.split("score files")[1] and shown in text.split("score files")[1], text


def test_the_file_metric_sentence_by_hand(tmp_path):
    from metaeval.stages.correlation_tables import Answer
    from metaeval.stages.report import file_metric_sentence
    path = tmp_path / "table6.tsv"
    path.write_text("rank\tvariant\tmetric\torientation\tr\t95% CI\trho\ttau\toptimal\n"
                    "1\tR2_ST1_RS0_A_R\t\t\t0.900\t[0.800, 0.950]\t0.9\t0.8\t*\n"
                    "4\tX_M\tX\tas given\t0.700\t[0.500, 0.850]\t0.6\t0.5\t\n"
                    "6\tX_A\tX\tas given\t0.650\t[0.400, 0.800]\t0.6\t0.5\t\n"
                    "NA\tY_A\tY\tas given\tNA\t[NA, NA]\tNA\tNA\t\n")
    a = Answer("coverage", {"variant": "R2_ST1_RS0_A_R"}, 3, 10, "R2_ST1_RS0_A_R", 1, 0, 0.05)
    w = pd.DataFrame({"variant": ["R2_ST1_RS0_A_R", "X_M"], "R2_ST1_RS0_A_R": ["NA", "0.9"], "X_M": ["0.2", "NA"]})
    assert file_metric_sentence(str(path), w, a) == (
        " Of the metrics from score files, the best is <b>X_M</b> (r = 0.700, 95% CI [0.500, 0.850]), #4 of 10; it is "
        "not significantly worse than R2_ST1_RS0_A_R (Williams test, p = 0.200).")
    w.loc[0, "X_M"] = "0.0004"
    assert file_metric_sentence(str(path), w, a).endswith(
        "; R2_ST1_RS0_A_R is significantly better (Williams test, p &lt; 0.001).")
    assert file_metric_sentence(str(path), w, a._replace(best={"variant": "X_M"})) == ""   # the answer names it
    assert file_metric_sentence(str(tmp_path / "absent.tsv"), w, a) == ""


@pytest.mark.workflow
def test_editing_a_score_file_reruns_from_the_analyses_on(realsumm_run):
    path = realsumm_run / "data/realsumm/metric_scores.tsv"
    header, first, *rest = path.read_text().split("\n")
    t, s, m, v = first.split("\t")
    # an edit (Snakemake compares checksums, so touching alone would not count); later tests
    # compute their expected values from the edited file
    path.write_text("\n".join([header, "\t".join([t, s, m, repr(float(v) + 0.01)]), *rest]))
    counts = job_counts(snakemake(realsumm_run, "-n").stdout)
    assert "file_metrics" in counts and "gather_scores" in counts and "correlate" in counts
    assert not {"score", "validate_dataset", "sweeps", "system_intervals", "human_scores"} & set(counts), counts
    snakemake(realsumm_run, "--cores", "2")


@pytest.mark.workflow
def test_a_lower_is_better_declaration_negates_the_metric_everywhere(realsumm_run, tmp_path):
    extra = tmp_path / "lower.yaml"
    extra.write_text(yaml.safe_dump({"datasets": {"realsumm": {"format": "canonical", "path": "data/realsumm",
                                                               "metrics": {"JS2": {"higher_is_better": False,
                                                                                   "name": "JS-2 (negated)"}}}}}))
    args = ("--configfile", str(realsumm_run / "config/config.yaml"), str(extra))
    counts = job_counts(snakemake(realsumm_run, "-n", *args).stdout)
    assert "file_metrics" in counts and "score" not in counts
    snakemake(realsumm_run, "--cores", "2", *args)
    expected = raw_system_correlations(realsumm_run / "data/realsumm", negate=("JS2",))["JS2"]
    assert float(correlations(realsumm_run)["JS2_A"]["pearson"]) == pytest.approx(expected[0], abs=1e-12)
    assert expected[0] < 0
    metrics = tables.read_tsv(realsumm_run / "results/realsumm/scores/file_metrics/metrics.tsv")
    js2 = metrics[metrics["metric"] == "JS2"].iloc[0]
    assert (js2["name"], js2["orientation"]) == ("JS-2 (negated)", "negated (lower is better)")
    snakemake(realsumm_run, "--cores", "2")     # back to the module's configuration


@pytest.mark.workflow
def test_the_archive_holds_the_score_file_and_reruns_with_it(realsumm_run, tmp_path):
    snakemake(realsumm_run, "--cores", "2", "archive")
    (archive,) = sorted((realsumm_run / "results/archive").glob("realsumm-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / archive.name[: -len(".tar.gz")]
    source = realsumm_run / "data/realsumm/metric_scores.tsv"
    assert (root / "data/realsumm/metric_scores.tsv").read_bytes() == source.read_bytes()
    sums = (root / "data/realsumm/SHA256SUMS").read_text()
    assert f"{hashlib.sha256(source.read_bytes()).hexdigest()}  metric_scores.tsv" in sums
    target = "results/realsumm/scores/file_metrics/metrics.tsv"
    snakemake(root, "--cores", "2", target)
    for name in ("metrics.tsv", "scores.tsv", "signature.txt"):
        archived = root / "archived_results/realsumm/scores/file_metrics" / name
        assert (root / "results/realsumm/scores/file_metrics" / name).read_bytes() == archived.read_bytes()


# ----------------------------------------------------------------------------- a metric's name is only a name

def _run_with_judge(workdir: Path, name: str) -> Path:
    """The small scenario's simulated data set with a top-level score file of one metric, ``name``
    (seeded scores of every summary), run whole."""
    from conftest import scenario, simulation
    from metaeval.data.simulate import simulate

    cfg = scenario(workdir)
    sim = cfg["datasets"]["sim"]
    ds = simulate(simulation(**{k: v for k, v in sim.items() if k != "format"}), "sim")
    rng = __import__("numpy").random.default_rng(12)
    rows = [f"sim\t{s.topic}\t{s.summarizer}\t{name}\t{float(x)!r}\n" for s, x in zip(ds.summaries, rng.random(len(ds.summaries)))]
    (workdir / "judge.tsv").write_text("dataset\ttopic\tsummarizer\tmetric\tscore\n" + "".join(rows))
    cfg = {**cfg, "datasets": {"sim": sim}, "metric_scores": ["judge.tsv"]}
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(workdir, "--cores", "2")
    return workdir / "results/sim"


# the files that hold the score file's checksum (of its bytes, the metric's name among them)
CHECKSUMMED = {"scores/file_metrics/signature.txt", "scores/scoring_signature.txt"}


@pytest.mark.workflow
def test_no_output_depends_on_what_a_metric_is_called(tmp_path):
    """A metric named like a human target (an LLM judge's ``grammaticality``, a dimension of the
    simulated data set) and the same scores named ``grammaticalitz`` (which sorts in the same place):
    every table of the run is the same, name for name. The agreement stage merged the two name
    spaces: the metric replaced the human target's verdicts, and verdicts.tsv lost its rows."""
    clash = _run_with_judge(tmp_path / "clash", "grammaticality")
    other = _run_with_judge(tmp_path / "other", "grammaticalitz")
    compared = 0
    for path in sorted(clash.rglob("*")):
        rel = path.relative_to(clash).as_posix()
        if path.suffix not in (".tsv", ".md", ".json", ".jsonl", ".yaml", ".txt") or rel in CHECKSUMMED \
                or rel.split("/")[0] in ("logs", "memo"):
            continue
        theirs = (other / rel).read_text(encoding="utf-8").replace("grammaticalitz", "grammaticality")
        assert path.read_text(encoding="utf-8") == theirs, rel
        compared += 1
    assert compared > 80
    verdicts = tables.read_tsv(clash / "agreement/verdicts.tsv")
    named = verdicts[verdicts.scorer == "grammaticality"]
    assert sorted(set(named.scorer_kind)) == ["human", "metric"]
    pairs = (verdicts.scorer == "arithmetic").sum()             # every pair of judged summarizers, once
    assert (named.scorer_kind == "human").sum() == (named.scorer_kind == "metric").sum() == pairs > 0
