"""Importers: SummEval official jsonl (against the shared canonical copy) and NIST DUC/TAC layouts
(written by the tests in exactly NIST's layouts, since the real data are licensed)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import shared_dataset
from metaeval.data.datasets import DatasetError, load_dataset, folder_paths, write_dataset
from metaeval.data.importers import (DucTacOptions, grade_to_unit, import_duc_tac, import_summeval_jsonl,
                                    read_manual_peer, read_see_table)

DIMS = ("coherence", "consistency", "fluency", "relevance")


def test_summeval_official_means_equal_canonical_judgments():
    raw = sorted(shared_dataset("raw/summeval-official").glob("*.jsonl"))
    canonical = load_dataset(shared_dataset("summeval"))
    imported = import_summeval_jsonl(raw)
    # the release files: every record of the 12 abstractive systems, read here with json alone
    records = [json.loads(line) for path in raw for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(imported.judgments) == len(records) == 1200
    assert sorted({r["model_id"] for r in records}) == sorted({s for _, s in imported.judgments})
    for key, scores in imported.judgments.items():
        for d in DIMS:
            assert scores[d] == canonical.judgments[key][d], (key, d)
    # every annotation kept: 3 experts and 5 crowd workers per summary and dimension, their means the judgments
    assert len(imported.annotations) == 1200 * 4 * (3 + 5)
    for rec in records:
        key = (rec["id"], rec["model_id"])
        for d in DIMS:
            experts = [a[d] for a in rec["expert_annotations"]]
            crowd = [a[d] for a in rec["turker_annotations"]]
            assert (len(experts), len(crowd)) == (3, 5)
            assert imported.judgments[key][d] == sum(experts) / 3
            assert imported.judgments[key][f"turker_{d}"] == sum(crowd) / 5
    mine = {(a.topic, a.summarizer, a.dimension, a.annotator): a.score for a in imported.annotations}
    first = records[0]
    assert [mine[(first["id"], first["model_id"], "relevance", f"crowd{i}")] for i in range(1, 6)] == \
        [float(a["relevance"]) for a in first["turker_annotations"]]
    # references ref0..ref10 as human summaries; the source articles become documents
    topic = next(iter(imported.judgments))[0]
    assert [r.summarizer for r in imported.references(topic)] == sorted(f"ref{i}" for i in range(11))
    assert imported.documents and topic in imported.documents
    # same sentence boundaries as the shared copy for the (tokenised) system output
    key = ("dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2", "M8")
    assert len(imported.summary(*key).sentences) == len(canonical.summary(*key).sentences) == 3


def test_summeval_import_writes_valid_canonical(tmp_path):
    raw = sorted(shared_dataset("raw/summeval-official").glob("*.jsonl"))
    write_dataset(import_summeval_jsonl(raw), folder_paths(tmp_path / "out"))
    ds = load_dataset(tmp_path / "out")
    assert len(ds.judged()) == 1200 and len(ds.dimensions) == 8
    assert len(ds.annotations) == 1200 * 4 * 8
    assert ds.dimensions["turker_coherence"].annotations_of == "coherence"
    assert ds.dimensions["turker_coherence"].annotation_group == "crowd"


def test_summeval_bad_record(tmp_path):
    good = {"id": "t1", "model_id": "M1", "decoded": "a b .", "references": ["r ."],
            "expert_annotations": [{d: 3 for d in DIMS}], "turker_annotations": [{d: 4 for d in DIMS}]}
    bad = dict(good, model_id="M2", expert_annotations=[{"coherence": 3}])
    f = tmp_path / "x.jsonl"
    f.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(DatasetError, match=r"x.jsonl, line 2, field 'expert_annotations\[0\].consistency'"):
        import_summeval_jsonl([f])
    other = dict(good, model_id="M3", references=["different ."])
    f.write_text(json.dumps(good) + "\n" + json.dumps(other) + "\n")
    with pytest.raises(DatasetError, match="line 2, field 'references': differ"):
        import_summeval_jsonl([f])


# --------------------------------------------------------------------------- DUC / TAC

SEE_HEADER = """\
Docset  Q_Type  Peer_Type  ...  (DUC 2004 SEE table: header lines are skipped)
------------------------------------------------------------------------------
"""


def _see_row(topic, summ, grades, pu, mpu, mu, e):
    cells = [topic, "x", "x", "x", "x", "x", "x", summ, *grades, "x", str(pu), str(mpu), "x", str(mu), str(e)]
    return " ".join(cells)


def _duc_folder(tmp_path: Path) -> Path:
    root = tmp_path / "duc"
    (root / "models").mkdir(parents=True)
    (root / "peers").mkdir()
    (root / "models" / "D30001.M.100.T.A").write_text("The police killed the gunman.\nThe town was quiet.\n")
    (root / "models" / "D30001.M.100.T.B").write_text(
        '<html><body>\n<a name="1">[1]</a> <a href="#1" id=1>Police shot a gunman.</a>\n'
        '<a name="2">[2]</a> <a href="#2" id=2>Calm returned.</a>\n</body></html>\n')
    (root / "peers" / "D30001.M.100.T.12").write_text("The gunman was killed by police.\n")
    (root / "peers" / "D30001.M.100.T.7").write_text("Police kill the gunman.\nIt rained.\n")
    (root / "peers" / "README").write_text("not a summary file\n")
    return root


def test_duc_see_table(tmp_path):
    root = _duc_folder(tmp_path)
    see = tmp_path / "see.table"
    see.write_text(SEE_HEADER
                   + _see_row("D30001", "12", "ABCDEAB", 4, 3, 5, 0.8) + "\n"
                   + _see_row("D30001", "7", ["1", "2", "3", "4", "5", "-", "1"], 3, 1, 4, 0.25) + "\n"
                   + _see_row("D30001", "A", "AAAAAAA", 2, 2, 4, 1.0) + "\n")
    ds = import_duc_tac(DucTacOptions(str(root), see_table=str(see)), "duc")
    assert ds.summary("D30001", "B").sentences == ("Police shot a gunman.", "Calm returned.")
    assert ds.summary("D30001", "A").sentences == ("The police killed the gunman.", "The town was quiet.")
    assert ds.summary("D30001", "12").kind == "system" and ds.summary("D30001", "A").kind == "human"
    j = ds.judgments[("D30001", "12")]
    assert j["coverage"] == pytest.approx(3 * 0.8 / 5)  # CS = |MPUs| * E / |MUs|
    assert [j[f"q{i}"] for i in range(1, 8)] == [1.0, 0.75, 0.5, 0.25, 0.0, 1.0, 0.75]
    j7 = ds.judgments[("D30001", "7")]
    assert j7["q1"] == 1.0 and j7["q5"] == 0.0 and math.isnan(j7["q6"])
    assert ds.human["coverage"] == ["coverage"] and len(ds.human["linguistic_quality"]) == 7
    reversed_ = import_duc_tac(DucTacOptions(str(root), see_table=str(see), grade_direction="E_best"), "duc")
    assert reversed_.judgments[("D30001", "12")]["q1"] == 0.0
    write_dataset(ds, folder_paths(tmp_path / "canon"))
    assert len(load_dataset(tmp_path / "canon").judged()) == 3


def test_duc_see_table_errors(tmp_path):
    root = _duc_folder(tmp_path)
    see = tmp_path / "see.table"
    see.write_text(SEE_HEADER + _see_row("D30001", "12", "ABCDXAB", 4, 3, 5, 0.8) + "\n")
    with pytest.raises(DatasetError, match=r"see.table, line 3, field 'column 12 \(quality question 5\)'"):
        read_see_table(see)
    see.write_text(SEE_HEADER + _see_row("D30001", "99", "ABCDEAB", 4, 3, 5, 0.8) + "\n")
    with pytest.raises(DatasetError, match="summarizer '99', which has no summary file"):
        import_duc_tac(DucTacOptions(str(root), see_table=str(see)), "duc")
    see.write_text(SEE_HEADER + _see_row("D30001", "12", "ABCDEAB", 4, 3, 5, 0.8) + "\nshort row\n")
    with pytest.raises(DatasetError, match="see.table, line 4"):
        read_see_table(see)


def test_tac_manual_peer(tmp_path):
    root = _duc_folder(tmp_path)
    mp = tmp_path / "manual.peer"
    mp.write_text("D30001 12 0.50 5 0 0.45 3 4\nD30001 7 0.20 2 1 0.18 2 2\nD30001 A 0.90 9 0 0.85 5 5\n")
    ds = import_duc_tac(DucTacOptions(str(root), manual_peer=str(mp)), "tac")
    assert ds.judgments[("D30001", "12")]["pyramid"] == 0.5
    assert ds.judgments[("D30001", "7")]["responsiveness"] == 2
    assert ds.human == {"coverage": ["pyramid"], "linguistic_quality": ["linguistic_quality"]}
    mp.write_text("D30001 12 0.50 5 0 0.45 3 7\n")
    with pytest.raises(DatasetError, match=r"responsiveness = 7.0 is outside \[1, 5\]"):
        import_duc_tac(DucTacOptions(str(root), manual_peer=str(mp)), "tac")
    assert read_manual_peer(mp, {"responsiveness": 6})[("D30001", "12")]["responsiveness"] == 3


def test_grade_to_unit():
    assert [grade_to_unit(g, "A_best") for g in "ABCDE"] == [1.0, 0.75, 0.5, 0.25, 0.0]
    assert [grade_to_unit(g, "E_best") for g in "ABCDE"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert grade_to_unit("3", "A_best") == 0.5
    with pytest.raises(ValueError):
        grade_to_unit("F", "A_best")


def test_duc_tac_refuses_judging_a_topics_only_human_summary_naming_the_table(tmp_path):
    """A judged human summary is scored against its topic's other human summaries; a topic with one
    human summary, judged in the SEE table, is refused by the importer, naming the table (not the
    canonical copy, as validation would)."""
    from fuzz_cases import call_duc, duc_base

    for name, data in duc_base().items():
        if not name.endswith(".B"):       # leave each topic one human summary, A
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_bytes(data)
    see = (tmp_path / "see.txt").read_text().splitlines(keepends=True)
    (tmp_path / "see.txt").write_text("".join(line for line in see if " B A B " not in line))
    peer = (tmp_path / "manual.peer").read_text().splitlines(keepends=True)
    (tmp_path / "manual.peer").write_text("".join(line for line in peer if " B " not in line))
    with pytest.raises(DatasetError) as e:
        call_duc(tmp_path)
    message = str(e.value)
    assert message.startswith(f"{tmp_path / 'see.txt'}") and "field 'summarizer'" in message
    assert "judges the human summary ('D30001', 'A'), the only human summary of its topic" in message
