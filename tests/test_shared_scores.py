"""One score file for every data set: the top-level ``metric_scores`` (rows naming their data set),
the top-level ``metrics`` declarations with the dimension a metric is meant for, and what of such a
file concerns one data set (metaeval.data.metric_scores, metaeval.data.shared_scores). The
workflow's side (each data set's file metrics job gets exactly its rows; re-runs) is in
tests/test_to_score.py and tests/test_operations.py."""
from __future__ import annotations

import hashlib
import tarfile
from pathlib import Path

import pytest
import yaml

from conftest import write_tiny
from metaeval import tables
from metaeval.data import metric_scores as ms
from metaeval.data import shared_scores
from metaeval.data.contract import DatasetError
from metaeval.data.datasets import FILES, read_dataset
from metaeval.options import ConfigError, Options
from metaeval.stages.archive import write_archive

HEADER = "dataset\ttopic\tsummarizer\tmetric\tscore\n"
# Rows of the tiny data set's five judged summaries ((T1, 1), (T1, 2), (T2, 1), (T2, 2), (T1, B)) and
# of another data set's summaries, which the tiny data set's job must leave alone.
TINY_ROWS = ["tiny\tT1\t1\tJ\t0.5", "tiny\tT1\t2\tJ\t0.25", "tiny\tT2\t1\tJ\t0.75", "tiny\tT2\t2\tJ\t1",
             "tiny\tT1\tB\tJ\t2"]
OTHER_ROWS = ["other\tX9\tsys\tJ\t7", "other\tX9\tsys2\tK\t8"]


def tiny_files(folder: Path) -> dict[str, str]:
    return {k: str(folder / f) for k, f in (("dataset", "dataset.yaml"), ("summaries", "summaries.jsonl"),
                                            ("judgments", "judgments.tsv"))}


def options(tiny: Path, shared: list[str], own: list[str] | None = None, metrics: dict | None = None,
            entry_metrics: dict | None = None) -> Options:
    """Two configured data sets: the tiny one (``own``: its entry's score files) and a simulated one."""
    entry = {"format": "canonical", "path": str(tiny), **({"metric_scores": own} if own else {}),
             **({"metrics": entry_metrics} if entry_metrics else {})}
    return Options.from_config({"datasets": {"tiny": entry, "other": {"format": "simulated"}},
                                "metric_scores": shared, "metrics": metrics or {}})


def check_tiny(tiny: Path, opts: Options) -> ms.FileMetrics:
    """The tiny data set's file metrics job, as the workflow runs it (its sources and options)."""
    return ms.load(opts.file_metric_sources("tiny"), tiny_files(tiny), opts.file_metrics("tiny"))


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


# ----------------------------------------------------------------------------- each data set takes its rows

def test_each_data_set_takes_its_own_rows_of_a_top_level_file(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join([OTHER_ROWS[0], *TINY_ROWS, OTHER_ROWS[1]]) + "\n")
    result = check_tiny(tiny, options(tiny, [path]))
    # by hand: the five tiny rows, sorted by topic and summarizer
    assert [(r.topic, r.summarizer, r.metric, r.score) for r in result.rows] == [
        ("T1", "1", "J", 0.5), ("T1", "2", "J", 0.25), ("T1", "B", "J", 2.0), ("T2", "1", "J", 0.75),
        ("T2", "2", "J", 1.0)]
    assert [(m.metric, m.judged, m.summaries) for m in result.metrics] == [("J", 5, 5)]
    assert result.coverage() == [f"J: 5 of 5 judged summaries scored (5 summaries in all; from {path})"]
    # the signature's checksum is of the data set's own rows: an edit of another data set's leaves it
    own = (HEADER + "\n".join(TINY_ROWS) + "\n").encode()
    assert dict(result.checksums)[path] == hashlib.sha256(own).hexdigest()


def test_a_data_set_without_a_row_of_a_top_level_file_gets_a_note(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join(OTHER_ROWS) + "\n")
    result = check_tiny(tiny, options(tiny, [path], metrics={"J": {"dimension": "relevance"}}))
    assert (result.rows, result.metrics) == ([], [])
    assert result.notes == [f"{path}: no row of data set 'tiny' (a top-level score file)",
                            "config key metrics.J: no score of 'J' for data set 'tiny'; the declaration applies "
                            "where the metric is scored"]


