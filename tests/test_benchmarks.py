"""README task 1 on every benchmark of the catalog (``benchmarks: all``), as a new user runs it: in a copy
of the repository with nothing beside it, the release files fetched from a loopback mirror of their
repositories (tests/mirror.py, no internet) into the default cache, the README's commands as written
(texts out, the docs' script scoring them, my.yaml, one command; the analyses lightened by one more
config file, as tests/test_across.py does). Every data set's report opens with an answer, score-only
FRANK runs without a text metric, SummEval keeps every annotation, and the leaderboard's cells of the
user's metric equal scipy on the fetched data; XSumFaith's pooled correlations, SummEdits' AUC and
balanced accuracy per domain and QAGS's alpha equal scipy, scikit-learn and krippendorff on the
fetched release files. The full configuration's figures are in docs/benchmarks.md."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import copy_repository, require_workflow_marker, snakemake
from metaeval import tables
from metaeval.data import catalog
from metaeval.memo import FOLDER as MEMO
from metaeval.options import Options

LIGHT = {"rouge": {"measures": ["R1", "R2", "RL"], "stemming": [1], "stopwords_removed": [0]},
         "sera": {"enabled": False}, "chrf": {"metrics": ["CHRF"]},
         "correlation": {"bootstrap_samples": 200, "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]},
         "rerank": {"original": "R2_ST1_RS0_M_R"},
         "sweeps": {"variants": ["R2_ST1_RS0_A_R"], "word_limits": [50], "compression": [20]},
         "intervals": {"shown": ["R2_ST1_RS0_A_R"], "resamples": 100},
         "statistics": {"bootstrap_samples": 200, "permutation_samples": 200, "null_samples": 200}}
NAMES = ("frank", "newsroom", "qags_cnn", "qags_xsum", "rank19", "realsumm", "summedits", "summeval", "xsumfaith")
# the release files the mirror of ../shared/data/raw lacks: the catalog marks them optional
ABSENT = {"frank": ["data/benchmark_data.json"],
          "summedits": ["data/summedits/summedits_billsum.json", "data/summedits/summedits_shakespeare.json"]}


def run_readme_command(command: str, clone: Path, env: dict, *more_config: str) -> subprocess.CompletedProcess:
    """A snakemake command of the README, as written, in the clone (``more_config``: files added to its
    --configfile list)."""
    from test_docs import config_files_of

    require_workflow_marker("snakemake")
    args = shlex.split(command)
    assert args[0] in ("snakemake", ".venv/bin/snakemake"), command
    if more_config:
        last = args.index(config_files_of(command)[-1])
        args[last + 1:last + 1] = list(more_config)
    proc = subprocess.run([sys.executable, "-m", "snakemake", *args[1:]], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, f"{command}\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    return proc


CONFIG_FILES = ("config/config.yaml", ".test/config/benchmarks.yaml", "my.yaml", "light.yaml")


def run_config(clone: Path) -> dict:
    """The configuration of the run of task 1: the clone's config files merged as snakemake merges them."""
    from conftest import merge

    config: dict = {}
    for name in CONFIG_FILES:
        config = merge(config, yaml.safe_load((clone / name).read_text(encoding="utf-8")))
    # the score file as snakemake finds it, from the clone
    return {**config, "metric_scores": [str(clone / f) for f in config["metric_scores"]]}


