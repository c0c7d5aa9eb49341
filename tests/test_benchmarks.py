"""The seven benchmarks as released (.test/config/benchmarks.yaml), end to end in one snakemake run
from ../shared/data/raw: every data set's report opens with an answer, score-only FRANK runs without
a text metric, SummEval keeps every annotation. The analyses are lightened (as tests/test_across.py
does); the full configuration's figures are in docs/benchmarks.md."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import REPO, scenario_config, shared_dataset, snakemake
from metaeval import tables

LIGHT = {"rouge": {"measures": ["R1", "R2", "RL"], "stemming": [1], "stopwords_removed": [0]},
         "sera": {"enabled": False}, "chrf": {"metrics": ["CHRF"]},
         "correlation": {"bootstrap_samples": 200, "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]},
         "rerank": {"original": "R2_ST1_RS0_M_R"},
         "sweeps": {"variants": ["R2_ST1_RS0_A_R"], "word_limits": [50], "compression": [20]},
         "intervals": {"shown": ["R2_ST1_RS0_A_R"], "resamples": 100},
         "statistics": {"bootstrap_samples": 200, "permutation_samples": 200, "null_samples": 200}}
NAMES = ("frank", "newsroom", "qags_cnn", "qags_xsum", "rank19", "realsumm", "summeval")


@pytest.fixture(scope="module")
def seven(tmp_path_factory) -> Path:
    shared_dataset("raw")
    workdir = tmp_path_factory.mktemp("benchmarks")
    config = scenario_config("benchmarks.yaml")
    for entry in config["datasets"].values():
        if "path" in entry:
            entry["path"] = str(REPO / entry["path"])
        if "paths" in entry:
            entry["paths"] = [str(REPO / p) for p in entry["paths"]]
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump({**config, **LIGHT}))
    snakemake(workdir, "--cores", "2")
    return workdir


@pytest.mark.workflow
def test_every_benchmark_report_opens_with_an_answer(seven):
    assert sorted(p.name for p in (seven / "results").iterdir() if (p / "report.html").exists()) == \
        sorted([*NAMES, "all"])
    for name in NAMES:
        text = (seven / "results" / name / "report.html").read_text(encoding="utf-8")
        answer = re.search(r'class="answer".*?</p>', text, re.S)[0]
        assert re.search(r"the best metric for \w+( \([\w, ]+\))? (at the summary level )?is <b>\S+</b> "
                         r"\((Pearson )?r = -?[0-9.]+",
                         answer), (name, answer[:600])
        assert "NA" not in re.sub(r"<[^>]+>", "", answer).split("best metric")[1][:80], (name, answer[:600])
        # one system (QAGS) or pairs (Rank19): the summary-level answer; score-only FRANK: both levels
        assert ("too few systems for a system-level correlation" in answer) == (name in ("qags_cnn", "qags_xsum",
                                                                                       "rank19")), name
        assert ("At the summary level, the best metric" in answer) == (name == "frank"), name


@pytest.mark.workflow
def test_frank_is_score_only(seven):
    res = seven / "results/frank"
    assert not (res / "scores/parts").exists() and not (res / "intervals").exists() and not (res / "sweeps").exists()
    summary = dict(tables.read_tsv(res / "data/summary.tsv").itertuples(index=False, name=None))
    assert summary["texts"].startswith("no") and summary["systems"] == "9" and summary["judged_summaries"] == "2246"
    assert summary["judged_summaries_by_split"] == "test:1575,valid:671"
    assert summary["judged_summaries_by_subset"] == "bbc:996,cnndm:1250"
    metrics = tables.read_tsv(res / "scores/file_metrics/metrics.tsv")
    assert len(metrics) == 15
    signature = (res / "scores/scoring_signature.txt").read_text()
    assert "rouge\tnot computed: the data set has no summary texts" in signature
    variants = set(tables.read_tsv(res / "analysis/correlations.tsv")["variant"])
    assert variants == {f"{m}_{s}" for m in metrics["metric"] for s in "AM"}


@pytest.mark.workflow
def test_realsumm_is_read_from_the_authors_release(seven):
    """REALSumm from neulab/REALSumm's own pickles (realsumm_pkl): 24 systems (bart_out once), no source
    articles, and the authors' 14 metric scores as file metrics (their correlations: tests/test_realsumm_release.py)."""
    res = seven / "results/realsumm"
    summary = dict(tables.read_tsv(res / "data/summary.tsv").itertuples(index=False, name=None))
    assert summary["systems"] == "24" and summary["judged_summaries"] == "2400" and summary["has_documents"] == "no"
    metrics = tables.read_tsv(res / "scores/file_metrics/metrics.tsv")
    assert len(metrics) == 14 and {"BERTScore_F", "JS2", "MoverScore", "REALSumm_ROUGE_2_R"} <= set(metrics["metric"])


