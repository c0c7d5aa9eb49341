"""Calibration on known truth: the type-I error and power of the Williams test,
the permutation tests and the agreement verdicts, the coverage of the bootstrap intervals, and the
number of topics needed for a target power, on scores simulated from a model fitted to a data set
(the model, its truth and what "power" means: :mod:`metaeval.stats.calibration`).

Jobs (``snakemake calibration``, not part of the main job):

* model: load (:mod:`metaeval.stages.analysis_inputs`) -> :func:`fit` -> :class:`ModelResult` ->
  :func:`write_model` (model.tsv: the fitted parameters and where they come from);
* main (the user's numbers of systems and topics) and grid (one per number of topics of the grid):
  :func:`read_model` -> :func:`run` -> :class:`metaeval.stats.calibration.PointResult` ->
  :func:`write_run` (rejection rates; coverage in the main job);
* tables: :func:`gather` -> :class:`CalibrationTables` -> :func:`write_tables` (Markdown tables of
  the error / power and coverage, the power by number of topics, the topics-needed table and the
  power curves figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Callable, Mapping, Sequence

import numpy as np

from .. import figures, tables
from ..logs import CheckError
from ..records import CalibrationModelOptions, CalibrationRunOptions, CalibrationTablesOptions
from ..stats.calibration import (CORRELATION_TESTS, DELTA_R, TEST_NAMES, TESTS, Coverage, PairModel, PointResult,
                                 Rejections, RunSettings, fit_components, run_point, system_correlation,
                                 topics_needed)
from ..variants import Variant
from . import analysis_inputs

MODEL_COLUMNS = ("parameter", "value", "description")
REJECTION_COLUMNS = ("test", "effect", "size", "systems", "topics", "replicates", "rejections", "rate", "mc_se",
                     "true_r_a", "true_r_b")
COVERAGE_COLUMNS = ("method", "systems", "topics", "replicates", "bootstrap_samples", "true_r_t", "coverage_t",
                    "true_r_inf", "coverage_inf", "undefined", "mean_width")
NEEDED_COLUMNS = ("test", "effect", "size", "systems", "topics_needed", "power_at_needed", "type_i_at_needed",
                  "largest_topics", "power_at_largest")
DESCRIPTIONS = {
    "mean_human": "mean human score", "mean_metric": "mean score of metric A (and B)",
    "sd_human": "sd_h: between-system sd of the humans' expected scores",
    "sd_metric": "sd_m: between-system sd of metric A's (and B's) expected scores",
    "r": "rho_A(inf): correlation of metric A's and the humans' expected system scores",
    "kappa": "partial correlation, given the humans, of the two metrics' system effects",
    "topic_var_human": "variance of the humans' topic effects", "topic_var_metric": "variance of a metric's topic effects",
    "topic_r_human_metric": "correlation of the humans' and a metric's topic effects",
    "topic_r_metrics": "correlation of the two metrics' topic effects",
    "residual_var_human": "variance of the humans' per-summary residuals",
    "residual_var_metric": "variance of a metric's per-summary residuals",
    "residual_r_human_metric": "correlation of the humans' and a metric's per-summary residuals",
    "residual_r_metrics": "correlation of the two metrics' per-summary residuals",
}


@dataclass
class ModelResult:
    model: PairModel
    combination: str
    metric_a: str                 # the variant metric A's parameters come from
    metric_b: str                 # the second variant (the metrics' dependence)
    systems: int                  # of the data set
    topics: int                   # complete topics the model was fitted on
    dropped_topics: int           # topics left out for a missing score
    second_r: float               # rho(inf) of the second variant, for information


# ----------------------------------------------------------------------------- the model job

def grids(inp: analysis_inputs.AnalysisInputs, options: CalibrationModelOptions) -> tuple[np.ndarray, int]:
    """The (human, metric 1, metric 2) per-summary grids of the systems (3, S, T) over the topics
    where every system has all three scores, and the number of topics left out."""
    ps = inp.per_summary
    keys = [Variant.parse(m).summary_metric for m in options.metrics]
    missing = [m for m, k in zip(options.metrics, keys) if k not in ps.metrics]
    if missing:
        raise CheckError(f"config key calibration.metrics: no per-summary scores of {missing} in this data set; "
                         "expected variants that rouge.measures / stemming / stopwords_removed (or bleu) compute")
    if options.combination not in ps.human:
        raise CheckError(f"config key calibration.combination: {options.combination!r} is not computed for this "
                         f"data set (its human combinations: {', '.join(ps.human)})")
    y = np.stack([ps.human[options.combination], *(ps.metrics[k] for k in keys)])
    complete = ~np.isnan(y).any(axis=(0, 1))
    return y[:, :, complete], int((~complete).sum())


def fit(inp: analysis_inputs.AnalysisInputs, options: CalibrationModelOptions) -> ModelResult:
    """The model fitted to the data set's systems (:func:`metaeval.stats.calibration.fit_components`)."""
    y, dropped = grids(inp, options)
    if y.shape[1] < 4 or y.shape[2] < 2:
        raise CheckError(f"the calibration model needs at least 4 systems and 2 complete topics; the data set has "
                         f"{y.shape[1]} systems and {y.shape[2]} complete topics")
    c = fit_components(y)
    return ModelResult(PairModel.from_components(c), options.combination, options.metrics[0], options.metrics[1],
                       y.shape[1], y.shape[2], dropped, system_correlation(c, math.inf, 2))


