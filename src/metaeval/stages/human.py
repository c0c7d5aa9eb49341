"""Human-scores stage: human scores as Graham (2015) §3 forms them.

Per judged summary, every dimension is rescaled to [0, 1] by its declared min/max; *coverage* is
the mean of the ``coverage`` dimensions and *linguistic quality* (LQ) the mean of the
``linguistic_quality`` dimensions (dataset.yaml, or the config's override). A missing cell is left
out of its mean; a summary with none of a component's dimensions has no value for it.

Combinations (Graham's gold standard is the arithmetic mean):

=====================  ==========================================
``arithmetic``         (C + L) / 2
``geometric``          sqrt(C L)
``harmonic``           2 C L / (C + L), 0 when either part is 0
``coverage``           C
``linguistic_quality`` L
``pyramid``            the pyramid score P of the summary (its SCUs, ``pyramids.jsonl``)
``modified_pyramid``   the modified pyramid score (Cohan & Goharian 2016 §4.2; ``metaeval.pyramid``)
=====================  ==========================================

A combination that needs a component the data set does not have is skipped, with the reason.
System score = mean over the summarizer's judged summaries that have a value; ``order`` chooses
whether each summary is combined first and then averaged (``combine_then_average``, the paper's
order and the default) or each component is averaged first and the means combined
(``average_then_combine``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Sequence

import numpy as np
import pandas as pd

from .. import tables
from ..data import pyramid
from ..data.datasets import Dataset
from ..options import HumanOptions

COMBINATIONS = ("arithmetic", "geometric", "harmonic", "coverage", "linguistic_quality", "pyramid",
                "modified_pyramid")
PYRAMID_SCORES = ("pyramid", "modified_pyramid")
NEEDS = {"arithmetic": ("coverage", "linguistic_quality"), "geometric": ("coverage", "linguistic_quality"),
         "harmonic": ("coverage", "linguistic_quality"), "coverage": ("coverage",),
         "linguistic_quality": ("linguistic_quality",), "pyramid": ("pyramids",), "modified_pyramid": ("pyramids",)}
ORDERS = ("combine_then_average", "average_then_combine")


def combine(name: str, c: np.ndarray | float, l: np.ndarray | float) -> np.ndarray:
    """One combination of coverage C and linguistic quality L (element-wise; NaN stays NaN)."""
    c = np.asarray(c, dtype=float)
    l = np.asarray(l, dtype=float)
    if name == "arithmetic":
        return (c + l) / 2
    if name == "geometric":
        return np.sqrt(c * l)
    if name == "harmonic":
        with np.errstate(invalid="ignore", divide="ignore"):
            h = 2 * c * l / (c + l)
        return np.where((c == 0) | (l == 0), 0.0, h)
    if name == "coverage":
        return c
    if name == "linguistic_quality":
        return l
    raise ValueError(f"unknown combination {name!r}; expected one of {COMBINATIONS}")


def available_combinations(human: Mapping[str, Sequence[str]], wanted: Sequence[str] = COMBINATIONS
                           ) -> tuple[list[str], dict[str, str]]:
    """The combinations that can be computed, and {skipped: reason}."""
    ok, skipped = [], {}
    for name in wanted:
        missing = [part for part in NEEDS[name] if not human.get(part)]
        if missing == ["pyramids"]:
            skipped[name] = "needs SCU annotations, but the data set has no pyramids.jsonl"
        elif missing:
            skipped[name] = (f"needs {' and '.join(missing).replace('_', ' ')}, but the data set lists no "
                             f"{' or '.join(missing).replace('_', ' ')} dimensions")
        else:
            ok.append(name)
    return ok, skipped


@dataclass
class SummaryHuman:
    """Per judged summary: coverage, LQ (NaN where missing) and every combination."""

    keys: list[tuple[str, str]]
    kinds: list[str]
    coverage: np.ndarray
    linguistic_quality: np.ndarray
    combinations: dict[str, np.ndarray]
    pyramids: dict[str, np.ndarray] = field(default_factory=dict)   # pyramid, modified_pyramid


def components(ds: Dataset) -> dict[str, list[str]]:
    """What :func:`available_combinations` checks: the data set's components and its pyramids."""
    return {**ds.human, "pyramids": ["pyramids.jsonl"] if ds.pyramids else []}