def mirror_env(url: str, cache: Path | None = None) -> dict:
    """The environment of a run fetching from the loopback mirror (into ``cache``; None: the default cache)."""
    env = {**os.environ, "METAEVAL_MIRROR": url, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    env.pop("METAEVAL_CACHE", None)
    return {**env, "METAEVAL_CACHE": str(cache)} if cache else env


@pytest.fixture(scope="module")
def task1(tmp_path_factory, loopback_mirror) -> Path:
    from test_docs import readme_commands, readme_config_files
    from test_to_score import docs_block

    url, served = loopback_mirror
    clone = copy_repository(tmp_path_factory.mktemp("fresh") / "metaeval")
    env = mirror_env(url)                               # the default cache: resources/benchmarks/ in the clone
    commands = [c for c in readme_commands() if ".test/config/benchmarks.yaml" in c]
    (texts_out,) = [c for c in commands if " to_score" in c]
    (one_command,) = [c for c in commands if "my.yaml" in c]
    run_readme_command(texts_out, clone, env)
    (clone / "score_texts.py").write_text(docs_block("python", "# score_texts.py"), encoding="utf-8")
    subprocess.run([sys.executable, "score_texts.py"], cwd=clone, check=True, timeout=300)
    (clone / "my.yaml").write_text(readme_config_files()["my.yaml"], encoding="utf-8")
    (clone / "light.yaml").write_text(yaml.safe_dump(LIGHT), encoding="utf-8")
    run_readme_command(one_command, clone, env, "light.yaml")
    return clone


@pytest.mark.workflow
def test_the_benchmarks_are_fetched_once_verified_into_the_default_cache(task1, loopback_mirror):
    """Each release file of every benchmark was requested (texts out fetched them; the full run found
    them in the cache), from its own repository (QAGS's per-worker judgments from W4ngatang/qags), and
    the cache and each fetch job's copies hold exactly the catalog's files; the optional files the
    mirror lacks are absent, and said so."""
    _, served = loopback_mirror
    benchmarks = [catalog.benchmarks()[n] for n in NAMES]
    assert set(NAMES) <= set(catalog.benchmarks())
    for b in benchmarks:
        r = b.release
        for f in r.files:
            repository, commit = r.origin(f)
            assert served.requests.get(f"{repository}/{commit}/{f.path}", 0) >= 1, f.path
            if f.optional:          # FRANK's texts, SummEdits' two domains: not in the mirror, absent
                assert f.path in ABSENT[b.name] and not (task1 / "results" / b.name / "release" / f.path).exists()
                continue
            from metaeval.data.fetch import digests

            for copy in (task1 / "resources/benchmarks" / repository / commit / f.path,
                         task1 / "results" / b.name / "release" / f.path):
                assert digests(copy) == (f.bytes, f.sha256, f.git_blob), copy
        log = (task1 / "results" / b.name / "logs/fetch.log").read_text()
        assert "verified" in log
    frank = (task1 / "results/frank/logs/fetch.log").read_text()
    assert "data/benchmark_data.json: optional, could not be had: HTTP 404: not found" in frank
    # SummEdits' two domains the mirror lacks: left out, and the fetch's and the import's logs and the
    # report say so
    fetched = (task1 / "results/summedits/logs/fetch.log").read_text()
    imported = (task1 / "results/summedits/logs/import_summedits.log").read_text()
    for path in ABSENT["summedits"]:
        assert f"{path}: optional, could not be had: HTTP 404: not found" in fetched
        assert f"{path}: the domain " in imported and "left out" in imported
    assert "Left out: billsum, shakespeare" in (task1 / "results/summedits/report.html").read_text()
    note = (task1 / "results/to_score/frank.jsonl").read_text().splitlines()[0]
    assert "The release's data/benchmark_data.json could not be had: HTTP 404: not found" in note
    # the report cites the benchmark and names its licence, from the catalog
    report = (task1 / "results/frank/report.html").read_text()
    assert catalog.benchmarks()["frank"].citation.replace("&", "&amp;") in report
    assert "MIT (artidoro/frank)" in report and "github.com/artidoro/frank at commit 80a88fb" in report


@pytest.mark.workflow
def test_every_benchmark_report_opens_with_an_answer(task1):
    assert sorted(p.name for p in (task1 / "results").iterdir() if (p / "report.html").exists()) == \
        sorted([*NAMES, "all"])
    for name in NAMES:
        text = (task1 / "results" / name / "report.html").read_text(encoding="utf-8")
        answer = re.search(r'class="answer".*?</p>', text, re.S)[0]
        assert re.search(r"the best metric for \w+( \([\w, ]+\))? (at the summary level )?is <b>\S+</b> "
                         r"\((Pearson )?r = -?[0-9.]+",
                         answer), (name, answer[:600])
        assert "NA" not in re.sub(r"<[^>]+>", "", answer).split("best metric")[1][:80], (name, answer[:600])
        # one system (QAGS, SummEdits) or pairs (Rank19): the summary-level answer; score-only FRANK: both
        assert ("too few systems for a system-level correlation" in answer) == (name in ("qags_cnn", "qags_xsum",
                                                                                       "rank19", "summedits")), name
        assert ("At the summary level, the best metric" in answer) == (name == "frank"), name


@pytest.mark.workflow
def test_frank_is_score_only(task1):
    res = task1 / "results/frank"
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
def test_realsumm_is_read_from_the_authors_release(task1):
    """REALSumm from neulab/REALSumm's own pickles (realsumm_pkl): 24 systems (bart_out once), no source
    articles, and the authors' 14 metric scores as file metrics (their correlations: tests/test_realsumm_release.py)."""
    res = task1 / "results/realsumm"
    summary = dict(tables.read_tsv(res / "data/summary.tsv").itertuples(index=False, name=None))
    assert summary["systems"] == "24" and summary["judged_summaries"] == "2400" and summary["has_documents"] == "no"
    metrics = tables.read_tsv(res / "scores/file_metrics/metrics.tsv")
    # the authors' 14 and the test's own length_ratio (from the one score file)
    assert len(metrics) == 15 and {"BERTScore_F", "JS2", "MoverScore", "REALSumm_ROUGE_2_R",
                                   "length_ratio"} <= set(metrics["metric"])


@pytest.mark.workflow
def test_summeval_keeps_every_annotator(task1):
    res = task1 / "results/summeval"
    annotations = tables.read_tsv(res / "data/annotations.tsv")
    assert len(annotations) == 1200 * 4 * 8
    counts = annotations.groupby(["topic", "summarizer", "dimension", "group"]).size()
    assert set(counts.xs("expert", level="group")) == {3} and set(counts.xs("crowd", level="group")) == {5}
    summary = dict(tables.read_tsv(res / "data/summary.tsv").itertuples(index=False, name=None))
    assert summary["annotators_by_group"] == "crowd:5,expert:3" and summary["systems"] == "12"


def _release_records(run: Path) -> list[dict]:
    """SummEval's release records as fetched (the fetch job's copies), read with json alone."""
    import json

    folder = run / "results/summeval/release/model_output_annotations"
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _release_means(run: Path) -> dict[tuple[str, str], dict[str, float]]:
    """Every summary's expert and crowd means per dimension, from the fetched release files."""
    out = {}
    for rec in _release_records(run):
        row = {}
        for d in ("coherence", "consistency", "fluency", "relevance"):
            experts = [a[d] for a in rec["expert_annotations"]]
            crowd = [a[d] for a in rec["turker_annotations"]]
            row[d], row[f"turker_{d}"] = sum(experts) / len(experts), sum(crowd) / len(crowd)
        out[(rec["id"], rec["model_id"])] = row
    return out


@pytest.mark.workflow
def test_the_users_metric_on_summeval_equals_scipy_on_the_fetched_release(task1):
    """The leaderboard's system-level cells of length_ratio on SummEval's four expert dimensions, against
    scipy on the fetched release alone: the docs' length ratio of each summary from the release's own
    texts (words of `decoded` per mean word count of its `references`), averaged per system, and the
    experts' means per system."""
    import numpy as np
    from scipy import stats

    records = _release_records(task1)
    assert len(records) == 1200
    systems = sorted({r["model_id"] for r in records})
    ratio = {s: [] for s in systems}
    for r in records:
        words = sum(len(ref.split()) for ref in r["references"]) / len(r["references"])
        ratio[r["model_id"]].append(len(r["decoded"].split()) / max(words, 1.0))
    means = _release_means(task1)
    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv", numeric=("value",))
    cells = board[(board["dataset"] == "summeval") & (board["metric"] == "length_ratio") & (board["level"] == "system")]
    for d in ("coherence", "consistency", "fluency", "relevance"):
        human = [np.mean([v[d] for (_, s), v in means.items() if s == sys]) for sys in systems]
        expected = stats.pearsonr([np.mean(ratio[s]) for s in systems], human)[0]
        (value,) = cells.loc[cells["target"] == d, "value"]
        assert value == pytest.approx(expected, abs=1e-12), d


@pytest.mark.workflow
def test_summeval_answers_per_dimension_equal_scipy(task1):
    """SummEval from the release, one run: every dimension is a target of its own, and the system- and
    summary-level Pearson, Spearman and Kendall of every variant with it equal scipy's on the scores
    and on the annotators' means computed here from the release files."""
    import math

    import numpy as np
    from scipy import stats

    res = task1 / "results/summeval"
    dims = [*(d for d in ("coherence", "consistency", "fluency", "relevance")),
            *(f"turker_{d}" for d in ("coherence", "consistency", "fluency", "relevance"))]
    targets = tables.read_tsv(res / "human/targets.tsv")
    assert list(targets["target"]) == ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", *dims]
    assert list(targets.loc[targets["factual"] == "yes", "target"]) == ["consistency", "turker_consistency"]
    means = _release_means(task1)
    systems = sorted({s for _, s in means})
    # a system's score: the mean of its summaries' means, summed exactly (math.fsum), so that systems
    # whose means are equal tie as they do in exact arithmetic (Spearman and Kendall see ties)
    human = {d: np.array([math.fsum(vals := [v[d] for (t, s), v in means.items() if s == sys]) / len(vals)
                          for sys in systems]) for d in dims}
    scores = tables.read_tsv(res / "scores/system_scores.tsv", numeric=("score",))
    metric = scores.pivot(index="summarizer", columns="variant", values="score").loc[systems]
    corr = tables.read_tsv(res / "analysis/correlations.tsv", numeric=("pearson", "spearman", "kendall"))
    # an LLM judge (a file metric declared for the dimension it was asked about) serves that target only
    declared = tables.read_tsv(res / "scores/file_metrics/metrics.tsv")
    asked = {f"{m}_{stat}": dim for m, dim in zip(declared["metric"], declared["dimension"]) if dim not in ("", "NA")
             for stat in ("A", "M")}
    assert len(asked) == 2 * 36
    checked = 0
    for d in dims:
        mine = corr[corr["combination"] == d].set_index("variant")
        assert len(mine) == metric.shape[1]
        for variant in metric.columns:
            if asked.get(variant, d) != d:
                assert math.isnan(mine.loc[variant, "pearson"]) and int(mine.loc[variant, "n"]) == 0
                continue
            x = metric[variant].to_numpy(dtype=float)
            # a judge's median variant can be the same for every system: undefined (NaN) in both
            assert mine.loc[variant, "pearson"] == pytest.approx(stats.pearsonr(x, human[d])[0], abs=1e-12, nan_ok=True)
            assert mine.loc[variant, "spearman"] == pytest.approx(stats.spearmanr(x, human[d])[0], abs=1e-12,
                                                                  nan_ok=True)
            assert mine.loc[variant, "kendall"] == pytest.approx(stats.kendalltau(x, human[d])[0], abs=1e-12,
                                                                 nan_ok=True)
            checked += 1
    assert checked == 8 * (metric.shape[1] - len(asked)) + len(asked)
    # summary level: within each article across the 12 systems, averaged over the articles
    per = tables.read_tsv(res / "scores/summary_scores.tsv", numeric=("P", "R", "F"))
    per = per[(per["measure"] == "R2") & (per["stem"] == "1") & (per["stopwords_removed"] == "0")]
    level = tables.read_tsv(res / "analysis/summary_level_correlations.tsv", numeric=("pearson", "spearman", "kendall"))
    topics = sorted({t for t, _ in means})
    for d in ("coherence", "relevance", "turker_fluency"):
        common = _common_summaries(res, d) or set(means)     # the summaries every metric of d scores
        row = level[(level["metric"] == "R2_ST1_RS0_R") & (level["combination"] == d)].iloc[0]
        r, rho, tau = [], [], []
        for t in topics:
            kept = [s for s in systems if (t, s) in common]
            sub = per[per["topic"] == t].set_index("summarizer").loc[kept, "R"].to_numpy(dtype=float)
            h = np.array([means[(t, s)][d] for s in kept])
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
    # 13 targets, each a row: coverage (the rescaled mean of relevance, its one coverage dimension) ranks
    # the metrics as relevance does but for LLM_summeval's relevance judges, which serve relevance alone
    assert len(answers) == 2 * 13 and set(answers["level"]) == {"system", "summary"}
    assert {"coverage", "relevance"} <= set(answers["target"])
    assert list(answers.loc[answers["primary"] == "yes", "target"].unique()) == ["arithmetic"]


def _summary_frame(res: Path, scores: Path, metric: str = "length_ratio") -> "pd.DataFrame":
    """The judged summaries of one data set with their human targets and the metric's score (from
    the score file the test wrote, or from a data set's own metric_scores)."""
    import pandas as pd

    human = tables.read_tsv(res / "human/summary_human.tsv")
    file = pd.read_csv(scores, sep="\t", dtype=str, keep_default_na=False)
    if "dataset" in file.columns:
        file = file[file["dataset"] == res.name]
    file = file[file["metric"] == metric][["topic", "summarizer", "score"]]
    return human.merge(file, on=["topic", "summarizer"], how="inner")


def _common_summaries(res: Path, target: str) -> set | None:
    """The (topic, summarizer) pairs that every file metric serving ``target`` scores (all but those
    declared for another dimension, in metrics.tsv), read from the file-metric scores (the built-in
    metrics score every summary): the target's common ground below the system level; None when no
    file metric serves it."""
    import pandas as pd

    declared = pd.read_csv(res / "scores/file_metrics/metrics.tsv", sep="\t", dtype=str, keep_default_na=False)
    serving = {m for m, d in zip(declared["metric"], declared["dimension"]) if d in ("", "NA", target)}
    scores = pd.read_csv(res / "scores/file_metrics/scores.tsv", sep="\t", dtype=str, keep_default_na=False)
    scores = scores[scores["score"].str.upper().ne("NA") & scores["score"].ne("") & scores["metric"].isin(serving)]
    if scores.empty:
        return None
    return set.intersection(*(set(zip(g["topic"], g["summarizer"])) for _, g in scores.groupby("metric")))


@pytest.mark.workflow
def test_the_leaderboard_cells_of_the_users_metric_equal_scipy(task1):
    """Every leaderboard cell of the metric the test computed from to_score equals scipy on the same
    data: system r (systems' means), summary-level r within topics (mean over topics), pooled r, AUC
    (Mann-Whitney U over the labels) and ranking accuracy; FRANK's partial r of a released metric
    (least squares residuals on the systems, then Pearson)."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv", numeric=("value",))
    mine = board[(board["metric"] == "length_ratio") & (board["rank"] != "NA")]
    seen = set()
    for _, cell in mine.iterrows():
        res = task1 / "results" / cell["dataset"]
        f = _summary_frame(res, task1 / "my_scores.tsv")
        f = f[f["kind"] == "system"]
        if cell["subset"] not in ("all", "mean"):      # a SummEdits domain: its summaries alone
            f = f[f["topic"].map(_subsets(res)) == cell["subset"]]
        level = cell["level"]
        if level != "system":      # the summaries every metric scores (common ground)
            common = _common_summaries(res, cell["target"])
            if common is not None:
                f = f[[k in common for k in zip(f["topic"], f["summarizer"])]]
        x, y = f["score"].astype(float), pd.to_numeric(f[cell["target"]], errors="coerce")
        ok = ~np.isnan(x.to_numpy()) & ~np.isnan(y.to_numpy())
        f, x, y = f[ok], x[ok], y[ok]
        if level == "system":
            g = pd.DataFrame({"s": f["summarizer"], "x": x, "y": y}).groupby("s").mean()
            expected = stats.pearsonr(g["x"], g["y"])[0]
        elif level == "summary":
            rs = []
            for _, t in pd.DataFrame({"t": f["topic"], "x": x, "y": y}).groupby("t"):
                if len(t) >= 3 and t["x"].nunique() > 1 and t["y"].nunique() > 1:
                    rs.append(stats.pearsonr(t["x"], t["y"])[0])
            expected = float(np.mean(rs))
        elif level == "pooled":
            expected = stats.pearsonr(x, y)[0]
        elif level == "auc":
            label = y >= 1
            u = stats.mannwhitneyu(x[label], x[~label]).statistic
            expected = u / (label.sum() * (~label).sum())
        elif level == "partial":
            # SummEval's consistency: the partial r controlling for the system (residuals on the systems)
            expected = _partial_r(x.to_numpy(), y.to_numpy(), f["summarizer"])
        elif level == "balanced_accuracy":             # the mean over the domains: test_summedits_... below
            continue
        elif level == "ranking":
            # Rank19: per topic the correct summary (human 1) against the incorrect one (0)
            pairs = pd.DataFrame({"t": f["topic"], "x": x, "y": y}).pivot_table(index="t", columns="y", values="x")
            expected = float((pairs[1.0] > pairs[0.0]).sum() / len(pairs))
        else:
            raise AssertionError(f"unexpected level {level} for length_ratio")
        assert cell["value"] == pytest.approx(expected, abs=1e-9), (cell["dataset"], cell["target"], level)
        seen.add((cell["dataset"], level))
    assert {("summeval", "system"), ("summeval", "summary"), ("realsumm", "system"), ("realsumm", "summary"),
            ("newsroom", "system"), ("qags_cnn", "pooled"), ("qags_cnn", "auc"), ("qags_xsum", "auc"),
            ("rank19", "pooled"), ("rank19", "ranking"), ("summeval", "partial"), ("xsumfaith", "pooled"),
            ("xsumfaith", "partial"), ("summedits", "auc")} <= seen
    # every benchmark of the catalog is on the leaderboard, SummEdits with a column per domain
    assert set(board["dataset"]) >= set(NAMES)
    domains = set(board.loc[(board["dataset"] == "summedits") & (board["level"] == "auc"), "subset"])
    assert domains == {"all", "ectsum", "news", "podcast", "qmsumm", "sales_call", "sales_email", "samsum", "scitldr"}
    # FRANK has no texts: the metric is absent there, and says why
    frank = board[(board["metric"] == "length_ratio") & (board["dataset"] == "frank")]
    assert len(frank) and set(frank["note"]) == {"no texts (score-only data set)"}
    # FRANK's partial r of a released metric: residuals of metric and human on the systems
    partial = board[(board["dataset"] == "frank") & (board["level"] == "partial")
                    & (board["metric"] == "BertScore_F1_Art")].iloc[0]
    res = task1 / "results/frank"
    human = tables.read_tsv(res / "human/summary_human.tsv")
    scores = tables.read_tsv(res / "scores/file_metrics/scores.tsv")
    scores = scores[scores["metric"] == "BertScore_F1_Art"]
    f = human.merge(scores, on=["topic", "summarizer"])
    # on the summaries all 15 released metrics score (common ground: 87 lack Dep Entail or FEQA)
    common = _common_summaries(res, "Factuality")
    f = f[[k in common for k in zip(f["topic"], f["summarizer"])]]
    assert float(partial["n"]) == len(f) == 2159
    x, y = f["score"].astype(float).to_numpy(), pd.to_numeric(f["Factuality"]).to_numpy()
    assert partial["value"] == pytest.approx(_partial_r(x, y, f["summarizer"]), abs=1e-9)


def _subsets(res: Path) -> dict[str, str]:
    """topic -> its summaries' subset (SummEdits: one summary per topic), from the canonical copy."""
    import json

    lines = (res / "data/summaries.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["topic"]: r.get("subset", "") for r in map(json.loads, lines)}


def _partial_r(x, y, systems) -> float:
    """Pearson r of the least-squares residuals of x and y on the systems (dummy variables)."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    dummies = pd.get_dummies(pd.Series(list(systems))).to_numpy(dtype=float)
    rx = x - dummies @ np.linalg.lstsq(dummies, x, rcond=None)[0]
    ry = y - dummies @ np.linalg.lstsq(dummies, y, rcond=None)[0]
    return stats.pearsonr(rx, ry)[0]


def _williams_p(r12: float, r13: float, r23: float, n: int) -> float:
    """Williams' test (Steiger 1980, eq. 7; R's psych::r.test), one-sided: r12 > r13."""
    det = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * ((n - 1) * (1 + r23)) ** 0.5 / (
        2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3) ** 0.5
    from scipy import stats

    return float(stats.t.sf(t, n - 3))


@pytest.mark.workflow
def test_the_users_wins_and_losses_against_two_released_metrics_by_hand(task1):
    """REALSumm, system level: length_ratio against BERTScore_F and JS2 by Williams' formula worked
    here from the systems' means (the released scores from the data set's own score file); summary
    level: the paired bootstrap over the same topic draws (numpy's default_rng(seed).integers per
    sample, the project's documented draws), from per-topic Pearson r computed with scipy."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    res = task1 / "results/realsumm"
    tests = tables.read_tsv(task1 / "results/all/leaderboard_tests.tsv", numeric=("p_better", "p_worse"))
    tests = tests[(tests["dataset"] == "realsumm") & (tests["target"] == "litepyramid_recall")
                  & (tests["metric"] == "length_ratio")].set_index(["level", "other"])
    human = tables.read_tsv(res / "human/summary_human.tsv")
    released = tables.read_tsv(res / "scores/file_metrics/scores.tsv")
    mine = _summary_frame(res, task1 / "my_scores.tsv")[["topic", "summarizer", "score"]]
    columns = {"length_ratio": mine}
    for other in ("BERTScore_F", "JS2"):
        columns[other] = released[released["metric"] == other][["topic", "summarizer", "score"]]
    f = human[["topic", "summarizer", "litepyramid_recall"]]
    for name, c in columns.items():
        f = f.merge(c.rename(columns={"score": name}), on=["topic", "summarizer"])
    f = f.astype({n: float for n in [*columns, "litepyramid_recall"]})
    g = f.groupby("summarizer").mean(numeric_only=True)
    n = len(g)
    verdicts = {}
    for other in ("BERTScore_F", "JS2"):
        r12 = stats.pearsonr(g["length_ratio"], g["litepyramid_recall"])[0]
        r13 = stats.pearsonr(g[other], g["litepyramid_recall"])[0]
        r23 = stats.pearsonr(g["length_ratio"], g[other])[0]
        better, worse = _williams_p(r12, r13, r23, n), _williams_p(r13, r12, r23, n)
        row = tests.loc[("system", other)]
        assert (row["p_better"], row["p_worse"]) == pytest.approx((better, worse), abs=1e-9)
        verdicts[("system", other)] = "win" if better < 0.05 else "loss" if worse < 0.05 else "tie"
    # summary level: within-topic r per topic, then the topic draws of correlation.seed
    options = Options.from_config(run_config(task1)).correlate
    order = sorted(set(human["topic"]))                # the analyses' topics: summary_human's, sorted
    by_topic = dict(list(f.groupby("topic")))

    def within(m: str, topic: str) -> float:
        t = by_topic.get(topic)
        if t is None or len(t) < 3 or t[m].nunique() < 2 or t["litepyramid_recall"].nunique() < 2:
            return np.nan
        return stats.pearsonr(t[m], t["litepyramid_recall"])[0]

    per_topic = {m: np.array([within(m, t) for t in order]) for m in columns}
    samples = options.bootstrap_samples
    rng = np.random.default_rng(options.seed)
    boot = {m: [] for m in columns}
    for _ in range(samples):
        idx = rng.integers(0, len(order), len(order))
        for m in columns:
            drawn = per_topic[m][idx]
            boot[m].append(np.nanmean(drawn))
    for other in ("BERTScore_F", "JS2"):
        d = np.array(boot["length_ratio"]) - np.array(boot[other])
        better, worse = float(np.mean(d <= 0)), float(np.mean(-d <= 0))
        row = tests.loc[("summary", other)]
        assert (row["p_better"], row["p_worse"]) == pytest.approx((better, worse), abs=1e-12)
        verdicts[("summary", other)] = "win" if better < 0.05 else "loss" if worse < 0.05 else "tie"
    for key, verdict in verdicts.items():
        assert tests.loc[key, "verdict"] == verdict, key


def _csv(path: Path) -> list[dict[str, str]]:
    import csv

    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.workflow
def test_xsumfaiths_pooled_correlations_equal_scipy_on_the_fetched_release(task1):
    """XSumFaith as its paper reports it: the Pearson and Spearman correlations of the authors'
    BERTScore and Entailment with their faithful and factual scores over every judged summary pooled
    (the 1,992 of eval_scores_xsum_summaries.csv, read here with csv alone) are scipy's; the
    leaderboard's pooled cells are the same Pearson r."""
    from scipy import stats

    rows = _csv(task1 / "results/xsumfaith/release/eval_scores_xsum_summaries.csv")
    assert len(rows) == 1992
    table = tables.read_tsv(task1 / "results/xsumfaith/analysis/summary_level_correlations.tsv",
                            numeric=("pearson", "spearman"), integer=("summaries",))
    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv", numeric=("value",))
    for metric in ("BERTScore", "Entailment"):
        x = [float(r[metric]) for r in rows]
        for target, column in (("faithful", "Faithful"), ("factual", "Factual")):
            y = [float(r[column]) for r in rows]
            (row,) = table[(table["metric"] == metric) & (table["combination"] == target)].itertuples()
            assert row.level == "summary (all judged summaries pooled)" and row.summaries == 1992
            assert row.pearson == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12), (metric, target)
            assert row.spearman == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12), (metric, target)
            (cell,) = board[(board["dataset"] == "xsumfaith") & (board["target"] == target)
                            & (board["level"] == "pooled") & (board["metric"] == metric)]["value"]
            assert cell == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    # Gold is the reference of the four systems: judged by the workers (annotations), scored by no metric
    summary = dict(tables.read_tsv(task1 / "results/xsumfaith/data/summary.tsv").itertuples(index=False, name=None))
    assert (summary["systems"], summary["judged_summaries"], summary["human_summarizers"]) == ("4", "1992", "1")
    annotations = tables.read_tsv(task1 / "results/xsumfaith/data/annotations.tsv")
    assert (annotations["summarizer"] == "Gold").sum() == 1500
    alpha = tables.read_tsv(task1 / "results/xsumfaith/annotators/alpha.tsv")
    assert set(zip(alpha["dimension"], alpha["measurement"])) == {("faithful", "interval"), ("factual", "nominal")}


