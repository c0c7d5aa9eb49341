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

from conftest import (REPO, TINY, TINY_YAML, job_counts, scenario, shared_dataset, snakemake, tiny_records,
                      write_tiny)
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


TINY_OPTIONS = ToScoreOptions("tiny", "", None, None)


def loaded(folder: Path) -> to_score.Loaded:
    """A canonical folder as the texts-out job loads it, without a file of texts."""
    return to_score.Loaded(read_dataset(tiny_data(folder)), None, "")


def texts(record: dict) -> str:
    """A summary's text as the records give it: its sentences, one a line."""
    return "\n".join(record["sentences"]) if "sentences" in record else record["text"]


# ----------------------------------------------------------------------------- the records

def test_records_of_the_tiny_data_set_by_hand(tmp_path):
    folder = write_tiny(tmp_path / "t")
    docs = [{"topic": "T1", "documents": ["Le chat était assis sur le tapis ."]},
            {"topic": "T2", "documents": ["Dogs bark .", "Night falls ."]}]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    result = to_score.compute(loaded(folder), TINY_OPTIONS)
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
    to_score.write(to_score.compute(loaded(folder), TINY_OPTIONS), str(out))
    assert out.read_bytes() == first


def test_a_topic_without_documents_says_so(tmp_path):
    folder = write_tiny(tmp_path / "t")
    (folder / "documents.jsonl").write_text(json.dumps({"topic": "T1", "documents": ["only T1"]}) + "\n")
    result = to_score.compute(loaded(folder), TINY_OPTIONS)
    assert [(r["topic"], r["source"], r["note"]) for r in result.records][2:] == [
        ("T1", "only T1", None), ("T2", None, "topic 'T2' has no document in documents.jsonl (source is null)."),
        ("T2", None, "topic 'T2' has no document in documents.jsonl (source is null).")]


def test_a_release_without_sources_names_where_they_are():
    options = ToScoreOptions("realsumm", FORMATS["realsumm_pkl"].texts_from, None, None)
    result = to_score.compute(loaded(TINY), options)
    (note,) = result.notes
    assert note.startswith("data set 'realsumm' has no source documents (source is null). REALSumm's own release")
    assert "SUM/REALSumm/data.pkl" in note and "bartscore_pkl" in note
    assert {r["note"] for r in result.records} == {note} and {r["source"] for r in result.records} == {None}
    assert all(r["summary"] is not None for r in result.records)


def test_a_score_only_data_set_has_records_without_texts(tmp_path):
    records = [{k: v for k, v in r.items() if k not in ("sentences", "text")} for r in tiny_records()]
    folder = write_tiny(tmp_path / "t", records=records, yaml_text=TINY_YAML + "texts: false\n")
    options = ToScoreOptions("frank", FORMATS["frank"].texts_from, None, None)
    result = to_score.compute(loaded(folder), options)
    (note,) = result.notes
    assert note.startswith("data set 'frank' has no texts (a score-only data set: no summary, reference or source "
                           "text). FRANK's scores") and "benchmark_data.json" in note
    assert [(r["topic"], r["summarizer"], r["summary"], r["references"], r["source"]) for r in result.records] == [
        ("T1", "1", None, None, None), ("T1", "2", None, None, None), ("T1", "B", None, None, None),
        ("T2", "1", None, None, None), ("T2", "2", None, None, None)]


# ----------------------------------------------------------------------------- a score-only release's file of texts

def benchmark_data(records: list[dict], path: Path) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


def frank_like(tmp_path: Path) -> Path:
    """The tiny data set made score-only (as FRANK's is)."""
    records = [{k: v for k, v in r.items() if k not in ("sentences", "text")} for r in tiny_records()]
    return write_tiny(tmp_path / "t", records=records, yaml_text=TINY_YAML + "texts: false\n")


def test_a_score_only_release_gives_its_texts_from_its_file_of_texts(tmp_path):
    """FRANK's benchmark_data.json keyed by (hash, model_name) = (topic, summarizer): each judged summary
    gets its summary, its one reference and its article; one the file lacks says so."""
    folder = frank_like(tmp_path)
    texts = [{"hash": t, "model_name": m, "summary": f"sum {t}{m}", "reference": f"ref {t}", "article": f"art {t}"}
             for t, m in (("T1", "1"), ("T1", "2"), ("T1", "B"), ("T2", "1"))]
    texts.append({**texts[0]})                                  # given twice, alike: kept once
    texts.append({"hash": "T9", "model_name": "reference", "summary": "", "reference": "", "article": ""})
    path = benchmark_data(texts, tmp_path / "benchmark_data.json")
    options = ToScoreOptions("frank", FORMATS["frank"].texts_from, str(path), None)
    result = to_score.compute(to_score.load({**tiny_data(folder), "texts": str(path)}, options), options)
    assert [tuple(r.values()) for r in result.records] == [
        ("frank", "T1", "1", "sum T11", ["ref T1"], "art T1", None),
        ("frank", "T1", "2", "sum T12", ["ref T1"], "art T1", None),
        ("frank", "T1", "B", "sum T1B", ["ref T1"], "art T1", None),
        ("frank", "T2", "1", "sum T21", ["ref T2"], "art T2", None),
        ("frank", "T2", "2", None, None, None,
         "benchmark_data.json has no record of this summary (topic 'T2', summarizer '2'): no text.")]
    assert result.notes == [
        "data set 'frank': the texts of 4 of 5 judged summaries from the release's benchmark_data.json (summary, "
        "its reference summary, the article).",
        "1 judged summaries have no record in benchmark_data.json: their texts are null (their note says so)."]


