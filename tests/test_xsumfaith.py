"""XSumFaith as its authors released it (google-research-datasets/xsum_hallucination_annotations) through
the xsumfaith importer: the eval file's short system names established from the data (Faithful
recomputed from the workers' spans, by the README's rule, under every assignment of names), the
counts, judgments, annotations and metric scores against the CSV files read here with csv alone, and
bad input named by file, line and field (small files written here). The release files are in
../shared/data/raw/xsumfaith (skipped when absent, required in CI)."""
from __future__ import annotations

import csv
import itertools
import re
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import shared_dataset
from metaeval.data.contract import DatasetError
from metaeval.data.xsumfaith import FACTUAL, SCORES, SPANS, SYSTEMS, import_xsumfaith

SHORT = ("bert_withckpt", "bert_nockpt", "ptgen", "tconvs2s")
NAMES = ("BERTS2S", "TranS2S", "PtGen", "TConvS2S")


def rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def release() -> Path:
    return shared_dataset("raw") / "xsumfaith"


def recomputed_faithful() -> dict[tuple[str, str], float]:
    """Every annotated summary's Faithful by the release README's rule: each word (a run of non-space
    characters of the summary, its \\' read as ') scores 1 unless it lies inside a span the worker
    marked (offsets 1-based, end exclusive; a span from 0 starts at the text's start), averaged over
    the words and over the 3 workers."""
    text, marked = {}, defaultdict(lambda: defaultdict(list))
    for r in rows(release() / SPANS):
        key = (r["bbcid"], r["system"])
        text[key] = r["summary"].replace("\\'", "'")
        start, end = int(r["hallucinated_span_start"]), int(r["hallucinated_span_end"])
        marked[key][r["worker_id"]]                       # a worker with no span (NULL) still counts
        if start >= 0:
            marked[key][r["worker_id"]].append((start - 1, end - 1) if start else (0, end))
    out = {}
    for key, t in text.items():
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", t)]
        shares = [sum(not any(s <= a and b <= e for s, e in spans) for a, b in words) / len(words)
                  for spans in marked[key].values()]
        out[key] = sum(shares) / 3
    return out


def test_the_eval_files_system_names_are_established_from_the_spans():
    """Recomputing Faithful from the spans matches the eval file's value (to 1e-9) on 90 % or more of
    a short name's summaries under one system of the annotation files, and on under 3 % under any
    other: of the 24 ways to name the four short names, one is the data's, and it is the importer's."""
    faithful = recomputed_faithful()
    released = {}
    for r in rows(release() / SCORES):
        short, _, bbcid = r["system_bbcid"].rpartition("_")
        released[short, bbcid] = float(r["Faithful"])
    share = {}
    for short, name in itertools.product(SHORT, NAMES):
        mine = [(b, v) for (s, b), v in released.items() if s == short]
        share[short, name] = sum(abs(faithful[b, name] - v) < 1e-9 for b, v in mine) / len(mine)
    best = max(itertools.permutations(NAMES), key=lambda p: sum(share[s, n] for s, n in zip(SHORT, p)))
    mapping = dict(zip(SHORT, best))
    assert mapping == {"bert_withckpt": "BERTS2S", "bert_nockpt": "TranS2S", "ptgen": "PtGen",
                       "tconvs2s": "TConvS2S"} == SYSTEMS
    for (short, name), s in share.items():
        assert s >= 0.9 if mapping[short] == name else s < 0.03, (short, name, s)
    # under the mapping, 1,937 of the 1,992 released values are recomputed exactly
    assert sum(abs(faithful[b, SYSTEMS[s]] - v) < 1e-9 for (s, b), v in released.items()) == 1937


def test_the_release_is_read_as_its_files_say():
    ds, scores, declarations = import_xsumfaith(sorted(release().glob("*.csv")))
    spans, factual, evals = rows(release() / SPANS), rows(release() / FACTUAL), rows(release() / SCORES)
    summaries = {(r["bbcid"], r["system"]): r["summary"].replace("\\'", "'") for r in spans}
    assert {s.key: s.sentences for s in ds.summaries} == {k: (t,) for k, t in summaries.items()}
    assert len(ds.summaries) == 2500 and {s.kind for s in ds.summaries if s.summarizer == "Gold"} == {"human"}
    assert {s.summarizer for s in ds.summaries if s.kind == "system"} == set(NAMES)
    # judgments: the eval file's Faithful and Factual, as released, for its 1,992 summaries
    expected = {}
    for r in evals:
        short, _, bbcid = r["system_bbcid"].rpartition("_")
        expected[bbcid, SYSTEMS[short]] = {"faithful": float(r["Faithful"]), "factual": float(r["Factual"])}
    assert ds.judgments == expected and len(expected) == 1992
    # the authors' five metrics of the same summaries
    assert len(scores) == 5 * 1992 and set(declarations) == {"XSumFaith_ROUGE_1", "XSumFaith_ROUGE_2",
                                                            "XSumFaith_ROUGE_L", "BERTScore", "Entailment"}
    by = {(t, s, m): v for t, s, m, v in scores}
    for r in evals:
        short, _, bbcid = r["system_bbcid"].rpartition("_")
        assert by[bbcid, SYSTEMS[short], "Entailment"] == float(r["Entailment"])
        assert by[bbcid, SYSTEMS[short], "XSumFaith_ROUGE_L"] == float(r["RL"])
    # annotations: each worker's faithfulness of every summary (Gold's too), its factuality answers
    faithful = [a for a in ds.annotations if a.dimension == "faithful"]
    assert len(faithful) == len({(r["bbcid"], r["system"], r["worker_id"]) for r in spans}) == 7499
    answers = [(r["bbcid"], r["system"], r["worker_id"], r["is_factual"]) for r in factual]
    got = {(a.topic, a.summarizer, a.annotator): a.score for a in ds.annotations if a.dimension == "factual"}
    assert got == {(b, s, w): {"yes": 1.0, "no": 0.0}[v] for b, s, w, v in answers if v != "NULL"}
    # the mean of a summary's workers is the released Faithful (where the rule reproduces it)
    mean = defaultdict(list)
    for a in faithful:
        mean[a.key].append(a.score)
    assert sum(abs(sum(v) / 3 - expected[k]["faithful"]) < 1e-9 for k, v in mean.items() if k in expected) == 1937
    assert ds.meta["summary_level"] == "pooled" and ds.documents is None


