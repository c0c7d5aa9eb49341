"""Report stage: one self-contained HTML file per data set (figures embedded as PNG data URIs) with
the data set's description and counts, the configuration, a methods section, every table and
figure of the report's sections (each stage's, :func:`metaeval.registry.report_sections`) with a caption saying
how to read it, and the software versions. No timestamps: the same inputs give the same bytes."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Mapping

import yaml

from .. import outputs, registry, tables
from ..files import read_text, write_text
from ..pages import figure_html, markdown_html, page, table_html, tsv_html
from ..provenance import reported_versions
from ..stats.rouge_bootstrap import percent
from ..stats.verdicts import METHOD as AGREEMENT_METHOD
from ..data.dataset_yaml import parse_aggregation
from .correlation_tables import answer, answers_table, main_of, matrix_p, read_williams, summary_answer
from .human import primary_of

def _exceptions(rouge: Mapping) -> str:
    """rouge.stemmer_exceptions in words (the config as archived, so a missing key is the default)."""
    value = rouge.get("stemmer_exceptions", "alphabetical")
    if value == "alphabetical":
        return "adj, adv, noun, verb files loaded in alphabetical order"
    if value == "none":
        return "none, so Porter alone"
    return f"files loaded in the order {', '.join(value)}"


# The methods' items that describe the text metrics (ROUGE, BLEU, chrF, SERA, pyramids' neighbours
# aside: by position in :func:`methods`), replaced by one sentence for a score-only data set.
SCORE_ONLY = ("No text metrics: the data set gives no summary texts (dataset.yaml texts: false) or no reference "
              "summaries (references: false), so ROUGE, BLEU, chrF, SERA, ROUGE-1.5.5's intervals and the sweeps are "
              "skipped; every analysis below runs on the metrics from score files.")


def methods(config: Mapping, texts: bool = True, used: Mapping[str, str] = {}) -> str:
    """The methods as a list; ``used``: what the jobs actually used where the config names only a
    preference (``rerank``: the target of the re-ranking, from rerank/summary.tsv; ``targets``: the
    data set's targets; ``aggregation``: its rule for the annotators)."""
    r, c, a, rr, h = (config.get(k, {}) for k in ("rouge", "correlation", "agreement", "rerank", "human_scores"))
    se, sw, iv, ch = (config.get(k, {}) for k in ("sera", "sweeps", "intervals", "chrf"))
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
        (f"chrF (Popovic 2015) and chrF++ (Popovic 2017) as sacrebleu computes them ({', '.join(ch.get('metrics', []))}; "
         f"character n-grams up to {ch.get('char_order')}, whitespace {'kept' if ch.get('whitespace') else 'removed'}; "
         "chrF++ adds word uni- and bigrams; beta = 2) on the raw text (each summary's sentences joined by a space, "
         "no ROUGE preprocessing), against the same references as ROUGE: corpus chrF per summarizer from the summed "
         "statistics of the best-matching reference of every summary, sentence chrF per summary."
         if ch.get("enabled") else "chrF: disabled."),
        f"Human scores: dimensions rescaled to [0, 1]; coverage and linguistic quality are means of their dimensions; "
        f"combinations {', '.join(h.get('combinations', []))}; order {h.get('order')}."
        + (f" Targets (every analysis correlates the metrics with each): {used['targets']}." if used.get("targets") else "")
        + (f" Annotators' scores aggregated into a judgment by {used['aggregation']}." if used.get("aggregation") else ""),
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
        f"Re-ranking: best variant {rr.get('best')} for {used.get('rerank') or rr.get('combination')} vs the original "
        f"{rr.get('original')}"
        + (f" ({rr.get('combination')}, as configured, is not a target of this data set)"
           if used.get("rerank") and used["rerank"] != rr.get("combination") else "") + "; "
        f"Shapiro-Wilk, then paired t-tests or Wilcoxon signed-rank tests (alpha = {rr.get('alpha')}).",
    ]
    if not texts:
        text_items = (items[0], items[1], items[2], items[5], items[7], items[8])  # ROUGE, BLEU, chrF, SERA, intervals, sweeps
        items = [SCORE_ONLY] + [i for i in items if i not in text_items]
    for stage in registry.STAGES:      # each stage's own lines (metaeval.registry: its methods hook)
        if stage.methods:
            items += registry.hook(stage.methods)(config)
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def file_metric_sentence(table6_tsv: str | None, williams, a) -> str:
    """The best metric read from a score file (Table 6's first ranked row naming one) with its r,
    interval and rank, and whether the best variant beats it in a one-sided Williams test
    (``williams``: the main combination's p-value table, as :func:`answer` reads it). Nothing when
    the data set has no score file or the best variant is itself one: the answer names it already."""
    if not table6_tsv or not Path(table6_tsv).exists() or a.best is None:
        return ""
    t = tables.read_tsv(table6_tsv)
    ranked = t[(t["metric"] != "") & (t["rank"] != tables.NA)]
    if not len(ranked) or a.best["variant"] in set(t.loc[t["metric"] != "", "variant"]):
        return ""
    row = ranked.iloc[0]
    ci = "" if row["95% CI"] == "[NA, NA]" else f", 95% CI {row['95% CI']}"
    w = williams.set_index("variant") if williams is not None and len(williams) else None
    p = matrix_p(w, a.best["variant"], row["variant"])
    best = html.escape(a.best["variant"])
    shown = "p &lt; 0.001" if p < 0.001 else f"p = {p:.3f}"
    verdict = ("" if p != p else
               f"; {best} is significantly better (Williams test, {shown})" if p < a.alpha else
               f"; it is not significantly worse than {best} (Williams test, {shown})")
    return (f" Of the metrics from score files, the best is <b>{html.escape(row['variant'])}</b> (r = {row['r']}{ci}), "
            f"#{row['rank']} of {a.variants}{verdict}.")


