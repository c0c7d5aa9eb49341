"""``format: table`` (metaeval.data.table): a release read by a mapping declared in its config entry.

Declarations of real releases reproduce what the project's importers (or its canonical copies) give,
byte for byte; bad mappings are errors naming the config key, the file, the row and the field; a
judged human summary is scored against the topic's other references, or refused with the advice.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from conftest import shared_dataset, write_tiny
from metaeval.data.contract import DatasetError
from metaeval.data.datasets import folder_paths, load_dataset, write_dataset
from metaeval.data.formats import FORMATS
from metaeval.data.table import import_table, nltk_problem
from metaeval.options import ConfigError, Options

DIMS = ("coherence", "consistency", "fluency", "relevance")
CANONICAL_FILES = ("summaries.jsonl", "judgments.tsv", "annotations.tsv", "documents.jsonl", "pyramids.jsonl")


def entry_of(entry: dict, name: str = "bench") -> dict:
    """The validated entry (defaults filled in, the format's own checks run), as the workflow has it."""
    return Options.from_config({"datasets": {name: entry}}).dataset(name)


def imported(entry: dict, name: str = "bench"):
    """(data set, metric scores) of a table entry, through the registry as the import job runs it."""
    return import_table(FORMATS["table"].options(entry_of(entry, name)), name)


def write_csv(path: Path, header: list[str], rows: list[list[str]], delimiter: str = ",") -> Path:
    # written with the csv module, not pandas: the reader under test is pandas'
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter=delimiter)
        w.writerow(header)
        w.writerows(rows)
    return path


# ----------------------------------------------------------------------------- real releases

@pytest.mark.slow
def test_summeval_release_declared_as_a_table_gives_the_importers_folder_byte_for_byte(tmp_path):
    raw = shared_dataset("raw/summeval-official")
    from metaeval.data.importers import import_summeval_jsonl

    reference = import_summeval_jsonl(sorted(raw.glob("*.jsonl")))
    write_dataset(reference, folder_paths(tmp_path / "importer"))
    factual = {"role": "factual"}
    dimensions = {d: {"min": 1, "max": 5, "description": f"expert {d}, mean of the 3 expert annotations",
                      "annotations": {"group": "expert"}, **(factual if d == "consistency" else {})} for d in DIMS}
    dimensions.update({f"turker_{d}": {"min": 1, "max": 5, "description": f"crowd {d}, mean of the 5 crowd annotations",
                                       "annotations": {"dimension": d, "group": "crowd"},
                                       **(factual if d == "consistency" else {})} for d in DIMS})
    entry = {
        "format": "table", "path": f"{raw}/*.jsonl",
        "columns": {"topic": "id", "summarizer": "model_id", "text": "decoded", "document": "text"},
        "references": {"column": "references"},
        "judgments": {"layout": "annotators", "groups": {"expert": "expert_annotations", "crowd": "turker_annotations"}},
        "dimensions": dimensions,
        "human": {"coverage": ["relevance"], "linguistic_quality": ["coherence", "fluency"]},
        # dataset.yaml's prose, as the importer writes it (the only lines a declaration cannot derive)
        "description": "SummEval (Fabbri et al., 2021), imported from the official paired annotation jsonl: system "
                       "summaries of CNN/DailyMail articles rated 1-5 by 3 experts and 5 crowd workers; every "
                       "annotation is in annotations.tsv.",
        "source": ", ".join(str(p) for p in sorted(raw.glob("*.jsonl"))),
        "license": "SummEval annotations: MIT (Yale-LILY/SummEval); CNN/DailyMail: see its terms",
        "citation": "Fabbri et al. 2021. SummEval: Re-evaluating Summarization Evaluation. TACL 9.",
    }
    ds, scores = imported(entry, "summeval")
    write_dataset(ds, folder_paths(tmp_path / "table"))
    assert scores == []
    for name in (*CANONICAL_FILES, "dataset.yaml"):
        assert (tmp_path / "table" / name).read_bytes() == (tmp_path / "importer" / name).read_bytes(), name
    # not two empty folders: 1200 judged summaries, 8 annotations each per dimension
    assert len((tmp_path / "table" / "judgments.tsv").read_text().splitlines()) == 1 + 1200
    assert len((tmp_path / "table" / "annotations.tsv").read_text().splitlines()) == 1 + 1200 * 4 * 8


