"""What a score difference means, across data sets (results/all/): after Kocmi, Zouhar, Federmann &
Post (2024), how often humans agree with a metric's verdict on a pair of systems, against the size
of the metric's difference (:mod:`metaeval.stats.delta_curve` states the method).

* ``delta_thresholds.tsv``: per variant and target, the pairs of systems of every data set where the
  variant and the target exist (each data set's soft_pairwise/pair_deltas.tsv), pooled; the fitted
  logistic curve (its slope) and the smallest delta with 80 / 90 / 95 % agreement (``delta.accuracies``),
  NA where the curve does not reach it within the observed deltas; bootstrap intervals (over the
  pairs) for the variants of ``delta.variants`` (every variant's bootstrap would cost minutes).
* ``delta_curves.tsv``: the fitted agreement at 21 deltas from 0 to the largest observed one, with
  the bootstrap interval for ``delta.variants``.
* ``delta/figure_<variant>.png``: for each of ``delta.variants``, the observed pairs (agree 1 / 0,
  by data set) and the fitted curve with its interval, for the target with the most pairs.
* ``delta.tsv`` (on request, :func:`answer`): the agreement at ``delta.value`` for ``delta.metric``.

load (every data set's pair_deltas.tsv) -> :func:`compute` -> :func:`write`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import figures, tables
from ..logs import CheckError
from ..records import DeltaOptions, DeltaQuery
from ..stats import delta_curve as dc

GRID = 21
CHUNK = 1 << 22          # padded (curves x pairs) cells fitted at once
CURVE_COLUMNS = ("variant", "target", "delta", "accuracy", "lo", "hi")
ANSWER_COLUMNS = ("metric", "target", "value", "agreement", "lo", "hi", "n_pairs", "datasets", "max_delta",
                  "within_observed", "slope")


@dataclass
class Curves:
    thresholds: list[dict[str, object]]
    curves: pd.DataFrame                    # CURVE_COLUMNS
    pairs: pd.DataFrame                     # the pooled pairs with a defined agreement (for the figures)
    options: DeltaOptions


def level_name(q: float) -> str:
    return f"{100 * q:g}".replace(".", "_")


def threshold_columns(accuracies: Sequence[float]) -> list[str]:
    return [c for q in accuracies for c in (f"threshold_{level_name(q)}", f"threshold_{level_name(q)}_lo",
                                            f"threshold_{level_name(q)}_hi")]


def columns(accuracies: Sequence[float]) -> list[str]:
    return ["variant", "target", "datasets", "n_pairs", "n_agree", "max_delta", "slope", "converged",
            *threshold_columns(accuracies)]


def load(pairs: Mapping[str, str], variants: Sequence[str] | None = None) -> pd.DataFrame:
    """Every data set's pairs (by data set name) with a defined agreement, pooled, with a ``dataset``
    column; only ``variants`` when given."""
    frames = []
    for d, path in sorted(pairs.items()):
        f = tables.read_tsv(path, numeric=("delta", "agree"))
        if variants is not None:
            f = f[f["variant"].isin(list(variants))]
        f = f[~np.isnan(f["agree"].to_numpy())]
        frames.append(f.assign(dataset=d)[["dataset", "variant", "target", "delta", "agree"]])
    if not frames:
        return pd.DataFrame(columns=["dataset", "variant", "target", "delta", "agree"])
    return pd.concat(frames, ignore_index=True)


def _groups(pairs: pd.DataFrame) -> list[tuple[str, str, np.ndarray, np.ndarray, list[str]]]:
    """(variant, target, deltas, agreements, data sets) per variant and target, in first-seen order."""
    if not len(pairs):
        return []
    codes, keys = pd.factorize(pd.MultiIndex.from_arrays([pairs["variant"], pairs["target"]]), sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    x, y = pairs["delta"].to_numpy(float)[order], pairs["agree"].to_numpy(float)[order]
    ds = pairs["dataset"].to_numpy(object)[order]
    out = []
    for k, (xs, ys, dk) in enumerate(zip(np.split(x, bounds), np.split(y, bounds), np.split(ds, bounds))):
        out.append((keys[k][0], keys[k][1], xs, ys, list(dict.fromkeys(dk))))
    return out


def _point_fits(groups) -> dc.Fit:
    """Every group's fit: the groups padded to the longest one (weight 0) and fitted together, in
    chunks of at most :data:`CHUNK` cells."""
    b, conv = np.full(len(groups), np.nan), np.zeros(len(groups), dtype=bool)
    n_max = max((len(g[2]) for g in groups), default=1) or 1
    step = max(1, CHUNK // n_max)
    for start in range(0, len(groups), step):
        part = groups[start:start + step]
        x, y, w = (np.zeros((len(part), n_max)) for _ in range(3))
        for r, g in enumerate(part):
            n = len(g[2])
            x[r, :n], y[r, :n], w[r, :n] = g[2], g[3], 1.0
        f = dc.fit_logistic(x, y, w)
        b[start:start + step], conv[start:start + step] = f.b, f.converged
    return dc.Fit(b, conv)


def compute(pairs: pd.DataFrame, options: DeltaOptions) -> Curves:
    """Every variant and target's pooled curve and thresholds (all fits at once), and the bootstrap
    intervals of ``delta.variants``'."""
    groups = _groups(pairs)
    G, levels = len(groups), list(options.accuracies)
    fits = _point_fits(groups)
    top = np.array([g[2].max() for g in groups]) if G else np.zeros(0)
    th = dc.thresholds(fits, levels, top)                                   # (G, L)
    grid = np.linspace(0.0, 1.0, GRID)[None, :] * top[:, None]              # (G, GRID)
    with np.errstate(invalid="ignore"):
        acc = 1.0 / (1.0 + np.exp(-np.clip(np.where(grid == 0, 0.0, fits.b[:, None] * grid), -700, 700)))
    th_lo, th_hi = np.full_like(th, np.nan), np.full_like(th, np.nan)
    acc_lo, acc_hi = np.full_like(acc, np.nan), np.full_like(acc, np.nan)
    if options.bootstrap_samples:
        for k, (v, t, x, y, _) in enumerate(groups):
            if v in options.variants:
                boot = dc.bootstrap_fits(x, y, options.bootstrap_samples, options.seed)
                th_lo[k], th_hi[k] = dc.interval(dc.thresholds(boot, levels, top[k]), options.confidence)
                acc_lo[k], acc_hi[k] = dc.interval(dc.accuracy_at(boot, grid[k]), options.confidence)
    rows = []
    for k, (v, t, x, y, datasets) in enumerate(groups):
        row = {"variant": v, "target": t, "datasets": ",".join(datasets), "n_pairs": len(x), "n_agree": int(y.sum()),
               "max_delta": float(top[k]), "slope": float(fits.b[k]),
               "converged": "yes" if fits.converged[k] else "no"}
        for j, q in enumerate(levels):
            name = f"threshold_{level_name(q)}"
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = float(th[k, j]), float(th_lo[k, j]), float(th_hi[k, j])
        rows.append(row)
    curves = pd.DataFrame({"variant": np.repeat([g[0] for g in groups], GRID).astype(object),
                           "target": np.repeat([g[1] for g in groups], GRID).astype(object),
                           "delta": grid.ravel(), "accuracy": acc.ravel(), "lo": acc_lo.ravel(), "hi": acc_hi.ravel()},
                          columns=list(CURVE_COLUMNS))
    shown = pairs[pairs["variant"].isin(list(options.variants))]
    return Curves(rows, curves, shown, options)