def summary_human_scores(ds: Dataset, combinations: Sequence[str]) -> SummaryHuman:
    keys = [s.key for s in ds.judged()]
    kinds = [s.kind for s in ds.judged()]

    def component(part: str) -> np.ndarray:
        dims = [ds.dimensions[d] for d in ds.human.get(part, [])]
        out = np.full(len(keys), np.nan)
        if not dims:
            return out
        for i, k in enumerate(keys):
            vals = [d.rescale(ds.judgments[k][d.name]) for d in dims if not math.isnan(ds.judgments[k][d.name])]
            if vals:
                out[i] = math.fsum(vals) / len(vals)
        return out

    c = component("coverage")
    l = component("linguistic_quality")
    pyr = {name: np.full(len(keys), np.nan) for name in PYRAMID_SCORES}
    for i, (topic, summarizer) in enumerate(keys):
        if ds.pyramids and topic in ds.pyramids:
            pyr["pyramid"][i], pyr["modified_pyramid"][i] = pyramid.summary_scores(ds.pyramids[topic], summarizer)
    return SummaryHuman(keys, kinds, c, l, {name: pyr[name] if name in pyr else combine(name, c, l)
                                            for name in combinations}, pyr)


@dataclass
class SystemHuman:
    """Per summarizer and combination: the system score and how many summaries it rests on."""

    summarizers: list[str]
    kinds: list[str]
    scores: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]
    judged: np.ndarray  # judged summaries per summarizer


def system_human_scores(sh: SummaryHuman, order: str = "combine_then_average") -> SystemHuman:
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}; expected one of {ORDERS}")
    summarizers = sorted({s for _, s in sh.keys})
    kind_of = {s: k for (_, s), k in zip(sh.keys, sh.kinds)}
    idx = {s: [i for i, (_, x) in enumerate(sh.keys) if x == s] for s in summarizers}
    scores, counts = {}, {}
    for name, per_summary in sh.combinations.items():
        vals = np.full(len(summarizers), np.nan)
        cnt = np.zeros(len(summarizers), dtype=int)
        for j, s in enumerate(summarizers):
            # the pyramid scores combine nothing, so either order is their plain mean
            if order == "combine_then_average" or name in PYRAMID_SCORES:
                x = per_summary[idx[s]]
                x = x[~np.isnan(x)]
                cnt[j] = len(x)
                vals[j] = math.fsum(x) / len(x) if len(x) else np.nan
            else:
                parts = []
                n = 0
                for comp in (sh.coverage, sh.linguistic_quality):
                    x = comp[idx[s]]
                    x = x[~np.isnan(x)]
                    parts.append(math.fsum(x) / len(x) if len(x) else np.nan)
                    n = max(n, len(x))
                cnt[j] = n
                vals[j] = float(combine(name, parts[0], parts[1]))
        scores[name] = vals
        counts[name] = cnt
    judged = np.array([len(idx[s]) for s in summarizers])
    return SystemHuman(summarizers, [kind_of[s] for s in summarizers], scores, counts, judged)


# ----------------------------------------------------------------------------- the stage

class HumanScores(NamedTuple):
    summaries: SummaryHuman
    systems: SystemHuman
    combinations: list[str]          # the computed ones, in the configured order
    skipped: dict[str, str]          # combination -> why it was skipped


def compute(ds: Dataset, options: HumanOptions) -> HumanScores:
    ok, skipped = available_combinations(components(ds), options.combinations)
    sh = summary_human_scores(ds, ok)
    return HumanScores(sh, system_human_scores(sh, options.order), ok, skipped)


def write(result: HumanScores, out: Mapping[str, str]) -> None:
    """summary_human.tsv (per judged summary), system_human.tsv (per summarizer and combination)
    and skipped.tsv."""
    sh, sy, ok = result.summaries, result.systems, result.combinations
    rows = [(t, s, sh.kinds[i], sh.coverage[i], sh.linguistic_quality[i], *(sh.combinations[c][i] for c in ok))
            for i, (t, s) in enumerate(sh.keys)]
    tables.write_tsv(tables.frame(rows, ["topic", "summarizer", "kind", "coverage", "linguistic_quality", *ok]),
                     out["summaries"])
    rows = [(s, sy.kinds[j], c, sy.scores[c][j], sy.counts[c][j], sy.judged[j])
            for c in ok for j, s in enumerate(sy.summarizers)]
    tables.write_tsv(tables.frame(rows, ["summarizer", "kind", "combination", "score", "n_scored", "n_judged"]),
                     out["systems"])
    tables.write_tsv(tables.frame(list(result.skipped.items()), ["combination", "reason"]), out["skipped"])


def read_system_human(path: str) -> pd.DataFrame:
    return tables.read_tsv(path, numeric=("score",), integer=("n_scored", "n_judged"))


def systems_by_combination(path: str) -> dict[str, dict[str, float]]:
    """{combination: {system: score}} for the systems (not the judged humans) of system_human.tsv."""
    f = read_system_human(path)
    out: dict[str, dict[str, float]] = {}
    for s, kind, c, v in zip(f["summarizer"], f["kind"], f["combination"], f["score"].tolist()):
        if kind == "system" and not math.isnan(v):
            out.setdefault(c, {})[s] = v
    return out
