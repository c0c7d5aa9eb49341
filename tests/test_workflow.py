"""The workflow end to end on the small scenario (.test/config/config.yaml), run once per session:
every file of the output contract, the tables' shapes, and values recomputed independently from
the tables the workflow wrote (scipy, plain Python)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import SHARED_DATA, job_counts, scenario, snakemake
from metaeval import outputs
from metaeval.memo import FOLDER as MEMO

pytestmark = pytest.mark.workflow


def tsv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def summary_table(run: Path, dataset: str) -> dict[str, str]:
    return dict(tsv(run / f"results/{dataset}/data/summary.tsv").itertuples(index=False, name=None))


def contract_files(dataset: str, values: dict[str, list]) -> set[str]:
    """Every path the output contract names for a data set, each placeholder taking every value."""
    import itertools
    import re

    out = set()
    for stage in outputs.STAGES.values():
        for rel in stage.values():
            names = sorted(set(re.findall(r"\{(\w+)\}", rel)))
            for combo in itertools.product(*(values[n] for n in names)):
                path = rel
                for n, v in zip(names, combo):
                    path = path.replace("{" + n + "}", str(v))
                out.add(f"results/{dataset}/{path}")
    return out


def test_main_job_writes_exactly_the_output_contract(small_run):
    combinations = ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", "pyramid",
                    "modified_pyramid"]
    values = {"combination": [*combinations, "main"], "setting": ["ST0_RS0", "ST0_RS1", "ST1_RS0", "ST1_RS1"],
              "shard": [0], "stem": [0, 1], "stop": [0, 1], "metric": ["CHRF", "CHRF++"],
              "topics": [10, 20, 40, 80, 160], "variant": []}    # the delta figures are results/all/'s only
    for dataset in ("sim", "tiny"):
        expansions = {"human.combinations": combinations, "statistics.permutation_combinations": ["main"]}
        # every stage applies but the judges' (neither data set has an LLM judge)
        for p in outputs.final(dataset, expansions, lambda stage: "judges" not in stage.needs):
            assert (small_run / p).is_file(), p
        # the logs, and the jobs' memos: a cache of their rows for the next run, not an output (metaeval.memo)
        written = {p.relative_to(small_run).as_posix() for p in (small_run / "results" / dataset).rglob("*")
                   if p.is_file() and "/logs/" not in p.as_posix() and f"/{MEMO}/" not in p.as_posix()}
        assert written <= contract_files(dataset, values), written - contract_files(dataset, values)


def test_data_summaries(small_run):
    sim, tiny = summary_table(small_run, "sim"), summary_table(small_run, "tiny")
    assert sim["name"] == "sim" and tiny["name"] == "tiny"
    assert (sim["topics"], sim["systems"], sim["judged_human_summaries"]) == ("8", "5", "24")
    assert (tiny["topics"], tiny["systems"], tiny["judged_summaries"], tiny["empty_summaries"]) == ("2", "2", "5", "1")
    assert (small_run / "results/tiny/logs/validate_dataset.log").exists()


def test_second_run_is_a_noop(small_run):
    assert "Nothing to be done" in snakemake(small_run, "-n", "--cores", "2").stdout


def test_scoring_outputs(small_run):
    rows = tsv(small_run / "results/sim/scores/summary_scores.tsv")
    assert list(rows.columns) == ["topic", "summarizer", "measure", "stem", "stopwords_removed", "P", "R", "F"]
    assert len(rows) == 8 * (5 + 3) * 9 * 4          # topics x (systems + judged humans) x (8 ROUGE + BLEU) x settings
    bleu = rows[rows.measure == "BLEU"]
    assert (bleu.P == "").all() and (bleu.R == "").all() and (bleu.F != "").all()   # BLEU fills F only
    system = tsv(small_run / "results/sim/scores/system_scores.tsv")
    per_summarizer = system.groupby("summarizer").variant.nunique()
    # + 2 chrF + SERA: 8 metrics x mean/median
    assert len(per_summarizer) == 8 and (per_summarizer == 192 + 4 + 2 + 16).all()
    # a mean and a median variant recomputed from the per-summary table
    r2 = rows[(rows.measure == "R2") & (rows.stem == "1") & (rows.stopwords_removed == "0") & (rows.summarizer == "1")]
    values = system.set_index(["summarizer", "variant"]).score
    assert float(values[("1", "R2_ST1_RS0_A_P")]) == pytest.approx(np.mean(r2.P.astype(float)), abs=1e-15)
    assert float(values[("1", "R2_ST1_RS0_M_R")]) == np.median(r2.R.astype(float))
    signature = (small_run / "results/sim/scores/scoring_signature.txt").read_text()
    assert "ROUGE-1.5.5-exact" in signature and "|stemexc:alphabetical|" in signature and "tok:none" in signature
    assert "chrf\tsystem: CHRF++ nrefs:var|case:mixed|eff:yes|nc:6|nw:2|space:no|" in signature
    chrf = tsv(small_run / "results/sim/scores/chrf_scores.tsv")
    assert list(chrf.columns) == ["topic", "summarizer", "metric", "score"] and len(chrf) == 8 * (5 + 3) * 2


def test_wlcs_weight_change_rescores_only_the_scoring(small_run):
    (small_run / "w.yaml").write_text("rouge:\n  wlcs_weight: 1.5\n")
    out = snakemake(small_run, "-n", "--configfile", str(small_run / "config/config.yaml"),
                    str(small_run / "w.yaml")).stdout
    counts = job_counts(out)
    assert counts["score"] == 8  # one job per setting (4) and data set (2); no other input is re-made
    assert "human_scores" not in counts and "score_sera" not in counts and "validate_dataset" not in counts
    assert "score_chrf" not in counts                             # chrF does not read ROUGE's preprocessing


def test_chrf_option_change_rescores_only_chrf(small_run):
    (small_run / "c.yaml").write_text("chrf:\n  char_order: 5\n")
    out = snakemake(small_run, "-n", "--configfile", str(small_run / "config/config.yaml"),
                    str(small_run / "c.yaml")).stdout
    counts = job_counts(out)
    assert counts["score_chrf"] == 2 and counts["gather_scores"] == 2  # one job per data set
    assert "score" not in counts and "score_sera" not in counts and "sweeps" not in counts


def test_correlations_against_scipy(small_run):
    """Every defined system-level Pearson, Spearman and Kendall equals scipy's on the system tables."""
    d = small_run / "results/sim"
    corr = tsv(d / "analysis/correlations.tsv")
    assert list(corr.columns) == ["variant", "combination", "n", "pearson", "pearson_lo", "pearson_hi", "spearman",
                                  "kendall", "optimal", "cluster", "n_covered", "pearson_covered", "pdp"]
    # 214 variants x 12 targets (Graham's 7 combinations, the 5 linguistic-quality dimensions; the one
    # coverage dimension is the combination coverage), 5 systems
    assert len(corr) == 214 * 12 and (corr.n == "5").all()
    assert list(dict.fromkeys(corr.combination))[7:] == ["grammaticality", "non_redundancy", "referential_clarity",
                                                          "focus", "structure"]
    human = tsv(d / "human/system_human.tsv")
    human = human[human.kind == "system"].pivot(index="summarizer", columns="combination", values="score").astype(float)
    metric = tsv(d / "scores/system_scores.tsv").pivot(index="summarizer", columns="variant", values="score")
    metric = metric.loc[human.index].astype(float)
    checked = 0
    for row in corr.itertuples():
        x, y = metric[row.variant].to_numpy(), human[row.combination].to_numpy()
        if row.pearson == "NA":
            assert np.ptp(x) == 0 or np.ptp(y) == 0
            assert row.pearson_lo == row.pearson_hi == "NA"     # an undefined r has no interval
            continue
        assert float(row.pearson) == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
        assert float(row.spearman) == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
        assert float(row.kendall) == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
        checked += 1
    assert checked > 1000
    williams = tsv(d / "analysis/williams_arithmetic.tsv")
    assert len(williams) == 214 and list(williams.columns)[:2] == ["variant", "R1_ST0_RS0_A_P"]
    assert len(tsv(d / "analysis/williams_pyramid.tsv")) == 214
    notes = tsv(small_run / "results/tiny/analysis/notes.tsv")   # 2 systems: reported, not a crash
    assert "too_few_summarizers" in set(notes.kind) and "williams_undefined" not in set(notes.kind)


