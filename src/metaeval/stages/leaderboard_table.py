"""The leaderboard as a table to work with (``leaderboard.html`` and the report across data sets): every
column in one table, sortable by any column (a button in each header: keyboard-accessible, its order in
``aria-sort``), filtered by benchmark, target, level and kind of metric (focus, released, baseline,
ROUGE), searched by name, the rows empty under the filter hidden.

Self-contained: an inline script, no network. Without scripting the page shows the static table
(every column; the controls, which need the script, stay hidden). A benchmark's released metrics (the
metrics its score files ship, not the user's) show in that benchmark's columns only: their cells
elsewhere are empty (the reason on hover), collapsed to nothing, unless the reader asks for them.
"""

from __future__ import annotations

import html
from typing import Mapping, Sequence

from .. import tables
from ..tables import NA
from .leaderboard_page import (CAPTION, DELTAS, NOT_SHIPPED, SHORT_NOTES, STYLE, Leaderboard, _by_cell, _missing,
                               deltas_html, level_name)
from .leaderboard_verdict import LEVEL_WORDS, Key, board_verdicts, html_block

# the filter's kinds of metric: the leaderboard's kind of each row, the focus apart
KINDS = {"focus": "focus (yours)", "released": "released with a benchmark", "baseline": "baseline",
         "rouge": "best ROUGE", "builtin": "other built-in"}
_KIND_OF = {"file metric": "released", "baseline": "baseline", "best ROUGE": "rouge", "built-in": "builtin"}

TABLE_STYLE = (
    "<style>.lb-controls{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;font-size:.85em;margin:.5em 0}"
    ".lb-controls[hidden]{display:none}"
    ".leaderboard thead button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;"
    "text-align:left;color:inherit}.leaderboard thead button:focus-visible{outline:2px solid #2b6cb0}"
    ".leaderboard th[aria-sort=descending] button:after{content:' \\2193'}"
    ".leaderboard th[aria-sort=ascending] button:after{content:' \\2191'}"
    ".lb-ns{padding:0;min-width:0}.lb-ns .lb-why{display:none}.lb-released-everywhere .lb-ns .lb-why{display:inline}"
    ".lb-off{display:none}.lb-verdict{background:#f2f7ff;border-left:4px solid #2b6cb0;padding:.6em 1em}"
    ".lb-verdict-columns{font-size:.85em}</style>")


def kind_of(board: Leaderboard, metric: str) -> str:
    """A row's kind for the filter (:data:`KINDS`)."""
    return "focus" if metric in board.focus else _KIND_OF.get(board.kinds.get(metric, ""), "builtin")


def column_ids(board: Leaderboard) -> dict[Key, str]:
    """Each column's header id (the verdict's lists link to it)."""
    return {c: f"lb-col-{i}" for i, c in enumerate(board.columns)}


def _first_targets(board: Leaderboard) -> set[tuple[str, str]]:
    """(dataset, target) of each data set's first ``options.targets_shown`` targets: the default view."""
    shown: dict[str, list[str]] = {}
    for d, t, *_ in board.columns:
        targets = shown.setdefault(d, [])
        if t not in targets and len(targets) < board.options.targets_shown:
            targets.append(t)
    return {(d, t) for d, ts in shown.items() for t in ts}


def _select(name: str, label: str, options: Sequence[tuple[str, str]], default: str = "") -> str:
    opts = "".join(f'<option value="{html.escape(v)}"{" selected" if v == default else ""}>{html.escape(t)}</option>'
                   for v, t in options)
    return f'<label>{html.escape(label)} <select data-lb-filter="{name}">{opts}</select></label>'


def controls(board: Leaderboard) -> str:
    """The filters (hidden until the script shows them: without it they could do nothing)."""
    datasets = list(dict.fromkeys(c[0] for c in board.columns))
    targets = list(dict.fromkeys(c[1] for c in board.columns))
    levels = list(dict.fromkeys(c[2] for c in board.columns))
    kinds = [k for k in KINDS if any(kind_of(board, m) == k for m in board.metrics)]
    first = f"the first {board.options.targets_shown} of each benchmark"
    return ('<div class="lb-controls" hidden>'
            + _select("dataset", "benchmark", [("", "every benchmark"), *((d, d) for d in datasets)])
            + _select("target", "dimension", [("first", first), ("", "every target"), *((t, t) for t in targets)], "first")
            + _select("level", "level", [("", "every level"), *((lv, LEVEL_WORDS.get(lv, lv)) for lv in levels)])
            + _select("kind", "metrics", [("", "every kind"), *((k, KINDS[k]) for k in kinds)])
            + '<label>search <input type="search" data-lb-search placeholder="metric name"></label>'
            + '<label><input type="checkbox" data-lb-option="hide-empty" checked> hide rows empty here</label>'
            + '<label><input type="checkbox" data-lb-option="released-everywhere"> released metrics in every '
              "column</label>"
            + '<span data-lb-only hidden>the verdict\'s columns only <button type="button" data-lb-reset>show '
              "every column</button></span>"
            + '<span class="lb-shown" aria-live="polite"></span></div>')


