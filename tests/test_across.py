"""Across data sets (results/all/): the replicability analysis against the authors' procedure
worked by hand and scipy, the stage on hand-made tables, and the workflow on the four data sets
(default, summeval, realsumm, newsroom) with both reports rendered in a real headless browser."""
from __future__ import annotations

import html
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import yaml

from conftest import REPO, SHARED_DATA, job_counts, scenario_config, snakemake
from metaeval import tables
from metaeval.options import AcrossOptions, ConfigError, Options
from metaeval.stages import across
from metaeval.stats.replicability import partial_conjunction, replicability
from reference import require

# The example of Dror et al.'s own script (rtmdrr/replicability-analysis-NLP).
EXAMPLE = [0.168, 0.297, 0.357, 0.019, 0.218, 0.001]


def test_bonferroni_partial_conjunction_by_hand():
    # sorted: .001 .019 .168 .218 .297 .357; p^u = (6 - u + 1) p_(u), then the running maximum
    assert partial_conjunction(EXAMPLE, "bonferroni") == pytest.approx([0.006, 0.095, 0.672, 0.672, 0.672, 0.672])
    rep = replicability(EXAMPLE, 0.05, "bonferroni")
    assert (rep.k_hat, rep.holds_on) == (1, (5,))
    assert replicability(EXAMPLE, 0.1, "bonferroni").holds_on == (3, 5)


def test_fisher_partial_conjunction_against_scipy():
    p = sorted(EXAMPLE)
    expected = [scipy.stats.chi2.sf(-2 * sum(math.log(x) for x in p[u:]), 2 * (6 - u)) for u in range(6)]
    expected = list(np.maximum.accumulate(expected))
    assert partial_conjunction(EXAMPLE, "fisher") == pytest.approx(expected, rel=1e-12)
    assert expected[1] < 0.05 < expected[2]           # two data sets: the .001 and the .019
    assert replicability(EXAMPLE, 0.05, "fisher")[:2] == (2, (3, 5))


def _corr(rows):
    return pd.DataFrame([{"variant": v, "combination": "coverage", "pearson": r, "pearson_lo": r - 0.1,
                          "pearson_hi": r + 0.1, "spearman": r, "kendall": r} for v, r in rows]).set_index("variant")


def _williams(variants, beats):
    """A Williams matrix where row u beats column v with p = 0.01 for (u, v) in ``beats``, else 0.5."""
    w = pd.DataFrame([[("" if u == v else "0.01" if (u, v) in beats else "0.5") for v in variants] for u in variants],
                     index=variants, columns=variants)
    w.index.name = "variant"
    return w


def test_stage_ranks_beaten_and_replicability_on_hand_made_tables():
    corr = {"d1": _corr([("A", 0.9), ("B", 0.8), ("C", 0.1), ("X", 0.95)]),
            "d2": _corr([("A", 0.7), ("B", 0.75), ("C", 0.2)]),
            "d3": pd.DataFrame()}                      # without the combination
    will = {"d1": _williams(["A", "B", "C", "X"], {("A", "C"), ("B", "C"), ("X", "C"), ("X", "B")}),
            "d2": _williams(["A", "B", "C"], {("A", "C"), ("B", "C")}), "d3": pd.DataFrame()}
    opts = AcrossOptions(("d1", "d2", "d3"), "coverage", "bonferroni", 0.05, ("A", "C", "Z"), 1, 0, "williams")
    r = across.compute(corr, will, opts)
    assert r.datasets == ["d1", "d2"] and r.skipped[0][0] == "d3"
    assert r.variants == ["A", "B", "C"]                     # mean ranks 1.5, 1.5 (stable order), 3
    assert r.rank.tolist() == [[1, 2], [2, 1], [3, 3]]
    # beaten among the common variants only: X (d1 only) beating B does not count
    assert r.beaten.tolist() == [[False, False], [False, False], [True, True]]
    assert list(r.robust) == [True, True, False]
    assert ("X", "not computed on d2 (compared where it is computed: leaderboard.tsv)") in r.excluded and ("Z", "named in across.variants but computed on none of "
                                                                "the data sets") in r.excluded
    pair = {(p.a, p.b): p for p in r.pairs}
    assert r.compared == ["A", "C"]
    # A > C: p = 0.01 on both; Bonferroni: p^1 = 2 * 0.01, p^2 = 0.01 -> running max 0.02: both
    assert (pair[("A", "C")].k_hat, pair[("A", "C")].holds_on) == (2, ["d1", "d2"])
    assert pair[("C", "A")].k_hat == 0


