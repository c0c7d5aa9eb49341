"""Report stage: one self-contained HTML file per data set (figures embedded as PNG data URIs) with
the data set's description and counts, the configuration, a methods section, every table and
figure of the report's sections (:data:`metaeval.outputs.REPORT_SECTIONS`) with a caption saying
how to read it, and the software versions. No timestamps: the same inputs give the same bytes."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Mapping, Sequence

import yaml

from .. import outputs, tables
from ..files import write_text
from ..provenance import reported_versions
from ..stats.rouge_bootstrap import percent
from ..stats.verdicts import METHOD as AGREEMENT_METHOD

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
th{background:#f3f3f3}.caption{color:#444;font-size:.92em;margin:.3em 0}.scroll{max-height:420px;overflow:auto}
img{max-width:100%;border:1px solid #eee}code,pre{background:#f6f6f6}pre{padding:.6em;overflow:auto;font-size:.8em}"""


def table_html(header: Sequence[str], rows: Sequence[Sequence[str]], scroll: bool = False) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>' if scroll else table


def markdown_html(path: str) -> tuple[str, str]:
    """(caption, HTML table) of one of the workflow's Markdown tables."""
    caption, header, rows = tables.read_markdown(path)
    if not header:
        return caption, ""
    return caption, table_html(header, rows, scroll=len(rows) + 2 > 25)


def tsv_html(path: str, scroll: bool = True) -> str:
    f = tables.read_tsv(path)
    return table_html([str(c) for c in f.columns], f.values.tolist(), scroll=scroll)


