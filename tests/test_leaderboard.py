"""The leaderboard: columns, ranks, the test against the best and wins/ties/losses on hand-made
tables whose verdicts are worked out by hand; the simulated data set left out of a user's
benchmarks."""
from __future__ import annotations


import math

import pandas as pd
import pytest

from metaeval.options import user_datasets_only
from metaeval.records import LeaderboardOptions
from metaeval.stages import leaderboard, leaderboard_table
from metaeval.stages.leaderboard import DatasetFiles

OPTIONS = LeaderboardOptions(("d",), (), ("R2_ST1_RS0_A_R",), 1, (), 0.05, 4, "Flip_")


def _frame(rows, columns):
    return pd.DataFrame([[str(x) for x in r] for r in rows], columns=columns)


def _williams(variants, p):
    """A Williams table, p[(u, v)] = the p-value that u beats v (0.5 where not given)."""
    return _frame([[u, *("" if u == v else p.get((u, v), 0.5) for v in variants)] for u in variants],
                  ["variant", *variants])


def _dataset(texts=True, declared=""):
    targets = _frame([["coverage", "combination", "C", "no", "yes", ""], ["coherence", "dimension", "x", "no", "no", ""],
                      ["Flip_x", "dimension", "x", "no", "no", ""]],
                     ["target", "kind", "definition", "factual", "primary", "expression"])
    variants = ["MINE_A", "MINE_M", "OTHER_A", "R2_ST1_RS0_A_R", "R1_ST1_RS0_A_R", "R1_ST1_RS0_M_R"]
    r = {"MINE_A": 0.9, "MINE_M": 0.95, "OTHER_A": 0.7, "R2_ST1_RS0_A_R": 0.5, "R1_ST1_RS0_A_R": 0.8,
         "R1_ST1_RS0_M_R": 0.99}
    corr = _frame([[v, t, 10, r[v], r[v] - 0.1, r[v] + 0.05, r[v], r[v], "no", 1] for t in ("coverage", "coherence")
                   for v in variants], ["variant", "combination", "n", "pearson", "pearson_lo", "pearson_hi", "spearman",
                                        "kendall", "optimal", "cluster"])
    # coherence at the system level: MINE beats OTHER and R2; R1 beats R2; nothing else is significant
    will = _williams(variants, {("MINE_A", "OTHER_A"): 0.01, ("MINE_A", "R2_ST1_RS0_A_R"): 0.001,
                                ("R1_ST1_RS0_A_R", "R2_ST1_RS0_A_R"): 0.04})
    level = "summary (within topic, mean over topics)"
    s = {"MINE": 0.3, "OTHER": 0.4, "R2_ST1_RS0_R": 0.2, "R1_ST1_RS0_R": 0.35}
    summary = _frame([[level, m, t, 10, s[m], 0, 0, 100, s[m] - 0.05, s[m] + 0.05, "NA"] for t in ("coverage", "coherence")
                      for m in s], ["level", "metric", "combination", "topics", "pearson", "spearman", "kendall",
                                    "summaries", "pearson_lo", "pearson_hi", "p_vs_best"])
    # coherence, summary level: OTHER better than MINE (p 0.02) and than R2 (0.001); the rest 0.3
    metrics = list(s)
    p = {("OTHER", "MINE"): 0.02, ("OTHER", "R2_ST1_RS0_R"): 0.001}
    tests = _frame([[t, u, *("NA" if u == v else p.get((u, v), 0.3) for v in metrics)] for t in ("coherence",)
                    for u in metrics], ["target", "metric", *metrics])
    fm = _frame([["MINE", "Mine", "yes", "as given", "", 10, 10, 0, "f.tsv", declared],
                 ["OTHER", "Other", "yes", "as given", "", 10, 10, 0, "f.tsv", ""]],
                ["metric", "name", "higher_is_better", "orientation", "description", "summaries", "judged",
                 "judged_missing", "sources", "dimension"])
    empty = pd.DataFrame(columns=["dimension", "subset", "split", "metric", "metric_a", "metric_b", "p"])
    return DatasetFiles("d", texts, targets, corr, lambda t: will if t == "coherence" else None, summary, tests, fm,
                        empty, empty, empty, empty, empty, empty)


def _row(board, level, metric, target="coherence", dataset="d"):
    (row,) = [r for r in board.rows if (r["dataset"], r["target"], r["level"], r["metric"])
              == (dataset, target, level, metric)]
    return row


