"""A data set with three annotators and majority-else-mean aggregation - the judgments,
the correlations, the human ceiling and human parity all use that target; and the correlation
bootstrap with annotators resampled produces every target, aggregating the drawn annotators by the
rule.

The data set is built here as a canonical folder (dataset.yaml declaring ``aggregation:
majority_else_mean``, summaries.jsonl, annotations.tsv, a judgments.tsv without dimension columns),
validated and carried through the human-scores stage into the files the annotators stage reads.
Every expected value is computed by hand in this file: the rule as a plain loop
(:func:`majority_else_mean`), system scores as plain means, correlations by scipy."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from scipy import stats

from metaeval import tables

SYSTEMS = ["A", "B", "C", "D", "E", "F"]
TOPICS = ["T1", "T2", "T3", "T4", "T5"]
ANNOTATORS = ["e1", "e2", "e3"]
DIMS = ("relevance", "fluency")
VARIANT = "R1_ST1_RS0_A_R"


def majority_else_mean(values) -> float:
    """The value more than half of the scores equal, else their mean (a plain loop)."""
    for v in values:
        if sum(1 for w in values if w == v) * 2 > len(values):
            return v
    return sum(values) / len(values)


def mean(values) -> float:
    return sum(values) / len(values)


def scores_table(seed: int = 7) -> dict[tuple[str, str, str], list[float]]:
    """(dimension, topic, system) -> the three annotators' scores (integers 1-5, seeded); with three
    values of 1-5 some summaries have a majority and some none."""
    rng = np.random.default_rng(seed)
    out = {}
    for d in DIMS:
        for t in TOPICS:
            for s in SYSTEMS:
                base = rng.integers(1, 6)
                out[(d, t, s)] = [float(np.clip(base + rng.integers(-1, 2), 1, 5)) for _ in ANNOTATORS]
    return out


def write_folder(folder: Path, scores, judgments: str | None = None, group: str = "expert") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"name": "maj", "description": "three annotators, majority else mean", "source": "tests", "license": "CC0",
            "citation": "none", "dimensions": {d: {"min": 1, "max": 5} for d in DIMS},
            "human": {"coverage": ["relevance"], "linguistic_quality": ["fluency"]},
            "aggregation": "majority_else_mean"}
    (folder / "dataset.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    records = []
    for t in TOPICS:
        records.append({"topic": t, "summarizer": "ref", "kind": "human", "text": f"the reference of {t} ."})
        records += [{"topic": t, "summarizer": s, "kind": "system", "text": f"summary {s} of {t} ."} for s in SYSTEMS]
    (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / "judgments.tsv").write_text(judgments or "topic\tsummarizer\n")
    rows = ["topic\tsummarizer\tdimension\tannotator\tgroup\tscore"]
    for (d, t, s), values in scores.items():
        rows += [f"{t}\t{s}\t{d}\t{a}\t{group}\t{v:g}" for a, v in zip(ANNOTATORS, values)]
    (folder / "annotations.tsv").write_text("\n".join(rows) + "\n")
    return folder


def metric_grid(seed: int = 11) -> np.ndarray:
    """A made-up per-summary metric (S, T): the plain mean of relevance plus noise."""
    rng = np.random.default_rng(seed)
    sc = scores_table()
    return np.array([[mean(sc[("relevance", t, s)]) / 5 + rng.normal(scale=0.15) for t in TOPICS] for s in SYSTEMS])


def build_stage_inputs(tmp: Path, judgments: str | None = None, targets: dict | None = None,
                       group: str = "expert") -> dict[str, str]:
    """Validate the folder, write its canonical copy, run the human-scores stage and write a metric's
    score tables: the named inputs of the annotators stage."""
    from metaeval import outputs
    from metaeval.data.datasets import folder_paths, load_dataset, write_dataset
    from metaeval.options import HumanOptions
    from metaeval.stages import human

    ds = load_dataset(write_folder(tmp / "input", scores_table(), judgments, group))
    data = tmp / "data"
    data.mkdir()
    write_dataset(ds, folder_paths(data))
    t = targets or {}
    options = HumanOptions(("arithmetic", "coverage", "linguistic_quality"), "combine_then_average", True, (),
                           tuple(t.get("composites", {}).items()), t.get("primary"), "config key datasets.x")
    out = {k: str(tmp / "human" / Path(v).name) for k, v in outputs.files("human", "x").items()}
    (tmp / "human").mkdir()
    human.write(human.compute(ds, options), out)
    m = metric_grid()
    rows = [(s, VARIANT, float(np.mean(m[i]))) for i, s in enumerate(SYSTEMS)]
    tables.write_tsv(tables.frame(rows, ["summarizer", "variant", "score"]), tmp / "system_scores.tsv")
    rows = [(t, s, "R1", "1", "0", m[i, j], m[i, j], m[i, j])
            for i, s in enumerate(SYSTEMS) for j, t in enumerate(TOPICS)]
    tables.write_tsv(tables.frame(rows, ["topic", "summarizer", "measure", "stem", "stopwords_removed", "P", "R", "F"]),
                     tmp / "summary_scores.tsv")
    return {"system_scores": str(tmp / "system_scores.tsv"), "summary_scores": str(tmp / "summary_scores.tsv"),
            "summary_human": out["summaries"], "system_human": out["systems"], "targets": out["targets"],
            "dataset": str(data / "dataset.yaml"), "annotations": str(data / "annotations.tsv"),
            "judgments": str(data / "judgments.tsv"), "summaries": str(data / "summaries.jsonl"),
            "documents": str(data / "documents.jsonl"), "pyramids": str(data / "pyramids.jsonl")}


def options(samples: int = 0):
    from metaeval.options import AnnotatorsOptions

    return AnnotatorsOptions("systems", (VARIANT,), 1, (), samples, 20, 1, 0.95)


# ----------------------------------------------------------------------------- hand references

def grid_of(fn, dim: str, who=ANNOTATORS) -> np.ndarray:
    """(S, T): ``fn`` over the scores of the annotators ``who`` (by position) of every summary."""
    sc = scores_table()
    idx = [ANNOTATORS.index(a) for a in who]
    return np.array([[fn([sc[(dim, t, s)][i] for i in idx]) for t in TOPICS] for s in SYSTEMS])


def arithmetic_of(rel: np.ndarray, flu: np.ndarray) -> np.ndarray:
    return ((rel - 1) / 4 + (flu - 1) / 4) / 2


def system_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of the system means (plain means over topics)."""
    return float(stats.pearsonr([float(np.mean(r)) for r in x], [float(np.mean(r)) for r in y])[0])


