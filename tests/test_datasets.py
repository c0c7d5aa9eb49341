"""The canonical form: reading, every bad-input case (message names file, line and field), writing."""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from conftest import TINY_JUDGMENTS, TINY_YAML, shared_dataset, tiny_records, write_tiny
from metaeval.data.datasets import DatasetError, load_dataset, summary_table, folder_paths, write_dataset


def test_reads_tiny(tiny):
    with pytest.warns(UserWarning, match="1 empty summary"):
        ds = load_dataset(tiny)
    assert ds.name == "tiny"
    assert len(ds.summaries) == 7
    assert ds.summary("T1", "B").sentences == ("A cat was sitting on a mat .", "It was happy .")
    assert math.isnan(ds.judgments[("T1", "2")]["fluency"])
    assert ds.judgments[("T2", "1")]["relevance"] == 4.5
    assert [r.summarizer for r in ds.references("T1")] == ["A", "B"]
    assert ds.human == {"coverage": ["relevance"], "linguistic_quality": ["fluency"]}


def test_text_is_kept_byte_for_byte(tmp_path):
    recs = tiny_records()
    recs[2]["sentences"] = ["  Ünïcödé  TEXT\twith ｆｕｌｌ-width ﬁ ligature  "]
    folder = write_tiny(tmp_path / "d", records=recs)
    with pytest.warns(UserWarning):
        ds = load_dataset(folder)
    write_dataset(ds, folder_paths(tmp_path / "out"))
    back = [json.loads(l) for l in (tmp_path / "out" / "summaries.jsonl").read_text(encoding="utf-8").splitlines()]
    rec = next(r for r in back if (r["topic"], r["summarizer"]) == ("T1", "1"))
    assert rec["sentences"] == recs[2]["sentences"]


def test_input_files_are_never_written(tiny, tmp_path):
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tiny.iterdir()}
    mtimes = {p.name: p.stat().st_mtime_ns for p in tiny.iterdir()}
    with pytest.warns(UserWarning):
        write_dataset(load_dataset(tiny), folder_paths(tmp_path / "copy"))
    assert before == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in tiny.iterdir()}
    assert mtimes == {p.name: p.stat().st_mtime_ns for p in tiny.iterdir()}


def test_normalised_copy_round_trips_and_is_stable(tiny, tmp_path):
    with pytest.warns(UserWarning):
        ds = load_dataset(tiny)
        write_dataset(ds, folder_paths(tmp_path / "a"))
        write_dataset(load_dataset(tmp_path / "a"), folder_paths(tmp_path / "b"))
    for f in ("dataset.yaml", "summaries.jsonl", "judgments.tsv", "documents.jsonl"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def _error(folder: Path) -> str:
    with pytest.raises(DatasetError) as info:
        load_dataset(folder)
    return str(info.value)


def _bad_summaries(tmp_path: Path, lines: list[str]) -> str:
    folder = write_tiny(tmp_path / "bad")
    (folder / "summaries.jsonl").write_text("\n".join(lines) + "\n")
    return _error(folder)


def _ok_lines() -> list[str]:
    return [json.dumps(r) for r in tiny_records()]


def test_malformed_json_names_file_and_line(tmp_path):
    lines = _ok_lines()
    lines[3] = '{"topic": "T1", "summarizer": "2", "kind": "system", "sentences": [}'
    msg = _bad_summaries(tmp_path, lines)
    assert "summaries.jsonl, line 4" in msg and "malformed JSON" in msg


@pytest.mark.parametrize("field,value,expect", [
    ("topic", None, "field 'topic': missing"),
    ("summarizer", 12, "field 'summarizer': expected a non-empty string"),
    ("kind", "model", "field 'kind': expected 'system' or 'human'"),
    ("sentences", "one string", "field 'sentences': expected a list of strings"),
    ("sentences", ["ok", 3], "field 'sentences[1]': expected a string"),
])
def test_missing_or_mistyped_field(tmp_path, field, value, expect):
    recs = tiny_records()
    if value is None:
        del recs[2][field]
    else:
        recs[2][field] = value
    msg = _bad_summaries(tmp_path, [json.dumps(r) for r in recs])
    assert "summaries.jsonl, line 3" in msg and expect in msg


def test_both_text_and_sentences(tmp_path):
    recs = tiny_records()
    recs[0]["text"] = "x"
    msg = _bad_summaries(tmp_path, [json.dumps(r) for r in recs])
    assert "line 1, field 'sentences'" in msg and "exactly one of" in msg


def test_duplicate_topic_summarizer(tmp_path):
    lines = _ok_lines() + [_ok_lines()[2]]
    msg = _bad_summaries(tmp_path, lines)
    assert "summaries.jsonl, line 8" in msg and "duplicate (topic, summarizer) = ('T1', '1')" in msg
    assert "first seen on line 3" in msg


def test_judgment_for_missing_summary(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS + "T2\t9\t3\t3\n")
    msg = _error(folder)
    assert "judgments.tsv, line 7" in msg and "('T2', '9'), which has no summary" in msg


def test_non_numeric_score(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("4.5", "high"))
    msg = _error(folder)
    assert "judgments.tsv, line 4, field 'relevance'" in msg and "'high' is not a number" in msg


@pytest.mark.parametrize("value", ["0", "5.01", "-1"])
def test_score_outside_declared_range(tmp_path, value):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("4.5", value))
    msg = _error(folder)
    assert "judgments.tsv, line 4, field 'relevance'" in msg and "outside the declared range [1, 5]" in msg


