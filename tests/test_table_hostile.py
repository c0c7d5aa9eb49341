"""``format: table`` against hostile and clumsy input: paths with ``**`` and classes, TSV without
quoting, physical lines, JSON lists (a key twice, lone surrogates, numbers as names), file names
Snakemake cannot take, dimension and metric names, targets checked with the config, and the minor
points (an infinite range, an aggregation group naming no annotator, a metric equal to a
dimension, a MemoryError's message). Every error names the user's file and the row, line or field
and the config key, never the imported copy under results/."""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from conftest import write_tiny
from metaeval import logs
from metaeval.data.contract import DatasetError
from metaeval.data.datasets import load_dataset
from metaeval.data.formats import FORMATS
from metaeval.data.table import import_table
from metaeval.options import ConfigError, Options


def entry_of(entry: dict, name: str = "bench", **sections) -> dict:
    return Options.from_config({"datasets": {name: entry}, **sections}).dataset(name)


def imported(entry: dict, name: str = "bench"):
    return import_table(FORMATS["table"].options(entry_of(entry, name)), name)


def table(path: Path, **changes) -> dict:
    entry = {"format": "table", "path": str(path), "columns": {"topic": "t", "summarizer": "s", "text": "x"},
             "references": {"column": "ref"}, "dimensions": {"q": {"min": 1, "max": 5}}, "human": {"coverage": ["q"]}}
    entry.update(changes)
    return entry


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


CSV = "t,s,x,ref,q\nd1,s1,A cat.,B.,3\nd1,s2,C dog.,B.,4\n"


# ----------------------------------------------------------------------------- paths

def test_a_double_star_matches_files_at_every_depth_and_a_class_matches_its_characters(tmp_path):
    for rel in ("a.csv", "deep/b.csv", "deep/er/c.csv", "d.csv"):
        write(tmp_path / "release" / rel, "t,x,ref,q\nd1,A cat.,B.,3\n")
    ds, _ = imported(table(tmp_path / "release/**/{system}.csv", columns={"topic": "t", "text": "x"}))
    assert sorted(s.summarizer for s in ds.summaries if s.kind == "system") == ["a", "b", "c", "d"]
    ds, _ = imported(table(tmp_path / "release/[ab].csv", columns={"topic": "t", "text": "x", "summarizer": "t"},
                           references={"column": "ref"}))
    # a class is not a false "matches no file": release/a.csv alone (b.csv is deeper)
    assert [s.summarizer for s in ds.summaries if s.kind == "system"] == ["d1"]
    ds, _ = imported(table(tmp_path / "release/[!a].csv", columns={"topic": "t", "text": "x", "summarizer": "t"}))
    assert len([s for s in ds.summaries if s.kind == "system"]) == 1     # d.csv


def test_a_file_name_snakemake_cannot_take_is_refused_with_the_config_key(tmp_path):
    write(tmp_path / "out/s1.csv", "t,x,ref,q\nd1,A cat.,B.,3\n")
    bad = os.fsencode(tmp_path / "out") + b"/s\xff.csv"
    with open(bad, "wb") as f:
        f.write(b"t,x,ref,q\nd1,A cat.,B.,3\n")
    entry = table(tmp_path / "out/{system}.csv", columns={"topic": "t", "text": "x"})
    with pytest.raises(ConfigError) as e:
        entry_of(entry)
    for part in ("config key datasets.bench.path", "s\\xff.csv", "is not UTF-8 (byte 0xff)", "rename the file"):
        assert part in str(e.value), part
    os.remove(bad)
    write(tmp_path / "out/s<x>.csv", "t,x,ref,q\nd1,A cat.,B.,3\n")
    with pytest.raises(ConfigError) as e:
        entry_of(entry)
    for part in ("config key datasets.bench.path", "s<x>.csv", "'<x>'", "path variable"):
        assert part in str(e.value), part


# ----------------------------------------------------------------------------- CSV and TSV

def test_tsv_has_no_quoting_a_summary_starting_with_a_quote_keeps_it(tmp_path):
    release = write(tmp_path / "r.tsv", 't\ts\tx\tref\tq\n'
                    'd1\ts1\t"Quoted," he said. Then "more.\t"B" ref.\t3\n'
                    'd1\ts2\tPlain text.\t"B" ref.\t4\n')
    ds, _ = imported(table(release, references={"column": "ref"}, sentence_splitter={"text": "none", "references": "none"}))
    assert ds.summary("d1", "s1").sentences == ('"Quoted," he said. Then "more.',)
    assert ds.summary("d1", "ref0").sentences == ('"B" ref.',)
    # a CSV keeps its quoting: a quoted cell holds the comma, its doubled quote is one
    release = write(tmp_path / "r.csv", 't,s,x,ref,q\nd1,s1,"A, ""b"" c.",B.,3\n')
    ds, _ = imported(table(release, sentence_splitter={"text": "none"}))
    assert ds.summary("d1", "s1").sentences == ('A, "b" c.',)


