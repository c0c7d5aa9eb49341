"""Sweeps stage: how much do a metric's system rankings depend on which references and how much
text it sees?

* **Reference count** (Lin 2004 §5): the systems are scored against all references and against
  each single reference - one condition per human summarizer, named by its summarizer id
  (``ref0``, ``A``, ...), over the topics where that summarizer wrote a reference (the tables give
  the topics used). For every condition: the system scores and ranks, their correlation with the
  human scores, and the consistency of the rankings (Kendall tau-b between every pair of
  conditions).
* **Length / compression** (Pastra & Saggion 2003): every summary and reference truncated to a
  word limit (ROUGE-1.5.5's -l: the first N whitespace-separated words), either fixed (``w50``) or
  a share of the topic's source documents (``c10`` = 10 % of their words; only when the data set
  has documents). Per limit the same scores, ranks and correlations; Pastra & Saggion's
  aggregation ranks the systems by their average rank over the limits (one aggregate for the fixed
  limits, one for the compression rates), and Kendall tau-b compares every ranking with the others.

Only judged system summaries are ranked (a human summary cannot be scored against itself). The
variants are Graham's ids (ROUGE ``R2_ST1_RS0_A_R``, BLEU ``BLEU_ST1_RS0``); every condition is scored
with the same ROUGE-1.5.5 engine as the main scores (mode A, no jackknifing: with all references
the scores equal system_scores.tsv unless ``rouge.jackknife_systems`` is set).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .. import figures, tables
from ..data.datasets import Dataset, read_dataset
from ..metrics.bleu import corpus_statistics
from ..metrics.rouge import Task, encode, parse_measure, plan, score
from ..metrics.tokenize import (_TOKEN as TOKEN, ALPHABETICAL, NO_EXCEPTIONS, Tokenized, perl_split_ws, spl_lines,
                                stopwords, tokenize_summary)
from ..records import SweepOptions
from ..stats import core
from ..stats.correlation import kendall_tau_b, point_correlations
from ..variants import Variant
from .human import systems_by_combination
from .scoring import (TokenRecord, corpus_bleu_from_stats, expand_stats, flat_reference_sets, setting_from_tag,
                      topic_chunks)

ALL = "all"


@dataclass(frozen=True)
class Condition:
    """One scoring condition: ``name`` (all, a reference summarizer's id, w50, c10, ...), the
    reference summarizer (None = all references) and the word limit (fixed words, or a percentage
    of the source)."""

    name: str
    reference: str | None = None
    word_limit: int | None = None
    compression: float | None = None


def reference_conditions(ds: Dataset) -> list[Condition]:
    """All references, then every human summarizer's own references (named by its id; a
    summarizer literally named "all" is called "all (single reference)")."""
    ids = sorted({r.summarizer for t in ds.topics for r in ds.references(t)})
    return [Condition(ALL)] + [Condition(s if s != ALL else f"{ALL} (single reference)", reference=s) for s in ids]


def length_conditions(word_limits: Sequence[int], compression: Sequence[float], has_documents: bool) -> list[Condition]:
    out = [Condition(f"w{w}", word_limit=int(w)) for w in word_limits]
    if has_documents:
        out += [Condition(f"c{c:g}", compression=float(c)) for c in compression]
    return out


def source_words(ds: Dataset) -> dict[str, int]:
    """Whitespace-separated words of each topic's source documents."""
    return {t: sum(len(d.split()) for d in docs) for t, docs in (ds.documents or {}).items()}


