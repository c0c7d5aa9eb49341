"""Common ground: on a data set where two metrics cannot score one judged summarizer (a reference,
as ROUGE cannot score a topic's only human summary), every correlation, Williams test, re-ranking
and leaderboard row rests on the summarizers every metric scores, each value with its n; the fuller
value is labelled and not ranked, and the column says so at its top. Values checked with scipy."""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metaeval import tables
from metaeval.options import default_options
from metaeval.stages import correlation, leaderboard, leaderboard_table, rerank
from metaeval.stages.analysis_inputs import AnalysisInputs
from metaeval.stages.leaderboard import DatasetFiles
from metaeval.stats.bootstrap import PerSummary
from metaeval.variants import Variant

S, T = 14, 6          # 13 systems and the judged reference "ref" (last)
OPTIONS = default_options().correlate._replace(combinations=("arithmetic",), bootstrap_samples=0, seed=1)


def _inputs():
    rng = np.random.default_rng(4)
    quality = np.linspace(0, 1, S)
    quality[-1] = 0.3                                    # the reference: mid-table for humans
    human = quality[:, None] + rng.normal(0, 0.2, (S, T))
    r1 = quality[:, None] + rng.normal(0, 0.3, (S, T))
    r2 = quality[:, None] + rng.normal(0, 0.5, (S, T))
    mine = quality[:, None] + rng.normal(0, 0.4, (S, T))
    mine[-1] += 1.5                                       # scores the reference, and far off the humans
    r1[-1], r2[-1] = np.nan, np.nan                       # ROUGE cannot score the reference
    ps = PerSummary([f"s{i:02d}" for i in range(S - 1)] + ["ref"], [f"t{t}" for t in range(T)],
                    {"R1_ST1_RS0_R": r1, "R2_ST1_RS0_R": r2, "MINE": mine}, {}, {"arithmetic": human})
    variants = [Variant.parse(v) for v in ("R1_ST1_RS0_A_R", "R2_ST1_RS0_A_R", "MINE_A")]
    system = np.column_stack([r1.mean(1), r2.mean(1), mine.mean(1)])
    return AnalysisInputs(ps.summarizers, ["system"] * (S - 1) + ["human"], variants, system, ["arithmetic"],
                          human.mean(1)[:, None], ps), system, human.mean(1)


def _williams_by_hand(r12, r13, r23, n):
    """Williams (1959) as Graham (2015) eq. 3 states it; the p from scipy's t distribution."""
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(2 * k * (n - 1) / (n - 3)
                                                             + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3)
    return stats.t.sf(t, n - 3)


def test_correlations_and_williams_tests_rest_on_the_systems_every_metric_scores():
    inp, system, human = _inputs()
    res = correlation.compute(inp, OPTIONS)
    rows = {r["variant"]: r for r in res.rows}
    common = slice(0, S - 1)
    for v, j in (("R1_ST1_RS0_A_R", 0), ("R2_ST1_RS0_A_R", 1), ("MINE_A", 2)):
        assert rows[v]["n"] == S - 1
        assert rows[v]["pearson"] == pytest.approx(stats.pearsonr(system[common, j], human[common])[0], abs=1e-12)
    # the released metric's fuller value, on all 14 it scores, beside (labelled by n_covered)
    assert rows["MINE_A"]["n_covered"] == S
    assert rows["MINE_A"]["pearson_covered"] == pytest.approx(stats.pearsonr(system[:, 2], human)[0], abs=1e-12)
    assert rows["R1_ST1_RS0_A_R"]["n_covered"] == S - 1
    # Williams: MINE against R1 on the 13 systems both score
    r12 = stats.pearsonr(system[common, 2], human[common])[0]
    r13 = stats.pearsonr(system[common, 0], human[common])[0]
    r23 = stats.pearsonr(system[common, 2], system[common, 0])[0]
    p = res.williams["arithmetic"]
    assert p[2, 0] == pytest.approx(_williams_by_hand(r12, r13, r23, S - 1), abs=1e-12)
    assert [k for k, _ in res.notes].count("common_ground") == 1
    assert "ref" in dict(res.notes)["common_ground"]


