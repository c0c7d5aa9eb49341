"""The metric-family interface and its registry: every family's ids read back,
the corpus-level families' corpus scores are the engines' (so sacrebleu's), and a family added to
the registry is parsed, refused as a score-file id and read by the analyses without any other edit."""
from __future__ import annotations

import numpy as np
import pytest

from metaeval.metrics import bleu, chrf
from metaeval.metrics.family import CorpusFamily, MeanMedianFamily
from metaeval.metrics.families import REGISTRY, corpus_families, metric_id_problem, of_form, owner
from metaeval.stages import analysis_inputs
from metaeval.variants import Variant


@pytest.mark.parametrize("text,family", [
    ("R2_ST1_RS0_A_P", "rouge"), ("RSU4_ST0_RS1_M_F", "rouge"), ("BLEU_ST0_RS1", "bleu"), ("CHRF", "chrf"),
    ("CHRF++", "chrf"), ("SERA5_PL_A", "sera"), ("SERADIS10_KW_M", "sera"), ("BERTScore_F_A", "file_metrics"),
])
def test_each_id_is_parsed_by_its_family_only(text, family):
    parsed = {name: f.parse(text) for name, f in REGISTRY.items()}
    assert [name for name, v in parsed.items() if v is not None] == [family]
    v = parsed[family]
    assert Variant.parse(text) == v and str(v) == REGISTRY[family].variant_id(v) == text
    assert of_form(v.family).summary_metric(v) == v.summary_metric
    assert v.corpus_level == isinstance(REGISTRY[family], CorpusFamily)


def test_the_registry_lists_every_family_once_and_the_catch_all_last():
    assert list(REGISTRY) == ["rouge", "bleu", "sera", "chrf", "file_metrics"]
    assert [f.name for f in corpus_families()] == ["bleu", "chrf"]
    assert [f.name for f in REGISTRY.values() if f.table] == ["sera", "chrf", "file_metrics"]
    assert {f.name: f.signature for f in REGISTRY.values() if f.signature} == {
        "sera": "sera_signature", "chrf": "chrf_signature", "file_metrics": "file_metrics_signature"}
    assert [f.name for f in REGISTRY.values() if not f.needs_texts] == ["file_metrics"]
    assert {f.name: f.flag for f in REGISTRY.values()} == {
        "rouge": None, "bleu": "bleu_enabled", "sera": "sera_enabled", "chrf": "chrf_enabled", "file_metrics": None}


def test_owners_of_per_summary_metric_ids():
    assert {m: getattr(owner(m), "name", None) for m in ("R2_ST1_RS0_P", "BLEU_ST1_RS0", "BLEU", "CHRF++",
                                                          "SERADIS10_KW", "BERTScore_F")} == {
        "R2_ST1_RS0_P": "rouge", "BLEU_ST1_RS0": "bleu", "BLEU": "bleu", "CHRF++": "chrf",
        "SERADIS10_KW": "sera", "BERTScore_F": None}


def test_statistics_inputs_name_their_variants():
    keys = {"bleu_stats_ST1_RS0": "a", "bleu_stats__ST1_RS0__shard0": "part", "chrf_stats_CHRF++": "b",
            "chrf_signature": "c", "sera": "d"}
    assert analysis_inputs.corpus_stats_paths(keys) == {"BLEU_ST1_RS0": "a", "CHRF++": "b"}
    assert analysis_inputs.score_tables(keys) == {"sera": "d"}


def test_corpus_scores_are_the_engines():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 30, (20, len(bleu.STATISTICS)))
    rows[:, 6:] += rows[:, 2:6]                                   # totals >= matches
    assert list(REGISTRY["bleu"].corpus_scores(rows)) == [bleu.bleu_from_counts(r) for r in rows.tolist()]
    assert [REGISTRY["bleu"].corpus_score(r) for r in rows.tolist()] == [bleu.bleu_from_statistics(r) for r in rows]
    stats = rng.integers(0, 30, (20, 3 * 8))
    assert np.array_equal(REGISTRY["chrf"].corpus_scores(stats), chrf.f_scores(stats))
    assert [REGISTRY["chrf"].corpus_score(r) for r in stats.tolist()] == [chrf.chrf_from_counts(r) for r in stats]


class Meteor(MeanMedianFamily):
    """A toy per-summary family from texts, as a new module would declare it."""

    name = signature_kind = stage = "meteor"
    needs_texts = True
    flag = "meteor_enabled"

    def owns_metric(self, metric: str) -> bool:
        return metric == "METEOR"


@pytest.fixture
def with_meteor():
    """The registry with the toy family entered before the score files' catch-all."""
    saved = dict(REGISTRY)
    REGISTRY.clear()
    REGISTRY.update({k: f for k, f in saved.items() if k != "file_metrics"})
    REGISTRY.update(meteor=Meteor(), file_metrics=saved["file_metrics"])
    yield REGISTRY["meteor"]
    REGISTRY.clear()
    REGISTRY.update(saved)


def test_a_registered_family_needs_no_other_edit(with_meteor, tmp_path):
    v = Variant.parse("METEOR_M")
    assert (v.family, v.measure, v.statistic, str(v), v.summary_metric) == ("metric", "METEOR", "M", "METEOR_M", "METEOR")
    assert "collides" in metric_id_problem("METEOR")
    assert (with_meteor.table, with_meteor.signature) == ("meteor", "meteor_signature")
    table = tmp_path / "meteor.tsv"
    table.write_text("topic\tsummarizer\tmetric\tscore\nt1\ts\tMETEOR\t0.25\n")
    assert analysis_inputs.score_tables({"meteor": str(table), "sera": "x"}) == {"sera": "x", "meteor": str(table)}
    assert with_meteor.read_scores(str(table))["score"].tolist() == [0.25]


def test_without_the_family_its_ids_are_score_file_metrics():
    assert Variant.parse("METEOR_M").family == "metric" and metric_id_problem("METEOR") is None