def test_a_row_naming_a_data_set_that_is_not_configured_is_an_error(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join([*TINY_ROWS[:2], "summeval\tT1\t1\tJ\t0.5"]) + "\n")
    with pytest.raises(DatasetError) as e:
        check_tiny(tiny, options(tiny, [path]))
    assert str(e.value) == (f"{path}, line 4, field 'dataset': 'summeval' is not a configured data set; expected one "
                            "of the data sets of the config key datasets: other, tiny")


def test_a_top_level_file_without_a_dataset_column_serves_one_data_set_only(tiny, tmp_path):
    rows = "".join(r.split("\t", 1)[1] + "\n" for r in TINY_ROWS)
    path = write(tmp_path / "plain.tsv", "topic\tsummarizer\tmetric\tscore\n" + rows)
    with pytest.raises(DatasetError) as e:
        check_tiny(tiny, options(tiny, [path]))
    assert str(e.value).startswith(
        f"{path}, line 1, field 'dataset': no 'dataset' column, but a file of the top-level metric_scores applies to "
        "every configured data set (other, tiny); expected the header dataset, topic, summarizer, metric, score")
    alone = Options.from_config({"datasets": {"tiny": {"format": "canonical", "path": str(tiny)}},
                                 "metric_scores": [path]})
    assert len(check_tiny(tiny, alone).rows) == 5


def test_an_entry_file_may_name_only_its_own_data_set(tiny, tmp_path):
    path = write(tmp_path / "own.tsv", HEADER + "\n".join([*TINY_ROWS, OTHER_ROWS[0]]) + "\n")
    with pytest.raises(DatasetError) as e:
        check_tiny(tiny, options(tiny, [], own=[path]))
    assert str(e.value).startswith(f"{path}, line 7, field 'dataset': 'other' is not this file's data set 'tiny'; a "
                                   "file of datasets.tiny.metric_scores")
    ok = write(tmp_path / "own_ok.tsv", HEADER + "\n".join(TINY_ROWS) + "\n")
    assert len(check_tiny(tiny, options(tiny, [], own=[ok])).rows) == 5


def test_a_row_of_the_data_set_is_checked_as_its_own(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join([*TINY_ROWS, "tiny\tT9\t1\tJ\t1"]) + "\n")
    with pytest.raises(DatasetError) as e:
        check_tiny(tiny, options(tiny, [path]))
    assert str(e.value) == (f"{path}, line 7, field 'summarizer': scores ('T9', '1'), which has no summary in "
                            "summaries.jsonl of data set 'tiny'")
    short = write(tmp_path / "short.tsv", HEADER + "tiny\tT1\t1\tJ\n")
    with pytest.raises(DatasetError, match=r"short.tsv, line 2: 4 tab-separated cells; expected 5 \(dataset, topic, "):
        check_tiny(tiny, options(tiny, [short]))
    dup = write(tmp_path / "dup.tsv", HEADER + "\n".join(TINY_ROWS) + "\n")
    own = write(tmp_path / "own.tsv", "topic\tsummarizer\tmetric\tscore\nT1\t1\tJ\t0.5\n")
    with pytest.raises(DatasetError, match=rf"dup.tsv, line 2, field 'metric': second score of 'J' for \('T1', '1'\); "
                                           rf"first in {own}, line 2"):
        check_tiny(tiny, options(tiny, [dup], own=[own]))


# ----------------------------------------------------------------------------- declarations and the dimension

