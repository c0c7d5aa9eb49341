"""Hostile and odd input to the readers of text, YAML, JSON and TSV: the one YAML loader
(metaeval.data.safe_yaml), the one number parser (contract.parse_number), the one text check
(contract.check_text), reserved and look-alike names, and errors that name the user's file. Each
error names the file, the line or record, and the field. The workflow-level cases (one folder each
under .test/bad/) are run by tests/test_scenarios.py."""
from __future__ import annotations

import json
import math
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from conftest import REPO, TINY_YAML, tiny_records, write_tiny
from metaeval.data import safe_yaml
from metaeval.data.bartscore import import_bartscore_pkl
from metaeval.data.contract import DatasetError, check_text, fail, parse_number
from metaeval.data.datasets import load_dataset
from metaeval.data.dataset_yaml import parse_dataset_yaml
from metaeval.data.frank import import_frank
from metaeval.data.importers import (DucTacOptions, import_duc_tac, import_summeval_jsonl, read_duc_summary,
                                     read_manual_peer, read_see_table)
from metaeval.options import ConfigError, check_config_files

BOMB = REPO / ".test/bad/dataset_yaml_alias_bomb/input/tiny/dataset.yaml"


def _error(path: str, line, problem: str) -> DatasetError:
    return fail(path, line, None, problem)


def _yaml(text: str):
    return safe_yaml.load(text, "f.yaml", _error)[0]


# --------------------------------------------------------------------------- the alias bomb

BOMB_RUN = """
import resource, sys, time
limit = 200 * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
start = time.perf_counter()
from pathlib import Path
from metaeval.data.{module} import {function}
path = Path(sys.argv[1])
try:
    {call}
except Exception as e:
    print(type(e).__name__, e)
print("seconds", time.perf_counter() - start)
"""


