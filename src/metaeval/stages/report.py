"""Report stage: one self-contained HTML file per data set (figures embedded as PNG data URIs) with
the data set's description and counts, the configuration, a methods section, every table and
figure of the report's sections (:data:`metaeval.outputs.REPORT_SECTIONS`) with a caption saying
how to read it, and the software versions. No timestamps: the same inputs give the same bytes."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Mapping

import yaml

from .. import outputs, tables
from ..files import write_text
from ..pages import figure_html, markdown_html, page, table_html, tsv_html
from ..provenance import reported_versions
from ..stats.rouge_bootstrap import percent
from ..stats.verdicts import METHOD as AGREEMENT_METHOD
from .annotators import ceiling_sentence
from .annotators import methods as annotators_methods
from .correlation_tables import answer, main_of, matrix_p, summary_answer
from . import factuality  # issue 23: the answer and methods of the factual-consistency protocols

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
SCORE_ONLY = ("No text metrics: the data set gives no summary texts (dataset.yaml texts: false), so ROUGE, BLEU, "
              "chrF, SERA, ROUGE-1.5.5's intervals and the sweeps are skipped; every analysis below runs on the "
              "metrics from score files.")


def methods(config: Mapping, texts: bool = True) -> str:
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
    if not texts:
        text_items = (items[0], items[1], items[2], items[5], items[7], items[8])  # ROUGE, BLEU, chrF, SERA, intervals, sweeps
        items = [SCORE_ONLY] + [i for i in items if i not in text_items]
    items += statistics_methods(config)
    items += factuality.methods(config)
    items += annotators_methods(config)   # issue 22
    return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in items) + "</ul>"


def winner_sentence(winner_tsv: str | None, a) -> str:
    """From the statistics job's winner table (when it ran): the best variant's probability of being
    the best over the bootstrap samples, and the most probable winner if that is another variant."""
    if not winner_tsv or not Path(winner_tsv).exists() or a.best is None:
        return ""
    w = tables.read_tsv(winner_tsv, numeric=("p_best",))
    w = w[(w["combination"] == a.combination) & w["p_best"].notna()]
    if not len(w):
        return ""
    p = dict(zip(w["variant"], w["p_best"]))
    top = w.sort_values("p_best", ascending=False, kind="stable").iloc[0]
    text = ""
    if a.best["variant"] in p:
        text = (f" Over the bootstrap samples it is the best of the {len(w)} variants the statistics job tests "
                f"(statistics.variants) with probability "
                f"{p[a.best['variant']]:.2f}")
        if top["variant"] != a.best["variant"]:
            text += f"; the most probable winner is {html.escape(top['variant'])} ({top['p_best']:.2f})"
        text += "."
    return text


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


def answer_html(a, figure: str | None, winner_tsv: str | None = None, summary=None, both: bool = False,
                label: str | None = None, ceiling_tsv: str | None = None, table6_tsv: str | None = None,
                williams=None) -> str:
    """The opening verdict in plain words (:func:`metaeval.stages.correlation_tables.answer`), with
    the winner's probability of being the best when the statistics job ran; without a system-level
    answer, the summary-level one (``summary``: :func:`metaeval.stages.correlation_tables.summary_answer`),
    and with ``both`` (a score-only data set) the summary-level one after the system-level one."""
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
        text += winner_sentence(winner_tsv, a)
        text += file_metric_sentence(table6_tsv, williams, a)
        text += ceiling_sentence(ceiling_tsv, b["variant"], a.combination)   # issue 22
        if both and summary is not None:
            text += " " + summary_answer_text(summary, alone=False, label=label)
    caption = ("The top metrics' summary-level Pearson r with 95% bootstrap intervals over topics (filled: not "
               "significantly worse than the best; red: the baseline)." if a.best is None and summary is not None else
               "The top variants' Pearson r with 95% bootstrap intervals (filled: optimal; red: the baseline).")
    fig = figure_html(figure, caption) if figure else ""
    return f'<p class="answer">{text}</p>{fig}'


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
    """The report's HTML from its named inputs (:func:`metaeval.outputs.report_inputs`): the answer
    first, then the contents, the data set, the methods, every section, and how to reproduce."""
    path = lambda stage, key: inputs[outputs.input_key(outputs.ReportItem(stage, key))]  # noqa: E731
    meta = yaml.safe_load(Path(path("data", "dataset")).read_text(encoding="utf-8"))
    corr = tables.read_tsv(path("correlation", "correlations")).to_dict("records")
    comb = main_of(corr)
    will = inputs.get(f"williams__{comb}")
    williams = tables.read_tsv(will) if will else None
    baseline = config.get("agreement", {}).get("baseline", "R2_ST1_RS0_A_R")
    alpha = config.get("correlation", {}).get("alpha", 0.05)
    verdict = answer(corr, williams, comb, baseline, alpha)
    summary = summary_answer(tables.read_tsv(path("correlation", "summary_level")).to_dict("records"), comb,
                             baseline, alpha)
    winner = inputs.get(outputs.input_key(outputs.ReportItem("statistics", "winner")))
    ceiling = inputs.get(outputs.input_key(outputs.ReportItem("annotators", "ceiling")))
    lead = [answer_html(verdict, path("correlation_tables", "top_png"), winner, summary,
                        both=meta.get("texts", True) is False, label=combination_label(comb, meta),
                        ceiling_tsv=ceiling, williams=williams, table6_tsv=path("correlation_tables", "table6_tsv")),
            f"<p>{html.escape(str(meta.get('description', '')))}</p>",
            f"<p><b>Source:</b> {html.escape(str(meta.get('source', '')))}<br><b>Licence:</b> "
            f"{html.escape(str(meta.get('license', '')))}<br><b>Cite:</b> {html.escape(str(meta.get('citation', '')))}</p>"]
    fact = inputs.get(outputs.input_key(outputs.ReportItem("factuality", "answer")))
    if fact and Path(fact).exists() and factuality.answer_sentence(fact):   # a factuality data set (issue 23)
        lead.insert(1, f'<p class="answer">{factuality.answer_sentence(fact)}</p>')
    sections = [("The data set", dataset_html(path("summary", "summary"))),
                ("Methods", methods(config, texts=meta.get("texts", True) is not False))]
    for section in outputs.REPORT_SECTIONS:
        if not any(inputs.get(outputs.input_key(i)) for i in section.items):
            continue                      # a switched-off stage's section (statistics.enabled: false)
        parts = []
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
        sections.append((section.title, "".join(parts)))
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


def write(report: str, out: Mapping[str, str]) -> None:
    write_text(out["report"], report)