def _canonical(folder: Path) -> dict[str, list]:
    """A canonical folder's records, read with json and csv (not with the code under test)."""
    summaries = [json.loads(l) for l in (folder / "summaries.jsonl").read_text(encoding="utf-8").splitlines()]
    documents = {r["topic"]: r["documents"] for r in map(json.loads, (folder / "documents.jsonl").read_text(
        encoding="utf-8").splitlines())}
    with (folder / "judgments.tsv").open(encoding="utf-8", newline="") as f:
        judgments = list(csv.reader(f, delimiter="\t"))
    return {"summaries": summaries, "documents": documents, "judgments": judgments}


def test_newsroom_from_one_csv_with_the_reference_as_a_system_gives_the_canonical_copy(tmp_path):
    folder = shared_dataset("newsroom")
    data = _canonical(folder)
    header, *rows = data["judgments"]
    judged = {(r[0], r[1]): r[2:] for r in rows}
    # the release's layout: one CSV row per summary, the reference summaries as the system "ref0"
    out = []
    for s in data["summaries"]:
        key = (s["topic"], s["summarizer"])
        scores = judged.get(key, [""] * len(header[2:]))
        out.append([s["topic"], s["summarizer"], "\n".join(s["sentences"]), data["documents"][s["topic"]][0], *scores])
    release = write_csv(tmp_path / "release" / "newsroom.csv", ["doc_id", "model", "summary", "article",
                                                                 *(f"human_{d}" for d in header[2:])], out)
    dims = {"coherence": "coherence, mean of 3 annotators", "fluency": "fluency, mean of 3 annotators",
            "informativeness": "informativeness, mean of 3 annotators", "relevance": "relevance, mean of 3 annotators"}
    ds, _ = imported({
        "format": "table", "path": str(release),
        "columns": {"topic": "doc_id", "summarizer": "model", "text": "summary", "document": "article"},
        "sentence_splitter": {"text": "none"},     # one sentence per line, as the test wrote them
        "references": {"system": "ref0"},
        "judgments": {"columns_of": {d: f"human_{d}" for d in dims}},
        "dimensions": {d: {"min": 1, "max": 5, "description": text} for d, text in dims.items()},
        "human": {"coverage": ["informativeness"], "linguistic_quality": ["coherence", "fluency"]}}, "newsroom")
    write_dataset(ds, folder_paths(tmp_path / "table"))
    write_dataset(load_dataset(folder), folder_paths(tmp_path / "copy"))
    for name in ("summaries.jsonl", "judgments.tsv", "documents.jsonl"):
        assert (tmp_path / "table" / name).read_bytes() == (tmp_path / "copy" / name).read_bytes(), name
    assert sum(1 for s in ds.summaries if s.kind == "human") == 60


def test_realsumm_from_one_csv_per_system_with_metric_files_gives_the_canonical_copy(tmp_path):
    """REALSumm as a release of per-system files: summaries/{system}.csv (topic, summary, score),
    metrics/{system}.tsv (one column per metric) and a file of references."""
    folder = shared_dataset("realsumm")
    data = _canonical(folder)
    header, *rows = data["judgments"]
    judged = {(r[0], r[1]): r[2] for r in rows}
    with (folder / "metric_scores.tsv").open(encoding="utf-8", newline="") as f:
        _, *score_rows = list(csv.reader(f, delimiter="\t"))
    metrics = sorted({r[2] for r in score_rows})
    by_summary: dict[tuple[str, str], dict[str, str]] = {}
    for topic, summarizer, metric, score in score_rows:
        by_summary.setdefault((topic, summarizer), {})[metric] = score
    systems: dict[str, list] = {}
    refs = []
    for s in data["summaries"]:
        if s["kind"] == "human":
            refs.append([s["topic"], "\n".join(s["sentences"])])
            continue
        systems.setdefault(s["summarizer"], []).append(
            [s["topic"], "\n".join(s["sentences"]), data["documents"][s["topic"]][0], judged.get((s["topic"], s["summarizer"]), "")])
    for system, lines in systems.items():
        write_csv(tmp_path / "release" / "summaries" / f"{system}.csv", ["topic", "summary", "article", "pyramid"], lines)
        write_csv(tmp_path / "release" / "metrics" / f"{system}.tsv", ["topic", *metrics],
                  [[t, *(by_summary.get((t, system), {}).get(m, "") for m in metrics)] for t, *_ in lines], "\t")
    write_csv(tmp_path / "release" / "references.csv", ["topic", "reference"], refs)
    ds, scores = imported({
        "format": "table", "path": str(tmp_path / "release" / "summaries" / "{system}.csv"),
        "columns": {"topic": "topic", "text": "summary", "document": "article"},
        "sentence_splitter": {"text": "none", "references": "none"},
        "references": {"path": str(tmp_path / "release" / "references.csv"), "columns": {"text": "reference"}},
        "judgments": {"columns_of": {"litepyramid_recall": "pyramid"}},
        "dimensions": {"litepyramid_recall": {"min": 0, "max": 1, "description": "LitePyramid recall of reference SCUs"}},
        "human": {"coverage": ["litepyramid_recall"], "linguistic_quality": []},
        "metric_files": [{"path": str(tmp_path / "release" / "metrics" / "{system}.tsv"), "metrics": metrics}]},
        "realsumm")
    write_dataset(ds, folder_paths(tmp_path / "table"))
    write_dataset(load_dataset(folder), folder_paths(tmp_path / "copy"))
    for name in ("summaries.jsonl", "judgments.tsv", "documents.jsonl"):
        assert (tmp_path / "table" / name).read_bytes() == (tmp_path / "copy" / name).read_bytes(), name
    # the metric scores, every one, as the release's score file has them
    assert len(scores) == len(score_rows) > 0
    assert sorted((t, s, m, float(v)) for t, s, m, v in score_rows) == scores