class Tokens:
    """Tokenisation shared by the conditions of a sweep: each summary is tokenised once per setting
    (the conditions of a reference sweep all share it), stemmed with the exception files loaded in
    order ``exceptions``; a length limit's tokens are cut from it (:meth:`truncated`)."""

    def __init__(self, ds: Dataset, exceptions: tuple[str, ...] = ALPHABETICAL):
        self.ds = ds
        self.exceptions = exceptions
        self.systems: dict[str, list] = {}
        for s in ds.summaries:
            if s.kind == "system" and s.key in ds.judgments:
                self.systems.setdefault(s.topic, []).append(s)
        self._cache: dict[tuple, Tokenized] = {}
        self._words: dict[tuple, list[tuple[int, list[int]]]] = {}

    def __call__(self, summary, stem: int, stop: int, limit: int | None) -> Tokenized:
        if limit:
            return self.truncated(summary, stem, stop, limit)
        key = (summary.topic, summary.summarizer, stem, stop)
        if key not in self._cache:
            self._cache[key] = tokenize_summary(summary.sentences,
                                                setting_from_tag(stem, stop, exceptions=self.exceptions))
        return self._cache[key]

    def truncated(self, summary, stem: int, stop: int, limit: int) -> Tokenized:
        """:func:`tokenize_summary` under the word limit ``limit`` (ROUGE -l), cut from the whole
        summary's tokens: -l keeps whole lines while the running count of Perl ``split(/\\s+/)``
        fields stays below the limit and cuts the line that reaches it to its first fields, joined by
        spaces. No token spans white space and stop words and stemming go token by token, so the
        tokens of the cut line are those of its first fields: the line's first ``cum[k]`` tokens,
        ``cum[k]`` the number of tokens (stop words removed) of its first ``k`` fields."""
        full = self(summary, stem, stop, None)
        key = (summary.topic, summary.summarizer, stop)
        fields = self._words.get(key)
        if fields is None:
            fields = self._words[key] = field_token_counts(summary.sentences, bool(int(stop)))
        count = 0
        for i, (n, cum) in enumerate(fields):
            if count + n < limit:
                count += n
                continue
            sents = full.sentences[:i] + (full.sentences[i][:cum[limit - count]],)
            return Tokenized(tuple(t for snt in sents for t in snt), sents)
        return full


def field_token_counts(sentences: Sequence[str], remove_stopwords: bool) -> list[tuple[int, list[int]]]:
    """Per line of the summary as ROUGE reads it: its number of Perl ``split(/\\s+/)`` fields and
    the number of tokens of its first k fields, k = 0..fields (stop words removed if asked)."""
    stop = stopwords() if remove_stopwords else frozenset()
    out = []
    for line in spl_lines(sentences):
        cum = [0]
        for word in perl_split_ws(line):
            cum.append(cum[-1] + sum(1 for raw in TOKEN.findall(word) if raw.decode("ascii") not in stop))
        out.append((len(cum) - 1, cum))
    return out


def _records(ds: Dataset, cond: Condition, stem: int, stop: int, words: Mapping[str, int],
             tokens: Tokens | None = None, topics: Sequence[str] | None = None) -> list[TokenRecord]:
    """The judged system summaries and the condition's references, tokenized under its limit (of
    ``topics`` only, in the data set's order, if given)."""
    tokens = tokens or Tokens(ds)
    chosen = set(topics) if topics is not None else None
    out = []
    for topic in ds.topics:
        if chosen is not None and topic not in chosen:
            continue
        refs = ds.references(topic)
        if cond.reference is not None:
            refs = [r for r in refs if r.summarizer == cond.reference]
        if not refs:
            continue
        limit = cond.word_limit
        if cond.compression is not None:
            if topic not in words:
                continue
            limit = max(1, round(words[topic] * cond.compression / 100))
        for s in tokens.systems.get(topic, []):
            out.append(TokenRecord(topic, s.summarizer, s.kind, True, tokens(s, stem, stop, limit)))
        for r in refs:
            out.append(TokenRecord(topic, r.summarizer, "human", False, tokens(r, stem, stop, limit)))
    return out


def condition_scores(ds: Dataset, cond: Condition, variants: Sequence[str], alpha: float, mode: str,
                     words: Mapping[str, int], tokens: Tokens | None = None
                     ) -> tuple[dict[str, dict[str, float]], int]:
    """{variant: {system: score}} under one condition, and the number of topics it used."""
    scores, topics = sweep_scores(ds, [cond], variants, alpha, mode, words, tokens)
    return scores[cond.name], topics[cond.name]