def combination_label(comb: str, meta: Mapping) -> str:
    """A human combination as the reader knows it: a component named after its dimensions when it
    has one or two ("coverage (fact)"), else the combination's name."""
    dims = (meta.get("human") or {}).get(comb) or []
    return f"{comb} ({', '.join(dims)})" if 0 < len(dims) <= 2 else comb


def _interval(row: Mapping) -> str:
    """", 95% CI [lo, hi]" of a correlation row, or nothing when it has no interval."""
    return ("" if row["pearson_lo"] == tables.NA else
            f", 95% CI [{tables.fixed(row['pearson_lo'])}, {tables.fixed(row['pearson_hi'])}]")


def _baseline_missing(baseline: str, computed: bool) -> str:
    """Why the baseline has no rank: not among the data set's metrics, or an undefined correlation."""
    if not computed:
        return f"The common baseline {html.escape(baseline)} is not computed on this data set."
    return f"The common baseline {html.escape(baseline)} has no defined correlation here."


def summary_answer_text(s, alone: bool = True, label: str | None = None) -> str:
    """The opening verdict at the summary level (:func:`metaeval.stages.correlation_tables.summary_answer`):
    the whole answer for a data set without a system-level correlation (fewer than 3 systems,
    ``alone``), else a second one after the system-level verdict (a score-only data set, whose
    benchmarks are read at the summary level)."""
    b = s.best
    pooled = "pooled" in s.level
    ci = _interval(b)
    how = (f"over all {b['summaries']} judged summaries pooled" if pooled else
           f"within each of {b['topics']} topics, averaged")
    lead = ("This data set has too few systems for a system-level correlation, so the answer is at the summary "
            "level: the best metric" if alone else "At the summary level, the best metric")
    text = (f"{lead} for {html.escape(label or s.combination)}{' at the summary level' if alone else ''} is "
            f"<b>{html.escape(b['metric'])}</b> (Pearson r = {tables.fixed(b['pearson'])}{ci}, {how}); "
            f"{s.not_worse} of the other {s.metrics - 1} metrics {'is' if s.not_worse == 1 else 'are'} not significantly "
            f"worse (paired bootstrap over topics, p &ge; {s.alpha}). ")
    if s.baseline_rank is None:
        text += _baseline_missing(s.baseline, s.baseline_computed)
    else:
        text += (f"The common baseline {html.escape(s.baseline)} ranks #{s.baseline_rank} "
                 f"(r = {tables.fixed(s.baseline_row['pearson'])}).")
    return text


