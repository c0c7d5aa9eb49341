"""The leaderboard's verdict on each focus metric in one sentence, at the top of ``leaderboard.md``, of
``leaderboard.html`` and of the report across data sets: in how many of its columns it is the best or
not significantly worse than the best, in how many significantly worse, and how often it beats and
loses to each common baseline, each count linked to the columns it counts.

The counts are those of ``leaderboard_tests.tsv`` (each focus metric's test against every other metric
of a column): a column counts as *significantly worse than the best* when the focus metric's verdict
against the column's best (``leaderboard.tsv``'s ``best``) is a loss, as *best or not significantly
worse* when the focus metric is the best or its verdict against the best is a win or a tie; a column
where it has a value but no test against the best (balanced accuracy, which has none; a pair the test
does not cover) counts as *untested*. Against a baseline: its wins and losses in the tests' rows naming
that baseline. This module only counts: every verdict is the leaderboard stage's.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..tables import NA, _md_escape
from .leaderboard_page import LEVEL_NAME, Leaderboard, level_name

Key = tuple[str, str, str, str]         # a column: (dataset, target, level, subset)

# the levels as the sentence names them, in the leaderboard's order
LEVEL_WORDS = {"system": "system", "summary": "summary (within topic)", "pooled": "summary (pooled)",
               "auc": "AUC", "balanced_accuracy": "balanced accuracy", "partial": "partial r",
               "ranking": "ranking accuracy"}
assert set(LEVEL_WORDS) == set(LEVEL_NAME)


@dataclass(frozen=True)
class Against:
    """A focus metric against one common baseline: the columns it wins and loses (the tests' verdicts)."""
    baseline: str
    name: str
    wins: tuple[Key, ...]
    losses: tuple[Key, ...]


@dataclass(frozen=True)
class Verdict:
    """One focus metric's counts over the leaderboard's columns."""
    metric: str
    name: str
    columns: int                         # every column of the leaderboard
    valued: tuple[Key, ...]              # the columns where the metric has a value
    not_worse: tuple[Key, ...]           # the best, or not significantly worse than the best
    worse: tuple[Key, ...]               # significantly worse than the best
    untested: tuple[Key, ...]            # a value, but no test against the best
    against: tuple[Against, ...]
    levels: tuple[str, ...]              # the levels of ``valued``, in LEVEL_WORDS' order
    alpha: float


def verdicts(rows: Sequence[Mapping[str, object]], tests: Sequence[Mapping[str, object]], focus: Sequence[str],
             baselines: Sequence[str], names: Mapping[str, str], columns: Sequence[Key], alpha: float
             ) -> list[Verdict]:
    """Each focus metric's :class:`Verdict` from the leaderboard's rows (LEADERBOARD_COLUMNS) and its
    tests (TESTS_COLUMNS); ``baselines``: per-summary metric ids, in the config's order."""
    def key(r: Mapping[str, object]) -> Key:
        return (str(r["dataset"]), str(r["target"]), str(r["level"]), str(r["subset"]))

    order = {c: i for i, c in enumerate(columns)}
    verdict = {(key(t), str(t["metric"]), str(t["other"])): str(t["verdict"]) for t in tests}
    out = []
    for m in focus:
        valued, not_worse, worse, untested = [], [], [], []
        for r in rows:
            if str(r["metric"]) != m or r["rank"] == NA:
                continue
            c = key(r)
            valued.append(c)
            best = str(r["best"])
            v = "best" if best == m else verdict.get((c, m, best))
            (untested if v is None else worse if v == "loss" else not_worse).append(c)
        against = []
        for b in baselines:
            if b == m:
                continue
            mine = [(c, v) for (c, a, o), v in verdict.items() if a == m and o == b]
            against.append(Against(b, names.get(b, b), tuple(sorted((c for c, v in mine if v == "win"), key=order.get)),
                                   tuple(sorted((c for c, v in mine if v == "loss"), key=order.get))))
        levels = tuple(lv for lv in LEVEL_WORDS if any(c[2] == lv for c in valued))
        sort = lambda xs: tuple(sorted(xs, key=order.get))      # noqa: E731 (the leaderboard's order)
        out.append(Verdict(m, names.get(m, m), len(columns), sort(valued), sort(not_worse), sort(worse),
                           sort(untested), tuple(against), levels, alpha))
    return out


def board_verdicts(board: Leaderboard, tests: Sequence[Mapping[str, object]] | None = None) -> list[Verdict]:
    """:func:`verdicts` of a leaderboard (``tests``: its tests when read back from the TSV); its
    baselines are its rows of that kind, in its order (the config's)."""
    baselines = [m for m in board.metrics if board.kinds.get(m) == "baseline"]
    return verdicts(board.rows, board.tests if tests is None else tests, board.focus, baselines, board.names,
                    board.columns, board.options.alpha)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "metric"


def column_label(c: Key) -> str:
    return f"{c[0]} {c[1]} {level_name(c[2], c[3])}"


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'' if k == 1 else 's'}"