# ----------------------------------------------------------------------------- layouts, references, splitters

def test_a_long_csv_of_annotations_is_aggregated_by_the_declared_rule(tmp_path):
    summaries = write_csv(tmp_path / "summaries.csv", ["doc", "sys", "output", "gold"], [
        ["d1", "s1", "The cat sat. It purred.", "A cat sat on a mat."],
        ["d1", "s2", "A dog.", "A cat sat on a mat."],
    ])
    annotations = write_csv(tmp_path / "annotations.csv", ["doc", "sys", "rater", "aspect", "value"], [
        ["d1", "s1", "r1", "quality", "4"], ["d1", "s1", "r2", "quality", "2"], ["d1", "s1", "r3", "quality", "5"],
        ["d1", "s2", "r1", "quality", "1"], ["d1", "s2", "r2", "quality", "1.5e+0"], ["d1", "s2", "r3", "quality", "3"],
    ])
    ds, _ = imported({
        "format": "table", "path": str(summaries),
        "columns": {"topic": "doc", "summarizer": "sys", "text": "output"},
        "references": {"column": "gold"},
        "judgments": {"layout": "long", "path": str(annotations), "dimension": "aspect", "score": "value",
                      "annotator": "rater"},
        "dimensions": {"quality": {"min": 1, "max": 5}},
        "human": {"coverage": ["quality"]}, "aggregation": "median"})
    assert ds.judgments[("d1", "s1")]["quality"] == 4.0      # median of 4, 2, 5
    assert ds.judgments[("d1", "s2")]["quality"] == 1.5      # median of 1, 1.5 (written 1.5e+0), 3
    assert len(ds.annotations) == 6 and {a.group for a in ds.annotations} == {"all"}
    # the metaeval splitter: two sentences; the reference field became ref0
    assert ds.summary("d1", "s1").sentences == ("The cat sat.", "It purred.")
    assert [r.summarizer for r in ds.references("d1")] == ["ref0"]
    write_dataset(ds, folder_paths(tmp_path / "out"))
    assert "rule: median" in (tmp_path / "out" / "dataset.yaml").read_text()
    assert load_dataset(tmp_path / "out").judgments[("d1", "s2")]["quality"] == 1.5


def test_nltk_splitter_is_refused_offline_without_punkt_data(tmp_path):
    if nltk_problem() is None:
        pytest.skip("nltk's punkt_tab data is installed here")
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q"], [["d1", "s1", "A. B.", "C.", "3"]])
    with pytest.raises(ConfigError) as e:
        entry_of({"format": "table", "path": str(release), "columns": {"topic": "t", "summarizer": "s", "text": "x"},
                  "sentence_splitter": {"text": "nltk"}, "references": {"column": "ref"},
                  "dimensions": {"q": {"min": 1, "max": 5}}, "human": {"coverage": ["q"]}})
    assert "datasets.bench.sentence_splitter.text" in str(e.value) and "nltk.download('punkt_tab')" in str(e.value)