def summary_r(x: np.ndarray, y: np.ndarray) -> float:
    """Within each topic over the systems, averaged over the topics where defined."""
    values = [stats.pearsonr(x[:, t], y[:, t])[0] for t in range(x.shape[1]) if np.ptp(x[:, t]) and np.ptp(y[:, t])]
    return float(np.mean(values))


# ----------------------------------------------------------------------------- the tests

def test_the_data_set_is_made_for_the_rule():
    """Some summaries have a majority that differs from the mean, some have none: the rule matters."""
    sc = scores_table()
    differ = [k for k, v in sc.items() if majority_else_mean(v) != mean(v)]
    no_majority = [k for k, v in sc.items() if len(set(v)) == 3]
    assert len(differ) >= 10 and len(no_majority) >= 3


def test_judgments_and_correlations_use_the_majority_else_mean(tmp_path):
    from metaeval.data.datasets import load_dataset
    from metaeval.options import Options
    from metaeval.stages import analysis_inputs, correlation

    inputs = build_stage_inputs(tmp_path)
    ds = load_dataset(tmp_path / "data")               # the validated copy keeps the rule
    assert ds.aggregation.rule == "majority_else_mean"
    sc = scores_table()
    for (d, t, s), values in sc.items():
        assert ds.judgments[(t, s)][d] == majority_else_mean(values)
    inp = analysis_inputs.load_named(inputs, "systems")
    o = Options.from_config({"datasets": {"d": {"format": "simulated"}}}).correlate._replace(bootstrap_samples=0)
    res = correlation.compute(inp, o)
    got = {r["combination"]: r["pearson"] for r in res.rows if r["variant"] == VARIANT}
    m = metric_grid()
    rel, flu = grid_of(majority_else_mean, "relevance"), grid_of(majority_else_mean, "fluency")
    assert got["relevance"] == pytest.approx(system_r(m, rel), abs=1e-12)
    assert got["fluency"] == pytest.approx(system_r(m, flu), abs=1e-12)
    assert got["arithmetic"] == pytest.approx(system_r(m, arithmetic_of(rel, flu)), abs=1e-12)
    assert abs(got["relevance"] - system_r(m, grid_of(mean, "relevance"))) > 1e-3    # not the plain mean's


