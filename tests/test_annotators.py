"""Annotators as data - Krippendorff's alpha, the human ceiling, human parity, annotator
resampling in the correlation bootstrap, and the stage end to end (SummEval from the release).

Every expected value is computed independently of the code under test: ``krippendorff.alpha`` on
the release's annotations read with json, plain loops with scipy's correlations, a closed form of
the classical test-score model, and the project's other tables."""
from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import krippendorff
import numpy as np
import pytest
import yaml
from scipy import stats

from conftest import release_entry, shared_dataset, snakemake
from metaeval import tables
from metaeval.stats import agreement_alpha as ka
from metaeval.stats import ceiling as ce

DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


# ----------------------------------------------------------------------------- plain-loop references

def loop_summary_level(x: np.ndarray, y: np.ndarray, coef) -> float:
    """Within each topic (column) over the systems (rows) with both values, averaged over the topics
    where defined (>= 3 pairs, neither side constant)."""
    values = []
    for t in range(x.shape[1]):
        ok = ~np.isnan(x[:, t]) & ~np.isnan(y[:, t])
        a, b = x[ok, t], y[ok, t]
        if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
            continue
        values.append(coef(a, b))
    return float(np.mean(values)) if values else math.nan


def loop_system_level(x_sys: np.ndarray, y: np.ndarray, coef) -> float:
    ys = np.array([np.nanmean(row) for row in y])
    ok = ~np.isnan(x_sys) & ~np.isnan(ys)
    return float(coef(x_sys[ok], ys[ok]))


def mean_of(grids: list[np.ndarray]) -> np.ndarray:
    out = np.full(grids[0].shape, np.nan)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            vals = [g[i, j] for g in grids if not np.isnan(g[i, j])]
            if vals:
                out[i, j] = sum(vals) / len(vals)
    return out


COEFS = {"pearson": lambda a, b: stats.pearsonr(a, b)[0], "spearman": lambda a, b: stats.spearmanr(a, b)[0],
         "kendall": lambda a, b: stats.kendalltau(a, b, variant="b")[0]}


def simulated_annotators(rng, S=8, T=6, m=4, missing=0.1):
    truth = rng.normal(size=(S, 1)) + rng.normal(size=(S, T))
    grids = [np.round(truth + rng.normal(scale=0.8, size=(S, T)), 1) for _ in range(m)]
    for g in grids:
        g[rng.random((S, T)) < missing] = np.nan
    metric = truth + rng.normal(scale=1.2, size=(S, T))
    return grids, metric


# ----------------------------------------------------------------------------- Krippendorff's alpha

@pytest.mark.parametrize("level", ["interval", "nominal"])
def test_weighted_alpha_equals_krippendorff_on_resampled_items(level):
    rng = np.random.default_rng(3)
    data = rng.integers(1, 6, (5, 120)).astype(float)
    data[rng.random(data.shape) < 0.25] = np.nan
    for _ in range(5):
        idx = rng.integers(0, 120, 120)
        w = np.bincount(idx, minlength=120).astype(float)
        expected = krippendorff.alpha(reliability_data=data[:, idx], level_of_measurement=level)
        assert ka.weighted_alpha(data, level, w[None])[0] == pytest.approx(expected, abs=1e-12)
    assert ka.alpha(data, level) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-12)


@pytest.mark.slow
def test_alpha_bootstrap_is_seeded_and_brackets_the_value():
    rng = np.random.default_rng(4)
    truth = rng.normal(size=200)
    data = np.stack([truth + rng.normal(scale=0.7, size=200) for _ in range(3)])
    a = ka.bootstrap_alpha(data, "interval", 500, 7, 0.95)
    b = ka.bootstrap_alpha(data, "interval", 500, 7, 0.95)
    assert (a.lo, a.hi) == (b.lo, b.hi)
    assert a.lo < ka.alpha(data, "interval") < a.hi
    # interval alpha of 3 raters with noise variance 0.49 around unit-variance truth: 1 / 1.49 (population)
    assert a.lo < 1 / 1.49 < a.hi


def test_alpha_degenerate_cases_are_nan():
    assert math.isnan(ka.alpha(np.array([[1.0, 2.0, 3.0]]), "interval"))          # one annotator
    assert math.isnan(ka.alpha(np.array([[1.0, np.nan], [np.nan, 2.0]]), "interval"))  # nothing pairable
    assert math.isnan(ka.alpha(np.full((2, 4), 3.0), "interval"))                   # no variation


