"""The output contract: the name of every file every stage writes, and the report's sections.

Paths are under ``results/{dataset}/``. A stage's files are named (``files("correlation")`` ->
``{"correlations": "results/{dataset}/analysis/correlations.tsv", ...}``); rules declare them as
named outputs and writers receive them by name, so a file's name is written here and nowhere else.

Placeholders in braces are filled by :func:`files` when a value is given (a list of values
expands the file into one entry per value, e.g. one Williams matrix per human combination) and
are otherwise left as Snakemake wildcards (``{stem}``, ``{stop}``, ``{measure}``, ``{shard}``).
"""

from __future__ import annotations

import itertools
import re
from typing import Iterable, Mapping, NamedTuple, Sequence

from .data.datasets import FILES as DATA_FILES   # the data set contract names its files
from .data.formats import IMPORTED as IMPORTED_FORMATS
from .variants import setting_tag

RESULTS = "results"


def _in(folder: str, names: Mapping[str, str]) -> dict[str, str]:
    return {key: f"{folder}/{name}" for key, name in names.items()}


def _figure(folder: str, key: str, stem: str) -> dict[str, str]:
    return {f"{key}_png": f"{folder}/{stem}.png", f"{key}_svg": f"{folder}/{stem}.svg"}


def _table(folder: str, key: str, stem: str) -> dict[str, str]:
    return {f"{key}_tsv": f"{folder}/{stem}.tsv", f"{key}_md": f"{folder}/{stem}.md"}


def _sweep(prefix: str) -> dict[str, str]:
    d = "sweeps"
    return {"scores": f"{d}/{prefix}_scores.tsv", "correlations": f"{d}/{prefix}_correlations.tsv",
            "consistency": f"{d}/{prefix}_consistency.tsv", "markdown": f"{d}/{prefix}.md",
            **_figure(d, "figure", f"figure_{prefix}")}


