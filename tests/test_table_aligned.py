"""``format: table`` releases whose files are aligned by line (metaeval.data.table): per-system
``summs.txt`` and ``metrics.csv`` following a file of sources, a JSON-lines file of annotations whose
ids and texts must agree with the lines, the reference judged as a system although it is its topic's
only human summary; row filters; score-only tables; mt-metrics-eval's layout.

Every expected value is computed here from the files the test writes, read directly (json, csv,
plain lines), never by the importer under test.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from metaeval.data.canonical_files import annotation_means
from metaeval.data.contract import Annotation, Dataset, DatasetError, Summary
from metaeval.data.datasets import check_lone_references_scored, folder_paths, load_dataset, write_dataset
from metaeval.data.dataset_yaml import parse_aggregation
from metaeval.data.formats import FORMATS
from metaeval.data.sentences import split_sentences
from metaeval.data.table import import_table
from metaeval.options import Options

CANONICAL_FILES = ("dataset.yaml", "summaries.jsonl", "judgments.tsv", "annotations.tsv", "documents.jsonl",
                   "pyramids.jsonl")


def entry_of(entry: dict, name: str = "dial") -> dict:
    """The validated entry (defaults filled in, the format's own checks run), as the workflow has it."""
    return Options.from_config({"datasets": {name: entry}}).dataset(name)


def imported(entry: dict, name: str = "dial"):
    return import_table(FORMATS["table"].options(entry_of(entry, name)), name)


# ----------------------------------------------------------------------------- a dialogue-summarization release

# topic id -> (source, {system: summary}); A is the reference, judged like the systems
DIALOGUES = {
    "13818513": ("Amanda: I baked cookies. Do you want some?\nJerry: Sure!",
                 {"A": "Amanda baked cookies and will bring Jerry some tomorrow.",
                  "m1": "Amanda baked cookies. Jerry wants some.", "m2": "Jerry baked cookies.",
                  "m3": "Amanda and Jerry talk about cookies. They agree."}),
    "13728867": ("Olivia: Who are you voting for?\nOlivier: Liberals as always.",
                 {"A": "Olivia and Olivier are voting for liberals.", "m1": "Olivier votes for liberals.",
                  "m2": "Olivia is voting.", "m3": "They talk about the election. Liberals win."}),
    "13681000": ("Tim: Hi, what's up?\nKim: Bad mood tbh, I was going to do lots of stuff but ended up "
                 "procrastinating", {"A": "Kim may try the pomodoro technique recommended by Tim.",
                                     "m1": "Kim is in a bad mood.", "m2": "Tim procrastinates.",
                                     "m3": "Kim procrastinated. Tim helps."}),
    "13730747": ("Edward: Rachel, I think I'm in ove with Bella..\nrachel: Dont say anything else..",
                 {"A": "Edward thinks he is in love with Bella.", "m1": "Edward loves Bella.",
                  "m2": "Rachel loves Edward.", "m3": "Edward and Rachel talk. Bella is mentioned."}),
}
# the line order of sources.txt and of every summs.txt / metrics.csv (not the ids' order)
LINE_ORDER = ["13728867", "13818513", "13730747", "13681000"]
SYSTEMS = ("A", "m1", "m2", "m3")
DIMS = ("coherence", "consistency")
METRICS = ("qa_eval", "src_bartscore", "ppl")


def _annotations(topic: str, system: str) -> list[dict]:
    """Three annotators' scores, varied by topic and system (1-5)."""
    t, s = sorted(DIALOGUES).index(topic), SYSTEMS.index(system)
    return [{"coherence": 1 + (t + 2 * s + a) % 5, "consistency": 1 + (3 * t + s + 2 * a) % 5} for a in range(3)]


def _metric_row(line: int, system: str) -> list[str]:
    s = SYSTEMS.index(system)
    return [f"{0.1 * (line + 1) + 0.05 * s:.3f}", f"{-2.5 + 0.25 * s - 0.125 * line:.4f}", f"{12.5 + s * 3 + line}"]


def write_release(root: Path) -> Path:
    """The release as its authors keep it: sources.txt, per system summs.txt + metrics.csv (rows in
    the sources' line order, no topic column), annotations.jsonl (ids, texts, annotators)."""
    rel = root / "release"
    rel.mkdir(parents=True)
    # a dialogue has several turns: sources.txt keeps one per line with the turns joined by " | "
    source_line = {t: DIALOGUES[t][0].replace("\n", " | ") for t in DIALOGUES}
    (rel / "sources.txt").write_text("".join(source_line[t] + "\n" for t in LINE_ORDER), encoding="utf-8")
    for system in SYSTEMS:
        (rel / system).mkdir()
        (rel / system / "summs.txt").write_text("".join(DIALOGUES[t][1][system] + "\n" for t in LINE_ORDER))
        with (rel / system / "metrics.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(METRICS)
            w.writerows(_metric_row(i, system) for i in range(len(LINE_ORDER)))
    with (rel / "annotations.jsonl").open("w") as f:
        for topic in sorted(DIALOGUES):          # the ids' order, not the lines'
            for system in SYSTEMS:
                f.write(json.dumps({"dialogue_id": topic, "model_id": system, "summary": DIALOGUES[topic][1][system],
                                    "source": source_line[topic], "expert_annotations": _annotations(topic, system)})
                        + "\n")
    return rel


def release_entry(rel: Path) -> dict:
    return {
        "format": "table",
        "path": f"{rel}/{{system}}/summs.txt", "aligned": True, "columns": {"text": "text"},
        "topics": {"path": f"{rel}/sources.txt", "document": "text"},
        "references": {"system": "A", "judged": True},
        "judgments": {"path": f"{rel}/annotations.jsonl", "layout": "annotators",
                      "columns": {"topic": "dialogue_id", "summarizer": "model_id", "text": "summary",
                                  "document": "source"},
                      "groups": {"expert": "expert_annotations"}},
        "dimensions": {d: {"min": 1, "max": 5, "annotations": {"group": "expert"}} for d in DIMS},
        "human": {"coverage": ["consistency"], "linguistic_quality": ["coherence"]},
        "metric_files": [{"path": f"{rel}/{{system}}/metrics.csv", "aligned": True, "metrics": list(METRICS)}],
    }


def direct_read(rel: Path, name: str = "dial") -> tuple[Dataset, list[tuple[str, str, str, float]]]:
    """The release read directly: line i of every per-system file is the topic whose source is
    line i of sources.txt, found through the annotations' ids."""
    records = [json.loads(line) for line in (rel / "annotations.jsonl").read_text().splitlines()]
    topic_of_source = {r["source"]: r["dialogue_id"] for r in records}
    lines = (rel / "sources.txt").read_text().splitlines()
    topics = [topic_of_source[line] for line in lines]
    summaries, scores = [], []
    for system in SYSTEMS:
        texts = (rel / system / "summs.txt").read_text().splitlines()
        with (rel / system / "metrics.csv").open(newline="") as f:
            rows = list(csv.DictReader(f))
        for topic, text, row in zip(topics, texts, rows):
            summaries.append(Summary(topic, system, "human" if system == "A" else "system", tuple(split_sentences(text))))
            scores += [(topic, system, m, float(row[m])) for m in METRICS]
    annotations = [Annotation(r["dialogue_id"], r["model_id"], d, f"expert{i + 1}", "expert", float(a[d]))
                   for r in records for i, a in enumerate(r["expert_annotations"]) for d in DIMS]
    dims = {d: _dimension(d) for d in DIMS}
    means = annotation_means(dims, annotations)
    judgments = {k: {d: means[d][k] for d in DIMS} for k in means[DIMS[0]]}
    meta = {"name": name, "description": f"imported from {rel}/{{system}}/summs.txt by its declared mapping (format: table)",
            "source": f"{rel}/{{system}}/summs.txt", "license": "", "citation": "",
            "dimensions": {d: {"min": 1.0, "max": 5.0, "description": "", "annotations": {"group": "expert"}}
                           for d in DIMS},
            "human": {"coverage": ["consistency"], "linguistic_quality": ["coherence"]},
            "judged_lone_references": True}
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=meta["human"], summaries=summaries, judgments=judgments,
                 documents={t: [s] for t, s in zip(topics, lines)}, annotations=annotations,
                 aggregation=parse_aggregation(None, "test"))
    return ds, sorted(scores)


def _dimension(name: str):
    from metaeval.data.contract import Dimension

    return Dimension(name, 1.0, 5.0, "", "graded", None, "expert", None)


def test_a_line_aligned_release_gives_the_canonical_folder_and_scores_of_a_direct_read(tmp_path):
    rel = write_release(tmp_path)
    ds, scores = imported(release_entry(rel))
    write_dataset(ds, folder_paths(tmp_path / "declared"))
    direct, direct_scores = direct_read(rel)
    write_dataset(direct, folder_paths(tmp_path / "direct"))
    for name in CANONICAL_FILES:
        assert (tmp_path / "declared" / name).read_text() == (tmp_path / "direct" / name).read_text(), name
    assert scores == direct_scores and len(scores) == 4 * 4 * 3
    # the reference is judged (14 systems in the release: here 4, A among them) ...
    assert ds.summary("13818513", "A").kind == "human"
    assert ds.judgments[("13818513", "A")]["coherence"] == pytest.approx(
        sum(a["coherence"] for a in _annotations("13818513", "A")) / 3)
    # ... and validation keeps it, the score files scoring it, and refuses it when none does
    folder = load_dataset(tmp_path / "declared")
    assert folder.lone_references == {(t, "A") for t in DIALOGUES}
    check_lone_references_scored(folder, {(t, s) for t, s, _, _ in scores}, "judgments.tsv")
    with pytest.raises(DatasetError) as e:
        check_lone_references_scored(folder, {(t, s) for t, s, _, _ in scores if s != "A"}, "judgments.tsv")
    assert "('13681000', 'A')" in str(e.value) and "no score file scores it (4 such summaries)" in str(e.value)


def test_the_lone_judged_reference_is_unscored_by_rouge_and_the_systems_are_scored_against_it(tmp_path):
    """ROUGE-1 recall of m1 on topic 13818513 against the reference A, by hand: A's tokens (ROUGE
    keeps a-z0-9, lower-cased) amanda baked cookies and will bring jerry some tomorrow (9);
    m1's: amanda baked cookies jerry wants some (6); shared: amanda, baked, cookies, jerry, some (5)."""
    from metaeval.metrics.rouge import parse_measure
    from metaeval.stages.scoring import score_measure, setting_from_tag, tokenize_dataset

    rel = write_release(tmp_path)
    ds, _ = imported(release_entry(rel))
    write_dataset(ds, folder_paths(tmp_path / "d"))
    folder = load_dataset(tmp_path / "d")
    rows = {(t, s): (p, r) for t, s, p, r, _ in score_measure(tokenize_dataset(folder, setting_from_tag(0, 0)),
                                                               parse_measure("R1"), 0.5, "A", False)}
    assert sorted({s for _, s in rows}) == ["m1", "m2", "m3"]
    assert len(rows) == 12 and ("13818513", "A") in folder.judgments
    # ROUGE-1.5.5 prints 5 decimals, which the scores reproduce
    assert rows[("13818513", "m1")] == (pytest.approx(5 / 6, abs=5e-6), pytest.approx(5 / 9, abs=5e-6))
    from metaeval.data.datasets import summary_table

    assert dict(summary_table(folder))["judged_lone_references"].startswith("4 ")


def test_without_scores_of_it_the_lone_judged_reference_is_still_refused(tmp_path):
    rel = write_release(tmp_path)
    entry = release_entry(rel)
    del entry["metric_files"]
    with pytest.raises(DatasetError) as e:
        imported(entry)
    message = str(e.value)
    # the first judged reference (the annotations' first id, 13681000) is line 4 of A's summs.txt
    for part in (f"{rel}/A/summs.txt, line 4", "('13681000', 'A')", "datasets.dial.references.judged",
                 "the only human summary of its topic"):
        assert part in message, part


# ----------------------------------------------------------------------------- bad alignments

def test_a_count_mismatch_names_both_files_both_counts_the_line_and_the_config_key(tmp_path):
    rel = write_release(tmp_path)
    with (rel / "m2" / "metrics.csv").open("a", newline="") as f:
        csv.writer(f).writerow(["0.5", "0.5", "0.5"])
    with pytest.raises(DatasetError) as e:
        imported(release_entry(rel))
    message = str(e.value)
    for part in (f"{rel}/m2/metrics.csv: 5 records", f"{rel}/sources.txt gives 4 topics", "row 6",
                 "config key datasets.dial.metric_files[0].aligned"):
        assert part in message, part
    rel2 = write_release(tmp_path / "short")
    (rel2 / "m3" / "summs.txt").write_text("".join(DIALOGUES[t][1]["m3"] + "\n" for t in LINE_ORDER[:3]))
    with pytest.raises(DatasetError) as e:
        imported(release_entry(rel2))
    message = str(e.value)
    for part in (f"{rel2}/m3/summs.txt: 3 records", "gives 4 topics", "'13681000'", "line 4",
                 "config key datasets.dial.aligned"):
        assert part in message, part


def test_a_line_that_disagrees_with_the_ids_names_both_files_the_line_and_the_config_key(tmp_path):
    rel = write_release(tmp_path)
    texts = [DIALOGUES[t][1]["m1"] for t in LINE_ORDER]
    texts[1], texts[2] = texts[2], texts[1]          # two lines of m1 swapped
    (rel / "m1" / "summs.txt").write_text("".join(t + "\n" for t in texts))
    with pytest.raises(DatasetError) as e:
        imported(release_entry(rel))
    message = str(e.value)
    # the JSON-lines record of (13730747, m1), in the ids' order, is line 14 of annotations.jsonl
    line = 1 + sorted(DIALOGUES).index("13730747") * 4 + 1
    for part in (f"{rel}/annotations.jsonl, line {line}", "field 'summary'", "('13730747', 'm1')",
                 f"{rel}/m1/summs.txt, line 3", "config key datasets.dial.judgments.columns.text"):
        assert part in message, part
    # a topic column beside the alignment must agree with it: m1's metrics.csv gives its ids reversed
    ids = write_release(tmp_path / "ids")
    for system in SYSTEMS:
        order = LINE_ORDER[::-1] if system == "m1" else LINE_ORDER
        with (ids / system / "metrics.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", *METRICS])
            w.writerows([t, *_metric_row(i, system)] for i, t in enumerate(order))
    entry = release_entry(ids)
    entry["metric_files"][0]["columns"] = {"topic": "id"}
    with pytest.raises(DatasetError) as e:
        imported(entry)
    message = str(e.value)
    for part in (f"{ids}/m1/metrics.csv: row 2, field 'id': '13681000'", "aligned with topic '13728867'",
                 f"{ids}/sources.txt, line 1", "config key datasets.dial.metric_files[0].aligned"):
        assert part in message, part