def phrases(v: Verdict) -> list[tuple[str, str, str, str, tuple[Key, ...]]]:
    """The sentence's parts: (text before, linked text, anchor name, what the list of columns is,
    the columns counted), in order."""
    name = slug(v.metric)
    out = [(f"{v.name} is the best, or not significantly worse than the best, in ",
            f"{len(v.not_worse)} of the {len(v.valued)} columns where it has a value", f"{name}-not-worse",
            "best or not significantly worse than the best", v.not_worse),
           ("; significantly worse than the best in ", str(len(v.worse)), f"{name}-worse",
            "significantly worse than the best", v.worse)]
    if v.untested:
        out.append(("; untested against the best in ", str(len(v.untested)), f"{name}-untested",
                    "untested against the best", v.untested))
    for i, a in enumerate(v.against):
        lead = f"; it beats {a.name} in " if i == 0 else f"; beats {a.name} in "
        out.append((lead, str(len(a.wins)), f"{name}-beats-{slug(a.baseline)}", f"beats {a.name}", a.wins))
        out.append((" and loses to it in ", str(len(a.losses)), f"{name}-loses-{slug(a.baseline)}",
                    f"loses to {a.name}", a.losses))
    return out


def tail(v: Verdict) -> str:
    absent = v.columns - len(v.valued)
    levels = ", ".join(LEVEL_WORDS[lv] for lv in v.levels) or "no level"
    return (f" (of {v.columns} columns, {absent} without a value; levels: {levels}; α = {v.alpha})."
            if absent else f" (levels: {levels}; α = {v.alpha}).")


def markdown(verdicts_: Sequence[Verdict]) -> str:
    """The verdicts for leaderboard.md: a sentence per focus metric, each count a link to the list of
    the columns it counts below it (an HTML anchor, as GitHub renders Markdown)."""
    out = []
    for v in verdicts_:
        parts = phrases(v)
        sentence = "".join(f"{_md_escape(before)}[{_md_escape(text)}](#{anchor})"
                           for before, text, anchor, _, _ in parts) + _md_escape(tail(v))
        lists = [f'- <a id="{anchor}"></a>{_md_escape(what)} ({len(cols)}): '
                 + ("; ".join(_md_escape(column_label(c)) for c in cols) or "none") for _, _, anchor, what, cols in parts]
        out.append(sentence + "\n\n" + "\n".join(lists))
    return "\n\n".join(out)


def html_block(verdicts_: Sequence[Verdict], column_ids: Mapping[Key, str]) -> str:
    """The verdicts for a page: a sentence per focus metric; each count a link to the list of the columns
    it counts (collapsed below the sentence, each column a link to its header in the leaderboard); with
    scripting, a click also shows those columns alone in the leaderboard (``data-lb-columns``)."""
    if not verdicts_:
        return ""
    out = []
    for v in verdicts_:
        parts = phrases(v)
        sentence = "".join(
            f'{html.escape(before)}<a class="lb-count" href="#lb-{anchor}" '
            f'data-lb-columns="{" ".join(column_ids[c] for c in cols)}">{html.escape(text)}</a>'
            for before, text, anchor, _, cols in parts) + html.escape(tail(v))
        lists = "".join(
            f'<li id="lb-{anchor}">{html.escape(what)} ({len(cols)}): '
            + ("; ".join(f'<a href="#{column_ids[c]}">{html.escape(column_label(c))}</a>' for c in cols) or "none")
            + "</li>" for _, _, anchor, what, cols in parts)
        out.append(f'<p class="lb-verdict">{sentence}</p><details class="lb-verdict-columns"><summary>the columns '
                   f"each count counts</summary><ul>{lists}</ul></details>")
    return '<div class="lb-verdicts">' + "".join(out) + "</div>"
