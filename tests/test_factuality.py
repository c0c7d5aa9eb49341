"""Factual consistency: the statistics against reference implementations (pingouin,
scikit-learn, scipy) and plain loops; FRANK's definitions reproduced from its released
evaluate.py (one-hot residualisation with scikit-learn, scipy's pearsonr/spearmanr of the
residuals); the stage end to end on FRANK, QAGS-CNN, QAGS-XSum and Rank19 from the releases; bad input.
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from conftest import release_entry, shared_dataset, snakemake
from metaeval import outputs, tables
from metaeval.data.datasets import DatasetError, read_dataset
from metaeval.options import ConfigError, Options, default_options, schema_defaults
from metaeval.stages import factuality as F
from metaeval.stats import binary, core, partial, ranking

pg = pytest.importorskip("pingouin")
sk_metrics = pytest.importorskip("sklearn.metrics")
from sklearn.linear_model import LinearRegression  # noqa: E402
from sklearn.preprocessing import OneHotEncoder  # noqa: E402

FRANK_METRICS = ["Bleu", "Meteor", "Rouge 1", "Rouge 2", "Rouge L", "BertScore P", "BertScore R", "BertScore F1",
                 "BertScore P Art", "BertScore R Art", "BertScore F1 Art", "FEQA", "QAGS", "OpenIE", "Dep Entail",
                 "FactCC"]
DEFAULTS = default_options().factuality      # the schema's defaults


# --------------------------------------------------------------------------- references, written here

def pingouin_partial(x, y, systems, method="pearson"):
    """pingouin.partial_corr with the system as covariate (its one-hot dummies, first dropped)."""
    df = pd.DataFrame({"x": np.asarray(x, float), "y": np.asarray(y, float)})
    dummies = pd.get_dummies(pd.Series(systems), drop_first=True).astype(float)
    dummies.columns = [f"sys{i}" for i in range(dummies.shape[1])]
    df = pd.concat([df, dummies.set_index(df.index)], axis=1)
    return pg.partial_corr(df, "x", "y", covar=list(dummies.columns), method=method)


def frank_definition(x, y, systems):
    """FRANK's evaluate.py human_metric_correlation: OneHotEncoder + LinearRegression residuals,
    then scipy's pearsonr and spearmanr. FRANK passes the sparse one-hot matrix, which makes
    scikit-learn solve by the iterative lsqr (residuals within ~1e-5 of the exact ones, Spearman
    off in the 6th decimal); a dense matrix gives the exact least-squares fit that FRANK means."""
    onehot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    q = onehot.fit_transform(np.asarray(systems).reshape(-1, 1))
    rx = x - LinearRegression().fit(q, x).predict(q)
    ry = y - LinearRegression().fit(q, y).predict(q)
    return stats.pearsonr(rx, ry), stats.spearmanr(rx, ry), (rx, ry)


def williams_by_hand(r12, r13, r23, n):
    """Williams (1959) as FRANK's williams_test writes it (one-sided, n - 3 df)."""
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    den = math.sqrt(2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2) / 4 * (1 - r23) ** 3)
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23)) / den
    return 1 - stats.t.cdf(t, df=n - 3)


def delong_by_loops(a, b, y):
    """DeLong et al. (1988) with plain loops over every (positive, negative) pair."""
    pos = [i for i in range(len(y)) if y[i] == 1]
    neg = [i for i in range(len(y)) if y[i] == 0]

    def psi(u, v):
        return 1.0 if u > v else 0.5 if u == v else 0.0

    comps = []
    for s in (a, b):
        v10 = [sum(psi(s[i], s[j]) for j in neg) / len(neg) for i in pos]
        v01 = [sum(psi(s[i], s[j]) for i in pos) / len(pos) for j in neg]
        comps.append((v10, v01))
    aucs = [sum(v10) / len(v10) for v10, _ in comps]

    def cov(u, v):
        mu, mv = sum(u) / len(u), sum(v) / len(v)
        return sum((p - mu) * (q - mv) for p, q in zip(u, v)) / (len(u) - 1)

    var = lambda k, l: cov(comps[k][0], comps[l][0]) / len(pos) + cov(comps[k][1], comps[l][1]) / len(neg)  # noqa
    z = (aucs[0] - aucs[1]) / math.sqrt(var(0, 0) + var(1, 1) - 2 * var(0, 1))
    return aucs, z, 2 * (1 - stats.norm.cdf(abs(z)))


# --------------------------------------------------------------------------- statistics, synthetic data

def _synthetic(seed=0, systems=5, per=40):
    rng = np.random.default_rng(seed)
    sy = np.repeat([f"s{i}" for i in range(systems)], per)
    offset = np.repeat(rng.normal(size=systems), per)
    h = np.clip(0.6 + 0.2 * offset + rng.normal(scale=0.2, size=sy.size), 0, 1)
    x = 0.5 * h + offset + rng.normal(scale=0.3, size=sy.size)
    return x, h, sy


