"""The leaderboard at a glance: the verdict's counts against those of leaderboard_tests.tsv (counted
here with pandas from the written files, and by hand on the hand-made tables of test_leaderboard); the
table sorted and filtered in headless Chromium, its rows and their order against leaderboard.tsv; the
static table without scripting; the released metrics collapsed outside their benchmark; the pictures'
contents and the random floor read when given."""
from __future__ import annotations

import html as html_module
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from metaeval.stages import leaderboard, leaderboard_figures, leaderboard_verdict
from reference import require
from test_leaderboard import OPTIONS, _dataset

FOCUS = OPTIONS._replace(datasets=("d", "e"), focus=("MINE",))
OUT = (("leaderboard_tsv", "leaderboard.tsv"), ("tests_tsv", "leaderboard_tests.tsv"), ("floor_tsv", "leaderboard_floor.tsv"),
       ("leaderboard_md", "leaderboard.md"), ("leaderboard_html", "leaderboard.html"),
       ("dots_png", "dots.png"), ("dots_svg", "dots.svg"), ("heatmap_png", "ranks.png"), ("heatmap_svg", "ranks.svg"))


def _score_only():
    """A score-only data set "e" whose release ships a metric of its own, THEIRS (no MINE, no ROUGE)."""
    e = _dataset(texts=False)
    e.name = "e"
    rename = {"OTHER": "THEIRS", "OTHER_A": "THEIRS_A"}
    e.file_metrics = e.file_metrics[e.file_metrics["metric"] == "OTHER"].replace({"OTHER": "THEIRS", "Other": "Theirs"})
    e.correlations = e.correlations[e.correlations["variant"] == "OTHER_A"].replace(rename)
    e.summary_level = e.summary_level[e.summary_level["metric"] == "OTHER"].replace(rename)
    e.summary_tests = e.summary_tests.iloc[0:0]
    return e


@pytest.fixture
def written(tmp_path):
    board = leaderboard.compute([_dataset(), _score_only()], FOCUS)
    out = {k: str(tmp_path / f) for k, f in OUT}
    leaderboard.write(board, out)
    return board, out


def _counts_from_tsvs(leaderboard_tsv: str, tests_tsv: str, metric: str, baseline: str) -> dict[str, int]:
    """The verdict's counts, from the two files alone (pandas)."""
    rows = pd.read_csv(leaderboard_tsv, sep="\t", dtype=str, keep_default_na=False)
    tests = pd.read_csv(tests_tsv, sep="\t", dtype=str, keep_default_na=False)
    key = ["dataset", "target", "level", "subset"]
    mine = rows[(rows["metric"] == metric) & (rows["rank"] != "NA")]
    vs_best = mine.merge(tests[tests["metric"] == metric], left_on=[*key, "metric", "best"],
                         right_on=[*key, "metric", "other"], how="left")
    against = tests[(tests["metric"] == metric) & (tests["other"] == baseline)]
    return {"valued": len(mine),
            "not_worse": int((mine["best"] == metric).sum() + vs_best["verdict"].isin(["win", "tie"]).sum()),
            "worse": int((vs_best["verdict"] == "loss").sum()),
            "untested": int(((vs_best["best"] != metric) & vs_best["verdict"].isna()).sum()),
            "wins": int((against["verdict"] == "win").sum()), "losses": int((against["verdict"] == "loss").sum()),
            "columns": len(rows[key].drop_duplicates())}


SENTENCE = re.compile(r"Mine is the best, or not significantly worse than the best, in \[(\d+) of the (\d+) columns "
                      r"where it has a value\]\(#mine-not-worse\); significantly worse than the best in \[(\d+)\]"
                      r"\(#mine-worse\); it beats R2\\?_ST1\\?_RS0\\?_R in \[(\d+)\]\(#mine-beats-r2-st1-rs0-r\) and "
                      r"loses to it in \[(\d+)\]\(#mine-loses-r2-st1-rs0-r\) \(of (\d+) columns, (\d+) without a value")


def test_the_verdicts_counts_are_those_of_leaderboard_tests_tsv(written):
    board, out = written
    md = Path(out["leaderboard_md"]).read_text()
    found = SENTENCE.search(md)
    assert found, md[:800]
    assert md.index("Mine is the best") < md.index("The leaderboard: one column")     # the verdict first
    not_worse, valued, worse, wins, losses, columns, absent = map(int, found.groups())
    counted = _counts_from_tsvs(out["leaderboard_tsv"], out["tests_tsv"], "MINE", "R2_ST1_RS0_R")
    assert (not_worse, valued, worse, wins, losses, columns) == (
        counted["not_worse"], counted["valued"], counted["worse"], counted["wins"], counted["losses"],
        counted["columns"])
    assert absent == columns - valued and counted["untested"] == 0
    # by hand (test_leaderboard's tables): MINE is the best at the system level and loses to OTHER, the
    # best, at the summary level; it beats R2 at the system level (p = 0.001), ties it at the summary
    # level; d's two columns and e's two (where MINE has no value: no texts)
    assert (not_worse, valued, worse, wins, losses, columns) == (1, 2, 1, 1, 0, 4)