def test_top_level_declarations_and_the_dimension_reach_metrics_tsv(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join(TINY_ROWS + [r.replace("\tJ\t", "\tK\t") for r in TINY_ROWS])
                 + "\n")
    opts = options(tiny, [path], metrics={"J": {"dimension": "fluency", "name": "Judge (fluency)"},
                                          "K": {"dimension": "coherence", "higher_is_better": False}},
                   entry_metrics={"J": {"name": "Judge J"}})
    result = check_tiny(tiny, opts)
    out = {k: str(tmp_path / f"{k}.tsv") for k in ("scores", "metrics")} | {"signature": str(tmp_path / "sig.txt")}
    ms.write(result, out)
    metrics = tables.read_tsv(out["metrics"]).set_index("metric")
    # the entry's name wins over the top level's, key by key; the top level's dimension stays
    assert metrics.loc["J", ["name", "dimension", "higher_is_better"]].tolist() == ["Judge J", "fluency", "yes"]
    assert metrics.loc["K", ["name", "dimension", "higher_is_better"]].tolist() == ["K", "coherence", "no"]
    assert result.notes == ["K: lower is better; negated for every analysis",
                            "K: declared for dimension 'coherence', which this data set does not have (its dimensions: "
                            "relevance, fluency); it is meant for no target here"]
    plain = check_tiny(tiny, options(tiny, [path]))
    ms.write(plain, out)
    assert tables.read_tsv(out["metrics"])["dimension"].tolist() == ["", ""]


@pytest.mark.parametrize("metrics, message", [
    ({"J": {"dimenson": "fluency"}}, "config key metrics.J: Additional properties are not allowed ('dimenson' was "
                                     "unexpected)"),
    ({"J": {"dimension": 3}}, "config key metrics.J.dimension: 3 is not of type 'string'"),
    ({"J": {"dimension": ""}}, "config key metrics.J.dimension: '' should be non-empty"),
])
def test_bad_top_level_declarations_name_the_key(tiny, metrics, message):
    with pytest.raises(ConfigError) as e:
        options(tiny, [], metrics=metrics)
    assert str(e.value) == message


def test_dataset_yaml_may_declare_the_dimension(tmp_path):
    from conftest import TINY_YAML

    folder = write_tiny(tmp_path / "t", yaml_text=TINY_YAML + "metrics:\n  J: {dimension: relevance}\n  K: {dimension: [x]}\n")
    with pytest.raises(DatasetError) as e:
        read_dataset(tiny_files(folder))
    assert str(e.value) == f"{folder / 'dataset.yaml'}, line {TINY_YAML.count(chr(10)) + 3}, field 'metrics.K.dimension': expected text"


def test_top_level_score_files_must_exist_outside_results(tiny, tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match=r"config key metric_scores\[0\]: 'nowhere.tsv' does not exist"):
        options(tiny, ["nowhere.tsv"])
    with pytest.raises(ConfigError, match=r"config key metric_scores\[0\]: .* is not a file; expected a score file"):
        options(tiny, [str(tmp_path)])
    monkeypatch.chdir(tmp_path)
    Path("results").mkdir()
    inside = write(tmp_path / "results" / "s.tsv", HEADER)
    with pytest.raises(ConfigError, match=r"config key metric_scores\[0\]: .* is inside the workflow's output folder"):
        options(tiny, [inside])


# ----------------------------------------------------------------------------- what re-runs, what is archived

def test_the_params_digest_changes_only_with_the_rows_that_concern_the_data_set(tmp_path):
    def digest(lines: list[str]) -> str:
        path = write(tmp_path / "all.tsv", HEADER + "".join(l + "\n" for l in lines))
        ((_, value),) = shared_scores.digests([path], "tiny", ["tiny", "other"])
        return value

    base = digest([*TINY_ROWS, *OTHER_ROWS])
    assert digest([*OTHER_ROWS, *TINY_ROWS]) == base                       # another data set's rows moved
    assert digest([*TINY_ROWS, OTHER_ROWS[0].replace("7", "9")]) == base   # another data set's rows edited
    assert digest([TINY_ROWS[0].replace("0.5", "0.6"), *TINY_ROWS[1:], *OTHER_ROWS]) != base
    assert digest([*TINY_ROWS, *OTHER_ROWS, "nope\tT1\t1\tJ\t1"]) != base  # a row that must be refused
    plain = write(tmp_path / "plain.tsv", "topic\tsummarizer\tmetric\tscore\nT1\t1\tJ\t1\n")
    assert shared_scores.own_rows(Path(plain).read_bytes(), "tiny") == Path(plain).read_bytes()