@pytest.mark.workflow
def test_summeval_keeps_every_annotator(seven):
    res = seven / "results/summeval"
    annotations = tables.read_tsv(res / "data/annotations.tsv")
    assert len(annotations) == 1200 * 4 * 8
    counts = annotations.groupby(["topic", "summarizer", "dimension", "group"]).size()
    assert set(counts.xs("expert", level="group")) == {3} and set(counts.xs("crowd", level="group")) == {5}
    summary = dict(tables.read_tsv(res / "data/summary.tsv").itertuples(index=False, name=None))
    assert summary["annotators_by_group"] == "crowd:5,expert:3" and summary["systems"] == "12"


def _release_means() -> dict[tuple[str, str], dict[str, float]]:
    """Every summary's expert and crowd means per dimension, read from the release files with json alone."""
    import json

    out = {}
    for path in sorted(shared_dataset("raw/summeval-official").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                row = {}
                for d in ("coherence", "consistency", "fluency", "relevance"):
                    experts = [a[d] for a in rec["expert_annotations"]]
                    crowd = [a[d] for a in rec["turker_annotations"]]
                    row[d], row[f"turker_{d}"] = sum(experts) / len(experts), sum(crowd) / len(crowd)
                out[(rec["id"], rec["model_id"])] = row
    return out


@pytest.mark.workflow
def test_summeval_answers_per_dimension_equal_scipy(seven):
    """SummEval from the release, one run: every dimension is a target of its own, and the system- and
    summary-level Pearson, Spearman and Kendall of every variant with it equal scipy's on the scores
    and on the annotators' means computed here from the release files."""
    import math

    import numpy as np
    from scipy import stats

    res = seven / "results/summeval"
    dims = [*(d for d in ("coherence", "consistency", "fluency", "relevance")),
            *(f"turker_{d}" for d in ("coherence", "consistency", "fluency", "relevance"))]
    targets = tables.read_tsv(res / "human/targets.tsv")
    assert list(targets["target"]) == ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", *dims]
    assert list(targets.loc[targets["factual"] == "yes", "target"]) == ["consistency", "turker_consistency"]
    means = _release_means()
    systems = sorted({s for _, s in means})
    # a system's score: the mean of its summaries' means, summed exactly (math.fsum), so that systems
    # whose means are equal tie as they do in exact arithmetic (Spearman and Kendall see ties)
    human = {d: np.array([math.fsum(vals := [v[d] for (t, s), v in means.items() if s == sys]) / len(vals)
                          for sys in systems]) for d in dims}
    scores = tables.read_tsv(res / "scores/system_scores.tsv", numeric=("score",))
    metric = scores.pivot(index="summarizer", columns="variant", values="score").loc[systems]
    corr = tables.read_tsv(res / "analysis/correlations.tsv", numeric=("pearson", "spearman", "kendall"))
    checked = 0
    for d in dims:
        mine = corr[corr["combination"] == d].set_index("variant")
        assert len(mine) == metric.shape[1]
        for variant in metric.columns:
            x = metric[variant].to_numpy(dtype=float)
            assert mine.loc[variant, "pearson"] == pytest.approx(stats.pearsonr(x, human[d])[0], abs=1e-12)
            assert mine.loc[variant, "spearman"] == pytest.approx(stats.spearmanr(x, human[d])[0], abs=1e-12)
            assert mine.loc[variant, "kendall"] == pytest.approx(stats.kendalltau(x, human[d])[0], abs=1e-12)
            checked += 1
    assert checked == 8 * metric.shape[1]
    # summary level: within each article across the 12 systems, averaged over the articles
    per = tables.read_tsv(res / "scores/summary_scores.tsv", numeric=("P", "R", "F"))
    per = per[(per["measure"] == "R2") & (per["stem"] == "1") & (per["stopwords_removed"] == "0")]
    level = tables.read_tsv(res / "analysis/summary_level_correlations.tsv", numeric=("pearson", "spearman", "kendall"))
    topics = sorted({t for t, _ in means})
    for d in ("coherence", "relevance", "turker_fluency"):
        row = level[(level["metric"] == "R2_ST1_RS0_R") & (level["combination"] == d)].iloc[0]
        r, rho, tau = [], [], []
        for t in topics:
            sub = per[per["topic"] == t].set_index("summarizer").loc[systems, "R"].to_numpy(dtype=float)
            h = np.array([means[(t, s)][d] for s in systems])
            if np.ptp(sub) == 0 or np.ptp(h) == 0:
                continue
            r.append(stats.pearsonr(sub, h)[0])
            rho.append(stats.spearmanr(sub, h)[0])
            tau.append(stats.kendalltau(sub, h)[0])
        assert int(row["topics"]) == len(r)
        assert row["pearson"] == pytest.approx(np.mean(r), abs=1e-12)
        assert row["spearman"] == pytest.approx(np.mean(rho), abs=1e-12)
        assert row["kendall"] == pytest.approx(np.mean(tau), abs=1e-12)
    # the report opens with one row per target and level, the primary's sentence after it
    answers = tables.read_tsv(res / "analysis/answers.tsv")
    assert len(answers) == 2 * 13 and set(answers["level"]) == {"system", "summary"}
    assert list(answers.loc[answers["primary"] == "yes", "target"].unique()) == ["arithmetic"]