def answer_html(a, summary, figure: str | None, label: str | None = None, both: bool = False,
                sentences: str = "") -> str:
    """The opening verdict in plain words (:func:`metaeval.stages.correlation_tables.answer`), then
    ``sentences`` (the best metric from a score file and the stages' answer hooks: the winner's
    probability of being the best, the human ceiling); without a system-level answer, the
    summary-level one (``summary``: :func:`metaeval.stages.correlation_tables.summary_answer`), and
    with ``both`` (a score-only data set) the summary-level one after the system-level one."""
    label = label or a.combination
    if a.best is None and summary is not None:
        text = summary_answer_text(summary, label=label)
    elif a.best is None:
        text = (f"No variant has a defined correlation with {html.escape(label)} on this data set (see the notes of the "
                "correlation section), so there is no answer to give.")
    else:
        b = a.best
        ci = _interval(b)
        text = (f"On this data set, the best metric for {html.escape(label)} is <b>{html.escape(b['variant'])}</b> "
                f"(r = {tables.fixed(b['pearson'])}{ci}); {a.not_worse} of the other {a.variants - 1} variants "
                f"{'is' if a.not_worse == 1 else 'are'} not significantly worse (Williams test, p &ge; {a.alpha}). ")
        if a.baseline_rank is None:
            text += _baseline_missing(a.baseline, a.baseline_computed)
        else:
            text += (f"The common baseline {html.escape(a.baseline)} ranks #{a.baseline_rank} and is significantly beaten "
                     f"by {a.baseline_beaten_by} variant{'s' if a.baseline_beaten_by != 1 else ''}.")
        text += sentences
        if both and summary is not None:
            text += " " + summary_answer_text(summary, alone=False, label=label)
    caption = ("The top metrics' summary-level Pearson r with 95% bootstrap intervals over topics (filled: not "
               "significantly worse than the best; red: the baseline)." if a.best is None and summary is not None else
               "The top variants' Pearson r with 95% bootstrap intervals (filled: optimal; red: the baseline).")
    fig = figure_html(figure, caption) if figure else ""
    return f'<p class="answer">{text}</p>{fig}'


def inapplicable_stages(inputs: Mapping[str, str]) -> dict[str, str]:
    """The stages that ran but do not apply to the data set, with the reason (their ``inapplicable``
    hook on their notes file): their sections are left out of the report."""
    out = {}
    for stage in registry.STAGES:
        notes = inputs.get(outputs.input_key(outputs.ReportItem(stage.name, "notes")))
        if stage.inapplicable and notes and Path(notes).exists():
            why = registry.hook(stage.inapplicable)(notes)
            if why:
                out[stage.name] = why
    return out


def used_in(inputs: Mapping[str, str], meta: Mapping) -> dict[str, str]:
    """What the jobs used where the config states a preference (see :func:`methods`)."""
    used: dict[str, str] = {}
    rerank = inputs.get(outputs.input_key(outputs.ReportItem("rerank", "summary")))
    if rerank and Path(rerank).exists():
        items = dict(tables.read_tsv(rerank).itertuples(index=False, name=None))
        used["rerank"] = items.get("combination", "")
    targets = inputs.get(outputs.input_key(outputs.ReportItem("human", "targets")))
    if targets and Path(targets).exists():
        used["targets"] = ", ".join(tables.read_tsv(targets)["target"])
    if meta.get("aggregation"):
        used["aggregation"] = parse_aggregation(meta["aggregation"], "dataset.yaml").describe()
    return used