def test_each_count_links_to_the_columns_it_counts(written):
    board, out = written
    page = Path(out["leaderboard_html"]).read_text()
    body = page[page.index("<body>"):]
    assert body.index('class="lb-verdict"') < body.index("data-lb-table")       # the verdict opens the page
    links = dict(re.findall(r'href="#lb-(mine-[a-z0-9-]+)" data-lb-columns="([^"]*)"', page))
    headers = {m[1]: (m[2], m[3], m[4]) for m in
               re.finditer(r'<th id="(lb-col-\d+)" data-col="\d+" data-dataset="([^"]*)" data-target="([^"]*)" '
                           r'data-level="([^"]*)"', page)}
    linked = {k: sorted(headers[i] for i in v.split()) for k, v in links.items()}
    assert linked == {"mine-not-worse": [("d", "coherence", "system")], "mine-worse": [("d", "coherence", "summary")],
                      "mine-beats-r2-st1-rs0-r": [("d", "coherence", "system")], "mine-loses-r2-st1-rs0-r": []}
    # the same columns listed under the sentence (reached without scripting)
    listed = re.search(r'<li id="lb-mine-worse">[^<]*<a href="#(lb-col-\d+)">', page)[1]
    assert headers[listed] == ("d", "coherence", "summary")


def test_released_metrics_show_in_their_benchmarks_columns_only(written):
    board, out = written
    # leaderboard.md opens with the verdict: its table is after it
    text = Path(out["leaderboard_md"]).read_text()
    table = text[text.index("| metric"):]
    header = [c.strip() for c in table.splitlines()[0].strip("|").split("|")]
    theirs = next(line for line in table.splitlines() if line.startswith("| Theirs"))
    cells = dict(zip(header, (c.strip() for c in theirs.strip("|").split("|"))))
    assert all(cells[h] == "" for h in header if h.startswith("d "))          # not shipped with d: empty
    assert all(cells[h].startswith("0.") for h in header if h.startswith("e "))
    # MINE, the user's, still says why it has no value on e
    mine = next(line for line in table.splitlines() if line.startswith("| ► Mine"))
    assert "no texts" in mine
    page = Path(out["leaderboard_html"]).read_text()
    row = re.search(r'<tr class="" data-kind="released" data-name="theirs theirs".*?</tr>', page)[0]
    assert row.count('class="lb-ns"') == 2 and "lb-absent" not in row


def browser(page: Path, *extra: str) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        require("chromium is not installed (Debian: chromium)", "headless Chromium")
    run = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", *extra,
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


# Drives the page as a reader would: sorts by d's system column (a click on its header's button), then
# filters to benchmark d and every target; marks the page when done.
DRIVER = """<script>
document.querySelector('th[data-dataset="d"][data-level="system"] button').click();
function pick(name, value) { var s = document.querySelector('[data-lb-filter="' + name + '"]');
  s.value = value; s.dispatchEvent(new Event('change')); }
pick('dataset', 'd'); pick('target', '');
document.documentElement.dataset.driven = 'yes';
</script>"""


def _rows(dom: str) -> list[tuple[str, bool]]:
    body = dom[dom.index("<tbody>"):dom.index("</tbody>")]
    return [(html_module.unescape(m[2]), "hidden" in m[1])
            for m in re.finditer(r"<tr ([^>]*?)data-name=\"([^\"]*)\"([^>]*)>", body)
            for m in [(m[0], m[1] + m[3], m[2])]]


