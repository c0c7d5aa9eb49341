"""chrF (Popović 2015) and chrF++ (Popović 2017) exactly as sacrebleu computes them, from
per-summary sufficient statistics.

**Text.** chrF is character-based and needs no tokeniser, so it is computed on the raw text - a
summary's sentences joined by a single space - not on ROUGE's tokens (no lowercasing, stemming,
stop-word removal or length limit: the ROUGE options do not apply).

**Definition** (sacrebleu 2.x ``CHRF`` with its defaults: ``char_order=6``, ``word_order=0``
(chrF) or ``2`` (chrF++), ``beta=2``, ``lowercase=False``, ``whitespace=False``,
``eps_smoothing=False``):

* n-grams: character n-grams of orders 1..char_order of the text with its whitespace removed
  (sacrebleu's public ``helpers.extract_all_char_ngrams``) and, for chrF++, word n-grams of orders
  1..word_order (``helpers.extract_word_ngrams``) of the whitespace-separated words, a word longer
  than one character having one punctuation character split off its end, or else its start
  (Popović's chrF++.py rule as sacrebleu applies it; :func:`words`);
* per order, against one reference: the hypothesis's n-gram count (0 when the reference has no
  n-gram of that order), the reference's, and the matched (clipped) count - :data:`STATS_PER_ORDER`;
* several references: per hypothesis the statistics of the reference with the best F (the first
  one on a tie);
* F from statistics (:func:`f_scores`): precision and recall averaged over the orders where both
  hypothesis and reference have n-grams ("effective order"), F_beta = (1 + beta^2) P R /
  (beta^2 P + R), times 100; 0 when P + R = 0;
* sentence chrF = F of the summary's statistics; corpus chrF = F of the summed statistics.

sacrebleu keeps these steps private (``CHRF._compute_f_score`` and others), so they are written
here, with the floating-point operations in sacrebleu's order; ``tests/test_chrf.py`` checks every
SummEval summary's sentence chrF and chrF++ and every system's corpus score against sacrebleu's
public ``sentence_score`` and ``corpus_score`` (11 references). Only the signature comes from a
``CHRF`` object. Scores are on sacrebleu's 0-100 scale.

**Many summaries at once** (:func:`corpus_statistics`): every text's n-grams are counted once; per
order the counts become a sparse (texts x n-grams) matrix H, and the matched count of a
(hypothesis h, reference r) pair is sum_g min(H[h, g], H[r, g]) = (|h| + |r| - ||H[h] - H[r]||_1) / 2,
one sparse subtraction for all pairs.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from typing import NamedTuple, Sequence

import numpy as np
from sacrebleu.metrics import CHRF
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

from ..variants import CHRF_METRICS

BETA = 2                                    # sacrebleu's default; recall weighted twice precision
CHAR_ORDER = 6                              # sacrebleu's default
WORD_ORDERS = {"CHRF": 0, "CHRF++": 2}      # chrF, chrF++ (Popović 2017)
STATS_PER_ORDER = ("hyp", "ref", "match")
# sacrebleu's punctuation for chrF++'s word split (string.punctuation)
PUNCTUATION = frozenset('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~')
PAIRS_PER_BATCH = 20_000                    # (hypothesis, reference) pairs per sparse batch: bounds memory


class ChrfSpec(NamedTuple):
    """One chrF variant: its id (``CHRF`` / ``CHRF++``) and sacrebleu's parameters."""

    name: str
    char_order: int = CHAR_ORDER
    whitespace: bool = False

    @property
    def word_order(self) -> int:
        return WORD_ORDERS[self.name]

    @property
    def orders(self) -> int:
        return self.char_order + self.word_order

    @property
    def statistics(self) -> tuple[str, ...]:
        """Column names of the statistics: ``hyp_c1, ref_c1, match_c1, ..., match_w2``."""
        return tuple(f"{s}_{kind}{n}" for kind, top in (("c", self.char_order), ("w", self.word_order))
                     for n in range(1, top + 1) for s in STATS_PER_ORDER)