# Stage -> {file key: path under results/{dataset}/}
STAGES: dict[str, dict[str, str]] = {
    # data: each release format's importer writes the canonical form (metaeval.data.formats; FRANK's
    # also a score file), validation its normalised copy, then its summary
    **{f.stage: _in(f.stage, f.files()) for f in IMPORTED_FORMATS},
    "data": _in("data", DATA_FILES),
    "summary": {"summary": "data/summary.tsv"},
    # scoring
    "score": {"scores": "scores/parts/ST{stem}_RS{stop}.shard{shard}.tsv",
              "bleu_stats": "scores/parts/BLEU_stats_ST{stem}_RS{stop}.shard{shard}.tsv",
              "bleu_signature": "scores/parts/BLEU_signature_ST{stem}_RS{stop}.shard{shard}.txt"},
    "chrf": {"scores": "scores/chrf_scores.tsv", "stats_{metric}": "scores/chrf_stats_{metric}.tsv",
             "signature": "scores/chrf_signature.txt"},
    "sera_index": {"index": "scores/sera/index.zip"},
    "sera": {"scores": "scores/sera_scores.tsv", "signature": "scores/sera/signature.txt"},
    "file_metrics": {"scores": "scores/file_metrics/scores.tsv", "metrics": "scores/file_metrics/metrics.tsv",
                     "signature": "scores/file_metrics/signature.txt"},
    "scores": {"summaries": "scores/summary_scores.tsv", "systems": "scores/system_scores.tsv",
               "signature": "scores/scoring_signature.txt", "bleu_stats_{setting}": "scores/bleu_stats_{setting}.tsv"},
    "intervals": {"table": "intervals/system_intervals.tsv", "markdown": "intervals/intervals.md",
                  **_figure("intervals", "figure", "figure_intervals")},
    # human scores and the analyses
    "human": {"summaries": "human/summary_human.tsv", "systems": "human/system_human.tsv",
              "skipped": "human/skipped.tsv"},
    "correlation": {"correlations": "analysis/correlations.tsv",
                    "williams_{combination}": "analysis/williams_{combination}.tsv",
                    "summary_level": "analysis/summary_level_correlations.tsv", "notes": "analysis/notes.tsv"},
    "correlation_tables": {**_table("analysis", "table1", "table1"), **_table("analysis", "table2", "table2"),
                           **_table("analysis", "table4", "table4"), **_table("analysis", "table5", "table5"),
                           **_table("analysis", "table6", "table6_file_metrics"),
                           **_figure("analysis", "figure1", "figure1_coverage_vs_lq"),
                           **_figure("analysis", "figure2", "figure2_densities"),
                           **_figure("analysis", "figure3", "figure3_williams"),
                           **_figure("analysis", "top", "figure_top_variants")},
    "agreement": {"verdicts": "agreement/verdicts.tsv", "agreement": "agreement/agreement.tsv",
                  "table2_md": "agreement/table2.md", "table3_md": "agreement/table3.md",
                  **_figure("agreement", "accuracy", "figure_accuracy"),
                  **_figure("agreement", "differences", "figure_differences")},
    "rerank": {**_table("rerank", "table3", "table3"), "normality": "rerank/normality.tsv",
               "pairwise": "rerank/pairwise.tsv", "summary": "rerank/summary.tsv",
               **_figure("rerank", "figure4", "figure4_significance")},
    "reference_sweep": _sweep("references"),
    "length_sweep": _sweep("lengths"),
    # issue 14's statistics of the tested variants (metaeval.stages.statistics)
    "statistics": {"levels": "statistics/correlation_levels.tsv", "levels_md": "statistics/correlation_levels.md",
                   "permutation_{combination}": "statistics/permutation_{combination}.tsv",
                   "optimal": "statistics/optimal.tsv", "optimal_md": "statistics/optimal.md",
                   "kendall": "statistics/kendall.tsv", "kendall_md": "statistics/kendall.md",
                   "accuracy": "statistics/accuracy.tsv", "accuracy_md": "statistics/accuracy.md",
                   "winner": "statistics/winner.tsv", "winner_md": "statistics/winner.md",
                   **_figure("statistics", "winner", "figure_winner"), "notes": "statistics/notes.tsv"},
    # issue 23: factual consistency (metaeval.stages.factuality)
    "factuality": {**_table("factuality", "partial", "partial_correlations"), "williams": "factuality/williams.tsv",
                   **_table("factuality", "ablation", "ablation"), **_figure("factuality", "ablation", "figure_ablation"),
                   **_table("factuality", "summary", "summary_correlations"),
                   **_table("factuality", "binary", "binary"), "auc_tests": "factuality/auc_tests.tsv",
                   **_table("factuality", "ranking", "ranking_accuracy"), "ranking_tests": "factuality/ranking_tests.tsv",
                   "answer": "factuality/answer.tsv", "notes": "factuality/notes.tsv"},
    # issue 22: annotators as data (metaeval.stages.annotators)
    "annotators": {"alpha": "annotators/alpha.tsv", "alpha_md": "annotators/alpha.md",
                   "ceiling": "annotators/ceiling.tsv", "ceiling_md": "annotators/ceiling.md",
                   "parity": "annotators/parity.tsv", "parity_md": "annotators/parity.md",
                   **_figure("annotators", "figure", "figure_ceiling"), "notes": "annotators/notes.tsv"},
    "report": {"report": "report.html"},
    # across data sets (results/all/, the data set name ACROSS)
    "across": {"variants_tsv": "variants.tsv", "variants_md": "variants.md",
               "replicability_tsv": "replicability.tsv", "replicability_md": "replicability.md",
               "excluded": "excluded.tsv", "ranks_png": "figure_ranks.png", "ranks_svg": "figure_ranks.svg",
               "forest_png": "figure_forest.png", "forest_svg": "figure_forest.svg", "report": "report.html"},
}
ACROSS = "all"

# Calibration on known truth (`snakemake calibration`, not part of the main job; issue 14, 6c): the
# fitted model, the simulations at the user's numbers and at each number of topics of the grid, and
# the tables and figure made from them.
STAGES.update({
    "calibration_model": {"model": "calibration/model.tsv"},
    "calibration_main": {"rejections": "calibration/error_power.tsv", "coverage": "calibration/coverage.tsv"},
    "calibration_grid": {"rejections": "calibration/grid/power_T{topics}.tsv"},
    "calibration": {"error_power_md": "calibration/error_power.md", "coverage_md": "calibration/coverage.md",
                    "power": "calibration/power_by_topics.tsv",
                    **_table("calibration", "topics_needed", "topics_needed"),
                    **_figure("calibration", "figure", "figure_power")},
})

ARCHIVE = f"{RESULTS}/archive/{{dataset}}-{{confighash}}.tar.gz"
ARCHIVE_LOG = f"{RESULTS}/archive/logs/{{dataset}}-{{confighash}}.log"

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _fill(template: str, values: Mapping[str, object]) -> str:
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)