def test_the_archive_keeps_the_data_sets_rows_of_a_top_level_file(tiny, tmp_path):
    path = write(tmp_path / "all.tsv", HEADER + "\n".join([OTHER_ROWS[0], *TINY_ROWS]) + "\n")
    opts = options(tiny, [path])
    res = tmp_path / "results/tiny"
    (res / "data").mkdir(parents=True)
    for name in FILES.values():
        (res / "data" / name).write_text("x")
    out = tmp_path / "a.tar.gz"
    write_archive("tiny", res, opts.resolved("tiny"), "0" * 12, {"commit": "c", "dirty": False}, out,
                  opts.file_metric_sources("tiny"))
    with tarfile.open(out) as tar:
        archived = tar.extractfile("tiny-000000000000/data/tiny/metric_scores/all.tsv").read()
        config = yaml.safe_load(tar.extractfile("tiny-000000000000/config/config.yaml"))
        sums = tar.extractfile("tiny-000000000000/data/tiny/SHA256SUMS").read().decode()
    assert archived == (HEADER + "".join(r + "\n" for r in TINY_ROWS)).encode()
    assert f"{hashlib.sha256(archived).hexdigest()}  metric_scores/all.tsv\n" in sums
    assert config["metric_scores"] == [] and config["datasets"]["tiny"]["metric_scores"] == ["data/tiny/metric_scores/all.tsv"]


def test_a_byte_order_mark_leaves_each_data_set_its_own_rows_and_the_archive_reruns(tiny, tmp_path, monkeypatch):
    """A file saved with a UTF-8 byte-order mark (as Excel does): the header's first cell is
    ``dataset`` all the same, so the tiny data set's own rows are its five, its digest is the plain
    file's, and its archive holds those rows alone, which the archived config's file metrics job
    (the documented rerun) accepts."""
    text = HEADER + "\n".join([OTHER_ROWS[0], *TINY_ROWS, OTHER_ROWS[1]]) + "\n"
    path = tmp_path / "all.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    plain = write(tmp_path / "plain.tsv", text)
    own = (HEADER + "".join(r + "\n" for r in TINY_ROWS)).encode()          # by hand: the header and five rows
    assert shared_scores.own_rows(path.read_bytes(), "tiny") == own
    assert shared_scores.own_digest(path, "tiny") == hashlib.sha256(own).hexdigest()
    assert shared_scores.digests([str(path)], "tiny", ["tiny", "other"])[0][1] == \
        shared_scores.digests([plain], "tiny", ["tiny", "other"])[0][1]
    opts = options(tiny, [str(path)])
    assert len(check_tiny(tiny, opts).rows) == 5
    res = tmp_path / "results/tiny"
    (res / "data").mkdir(parents=True)
    for name in FILES.values():
        if (tiny / name).exists():
            (res / "data" / name).write_bytes((tiny / name).read_bytes())
        else:
            (res / "data" / name).write_text("x")
    out = tmp_path / "a.tar.gz"
    write_archive("tiny", res, opts.resolved("tiny"), "0" * 12, {"commit": "c", "dirty": False}, out,
                  opts.file_metric_sources("tiny"))
    unpacked = tmp_path / "unpacked"
    with tarfile.open(out) as tar:
        tar.extractall(unpacked, filter="data")
    root = unpacked / "tiny-000000000000"
    assert (root / "data/tiny/metric_scores/all.tsv").read_bytes() == own
    monkeypatch.chdir(root)
    rerun = Options.from_config(yaml.safe_load((root / "config/config.yaml").read_text()))
    result = ms.load(rerun.file_metric_sources("tiny"), tiny_files(root / "data/tiny"), rerun.file_metrics("tiny"))
    assert [(r.topic, r.summarizer, r.score) for r in result.rows] == [
        ("T1", "1", 0.5), ("T1", "2", 0.25), ("T1", "B", 2.0), ("T2", "1", 0.75), ("T2", "2", 1.0)]