def test_a_filter_that_matches_nothing_names_the_file_and_the_config_key(tmp_path):
    rel = write_release(tmp_path)
    entry = release_entry(rel)
    entry["judgments"]["where"] = {"model_id": ["m9", "m8"]}
    with pytest.raises(DatasetError) as e:
        imported(entry)
    message = str(e.value)
    for part in (f"{rel}/annotations.jsonl: none of its 16 records has model_id in ['m9', 'm8']",
                 "config key datasets.dial.judgments.where"):
        assert part in message, part


# ----------------------------------------------------------------------------- row filters, score-only, {topic}

def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_a_row_filter_takes_the_references_from_the_rows_of_one_model(tmp_path):
    rows = [[t, m, f"The summary of {t} by {m}.", q] for t, q0 in (("d1", 1), ("d2", 2))
            for m, q in (("human", ""), ("s1", str(q0 + 1)), ("s2", str(q0 + 2)), ("s3", str(q0)))]
    release = _write_csv(tmp_path / "all.csv", ["doc", "model", "text", "overall"], rows)
    entry = {"format": "table", "path": str(release), "where": {"model": ["s1", "s2", "s3"]},
             "columns": {"topic": "doc", "summarizer": "model", "text": "text"},
             "references": {"path": str(release), "where": {"model": "human"}, "columns": {"summarizer": "model"}},
             "dimensions": {"overall": {"min": 1, "max": 5}}, "human": {"coverage": ["overall"]}}
    ds, _ = imported(entry, "filtered")
    expected = {(r[0], r[1]): ("human" if r[1] == "human" else "system", (r[2],)) for r in rows}
    assert {s.key: (s.kind, s.sentences) for s in ds.summaries} == expected
    assert ds.judgments == {(r[0], r[1]): {"overall": float(r[3])} for r in rows if r[1] != "human"}