def test_a_variant_with_an_undefined_r_is_not_ranked_there_nor_robustly_optimal():
    # S is constant over d1's systems (r NA there) and best on d2: its mean rank (1, from d2 alone)
    # is the lowest, but it has no verdict on d1, so it comes after the variants ranked on both and
    # is not robustly optimal; A, ranked 1 and 2 and never beaten, is the best and robust
    corr = {"d1": _corr([("A", 0.9), ("B", 0.8), ("S", math.nan)]),
            "d2": _corr([("A", 0.7), ("B", 0.6), ("S", 0.95)])}
    will = {"d1": _williams(["A", "B", "S"], set()), "d2": _williams(["A", "B", "S"], set())}
    opts = AcrossOptions(("d1", "d2"), "coverage", "bonferroni", 0.05, (), 3, 0, "williams")
    r = across.compute(corr, will, opts)
    assert r.variants == ["A", "B", "S"]
    assert np.isnan(r.rank[2, 0]) and r.rank[2, 1] == 1
    assert list(r.defined_on) == [2, 2, 1]
    assert list(r.robust) == [True, True, False]
    rows = across.by_target({d: f.reset_index() for d, f in corr.items()},
                            lambda d, t: will[d].reset_index(), opts)
    assert rows[0]["best"] == "A" and rows[0]["robust_variants"] == "A,B"


def test_permutation_p_values_are_used_when_the_statistics_job_writes_them():
    base = {"datasets": {"x": {"format": "simulated"}, "y": {"format": "simulated", "seed": 2}}}
    assert Options.from_config(base).across.tests == "williams"      # statistics.combinations: [main]
    chosen = Options.from_config({**base, "statistics": {"optimal": "permutation"}})
    assert chosen.across.tests == "permutation"
    listed = Options.from_config({**base, "statistics": {"combinations": ["coverage"]}})
    assert listed.across.tests == "permutation"
    off = Options.from_config({**base, "statistics": {"enabled": False, "combinations": ["coverage"]}})
    assert off.across.tests == "williams"


def test_reserved_names_and_unknown_combination_are_refused():
    with pytest.raises(ConfigError, match=r"config key datasets.all: 'all' is reserved"):
        Options.from_config({"datasets": {"all": {"format": "simulated"}}})
    two = {"x": {"format": "simulated"}, "y": {"format": "simulated"}}
    with pytest.raises(ConfigError, match=r"config key across.combination: 'relevance' is not one of"):
        Options.from_config({"datasets": two, "across": {"combination": "relevance"}})
    # one data set: no verdict across data sets, so its combination is never needed
    Options.from_config({"datasets": {"x": {"format": "simulated"}}, "human_scores": {"combinations": ["arithmetic"]}})


# ----------------------------------------------------------------------------- the workflow