def test_sorting_and_filtering_in_a_browser_leave_the_rows_leaderboard_tsv_gives(written, tmp_path):
    board, out = written
    page = Path(out["leaderboard_html"])
    driven = tmp_path / "driven.html"
    driven.write_text(page.read_text().replace("</body>", DRIVER + "</body>"))
    dom = browser(driven)
    tag = re.search(r"<html[^>]*>", dom)[0]
    assert 'data-driven="yes"' in tag and 'data-ready="yes"' in tag and "data-errors" not in tag, tag
    # the expected rows, from leaderboard.tsv: the metrics with a value in one of d's columns, by their
    # value in d's system column, highest first (none: last, in the board's order)
    frame = pd.read_csv(out["leaderboard_tsv"], sep="\t", dtype=str, keep_default_na=False)
    order = list(dict.fromkeys(frame["metric"]))
    d = frame[frame["dataset"] == "d"]
    valued = set(d.loc[d["rank"] != "NA", "metric"])
    system = d[(d["level"] == "system") & (d["rank"] != "NA")].set_index("metric")["value"].astype(float)
    expected = sorted(valued, key=lambda m: (m not in system.index, -system.get(m, 0.0), order.index(m)))
    names = dict(zip(frame["metric"], frame["name"]))
    shown = [n for n, hidden in _rows(dom) if not hidden]
    assert shown == [f"{names[m]} {m}".lower() for m in expected]
    assert expected == ["MINE", "R1_ST1_RS0_R", "OTHER", "R2_ST1_RS0_R"]      # 0.9, 0.8, 0.7, 0.5 (by hand)
    assert [n for n, hidden in _rows(dom) if hidden] == ["theirs theirs"]    # e's release: empty in d
    # d's columns shown, e's hidden; the sorted column says so
    for m in re.finditer(r'<th id="lb-col-\d+" data-col="\d+" data-dataset="(\w)"[^>]*class="([^"]*)"', dom):
        assert ("lb-off" in m[2]) == (m[1] == "e")
    assert re.search(r'data-dataset="d" data-target="coherence" data-level="system"[^>]*aria-sort="descending"', dom)


def test_without_scripting_the_table_is_static_and_whole(written):
    """Without scripting the page is its file (nothing changes it; headless Chromium cannot dump or
    draw a page with scripting off): the controls hidden, every row and column shown."""
    board, out = written
    page = Path(out["leaderboard_html"]).read_text()
    assert re.search(r'<div class="lb-controls" hidden>', page)
    assert [hidden for _, hidden in _rows(page)] == [False] * len(board.metrics)
    assert "lb-off" not in page[page.index("<tbody>"):page.index("</tbody>")]
    # every column header is a button (reached with Tab, pressed with Enter or Space)
    assert page.count('<button type="button" data-lb-sort=') == len(board.columns) + 1


def test_the_pictures_hold_the_focus_the_best_the_baselines_and_the_floor_when_given(written, tmp_path):
    board, out = written
    floor_tsv = tmp_path / "leaderboard_floor.tsv"
    floor_tsv.write_text("dataset\ttarget\tlevel\tsubset\tstatistic\tfloor_mean\tfloor_lo\tfloor_hi\n"
                         "d\tcoherence\tsystem\tall\tr\t0.01\t-0.6\t0.62\n")
    glance = leaderboard_figures.compute(board, leaderboard_figures.load_floor(str(floor_tsv)))
    (dataset, rows), (other, _) = glance.panels
    assert (dataset, other) == ("d", "e")
    system = rows[0]
    assert system.floor == (0.01, -0.6, 0.62) and rows[1].floor is None
    # the hand-made tables: r and r - 0.1, r + 0.05 (MINE_A: 0.9, R2's mean variant: 0.5)
    assert [(p.metric, p.role) for p in system.points] == [("MINE", "focus"), ("MINE", "best"),
                                                            ("R2_ST1_RS0_R", "baseline")]
    assert [x for p in system.points for x in (p.value, p.lo, p.hi)] == pytest.approx(
        [0.9, 0.8, 0.95, 0.9, 0.8, 0.95, 0.5, 0.4, 0.55])
    assert "random floor" in leaderboard_figures.dots_caption(glance)
    assert "No random floor" in leaderboard_figures.dots_caption(leaderboard_figures.compute(board))
    # the heatmap: the focus first; MINE has no value on e (no texts), THEIRS none on d (not shipped)
    h = glance.heatmap
    assert h.metrics[0] == "MINE" and "THEIRS" in h.metrics
    j = {c: i for i, c in enumerate(h.columns)}
    assert h.reasons[(0, j[("e", "coherence", "system", "all")])] == "no texts (score-only data set)"
    # MINE is #1 of 4 at d's system level (0) and #3 of 4 at its summary level (2/3)
    assert h.position[0, j[("d", "coherence", "system", "all")]] == 0.0
    assert h.position[0, j[("d", "coherence", "summary", "all")]] == pytest.approx(2 / 3)
    leaderboard_figures.write(glance, out)
    svg = Path(out["heatmap_svg"]).read_text()
    assert "<title>Mine: no texts (score-only data set) (2 columns)</title>" in svg
    bad = tmp_path / "bad.tsv"
    bad.write_text("dataset\ttarget\tlevel\n")
    with pytest.raises(ValueError, match=r"bad.tsv: the random floor table lacks the column\(s\) subset"):
        leaderboard_figures.load_floor(str(bad))


def test_the_verdict_reads_back_from_the_tsvs(written):
    board, out = written
    back = leaderboard.read(out["leaderboard_tsv"], FOCUS, out["tests_tsv"])
    assert leaderboard_verdict.board_verdicts(back) == leaderboard_verdict.board_verdicts(board)