@pytest.mark.parametrize("record,problem", [
    ({"hash": "T1", "summary": "s", "reference": "r", "article": "a"}, "record 0, field 'model_name': missing"),
    ({"hash": "T1", "model_name": "1", "summary": 3, "reference": "r", "article": "a"},
     "record 0 (T1, 1), field 'summary': missing or not a string"),
    ({"hash": "T1", "model_name": "1", "summary": "s", "reference": "r"}, "record 0 (T1, 1), field 'article'"),
])
def test_a_bad_file_of_texts_names_the_record_and_the_field(tmp_path, record, problem):
    from metaeval.data.contract import DatasetError
    from metaeval.data.frank import read_texts

    path = benchmark_data([record], tmp_path / "benchmark_data.json")
    with pytest.raises(DatasetError, match=re.escape(f"{path}: {problem}")):
        read_texts(path)
    # the texts-out job goes on without the file (the data set can do without it), and says why
    folder = frank_like(tmp_path)
    options = ToScoreOptions("frank", FORMATS["frank"].texts_from, str(path), None)
    result = to_score.compute(to_score.load({**tiny_data(folder), "texts": str(path)}, options), options)
    assert f"The release's benchmark_data.json could not be read ({path}: {problem}" in result.notes[0]
    assert {r["summary"] for r in result.records} == {None}
    other = {"hash": "T1", "model_name": "1", "summary": "s", "reference": "r", "article": "a"}
    path = benchmark_data([other, {**other, "summary": "t"}], tmp_path / "twice.json")
    with pytest.raises(DatasetError, match=re.escape("record 1 (T1, 1): a second record of this article and model "
                                                     "with other texts than record 0's")):
        read_texts(path)


def test_a_catalog_benchmarks_file_of_texts_is_read_as_its_fetch_manifest_says(tmp_path):
    """Absent: the note says why and how to fetch it again; verified: read once its SHA-256 is the
    manifest's; changed since: an error naming the file and both digests."""
    import hashlib

    from metaeval.data.contract import DatasetError

    folder = frank_like(tmp_path)
    release = tmp_path / "results/frank/release"
    (release / "data").mkdir(parents=True)
    path = benchmark_data([{"hash": "T1", "model_name": "1", "summary": "s", "reference": "r", "article": "a"}],
                          release / "data/benchmark_data.json")
    options = ToScoreOptions("frank", FORMATS["frank"].texts_from, str(path), str(release))
    manifest = release / "MANIFEST.tsv"
    header = "path\tstatus\tbytes\tsha256\tgit_blob\turl\tnote\n"
    manifest.write_text(header + "data/benchmark_data.json\tabsent\t\t\tb46\thttps://x\tcould not be had: HTTP 404\n")
    result = to_score.compute(to_score.load({**tiny_data(folder), "texts_manifest": str(manifest)}, options), options)
    (note,) = result.notes
    assert note.startswith("data set 'frank' has no texts (a score-only data set: no summary, reference or source "
                           "text). The release's data/benchmark_data.json could not be had: HTTP 404; with a network "
                           "(or a mirror that has it) `snakemake --cores 2 --forcerun fetch_frank to_score` fetches it.")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest.write_text(header + f"data/benchmark_data.json\tverified\t9\t{digest}\tb46\thttps://x\t\n")
    result = to_score.compute(to_score.load({**tiny_data(folder), "texts_manifest": str(manifest)}, options), options)
    assert result.records[0]["summary"] == "s" and result.records[1]["note"].startswith("benchmark_data.json has no")
    path.write_text("[]")
    with pytest.raises(DatasetError, match=f"its sha256 is {hashlib.sha256(b'[]').hexdigest()}, not the {digest}"):
        to_score.load({**tiny_data(folder), "texts_manifest": str(manifest)}, options)


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


@pytest.mark.workflow
def test_a_frank_folder_of_yours_with_its_file_of_texts_gives_them_out(tmp_path):
    """FRANK as a user's own release (format frank, a folder), its benchmark_data.json beside the
    score files: the texts-out job reads it (a text per judged summary, written here from the
    release's own keys), while the data set stays score-only for the analyses."""
    raw = shared_dataset("raw") / "frank"
    folder = tmp_path / "frank"
    folder.mkdir()
    for name in ("human_annotations.json", "baseline_factuality_metrics_outputs.json"):
        (folder / name).write_bytes((raw / name).read_bytes())
    keys = [(r["hash"], r["model_name"]) for r in json.loads((raw / "human_annotations.json").read_text())]
    benchmark_data([{"hash": h, "model_name": m, "summary": f"{m} on {h}", "reference": f"ref {h}",
                     "article": f"article {h}"} for h, m in keys], folder / "benchmark_data.json")
    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    (work / "config/config.yaml").write_text(yaml.safe_dump({"datasets": {"frank": {"format": "frank",
                                                                                    "path": str(folder)}}}))
    snakemake(work, "--cores", "2", "to_score")
    records = [json.loads(l) for l in (work / "results/to_score/frank.jsonl").read_text().splitlines()]
    assert len(records) == len(keys) == 2246
    assert all((r["summary"], r["references"], r["source"], r["note"]) ==
               (f"{r['summarizer']} on {r['topic']}", [f"ref {r['topic']}"], f"article {r['topic']}", None)
               for r in records)
    summary = dict(tables.read_tsv(work / "results/frank/data/summary.tsv").itertuples(index=False, name=None))
    assert summary["texts"].startswith("no")
