"""The release importers on the real files in ../shared/data/raw (required in CI): BARTScore's six
unified pickles and FRANK. Counts are checked against the release files read independently here
(json and a restricted unpickler of the test's own, plain Python); SummEval, REALSumm and Newsroom
must equal the converted copies in ../shared/data; pickles that would run code are refused and run
nothing; bad release files get errors naming file, record and field."""
from __future__ import annotations

import builtins
import io
import json
import math
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from conftest import shared_dataset
from metaeval.data.bartscore import RELEASES, import_bartscore_pkl
from metaeval.data.datasets import DatasetError, folder_paths, load_dataset, write_dataset
from metaeval.data.frank import import_frank
from metaeval.data.safe_pickle import load_data_pickle


class PlainData(pickle.Unpickler):
    """The test's own reader: dicts, lists, strings and numbers only."""

    def find_class(self, module, name):
        raise AssertionError(f"{module}.{name}")


def release(name: str) -> dict:
    with open(shared_dataset(f"raw/bartscore-sum/{name}/data.pkl"), "rb") as fh:
        return PlainData(fh).load()


def quiet(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_dataset(folder)


# The counts docs/benchmarks.md states, per release: topics, systems, system summaries, references per topic.
COUNTS = {"SummEval": (100, 16, 1600, 11), "REALSumm": (100, 24, 2400, 1), "Newsroom": (60, 7, 420, 1),
          "QAGS_CNN": (235, 1, 235, 1), "QAGS_XSUM": (239, 1, 239, 1), "Rank19": (373, 2, 746, 1)}
KINDS = {"SummEval": "graded", "REALSumm": "graded", "Newsroom": "graded", "QAGS_CNN": "proportion",
         "QAGS_XSUM": "proportion", "Rank19": "preference"}


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_bartscore_counts_against_the_release_read_independently(name):
    raw = release(name)
    ds = import_bartscore_pkl(shared_dataset(f"raw/bartscore-sum/{name}/data.pkl"), name.lower())
    topics = {str(k) for k in raw}
    systems = {str(s).removesuffix(".txt") for v in raw.values() for s in v["sys_summs"]}
    n_sys = sum(len(v["sys_summs"]) for v in raw.values())
    refs = {len(v["ref_summs"]) if "ref_summs" in v else 1 for v in raw.values()}
    assert (len(topics), len(systems), n_sys, max(refs)) == COUNTS[name]
    assert set(ds.topics) == topics
    assert {s.summarizer for s in ds.summaries if s.kind == "system"} == systems
    assert len(ds.judgments) == n_sys
    assert {d.kind for d in ds.dimensions.values()} == {KINDS[name]}
    # every human score as released
    for doc_id, v in raw.items():
        for s, entry in v["sys_summs"].items():
            row = ds.judgments[(str(doc_id), str(s).removesuffix(".txt"))]
            assert row == {k: float(x) for k, x in entry["scores"].items()}
    # the written copy reads back valid and equal
    return_trip = quiet(_written(ds))
    assert return_trip.judgments == ds.judgments


def _written(ds, root=None):
    import tempfile

    folder = Path(root or tempfile.mkdtemp()) / ds.name
    write_dataset(ds, folder_paths(folder))
    return folder


@pytest.mark.parametrize("name, folder", [("SummEval", "summeval"), ("REALSumm", "realsumm"), ("Newsroom", "newsroom")])
def test_bartscore_reproduces_the_shared_canonical_copies(name, folder):
    """Summaries (keys, kinds, sentences), judgments (exact floats) and documents equal
    ../shared/data/<folder>. No difference remains: the copies were made from these pickles with the
    same sentence rule (split after stand-alone . ! ? tokens) and the same names (REALSumm's
    ``.txt`` dropped; references ref0..). The copies' dataset.yaml carry the same texts; only
    the normalised copy's bookkeeping keys (has_documents, has_pyramids) are added by the workflow."""
    shared = quiet(shared_dataset(folder))
    ds = import_bartscore_pkl(shared_dataset(f"raw/bartscore-sum/{name}/data.pkl"), folder)
    mine = {s.key: (s.kind, s.sentences) for s in ds.summaries}
    theirs = {s.key: (s.kind, s.sentences) for s in shared.summaries}
    assert mine == theirs
    assert set(ds.judgments) == set(shared.judgments)
    for key, row in shared.judgments.items():
        assert ds.judgments[key] == row, key
    assert ds.documents == shared.documents
    assert list(ds.dimensions) == list(shared.dimensions)
    assert ds.human == shared.human
    for key in ("description", "license", "citation"):
        assert ds.meta[key] == shared.meta[key], key


def test_qags_and_rank19_shapes():
    qags = import_bartscore_pkl(shared_dataset("raw/bartscore-sum/QAGS_XSUM/data.pkl"), "qags_xsum")
    raw = release("QAGS_XSUM")
    # one system; the reference is the source article (the release's ref_summ is its src)
    assert all(v["ref_summ"] == v["src"] for v in raw.values())
    first = next(iter(raw))
    assert qags.references(str(first))[0].sentences == tuple(_split(raw[first]["src"]))
    rank = import_bartscore_pkl(shared_dataset("raw/bartscore-sum/Rank19/data.pkl"), "rank19")
    raw = release("Rank19")
    for doc_id, v in raw.items():
        assert {s: e["scores"]["fact"] for s, e in v["sys_summs"].items()} == {"correct": 1, "incorrect": 0}
        assert rank.judgments[(str(doc_id), "correct")]["fact"] == 1.0


def _split(text):
    out, cur = [], []
    for t in text.split():
        cur.append(t)
        if t in (".", "!", "?"):
            out.append(" ".join(cur))
            cur = []
    return out + ([" ".join(cur)] if cur else [])


# --------------------------------------------------------------------------- untrusted pickles

class RunsCommand:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


class OpensFile:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (builtins.open, (str(self.target), "w"))


class CallsSubprocess:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (subprocess.run, (["touch", str(self.target)],))


@pytest.mark.parametrize("payload", [RunsCommand, OpensFile, CallsSubprocess])
@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path, payload, protocol):
    target = tmp_path / "pwned"
    folder = tmp_path / "SummEval"
    folder.mkdir()
    # the payload hides inside an otherwise well-formed record
    data = {"d1": {"src": "a .", "ref_summ": "a .", "ref_summs": ["a ."],
                   "sys_summs": {"M1": {"sys_summ": payload(target), "scores": {}}}}}
    (folder / "data.pkl").write_bytes(pickle.dumps(data, protocol=protocol))
    with pytest.raises(DatasetError, match=r"data.pkl: the pickle asks for [\w.]+\.\w+, which would run code.*"
                                           r"refused, nothing was executed"):
        import_bartscore_pkl(folder / "data.pkl", "x")
    assert not target.exists()