def figure_html(path: str, caption: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (f'<figure><img alt="{html.escape(Path(path).stem)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="caption">{html.escape(caption)}</figcaption></figure>')


def methods(config: Mapping) -> str:
    r, c, a, rr, h = (config.get(k, {}) for k in ("rouge", "correlation", "agreement", "rerank", "human_scores"))
    se, sw, iv, ch = (config.get(k, {}) for k in ("sera", "sweeps", "intervals", "chrf"))
    limit = (f"the first {r['word_limit']} words" if r.get("word_limit") else
             f"the first {r['byte_limit']} bytes" if r.get("byte_limit") else "no length limit")
    items = [
        f"ROUGE computed exactly as ROUGE-1.5.5 (tested against the Perl script): measures {', '.join(r.get('measures', []))}; "
        f"stemming {r.get('stemming')}, stop-word removal {r.get('stopwords_removed')} (SMART list); ROUGE-W weight "
        f"{r.get('wlcs_weight')}; F with alpha = {r.get('alpha')}; multiple references -f {r.get('multiple_references')}; "
        f"{limit}; judged human summaries scored against the other references (jackknifing)"
        + ("; every system summary averaged over the leave-one-out reference sets." if r.get("jackknife_systems") else "."),
        "BLEU through sacrebleu on the same preprocessed tokens: corpus BLEU per summarizer equal to multi-bleu.perl -lc; "
        "smoothed sentence BLEU per summary.",
        (f"chrF (Popovic 2015) and chrF++ (Popovic 2017) as sacrebleu computes them ({', '.join(ch.get('metrics', []))}; "
         f"character n-grams up to {ch.get('char_order')}, whitespace {'kept' if ch.get('whitespace') else 'removed'}; "
         "chrF++ adds word uni- and bigrams; beta = 2) on the raw text (each summary's sentences joined by a space, "
         "no ROUGE preprocessing), against the same references as ROUGE: corpus chrF per summarizer from the summed "
         "statistics of the best-matching reference of every summary, sentence chrF per summary."
         if ch.get("enabled") else "chrF: disabled."),
        f"Human scores: dimensions rescaled to [0, 1]; coverage and linguistic quality are means of their dimensions; "
        f"combinations {', '.join(h.get('combinations', []))}; order {h.get('order')}.",
        "Pyramid scores (when the data set has pyramids.jsonl): P = sum of the expressed SCUs' weights over the best "
        "score of a summary with as many SCUs (original) or with the models' average number of SCUs (modified).",
        (f"SERA (Cohan & Goharian 2016): every summary's query ({', '.join(se.get('queries', []))}) retrieves from "
         f"{se.get('corpus') or 'the data set documents'} with {se.get('model')}; SERA-n and rank-discounted SERA-DIS-n "
         f"at n = {', '.join(map(str, se.get('cutoffs', [])))} against each reference, averaged; mean (_A) and median "
         "(_M) per system." if se.get("enabled") else "SERA: disabled."),
        f"Bootstrap intervals of system ROUGE scores exactly as ROUGE-1.5.5 -c {percent(iv.get('confidence', 0.95)):g} -r "
        f"{iv.get('resamples')} (seed {iv.get('seed')}).",
        f"Sweeps of {', '.join(sw.get('variants', []))}: systems scored against all references and against each single "
        f"reference summarizer's references; with word limits {sw.get('word_limits')} and compression rates "
        f"{sw.get('compression')} % of the source (when documents are known); Kendall tau-b between the rankings; "
        "average-rank aggregation.",
        f"System-level Pearson, Spearman and Kendall tau-b over {c.get('summarizers')}; {c.get('bootstrap_samples')} "
        f"bootstrap samples resampling {c.get('resample')} (seed {c.get('seed')}) for the {c.get('confidence')} "
        "interval of Pearson r (none where r is undefined).",
        f"Williams tests (one-sided, n - 3 degrees of freedom) between every ordered pair of variants, for Pearson's r; "
        f"alpha = {c.get('alpha')}; multiple-comparison correction: {c.get('correction') or 'none (as Graham 2015)'}. "
        "Optimal variants: not significantly outperformed by any other; clusters as mt-metrics-eval's AssignRanks.",
        f"Agreement of verdicts: {AGREEMENT_METHOD} (alpha = {a.get('alpha')}, at least {a.get('min_topics')} topics); "
        f"accuracy with Clopper-Pearson 95% intervals; two-proportion z-tests against {a.get('baseline')}.",
        f"Re-ranking: best variant {rr.get('best')} for {rr.get('combination')} vs the original {rr.get('original')}; "
        f"Shapiro-Wilk, then paired t-tests or Wilcoxon signed-rank tests (alpha = {rr.get('alpha')}).",
    ]
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def build(inputs: Mapping[str, str], config: Mapping) -> str:
    """The report's HTML from its named inputs (:func:`metaeval.outputs.report_inputs`)."""
    path = lambda stage, key: inputs[outputs.input_key(outputs.ReportItem(stage, key))]  # noqa: E731
    meta = yaml.safe_load(Path(path("data", "dataset")).read_text(encoding="utf-8"))
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>metaeval report: {html.escape(meta['name'])}"
             f"</title><style>{CSS}</style></head><body>",
             f"<h1>Which metric to trust on <em>{html.escape(meta['name'])}</em>?</h1>",
             f"<p>{html.escape(str(meta.get('description', '')))}</p>",
             f"<p><b>Source:</b> {html.escape(str(meta.get('source', '')))}<br><b>Licence:</b> "
             f"{html.escape(str(meta.get('license', '')))}<br><b>Cite:</b> {html.escape(str(meta.get('citation', '')))}</p>",
             "<h2>The data set</h2>", tsv_html(path("summary", "summary"), scroll=False),
             "<h2>Methods</h2>", methods(config)]
    for section in outputs.REPORT_SECTIONS:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        for item in section.items:
            file = inputs.get(outputs.input_key(item))
            if file is None or not Path(file).exists():
                continue
            if file.endswith(".md"):
                cap, table = markdown_html(file)
                parts.append(f'<p class="caption">{html.escape(cap)}</p>{table}')
            elif file.endswith(".png"):
                parts.append(figure_html(file, item.caption or Path(file).name))
            else:
                parts.append(f'<p class="caption">{html.escape(item.caption or Path(file).name)}</p>'
                             f'{tsv_html(file, scroll=False)}')
    parts.append("<h2>Reproducibility</h2><p>Scoring signatures:</p>")
    parts.append(f"<pre>{html.escape(Path(path('scores', 'signature')).read_text(encoding='utf-8'))}</pre>")
    parts.append("<p>Configuration used:</p>")
    parts.append(f"<pre>{html.escape(yaml.safe_dump(json.loads(json.dumps(dict(config))), sort_keys=True))}</pre>")
    parts.append("<p>Software:</p>" + table_html(["package", "version"], reported_versions()))
    parts.append("<p>Machine-readable tables: results/{dataset}/scores/, analysis/, agreement/, rerank/, intervals/, sweeps/ "
                 "(see the repository README for their columns).</p></body></html>")
    return "\n".join(parts) + "\n"


def write(report: str, out: Mapping[str, str]) -> None:
    write_text(out["report"], report)