def ceiling_values(result, dimension: str) -> dict[tuple[int, str, str], float]:
    return {(r["held_out"], r["predictor"], r["level"]): r["value"] for r in result.ceiling
            if r["dimension"] == dimension and r["coefficient"] == "pearson" and r["group"] == "expert"}


def test_ceiling_and_parity_use_the_majority_else_mean(tmp_path):
    """k = 0: the metric against the majority-else-mean of all three (not their mean). k = 1: each
    annotator against the rule over the other two - with two, a majority needs both to agree
    (2 of 2 > half), which is their mean too. k = 2: the rule over two held out against the third.
    Parity: the metric's and a single annotator's r against the same leave-one-out targets."""
    from metaeval.stages import annotators

    ai = annotators.load(build_stage_inputs(tmp_path), options(50))
    assert ai.aggregation.rule == "majority_else_mean"
    res = annotators.compute(ai, options(50))
    assert res.combination == "arithmetic"
    m = metric_grid()
    for dim in ("relevance", "arithmetic"):
        def target(who):
            if dim == "relevance":
                return grid_of(majority_else_mean, "relevance", who)
            return arithmetic_of(grid_of(majority_else_mean, "relevance", who),
                                 grid_of(majority_else_mean, "fluency", who))
        got = ceiling_values(res, dim)
        full = target(ANNOTATORS)
        assert got[(0, VARIANT, "system")] == pytest.approx(system_r(m, full), abs=1e-12)
        assert got[(0, VARIANT, "summary")] == pytest.approx(summary_r(m, full), abs=1e-12)
        single = {"system": [], "summary": []}
        metric = {"system": [], "summary": []}
        for a in ANNOTATORS:
            rest = [b for b in ANNOTATORS if b != a]
            for level, r in (("system", system_r), ("summary", summary_r)):
                single[level].append(r(target([a]), target(rest)))
                metric[level].append(r(m, target(rest)))
                assert got[(1, a, level)] == pytest.approx(single[level][-1], abs=1e-12)
        for level in ("system", "summary"):
            assert got[(1, "single annotator", level)] == pytest.approx(np.mean(single[level]), abs=1e-12)
            assert got[(1, VARIANT, level)] == pytest.approx(np.mean(metric[level]), abs=1e-12)
            pairs = [r_ for r_ in res.parity if (r_["dimension"], r_["level"], r_["coefficient"], r_["predictor"])
                     == (dim, level, "pearson", VARIANT)]
            assert len(pairs) == 1
            assert pairs[0]["value"] == pytest.approx(np.mean(metric[level]), abs=1e-12)
            assert pairs[0]["single_annotator"] == pytest.approx(np.mean(single[level]), abs=1e-12)
            assert 0 <= pairs[0]["p_parity"] <= 1 and pairs[0]["samples"] > 0
        held = [(ANNOTATORS[i], ANNOTATORS[j]) for i in range(3) for j in range(i + 1, 3)]
        k2 = np.mean([system_r(target(list(h)), target([a for a in ANNOTATORS if a not in h])) for h in held])
        assert got[(2, "majority-else-mean of 2 held out", "system")] == pytest.approx(k2, abs=1e-12)
    # the rule is what makes k = 0 differ from the plain mean's
    plain = system_r(m, grid_of(mean, "relevance"))
    assert abs(ceiling_values(res, "relevance")[(0, VARIANT, "system")] - plain) > 1e-3