def test_the_leaderboard_ranks_on_common_ground_with_n_and_the_column_note(tmp_path):
    inp, system, human = _inputs()
    res = correlation.compute(inp, OPTIONS)
    out = {"correlations": str(tmp_path / "c.tsv"), "williams_arithmetic": str(tmp_path / "w.tsv"),
           "targets_williams": str(tmp_path / "tw.tsv"), "summary_level": str(tmp_path / "s.tsv"),
           "summary_level_tests": str(tmp_path / "st.tsv"), "notes": str(tmp_path / "n.tsv"),
           "floor": str(tmp_path / "f.tsv")}
    correlation.write(res, ("arithmetic",), out)
    targets = pd.DataFrame([["arithmetic", "dimension", "x", "no", "yes", ""]],
                           columns=["target", "kind", "definition", "factual", "primary", "expression"])
    will = tables.read_tsv(out["williams_arithmetic"])
    empty = pd.DataFrame(columns=["dimension", "subset", "split", "metric", "metric_a", "metric_b", "p"])
    fm = pd.DataFrame([["MINE", "Mine", ""]], columns=["metric", "name", "dimension"])
    d = DatasetFiles("d", True, targets, tables.read_tsv(out["correlations"]), lambda t: will,
                     tables.read_tsv(out["summary_level"]), tables.read_tsv(out["summary_level_tests"]), fm,
                     empty, empty, empty, empty, empty, empty)
    opts = leaderboard.LeaderboardOptions(("d",), (), (), 3, (), 0.05, 4, "Flip_")
    board = leaderboard.compute([d], opts)
    system_rows = {r["metric"]: r for r in board.rows if r["level"] == "system"}
    common = slice(0, S - 1)
    for m, j in (("R1_ST1_RS0_R", 0), ("R2_ST1_RS0_R", 1), ("MINE", 2)):
        assert system_rows[m]["n"] == S - 1
        assert system_rows[m]["value"] == pytest.approx(stats.pearsonr(system[common, j], human[common])[0], abs=1e-5)
    expected = sorted(("R1_ST1_RS0_R", "R2_ST1_RS0_R", "MINE"), key=lambda m: -system_rows[m]["value"])
    assert [system_rows[m]["rank"] for m in expected] == [1, 2, 3]
    assert system_rows["MINE"]["n_covered"] == S
    assert system_rows["MINE"]["value_covered"] == pytest.approx(stats.pearsonr(system[:, 2], human)[0], abs=1e-5)
    assert np.isnan(system_rows["R1_ST1_RS0_R"]["value_covered"])
    note = board.column_notes[("d", "arithmetic", "system", "all")]
    assert note.startswith(f"ranked on the n = {S - 1} items every metric scores") and "MINE" in note
    assert html.escape(note) in leaderboard_table.html_section(board)
    # the summary level: every metric on the 13 x 6 summaries all of them score
    summary_rows = [r for r in board.rows if r["level"] == "summary"]
    assert {r["n"] for r in summary_rows} == {(S - 1) * T}


def test_the_reranking_leaves_a_system_without_a_score_out_of_every_group():
    inp, system, human = _inputs()
    corr = [{"variant": v, "combination": "arithmetic", "pearson": str(r), "optimal": "yes"}
            for v, r in (("R1_ST1_RS0_A_R", 0.9), ("R2_ST1_RS0_A_R", 0.5), ("MINE_A", 0.4))]
    options = default_options().rerank._replace(summarizers="all", original="MINE_A")
    r = rerank.compute(inp, corr, options)
    assert r.best == "R1_ST1_RS0_A_R"
    assert r.left_out == [("ref", "no score under R1_ST1_RS0_A_R")]
    assert "ref" not in r.top_group and not r.beats[-1].any() and not r.beats[:, -1].any()
    assert all("ref" not in (t.a, t.b) for t in r.tests)
    common = slice(0, S - 1)
    assert r.tau == pytest.approx(stats.kendalltau(system[common, 0], system[common, 2])[0], abs=1e-12)