def _value_cell(board: Leaderboard, r: Mapping[str, object], m: str, t: str, lv: str, i: int) -> str:
    focus = m in board.focus
    cls = "lb-best" if r["worse_than_best"] == "best" else "lb-worse" if r["worse_than_best"] == "yes" else ""
    wtl = f'<br><small class="lb-wtl">{r["wins"]}W {r["ties"]}T {r["losses"]}L</small>' if focus else ""
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
    # data-v: the full-precision value the script sorts by (the text is rounded)
    return (f'<td data-col="{i}" data-v="{float(r["value"])!r}" class="{cls}" title="{html.escape(title)}">'
            f'{tables.fixed(r["value"])}{"*" if r["worse_than_best"] == "yes" else ""} <small>#{r["rank"]}</small>'
            f"{wtl}</td>")


def _absent_cell(r: Mapping[str, object] | None, kind: str, i: int) -> str:
    if r is None:
        return f'<td data-col="{i}" class="lb-none"></td>'
    note = str(r["note"])
    short = html.escape(SHORT_NOTES.get(note, note))
    if kind == "released" and note == NOT_SHIPPED:     # another benchmark's release: collapsed
        return f'<td data-col="{i}" class="lb-ns" title="{html.escape(note)}"><span class="lb-why">– {short}</span></td>'
    return f'<td data-col="{i}" class="lb-absent" title="{html.escape(note)}">– <small>{short}</small></td>'


def table(board: Leaderboard) -> str:
    """Every column of the leaderboard as one table: a header row per benchmark, target and level (each
    column's header a sort button), one row per metric (the focus first and marked)."""
    cols = board.columns
    if not cols:
        return '<p class="answer">No column: no data set has a target with a defined correlation.</p>'
    first = _first_targets(board)

    def spans(key) -> str:
        out, i = [], 0
        while i < len(cols):
            j = i
            while j < len(cols) and key(cols[j]) == key(cols[i]):
                j += 1
            out.append(f'<th colspan="{j - i}" data-lb-span="{" ".join(map(str, range(i, j)))}" scope="colgroup">'
                       f'{html.escape(str(key(cols[i])[-1]))}</th>')
            i = j
        return "".join(out)

    heads = "".join(
        f'<th id="lb-col-{i}" data-col="{i}" data-dataset="{html.escape(d)}" data-target="{html.escape(t)}" '
        f'data-level="{html.escape(lv)}" data-first="{"1" if (d, t) in first else "0"}" scope="col" '
        f'aria-sort="none"><button type="button" data-lb-sort="{i}" title="sort by this column">'
        f"{html.escape(level_name(lv, sub))}</button></th>"
        for i, (d, t, lv, sub) in enumerate(cols))
    head = (f'<tr><th rowspan="3" scope="col" aria-sort="none"><button type="button" data-lb-sort="name" '
            f'title="sort by name">metric</button></th>{spans(lambda c: (c[0],))}</tr>'
            f'<tr>{spans(lambda c: (c[0], c[1]))}</tr><tr>{heads}</tr>')
    cells = _by_cell(board)
    body = []
    for order, m in enumerate(board.metrics):
        focus = m in board.focus
        kind = kind_of(board, m)
        tds = []
        for i, (d, t, lv, sub) in enumerate(cols):
            r = cells.get((d, t, lv, sub, m))
            tds.append(_absent_cell(r, kind, i) if r is None or r["rank"] == NA else _value_cell(board, r, m, t, lv, i))
        name = html.escape(board.names[m]) + (f' <small>({html.escape(m)})</small>' if board.names[m] != m else "")
        search = html.escape(f"{board.names[m]} {m}".lower())
        body.append(f'<tr class="{"lb-focus" if focus else ""}" data-kind="{kind}" data-name="{search}" '
                    f'data-order="{order}"><th scope="row">{"► " if focus else ""}{name} <small class="lb-kind">'
                    f'{html.escape(board.kinds[m])}</small></th>{"".join(tds)}</tr>')
    return (f'<div class="leaderboard"><table data-lb-table><thead>{head}</thead><tbody>{"".join(body)}</tbody>'
            "</table></div>")



