"""The job's memo (metaeval.memo): rows kept between runs are read, not recomputed, and what a job
writes from them is the same bytes as a fresh computation's; the memo is read without pickle, a
damaged entry is recomputed, and a job keeps only what it used."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from metaeval import memo


def _squares_and_samples(x: np.ndarray, calls: list):
    """A computation over rows: per row its sum of squares (axis 0) and three "samples" (axis 1)."""
    def compute(rows):
        calls.append(list(rows))
        part = x[rows]
        return {"sum": (part ** 2).sum(axis=1), "samples": np.stack([part[:, 0] * k for k in range(3)])}
    return compute


def test_without_a_job_everything_is_computed():
    x = np.arange(12.0).reshape(4, 3)
    calls: list = []
    out = memo.rows("squares", ("ctx",), [memo.digest(r) for r in x], _squares_and_samples(x, calls), {"samples": 1})
    assert calls == [[0, 1, 2, 3]]
    assert out["sum"].tolist() == [5.0, 50.0, 149.0, 302.0]          # by hand: 0+1+4, 9+16+25, ...
    assert out["samples"].shape == (3, 4)


def test_a_row_that_joins_is_the_only_one_computed(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 7))
    keys = [memo.digest(f"m{i}", r) for i, r in enumerate(x)]
    calls: list = []
    with memo.kept_in(tmp_path):
        memo.rows("squares", ("ctx",), keys[:4], _squares_and_samples(x, calls), {"samples": 1})
    with memo.kept_in(tmp_path):
        # the new metric comes second: the kept rows keep their values wherever they stand
        order = [0, 4, 1, 2, 3]
        out = memo.rows("squares", ("ctx",), [keys[i] for i in order],
                        _squares_and_samples(x[order], calls), {"samples": 1})
    assert calls == [[0, 1, 2, 3], [1]]
    fresh = _squares_and_samples(x[order], [])(list(range(5)))
    for name in ("sum", "samples"):
        assert out[name].tobytes() == fresh[name].tobytes()


def test_another_context_is_another_entry(tmp_path):
    x = np.ones((2, 2))
    keys = [memo.digest("a"), memo.digest("b")]
    calls: list = []
    with memo.kept_in(tmp_path):
        memo.rows("squares", ("seed", 1), keys, _squares_and_samples(x, calls))
        memo.rows("squares", ("seed", 2), keys, _squares_and_samples(x, calls))
    assert calls == [[0, 1], [0, 1]]
    assert len(list(tmp_path.iterdir())) == 2


def test_a_job_keeps_only_the_entries_it_used(tmp_path):
    x = np.ones((2, 2))
    keys = [memo.digest("a"), memo.digest("b")]
    with memo.kept_in(tmp_path):
        memo.rows("squares", ("seed", 1), keys, _squares_and_samples(x, []))
    with memo.kept_in(tmp_path):
        memo.rows("squares", ("seed", 2), keys, _squares_and_samples(x, []))
    (entry,) = tmp_path.iterdir()
    assert entry.name.startswith("squares.")
    assert sorted(p.name for p in entry.iterdir()) == ["keys.npy", "names.npy", "samples.npy", "sha256", "sum.npy"]


@pytest.mark.parametrize("damage", ["not an array", "a pickled object array", "missing", "fewer rows"])
def test_a_damaged_entry_is_computed_again_and_never_unpickled(tmp_path, damage):
    """An entry whose file is not an array, holds an object array (which only pickle can read), is
    missing or holds fewer rows than its keys is recomputed."""
    x = np.arange(4.0).reshape(2, 2)
    keys = [memo.digest("a"), memo.digest("b")]
    with memo.kept_in(tmp_path):
        memo.rows("squares", (), keys, _squares_and_samples(x, []))
    (entry,) = tmp_path.iterdir()
    if damage == "not an array":
        (entry / "sum.npy").write_bytes(b"not an array")
    elif damage == "missing":
        (entry / "sum.npy").unlink()
    elif damage == "fewer rows":
        np.save(entry / "sum.npy", np.array([1.0]))
    else:
        np.save(entry / "sum.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    calls: list = []
    with memo.kept_in(tmp_path):
        out = memo.rows("squares", (), keys, _squares_and_samples(x, calls))
    assert calls == [[0, 1]]
    assert out["sum"].tolist() == [1.0, 13.0]


def test_rows_with_one_key_are_computed_once(tmp_path):
    x = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]])
    keys = [memo.digest(r) for r in x]                 # rows 0 and 2 are one row
    for folder in (None, tmp_path):
        calls: list = []
        with memo.kept_in(folder):
            out = memo.rows("squares", (), keys, _squares_and_samples(x, calls), {"samples": 1})
        assert calls == [[0, 1]]
        assert out["sum"].tolist() == [5.0, 25.0, 5.0]
        assert out["samples"][:, 2].tolist() == [0.0, 1.0, 2.0]


def test_records_round_trip_exactly(tmp_path):
    """Rows of numbers read back are the values computed, to the last bit, with ints still ints."""
    values = [0.1 + 0.2, np.float64(1 / 3), np.nan, np.inf, np.int64(7), 5, "x", True]
    calls: list = []

    def row(i):
        calls.append(i)
        return tuple(values[:6 + i])

    keys = [memo.digest(i) for i in range(3)]
    with memo.kept_in(tmp_path):
        first = memo.records("rows", (), keys[:2], row)
    with memo.kept_in(tmp_path):
        second = memo.records("rows", (), keys, row)
    assert calls == [0, 1, 2]
    assert [[repr(v) for v in r] for r in second[:2]] == [[repr(v) for v in r] for r in first]
    r = second[1]
    assert r[0] == 0.30000000000000004 and r[1] == 1 / 3 and np.isnan(r[2]) and r[3] == float("inf")
    assert type(r[4]) is int and r[4] == 7
    assert second[2][5:] == (5, "x", True) and type(second[2][7]) is bool
    stored = json.loads(next(tmp_path.iterdir()).joinpath("rows.json").read_text())
    assert stored["keys"] == keys


def test_digest_refuses_what_it_cannot_read():
    with pytest.raises(TypeError, match="cannot digest a dict"):
        memo.digest({"a": 1})
    assert memo.digest(np.array([1.0])) != memo.digest(np.array([1]))     # dtype counts
    assert memo.digest(np.zeros((2, 3))) != memo.digest(np.zeros((3, 2)))  # shape counts


# ----------------------------------------------------------------------------- the stages that keep rows

def _statistics_inputs(n_sys: int, order: list[int]):
    """A data set of ``n_sys`` systems x 12 topics with five per-summary metrics (NaN where a summary
    is missing), its variants in ``order`` (the metric that joins a second run stands among them)."""
    from metaeval.stages.analysis_inputs import AnalysisInputs
    from metaeval.stats.bootstrap import PerSummary
    from metaeval.variants import Variant

    rng = np.random.default_rng(11)
    T = 12
    human = rng.normal(size=(n_sys, T))
    metrics = {f"R{k}_ST1_RS0_R": human * (k / 5) + rng.normal(size=(n_sys, T)) for k in range(1, 5)}
    metrics["R1_ST0_RS0_R"] = rng.normal(size=(n_sys, T))
    for grid in metrics.values():
        grid[0, 3] = np.nan
    ids = ["R1_ST1_RS0_A_R", "R1_ST1_RS0_M_R", "R2_ST1_RS0_A_R", "R3_ST1_RS0_A_R", "R4_ST1_RS0_A_R",
           "R1_ST0_RS0_A_R"]
    variants = [Variant.parse(ids[k]) for k in order]
    ps = PerSummary([f"s{s}" for s in range(n_sys)], [f"t{t}" for t in range(T)], metrics, {},
                    {"arithmetic": human})
    def system_score(v):
        grid = ps.metrics[v.summary_metric]
        return np.nanmedian(grid, axis=1) if v.statistic == "M" else np.nanmean(grid, axis=1)
    system = np.stack([system_score(v) for v in variants], axis=1)
    return AnalysisInputs(ps.summarizers, ["system"] * n_sys, variants, system, ["arithmetic"],
                          np.nanmean(human, axis=1)[:, None], ps)


# what the second run reads and computes: at the system level each variant is a row (and each pair
# of them); at the pooled level (2 systems) the mean and median variants of R1 are one row, so six
# variants are five rows, and their 15 pairs 11 (R1's pair with itself, and 4 + 6 others)
KEPT = {9: ["memo resampled: 5 of 6 rows read from the last run, 1 computed",
            "memo permutation: 10 of 15 rows read from the last run, 5 computed"],
        2: ["memo resampled: 4 of 5 rows read from the last run, 1 computed",
            "memo permutation: 7 of 11 rows read from the last run, 4 computed"]}


@pytest.mark.parametrize("n_sys", [9, 2])
def test_statistics_with_a_joining_variant_are_a_fresh_runs(tmp_path, caplog, n_sys):
    """The statistics of six variants, five of them kept from a run without the sixth (which joins
    in the middle), equal a fresh computation's to the last bit, with its system level (9 systems)
    and with the tests moved to the pooled level (2 systems)."""
    from metaeval.options import Options
    from metaeval.stages.statistics import compute

    o = Options.from_config({"datasets": {"sim": {"format": "simulated"}}}).statistics._replace(
        bootstrap_samples=60, permutation_samples=60, null_samples=30, variants=("all",),
        accuracy_baseline="R1_ST1_RS0_A_R")
    before, after = [0, 1, 2, 4, 5], [0, 1, 2, 3, 4, 5]
    with memo.kept_in(tmp_path):
        compute(_statistics_inputs(n_sys, before), o)
    with caplog.at_level("INFO", logger="metaeval"), memo.kept_in(tmp_path):
        kept = compute(_statistics_inputs(n_sys, after), o)
    fresh = compute(_statistics_inputs(n_sys, after), o)
    for line in KEPT[n_sys]:
        assert line in caplog.text
    for field in ("levels", "kendall", "accuracy", "winner", "optimal", "notes"):
        assert repr(getattr(kept, field)) == repr(getattr(fresh, field)), field
    assert {k: v.tobytes() for k, v in kept.permutation.items()} == \
        {k: v.tobytes() for k, v in fresh.permutation.items()}


def _factuality_inputs(metric_names: list[str], kind: str):
    """A QAGS-like binary dimension (one system, 40 topics) or Rank19-like preference pairs (20
    topics, a consistent and an inconsistent summary each), with the named metrics of five."""
    from metaeval.stages.factuality_protocols import FactualityInputs

    rng = np.random.default_rng(3)
    if kind == "binary":
        n = 40
        topics = np.array([f"t{i:02d}" for i in range(n)], dtype=object)
        systems = np.array(["sys"] * n, dtype=object)
        truth = (rng.random(n) < 0.5).astype(float)
    else:
        n = 40
        topics = np.array([f"t{i // 2:02d}" for i in range(n)], dtype=object)
        systems = np.array(["correct", "incorrect"] * (n // 2), dtype=object)
        truth = np.tile([1.0, 0.0], n // 2)
    every = {f"m{k}": truth * k + rng.normal(size=n) for k in range(5)}
    every["m2"][5] = np.nan
    return FactualityInputs("d", topics, systems, np.array([""] * n, dtype=object), np.array([""] * n, dtype=object),
                            {"fact": truth}, {"fact": kind}, ["fact"], [], {m: every[m] for m in metric_names},
                            {m: "file" for m in metric_names})


@pytest.mark.parametrize("kind", ["binary", "preference"])
def test_factuality_with_a_joining_metric_is_a_fresh_runs(tmp_path, kind):
    """Detection (AUC, DeLong) and ranking accuracy (McNemar) of five metrics, four of them kept from
    a run without the fifth, write the same tables as a fresh computation."""
    from metaeval.options import Options
    from metaeval.stages.factuality import compute

    o = Options.from_config({"datasets": {"sim": {"format": "simulated"}}}).factuality._replace(
        bootstrap_samples=50, interval_metrics="all")
    with memo.kept_in(tmp_path):
        compute(_factuality_inputs(["m0", "m1", "m3", "m4"], kind), o)
    with memo.kept_in(tmp_path):
        kept = compute(_factuality_inputs(["m0", "m1", "m2", "m3", "m4"], kind), o)
    fresh = compute(_factuality_inputs(["m0", "m1", "m2", "m3", "m4"], kind), o)
    tables = [name for name, value in vars(fresh).items() if hasattr(value, "to_csv") and name != "notes"]
    assert len(fresh.auc_tests if kind == "binary" else fresh.ranking_tests) == 10     # every pair of 5
    for t in tables:
        assert getattr(kept, t).to_csv() == getattr(fresh, t).to_csv(), t


def test_pooled_summary_level_samples_with_a_joining_metric_are_a_fresh_runs(tmp_path):
    from metaeval.stats.correlation import summary_level_samples

    rng = np.random.default_rng(8)
    human = {"fact": rng.normal(size=(2, 30))}
    metrics = {f"m{k}": human["fact"] * k + rng.normal(size=(2, 30)) for k in range(4)}
    with memo.kept_in(tmp_path):
        summary_level_samples({k: metrics[k] for k in ("m0", "m2", "m3")}, human, ["fact"], True, 80, 5)
    with memo.kept_in(tmp_path):
        kept = summary_level_samples(metrics, human, ["fact"], True, 80, 5)
    fresh = summary_level_samples(metrics, human, ["fact"], True, 80, 5)
    assert [a.tobytes() for a in kept] == [a.tobytes() for a in fresh]


def test_a_rows_resampled_means_do_not_depend_on_the_other_rows_and_samples():
    """The means of a metric's rows over drawn topics are the same bits whether computed with the
    other metrics' rows and 60 samples or alone with 7 (one shape for every matrix product: a plain
    product of these shapes rounds differently), and equal the plain loop's to rounding."""
    from metaeval.stats.bootstrap import resampled_means

    rng = np.random.default_rng(2)
    x = rng.normal(size=(54, 12))              # six metrics x nine systems, 12 topics
    x[5, :3] = np.nan
    c = rng.integers(0, 4, size=(60, 12)).astype(float)
    every = resampled_means(x, c)
    alone = resampled_means(x[:9], c[:7])
    assert every[:9, :7].tobytes() == alone.tobytes()
    valid = ~np.isnan(x[5])
    loop = [np.dot(x[5][valid], c[b][valid]) / c[b][valid].sum() for b in range(7)]
    assert alone[5] == pytest.approx(loop, rel=1e-13)