def test_notes_and_sentence_name_the_rule_and_the_data_sets_judgments(tmp_path):
    from metaeval import outputs
    from metaeval.stages import annotators

    res = annotators.compute(annotators.load(build_stage_inputs(tmp_path), options()), options())
    kinds = [k for k, _ in res.notes]
    notes = dict((n.split(":")[0], n) for k, n in res.notes if k == "targets")
    assert "aggregation" in kinds and "targets_differ" not in kinds
    assert next(n for k, n in res.notes if k == "aggregation").startswith(
        "targets of the ceiling and parity: the majority-else-mean of the other annotators")
    assert set(notes) == {"arithmetic (expert)", "relevance (expert)", "fluency (expert)"}
    assert "as the data set's judgments" in notes["relevance (expert)"]
    out = {k: str(tmp_path / Path(v).name) for k, v in outputs.files("annotators", "x").items()}
    annotators.write(res, options(), out)
    text = annotators.answer({"ceiling": out["ceiling"], "notes": out["notes"]}, type("A", (), {"best": {"variant": VARIANT},
                                                                       "combination": "relevance"})())
    single = ceiling_values(res, "relevance")[(1, "single annotator", "system")]
    assert (f"a single expert annotator reaches r = {single:.3f} against the majority-else-mean of the other 2 "
            "(the data set's rule)") in text
    assert "majority-else-mean of the other annotators of the group" in Path(out["ceiling_md"]).read_text()


def test_judgments_with_their_own_aggregate_are_named_as_another_target(tmp_path):
    """judgments.tsv gives relevance its own column (the plain mean): the correlations use it, the
    ceiling keeps the rule, and a note counts the summaries where the two differ."""
    from metaeval.stages import annotators

    sc = scores_table()
    lines = ["topic\tsummarizer\trelevance"] + [f"{t}\t{s}\t{mean(sc[('relevance', t, s)])!r}"
                                                for t in TOPICS for s in SYSTEMS]
    res = annotators.compute(annotators.load(build_stage_inputs(tmp_path, "\n".join(lines) + "\n"), options()),
                             options())
    differ = dict((n.split(":")[0], n) for k, n in res.notes if k == "targets_differ")
    n = sum(1 for t in TOPICS for s in SYSTEMS
            if majority_else_mean(sc[("relevance", t, s)]) != mean(sc[("relevance", t, s)]))
    assert f"differs from it on {n} of {len(TOPICS) * len(SYSTEMS)} judged summaries" in differ["relevance (expert)"]
    assert "arithmetic (expert)" in differ and "fluency (expert)" not in differ
    m = metric_grid()
    got = ceiling_values(res, "relevance")
    expected = system_r(m, grid_of(majority_else_mean, "relevance"))
    assert got[(0, VARIANT, "system")] == pytest.approx(expected, abs=1e-12)


def test_a_release_without_groups_is_named_all_annotators_once(tmp_path):
    """Annotators without a group are the group ``all``: the note says "all annotators", not
    "all all annotators"."""
    from metaeval.stages import annotators

    sc = scores_table()
    lines = ["topic\tsummarizer\trelevance"] + [f"{t}\t{s}\t{mean(sc[('relevance', t, s)])!r}"
                                                for t in TOPICS for s in SYSTEMS]
    res = annotators.compute(annotators.load(build_stage_inputs(tmp_path, "\n".join(lines) + "\n", group="all"),
                                             options()), options())
    differ = dict((n.split(":")[0], n) for k, n in res.notes if k == "targets_differ")
    assert "the majority-else-mean of all annotators differs from it on" in differ["relevance (all)"]
    assert not [n for _, n in res.notes if "all all" in n]


def test_the_primary_target_is_analysed_dimension_or_composite(tmp_path):
    from metaeval.stages import annotators

    res = annotators.compute(annotators.load(build_stage_inputs(tmp_path / "a", targets={"primary": "fluency"}),
                                             options()), options())
    assert res.combination == "fluency" and "arithmetic" not in {r["dimension"] for r in res.ceiling}
    res = annotators.compute(annotators.load(build_stage_inputs(
        tmp_path / "b", targets={"primary": "overall", "composites": {"overall": "harmonic(relevance, fluency)"}}),
        options()), options())
    assert res.combination == "overall"
    rel = (grid_of(majority_else_mean, "relevance") - 1) / 4
    flu = (grid_of(majority_else_mean, "fluency") - 1) / 4
    harmonic = np.array([[0.0 if a == 0 or b == 0 else 2 / (1 / a + 1 / b) for a, b in zip(ra, rb)]
                         for ra, rb in zip(rel, flu)])
    assert ceiling_values(res, "overall")[(0, VARIANT, "system")] == pytest.approx(system_r(metric_grid(), harmonic),
                                                                                   abs=1e-12)