def test_partial_correlation_equals_pingouin_and_frank_definitions():
    x, h, sy = _synthetic()
    pc = partial.partial_correlation(x, h, sy)
    ref = pingouin_partial(x, h, sy)
    assert abs(pc.pearson - ref["r"].iloc[0]) < 1e-9
    assert abs(pc.pearson_p_strict - ref["p_val"].iloc[0]) < 1e-9
    assert abs(pc.spearman_ranks - pingouin_partial(x, h, sy, "spearman")["r"].iloc[0]) < 1e-9
    (pr, pp), (sr, sp), _ = frank_definition(x, h, sy)
    assert abs(pc.pearson - pr) < 1e-9 and abs(pc.pearson_p - pp) < 1e-12
    assert abs(pc.spearman - sr) < 1e-9 and abs(pc.spearman_p - sp) < 1e-12


def test_williams_on_partial_correlations_by_hand():
    x, h, sy = _synthetic(1)
    z = x + np.random.default_rng(7).normal(scale=1.0, size=x.size)
    w = partial.williams_partial(x, z, h, sy)
    _, _, (rx, rh) = frank_definition(x, h, sy)
    _, _, (rz, _) = frank_definition(z, h, sy)
    r12, r13, r23 = (stats.pearsonr(u, v)[0] for u, v in ((rx, rh), (rz, rh), (rx, rz)))
    assert abs(w.r_a - r12) < 1e-12 and abs(w.r_b - r13) < 1e-12 and abs(w.r_ab - r23) < 1e-12
    assert w.r_a > w.r_b
    assert abs(w.p - williams_by_hand(r12, r13, r23, x.size)) < 1e-12


def test_williams_tests_matrix_equals_each_pair_alone_and_by_hand():
    """The stage's Williams tests (one residualisation and one matrix of tests for the metrics defined
    on every summary): each cell is the scalar test of its row's r's bit for bit, r_a and r_b are
    williams_partial's bit for bit (r_ab comes from np.corrcoef there: within 1e-12), and all equal
    FRANK's formula by hand (scipy's pearsonr of scikit-learn's residuals); a metric with a gap is
    tested pair by pair."""
    from types import SimpleNamespace

    from metaeval.stages.factuality_protocols import williams_tests
    from metaeval.stats.williams import williams_test

    x, h, sy = _synthetic(3)
    rng = np.random.default_rng(12)
    ms = {"A": x, "B": x + rng.normal(size=x.size), "C": np.round(h + rng.normal(scale=2, size=x.size), 1),
          "D": -x + 0.1 * rng.normal(size=x.size)}
    gap = ms["B"].copy()
    gap[5] = np.nan
    ms["E"] = gap
    scope = np.ones(x.size, dtype=bool)
    rows = williams_tests("d", "all", "all", scope, SimpleNamespace(metrics=ms, systems=sy), list(ms), h)
    assert [(r[3], r[4]) for r in rows] == [(a, b) for a in ms for b in ms if a != b]
    residuals = {k: frank_definition(v[np.isfinite(v)], h[np.isfinite(v)], sy[np.isfinite(v)])[2][0]
                 for k, v in ms.items() if k != "E"}
    rh = frank_definition(x, h, sy)[2][1]
    for d_, sub, sp, a, b, n, r_a, r_b, r_ab, p in rows:
        w = partial.williams_partial(ms[a], ms[b], h, sy)
        assert (n, r_a, r_b) == tuple(w)[:3] and p == float(williams_test(r_a, r_b, r_ab, n)), (a, b)
        assert abs(r_ab - w.r_ab) < 1e-12 and abs(p - w.p) < 1e-12
        if "E" not in (a, b):
            r12, r13, r23 = (stats.pearsonr(u, v)[0] for u, v in ((residuals[a], rh), (residuals[b], rh),
                                                                    (residuals[a], residuals[b])))
            assert abs(r_a - r12) < 1e-12 and abs(r_b - r13) < 1e-12 and abs(r_ab - r23) < 1e-12
            assert abs(p - williams_by_hand(r12, r13, r23, n)) < 1e-12


def test_partial_bootstrap_is_seeded_and_brackets_the_estimate():
    x, h, sy = _synthetic(2)
    a = partial.bootstrap_partial(x, h, sy, 300, 5, 0.95)
    assert a == partial.bootstrap_partial(x, h, sy, 300, 5, 0.95)
    pc = partial.partial_correlation(x, h, sy)
    assert a[0] < pc.pearson < a[1] and a[2] < pc.spearman < a[3]


def test_batched_partial_bootstrap_equals_one_at_a_time():
    x, h, sy = _synthetic(6)
    z = x + np.random.default_rng(8).normal(size=x.size)
    many = partial.bootstrap_partial_many(np.vstack([x, z]), h, sy, 200, 11, 0.9)
    for row, metric in zip(many, (x, z)):
        assert tuple(row) == partial.bootstrap_partial(metric, h, sy, 200, 11, 0.9)