def test_agreement_with_a_joining_metric_is_a_fresh_runs(tmp_path):
    """The Wilcoxon verdicts of four scorers kept from a run without the fourth metric give the same
    agreement rows and verdicts as a fresh computation."""
    from metaeval.stages.agreement import agreement_tables

    rng = np.random.default_rng(4)
    human = {"arithmetic": rng.normal(size=(6, 15))}
    metrics = {f"m{k}": human["arithmetic"] * k + rng.normal(size=(6, 15)) for k in range(4)}
    metrics["m2"][1, 4] = np.nan
    summarizers, kinds = [f"s{k}" for k in range(6)], ["system"] * 4 + ["human"] * 2
    args = (summarizers, kinds, ["arithmetic"], 0.05, 5, "m0")
    with memo.kept_in(tmp_path):
        agreement_tables(human, {k: metrics[k] for k in ("m0", "m1", "m3")}, *args)
    with memo.kept_in(tmp_path):
        kept = agreement_tables(human, metrics, *args)
    fresh = agreement_tables(human, metrics, *args)
    assert len(fresh.rows) == 4 * 3       # four metrics x (all, system-system, system-human)
    assert repr(kept.rows) == repr(fresh.rows)
    assert repr((kept.human, kept.metrics)) == repr((fresh.human, fresh.metrics))