def test_columns_ranks_and_verdicts_by_hand():
    board = leaderboard.compute([_dataset()], OPTIONS)
    # the dimension only (coverage is a Graham combination, Flip_x an ablation), at two levels
    assert board.columns == [("d", "coherence", "system", "all"), ("d", "coherence", "summary", "all")]
    # the file metrics first (the focus by default), the baseline, then the best ROUGE (R1: its
    # mean variant; the median R1_ST1_RS0_M_R, higher, is not a system score of the board)
    assert board.metrics == ["MINE", "OTHER", "R2_ST1_RS0_R", "R1_ST1_RS0_R"]
    assert board.focus == ["MINE", "OTHER"]
    mine = _row(board, "system", "MINE")
    assert (mine["variant"], mine["value"], mine["rank"], mine["worse_than_best"]) == ("MINE_A", 0.9, 1, "best")
    # system: MINE beats OTHER and R2, ties R1 -> 2 wins, 1 tie, 0 losses
    assert (mine["wins"], mine["ties"], mine["losses"]) == (2, 1, 0)
    r2 = _row(board, "system", "R2_ST1_RS0_R")
    # R2 loses to MINE and R1, ties OTHER; significantly worse than the best (p = 0.001)
    assert (r2["wins"], r2["ties"], r2["losses"], r2["rank"], r2["worse_than_best"]) == (0, 1, 2, 4, "yes")
    assert r2["p_vs_best"] == 0.001
    other = _row(board, "system", "OTHER")
    assert (other["worse_than_best"], other["rank"]) == ("yes", 3)
    # summary level: OTHER is the best; MINE loses to it, ties R2 and R1
    s_mine = _row(board, "summary", "MINE")
    assert (s_mine["wins"], s_mine["ties"], s_mine["losses"], s_mine["rank"]) == (0, 2, 1, 3)
    assert (s_mine["best"], s_mine["p_vs_best"], s_mine["worse_than_best"]) == ("OTHER", 0.02, "yes")
    # the focus metrics' tests, one row per other metric and column
    verdicts = {(t["level"], t["other"]): t["verdict"] for t in board.tests if t["metric"] == "MINE"}
    assert verdicts == {("system", "OTHER"): "win", ("system", "R2_ST1_RS0_R"): "win",
                        ("system", "R1_ST1_RS0_R"): "tie", ("summary", "OTHER"): "loss",
                        ("summary", "R2_ST1_RS0_R"): "tie", ("summary", "R1_ST1_RS0_R"): "tie"}


def test_a_metric_declared_for_another_dimension_is_left_out_and_absent_metrics_say_why():
    board = leaderboard.compute([_dataset(declared="fluency")], OPTIONS._replace(focus=("OTHER",)))
    assert not [r for r in board.rows if r["metric"] == "MINE"]      # meant for fluency, which d lacks
    assert board.focus == ["OTHER"]
    opts = OPTIONS._replace(datasets=("d", "e"))
    e = _dataset(texts=False)
    e.name = "e"
    e.file_metrics = e.file_metrics[e.file_metrics["metric"] == "OTHER"]
    e.correlations = e.correlations[e.correlations["variant"].isin(["OTHER_A"])]
    e.summary_level = e.summary_level[e.summary_level["metric"] == "OTHER"]
    board = leaderboard.compute([_dataset(), e], opts)
    assert _row(board, "system", "MINE")["rank"] == 1
    absent = {r["metric"]: r["note"] for r in board.rows if r["dataset"] == "e" and r["level"] == "system"}
    # MINE is a focus metric (every file metric is by default): on a score-only data set it could not
    # be computed; a metric the user does not judge is simply not shipped there
    assert absent["MINE"] == "no texts (score-only data set)"
    other_focus = leaderboard.compute([_dataset(), e], opts._replace(focus=("OTHER",)))
    absent = {r["metric"]: r["note"] for r in other_focus.rows if r["dataset"] == "e" and r["level"] == "system"}
    assert absent["MINE"] == "not in this data set's score files"
    assert absent["R2_ST1_RS0_R"] == "no texts (score-only data set)"
    assert absent["OTHER"] == ""