HEADER_SPANS = ",".join(("bbcid", "system", "summary", "hallucination_type", "hallucinated_span",
                         "hallucinated_span_start", "hallucinated_span_end", "worker_id"))
SPAN_LINES = [f"1,{s},a b c,NULL,NULL,-1,-1,wid_{w}" for s in ("Gold", "BERTS2S") for w in range(3)]
HEADER_SCORES = "system_bbcid,R1,R2,RL,BERTScore,Entailment,Faithful,Factual"


def write_release(folder: Path, spans: list[str] = SPAN_LINES, scores: tuple[str, ...] = ("bert_withckpt_1",),
                  factual: list[str] = ()) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SPANS).write_text("\n".join([HEADER_SPANS, *spans]) + "\n")
    (folder / FACTUAL).write_text("\n".join(["bbcid,system,summary,is_factual,worker_id", *factual]) + "\n")
    (folder / SCORES).write_text("\n".join([HEADER_SCORES, *(f"{k},0.1,0.1,0.1,0.5,0.5,1.0,1.0" for k in scores)])
                                 + "\n")
    return [folder / SPANS, folder / FACTUAL, folder / SCORES]


def test_a_small_release_is_read(tmp_path):
    ds, scores, _ = import_xsumfaith(write_release(tmp_path, factual=["1,BERTS2S,a b c,yes,wid_0"]))
    assert sorted(ds.judgments) == [("1", "BERTS2S")] and len(scores) == 5
    assert [(a.annotator, a.score) for a in ds.annotations if a.dimension == "factual"] == [("wid_0", 1.0)]


@pytest.mark.parametrize("kwargs, message", [
    # an eval key that maps to no annotated summary: file, line, field
    ({"scores": ("bert_withckpt_2",)}, rf"{SCORES}, line 2, field 'system_bbcid': 'bert_withckpt_2' maps to \(2, "
                                       r"BERTS2S\), which hallucination_annotations_xsum_summaries.csv does not annotate"),
    ({"scores": ("pointer_1",)}, rf"{SCORES}, line 2, field 'system_bbcid': 'pointer_1'; expected <system>_<bbcid> "
                                 "with the system one of bert_withckpt"),
    ({"scores": ("bert_withckpt_1", "bert_withckpt_1")}, rf"{SCORES}, line 3, field 'system_bbcid': "
                                                         r"'bert_withckpt_1' again \(first on line 2\)"),
    ({"spans": [*SPAN_LINES[:-1], "1,BERTS2S,a b c,extrinsic,b,3,9,wid_2"]},
     rf"{SPANS}, line 7, field 'hallucinated_span_end': the span 3..9 is not within the summary's 5 characters"),
    ({"spans": [*SPAN_LINES[:-1], "1,BERTS2S,a b d,NULL,NULL,-1,-1,wid_2"]},
     rf"{SPANS}, line 7, field 'summary': differs from the summary of \(1, BERTS2S\) on line 5"),
    ({"spans": [*SPAN_LINES[:-1], "1,BERTS2S,a b c,NULL,NULL,-1,-1,worker"]},
     rf"{SPANS}, line 7, field 'worker_id': 'worker'; expected one of wid_0, wid_1, wid_2"),
    ({"factual": ["1,BERTS2S,a b c,maybe,wid_0"]}, rf"{FACTUAL}, line 2, field 'is_factual': 'maybe'; expected yes"),
    ({"factual": ["1,PtGen,a b c,yes,wid_0"]}, rf"{FACTUAL}, line 2, field 'system': \(1, PtGen\) is not a summary"),
])
def test_bad_input_names_the_file_the_line_and_the_field(tmp_path, kwargs, message):
    with pytest.raises(DatasetError, match=message):
        import_xsumfaith(write_release(tmp_path, **kwargs))
