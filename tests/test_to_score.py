"""Texts out (target ``to_score``: results/to_score/{dataset}.jsonl, metaeval.stages.to_score) and
the loop it opens: the script of docs/benchmarks.md ("Texts out"), run as written, scores the texts
and writes one score file for every data set, which the workflow accepts, each data set taking
exactly its rows. Expected records are built from the data set's files read with json alone."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, TINY, TINY_YAML, job_counts, scenario, snakemake, tiny_records, write_tiny
from metaeval import tables
from metaeval.data.datasets import read_dataset
from metaeval.data.formats import FORMATS
from metaeval.records import ToScoreOptions
from metaeval.stages import to_score

BENCHMARKS_DOC = REPO / "docs" / "benchmarks.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


NO_DOCUMENTS = ("data set 'tiny' has no source documents (source is null). A documents.jsonl in its canonical folder "
                "would give them (docs/DATASET_FORMAT.md).")


def tiny_data(folder: Path) -> dict[str, str]:
    return {k: str(folder / f) for k, f in (("dataset", "dataset.yaml"), ("summaries", "summaries.jsonl"),
                                            ("judgments", "judgments.tsv"), ("documents", "documents.jsonl"))
            if (folder / f).exists()}


def texts(record: dict) -> str:
    """A summary's text as the records give it: its sentences, one a line."""
    return "\n".join(record["sentences"]) if "sentences" in record else record["text"]


# ----------------------------------------------------------------------------- the records

def test_records_of_the_tiny_data_set_by_hand(tmp_path):
    folder = write_tiny(tmp_path / "t")
    docs = [{"topic": "T1", "documents": ["Le chat était assis sur le tapis ."]},
            {"topic": "T2", "documents": ["Dogs bark .", "Night falls ."]}]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    result = to_score.compute(read_dataset(tiny_data(folder)), ToScoreOptions("tiny", ""))
    by_key = {(r["topic"], r["summarizer"]): r for r in tiny_records()}
    a, b = texts(by_key[("T1", "A")]), texts(by_key[("T1", "B")])
    assert a == "The cat sat on the mat .\nIt purred ." and b == "A cat was sitting on a mat .\nIt was happy ."
    expected = [
        ("T1", "1", "The cat sat .\nThe mat was red .", [a, b], "Le chat était assis sur le tapis ."),
        ("T1", "2", "", [a, b], "Le chat était assis sur le tapis ."),
        ("T1", "B", b, [a], "Le chat était assis sur le tapis ."),            # a judged reference: without itself
        ("T2", "1", "Dogs bark .", ["Dogs bark at night ."], ["Dogs bark .", "Night falls ."]),
        ("T2", "2", "Night falls over the town .", ["Dogs bark at night ."], ["Dogs bark .", "Night falls ."]),
    ]
    assert [tuple(r.values()) for r in result.records] == [("tiny", *e, None) for e in expected]
    assert all(list(r) == ["dataset", "topic", "summarizer", "summary", "references", "source", "note"]
               for r in result.records)
    assert result.notes == []
    out = tmp_path / "tiny.jsonl"
    to_score.write(result, str(out))
    first = out.read_bytes()
    assert "était".encode() in first and first.endswith(b"\n") and first.count(b"\n") == 5
    to_score.write(to_score.compute(read_dataset(tiny_data(folder)), ToScoreOptions("tiny", "")), str(out))
    assert out.read_bytes() == first


def test_a_topic_without_documents_says_so(tmp_path):
    folder = write_tiny(tmp_path / "t")
    (folder / "documents.jsonl").write_text(json.dumps({"topic": "T1", "documents": ["only T1"]}) + "\n")
    result = to_score.compute(read_dataset(tiny_data(folder)), ToScoreOptions("tiny", ""))
    assert [(r["topic"], r["source"], r["note"]) for r in result.records][2:] == [
        ("T1", "only T1", None), ("T2", None, "topic 'T2' has no document in documents.jsonl (source is null)."),
        ("T2", None, "topic 'T2' has no document in documents.jsonl (source is null).")]