# ----------------------------------------------------------------------------- annotators in the bootstrap

def test_resampled_targets_apply_the_rule_to_the_drawn_multiset(tmp_path):
    """Every target of the run from chosen draws: with each annotator once, the human-scores stage's
    values (the judgments); with e1 drawn twice and e2 once, the rule over (e1, e1, e2) - e1's score,
    a majority of 2 of 3 - per summary; with e3 three times, e3's."""
    from metaeval.data.datasets import load_dataset
    from metaeval.stages import analysis_inputs
    from metaeval.stats import annotator_resampling as ar

    inputs = build_stage_inputs(tmp_path, targets={"composites": {"overall": "mean(relevance, fluency)"}})
    inp = analysis_inputs.load_named(inputs, "systems")
    assert inp.combinations == ["arithmetic", "coverage", "linguistic_quality", "relevance", "fluency", "overall"]
    ds = load_dataset(tmp_path / "data")
    model = ar.build(ds, inp.summarizers, inp.per_summary.topics, composites={"overall": ("mean", list(DIMS))})
    weights = {"expert": np.array([[1.0, 1.0, 1.0], [2.0, 1.0, 0.0], [0.0, 0.0, 3.0]])}
    got = ar.human_system_scores(model, inp.combinations, np.ones((3, len(TOPICS))), weights)
    assert got[0] == pytest.approx(inp.system_human, abs=1e-12)
    for b, who in ((1, ["e1", "e1", "e2"]), (2, ["e3", "e3", "e3"])):
        sc = scores_table()
        rel = np.array([[majority_else_mean([sc[("relevance", t, s)][ANNOTATORS.index(a)] for a in who])
                         for t in TOPICS] for s in SYSTEMS])
        flu = np.array([[majority_else_mean([sc[("fluency", t, s)][ANNOTATORS.index(a)] for a in who])
                         for t in TOPICS] for s in SYSTEMS])
        expected = {"relevance": rel, "fluency": flu, "arithmetic": arithmetic_of(rel, flu),
                    "coverage": (rel - 1) / 4, "linguistic_quality": (flu - 1) / 4,
                    "overall": ((rel - 1) / 4 + (flu - 1) / 4) / 2}
        for k, name in enumerate(inp.combinations):
            assert got[b, :, k] == pytest.approx(expected[name].mean(axis=1), abs=1e-12), (b, name)
    assert not np.allclose(got[1], got[0])


@pytest.mark.parametrize("rule", ["median", "majority_else_mean", "trimmed_mean"])
def test_rule_over_grids_and_multisets_equals_per_cell_references(rule):
    """:func:`aggregate_stack` against numpy/scipy per cell (np.median, scipy.stats.trim_mean, the
    loop above), with missing scores; :func:`aggregate_multisets` against the same on the repeated
    scores."""
    from metaeval.stats.aggregation import Aggregation
    from metaeval.stats.rule_grids import aggregate_multisets, aggregate_stack

    agg = Aggregation(rule, 0.2)
    ref = {"median": np.median, "majority_else_mean": majority_else_mean,
           "trimmed_mean": lambda v: stats.trim_mean(v, 0.2)}[rule]
    rng = np.random.default_rng(5)
    x = rng.integers(1, 5, (6, 9, 4)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    got = aggregate_stack(x, agg)
    for i in range(9):
        for j in range(4):
            v = [float(a) for a in x[:, i, j] if not math.isnan(a)]
            assert (math.isnan(got[i, j]) if not v else got[i, j] == pytest.approx(ref(v), abs=1e-12)), (i, j)
    counts = rng.integers(0, 3, (5, 6))
    got = aggregate_multisets(x, counts, agg)
    for b in range(5):
        for i in range(9):
            v = [float(x[e, i, 0]) for e in range(6) for _ in range(counts[b, e]) if not math.isnan(x[e, i, 0])]
            assert (math.isnan(got[b, i, 0]) if not v else got[b, i, 0] == pytest.approx(ref(v), abs=1e-12))
