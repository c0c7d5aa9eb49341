"""Agreement of verdicts and re-ranking: against scipy/statsmodels directly and hand-worked cases;
every verdict category is exercised."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from metaeval.stages.agreement import agreement_tables
from metaeval.stages.rerank import choose_best
from metaeval.stats import pairwise as rr
from metaeval.stats import verdicts as ag
from metaeval.variants import Variant

TOPICS = 12


@pytest.mark.slow
def test_verdicts_against_scipy_and_every_category():
    rng = np.random.default_rng(3)
    base = rng.normal(size=TOPICS)
    a = np.stack([base + 1.0, base, base, base + rng.normal(0, 0.01, TOPICS), base[:]])
    b = np.stack([base, base + 1.0, base, base, base])
    a[4, 5:] = np.nan                      # only 5 common topics... then 4: untestable
    a[4, 4] = np.nan
    v = ag.paired_verdicts(a, b, alpha=0.05, min_topics=5)
    assert v.verdict[0] == 1 and v.verdict[1] == -1          # A better, B better
    assert v.verdict[2] == 0 and v.p[2] == 1.0               # identical: no difference
    assert v.p[3] == pytest.approx(stats.wilcoxon(a[3] - b[3]).pvalue)
    assert v.p[0] == pytest.approx(stats.wilcoxon(a[0] - b[0]).pvalue)
    assert np.isnan(v.verdict[4]) and v.n_topics[4] == 4     # untestable


@pytest.mark.slow
def test_each_pairs_p_value_is_scipys_for_that_pair_alone():
    """A pair's p must not depend on the other pairs (scipy's method='auto' on a batch chooses exact
    or approximate from the whole batch): rows with zeros, ties, few and many topics, batched."""
    rng = np.random.default_rng(8)
    for n in (6, 13, 14, 50, 51):
        d = np.round(rng.normal(size=(8, n)), 1)              # rounding gives zeros and ties
        d[::2] = rng.normal(size=(4, n))                        # rows without: exact for n <= 50
        p = ag.wilcoxon_pvalues(d)
        for row, got in zip(d, p):
            assert got == stats.wilcoxon(row).pvalue
    # the audit's case: a tie-free pair next to a pair with ties, 40 topics
    tied, free = np.round(rng.normal(size=40), 1), rng.normal(size=40)
    batch = ag.paired_verdicts(np.stack([tied, free]), np.zeros((2, 40)), 0.05, 5).p
    assert batch[1] == stats.wilcoxon(free).pvalue == stats.wilcoxon(free, method="exact").pvalue
    assert ag.wilcoxon_method(free) == "exact" and ag.wilcoxon_method(tied) == "asymptotic"
    # the rows' methods at once: each row's own, as scipy picks it (no zero and no tie: exact)
    small = np.array([[0.5, -1.5, 2.0], [0.5, -0.5, 2.0], [0.0, 1.0, 2.0], [1.0, 2.0, -3.0]])
    assert ag.wilcoxon_methods(small).tolist() == ["exact", "permutation", "permutation", "exact"]
    wide = np.stack([free, tied, np.where(np.arange(40) == 3, 0.0, free)])
    assert ag.wilcoxon_methods(wide).tolist() == ["exact", "asymptotic", "asymptotic"]
    assert ag.wilcoxon_methods(rng.normal(size=(2, 60))).tolist() == ["asymptotic"] * 2


def test_pairs_with_missing_topics_are_scipys_on_their_common_topics(monkeypatch):
    """Pairs that lack topics (several rows share each missing subset, others have their own) get
    scipy's p on their common topics, row by row; and every scorer's verdicts are the same whether
    the scorers are tested in one batch, in batches of one, or alone."""
    rng = np.random.default_rng(11)
    pairs, topics = 30, 20
    a = np.round(rng.normal(size=(pairs, topics)), 1)          # zeros and ties
    a[::3] = rng.normal(size=(10, topics))
    b = np.zeros((pairs, topics))
    a[0:6, 3] = np.nan                                         # one subset shared by six pairs
    b[6:9, [0, 5, 7]] = np.nan                                 # another by three
    a[9, 4:17] = np.nan                                        # a pair with 7 common topics
    a[10, 2], b[10, 11] = np.nan, np.nan
    v = ag.paired_verdicts(a, b, 0.05, 5)
    for k in range(pairs):
        ok = ~np.isnan(a[k] - b[k])
        assert v.p[k] == stats.wilcoxon(a[k][ok] - b[k][ok]).pvalue
        assert v.n_topics[k] == ok.sum()
    grids = {f"m{k}": rng.normal(size=(6, topics)) for k in range(5)}
    grids["m0"][2, :4] = np.nan
    ii, jj = np.triu_indices(6, 1)
    alone = {n: ag.paired_verdicts(g[ii], g[jj], 0.05, 5) for n, g in grids.items()}
    for batch in (ag.BATCH_VALUES, 1):
        monkeypatch.setattr(ag, "BATCH_VALUES", batch)
        together = ag.verdicts_of_scorers(grids, ii, jj, 0.05, 5)
        assert list(together) == list(grids)
        for n in grids:
            for field in ("p", "mean_diff", "median_diff", "n_topics", "verdict"):
                assert np.array_equal(getattr(together[n], field), getattr(alone[n], field), equal_nan=True)


def test_direction_by_median_then_mean():
    a = np.array([[1.0, 1, 1, 0, 0, 0, 5, 1, 1, 1]])
    b = np.array([[0.0, 0, 0, 1, 1, 1, 0, 1, 1, 1]])   # median difference 0, mean > 0
    v = ag.paired_verdicts(a, b, alpha=0.99, min_topics=5)
    assert v.median_diff[0] == 0 and v.mean_diff[0] > 0 and v.verdict[0] == 1


def _verdicts(values):
    values = np.array(values, dtype=float)
    return ag.Verdicts(np.zeros(len(values)), values.copy(), values.copy(), np.full(len(values), 10), values)


def test_proportion_statistics_equal_statsmodels():
    """Clopper-Pearson and the pooled z-test are statsmodels' (the test dependency), to the bit."""
    for n in range(1, 45):
        for k in range(n + 1):
            assert ag.clopper_pearson(k, n) == tuple(map(float, proportion_confint(k, n, alpha=0.05, method="beta")))
    rng = np.random.default_rng(5)
    for _ in range(400):
        n1, n2 = rng.integers(1, 300, 2)
        k1, k2 = rng.integers(0, n1 + 1), rng.integers(0, n2 + 1)
        if k1 + k2 in (0, n1 + n2):
            continue
        assert ag.two_proportion_z(k1, n1, k2, n2) == tuple(map(float, proportions_ztest([k1, k2], [n1, n2])))


