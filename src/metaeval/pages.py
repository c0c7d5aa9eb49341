"""The HTML layer of the reports: self-contained pages (inline CSS, figures as PNG data URIs) that
open with their answer, then a table of contents and the sections; tables sortable by a click on a
column header (a small inline script, no server) and collapsed when long. The script also records
errors on the page (``data-errors``) and marks it ready (``data-ready``), so a test in a real
browser can tell that the page ran clean. No timestamps: the same inputs give the same bytes."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Sequence

from . import tables

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
th{background:#f3f3f3}th.sortable{cursor:pointer}th.sortable:after{content:" \\2195";color:#999}
.caption{color:#444;font-size:.92em;margin:.3em 0}.scroll{max-height:420px;overflow:auto}
.answer{background:#f2f7ff;border-left:4px solid #2b6cb0;padding:.6em 1em;font-size:1.05em}
nav.toc{font-size:.9em}nav.toc li{margin:.1em 0}details{margin:.3em 0 1em}summary{cursor:pointer;color:#2b6cb0}
img{max-width:100%;border:1px solid #eee}code,pre{background:#f6f6f6}pre{padding:.6em;overflow:auto;font-size:.8em}"""

# Sorts a table by the clicked column (numbers numerically, "NA" last) without a server; records
# script errors on the page, so a test in a real browser can see that the page ran clean.
SCRIPT = """<script>
window.addEventListener('error', function (e) { document.documentElement.dataset.errors =
  (document.documentElement.dataset.errors || '') + e.message + ';'; });
function metaevalKey(text) { var x = parseFloat(text.replace(/[*\\s]/g, ''));
  return isNaN(x) ? [1, text] : [0, x]; }
function metaevalSort(th) {
  var table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
  var up = th.dataset.order !== 'asc'; th.dataset.order = up ? 'asc' : 'desc';
  var rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = metaevalKey(a.cells[col].textContent), y = metaevalKey(b.cells[col].textContent);
    if (x[0] !== y[0]) return x[0] - y[0];
    var c = x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0; return up ? c : -c; });
  rows.forEach(function (r) { body.appendChild(r); });
}
document.querySelectorAll('th.sortable').forEach(function (th) {
  th.addEventListener('click', function () { metaevalSort(th); }); });
document.documentElement.dataset.ready = 'yes';
</script>"""

LONG_TABLE = 25     # rows beyond which a table is collapsed (HTML details) and scrolls


def table_html(header: Sequence[str], rows: Sequence[Sequence[str]], scroll: bool = False, collapse: bool = True) -> str:
    """A sortable table (click a column header); a long one is collapsed and scrolls (unless
    ``collapse`` is False: the report's opening table is always shown whole)."""
    head = "".join(f'<th class="sortable">{html.escape(str(h))}</th>' for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if collapse and len(rows) > LONG_TABLE:
        return (f"<details><summary>show all {len(rows)} rows</summary>"
                f'<div class="scroll">{table}</div></details>')
    return f'<div class="scroll">{table}</div>' if scroll else table


def markdown_html(path: str) -> list[tuple[str, str]]:
    """(caption, HTML table) of each table of one of the workflow's Markdown files (most hold one;
    the judges' one per dimension)."""
    return [(caption, table_html(header, rows) if header else "")
            for caption, header, rows in tables.read_markdown_tables(path)]


def anchor(title: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in title.lower()).strip("-")


def page(title: str, heading: str, lead: Sequence[str], sections: Sequence[tuple[str, str]]) -> str:
    """A self-contained page: the answer first (``lead``), then a table of contents and the
    ``sections`` ((title, HTML) each)."""
    toc = "".join(f'<li><a href="#{anchor(t)}">{html.escape(t)}</a></li>' for t, _ in sections)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{CSS}</style></head><body>", f"<h1>{heading}</h1>", *lead,
             f'<nav class="toc"><h2>Contents</h2><ol>{toc}</ol></nav>']
    parts += [f'<h2 id="{anchor(t)}">{html.escape(t)}</h2>{body}' for t, body in sections]
    parts.append(SCRIPT + "</body></html>")
    return "\n".join(parts) + "\n"


# The statistic a TSV table is sorted by in the report (the first of these columns it has), best first.
SORT_COLUMNS = ("pearson", "value", "r", "accuracy")
# The column that groups a table's rows (each target's rows together, in the file's order of targets).
GROUP_COLUMNS = ("combination", "target")


def _display(cell: object) -> str:
    """A cell as the report shows it: a number with a fraction at 3 decimals (the TSV keeps full precision)."""
    text = str(cell)
    if "." in text or "e" in text:
        try:
            x = float(text)
        except ValueError:
            return text
        if x == x and not float(x).is_integer():
            return f"{x:.3f}"
    return text


def _numeric(column) -> bool:
    """Whether every cell of a column is a number or NA (a column of words is not sorted by)."""
    try:
        tables.to_float(column)
    except ValueError:
        return False
    return True


def tsv_html(path: str, scroll: bool = True) -> str:
    """A TSV table for the report: numbers at 3 decimals, rows sorted by their statistic (best
    first, within each target), not by name."""
    f = tables.read_tsv(path)
    stat = next((c for c in SORT_COLUMNS if c in f.columns and _numeric(f[c])), None)
    if stat is not None and len(f):
        group = next((c for c in GROUP_COLUMNS if c in f.columns), None)
        value = -tables.to_float(f[stat])
        order = {g: i for i, g in enumerate(dict.fromkeys(f[group]))} if group else {}
        keys = [(order.get(g, 0) if group else 0, v != v, v if v == v else 0.0, i)
                for i, (g, v) in enumerate(zip(f[group] if group else [None] * len(f), value))]
        f = f.iloc[[k[-1] for k in sorted(keys)]]
    return table_html([str(c) for c in f.columns], [[_display(c) for c in row] for row in f.values.tolist()],
                      scroll=scroll)


def figure_html(path: str, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (f'<figure><img alt="{html.escape(Path(path).stem)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="caption">{html.escape(caption)}</figcaption></figure>')