def test_the_leaderboard_reads_back_from_its_tsv(tmp_path):
    board = leaderboard.compute([_dataset()], OPTIONS)
    out = {k: str(tmp_path / f) for k, f in (("leaderboard_tsv", "l.tsv"), ("tests_tsv", "t.tsv"), ("floor_tsv", "f.tsv"),
                                              ("leaderboard_md", "l.md"), ("leaderboard_html", "l.html"))}
    leaderboard.write(board, out)
    back = leaderboard.read(out["leaderboard_tsv"], OPTIONS)
    assert (back.columns, back.metrics, back.focus) == (board.columns, board.metrics, board.focus)
    assert leaderboard_table.html_section(back) == leaderboard_table.html_section(board)


def test_the_counts_are_written_as_integers_empty_where_missing(tmp_path):
    """leaderboard.tsv's n and n_covered: the integer text ("10", not "10.0"), empty where a row has
    none (a metric without a value in a column: R1 at the summary level here; n_covered only where a
    metric covers more); and the file reads back to the same page."""
    import csv

    d = _dataset()
    corr = d.correlations
    corr["n_covered"] = ["12" if v == "MINE_A" else "10" for v in corr["variant"]]
    corr["pearson_covered"] = ["0.85" if v == "MINE_A" else str(x) for v, x in zip(corr["variant"], corr["pearson"])]
    corr["pdp"] = "0.5"
    d.summary_level = d.summary_level[d.summary_level["metric"] != "R1_ST1_RS0_R"]
    board = leaderboard.compute([d], OPTIONS)
    out = {k: str(tmp_path / f) for k, f in (("leaderboard_tsv", "l.tsv"), ("tests_tsv", "t.tsv"), ("floor_tsv", "f.tsv"),
                                              ("leaderboard_md", "l.md"), ("leaderboard_html", "l.html"))}
    leaderboard.write(board, out)
    with open(out["leaderboard_tsv"], encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    system = {r["metric"]: r for r in rows if r["level"] == "system"}
    assert {m: r["n"] for m, r in system.items()} == dict.fromkeys(["MINE", "OTHER", "R2_ST1_RS0_R", "R1_ST1_RS0_R"], "10")
    assert system["MINE"]["n_covered"] == "12" and system["MINE"]["value_covered"] == "0.85"
    assert {system[m]["n_covered"] for m in ("OTHER", "R2_ST1_RS0_R", "R1_ST1_RS0_R")} == {""}
    summary = {r["metric"]: (r["n"], r["n_covered"]) for r in rows if r["level"] == "summary"}
    assert summary == {"MINE": ("100", ""), "OTHER": ("100", ""), "R2_ST1_RS0_R": ("100", ""),
                       "R1_ST1_RS0_R": ("", "")}
    # read back, the page is the same, and a cell's title gives the counts as written
    back = leaderboard.read(out["leaderboard_tsv"], OPTIONS)
    page = leaderboard_table.html_section(back)
    assert page == leaderboard_table.html_section(board)
    assert "n = 10; " in page and "on all it covers (n = 12, not ranked): 0.850" in page


def test_the_simulated_data_set_stays_out_of_a_users_benchmarks():
    config = {"datasets": {"default": {"format": "simulated"}, "mine": {"format": "canonical"}}}
    assert user_datasets_only(config, {"mine"}) == ({"mine": {"format": "canonical"}}, ["default"])
    assert user_datasets_only(config, {"mine", "default"})[1] == []
    assert user_datasets_only(config, None) == (config["datasets"], [])


def test_soft_pairwise_accuracy_pairwise_accuracy_and_deltas_sit_beside_r_at_the_system_level():
    d = _dataset()
    d.spa = _frame([["MINE_A", "means", "coherence", 0.81, 0.7, 0.9, 4, 10, 6],
                    ["MINE_M", "means", "coherence", 0.5, 0.4, 0.6, 4, 10, 6]],
                   ["variant", "item_scores", "target", "spa", "lo", "hi", "n_systems", "n_items", "n_pairs"])
    d.accuracy = _frame([["OTHER_A", "coherence", 0.75, 0.6, 0.9]], ["variant", "combination", "accuracy", "lo", "hi"])
    thresholds = _frame([["MINE_A", "coherence", 0.01, 0.0, 0.02, "NA", "NA", "NA", 0.3, 0.2, 0.4]],
                        ["variant", "target", "threshold_80", "threshold_80_lo", "threshold_80_hi", "threshold_90",
                         "threshold_90_lo", "threshold_90_hi", "threshold_95", "threshold_95_lo", "threshold_95_hi"])
    board = leaderboard.compute([d], OPTIONS)
    mine = _row(board, "system", "MINE")
    # the mean variant's values (MINE_A), never the median's
    assert (mine["spa"], mine["spa_lo"], mine["spa_hi"]) == (0.81, 0.7, 0.9)
    assert math.isnan(mine["pairwise_accuracy"])
    assert _row(board, "system", "OTHER")["pairwise_accuracy"] == 0.75
    # the summary level has none of them
    assert math.isnan(_row(board, "summary", "MINE")["spa"])
    assert "SPA 0.810" in leaderboard_table.html_section(board)
    # the deltas, pooled over the data sets, for the report across them: MINE_A's
    board.deltas = leaderboard.deltas(thresholds, board)
    assert board.deltas[("MINE", "coherence")]["delta_80"] == 0.01
    assert board.deltas[("MINE", "coherence")]["delta_95"] == 0.3
    assert math.isnan(board.deltas[("MINE", "coherence")]["delta_90"])
    assert set(board.deltas) == {("MINE", "coherence")}
    assert "<td>0.0100</td><td>NA</td><td>0.3000</td>" in leaderboard_table.html_section(board)


def test_each_subset_is_an_auc_column_and_the_balanced_accuracy_mean_one_more():
    """A binary target with subsets (SummEdits' domains): the AUC on every summary and in each subset,
    each subset's column with its own DeLong tests, and the mean balanced accuracy over the subsets
    (untested: no wins or losses); the values are the tables', the ranks and verdicts worked by hand."""
    d = _dataset()
    d.targets = _frame([["consistent", "dimension", "x", "yes", "yes", ""]],
                       ["target", "kind", "definition", "factual", "primary", "expression"])
    d.correlations = d.correlations.iloc[0:0]
    d.summary_level = d.summary_level.iloc[0:0]
    auc = {("all", "MINE"): 0.6, ("all", "OTHER"): 0.7, ("news", "MINE"): 0.8, ("news", "OTHER"): 0.55,
           ("podcast", "MINE"): 0.5, ("podcast", "OTHER"): 0.65}
    d.binary = _frame([["consistent", "binary", sub, m, "file", 10, 5, v, v - 0.1, v + 0.1]
                       for (sub, m), v in auc.items()],
                      ["dimension", "labels", "subset", "metric", "source", "n", "consistent", "auc", "auc_lo", "auc_hi"])
    # DeLong: in news MINE is significantly better (p 0.01), elsewhere no difference
    d.auc_tests = _frame([["consistent", "binary", sub, "MINE", "OTHER", p] for sub, p in
                          (("all", 0.3), ("news", 0.01), ("podcast", 0.2))],
                         ["dimension", "labels", "subset", "metric_a", "metric_b", "p"])
    d.binary_means = _frame([["consistent", "binary", "MINE", "file", 2, 0.65, 0.61, 0.7],
                             ["consistent", "binary", "OTHER", "file", 2, 0.6, 0.58, 0.66]],
                            ["dimension", "labels", "metric", "source", "subsets", "auc", "balanced_accuracy_test",
                             "balanced_accuracy_oracle"])
    board = leaderboard.compute([d], OPTIONS)
    assert board.columns == [("d", "consistent", "auc", "all"), ("d", "consistent", "auc", "news"),
                             ("d", "consistent", "auc", "podcast"), ("d", "consistent", "balanced_accuracy", "mean")]
    cell = {(r["subset"], r["metric"]): r for r in board.rows if r["metric"] in ("MINE", "OTHER")}
    assert [cell["news", m]["value"] for m in ("MINE", "OTHER")] == [0.8, 0.55]
    assert (cell["news", "MINE"]["wins"], cell["news", "OTHER"]["losses"], cell["news", "OTHER"]["worse_than_best"]) \
        == (1, 1, "yes")
    assert (cell["podcast", "OTHER"]["rank"], cell["podcast", "MINE"]["ties"]) == (1, 1)
    mean = cell["mean", "MINE"]
    assert (mean["value"], mean["rank"], mean["statistic"], mean["wins"], mean["ties"], mean["losses"]) == \
        (0.61, 1, "balanced accuracy", 0, 0, 0)
    assert cell["mean", "OTHER"]["worse_than_best"] == "NA"
    assert "AUC (binary labels), news" in leaderboard_table.html_section(board)
    assert "balanced accuracy (test split), mean over the subsets" in leaderboard.markdown_table(board)[1][-1]