def test_a_references_file_aligned_with_the_topics_order_of_the_summaries_file(tmp_path):
    """Without ``topics``, the order is that of the topics in the summaries' file (d2 first)."""
    rows = [["d2", "s1", "Two by one.", "4"], ["d2", "s2", "Two by two.", "2"], ["d1", "s1", "One by one.", "5"]]
    release = _write_csv(tmp_path / "sums.csv", ["doc", "sys", "text", "q"], rows)
    (tmp_path / "refs.txt").write_text("The reference of two.\nThe reference of one.\n")
    entry = {"format": "table", "path": str(release), "columns": {"topic": "doc", "summarizer": "sys", "text": "text"},
             "references": {"path": str(tmp_path / "refs.txt"), "aligned": True},
             "dimensions": {"q": {"min": 1, "max": 5}}, "human": {"coverage": ["q"]}}
    ds, _ = imported(entry, "refs_aligned")
    assert [(r.topic, r.summarizer, r.sentences) for t in ("d1", "d2") for r in ds.references(t)] == [
        ("d1", "ref0", ("The reference of one.",)), ("d2", "ref0", ("The reference of two.",))]
    (tmp_path / "refs.txt").write_text("The reference of two.\n")
    with pytest.raises(DatasetError) as e:
        imported(entry, "refs_aligned")
    for part in (f"{tmp_path}/refs.txt: 1 record, ", f"but {release} gives 2 topics", "'d1'", "row 4",
                 "config key datasets.refs_aligned.references.aligned"):
        assert part in str(e.value), part