def test_a_release_without_sources_names_where_they_are():
    options = ToScoreOptions("realsumm", FORMATS["realsumm_pkl"].texts_from)
    result = to_score.compute(read_dataset(tiny_data(TINY)), options)
    (note,) = result.notes
    assert note.startswith("data set 'realsumm' has no source documents (source is null). REALSumm's own release")
    assert "../shared/data/realsumm" in note and "documents.jsonl" in note
    assert {r["note"] for r in result.records} == {note} and {r["source"] for r in result.records} == {None}
    assert all(r["summary"] is not None for r in result.records)


def test_a_score_only_data_set_has_records_without_texts(tmp_path):
    records = [{k: v for k, v in r.items() if k not in ("sentences", "text")} for r in tiny_records()]
    folder = write_tiny(tmp_path / "t", records=records, yaml_text=TINY_YAML + "texts: false\n")
    options = ToScoreOptions("frank", FORMATS["frank"].texts_from)
    result = to_score.compute(read_dataset(tiny_data(folder)), options)
    (note,) = result.notes
    assert note.startswith("data set 'frank' has no texts (a score-only data set: no summary, reference or source "
                           "text). FRANK's shipped files") and "benchmark_data.json" in note
    assert [(r["topic"], r["summarizer"], r["summary"], r["references"], r["source"]) for r in result.records] == [
        ("T1", "1", None, None, None), ("T1", "2", None, None, None), ("T1", "B", None, None, None),
        ("T2", "1", None, None, None), ("T2", "2", None, None, None)]


# ----------------------------------------------------------------------------- the loop, in the workflow

def docs_block(lang: str, starts: str) -> str:
    """The block of docs/benchmarks.md's loop (its sections 1 to 3: texts out, score them, one
    command) in ``lang`` that starts with ``starts``."""
    section = BENCHMARKS_DOC.read_text(encoding="utf-8").split("\n## 1. Texts out\n", 1)[1].split(
        "\n## 4. One leaderboard\n", 1)[0]
    (body,) = [b for l, b in FENCE.findall(section) if l == lang and b.startswith(starts)]
    return body


@pytest.fixture(scope="module")
def texts_run(tmp_path_factory) -> Path:
    """The docs' command of texts out, on the small scenario's config instead of the benchmarks'."""
    work = tmp_path_factory.mktemp("to_score")
    scenario(work)        # .test/config/config.yaml: the simulated data set and the tiny one
    command = shlex.split(docs_block("bash", "snakemake --cores 2 to_score").strip())
    assert command[0] == "snakemake" and ".test/config/benchmarks.yaml" in command, command
    snakemake(work, *[str(work / "config/config.yaml") if a == ".test/config/benchmarks.yaml" else a
                      for a in command[1:]])
    return work