def sweep_scores(ds: Dataset, conditions: Sequence[Condition], variants: Sequence[str], alpha: float, mode: str,
                 words: Mapping[str, int], tokens: Tokens | None = None
                 ) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, int]]:
    """{condition: {variant: {system: score}}} and {condition: topics used}: per preprocessing
    setting, the conditions are scored together, chunk of topics by chunk of topics, from one
    encoded corpus of the distinct tokenised summaries of every condition (the reference
    conditions share all their summaries; a summary shorter than a limit is the same under it as
    without), every (summary, reference) pair counted once for all the conditions it occurs in.

    Every score is as :func:`metaeval.stages.scoring.score_chunks` would give it for the condition
    alone: a row is a judged system summary against the condition's references of its topic (in
    summarizer order, no jackknifing), its P, R, F a function of the (peer, reference) pairs'
    statistics, which depend on the two token sequences only; rows keep their order within a
    condition."""
    tokens = tokens or Tokens(ds)
    parsed = {v: Variant.parse(v) for v in variants}
    out: dict[str, dict[str, dict[str, float]]] = {c.name: {v: {} for v in variants} for c in conditions}
    topics = {c.name: 0 for c in conditions}
    # distinct tokenisations of a summary over the conditions, at most: bounds a chunk's corpus
    shapes = len({(c.word_limit, c.compression) for c in conditions})
    sizes = Counter(s.topic for s in ds.summaries)
    sizes = {t: n * shapes for t, n in sizes.items()}
    for stem, stop in dict.fromkeys(p.setting for p in parsed.values()):
        mine = [v for v, p in parsed.items() if p.setting == (stem, stop)]
        measures = [parse_measure(m) for m in dict.fromkeys(parsed[v].measure for v in mine if parsed[v].family == "rouge")]
        bleu = any(parsed[v].family == "bleu" for v in mine)
        used: dict[str, set[str]] = {c.name: set() for c in conditions}
        rows: dict[str, list[tuple[str, str]]] = {c.name: [] for c in conditions}
        prf: dict[str, dict[str, list]] = {c.name: {m.id: [] for m in measures} for c in conditions}
        stats: dict[str, list] = {c.name: [] for c in conditions}
        for chunk in topic_chunks(list(ds.topics), sizes):
            index: dict[Tokenized, int] = {}
            summaries: list[Tokenized] = []
            peers: list[int] = []
            sets: list[list[list[int]]] = []
            owner: list[str] = []
            labels: list[tuple[str, str]] = []

            def at(t: Tokenized) -> int:
                i = index.get(t)
                if i is None:
                    i = index[t] = len(summaries)
                    summaries.append(t)
                return i

            for c in conditions:
                records = _records(ds, c, stem, stop, words, tokens, chunk)
                used[c.name].update(r.topic for r in records)
                refs: dict[str, list[TokenRecord]] = {}
                for r in records:
                    if r.kind == "human":
                        refs.setdefault(r.topic, []).append(r)
                ref_ids = {t: [at(r.tokenized) for r in sorted(rs, key=lambda r: r.summarizer)]
                           for t, rs in refs.items()}
                for r in records:
                    if r.judged:
                        peers.append(at(r.tokenized))
                        sets.append([ref_ids[r.topic]])
                        owner.append(c.name)
                        labels.append((r.topic, r.summarizer))
            if not peers:
                continue
            corpus = encode(summaries)
            task = Task(peers, sets)
            for c, row in zip(owner, labels):
                rows[c].append(row)
            if measures:
                pl = plan(task)
                for m in measures:
                    p, r, f = score(corpus, m, pl, alpha, mode)
                    for c, x in zip(owner, zip(p.tolist(), r.tolist(), f.tolist())):
                        prf[c][m.id].append(x)
            if bleu:
                matrix = corpus_statistics(corpus, *flat_reference_sets(task))
                for c, (t, who), st in zip(owner, labels, matrix.tolist()):
                    stats[c].append((t, who, 0, st))
        for c in conditions:
            topics[c.name] = len(used[c.name])
            if not used[c.name]:
                continue
            for v in mine:
                variant = parsed[v]
                if variant.family == "bleu":
                    out[c.name][v] = dict(corpus_bleu_from_stats(expand_stats(stats[c.name])))
                    continue
                k = "PRF".index(variant.prf)
                per: dict[str, list[float]] = {}
                for (_, summarizer), x in zip(rows[c.name], prf[c.name][variant.measure]):
                    per.setdefault(summarizer, []).append(x[k])
                out[c.name][v] = {s: (math.fsum(x) / len(x) if variant.statistic == "A" else statistics.median(x))
                                  for s, x in per.items()}
    return out, topics


def ranks(scores: Mapping[str, float]) -> dict[str, float]:
    """Rank 1 = best (highest score); ties share their average rank."""
    names = sorted(scores)
    r = core.ranks(-np.array([scores[s] for s in names], dtype=float))
    return {s: float(x) for s, x in zip(names, r)}