# ----------------------------------------------------------------------------- a memo that lies or breaks

def _row(i):
    return (float(i) + 0.5, i, f"m{i}")


def _records(folder, keys, calls=None):
    def compute(i):
        if calls is not None:
            calls.append(i)
        return _row(i)
    with memo.kept_in(folder):
        return memo.records("rows", (), keys, compute)


def test_a_memo_folder_that_links_outside_is_never_followed(tmp_path, caplog):
    """A job's memo folder (or the memo folder above it) that is a symbolic link to a folder of the
    user's: nothing there is read, written or removed; every row is computed, and the log says why."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    (mine / "rows.0123456789abcdef0123456789abcdef").mkdir()           # even a name like an entry's
    results = tmp_path / "results/d/memo"
    results.mkdir(parents=True)
    (results / "job").symlink_to(mine)
    keys = [memo.digest(i) for i in range(3)]
    calls: list = []
    with caplog.at_level("WARNING", logger="metaeval"):
        assert _records(results / "job", keys, calls) == [_row(0), _row(1), _row(2)]
    assert calls == [0, 1, 2]
    assert sorted(p.name for p in mine.iterdir()) == ["rows.0123456789abcdef0123456789abcdef", "thesis.tex"]
    assert f"memo off: {results / 'job'} is a symbolic link" in caplog.text
    (results / "job").unlink()
    results.rmdir()
    results.symlink_to(mine)                                            # the memo folder itself a link
    calls.clear()
    _records(results / "job", keys, calls)
    assert calls == [0, 1, 2] and sorted(p.name for p in mine.iterdir()) == \
        ["rows.0123456789abcdef0123456789abcdef", "thesis.tex"]


def test_the_clean_up_removes_only_the_memos_entries_and_never_follows_a_link(tmp_path):
    keys = [memo.digest(i) for i in range(2)]
    _records(tmp_path, keys)
    mine = tmp_path.parent / f"{tmp_path.name}-mine"
    mine.mkdir()
    (mine / "data.csv").write_text("1,2")
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "other.0123456789abcdef0123456789abcdef").symlink_to(mine)     # a link named like an entry
    with memo.kept_in(tmp_path):
        memo.records("others", (), keys, _row)
    assert (mine / "data.csv").read_text() == "1,2"
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("others.")) == ["notes.txt"]


def _rows_entry(folder):
    (entry,) = [p for p in folder.iterdir() if p.name.startswith("rows.")]
    return entry


@pytest.mark.parametrize("damage", ["a shortened row", "a string for a number", "an edited number",
                                    "rows that are not a list", "the digest removed"])
def test_a_damaged_or_edited_row_is_computed_again_and_never_written_back(tmp_path, damage):
    """The probe: a shortened row or a string in rows.json stopped the job with an IndexError or a
    TypeError, and the damaged row was written back, so every later run failed; an edited number
    reached the results. Now the entry does not verify: its rows are computed again, the results are
    a fresh computation's, and the entry written holds the computed rows."""
    keys = [memo.digest(i) for i in range(3)]
    _records(tmp_path, keys)
    path = _rows_entry(tmp_path) / "rows.json"
    stored = json.loads(path.read_text())
    if damage == "a shortened row":
        stored["rows"][1] = stored["rows"][1][:1]
    elif damage == "a string for a number":
        stored["rows"][1][0] = "0.5"
    elif damage == "an edited number":
        stored["rows"][1][0] = 99.0
    elif damage == "rows that are not a list":
        stored["rows"] = {"a": 1}
    if damage == "the digest removed":
        (path.parent / "sha256").unlink()
    else:
        path.write_text(json.dumps(stored))
    calls: list = []
    assert _records(tmp_path, keys, calls) == [_row(0), _row(1), _row(2)]
    assert calls == [0, 1, 2]
    assert json.loads((_rows_entry(tmp_path) / "rows.json").read_text())["rows"] == [list(_row(i)) for i in range(3)]
    calls.clear()
    assert _records(tmp_path, keys, calls) == [_row(0), _row(1), _row(2)] and calls == []   # repaired: read