def _best_threshold(labels, scores) -> float:
    """The threshold (midpoints of the sorted distinct scores, one beyond each end; the lowest on ties)
    with the highest scikit-learn balanced accuracy of score >= threshold."""
    import numpy as np
    from sklearn.metrics import balanced_accuracy_score

    u = np.unique(scores)
    candidates = [u[0] - 1, *((u[:-1] + u[1:]) / 2), u[-1] + 1]
    accuracy = [balanced_accuracy_score(labels, scores >= c) for c in candidates]
    return candidates[int(np.argmax(accuracy))]


@pytest.mark.workflow
def test_summedits_auc_and_balanced_accuracy_of_my_metric_equal_scikit_learn_per_domain(task1):
    """SummEdits' protocol on the user's metric (the docs' length ratio: words of the summary per word
    of its document, the release giving no reference) computed here from the fetched domain files with
    json alone: per domain the AUC (roc_auc_score) and the balanced accuracy (balanced_accuracy_score)
    on the test split at the threshold chosen on the evaluation split; the leaderboard's domain
    columns and the mean over the domains."""
    import json

    import numpy as np
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    folder = task1 / "results/summedits/release/data/summedits"
    binary = tables.read_tsv(task1 / "results/summedits/factuality/binary.tsv",
                             numeric=("auc", "balanced_accuracy_test", "threshold"))
    binary = binary[binary["metric"] == "length_ratio"].set_index("subset")
    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv", numeric=("value",))
    board = board[(board["dataset"] == "summedits") & (board["metric"] == "length_ratio")]
    accuracy = {}
    for path in sorted(folder.glob("summedits_*.json")):
        domain = path.stem[len("summedits_"):]
        records = json.loads(path.read_text(encoding="utf-8"))
        x = np.array([len(r["summary"].split()) / max(len(r["doc"].split()), 1.0) for r in records])
        y = np.array([int(r["label"]) for r in records])
        ev = np.array([r["split"] == "evaluation" for r in records])
        threshold = _best_threshold(y[ev], x[ev])
        accuracy[domain] = balanced_accuracy_score(y[~ev], x[~ev] >= threshold)
        if domain in ("news", "podcast"):
            assert binary.loc[domain, "auc"] == pytest.approx(roc_auc_score(y, x), abs=1e-12), domain
            assert binary.loc[domain, "balanced_accuracy_test"] == pytest.approx(accuracy[domain], abs=1e-12), domain
            (cell,) = board[(board["level"] == "auc") & (board["subset"] == domain)]["value"]
            assert cell == pytest.approx(roc_auc_score(y, x), abs=1e-12)
    assert len(accuracy) == 8
    (mean,) = board[board["level"] == "balanced_accuracy"]["value"]
    assert mean == pytest.approx(np.mean(list(accuracy.values())), abs=1e-12)
    # the records carry the document as the source and no reference
    record = json.loads((task1 / "results/to_score/summedits.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert record["references"] == [] and record["source"].startswith("Send this page to someone via email")


@pytest.mark.workflow
def test_qags_alpha_on_both_halves_equals_krippendorff_on_the_fetched_judgments(task1):
    """QAGS's annotators: alpha (nominal) over the sentences (units) and the workers (coders, by the
    release's ids) by the krippendorff package on the fetched mturk files, read here with json alone;
    the human ceiling of the summary-level score, pooled (one system), is in ceiling.tsv."""
    import json

    import krippendorff
    import numpy as np

    for name, release in (("qags_cnn", "mturk_cnndm.jsonl"), ("qags_xsum", "mturk_xsum.jsonl")):
        lines = (task1 / "results" / name / "release/data" / release).read_text(encoding="utf-8").splitlines()
        units = [s for rec in map(json.loads, lines) for s in rec["summary_sentences"]]
        workers = sorted({r["worker_id"] for s in units for r in s["responses"]})
        data = np.full((len(workers), len(units)), np.nan)
        for u, s in enumerate(units):
            for r in s["responses"]:
                data[workers.index(r["worker_id"]), u] = r["response"] == "yes"
        alpha = tables.read_tsv(task1 / "results" / name / "annotators/alpha.tsv", numeric=("alpha",))
        (row,) = alpha[alpha["dimension"] == "fact"].itertuples()
        assert (row.measurement, int(row.items)) == ("nominal", len(units))
        assert row.alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                          abs=1e-12)
        ceiling = tables.read_tsv(task1 / "results" / name / "annotators/ceiling.tsv", numeric=("value",))
        single = ceiling[(ceiling["dimension"] == "fact") & (ceiling["predictor"] == "single annotator")
                         & (ceiling["level"] == "summary") & (ceiling["coefficient"] == "pearson")]["value"]
        assert len(single) == 1 and 0 < float(single.iloc[0]) < 1


@pytest.mark.workflow
def test_the_leaderboard_page_in_a_browser(task1, tmp_path):
    """results/all/leaderboard.html and the report across data sets, as headless Chromium renders
    them: clean, the focus metric first with its wins, ties and losses, one header per benchmark, and
    the absent cells saying why."""
    from test_across import browser_check

    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv")
    for page in (task1 / "results/all/leaderboard.html", task1 / "results/all/report.html"):
        dom = browser_check(page, tmp_path / f"{page.stem}.png")
        html_tag = re.search(r"<html[^>]*>", dom)[0]
        assert 'data-ready="yes"' in html_tag and "data-errors" not in html_tag, html_tag
        assert (tmp_path / f"{page.stem}.png").stat().st_size > 20000
        table = dom[dom.index('<div class="leaderboard">'):]
        table = table[:table.index("</table>")]
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
        first_metric = next(r for r in rows if "<td" in r)
        assert "► length_ratio" in first_metric and re.search(r"\d+W \d+T \d+L", first_metric)
        for name in NAMES:
            assert f">{name}</th>" in table, name
        assert ">no texts</small>" in table
    assert set(board["dataset"]) == set(NAMES)


def _word_count_rows(texts: Path) -> list[str]:
    """A second metric of the to_score records: the summary's length in words."""
    import json

    rows = []
    for f in sorted(texts.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["summary"] is not None:
                rows.append(f"{record['dataset']}\t{record['topic']}\t{record['summarizer']}\tword_count\t"
                            f"{float(len(record['summary'].split()))!r}")
    return rows


def _result_files(workdir: Path) -> dict[str, bytes]:
    """Every file of a run's results but its logs, memos and texts out."""
    root = workdir / "results"
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not {"logs", MEMO, "to_score"} & set(p.relative_to(root).parts)}


@pytest.mark.workflow
def test_a_metric_added_to_the_score_file_re_runs_to_a_fresh_runs_bytes(task1, tmp_path, loopback_mirror):
    """A second metric joins the score file of the benchmarks already run: the re-run reads the other
    metrics' rows from the jobs' memos (their logs say so) and writes the same bytes as a fresh run of
    both metrics."""
    import shutil

    scores = tmp_path / "two_metrics.tsv"
    scores.write_text((task1 / "my_scores.tsv").read_text(encoding="utf-8")
                      + "\n".join(_word_count_rows(task1 / "results/to_score")) + "\n", encoding="utf-8")
    mine = {"metric_scores": [str(scores)], "leaderboard": {"focus": ["length_ratio", "word_count"]}}
    rerun, fresh = tmp_path / "rerun", tmp_path / "fresh"
    shutil.copytree(task1, rerun, symlinks=True)           # copy2: the files keep their times
    (fresh / "config").mkdir(parents=True)
    shutil.copy(task1 / "config/config.yaml", fresh / "config/config.yaml")
    env = mirror_env(loopback_mirror[0], task1 / "resources/benchmarks")
    for workdir in (rerun, fresh):
        (workdir / "my.yaml").write_text(yaml.safe_dump(mine))
        snakemake(workdir, "--cores", "2", "--configfile", str(task1 / ".test/config/benchmarks.yaml"),
                  str(task1 / "light.yaml"), str(workdir / "my.yaml"), env=env)
    log = (rerun / "results/summeval/logs/statistics.log").read_text(encoding="utf-8")
    # word_count_A and word_count_M join the tested variants of the first run (the built-in ones, the
    # user's and the LLM judges'): those two rows alone are computed
    import re

    counts = re.findall(r"memo resampled: (\d+) of (\d+) rows read from the last run, (\d+) computed", log)
    assert counts and all(int(total) == int(read) + 2 and computed == "2" for read, total, computed in counts), log
    assert "word_count" in (rerun / "results/all/leaderboard.tsv").read_text(encoding="utf-8")
    kept, new = _result_files(rerun), _result_files(fresh)
    assert sorted(kept) == sorted(new)
    assert [name for name in kept if kept[name] != new[name]] == []


@pytest.mark.workflow
def test_every_leaderboard_column_has_its_random_floor(task1):
    """The leaderboard gathers the random floor of every column, in the columns' order, from the data
    sets' floor tables; a random metric's AUC, ranking accuracy and balanced accuracy are about one
    half, its correlations about 0; the page shows the floor row."""
    board = tables.read_tsv(task1 / "results/all/leaderboard.tsv")
    floor = tables.read_tsv(task1 / "results/all/leaderboard_floor.tsv", numeric=("floor_mean", "floor_lo", "floor_hi"))
    assert list(floor.columns) == ["dataset", "target", "level", "subset", "statistic", "floor_mean", "floor_lo",
                                   "floor_hi"]
    key = ["dataset", "target", "level", "subset"]
    columns = board[key].drop_duplicates()
    assert floor[key].values.tolist() == columns.values.tolist()
    assert (floor["floor_lo"] <= floor["floor_mean"]).all() and (floor["floor_mean"] <= floor["floor_hi"]).all()
    half = floor["level"].isin(["auc", "ranking", "balanced_accuracy"])
    assert (floor["level"] == "balanced_accuracy").any()
    assert (floor.loc[half, "floor_mean"] - 0.5).abs().max() < 0.03
    assert floor.loc[~half, "floor_mean"].abs().max() < 0.1
    # the data set's own table names the metric whose scores were permuted: the column's best there
    own = tables.read_tsv(task1 / "results/summeval/analysis/floor.tsv")
    corr = tables.read_tsv(task1 / "results/summeval/analysis/correlations.tsv", numeric=("pearson",))
    coherence = corr[corr["combination"] == "coherence"]
    best = coherence.loc[coherence["pearson"].idxmax(), "variant"]
    assert own[(own["target"] == "coherence") & (own["level"] == "system")]["metric"].tolist() == [best]
    assert "random floor" in (task1 / "results/all/leaderboard.md").read_text(encoding="utf-8")