def _judged_reference_release(tmp_path: Path, extra_reference: bool) -> dict:
    rows = [["d1", "gold", "The cat sat on the mat .", "The cat sat on the mat .", "5"],
            ["d1", "m1", "A cat sat .", "The cat sat on the mat .", "3"]]
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "other", "q"], rows)
    refs = {"system": "gold", "judged": True}
    if extra_reference:
        refs["column"] = "other"
    return {"format": "table", "path": str(release), "columns": {"topic": "t", "summarizer": "s", "text": "x"},
            "references": refs, "dimensions": {"q": {"min": 1, "max": 5}}, "human": {"coverage": ["q"]}}


def test_a_judged_reference_system_needs_another_reference_of_its_topic(tmp_path):
    with pytest.raises(DatasetError) as e:
        imported(_judged_reference_release(tmp_path, extra_reference=False))
    message = str(e.value)
    for part in ("r.csv", "row 2", "field 's'", "datasets.bench.references.judged",
                 "at least two human summaries to judge one against the others"):
        assert part in message, part
    ds, _ = imported(_judged_reference_release(tmp_path, extra_reference=True))
    assert ds.summary("d1", "gold").kind == "human" and ds.judgments[("d1", "gold")]["q"] == 5.0
    assert sorted(r.summarizer for r in ds.references("d1")) == ["gold", "ref0"]


# ----------------------------------------------------------------------------- the documented way, canonical form

TWO_REFERENCES_ONE_JUDGED = "topic\tsummarizer\trelevance\tfluency\nT1\t1\t3\t4\nT1\tB\t5\t5\n"


def test_a_judged_human_summary_is_scored_against_the_topics_other_references(tmp_path):
    """The tiny set judges (T1, B), a human summary, beside the other human summary A: scored against
    A alone. A = "The cat sat on the mat . It purred ." (8 tokens), B = "A cat was sitting on a mat .
    It was happy ." (10 tokens); shared unigrams cat, on, mat, it: ROUGE-1 P = 4/10, R = 4/8."""
    from metaeval.metrics.rouge import parse_measure
    from metaeval.stages.scoring import score_measure, setting_from_tag, tokenize_dataset

    ds = load_dataset(write_tiny(tmp_path / "d", judgments=TWO_REFERENCES_ONE_JUDGED))
    rows = {(t, s): (p, r) for t, s, p, r, _ in score_measure(tokenize_dataset(ds, setting_from_tag(0, 0)),
                                                               parse_measure("R1"), 0.5, "A", False)}
    assert rows[("T1", "B")] == (pytest.approx(0.4), pytest.approx(0.5))


def test_judging_a_topics_only_human_summary_is_refused_by_validation_with_the_advice(tmp_path):
    judgments = TWO_REFERENCES_ONE_JUDGED + "T2\tA\t4\t4\n"     # T2's only human summary is A
    with pytest.raises(DatasetError) as e:
        load_dataset(write_tiny(tmp_path / "d", judgments=judgments))
    message = str(e.value)
    for part in ("judgments.tsv", "line 4", "field 'summarizer'", "('T2', 'A')",
                 "needs at least two human summaries to judge one against the others"):
        assert part in message, part


# ----------------------------------------------------------------------------- bad mappings

def _entry(path: Path, **changes) -> dict:
    entry = {"format": "table", "path": str(path), "columns": {"topic": "t", "summarizer": "s", "text": "x"},
             "references": {"column": "ref"}, "dimensions": {"q": {"min": 1, "max": 5}}, "human": {"coverage": ["q"]}}
    entry.update(changes)
    return entry


def test_an_unknown_column_names_the_config_key_file_header_row_and_column(tmp_path):
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q"], [["d1", "s1", "A.", "B.", "3"]])
    with pytest.raises(DatasetError) as e:
        imported(_entry(release, columns={"topic": "t", "summarizer": "system", "text": "x"}))
    message = str(e.value)
    for part in (str(release), "row 1 (header)", "field 'system'", "config key datasets.bench.columns.summarizer",
                 "no such column"):
        assert part in message, part