def test_a_row_after_blank_lines_is_named_by_its_row_and_its_physical_line(tmp_path):
    release = write(tmp_path / "r.csv", "t,s,x,ref,q\nd1,s1,A.,B.,3\n\n\nd1,s2,C.,B.,4\nd1,s3,E.,B.,nan\n")
    with pytest.raises(DatasetError) as e:
        imported(table(release))
    assert f"{release}: row 4 (line 6), field 'q': 'nan' is not a number" in str(e.value)
    # a quoted cell over two lines: the next row starts two lines on
    release = write(tmp_path / "m.csv", 't,s,x,ref,q\nd1,s1,"A.\nB.",B.,3\nd1,s2,C.,B.,x\n')
    with pytest.raises(DatasetError, match=r"m.csv: row 3 \(line 4\), field 'q': 'x' is not a number"):
        imported(table(release))
    tsv = write(tmp_path / "r.tsv", "t\ts\tx\tref\tq\n\nd1\ts1\tA.\tB.\t3\td\n")
    with pytest.raises(DatasetError, match=r"r.tsv: row 2 \(line 3\): 6 cells; expected 5"):
        imported(table(tsv))


def test_a_csv_quote_left_open_is_an_error_naming_the_line(tmp_path):
    release = write(tmp_path / "r.csv", 't,s,x,ref,q\nd1,s1,A.,B.,3\nd1,s2,"C. oops,B.,4\n')
    with pytest.raises(DatasetError, match=r"r.csv, line 3: not a CSV table \(unexpected end of data\)"):
        imported(table(release))


def test_the_header_check_is_linear_in_the_columns(tmp_path):
    """100,000 columns: the quadratic check (list.index per column) took 37 s here; a mapping, well under 5."""
    import time

    n = 100_000
    header = ["t", "s", "x", "ref", "q"] + [f"m{i}" for i in range(n)]
    row = ["d1", "s1", "A.", "B.", "3"] + ["0.5"] * n
    release = write(tmp_path / "wide.csv", ",".join(header) + "\n" + ",".join(row) + "\n")
    start = time.perf_counter()
    ds, _ = imported(table(release))
    assert time.perf_counter() - start < 5
    assert ds.judgments[("d1", "s1")]["q"] == 3.0
    twice = write(tmp_path / "twice.csv", ",".join(header + ["m7"]) + "\n" + ",".join(row + ["1"]) + "\n")
    with pytest.raises(DatasetError, match=r"twice.csv: row 1, field 'm7': the column appears twice \(columns 13 and 100006\)"):
        imported(table(twice))


# ----------------------------------------------------------------------------- JSON

def test_a_key_twice_in_a_json_list_names_the_record_and_is_not_a_number_error(tmp_path):
    release = write(tmp_path / "r.json", '[{"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3},\n'
                                         ' {"t": "d1", "s": "s2", "x": "C.", "ref": "B.", "q": 3, "q": 4}]')
    with pytest.raises(DatasetError) as e:
        imported(table(release))
    assert str(e.value) == (f"{release}: record 2, field 'q': the key appears twice in this object; expected each "
                            "key once")
    nested = write(tmp_path / "n.json", '[{"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3, '
                                        '"m": {"a": 1, "a": 2}}]')
    with pytest.raises(DatasetError, match=r"n.json: record 1, field 'm.a': the key appears twice"):
        imported(table(nested))
    lines = write(tmp_path / "r.jsonl", '{"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3, "q": 4}\n')
    with pytest.raises(DatasetError) as e:
        imported(table(lines))
    assert "too many digits" not in str(e.value)
    assert str(e.value).startswith(f"{lines}, line 1, field 'q': the key appears twice")