LIGHT = {"rouge": {"measures": ["R1", "R2", "RL", "RSU4"], "stemming": [1], "stopwords_removed": [0]},
         "sera": {"enabled": False}, "correlation": {"bootstrap_samples": 200,
                                                     "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]},
         "rerank": {"original": "R2_ST1_RS0_M_R"},
         "sweeps": {"variants": ["R2_ST1_RS0_A_R"], "word_limits": [50], "compression": [20]},
         "intervals": {"shown": ["R2_ST1_RS0_A_R"], "resamples": 100}}


def browser_check(page: Path, shot: Path | None = None) -> str:
    """Load a page in headless Chromium: its DOM after the scripts ran (and a screenshot)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        require("chromium is not installed (Debian: chromium)", "headless Chromium")
    flags = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,1500"]
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    if shot is not None:
        subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120, check=True)
    return dom.stdout


@pytest.fixture(scope="module")
def four(tmp_path_factory) -> Path:
    for name in ("summeval", "realsumm", "newsroom"):
        if not (SHARED_DATA / name).is_dir():
            require(f"{SHARED_DATA / name} is not available", "the real data sets of ../shared/data")
    workdir = tmp_path_factory.mktemp("across")
    config = scenario_config("across.yaml")
    for entry in config["datasets"].values():
        if "path" in entry:
            entry["path"] = str(REPO / entry["path"])
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump({**config, **LIGHT}))
    snakemake(workdir, "--cores", "2")
    return workdir


@pytest.mark.workflow
def test_the_verdict_across_four_data_sets_follows_each_data_sets_correlations(four):
    res = four / "results"
    table = tables.read_tsv(res / "all/variants.tsv", numeric=("mean_rank",))
    names = ["default", "newsroom", "realsumm", "summeval"]
    per = {d: tables.read_tsv(res / d / "analysis/correlations.tsv", numeric=("pearson",)) for d in names}
    per = {d: f[f["combination"] == "coverage"].set_index("variant")["pearson"] for d, f in per.items()}
    common = sorted(set.intersection(*(set(s.index) for s in per.values())))
    assert sorted(table["variant"]) == common                  # realsumm's file metrics are left out
    excluded = tables.read_tsv(res / "all/excluded.tsv")
    assert "BERTScore_R_A" in set(excluded["name"])
    # ranks recomputed with pandas (highest r = 1, ties share the lower rank)
    ranks = pd.DataFrame({d: per[d][common].rank(ascending=False, method="min") for d in names})
    for _, row in table.iterrows():
        for d in names:
            assert float(row[f"rank_{d}"]) == ranks.loc[row["variant"], d]
        assert float(row["mean_rank"]) == pytest.approx(ranks.loc[row["variant"]].mean(), abs=1e-12)
    assert list(table["mean_rank"]) == sorted(table["mean_rank"])
    rep = tables.read_tsv(res / "all/replicability.tsv")
    pair = rep[(rep["variant_a"] == "R2_ST1_RS0_A_R") & (rep["variant_b"] == "BLEU_ST1_RS0")].iloc[0]
    p = [float(pair[f"p_{d}"]) for d in names]
    expected = replicability(p, 0.05, "bonferroni")
    assert int(pair["k_hat"]) == expected.k_hat == int(np.sum(np.maximum.accumulate(
        np.minimum(1, (4 - np.arange(4)) * np.sort(p))) <= 0.05))


@pytest.mark.workflow
def test_both_reports_answer_first_and_load_clean_in_a_browser(four, tmp_path):
    for page, heading in ((four / "results/all/report.html", "Which metric to trust across data sets?"),
                          (four / "results/summeval/report.html", "Which metric to trust on")):
        text = page.read_text()
        body = text[text.index("<body>"):]
        if page.parent.name == "all":
            # the verdict on the focus metrics, the leaderboard, then the verdict across data sets
            assert (body.index('class="lb-verdict"') < body.index('id="leaderboard"') < body.index('class="answer"')
                    < body.index("Contents"))
        else:
            assert body.index('class="answer"') < body.index("Contents") < body.index("<details>")
        dom = browser_check(page, tmp_path / f"{page.parent.name}.png")
        html_tag = re.search(r"<html[^>]*>", dom)[0]
        assert 'data-ready="yes"' in html_tag and "data-errors" not in html_tag, html_tag
        assert (tmp_path / f"{page.parent.name}.png").stat().st_size > 20000
        assert heading in dom
    verdict = (four / "results/summeval/report.html").read_text()
    assert re.search(r"the best metric for \w+ is <b>\S+</b> \(r = [0-9.]+, 95% CI", verdict)


@pytest.mark.workflow
def test_adding_a_data_set_reruns_only_its_jobs_and_the_verdict(four):
    extra = four / "extra.yaml"
    cfg = yaml.safe_load((four / "config/config.yaml").read_text())
    cfg["datasets"]["extra"] = {"format": "simulated", "topics": 6, "systems": 4, "humans": 2, "seed": 9}
    extra.write_text(yaml.safe_dump(cfg))
    out = snakemake(four, "-n", "--configfile", str(extra)).stdout
    assert set(re.findall(r"wildcards: .*?dataset=([A-Za-z0-9_-]+)", out)) == {"extra"}
    assert job_counts(out)["across"] == 1


@pytest.mark.workflow
def test_the_report_opens_with_one_row_per_target_and_level_in_a_browser(four, tmp_path):
    """The opening table, as headless Chromium renders it: one row per target and level, numbers at 3
    decimals, sorted by r within each level; then the sentence about the primary target."""
    res = four / "results/summeval"
    targets = list(tables.read_tsv(res / "human/targets.tsv")["target"])
    # SummEval's canonical copy: Graham's 5 combinations (no pyramids), then its 4 dimensions by name
    assert targets == ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality",
                       "coherence", "consistency", "fluency", "relevance"]
    dom = browser_check(res / "report.html", tmp_path / "summeval.png")
    opening = dom[dom.index("<h1>"):dom.index('class="toc"')]
    table = re.search(r'<div class="answers">(.*?)</table>', opening, re.S)[1]
    rows = [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", tr)]
            for tr in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)]
    # coverage is the rescaled mean of SummEval's one coverage dimension, relevance: the two rank every
    # metric alike and share one row, "coverage = relevance"
    assert len(rows) == 2 * (len(targets) - 1)
    for level in ("system", "summary"):
        mine = [r for r in rows if r[1] == level]
        assert "coverage = relevance" in [r[0] for r in mine]
        assert sorted(t for r in mine for t in r[0].removesuffix(" (primary)").split(" = ")) == sorted(targets)
        r_values = [float(r[3]) for r in mine]
        assert r_values == sorted(r_values, reverse=True)
        assert all(re.fullmatch(r"-?[0-9]\.[0-9]{3}", r[3]) for r in mine)
        assert [r[0] for r in mine if r[0].endswith(" (primary)")] == ["arithmetic (primary)"]
    # the same rows as answers.tsv (full precision there)
    answers = tables.read_tsv(res / "analysis/answers.tsv", numeric=("r",))
    for r in rows:
        row = answers[(answers["target"] == r[0].removesuffix(" (primary)")) & (answers["level"] == r[1])].iloc[0]
        assert r[2] == row["best"] and r[3] == f"{row['r']:.3f}"
    assert opening.index('class="answers"') < opening.index("the best metric for")


@pytest.mark.workflow
def test_the_verdict_across_data_sets_per_target(four):
    """results/all/targets.tsv: every target two or more data sets share; for across.combination it is
    the main verdict's (variants.tsv, computed on its own)."""
    res = four / "results/all"
    per = tables.read_tsv(res / "targets.tsv").set_index("target")
    assert {"coverage", "arithmetic", "coherence", "fluency", "relevance"} <= set(per.index)
    variants = tables.read_tsv(res / "variants.tsv")
    assert per.loc["coverage", "best"] == variants["variant"].iloc[0]
    assert int(per.loc["coverage", "robustly_optimal"]) == int((variants["robustly_optimal"] == "yes").sum())
    # coherence: summeval and newsroom judge it (by that name); the default and realsumm do not
    assert per.loc["coherence", "datasets"] == "newsroom,summeval"


@pytest.mark.workflow
def test_the_reports_verdict_counts_those_of_leaderboard_tests_tsv(four):
    """Every count of the report's verdict (REALSumm's shipped metrics are the focus: no focus is
    configured) against the same count taken with pandas from leaderboard.tsv and leaderboard_tests.tsv."""
    from test_leaderboard_glance import _counts_from_tsvs
    from metaeval.stages.leaderboard_verdict import slug

    res = four / "results/all"
    page = (res / "report.html").read_text()
    links = {m[1]: (html.unescape(m[3]), m[2]) for m in
             re.finditer(r'<a class="lb-count" href="#lb-([a-z0-9-]+)" data-lb-columns="([^"]*)">([^<]*)</a>', page)}
    rows = tables.read_tsv(res / "leaderboard.tsv")
    focus = list(dict.fromkeys(rows.loc[rows["focus"] == "yes", "metric"]))
    baselines = list(dict.fromkeys(rows.loc[rows["kind"] == "baseline", "metric"]))
    assert focus and baselines
    for m in focus:
        for b in baselines:
            counted = _counts_from_tsvs(res / "leaderboard.tsv", res / "leaderboard_tests.tsv", m, b)
            text, columns = links[f"{slug(m)}-not-worse"]
            assert text == f"{counted['not_worse']} of the {counted['valued']} columns where it has a value"
            assert len(columns.split()) == counted["not_worse"]
            assert links[f"{slug(m)}-worse"][0] == str(counted["worse"])
            assert links.get(f"{slug(m)}-untested", ("0",))[0] == str(counted["untested"])
            assert links[f"{slug(m)}-beats-{slug(b)}"][0] == str(counted["wins"])
            assert links[f"{slug(m)}-loses-{slug(b)}"][0] == str(counted["losses"])