def test_a_score_only_release_with_the_topic_from_the_path(tmp_path):
    """One CSV per topic (``{topic}``), judgments and metric scores only: dataset.yaml says
    texts: false, and the scores are the files'."""
    rows = {"t1": [["s1", "3", "0.5"], ["s2", "4", "0.25"], ["s3", "1", "0.75"]],
            "t2": [["s1", "2", "0.125"], ["s2", "5", "1.5"], ["s3", "2", "-1"]]}
    for topic, body in rows.items():
        _write_csv(tmp_path / "scores" / f"{topic}.csv", ["system", "human", "metric_x"], body)
    entry = {"format": "table", "path": f"{tmp_path}/scores/{{topic}}.csv", "texts": False,
             "columns": {"summarizer": "system"}, "metric_columns": ["metric_x"],
             "dimensions": {"human": {"min": 1, "max": 5}}, "human": {"coverage": ["human"]}}
    ds, scores = imported(entry, "scores_only")
    assert not ds.has_texts and all(s.sentences == () for s in ds.summaries)
    assert ds.judgments == {(t, r[0]): {"human": float(r[1])} for t, body in rows.items() for r in body}
    assert scores == sorted((t, r[0], "metric_x", float(r[2])) for t, body in rows.items() for r in body)
    write_dataset(ds, folder_paths(tmp_path / "d"))
    assert load_dataset(tmp_path / "d").has_texts is False
    assert FORMATS["table"].has_texts(entry_of(entry, "scores_only")) is False