def test_ranks_equal_scipy_rankdata():
    rng = np.random.default_rng(9)
    for shape, levels in (((40, 300), 7), ((3, 5), 2), ((1, 1), 1), ((100, 2000), 0)):
        a = rng.integers(0, levels, size=shape) / 3 if levels else rng.normal(size=shape)
        assert np.array_equal(core.ranks(a), stats.rankdata(a, axis=-1))


def test_partial_undefined_with_one_system():
    pc = partial.partial_correlation([1, 2, 3, 4], [1, 3, 2, 4], ["a"] * 4)
    assert pc.systems == 1 and math.isnan(pc.pearson)


def test_auc_and_balanced_accuracy_equal_scikit_learn():
    rng = np.random.default_rng(3)
    y = (rng.random(300) < 0.4).astype(float)
    s = np.round(y * 0.8 + rng.normal(size=300), 1)            # rounding makes ties
    assert abs(binary.auc(s, y) - sk_metrics.roc_auc_score(y, s)) < 1e-12
    thr, ba = binary.best_threshold(s, y)
    brute = max(sk_metrics.balanced_accuracy_score(y, s >= t) for t in np.concatenate([np.unique(s), [np.inf]]))
    assert abs(ba - brute) < 1e-12
    assert abs(binary.balanced_accuracy(s, y, thr) - sk_metrics.balanced_accuracy_score(y, s >= thr)) < 1e-12
    lo, hi = binary.bootstrap_auc(s, y, 500, 1, 0.95)
    assert lo < binary.auc(s, y) < hi


def test_resampled_aucs_equal_scikit_learn_on_the_drawn_summaries():
    """Each bootstrap sample's AUC, from the counts of the drawn summaries, is scikit-learn's AUC of the
    sample written out (every drawn summary repeated as often as drawn; ties one half)."""
    rng = np.random.default_rng(8)
    x, y = np.round(rng.normal(0.5, 1, 40), 1), np.round(rng.normal(size=25), 1)
    dx, dy = rng.integers(0, 40, (20, 40)), rng.integers(0, 25, (20, 25))
    values = binary.resampled_aucs(x, y, binary.counts(dx, 40), binary.counts(dy, 25))
    for b in range(20):
        scores = np.concatenate([x[dx[b]], y[dy[b]]])
        labels = np.concatenate([np.ones(40), np.zeros(25)])
        assert values[b] == pytest.approx(sk_metrics.roc_auc_score(labels, scores), abs=1e-12)


def test_delong_equals_plain_loops():
    rng = np.random.default_rng(4)
    y = (rng.random(60) < 0.5).astype(float)
    a = np.round(y + rng.normal(size=60), 1)
    b = np.round(0.5 * y + rng.normal(size=60), 1)
    d = binary.delong_test(a, b, y)
    aucs, z, p = delong_by_loops(list(a), list(b), list(y))
    assert abs(d.auc_a - aucs[0]) < 1e-12 and abs(d.auc_b - aucs[1]) < 1e-12
    assert abs(d.z - z) < 1e-9 and abs(d.p - p) < 1e-9
    assert abs(d.auc_a - sk_metrics.roc_auc_score(y, a)) < 1e-12


def test_ranking_accuracy_ties_interval_and_mcnemar_by_hand():
    pref = np.array([3, 2, 1, 5, 5, 0, 7, 2.0])
    other = np.array([1, 2, 2, 4, 5, 1, 6, 1.0])   # correct: 0,3,6,7; ties: 1,4; wrong: 2,5
    r = ranking.ranking_accuracy(pref, other)
    assert (r.pairs, r.correct, r.ties, r.incorrect) == (8, 4, 2, 2)
    assert r.accuracy == 0.5 and r.accuracy_ties_half == 5 / 8
    # Clopper-Pearson from the beta quantiles
    assert abs(r.lo - stats.beta.ppf(0.025, 4, 5)) < 1e-9 and abs(r.hi - stats.beta.ppf(0.975, 5, 4)) < 1e-9
    b_pref = np.array([3, 3, 3, 0, 6, 2, 0, 0.0])  # b correct: 0, 1, 2, 4, 5 -> a only: 3, 6, 7; b only: 1, 2, 4, 5
    t = ranking.mcnemar_exact(pref, other, b_pref, other)
    assert (t.pairs, t.a_only, t.b_only) == (8, 3, 4)
    assert abs(t.p - 1.0) < 1e-12                  # 2 P(X <= 3), X ~ Bin(7, 1/2), capped at 1
    ones, zeros = np.ones(12), np.zeros(12)
    b = np.where(np.arange(12) < 2, 1.0, 0.0)      # b right on 2 of the 12 pairs a gets right
    t = ranking.mcnemar_exact(ones, zeros, b, zeros)
    assert (t.a_only, t.b_only) == (10, 0)
    n, k = 10, 0
    p = 2 * sum(math.comb(n, i) for i in range(0, k + 1)) / 2 ** n
    assert abs(t.p - p) < 1e-12