def test_undeclared_column_and_missing_column(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("fluency", "fluent", 1))
    msg = _error(folder)
    assert "judgments.tsv, line 1, field 'fluent'" in msg and "not a dimension declared" in msg


def test_bad_header(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("topic\tsummarizer", "summarizer\ttopic", 1))
    assert "judgments.tsv, line 1" in _error(folder)


def test_wrong_number_of_cells(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("T2\t2\t2\t3", "T2\t2\t2"))
    assert "judgments.tsv, line 5" in _error(folder)


def test_duplicate_judgment_row(tmp_path):
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS + "T1\t1\t3\t4\n")
    msg = _error(folder)
    assert "judgments.tsv, line 7" in msg and "first on line 2" in msg


def test_human_dimension_not_declared(tmp_path):
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML.replace("linguistic_quality: [fluency]",
                                                                    "linguistic_quality: [fluency, grammar]"))
    msg = _error(folder)
    assert "dataset.yaml, line 11, field 'human.linguistic_quality'" in msg and "'grammar' is not declared" in msg


def test_dimension_without_min(tmp_path):
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML.replace("relevance: {min: 1, max: 5}", "relevance: {max: 5}"))
    msg = _error(folder)
    assert "dataset.yaml, line 7, field 'dimensions.relevance.min'" in msg


def test_malformed_yaml(tmp_path):
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML + "  bad: [\n")
    assert "dataset.yaml" in _error(folder) and "malformed YAML" in _error(folder)


def test_topic_without_reference(tmp_path):
    recs = [r for r in tiny_records() if not (r["topic"] == "T2" and r["kind"] == "human")]
    folder = write_tiny(tmp_path / "d", records=recs)
    msg = _error(folder)
    assert "judgments.tsv, line 4, field 'topic'" in msg and "'T2' has judged summaries but no human" in msg


def test_missing_file(tmp_path):
    folder = write_tiny(tmp_path / "d")
    (folder / "judgments.tsv").unlink()
    assert "judgments.tsv: missing" in _error(folder)


def test_documents_checked(tmp_path):
    folder = write_tiny(tmp_path / "d")
    (folder / "documents.jsonl").write_text('{"topic": "T1", "documents": ["x"]}\n{"topic": "T9", "documents": []}\n')
    msg = _error(folder)
    assert "documents.jsonl, line 2, field 'topic'" in msg