def write_model(result: ModelResult, path: str) -> None:
    rows = [("combination", result.combination, "the human combination"),
            ("metric_a", result.metric_a, "metric A has this variant's fitted parameters"),
            ("metric_b", result.metric_b, "the second variant: sets kappa and the metrics' topic and residual "
                                          "correlations"),
            ("systems", result.systems, "systems of the data set"),
            ("topics", result.topics, "complete topics the model is fitted on"),
            ("dropped_topics", result.dropped_topics, "topics left out for a missing score"),
            ("metric_b_r", result.second_r, "rho(inf) of the second variant (information only)")]
    rows += [(name, value, DESCRIPTIONS[name]) for name, value in result.model.rows()]
    tables.write_tsv(tables.frame(rows, MODEL_COLUMNS), path)


def read_model(path: str) -> ModelResult:
    values = dict(zip(*(tables.read_tsv(path)[c] for c in ("parameter", "value"))))
    model = PairModel.from_rows((f.name, float(values[f.name])) for f in fields(PairModel))
    return ModelResult(model, values["combination"], values["metric_a"], values["metric_b"], int(values["systems"]),
                       int(values["topics"]), int(values["dropped_topics"]), float(values["metric_b_r"]))


# ----------------------------------------------------------------------------- the simulation jobs

def settings(model: ModelResult, options: CalibrationRunOptions, topics: int | None = None) -> RunSettings:
    """The grid point: the configured numbers, else the data set's (``topics``: a grid job's)."""
    systems = options.systems or model.systems
    topics = topics or options.topics or model.topics
    if systems < 4:
        raise CheckError(f"the Williams test needs at least 4 systems; the data set has {systems} "
                         "(set calibration.systems)")
    largest = max((0.0, *options.differences))
    if model.model.r - largest < -1:
        raise CheckError(f"calibration.differences: {largest} is more than rho_A(inf) + 1 = {model.model.r + 1:.3f}")
    return RunSettings(systems, topics, options.replicates, options.differences, options.verdict_differences,
                       options.permutation_samples, options.bootstrap_samples, options.confidence, options.alpha,
                       options.min_topics, options.seed)


def run(model: ModelResult, options: CalibrationRunOptions, topics: int | None = None,
        log: Callable[[str], None] = lambda _: None) -> PointResult:
    return run_point(model.model, settings(model, options, topics), log)


def _rejection_row(r: Rejections) -> list[object]:
    return [r.test, r.effect, r.size, r.systems, r.topics, r.replicates, r.rejections, r.rate, r.mc_se, r.true_a,
            r.true_b]


def _coverage_row(c: Coverage) -> list[object]:
    return [c.method, c.systems, c.topics, c.replicates, c.samples, c.true_t, c.coverage_t, c.true_inf,
            c.coverage_inf, c.undefined, c.mean_width]