# --------------------------------------------------------------------------- the stage on constructed inputs

def _inputs(kind="proportion", systems=3, per=20, splits=True, seed=0, flips=True):
    rng = np.random.default_rng(seed)
    n = systems * per
    sy = np.repeat([f"m{i}" for i in range(systems)], per).astype(object)
    topics = np.array([f"t{i % per:03d}" for i in range(n)], dtype=object)
    h = np.round(rng.random(n), 1) if kind != "binary" else (rng.random(n) < 0.5).astype(float)
    dims = {"Factuality": h}
    if flips:
        dims["Flip_EntE"] = np.clip(h + 0.2 * rng.random(n), 0, 1)
    metrics = {"good": h + rng.normal(scale=0.2, size=n), "noise": rng.normal(size=n),
               "constant": np.ones(n)}
    split = np.array(["valid" if i % per < per // 2 else "test" for i in range(n)], dtype=object) if splits \
        else np.array([""] * n, dtype=object)
    return F.FactualityInputs("toy", topics, sy, split, np.array(["a" if i % 2 else "b" for i in range(n)], dtype=object),
                              dims, {d: kind for d in dims}, ["Factuality"], ["Flip_EntE"] if flips else [],
                              metrics, {m: "file" for m in metrics}, "toy/summaries.jsonl")


def test_stage_tables_match_the_references_and_are_byte_stable(tmp_path):
    inp = _inputs()
    o = DEFAULTS._replace(bootstrap_samples=200, proportion_cutoff=0.5)
    res = F.compute(inp, o)
    p = res.partial
    row = p[(p["subset"] == "all") & (p["split"] == "all") & (p["metric"] == "good")].iloc[0]
    ref = pingouin_partial(inp.metrics["good"], inp.dimensions["Factuality"], inp.systems)
    assert abs(row["pearson"] - ref["r"].iloc[0]) < 1e-9
    s = res.summary
    row = s[(s["subset"] == "all") & (s["split"] == "test") & (s["metric"] == "good")].iloc[0]
    m = inp.splits == "test"
    assert abs(row["kendall"] - stats.kendalltau(inp.metrics["good"][m], inp.dimensions["Factuality"][m])[0]) < 1e-12
    b = res.binary
    row = b[(b["subset"] == "all") & (b["metric"] == "good")].iloc[0]
    labels = (inp.dimensions["Factuality"] >= 0.5).astype(float)
    assert abs(row["auc"] - sk_metrics.roc_auc_score(labels, inp.metrics["good"])) < 1e-12
    t = inp.splits == "test"
    assert abs(row["balanced_accuracy_test"] - sk_metrics.balanced_accuracy_score(
        labels[t], inp.metrics["good"][t] >= row["threshold"])) < 1e-12
    # the constant metric: undefined correlations, AUC one half, no crash
    c = p[(p["subset"] == "all") & (p["split"] == "all") & (p["metric"] == "constant")].iloc[0]
    assert math.isnan(c["pearson"])
    assert b[(b["subset"] == "all") & (b["metric"] == "constant")].iloc[0]["auc"] == 0.5
    assert set(res.ablation["category"]) == {"EntE"} and len(res.ablation) == 3
    assert res.answer.iloc[0]["protocol"] == "partial" and res.answer.iloc[0]["metric"] == "good"
    outs = {}
    for run in ("a", "b"):
        out = {k: str(tmp_path / run / Path(v).name) for k, v in outputs.files("factuality", "toy").items()}
        (tmp_path / run).mkdir()
        F.write(F.compute(inp, o), o, out)
        outs[run] = {k: Path(v).read_bytes() for k, v in out.items()}
    assert outs["a"] == outs["b"]


def _best_ba(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """The threshold (the midpoints of the sorted distinct scores and one beyond each end, the lowest on
    ties) maximising scikit-learn's balanced accuracy of score >= threshold, and that accuracy."""
    u = np.unique(scores)
    candidates = [u[0] - 1, *((u[:-1] + u[1:]) / 2), u[-1] + 1]
    accuracy = [sk_metrics.balanced_accuracy_score(labels, scores >= c) for c in candidates]
    i = int(np.argmax(accuracy))
    return candidates[i], accuracy[i]


def test_each_subset_has_its_delong_tests_its_oracle_and_the_mean_over_the_subsets():
    """Per subset: AUC (scikit-learn), the balanced accuracy at the threshold chosen on the validation
    split and applied to the test split, and the oracle's (the threshold chosen on the test split
    itself, as SummaC's benchmark does), each by scikit-learn with the threshold searched here; DeLong
    tests in each subset; the means over the subsets are the means of those values."""
    inp = _inputs(kind="binary", per=40)
    res = F.compute(inp, DEFAULTS._replace(bootstrap_samples=50))
    b, labels, x = res.binary, inp.dimensions["Factuality"], inp.metrics["good"]
    for sub in ("a", "b"):
        row = b[(b["subset"] == sub) & (b["metric"] == "good")].iloc[0]
        m = inp.subsets == sub
        assert row["auc"] == pytest.approx(sk_metrics.roc_auc_score(labels[m], x[m]), abs=1e-12)
        v, t = m & (inp.splits == "valid"), m & (inp.splits == "test")
        threshold, _ = _best_ba(labels[v], x[v])
        assert row["balanced_accuracy_test"] == pytest.approx(
            sk_metrics.balanced_accuracy_score(labels[t], x[t] >= threshold), abs=1e-12)
        oracle, best = _best_ba(labels[t], x[t])
        assert (row["oracle_threshold"], row["balanced_accuracy_oracle"]) == pytest.approx((oracle, best), abs=1e-12)
        assert best >= row["balanced_accuracy_test"]
    tests = res.auc_tests
    assert set(tests["subset"]) == {"all", "a", "b"} and len(tests[tests["subset"] == "a"]) == 3   # 3 metrics, 3 pairs
    mean = res.means[res.means["metric"] == "good"].iloc[0]
    for column in ("auc", "balanced_accuracy_test", "balanced_accuracy_oracle"):
        assert mean[column] == pytest.approx(b[(b["subset"] != "all") & (b["metric"] == "good")][column].mean(),
                                             abs=1e-12)
    assert mean["subsets"] == 2


def test_one_system_binary_data_set_gets_notes_and_a_seeded_split():
    inp = _inputs(kind="binary", systems=1, per=60, splits=False, flips=False)
    o = DEFAULTS._replace(bootstrap_samples=50)
    res = F.compute(inp, o)
    assert not len(res.partial)
    assert any("at least 2 systems" in n for n in res.notes["note"])
    assert "seeded split" in res.split_how
    v, t, _ = F.split_masks(inp, o)
    assert v.sum() == 30 and not (v & t).any()
    # a topic's summaries stay on one side; the same seed gives the same split
    assert np.array_equal(v, F.split_masks(inp, o)[0])
    assert res.answer.iloc[0]["protocol"] == "auc"


def test_preference_data_set_ranks_pairs(tmp_path):
    n = 30
    topics = np.repeat([f"t{i}" for i in range(n)], 2).astype(object)
    sy = np.tile(["correct", "incorrect"], n).astype(object)
    h = np.tile([1.0, 0.0], n)
    rng = np.random.default_rng(5)
    m = rng.normal(size=2 * n) + 0.5 * h
    inp = F.FactualityInputs("pairs", topics, sy, np.array([""] * 2 * n, dtype=object),
                             np.array([""] * 2 * n, dtype=object), {"fact": h}, {"fact": "preference"}, ["fact"], [],
                             {"m": m, "tie": np.zeros(2 * n)}, {"m": "built-in", "tie": "built-in"}, "p/summaries.jsonl")
    res = F.compute(inp, DEFAULTS._replace(bootstrap_samples=50))
    r = res.ranking.set_index("metric")
    correct = sum(m[2 * i] > m[2 * i + 1] for i in range(n))
    assert r.loc["m", "correct"] == correct and r.loc["m", "pairs"] == n
    assert r.loc["tie", "ties"] == n and r.loc["tie", "accuracy"] == 0.0
    assert res.answer.iloc[0]["protocol"] == "ranking"
    assert "<b>m</b>" in F.answer_sentence(_answer_file(res, tmp_path))


def _answer_file(res, folder: Path) -> str:
    f = folder / "answer.tsv"
    tables.write_tsv(res.answer, f)
    return str(f)


# --------------------------------------------------------------------------- bad input

def test_a_split_the_data_set_does_not_have_is_an_error_naming_file_field_and_key():
    inp = _inputs()
    with pytest.raises(DatasetError) as e:
        F.check_splits(inp, DEFAULTS._replace(validation_split=("dev",)))
    assert str(e.value).startswith("toy/summaries.jsonl, field 'split': no summary has the split 'dev'")
    assert "factuality.validation_split" in str(e.value) and "test, valid" in str(e.value)


def test_the_options_record_is_the_schema_section():
    """Every key of the factuality section is a field of its record (lists as tuples), and the record
    has no defaults of its own; besides, the baselines' per-summary ids (of correlation.baselines and
    agreement.baseline, written out here)."""
    section = schema_defaults()["factuality"]
    fields = DEFAULTS._asdict()
    assert fields.pop("baselines") == ("R1_ST1_RS0_R", "R2_ST1_RS0_R", "R4_ST1_RS0_R")
    assert fields == {k: tuple(v) if isinstance(v, list) else v for k, v in section.items()}
    assert not DEFAULTS._field_defaults


def test_frank_split_is_checked_with_the_config(tmp_path):
    for name in ("human_annotations.json", "baseline_factuality_metrics_outputs.json"):
        (tmp_path / name).write_text("[]")
    with pytest.raises(ConfigError, match=r"config key factuality.test_split: 'dev' is not a split of data set f"):
        Options.from_config({"datasets": {"f": {"format": "frank", "path": str(tmp_path)}},
                             "factuality": {"test_split": "dev"}})


def _score_only(folder: Path, kind: str, judgments: str, records: list[dict]) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "dataset.yaml").write_text(yaml.safe_dump({"name": "x", "texts": False, "dimensions": {
        "fact": {"kind": kind}}, "human": {"coverage": ["fact"], "linguistic_quality": []}}))
    (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "judgments.tsv").write_text(judgments)
    return {k: str(folder / f) for k, f in (("dataset", "dataset.yaml"), ("summaries", "summaries.jsonl"),
                                            ("judgments", "judgments.tsv"))}


def test_a_label_outside_0_1_for_a_binary_dimension_names_file_line_field(tmp_path):
    recs = [{"topic": "t1", "summarizer": s, "kind": "system"} for s in ("a", "b")]
    paths = _score_only(tmp_path, "binary", "topic\tsummarizer\tfact\nt1\ta\t1\nt1\tb\t0.5\n", recs)
    with pytest.raises(DatasetError) as e:
        read_dataset(paths)
    assert str(e.value).startswith(f"{tmp_path / 'judgments.tsv'}, line 3, field 'fact': 0.5 is not a label of a "
                                   "binary dimension")


def test_a_preference_pair_with_three_summaries_names_file_line_field(tmp_path):
    recs = [{"topic": "t1", "summarizer": s, "kind": "system"} for s in ("a", "b", "c")]
    paths = _score_only(tmp_path, "preference", "topic\tsummarizer\tfact\nt1\ta\t1\nt1\tb\t0\nt1\tc\t0\n", recs)
    with pytest.raises(DatasetError) as e:
        read_dataset(paths)
    assert str(e.value).startswith(f"{tmp_path / 'judgments.tsv'}, line 4, field 'fact': topic 't1' has 3 judged "
                                   "summaries")


# --------------------------------------------------------------------------- the releases, end to end

NAMES = ("frank", "qags_cnn", "qags_xsum", "rank19")
LIGHT = {"rouge": {"measures": ["R1", "R2", "RL"], "stemming": [1], "stopwords_removed": [0]},
         "sera": {"enabled": False}, "chrf": {"metrics": ["CHRF"]}, "statistics": {"enabled": False},
         "correlation": {"bootstrap_samples": 100, "baselines": ["R1_ST1_RS0_M_R", "R2_ST1_RS0_M_R"]},
         "rerank": {"original": "R2_ST1_RS0_M_R"},
         "sweeps": {"variants": ["R2_ST1_RS0_A_R"], "word_limits": [50], "compression": [20]},
         "intervals": {"shown": ["R2_ST1_RS0_A_R"], "resamples": 100},
         "factuality": {"bootstrap_samples": 200}}


@pytest.fixture(scope="module")
def releases(tmp_path_factory) -> Path:
    shared_dataset("raw")
    workdir = tmp_path_factory.mktemp("factuality")
    config = {"datasets": {n: release_entry(n) for n in NAMES}, **LIGHT}
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    targets = [f"results/{n}/factuality/answer.tsv" for n in NAMES] + ["results/rank19/report.html",
                                                                        "results/frank/report.html"]
    snakemake(workdir, "--cores", "2", *targets)
    return workdir


def _frank_frame() -> pd.DataFrame:
    """FRANK's release merged as its evaluate.py merges it (pandas, on hash and model_name)."""
    folder = shared_dataset("raw") / "frank"
    human = pd.read_json(folder / "human_annotations.json")
    base = pd.read_json(folder / "baseline_factuality_metrics_outputs.json")
    cols = [c for c in base.columns if c not in ("hash", "model_name", "dataset", "split")]
    for c in cols:
        base[c] = pd.to_numeric(base[c])
    return human.merge(base[["hash", "model_name"] + cols], on=["hash", "model_name"], validate="one_to_one"), cols


@pytest.mark.workflow
def test_frank_partial_correlations_equal_pingouin_for_every_baseline_metric(releases):
    df, cols = _frank_frame()
    assert len(cols) == 15
    table = tables.read_tsv(releases / "results/frank/factuality/partial_correlations.tsv",
                            numeric=("pearson", "pearson_p", "pearson_p_strict", "spearman", "spearman_p",
                                     "spearman_ranks"))
    checked = 0
    for subset in ("all", "cnndm", "bbc"):
        for split in ("all", "test"):
            scope = df
            if subset != "all":
                scope = scope[scope["dataset"] == subset]
            if split != "all":
                scope = scope[scope["split"] == split]
            for name in cols:
                s = scope[scope[name].notna()]
                ref = pingouin_partial(s[name], s["Factuality"], s["model_name"])
                (pr, pp), (sr, sp), _ = frank_definition(s[name].to_numpy(float), s["Factuality"].to_numpy(float),
                                                         s["model_name"].to_numpy())
                row = table[(table["subset"] == subset) & (table["split"] == split)
                            & (table["metric"] == name.replace(" ", "_"))].iloc[0]
                assert int(row["n"]) == len(s)
                assert abs(row["pearson"] - ref["r"].iloc[0]) < 1e-9, (subset, split, name)
                assert abs(row["pearson_p_strict"] - ref["p_val"].iloc[0]) < 1e-9
                assert abs(row["pearson_p"] - pp) < 1e-9 and abs(row["spearman"] - sr) < 1e-9
                assert abs(row["spearman_p"] - sp) < 1e-9
                assert abs(row["spearman_ranks"] - pingouin_partial(s[name], s["Factuality"], s["model_name"],
                                                                    "spearman")["r"].iloc[0]) < 1e-9
                checked += 1
    assert checked == 15 * 6


@pytest.mark.workflow
def test_frank_ablation_uses_the_flip_fields(releases):
    ab = tables.read_tsv(releases / "results/frank/factuality/ablation.tsv", numeric=("r_full", "r_ablated",
                                                                                       "difference"))
    df, _ = _frank_frame()
    flips = sorted(c for c in df.columns if c.startswith("Flip_"))
    assert sorted(set(ab["ablated_dimension"])) == flips and len(ab) == 15 * len(flips)
    row = ab[(ab["metric"] == "FactCC") & (ab["category"] == "EntE")].iloc[0]
    s = df[df["FactCC"].notna()]
    full = pingouin_partial(s["FactCC"], s["Factuality"], s["model_name"])["r"].iloc[0]
    abl = pingouin_partial(s["FactCC"], s["Flip_EntE"], s["model_name"])["r"].iloc[0]
    assert abs(row["difference"] - (full - abl)) < 1e-9
    assert (releases / "results/frank/factuality/figure_ablation.png").stat().st_size > 1000


def _built_in(workdir: Path, name: str) -> tuple[pd.DataFrame, pd.Series]:
    """Per-summary R1/R2/RL recall, precision and F of a BARTScore release's run, and its judgments."""
    sc = pd.read_csv(workdir / f"results/{name}/scores/summary_scores.tsv", sep="\t", dtype={"topic": str,
                                                                                               "summarizer": str})
    j = pd.read_csv(workdir / f"results/{name}/data/judgments.tsv", sep="\t", dtype={"topic": str, "summarizer": str})
    return sc, j


@pytest.mark.workflow
@pytest.mark.parametrize("name", ["qags_cnn", "qags_xsum"])
def test_qags_correlations_auc_and_balanced_accuracy_equal_scipy_and_scikit_learn(releases, name):
    sc, j = _built_in(releases, name)
    summ = tables.read_tsv(releases / f"results/{name}/factuality/summary_correlations.tsv",
                           numeric=("pearson", "spearman", "kendall"))
    binr = tables.read_tsv(releases / f"results/{name}/factuality/binary.tsv",
                           numeric=("auc", "threshold", "balanced_accuracy_test"))
    for measure in ("R1", "R2", "RL"):
        m = sc[sc["measure"] == measure].merge(j, on=["topic", "summarizer"])
        assert len(m) == len(j)
        for prf in ("P", "R", "F"):
            metric = f"{measure}_ST1_RS0_{prf}"
            row = summ[(summ["metric"] == metric) & (summ["subset"] == "all") & (summ["split"] == "all")].iloc[0]
            assert abs(row["pearson"] - stats.pearsonr(m[prf], m["fact"])[0]) < 1e-9
            assert abs(row["spearman"] - stats.spearmanr(m[prf], m["fact"])[0]) < 1e-9
            assert abs(row["kendall"] - stats.kendalltau(m[prf], m["fact"])[0]) < 1e-9
            labels = (m["fact"] >= 1.0).astype(int)
            b = binr[(binr["metric"] == metric) & (binr["subset"] == "all")].iloc[0]
            assert abs(b["auc"] - sk_metrics.roc_auc_score(labels, m[prf])) < 1e-12
    ans = tables.read_tsv(releases / f"results/{name}/factuality/answer.tsv")
    assert ans.iloc[0]["protocol"] == "summary"


@pytest.mark.workflow
def test_qags_balanced_accuracy_on_the_seeded_test_split(releases):
    sc, j = _built_in(releases, "qags_cnn")
    binr = tables.read_tsv(releases / "results/qags_cnn/factuality/binary.tsv",
                           numeric=("threshold", "balanced_accuracy_test", "balanced_accuracy_validation"))
    m = sc[sc["measure"] == "R2"].merge(j, on=["topic", "summarizer"])
    topics = np.array(sorted(set(m["topic"])), dtype=object)
    rng = np.random.default_rng(20150601)
    valid = set(topics[rng.permutation(topics.size)[:round(0.5 * topics.size)]])
    v = m["topic"].isin(valid).to_numpy()
    labels = (m["fact"] >= 1.0).astype(int).to_numpy()
    x = m["P"].to_numpy()
    b = binr[(binr["metric"] == "R2_ST1_RS0_P") & (binr["subset"] == "all")].iloc[0]
    best = max(sk_metrics.balanced_accuracy_score(labels[v], x[v] >= t) for t in np.concatenate([np.unique(x[v]), [9]]))
    assert abs(b["balanced_accuracy_validation"] - best) < 1e-12
    assert abs(b["balanced_accuracy_test"] - sk_metrics.balanced_accuracy_score(labels[~v], x[~v] >= b["threshold"])) \
        < 1e-12


@pytest.mark.workflow
def test_rank19_ranking_accuracy_by_plain_loops(releases):
    sc, j = _built_in(releases, "rank19")
    chrf = pd.read_csv(releases / "results/rank19/scores/chrf_scores.tsv", sep="\t", dtype={"topic": str})
    table = tables.read_tsv(releases / "results/rank19/factuality/ranking_accuracy.tsv", numeric=("accuracy",))
    table = table.set_index("metric")
    correct_of = {s: j[j["fact"] == v].set_index("topic")["summarizer"] for s, v in (("c", 1), ("i", 0))}
    scores = {}
    for measure in ("R1", "R2", "RL", "BLEU"):
        part = sc[sc["measure"] == measure].set_index(["topic", "summarizer"])
        scores[f"{measure}_ST1_RS0" + ("" if measure == "BLEU" else "_F")] = part["F"]
    scores["CHRF"] = chrf.set_index(["topic", "summarizer"])["score"]
    for metric, s in scores.items():
        c = t = 0
        for topic in correct_of["c"].index:
            a, b = s[(topic, correct_of["c"][topic])], s[(topic, correct_of["i"][topic])]
            c += a > b
            t += a == b
        row = table.loc[metric]
        assert (int(row["pairs"]), int(row["correct"]), int(row["ties"])) == (373, c, t), metric
        assert abs(row["accuracy"] - c / 373) < 1e-12


@pytest.mark.workflow
def test_reports_open_with_the_factuality_answer(releases):
    for name, protocol in (("rank19", "ranking accuracy"), ("frank", "partial Pearson")):
        text = (releases / f"results/{name}/report.html").read_text(encoding="utf-8")
        assert f"judged by {protocol}" in text and "95% CI [" in text
        assert "Factual consistency: partial correlation controlling for the system (FRANK)" in text


def test_intervals_for_the_best_metrics_the_baselines_and_the_users_by_default():
    """``interval_metrics: 2``: the two best metrics by partial r (ranked here by pingouin), the
    baseline and the file metric get the intervals an ``all`` run gives them; the others NA, with a
    note; the point estimates are the same in both runs."""
    inp = _inputs(systems=4, per=25)
    rng = np.random.default_rng(7)
    h = inp.dimensions["Factuality"]
    metrics = {f"m{k}": h + rng.normal(scale=0.1 + 0.4 * k, size=h.size) for k in range(5)}
    metrics["R2_ST1_RS0_R"] = rng.normal(size=h.size)          # a baseline, poor
    metrics["mine"] = rng.normal(size=h.size)                  # the user's file metric, poor
    sources = {k: "file" if k == "mine" else "built-in" for k in metrics}
    inp = dataclasses.replace(inp, metrics=metrics, sources=sources)
    ranked = sorted(metrics, key=lambda k: -pingouin_partial(metrics[k], h, inp.systems)["r"].iloc[0])
    expected = set(ranked[:2]) | {"R2_ST1_RS0_R", "mine"}
    o = DEFAULTS._replace(bootstrap_samples=100, baselines=("R2_ST1_RS0_R",))
    full = F.compute(inp, o._replace(interval_metrics="all"))
    some = F.compute(inp, o._replace(interval_metrics=2))
    for table, lo in ((full.partial, "pearson_lo"), (full.summary, "pearson_lo")):
        assert np.isfinite(table[lo].astype(float)).all()
    for name in ("partial", "summary"):
        a, b = getattr(full, name), getattr(some, name)
        a = a[(a["subset"] == "all") & (a["split"] == "all")].set_index("metric")
        b = b[(b["subset"] == "all") & (b["split"] == "all")].set_index("metric")
        assert a["pearson"].tolist() == b["pearson"].tolist()
        if name == "partial":
            assert set(b.index[np.isfinite(b["pearson_lo"].astype(float))]) == expected
        for m in expected & set(b.index[np.isfinite(b["pearson_lo"].astype(float))]):
            assert (a.loc[m, "pearson_lo"], a.loc[m, "pearson_hi"]) == (b.loc[m, "pearson_lo"], b.loc[m, "pearson_hi"])
    notes = some.notes[some.notes["analysis"] == "partial"]["note"].tolist()
    assert any("the 2 best metrics of each scope" in n for n in notes)
    assert not any("best metrics of each scope" in n for n in full.notes["note"])