def _squares_entry(folder, x):
    """The keys of the rows of ``x`` and the memo's entry of their squares, computed in ``folder``."""
    keys = [memo.digest(r) for r in x]
    with memo.kept_in(folder):
        memo.rows("squares", (), keys, _squares_and_samples(x, []))
    (entry,) = folder.iterdir()
    return keys, entry


def test_an_edited_array_of_the_same_shape_is_computed_again(tmp_path):
    """A .npy with other values, same shape and dtype: the digest beside it no longer matches."""
    x = np.arange(6.0).reshape(3, 2)
    keys, entry = _squares_entry(tmp_path, x)
    np.save(entry / "sum.npy", np.array([7.0, 7.0, 7.0]))
    calls: list = []
    with memo.kept_in(tmp_path):
        out = memo.rows("squares", (), keys, _squares_and_samples(x, calls))
    assert calls == [[0, 1, 2]] and out["sum"].tolist() == [1.0, 13.0, 41.0]       # by hand: 0+1, 4+9, 16+25


@pytest.mark.parametrize("kind", ["rows", "records"])
@pytest.mark.parametrize("damage", ["a file", "a dangling link", "a link to a folder of the user's"])
def test_an_entry_replaced_by_a_file_or_a_link_is_computed_and_repaired(tmp_path, kind, damage):
    """The probe: an entry replaced by a file or a dangling link failed in memo._replace with errno
    20 or 17. The entry is computed again and written in its place (a link removed, never followed)."""
    x = np.arange(6.0).reshape(3, 2)
    keys = [memo.digest(r) for r in x]
    folder, mine = tmp_path / "memo", tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")

    def run(calls):
        with memo.kept_in(folder):
            if kind == "rows":
                return memo.rows("squares", (), keys, _squares_and_samples(x, calls))["sum"].tolist()
            return memo.records("rows", (), keys, lambda i: calls.append(i) or _row(i))

    run([])
    (entry,) = folder.iterdir()
    shutil.rmtree(entry)
    if damage == "a file":
        entry.write_text("not an entry")
    else:
        entry.symlink_to(tmp_path / "nowhere" if damage == "a dangling link" else mine)
    calls: list = []
    expected = [1.0, 13.0, 41.0] if kind == "rows" else [_row(0), _row(1), _row(2)]
    assert run(calls) == expected and calls
    assert entry.is_dir() and not entry.is_symlink()
    assert sorted(p.name for p in mine.iterdir()) == ["keep.txt"]
    calls.clear()
    assert run(calls) == expected and calls == []