CAPTION = ("What a score difference means (after Kocmi et al. 2024): the smallest difference of the variant's system "
           "scores at which humans agree with its verdict on a pair of systems with the given probability, from a "
           "logistic curve of agreement against the difference (1/2 at no difference) fitted to every pair of systems of the data sets "
           "listed (pooled). NA: the curve does not reach that agreement within the observed differences. Brackets: "
           "{conf} bootstrap interval over the pairs (NA end: not reached in enough samples). The variants of "
           "delta.variants; every variant: delta_thresholds.tsv.")


def write(result: Curves, out: Mapping[str, str]) -> None:
    o = result.options
    tables.write_tsv(tables.frame(result.thresholds, columns(o.accuracies)), out["thresholds"])
    tables.write_tsv(result.curves, out["curves"])
    names = [f"threshold_{level_name(q)}" for q in o.accuracies]

    def cell(r, n):
        text = tables.fixed(r[n], 4)
        return text if np.isnan(r[f"{n}_lo"]) and np.isnan(r[f"{n}_hi"]) else \
            f"{text} [{tables.fixed(r[f'{n}_lo'], 4)}, {tables.fixed(r[f'{n}_hi'], 4)}]"

    md = [[str(r["variant"]), str(r["target"]), str(r["datasets"]).replace(",", ", "), str(r["n_pairs"]),
           *(cell(r, n) for n in names)] for r in result.thresholds if r["variant"] in o.variants]
    tables.write_markdown(out["thresholds_md"], CAPTION.format(conf=f"{100 * o.confidence:g} %"),
                          ["variant", "target", "data sets", "pairs", *(f"{100 * q:g} %" for q in o.accuracies)], md)
    for v in o.variants:
        key = f"figure_{v}"
        if key in out:
            _figure(result, v, out[key], out[f"{key}_svg"])