def spec(name: str, char_order: int = CHAR_ORDER, whitespace: bool = False) -> ChrfSpec:
    if name not in CHRF_METRICS:
        raise ValueError(f"{name!r} is not a chrF variant; expected one of {CHRF_METRICS}")
    return ChrfSpec(name, char_order, whitespace)


def text_of(sentences: Sequence[str]) -> str:
    """The text chrF scores: the summary's sentences joined by a single space."""
    return " ".join(sentences)


@functools.lru_cache(maxsize=None)
def metric(s: ChrfSpec) -> CHRF:
    """sacrebleu's CHRF object of a variant (for the signature and the tests)."""
    return CHRF(char_order=s.char_order, word_order=s.word_order, beta=BETA, whitespace=s.whitespace)


def signature(s: ChrfSpec, per_summary: bool) -> str:
    """sacrebleu's signature of the corpus (system) or sentence (per-summary) score; ``nrefs``
    is named ``var`` at system level (topics may differ) and ``per-summary`` per summary."""
    m = metric(s)
    m.sentence_score("a", ["a"])  # sacrebleu's signature needs a scored call first
    return str(m.get_signature()).replace("nrefs:1", "nrefs:per-summary" if per_summary else "nrefs:var")


def words(text: str) -> list[str]:
    """chrF++'s words: whitespace-separated, a word of two or more characters with one punctuation
    character split off its end, or else off its start (sacrebleu's rule, from Popović's chrF++.py;
    '(hi)' gives '(hi' and ')')."""
    out: list[str] = []
    for w in text.split():
        if len(w) == 1:
            out.append(w)
        elif w[-1] in PUNCTUATION:
            out += [w[:-1], w[-1]]
        elif w[0] in PUNCTUATION:
            out += [w[0], w[1:]]
        else:
            out.append(w)
    return out


def ngram_counters(text: str, s: ChrfSpec) -> list[Counter]:
    """The n-gram counts of one text, one Counter per order (characters, then words)."""
    counters = extract_all_char_ngrams(text, s.char_order, s.whitespace)
    if s.word_order:
        tokens = words(text)
        counters += [extract_word_ngrams(tokens, n) for n in range(1, s.word_order + 1)]
    return counters


