"""The extensions of the canonical form: annotations.tsv, dimension kinds, score-only data
sets, splits and subsets; every bad case names file, line and field. Expected values are written
out by hand from the small files each test writes."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from conftest import TINY_YAML, tiny_records, write_tiny
from metaeval.data.datasets import DatasetError, folder_paths, load_dataset, summary_table, write_dataset

ANNOTATIONS = """topic\tsummarizer\tdimension\tannotator\tgroup\tscore
T1\t1\trelevance\te1\texpert\t3
T1\t1\trelevance\te2\texpert\t4
T1\t1\trelevance\tc1\tcrowd\t1
T1\t2\trelevance\te1\texpert\t2
T2\t1\trelevance\te1\texpert\t5
T2\t1\trelevance\te2\texpert\t4
T2\t2\trelevance\tc1\tcrowd\t2
"""
# relevance from the experts, crowd_relevance from the crowd; fluency still from judgments.tsv
ANNOTATED_YAML = TINY_YAML.replace(
    "  relevance: {min: 1, max: 5}",
    "  relevance: {min: 1, max: 5, annotations: {group: expert}}\n"
    "  crowd_relevance: {min: 1, max: 5, annotations: {dimension: relevance, group: crowd}}")
FLUENCY_ONLY = "topic\tsummarizer\tfluency\nT1\t1\t4\nT1\t2\t\nT2\t1\t5\nT2\t2\t3\nT1\tB\t5\n"


def quiet_load(folder: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(folder)


def annotated(tmp_path: Path, annotations: str = ANNOTATIONS, yaml_text: str = ANNOTATED_YAML,
              judgments: str = FLUENCY_ONLY) -> Path:
    folder = write_tiny(tmp_path / "ann", yaml_text=yaml_text, judgments=judgments)
    (folder / "annotations.tsv").write_text(annotations)
    return folder


def test_judgments_from_annotations_are_group_means(tmp_path):
    ds = quiet_load(annotated(tmp_path))
    j = ds.judgments
    assert j[("T1", "1")]["relevance"] == 3.5          # (3 + 4) / 2, experts only
    assert j[("T1", "1")]["crowd_relevance"] == 1.0
    assert j[("T1", "2")]["relevance"] == 2.0
    assert math.isnan(j[("T1", "2")]["crowd_relevance"])   # no crowd annotation
    assert j[("T2", "1")]["relevance"] == 4.5
    assert math.isnan(j[("T2", "2")]["relevance"]) and j[("T2", "2")]["crowd_relevance"] == 2.0
    assert j[("T1", "1")]["fluency"] == 4.0            # from judgments.tsv
    assert len(ds.annotations) == 7
    rows = dict(summary_table(ds))
    assert rows["annotators_by_group"] == "crowd:1,expert:2"
    assert rows["annotations"] == "7"


def test_annotations_round_trip_through_the_normalised_copy(tmp_path):
    ds = quiet_load(annotated(tmp_path))
    write_dataset(ds, folder_paths(tmp_path / "out"))
    lines = (tmp_path / "out" / "annotations.tsv").read_text().splitlines()
    assert lines[0] == "topic\tsummarizer\tdimension\tannotator\tgroup\tscore"
    assert len(lines) == 8
    header = (tmp_path / "out" / "judgments.tsv").read_text().splitlines()[0]
    assert header == "topic\tsummarizer\trelevance\tcrowd_relevance\tfluency"
    back = quiet_load(tmp_path / "out")
    assert back.judgments[("T1", "1")]["relevance"] == 3.5
    assert sorted((a.annotator, a.score) for a in back.annotations if a.key == ("T1", "1")) == [
        ("c1", 1.0), ("e1", 3.0), ("e2", 4.0)]
    # a second write of what was read is byte-identical
    write_dataset(back, folder_paths(tmp_path / "again"))
    for name in ("annotations.tsv", "judgments.tsv", "dataset.yaml", "summaries.jsonl"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_an_old_folder_gets_an_empty_annotations_table(tmp_path, tiny):
    write_dataset(quiet_load(tiny), folder_paths(tmp_path / "out"))
    assert (tmp_path / "out" / "annotations.tsv").read_text() == "topic\tsummarizer\tdimension\tannotator\tgroup\tscore\n"
    assert "annotations" not in dict(summary_table(quiet_load(tmp_path / "out")))


@pytest.mark.parametrize("bad, where", [
    ("T1\t9\trelevance\te1\texpert\t3", r"annotations.tsv, line 2, field 'summarizer'.*no summary"),
    ("T1\t1\tbogus\te1\texpert\t3", r"annotations.tsv, line 2, field 'dimension'.*not a dimension"),
    ("T1\t1\trelevance\te1\texpert\t7", r"annotations.tsv, line 2, field 'score'.*outside the declared range"),
    ("T1\t1\trelevance\te1\texpert\tnan", r"annotations.tsv, line 2, field 'score'.*not a number"),
    ("T1\t1\trelevance\te1\tcrowd\t3\nT1\t2\trelevance\te1\texpert\t3",
     r"annotations.tsv, line 3, field 'group'.*one group per annotator"),
    ("T1\t1\trelevance\te1\texpert\t3\nT1\t1\trelevance\te1\texpert\t4",
     r"annotations.tsv, line 3, field 'annotator'.*second score"),
])
def test_bad_annotations(tmp_path, bad, where):
    folder = annotated(tmp_path, annotations="topic\tsummarizer\tdimension\tannotator\tgroup\tscore\n" + bad + "\n")
    with pytest.raises(DatasetError, match=where):
        quiet_load(folder)


def test_annotations_header_is_checked(tmp_path):
    with pytest.raises(DatasetError, match=r"annotations.tsv, line 1: header"):
        quiet_load(annotated(tmp_path, annotations="topic\tsummarizer\tscore\n"))


def test_without_group_column_every_annotator_is_in_all(tmp_path):
    text = "topic\tsummarizer\tdimension\tannotator\tscore\nT1\t1\trelevance\ta\t2\nT1\t1\trelevance\tb\t5\n"
    yaml_text = TINY_YAML.replace("  relevance: {min: 1, max: 5}", "  relevance: {min: 1, max: 5, annotations: {}}")
    ds = quiet_load(annotated(tmp_path, annotations=text, yaml_text=yaml_text,
                              judgments="topic\tsummarizer\tfluency\nT1\t1\t4\n"))
    assert ds.judgments[("T1", "1")]["relevance"] == 3.5
    assert {a.group for a in ds.annotations} == {"all"}


def test_a_dimension_without_column_or_annotations_is_an_error(tmp_path):
    with pytest.raises(DatasetError, match=r"judgments.tsv, line 1, field 'relevance'.*no column"):
        quiet_load(write_tiny(tmp_path / "d", judgments=FLUENCY_ONLY))


# --------------------------------------------------------------------------- kinds

KINDS_YAML = TINY_YAML.replace("  relevance: {min: 1, max: 5}\n  fluency: {min: 1, max: 5}",
                               "  relevance: {kind: binary}\n  fluency: {kind: proportion}")


def test_binary_and_proportion_kinds(tmp_path):
    judgments = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t1\t0.25\nT1\t2\t0\t1\nT2\t1\t1\t0\n"
    ds = quiet_load(write_tiny(tmp_path / "d", yaml_text=KINDS_YAML, judgments=judgments))
    assert ds.dimensions["relevance"].kind == "binary" and (ds.dimensions["relevance"].min, ds.dimensions["relevance"].max) == (0, 1)
    assert ds.dimensions["fluency"].kind == "proportion"
    assert dict(summary_table(ds))["relevance_kind"] == "binary"


@pytest.mark.parametrize("judgments, where", [
    ("topic\tsummarizer\trelevance\tfluency\nT1\t1\t0.5\t0.2\n",
     r"judgments.tsv, line 2, field 'relevance'.*not a label of a binary dimension; expected 0 or 1"),
    ("topic\tsummarizer\trelevance\tfluency\nT1\t1\t1\t1.5\n",
     r"judgments.tsv, line 2, field 'fluency'.*outside the declared range \[0, 1\]"),
])
def test_values_outside_a_kind(tmp_path, judgments, where):
    with pytest.raises(DatasetError, match=where):
        quiet_load(write_tiny(tmp_path / "d", yaml_text=KINDS_YAML, judgments=judgments))


def test_unknown_kind_and_wrong_bounds(tmp_path):
    with pytest.raises(DatasetError, match=r"dataset.yaml, line 7, field 'dimensions.relevance.kind'.*'ordinal'"):
        quiet_load(write_tiny(tmp_path / "a", yaml_text=KINDS_YAML.replace("kind: binary", "kind: ordinal")))
    with pytest.raises(DatasetError, match=r"field 'dimensions.relevance'.*a binary dimension has min 0 and max 1"):
        quiet_load(write_tiny(tmp_path / "b", yaml_text=KINDS_YAML.replace("kind: binary", "kind: binary, max: 5")))


PAIR_YAML = TINY_YAML.replace("  relevance: {min: 1, max: 5}", "  relevance: {kind: preference}")


def test_preference_pairs(tmp_path):
    good = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t1\t4\nT1\t2\t0\t3\nT2\t1\t0\t5\nT2\t2\t1\t3\n"
    ds = quiet_load(write_tiny(tmp_path / "ok", yaml_text=PAIR_YAML, judgments=good))
    assert ds.judgments[("T2", "2")]["relevance"] == 1.0


@pytest.mark.parametrize("judgments, where", [
    # three summaries of T1 judged: not a pair
    ("topic\tsummarizer\trelevance\tfluency\nT1\t1\t1\t4\nT1\t2\t0\t3\nT1\tB\t0\t5\n",
     r"judgments.tsv, line 4, field 'relevance': topic 'T1' has 3 judged summaries"),
    # a pair with two preferred summaries
    ("topic\tsummarizer\trelevance\tfluency\nT1\t1\t1\t4\nT1\t2\t1\t3\n",
     r"judgments.tsv, line 2, field 'relevance': topic 'T1' has 2 judged summaries with labels \['1', '1'\]"),
    # one summary alone
    ("topic\tsummarizer\trelevance\tfluency\nT2\t1\t1\t4\n", r"topic 'T2' has 1 judged summary"),
])
def test_bad_preference_pairs(tmp_path, judgments, where):
    with pytest.raises(DatasetError, match=where):
        quiet_load(write_tiny(tmp_path / "d", yaml_text=PAIR_YAML, judgments=judgments))


# --------------------------------------------------------------------------- score-only, splits

def score_only(tmp_path: Path, records=None, judgments=None) -> Path:
    recs = records or [{"topic": t, "summarizer": s, "kind": "system", "split": "test" if t == "T1" else "valid",
                        "subset": "cnndm"} for t in ("T1", "T2") for s in ("1", "2")]
    return write_tiny(tmp_path / "so", records=recs, yaml_text=TINY_YAML + "texts: false\n",
                      judgments=judgments or "topic\tsummarizer\trelevance\tfluency\nT1\t1\t3\t4\nT1\t2\t2\t3\n"
                                             "T2\t1\t4\t5\nT2\t2\t1\t2\n")


def test_score_only_data_set(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no "empty summaries" warning: there is no text to be empty
        ds = load_dataset(score_only(tmp_path))
    assert not ds.has_texts and all(s.sentences == () for s in ds.summaries)
    rows = dict(summary_table(ds))
    assert rows["texts"].startswith("no")
    assert rows["judged_summaries_by_split"] == "test:2,valid:2"
    assert rows["judged_summaries_by_subset"] == "cnndm:4"
    write_dataset(ds, folder_paths(tmp_path / "out"))
    first = json.loads((tmp_path / "out" / "summaries.jsonl").read_text().splitlines()[0])
    assert first == {"topic": "T1", "summarizer": "1", "kind": "system", "split": "test", "subset": "cnndm"}
    back = load_dataset(tmp_path / "out")
    assert not back.has_texts and back.summary("T2", "2").split == "valid"


def test_score_only_refuses_text(tmp_path):
    recs = [{"topic": "T1", "summarizer": "1", "kind": "system", "sentences": ["a ."]}]
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 1, field 'sentences'.*texts: false"):
        load_dataset(score_only(tmp_path, records=recs, judgments="topic\tsummarizer\trelevance\tfluency\nT1\t1\t3\t4\n"))


def test_texts_must_be_boolean(tmp_path):
    with pytest.raises(DatasetError, match=r"dataset.yaml, line 12, field 'texts'"):
        quiet_load(write_tiny(tmp_path / "d", yaml_text=TINY_YAML + "texts: maybe\n"))


def test_bad_split_name(tmp_path):
    recs = tiny_records()
    recs[2]["split"] = ""
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 3, field 'split'"):
        quiet_load(write_tiny(tmp_path / "d", records=recs))


# --------------------------------------------------------------------------- config entries of the release formats

def test_release_format_entries_are_checked_at_start(tmp_path):
    from metaeval.data.formats import FORMATS
    from metaeval.options import ConfigError, Options

    def options(entry):
        return Options.from_config({"datasets": {"x": entry}})

    (tmp_path / "frank").mkdir()
    (tmp_path / "frank" / "human_annotations.json").write_text("[]")
    with pytest.raises(ConfigError, match=r"config key datasets.x.path: .* has no baseline_factuality_metrics_outputs.json"):
        options({"format": "frank", "path": str(tmp_path / "frank")})
    with pytest.raises(ConfigError, match=r"config key datasets.x.path: .* is not a file; expected one of BARTScore's"):
        options({"format": "bartscore_pkl", "path": str(tmp_path)})
    (tmp_path / "data.pkl").write_bytes(b"")
    with pytest.raises(ConfigError, match=r"config key datasets.x.release"):
        options({"format": "bartscore_pkl", "path": str(tmp_path / "data.pkl"), "release": "CNNDM"})
    opts = options({"format": "bartscore_pkl", "path": str(tmp_path / "data.pkl"), "release": "Rank19"})
    entry = opts.dataset("x")   # the import job's release file and the release it passes the importer
    assert (entry["path"], FORMATS["bartscore_pkl"].options(entry)) == (str(tmp_path / "data.pkl"), "Rank19")
    assert opts.has_texts("x")


def test_score_only_is_known_before_any_job_runs(tmp_path):
    from metaeval.options import Options

    folder = score_only(tmp_path)
    opts = Options.from_config({"datasets": {"so": {"format": "canonical", "path": str(folder)},
                                             "tiny": {"format": "canonical", "path": str(write_tiny(tmp_path / "t"))}}})
    assert not opts.has_texts("so") and opts.has_texts("tiny")
    assert opts.gather_job("so").rouge.measures == () and opts.gather_job("tiny") == opts.gather
    assert opts.file_metrics("so").partial_coverage is False


PARTS = """topic\tsummarizer\tdimension\tannotator\tgroup\tpart\tscore
T1\t1\trelevance\te1\texpert\t1\t3
T1\t1\trelevance\te1\texpert\t2\t4
T1\t1\trelevance\te2\texpert\t1\t5
T1\t1\trelevance\te2\texpert\t2\t5
T2\t1\trelevance\te1\texpert\t1\t2
T2\t1\trelevance\tc1\tcrowd\t1\t1
"""


def test_annotations_of_parts_are_read_averaged_per_summary_and_written_back(tmp_path):
    """A part column (QAGS judges sentences): an annotator's score of a summary is the mean of its
    parts' (e1 on (T1, 1): (3 + 4) / 2), the judgment the rule over the annotators ((3.5 + 5) / 2);
    the copy keeps every part and reads back to the same bytes."""
    ds = quiet_load(annotated(tmp_path, annotations=PARTS))
    assert ds.judgments[("T1", "1")]["relevance"] == 4.25 and ds.judgments[("T2", "1")]["relevance"] == 2.0
    assert [(a.annotator, a.part, a.score) for a in ds.annotations if a.key == ("T1", "1")][:2] == [
        ("e1", "1", 3.0), ("e1", "2", 4.0)]
    assert dict(summary_table(ds))["annotated_parts"] == "3"
    write_dataset(ds, folder_paths(tmp_path / "out"))
    lines = (tmp_path / "out" / "annotations.tsv").read_text().splitlines()
    assert lines[0] == "topic\tsummarizer\tdimension\tannotator\tgroup\tpart\tscore" and len(lines) == 7
    write_dataset(quiet_load(tmp_path / "out"), folder_paths(tmp_path / "again"))
    assert (tmp_path / "out" / "annotations.tsv").read_bytes() == (tmp_path / "again" / "annotations.tsv").read_bytes()


@pytest.mark.parametrize("bad, where", [
    ("T1\t1\trelevance\te1\texpert\t1\t3\nT1\t1\trelevance\te1\texpert\t1\t4",
     r"annotations.tsv, line 3, field 'annotator': second score of 'e1' for \('T1', '1'\) \(part '1'\)"),
    ("T1\t1\trelevance\te1\texpert\t1\t3\nT1\t1\trelevance\te1\texpert\t\t4",
     r"annotations.tsv, line 3, field 'part': 'e1' judges \('T1', '1'\) on 'relevance' by parts on line 2; expected "
     "the summary whole or by parts, not both"),
])
def test_bad_annotations_of_parts(tmp_path, bad, where):
    folder = annotated(tmp_path, annotations="topic\tsummarizer\tdimension\tannotator\tgroup\tpart\tscore\n" + bad + "\n")
    with pytest.raises(DatasetError, match=where):
        quiet_load(folder)


@pytest.mark.parametrize("key, value, where", [
    ("references", "maybe", r"dataset.yaml, line \d+, field 'references': 'maybe' is not true or false"),
    ("summary_level", "topic", r"dataset.yaml, line \d+, field 'summary_level': 'topic'; expected within_topic or "
                               "pooled"),
])
def test_bad_release_keys_of_dataset_yaml(tmp_path, key, value, where):
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML + f"{key}: {value}\n")
    with pytest.raises(DatasetError, match=where):
        quiet_load(folder)