def kendall(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return math.nan
    x, y = [a[s] for s in common], [b[s] for s in common]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return kendall_tau_b(np.array(x, dtype=float), np.array(y, dtype=float))


@dataclass
class Sweep:
    """Scores of every condition; correlations with the human combinations; rank consistency."""

    conditions: list[Condition]
    topics: dict[str, int]
    scores: dict[str, dict[str, dict[str, float]]]        # condition -> variant -> system -> score
    aggregates: dict[str, dict[str, dict[str, float]]]    # aggregate name -> variant -> system -> mean rank


def run_sweep(ds: Dataset, conditions: Sequence[Condition], variants: Sequence[str], alpha: float, mode: str,
              aggregate: bool, log=None, tokens: Tokens | None = None) -> Sweep:
    """``tokens``: the tokenisation of ``ds`` to share with its other sweep (None: one of its own,
    with the alphabetical stemmer exceptions)."""
    words = source_words(ds)
    tokens = tokens if tokens is not None else Tokens(ds, ALPHABETICAL)
    scores, topics = sweep_scores(ds, conditions, variants, alpha, mode, words, tokens)
    if log:
        for cond in conditions:
            log.info("condition %s: %d topics", cond.name, topics[cond.name])
    aggregates: dict[str, dict[str, dict[str, float]]] = {}
    if aggregate:
        families = {"mean rank over word limits": [c.name for c in conditions if c.word_limit is not None],
                    "mean rank over compression rates": [c.name for c in conditions if c.compression is not None]}
        for name, members in families.items():
            if len(members) < 2:
                continue
            aggregates[name] = {}
            for v in variants:
                rk = [ranks(scores[m][v]) for m in members if scores[m][v]]
                systems = sorted(set.intersection(*(set(r) for r in rk))) if rk else []
                aggregates[name][v] = {s: math.fsum(r[s] for r in rk) / len(rk) for s in systems}
    return Sweep(list(conditions), topics, scores, aggregates)


# ----------------------------------------------------------------------------- tables

def _f3(x: float) -> str:
    return "NA" if math.isnan(x) else f"{x:.3f}"


def series(sw: Sweep) -> dict[str, dict[str, dict[str, float]]]:
    """{condition or aggregate: {variant: {system: score}}}, an aggregate's scores being its negated
    mean ranks (so that higher is better everywhere)."""
    out = {c.name: sw.scores[c.name] for c in sw.conditions}
    out.update({a: {v: {s: -r for s, r in per.items()} for v, per in vs.items()} for a, vs in sw.aggregates.items()})
    return out


def correlations(sw: Sweep, human: Mapping[str, Mapping[str, float]]) -> list[tuple[str, str, str, int, float, float, float]]:
    """(condition, variant, combination, n, pearson, spearman, kendall) for every condition and aggregate
    (an aggregate's scores are negated mean ranks, so higher is better)."""
    rows = []
    for name, per_variant in series(sw).items():
        for v, sc in per_variant.items():
            for comb, h in human.items():
                common = sorted(set(sc) & set(h))
                p, s, k, n = point_correlations(np.array([sc[x] for x in common], dtype=float),
                                                np.array([h[x] for x in common], dtype=float))
                rows.append((name, v, comb, n, p, s, k))
    return rows


def consistency(sw: Sweep) -> list[tuple[str, str, str, float]]:
    """(variant, condition a, condition b, Kendall tau-b) for every pair of conditions (and aggregates)."""
    every = series(sw)
    names = list(every)
    out = []
    for v in next(iter(sw.scores.values()), {}):
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                out.append((v, a, b, kendall(every[a][v], every[b][v])))
    return out


def write_sweep(sw: Sweep, human: Mapping[str, Mapping[str, float]], main: str, prefix: str, title: str,
                out: Mapping[str, str]) -> None:
    """The scores, correlations and consistency tables, the Markdown summary and the figure."""
    rows = []
    for c in sw.conditions:
        for v, sc in sw.scores[c.name].items():
            rk = ranks(sc) if sc else {}
            rows += [(c.name, sw.topics[c.name], v, s, sc[s], rk[s]) for s in sorted(sc)]
    for a, vs in sw.aggregates.items():
        for v, mr in vs.items():
            rk = ranks({s: -r for s, r in mr.items()}) if mr else {}
            rows += [(a, tables.NA, v, s, -mr[s], rk[s]) for s in sorted(mr)]
    tables.write_tsv(tables.frame(rows, ["condition", "topics", "variant", "summarizer", "score", "rank"]), out["scores"])
    corr = correlations(sw, human)
    tables.write_tsv(tables.frame(corr, ["condition", "variant", "combination", "n", "pearson", "spearman", "kendall"]),
                     out["correlations"])
    cons = consistency(sw)
    tables.write_tsv(tables.frame(cons, ["variant", "condition_a", "condition_b", "kendall"]), out["consistency"])
    _markdown_table(sw, corr, cons, main, prefix, title, out["markdown"])
    _figure(sw, corr, main, prefix, out["figure_png"], out["figure_svg"])


def _markdown_table(sw: Sweep, corr, cons, main: str, prefix: str, title: str, path: str) -> None:
    names = [c.name for c in sw.conditions] + list(sw.aggregates)
    r = {(a, v): p for a, v, c, n, p, s, k in corr if c == main}
    variants = list(next(iter(sw.scores.values()), {}))
    if prefix == "references":
        header = ["variant", "r (all refs)", "r single ref: mean", "min", "max", "tau(single, all): mean",
                  "tau(single, single): mean"]
        rows = []
        singles = [n for n in names if n != ALL]
        for v in variants:
            rs = [r[(n, v)] for n in singles if not math.isnan(r.get((n, v), math.nan))]
            t_all = [t for vv, a, b, t in cons if vv == v and a == ALL and not math.isnan(t)]
            t_ss = [t for vv, a, b, t in cons if vv == v and a != ALL and not math.isnan(t)]
            mean = lambda x: math.fsum(x) / len(x) if x else math.nan  # noqa: E731
            rows.append([v, _f3(r.get((ALL, v), math.nan)), _f3(mean(rs)), _f3(min(rs, default=math.nan)),
                         _f3(max(rs, default=math.nan)), _f3(mean(t_all)), _f3(mean(t_ss))])
        caption = (f"{title}: Pearson r with human scores ({main}) scoring the systems against all references and "
                   f"against each single reference ({len(singles)}), and Kendall tau-b between the system rankings.")
    else:
        header = ["variant", *(f"r {n}" for n in names), "tau(limits): mean"]
        rows = []
        for v in variants:
            ts = [t for vv, a, b, t in cons if vv == v and a in sw.scores and b in sw.scores and not math.isnan(t)]
            rows.append([v, *(_f3(r.get((n, v), math.nan)) for n in names),
                         _f3(math.fsum(ts) / len(ts) if ts else math.nan)])
        caption = (f"{title}: Pearson r with human scores ({main}) under each word limit (wN = first N words, "
                   "cP = P % of the source's words) and for the average-rank aggregation across limits (Pastra & "
                   "Saggion 2003); the last column is the mean Kendall tau-b between the rankings of the limits.")
    tables.write_markdown(path, caption, header, rows)


def _figure(sw: Sweep, corr, main: str, prefix: str, png: str, svg: str) -> None:
    plt = figures.pyplot()
    names = [c.name for c in sw.conditions] + list(sw.aggregates)
    labels = [n.replace("mean rank over word limits", "avg rank (w)").replace("mean rank over compression rates",
                                                                              "avg rank (c)") for n in names]
    r = {(a, v): p for a, v, c, n, p, s, k in corr if c == main}
    variants = list(next(iter(sw.scores.values()), {}))
    fig, ax = plt.subplots(figsize=(max(5.0, 0.55 * len(names) + 2), 3.6))
    for v in variants:
        ax.plot(range(len(names)), [r.get((n, v), math.nan) for n in names], marker="o", label=v)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(labels, rotation=45, ha="right")
    ax.set_ylabel(f"Pearson r ({main})")
    ax.set_xlabel("references" if prefix == "references" else "length limit")
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    figures.save(fig, png, svg)


def load(inputs: Mapping[str, str]) -> tuple[Dataset, str]:
    """The data set (its named files) and the path of system_human.tsv."""
    return read_dataset({k: v for k, v in inputs.items() if k != "system_human"}), inputs["system_human"]


def compute(ds: Dataset, system_human: str, prefix: str, options: SweepOptions, log=None,
            shared: dict | None = None) -> tuple[Sweep, dict[str, dict[str, float]], str, str]:
    """One sweep, ``references`` or ``lengths``: the sweep, the systems' human scores, the
    combination its summaries show, and its title. ``shared``: a dict kept between the two sweeps
    of ``ds`` (both tokenise the whole summaries; the lengths sweep cuts them)."""
    human = systems_by_combination(system_human)
    main = options.combination if options.combination in human else next(iter(human), options.combination)
    exceptions = options.stemmer_exceptions or NO_EXCEPTIONS     # None: no variant is stemmed
    key = ("tokens", exceptions)
    shared = {} if shared is None else shared
    if key not in shared:
        shared[key] = Tokens(ds, exceptions)
    tokens = shared[key]
    if prefix == "references":
        sw = run_sweep(ds, reference_conditions(ds), options.variants, options.alpha, options.multiple_references, False, log,
                       tokens)
        title = "Reference count (Lin 2004)"
    else:
        conditions = length_conditions(options.word_limits, options.compression, ds.documents is not None)
        sw = run_sweep(ds, conditions, options.variants, options.alpha, options.multiple_references, True, log, tokens)
        title = "Length and compression (Pastra & Saggion 2003)"
    return sw, human, main, title