def write_run(result: PointResult, out: Mapping[str, str]) -> None:
    """The rejection rates (``rejections``) and, when the job has one, the coverage (``coverage``)."""
    tables.write_tsv(tables.frame([_rejection_row(r) for r in result.rejections], REJECTION_COLUMNS),
                     out["rejections"])
    if "coverage" in out:
        tables.write_tsv(tables.frame([_coverage_row(c) for c in result.coverage], COVERAGE_COLUMNS), out["coverage"])


def read_rejections(path: str):
    return tables.read_tsv(path, numeric=("size", "rate", "mc_se", "true_r_a", "true_r_b"),
                           integer=("systems", "topics", "replicates", "rejections"))


# ----------------------------------------------------------------------------- the tables job

@dataclass
class CalibrationTables:
    model: ModelResult
    main: object                                     # the main job's rejections (frame)
    coverage: object                                 # its coverage (frame)
    power: object                                    # every grid job's rejections (frame), by topics
    needed: list[tuple[object, ...]]                 # NEEDED_COLUMNS
    target: float
    alpha: float


def gather(model_path: str, main_path: str, coverage_path: str, grid_paths: Sequence[str],
           options: CalibrationTablesOptions) -> CalibrationTables:
    """The simulations' tables and the topics needed for the target power at each difference."""
    import pandas as pd

    power = pd.concat([read_rejections(p) for p in grid_paths], ignore_index=True)
    power = power.sort_values(["test", "effect", "size", "topics"], kind="stable", key=_test_order).reset_index(drop=True)
    needed = []
    rate = {(t, e, s, n): r for t, e, s, n, r in power[["test", "effect", "size", "topics", "rate"]].itertuples(
        index=False, name=None)}
    largest = int(power["topics"].max())
    systems = int(power["systems"].iloc[0])
    for test, effect, size, topics in topics_needed(list(power[["test", "effect", "size", "topics", "rate"]]
                                                         .itertuples(index=False, name=None)), options.power):
        needed.append((test, effect, size, systems, topics, rate.get((test, effect, size, topics), math.nan),
                       rate.get((test, effect, 0.0, topics), math.nan), largest,
                       rate[(test, effect, size, largest)]))
    cov = tables.read_tsv(coverage_path, numeric=("true_r_t", "coverage_t", "true_r_inf", "coverage_inf",
                                                  "mean_width"))
    return CalibrationTables(read_model(model_path), read_rejections(main_path), cov, power, needed, options.power,
                             options.alpha)


def _test_order(column):
    """Sort key: tests in :data:`TESTS` order, other columns as they are."""
    if column.name == "test":
        return column.map({t: i for i, t in enumerate(TESTS)})
    return column


def _percent(x: float) -> str:
    return tables.NA if math.isnan(x) else f"{100 * x:.1f}"


def _rate_of(test: str, size: float) -> str:
    """What a rejection rate is: the metric's verdicts are judged against the humans' true difference,
    so at 0 they are differences the human truth lacks, not errors of the Wilcoxon test."""
    if test == "verdict_metric":
        return "verdict where the human truth has none" if size == 0 else "correct verdict (human truth)"
    return "type-I error" if size == 0 else "power"


def _effect(effect: str, size: float) -> str:
    return f"Δr = {size:g}" if effect == DELTA_R else f"δ = {size:g} sd"