def test_topic_resampling_recomputes_system_scores_exactly(small_run):
    """With every topic drawn once, the bootstrap's recomputation gives back system_scores.tsv
    (means, medians, and corpus BLEU and chrF from the summed sufficient statistics)."""
    from metaeval.stages import analysis_inputs
    from metaeval.stats.bootstrap import variant_scores

    d = small_run / "results/sim"
    inputs = {"system_scores": d / "scores/system_scores.tsv", "summary_scores": d / "scores/summary_scores.tsv",
              "summary_human": d / "human/summary_human.tsv", "system_human": d / "human/system_human.tsv",
              "sera": d / "scores/sera_scores.tsv", "chrf": d / "scores/chrf_scores.tsv",
              **{f"chrf_stats_{m}": d / f"scores/chrf_stats_{m}.tsv" for m in ("CHRF", "CHRF++")},
              **{f"bleu_stats_ST{a}_RS{b}": d / f"scores/bleu_stats_ST{a}_RS{b}.tsv" for a in (0, 1) for b in (0, 1)}}
    inp = analysis_inputs.load_named({k: str(v) for k, v in inputs.items()}, "systems")
    assert any(v.startswith("SERADIS10_KW") for v in inp.variant_ids)
    assert {"CHRF", "CHRF++"} <= set(inp.variant_ids) and "CHRF++" in inp.summary_metric
    every_topic_once = np.ones((1, len(inp.per_summary.topics)))
    again = variant_scores(inp.per_summary, inp.variants, every_topic_once)[0]
    np.testing.assert_allclose(again, inp.system_metric, rtol=0, atol=1e-12)   # numpy sums vs math.fsum