def test_human_override(tiny):
    with pytest.warns(UserWarning):
        ds = load_dataset(tiny, human_override={"coverage": ["relevance", "fluency"], "linguistic_quality": []})
    assert ds.human == {"coverage": ["relevance", "fluency"], "linguistic_quality": []}
    with pytest.raises(DatasetError, match="config human override, field 'human.coverage'"):
        load_dataset(tiny, human_override={"coverage": ["nope"]})


def test_summary_table_counts(tiny):
    with pytest.warns(UserWarning):
        rows = dict(summary_table(load_dataset(tiny)))
    assert rows["topics"] == "2" and rows["systems"] == "2" and rows["human_summarizers"] == "2"
    assert rows["judged_summaries"] == "5" and rows["judged_human_summaries"] == "1"
    assert rows["empty_summaries"] == "1"
    assert rows["references_per_topic_min"] == "1" and rows["references_per_topic_max"] == "2"
    assert rows["fluency_n"] == "4" and rows["relevance_mean"] == "3.1"


def test_real_summeval_validates():
    ds = load_dataset(shared_dataset("summeval"))
    rows = dict(summary_table(ds))
    assert rows["judged_system_summaries"] == "1600"
    assert rows["references_per_topic_min"] == rows["references_per_topic_max"] == "11"
    assert rows["systems"] == "16" and rows["topics"] == "100"


@pytest.mark.parametrize("name", ["realsumm", "newsroom"])
def test_other_real_datasets_validate(name):
    ds = load_dataset(shared_dataset(name))
    assert ds.judgments and ds.documents


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity", "\u0663", "4,5", "1_0"])
def test_only_ascii_decimal_numbers_are_judgments(tmp_path, value):
    """float() takes 'nan', 'inf', '1_0' and other scripts' digits ('\u0663' = 3); a judgment may not."""
    folder = write_tiny(tmp_path / "d", judgments=TINY_JUDGMENTS.replace("4.5", value))
    assert _error(folder) == (f"{folder / 'judgments.tsv'}, line 4, field 'relevance': {value!r} is not a number; "
                              "expected a number or an empty cell")


def test_a_byte_order_mark_is_accepted(tmp_path):
    """Excel writes UTF-8 with a BOM; the data set reads as without it."""
    plain = load_dataset(write_tiny(tmp_path / "plain"))
    folder = write_tiny(tmp_path / "bom")
    for name in ("judgments.tsv", "dataset.yaml", "summaries.jsonl"):
        (folder / name).write_bytes(b"\xef\xbb\xbf" + (folder / name).read_bytes())
    with_bom = load_dataset(folder)
    assert with_bom.judgments == plain.judgments and with_bom.summaries == plain.summaries


@pytest.mark.parametrize("name,code", [("a\rb", "U+000D (CARRIAGE RETURN)"), ("a\u2029b", "U+2029 (PARAGRAPH SEPARATOR)"),
                                       ("a\x85b", "U+0085 (CONTROL CHARACTER)"), ("a\tb", "U+0009 (TAB)"),
                                       # C1 controls: U+009B is a terminal's escape sequence introducer
                                       ("a\x9b31mb", "U+009B (CONTROL CHARACTER)"),
                                       ("a\x80b", "U+0080 (CONTROL CHARACTER)"),
                                       ("a\x9fb", "U+009F (CONTROL CHARACTER)")])
def test_names_that_cannot_round_trip_are_refused(tmp_path, name, code):
    records = tiny_records()
    records[2]["summarizer"] = name
    folder = write_tiny(tmp_path / "d", records=records)
    assert _error(folder) == (f"{folder / 'summaries.jsonl'}, line 3, field 'summarizer': {name!r} contains {code}; "
                              "expected a name without tabs, line breaks or other control characters")


def test_a_pipe_in_a_name_is_legal(tmp_path):
    records = tiny_records()
    for r in records:
        if r["summarizer"] == "1":
            r["summarizer"] = "a|b"
    judgments = TINY_JUDGMENTS.replace("T1\t1\t", "T1\ta|b\t").replace("T2\t1\t", "T2\ta|b\t")
    ds = load_dataset(write_tiny(tmp_path / "d", records=records, judgments=judgments))
    assert ("T1", "a|b") in ds.judgments