@pytest.mark.parametrize("damage", ["a file", "a dangling link"])
def test_a_job_folder_replaced_by_a_file_or_a_link_switches_the_memo_off(tmp_path, damage, caplog):
    """Not the memo's to remove: every row is computed, nothing is written there, the log says why."""
    folder = tmp_path / "job"
    if damage == "a file":
        folder.write_text("a file of the user's")
    else:
        folder.symlink_to(tmp_path / "nowhere")
    keys = [memo.digest(i) for i in range(2)]
    calls: list = []
    with caplog.at_level("WARNING", logger="metaeval"):
        assert _records(folder, keys, calls) == [_row(0), _row(1)]
    assert calls == [0, 1] and "memo off" in caplog.text
    assert folder.is_symlink() if damage != "a file" else folder.read_text() == "a file of the user's"


def test_an_array_name_is_never_a_path(tmp_path):
    """names.npy lists the entry's arrays; a name that is a path out of the entry is not read."""
    x = np.arange(4.0).reshape(2, 2)
    keys, entry = _squares_entry(tmp_path, x)
    outside = tmp_path.parent / f"{tmp_path.name}-secret.npy"
    np.save(outside, np.array([5.0, 5.0]))
    np.save(entry / "names.npy", np.array(["sum", f"../../{outside.stem}"]))
    calls: list = []
    with memo.kept_in(tmp_path):
        out = memo.rows("squares", (), keys, _squares_and_samples(x, calls))
    assert calls == [[0, 1]] and out["sum"].tolist() == [1.0, 13.0]