# ----------------------------------------------------------------------------- mt-metrics-eval's layout

MT_SYSTEMS = ("sysA", "sysB", "sysC", "sysD", "refA")
MT_SOURCES = ["Der Hund bellt.", "Es regnet heute.", "Ich mag Kaffee.", "Wo ist der Bahnhof?", "Das Buch ist gut."]
MT_OUTPUTS = {
    "refA": ["The dog barks.", "It is raining today.", "I like coffee.", "Where is the station?", "The book is good."],
    "sysA": ["The dog barks.", "It rains today.", "I like coffee.", "Where is the train station?", "The book is good."],
    "sysB": ["The dog is barking.", "Today it rains.", "I like the coffee.", "Where is station?", "Book is good."],
    "sysC": ["Dog bark.", "Rain today.", "Coffee I like.", "Station where?", "The book good."],
    "sysD": ["The hound barks.", "It is raining.", "I love coffee.", "Where's the station?", "A good book."],
}


def _mqm(system: str, seg: int) -> str:
    if system == "sysD" and seg == 2:
        return "None"                # mt-metrics-eval's missing human score
    return repr(-float((MT_SYSTEMS.index(system) * 3 + seg * 2) % 7) - 0.5 * MT_SYSTEMS.index(system))


def _metric(system: str, seg: int) -> str:
    return repr(round(0.9 - 0.1 * MT_SYSTEMS.index(system) + 0.03 * ((seg * 5 + MT_SYSTEMS.index(system)) % 4), 6))


