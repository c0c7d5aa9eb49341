"""The foundations every stage stands on: variant ids, the table layer, the options and their
defaults, the output contract, and code versions from a script's import closure."""
from __future__ import annotations

import ast
import copy
import math
import shutil
import subprocess
import sys
from typing import Any, NamedTuple

import numpy as np
import pytest
import yaml

from conftest import REPO
from metaeval import outputs, registry, tables
from metaeval import records
from metaeval.options import ConfigError, Options, load_schema, schema_defaults, validated
from metaeval.provenance import code_version, import_closure, package_dir
from metaeval.variants import Variant, is_measure, rouge_variants

# --------------------------------------------------------------------------- variant ids


@pytest.mark.parametrize("text,parts,metric", [
    ("R2_ST1_RS0_A_P", ("rouge", "R2", 1, 0, "A", "P"), "R2_ST1_RS0_P"),
    ("RSU4_ST0_RS1_M_F", ("rouge", "RSU4", 0, 1, "M", "F"), "RSU4_ST0_RS1_F"),
    ("RS*_ST1_RS1_A_R", ("rouge", "RS*", 1, 1, "A", "R"), "RS*_ST1_RS1_R"),
    ("BLEU_ST1_RS0", ("bleu", "BLEU", 1, 0, None, None), "BLEU_ST1_RS0"),
    ("SERADIS10_KW_M", ("metric", "SERADIS10_KW", None, None, "M", None), "SERADIS10_KW"),
])
def test_variant_ids_round_trip(text, parts, metric):
    v = Variant.parse(text)
    assert (v.family, v.measure, v.stem, v.stop, v.statistic, v.prf) == parts
    assert str(v) == text and v.summary_metric == metric


@pytest.mark.parametrize("text", ["R2_ST1_RS0_A", "R10_ST1_RS0_A_P", "R2_ST2_RS0_A_P", "BLEU_ST1", "BLEU_ST1_RS0_A",
                                  "NOPE", "R2_ST1_RS0_X_P", "SERA5_PL"])
def test_bad_variant_ids_say_what_was_expected(text):
    with pytest.raises(ValueError, match="is not a variant id; expected e.g. R2_ST1_RS0_A_R"):
        Variant.parse(text)


def test_graham_has_192_rouge_variants():
    settings = [(s, r) for s in (0, 1) for r in (0, 1)]
    variants = rouge_variants(["R1", "R2", "R3", "R4", "RL", "RW", "RS4", "RSU4"], settings)
    assert len({str(v) for v in variants}) == 192
    assert all(is_measure(m) for m in ("R1", "R9", "RL", "RW", "RS4", "RSU12", "RS*", "RSU*"))
    assert not any(is_measure(m) for m in ("R0", "R10", "RSU", "RX", "r1"))


# --------------------------------------------------------------------------- tables

def test_cells_are_written_in_one_format():
    frame = tables.frame([("a", 1, 0.1, None, math.nan, np.float64(1e-5), np.int64(7), "NA")],
                         ["s", "i", "f", "none", "nan", "small", "np_int", "text"])
    assert tables.tsv_text(frame) == "s\ti\tf\tnone\tnan\tsmall\tnp_int\ttext\na\t1\t0.1\tNA\tNA\t1e-05\t7\tNA\n"
    blank = tables.tsv_text(tables.frame([("x", None, math.nan, 2.5)], ["a", "P", "R", "F"]), blank=("P", "R", "F"))
    assert blank == "a\tP\tR\tF\nx\t\t\t2.5\n"                  # BLEU rows: P and R do not apply
    dup = tables.frame([("x", "1", "2")], ["summarizer", "V score", "V score"])
    assert tables.tsv_text(dup) == "summarizer\tV score\tV score\nx\t1\t2\n"


