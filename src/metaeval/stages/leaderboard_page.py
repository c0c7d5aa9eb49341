"""The leaderboard (:class:`Leaderboard`, computed by :mod:`metaeval.stages.leaderboard`) and its
pages: one HTML table with a header row per benchmark, target and level and a row per metric (the
report across data sets opens with it), the same table in Markdown for a paper, and the focus
metrics' deltas humans agree with. This module imports no stage, so the stage's module can import it."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

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


def html_section(board: Leaderboard) -> str:
    """The leaderboard's HTML: the first ``options.targets_shown`` targets of each data set as one
    table, then every column in a second, collapsed table, then the focus metrics' deltas."""
    shown_targets: dict[str, list[str]] = {}
    for d, t, *_ in board.columns:
        targets = shown_targets.setdefault(d, [])
        if t not in targets and len(targets) < board.options.targets_shown:
            targets.append(t)
    shown = [c for c in board.columns if c[1] in shown_targets[c[0]]]
    main = html_table(board, shown)
    if len(shown) == len(board.columns):
        return STYLE + main + deltas_html(board)
    hidden = len(board.columns) - len(shown)
    return (STYLE + main + f"<details><summary>every column ({len(board.columns)}; {hidden} more than above: "
            f"each data set's targets after its first {board.options.targets_shown})</summary>"
            f"{html_table(board, board.columns, caption=False)}</details>" + deltas_html(board))


def _cell(row: Mapping[str, object] | None, focus: bool) -> str:
    """A cell's text: the value, its rank, a mark when significantly worse than the best, and the
    focus metric's wins-ties-losses; or why the metric is absent."""
    if row is None:
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
           "set), not shipped (not in the data set's score files), undefined (constant scores), not computed.")


def markdown_table(board: Leaderboard) -> tuple[str, list[str], list[list[str]]]:
    cells = _by_cell(board)
    header = ["metric", *(f"{d} {t} {level_name(lv, sub)}" for d, t, lv, sub in board.columns)]
    body = []
    for m in board.metrics:
        focus = m in board.focus
        body.append([("► " if focus else "") + board.names[m],
                     *(_cell(cells.get((*c, m)), focus) for c in board.columns)])
    caption = CAPTION + f" alpha = {board.options.alpha}."
    return caption, header, body


def html_table(board: Leaderboard, cols: Sequence[tuple[str, str, str, str]], caption: bool = True) -> str:
    """The leaderboard's ``cols`` as one HTML table: a header row per benchmark, target and level;
    one row per metric, the focus metrics first and marked; absent cells say why."""
    cells = _by_cell(board)
    if not cols:
        return '<p class="answer">No column: no data set has a target with a defined correlation.</p>'

    def spans(key: Callable[[tuple[str, str, str, str]], tuple]) -> str:
        out, i = [], 0
        while i < len(cols):
            j = i
            while j < len(cols) and key(cols[j]) == key(cols[i]):
                j += 1
            out.append(f'<th colspan="{j - i}">{html.escape(str(key(cols[i])[-1]))}</th>')
            i = j
        return "".join(out)

    head = (f'<tr><th rowspan="3">metric</th>{spans(lambda c: (c[0],))}</tr>'
            f"<tr>{spans(lambda c: (c[0], c[1]))}</tr>"
            f"<tr>{''.join(f'<th>{html.escape(level_name(c[2], c[3]))}</th>' for c in cols)}</tr>")
    body = []
    for m in board.metrics:
        focus = m in board.focus
        tds = []
        for d, t, lv, sub in cols:
            r = cells.get((d, t, lv, sub, m))
            if r is None:
                tds.append('<td class="lb-none"></td>')
            elif r["rank"] == NA:
                note = str(r["note"])
                tds.append(f'<td class="lb-absent" title="{html.escape(note)}">– <small>'
                           f'{html.escape(SHORT_NOTES.get(note, note))}</small></td>')
            else:
                cls = "lb-best" if r["worse_than_best"] == "best" else "lb-worse" if r["worse_than_best"] == "yes" else ""
                wtl = (f'<br><small class="lb-wtl">{r["wins"]}W {r["ties"]}T {r["losses"]}L</small>' if focus else "")
                title = (f'{r["statistic"]} [{tables.fixed(r["lo"])}, {tables.fixed(r["hi"])}]; rank {r["rank"]} of '
                         f'{r["of"]}; vs best: p = {tables.fixed(r["p_vs_best"], 4)} ({r["test"]})')
                if not _missing(r.get("spa")):
                    wtl += f'<br><small class="lb-spa">SPA {tables.fixed(r["spa"])}</small>'
                    title += f'; soft pairwise accuracy {tables.fixed(r["spa"])} [{tables.fixed(r["spa_lo"])}, ' \
                             f'{tables.fixed(r["spa_hi"])}]'
                if not _missing(r.get("pairwise_accuracy")):
                    title += f'; pairwise accuracy {tables.fixed(r["pairwise_accuracy"])}'
                delta = board.deltas.get((m, t)) if lv == "system" else None
                if delta:
                    title += ("; humans agree 80/90/95 % of the time from a difference of "
                              + "/".join("NA" if _missing(delta[k]) else tables.fixed(delta[k], 4) for k in DELTAS)
                              + " (pooled over the data sets)")
                tds.append(f'<td class="{cls}" title="{html.escape(title)}">{tables.fixed(r["value"])}'
                           f'{"*" if r["worse_than_best"] == "yes" else ""} <small>#{r["rank"]}</small>{wtl}</td>')
        name = html.escape(board.names[m]) + (f' <small>({html.escape(m)})</small>' if board.names[m] != m else "")
        body.append(f'<tr class="{"lb-focus" if focus else ""}"><th>{"► " if focus else ""}{name}'
                    f' <small class="lb-kind">{html.escape(board.kinds[m])}</small></th>{"".join(tds)}</tr>')
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in board.notes)
    text = (f'<p class="caption">{html.escape(CAPTION)} alpha = {board.options.alpha}; hover a cell for its interval '
            f'and test. Every cell: <code>leaderboard.tsv</code>; each focus metric against every other: '
            f'<code>leaderboard_tests.tsv</code>.</p>' if caption else "")
    return (text + f'<div class="leaderboard"><table><thead>{head}</thead><tbody>{"".join(body)}</tbody></table></div>'
            + (f"<ul>{notes}</ul>" if notes and caption else ""))
