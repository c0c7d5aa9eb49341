"""SummEdits as its authors released it (salesforce/factualNLG data/summedits/) through the summedits
importer: counts, labels, splits and domains against the JSON files read here with json alone, a
domain file that is not there left out and said so, a release without reference summaries in the
canonical form, and bad input (a label neither 0/1 nor "0"/"1", a duplicated id, a split) named by
file, record and field. The release files are in ../shared/data/raw/summedits (skipped when absent,
required in CI)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conftest import shared_dataset
from metaeval.data.contract import DatasetError
from metaeval.data.datasets import folder_files, folder_paths, read_dataset, write_dataset
from metaeval.data.summedits import SUMMARIZER, import_summedits


def test_the_release_is_read_as_its_files_say(tmp_path):
    folder = shared_dataset("raw") / "summedits"
    files = sorted(folder.glob("summedits_*.json"))
    ds, notes = import_summedits(files, [tmp_path / "summedits_billsum.json"])
    records = {p.name[len("summedits_"):-len(".json")]: json.loads(p.read_text(encoding="utf-8")) for p in files}
    assert len(records) == 8 and len(ds.summaries) == sum(map(len, records.values())) == 4681
    for domain, recs in records.items():
        for r in recs:
            s = ds.summary(r["id"], SUMMARIZER)
            assert (s.sentences, s.split, s.subset) == ((r["summary"],), r["split"], domain)
            assert ds.judgments[s.key] == {"consistent": float(int(r["label"]))}
            assert ds.documents[r["id"]] == [r["doc"]]
    assert Counter(s.split for s in ds.summaries) == {"test": 3695, "evaluation": 986}
    assert notes == [f"{tmp_path / 'summedits_billsum.json'}: the domain billsum is not there (not fetched, or not in "
                     "the folder): left out"]
    assert "Left out: billsum" in ds.meta["description"] and ds.meta["references"] is False
    # the canonical copy: summaries and sources with texts, no reference summary, and it reads back
    out = tmp_path / "copy"
    out.mkdir()
    write_dataset(ds, folder_paths(out))
    back = read_dataset(folder_files(out))
    assert not back.has_references and back.has_texts and len(back.judged()) == 4681
    assert back.summary("63f9455b8d931ba6e664fb84_og", SUMMARIZER).sentences == ds.summary(
        "63f9455b8d931ba6e664fb84_og", SUMMARIZER).sentences


def record(i: int, label=1, split="test", **more) -> dict:
    return {"id": f"seed_{i}", "doc": "The cat sat.", "summary": "A cat sat.", "label": label,
            "original_summary": "A cat sat.", "edit_types": [], "split": split, **more}


def write(folder: Path, domain: str, records: list) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"summedits_{domain}.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_labels_are_numbers_or_strings_and_the_splits_are_kept(tmp_path):
    a = write(tmp_path, "news", [record(0, 1, "evaluation"), record(1, "0"), record(2, "1")])
    b = write(tmp_path, "podcast", [record(3, 0)])
    ds, notes = import_summedits([a, b])
    assert {k[0]: v["consistent"] for k, v in ds.judgments.items()} == {"seed_0": 1.0, "seed_1": 0.0, "seed_2": 1.0,
                                                                         "seed_3": 0.0}
    assert [(s.split, s.subset) for s in ds.summaries] == [("evaluation", "news"), ("test", "news"), ("test", "news"),
                                                           ("test", "podcast")]
    assert notes == [] and "2 domains (news, podcast)" in ds.meta["description"]


@pytest.mark.parametrize("records, message", [
    ([record(0, 2)], r"summedits_news.json: record 0 \(seed_0\), field 'label': 2; expected 0 or 1"),
    ([record(0, "yes")], r"summedits_news.json: record 0 \(seed_0\), field 'label': 'yes'; expected 0 or 1"),
    ([record(0, True)], r"summedits_news.json: record 0 \(seed_0\), field 'label': True; expected 0 or 1"),
    ([record(0, 1.0)], r"summedits_news.json: record 0 \(seed_0\), field 'label': 1.0; expected 0 or 1"),
    ([record(0), record(0)], r"summedits_news.json: record 1 \(seed_0\), field 'id': 'seed_0' again \(first in "
                             r"\S+summedits_news.json, record 0\)"),
    ([record(0, split="train")], r"summedits_news.json: record 0 \(seed_0\), field 'split': 'train'; expected one of "
                                 "evaluation, test"),
    ([{k: v for k, v in record(0).items() if k != "doc"}], r"record 0 \(seed_0\), field 'doc': missing"),
    ([{**record(0), "summary": 3}], r"record 0 \(seed_0\), field 'summary': int; expected a string"),
])
def test_bad_input_names_the_file_the_record_and_the_field(tmp_path, records, message):
    with pytest.raises(DatasetError, match=message):
        import_summedits([write(tmp_path, "news", records)])


def test_an_id_in_two_domains_is_refused_naming_both(tmp_path):
    a = write(tmp_path, "news", [record(0)])
    b = write(tmp_path, "podcast", [record(0)])
    with pytest.raises(DatasetError, match=r"summedits_podcast.json: record 0 \(seed_0\), field 'id': 'seed_0' again "
                                           r"\(first in \S+summedits_news.json, record 0\)"):
        import_summedits([a, b])


def test_a_human_summary_in_a_release_without_references_is_refused(tmp_path):
    ds, _ = import_summedits([write(tmp_path / "r", "news", [record(0)])])
    out = tmp_path / "copy"
    out.mkdir()
    write_dataset(ds, folder_paths(out))
    lines = (out / "summaries.jsonl").read_text().splitlines()
    (out / "summaries.jsonl").write_text("\n".join([*lines, json.dumps({"topic": "seed_0", "summarizer": "ref0",
                                                                        "kind": "human", "sentences": ["x"]})]) + "\n")
    with pytest.raises(DatasetError, match=r"summaries.jsonl, line 2, field 'kind': a human summary \('seed_0', 'ref0'\)"
                                           r", but dataset.yaml says references: false"):
        read_dataset(folder_files(out))
