"""Intervals stage: every summarizer's ROUGE mean variants with the bootstrap interval ROUGE-1.5.5
prints for ``-c 95 -r 1000`` (computed as it does: :mod:`metaeval.stats.rouge_bootstrap`).

load (the score jobs' parts) -> :func:`compute` (a list of :class:`Row`) -> :func:`write`
(system_intervals.tsv, intervals.md, the figure of the shown variants).
"""

from __future__ import annotations

import math
from typing import Mapping, NamedTuple

import numpy as np

from .. import figures, tables
from ..records import IntervalOptions
from ..stats.rouge_bootstrap import Interval, percent, perl_resample_indices, rouge_intervals
from ..variants import PRF, Variant
from .scoring import read_part


class Row(NamedTuple):
    summarizer: str
    variant: str
    n: int
    interval: Interval


def load(parts: Mapping[tuple[int, int], list[str]]) -> dict[tuple[str, str, int, int], list[tuple[str, dict[str, float]]]]:
    """Per (summarizer, measure, stem, stop): its (topic, {P, R, F}) rows, ROUGE only, from the
    score jobs' parts (:func:`metaeval.outputs.parts_by_setting`)."""
    per: dict[tuple[str, str, int, int], list] = {}
    for (stem, stop), paths in parts.items():
        for path in paths:
            for measure, rows in read_part(path).items():
                if measure == "BLEU":
                    continue
                for t, s, p, r, fv in rows:
                    per.setdefault((s, measure, stem, stop), []).append((t, {"P": p, "R": r, "F": fv}))
    return per


def compute(per: Mapping[tuple[str, str, int, int], list], options: IntervalOptions) -> list[Row]:
    """(summarizer, variant, n, interval) for every ROUGE mean variant (``_A_``) of every summarizer.
    A summarizer's summaries are taken in topic order (ROUGE-1.5.5 sorts its evaluation ids as
    strings, so with the topic ids as eval ids its order is the same)."""
    keys, scores = [], []
    for (summarizer, measure, stem, stop), rows in sorted(per.items()):
        rows = sorted(rows, key=lambda x: x[0])
        for prf in PRF:
            keys.append((summarizer, str(Variant.rouge(measure, stem, stop, "A", prf)), len(rows)))
            scores.append(np.array([r[prf] for _, r in rows]))
    intervals: dict[int, Interval] = {}
    for n in sorted({k[2] for k in keys}):       # summarizers with as many summaries share ROUGE-1.5.5's draws
        rows = [i for i, k in enumerate(keys) if k[2] == n]
        idx = perl_resample_indices(n, options.resamples, options.seed)
        intervals.update(zip(rows, rouge_intervals(np.stack([scores[i] for i in rows]), idx, options.confidence)))
    return [Row(*k, intervals[i]) for i, k in enumerate(keys)]


# The report's captions of this stage's files, next to the code that writes them (the stage
# registry's report items name them, "module:NAME"; the report looks them up by name).
FIGURE_CAPTION = (
    "Each system's score with its bootstrap confidence interval; systems whose intervals overlap are not "
    "reliably ordered by that variant alone.")


def write(rows: list[Row], options: IntervalOptions, out: Mapping[str, str]) -> None:
    """system_intervals.tsv (every variant), intervals.md and the figure (the shown variants)."""
    table = [(r.summarizer, r.variant, r.n, r.interval.mean, r.interval.resampled_mean, r.interval.lower,
              r.interval.upper) for r in rows]
    tables.write_tsv(tables.frame(table, ["summarizer", "variant", "n", "score", "resampled_mean", "lower", "upper"]),
                     out["table"])
    chosen = [v for v in options.shown if any(v == r.variant for r in rows)]
    by = {(r.summarizer, r.variant): r.interval for r in rows}
    systems = sorted({r.summarizer for r in rows})
    if chosen:
        systems.sort(key=lambda s: -by[(s, chosen[0])].mean if (s, chosen[0]) in by else math.inf)
    header = ["summarizer", *chosen]
    cells = [[s, *(f"{by[(s, v)].mean:.4f} [{by[(s, v)].lower:.4f}, {by[(s, v)].upper:.4f}]" if (s, v) in by else "NA"
                   for v in chosen)] for s in systems]
    c = percent(options.confidence)
    tables.write_markdown(out["markdown"],
                          f"System scores with {c:g} % bootstrap intervals ({options.resamples} resamples of each "
                          f"summarizer's summaries, seed {options.seed}; exactly ROUGE-1.5.5 -c {c:g} -r "
                          f"{options.resamples}), sorted by the first variant.", header, cells)
    plt = figures.pyplot()
    fig, axes = plt.subplots(1, max(1, len(chosen)), figsize=(3.2 * max(1, len(chosen)), 0.22 * len(systems) + 1.5),
                             sharey=True, squeeze=False)
    for ax, v in zip(axes[0], chosen):
        ys = range(len(systems))
        m = [by[(s, v)].mean if (s, v) in by else math.nan for s in systems]
        lo = [by[(s, v)].lower if (s, v) in by else math.nan for s in systems]
        hi = [by[(s, v)].upper if (s, v) in by else math.nan for s in systems]
        ax.errorbar(m, ys, xerr=figures.error_bars(m, lo, hi, f"intervals figure, {v}"), fmt="o", ms=3, capsize=2)
        ax.set_title(v, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0][0].set_yticks(range(len(systems)))
    axes[0][0].set_yticklabels(systems, fontsize=7)
    axes[0][0].invert_yaxis()
    figures.save(fig, out["figure_png"], out["figure_svg"])