def answers_html(answers_tsv: str | None, primary: str) -> str:
    """The opening table: one row per target and level (answers.tsv, as
    :func:`metaeval.stages.correlation_tables.answers_table` shows it: 3 decimals, sorted by r within
    each level), then the sentence about the primary target follows. Nothing without the file."""
    if not answers_tsv or not Path(answers_tsv).exists():
        return ""
    rows = tables.read_tsv(answers_tsv).to_dict("records")
    if not rows:
        return ""
    shown = answers_table(rows)
    return (f'<p class="caption">The answer per target and level: the best metric, its Pearson r with the 95% '
            "bootstrap interval, how many of the other metrics are not significantly worse (system level: Williams "
            "tests; summary level: paired bootstrap over topics) and the rank of the common baseline; sorted by r. The "
            f'sentence below is about the primary target, {html.escape(primary)}.</p>'
            f'<div class="answers">{table_html(shown.header, shown.rows, collapse=False)}</div>')


def dataset_html(summary_tsv: str) -> str:
    """The data set's counts as one row and its judgment dimensions as one row each."""
    stats = dict(tables.read_tsv(summary_tsv).itertuples(index=False, name=None))
    refs = (stats.get("references_per_topic_min"), stats.get("references_per_topic_max"))
    counts = [("topics", stats.get("topics")), ("systems", stats.get("systems")),
              ("human summarizers", stats.get("human_summarizers")),
              ("references per topic", refs[0] if refs[0] == refs[1] else f"{refs[0]}–{refs[1]}"),
              ("summaries", stats.get("summaries")), ("judged", stats.get("judged_summaries")),
              ("empty", stats.get("empty_summaries")), ("documents", stats.get("has_documents")),
              ("pyramids", stats.get("has_pyramids"))]
    dims = [k[:-2] for k in stats if k.endswith("_n") and f"{k[:-2]}_mean" in stats]
    rows = [[d, stats[f"{d}_n"], stats[f"{d}_mean"], stats[f"{d}_min"], stats[f"{d}_max"]] for d in dims]
    human = (f"<p>Coverage: {html.escape(str(stats.get('coverage_dimensions') or '—'))}; linguistic quality: "
             f"{html.escape(str(stats.get('linguistic_quality_dimensions') or '—'))}.</p>")
    return (table_html([c for c, _ in counts], [[str(v) for _, v in counts]]) + human
            + table_html(["dimension", "judged", "mean", "min", "max"], rows))