def write_mt_metrics_eval(root: Path) -> Path:
    """A small copy of mt-metrics-eval's layout for one language pair (README, "File organization"):
    sources/en-de.txt, references/en-de.refA.txt, system-outputs/en-de/{system}.txt (the reference
    among them), human-scores/en-de.mqm.seg.score and metric-scores/en-de/COMET-22-refA.seg.score
    (``system<TAB>score``, a block per system in segment order, no header)."""
    mt = root / "wmt"
    for d in ("sources", "references", "system-outputs/de-en", "human-scores", "metric-scores/de-en"):
        (mt / d).mkdir(parents=True)
    (mt / "sources/de-en.txt").write_text("".join(s + "\n" for s in MT_SOURCES))
    (mt / "references/de-en.refA.txt").write_text("".join(s + "\n" for s in MT_OUTPUTS["refA"]))
    for system, lines in MT_OUTPUTS.items():
        (mt / f"system-outputs/de-en/{system}.txt").write_text("".join(s + "\n" for s in lines))
    (mt / "human-scores/de-en.mqm.seg.score").write_text(
        "".join(f"{s}\t{_mqm(s, i)}\n" for s in MT_SYSTEMS for i in range(len(MT_SOURCES))))
    # metric scores cover every output but the reference they used
    (mt / "metric-scores/de-en/COMET-22-refA.seg.score").write_text(
        "".join(f"{s}\t{_metric(s, i)}\n" for s in MT_SYSTEMS if s != "refA" for i in range(len(MT_SOURCES))))
    return mt


def mt_entry(mt: Path) -> dict:
    """The worked declaration of docs/datasets.md ("A release aligned by line"), paths under ``mt``."""
    import re

    from conftest import REPO
    import yaml

    text = (REPO / "docs" / "datasets.md").read_text(encoding="utf-8")
    section = text.split("## A release aligned by line", 1)[1].split("\n## ", 1)[0]
    block = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", section, flags=re.S)[0])
    entry = block["datasets"]["wmt22_en_de"]
    return json.loads(json.dumps(entry).replace("mt-metrics-eval-v2/wmt22", str(mt)).replace("en-de", "de-en"))


def test_the_documented_mt_metrics_eval_declaration_reads_the_layout(tmp_path):
    mt = write_mt_metrics_eval(tmp_path)
    ds, scores = imported(mt_entry(mt), "wmt22_de_en")
    topics = [str(i) for i in range(1, len(MT_SOURCES) + 1)]    # no ids: named by line
    assert {s.key: (s.kind, s.sentences) for s in ds.summaries} == {
        (t, s): ("human" if s == "refA" else "system", (MT_OUTPUTS[s][i],))
        for s in MT_SYSTEMS for i, t in enumerate(topics)}
    assert ds.documents == {t: [MT_SOURCES[i]] for i, t in enumerate(topics)}
    expected = {(t, s): float(_mqm(s, i)) for s in MT_SYSTEMS if s != "refA" for i, t in enumerate(topics)
                if _mqm(s, i) != "None"}
    assert {k: v["mqm"] for k, v in ds.judgments.items()} == expected
    assert scores == sorted((t, s, "COMET", float(_metric(s, i))) for s in MT_SYSTEMS if s != "refA"
                            for i, t in enumerate(topics))