@pytest.mark.workflow
def test_to_score_writes_every_data_sets_judged_summaries(texts_run):
    for dataset in ("sim", "tiny"):
        data = texts_run / "results" / dataset / "data"
        summaries = [json.loads(l) for l in (data / "summaries.jsonl").read_text(encoding="utf-8").splitlines()]
        documents = {d["topic"]: d["documents"] for d in map(json.loads, (data / "documents.jsonl").read_text(
            encoding="utf-8").splitlines())}
        judged = {tuple(row[:2]) for row in (l.split("\t") for l in (data / "judgments.tsv").read_text().splitlines()[1:])}
        refs = {}
        for s in sorted(summaries, key=lambda s: s["summarizer"]):
            if s["kind"] == "human":
                refs.setdefault(s["topic"], []).append(s)
        expected = []
        for s in sorted((s for s in summaries if (s["topic"], s["summarizer"]) in judged),
                        key=lambda s: (s["topic"], s["summarizer"])):
            docs = documents.get(s["topic"])
            expected.append({"dataset": dataset, "topic": s["topic"], "summarizer": s["summarizer"],
                             "summary": texts(s),
                             "references": [texts(r) for r in refs[s["topic"]] if r["summarizer"] != s["summarizer"]],
                             "source": None if not docs else docs[0] if len(docs) == 1 else docs,
                             "note": None if documents else NO_DOCUMENTS})
        lines = (texts_run / "results" / "to_score" / f"{dataset}.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(l) for l in lines] == expected
        assert len(expected) == len(judged)
        log = (texts_run / "results" / "to_score" / "logs" / f"{dataset}.log").read_text()
        assert f"{len(expected)} judged summaries written" in log
    sim = [json.loads(l) for l in (texts_run / "results/to_score/sim.jsonl").read_text().splitlines()]
    assert all(isinstance(r["source"], list) and len(r["source"]) == 3 for r in sim)   # 3 documents per topic
    assert "has no source documents" in (texts_run / "results/to_score/logs/tiny.log").read_text()


@pytest.mark.workflow
def test_to_score_is_not_part_of_the_main_run_and_is_byte_stable(texts_run):
    counts = job_counts(snakemake(texts_run, "-n").stdout)
    assert "to_score_dataset" not in counts and "validate_dataset" not in counts and "score" in counts
    before = {p.name: p.read_bytes() for p in (texts_run / "results/to_score").glob("*.jsonl")}
    snakemake(texts_run, "--cores", "1", "--forcerun", "to_score_dataset", "to_score")
    assert {p.name: p.read_bytes() for p in (texts_run / "results/to_score").glob("*.jsonl")} == before


@pytest.mark.workflow
def test_the_docs_script_scores_the_texts_and_each_data_set_takes_its_rows(texts_run):
    script = docs_block("python", "# score_texts.py")
    (texts_run / "score_texts.py").write_text(script, encoding="utf-8")
    subprocess.run([sys.executable, "score_texts.py"], cwd=texts_run, check=True, timeout=120)
    lines = (texts_run / "my_scores.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "dataset\ttopic\tsummarizer\tmetric\tscore"
    written = [l.split("\t") for l in lines[1:]]
    # the length ratio by hand on three tiny summaries: words of the summary / mean words of its references
    tiny = {(t, s): float(v) for d, t, s, _, v in written if d == "tiny"}
    assert (tiny[("T1", "B")], tiny[("T1", "2")], tiny[("T2", "1")]) == (12 / 10, 0.0, 3 / 5)
    (texts_run / "my_scores.yaml").write_text(docs_block("yaml", "metric_scores:"), encoding="utf-8")
    targets = [f"results/{d}/scores/file_metrics/scores.tsv" for d in ("sim", "tiny")]
    snakemake(texts_run, "--cores", "2", *targets, "--configfile", str(texts_run / "config/config.yaml"),
              str(texts_run / "my_scores.yaml"))
    for dataset in ("sim", "tiny"):
        got = tables.read_tsv(texts_run / f"results/{dataset}/scores/file_metrics/scores.tsv")
        mine = sorted((t, s, m, float(v)) for d, t, s, m, v in written if d == dataset)
        assert len(mine) == {"sim": 64, "tiny": 5}[dataset]
        assert [(t, s, m, float(v)) for t, s, m, v in got.itertuples(index=False)] == mine
        log = (texts_run / f"results/{dataset}/logs/file_metrics.log").read_text()
        assert f"length_ratio: {len(mine)} of {len(mine)} judged summaries scored" in log
        metrics = tables.read_tsv(texts_run / f"results/{dataset}/scores/file_metrics/metrics.tsv")
        assert metrics[["metric", "name", "dimension"]].values.tolist() == [["length_ratio", "Length ratio", ""]]
    config = yaml.safe_load((texts_run / "my_scores.yaml").read_text())
    assert config == {"metric_scores": ["my_scores.tsv"], "metrics": {"length_ratio": {"name": "Length ratio"}},
                      "leaderboard": {"focus": ["length_ratio"]}}