def test_tables_round_trip_floats_bit_for_bit_and_keep_ids_as_text(tmp_path):
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.random(500), rng.normal(size=500) * 1e-9, [1e300, -0.0, 5e-324, 1 / 3]])
    path = tmp_path / "t.tsv"
    names = ["NA", "01", "1", "nan", "True", "", "x y"]
    tables.write_tsv(tables.frame([(names[i % len(names)], v) for i, v in enumerate(values)], ["summarizer", "score"]),
                     path)
    back = tables.read_tsv(path, numeric=("score",))
    assert back.summarizer.tolist()[:7] == names                     # ids stay text, "NA" included
    assert np.array_equal(back.score.to_numpy(), values)             # every float bit for bit


def test_markdown_tables_read_back(tmp_path):
    path = tmp_path / "t.md"
    tables.write_markdown(path, "Caption.", ["a", "b"], [["1", "x"], ["2", "y"]])
    assert path.read_text() == "Caption.\n\n| a | b |\n|---|---|\n| 1 | x |\n| 2 | y |\n"
    assert tables.read_markdown(path) == ("Caption.", ["a", "b"], [["1", "x"], ["2", "y"]])


def test_markdown_cells_with_pipes_and_backslashes_keep_their_columns(tmp_path):
    """A summarizer named ``a|b`` used to add a column; GitHub Markdown escapes it as ``a\\|b``."""
    path = tmp_path / "t.md"
    rows = [["a|b", "x \\"], ["c\\", "|"]]
    tables.write_markdown(path, "C.", ["name", "v|w"], rows)
    assert path.read_text() == "C.\n\n| name | v\\|w |\n|---|---|\n| a\\|b | x \\\\ |\n| c\\\\ | \\| |\n"
    assert tables.read_markdown(path) == ("C.", ["name", "v|w"], rows)


def test_markdown_escapes_what_it_would_render(tmp_path):
    """Names reach the Markdown tables as they are: an HTML tag, emphasis, a link, code, an entity,
    strike-through and math are written with backslashes (as by hand below), so that Markdown shows
    the text; ids with inner underscores are left as they are; reading undoes the escapes."""
    path = tmp_path / "t.md"
    names = ["<img src=x onerror=alert(1)>", "**bold**", "[x](http://e)", "_a_", "R2_ST1_RS0_R", "a&lt;b",
             "`code`", "~~s~~", "$x$", "0.512* #1", "[0.40, 0.42]"]
    tables.write_markdown(path, "Agreement (<b>judge</b>), p < 0.05.", ["name"], [[n] for n in names])
    assert path.read_text() == (
        "Agreement (\\<b>judge\\</b>), p \\< 0.05.\n\n| name |\n|---|\n"
        "| \\<img src=x onerror=alert(1)> |\n| \\*\\*bold\\*\\* |\n| [x\\](http://e) |\n| \\_a\\_ |\n"
        "| R2_ST1_RS0_R |\n| a\\&lt;b |\n| \\`code\\` |\n| \\~\\~s\\~\\~ |\n| \\$x\\$ |\n| 0.512\\* #1 |\n"
        "| [0.40, 0.42] |\n")
    assert tables.read_markdown(path) == ("Agreement (<b>judge</b>), p < 0.05.", ["name"], [[n] for n in names])