def release_alpha_reference() -> dict[tuple[str, str], float]:
    """krippendorff.alpha on the raw SummEval release, read here with json: per dimension and group,
    annotators by their position in the record's list (expert_annotations / turker_annotations)."""
    raw = shared_dataset("raw") / "summeval-official"
    columns: dict[str, dict[str, list[list[float]]]] = {d: {"expert": [], "crowd": []} for d in DIMENSIONS}
    for path in sorted(raw.glob("M*_outputs_annotations.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            for group, key in (("expert", "expert_annotations"), ("crowd", "turker_annotations")):
                for d in DIMENSIONS:
                    columns[d][group].append([float(a[d]) for a in rec[key]])
    out = {}
    for d in DIMENSIONS:
        expert = np.array(columns[d]["expert"]).T          # (3, 1200)
        crowd = np.array(columns[d]["crowd"]).T            # (5, 1200)
        for group, data in (("expert", expert), ("crowd", crowd), ("all", np.vstack([crowd, expert]))):
            out[(d, group)] = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    return out


def test_alpha_on_summeval_release_equals_krippendorff_on_the_raw_annotations():
    """The stage's alpha table (from the project's importer and annotations.tsv rows) against
    krippendorff.alpha on the release read independently (1e-9)."""
    import pandas as pd

    from metaeval.data.importers import import_summeval_jsonl
    from metaeval.options import AnnotatorsOptions
    from metaeval.stages import annotators

    raw = shared_dataset("raw") / "summeval-official"
    ds = import_summeval_jsonl(sorted(raw.glob("M*_outputs_annotations.jsonl")))
    frame = pd.DataFrame([(a.topic, a.summarizer, a.dimension, a.annotator, a.group, repr(a.score))
                          for a in ds.annotations],
                         columns=["topic", "summarizer", "dimension", "annotator", "group", "score"])
    ai = annotators.from_annotations(empty_analysis(), ds.dimensions, ds.human, frame)
    options = AnnotatorsOptions("systems", ("top",), 1, (), 50, 20, 1, 0.95)
    rows, _ = annotators.alpha_rows(ai, options)
    expected = release_alpha_reference()
    got = {(r["dimension"], r["group"]): r for r in rows}
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key]["alpha"] == pytest.approx(value, abs=1e-9), key
        assert got[key]["measurement"] == "interval" and got[key]["items"] == 1200
        assert got[key]["lo"] < got[key]["alpha"] < got[key]["hi"]
    assert {got[(d, "expert")]["annotators"] for d in DIMENSIONS} == {3}
    assert {got[(d, "crowd")]["annotators"] for d in DIMENSIONS} == {5}


def empty_analysis():
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stats.bootstrap import PerSummary

    return AnalysisInputs([], [], [], np.zeros((0, 0)), [], np.zeros((0, 0)), PerSummary([], [], {}, {}, {}))


# ----------------------------------------------------------------------------- the ceiling

def test_leave_out_correlations_equal_plain_loops_with_scipy():
    rng = np.random.default_rng(11)
    grids, metric = simulated_annotators(rng)
    m = len(grids)
    names = [f"a{i}" for i in range(m)]
    metric_sys = np.nanmean(metric, axis=1) + 0.01 * rng.normal(size=metric.shape[0])   # its own system scores
    rows = ce.ceiling(m, names, lambda idx: mean_of([grids[i] for i in idx]),
                      {"M": ("metric", metric, metric_sys)}, max_sets=100, seed=0)
    got = {(r.k, r.predictor, r.level, r.coefficient): (r.value, r.sets) for r in rows}
    for name, coef in COEFS.items():
        for k in range(1, m):
            held_sets = list(itertools.combinations(range(m), k))
            ann = {"system": [], "summary": []}
            met = {"system": [], "summary": []}
            for held in held_sets:
                target = mean_of([grids[i] for i in range(m) if i not in held])
                h = mean_of([grids[i] for i in held])
                ann["system"].append(loop_system_level(np.array([np.nanmean(r) for r in h]), target, coef))
                ann["summary"].append(loop_summary_level(h, target, coef))
                met["system"].append(loop_system_level(metric_sys, target, coef))
                met["summary"].append(loop_summary_level(metric, target, coef))
                if k == 1:
                    for level in ("system", "summary"):
                        assert got[(1, names[held[0]], level, name)][0] == pytest.approx(ann[level][-1], abs=1e-12)
            label = "single annotator" if k == 1 else f"mean of {k} held out"
            for level in ("system", "summary"):
                assert got[(k, label, level, name)][0] == pytest.approx(np.mean(ann[level]), abs=1e-12)
                assert got[(k, "M", level, name)][0] == pytest.approx(np.mean(met[level]), abs=1e-12)
                assert got[(k, label, level, name)][1] == len(held_sets)
        full = mean_of(grids)
        assert got[(0, "M", "system", name)][0] == pytest.approx(loop_system_level(metric_sys, full, coef), abs=1e-12)
        assert got[(0, "M", "summary", name)][0] == pytest.approx(loop_summary_level(metric, full, coef), abs=1e-12)


def test_summary_level_is_the_correlation_stages_definition():
    from metaeval.stats.correlation import summary_level

    rng = np.random.default_rng(5)
    grids, metric = simulated_annotators(rng, missing=0.0)
    corr = ce.correlate(metric[None], mean_of(grids)[None])
    (_, _, _, p, s, k), = summary_level({"M": metric}, {"h": mean_of(grids)}, ["h"])
    assert corr.summary[:, 0, 0] == pytest.approx([p, s, k], abs=1e-12)


def closed_form(V: float, noise: float, a: int, b: int) -> float:
    """corr(mean of a annotators, mean of b others) when item truth has variance V and each
    annotator adds independent noise of variance ``noise``."""
    return V / math.sqrt((V + noise / a) * (V + noise / b))


@pytest.mark.slow
def test_ceiling_estimate_matches_the_closed_form_within_monte_carlo_error():
    """Simulated annotators with known noise: system effect u ~ N(0, su2), summary effect
    v ~ N(0, sv2), annotator noise N(0, se2); metric = truth + N(0, sm2). Within a topic the truth
    varies with variance su2 + sv2 and the noise with se2; at the system level (means over T topics)
    with su2 + sv2 / T and se2 / T. The mean over R replications of each ceiling value lands within
    4 Monte Carlo standard errors of the closed form (with Hotelling's first-order bias of r,
    -rho (1 - rho^2) / (2 n))."""
    S, T, m, R = 150, 20, 4, 30
    su2, sv2, se2, sm2 = 0.5, 0.5, 1.0, 2.0
    values: dict[tuple, list[float]] = {}
    rng = np.random.default_rng(2024)
    for _ in range(R):
        truth = rng.normal(scale=math.sqrt(su2), size=(S, 1)) + rng.normal(scale=math.sqrt(sv2), size=(S, T))
        grids = truth[None] + rng.normal(scale=math.sqrt(se2), size=(m, S, T))
        metric = truth + rng.normal(scale=math.sqrt(sm2), size=(S, T))
        rows = ce.ceiling(m, [f"a{i}" for i in range(m)], lambda idx: grids[list(idx)].mean(axis=0),
                          {"metric": ("metric", metric, None)}, max_sets=100, seed=0)
        for r in rows:
            if r.coefficient == "pearson" and r.kind in ("annotators", "metric"):
                values.setdefault((r.k, r.kind, r.level), []).append(r.value)
    checked = 0
    for (k, kind, level), vals in values.items():
        V, noise, n = (su2 + sv2, se2, S) if level == "summary" else (su2 + sv2 / T, se2 / T, S)
        mnoise = sm2 if level == "summary" else sm2 / T
        if kind == "annotators":
            rho = closed_form(V, noise, k, m - k)
        else:
            rest = m - k
            rho = V / math.sqrt((V + mnoise) * (V + noise / rest))
        expected = rho - rho * (1 - rho ** 2) / (2 * n)
        se = np.std(vals, ddof=1) / math.sqrt(len(vals))
        assert abs(np.mean(vals) - expected) < 4 * se + 1e-4, (k, kind, level, np.mean(vals), expected, se)
        checked += 1
    assert checked == 2 * 2 * (m - 1) + 2        # k = 1..3 and k = 0 (metric only), two levels


# ----------------------------------------------------------------------------- human parity

def test_parity_equals_a_sample_by_sample_reimplementation():
    """The documented scheme re-done with loops and scipy: per sample the topics (with replacement),
    then the held-out annotator; system scores = means over the drawn topics."""
    rng = np.random.default_rng(21)
    grids, metric = simulated_annotators(rng, S=7, T=5, m=3, missing=0.0)
    m, B, seed = 3, 60, 9
    arr = np.stack(grids)

    def system_of_draws(c):
        return (np.einsum("st,bt->bs", metric, c) / c.sum(axis=1, keepdims=True))[:, :, None]

    rows = ce.parity(m, lambda idx: arr[list(idx)].mean(axis=0), metric[None], ["M"], system_of_draws, B, seed)
    got = {(r.level, r.coefficient): r for r in rows}
    draw = np.random.default_rng(seed)
    samples = []
    for _ in range(B):
        topics = draw.integers(0, 5, 5)
        held = int(draw.integers(0, m))
        samples.append((topics, held))
    for name, coef in COEFS.items():
        for level in ("system", "summary"):
            full_d = []
            for a in range(m):
                target = arr[[i for i in range(m) if i != a]].mean(axis=0)
                if level == "system":
                    full_d.append((coef(metric.mean(axis=1), target.mean(axis=1)),
                                   coef(arr[a].mean(axis=1), target.mean(axis=1))))
                else:
                    full_d.append((loop_summary_level(metric, target, coef), loop_summary_level(arr[a], target, coef)))
            value, single = np.mean([x for x, _ in full_d]), np.mean([y for _, y in full_d])
            d_hat = value - single
            diffs = []
            for topics, a in samples:
                target = arr[[i for i in range(m) if i != a]].mean(axis=0)[:, topics]
                mt, an = metric[:, topics], arr[a][:, topics]
                if level == "system":
                    d = coef(mt.mean(axis=1), target.mean(axis=1)) - coef(an.mean(axis=1), target.mean(axis=1))
                else:
                    d = loop_summary_level(mt, target, coef) - loop_summary_level(an, target, coef)
                if not math.isnan(d):
                    diffs.append(d)
            diffs = np.array(diffs)
            r = got[(level, name)]
            assert r.value == pytest.approx(value, abs=1e-12) and r.annotator == pytest.approx(single, abs=1e-12)
            assert r.samples == len(diffs)
            assert r.p_parity == pytest.approx(np.mean(diffs >= 0), abs=1e-12)
            assert r.p_below == pytest.approx((1 + np.sum(diffs - d_hat <= d_hat)) / (1 + len(diffs)), abs=1e-12)
            assert r.p_above == pytest.approx((1 + np.sum(diffs - d_hat >= d_hat)) / (1 + len(diffs)), abs=1e-12)


def test_a_perfect_metric_is_above_a_noisy_annotator():
    rng = np.random.default_rng(8)
    S, T, m = 12, 30, 3
    truth = rng.normal(size=(S, 1)) + rng.normal(size=(S, T))
    arr = truth[None] + rng.normal(scale=1.5, size=(m, S, T))

    def system_of_draws(c):
        return (np.einsum("st,bt->bs", truth, c) / c.sum(axis=1, keepdims=True))[:, :, None]

    rows = ce.parity(m, lambda idx: arr[list(idx)].mean(axis=0), truth[None], ["truth"], system_of_draws, 300, 1)
    summary = next(r for r in rows if r.level == "summary" and r.coefficient == "pearson")
    assert summary.p_parity == 1.0 and summary.p_above < 0.01 and summary.p_below > 0.5


# ----------------------------------------------------------------------------- annotators in the bootstrap

@pytest.fixture(scope="module")
def summeval_release():
    from metaeval.data.importers import import_summeval_jsonl

    raw = shared_dataset("raw") / "summeval-official"
    return import_summeval_jsonl(sorted(raw.glob("M*_outputs_annotations.jsonl")))


@pytest.mark.parametrize("order", ["combine_then_average", "average_then_combine"])
def test_every_annotator_once_gives_the_human_scores_stages_values(summeval_release, order):
    from metaeval.options import HumanOptions
    from metaeval.stages import human
    from metaeval.stats import annotator_resampling as ar

    ds = summeval_release
    combos = ["arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality"]
    composites = (("overall", "mean(coherence, fluency)"), ("both", "harmonic(relevance, consistency)"))
    scores = human.compute(ds, HumanOptions(tuple(combos), order, True, (), composites, None, "config key datasets.x"))
    targets = scores.combinations          # the combinations, then every dimension, then the composites
    assert targets == [*combos, *ds.dimensions, "overall", "both"]     # expert and turker_ dimensions
    systems = [s for s, k in zip(scores.systems.summarizers, scores.systems.kinds) if k == "system"]
    topics = sorted({t for t, _ in ds.judgments})
    model = ar.build(ds, systems, topics, composites={"overall": ("mean", ["coherence", "fluency"]),
                                                      "both": ("harmonic", ["relevance", "consistency"])})
    assert set(model.annotated) == set(ds.dimensions)
    assert all(np.isnan(g).all() for g in model.fixed.values())     # every judged summary is annotated
    once = {g: np.ones((1, len(m))) for g, m in model.groups.items()}
    got = ar.human_system_scores(model, targets, np.ones((1, len(topics))), once, order)[0]
    for k, c in enumerate(targets):
        expected = [scores.systems.scores[c][scores.systems.summarizers.index(s)] for s in systems]
        assert got[:, k] == pytest.approx(expected, abs=1e-12), c


def test_annotator_draws_follow_the_stated_scheme(summeval_release):
    from metaeval.stats import annotator_resampling as ar

    ds = summeval_release
    model = ar.build(ds, sorted({s for _, s in ds.judgments}), sorted({t for t, _ in ds.judgments}))
    w = ar.draw_weights(model, 50, 7)
    rng = np.random.default_rng([7, 22])
    for b in range(50):
        for g in ("crowd", "expert"):                 # sorted groups, sample by sample
            idx = rng.integers(0, len(model.groups[g]), len(model.groups[g]))
            assert list(w[g][b]) == list(np.bincount(idx, minlength=len(model.groups[g])))
    # one sample's human score by hand: the drawn experts' weighted mean of relevance, rescaled
    c = np.ones((1, len(model.topics)))
    h = ar.human_system_scores(model, ["coverage"], c, {g: x[:1] for g, x in w.items()})[0, :, 0]
    experts = model.groups["expert"]
    s0 = model.summarizers[0]
    per_summary = []
    for t in model.topics:
        vals = [a.score for a in ds.annotations if a.topic == t and a.summarizer == s0 and a.dimension == "relevance"
                and a.group == "expert" for _ in range(int(w["expert"][0][experts.index(a.annotator)]))]
        per_summary.append((sum(vals) / len(vals) - 1) / 4)
    assert h[0] == pytest.approx(sum(per_summary) / len(per_summary), abs=1e-12)


def test_resampling_annotators_is_an_option_that_leaves_the_default_intervals_alone(summeval_release):
    """Off (the default): bootstrap_pearson's intervals are the earlier ones. On: the same system
    and topic draws with annotators drawn too - the intervals differ and, with annotator noise
    added, the summed widths are larger."""
    from metaeval.stats import annotator_resampling as ar
    from metaeval.stats.bootstrap import PerSummary, bootstrap_pearson
    from metaeval.stats.core import Plan
    from metaeval.variants import Variant

    ds = summeval_release
    systems = sorted({s for _, s in ds.judgments if not s.startswith("ref")})
    topics = sorted({t for t, _ in ds.judgments})
    model = ar.build(ds, systems, topics)
    once = {g: np.ones((1, len(m))) for g, m in model.groups.items()}
    combos = ["arithmetic", "coverage"]
    # per-summary human grids and a made-up metric: the expert means plus noise
    grids = {}
    for k, c in enumerate(combos):
        grids[c] = np.stack([ar.human_system_scores(model, [c], np.eye(len(topics))[t:t + 1], once)[0, :, 0]
                             for t in range(len(topics))], axis=1)
    rng = np.random.default_rng(1)
    metric = grids["arithmetic"] + rng.normal(scale=0.2, size=grids["arithmetic"].shape)
    ps = PerSummary(systems, topics, {"R1_ST1_RS0_R": metric}, {}, grids)
    variants = [Variant.parse("R1_ST1_RS0_A_R")]
    sys_metric = metric.mean(axis=1)[:, None]
    sys_human = np.stack([grids[c].mean(axis=1) for c in combos], axis=1)
    args = (ps, variants, combos, sys_metric, sys_human, Plan(300, "both", 5, 0.95))
    lo0, hi0 = bootstrap_pearson(*args)
    lo1, hi1 = bootstrap_pearson(*args, human=ar.HumanResampler(model, combos, 300, 5, "combine_then_average"))
    # with every annotator drawn once, the resampler reproduces the default intervals exactly
    fixed = ar.HumanResampler(model, combos, 300, 5, "combine_then_average")
    fixed.weights = {g: np.ones_like(x) for g, x in fixed.weights.items()}
    lo2, hi2 = bootstrap_pearson(*args, human=fixed)
    assert lo2 == pytest.approx(lo0, abs=1e-12) and hi2 == pytest.approx(hi0, abs=1e-12)
    assert not np.allclose(lo1, lo0)
    assert (hi1 - lo1).sum() > (hi0 - lo0).sum()


# ----------------------------------------------------------------------------- the stage

def test_defaults_on_and_annotator_resampling_off():
    from metaeval.options import Options

    o = Options.from_config({"datasets": {"d": {"format": "simulated"}}})
    assert o.annotators_enabled is True and o.correlate.resample_annotators is False
    assert o.annotators.bootstrap_samples == 1000 and o.annotators.top == 1


def test_a_data_set_without_annotations_gets_one_note_and_header_only_tables(tmp_path):
    import pandas as pd

    from metaeval import outputs
    from metaeval.options import AnnotatorsOptions
    from metaeval.stages import annotators

    frame = pd.DataFrame(columns=["topic", "summarizer", "dimension", "annotator", "group", "score"])
    ai = annotators.from_annotations(empty_analysis(), {}, {"coverage": ["c"]}, frame)
    o = AnnotatorsOptions("systems", ("top",), 1, (), 100, 20, 1, 0.95)
    result = annotators.compute(ai, o)
    assert [k for k, _ in result.notes] == ["no_annotations"]
    out = {k: str(tmp_path / Path(v).name) for k, v in outputs.files("annotators", "x").items()}
    annotators.write(result, o, out)
    assert (tmp_path / "alpha.tsv").read_text().splitlines() == ["\t".join(annotators.ALPHA_COLUMNS)]
    assert (tmp_path / "ceiling.tsv").read_text().splitlines() == ["\t".join(annotators.CEILING_COLUMNS)]
    assert (tmp_path / "parity.tsv").read_text().splitlines() == ["\t".join(annotators.PARITY_COLUMNS)]
    assert len((tmp_path / "notes.tsv").read_text().splitlines()) == 2
    assert (tmp_path / "figure_ceiling.png").stat().st_size > 0
    assert annotators.ceiling_sentence(str(tmp_path / "ceiling.tsv"), "R1_ST1_RS0_A_R", "arithmetic") == ""


def test_the_answer_sentence_reads_the_ceiling_table(tmp_path):
    from metaeval.stages import annotators

    rows = [("arithmetic", "expert", 3, 1, 2, "single annotator", "annotators", "system", "pearson", 0.71, 3),
            ("arithmetic", "expert", 3, 1, 2, "R2_ST1_RS0_A_R", "metric", "system", "pearson", 0.62, 3),
            ("arithmetic", "expert", 3, 1, 2, "crowd mean", "group_mean", "system", "pearson", 0.2, 3),
            ("arithmetic", "expert", 3, 1, 2, "R2_ST1_RS0_A_R", "metric", "summary", "pearson", 0.1, 3),
            ("arithmetic", "crowd", 5, 1, 4, "single annotator", "annotators", "system", "pearson", 0.4, 5)]
    path = tmp_path / "ceiling.tsv"
    tables.write_tsv(tables.frame(rows, annotators.CEILING_COLUMNS), path)
    text = annotators.ceiling_sentence(str(path), "R2_ST1_RS0_A_R", "arithmetic")
    assert text == (" Against the human ceiling of arithmetic (system level, each expert annotator left out in turn): "
                    "a single expert annotator reaches r = 0.710 against the mean of the other 2, R2_ST1_RS0_A_R "
                    "r = 0.620 against the same targets (below one annotator by 0.090); the crowd mean r = 0.200.")


# ----------------------------------------------------------------------------- SummEval from the release, end to end

@pytest.fixture(scope="module")
def summeval_run(tmp_path_factory) -> Path:
    """The workflow on SummEval from the release (the catalog's ``summeval``, read from the copies of its
    files; the light analysis settings of tests/test_benchmarks.py), up to the report."""
    from test_benchmarks import LIGHT

    shared_dataset("raw")
    workdir = tmp_path_factory.mktemp("summeval_annotators")
    full = {"datasets": {"summeval": release_entry("summeval")}, **LIGHT}
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(full))
    snakemake(workdir, "--cores", "2", "results/summeval/report.html")
    return workdir / "results/summeval"