# Filters, sorts and searches the leaderboard in place (nothing fetched, nothing stored). Each column's
# header holds a button (Enter or Space sorts, as a click); a verdict's count shows its columns alone.
SCRIPT = """<script>
(function () {
  function init(box) {
    var tableEl = box.querySelector('[data-lb-table]'); if (!tableEl) return;
    var controls = box.querySelector('.lb-controls'); controls.hidden = false;
    var heads = Array.prototype.slice.call(tableEl.querySelectorAll('thead th[data-col]'));
    var spans = Array.prototype.slice.call(tableEl.querySelectorAll('thead th[data-lb-span]'));
    var body = tableEl.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var only = null, sortKey = null, descending = true;
    function value(sel) { return sel ? sel.value : ''; }
    function filter(name) { return value(controls.querySelector('[data-lb-filter="' + name + '"]')); }
    function option(name) { return controls.querySelector('[data-lb-option="' + name + '"]').checked; }
    function apply() {
      var d = filter('dataset'), t = filter('target'), l = filter('level'), k = filter('kind');
      var q = controls.querySelector('[data-lb-search]').value.trim().toLowerCase();
      box.classList.toggle('lb-released-everywhere', option('released-everywhere'));
      var shown = heads.map(function (th) {
        var s = th.dataset;
        if (only) return only.indexOf(th.id) >= 0;
        return (!d || s.dataset === d) && (!l || s.level === l) &&
          (t === 'first' ? s.first === '1' : (!t || s.target === t));
      });
      heads.forEach(function (th, i) { th.classList.toggle('lb-off', !shown[i]); });
      spans.forEach(function (th) {
        var n = th.dataset.lbSpan.split(' ').filter(function (i) { return shown[+i]; }).length;
        th.classList.toggle('lb-off', n === 0); if (n) th.colSpan = n; });
      var hideEmpty = option('hide-empty'), everywhere = option('released-everywhere'), visible = 0;
      rows.forEach(function (tr) {
        var any = false;
        Array.prototype.forEach.call(tr.cells, function (td) {
          if (td.dataset.col === undefined) return;
          var on = shown[+td.dataset.col]; td.classList.toggle('lb-off', !on);
          if (on && (td.dataset.v !== undefined || (!hideEmpty && (everywhere || !td.classList.contains('lb-ns')))))
            any = true; });
        var keep = (!k || tr.dataset.kind === k) && (!q || tr.dataset.name.indexOf(q) >= 0) && (any || !hideEmpty);
        tr.hidden = !keep; if (keep) visible += 1; });
      box.querySelector('[data-lb-only]').hidden = !only;
      box.querySelector('.lb-shown').textContent = visible + ' of ' + rows.length + ' metrics, ' +
        shown.filter(Boolean).length + ' of ' + heads.length + ' columns';
    }
    function sort(key) {
      descending = sortKey === key ? !descending : key !== 'name'; sortKey = key;
      var cellOf = function (tr) { return key === 'name' ? null : tr.querySelector('td[data-col="' + key + '"]'); };
      rows.sort(function (a, b) {
        if (key === 'name') { var x = a.dataset.name, y = b.dataset.name;
          return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1) || a.dataset.order - b.dataset.order; }
        var ca = cellOf(a), cb = cellOf(b);
        var va = ca && ca.dataset.v !== undefined ? +ca.dataset.v : NaN;
        var vb = cb && cb.dataset.v !== undefined ? +cb.dataset.v : NaN;
        if (isNaN(va) !== isNaN(vb)) return isNaN(va) ? 1 : -1;     // no value: last, either way
        if (!isNaN(va) && va !== vb) return (va < vb ? -1 : 1) * (descending ? -1 : 1);
        return a.dataset.order - b.dataset.order; });
      rows.forEach(function (tr) { body.appendChild(tr); });
      tableEl.querySelectorAll('thead th[aria-sort]').forEach(function (th) { th.setAttribute('aria-sort', 'none'); });
      var button = tableEl.querySelector('[data-lb-sort="' + key + '"]');
      button.closest('th').setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    }
    tableEl.querySelectorAll('[data-lb-sort]').forEach(function (b) {
      b.addEventListener('click', function () { sort(b.dataset.lbSort); }); });
    controls.querySelectorAll('select, input').forEach(function (c) {
      c.addEventListener(c.type === 'search' ? 'input' : 'change', function () { only = null; apply(); }); });
    box.querySelector('[data-lb-reset]').addEventListener('click', function () { only = null; apply(); });
    document.querySelectorAll('a[data-lb-columns]').forEach(function (a) {
      a.addEventListener('click', function () {
        only = a.dataset.lbColumns ? a.dataset.lbColumns.split(' ') : [];
        var list = document.getElementById(a.getAttribute('href').slice(1));
        if (list && list.closest('details')) list.closest('details').open = true;
        apply(); }); });
    apply();
  }
  document.querySelectorAll('[data-lb]').forEach(init);
})();
</script>"""


def verdict_html(board: Leaderboard, tests: Sequence[Mapping[str, object]] | None = None) -> str:
    """Each focus metric's verdict in one sentence, its counts linked to the table's columns (``tests``:
    the board's tests when read back from the TSV; the board's own when None)."""
    return TABLE_STYLE + html_block(board_verdicts(board, tests), column_ids(board))


def html_section(board: Leaderboard) -> str:
    """The leaderboard's HTML: the caption, the controls and the table, the focus metrics' deltas, then
    the script."""
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in board.notes)
    caption = (f'<p class="caption">{html.escape(CAPTION)} alpha = {board.options.alpha}; hover a cell for its '
               "interval and test; a header sorts by its column (again: the other way). A benchmark's released "
               "metrics show in its own columns only (tick the box to see why they are empty elsewhere). Every "
               "cell: <code>leaderboard.tsv</code>; each focus metric against every other: "
               "<code>leaderboard_tests.tsv</code>.</p>")
    return (STYLE + TABLE_STYLE + f'<div class="lb" data-lb>{caption}{controls(board)}{table(board)}</div>'
            + (f"<ul>{notes}</ul>" if notes else "") + deltas_html(board) + SCRIPT)