def test_a_field_missing_in_one_record_names_the_config_key_file_line_and_field(tmp_path):
    release = tmp_path / "r.jsonl"
    release.write_text(json.dumps({"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3}) + "\n"
                       + json.dumps({"t": "d1", "s": "s2", "ref": "B.", "q": 2}) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as e:
        imported(_entry(release))
    message = str(e.value)
    for part in (str(release), "line 2", "field 'x'", "missing", "config key datasets.bench.columns.text"):
        assert part in message, part


def test_a_bad_score_cell_names_the_row_and_field(tmp_path):
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q"], [["d1", "s1", "A.", "B.", "3"],
                                                                            ["d1", "s2", "C.", "B.", "nan"]])
    with pytest.raises(DatasetError) as e:
        imported(_entry(release))
    assert all(p in str(e.value) for p in (str(release), "row 3", "field 'q'", "'nan' is not a number"))


def test_a_pattern_that_matches_nothing_names_the_config_key_and_the_pattern(tmp_path):
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q"], [["d1", "s1", "A.", "B.", "3"]])
    pattern = str(tmp_path / "scores" / "{system}.csv")
    with pytest.raises(ConfigError) as e:
        entry_of(_entry(release, metric_files=[{"path": pattern, "metrics": ["bleu"]}]))
    for part in ("config key datasets.bench.metric_files[0].path", pattern, "matches no file"):
        assert part in str(e.value), part


def test_a_summary_twice_and_a_key_twice_in_json_are_refused(tmp_path):
    release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q"], [["d1", "s1", "A.", "B.", "3"],
                                                                            ["d1", "s1", "A.", "B.", "4"]])
    with pytest.raises(DatasetError, match=r"row 3, field 's': a second record for \('d1', 's1'\); the first is .*row 2"):
        imported(_entry(release))
    twice = tmp_path / "r.jsonl"
    twice.write_text('{"t": "d1", "s": "s1", "x": "A.", "ref": "B.", "q": 3, "q": 4}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"line 1, field 'q': the key appears twice"):
        imported(_entry(twice))


def test_the_import_job_reads_every_file_of_the_mapping(tmp_path):
    release = write_csv(tmp_path / "out" / "s1.csv", ["t", "x", "ref", "q"], [["d1", "A.", "B.", "3"]])
    write_csv(tmp_path / "out" / "s2.csv", ["t", "x", "ref", "q"], [["d1", "C.", "B.", "2"]])
    write_csv(tmp_path / "m" / "part1.csv", ["t", "s", "bleu"], [["d1", "s1", "0.5"]])
    entry = entry_of(_entry(tmp_path / "out" / "{system}.csv", columns={"topic": "t", "text": "x"},
                            metric_files=[{"path": str(tmp_path / "m" / "*.csv"), "columns": {"summarizer": "s"},
                                           "metrics": ["bleu"]}]))
    assert FORMATS["table"].inputs(entry) == {"tables": sorted([str(release), str(tmp_path / "out" / "s2.csv"),
                                                                str(tmp_path / "m" / "part1.csv")])}
    ds, scores = import_table(FORMATS["table"].options(entry), "bench")
    assert sorted(s.summarizer for s in ds.summaries) == ["ref0", "s1", "s2"]
    assert scores == [("d1", "s1", "bleu", 0.5)]


def test_fuzz_findings_a_row_cut_short_and_a_file_of_byte_order_marks_are_refused(tmp_path):
    """Found by the fuzz suite (tests/fuzz_cases.py, table_tsv): pandas' C engine reads a row cut
    short as empty cells (a lost score looked like an unjudged summary); a file of two byte-order
    marks was an IndexError."""
    short = tmp_path / "short.csv"
    short.write_text("t,s,x,ref,q\nd1,s1,A.,B.,3\nd1,s2,A.\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"short.csv: row 3, field 'ref': 3 cells; expected 5"):
        imported(_entry(short))
    marks = tmp_path / "marks.csv"
    marks.write_text("\ufeff\ufeff", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"marks.csv: no records; expected one record per summary"):
        imported(_entry(marks))


def test_the_worked_declarations_of_the_docs_are_valid_entries():
    """docs/datasets.md's three declarations pass the schema; the SummEval one, whose files exist
    here, passes the format's own checks too and reads the release."""
    import re

    import yaml

    from conftest import REPO
    from metaeval.options import validated

    text = (REPO / "docs" / "datasets.md").read_text(encoding="utf-8")
    section = text.split("## Bring any benchmark by declaring it", 1)[1].split("\n## ", 1)[0]
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, flags=re.S)]
    assert len(blocks) == 3
    for block in blocks:
        for name, entry in block["datasets"].items():
            assert validated({"datasets": {name: entry}})["datasets"][name]["format"] == "table"
    entry = blocks[0]["datasets"]["summeval_declared"]
    # the docs' clone of LLM_summeval: here, the copies of its files in ../shared/data/raw
    copies = shared_dataset("raw/summeval-official")
    entry["path"] = entry["path"].replace("LLM_summeval/model_output_annotations", str(copies))
    ds, _ = imported(entry, "summeval_declared")
    assert len(ds.judgments) == 1200 and len(ds.dimensions) == 8


