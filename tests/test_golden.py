"""Golden values of the main job on the embedded default data set (config/config.yaml as shipped:
seeded simulation, 40 topics x 16 systems + 4 humans): Tables 1, 2, 4 and 5, re-ranking and the
agreement tables. The golden numbers were printed by this workflow; each table is also checked
against values recomputed independently from the tables it was built from (scipy, counting by
hand), so a golden value that changes can be told apart from a table that is wrong."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import REPO, snakemake

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def default(tmp_path_factory) -> Path:
    """results/default of the main job run with the repository's own config."""
    workdir = tmp_path_factory.mktemp("default")
    (workdir / "config").mkdir()
    shutil.copyfile(REPO / "config/config.yaml", workdir / "config/config.yaml")
    snakemake(workdir, "--cores", "2")
    return workdir / "results/default"


def tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


# --------------------------------------------------------------------------- golden values

def test_table1_golden(default):
    t1 = tsv(default / "analysis/table1.tsv")
    assert t1.head(5).values.tolist() == [
        ["1", "R2_ST1_RS1_M_F", "0.931", "[0.725, 0.973]", "*", "1"],
        ["2", "R3_ST1_RS1_M_P", "0.928", "[0.771, 0.977]", "*", "1"],
        ["3", "R1_ST1_RS0_A_P", "0.926", "[0.715, 0.972]", "*", "1"],
        ["4", "R3_ST1_RS1_M_F", "0.925", "[0.744, 0.973]", "*", "1"],
        ["5", "R1_ST1_RS0_A_F", "0.925", "[0.727, 0.972]", "*", "1"]]
    assert (t1.optimal == "*").sum() == 36        # 32 ROUGE variants (Table 2), 4 others
    rows = t1.set_index("variant")
    # ranks 2 lower than before chrF: CHRF and CHRF++ rank above them
    assert rows.loc["R2_ST1_RS0_M_R"].tolist() == ["137", "0.812", "[0.581, 0.927]", "", "7"]
    assert rows.loc["R2_ST1_RS0_A_R"].tolist() == ["158", "0.765", "[0.535, 0.925]", "", "10"]
    assert rows.loc["SERA5_PL_M"].tolist() == ["213", "NA", "[NA, NA]", "", "NA"]   # undefined: no interval
    assert rows.loc["CHRF"].tolist() == ["88", "0.856", "[0.599, 0.947]", "", "5"]
    assert rows.loc["CHRF++"].tolist() == ["82", "0.860", "[0.610, 0.950]", "", "5"]


def test_table2_golden(default):
    t2 = tsv(default / "analysis/table2.tsv")
    assert t2["optimal variants"].tolist() == ["10", "4", "4", "2", "6", "6", "0", "0", "7", "25", "13", "19", "12",
                                               "20", "6", "21", "5"]
    assert t2["share (%)"].tolist() == ["31.2", "12.5", "12.5", "6.2", "18.8", "18.8", "0.0", "0.0", "21.9", "78.1",
                                        "40.6", "59.4", "37.5", "62.5", "18.8", "65.6", "15.6"]


def test_table4_and_table5_golden(default):
    t4 = tsv(default / "analysis/table4.tsv")
    assert len(t4) == 33 and t4.variant.tolist()[:3] == ["R2_ST1_RS1_M_F", "R3_ST1_RS1_M_P", "R1_ST1_RS0_A_P"]
    assert t4.iloc[0].tolist() == ["R2_ST1_RS1_M_F", "0.931*", "0.951*", "0.958*", "0.956", "0.713*", "0.850", "0.956"]
    t5 = tsv(default / "analysis/table5.tsv").set_index("metric")
    assert t5.loc["BLEU_ST1_RS1"].tolist() == ["0.885", "0.903", "0.914", "0.890", "0.695*", "0.760", "0.904"]
    assert t5.loc["SERA10_KW_A"].tolist() == ["0.840*", "0.877", "0.875", "0.881", "0.627*", "0.961", "0.873"]
    assert t5.loc["CHRF"].tolist() == ["0.856", "0.889", "0.901", "0.898", "0.637", "0.832", "0.918"]
    assert t5.loc["CHRF++"].tolist() == ["0.860", "0.891", "0.903", "0.896", "0.647", "0.825", "0.916"]
    assert t5.index[-1] == "R2_ST1_RS1_M_F"       # the best ROUGE variant closes the table


def test_rerank_golden(default):
    summary = dict(tsv(default / "rerank/summary.tsv").itertuples(index=False, name=None))
    assert summary["best_variant"] == "R2_ST1_RS1_M_F" and summary["top_group"] == "12,2,7"
    assert float(summary["kendall_tau_b"]) == pytest.approx(0.8666666666666667, abs=1e-12)
    pairwise = tsv(default / "rerank/pairwise.tsv")
    assert (pairwise.test == "Wilcoxon signed-rank").all()          # a median variant: Wilcoxon for every pair
    assert (pairwise.significantly_better != "none").sum() == 89
    beaten = pairwise[pairwise.significantly_better == "12"]
    assert sorted((set(beaten.a) | set(beaten.b)) - {"12"}, key=int) == \
        ["1", "3", "4", "5", "6", "8", "9", "10", "11", "13", "14", "15", "16"]   # all but 2 and 7, its top group


def test_agreement_golden(default):
    a = tsv(default / "agreement/agreement.tsv")
    base = a[(a.metric == "R2_ST1_RS0_R") & (a.combination == "arithmetic") & (a.pair_type == "all")].iloc[0]
    assert (base.pairs, base.human_significant, base.correct, base.contradictions) == ("184", "150", "150", "2")
    assert float(base.safe_difference) == pytest.approx(0.04137375, abs=1e-12)
    table3 = (default / "agreement/table3.md").read_text()
    assert "| R1_ST0_RS0_P | 72.5 [63.6, 80.3] / 85.8  | 100.0 [94.4, 100.0] / 100.0  |" in table3