def test_agreement_hand_worked():
    human = _verdicts([1, 1, -1, 0, 0, 1, np.nan])
    metric = _verdicts([1, -1, 0, 0, 1, 1, 1])
    a = ag.agreement(metric, human)
    assert a.pairs == 6 and a.human_significant == 4
    assert a.diff == 2 / 4            # pairs 0 and 5
    assert a.no_diff == 1 / 2         # pair 3 (pair 4: metric finds a difference)
    assert a.contradictions == 1      # pair 1
    assert a.correct == 3 and a.accuracy == 0.5
    assert (a.accuracy_lo, a.accuracy_hi) == pytest.approx(proportion_confint(3, 6, alpha=0.05, method="beta"))
    assert ag.safe_difference(metric, human) == 1.0
    z, p = ag.compare_to_baseline(30, 40, 20, 40)
    assert (z, p) == pytest.approx(proportions_ztest([30, 20], [40, 40]))


def test_agreement_tables_pair_types():
    rng = np.random.default_rng(0)
    quality = np.array([0.0, 0.3, 0.6, 2.0])   # summarizer 'H' (a judged human) is the best
    human = quality[:, None] + rng.normal(0, 0.2, (4, TOPICS))
    metric = quality[:, None] + rng.normal(0, 0.2, (4, TOPICS))
    noise = rng.normal(0, 1, (4, TOPICS))
    res = agreement_tables({"arithmetic": human}, {"good": metric, "noise": noise}, ["1", "2", "3", "H"],
                           ["system", "system", "system", "human"], ["arithmetic"], 0.05, 5, "noise")
    rows = {(r["metric"], r["pair_type"]): r for r in res.rows}
    assert rows[("good", "system-system")]["pairs"] == 3 and rows[("good", "human-system")]["pairs"] == 3
    # the 6 pairs' verdicts, recomputed with scipy, and the accuracy counted by hand
    ii, jj, _ = res.pairs
    for found, grid in ((res.human["arithmetic"], human), (res.metrics["good"], metric), (res.metrics["noise"], noise)):
        p = [stats.wilcoxon(grid[i] - grid[j]).pvalue for i, j in zip(ii, jj)]
        np.testing.assert_array_equal(found.p, p)
    for name in ("good", "noise"):
        same = np.sum(res.metrics[name].verdict == res.human["arithmetic"].verdict)
        assert rows[(name, "all")]["correct"] == same and rows[(name, "all")]["accuracy"] == same / 6