def test_a_write_removes_temporary_files_that_killed_jobs_left(tmp_path):
    from metaeval.files import write_text

    stale = [tmp_path / ".t.tsv.tmp123", tmp_path / ".t.tsv.tmp9"]
    for p in stale:
        p.write_text("half")
    other = tmp_path / ".u.tsv.tmp5"
    other.write_text("another file's")
    write_text(tmp_path / "t.tsv", "whole\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".u.tsv.tmp5", "t.tsv"]


def test_archives_never_hold_temporary_files_or_memos(tmp_path):
    import tarfile

    from metaeval.data.datasets import FILES
    from metaeval.stages.archive import write_archive

    res = tmp_path / "results/d"
    (res / "data").mkdir(parents=True)
    for name in FILES.values():
        (res / "data" / name).write_text("x")
    (res / "analysis").mkdir()
    (res / "analysis/t.tsv").write_text("t")
    (res / "analysis/.t.tsv.tmp42").write_text("half")     # left by a job that died of a full disk
    (res / "memo/statistics/resampled.0a").mkdir(parents=True)  # a job's memo: a cache, not a result
    (res / "memo/statistics/resampled.0a/keys.npy").write_text("k")
    out = tmp_path / "a.tar.gz"
    write_archive("d", res, {"datasets": {"d": {"format": "canonical", "path": "x"}}}, "0" * 12,
                  {"commit": "c", "dirty": False}, out)
    names = tarfile.open(out).getnames()
    assert "d-000000000000/archived_results/d/analysis/t.tsv" in names
    assert not [n for n in names if ".tmp" in n]
    assert not [n for n in names if "/memo" in n]


# --------------------------------------------------------------------------- options

def test_config_yaml_states_the_schema_defaults():
    """config/config.yaml documents every section with the schema's defaults (the only defaults)."""
    shipped = yaml.safe_load((REPO / "config/config.yaml").read_text())
    defaults = schema_defaults()
    assert {k: v for k, v in shipped.items() if k != "datasets"} == defaults


def test_an_empty_section_gets_the_defaults_and_values_merge():
    full = validated({"datasets": {"d": {"format": "simulated", "topics": 5}}, "rouge": {"alpha": 0.8}})
    assert full["rouge"]["alpha"] == 0.8 and full["rouge"]["measures"][0] == "R1"
    assert full["intervals"]["confidence"] == 0.95
    assert full["datasets"]["d"] == {"format": "simulated", "topics": 5, "seed": 20150601, "systems": 16,
                                     "humans": 4, "units": 10, "sentences": 6, "documents": 3}


@pytest.mark.parametrize("config,message", [
    ({"rouge": {"alpha": 2}}, "config key rouge.alpha: 2 is greater than the maximum of 1"),
    ({"rouge": {"measures": ["R1", "RX"]}}, "config key rouge.measures[1]: 'RX' is not a ROUGE measure"),
    ({"sweeps": {"variants": ["SERA5_PL_A"]}}, "config key sweeps.variants[0]: SERA5_PL_A is not allowed here"),
    ({"intervals": {"shown": ["R1_ST1_RS0_M_R"]}}, "config key intervals.shown[0]: R1_ST1_RS0_M_R is not allowed"),
    ({"rerank": {"best": "R2"}}, "config key rerank.best: 'auto' or a variant id: 'R2' is not a variant id"),
    ({"agreement": {"baseline": "X_Y"}}, "config key agreement.baseline[0]: 'X_Y' is not a variant id"),
    ({"intervals": {"confidence": 95}}, "config key intervals.confidence: 95 is greater than or equal to the maximum"),
    ({"datasets": {"bad name": {"format": "simulated"}}}, "config key datasets.bad name: 'bad name' is not a data set"),
])
def test_bad_config_names_the_key(config, message):
    base = {"datasets": {"d": {"format": "simulated"}}}
    with pytest.raises(ConfigError) as info:
        Options.from_config({**base, **config})
    assert message in str(info.value)


def test_data_set_folders_are_checked_when_the_run_starts(tmp_path, monkeypatch):
    """An empty folder, a file, or a folder inside results/ used to fail late, or lose the user's files."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.tsv").write_text("x")
    inside = tmp_path / "results/other/data"
    shutil.copytree(REPO / ".test/input/tiny", inside)
    expected = "expected a data set folder with dataset.yaml, summaries.jsonl and judgments.tsv (docs/DATASET_FORMAT.md)"
    for path, message in [("empty", f"config key datasets.d.path: 'empty' has no dataset.yaml; {expected}"),
                          ("file.tsv", f"config key datasets.d.path: 'file.tsv' is a file; {expected}"),
                          ("results/other/data", "config key datasets.d.path: 'results/other/data' is inside the "
                                                 "workflow's output folder results/")]:
        with pytest.raises(ConfigError) as info:
            Options.from_config({"datasets": {"d": {"format": "canonical", "path": path}}})
        assert str(info.value).startswith(message)


def test_each_job_gets_only_what_it_uses():
    a = Options.from_config({"datasets": {"d": {"format": "simulated"}}})
    b = Options.from_config({"datasets": {"d": {"format": "simulated"}}, "rouge": {"wlcs_weight": 1.5}})
    assert a.score != b.score and a.correlate == b.correlate and a.sera == b.sera
    c = Options.from_config({"datasets": {"d": {"format": "simulated"}}, "correlation": {"top_variants": 3}})
    assert a.correlate == c.correlate and a.correlation_tables != c.correlation_tables
    assert repr(a.correlate).startswith("CorrelateOptions(")   # a record Snakemake's params trigger can compare


def test_a_new_config_key_is_its_schema_entry_and_its_record_field(monkeypatch):
    """A key added to a section's schema (with its default) and a field of the same name added to
    the section's record reach the job's record: nothing else names it."""
    base = {"datasets": {"d": {"format": "simulated"}}}
    before = Options.from_config(base).statistics
    with pytest.raises(ConfigError, match="config key statistics: Additional properties are not allowed"):
        Options.from_config({**base, "statistics": {"extra_rounds": 2}})     # not yet a key
    schema = copy.deepcopy(load_schema())
    schema["$defs"]["statistics"]["properties"]["extra_rounds"] = {"type": "integer", "minimum": 0, "default": 7}
    fields = [(f, Any) for f in records.StatisticsOptions._fields] + [("extra_rounds", int)]
    monkeypatch.setattr(records, "StatisticsOptions", NamedTuple("StatisticsOptions", fields))   # the registry names it
    default, given = (Options.from_config({**base, **extra}, schema).statistics
                      for extra in ({}, {"statistics": {"extra_rounds": 2}}))
    assert (default.extra_rounds, given.extra_rounds) == (7, 2)
    assert default[:-1] == given[:-1] == before      # the other fields as before


def test_records_are_built_by_field_name_and_have_no_defaults_of_their_own():
    kinds = [v for v in vars(records).values() if isinstance(v, type) and issubclass(v, tuple) and v is not tuple]
    assert records.StatisticsOptions in kinds and not [k.__name__ for k in kinds if k._field_defaults]
    section = {"seed": 3, "resamples": [1, 2], "confidence": 0.9, "unused": 0}
    assert records.from_section(records.IntervalOptions, section, shown=["R1"]) == ((1, 2), 0.9, 3, ("R1",))
    with pytest.raises(KeyError, match="IntervalOptions: the section has no key shown and no value was given"):
        records.from_section(records.IntervalOptions, section)
    with pytest.raises(TypeError, match="IntervalOptions has no field top"):
        records.from_section(records.IntervalOptions, section, shown=(), top=1)


def test_stemmer_exceptions_reach_only_the_jobs_that_stem():
    from metaeval.stages.scoring import rouge_signature

    base = {"datasets": {"d": {"format": "simulated"}}}
    a = Options.from_config(base)
    b = Options.from_config({**base, "rouge": {"stemmer_exceptions": ["noun", "adv", "verb", "adj"]}})
    n = Options.from_config({**base, "rouge": {"stemmer_exceptions": "none"}, "sera": {"stemming": 0},
                             "sweeps": {"variants": ["R1_ST0_RS0_A_R"]}})
    assert a.rouge.stemmer_exceptions == ("adj", "adv", "noun", "verb") and n.rouge.stemmer_exceptions == ()
    assert a.score_job(1) != b.score_job(1) and a.score_job(0) == b.score_job(0) == n.score_job(0)
    assert a.sweeps != b.sweeps and a.sera_index != b.sera_index      # both stem by default
    assert n.sera_index.stemmer_exceptions is None and n.sweeps.stemmer_exceptions is None
    assert [rouge_signature(o.rouge).split("|")[-2] for o in (a, b, n)] == [
        "stemexc:alphabetical", "stemexc:noun,adv,verb,adj", "stemexc:none"]


@pytest.mark.parametrize("value", ["alphabetic", ["noun", "adv", "verb"], ["noun", "noun", "verb", "adj"],
                                   ["noun", "adv", "verb", "adj", "adj"], ["nouns", "adv", "verb", "adj"], 3])
def test_bad_stemmer_exceptions_name_the_key(value):
    with pytest.raises(ConfigError, match=r"^config key rouge\.stemmer_exceptions: "):
        Options.from_config({"datasets": {"d": {"format": "simulated"}}, "rouge": {"stemmer_exceptions": value}})


# --------------------------------------------------------------------------- the output contract

def test_contract_names_files_and_expands_placeholders():
    corr = outputs.files("correlation", "d", combination=["arithmetic", "coverage"])
    assert corr["williams_coverage"] == "results/d/analysis/williams_coverage.tsv"
    assert outputs.files("score", shard=1)["scores"] == "results/{dataset}/scores/parts/ST{stem}_RS{stop}.shard1.tsv"
    assert outputs.file("score", "bleu_stats", "d", stem=1, stop=0, shard=3) == \
        "results/d/scores/parts/BLEU_stats_ST1_RS0.shard3.tsv"
    with pytest.raises(KeyError, match="needs a value for"):
        outputs.files("correlation")
    inputs = outputs.report_inputs("d")
    assert inputs["correlation_tables__table1_md"] == "results/d/analysis/table1.md"
    assert all(outputs.STAGES[i.stage][i.key] for s in registry.report_sections() for i in s.items)


# --------------------------------------------------------------------------- code versions

def test_import_closure_covers_what_importing_the_script_loads():
    """Statically found modules include every metaeval module that importing the script's own
    imports actually loads (run in a fresh interpreter), and the lazy imports inside functions."""
    script = REPO / "workflow/scripts/correlate.py"
    static = {p.relative_to(package_dir()).as_posix() for p in import_closure(script)}
    imports = "\n".join(l for l in script.read_text().splitlines() if l.startswith(("from metaeval", "import metaeval")))
    code = imports + "\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.startswith('metaeval'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    as_files = {m.replace("metaeval.", "", 1).replace(".", "/") for m in loaded if m != "metaeval"}
    as_files = {f"{m}/__init__.py" if (package_dir() / m).is_dir() else f"{m}.py" for m in as_files} | {"__init__.py"}
    assert as_files <= static
    assert "stats/williams.py" in static and "stats/verdicts.py" not in static
    assert "metrics/bleu.py" in static                     # the bootstrap's corpus BLEU


IMPORTS_AT_EVERY_DEPTH = '''\
"""from metaeval.stats import verdicts"""
import metaeval.tables
class A:
    def f(self):
        try:
            pass
        except ValueError:
            from metaeval.stats import williams
        finally:
            for _ in ():
                while False:
                    with open("x"):
                        from metaeval import figures
match 1:
    case 1:
        if True:
            pass
        else:
            from metaeval.stats.core import pearson
x = "import metaeval.records"
'''


def test_import_closure_finds_imports_at_any_depth(tmp_path):
    """Imports in functions, classes, branches, loops, handlers, with blocks and match cases all
    count; names in strings and expressions do not."""
    script = tmp_path / "door.py"
    script.write_text(IMPORTS_AT_EVERY_DEPTH)
    found = {p.relative_to(package_dir()).as_posix() for p in import_closure(script)}
    assert {"tables.py", "stats/williams.py", "figures.py", "stats/core.py"} <= found
    assert "stats/verdicts.py" not in found and "records.py" not in found


TRICKY_IMPORTS = '''\
"""The import statements of a module: prose that reads like one,
import of the next line, from the registry import
"""
from metaeval.stats import (core,
                            williams)   # a comment with ( a bracket
from metaeval import \\
    tables
if True: import metaeval.figures
try: import metaeval.records
except ImportError: pass
x = 1; from metaeval.stats import verdicts
# note: import metaeval.outputs
def f():
    """Docstring.

    from here on, import nothing
    """
    from ..metrics import bleu
y = ("import metaeval.logs",
     "from metaeval import files")
'''


def test_import_statements_alone_find_what_the_whole_files_ast_finds():
    """provenance.import_tree (the import lines only, parsed; the whole file when a piece does not
    parse alone) finds the same imports as parsing the whole file: for every module and door of
    the project, and for a source with multi-line, one-line, commented and string look-alikes."""
    from metaeval.provenance import _imported, import_tree

    files = [*package_dir().rglob("*.py"), *(REPO / "workflow/scripts").glob("*.py")]
    assert len(files) > 100
    for text in [*(f.read_text(encoding="utf-8") for f in files), TRICKY_IMPORTS]:
        fast = _imported(import_tree(text), "metaeval.stages.x", "metaeval.stages")
        assert fast == _imported(ast.parse(text), "metaeval.stages.x", "metaeval.stages")
    found = _imported(import_tree(TRICKY_IMPORTS), "metaeval.stages.x", "metaeval.stages")
    assert {"metaeval.stats.williams", "metaeval.tables", "metaeval.figures", "metaeval.records",
            "metaeval.stats.verdicts", "metaeval.metrics.bleu"} <= found
    assert not {"metaeval.outputs", "metaeval.logs", "metaeval.files"} & found


def test_code_version_changes_with_an_imported_module_only(tmp_path):
    import shutil

    copy = tmp_path / "src"
    shutil.copytree(package_dir(), copy / "metaeval")
    script = REPO / "workflow/scripts/analysis_stage.py"    # the agreement stage's door: the generic one
    stage = ("metaeval.stages.agreement",)
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-c",
         f"from metaeval.provenance import code_version; print(code_version({str(script)!r}, {stage!r}))"],
        capture_output=True, text=True, check=True, env={"PYTHONPATH": str(copy)}).stdout.strip()
    before = run()
    assert before == code_version(script, stage)           # independent of where the package lives
    (copy / "metaeval/stats/williams.py").write_text((copy / "metaeval/stats/williams.py").read_text() + "\n# x\n")
    assert run() == before                                  # the agreement stage does not import it
    (copy / "metaeval/stats/verdicts.py").write_text((copy / "metaeval/stats/verdicts.py").read_text() + "\n# x\n")
    assert run() != before


JOB = """
import sys
from metaeval.logs import job_log
from metaeval.data.contract import DatasetError, fail
from metaeval.options import ConfigError
errors = {"data": fail("scores.tsv", 5, "score", "'nan' is not a number; expected a finite decimal number"),
          "config": ConfigError("config key delta.metric: 'X' has no pair of systems"), "bug": KeyError("surprise")}
with job_log(sys.argv[2], "file metrics d"):
    raise errors[sys.argv[1]]
"""


@pytest.mark.parametrize("error, message", [
    ("data", "scores.tsv, line 5, field 'score': 'nan' is not a number; expected a finite decimal number"),
    ("config", "config key delta.metric: 'X' has no pair of systems")])
def test_a_jobs_own_check_ends_it_with_its_message_and_no_traceback(tmp_path, error, message):
    """The contract's, the config's and the stages' own checks (CheckError) say all there is to
    say: the job logs the error line and exits with status 1; a bug keeps its traceback."""
    log = tmp_path / "job.log"
    proc = subprocess.run([sys.executable, "-c", JOB, error, str(log)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"ERROR file metrics d failed: {message}" in proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert log.read_text().splitlines()[-1].endswith(f"ERROR file metrics d failed: {message}")
    bug = subprocess.run([sys.executable, "-c", JOB, "bug", str(log)], capture_output=True, text=True, timeout=120)
    assert bug.returncode == 1 and "Traceback" in bug.stderr and "KeyError: 'surprise'" in bug.stderr


def test_a_markdown_file_of_several_tables_is_read_table_by_table(tmp_path):
    """The judges' judges.md holds a caption and a table per dimension: each is read as written."""
    path = tmp_path / "t.md"
    path.write_text(tables.markdown_text("First | one.", ["a", "b"], [["1", "x|y"]]) + "\n\n"
                    + tables.markdown_text("Second.", ["c"], [["2"], ["3"]]) + "\n\nNo table here.\n")
    assert tables.read_markdown_tables(path) == [("First | one.", ["a", "b"], [["1", "x|y"]]),
                                                 ("Second.", ["c"], [["2"], ["3"]]), ("No table here.", [], [])]