def f_scores(stats: np.ndarray, beta: int = BETA) -> np.ndarray:
    """chrF (0-100) of every row of ``stats`` (K, 3 x orders; per order hyp, ref, match counts),
    with sacrebleu's effective-order averaging and its floating-point operations in its order
    (orders summed one after the other), so the values equal its own."""
    stats = np.asarray(stats, dtype=np.int64).reshape(len(stats), -1, 3)
    hyp, ref, match = stats[..., 0], stats[..., 1], stats[..., 2]
    effective = (hyp > 0) & (ref > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(effective, match / np.where(hyp > 0, hyp, 1), 0.0)
        rec = np.where(effective, match / np.where(ref > 0, ref, 1), 0.0)
    avg_prec, avg_rec = np.zeros(len(stats)), np.zeros(len(stats))
    for i in range(stats.shape[1]):           # sequentially, as sacrebleu's loop (not numpy's pairwise sum)
        avg_prec += prec[:, i]
        avg_rec += rec[:, i]
    n = effective.sum(axis=1)
    avg_prec = np.where(n > 0, avg_prec / np.maximum(n, 1), 0.0)
    avg_rec = np.where(n > 0, avg_rec / np.maximum(n, 1), 0.0)
    factor = beta ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (1 + factor) * avg_prec * avg_rec
        score = score / ((factor * avg_prec) + avg_rec)
    return np.where(avg_prec + avg_rec != 0, 100 * score, 0.0)


def chrf_from_counts(counts: Sequence[int]) -> float:
    """chrF (0-100) from one row of (summed) statistics: the corpus chrF of the summaries whose
    statistics were summed, or a summary's sentence chrF."""
    return float(f_scores(np.asarray([counts]))[0])


def _count_matrix(counters: Sequence[Counter]):
    """A sparse (texts x distinct n-grams) count matrix of one order (n-grams numbered by pandas'
    hash table: a Python loop over millions of n-grams is the slow part otherwise)."""
    import pandas as pd
    from scipy import sparse

    lengths = np.fromiter((len(c) for c in counters), dtype=np.int64, count=len(counters))
    keys = list(itertools.chain.from_iterable(counters))
    values = np.fromiter(itertools.chain.from_iterable(c.values() for c in counters), dtype=np.int64,
                         count=len(keys))
    cols, uniques = pd.factorize(np.array(keys, dtype=object)) if keys else (np.zeros(0, dtype=np.int64), [])
    rows = np.repeat(np.arange(len(counters)), lengths)
    return sparse.csr_matrix((values, (rows, cols)), shape=(len(counters), max(1, len(uniques))))


def pair_statistics(texts: Sequence[str], hyps: np.ndarray, refs: np.ndarray, s: ChrfSpec) -> np.ndarray:
    """(K, 3 x orders) int64 statistics of text ``hyps[k]`` against the single reference text
    ``refs[k]``. A variant with fewer word orders (chrF beside chrF++) has the first columns."""
    counters = [ngram_counters(t, s) for t in texts]
    out = np.zeros((len(hyps), s.orders, 3), dtype=np.int64)
    for o in range(s.orders):
        h = _count_matrix([c[o] for c in counters])
        totals = np.asarray(h.sum(axis=1)).ravel().astype(np.int64)
        for start in range(0, len(hyps), PAIRS_PER_BATCH):
            a, b = hyps[start:start + PAIRS_PER_BATCH], refs[start:start + PAIRS_PER_BATCH]
            l1 = np.asarray(abs(h[a] - h[b]).sum(axis=1)).ravel().astype(np.int64)
            ref_total = totals[b]
            out[start:start + len(a), o, 0] = np.where(ref_total > 0, totals[a], 0)
            out[start:start + len(a), o, 1] = ref_total
            out[start:start + len(a), o, 2] = (totals[a] + ref_total - l1) // 2
    return out.reshape(len(hyps), -1)


def corpus_statistics(texts: Sequence[str], peers: Sequence[int], reference_sets: Sequence[Sequence[int]],
                      specs: Sequence[ChrfSpec]) -> dict[str, np.ndarray]:
    """Per variant (by name), the (K, 3 x orders) int64 statistics of text ``peers[k]`` against the
    references ``reference_sets[k]`` (indices into ``texts``): those of the reference with the
    best F, the first on a tie (sacrebleu's rule). The variants share char_order and whitespace;
    each (peer, reference) pair is counted once, with the most word orders any variant has."""
    if len({(s.char_order, s.whitespace) for s in specs}) > 1:
        raise ValueError("the chrF variants scored together must share char_order and whitespace")
    sizes = np.array([len(rs) for rs in reference_sets], dtype=np.int64)
    if (sizes == 0).any():
        raise ValueError("every hypothesis needs at least one reference")
    pair_index: dict[tuple[int, int], int] = {}
    flat = np.array([pair_index.setdefault((p, r), len(pair_index)) for p, rs in zip(peers, reference_sets)
                     for r in rs], dtype=np.int64)
    pairs = np.array(list(pair_index), dtype=np.int64).reshape(-1, 2)
    widest = max(specs, key=lambda s: s.orders)
    stats = pair_statistics(texts, pairs[:, 0], pairs[:, 1], widest)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    out = {}
    for s in specs:
        mine = stats[:, :3 * s.orders]
        f = f_scores(mine)[flat] if len(flat) else np.zeros(0)
        if not len(f):
            out[s.name] = np.zeros((0, 3 * s.orders), dtype=np.int64)
            continue
        best = np.repeat(np.maximum.reduceat(f, starts), sizes)
        position = np.where(f == best, np.arange(len(f)), len(f))
        first = np.minimum.reduceat(position, starts)          # the first reference with the best F
        out[s.name] = mine[flat[first]]
    return out