@pytest.mark.workflow
def test_the_import_and_validation_jobs_run_a_declared_table(tmp_path):
    """The rule made from the registry, its thin script and the validation job, through Snakemake:
    one CSV per system, the reference system judged beside a second reference, a metric column."""
    from conftest import snakemake

    rows = {"s1": ["3", "0.25"], "s2": ["1", "1e-05"], "gold": ["5", "2.5E+3"]}
    for system, (overall, metric) in rows.items():
        write_csv(tmp_path / "release" / f"{system}.csv", ["doc", "summary", "second", "overall", "m"],
                  [[t, f"The {system} summary of {t}. It ends.", "A second reference. Of the topic.", overall, metric]
                   for t in ("d1", "d2")])
    (tmp_path / "my.yaml").write_text(json.dumps({"datasets": {"tab": {
        "format": "table", "path": "release/{system}.csv", "columns": {"topic": "doc", "text": "summary"},
        "references": {"column": "second", "system": "gold", "judged": True},
        "dimensions": {"overall": {"min": 1, "max": 5}}, "human": {"coverage": ["overall"]},
        "metric_columns": ["m"]}}}))
    snakemake(tmp_path, "--cores", "1", "results/tab/data/summary.tsv", "--configfile", str(tmp_path / "my.yaml"))
    summary = dict(line.split("\t") for line in (tmp_path / "results/tab/data/summary.tsv").read_text().splitlines())
    assert (summary["topics"], summary["systems"], summary["judged_human_summaries"]) == ("2", "2", "2")
    assert summary["references_per_topic_min"] == "2"
    with (tmp_path / "results/tab/import_table/metric_scores.tsv").open(newline="") as f:
        scores = {(r["topic"], r["summarizer"]): float(r["score"]) for r in csv.DictReader(f, delimiter="\t")}
    assert scores[("d1", "s2")] == 0.00001 and scores[("d2", "gold")] == 2500.0 and len(scores) == 6


def test_a_json_list_release_names_its_records_and_every_metric_column_is_checked(tmp_path):
    release = tmp_path / "r.json"
    release.write_text(json.dumps([{"t": 7, "s": "s1", "x": ["A.", "B."], "ref": "C.", "q": "4", "m1": 0.5},
                                   {"t": 7, "s": "s2", "x": ["D."], "ref": "C.", "q": True, "m1": 1}]))
    with pytest.raises(DatasetError) as e:
        imported(_entry(release, metric_columns=["m1"]))
    assert all(p in str(e.value) for p in (str(release), "record 2", "field 'q'", "True is not a number"))
    csv_release = write_csv(tmp_path / "r.csv", ["t", "s", "x", "ref", "q", "m1"], [["d1", "s1", "A.", "B.", "3", "1"]])
    with pytest.raises(DatasetError) as e:
        imported(_entry(csv_release, metric_columns=["m1", "m2"]))
    assert all(p in str(e.value) for p in ("row 1 (header)", "field 'm2'", "config key datasets.bench.metric_columns[1]"))
    release.write_text(json.dumps([{"t": 7, "s": "s1", "x": ["A.", "B."], "ref": "C.", "q": "4", "m1": 0.5}]))
    ds, scores = imported(_entry(release, metric_columns=["m1"]))
    # a JSON number as a topic is its text; a list is the sentences as given; a string score is parsed
    assert ds.summary("7", "s1").sentences == ("A.", "B.") and ds.judgments[("7", "s1")]["q"] == 4.0
    assert scores == [("7", "s1", "m1", 0.5)]