def test_a_metric_named_like_a_human_target_leaves_the_targets_verdicts_alone(tmp_path):
    """An LLM judge's scores named ``grammaticality`` beside the human target ``grammaticality``
    (the probe: R2's human_significant against that target fell from 5 to 1, and the judge agreed
    with itself at 1.0). The targets' verdicts are scipy's on the human scores, whatever a metric is
    called; the agreement table is the same as with the judge named otherwise; verdicts.tsv keeps
    the human target's rows and the judge's, told apart by scorer_kind."""
    from metaeval.stages.agreement import AGREEMENT_COLUMNS, write

    rng = np.random.default_rng(5)
    quality = np.linspace(0, 1.5, 6)[:, None]
    human = {"grammaticality": quality + rng.normal(0, 0.5, (6, 15)), "arithmetic": quality + rng.normal(0, 0.3, (6, 15))}
    metrics = {"R2_ST1_RS0_R": quality + rng.normal(0, 0.4, (6, 15)), "judge": rng.normal(0, 1, (6, 15))}
    args = (["s0", "s1", "s2", "s3", "s4", "s5"], ["system"] * 6, ["grammaticality", "arithmetic"], 0.05, 5,
            "R2_ST1_RS0_R")
    other = agreement_tables(human, metrics, *args)
    named = agreement_tables(human, {"R2_ST1_RS0_R": metrics["R2_ST1_RS0_R"], "grammaticality": metrics["judge"]}, *args)
    ii, jj, _ = named.pairs
    p = np.array([stats.wilcoxon(human["grammaticality"][i] - human["grammaticality"][j]).pvalue for i, j in zip(ii, jj)])
    r2 = next(r for r in named.rows if (r["metric"], r["combination"], r["pair_type"]) ==
              ("R2_ST1_RS0_R", "grammaticality", "all"))
    assert r2["human_significant"] == np.sum(p < 0.05) == 10
    renamed = [{**r, "metric": "grammaticality" if r["metric"] == "judge" else r["metric"]} for r in other.rows]
    assert repr([[r[c] for c in AGREEMENT_COLUMNS] for r in named.rows]) == \
        repr([[r[c] for c in AGREEMENT_COLUMNS] for r in renamed])
    np.testing.assert_array_equal(named.human["grammaticality"].p, p)
    out = {k: str(tmp_path / k) for k in ("verdicts", "agreement", "table2_md", "table3_md", "accuracy_png",
                                          "accuracy_svg", "differences_png", "differences_svg")}
    write(named, None, out)
    from metaeval import tables

    verdicts = tables.read_tsv(out["verdicts"], numeric=("p",))
    first = verdicts[(verdicts.a == "s0") & (verdicts.b == "s1") & (verdicts.scorer == "grammaticality")]
    assert first.scorer_kind.tolist() == ["human", "metric"]
    assert first.p.tolist() == [p[0], stats.wilcoxon(metrics["judge"][0] - metrics["judge"][1]).pvalue]


def test_per_summary_metric_of_a_variant():
    assert Variant.parse("R2_ST1_RS0_A_R").summary_metric == "R2_ST1_RS0_R"
    assert Variant.parse("BLEU_ST0_RS1").summary_metric == "BLEU_ST0_RS1"
    assert Variant.parse("SERA5_PL_M").summary_metric == "SERA5_PL"


