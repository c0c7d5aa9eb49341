"""Bootstrap confidence intervals of each system's ROUGE score, exactly as ROUGE-1.5.5 computes
them with ``-c 95 -r 1000`` (its ``bootstrapResampling`` and ``computeAverages``).

ROUGE-1.5.5 draws resample ``i`` (i = 0 .. r−1) after ``srand(i)``: n times
``int(rand(n))`` over the system's n per-summary scores (in evaluation order), and averages them.
Perl (since 5.20) implements ``rand`` with its own drand48 on every platform:
x ← (0x5DEECE66D · x + 0xB) mod 2^48, seeded x = (seed << 16) + 0x330E, rand() = x / 2^48 — so the
resamples are reproduced bit for bit here (vectorised over the r resamples). The r sample means
are sorted; with δ = r (100 − c) / 200 the interval is

    lower = s[⌊δ⌋] + (s[⌊δ⌋ + 1] − s[⌊δ⌋]) · ρ,  upper = s[u] + (s[u + 1] − s[u]) · ρ,
    u = ⌊r − δ − 1⌋, ρ = r − δ − 1 − u,

and ROUGE-1.5.5's printed "Average" is the mean of the r sample means (not the plain mean). The
``seed`` option shifts the seeds (resample i uses seed + i); 0 reproduces ROUGE-1.5.5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_A = np.uint64(0x5DEECE66D)
_C = np.uint64(0xB)
_MASK = np.uint64((1 << 48) - 1)


def perl_resample_indices(n: int, resamples: int, seed: int = 0) -> np.ndarray:
    """(resamples, n) indices: row i = Perl's ``srand(seed + i); int(rand(n))`` drawn n times."""
    x = ((np.arange(resamples, dtype=np.uint64) + np.uint64(seed)) << np.uint64(16)) + np.uint64(0x330E)
    out = np.empty((resamples, n), dtype=np.int64)
    with np.errstate(over="ignore"):
        for j in range(n):
            x = (_A * x + _C) & _MASK   # uint64 arithmetic wraps mod 2^64; the low 48 bits are exact
            out[:, j] = np.floor(x.astype(np.float64) / 2.0 ** 48 * n).astype(np.int64)
    return out


@dataclass(frozen=True)
class Interval:
    mean: float            # the plain mean of the per-summary scores (the system score)
    resampled_mean: float  # what ROUGE-1.5.5 prints as the average: the mean of the sample means
    lower: float
    upper: float


def rouge_interval(scores: np.ndarray, resamples: int = 1000, confidence: float = 95.0, seed: int = 0,
                   indices: np.ndarray | None = None) -> Interval:
    """The bootstrap interval of the mean of ``scores`` (one system's per-summary scores, in
    evaluation order), as ROUGE-1.5.5 ``-c confidence -r resamples``. ``confidence`` is in percent."""
    scores = np.asarray(scores, dtype=float)
    n = len(scores)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan)
    idx = perl_resample_indices(n, resamples, seed) if indices is None else indices
    # ROUGE-1.5.5 adds the scores in draw order, then divides: the same summation order here
    sums = np.zeros(resamples)
    for j in range(n):
        sums += scores[idx[:, j]]
    means = np.sort(sums / n)
    delta = resamples * ((100 - confidence) / 2.0) / 100.0
    u_a = int(resamples - delta - 1)
    l_a = int(delta)
    ratio = resamples - delta - 1 - u_a

    def at(k: int) -> float:
        return float(means[min(k, resamples - 1)])

    lower = at(l_a) + (at(l_a + 1) - at(l_a)) * ratio
    upper = at(u_a) + (at(u_a + 1) - at(u_a)) * ratio
    return Interval(math.fsum(scores) / n, math.fsum(means) / resamples, lower, upper)


# ----------------------------------------------------------------------------- the workflow's tables