def _figure(result: Curves, variant: str, png: str, svg: str) -> None:
    """The observed pairs (agreement 1 or 0, jittered, by data set) and the fitted curve with its
    interval, for the variant's target with the most pairs (first in the table's order on a tie)."""
    plt = figures.pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    mine = [r for r in result.thresholds if r["variant"] == variant]
    if not mine:
        ax.text(0.5, 0.5, f"{variant}: computed on no data set", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
    else:
        best = max(mine, key=lambda r: r["n_pairs"])     # max keeps the first of equals
        t = best["target"]
        p = result.pairs[(result.pairs["variant"] == variant) & (result.pairs["target"] == t)]
        jitter = np.random.default_rng(0).uniform(-0.04, 0.04, len(p))
        for k, (d, g) in enumerate(p.groupby("dataset", sort=True)):
            idx = np.flatnonzero((p["dataset"] == d).to_numpy())
            ax.plot(g["delta"].to_numpy(float), g["agree"].to_numpy(float) + jitter[idx], "o", ms=3, alpha=0.5,
                    label=f"{d} ({len(g)} pairs)")
        c = result.curves[(result.curves["variant"] == variant) & (result.curves["target"] == t)]
        xs = c["delta"].to_numpy(float)
        ax.plot(xs, c["accuracy"].to_numpy(float), color="black", lw=1.5, label="fitted agreement")
        lo, hi = c["lo"].to_numpy(float), c["hi"].to_numpy(float)
        if len(c) and not np.isnan(lo).all():
            ax.fill_between(xs, lo, hi, color="#999", alpha=0.3, lw=0,
                            label=f"{100 * result.options.confidence:g} % bootstrap interval")
        for q in result.options.accuracies:
            ax.axhline(q, color="#c44e52", lw=0.6, ls=":")
            x = best[f"threshold_{level_name(q)}"]
            if not np.isnan(x):
                ax.plot([x], [q], "v", color="#c44e52", ms=5)
        ax.set_ylim(-0.08, 1.08)
        ax.set_xlabel(f"|difference of {variant}'s system scores|")
        ax.set_ylabel("humans agree (1) / disagree (0)")
        ax.set_title(f"{variant} vs {t}: {best['n_pairs']} pairs of systems", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
    figures.save(fig, png, svg)


# ----------------------------------------------------------------------------- the query

def answer(pairs: pd.DataFrame, q: DeltaQuery) -> list[dict[str, object]]:
    """The agreement at ``q.value`` for ``q.metric`` per target (``q.target`` or every one): the
    pooled curve, as in delta_thresholds.tsv, and its bootstrap interval over the pairs (the curves
    job's draws, so the same interval as its figures at that delta)."""
    if q.metric is None or q.value is None:
        raise CheckError("config key delta: results/all/delta.tsv answers a question; give delta.metric (a variant "
                         "id) and delta.value (a difference of its system scores), e.g. --config "
                         "delta='{metric: R2_ST1_RS0_A_R, value: 0.02}'")
    mine = pairs[pairs["variant"] == q.metric]
    if q.target is not None:
        mine = mine[mine["target"] == q.target]
    if not len(mine):
        raise CheckError(f"config key delta.metric: {q.metric!r}" + (f" with target {q.target!r}" if q.target else "")
                         + " has no pair of systems with a verdict on any data set (is it computed there? "
                           "see each data set's soft_pairwise/pair_deltas.tsv)")
    rows = []
    value = float(q.value)
    for v, t, x, y, datasets in _groups(mine):
        fit = dc.fit_logistic(x, y)
        agreement = float(dc.accuracy_at(fit, value)[0])
        lo = hi = np.nan
        if q.bootstrap_samples:
            boot = dc.bootstrap_fits(x, y, q.bootstrap_samples, q.seed)
            lo, hi = (float(e[0]) for e in dc.interval(dc.accuracy_at(boot, np.array([value])), q.confidence))
        rows.append({"metric": v, "target": t, "value": value, "agreement": agreement, "lo": lo, "hi": hi,
                     "n_pairs": len(x), "datasets": ",".join(datasets), "max_delta": float(x.max()),
                     "within_observed": "yes" if value <= x.max() else "no (extrapolated)",
                     "slope": float(fit.b[0])})
    return rows


def write_answer(rows: Sequence[Mapping[str, object]], path: str) -> None:
    tables.write_tsv(tables.frame(list(rows), ANSWER_COLUMNS), path)