@pytest.mark.parametrize("damage", ["a shortened row", "a string for a number"])
def test_factuality_with_a_damaged_memo_writes_a_fresh_runs_tables(tmp_path, damage):
    """The probe's case in the factuality job: a shortened detection row stopped it with an
    IndexError, a string with a TypeError, run after run."""
    from metaeval.options import Options
    from metaeval.stages.factuality import compute

    o = Options.from_config({"datasets": {"sim": {"format": "simulated"}}}).factuality._replace(
        bootstrap_samples=50, interval_metrics="all")
    names = ["m0", "m1", "m2"]
    with memo.kept_in(tmp_path):
        compute(_factuality_inputs(names, "binary"), o)
    for entry in tmp_path.glob("detection.*"):
        path = entry / "rows.json"
        stored = json.loads(path.read_text())
        stored["rows"][0] = stored["rows"][0][:3] if damage == "a shortened row" else ["x"] * len(stored["rows"][0])
        path.write_text(json.dumps(stored))
    fresh = compute(_factuality_inputs(names, "binary"), o)
    for _ in range(2):
        with memo.kept_in(tmp_path):
            kept = compute(_factuality_inputs(names, "binary"), o)
        for t in [n for n, v in vars(fresh).items() if hasattr(v, "to_csv") and n != "notes"]:
            assert getattr(kept, t).to_csv() == getattr(fresh, t).to_csv(), t


# ----------------------------------------------------------------------------- the libraries in the key

def test_the_key_holds_the_version_of_every_library_the_computations_call():
    import numba
    import pandas
    import scipy
    import statsmodels
    versions = dict(memo.library_versions())
    # the versions the imported modules report, not the memo's own reading of them
    assert versions["scipy"] == scipy.__version__
    assert versions["statsmodels"] == statsmodels.__version__
    assert versions["numba"] == numba.__version__
    assert versions["numpy"] == np.__version__
    assert versions["pandas"] == pandas.__version__
    assert "llvmlite" in versions          # numba's compiler, a library numba calls


def test_an_upgrade_of_scipy_starts_the_memo_afresh(monkeypatch):
    from importlib import metadata
    before = memo.code_digest.__wrapped__()
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "99.0" if name == "scipy" else real(name))
    after = memo.code_digest.__wrapped__()
    assert before != after
    monkeypatch.setattr(metadata, "version", real)
    assert memo.code_digest.__wrapped__() == before