def files(stage: str, dataset: str = "{dataset}", **values: object) -> dict[str, str]:
    """The named files of a stage for one data set (or the ``{dataset}`` wildcard). ``values`` fill
    placeholders; a list or tuple expands each file whose key has that placeholder."""
    out: dict[str, str] = {}
    for key, rel in STAGES[stage].items():
        names = _PLACEHOLDER.findall(key)
        lists = {n: values[n] for n in names if n in values and isinstance(values[n], (list, tuple))}
        missing = [n for n in names if n not in values]
        if missing:
            raise KeyError(f"files({stage!r}): key {key!r} needs a value for {missing}")
        scalars = {k: v for k, v in values.items() if not isinstance(v, (list, tuple))}
        for combo in itertools.product(*lists.values()) if lists else [()]:
            v = {**scalars, **dict(zip(lists, combo)), "dataset": dataset}
            out[_fill(key, v)] = f"{RESULTS}/{dataset}/" + _fill(rel, v)
    return out


def file(stage: str, key: str, dataset: str = "{dataset}", **values: object) -> str:
    """One file of a stage (``key`` as in :data:`STAGES`, placeholders filled by ``values``)."""
    rel = STAGES[stage][key]
    return f"{RESULTS}/{dataset}/" + _fill(rel, {**values, "dataset": dataset})


def dataset_dir(dataset: str = "{dataset}") -> str:
    """The folder of all of a data set's results."""
    return f"{RESULTS}/{dataset}"


def log(job: str, dataset: str = "{dataset}") -> str:
    """The log of one job (``job`` may hold wildcards, e.g. ``preprocess_ST{stem}_RS{stop}``)."""
    return f"{RESULTS}/{dataset}/logs/{job}.log"


def setting_tags(settings: Iterable[tuple[int, int]]) -> list[str]:
    return [setting_tag(s, r) for s, r in settings]


def part_key(kind: str, stem: int, stop: int, shard: int) -> str:
    """The gathering job's name for one score job's file (``kind``: a key of the ``score`` stage:
    ``scores``, ``bleu_stats`` or ``bleu_signature``)."""
    return f"{kind}__{setting_tag(stem, stop)}__shard{shard}"


def parts_by_setting(inputs: Mapping[str, str], kind: str) -> dict[tuple[int, int], list[str]]:
    """A job's named inputs of one kind of score-job file (:func:`part_key`), by (stem, stop), in shard order."""
    found = {}
    for key, path in inputs.items():
        m = re.fullmatch(rf"{kind}__ST([01])_RS([01])__shard([0-9]+)", key)
        if m:
            found[(int(m[1]), int(m[2]), int(m[3]))] = path
    out: dict[tuple[int, int], list[str]] = {}
    for (stem, stop, _), path in sorted(found.items()):
        out.setdefault((stem, stop), []).append(path)
    return out


# ----------------------------------------------------------------------------- the main job

# The stages that read summary texts: a score-only data set (texts: false) has none of their outputs.
TEXT_STAGES = ("intervals", "reference_sweep", "length_sweep")


def final(dataset: str, combinations: Sequence[str], statistics: Sequence[str] | None = None,
          texts: bool = True, annotators: bool = True) -> list[str]:
    """Every final output of one data set (the main job's targets); ``statistics``: the statistics
    job's permutation combinations (None: the job is off); ``texts``: False for a score-only data
    set (no :data:`TEXT_STAGES`); ``annotators``: whether the annotators job (issue 22) is on."""
    out = [file("summary", "summary", dataset), file("scores", "summaries", dataset),
           file("scores", "systems", dataset)]
    out += files("correlation", dataset, combination=list(combinations)).values()
    if statistics is not None:
        out += files("statistics", dataset, combination=list(statistics)).values()
    if annotators:
        out += files("annotators", dataset).values()
    for stage in ("correlation_tables", "agreement", "rerank", "intervals", "reference_sweep", "length_sweep",
                  "factuality", "report"):
        if texts or stage not in TEXT_STAGES:
            out += files(stage, dataset).values()
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------- the report

class ReportItem(NamedTuple):
    """One table or figure of the report: which stage's file, and (for figures and TSV tables) the
    caption; a Markdown table carries its own caption."""

    stage: str
    key: str
    caption: str | None = None


class ReportSection(NamedTuple):
    title: str
    items: tuple[ReportItem, ...]


