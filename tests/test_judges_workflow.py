"""A user's own LLM judge end to end through Snakemake on SummEval (../shared/data/summeval): a
pointwise file with three samples per summary and a pairwise file with every item in both orders,
written here from a seeded generator; the judges' outputs are checked against values computed in the
test from those input files and SummEval's judgments (scipy, plain Python), never with the library."""
from __future__ import annotations

import html
import re
import statistics
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
import yaml
from scipy.stats import kendalltau, pearsonr, spearmanr

from conftest import SHARED_DATA, shared_dataset, snakemake

DIM = "coherence"
PAIRS = [("M8", "M9"), ("M11", "M22"), ("M17", "M23")]


def _inputs(folder: Path, judgments: pd.DataFrame) -> tuple[Path, Path]:
    """The judge's files: 3 integer samples per summary near the experts' coherence, and choices
    for three pairs in both orders, mostly the experts' preference, sometimes the first shown."""
    rng = np.random.default_rng(20260601)
    rows = []
    for t, s, e in judgments[["topic", "summarizer", DIM]].itertuples(index=False):
        for k in range(3):
            rows.append((t, s, DIM, k, int(np.clip(round(e + rng.normal(0, 0.9)), 1, 5))))
    pointwise = folder / "my_judge.tsv"
    pd.DataFrame(rows, columns=["topic", "summarizer", "dimension", "sample", "score"]).to_csv(
        pointwise, sep="\t", index=False)
    means = judgments.set_index(["topic", "summarizer"])[DIM]
    rows = []
    for a, b in PAIRS:
        for t in sorted(judgments["topic"].unique()):
            right = "a" if means[(t, a)] > means[(t, b)] else "b" if means[(t, b)] > means[(t, a)] else "tie"
            for order in ("ab", "ba"):
                u = rng.random()
                first = "a" if order == "ab" else "b"
                choice = right if u < 0.55 else first if u < 0.85 else str(rng.choice(["a", "b", "tie"]))
                rows.append((t, a, b, DIM, order, choice))
    pairwise = folder / "my_pairs.tsv"
    pd.DataFrame(rows, columns=["topic", "summarizer_a", "summarizer_b", "dimension", "order", "choice"]).to_csv(
        pairwise, sep="\t", index=False)
    return pointwise, pairwise


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    shared_dataset("summeval")
    work = tmp_path_factory.mktemp("own_judge")
    judgments = pd.read_csv(SHARED_DATA / "summeval" / "judgments.tsv", sep="\t")
    pointwise, pairwise = _inputs(work, judgments)
    config = {
        "datasets": {"summeval": {"format": "canonical", "path": str(SHARED_DATA / "summeval")}},
        # one ROUGE variant keeps the scoring short: the judge's outputs are what this test is about
        "rouge": {"measures": ["R1"], "stemming": [1], "stopwords_removed": [0]},
        "bleu": {"enabled": False}, "chrf": {"enabled": False}, "sera": {"enabled": False},
        "correlation": {"baselines": ["R1_ST1_RS0_M_R"], "bootstrap_samples": 0},
        "agreement": {"baseline": "R1_ST1_RS0_A_R"}, "rerank": {"original": "R1_ST1_RS0_M_R"},
        "sweeps": {"variants": ["R1_ST1_RS0_A_R"]}, "intervals": {"shown": ["R1_ST1_RS0_A_R"]},
        "judges": {"own": [{"dataset": "summeval", "name": "my-judge", "method": "rts", "pointwise": str(pointwise),
                            "pairwise": str(pairwise)}]},
    }
    (work / "config").mkdir()
    (work / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    snakemake(work, "--cores", "2", "results/summeval/judges/judges.md")
    out = work / "results" / "summeval" / "judges"
    read = lambda name: pd.read_csv(out / name, sep="\t", keep_default_na=False, na_values=[""],  # noqa: E731
                                    dtype={"correct": str})
    return {"judgments": judgments, "pointwise": pd.read_csv(pointwise, sep="\t"),
            "pairwise": pd.read_csv(pairwise, sep="\t"), "read": read, "out": out}


@pytest.mark.workflow
def test_own_judge_scores_are_the_mean_of_its_samples_and_its_self_agreement(run):
    pw = run["pointwise"]
    scores = run["read"]("scores.tsv")
    mine = scores[scores["metric"] == "my-judge.rts.coherence"].set_index(["topic", "summarizer"])["score"]
    expected = pw.groupby(["topic", "summarizer"])["score"].mean()
    assert len(mine) == len(expected) == 1600
    assert np.allclose(mine.sort_index().to_numpy(), expected.sort_index().to_numpy(), rtol=0, atol=1e-12)
    variances = [float(np.var(g.to_numpy(), ddof=1)) for _, g in pw.groupby(["topic", "summarizer"])["score"]]
    row = run["read"]("self_agreement.tsv").iloc[0]
    assert (row["judge"], row["dimension"], row["summaries"], row["samples"]) == ("my-judge:rts", DIM, 1600, 3)
    assert row["variance"] == pytest.approx(sum(variances) / len(variances), abs=1e-12)
    # Krippendorff's interval alpha over the samples (samples as coders, summaries as units)
    units = pw.pivot_table(index="sample", columns=["topic", "summarizer"], values="score").to_numpy(float)
    assert row["alpha"] == pytest.approx(krippendorff.alpha(reliability_data=units, level_of_measurement="interval"),
                                         abs=1e-12)
    parse = run["read"]("parse.tsv")
    got = parse[parse["judge"] == "my-judge:rts"].set_index("dimension").loc[DIM]
    assert (got["failures"], got["duplicates"]) == (0, 0)


@pytest.mark.workflow
def test_own_judge_per_system_and_meta_correlation_equal_scipy(run):
    j = run["judgments"].set_index(["topic", "summarizer"])[DIM]
    mean = run["pointwise"].groupby(["topic", "summarizer"])["score"].mean()
    per = run["read"]("per_system.tsv")
    per = per[(per["metric"] == "my-judge.rts.coherence") & (per["dimension"] == DIM)].set_index("system")
    rhos, quality = [], []
    for system in sorted(j.index.get_level_values(1).unique()):
        topics = sorted(j.xs(system, level=1).index)
        human = [j[(t, system)] for t in topics]
        judge = [mean[(t, system)] for t in topics]
        row = per.loc[system]
        assert row["quality"] == pytest.approx(np.mean(human), abs=1e-12)
        assert row["spearman"] == pytest.approx(spearmanr(human, judge)[0], abs=1e-12)
        assert row["pearson"] == pytest.approx(pearsonr(human, judge)[0], abs=1e-12)
        assert row["kendall"] == pytest.approx(kendalltau(human, judge)[0], abs=1e-12)
        rhos.append(spearmanr(human, judge)[0])
        quality.append(np.mean(human))
    meta = run["read"]("meta_correlation.tsv")
    meta = meta[(meta["metric"] == "my-judge.rts.coherence") & (meta["dimension"] == DIM)].iloc[0]
    assert meta["systems"] == 16
    assert meta["spearman"] == pytest.approx(spearmanr(rhos, quality)[0], abs=1e-12)
    assert meta["spearman_p"] == pytest.approx(spearmanr(rhos, quality)[1], abs=1e-12)
    sys_judge = [mean.xs(s, level=1).mean() for s in sorted(j.index.get_level_values(1).unique())]
    assert meta["system_r"] == pytest.approx(pearsonr(quality, sys_judge)[0], abs=1e-12)


def _expected_pairwise(pairwise: pd.DataFrame, judgments: pd.DataFrame, pairs) -> dict:
    """Agreement per order and pooled, without ties, position consistency and the first-shown share,
    by plain counting over the pairs given."""
    means = judgments.set_index(["topic", "summarizer"])[DIM]
    c = {"ab": [0, 0], "ba": [0, 0], "nt": [0, 0], "cons": [0, 0], "first": [0, 0]}
    for a, b in pairs:
        rows = pairwise[(pairwise["summarizer_a"] == a) & (pairwise["summarizer_b"] == b)]
        by_order = {o: dict(zip(g["topic"], g["choice"])) for o, g in rows.groupby("order")}
        for order, choices in by_order.items():
            for t, choice in choices.items():
                ea, eb = means[(t, a)], means[(t, b)]
                expert = "a" if ea > eb else "b" if eb > ea else "tie"
                c[order][0] += choice == expert
                c[order][1] += 1
                if choice != "tie" and expert != "tie":
                    c["nt"][0] += choice == expert
                    c["nt"][1] += 1
                if choice != "tie":
                    shown_first = "a" if order == "ab" else "b"
                    c["first"][0] += choice == shown_first
                    c["first"][1] += 1
        for t in by_order["ab"]:
            c["cons"][0] += by_order["ab"][t] == by_order["ba"][t]
            c["cons"][1] += 1
    return c


@pytest.mark.workflow
@pytest.mark.parametrize("pair", [*(f"{a}-{b}" for a, b in PAIRS), "all"])
def test_own_judge_pairwise_in_both_orders_by_counting(run, pair):
    pairs = PAIRS if pair == "all" else [tuple(pair.split("-"))]
    c = _expected_pairwise(run["pairwise"], run["judgments"], pairs)
    table = run["read"]("pairwise.tsv")
    row = table[(table["judge"] == "my-judge:rts") & (table["pair"] == pair)].iloc[0]
    assert row["items"] == 100 * len(pairs) and row["failures"] == 0
    assert row["agreement_ab"] == pytest.approx(c["ab"][0] / c["ab"][1], abs=1e-12)
    assert row["agreement_ba"] == pytest.approx(c["ba"][0] / c["ba"][1], abs=1e-12)
    assert row["agreement"] == pytest.approx((c["ab"][0] + c["ba"][0]) / (c["ab"][1] + c["ba"][1]), abs=1e-12)
    assert (row["agreement_without_ties"], row["items_without_ties"]) == (pytest.approx(c["nt"][0] / c["nt"][1]),
                                                                          c["nt"][1])
    assert row["consistency"] == pytest.approx(c["cons"][0] / c["cons"][1], abs=1e-12)
    assert (row["first_shown"], row["decided"]) == (pytest.approx(c["first"][0] / c["first"][1]), c["first"][1])


@pytest.mark.workflow
def test_own_judge_head_to_head_by_counting(run):
    """calc_h2h_pairs.py's verdict restated: wins with ties as 1/2; the judge's averaged over the two
    orders; right when both sides are above, at or below half."""
    pw, means = run["pairwise"], run["judgments"].set_index(["topic", "summarizer"])[DIM]
    table = run["read"]("head_to_head.tsv")
    right = 0
    for a, b in PAIRS:
        rows = pw[(pw["summarizer_a"] == a) & (pw["summarizer_b"] == b)]
        win = lambda cs: sum(1.0 if x == "a" else 0.5 if x == "tie" else 0.0 for x in cs)  # noqa: E731
        judge = (win(rows[rows["order"] == "ab"]["choice"]) + win(rows[rows["order"] == "ba"]["choice"])) / 2
        experts = win(["a" if means[(t, a)] > means[(t, b)] else "b" if means[(t, b)] > means[(t, a)] else "tie"
                       for t in sorted(set(rows["topic"]))])
        correct = (judge > 50) == (experts > 50) and (judge < 50) == (experts < 50)
        row = table[(table["judge"] == "my-judge:rts") & (table["pair"] == f"{a}-{b}")].iloc[0]
        assert (float(row["judge_wins"]), float(row["expert_wins"]), row["correct"]) == (judge, experts, str(correct))
        right += correct
    pooled = table[(table["judge"] == "my-judge:rts") & (table["pair"] == "all")].iloc[0]
    assert pooled["correct"] == f"{right}/{len(PAIRS)}"
    assert "my-judge:rts" in (run["out"] / "judges.md").read_text(encoding="utf-8")


@pytest.mark.workflow
def test_the_reports_judges_section_in_a_browser(run, tmp_path):
    """The report of the same run: a Judges section with the judge's table (one per dimension judged),
    its self-agreement table (the judge has 3 samples per summary), the figure and the disagreements,
    loaded clean in headless Chromium (its scripts ran, no error)."""
    from test_across import browser_check

    work = run["out"].parents[2]
    snakemake(work, "--cores", "2", "results/summeval/report.html")
    page = work / "results" / "summeval" / "report.html"
    dom = browser_check(page, tmp_path / "report.png")
    html_tag = re.search(r"<html[^>]*>", dom)[0]
    assert 'data-ready="yes"' in html_tag and "data-errors" not in html_tag, html_tag
    start = dom.index('<h2 id="judges')
    section = dom[start:dom.find("<h2", start + 1)]
    assert section.count("<table>") == 3     # the coherence table, the self-agreement's, the disagreements'
    assert "Coherence. Parse failures" in section and "my-judge:rts" in section
    assert section.count('<img') == 1
    # the pooled agreement in the table is the pairwise file's, as the table prints it (3 decimals)
    c = _expected_pairwise(run["pairwise"], run["judgments"], PAIRS)
    assert f"{(c['ab'][0] + c['ba'][0]) / (c['ab'][1] + c['ba'][1]):.3f} [" in section
    # the self-agreement table: its values computed here from the user's sample file (statistics'
    # sample variance per summary, averaged; Krippendorff's interval alpha with the samples as coders)
    pw = run["pointwise"]
    variance = statistics.fmean(statistics.variance(g.tolist()) for _, g in pw.groupby(["topic", "summarizer"])["score"])
    units = pw.pivot_table(index="sample", columns=["topic", "summarizer"], values="score").to_numpy(float)
    alpha = krippendorff.alpha(reliability_data=units, level_of_measurement="interval")
    at = section.index("Self-agreement of the judges scored in several samples")
    table = section[at:section.index("</table>", at)]
    header = [html.unescape(h) for h in re.findall(r"<th(?:\s[^>]*)?>(.*?)</th>", table)]
    assert header == ["judge", "dimension", "summaries", "samples", "variance across samples", "α over samples"]
    rows = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in re.findall(r"<tr[^>]*>(.*?)</tr>", table)]
    rows = [r for r in rows if r]                     # the header's row has no <td>
    assert len(rows) == 1
    judge, dim, summaries, samples, shown_variance, shown_alpha = rows[0]
    assert (judge, dim, summaries, samples) == ("my-judge:rts", DIM, "1600", "3")
    assert abs(float(shown_variance) - variance) <= 5e-4 + 1e-12 and len(shown_variance.split(".")[1]) == 3
    assert abs(float(shown_alpha) - alpha) <= 5e-4 + 1e-12 and len(shown_alpha.split(".")[1]) == 3