# --------------------------------------------------------------------------- independent checks

def test_table1_r_and_order_equal_scipy(default):
    human = tsv(default / "human/system_human.tsv")
    human = human[(human.kind == "system") & (human.combination == "arithmetic")].set_index("summarizer").score
    metric = tsv(default / "scores/system_scores.tsv").pivot(index="summarizer", columns="variant", values="score")
    metric = metric.loc[human.index].astype(float)
    r = {v: stats.pearsonr(metric[v], human.astype(float))[0] for v in metric.columns if np.ptp(metric[v]) > 0}
    t1 = tsv(default / "analysis/table1.tsv")
    defined = t1[t1.r != "NA"]
    assert set(defined.variant) == set(r) and set(t1.variant) == set(metric.columns)
    shown = [float(x) for x in defined.r]
    assert shown == sorted(shown, reverse=True)                           # ranked by r
    assert shown == pytest.approx([r[v] for v in defined.variant], abs=5e-4)   # r to 3 decimals


def test_table2_counts_the_optimal_variants(default):
    corr = tsv(default / "analysis/correlations.tsv")
    optimal = corr[(corr.combination == "arithmetic") & (corr.optimal == "yes")].variant
    rouge = [v.split("_") for v in optimal if not v.startswith(("BLEU", "SERA", "CHRF"))]
    t2 = tsv(default / "analysis/table2.tsv")
    assert int(t2[(t2.option == "stemming") & (t2.value == "stemmed")]["optimal variants"].item()) == \
        sum(v[1] == "ST1" for v in rouge)
    assert int(t2[(t2.option == "P/R/F") & (t2.value == "precision")]["optimal variants"].item()) == \
        sum(v[4] == "P" for v in rouge)


def test_system_chrf_equals_sacrebleus_corpus_score(default):
    """Every summarizer's CHRF and CHRF++ in system_scores.tsv equal sacrebleu's corpus_score of
    its summaries (sentences joined by a space) against the topic's other human summaries."""
    import json

    from sacrebleu.metrics import CHRF

    records = [json.loads(line) for line in (default / "data/summaries.jsonl").read_text().splitlines()]
    judged = set(tsv(default / "data/judgments.tsv")[["topic", "summarizer"]].itertuples(index=False, name=None))
    text = {(r["topic"], r["summarizer"]): " ".join(r["sentences"]) for r in records}
    humans = sorted((r["topic"], r["summarizer"]) for r in records if r["kind"] == "human")
    system = tsv(default / "scores/system_scores.tsv").set_index(["summarizer", "variant"]).score
    summarizers = sorted({s for _, s in judged})
    for variant, metric in (("CHRF", CHRF()), ("CHRF++", CHRF(word_order=2))):
        for summarizer in summarizers:
            mine = sorted(k for k in judged if k[1] == summarizer)
            refs = [[text[h] for h in humans if h[0] == t and h[1] != summarizer] for t, _ in mine]
            streams = [[r[i] for r in refs] for i in range(len(refs[0]))]    # same count per topic here
            want = metric.corpus_score([text[k] for k in mine], streams).score
            assert float(system[(summarizer, variant)]) == pytest.approx(want, rel=0, abs=1e-9)


def _per_summary(default: Path, measure: str, stem: str, stop: str, prf: str) -> pd.DataFrame:
    s = tsv(default / "scores/summary_scores.tsv")
    s = s[(s.measure == measure) & (s.stem == stem) & (s.stopwords_removed == stop)]
    return s.pivot(index="summarizer", columns="topic", values=prf).astype(float)


def test_rerank_pairwise_p_values_equal_scipy(default):
    grid = _per_summary(default, "R2", "1", "1", "F")          # the best variant R2_ST1_RS1_M_F
    pairwise = tsv(default / "rerank/pairwise.tsv")
    for row in pairwise.head(30).itertuples():
        d = grid.loc[row.a].to_numpy() - grid.loc[row.b].to_numpy()
        assert float(row.p) == pytest.approx(stats.wilcoxon(d).pvalue, abs=1e-15)


def test_agreement_verdicts_and_counts_recomputed(default):
    verdicts = tsv(default / "agreement/verdicts.tsv")
    grid = _per_summary(default, "R2", "1", "0", "R")          # the baseline R2_ST1_RS0_R
    mine = verdicts[verdicts.scorer == "R2_ST1_RS0_R"].head(40)
    for row in mine.itertuples():
        d = grid.loc[row.a].to_numpy() - grid.loc[row.b].to_numpy()
        assert float(row.p) == stats.wilcoxon(d).pvalue        # scipy on the pair alone
    human = verdicts[verdicts.scorer == "arithmetic"].set_index(["a", "b"]).verdict
    metric = verdicts[verdicts.scorer == "R2_ST1_RS0_R"].set_index(["a", "b"]).verdict
    both = human.index.intersection(metric.index)
    testable = [k for k in both if human[k] != "untestable" and metric[k] != "untestable"]
    correct = sum(human[k] == metric[k] for k in testable)
    contradictions = sum({human[k], metric[k]} == {"a better", "b better"} for k in testable)
    a = tsv(default / "agreement/agreement.tsv")
    row = a[(a.metric == "R2_ST1_RS0_R") & (a.combination == "arithmetic") & (a.pair_type == "all")].iloc[0]
    assert (int(row.pairs), int(row.correct), int(row.contradictions)) == (len(testable), correct, contradictions)


def test_the_report_names_no_issue_by_its_number(default):
    from test_no_issue_numbers import issue_numbers

    assert issue_numbers((default / "report.html").read_text(encoding="utf-8")) == []
