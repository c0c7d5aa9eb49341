"""The leaderboard (:class:`Leaderboard`, computed by :mod:`metaeval.stages.leaderboard`) and what its
pages share: the table in Markdown for a paper, the caption, the reasons a cell is empty and the focus
metrics' deltas humans agree with (the HTML table to work with: :mod:`metaeval.stages.leaderboard_table`). This module imports no stage, so the stage's module can import it."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Mapping

from .. import tables
from ..records import LeaderboardOptions
from ..tables import NA

LEVEL_NAME = {"system": "system", "summary": "summary (within topic)", "pooled": "summary (pooled)",
              "auc": "AUC (binary labels)", "partial": "partial r (system controlled)",
              "ranking": "ranking accuracy", "balanced_accuracy": "balanced accuracy (test split)"}
# a column's subset as its header says it ("all": nothing to say)
SUBSET_NAME = {"all": "", "mean": "mean over the subsets"}


def level_name(level: str, subset: str) -> str:
    """A column's level as its header says it, with its subset (a SummEdits domain, or the mean)."""
    where = SUBSET_NAME.get(subset, subset)
    return LEVEL_NAME[level] + (f", {where}" if where else "")
# the metric differences humans agree with 80/90/95 % of the time (delta_thresholds.tsv's thresholds)
DELTAS = ("delta_80", "delta_90", "delta_95")

# why a metric has no value in a column
UNDEFINED = "undefined (constant scores, or too few items)"
NOT_SHIPPED = "not in this data set's score files"
NOT_AT_LEVEL = "not scored at this level"
NO_TEXTS = "no texts (score-only data set)"
NO_REFERENCES = "no reference summaries (the built-in metrics compare with one)"
NOT_COMPUTED = "not computed on this data set"

# the page's short form of each reason (the full one: the cell's title and leaderboard.tsv's note)
SHORT_NOTES = {UNDEFINED: "undefined", NOT_SHIPPED: "not shipped", NOT_AT_LEVEL: "not at this level",
               NO_TEXTS: "no texts", NO_REFERENCES: "no references", NOT_COMPUTED: "not computed"}


@dataclass
class Leaderboard:
    """The leaderboard of every data set (its rows and tests: the columns named by
    :mod:`metaeval.stages.leaderboard`'s LEADERBOARD_COLUMNS and TESTS_COLUMNS)."""
    columns: list[tuple[str, str, str, str]]       # (dataset, target, level, subset), in order
    metrics: list[str]                             # the rows, focus first
    rows: list[dict[str, object]]                  # LEADERBOARD_COLUMNS
    tests: list[dict[str, object]]                 # TESTS_COLUMNS: each focus metric against every other
    focus: list[str]
    names: dict[str, str]                          # metric -> display name
    kinds: dict[str, str]
    options: LeaderboardOptions
    notes: list[str] = field(default_factory=list)
    # (metric, target) -> DELTAS, pooled over the data sets: set by the report across data sets
    deltas: dict[tuple[str, str], dict[str, float]] = field(default_factory=dict)


STYLE = ("<style>.leaderboard{overflow-x:auto;max-height:none}.leaderboard table{font-size:.8em}"
         ".leaderboard td{white-space:nowrap}.leaderboard tbody th{position:sticky;left:0;background:#fff;z-index:1}"
         ".lb-best{font-weight:bold;background:#eaf6ea}.lb-worse{color:#777}.lb-absent{color:#999}"
         "tr.lb-focus td,tr.lb-focus th{background:#fff5d6}tr.lb-focus td.lb-best{background:#d9f0c9}"
         ".lb-kind{color:#888;font-weight:normal}</style>")


def deltas_html(board: Leaderboard) -> str:
    """The focus metrics' differences humans agree with 80/90/95 % of the time, per target (pooled
    over the data sets; nothing without them)."""
    rows = [(m, t, d) for (m, t), d in sorted(board.deltas.items()) if m in board.focus]
    if not rows:
        return ""
    body = "".join(f"<tr><td>{html.escape(board.names.get(m, m))}</td><td>{html.escape(t)}</td>"
                   + "".join(f"<td>{'NA' if _missing(d[k]) else tables.fixed(d[k], 4)}</td>" for k in DELTAS)
                   + "</tr>" for m, t, d in rows)
    return ('<p class="caption">What a score difference means: the difference in a focus metric\'s system scores '
            "from which humans agree with its verdict on a pair of systems 80, 90 and 95 % of the time (a logistic "
            "curve through 1/2 at no difference, fitted to every pair of systems of the data sets where the metric "
            "is; delta_thresholds.tsv, with intervals; NA: the data never reach it).</p>"
            f"<table><thead><tr><th>metric</th><th>target</th><th>80 %</th><th>90 %</th><th>95 %</th></tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _cell(row: Mapping[str, object] | None, focus: bool, released: bool = False) -> str:
    """A cell's text: the value, its rank, a mark when significantly worse than the best, and the
    focus metric's wins-ties-losses; or why the metric is absent (nothing for a benchmark's released
    metric outside that benchmark: those cells collapse)."""
    if row is None:
        return ""
    if row["rank"] == NA and released and row["note"] == NOT_SHIPPED:
        return ""
    if row["rank"] == NA:
        return f"– ({row['note']})"
    mark = "*" if row["worse_than_best"] == "yes" else ""
    text = f"{tables.fixed(row['value'])}{mark} #{row['rank']}"
    if focus:
        text += f" {row['wins']}W {row['ties']}T {row['losses']}L"
    if not _missing(row.get("spa")):
        text += f" SPA {tables.fixed(row['spa'])}"
    return text


def _missing(x: object) -> bool:
    return x is None or x == NA or (isinstance(x, float) and math.isnan(x))


def _by_cell(board: Leaderboard) -> dict[tuple[str, str, str, str, str], Mapping[str, object]]:
    return {(str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"]), str(r["metric"])): r
            for r in board.rows}


CAPTION = ("The leaderboard: one column per benchmark, target and level; one row per metric (the file metrics, "
           "the baselines and each column's best ROUGE metric; the focus metrics first, marked ►). A cell: the "
           "statistic (system and summary level: Pearson r; AUC, on every summary and in each subset; partial r; "
           "ranking accuracy; balanced accuracy, the mean over the subsets, untested), '*' when "
           "significantly worse than the column's best (its test, p < alpha), its rank among the metrics shown "
           "(#1 = best), for the focus metrics its wins, ties and losses (W T L) against every other metric "
           "of the column by the same test, and at the system level its soft pairwise accuracy (SPA, Thompson "
           "et al. 2024). A dash says why a metric is absent: no texts (a score-only data "
           "set), not shipped (not in the data set's score files; left empty for a benchmark's released metrics "
           "outside that benchmark), undefined (constant scores), not computed.")


def markdown_table(board: Leaderboard) -> tuple[str, list[str], list[list[str]]]:
    cells = _by_cell(board)
    header = ["metric", *(f"{d} {t} {level_name(lv, sub)}" for d, t, lv, sub in board.columns)]
    body = []
    for m in board.metrics:
        focus = m in board.focus
        released = not focus and board.kinds[m] == "file metric"
        body.append([("► " if focus else "") + board.names[m],
                     *(_cell(cells.get((*c, m)), focus, released) for c in board.columns)])
    caption = CAPTION + f" alpha = {board.options.alpha}."
    return caption, header, body
