"""REALSumm's own release (neulab/REALSumm scores_dicts/abs.pkl and ext.pkl) through the realsumm_pkl
importer: its errors on small pickles written here, and on the real files (../shared/data/raw/realsumm,
skipped when absent, required in CI) the counts and the system-level correlations of the authors'
metric scores with LitePyramid recall, against the pickles read independently in this file (NumPy's
own unpickler, restricted to NumPy's names) and scipy."""
from __future__ import annotations

import math
import pickle
import re
from pathlib import Path

import pytest
import scipy.stats

from conftest import release_entry, shared_dataset, snakemake
from metaeval import tables
from metaeval.data.contract import DatasetError
from metaeval.data.realsumm import METRICS, import_realsumm_pkl

SCORES = {"litepyramid_recall": 0.5, **{name: 0.25 for name in METRICS}}


def entry(text: str = "<t> a b . </t> <t> c d . </t>", **scores) -> dict:
    return {"system_summary": text, "scores": {**SCORES, **scores}}


def record(doc_id, ref: str = "<t> a c . </t>", **systems) -> dict:
    return {"doc_id": doc_id, "ref_summ": ref, "system_summaries": systems or {"m1.txt": entry()}}


def write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_bytes(pickle.dumps(data, protocol=3))
    return path


def test_two_halves_make_one_data_set_and_a_shared_system_is_kept_once(tmp_path):
    abs_ = write(tmp_path, "abs.pkl", {1: record(1, **{"bart_out.txt": entry(), "a.txt": entry()}),
                                       2: record(2, **{"bart_out.txt": entry(), "a.txt": entry()})})
    ext = write(tmp_path, "ext.pkl", {2: record(2, **{"bart_out.txt": entry(), "e.txt": entry("<t> x . </t> <t> y")}),
                                      1: record(1, **{"bart_out.txt": entry(), "e.txt": entry()})})
    ds, rows, declarations = import_realsumm_pkl([abs_, ext], "r")
    assert sorted(ds.judgments) == [(t, s) for t in ("1", "2") for s in ("a", "bart_out", "e")]
    assert sorted(s.key for s in ds.summaries if s.kind == "human") == [("1", "ref0"), ("2", "ref0")]
    assert ds.summary("2", "e").sentences == ("x .", "y")              # the last sentence cut off: kept
    assert ds.summary("1", "ref0").sentences == ("a c .",)
    assert len(rows) == 6 * len(METRICS) and {r[2] for r in rows} == set(declarations)
    assert ds.warnings == [f"bart_out: in {abs_}, {ext} with the same summaries and scores; kept once"]
    assert ("3 systems (2 in abs.pkl, 2 in ext.pkl; bart_out in several files with the same summaries and "
            "scores, kept once) on 2 CNN/DailyMail") in ds.meta["description"]
    assert ds.meta["human"] == {"coverage": ["litepyramid_recall"], "linguistic_quality": []}


