"""QAGS's per-worker judgments as its authors released them (W4ngatang/qags data/mturk_cnndm.jsonl and
mturk_xsum.jsonl) as annotations of BARTScore's QAGS pickles: every sentence's workers, the share of
sentences most workers said yes to equal to the pickle's fact, Krippendorff's alpha over the sentences
(units) and the workers (coders) equal to the krippendorff package's on the files read here with
json alone and the workers' own ids, and bad input named by file, line and field. The release files
are in ../shared/data/raw (skipped when absent, required in CI)."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from conftest import shared_dataset
from metaeval.data.bartscore import import_bartscore_pkl
from metaeval.data.contract import DatasetError
from metaeval.stats.agreement_alpha import alpha

HALVES = {"QAGS_CNN": "mturk_cnndm.jsonl", "QAGS_XSUM": "mturk_xsum.jsonl"}


def lines(name: str) -> list[dict]:
    path = shared_dataset("raw") / "qags" / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def imported(release: str):
    raw = shared_dataset("raw")
    return import_bartscore_pkl(raw / "bartscore-sum" / release / "data.pkl", "q", release,
                                raw / "qags" / HALVES[release])


@pytest.mark.parametrize("release", list(HALVES))
def test_every_sentence_keeps_its_workers_and_the_majority_share_is_the_pickles_fact(release):
    ds = imported(release)
    records = lines(HALVES[release])
    topics = sorted({s.topic for s in ds.summaries}, key=int)
    assert len(records) == len(topics) and len(ds.annotations) == sum(
        len(s["responses"]) for r in records for s in r["summary_sentences"])
    by_part = defaultdict(list)
    for a in ds.annotations:
        by_part[a.topic, a.part].append(a.score)
    for topic, rec in zip(topics, records):
        sentences = rec["summary_sentences"]
        answers = [[{"yes": 1.0, "no": 0.0}[r["response"]] for r in s["responses"]] for s in sentences]
        assert [sorted(by_part[topic, str(k + 1)]) for k in range(len(sentences))] == [sorted(a) for a in answers]
        majority = sum(sum(a) >= 2 for a in answers) / len(answers)
        (key,) = [k for k in ds.judgments if k[0] == topic]
        assert ds.judgments[key]["fact"] == majority, topic
    # the same three positions in every summary, each judging every sentence of it
    per_summary = defaultdict(set)
    for a in ds.annotations:
        per_summary[a.topic].add(a.annotator)
    assert set(map(frozenset, per_summary.values())) == {frozenset({"worker1", "worker2", "worker3"})}


@pytest.mark.parametrize("release, workers", [("QAGS_CNN", 162), ("QAGS_XSUM", 84)])
def test_alpha_over_sentences_and_workers_is_krippendorffs(release, workers):
    """Alpha (nominal) of the sentences (units) judged by the workers (coders, by the release's own ids:
    a worker x sentence matrix) by the krippendorff package, and the same alpha of the importer's
    annotations, whose coders are positions: alpha depends only on which values share a unit."""
    import krippendorff

    records = lines(HALVES[release])
    ids = sorted({r["worker_id"] for rec in records for s in rec["summary_sentences"] for r in s["responses"]})
    assert len(ids) == workers
    units = [s for rec in records for s in rec["summary_sentences"]]
    data = np.full((len(ids), len(units)), np.nan)
    for u, s in enumerate(units):
        for r in s["responses"]:
            data[ids.index(r["worker_id"]), u] = r["response"] == "yes"
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    ds = imported(release)
    parts = sorted({(a.topic, a.part) for a in ds.annotations}, key=lambda k: (int(k[0]), int(k[1])))
    mine = np.full((3, len(parts)), np.nan)
    for a in ds.annotations:
        mine[int(a.annotator[-1]) - 1, parts.index((a.topic, a.part))] = a.score
    assert alpha(mine, "nominal") == pytest.approx(expected, abs=1e-12)
    assert 0.2 < expected < 0.7


def write_mturk(folder: Path, records: list[dict]) -> Path:
    path = folder / "mturk_xsum.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, message", [
    (lambda r: r[0].update(article="another article"), r"line 1, field 'article': is not the article of the data "
                                                       "set's record 0"),
    (lambda r: r[0]["summary_sentences"][0]["responses"][0].update(response="maybe"),
     r"line 1, field 'summary_sentences\[0\].responses\[0\].response': 'maybe'; expected yes or no"),
    (lambda r: r[0]["summary_sentences"][0]["responses"][1].update(worker_id=r[0]["summary_sentences"][0][
        "responses"][0]["worker_id"]), r"line 1, field 'summary_sentences\[0\].responses\[1\].worker_id': \d+ answers "
                                       "twice for this sentence"),
    (lambda r: r[0]["summary_sentences"][0].update(sentence="something else"),
     r"line 1, field 'summary_sentences': are not the summary of the data set's record 0"),
    (lambda r: r.pop(), r"mturk_xsum.jsonl: 238 lines; expected one per record of the data set \(239\)"),
])
def test_bad_judgments_name_the_file_the_line_and_the_field(tmp_path, change, message):
    records = lines("mturk_xsum.jsonl")
    change(records)
    raw = shared_dataset("raw")
    with pytest.raises(DatasetError, match=message):
        import_bartscore_pkl(raw / "bartscore-sum/QAGS_XSUM/data.pkl", "q", "QAGS_XSUM", write_mturk(tmp_path, records))


def test_judgments_are_read_for_qags_alone(tmp_path):
    raw = shared_dataset("raw")
    with pytest.raises(DatasetError, match=r"per-worker judgments are read for QAGS_CNN and QAGS_XSUM only"):
        import_bartscore_pkl(raw / "bartscore-sum/Rank19/data.pkl", "r", "Rank19", write_mturk(tmp_path, []))