def test_rerank_choices_tests_and_top_group():
    corr = [{"variant": "R1_ST0_RS0_A_R", "combination": "arithmetic", "pearson": "0.9", "optimal": "no"},
            {"variant": "R2_ST0_RS0_A_R", "combination": "arithmetic", "pearson": "0.8", "optimal": "yes"}]
    assert choose_best(corr, "arithmetic", "auto", "X")[0] == "R2_ST0_RS0_A_R"
    assert choose_best(corr, "arithmetic", "R1_ST0_RS0_A_R", "X")[0] == "R1_ST0_RS0_A_R"
    variant, how = choose_best(corr, "coverage", "auto", "R2_ST1_RS0_M_R")  # nothing defined
    assert variant == "R2_ST1_RS0_M_R" and "original variant is used" in how
    assert rr.ranks(np.array([0.2, 0.5, 0.5, 0.1])).tolist() == [3, 1, 1, 4]
    rng = np.random.default_rng(2)  # all three samples pass Shapiro-Wilk (p > 0.9)
    per = np.stack([rng.normal(0, 0.05, 30) + m for m in (0.5, 0.3, 0.29)])
    assert rr.normality(per, 0.05)[1].all()
    tests, beats = rr.pairwise_tests(["x", "y", "z"], per, mean_based=True, alpha=0.05)
    t_xy = tests[0]
    assert t_xy.test == "paired t-test" and t_xy.winner == "x"
    assert t_xy.p == pytest.approx(stats.ttest_rel(per[0], per[1]).pvalue)
    assert rr.top_group(["x", "y", "z"], beats) == ["x"]
    skewed = np.stack([rng.exponential(1, 30), rng.exponential(1, 30) + 2])
    tests, _ = rr.pairwise_tests(["a", "b"], skewed, mean_based=True, alpha=0.05)
    assert tests[0].test == "Wilcoxon signed-rank"          # normality rejected
    tests, _ = rr.pairwise_tests(["x", "y"], per[:2], mean_based=False, alpha=0.05)
    assert tests[0].test == "Wilcoxon signed-rank"          # median-based variant


def test_pairwise_tests_of_systems_that_share_no_topic_warn_nothing():
    # FRANK's CNN/DM and XSum systems judge disjoint topics: such a pair has no difference to test,
    # no winner, and must not fill the re-ranking log with numpy's "Mean of empty slice"
    nan = np.nan
    per = np.array([[0.1, 0.4, 0.3, nan, nan, nan], [0.2, 0.1, 0.5, nan, nan, nan], [nan, nan, nan, 0.3, 0.2, 0.9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tests, beats = rr.pairwise_tests(["a", "b", "c"], per, mean_based=False, alpha=0.05)
    by_pair = {(t.a, t.b): t for t in tests}
    assert by_pair[("a", "c")].n_topics == 0 and by_pair[("a", "c")].winner == "" and not beats[0, 2] and not beats[2, 0]


def test_tied_scores_on_few_topics_are_scipys_permutation_p_in_bounded_time_and_memory(monkeypatch):
    """Integer judgments on 10 topics tie on every pair, so every row takes scipy's exact permutation
    test (2^10 sign flips): scipy's wilcoxon runs its statistic once per row and flip in Python
    (seconds per target; 100 dimensions took 242 s), the vectorised W+ all at once. The p-values
    equal scipy's row by row, also with the flips in batches of a few rows' worth."""
    import time

    rng = np.random.default_rng(5)
    d = (rng.integers(1, 6, size=(600, 10)) - rng.integers(1, 6, size=(600, 10))).astype(float) / 3
    d = d[np.any(d != 0, axis=1)]
    assert set(ag.wilcoxon_methods(d)) == {"permutation"}
    start = time.perf_counter()
    p = ag.wilcoxon_pvalues(d)
    assert time.perf_counter() - start < 5          # scipy row by row: about 45 s here
    expected = np.array([stats.wilcoxon(row).pvalue for row in d[:60]])
    assert np.array_equal(p[:60], expected)
    assert np.array_equal(ag.signed_rank_sum(d[:60]), [stats.wilcoxon(row, alternative="greater").statistic
                                                       for row in d[:60]])
    monkeypatch.setattr(ag, "PERMUTATION_VALUES", 50)     # batches of one sign flip for the 60 rows
    assert np.array_equal(ag.wilcoxon_pvalues(d[:60]), expected)