@pytest.mark.parametrize("abs_data, ext_data, message", [
    # a shared system whose copies differ: a score, the text
    ({1: record(1, **{"b.txt": entry()})}, {1: record(1, **{"b.txt": entry(**{"js-2": -0.5})})},
     r"ext.pkl: record 1, system 'b.txt', field 'scores.js-2': -0.5, but 0.25 in \S+abs.pkl; expected a system in "
     r"several files to have the same scores"),
    ({1: record(1, **{"b.txt": entry()})}, {1: record(1, **{"b.txt": entry("<t> z . </t>")})},
     r"ext.pkl: record 1, system 'b.txt', field 'system_summary': differs from \S+abs.pkl's summary"),
    # the reference of a document differs between the files; the files cover different documents
    ({1: record(1)}, {1: record(1, ref="<t> other . </t>", **{"e.txt": entry()})},
     r"ext.pkl: record 1, field 'ref_summ': differs from \S+abs.pkl's reference of this document"),
    ({1: record(1), 2: record(2)}, {1: record(1, **{"e.txt": entry()})},
     r"ext.pkl: documents \['2'\] are in one of \S+abs.pkl and \S+ext.pkl only"),
    # a record's doc_id is not its key; a record that is not a mapping
    ({1: record(2)}, {}, r"abs.pkl: record 1, field 'doc_id': 2; expected the record's key, 1"),
    ({1: [1]}, {}, r"abs.pkl: record 1: a list; expected a mapping with doc_id"),
    # scores: missing, unknown, out of range, not a number, not finite (a NumPy nan)
    ({1: record(1, **{"m.txt": {"system_summary": "<t> a . </t>", "scores": {"litepyramid_recall": 0.5}}})}, {},
     r"abs.pkl: record 1, system 'm.txt', field 'scores.bert_precision_score': missing"),
    ({1: record(1, **{"m.txt": entry(rouge_4_recall=0.1)})}, {},
     r"record 1, system 'm.txt', field 'scores.rouge_4_recall': an unknown score; expected litepyramid_recall, "),
    ({1: record(1, **{"m.txt": entry(litepyramid_recall=1.5)})}, {},
     r"field 'scores.litepyramid_recall': 1.5 is outside \[0, 1\]"),
    ({1: record(1, **{"m.txt": entry(mover_score="0.3")})}, {}, r"field 'scores.mover_score': '0.3'; expected a number"),
    ({1: record(1, **{"m.txt": entry(mover_score=math.inf)})}, {}, r"field 'scores.mover_score': inf; expected a finite"),
    # texts: unmarked, a sentence cut off before the last, an empty sentence, not a string
    ({1: record(1, **{"m.txt": entry("a b .")})}, {},
     r"record 1, system 'm.txt', field 'system_summary': 'a b .'; expected sentences marked <t> ... </t>"),
    ({1: record(1, **{"m.txt": entry("<t> a <t> b . </t>")})}, {}, r"field 'system_summary': sentence 1: '<t> a '"),
    ({1: record(1, **{"m.txt": entry("<t> a . </t> <t> </t>")})}, {}, r"sentence 2: '<t> </t>'"),
    ({1: record(1, ref=None)}, {}, r"abs.pkl: record 1, field 'ref_summ': None; expected a string"),
    # a system named as the references are; an empty file
    ({1: record(1, **{"ref0.txt": entry()})}, {}, r"system 'ref0.txt', field 'system_summaries': 'ref0' is the name"),
    ({}, {}, r"abs.pkl: a dict; expected a non-empty mapping"),
])
def test_each_problem_names_the_file_the_document_the_system_and_the_field(tmp_path, abs_data, ext_data, message):
    paths = [write(tmp_path, "abs.pkl", abs_data)] + ([write(tmp_path, "ext.pkl", ext_data)] if ext_data else [])
    with pytest.raises(DatasetError) as error:
        import_realsumm_pkl(paths, "r")
    assert str(error.value).startswith(str(tmp_path)), error.value
    assert re.search(message, str(error.value)), error.value


def test_a_numpy_nan_score_is_refused_naming_the_field(tmp_path):
    np = pytest.importorskip("numpy")
    path = write(tmp_path, "abs.pkl", {1: record(1, **{"m.txt": entry(mover_score=np.float64("nan"))})})
    with pytest.raises(DatasetError, match=r"abs.pkl: record 1, system 'm.txt', field 'scores.mover_score': nan; "
                                           r"expected a finite number"):
        import_realsumm_pkl([path], "r")


# ----------------------------------------------------------------------------- the real release

def independent_read() -> dict[str, dict]:
    """The two pickles as NumPy's own unpickler reads them (find_class restricted to NumPy's names):
    this test's reading, not the importer's."""
    folder = shared_dataset("raw/realsumm")

    class NumpyOnly(pickle.Unpickler):
        def find_class(self, module, name):
            if module.split(".")[0] != "numpy":
                raise pickle.UnpicklingError(f"{module}.{name}")
            return super().find_class(module, name)

    out = {}
    for name in ("abs.pkl", "ext.pkl"):
        with open(folder / name, "rb") as fh:
            out[name] = NumpyOnly(fh).load()
    return out


@pytest.fixture(scope="module")
def release():
    raw = independent_read()
    folder = shared_dataset("raw/realsumm")
    return raw, import_realsumm_pkl([folder / "abs.pkl", folder / "ext.pkl"], "realsumm")


