"""The factuality stage's protocols (:mod:`metaeval.stages.factuality` states them): summary-level
correlations with their p-values and bootstrap interval, FRANK's Williams tests and error-category
ablation, the detection of consistent summaries (QAGS, SummaC) and the ranking accuracy of
preference pairs (Rank19). Pure functions of the stage's inputs that return table rows.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from dataclasses import dataclass, field
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from .. import memo
from ..records import FactualityOptions
from ..stats.binary import auc, balanced_accuracy, best_threshold, bootstrap_auc, bootstrap_balanced_accuracy, \
    delong_of_placements, delong_test, placements
from ..stats.coverage import common_items
from ..stats.floor import Floor, mean_held_out_balanced_accuracy, per_row, permutation_floor, ranking_accuracy_of
from ..stats.core import corrcoef, pearson, percentile_interval
from ..stats.stable import ordinary
from ..stats.partial import NAN_PARTIAL, group_codes, partial_correlation, partial_residuals, residualise, williams_partial
from ..stats.ranking import mcnemar_exact, ranking_accuracy
from ..stats.williams import williams_matrix

ALL = "all"
MEAN = "mean"                     # the leaderboard's subset of a column that is the mean over the subsets
CORRELATED_KINDS = ("graded", "proportion", "binary")


@dataclass
class FactualityInputs:
    """One row per judged system summary (sorted by topic, summarizer)."""
    name: str
    topics: np.ndarray
    systems: np.ndarray
    splits: np.ndarray            # "" where the summary has no split
    subsets: np.ndarray           # "" where it has no subset
    dimensions: dict[str, np.ndarray]
    kinds: dict[str, str]
    analysed: list[str]
    ablations: list[str]
    metrics: dict[str, np.ndarray]
    sources: dict[str, str]       # metric -> "built-in" | "file"
    summaries_path: str = "summaries.jsonl"
    notes: list[tuple[str, str, str]] = field(default_factory=list)
    # metric -> the one dimension a metric declared for it serves (the others serve every dimension)
    meant_for: Mapping[str, str] = field(default_factory=dict)

    def for_dimension(self, d: str, notes: list) -> tuple["FactualityInputs", np.ndarray]:
        """(the inputs of dimension ``d``'s protocols, the mask of the judged summaries they keep): the
        metrics that serve ``d`` (a metric declared for another dimension is left out), on the summaries
        every one of them scores (a test between two metrics compares like with like; a note in
        ``notes`` when some are left out)."""
        metrics = {m: v for m, v in self.metrics.items() if self.meant_for.get(m, d) == d}
        keep = common_items(np.column_stack(list(metrics.values()))) if metrics else np.ones(self.topics.size, bool)
        if not keep.all():
            left = sorted(set(self.systems[~keep]))
            notes.append(("inputs", d, f"{int((~keep).sum())} judged summaries (of {', '.join(left)}) are not scored "
                                       f"by every metric of {d}, so left out of its protocols: every metric is "
                                       f"compared on the {int(keep.sum())} summaries all of them score"))
        cut = (lambda a: a) if keep.all() else (lambda a: a[keep])
        return (FactualityInputs(self.name, cut(self.topics), cut(self.systems), cut(self.splits), cut(self.subsets),
                                 {k: cut(v) for k, v in self.dimensions.items()}, self.kinds, [d], self.ablations,
                                 {m: cut(v) for m, v in metrics.items()},
                                 {m: self.sources[m] for m in metrics}, self.summaries_path, self.notes,
                                 self.meant_for), keep)

    @property
    def split_names(self) -> list[str]:
        return sorted(set(self.splits) - {""})

    @property
    def subset_names(self) -> list[str]:
        return sorted(set(self.subsets) - {""})


def scopes(inp: FactualityInputs) -> list[tuple[str, str, np.ndarray]]:
    """(subset, split, mask): all, each subset and each split, and each subset x split."""
    subsets = [ALL] + inp.subset_names
    splits = [ALL] + inp.split_names
    out = []
    for sub in subsets:
        for sp in splits:
            m = np.ones(inp.topics.size, dtype=bool)
            if sub != ALL:
                m &= inp.subsets == sub
            if sp != ALL:
                m &= inp.splits == sp
            out.append((sub, sp, m))
    return out


def correlations(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float, float, float]:
    """Pearson, Spearman, Kendall tau-b and their two-sided p (scipy), NaN when undefined."""
    from scipy import stats     # imported where needed: scipy.stats takes a second to load

    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return (np.nan,) * 6
    p = stats.pearsonr(x, y)
    s = stats.spearmanr(x, y)
    k = stats.kendalltau(x, y)
    return (float(p.statistic), float(p.pvalue), float(s.statistic), float(s.pvalue), float(k.statistic),
            float(k.pvalue))


@lru_cache(maxsize=2)
def summary_draws(n: int, samples: int, seed: int) -> np.ndarray:
    """(samples, n) indices of n summaries drawn with replacement, ``default_rng(seed)``, all samples
    at once. Cached (read-only): every metric of a scope has the same summaries and so the same
    draws, drawn once instead of once per metric."""
    idx = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    idx.flags.writeable = False
    return idx


def pearson_interval(x: np.ndarray, y: np.ndarray, samples: int, seed: int, confidence: float
                     ) -> tuple[float, float]:
    """Percentile interval (:func:`metaeval.stats.core.percentile_interval`) of Pearson's r
    (:func:`metaeval.stats.core.pearson`; a sample whose scores are constant up to rounding has
    none), summaries resampled with replacement (``default_rng(seed)``, all samples at once)."""
    if x.size < 3 or samples < 1:
        return (np.nan, np.nan)
    idx = summary_draws(x.size, samples, seed)
    x, y = ordinary(x), ordinary(y)            # the tolerance is for values of order 1
    lo, hi = percentile_interval(pearson(x[idx], y[idx], tolerance=1e-12), confidence)
    return float(lo), float(hi)


def _in_scope(x: np.ndarray, scope: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A metric's scores and the human scores on the summaries of ``scope`` where the metric is defined."""
    ok = scope & np.isfinite(x)
    return x[ok], h[ok]


def scope_correlations(d: str, scope: np.ndarray, h: np.ndarray, inp: FactualityInputs, metrics: Sequence[str]
                       ) -> list[tuple]:
    """:func:`correlations` of every metric with dimension ``d`` (scores ``h``) over the summaries of
    ``scope`` where the metric is defined; each metric's are its own, so the job's memo keeps them."""
    def one(i: int) -> tuple:
        return correlations(*_in_scope(inp.metrics[metrics[i]], scope, h))

    return memo.records("correlations", ("correlations", d, scope, h), metric_keys(inp, metrics), one)


def scope_intervals(d: str, scope: np.ndarray, h: np.ndarray, inp: FactualityInputs, metrics: Sequence[str],
                    o: FactualityOptions) -> list[tuple]:
    """:func:`pearson_interval` of every metric (as :func:`scope_correlations`), kept by the memo."""
    def one(i: int) -> tuple:
        return pearson_interval(*_in_scope(inp.metrics[metrics[i]], scope, h), o.bootstrap_samples, o.seed,
                                o.confidence)

    context = ("pearson_interval", d, scope, h, o.bootstrap_samples, o.seed, o.confidence)
    return memo.records("pearson_interval", context, metric_keys(inp, metrics), one)


def partial_applies(systems: np.ndarray, minimum: int) -> tuple[bool, str]:
    names, counts = np.unique(systems, return_counts=True) if systems.size else (np.array([]), np.array([]))
    enough = int((counts >= minimum).sum())
    if enough >= 2:
        return True, ""
    return False, (f"{names.size} system(s), {enough} with at least {minimum} summaries: the partial correlation "
                   "controlling for the system needs at least 2 systems with several summaries each")


def labels_of(values: np.ndarray, kind: str, cutoff: float) -> np.ndarray | None:
    """Binary labels (1 = consistent) of a binary dimension, or of a proportion at the cut-off
    (value >= cutoff); None for other kinds."""
    if kind == "binary":
        return values.copy()
    if kind == "proportion":
        out = np.where(values >= cutoff, 1.0, 0.0)
        out[~np.isfinite(values)] = np.nan
        return out
    return None


def williams_tests(d: str, sub: str, sp: str, m: np.ndarray, inp: FactualityInputs, metrics: Sequence[str],
                   h: np.ndarray) -> list[list]:
    """FRANK's Williams tests on partial correlations between every ordered pair of metrics in one
    scope (p: one-sided, metric_a's partial r exceeds metric_b's). Metrics defined on every summary
    of the scope share one residualisation and one matrix of tests (:func:`williams_matrix`: the
    same numbers :func:`williams_partial` gives pair by pair); a metric undefined on some summaries
    is tested pair by pair over the summaries both metrics score."""
    full = [k for k in metrics if np.isfinite(inp.metrics[k][m]).all()]
    n = int(m.sum())
    pos = {k: i for i, k in enumerate(full)} if full and n >= 4 else {}
    if pos:
        codes = group_codes(inp.systems[m])
        rh = residualise(ordinary(h[m]), codes)   # ordinary: the tolerance is for values of order 1
        R = np.vstack([residualise(ordinary(inp.metrics[k][m]), codes) for k in full])
        r_h = pearson(R, rh[None, :], tolerance=1e-12)
        with np.errstate(invalid="ignore", divide="ignore"):
            r_mm = np.atleast_2d(corrcoef(R))
            p = williams_matrix(r_h, r_mm, n)
        p[~np.isfinite(r_mm)] = np.nan            # a pair without its r_ab has no test
    rows = []
    for a in metrics:
        for b in metrics:
            if a == b:
                continue
            if a in pos and b in pos:
                i, j = pos[a], pos[b]
                rows.append([d, sub, sp, a, b, n, float(r_h[i]), float(r_h[j]), float(r_mm[i, j]), float(p[i, j])])
            else:
                w = williams_partial(inp.metrics[a][m], inp.metrics[b][m], h[m], inp.systems[m])
                rows.append([d, sub, sp, a, b, w.n, w.r_a, w.r_b, w.r_ab, w.p])
    return rows


def ablation(d: str, inp: FactualityInputs, o: FactualityOptions, metrics: Sequence[str], partial: bool
              ) -> list[list]:
    """Every metric's correlation with the full dimension and with each ablated one (all summaries):
    the partial Pearson when the partial correlation applies, else Pearson's r; difference = full -
    ablated (FRANK's ``ablation``)."""
    rows = []
    h = inp.dimensions[d]
    how = "partial pearson" if partial else "pearson"

    def corr(x, y):
        ok = np.isfinite(x) & np.isfinite(y)
        if partial:
            return partial_correlation(x[ok], y[ok], inp.systems[ok]).pearson, int(ok.sum())
        return (correlations(x[ok], y[ok])[0], int(ok.sum()))

    for mid in metrics:
        x = inp.metrics[mid]
        full, _ = corr(x, h)
        for a in inp.ablations:
            r, n = corr(x, inp.dimensions[a])
            rows.append([d, a[len(o.ablation_prefix):], a, mid, inp.sources[mid], how, n, full, r, full - r])
    return rows


class Labels(NamedTuple):
    """A dimension's binary labels (1 = consistent, NaN = none), how they were read (``rule``) and
    the validation and test masks of the summaries."""
    dimension: str
    rule: str
    values: np.ndarray
    validation: np.ndarray
    test: np.ndarray


def detection(lab: Labels, inp: FactualityInputs, o: FactualityOptions, metrics: Sequence[str],
              notes: list[tuple[str, str, str]]) -> tuple[list[list], list[list]]:
    """QAGS / SummaC / SummEdits: every metric's ROC AUC with its bootstrap interval, on all summaries
    and each subset, its balanced accuracy at the threshold chosen on the validation summaries and
    applied to the test summaries, and, labelled so, the oracle's: the threshold chosen on the test
    summaries themselves, as SummaC's benchmark chooses it (an upper bound, not a held-out result);
    DeLong tests between every pair of metrics on all summaries and in each subset."""
    d, rule, labels, valid_mask, test_mask = lab
    rows, tests = [], []
    defined = np.isfinite(labels)
    subsets = [ALL] + inp.subset_names
    for sub in subsets:
        m = defined & ((inp.subsets == sub) if sub != ALL else True)
        pos, neg = int((labels[m] == 1).sum()), int((labels[m] == 0).sum())
        if pos < 1 or neg < 1:
            notes.append(("binary", d, f"{sub}: {pos} consistent and {neg} inconsistent summaries ({rule}); the AUC "
                                       "needs both"))
            continue
        def detected(i: int, m=m) -> tuple:
            x = inp.metrics[metrics[i]]
            ok = m & np.isfinite(x)
            a = auc(x[ok], labels[ok])
            lo, hi = bootstrap_auc(x[ok], labels[ok], o.bootstrap_samples, o.seed, o.confidence)
            v, t = ok & valid_mask, ok & test_mask
            thr, ba_v = best_threshold(x[v], labels[v])
            ba_t = balanced_accuracy(x[t], labels[t], thr) if np.isfinite(thr) else np.nan
            t_lo, t_hi = bootstrap_balanced_accuracy(x[t], labels[t], thr, o.bootstrap_samples, o.seed, o.confidence)
            oracle = best_threshold(x[t], labels[t])
            return (int(ok.sum()), int((labels[ok] == 1).sum()), a, lo, hi, thr, int(v.sum()), ba_v, int(t.sum()),
                    ba_t, t_lo, t_hi, *oracle)

        # each metric's row is its own: the job's memo keeps it for the next run
        context = ("detection", d, rule, sub, labels, m, valid_mask, test_mask, o.bootstrap_samples, o.seed,
                   o.confidence)
        found = memo.records("detection", context, metric_keys(inp, metrics), detected)
        rows += [[d, rule, sub, mid, inp.sources[mid], *r] for mid, r in zip(metrics, found)]
        # DeLong in every scope: a subset (SummEdits' domain) is a column of the leaderboard
        pairs = list(combinations(metrics, 2))
        pos = labels[m] == 1
        # a metric that scores every summary has one set of placements for all its pairs
        complete = {k: None for k in metrics if np.isfinite(inp.metrics[k][m]).all()} \
            if min(pos.sum(), (~pos).sum()) >= 2 else {}

        def tested(i: int, m=m) -> tuple:
            a_, b_ = pairs[i]
            if a_ in complete and b_ in complete:
                for k in (a_, b_):
                    complete[k] = complete[k] or placements(inp.metrics[k][m], pos)
                r = delong_of_placements(complete[a_], complete[b_])
            else:
                r = delong_test(inp.metrics[a_][m], inp.metrics[b_][m], labels[m])
            n = int((m & np.isfinite(inp.metrics[a_]) & np.isfinite(inp.metrics[b_])).sum())
            return (n, r.auc_a, r.auc_b, r.difference, r.se, r.z, r.p)

        keys = pair_keys(inp, pairs)
        found = memo.records("delong", ("delong", d, rule, labels, m), keys, tested)
        tests += [[d, rule, sub, a_, b_, *r] for (a_, b_), r in zip(pairs, found)]
    return rows, tests


def subset_means(binary: list[list], columns: Sequence[str]) -> list[list]:
    """The mean over the subsets (SummEdits' domains, as its paper reports it) of every metric's AUC,
    balanced accuracy on the test split and the oracle's, per dimension: rows (dimension, labels,
    metric, source, subsets, auc, balanced_accuracy_test, balanced_accuracy_oracle), for data sets with
    two or more subsets; a subset where a value is undefined leaves that mean undefined (NaN)."""
    by: dict[tuple[str, str, str, str], list[dict]] = {}
    for row in binary:
        r = dict(zip(columns, row))
        if r["subset"] != ALL:
            by.setdefault((r["dimension"], r["labels"], r["metric"], r["source"]), []).append(r)
    out = []
    for key, rows in by.items():
        if len(rows) >= 2:
            out.append([*key, len(rows), *(float(np.mean([float(r[c]) for r in rows]))
                                           for c in ("auc", "balanced_accuracy_test", "balanced_accuracy_oracle"))])
    return out


def metric_keys(inp: FactualityInputs, metrics: Sequence[str]) -> list[str]:
    """The memo's key of each metric: its id and scores."""
    return [memo.digest(mid, inp.metrics[mid]) for mid in metrics]


def pair_keys(inp: FactualityInputs, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """The memo's key of each pair of metrics: both ids and both metrics' scores, in order."""
    return [memo.digest(a, inp.metrics[a], b, inp.metrics[b]) for a, b in pairs]


def preference_pairs(inp: FactualityInputs, d: str) -> tuple[np.ndarray, np.ndarray]:
    """(index of the preferred summary, index of the other) of every topic the preference judges
    (the validation guarantees one 1 and one 0 per judged topic)."""
    h = inp.dimensions[d]
    pref, other = {}, {}
    for i, (t, v) in enumerate(zip(inp.topics, h)):
        if v == 1:
            pref[t] = i
        elif v == 0:
            other[t] = i
    topics = sorted(set(pref) & set(other))
    return np.array([pref[t] for t in topics], dtype=np.int64), np.array([other[t] for t in topics], dtype=np.int64)


def ranking(d: str, inp: FactualityInputs, o: FactualityOptions, metrics: Sequence[str], h: np.ndarray,
             notes: list[tuple[str, str, str]]) -> tuple[list[list], list[list]]:
    p, q = preference_pairs(inp, d)
    if not p.size:
        notes.append(("ranking", d, "no judged pair"))
        return [], []
    def ranked(i: int) -> tuple:
        x = inp.metrics[metrics[i]]
        r = ranking_accuracy(x[p], x[q], o.confidence)
        return (r.pairs, r.correct, r.ties, r.incorrect, r.accuracy, r.lo, r.hi, r.accuracy_ties_half)

    pairs = list(combinations(metrics, 2))

    def tested(i: int) -> tuple:
        a, b = pairs[i]
        t = mcnemar_exact(inp.metrics[a][p], inp.metrics[a][q], inp.metrics[b][p], inp.metrics[b][q])
        return (t.pairs, t.a_only, t.b_only, t.p)

    # each metric's row and each pair's test are their own: the job's memo keeps them
    found = memo.records("ranking", ("ranking", d, p, q, o.confidence), metric_keys(inp, metrics), ranked)
    rows = [[d, mid, inp.sources[mid], *r] for mid, r in zip(metrics, found)]
    found = memo.records("mcnemar", ("mcnemar", d, p, q), pair_keys(inp, pairs), tested)
    tests = [[d, a, b, *r] for (a, b), r in zip(pairs, found)]
    return rows, tests


def interval_metrics(point: Mapping[str, float], inp: FactualityInputs, o: FactualityOptions) -> set[str]:
    """The metrics of a scope whose bootstrap intervals are computed: every one with
    ``factuality.interval_metrics: all``; else the ``interval_metrics`` best by the point estimate
    (highest first, ties by name), every file metric (the user's own) and the baselines
    (``o.baselines``, per-summary ids). The bootstrap is most of the job's time (about 70 % on
    SummEval), and an interval matters for the metrics a reader compares: the best, the baselines
    and their own."""
    if o.interval_metrics == "all":
        return set(point)
    ranked = sorted((k for k, v in point.items() if np.isfinite(v)), key=lambda k: (-point[k], k))
    return (set(ranked[:int(o.interval_metrics)]) | {k for k in point if inp.sources[k] == "file"}
            | (set(o.baselines) & set(point)))


def interval_note(notes: list, analysis: str, d: str, metrics: Sequence[str], o: FactualityOptions) -> None:
    """One note per protocol and dimension when some metrics have no interval."""
    if o.interval_metrics != "all" and o.bootstrap_samples > 0 and len(metrics) > int(o.interval_metrics):
        notes.append((analysis, d, f"bootstrap intervals for the {o.interval_metrics} best metrics of each scope, "
                                   "the file metrics and the baselines "
                                   f"({', '.join(o.baselines) or 'none'}); the others' are NA "
                                   "(factuality.interval_metrics: all gives every metric one)"))


def analysed(summary, o: FactualityOptions) -> bool:
    """Whether a judged summary is analysed: the summarizers correlation.summarizers
    names, as in every other analysis stage (the systems; with ``all`` the judged humans too)."""
    return summary.kind == "system" or o.summarizers == "all"


def with_covered(rows: list[list], kind: str, everything: FactualityInputs, d: str, kept: np.ndarray,
                 o: FactualityOptions) -> None:
    """Append to each of dimension ``d``'s protocol rows (``kind``: binary, partial or ranking) the
    metric's value on all it covers (n, value): its AUC in the row's subset, its partial r in the
    row's subset x split, its ranking accuracy, on every judged summary it scores, where the
    dimension's common ground (``kept``) left some out; else the row's own n and value. Reported
    beside, never ranked."""
    at = {"binary": (2, None, 3, 5, 7), "partial": (1, 2, 3, 5, 7), "ranking": (None, None, 1, 3, 7)}[kind]
    sub_at, split_at, metric_at, n_at, value_at = at
    if kept.all():
        for r in rows:
            r += [r[n_at], r[value_at]]
        return
    h = everything.dimensions[d]
    labels = labels_of(h, everything.kinds[d], o.proportion_cutoff) if kind == "binary" else None
    pairs = preference_pairs(everything, d) if kind == "ranking" else None
    for r in rows:
        x = everything.metrics[r[metric_at]]
        scope = np.isfinite(x)
        if sub_at is not None and r[sub_at] != ALL:
            scope &= everything.subsets == r[sub_at]
        if split_at is not None and r[split_at] != ALL:
            scope &= everything.splits == r[split_at]
        if kind == "binary":
            ok = scope & np.isfinite(labels)
            r += [int(ok.sum()), auc(x[ok], labels[ok])]
        elif kind == "partial":
            ok = scope & np.isfinite(h)
            pc = partial_correlation(x[ok], h[ok], everything.systems[ok]) if ok.any() else NAN_PARTIAL
            r += [pc.n, pc.pearson]
        else:
            acc = ranking_accuracy(x[pairs[0]], x[pairs[1]], o.confidence)
            r += [acc.pairs, acc.accuracy]


# The random floor of the protocols' leaderboard columns (metaeval.stats.floor), by the leaderboard's names
FLOOR_COLUMNS = ["dimension", "level", "subset", "statistic", "metric", "n", "permutations", "floor_mean", "floor_lo",
                 "floor_hi"]


def _best(rows: Sequence[Sequence], metric_at: int, value_at: int) -> str | None:
    """The metric of the rows with the highest finite value (the first of equals, in the rows' order)."""
    finite = [r for r in rows if np.isfinite(float(r[value_at]))]
    return str(max(finite, key=lambda r: float(r[value_at]))[metric_at]) if finite else None


def floors(inp: FactualityInputs, o: FactualityOptions, binary_rows: Sequence[Sequence], partial_rows: Sequence[Sequence],
           ranking_rows: Sequence[Sequence], means_rows: Sequence[Sequence], splits: tuple[np.ndarray, np.ndarray]
           ) -> list[list]:
    """The random floor of every protocol column the leaderboard shows, from the column's best metric:
    AUC (its scores permuted across the scope's labelled summaries; a column per subset), the balanced
    accuracy's mean over the subsets (``means_rows``, :func:`subset_means`; permuted within each
    subset across its validation and test summaries, ``splits``' masks, the threshold chosen anew on
    each draw's validation scores), the partial correlation on every summary (permuted within each system, the
    variable it controls for) and the ranking accuracy (each preference pair's two scores swapped or
    not)."""
    def row(d: str, level: str, subset: str, statistic: str, metric: str, n: int, f: Floor) -> list:
        return [d, level, subset, statistic, metric, n, f.permutations, f.mean, f.lo, f.hi]

    args = (o.floor_permutations, o.floor_seed, o.floor_confidence)
    out = []
    for d in inp.analysed:
        h = inp.dimensions[d]
        labels = labels_of(h, inp.kinds[d], o.proportion_cutoff)
        for sub in dict.fromkeys(r[2] for r in binary_rows if r[0] == d):
            best = _best([r for r in binary_rows if r[0] == d and r[2] == sub], 3, 7)
            if best is None or labels is None:
                continue
            x = inp.metrics[best]
            ok = np.isfinite(labels) & np.isfinite(x) & ((inp.subsets == sub) if sub != ALL else True)
            y = labels[ok]
            out.append(row(d, "auc", sub, "AUC", best, int(ok.sum()),
                           permutation_floor(per_row(lambda p, y=y: auc(p, y)), x[ok], None, *args)))
        best = _best([r for r in means_rows if r[0] == d], 2, 6)
        if best is not None and labels is not None:
            # the subsets the mean is over: those with a detection row (both labels present)
            subsets = [s for s in dict.fromkeys(r[2] for r in binary_rows if r[0] == d) if s != ALL]
            x, (validation, test) = inp.metrics[best], splits
            ok = (np.isfinite(labels) & np.isfinite(x) & np.isin(inp.subsets, subsets) & (validation | test))
            statistic = mean_held_out_balanced_accuracy(labels[ok], validation[ok], test[ok], inp.subsets[ok])
            out.append(row(d, "balanced_accuracy", MEAN, "balanced accuracy", best, int(ok.sum()),
                           permutation_floor(per_row(statistic), x[ok], inp.subsets[ok], *args)))
        best = _best([r for r in partial_rows if r[0] == d and r[1] == ALL and r[2] == ALL], 3, 7)
        if best is not None:
            # permuting a metric's scores within each system permutes its residuals (the system means
            # stay): each draw's partial r is the Pearson r of the permuted residuals and the human's
            rx, ry, codes, pearson_of = partial_residuals(inp.metrics[best], h, inp.systems)
            out.append(row(d, "partial", ALL, "partial r", best, int(rx.size),
                           permutation_floor(lambda r, ry=ry: pearson_of(r, ry), rx, codes, *args)))
        best = _best([r for r in ranking_rows if r[0] == d], 1, 7)
        if best is not None:
            p, q = preference_pairs(inp, d)
            x = inp.metrics[best]
            pairs = np.arange(p.size)
            out.append(row(d, "ranking", ALL, "accuracy", best, int(p.size),
                           permutation_floor(per_row(lambda v, n=p.size: ranking_accuracy_of(v, n)), np.r_[x[p], x[q]],
                                             np.r_[pairs, pairs], *args)))
    return out
