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


def _exceptions(rouge: Mapping) -> str:
    """rouge.stemmer_exceptions in words (the config as archived, so a missing key is the default)."""
    value = rouge.get("stemmer_exceptions", "alphabetical")
    if value == "alphabetical":
        return "adj, adv, noun, verb files loaded in alphabetical order"
    if value == "none":
        return "none, so Porter alone"
    return f"files loaded in the order {', '.join(value)}"


def methods(config: Mapping) -> str:
    r, c, a, rr, h = (config.get(k, {}) for k in ("rouge", "correlation", "agreement", "rerank", "human_scores"))
    se, sw, iv = (config.get(k, {}) for k in ("sera", "sweeps", "intervals"))
    limit = (f"the first {r['word_limit']} words" if r.get("word_limit") else
             f"the first {r['byte_limit']} bytes" if r.get("byte_limit") else "no length limit")
    items = [
        f"ROUGE computed exactly as ROUGE-1.5.5 (tested against the Perl script): measures {', '.join(r.get('measures', []))}; "
        f"stemming {r.get('stemming')} (WordNet-2.0 exception table: {_exceptions(r)}, then Porter), stop-word "
        f"removal {r.get('stopwords_removed')} (SMART list); ROUGE-W weight "
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
        "Metrics read from score files (metric_scores.tsv; Table 6 lists them, the scoring signature names each "
        "file with its checksum): per-summary scores as given, negated where the data set or the config declares "
        "lower scores better; mean (_A) and median (_M) per system over the summaries that have a score; they take "
        "part in every analysis as the computed metrics do.",
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
    items += statistics_methods(config)
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def statistics_methods(config: Mapping) -> list[str]:
    """The choices of the statistics job (issue 14), and where our definitions differ from the peers'."""
    st, c = config.get("statistics", {}), config.get("correlation", {})
    if not st.get("enabled"):
        return ["Statistics of issue 14 (correlation levels, permutation tests, Kendall variants, pairwise "
                "accuracy, null baseline, winner): disabled (statistics.enabled: false)."]
    base = st.get("accuracy_baseline") or config.get("agreement", {}).get("baseline")
    return [
        f"Tested variants ({', '.join(st.get('variants', []))}; top = the {st.get('top_variants')} variants with the "
        f"highest system-level Pearson r with the main combination) for the combinations "
        f"{', '.join(st.get('combinations', []))}; seed {st.get('seed')} for every resampling.",
        f"Correlation levels (Deutsch, Dror & Roth 2021) {', '.join(st.get('levels', []))} for "
        f"{', '.join(st.get('coefficients', []))} (Kendall's tau-b); at the system level the variants' own system "
        "scores (mean, median, corpus BLEU), at the input and global levels their per-summary scores; undefined "
        f"(NA) with fewer than 3 items or a constant side. {st.get('bootstrap_samples')} bootstrap samples "
        f"resampling {st.get('resample')} (percentile intervals at {st.get('confidence')}) and a null baseline of "
        f"{st.get('null_samples')} samples (human scores permuted among the systems within each input; "
        f"95th/99th percentiles and p = (1 + count(null >= value)) / (1 + samples)) at the levels "
        f"{', '.join(st.get('resampling_levels', []))}. Signed correlations throughout: nlpstats takes absolute "
        "values, we do not (a metric that ranks systems backwards is not good).",
        f"Permutation tests ({st.get('permutation')}; {st.get('permutation_samples')} samples) between every pair "
        f"of tested variants' {st.get('permutation_level')}-level {st.get('permutation_coefficient')}; metric "
        "scores standardised before swapping (nlpstats, mt-metrics-eval); one-sided p = count(delta* >= delta) / "
        "samples as mt-metrics-eval (nlpstats' default is two-sided). With whole systems swapped at the system "
        "level the variants' own system scores are swapped; otherwise their per-summary scores. Optimal set and "
        f"clusters by the Williams tests' rules at alpha = {c.get('alpha')}; \"optimal\" in the correlation tables "
        f"rests on the {st.get('optimal')} tests (statistics.optimal). Our Williams test is one-sided on signed "
        "correlations; mt-metrics-eval's p comes from |t| and is the same in either order.",
        f"Kendall variants {', '.join(st.get('kendall_variants', []))} at the system and input (item) level and "
        f"tie calibration (at {', '.join(st.get('tie_calibration', [])) or 'no level'}) of 23 and acc23 exactly as "
        "mt-metrics-eval's stats.py (KendallWithTiesOpt, sample_rate 1.0; one epsilon for all inputs).",
        "Pairwise accuracy (Kocmi et al. 2021) = acc23 of the system scores (a pair tied by both counts as "
        f"agreement, as mt-metrics-eval); bootstrap interval and null baseline as above; two-sided permutation "
        f"test of each variant's accuracy against {base}.",
        f"Uncertainty of the winner: from the system-level {st.get('winner_coefficient')} bootstrap samples, "
        "P(best) (ties for the best share the sample) and the percentile interval of each variant's rank.",
    ]


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
        if not any(inputs.get(outputs.input_key(i)) for i in section.items):
            continue                      # a switched-off stage's section (statistics.enabled: false)
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