REPORT_SECTIONS: tuple[ReportSection, ...] = (
    ReportSection("Correlation with human scores (Graham 2015)", (
        ReportItem("correlation_tables", "table1_md"), ReportItem("correlation_tables", "table2_md"),
        ReportItem("correlation_tables", "table4_md"),
        ReportItem("correlation_tables", "figure1_png",
                   "Figure 1. Each point is a judged summary: its coverage against its linguistic quality. A weak "
                   "relation means the two components measure different things."),
        ReportItem("correlation_tables", "figure2_png",
                   "Figure 2. Distributions of coverage, linguistic quality and their arithmetic mean over all judged "
                   "summaries."),
        ReportItem("correlation_tables", "figure3_png",
                   "Figure 3. Williams tests between BLEU, the top variants and the baselines: a green cell means the "
                   "row variant correlates significantly more strongly with the human scores than the column variant; "
                   "darker = smaller p."),
        ReportItem("correlation", "notes", "Notes: skipped combinations, undefined tests and the settings of the tests."),
    )),
    ReportSection("Summary-level correlations", (
        ReportItem("correlation", "summary_level",
                   "How to read this: does the metric rank the summaries of one input as the humans do? Within "
                   "each topic, the correlation across its summarizers' summaries, averaged over the topics (with "
                   "fewer than 3 summarizers, the correlation over all judged summaries pooled: the level says "
                   "which); one row per per-summary metric (a mean and a median variant share it) and human "
                   "combination. pearson_lo/hi: 95 % bootstrap interval over topics; p_vs_best: one-sided paired "
                   "bootstrap p-value that the combination's best metric is not better than this one (small = "
                   "significantly worse than the best)."),
    )),
    ReportSection("SERA, chrF and pyramid scores (Cohan & Goharian 2016; Popović 2015, 2017)", (ReportItem("correlation_tables", "table5_md"),)),
    ReportSection("Metrics from score files", (ReportItem("correlation_tables", "table6_md"),)),
    # issue 14: a section per family of statistics; each Markdown table's caption says how to read it
    ReportSection("Correlation levels, bootstrap intervals and the null baseline (Deutsch, Dror & Roth 2021)", (
        ReportItem("statistics", "levels_md"),
        ReportItem("statistics", "notes", "Notes of the statistics: undefined cases, skipped combinations and the "
                                          "settings (seed, samples, methods)."),
    )),
    ReportSection("Permutation tests between metrics: optimal variants and clusters", (
        ReportItem("statistics", "optimal_md"),)),
    ReportSection("Kendall variants and tie calibration (Deutsch, Foster & Freitag 2023)", (
        ReportItem("statistics", "kendall_md"),)),
    ReportSection("Pairwise accuracy of system rankings (Kocmi et al. 2021)", (
        ReportItem("statistics", "accuracy_md"),)),
    ReportSection("The uncertainty of the winner", (
        ReportItem("statistics", "winner_md"),
        ReportItem("statistics", "winner_png",
                   "How to read this: left, the probability that each of the top 20 variants is the best one over "
                   "the bootstrap samples; right, the interval of its rank (1 = best) and, as a dot, the rank of its "
                   "value on the full data. Long, overlapping intervals mean the order of these variants is not "
                   "settled by the data."),
    )),
    # issue 22: annotators as data; each Markdown table's caption says how to read it
    ReportSection("Annotators: agreement, the human ceiling and human parity", (
        ReportItem("annotators", "alpha_md"), ReportItem("annotators", "ceiling_md"),
        ReportItem("annotators", "figure_png",
                   "Metrics and annotators on one axis. How to read this: each point is a Pearson r with the same "
                   "targets - the mean of the other annotators of the reference group, each annotator left out in "
                   "turn (left: system level; right: summary level, within topic and averaged over topics). Grey: "
                   "each held-out annotator; black diamond and dashed line: their mean, the human ceiling; orange: "
                   "the other groups' means; blue: the metrics. A metric right of the dashed line agrees with these "
                   "annotators better than one more of them would."),
        ReportItem("annotators", "parity_md"),
        ReportItem("annotators", "notes", "Notes of the annotators stage: data sets or groups without enough "
                                          "annotators, undefined values and the settings."),
    )),
    ReportSection("Confidence intervals of system scores (ROUGE-1.5.5 -c 95 -r 1000)", (
        ReportItem("intervals", "markdown"),
        ReportItem("intervals", "figure_png",
                   "Each system's score with its bootstrap confidence interval; systems whose intervals overlap are not "
                   "reliably ordered by that variant alone."),
    )),
    ReportSection("Single versus multiple references (Lin 2004)", (
        ReportItem("reference_sweep", "markdown"),
        ReportItem("reference_sweep", "figure_png",
                   "Pearson r with the human scores when the systems are scored against all references and against "
                   "each single reference."),
    )),
    ReportSection("Length and compression (Pastra & Saggion 2003)", (
        ReportItem("length_sweep", "markdown"),
        ReportItem("length_sweep", "figure_png",
                   "Pearson r with the human scores under each word limit and compression rate, and for the "
                   "average-rank aggregation across them."),
    )),
    ReportSection("Agreement of verdicts on pairs of summarizers (Owczarzak et al. 2012)", (
        ReportItem("agreement", "table2_md"), ReportItem("agreement", "table3_md"),
        ReportItem("agreement", "accuracy_png",
                   "Probability that the metric's verdict on a pair of summarizers agrees with the human verdict, with "
                   "95% intervals; the dashed line is the baseline metric."),
        ReportItem("agreement", "differences_png",
                   "Metric score differences of every pair, oriented so that the human-preferred summarizer is on the "
                   "right: coloured by human significance (left) and by agreement (right); beyond the dotted lines the "
                   "metric never contradicts the humans."),
    )),
    ReportSection("Re-ranking systems with the best variant (Graham 2015 §5)", (
        ReportItem("rerank", "table3_md"),
        ReportItem("rerank", "figure4_png",
                   "Significant wins under the best variant: a coloured cell means the row system is significantly "
                   "better than the column system."),
        ReportItem("rerank", "summary", "The chosen variants, Kendall tau-b between the rankings and the top group."),
    )),
)