@pytest.mark.workflow
def test_summeval_alpha_table_equals_krippendorff_on_the_raw_release(summeval_run):
    alpha = tables.read_tsv(summeval_run / "annotators/alpha.tsv", numeric=("alpha", "lo", "hi"))
    got = {(d, g): a for d, g, a in zip(alpha["dimension"], alpha["group"], alpha["alpha"])}
    expected = release_alpha_reference()
    assert set(got) == set(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.workflow
def test_summeval_ceiling_rows_equal_plain_loops_over_the_tables(summeval_run):
    """Leave-one-expert-out on relevance: each expert against the mean of the other two, and
    R2_ST1_RS0_A_R (system scores from system_scores.tsv, per-summary recall from
    summary_scores.tsv) against the same targets, recomputed with loops and scipy."""
    ann = tables.read_tsv(summeval_run / "data/annotations.tsv", numeric=("score",))
    ann = ann[(ann["dimension"] == "relevance") & (ann["group"] == "expert")]
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for t, s, a, v in zip(ann["topic"], ann["summarizer"], ann["annotator"], ann["score"]):
        scores.setdefault((t, s), {})[a] = v
    systems = sorted({s for _, s in scores})
    topics = sorted({t for t, _ in scores})
    experts = sorted({a for v in scores.values() for a in v})
    sys_tab = tables.read_tsv(summeval_run / "scores/system_scores.tsv", numeric=("score",))
    metric_sys = dict(zip(sys_tab[sys_tab["variant"] == "R2_ST1_RS0_A_R"]["summarizer"],
                          sys_tab[sys_tab["variant"] == "R2_ST1_RS0_A_R"]["score"]))
    summ = tables.read_tsv(summeval_run / "scores/summary_scores.tsv", numeric=("R",))
    summ = summ[(summ["measure"] == "R2") & (summ["stem"] == "1") & (summ["stopwords_removed"] == "0")]
    metric_summary = {(t, s): r for t, s, r in zip(summ["topic"], summ["summarizer"], summ["R"])}
    expected = {"system": {"ann": [], "metric": []}, "summary": {"ann": [], "metric": []}}
    for held in experts:
        target = {k: np.mean([v[a] for a in experts if a != held]) for k, v in scores.items()}
        sys_target = [np.mean([target[(t, s)] for t in topics]) for s in systems]
        sys_held = [np.mean([scores[(t, s)][held] for t in topics]) for s in systems]
        expected["system"]["ann"].append(stats.pearsonr(sys_held, sys_target)[0])
        expected["system"]["metric"].append(stats.pearsonr([metric_sys[s] for s in systems], sys_target)[0])
        per_topic_ann, per_topic_metric = [], []
        for t in topics:
            y = [target[(t, s)] for s in systems]
            per_topic_ann.append(stats.pearsonr([scores[(t, s)][held] for s in systems], y)[0]
                                 if np.ptp(y) and np.ptp([scores[(t, s)][held] for s in systems]) else np.nan)
            per_topic_metric.append(stats.pearsonr([metric_summary[(t, s)] for s in systems], y)[0]
                                    if np.ptp(y) else np.nan)
        expected["summary"]["ann"].append(np.nanmean(per_topic_ann))
        expected["summary"]["metric"].append(np.nanmean(per_topic_metric))
    ceiling = tables.read_tsv(summeval_run / "annotators/ceiling.tsv", numeric=("value",), integer=("held_out",))
    rows = ceiling[(ceiling["dimension"] == "relevance") & (ceiling["group"] == "expert")
                   & (ceiling["held_out"] == 1) & (ceiling["coefficient"] == "pearson")]
    value = {(p, lv): v for p, lv, v in zip(rows["predictor"], rows["level"], rows["value"])}
    for level in ("system", "summary"):
        assert value[("single annotator", level)] == pytest.approx(np.mean(expected[level]["ann"]), abs=1e-9)
        assert value[("R2_ST1_RS0_A_R", level)] == pytest.approx(np.mean(expected[level]["metric"]), abs=1e-9)


@pytest.mark.workflow
def test_summeval_report_puts_the_best_metric_beside_the_ceiling(summeval_run):
    text = (summeval_run / "report.html").read_text(encoding="utf-8")
    answer = re.sub(r"<[^>]+>", "", re.search(r'class="answer".*?</p>', text, re.S)[0])
    best = re.search(r"the best metric for arithmetic is (\S+) ", answer)[1]
    ceiling = tables.read_tsv(summeval_run / "annotators/ceiling.tsv", numeric=("value",), integer=("held_out",))
    rows = ceiling[(ceiling["dimension"] == "arithmetic") & (ceiling["group"] == "expert") & (ceiling["held_out"] == 1)
                   & (ceiling["coefficient"] == "pearson") & (ceiling["level"] == "system")]
    value = dict(zip(rows["predictor"], rows["value"]))
    assert (f"a single expert annotator reaches r = {value['single annotator']:.3f} against the mean of the other 2, "
            f"{best} r = {value[best]:.3f} against the same targets") in answer
    assert "Annotators: agreement, the human ceiling and human parity" in text
    assert (summeval_run / "annotators/parity.tsv").stat().st_size > 0


def test_degenerate_data_gives_notes_not_crashes(tmp_path):
    """Two systems, one topic, one annotator in one group and a constant one in the other: NA
    values with notes, and the stage writes every file."""
    import pandas as pd

    from metaeval import outputs
    from metaeval.data.contract import Dimension
    from metaeval.options import AnnotatorsOptions
    from metaeval.stages import annotators
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stats.bootstrap import PerSummary
    from metaeval.variants import Variant

    systems, topics = ["A", "B"], ["t1"]
    ps = PerSummary(systems, topics, {"R1_ST1_RS0_R": np.array([[0.1], [0.2]])}, {},
                    {"coverage": np.array([[0.5], [0.6]])})
    inp = AnalysisInputs(systems, ["system", "system"], [Variant.parse("R1_ST1_RS0_A_R")], np.array([[0.1], [0.2]]),
                         ["coverage"], np.array([[0.5], [0.6]]), ps)
    frame = pd.DataFrame([("t1", "A", "q", "e1", "expert", "3"), ("t1", "B", "q", "e1", "expert", "4"),
                          ("t1", "A", "q", "c1", "crowd", "2"), ("t1", "B", "q", "c1", "crowd", "2"),
                          ("t1", "A", "q", "c2", "crowd", "2"), ("t1", "B", "q", "c2", "crowd", "2")],
                         columns=["topic", "summarizer", "dimension", "annotator", "group", "score"])
    ai = annotators.from_annotations(inp, {"q": Dimension("q", 1, 5)}, {"coverage": ["q"]}, frame)
    o = AnnotatorsOptions("systems", ("top", "R1_ST1_RS0_A_R"), 1, (), 50, 20, 1, 0.95)
    result = annotators.compute(ai, o)
    kinds = {k for k, _ in result.notes}
    assert {"too_few_systems", "one_annotator", "alpha_undefined"} <= kinds
    assert all(math.isnan(r["value"]) for r in result.ceiling)
    out = {k: str(tmp_path / Path(v).name) for k, v in outputs.files("annotators", "x").items()}
    annotators.write(result, o, out)
    assert all(Path(p).exists() for p in out.values())


def test_the_pooled_ceiling_and_parity_equal_scipy_over_every_summary():
    """Where the correlation stage pools (one system: QAGS), the ceiling's summary level is a held-out
    annotator's Pearson r with the others' mean over every summary (scipy), averaged over the
    annotators, and the alpha of labels of parts is nominal over the parts (krippendorff, the parts
    as units)."""
    import krippendorff
    import pandas as pd
    from scipy import stats

    from metaeval.data.contract import Dimension
    from metaeval.options import AnnotatorsOptions
    from metaeval.stages import annotators
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stats.bootstrap import PerSummary
    from metaeval.variants import Variant

    rng = np.random.default_rng(5)
    T, parts = 40, 3
    labels = (rng.random((3, T, parts)) < np.linspace(0.2, 0.9, T)[None, :, None]).astype(float)
    topics = [f"t{i:02d}" for i in range(T)]
    metric = labels.mean(axis=(0, 2)) + rng.normal(scale=0.2, size=T)
    ps = PerSummary(["s"], topics, {"M": metric[None]}, {}, {"fact": labels.mean(axis=(0, 2))[None]})
    inp = AnalysisInputs(["s"], ["system"], [Variant.parse("M_A")], np.array([[metric.mean()]]), ["fact"],
                         np.array([[labels.mean()]]), ps)
    frame = pd.DataFrame([(t, "s", "fact", f"w{a + 1}", "crowd", str(p + 1), str(float(labels[a, i, p])))
                          for a in range(3) for i, t in enumerate(topics) for p in range(parts)],
                         columns=["topic", "summarizer", "dimension", "annotator", "group", "part", "score"])
    ai = annotators.from_annotations(inp, {"fact": Dimension("fact", 0, 1, kind="proportion")}, {"coverage": ["fact"]},
                                     frame)
    result = annotators.compute(ai, AnnotatorsOptions("systems", ("M_A",), 1, (), 200, 20, 3, 0.95))
    shares = labels.mean(axis=2)                                                  # (annotator, topic)
    single = np.mean([stats.pearsonr(shares[a], shares[[b for b in range(3) if b != a]].mean(axis=0))[0]
                      for a in range(3)])
    metric_r = np.mean([stats.pearsonr(metric, shares[[b for b in range(3) if b != a]].mean(axis=0))[0]
                        for a in range(3)])
    rows = {(r["predictor"], r["level"], r["coefficient"]): r["value"] for r in result.ceiling
            if r["dimension"] == "fact" and r["held_out"] == 1}
    assert rows["single annotator", "summary", "pearson"] == pytest.approx(single, abs=1e-12)
    assert rows["M_A", "summary", "pearson"] == pytest.approx(metric_r, abs=1e-12)
    assert math.isnan(rows["single annotator", "system", "pearson"])
    parity = [r for r in result.parity if (r["dimension"], r["level"], r["coefficient"]) == ("fact", "summary",
                                                                                            "pearson")]
    assert parity and 0 <= parity[0]["p_parity"] <= 1 and parity[0]["samples"] == 200
    (alpha,) = [r for r in result.alpha if r["dimension"] == "fact"]
    expected = krippendorff.alpha(reliability_data=labels.reshape(3, -1), level_of_measurement="nominal")
    assert (alpha["measurement"], alpha["items"]) == ("nominal", T * parts)
    assert alpha["alpha"] == pytest.approx(expected, abs=1e-12)
    assert ("summary_level", "the summary level is every judged summary pooled, as the correlation stage's (human "
                             "parity there: Pearson's r only)") in result.notes