@pytest.mark.workflow
def test_the_system_level_correlation_of_mt_metrics_eval_equals_scipy_on_the_files(tmp_path):
    """Declared in the config, the workflow's system-level Pearson and Spearman of COMET (the mean
    of its segment scores) with MQM (the mean of the segments scored) equal scipy's on the score
    files read directly."""
    from scipy import stats

    from conftest import snakemake

    mt = write_mt_metrics_eval(tmp_path)
    entry = mt_entry(mt)
    (tmp_path / "my.yaml").write_text(json.dumps({"datasets": {"wmt": entry}}))
    snakemake(tmp_path, "--cores", "1", "results/wmt/analysis/correlations.tsv", "--configfile",
              str(tmp_path / "my.yaml"))

    def means(path: Path) -> dict[str, float]:
        by: dict[str, list[float]] = {}
        for line in path.read_text().splitlines():
            system, score = line.split("\t")
            if score != "None":
                by.setdefault(system, []).append(float(score))
        return {s: math.fsum(v) / len(v) for s, v in by.items()}

    human = means(mt / "human-scores/de-en.mqm.seg.score")
    metric = means(mt / "metric-scores/de-en/COMET-22-refA.seg.score")
    systems = sorted(set(metric) & set(human) - {"refA"})
    pearson = stats.pearsonr([metric[s] for s in systems], [human[s] for s in systems])[0]
    spearman = stats.spearmanr([metric[s] for s in systems], [human[s] for s in systems])[0]
    with (tmp_path / "results/wmt/analysis/correlations.tsv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["variant"] == "COMET_A"]
    row = next(r for r in rows if r["combination"] == "mqm")
    assert int(row["n"]) == len(systems) == 4
    assert float(row["pearson"]) == pytest.approx(pearson, abs=1e-12)
    assert float(row["spearman"]) == pytest.approx(spearman, abs=1e-12)


@pytest.mark.workflow
def test_the_workflow_judges_the_lone_reference_and_its_text_metrics_rest_on_the_others(tmp_path):
    """The release through the workflow: the reference A is judged; every correlation is ranked on
    the 3 systems all metrics score (common ground), and a metric of the release's own also has its
    r on all 4 it scores (pearson_covered, equal to scipy's on the files read directly); the notes
    count the 4 unscored summaries."""
    from scipy import stats

    from conftest import snakemake

    rel = write_release(tmp_path)
    # the reference is one of the judged summarizers the correlations are over
    (tmp_path / "my.yaml").write_text(json.dumps({"datasets": {"dial": release_entry(rel)},
                                                  "correlation": {"summarizers": "all"}}))
    snakemake(tmp_path, "--cores", "1", "results/dial/analysis/correlations.tsv", "--configfile",
              str(tmp_path / "my.yaml"))
    with (tmp_path / "results/dial/analysis/correlations.tsv").open(newline="") as f:
        rows = {(r["variant"], r["combination"]): r for r in csv.DictReader(f, delimiter="\t")}
    assert int(rows[("R1_ST1_RS0_A_R", "coverage")]["n"]) == 3
    assert int(rows[("qa_eval_A", "coverage")]["n"]) == 3
    assert int(rows[("qa_eval_A", "coverage")]["n_covered"]) == 4
    human, metric = {}, {}
    for system in SYSTEMS:
        with (rel / system / "metrics.csv").open(newline="") as f:
            metric[system] = math.fsum(float(r["qa_eval"]) for r in csv.DictReader(f)) / len(LINE_ORDER)
        human[system] = math.fsum(math.fsum(a["consistency"] for a in _annotations(t, system)) / 3
                                  for t in DIALOGUES) / len(DIALOGUES)
    expected = stats.pearsonr([metric[s] for s in SYSTEMS], [human[s] for s in SYSTEMS])[0]
    assert float(rows[("qa_eval_A", "coverage")]["pearson_covered"]) == pytest.approx(expected, abs=1e-12)
    scored = [s for s in SYSTEMS if s != "A"]
    on_common = stats.pearsonr([metric[s] for s in scored], [human[s] for s in scored])[0]
    assert float(rows[("qa_eval_A", "coverage")]["pearson"]) == pytest.approx(on_common, abs=1e-12)
    notes = dict(line.split("\t", 1) for line in (tmp_path / "results/dial/analysis/notes.tsv").read_text().splitlines())
    assert notes["unscored_references"].startswith("4 judged human summaries of A are their topics' only human")
    assert "rest on the 3 judged summarizers they score" in notes["unscored_references"]
