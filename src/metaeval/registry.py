"""The stage registry: every stage of the workflow declared once, and everything else derived from it.

A :class:`Stage` names the files it writes (under ``results/{dataset}/``), the job that writes them,
the config sections the job reads and its options record (``"module:Record"``, built by
:meth:`metaeval.options.Options.record`), when it applies (a config switch, what the data set must
have), its report sections with the names of their captions, methods text and answer hook. From
these declarations come:

* the output contract (:mod:`metaeval.outputs`: ``files``, ``final``, ``report_inputs``);
* the analysis rules (``rules/analysis.smk`` makes one rule per stage that declares ``reads``);
* the final targets of the main job and of ``snakemake archive`` (``rules/common.smk``);
* the report's sections, its inputs, its methods and the sentences of its answer;
* the sections of the resolved config (archived, hashed, shown in the report);
* the list of analysis rules in the tests and the stage table of docs/layout.md (:func:`markdown_table`,
  checked by tests/test_registry.py).

Adding an analysis stage is its module (``load`` -> ``compute`` -> ``write``), its entry here, its
schema section, its documented config section and its tests (docs/layout.md, "Adding a stage",
names every file; the stage table there is written by ``python -m metaeval.registry --write
docs/layout.md``), in the way of sacrerouge's
registries and of the snakemake-workflows catalogue, whose final targets come from one place.

The registry holds declarations only (no import of a stage module, an engine or an importer):
hooks are named ``"module:function"`` and imported by who calls them (:func:`hook`), so importing
the registry stays cheap and circle-free, and a job's code version covers the registry only where
the job reads it (the report's; docs/layout.md, "Layers"). It imports the data layer's
declarations (the contract's files, the release formats).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Mapping, NamedTuple

from .data.catalog import RELEASE
from .data.contract import FILES as DATA_FILES
from .data.formats import IMPORTED
from .files import write_between_markers

# The input bundle of the analysis jobs (rules/common.smk ``analysis_inputs``: the metric scores of
# every family and the human scores), as a ``reads`` entry.
ANALYSIS_INPUTS = "analysis"


class ReportItem(NamedTuple):
    """One table or figure of the report: which stage's file, and (for figures and TSV tables) its
    caption, named ``"module:NAME"``: a string constant of the module that writes the file, next to
    the code that writes it (the report looks it up by name, :func:`caption`, so that the registry
    imports no stage and an edited caption re-runs its stage and the report only); a Markdown table
    carries its own caption."""

    stage: str
    key: str
    caption: str | None = None


class ReportSection(NamedTuple):
    title: str
    items: tuple[ReportItem, ...]


@dataclass(frozen=True)
class Stage:
    """One stage: the files one job (``rule``) writes, and what the rest of the house needs to know of it.

    ``reads`` makes the rule from this entry (``rules/analysis.smk``): ``"analysis"`` is the analysis
    jobs' bundle of metric and human scores, ``"stage:key"`` one file of another stage (the job's
    input is named ``key``). ``expand`` fills a placeholder of ``files`` from an ``Options``
    attribute path (``{"combination": "human.combinations"}``). ``enabled`` names the config section
    whose ``enabled`` key switches the stage off; ``needs`` what a data set must have for it to apply
    (``"texts"``: summary texts; a score-only data set has none). ``script``: the thin door in
    workflow/scripts/ (None: ``analysis_stage.py``, which runs ``module``'s load -> compute -> write).
    ``answer``: ``"module:function"`` taking (the stage's ``context`` files present, by key; the
    report's verdict) and returning a sentence of the report's answer (``answer_paragraph``: a
    paragraph of its own after the answer). ``methods``: ``"module:function"`` taking the resolved
    config and returning the report's methods lines.
    """

    name: str
    files: Mapping[str, str]
    summary: str
    kind: str = "analysis"            # fetch | import | data | scoring | analysis | report | across | calibration | archive | to_score
    rule: str | None = None
    rules_file: str | None = None     # rules/<rules_file>.smk; "analysis" for the rules made from ``reads``
    module: str | None = None         # the library module (metaeval.<module>)
    sections: tuple[str, ...] = ()
    # "module:Record": its job's options record, a NamedTuple built by field name from its first config
    # section, with the fields metaeval.derived.derived_fields gives (metaeval.options.Options.record)
    record: str | None = None
    enabled: str | None = None
    needs: tuple[str, ...] = ()
    final: bool | tuple[str, ...] = False   # its files are targets of the main job (a tuple: those keys)
    expand: Mapping[str, str] = field(default_factory=dict)
    reads: tuple[str, ...] = ()
    script: str | None = None
    category: str | None = None
    report: tuple[ReportSection, ...] = ()
    context: tuple[str, ...] = ()
    answer: str | None = None
    answer_paragraph: bool = False
    methods: str | None = None
    # "module:function" taking the stage's notes file and returning why the stage did not apply to
    # the data set (its sections are then left out of the report, with that line), or None
    inapplicable: str | None = None
    # how many jobs wait on this stage's files one after another before the run is done (its
    # kind's KIND_PRIORITY unless set): Snakemake starts the ready jobs with the longest such chain
    # first (critical path first), e.g. correlate before statistics since the correlation tables
    # wait on it. tests/test_registry.py checks it against the rule graph.
    priority: int | None = None
    # among ready jobs with chains as long, the heavier starts first (longest processing time first
    # packs the cores best): 1 light; 2 about a second or more; 3 several seconds on the default
    # data set (docs/performance.md's per-stage times)
    weight: int = 1

    def __post_init__(self):
        if self.reads and self.rule is None:     # a rule made from the registry is named as its stage
            object.__setattr__(self, "rule", self.name)
        if self.priority is None:
            object.__setattr__(self, "priority", KIND_PRIORITY.get(self.kind, 0))


# The jobs after a stage of each kind, one after another: an import, the validation, a scoring job
# and the gathering of scores, an analysis, the report, the verdict across data sets or the archive.
KIND_PRIORITY = {"fetch": 9, "import": 8, "data": 7, "scoring": 5, "analysis": 2, "report": 1}


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


def _imports() -> tuple[Stage, ...]:
    """The import stages, one per release format with an import job (metaeval.data.formats: each
    format's stage, rule and module), writing the canonical form in results/{dataset}/<stage>/."""
    return tuple(Stage(f.stage, _in(f.stage, f.files()), f"{f.title or f'the {f.name} release'} in the canonical form", kind="import",
                       rule=f.script, rules_file="data", module=f.module.removeprefix("metaeval."))
                 for f in IMPORTED)


# The stages, in the order of the pipeline; the report's sections appear in this order.
STAGES: tuple[Stage, ...] = (
    # ------------------------------------------------------------------ data
    # a benchmark of the catalog (metaeval.data.catalog): one job per benchmark, fetch_<name>, whose
    # other outputs are the copies of its release files beside the manifest (the catalog lists them)
    Stage("fetch", {"manifest": f"{RELEASE}/MANIFEST.tsv"}, "a catalog benchmark's release files, fetched at the "
          "pinned commit (or from a mirror), verified, cached; one job per benchmark, `fetch_<name>`", kind="fetch",
          rule="fetch_<name>", rules_file="fetch", module="data.fetch"),
    *_imports(),
    Stage("data", _in("data", dict(DATA_FILES)), "the validated, normalised canonical copy", kind="data",
          rule="validate_dataset", rules_file="data", module="data.datasets", context=("dataset",)),
    Stage("summary", {"summary": "data/summary.tsv"}, "the data set's counts and dimensions", kind="data",
          rule="validate_dataset", rules_file="data", module="data.datasets", final=True, context=("summary",)),
    # ------------------------------------------------------------------ scoring
    Stage("score", {"scores": "scores/parts/ST{stem}_RS{stop}.shard{shard}.tsv",
                    "bleu_stats": "scores/parts/BLEU_stats_ST{stem}_RS{stop}.shard{shard}.tsv",
                    "bleu_signature": "scores/parts/BLEU_signature_ST{stem}_RS{stop}.shard{shard}.txt"},
          "ROUGE exactly as ROUGE-1.5.5 and BLEU (sacrebleu), per preprocessing setting and shard",
          kind="scoring", rule="score", rules_file="scoring", module="stages.scoring", sections=("rouge", "bleu"),
          record="metaeval.records:ScoreJob", needs=("texts",)),
    Stage("chrf", {"scores": "scores/chrf_scores.tsv", "stats_{metric}": "scores/chrf_stats_{metric}.tsv",
                   "signature": "scores/chrf_signature.txt"},
          "chrF / chrF++ as sacrebleu", kind="scoring", rule="score_chrf", rules_file="scoring", module="stages.chrf",
          sections=("chrf",), record="metaeval.records:ChrfOptions", enabled="chrf", needs=("texts",), weight=2),
    Stage("sera_index", {"index": "scores/sera/index.zip"}, "SERA's retrieval index", kind="scoring",
          rule="sera_index", rules_file="scoring", module="stages.sera", sections=("sera",),
          record="metaeval.records:SeraIndexOptions",
          enabled="sera", needs=("texts",), priority=6),
    Stage("sera", {"scores": "scores/sera_scores.tsv", "signature": "scores/sera/signature.txt"},
          "SERA (Cohan & Goharian 2016)", kind="scoring", rule="score_sera", rules_file="scoring",
          module="stages.sera", sections=("sera",),
          record="metaeval.records:SeraOptions", enabled="sera", needs=("texts",)),
    # an LLM judge's outputs read by declared parse rules (metaeval.data.judges): its scores a score
    # file the file metrics job reads beside the others', its parse failures and duplicates counted
    Stage("judge_scores", {"scores": "judges/scores.tsv", "parse": "judges/parse.tsv", "samples": "judges/samples.tsv",
                           "choices": "judges/choices.tsv"},
          "LLM judges' responses read by declared parse rules: their scores, parse failures, duplicates, samples and "
          "pairwise choices", kind="scoring", rule="judge_scores", rules_file="judges", module="stages.judge_scores",
          sections=("judges",), enabled="judges", needs=("judges",), priority=6),
    Stage("file_metrics", {"scores": "scores/file_metrics/scores.tsv", "metrics": "scores/file_metrics/metrics.tsv",
                           "signature": "scores/file_metrics/signature.txt"},
          "the scores of metrics computed elsewhere (metric_scores.tsv)", kind="scoring", rule="file_metrics",
          rules_file="scoring", module="data.metric_scores"),
    Stage("scores", {"summaries": "scores/summary_scores.tsv", "systems": "scores/system_scores.tsv",
                     "signature": "scores/scoring_signature.txt", "bleu_stats_{setting}": "scores/bleu_stats_{setting}.tsv"},
          "every metric's per-summary and system scores, with their signatures", kind="scoring",
          rule="gather_scores", rules_file="scoring", module="stages.scoring", final=("summaries", "systems"), context=("signature",),
          priority=4),
    # ------------------------------------------------------------------ human scores and the analyses
    Stage("human", {"summaries": "human/summary_human.tsv", "systems": "human/system_human.tsv",
                    "skipped": "human/skipped.tsv", "targets": "human/targets.tsv"},
          "the targets: Graham's combinations of coverage and linguistic quality, every dimension, composites", rule="human_scores", rules_file="human",
          module="stages.human", sections=("human_scores",),
          record="metaeval.records:HumanOptions", context=("targets",), priority=4),
    Stage("correlation", {"correlations": "analysis/correlations.tsv",
                          "williams_{combination}": "analysis/williams_{combination}.tsv",
                          "summary_level": "analysis/summary_level_correlations.tsv", "notes": "analysis/notes.tsv",
                          "targets_williams": "analysis/williams_targets.tsv",
                          "summary_level_tests": "analysis/summary_level_tests.tsv",
                          "floor": "analysis/floor.tsv"},
          "correlations, Williams tests, optimal variants, the random floor", rule="correlate", rules_file="correlation",
          module="stages.correlation", sections=("correlation", "floor"),
          record="metaeval.records:CorrelateOptions", final=True,
          expand={"combination": "human.combinations"}, context=("correlations", "summary_level", "targets_williams"),
          priority=3),
    Stage("correlation_tables",
          {**_table("analysis", "table1", "table1"), **_table("analysis", "table2", "table2"),
           **_table("analysis", "table4", "table4"), **_table("analysis", "table5", "table5"),
           **_table("analysis", "table6", "table6_file_metrics"), **_figure("analysis", "figure1", "figure1_coverage_vs_lq"),
           **_figure("analysis", "figure2", "figure2_densities"), **_figure("analysis", "figure3", "figure3_williams"),
           **_figure("analysis", "top", "figure_top_variants"), **_table("analysis", "answers", "answers")},
          "Graham's tables and figures", rule="correlation_tables", rules_file="correlation",
          module="stages.correlation_tables", sections=("correlation",),
          record="metaeval.records:CorrelationTablesOptions", final=True, category="Correlation",
          context=("top_png", "table6_tsv", "answers_tsv"),
          report=(
              ReportSection("Correlation with human scores (Graham 2015)", (
                  ReportItem("correlation_tables", "table1_md"), ReportItem("correlation_tables", "table2_md"),
                  ReportItem("correlation_tables", "table4_md"),
                  ReportItem("correlation_tables", "figure1_png",
                             "metaeval.stages.correlation_tables:FIGURE1_CAPTION"),
                  ReportItem("correlation_tables", "figure2_png",
                             "metaeval.stages.correlation_tables:FIGURE2_CAPTION"),
                  ReportItem("correlation_tables", "figure3_png",
                             "metaeval.stages.correlation_tables:FIGURE3_CAPTION"),
                  ReportItem("correlation", "notes", "metaeval.stages.correlation:NOTES_CAPTION"),
              )),
              ReportSection("Summary-level correlations", (
                  ReportItem("correlation", "summary_level", "metaeval.stages.correlation:SUMMARY_LEVEL_CAPTION"),
              )),
              ReportSection("SERA, chrF and pyramid scores (Cohan & Goharian 2016; Popović 2015, 2017)",
                            (ReportItem("correlation_tables", "table5_md"),)),
              ReportSection("Metrics from score files", (ReportItem("correlation_tables", "table6_md"),)),
          ), weight=2),
    Stage("statistics",
          {"levels": "statistics/correlation_levels.tsv", "levels_md": "statistics/correlation_levels.md",
           "permutation_{combination}": "statistics/permutation_{combination}.tsv",
           "optimal": "statistics/optimal.tsv", "optimal_md": "statistics/optimal.md",
           "kendall": "statistics/kendall.tsv", "kendall_md": "statistics/kendall.md",
           "accuracy": "statistics/accuracy.tsv", "accuracy_md": "statistics/accuracy.md",
           "winner": "statistics/winner.tsv", "winner_md": "statistics/winner.md",
           **_figure("statistics", "winner", "figure_winner"), "notes": "statistics/notes.tsv"},
          "correlation levels, bootstrap and null baseline, permutation tests, Kendall variants, pairwise accuracy, "
          "uncertainty of the winner", rules_file="analysis", module="stages.statistics", sections=("statistics",),
          record="metaeval.records:StatisticsOptions", enabled="statistics", final=True,
          expand={"combination": "statistics.permutation_combinations"}, reads=(ANALYSIS_INPUTS,),
          script="statistics", category="Statistics", context=("winner",),
          answer="metaeval.stages.statistics:answer", methods="metaeval.stages.statistics:methods",
          report=(
              ReportSection("Correlation levels, bootstrap intervals and the null baseline (Deutsch, Dror & Roth 2021)", (
                  ReportItem("statistics", "levels_md"),
                  ReportItem("statistics", "notes", "metaeval.stages.statistics:NOTES_CAPTION"),
              )),
              ReportSection("Permutation tests between metrics: optimal variants and clusters", (
                  ReportItem("statistics", "optimal_md"),)),
              ReportSection("Kendall variants and tie calibration (Deutsch, Foster & Freitag 2023)", (
                  ReportItem("statistics", "kendall_md"),)),
              ReportSection("Pairwise accuracy of system rankings (Kocmi et al. 2021)", (
                  ReportItem("statistics", "accuracy_md"),)),
              ReportSection("The uncertainty of the winner", (
                  ReportItem("statistics", "winner_md"),
                  ReportItem("statistics", "winner_png", "metaeval.stages.statistics:WINNER_FIGURE_CAPTION"),
              )),
          # the leaderboard waits on its pairwise accuracy: a chain of 2, as factuality's (see there)
          ), priority=3, weight=0),
    Stage("soft_pairwise",
          {"spa": "soft_pairwise/soft_pairwise_accuracy.tsv", "spa_md": "soft_pairwise/soft_pairwise_accuracy.md",
           "pairs": "soft_pairwise/pair_deltas.tsv", "notes": "soft_pairwise/notes.tsv"},
          "soft pairwise accuracy of every variant and target (Thompson et al. 2024, as mt-metrics-eval's pce.py); "
          "every pair of systems' metric delta and human agreement", rules_file="analysis",
          module="stages.soft_pairwise", sections=("soft_pairwise",),
          record="metaeval.records:SoftPairwiseOptions", enabled="soft_pairwise", final=True,
          reads=(ANALYSIS_INPUTS,), category="Soft pairwise accuracy", methods="metaeval.stages.soft_pairwise:methods",
          report=(ReportSection("Soft pairwise accuracy (Thompson et al. 2024)", (
              ReportItem("soft_pairwise", "spa_md"),
              ReportItem("soft_pairwise", "notes", "metaeval.stages.soft_pairwise:NOTES_CAPTION"),
          # the leaderboard and the delta curves wait on it: a chain of 2, as factuality's (see there)
          )),), priority=3, weight=0),
    Stage("annotators",
          {"alpha": "annotators/alpha.tsv", "alpha_md": "annotators/alpha.md",
           "ceiling": "annotators/ceiling.tsv", "ceiling_md": "annotators/ceiling.md",
           "parity": "annotators/parity.tsv", "parity_md": "annotators/parity.md",
           **_figure("annotators", "figure", "figure_ceiling"), "notes": "annotators/notes.tsv"},
          "Krippendorff's alpha, the human ceiling, human parity", rules_file="analysis", module="stages.annotators",
          sections=("annotators",), record="metaeval.records:AnnotatorsOptions", enabled="annotators", final=True,
          reads=(ANALYSIS_INPUTS, "data:dataset", "data:annotations"), script="annotators", category="Annotators",
          context=("ceiling", "notes"), answer="metaeval.stages.annotators:answer", methods="metaeval.stages.annotators:methods",
          report=(
              ReportSection("Annotators: agreement, the human ceiling and human parity", (
                  ReportItem("annotators", "alpha_md"), ReportItem("annotators", "ceiling_md"),
                  ReportItem("annotators", "figure_png", "metaeval.stages.annotators:FIGURE_CAPTION"),
                  ReportItem("annotators", "parity_md"),
                  ReportItem("annotators", "notes", "metaeval.stages.annotators:NOTES_CAPTION"),
              )),
          ), weight=2),
    Stage("intervals", {"table": "intervals/system_intervals.tsv", "markdown": "intervals/intervals.md",
                        **_figure("intervals", "figure", "figure_intervals")},
          "ROUGE-1.5.5's bootstrap intervals of system scores", kind="scoring", rule="system_intervals", priority=2,
          rules_file="scoring", module="stages.intervals", sections=("intervals",),
          record="metaeval.records:IntervalOptions",
          needs=("texts",), final=True, category="Confidence intervals",
          report=(ReportSection("Confidence intervals of system scores (ROUGE-1.5.5 -c 95 -r 1000)", (
              ReportItem("intervals", "markdown"),
              ReportItem("intervals", "figure_png", "metaeval.stages.intervals:FIGURE_CAPTION"),
          )),)),
    Stage("reference_sweep", _sweep("references"), "single vs all references (Lin 2004)", rule="sweeps",
          rules_file="sweeps", module="stages.sweeps", sections=("sweeps",),
          record="metaeval.records:SweepOptions", needs=("texts",),
          final=True, category="Reference count",
          report=(ReportSection("Single versus multiple references (Lin 2004)", (
              ReportItem("reference_sweep", "markdown"),
              ReportItem("reference_sweep", "figure_png", "metaeval.stages.sweeps:REFERENCE_SWEEP_FIGURE_CAPTION"),
          )),), weight=2),
    Stage("length_sweep", _sweep("lengths"), "word limits and compression rates (Pastra & Saggion 2003)",
          rule="sweeps", rules_file="sweeps", module="stages.sweeps", sections=("sweeps",),
          record="metaeval.records:SweepOptions",
          needs=("texts",), final=True, category="Length and compression",
          report=(ReportSection("Length and compression (Pastra & Saggion 2003)", (
              ReportItem("length_sweep", "markdown"),
              ReportItem("length_sweep", "figure_png", "metaeval.stages.sweeps:LENGTH_SWEEP_FIGURE_CAPTION"),
          )),), weight=2),
    Stage("judges",
          {"per_system": "judges/per_system.tsv", "meta": "judges/meta_correlation.tsv",
           "pairwise": "judges/pairwise.tsv", "head_to_head": "judges/head_to_head.tsv",
           "alt_test": "judges/alt_test.tsv", "self_agreement": "judges/self_agreement.tsv",
           "disagreements": "judges/disagreements.tsv", "judges_md": "judges/judges.md",
           **_figure("judges", "figure", "figure_per_system")},
          "LLM judges and every metric: per-system correlation and the meta-correlation with system quality; the "
          "judges' parse failures, pairwise agreement with the experts, kappa, position consistency and bias, the "
          "alternative annotator test, self-agreement, the largest disagreements", rules_file="analysis",
          module="stages.judges", sections=("judges",), record="metaeval.records:JudgesOptions", enabled="judges",
          needs=("judges",), final=True,
          reads=(ANALYSIS_INPUTS, "judge_scores:parse", "judge_scores:samples", "judge_scores:choices",
                 "data:annotations"),
          category="Judges",
          report=(ReportSection("Judges: parse failures, meta-correlation, pairwise agreement, position bias and the "
                                "alternative annotator test", (
              ReportItem("judges", "judges_md"),
              ReportItem("judges", "figure_png", "metaeval.stages.judges:FIGURE_CAPTION"),
              ReportItem("judges", "disagreements", "metaeval.stages.judges:DISAGREEMENTS_CAPTION"),
          )),), weight=2),
    Stage("agreement", {"verdicts": "agreement/verdicts.tsv", "agreement": "agreement/agreement.tsv",
                        "table2_md": "agreement/table2.md", "table3_md": "agreement/table3.md",
                        **_figure("agreement", "accuracy", "figure_accuracy"),
                        **_figure("agreement", "differences", "figure_differences")},
          "metric vs human verdicts on every pair of summarizers (Owczarzak et al. 2012)", rules_file="analysis",
          module="stages.agreement", sections=("agreement",), record="metaeval.records:AgreementOptions", final=True,
          reads=(ANALYSIS_INPUTS,), category="Agreement",
          report=(ReportSection("Agreement of verdicts on pairs of summarizers (Owczarzak et al. 2012)", (
              ReportItem("agreement", "table2_md"), ReportItem("agreement", "table3_md"),
              ReportItem("agreement", "accuracy_png", "metaeval.stages.agreement:ACCURACY_FIGURE_CAPTION"),
              ReportItem("agreement", "differences_png", "metaeval.stages.agreement:DIFFERENCES_FIGURE_CAPTION"),
          )),), weight=3),
    Stage("rerank", {**_table("rerank", "table3", "table3"), "normality": "rerank/normality.tsv",
                     "pairwise": "rerank/pairwise.tsv", "summary": "rerank/summary.tsv",
                     "by_target": "rerank/by_target.tsv",
                     **_figure("rerank", "figure4", "figure4_significance")},
          "systems ranked by the best variant, pairwise significance (Graham 2015 §5)", rules_file="analysis",
          module="stages.rerank", sections=("rerank",), record="metaeval.records:RerankOptions", final=True,
          reads=(ANALYSIS_INPUTS, "correlation:correlations"), script="rerank", category="Re-ranking",
          report=(ReportSection("Re-ranking systems with the best variant (Graham 2015 §5)", (
              ReportItem("rerank", "table3_md"),
              ReportItem("rerank", "figure4_png", "metaeval.stages.rerank:FIGURE4_CAPTION"),
              ReportItem("rerank", "summary", "metaeval.stages.rerank:SUMMARY_CAPTION"),
              ReportItem("rerank", "by_target", "metaeval.stages.rerank:BY_TARGET_CAPTION"),
          )),)),
    Stage("factuality",
          {**_table("factuality", "partial", "partial_correlations"), "williams": "factuality/williams.tsv",
           **_table("factuality", "ablation", "ablation"), **_figure("factuality", "ablation", "figure_ablation"),
           **_table("factuality", "summary", "summary_correlations"),
           **_table("factuality", "binary", "binary"), **_table("factuality", "binary_means", "binary_means"),
           "auc_tests": "factuality/auc_tests.tsv",
           **_table("factuality", "ranking", "ranking_accuracy"), "ranking_tests": "factuality/ranking_tests.tsv",
           "answer": "factuality/answer.tsv", "notes": "factuality/notes.tsv", "floor": "factuality/floor.tsv"},
          "factual consistency: FRANK's partial correlation and ablation, QAGS / SummaC AUC and balanced accuracy, "
          "Rank19 ranking accuracy, correlations by subset", rules_file="analysis", module="stages.factuality",
          sections=("factuality", "floor"), record="metaeval.records:FactualityOptions", final=True, priority=3,
          reads=(ANALYSIS_INPUTS, "data:dataset", "data:summaries", "data:judgments", "data:annotations"),
          script="factuality", category="Factual consistency", context=("answer",),
          answer="metaeval.stages.factuality:answer", answer_paragraph=True,
          methods="metaeval.stages.factuality:methods", inapplicable="metaeval.stages.factuality:applies",
          report=(
              ReportSection("Factual consistency: partial correlation controlling for the system (FRANK)", (
                  ReportItem("factuality", "partial_md"), ReportItem("factuality", "ablation_md"),
                  ReportItem("factuality", "ablation_png", "metaeval.stages.factuality:ABLATION_FIGURE_CAPTION"),
              )),
              ReportSection("Factual consistency: summary-level correlations by subset and split", (
                  ReportItem("factuality", "summary_md"),)),
              ReportSection("Factual consistency: detecting consistent summaries (QAGS, SummaC)", (
                  ReportItem("factuality", "binary_md"), ReportItem("factuality", "binary_means_md"),
                  ReportItem("factuality", "auc_tests", "metaeval.stages.factuality:AUC_TESTS_CAPTION"),
              )),
              ReportSection("Factual consistency: ranking accuracy on preference pairs (Falke et al. 2019)", (
                  ReportItem("factuality", "ranking_md"),
                  ReportItem("factuality", "ranking_tests", "metaeval.stages.factuality:RANKING_TESTS_CAPTION"),
              )),
              ReportSection("Factual consistency: notes", (
                  ReportItem("factuality", "notes", "metaeval.stages.factuality:NOTES_CAPTION"),
              )),
          # the leaderboard waits on it too (a chain of 2, above the other analyses' 1), but never
          # before correlate, whose chain through the correlation tables is longer (weight 0: the
          # priority 30 lies between the analyses' 2x and correlate's 31)
          ), weight=0),
    # ------------------------------------------------------------------ the report, across data sets, on request
    Stage("report", {"report": "report.html"}, "one self-contained HTML report per data set", kind="report",
          rule="report", rules_file="report", module="stages.report", final=True),
    Stage("leaderboard", {"leaderboard_tsv": "leaderboard.tsv", "leaderboard_md": "leaderboard.md",
                          "floor_tsv": "leaderboard_floor.tsv",
                          "tests_tsv": "leaderboard_tests.tsv", "leaderboard_html": "leaderboard.html"},
          "every metric beside every other per benchmark, target and level: value, interval, rank, the test "
          "against the best, wins, ties and losses", kind="across", rule="leaderboard", rules_file="across",
          module="stages.leaderboard", sections=("leaderboard",),
          record="metaeval.records:LeaderboardOptions", priority=1,
          weight=2),
    Stage("across", {"variants_tsv": "variants.tsv", "variants_md": "variants.md",
                     "replicability_tsv": "replicability.tsv", "replicability_md": "replicability.md",
                     "excluded": "excluded.tsv", "ranks_png": "figure_ranks.png", "ranks_svg": "figure_ranks.svg",
                     "forest_png": "figure_forest.png", "forest_svg": "figure_forest.svg",
                     "targets_tsv": "targets.tsv", "targets_md": "targets.md", "report": "report.html",
                     # the leaderboard at a glance (metaeval.stages.leaderboard_figures)
                     "dots_png": "figure_leaderboard_dots.png", "dots_svg": "figure_leaderboard_dots.svg",
                     "heatmap_png": "figure_leaderboard_ranks.png", "heatmap_svg": "figure_leaderboard_ranks.svg"},
          "with two or more data sets: every variant side by side, robustly optimal variants, replicability of "
          "differences", kind="across", rule="across", rules_file="across", module="stages.across",
          sections=("across",), record="metaeval.records:AcrossOptions"),
    Stage("delta", {"curves": "delta_curves.tsv", "thresholds": "delta_thresholds.tsv",
                    "thresholds_md": "delta_thresholds.md", "figure_{variant}": "delta/figure_{variant}.png",
                    "figure_{variant}_svg": "delta/figure_{variant}.svg"},
          "what a score difference means: human agreement against the metric's delta, pooled over the data sets, "
          "and the deltas needed for 80/90/95 % agreement", kind="across", rule="delta_curves", rules_file="delta",
          module="stages.delta", sections=("delta",), record="metaeval.records:DeltaOptions",
          expand={"variant": "delta_figures"}, priority=1, weight=2),
    Stage("delta_query", {"answer": "delta.tsv"},
          "on request (`delta: {metric, value}`): the estimated human agreement with a metric's difference of that "
          "size, with its interval", kind="across", rule="delta_query", rules_file="delta", module="stages.delta",
          sections=("delta",), record="metaeval.records:DeltaQuery"),
    Stage("calibration_model", {"model": "calibration/model.tsv"}, "the model fitted for calibration",
          kind="calibration", rule="calibration_model", rules_file="calibration", module="stages.calibration",
          sections=("calibration",), priority=2),
    Stage("calibration_main", {"rejections": "calibration/error_power.tsv", "coverage": "calibration/coverage.tsv"},
          "simulations at the data set's numbers", kind="calibration", rule="calibration_main",
          rules_file="calibration", module="stats.calibration", sections=("calibration",), priority=1),
    Stage("calibration_grid", {"rejections": "calibration/grid/power_T{topics}.tsv"},
          "simulations at each number of topics of the grid", kind="calibration", rule="calibration_grid",
          rules_file="calibration", module="stats.calibration", sections=("calibration",), priority=1),
    Stage("calibration", {"error_power_md": "calibration/error_power.md", "coverage_md": "calibration/coverage.md",
                          "power": "calibration/power_by_topics.tsv",
                          **_table("calibration", "topics_needed", "topics_needed"),
                          **_figure("calibration", "figure", "figure_power")},
          "error rates, power and coverage of the tests on known truth (target `calibration`)", kind="calibration",
          rule="calibration_tables", rules_file="calibration", module="stages.calibration", sections=("calibration",)),
    Stage("archive", {}, "`{dataset}-{config hash}.tar.gz`: a data set's results, resolved config, canonical data "
          "with checksums, versions, git commit (target `archive`)", kind="archive",
          rule="archive_dataset", rules_file="archive", module="stages.archive"),
    Stage("to_score", {}, "`{dataset}.jsonl`: every judged summary with its references and source, to score with "
          "a metric of your own (target `to_score`)", kind="to_score", rule="to_score_dataset", rules_file="to_score",
          module="stages.to_score"),
)
# end of STAGES


BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}
if len(BY_NAME) != len(STAGES):
    raise ValueError("metaeval.registry: two stages share a name")


def stage(name: str) -> Stage:
    return BY_NAME[name]


def analysis_stages() -> list[Stage]:
    """The stages whose rule is made from the registry (``rules/analysis.smk``), in order."""
    return [s for s in STAGES if s.reads]


def report_sections() -> list[ReportSection]:
    """Every section of the report, in the order of the stages."""
    return [section for s in STAGES for section in s.report]


def report_context() -> list[ReportItem]:
    """What the report reads besides its sections (the data set's description, the answer's tables)."""
    return [ReportItem(s.name, key) for s in STAGES for key in s.context]


def dataset_sections() -> list[str]:
    """The config sections a data set's results depend on (the resolved config: archived, hashed and
    shown in the report), in stage order: every section a per-data-set stage reads."""
    kinds = ("scoring", "analysis")
    return list(dict.fromkeys(sec for s in STAGES if s.kind in kinds for sec in s.sections))


def rules_files() -> list[str]:
    """The rules files the Snakefile includes (rules/<name>.smk), in stage order."""
    return list(dict.fromkeys(s.rules_file for s in STAGES if s.rules_file))


def rule_priority(rule: str) -> int:
    """The scheduling priority of a rule's jobs, from the highest of its stages': its chain of waiting
    jobs first (``Stage.priority``), its weight among jobs with chains as long (``Stage.weight``)."""
    return max((10 * s.priority + s.weight for s in STAGES if s.rule == rule), default=0)


def job_rules(*kinds: str) -> list[str]:
    """The names of the jobs of the stages of the given kinds (all kinds when none is given)."""
    return list(dict.fromkeys(s.rule for s in STAGES if s.rule and (not kinds or s.kind in kinds)))


def applies(s: Stage, config: Mapping[str, Any], texts: bool, judged: bool = False) -> bool:
    """Whether a stage runs for a data set: its switch is on (``config``: the validated config) and
    the data set has what it needs (``texts``: whether its summaries have texts; ``judged``: whether
    it has LLM judges)."""
    # what the data set lacks first: a stage that cannot apply never consults its switch
    if ("judges" in s.needs and not judged) or ("texts" in s.needs and not texts):
        return False
    return s.enabled is None or bool(config[s.enabled]["enabled"])


def hook(name: str) -> Any:
    """The function (or, for a caption, the string) a ``"module:name"`` hook names."""
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def caption(item: ReportItem) -> str | None:
    """The caption of a report item (a constant of the module that writes its file), or None."""
    return hook(item.caption) if item.caption else None


def hook_modules() -> list[str]:
    """The modules the report imports by name through the stages' hooks and captions (its code
    version covers them)."""
    names = [h for s in STAGES for h in (s.answer, s.methods, s.inapplicable) if h]
    names += [i.caption for s in STAGES for section in s.report for i in section.items if i.caption]
    return sorted({h.partition(":")[0] for h in names})


def markdown_table() -> str:
    """The stage table of docs/layout.md (tests/test_registry.py checks that the docs hold it)."""
    head = ["| stage | job | rules file | library | config | applies | writes |", "|---|---|---|---|---|---|---|"]
    rows = []
    for s in STAGES:
        folders = sorted({path.split("/")[0] for path in s.files.values()})
        where = {"across": "`results/all/`", "archive": "`results/archive/`",
                 "to_score": "`results/to_score/`"}.get(s.kind) or ", ".join(
            f"`{f}/`" if "." not in f else f"`{f}`" for f in folders)
        cond = ([f"`{s.enabled}.enabled`"] if s.enabled else []) + [f"needs {n}" for n in s.needs]
        rows.append(f"| {s.name} | `{s.rule or '-'}` | `rules/{s.rules_file}.smk` | `{s.module or '-'}` | "
                    f"{', '.join(f'`{x}`' for x in s.sections) or '-'} | {'; '.join(cond) or 'always'} | "
                    f"{where} — {s.summary} |")
    return "\n".join(head + rows)


def write_stage_table(path: str) -> None:
    """Put :func:`markdown_table` between the ``registry:stages`` markers of a Markdown file
    (docs/layout.md: ``python -m metaeval.registry --write docs/layout.md``)."""
    write_between_markers(path, "registry:stages", markdown_table())


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--write"]:
        write_stage_table(sys.argv[2])
    else:
        print(markdown_table())