def test_the_payload_is_live(tmp_path):
    """The malicious pickle of the test above really runs its command under plain pickle.load (in a
    child process), so the refusal is what keeps the file from being created."""
    target = tmp_path / "pwned"
    (tmp_path / "data.pkl").write_bytes(pickle.dumps({"x": RunsCommand(target)}))
    subprocess.run([sys.executable, "-c", "import pickle,sys; pickle.load(open(sys.argv[1], 'rb'))",
                    str(tmp_path / "data.pkl")], check=False, capture_output=True, timeout=60)
    assert target.exists()


def test_a_truncated_or_foreign_pickle(tmp_path):
    good = pickle.dumps({"d": {"src": "a .", "ref_summ": "a .", "sys_summs": {}}})
    (tmp_path / "cut.pkl").write_bytes(good[: len(good) // 2])
    with pytest.raises(DatasetError, match=r"cut.pkl: not a complete pickle"):
        load_data_pickle(tmp_path / "cut.pkl")
    (tmp_path / "text.pkl").write_text("not a pickle at all")
    with pytest.raises(DatasetError, match=r"text.pkl: not a complete pickle"):
        load_data_pickle(tmp_path / "text.pkl")


def _pickle(tmp_path, release_name, data):
    folder = tmp_path / release_name
    folder.mkdir(exist_ok=True)
    (folder / "data.pkl").write_bytes(pickle.dumps(data))
    return folder / "data.pkl"


def test_bad_bartscore_records(tmp_path):
    pair = {"src": "a .", "ref_summ": "a .",
            "sys_summs": {"correct": {"sys_summ": "a .", "scores": {"fact": 1}},
                          "incorrect": {"sys_summ": "b .", "scores": {"fact": 0}}}}
    unknown = dict(pair, sys_summs={**pair["sys_summs"], "other": {"sys_summ": "c .", "scores": {"fact": 0}}})
    with pytest.raises(DatasetError, match=r"record 7, system 'other', field 'sys_summs': unknown system for Rank19"):
        import_bartscore_pkl(_pickle(tmp_path, "Rank19", {6: pair, 7: unknown}), "r")
    two_correct = dict(pair, sys_summs={"correct": pair["sys_summs"]["correct"],
                                        "incorrect": {"sys_summ": "b .", "scores": {"fact": 1}}})
    with pytest.raises(DatasetError, match=r"record 3, field 'sys_summs': expected exactly one 'correct'"):
        import_bartscore_pkl(_pickle(tmp_path, "Rank19", {3: two_correct}), "r")
    newsroom = {"src": "a .", "ref_summ": "a .", "sys_summs": {"lede3": {"sys_summ": "a .", "scores": {
        "coherence": 3, "fluency": 9, "informativeness": 2, "relevance": 2}}}}
    with pytest.raises(DatasetError, match=r"record '1', system 'lede3', field 'scores.fluency': 9 is outside \[1, 5\]"):
        import_bartscore_pkl(_pickle(tmp_path, "Newsroom", {"1": newsroom}), "n")
    del newsroom["sys_summs"]["lede3"]["scores"]["relevance"]
    newsroom["sys_summs"]["lede3"]["scores"]["fluency"] = 3
    with pytest.raises(DatasetError, match=r"record '1', system 'lede3', field 'scores.relevance': missing"):
        import_bartscore_pkl(_pickle(tmp_path, "Newsroom", {"1": newsroom}), "n")
    with pytest.raises(DatasetError, match=r"record '2', field 'sys_summs': missing"):
        import_bartscore_pkl(_pickle(tmp_path, "Newsroom", {"2": {"src": "a .", "ref_summ": "a ."}}), "n")
    with pytest.raises(DatasetError, match=r"release 'Mystery' is not known; expected one of SummEval"):
        import_bartscore_pkl(_pickle(tmp_path, "Mystery", {}), "m")


# --------------------------------------------------------------------------- FRANK

def test_frank_counts_against_the_release_read_independently():
    folder = shared_dataset("raw/frank")
    human = json.loads((folder / "human_annotations.json").read_text())
    base = json.loads((folder / "baseline_factuality_metrics_outputs.json").read_text())
    ds, rows, declarations = import_frank(folder)
    assert not ds.has_texts and ds.meta["texts"] is False
    assert len(ds.summaries) == len(ds.judgments) == len(human) == 2246
    assert len({r["hash"] for r in human}) == len(ds.topics) == 499
    assert {s.summarizer for s in ds.summaries} == {r["model_name"] for r in human} and len(ds.human["coverage"]) == 1
    assert len(ds.dimensions) == len(human[0]) - 4 == 23
    assert {d.kind for d in ds.dimensions.values()} == {"proportion"}
    by = {(r["hash"], r["model_name"]): r for r in human}
    for s in ds.summaries:
        r = by[s.key]
        assert (s.split, s.subset) == (r["split"], r["dataset"])
        assert ds.judgments[s.key]["Factuality"] == r["Factuality"]
        assert ds.judgments[s.key]["Flip_EntE"] == r["Flip_EntE"]
    metrics = [k for k in base[0] if k not in ("hash", "model_name", "dataset", "split")]
    assert len(metrics) == len(declarations) == 15
    given = sum(1 for r in base for m in metrics if r[m] is not None)
    assert len(rows) == given == 2246 * 15 - 87          # Dep Entail: 83 nulls, FEQA: 4
    scores = {(t, s, m): v for t, s, m, v in rows}
    r = base[0]
    assert scores[(r["hash"], r["model_name"], "Rouge_1")] == float(r["Rouge 1"])
    assert scores[(r["hash"], r["model_name"], "Dep_Entail")] == float(r["Dep Entail"])


def _frank_copy(tmp_path, human_text=None, base_text=None):
    src = shared_dataset("raw/frank")
    folder = tmp_path / "frank"
    folder.mkdir(parents=True)
    (folder / "human_annotations.json").write_text(human_text or (src / "human_annotations.json").read_text())
    (folder / "baseline_factuality_metrics_outputs.json").write_text(
        base_text or (src / "baseline_factuality_metrics_outputs.json").read_text())
    return folder


def test_bad_frank_files(tmp_path):
    human = json.loads((shared_dataset("raw/frank") / "human_annotations.json").read_text())
    text = json.dumps(human)
    with pytest.raises(DatasetError, match=r"human_annotations.json, line 1: malformed JSON"):
        import_frank(_frank_copy(tmp_path / "a", human_text=text[: len(text) // 3]))
    broken = [dict(r) for r in human]
    del broken[5]["model_name"]
    with pytest.raises(DatasetError, match=r"human_annotations.json: record 5, field 'model_name': missing"):
        import_frank(_frank_copy(tmp_path / "b", human_text=json.dumps(broken)))
    broken = [dict(r) for r in human]
    broken[9]["Factuality"] = "high"
    with pytest.raises(DatasetError, match=r"record 9 \(\w+, \w+\), field 'Factuality': 'high' is not a number"):
        import_frank(_frank_copy(tmp_path / "c", human_text=json.dumps(broken)))
    base = json.loads((shared_dataset("raw/frank") / "baseline_factuality_metrics_outputs.json").read_text())
    base[3]["model_name"] = "GPT-9"
    with pytest.raises(DatasetError, match=r"baseline_factuality_metrics_outputs.json: record 3 \(\w+, GPT-9\): no "
                                           r"human annotation"):
        import_frank(_frank_copy(tmp_path / "d", base_text=json.dumps(base)))
