"""The release-format registry (metaeval.data.formats) agrees with the schema, the output contract,
the import scripts and the import rules: a format is declared once, and everything else is looked
up there."""

import ast
import importlib
import re

import yaml

from conftest import REPO
from metaeval import outputs
from metaeval.data.formats import FORMATS, IMPORTED, SCORES
from metaeval.options import SCHEMA


def dataset_defs() -> tuple[list[str], dict[str, str], dict]:
    """The schema's format enum, its if/then dispatch (format -> $defs name) and its $defs."""
    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    defs = schema["$defs"]
    dataset = defs["dataset"]
    dispatch = {case["if"]["properties"]["format"]["const"]: case["then"]["$ref"].removeprefix("#/$defs/")
                for case in dataset["allOf"]}
    return dataset["properties"]["format"]["enum"], dispatch, defs


def test_every_registered_format_has_its_schema_definition_and_vice_versa():
    enum, dispatch, defs = dataset_defs()
    assert sorted(enum) == sorted(FORMATS), "the schema's format enum vs the registry"
    assert sorted(dispatch) == sorted(FORMATS), "the schema's if/then dispatch vs the registry"
    for name, fmt in FORMATS.items():
        assert dispatch[name] == fmt.schema, name
        assert defs[fmt.schema]["properties"]["format"] == {"const": name}, name


def test_every_format_names_its_module_script_and_stage():
    for fmt in FORMATS.values():
        importlib.import_module(fmt.module)
        assert (fmt.stage is None) == (fmt.script is None), fmt.name
    for fmt in IMPORTED:
        script = REPO / "workflow" / "scripts" / f"{fmt.script}.py"
        imported = {node.module for node in ast.walk(ast.parse(script.read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom)}
        assert fmt.module in imported, f"{script.name} does not run {fmt.module}"
        assert outputs.STAGES[fmt.stage] == {k: f"{fmt.stage}/{v}" for k, v in fmt.files().items()}
        assert (SCORES in outputs.STAGES[fmt.stage]) == fmt.writes_scores


# The functions of metaeval.options that used to branch on a data set's format.
FORMAT_DEPENDENT = ("check", "check_factuality", "simulation", "file_metric_sources", "has_texts", "gather_job",
                    "file_metrics")


def test_no_format_name_is_spelled_outside_the_registry():
    """The if-chains over format names are gone: options, outputs and the rules look formats up."""
    pattern = re.compile(rf"""["'](?:{"|".join(FORMATS)})["']""")
    options = REPO / "src/metaeval/options.py"
    source = options.read_text(encoding="utf-8")
    texts = {f"{options.name}:{node.name}": ast.get_source_segment(source, node)
             for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.FunctionDef) and node.name in FORMAT_DEPENDENT}
    assert len(texts) == len(FORMAT_DEPENDENT)
    for path in ("src/metaeval/outputs.py", "rules/common.smk", "rules/data.smk"):
        texts[path] = (REPO / path).read_text(encoding="utf-8")
    for where, text in texts.items():
        found = [line for line in text.splitlines() if pattern.search(line)]
        assert not found, f"{where}: {found}"


def test_release_inputs_and_options_of_an_entry(tmp_path):
    from metaeval.data.importers import DucTacOptions
    from metaeval.options import Options

    (tmp_path / "frank").mkdir()
    for name in ("human_annotations.json", "baseline_factuality_metrics_outputs.json"):
        (tmp_path / "frank" / name).write_text("[]")
    (tmp_path / "duc" / "peers").mkdir(parents=True)
    (tmp_path / "duc" / "peers" / "D1.M.100.T.1").write_text("A sentence.\n")
    (tmp_path / "duc" / "README").write_text("not a summary file\n")
    (tmp_path / "see.table").write_text("")
    opts = Options.from_config({"datasets": {
        "f": {"format": "frank", "path": str(tmp_path / "frank")},
        "d": {"format": "duc_tac", "path": str(tmp_path / "duc"), "see_table": str(tmp_path / "see.table"),
              "tac_columns": {"responsiveness": 8}},
        "s": {"format": "simulated", "topics": 3}}})

    def of(name):
        entry = opts.dataset(name)
        fmt = FORMATS[entry["format"]]
        return fmt.inputs(entry), fmt.options(entry)

    assert of("f") == ({"human_annotations": str(tmp_path / "frank/human_annotations.json"),
                        "baseline_factuality_metrics_outputs": str(tmp_path / "frank/baseline_factuality_metrics_outputs.json")},
                       None)
    inputs, options = of("d")
    assert inputs == {"summaries": [str(tmp_path / "duc/peers/D1.M.100.T.1")], "tables": [str(tmp_path / "see.table")]}
    assert options == DucTacOptions(str(tmp_path / "duc"), see_table=str(tmp_path / "see.table"),
                                    tac_columns=(("responsiveness", 8),))
    assert of("s")[1] == opts.simulation("s") and opts.simulation("s").topics == 3
    assert not opts.has_texts("f") and opts.has_texts("d") and opts.has_texts("s")
    assert opts.file_metric_sources("f") == ["results/f/import_frank/metric_scores.tsv"]
    assert opts.file_metrics("f").partial_coverage and not opts.file_metrics("d").partial_coverage