def test_the_counts_are_the_release_files(release):
    raw, (ds, rows, declarations) = release
    systems = {n: {s for rec in data.values() for s in rec["system_summaries"]} for n, data in raw.items()}
    assert len(systems["abs.pkl"]) == 14 and len(systems["ext.pkl"]) == 11
    assert systems["abs.pkl"] & systems["ext.pkl"] == {"bart_out.txt"}
    unique = {s.removesuffix(".txt") for names in systems.values() for s in names}
    assert len(unique) == 24
    topics = {str(d) for data in raw.values() for d in data}
    assert len(topics) == 100
    assert {s.summarizer for s in ds.summaries if s.kind == "system"} == unique
    assert {s.topic for s in ds.summaries} == topics
    assert len(ds.judgments) == 24 * 100 and len([s for s in ds.summaries if s.kind == "human"]) == 100
    score_names = {k for data in raw.values() for rec in data.values() for e in rec["system_summaries"].values()
                   for k in e["scores"]} - {"litepyramid_recall"}
    assert len(score_names) == 14 and len(declarations) == 14 and len(rows) == 2400 * 14
    # bart_out: the same summaries and scores in both halves (what lets the importer keep one copy)
    for doc, rec in raw["abs.pkl"].items():
        assert rec["system_summaries"]["bart_out.txt"] == raw["ext.pkl"][doc]["system_summaries"]["bart_out.txt"]
    # every row and judgment equals the release's value
    expected = {(str(d), s.removesuffix(".txt"), METRICS[k][0]): float(v) for data in raw.values()
                for d, rec in data.items() for s, e in rec["system_summaries"].items() for k, v in e["scores"].items()
                if k != "litepyramid_recall"}
    assert {(t, s, m): v for t, s, m, v in rows} == expected
    assert all(ds.judgments[(str(d), s.removesuffix(".txt"))]["litepyramid_recall"] == e["scores"]["litepyramid_recall"]
               for data in raw.values() for d, rec in data.items() for s, e in rec["system_summaries"].items())


def system_means(raw: dict) -> tuple[list[str], dict[str, list[float]]]:
    """Per system (24, sorted) the mean over its 100 documents of LitePyramid recall and of each
    metric, from the independent read (bart_out once), summed exactly (math.fsum)."""
    by: dict[str, dict[str, list[float]]] = {}
    for data in raw.values():
        for doc, rec in data.items():
            for s, e in rec["system_summaries"].items():
                scores = by.setdefault(s.removesuffix(".txt"), {}).setdefault(str(doc), {})
                scores.update({k: float(v) for k, v in e["scores"].items()})
    systems = sorted(by)
    names = ["litepyramid_recall", *METRICS]
    return systems, {k: [math.fsum(d[k] for d in by[s].values()) / len(by[s]) for s in systems] for k in names}


@pytest.fixture(scope="module")
def workflow(tmp_path_factory) -> Path:
    """The workflow on the release as the catalog's ``realsumm`` declares it, up to
    the correlations (lightened: the authors' scores need no more ROUGE than the required baseline)."""
    shared_dataset("raw/realsumm")
    workdir = tmp_path_factory.mktemp("realsumm_pkl")
    import yaml

    entry = release_entry("realsumm")
    assert entry["format"] == "realsumm_pkl"
    config = {"datasets": {"realsumm": entry},
              "rouge": {"measures": ["R1", "R2"], "stemming": [1], "stopwords_removed": [0]}, "sera": {"enabled": False},
              "chrf": {"metrics": ["CHRF"]},
              "correlation": {"bootstrap_samples": 200, "baselines": ["R2_ST1_RS0_M_R"]}}
    (workdir / "config").mkdir()
    (workdir / "config/config.yaml").write_text(yaml.safe_dump(config))
    snakemake(workdir, "--cores", "1", "results/realsumm/analysis/correlations.tsv")
    return workdir


@pytest.mark.workflow
def test_system_level_correlations_equal_scipy_on_the_release(release, workflow):
    """Pearson, Spearman and Kendall tau-b of each of the 14 metrics' system means with the mean
    LitePyramid recall (24 systems), as the workflow computes them, equal scipy's on the independent read."""
    raw, _ = release
    systems, means = system_means(raw)
    rows = tables.read_tsv(workflow / "results/realsumm/analysis/correlations.tsv").to_dict("records")
    got = {r["variant"]: r for r in rows if r["combination"] == "coverage"}
    human = means["litepyramid_recall"]
    for name, (metric, _, _) in METRICS.items():
        row = got[f"{metric}_A"]
        assert int(row["n"]) == 24
        x = means[name]
        for key, value in (("pearson", scipy.stats.pearsonr(x, human)[0]),
                           ("spearman", scipy.stats.spearmanr(x, human)[0]),
                           ("kendall", scipy.stats.kendalltau(x, human)[0])):
            assert float(row[key]) == pytest.approx(value, abs=1e-12), (metric, key)