def test_agreement_and_rerank_outputs(small_run):
    sim = small_run / "results/sim"
    agreement = tsv(sim / "agreement/agreement.tsv")
    assert set(agreement.pair_type) == {"all", "system-system", "human-system"}  # judged humans: human-system pairs
    verdicts = tsv(sim / "agreement/verdicts.tsv")
    # pairs (10 system-system, 3 x 5 human-system) x scorers (12 targets; 96 ROUGE, 4 BLEU, 2 chrF, 8 SERA)
    assert len(verdicts) == (10 + 15) * (12 + 96 + 4 + 2 + 8)
    summary = dict(tsv(sim / "rerank/summary.tsv").itertuples(index=False, name=None))
    assert summary["original_variant"] == "R2_ST1_RS0_M_R"
    assert len(tsv(sim / "rerank/table3.tsv")) == 5   # the 5 systems
    assert len(tsv(sim / "rerank/pairwise.tsv")) == 10


def test_sera_intervals_and_sweeps(small_run):
    sim, tiny = small_run / "results/sim", small_run / "results/tiny"
    sera = tsv(sim / "scores/sera_scores.tsv")
    assert list(sera.columns) == ["topic", "summarizer", "metric", "score"] and len(sera) == 8 * (5 + 3) * 8
    assert (sim / "scores/sera/index.zip").stat().st_size > 0
    assert "SERA|model:lm_dirichlet" in (sim / "scores/scoring_signature.txt").read_text()
    # the tiny data set has no documents: no SERA rows, no SERA variants, and the run goes on
    assert len(tsv(tiny / "scores/sera_scores.tsv")) == 0
    assert "SERA" not in (tiny / "scores/system_scores.tsv").read_text()
    assert "SERA10_KW_A" in (sim / "analysis/table5.md").read_text()
    assert "| CHRF++ |" in (sim / "analysis/table5.md").read_text() and "| CHRF |" in (tiny / "analysis/table5.md").read_text()
    skipped = tsv(tiny / "human/skipped.tsv").set_index("combination").reason
    assert skipped["pyramid"].startswith("needs SCU annotations")
    assert len(tsv(sim / "intervals/system_intervals.tsv")) == 8 * 8 * 4 * 3   # summarizers x measures x settings x PRF
    # one single-reference condition per human summarizer, named by its id
    assert list(pd.unique(tsv(sim / "sweeps/references_correlations.tsv").condition)) == ["all", "A", "B", "C"]
    lengths = set(tsv(sim / "sweeps/lengths_correlations.tsv").condition)
    assert {"w25", "w200", "c10", "c50", "mean rank over word limits", "mean rank over compression rates"} <= lengths
    report = (sim / "report.html").read_text()
    for title in ("SERA, chrF and pyramid scores", "Confidence intervals", "Single versus multiple references",
                  "Length and compression"):
        assert title in report


def test_lint_reports_nothing(tmp_path):
    scenario(tmp_path)
    proc = snakemake(tmp_path, "--lint", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr


def test_shared_summeval_validates_and_summarises(tmp_path):
    if not (SHARED_DATA / "summeval").exists():
        pytest.skip("../shared/data/summeval is not available")
    (tmp_path / "config").mkdir()
    (tmp_path / "config/config.yaml").write_text(
        f"datasets:\n  summeval:\n    format: canonical\n    path: {SHARED_DATA / 'summeval'}\n")
    snakemake(tmp_path, "--cores", "2", "results/summeval/data/summary.tsv")
    table = summary_table(tmp_path, "summeval")
    assert table["judged_system_summaries"] == "1600" and table["references_per_topic_min"] == "11"