# issue 23: factual consistency; each Markdown table's caption says how to read it
REPORT_SECTIONS += (
    ReportSection("Factual consistency: partial correlation controlling for the system (FRANK)", (
        ReportItem("factuality", "partial_md"), ReportItem("factuality", "ablation_md"),
        ReportItem("factuality", "ablation_png",
                   "How to read this: each cell is a metric's correlation with the factuality score minus its "
                   "correlation when that category's errors are ignored (FRANK's ablation). Red (positive): the "
                   "metric's agreement with humans rests on noticing these errors; white or blue: it does not see "
                   "them."),
    )),
    ReportSection("Factual consistency: summary-level correlations by subset and split", (
        ReportItem("factuality", "summary_md"),)),
    ReportSection("Factual consistency: detecting consistent summaries (QAGS, SummaC)", (
        ReportItem("factuality", "binary_md"),
        ReportItem("factuality", "auc_tests",
                   "How to read this: DeLong's test of two metrics' AUCs on the same summaries (all subsets): "
                   "difference = AUC a - AUC b, se its standard error, p two-sided; p < 0.05 means the two metrics "
                   "detect consistent summaries differently well."),
    )),
    ReportSection("Factual consistency: ranking accuracy on preference pairs (Falke et al. 2019)", (
        ReportItem("factuality", "ranking_md"),
        ReportItem("factuality", "ranking_tests",
                   "How to read this: the exact McNemar test between two metrics on the same pairs: a only = pairs "
                   "metric a ranks correctly and b does not, b only the reverse (ties count as not correct); p "
                   "two-sided; p < 0.05 means one metric ranks the pairs significantly more often correctly."),
    )),
    ReportSection("Factual consistency: notes", (
        ReportItem("factuality", "notes", "How to read this: the notes of the factuality analyses: which protocol "
                                          "does not apply to this data set and why, and left-out metrics."),
    )),
)

# What the report reads besides its sections.
REPORT_CONTEXT = (ReportItem("data", "dataset"), ReportItem("summary", "summary"), ReportItem("scores", "signature"),
                  ReportItem("correlation", "correlations"), ReportItem("correlation", "summary_level"),
                  ReportItem("correlation_tables", "top_png"), ReportItem("correlation_tables", "table6_tsv"),
                  ReportItem("statistics", "winner"), ReportItem("annotators", "ceiling"),
                  ReportItem("factuality", "answer"))


def input_key(item: ReportItem) -> str:
    """The named input of the report rule for one item: ``{stage}__{key}``."""
    return f"{item.stage}__{item.key}"


def report_inputs(dataset: str = "{dataset}", combinations: Sequence[str] = (), skip: Sequence[str] = ()
                  ) -> dict[str, str]:
    """The report rule's named inputs: its context, the Williams table of every combination (for
    the opening answer: ``williams__{combination}``) and every item of every section (but those of
    the stages in ``skip``: jobs switched off)."""
    items = [i for i in [*REPORT_CONTEXT, *(i for s in REPORT_SECTIONS for i in s.items)] if i.stage not in skip]
    williams = {f"williams__{c}": file("correlation", "williams_{combination}", dataset, combination=c)
                for c in combinations}
    return {**{input_key(i): file(i.stage, i.key, dataset) for i in items}, **williams}