def write_tables(t: CalibrationTables, out: Mapping[str, str]) -> None:
    m = t.model
    who = (f"on scores simulated from a model fitted to the data set ({m.systems} systems, {m.topics} topics; human "
           f"{m.combination}, metric A = {m.metric_a}, rho_A(inf) = {m.model.r:.3f})")
    rows = []
    for r in t.main.itertuples(index=False):
        what = _rate_of(r.test, r.size)
        truth = (f"{r.true_r_a:.3f} vs {r.true_r_b:.3f}" if r.test in CORRELATION_TESTS else tables.NA)
        rows.append([TEST_NAMES[r.test], _effect(r.effect, r.size), what, f"{_percent(r.rate)} ± {_percent(r.mc_se)}",
                     truth])
    first = t.main.iloc[0]
    tables.write_markdown(
        out["error_power_md"],
        f"Calibration: rejection rates (%, ± Monte Carlo standard error) over {first.replicates} replicates at "
        f"{first.systems} systems and {first.topics} topics, {who}. Correlation tests: one-sided, 'A correlates more "
        "strongly with the humans than B', where Δr = rho_A(inf) - rho_B(inf) and rho(T) is the true correlation of "
        "T-topic system means; at Δr = 0 every rejection is an error. Verdicts: a pair of systems whose true human "
        "difference is δ between-system sd; at δ = 0 the rate of any verdict, above 0 the rate of the correct one.",
        ["Test", "Effect", "Rate of", "Rate (%)", "True rho_A(T) vs rho_B(T)"], rows)
    cov = t.coverage
    tables.write_markdown(
        out["coverage_md"],
        f"Calibration: coverage (%) of the {cov['bootstrap_samples'].iloc[0]}-sample percentile bootstrap intervals "
        f"of metric A's system-level Pearson r over {cov['replicates'].iloc[0]} replicates, {who}. rho_A(T) is the "
        "true correlation of the systems' T-topic means (what r estimates), rho_A(inf) that of their expected scores.",
        ["Method", "True rho_A(T)", "Coverage of rho_A(T)", "True rho_A(inf)", "Coverage of rho_A(inf)",
         "Mean width"],
        [[f"BOOT-{c.method.upper()}", tables.fixed(c.true_r_t), _percent(c.coverage_t), tables.fixed(c.true_r_inf),
          _percent(c.coverage_inf), tables.fixed(c.mean_width)] for c in cov.itertuples(index=False)])
    tables.write_tsv(t.power, out["power"])
    tables.write_tsv(tables.frame(t.needed, NEEDED_COLUMNS), out["topics_needed_tsv"])
    header, body = _needed_wide(t)
    tables.write_markdown(
        out["topics_needed_md"],
        f"Topics needed for {100 * t.target:.0f} % power at {t.needed[0][3] if t.needed else tables.NA} systems "
        f"(the smallest number of topics of the grid whose power reaches it; '> n' = not reached at the largest), "
        f"{who}; the type-I error at that number of topics in brackets (a test whose type-I error is far above "
        "alpha has no meaningful power).", header, body)
    plot_power(t, out["figure_png"], out["figure_svg"])


def _needed_wide(t: CalibrationTables) -> tuple[list[str], list[list[str]]]:
    """One row per effect size, one column per test (n/a where the test does not apply)."""
    cells: dict[tuple[str, float], dict[str, str]] = {}
    for test, effect, size, _, needed, _, type_i, largest, _ in t.needed:
        text = f"> {largest}" if needed is None else f"{needed} ({_percent(type_i)} %)"
        cells.setdefault((effect, size), {})[test] = text
    tests = [x for x in TESTS if any(x in c for c in cells.values())]
    body = [[_effect(e, s), *(c.get(x, "n/a") for x in tests)] for (e, s), c in cells.items()]
    return ["Effect", *(TEST_NAMES[x] for x in tests)], body


def plot_power(t: CalibrationTables, png: str, svg: str) -> None:
    """Rejection rate against the number of topics, a panel per test, a line per effect size
    (size 0 dashed: the type-I error); the target power and alpha as dotted lines."""
    plt = figures.pyplot()
    tests = [x for x in TESTS if (t.power["test"] == x).any()]
    cols = 3
    rows = max(1, math.ceil(len(tests) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.7 * rows), squeeze=False, sharey=True)
    for ax in axes.flat[len(tests):]:
        ax.set_visible(False)
    for ax, test in zip(axes.flat, tests):
        sel = t.power[t.power["test"] == test]
        for size in sorted(set(sel["size"])):
            part = sel[sel["size"] == size]
            ax.plot(part["topics"], part["rate"], marker="o", ms=3, ls="--" if size == 0 else "-",
                    label=_effect(part["effect"].iloc[0], size))
        ax.axhline(t.target, color="grey", lw=0.8, ls=":")
        ax.axhline(t.alpha, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        grid = sorted(set(sel["topics"]))
        ax.set_xticks(grid, [str(x) for x in grid])
        ax.minorticks_off()
        ax.set_title(TEST_NAMES[test])
        ax.set_xlabel("topics")
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=6, loc="best")
    for ax in axes[:, 0]:
        ax.set_ylabel("rejection rate")
    fig.suptitle(f"Power by number of topics at {int(t.power['systems'].iloc[0])} systems (dashed: type-I error)",
                 fontsize=9)
    fig.tight_layout()
    figures.save(fig, png, svg)