def test_a_lone_surrogate_in_a_json_list_names_the_record_and_field(tmp_path):
    release = write(tmp_path / "r.json", '[{"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3},\n'
                                         ' {"t": "d1", "s": "s2", "x": "C \\ud83d.", "ref": "B.", "q": 4}]')
    with pytest.raises(DatasetError) as e:
        imported(table(release))
    assert str(e.value).startswith(f"{release}: record 2, field 'x': 'C \\ud83d.' contains a lone surrogate U+D83D")


@pytest.mark.parametrize("name", ["1.0", "NaN", "Infinity", "1e999", "-0.0", "2.5"])
def test_a_json_number_with_a_fraction_or_exponent_is_not_a_name(tmp_path, name):
    release = write(tmp_path / "r.jsonl", f'{{"t": {name}, "s": "s1", "x": "A.", "ref": "B.", "q": 3}}\n')
    with pytest.raises(DatasetError) as e:
        imported(table(release))
    assert "is a JSON number with a fraction or an exponent" in str(e.value)
    assert str(e.value).startswith(f"{release}, line 1, field 't': ")
    assert "config key datasets.bench.columns.topic" in str(e.value)


def test_json_whole_numbers_are_names_and_one_spelling_is_one_topic(tmp_path):
    release = write(tmp_path / "r.jsonl", '{"t": 1, "s": "s1", "x": "A.", "ref": "B.", "q": 3}\n'
                                          '{"t": 1, "s": "s2", "x": "C.", "ref": "B.", "q": 4}\n')
    ds, _ = imported(table(release))
    assert sorted({s.topic for s in ds.summaries}) == ["1"]


# ----------------------------------------------------------------------------- names, checked with the config

def test_a_metric_column_named_like_a_builtin_variant_is_refused_with_its_config_key(tmp_path):
    release = write(tmp_path / "r.csv", "t,s,x,ref,q,R1_ST1_RS0_A_R\nd1,s1,A.,B.,3,0.5\n")
    with pytest.raises(ConfigError) as e:
        entry_of(table(release, metric_columns=["R1_ST1_RS0_A_R"]))
    assert str(e.value) == ("config key datasets.bench.metric_columns[0]: 'R1_ST1_RS0_A_R': collides with a metric "
                            "the workflow computes (ROUGE, BLEU, chrF or SERA ids); rename it")
    with pytest.raises(ConfigError, match=r"config key datasets.bench.metric_files\[0\].metrics\[1\]: 'BLEU_ST1_RS0'"):
        entry_of(table(release, metric_files=[{"path": str(release), "metrics": ["ok", "BLEU_ST1_RS0"]}]))


@pytest.mark.parametrize("name, problem", [("over\tall", "contains U+0009 (TAB)"), ("over\nall", "contains U+000A"),
                                           ("", "an empty dimension name"), ("  ", "an empty dimension name")])
def test_a_dimension_name_that_cannot_head_a_column_is_refused_with_its_config_key(tmp_path, name, problem):
    release = write(tmp_path / "r.csv", CSV)
    with pytest.raises(ConfigError) as e:
        entry_of(table(release, dimensions={name: {"min": 1, "max": 5}, "q": {"min": 1, "max": 5}}))
    assert str(e.value).startswith(f"config key datasets.bench, field 'dimensions.{name}': ")
    assert problem in str(e.value)


def test_an_empty_dimension_name_in_dataset_yaml_is_refused_naming_the_file(tmp_path):
    text = (Path(__file__).parent.parent / ".test/input/tiny/dataset.yaml").read_text()
    folder = write_tiny(tmp_path / "d", yaml_text=text.replace("fluency: {min: 1, max: 5}", '"": {min: 1, max: 5}')
                        .replace("linguistic_quality: [fluency]", 'linguistic_quality: [""]'))
    with pytest.raises(DatasetError) as e:
        load_dataset(folder)
    assert str(e.value).startswith(f"{folder / 'dataset.yaml'}, line 8, field 'dimensions.': '': an empty dimension name")


def test_a_range_of_infinite_width_is_refused(tmp_path):
    release = write(tmp_path / "r.csv", CSV)
    with pytest.raises(ConfigError) as e:
        entry_of(table(release, dimensions={"q": {"min": -1e308, "max": 1e308}}))
    assert str(e.value) == ("config key datasets.bench, field 'dimensions.q': max - min (1e+308 - -1e+308) overflows a "
                            "double; expected a range of finite width")