def build(inputs: Mapping[str, str], config: Mapping) -> str:
    """The report's HTML from its named inputs (:func:`metaeval.outputs.report_inputs`): the answer
    first, then the contents, the data set, the methods, every section, and how to reproduce."""
    path = lambda stage, key: inputs[outputs.input_key(outputs.ReportItem(stage, key))]  # noqa: E731
    meta = yaml.safe_load(read_text(path("data", "dataset")))
    corr = tables.read_tsv(path("correlation", "correlations")).to_dict("records")
    comb = main_of(corr, primary_of(inputs.get(outputs.input_key(outputs.ReportItem("human", "targets")))))
    williams = read_williams({k[len("williams__"):]: v for k, v in inputs.items() if k.startswith("williams__")},
                             inputs.get(outputs.input_key(outputs.ReportItem("correlation", "targets_williams"))), comb)
    baseline = config.get("agreement", {}).get("baseline", "R2_ST1_RS0_A_R")
    alpha = config.get("correlation", {}).get("alpha", 0.05)
    verdict = answer(corr, williams, comb, baseline, alpha)
    summary = summary_answer(tables.read_tsv(path("correlation", "summary_level")).to_dict("records"), comb,
                             baseline, alpha)
    sentences = file_metric_sentence(path("correlation_tables", "table6_tsv"), williams, verdict)
    paragraphs = []
    for stage in registry.STAGES:      # the stages' answer hooks (metaeval.registry), on their context files
        named = {key: inputs.get(outputs.input_key(outputs.ReportItem(stage.name, key))) for key in stage.context}
        files = {key: path for key, path in named.items() if path}
        if stage.answer and files:
            text = registry.hook(stage.answer)(files, verdict)
            if stage.answer_paragraph and text:
                paragraphs.append(f'<p class="answer">{text}</p>')
            elif verdict.best is not None:
                sentences += text
    answers = inputs.get(outputs.input_key(outputs.ReportItem("correlation_tables", "answers_tsv")))
    left_out = inapplicable_stages(inputs)
    empty = [s.title for s in registry.report_sections() if s.items[0].stage not in left_out and empty_section(inputs, s)]
    lead = [answers_html(answers, comb),
            answer_html(verdict, summary, path("correlation_tables", "top_png"), label=combination_label(comb, meta),
                        both=meta.get("texts", True) is False, sentences=sentences),
            *paragraphs,
            *(f'<p class="notes">Left out: {html.escape(stage)}: {html.escape(why)}.</p>' for stage, why in left_out.items()),
            *(f'<p class="notes">Left out: {html.escape(title)}: it does not apply to this data set (its tables are '
              "empty; the stage's notes say why).</p>" for title in empty),
            f"<p>{html.escape(str(meta.get('description', '')))}</p>",
            f"<p><b>Source:</b> {html.escape(str(meta.get('source', '')))}<br><b>Licence:</b> "
            f"{html.escape(str(meta.get('license', '')))}<br><b>Cite:</b> {html.escape(str(meta.get('citation', '')))}</p>"]
    sections = [("The data set", dataset_html(path("summary", "summary"))),
                ("Methods", methods(config, texts=meta.get("texts", True) is not False and meta.get("references", True)
                                    is not False, used=used_in(inputs, meta)))]
    sections += report_sections(inputs, left_out, empty)
    repro = ["<p>Scoring signatures:</p>",
             f"<pre>{html.escape(Path(path('scores', 'signature')).read_text(encoding='utf-8'))}</pre>",
             "<p>Configuration used:</p>",
             f"<pre>{html.escape(yaml.safe_dump(json.loads(json.dumps(dict(config))), sort_keys=True))}</pre>",
             "<p>Software:</p>" + table_html(["package", "version"], reported_versions()),
             "<p>Machine-readable tables: results/{dataset}/scores/, analysis/, agreement/, rerank/, intervals/, "
             "sweeps/ (see the repository README for their columns).</p>"]
    sections.append(("Reproducibility", "".join(repro)))
    name = html.escape(meta["name"])
    return page(f"metaeval report: {meta['name']}", f"Which metric to trust on <em>{name}</em>?", lead, sections)


def _tables_of(inputs: Mapping[str, str], section) -> list[str]:
    files = [inputs.get(outputs.input_key(i)) for i in section.items]
    return [f for f in files if f and f.endswith((".md", ".tsv")) and Path(f).exists()]


def empty_section(inputs: Mapping[str, str], section) -> bool:
    """Whether every table of a section is empty (a protocol that does not apply: header-only tables)."""
    found = _tables_of(inputs, section)
    return bool(found) and all(not (tables.read_markdown(f)[2] if f.endswith(".md") else len(tables.read_tsv(f)))
                               for f in found)


def report_sections(inputs: Mapping[str, str], left_out: Mapping[str, str], empty: list[str]) -> list[tuple[str, str]]:
    """Every section of the registry with its tables and figures (each with its caption), but a
    switched-off stage's, a stage's that does not apply (``left_out``) and the ``empty`` ones."""
    sections = []
    for section in registry.report_sections():
        if not any(inputs.get(outputs.input_key(i)) for i in section.items):
            continue                      # a switched-off stage's section (statistics.enabled: false)
        if all(i.stage in left_out for i in section.items) or section.title in empty:
            continue                      # does not apply to this data set: one line in the answer's notes
        parts = []
        for item in section.items:
            file = inputs.get(outputs.input_key(item))
            if file is None or not Path(file).exists():
                continue
            if file.endswith(".md"):
                parts += [f'<p class="caption">{html.escape(cap)}</p>{table}' for cap, table in markdown_html(file)]
            elif file.endswith(".png"):
                parts.append(figure_html(file, registry.caption(item) or Path(file).name))
            else:
                parts.append(f'<p class="caption">{html.escape(registry.caption(item) or Path(file).name)}</p>'
                             f'{tsv_html(file, scroll=False)}')
        sections.append((section.title, "".join(parts)))
    return sections


def write(report: str, out: Mapping[str, str]) -> None:
    write_text(out["report"], report)