def system_intervals(summary_scores: str, resamples: int, confidence: float, seed: int
                     ) -> list[tuple[str, str, int, Interval]]:
    """(summarizer, variant, n, interval) for every ROUGE mean variant (``_A_``) of every summarizer
    in summary_scores.tsv. A summarizer's summaries are taken in topic order (ROUGE-1.5.5 sorts its
    evaluation ids as strings, so with the topic ids as eval ids its order is the same)."""
    from .analysis import read_tsv

    per: dict[tuple[str, str, str, str], list[tuple[str, dict[str, str]]]] = {}
    for r in read_tsv(summary_scores):
        if r["measure"] == "BLEU":
            continue
        per.setdefault((r["summarizer"], r["measure"], r["stem"], r["stopwords_removed"]), []).append((r["topic"], r))
    out = []
    cache: dict[int, np.ndarray] = {}
    for (summarizer, measure, stem, stop), rows in sorted(per.items()):
        rows.sort(key=lambda x: x[0])
        n = len(rows)
        if n not in cache:
            cache[n] = perl_resample_indices(n, resamples, seed)
        for prf in ("P", "R", "F"):
            scores = np.array([float(r[prf]) for _, r in rows])
            out.append((summarizer, f"{measure}_ST{stem}_RS{stop}_A_{prf}", n,
                        rouge_interval(scores, resamples, confidence, seed, cache[n])))
    return out


def write_intervals(rows, shown, resamples: int, confidence: float, seed: int, out_dir: str) -> None:
    """system_intervals.tsv (every variant), intervals.md and figure_intervals (the shown variants)."""
    from pathlib import Path

    from .analysis import fmt as f
    from .datasets import atomic_write_text
    from .graham import _figure_setup, _markdown, _save

    out = Path(out_dir)
    atomic_write_text(out / "system_intervals.tsv", "summarizer\tvariant\tn\tscore\tresampled_mean\tlower\tupper\n" + "".join(
        f"{s}\t{v}\t{n}\t{f(i.mean)}\t{f(i.resampled_mean)}\t{f(i.lower)}\t{f(i.upper)}\n" for s, v, n, i in rows))
    chosen = [v for v in shown if any(v == r[1] for r in rows)]
    by = {(s, v): i for s, v, _, i in rows}
    systems = sorted({s for s, _, _, _ in rows})
    if chosen:
        systems.sort(key=lambda s: -by[(s, chosen[0])].mean if (s, chosen[0]) in by else math.inf)
    header = ["summarizer", *chosen]
    table = [[s, *(f"{by[(s, v)].mean:.4f} [{by[(s, v)].lower:.4f}, {by[(s, v)].upper:.4f}]" if (s, v) in by else "NA"
                   for v in chosen)] for s in systems]
    atomic_write_text(out / "intervals.md",
                      f"System scores with {confidence:g} % bootstrap intervals ({resamples} resamples of each "
                      f"summarizer's summaries, seed {seed}; exactly ROUGE-1.5.5 -c {confidence:g} -r {resamples}), "
                      "sorted by the first variant.\n\n" + _markdown(header, table))
    plt = _figure_setup()
    fig, axes = plt.subplots(1, max(1, len(chosen)), figsize=(3.2 * max(1, len(chosen)), 0.22 * len(systems) + 1.5),
                             sharey=True, squeeze=False)
    for ax, v in zip(axes[0], chosen):
        ys = range(len(systems))
        m = [by[(s, v)].mean if (s, v) in by else math.nan for s in systems]
        lo = [by[(s, v)].lower if (s, v) in by else math.nan for s in systems]
        hi = [by[(s, v)].upper if (s, v) in by else math.nan for s in systems]
        ax.errorbar(m, ys, xerr=[np.subtract(m, lo), np.subtract(hi, m)], fmt="o", ms=3, capsize=2)
        ax.set_title(v, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0][0].set_yticks(range(len(systems)))
    axes[0][0].set_yticklabels(systems, fontsize=7)
    axes[0][0].invert_yaxis()
    _save(fig, out / "figure_intervals")
    plt.close(fig)
