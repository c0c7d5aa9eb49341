"""ROUGE exactly as ROUGE-1.5.5 computes it (Lin 2004), vectorised and compiled.

Measures (Graham's 2015 ids): ``R1``..``R9`` (ROUGE-N), ``RL`` (summary-level union LCS with
1.5.5's clipping against double counting), ``RW`` (weighted LCS, weight 1.2 by default),
``RS<d>``/``RSU<d>`` (skip-bigrams with at most ``d`` words between, without/with unigrams;
``RS*``/``RSU*`` unlimited).

What 1.5.5 does, and so what this module does (see ``tokenize`` for preprocessing):

* ROUGE-N and ROUGE-S/SU count grams over the whole summary (sentences joined); L and W work
  sentence by sentence. Hits are clipped per reference: ``min(count in peer, count in model)``.
* ROUGE-SU adds the unigram of every position *but the last* (1.5.5's loop), so a one-token
  summary has no SU grams.
* ROUGE-L: for each model sentence, the union of the LCS positions against every peer sentence
  (LCS traced back preferring the diagonal, then "up" on ties); a marked model token counts only
  while both its model and peer unigram counts are left, which are then decremented.
  Recall base = model tokens, precision base = peer tokens.
* ROUGE-W: the same with weighted LCS ``f(k) = k ** w``; a run of consecutive hits of length
  ``k`` adds ``f(k)``. 1.5.5's bases are ``f(sum over sentences of f(sentence length))`` for recall
  and ``f(peer tokens)`` for precision, and the score is ``f^-1(hits / base)``.
* Several references, ``-f A``: hits and counts are summed over the references; ``-f B``: the
  counts of the reference with the best recall (for N and S the recall rounded to 5 decimals;
  ties keep the earlier reference in summarizer order).
* R and P are rounded to 5 decimals (Perl ``%7.5f``) and F is computed from the *rounded* values:
  ``F = P R / ((1 - alpha) P + alpha R)``, then rounded. A summary with no tokens scores 0.
* Where 1.5.5 dies (ROUGE-W against a reference with no tokens: division by zero) we score 0.

Jackknifing: a judged human summary is scored against the other references of its topic; with
``jackknife_systems`` every system summary is scored against each of the M leave-one-out
reference sets and P, R, F are averaged over them (DUC/TAC practice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numba
import numpy as np

from ..variants import is_measure
from .tokenize import Tokenized


@dataclass(frozen=True)
class Measure:
    """A ROUGE measure: kind is 'N', 'L', 'W' or 'S'."""

    id: str
    kind: str
    n: int = 0
    skip: int = -1          # skip distance, -1 = unlimited
    unigrams: bool = False  # ROUGE-SU
    weight: float = 1.2     # ROUGE-W


def parse_measure(measure_id: str, wlcs_weight: float = 1.2) -> Measure:
    """A measure from its id (:data:`metaeval.variants.MEASURE_PATTERN`)."""
    if not is_measure(measure_id):
        raise ValueError(f"unknown ROUGE measure {measure_id!r}; expected R1..R9, RL, RW, RS<d>, RSU<d>, RS* or RSU*")
    if measure_id == "RL":
        return Measure(measure_id, "L")
    if measure_id == "RW":
        return Measure(measure_id, "W", weight=float(wlcs_weight))
    if measure_id[1].isdigit():
        return Measure(measure_id, "N", n=int(measure_id[1]))
    unigrams = measure_id.startswith("RSU")
    distance = measure_id[3:] if unigrams else measure_id[2:]
    return Measure(measure_id, "S", skip=-1 if distance == "*" else int(distance), unigrams=unigrams)


# ----------------------------------------------------------------------------- corpus encoding

@dataclass
class Corpus:
    """Token ids of many summaries: lumped tokens and sentences, in CSR form."""

    vocab_size: int
    lump_tok: np.ndarray   # int64, concatenated lumped tokens
    lump_off: np.ndarray   # int64, n_summaries + 1
    sent_tok: np.ndarray   # int64, concatenated sentence tokens
    sent_off: np.ndarray   # int64, n_sentences + 1
    summ_sent: np.ndarray  # int64, n_summaries + 1: each summary's sentence range
    grams: dict = field(default_factory=dict, repr=False, compare=False)   # n -> GramCounts, computed once

    @property
    def size(self) -> int:
        return len(self.lump_off) - 1


def encode(summaries: Sequence[Tokenized]) -> Corpus:
    vocab: dict[str, int] = {}
    lump: list[int] = []
    lump_off = [0]
    sent: list[int] = []
    sent_off = [0]
    summ_sent = [0]
    get = vocab.setdefault
    for s in summaries:
        lump.extend(get(t, len(vocab)) for t in s.tokens)
        lump_off.append(len(lump))
        for snt in s.sentences:
            sent.extend(get(t, len(vocab)) for t in snt)
            sent_off.append(len(sent))
        summ_sent.append(len(sent_off) - 1)
    as64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return Corpus(len(vocab), as64(lump), as64(lump_off), as64(sent), as64(sent_off), as64(summ_sent))


def _dense(keys: np.ndarray) -> np.ndarray:
    """Dense ids 0..k-1 for int64 keys."""
    if len(keys) == 0:
        return keys.astype(np.int64)
    return np.unique(keys, return_inverse=True)[1].astype(np.int64).ravel()


@dataclass
class GramCounts:
    """Per summary, its distinct grams (sorted ids) and their counts, plus its total gram count."""

    ids: np.ndarray
    counts: np.ndarray
    off: np.ndarray
    total: np.ndarray


def _positions(corpus: Corpus) -> tuple[np.ndarray, np.ndarray]:
    """Summary index and position-in-summary of every lumped token."""
    lengths = np.diff(corpus.lump_off)
    owner = np.repeat(np.arange(corpus.size, dtype=np.int64), lengths)
    pos = np.arange(len(corpus.lump_tok), dtype=np.int64) - corpus.lump_off[owner]
    return owner, pos


def _count(owner: np.ndarray, gram: np.ndarray, n_summaries: int) -> GramCounts:
    if len(gram) == 0:
        z = np.zeros(0, dtype=np.int64)
        return GramCounts(z, z, np.zeros(n_summaries + 1, dtype=np.int64), np.zeros(n_summaries, dtype=np.int64))
    n_grams = int(gram.max()) + 1
    key = owner * n_grams + gram
    uniq, counts = np.unique(key, return_counts=True)
    ids = uniq % n_grams
    where = uniq // n_grams
    off = np.searchsorted(where, np.arange(n_summaries + 1), side="left").astype(np.int64)
    total = np.bincount(owner, minlength=n_summaries).astype(np.int64)
    return GramCounts(ids.astype(np.int64), counts.astype(np.int64), off, total)


def ngram_counts(corpus: Corpus, n: int) -> GramCounts:
    """ROUGE-N grams of every summary (1.5.5's createNGram on the lumped text); counted once per
    corpus (BLEU's statistics reuse them)."""
    if n not in corpus.grams:
        corpus.grams[n] = _ngram_counts(corpus, n)
    return corpus.grams[n]


def _ngram_counts(corpus: Corpus, n: int) -> GramCounts:
    owner, pos = _positions(corpus)
    lengths = np.diff(corpus.lump_off)
    tok = corpus.lump_tok
    v = max(corpus.vocab_size, 1)
    gram = tok.copy()                      # dense id of the k-gram starting at each position
    starts = np.ones(len(tok), dtype=bool)  # positions where a k-gram fits inside the summary
    for k in range(1, n):
        starts &= (pos + k) < lengths[owner]
        idx = np.flatnonzero(starts)
        longer = np.full(len(tok), -1, dtype=np.int64)
        longer[idx] = _dense(gram[idx] * v + tok[idx + k])
        gram = longer
    return _count(owner[starts], gram[starts], corpus.size)


def skip_bigram_counts(corpus: Corpus, skip: int, unigrams: bool) -> GramCounts:
    """ROUGE-S / SU grams (1.5.5's createSkipBigram): pairs (i, j), i < j <= i + skip + 1."""
    owner, pos = _positions(corpus)
    lengths = np.diff(corpus.lump_off)
    tok = corpus.lump_tok
    v = max(corpus.vocab_size, 1)
    max_gap = (int(lengths.max()) - 1 if len(lengths) and lengths.max() > 1 else 0) if skip < 0 else skip + 1
    owners, keys = [], []
    for g in range(1, max_gap + 1):
        valid = np.flatnonzero((pos + g) < lengths[owner])
        owners.append(owner[valid])
        keys.append(v + tok[valid] * v + tok[valid + g])  # pair keys live above the unigram range
    if unigrams:
        valid = np.flatnonzero((pos + 1) < lengths[owner])  # every position but the last
        owners.append(owner[valid])
        keys.append(tok[valid])
    if not keys:
        return _count(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), corpus.size)
    own = np.concatenate(owners)
    key = np.concatenate(keys)
    # one sort instead of two where (summary, raw key) fits in an int64
    fits = (v + v * v) * (corpus.size + 1) < 2 ** 62
    return _count(own, key if fits else _dense(key), corpus.size)


# ----------------------------------------------------------------------------- compiled kernels

@numba.njit(cache=True)
def _clipped_hits(ids, counts, off, peers, models, out):  # pragma: no cover - compiled
    for k in range(len(peers)):
        a, a1 = off[peers[k]], off[peers[k] + 1]
        b, b1 = off[models[k]], off[models[k] + 1]
        h = 0
        while a < a1 and b < b1:
            if ids[a] == ids[b]:
                h += min(counts[a], counts[b])
                a += 1
                b += 1
            elif ids[a] < ids[b]:
                a += 1
            else:
                b += 1
        out[k] = h


@numba.njit(cache=True)
def clipped_max_matches(ids, counts, off, peers, refs, refs_off, best, out):  # pragma: no cover - compiled
    """BLEU's clipping (:func:`metaeval.metrics.bleu.corpus_statistics`): for reference set k, the
    sum over the peer's n-grams of min(peer count, largest count in any one of the set's
    references). ``best`` is scratch space at least as long as any peer's grams."""
    for k in range(len(peers)):
        a0, a1 = off[peers[k]], off[peers[k] + 1]
        for i in range(a1 - a0):
            best[i] = 0
        for r in range(refs_off[k], refs_off[k + 1]):
            a, b, b1 = a0, off[refs[r]], off[refs[r] + 1]
            while a < a1 and b < b1:
                if ids[a] == ids[b]:
                    if counts[b] > best[a - a0]:
                        best[a - a0] = counts[b]
                    a += 1
                    b += 1
                elif ids[a] < ids[b]:
                    a += 1
                else:
                    b += 1
        total = 0
        for i in range(a1 - a0):
            total += min(counts[a0 + i], best[i])
        out[k] = total


@numba.njit(cache=True)
def _lcs_pairs(lump_tok, lump_off, sent_tok, sent_off, summ_sent, vocab_size, peers, models,
               weighted, weight, hits, bases):  # pragma: no cover - compiled
    mcount = np.zeros(vocab_size + 1, dtype=np.int64)
    pcount = np.zeros(vocab_size + 1, dtype=np.int64)
    maxlen = 1
    for s in range(len(sent_off) - 1):
        maxlen = max(maxlen, sent_off[s + 1] - sent_off[s])
    c = np.zeros((maxlen + 1, maxlen + 1), dtype=np.float64)
    run = np.zeros((maxlen + 1, maxlen + 1), dtype=np.int64)
    move = np.zeros((maxlen + 1, maxlen + 1), dtype=np.int8)  # 1 diagonal, 2 up, 3 left
    mask = np.zeros(maxlen + 1, dtype=np.int8)
    for k in range(len(peers)):
        p = peers[k]
        m = models[k]
        for i in range(lump_off[m], lump_off[m + 1]):
            mcount[lump_tok[i]] += 1
        for i in range(lump_off[p], lump_off[p + 1]):
            pcount[lump_tok[i]] += 1
        hit = 0.0
        base = 0.0
        for ms in range(summ_sent[m], summ_sent[m + 1]):
            m0 = sent_off[ms]
            mlen = sent_off[ms + 1] - m0
            if weighted:
                base += float(mlen) ** weight
            else:
                base += mlen
            for j in range(mlen):
                mask[j] = 0
            if mlen > 0:
                for ps in range(summ_sent[p], summ_sent[p + 1]):
                    p0 = sent_off[ps]
                    plen = sent_off[ps + 1] - p0
                    for i in range(1, mlen + 1):
                        ti = sent_tok[m0 + i - 1]
                        for j in range(1, plen + 1):
                            if ti == sent_tok[p0 + j - 1]:
                                if weighted:
                                    r = run[i - 1, j - 1]
                                    # (c + f(r+1)) - f(r), in 1.5.5's order of operations
                                    c[i, j] = c[i - 1, j - 1] + float(r + 1) ** weight - float(r) ** weight
                                    run[i, j] = r + 1
                                else:
                                    c[i, j] = c[i - 1, j - 1] + 1.0
                                move[i, j] = 1
                            elif c[i - 1, j] >= c[i, j - 1]:
                                c[i, j] = c[i - 1, j]
                                run[i, j] = 0
                                move[i, j] = 2
                            else:
                                c[i, j] = c[i, j - 1]
                                run[i, j] = 0
                                move[i, j] = 3
                    i = mlen
                    j = plen
                    while i != 0 and j != 0:
                        mv = move[i, j]
                        if mv == 1:
                            i -= 1
                            j -= 1
                            mask[i] = 1
                        elif mv == 2:
                            i -= 1
                        else:
                            j -= 1
            run_len = 0
            for j in range(mlen):
                if mask[j] == 1:
                    t = sent_tok[m0 + j]
                    if mcount[t] > 0 and pcount[t] > 0:
                        if weighted:
                            run_len += 1
                            if (j + 1 < mlen and mask[j + 1] == 0) or j + 1 == mlen:
                                hit += float(run_len) ** weight
                                run_len = 0
                        else:
                            hit += 1.0
                        mcount[t] -= 1
                        pcount[t] -= 1
        for i in range(lump_off[m], lump_off[m + 1]):
            mcount[lump_tok[i]] = 0
        for i in range(lump_off[p], lump_off[p + 1]):
            pcount[lump_tok[i]] = 0
        hits[k] = hit
        bases[k] = base


@numba.njit(cache=True)
def _aggregate(set_pairs, set_off, hit, mcnt, pcnt, bscore, best_mode, weighted, weight,
               tot_hit, tot_m, tot_p):  # pragma: no cover - compiled
    """Hits and counts of every reference set, as 1.5.5 accumulates them (in reference order)."""
    for s in range(len(set_off) - 1):
        th = 0.0
        tm = 0.0
        tp = 0.0
        best = -1.0
        for q in range(set_off[s], set_off[s + 1]):
            k = set_pairs[q]
            mc = mcnt[k] ** weight if weighted else mcnt[k]
            pc = pcnt[k] ** weight if weighted else pcnt[k]
            if best_mode:
                if bscore[k] > best:
                    best = bscore[k]
                    th = hit[k]
                    tm = mc
                    tp = pc
            else:
                th += hit[k]
                tm += mc
                tp += pc
        tot_hit[s] = th
        tot_m[s] = tm
        tot_p[s] = tp


# ----------------------------------------------------------------------------- rounding and F

def round5(x: np.ndarray) -> np.ndarray:
    """Round to 5 decimals exactly as Perl's ``sprintf("%7.5f")`` (correct rounding of the binary
    value, ties to even), then back to the nearest double, as Perl re-reads the string."""
    x = np.asarray(x, dtype=np.float64)
    y = x * 1e5
    out = np.floor(y + 0.5) / 1e5
    near = np.abs((y - np.floor(y)) - 0.5) < 1e-6  # too close to a tie for the fast path
    for i in np.flatnonzero(near):
        out.flat[i] = round(float(x.flat[i]), 5)
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    ok = den != 0
    out[ok] = num[ok] / den[ok]
    return out


def f_measure(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """1.5.5's F from the rounded P and R: P R / ((1 - alpha) P + alpha R), rounded; 0 if the
    denominator is not positive."""
    den = (1 - alpha) * p + alpha * r
    out = np.zeros_like(p)
    ok = den > 0
    out[ok] = (p[ok] * r[ok]) / den[ok]
    return round5(out)


# ----------------------------------------------------------------------------- scoring

@dataclass
class Task:
    """What to score: for every output row (a peer summary), one or more reference sets, each a
    list of model summaries in reference order. Indices refer to one :class:`Corpus`."""

    peers: list[int]                       # corpus index of each output row's peer
    reference_sets: list[list[list[int]]]  # per row: reference sets (lists of model corpus indices)


@dataclass
class Plan:
    """A task flattened into arrays: the distinct (peer, model) pairs and the reference sets."""

    pair_peers: np.ndarray
    pair_models: np.ndarray
    set_pairs: np.ndarray
    set_off: np.ndarray
    row_of_set: np.ndarray
    n_rows: int


def plan(task: Task) -> Plan:
    pair_index: dict[tuple[int, int], int] = {}
    set_pairs: list[int] = []
    set_off = [0]
    row_of_set: list[int] = []
    for row, (peer, sets) in enumerate(zip(task.peers, task.reference_sets)):
        for refs in sets:
            for mdl in refs:
                set_pairs.append(pair_index.setdefault((peer, mdl), len(pair_index)))
            set_off.append(len(set_pairs))
            row_of_set.append(row)
    pairs = np.array(list(pair_index), dtype=np.int64).reshape(-1, 2)
    i64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
    return Plan(pairs[:, 0].copy(), pairs[:, 1].copy(), i64(set_pairs), i64(set_off), i64(row_of_set),
                len(task.peers))


def pair_statistics(corpus: Corpus, measure: Measure, peers: np.ndarray, models: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (peer, model) pair: hits, model count (or LCS base) and peer count."""
    hits = np.zeros(len(peers), dtype=np.float64)
    if measure.kind in ("N", "S"):
        grams = ngram_counts(corpus, measure.n) if measure.kind == "N" else \
            skip_bigram_counts(corpus, measure.skip, measure.unigrams)
        h = np.zeros(len(peers), dtype=np.int64)
        _clipped_hits(grams.ids, grams.counts, grams.off, peers, models, h)
        return h.astype(np.float64), grams.total[models].astype(np.float64), grams.total[peers].astype(np.float64)
    bases = np.zeros(len(peers), dtype=np.float64)
    _lcs_pairs(corpus.lump_tok, corpus.lump_off, corpus.sent_tok, corpus.sent_off, corpus.summ_sent,
               corpus.vocab_size, peers, models, measure.kind == "W", float(measure.weight), hits, bases)
    peer_tokens = np.diff(corpus.lump_off)[peers].astype(np.float64)
    return hits, bases, peer_tokens


def score(corpus: Corpus, measure: Measure, task: Task | Plan, alpha: float = 0.5, mode: str = "A"
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, R, F of every output row of ``task`` (averaged over its reference sets)."""
    if mode not in ("A", "B"):
        raise ValueError(f"multiple-reference mode {mode!r}; expected 'A' or 'B'")
    pl = task if isinstance(task, Plan) else plan(task)
    hit, mcnt, pcnt = pair_statistics(corpus, measure, pl.pair_peers, pl.pair_models)
    weighted = measure.kind == "W"
    w = measure.weight
    if measure.kind in ("N", "S"):
        bscore = round5(_ratio(hit, mcnt))
    elif weighted:
        bscore = _ratio(hit, mcnt) ** (1 / w)
    else:
        bscore = _ratio(hit, mcnt)
    n_sets = len(pl.set_off) - 1
    th, tm, tp = (np.zeros(n_sets) for _ in range(3))
    _aggregate(pl.set_pairs, pl.set_off, hit, mcnt, pcnt, bscore, mode == "B", weighted, float(w), th, tm, tp)
    if weighted:
        r = round5(_ratio(th, tm) ** (1 / w))
        p = round5(_ratio(th, tp) ** (1 / w))
    else:
        r = round5(_ratio(th, tm))
        p = round5(_ratio(th, tp))
    f = f_measure(p, r, alpha)
    per_row = np.bincount(pl.row_of_set, minlength=pl.n_rows).astype(np.float64)
    if np.all(per_row == 1):
        return p, r, f
    avg = lambda v: np.bincount(pl.row_of_set, weights=v, minlength=pl.n_rows) / per_row  # noqa: E731
    return avg(p), avg(r), avg(f)


def reference_sets(references: Sequence[int], peer: int | None, jackknife: bool) -> list[list[int]]:
    """The reference sets a peer is scored against: all references, or (``peer`` is one of them)
    the others, or with ``jackknife`` each of the M leave-one-out sets."""
    refs = [r for r in references if r != peer]
    if peer is not None and peer in references:
        return [refs]
    if jackknife and len(refs) > 1:
        return [refs[:i] + refs[i + 1:] for i in range(len(refs))]
    return [refs]


def rouge_single(peer: Tokenized, models: Sequence[Tokenized], measure: Measure, alpha: float = 0.5,
                 mode: str = "A") -> tuple[float, float, float]:
    """P, R, F of one peer against its models: a convenience for small cases and tests."""
    corpus = encode([peer, *models])
    task = Task([0], [[list(range(1, len(models) + 1))]])
    p, r, f = score(corpus, measure, task, alpha, mode)
    return float(p[0]), float(r[0]), float(f[0])