TARGET_CASES = {
    "malformed composite": ({"composites": {"overall": "mean(q"}},
                            "config key datasets.bench.targets.composites.overall: 'mean(q'; expected one of"),
    "composite of an unknown dimension": ({"composites": {"overall": "mean(q, z)"}},
                                          "config key datasets.bench.targets.composites.overall: 'z' is not a dimension"),
    "unknown primary": ({"primary": "nope"}, "config key datasets.bench.targets.primary: 'nope' is not a target"),
    "unknown target dimension": ({"dimensions": ["z"]}, "config key datasets.bench.targets.dimensions: 'z' is not a "
                                                        "dimension"),
    "composite named like a dimension": ({"composites": {"q": "mean(q)"}},
                                         "config key datasets.bench.targets.composites.q: the name is already a target"),
}


@pytest.mark.parametrize("case", sorted(TARGET_CASES))
def test_the_targets_of_a_table_entry_are_checked_with_the_config(tmp_path, case):
    targets, message = TARGET_CASES[case]
    release = write(tmp_path / "r.csv", CSV)
    with pytest.raises(ConfigError) as e:
        entry_of(table(release, targets=targets))
    assert str(e.value).startswith(message), str(e.value)


def test_a_dimension_named_as_a_combination_names_its_config_key(tmp_path):
    release = write(tmp_path / "r.csv", "t,s,x,ref,q,arithmetic\nd1,s1,A.,B.,3,2\n")
    with pytest.raises(ConfigError) as e:
        entry_of(table(release, dimensions={"q": {"min": 1, "max": 5}, "arithmetic": {"min": 1, "max": 5}},
                       human={"coverage": ["q"], "linguistic_quality": ["arithmetic"]}))
    assert str(e.value).startswith("config key datasets.bench.dimensions.arithmetic: Graham's combination of that name "
                                   "is also a target")


# ----------------------------------------------------------------------------- the release's own checks

def test_a_preference_judged_four_times_in_a_topic_names_the_release_row_and_config_key(tmp_path):
    release = write(tmp_path / "r.csv", "t,s,x,ref,q,p\n" + "".join(f"d1,s{i},A{i}.,B.,3,{i % 2}\n" for i in range(4)))
    with pytest.raises(DatasetError) as e:
        imported(table(release, dimensions={"q": {"min": 1, "max": 5}, "p": {"kind": "preference"}}))
    assert str(e.value) == (f"{release}: row 5, field 'p': topic 'd1' has 4 judged summaries with labels "
                            "['0', '0', '1', '1']; a preference judges a pair: exactly two summaries of the topic, the "
                            "preferred one 1 and the other 0 (config key datasets.bench.dimensions declares it a "
                            "preference)")


def test_an_aggregation_group_naming_no_annotators_is_blamed_on_the_aggregation(tmp_path):
    release = write(tmp_path / "r.csv", "t,s,x,ref,dim,score,who,grp\nd1,s1,A.,B.,q,3,a1,expert\n"
                                        "d1,s1,A.,B.,q,4,a2,expert\n")
    entry = table(release, judgments={"layout": "long", "dimension": "dim", "score": "score", "annotator": "who",
                                      "group": "grp"}, aggregation={"group": "crowd"})
    with pytest.raises(DatasetError) as e:
        imported(entry)
    assert str(e.value) == ("config key datasets.bench.aggregation.group: 'crowd' names no annotator group of the "
                            "release (its groups: 'expert'); expected one of its groups")


def test_a_metric_equal_to_a_dimension_is_imported_with_a_warning(tmp_path):
    release = write(tmp_path / "r.csv", CSV)
    ds, scores = imported(table(release, metric_columns=["q"]))
    assert scores == [("d1", "s1", "q", 3.0), ("d1", "s2", "q", 4.0)]
    assert ds.warnings == ["config key datasets.bench: the metric 'q' equals the dimension 'q' on all 2 summaries "
                           "judged on it (the same column, or a copy of it); its correlation with 'q' is 1 by "
                           "construction"]
    other = write(tmp_path / "o.csv", "t,s,x,ref,q,m\nd1,s1,A cat.,B.,3,3\nd1,s2,C dog.,B.,4,3\n")
    assert imported(table(other, metric_columns=["m"]))[0].warnings == []


def test_a_memory_error_without_a_message_is_logged_as_out_of_memory(tmp_path):
    log = tmp_path / "job.log"
    with pytest.raises(MemoryError):
        with logs.job_log(log, "agreement"):
            raise MemoryError()
    text = log.read_text()
    assert "ERROR agreement failed: out of memory (MemoryError): the job needed more memory than its process may use" in text
    logging.getLogger("metaeval").handlers.clear()