@pytest.mark.parametrize("module,function,call,message", [
    ("dataset_yaml", "parse_dataset_yaml", "parse_dataset_yaml(path, path.read_text())",
     "DatasetError {path}, line 12: an anchor (&a0); anchors and aliases are not allowed"),
    # the config files may have aliases (tools write them), but not more than a million values
    ("safe_yaml", "load", "load(path.read_text(), path, lambda p, l, m: ValueError(f'{p}, line {l}: {m}'), aliases=True)",
     "ValueError {path}, line None: its aliases expand to more than 1,000,000 values"),
])
def test_the_alias_bomb_is_refused_in_under_5_seconds_within_200_mb(module, function, call, message):
    """Nine levels of nested aliases in a few hundred bytes grew the validation job to 22 GB; read
    in a process whose address space is limited to 200 MB, it is refused in well under 5 s."""
    assert len(BOMB.read_bytes()) < 700
    code = textwrap.dedent(BOMB_RUN).format(module=module, function=function, call=call)
    proc = subprocess.run([sys.executable, "-c", code, str(BOMB)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert message.format(path=BOMB) in proc.stdout, proc.stdout
    assert float(proc.stdout.split("seconds")[1]) < 5.0


# --------------------------------------------------------------------------- the YAML loader

@pytest.mark.parametrize("text,problem", [
    ("a: 1\nb: 2\na: 3\n", "f.yaml, line 3: the key 'a' appears twice in this mapping (first on line 1)"),
    ("a: &x 1\nb: *x\n", "f.yaml, line 1: an anchor (&x); anchors and aliases are not allowed"),
    ("a: *x\n", "f.yaml, line 1: an alias (*x); anchors and aliases are not allowed"),
    ("a:\n  <<: {b: 1}\n  c: 2\n", "f.yaml, line 2: a merge key (<<); expected every key written out"),
    ("a: !!python/object/apply:os.system [echo]\n", "f.yaml, line 1: the tag 'tag:yaml.org,2002:python/object/apply:os.system' asks for a Python object"),
    ("a: !!python/name:os.system ''\n", "f.yaml, line 1: the tag 'tag:yaml.org,2002:python/name:os.system' asks for"),
    ('a: "\\ud83d"\n', "f.yaml, line 1: '\\ud83d' contains a lone surrogate U+D83D"),
    ("a: 1e999\n", "f.yaml, line 1: 1e999 is too large for a double; expected a finite number"),
    ("a: !!int 0x1F\n", "f.yaml, line 1: '0x1F' is not an integer"),
    ("[" * 200 + "]" * 200, "f.yaml, line 1: nested more than 64 levels deep"),
    ("[" * 100_000, "f.yaml, line 1: nested more than 64 levels deep"),
    ("a: [1, 2\n", "f.yaml, line 2: malformed YAML"),
])
def test_the_yaml_loader_refuses_with_file_and_line(text, problem):
    with pytest.raises(DatasetError) as e:
        _yaml(text)
    assert str(e.value).startswith(problem), str(e.value)


def test_the_yaml_loader_reads_numbers_by_the_contracts_rules():
    got = _yaml("a: 12\nb: -0.5\nc: 1e-3\nd: 2.5E+2\ne: 1_000\nf: 0x1F\ng: 1:30\nh: .inf\ni: .nan\nj: 012\nk: true\n")
    assert got == {"a": 12, "b": -0.5, "c": 0.001, "d": 250.0, "e": "1_000", "f": "0x1F", "g": "1:30", "h": ".inf",
                   "i": ".nan", "j": 12, "k": True}
    assert type(got["a"]) is int and type(got["c"]) is float


def test_the_dumper_writes_what_the_loader_reads_back():
    data = {"name": "1e5", "under": "1_000", "n": 1e-5, "big": 1e20, "i": 3, "shared": None, "s": "2021-01-01"}
    shared = [1, 2]
    data["shared"] = {"a": shared, "b": shared}            # yaml.safe_dump would write an anchor and an alias
    text = safe_yaml.dump(data)
    assert "&" not in text and "*" not in text
    assert _yaml(text) == data == yaml.safe_load(text)


def test_unknown_dataset_yaml_keys_are_refused_with_the_closest_key():
    def error(text):
        with pytest.raises(DatasetError) as e:
            parse_dataset_yaml(Path("d/dataset.yaml"), text)
        return str(e.value)

    assert "line 12, field 'dimensons': unknown key; did you mean 'dimensions'?" in error(TINY_YAML + "dimensons: {}\n")
    assert "field 'dimensions.relevance.mni': unknown key; did you mean 'min'?" in error(
        TINY_YAML.replace("relevance: {min: 1,", "relevance: {mni: 0, min: 1,"))
    assert "field 'human.coverag': unknown component; did you mean 'coverage'?" in error(
        TINY_YAML.replace("coverage: [relevance]", "coverag: [relevance]"))
    assert "field 'dimensions.relevance.max': missing or not a number (got '1_000')" in error(
        TINY_YAML.replace("relevance: {min: 1, max: 5}", "relevance: {min: 1, max: 1_000}"))
    assert "field 'dimensions.relevance.max': missing or not a number" in error(
        TINY_YAML.replace("relevance: {min: 1, max: 5}", "relevance: {min: 1, max: " + "9" * 400 + "}"))


def test_a_config_file_is_read_by_the_safe_loader(tmp_path):
    bad = tmp_path / "c.yaml"
    bad.write_text("rouge:\n  alpha: 0.5\nrouge:\n  alpha: 0.9\n")
    with pytest.raises(ConfigError, match=rf"config file {bad}, line 3: the key 'rouge' appears twice"):
        check_config_files([bad])
    bad.write_text("a: !!python/object/apply:os.system [echo]\n")
    with pytest.raises(ConfigError, match=rf"config file {bad}, line 1: the tag .* asks for a Python object"):
        check_config_files([bad])
    bad.write_text("defaults: &d {bootstrap_samples: 10}\ncorrelation: *d\n")   # a few aliases are fine
    check_config_files([bad, tmp_path / "absent.yaml"])


# --------------------------------------------------------------------------- numbers

@pytest.mark.parametrize("value,number", [("3", 3.0), ("-0.25", -0.25), ("+.5", 0.5), ("1e-3", 0.001),
                                          ("2.5E+2", 250.0), ("7.", 7.0), (4, 4.0), (0.5, 0.5), (10**300, 1e300)])
def test_numbers_the_contract_allows(value, number):
    assert parse_number("f", 1, "x", value) == number


@pytest.mark.parametrize("value,problem", [
    ("\u0661\u0662", "'١٢' is not a number"), ("\u0660", "'٠' is not a number"), ("1_000", "'1_000' is not a number"),
    ("nan", "'nan' is not a number"), ("inf", "'inf' is not a number"), ("0x1F", "'0x1F' is not a number"),
    (" 1", "' 1' is not a number"), ("", "'' is not a number"), ("1e400", "'1e400' overflows a double"),
    (10**400, "an integer of 401 digits overflows a double"), (math.inf, "inf is not a finite number"),
    (math.nan, "nan is not a finite number"), (True, "True is not a number"), (None, "None is not a number"),
    ([1], "[1] is not a number"),
])
def test_numbers_the_contract_refuses(value, problem):
    with pytest.raises(DatasetError) as e:
        parse_number("f.tsv", 4, "score", value)
    assert str(e.value).startswith(f"f.tsv, line 4, field 'score': {problem}"), str(e.value)


def test_every_tsv_reader_uses_the_contracts_numbers(tmp_path):
    judgments = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t1_000\t4\n"
    with pytest.raises(DatasetError, match=r"judgments.tsv, line 2, field 'relevance': '1_000' is not a number"):
        load_dataset(write_tiny(tmp_path / "j", judgments=judgments))
    judgments = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t1e999\t4\n"
    with pytest.raises(DatasetError, match=r"judgments.tsv, line 2, field 'relevance': '1e999' overflows a double"):
        load_dataset(write_tiny(tmp_path / "k", judgments=judgments))
    folder = write_tiny(tmp_path / "a")
    (folder / "annotations.tsv").write_text("topic\tsummarizer\tdimension\tannotator\tscore\nT1\t1\trelevance\tx\t\u0663\n")
    with pytest.raises(DatasetError, match=r"annotations.tsv, line 2, field 'score': '٣' is not a number"):
        load_dataset(folder)


# --------------------------------------------------------------------------- text

def test_a_lone_surrogate_is_refused_where_it_enters(tmp_path):
    with pytest.raises(DatasetError, match=r"f: record 3, field 'x': 'ab\\ud83d' contains a lone surrogate U\+D83D"):
        check_text("f", "record 3", "x", "ab\ud83d")
    assert check_text("f", 1, "x", "ok \U0001F600") == "ok \U0001F600"    # a whole emoji is fine
    records = tiny_records()
    folder = write_tiny(tmp_path / "d", records=records)
    lines = (folder / "summaries.jsonl").read_text().splitlines()
    lines[3] = lines[3].replace('"summarizer": "2"', '"summarizer": "2\\udfff"')
    (folder / "summaries.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 4, field 'summarizer': '2\\udfff' contains a lone"):
        load_dataset(folder)
    docs = folder / "documents.jsonl"
    (folder / "summaries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    docs.write_text('{"topic": "T1", "documents": ["fine", "cut \\ud83d"]}\n')
    with pytest.raises(DatasetError, match=r"documents.jsonl, line 1, field 'documents\[1\]': 'cut \\ud83d' contains"):
        load_dataset(folder)


def test_json_that_python_cannot_hold_is_an_error_naming_the_line(tmp_path):
    folder = write_tiny(tmp_path / "d")
    (folder / "summaries.jsonl").write_text('{"topic": "T1", "x": ' + "9" * 5000 + "}\n")
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 1: a number with too many digits"):
        load_dataset(folder)
    (folder / "summaries.jsonl").write_text('{"topic": ' + "[" * 100_000 + "\n")
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 1: (nested too deeply|malformed JSON)"):
        load_dataset(folder)


# --------------------------------------------------------------------------- names

def test_canonical_names_differing_only_by_surrounding_space(tmp_path):
    records = tiny_records() + [{"topic": "T2", "summarizer": "1 ", "kind": "system", "sentences": ["x ."]}]
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 8, field 'summarizer': '1 ' differs from '1' "
                                           r"\(.*summaries.jsonl, line 3\) only by surrounding white space"):
        load_dataset(write_tiny(tmp_path / "d", records=records))


DIMS = ("coherence", "consistency", "fluency", "relevance")


def _summeval(tmp_path, *records) -> Path:
    good = {"id": "t1", "model_id": "M1", "decoded": "a b .", "references": ["r .", "s ."],
            "expert_annotations": [{d: 3 for d in DIMS}], "turker_annotations": [{d: 4 for d in DIMS}]}
    f = tmp_path / "se.jsonl"
    f.write_text("".join(json.dumps(dict(good, **r)) + "\n" for r in records))
    return f


@pytest.mark.parametrize("record,problem", [
    ({"model_id": "ref1"}, "line 2, field 'model_id': 'ref1' is a name the importer gives a reference summary"),
    ({"model_id": "ref12"}, "line 2, field 'model_id': 'ref12' is a name the importer gives a reference summary"),
    ({"model_id": "M1", "id": " t1"}, "line 2, field 'id': ' t1' differs from 't1'"),
    ({"model_id": "M\t2"}, "line 2, field 'model_id': 'M\\t2' contains U+0009"),
    ({"model_id": "M2", "expert_annotations": [{d: "3" for d in DIMS}]},
     "line 2, field 'expert_annotations[0].coherence': '3' is not a number; expected a JSON number from 1 to 5"),
    ({"model_id": "M2", "turker_annotations": [{d: 10**400 for d in DIMS}]},
     "line 2, field 'turker_annotations[0].coherence': an integer of 401 digits overflows a double"),
    ({"model_id": "M2", "references": ["r .", "s \ud83d"]}, "line 2, field 'references[1]': 's \\ud83d' contains a lone"),
])
def test_summeval_records_the_importer_refuses(tmp_path, record, problem):
    f = _summeval(tmp_path, {}, record)
    with pytest.raises(DatasetError) as e:
        import_summeval_jsonl([f])
    assert str(e.value).startswith(f"{f}, {problem}"), str(e.value)


def _frank(tmp_path, human=None, base=None, base_text=None) -> Path:
    def rec(i, **kw):
        return {"hash": f"h{i}", "model_name": "bart" if i % 2 else "pgn", "dataset": "cnndm", "split": "test", **kw}
    folder = tmp_path / "frank"
    folder.mkdir(parents=True)
    human = human or [rec(i, Factuality=0.5) for i in range(3)]
    base = base or [rec(i, Bleu=0.1, **{"Rouge 1": 0.2}) for i in range(3)]
    (folder / "human_annotations.json").write_text(json.dumps(human))
    (folder / "baseline_factuality_metrics_outputs.json").write_text(base_text or json.dumps(base))
    return folder


@pytest.mark.parametrize("change,problem", [
    ({"Bleu": "\u0660"}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart), field 'Bleu': '٠' is not a number"),
    ({"Bleu": "1_000"}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart), field 'Bleu': '1_000' is not a number"),
    ({"Bleu": float("nan")}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart), field 'Bleu': nan is not a finite"),
    ({"Rouge_1": 0.3}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart), field 'Rouge_1': becomes the metric id"),
    ({"R2_ST1_RS0_R": 0.3}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart), field 'R2_ST1_RS0_R': the metric "
                            "id 'R2_ST1_RS0_R': collides with a metric the workflow computes"),
    ({"model_name": "bart "}, "baseline_factuality_metrics_outputs.json: record 1 (h1, bart ), field 'model_name': 'bart ' "
                              "differs from 'bart'"),
    ({"model_name": "ba\trt"}, "baseline_factuality_metrics_outputs.json: record 1 (h1, ba\trt), field 'model_name': "
                               "'ba\\trt' contains U+0009"),
])
def test_frank_records_the_importer_refuses(tmp_path, change, problem):
    def rec(i, **kw):
        return {"hash": f"h{i}", "model_name": "bart" if i % 2 else "pgn", "dataset": "cnndm", "split": "test", **kw}
    base = [rec(i, Bleu=0.1, **{"Rouge 1": 0.2}) for i in range(3)]
    base[1].update(change)
    with pytest.raises(DatasetError) as e:
        import_frank(_frank(tmp_path, base=base))
    assert str(e.value).startswith(f"{tmp_path / 'frank' / problem.split(':')[0]}:{problem.split(':', 1)[1]}"), str(e.value)


def test_frank_json_python_cannot_hold(tmp_path):
    text = json.dumps([{"hash": "h0", "model_name": "pgn", "dataset": "cnndm", "split": "test", "Bleu": 0}])
    with pytest.raises(DatasetError, match=r"baseline_factuality_metrics_outputs.json: a number with too many digits"):
        import_frank(_frank(tmp_path / "a", base_text=text.replace('"Bleu": 0', '"Bleu": ' + "1" * 5000)))
    dup = text.replace('"Bleu": 0', '"Bleu": 0, "Bleu": 1')
    with pytest.raises(DatasetError, match=r"record 0 \(h0, pgn\), field 'Bleu': the key appears twice in this record"):
        import_frank(_frank(tmp_path / "b", base_text=dup))
    surrogate = text.replace('"pgn"', '"pgn\\ud800"')
    with pytest.raises(DatasetError, match=r"record 0 \(h0, pgn\\ud800\), field 'model_name': 'pgn\\ud800' contains a lone"):
        import_frank(_frank(tmp_path / "c", base_text=surrogate))


def test_a_bad_system_name_in_a_pickle_names_the_pickle(tmp_path):
    """A tab in a system name used to be reported at the generated copy (results/.../summaries.jsonl)."""
    rec = {"src": "a .", "ref_summ": "a .", "sys_summs": {"M\t1": {"sys_summ": "a .", "scores": {"litepyramid_recall": 0.5}}}}
    path = tmp_path / "REALSumm" / "data.pkl"
    path.parent.mkdir()
    path.write_bytes(pickle.dumps({"d1": rec}))
    with pytest.raises(DatasetError, match=r"data.pkl: record 'd1', system 'M\\t1', field 'sys_summs': 'M\\t1' contains U\+0009"):
        import_bartscore_pkl(path, "r")
    rec["sys_summs"] = {"ref0": rec["sys_summs"]["M\t1"]}
    path.write_bytes(pickle.dumps({"d1": rec}))
    with pytest.raises(DatasetError, match=r"data.pkl: record 'd1', system 'ref0', field 'sys_summs': 'ref0' is the name "
                                           r"the importer gives a reference summary"):
        import_bartscore_pkl(path, "r")


def test_duc_tac_numbers_by_the_contracts_rules(tmp_path):
    mp = tmp_path / "manual.peer"
    mp.write_text("D30001 12 0.50 5 0 0.45 3 NA\nD30001 7 0.20 2 1 0.18 2 \u0662\n")
    with pytest.raises(DatasetError, match=r"manual.peer, line 2, field 'column 7 \(responsiveness\)': '٢' is not a number"):
        read_manual_peer(mp)
    mp.write_text("D30001 12 0.50 5 0 0.45 3 NA\n")
    assert math.isnan(read_manual_peer(mp)[("D30001", "12")]["responsiveness"])       # NA: a missing value
    root = tmp_path / "duc"
    root.mkdir()
    (root / "D3\t0001.M.100.T.12").write_text("x .\n")
    with pytest.raises(DatasetError, match=r"D3\t0001.M.100.T.12, field 'file name \(topic\)': 'D3\\t0001' contains U\+0009"):
        import_duc_tac(DucTacOptions(str(root), manual_peer=str(mp)), "tac")


def test_a_byte_order_mark_is_dropped_by_every_text_reader(tmp_path):
    """Excel and Notepad start a UTF-8 file with a byte-order mark: the NIST tables, a DUC summary
    file and a config file read as the same file without it (the mark is not part of the first
    topic, sentence or key)."""
    bom = "\ufeff"
    mp = tmp_path / "manual.peer"
    mp.write_text(bom + "D30001 12 0.50 5 0 0.45 3 4\n", encoding="utf-8")
    assert list(read_manual_peer(mp)) == [("D30001", "12")]
    see = tmp_path / "see.table"
    see.write_text(bom + "D30001 x x x x x x 12 A B C D E A B x 10 5 x 8 0.5\n", encoding="utf-8")
    assert list(read_see_table(see)) == [("D30001", "12")]
    summary = tmp_path / "D30001.M.100.T.12"
    summary.write_text(bom + "The cat sat .\nIt purred .\n", encoding="utf-8")
    assert read_duc_summary(summary) == ("The cat sat .", "It purred .")
    config = tmp_path / "config.yaml"
    config.write_text(bom + "datasets: {tiny: {format: canonical, path: input/tiny}}\n", encoding="utf-8")
    assert check_config_files([config]) == {str(config): {"datasets": {"tiny": {"format": "canonical",
                                                                                  "path": "input/tiny"}}}}


# =========================================================================== found by the fuzz suite
# (tests/test_fuzz.py): each class of problem, pinned

# --------------------------------------------------------------------------- YAML: characters it does not allow

@pytest.mark.parametrize("char,name", [("\x00", "a control character"), ("\x07", "a control character"),
                                       ("\ufffe", "a noncharacter"), ("\x1b", "a control character")])
def test_a_character_yaml_does_not_allow_is_an_error_naming_the_file_and_line(tmp_path, char, name):
    """PyYAML refuses NUL, other control characters and U+FFFE/U+FFFF before reading anything, with
    a ReaderError (a traceback from the validation job, and from the Snakefile for a config file);
    now the project's error names the file, the line and the column."""
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML.replace("a tiny test", f"a tiny{char} test"))
    with pytest.raises(DatasetError) as e:
        load_dataset(folder)
    assert str(e.value).startswith(f"{folder / 'dataset.yaml'}, line 2: the character U+{ord(char):04X} ({name}) at "
                                   "column 20, which YAML does not allow; expected printable text"), str(e.value)
    config = tmp_path / "config.yaml"
    config.write_text(f"datasets:\n  tiny: {{format: canonical, path: in{char}put/tiny}}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        check_config_files([config])
    assert str(e.value).startswith(f"config file {config}, line 2: the character U+{ord(char):04X} ({name}) at column "
                                   "37, which YAML does not allow"), str(e.value)


def test_an_escaped_control_character_in_yaml_is_text(tmp_path):
    """The same character written as an escape is legal YAML text (a description may hold it)."""
    folder = write_tiny(tmp_path / "d", yaml_text=TINY_YAML.replace("description: a tiny test data set",
                                                                     'description: "a tiny \\x00 test data set"'))
    assert load_dataset(folder).meta["description"] == "a tiny \x00 test data set"


def test_a_first_table_row_with_a_cell_too_few_is_an_error_not_a_header(tmp_path):
    """A DUC/TAC table's lines before its first row are skipped as headers; a first row that had
    lost a cell was skipped too, and its summary lost its judgments without a word (the fuzz suite
    found a TAC pyramid score read as missing). A line with a number where a row has one is a row."""
    mp = tmp_path / "manual.peer"
    mp.write_text("topic peer pyramid scus reps modified lq resp\nD30001 12 0.50 5 0.45 3 4\nD30001 7 0.20 2 1 0.18 2 2\n")
    with pytest.raises(DatasetError, match=r"manual.peer, line 2: 7 columns; expected at least 8 \(manual.peer row\)"):
        read_manual_peer(mp)
    mp.write_text("topic peer pyramid scus reps modified lq resp\nD30001 12 0.50 5 0 0.45 3 4\n")
    assert read_manual_peer(mp)[("D30001", "12")]["pyramid"] == 0.5                    # the header is still skipped
    see = tmp_path / "see.table"
    row = "D30001 x x x x x x 12 A B C D E A B x 10 5 x 8 0.5"
    see.write_text("Docset Q_Type Peer_Type ... (a header)\n" + row.replace(" 10 ", " ") + "\n" + row + "\n")
    with pytest.raises(DatasetError, match=r"see.table, line 2: 20 columns; expected a SEE table row with at least 21"):
        read_see_table(see)
    see.write_text("Docset Q_Type Peer_Type ... (a header)\n" + row + "\n")
    assert read_see_table(see)[("D30001", "12")]["mean_coverage"] == 0.5


@pytest.mark.parametrize("text,problem", [
    ("a: 1\nb: !!timestamp x\n", "f.yaml, line 2: 'x' cannot be read as a timestamp; expected a value of that type"),
    ("a: !!bool maybe\n", "f.yaml, line 1: 'maybe' cannot be read as a bool; expected"),
    ("a: 1\nb: 2001-13-45\n", "f.yaml, line 2: '2001-13-45' cannot be read as a timestamp (month must be in 1..12)"),
    ("a: [1, {b: !!timestamp 2001-01-01 99:99:99}]\n", "f.yaml, line 1: '2001-01-01 99:99:99' cannot be read as a "
                                                        "timestamp (hour must be in 0..23)"),
])
def test_a_value_its_tag_cannot_be_is_refused_with_the_line(text, problem):
    """PyYAML's safe constructor raises AttributeError, KeyError or ValueError (not a YAMLError) for
    a value its tag, explicit or implicit, cannot be: a traceback from the validation job, or from
    the Snakefile for a config file (found by the fuzz suite: ``!!timestamp datasets:``)."""
    with pytest.raises(DatasetError) as e:
        _yaml(text)
    assert str(e.value).startswith(problem), str(e.value)
    assert _yaml("a: 2001-01-01\n") == {"a": __import__("datetime").date(2001, 1, 1)}     # a real date still is one


def test_importers_refuse_what_the_canonical_copy_would_naming_the_release(tmp_path):
    """An importer accepted summaries the canonical form refuses (an empty name, "M1" beside "M1 ",
    a sentence of more than 5,000 words); the validation of the copy it wrote then failed naming
    that copy, not the user's file (the fuzz suite found an empty SummEval model_id). Each is now
    refused where the summary is made, naming the release file, the record and the field."""
    long = " ".join(["w"] * 5001)
    f = _summeval(_mkdir(tmp_path / "a"), {}, {"model_id": ""})
    with pytest.raises(DatasetError, match=rf"^{f}, line 2, field 'model_id': empty; expected a non-empty name"):
        import_summeval_jsonl([f])
    f = _summeval(_mkdir(tmp_path / "b"), {}, {"model_id": "M2", "decoded": long})
    with pytest.raises(DatasetError, match=rf"^{f}, line 2, field 'decoded': 5001 words; expected at most 5000"):
        import_summeval_jsonl([f])
    f = _summeval(_mkdir(tmp_path / "c"), {"references": ["r .", long]})
    with pytest.raises(DatasetError, match=rf"^{f}, line 1, field 'references\[1\]': 5001 words"):
        import_summeval_jsonl([f])

    def pickled(systems):
        path = tmp_path / "REALSumm" / "data.pkl"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(pickle.dumps({"d1": {"src": "a .", "ref_summ": "a .", "sys_summs": {
            name: {"sys_summ": text, "scores": {"litepyramid_recall": 0.5}} for name, text in systems.items()}}}))
        return path

    path = pickled({"": "a ."})
    with pytest.raises(DatasetError, match=rf"^{path}: record 'd1', system '', field 'sys_summs': empty"):
        import_bartscore_pkl(path, "r")
    path = pickled({"M1": "a .", "M1 ": "b ."})
    with pytest.raises(DatasetError, match=rf"^{path}: record 'd1', system 'M1 ', field 'sys_summs': 'M1 ' differs from "
                                           "'M1'"):
        import_bartscore_pkl(path, "r")
    path = pickled({"M1": long})
    with pytest.raises(DatasetError, match=rf"^{path}: record 'd1', system 'M1', field 'sys_summ': 5001 words"):
        import_bartscore_pkl(path, "r")
    root = tmp_path / "duc"
    root.mkdir()
    (root / "D30001.M.100.T.12").write_text(long + "\n")
    mp = tmp_path / "manual.peer"
    mp.write_text("D30001 12 0.50 5 0 0.45 3 4\n")
    with pytest.raises(DatasetError, match=rf"^{root / 'D30001.M.100.T.12'}, field 'sentence 0': 5001 words"):
        import_duc_tac(DucTacOptions(str(root), manual_peer=str(mp)), "tac")


def _mkdir(folder: Path) -> Path:
    folder.mkdir(parents=True)
    return folder


def test_a_config_path_the_file_system_cannot_look_up_is_the_keys_error(tmp_path, monkeypatch):
    """A path longer than a file name may be (or in a folder that cannot be read) made
    Path.exists raise OSError from the config check: a traceback from the Snakefile. It is the
    config key's error (found while fuzzing the config)."""
    from metaeval.options import Options

    monkeypatch.chdir(tmp_path)
    long = "x" * 300
    with pytest.raises(ConfigError, match=rf"^config key datasets.d.path: '{'x' * 100}'... \(300 characters\) cannot be "
                                          r"looked up \(File name too long\); expected a path the file system can read"):
        Options.from_config({"datasets": {"d": {"format": "canonical", "path": long}}})
    with pytest.raises(ConfigError, match=r"^config key sera.corpus: .* cannot be looked up \(File name too long\)"):
        Options.from_config({"datasets": {"d": {"format": "simulated"}}, "sera": {"corpus": long}})
