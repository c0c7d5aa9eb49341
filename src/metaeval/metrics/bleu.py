"""BLEU through sacrebleu's public API, on ROUGE-preprocessed text.

System level: one corpus per summarizer (all its summaries; each summary's references as multiple
references; topics may have different numbers of references) scored with
``BLEU(lowercase=True, tokenize='none', smooth_method='none', max_ngram_order=4,
effective_order=False, force=True)``, which equals Moses ``multi-bleu.perl -lc`` on the same
tokenised text (tests/test_bleu.py holds values multi-bleu.perl printed).

Corpus BLEU is a function of the summed *sufficient statistics* of its sentences (hypothesis
length, closest reference length, matched and total n-grams of orders 1-4), so the workflow keeps
every summary's statistics and computes any corpus BLEU - a summarizer's, a shard's sum, a
bootstrap sample's - with sacrebleu's ``BLEU.compute_bleu`` (:func:`bleu_from_statistics`). The
smoothed per-summary BLEU (``exp`` by default, effective order) for per-topic analyses comes from
the same statistics and the same function. Scores are on sacrebleu's 0-100 scale.

The statistics of many summaries at once (:func:`corpus_statistics`) come from the ROUGE engine's
n-gram counts (:mod:`metaeval.metrics.rouge`), computed as sacrebleu defines them: a hypothesis
n-gram matches up to its largest count in any one reference, the reference length is the one
closest to the hypothesis length (the shorter on a tie), and the totals are the hypothesis's
n-gram counts; ``tests/test_bleu.py`` checks every statistic against sacrebleu's own on SummEval.
:func:`summary_statistics` asks sacrebleu itself, for one summary.
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import numpy as np
from sacrebleu.metrics import BLEU

MAX_ORDER = 4
CORPUS_OPTIONS = dict(lowercase=True, tokenize="none", smooth_method="none", max_ngram_order=MAX_ORDER,
                      effective_order=False, force=True)
# [hyp_len, ref_len, correct_1..4, total_1..4]
STATISTICS = ("hyp_len", "ref_len", *(f"correct_{n}" for n in range(1, MAX_ORDER + 1)),
              *(f"total_{n}" for n in range(1, MAX_ORDER + 1)))


@functools.lru_cache(maxsize=None)
def corpus_metric() -> BLEU:
    return BLEU(**CORPUS_OPTIONS)


@functools.lru_cache(maxsize=None)
def sentence_metric(smoothing: str = "exp") -> BLEU:
    return BLEU(lowercase=True, tokenize="none", smooth_method=smoothing, max_ngram_order=MAX_ORDER,
                effective_order=True, force=True)


def reference_streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """Per-hypothesis reference lists -> sacrebleu's reference streams, padded with None where a
    hypothesis has fewer references (sacrebleu drops None, so each keeps exactly its own)."""
    width = max((len(r) for r in references), default=0)
    return [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0-100) of hypotheses, each with its own list of references."""
    return corpus_bleu_signed(hypotheses, references)[0]


def corpus_bleu_signed(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> tuple[float, str]:
    """Corpus BLEU and sacrebleu's signature of that computation (it names the number of
    references, ``nrefs:var`` where it varies)."""
    metric = corpus_metric()
    score = metric.corpus_score(list(hypotheses), reference_streams(references)).score if hypotheses else 0.0
    return float(score), str(metric.get_signature())


def sentence_signature(smoothing: str = "exp") -> str:
    metric = sentence_metric(smoothing)
    metric.sentence_score("a", ["a"])  # sacrebleu's signature needs a scored call first
    return str(metric.get_signature()).replace("nrefs:1", "nrefs:per-summary")


def sentence_bleu(hypothesis: str, references: Sequence[str], smoothing: str = "exp") -> float:
    """Smoothed sentence BLEU (0-100) of one summary against its references (sacrebleu's
    ``sentence_score``)."""
    return float(sentence_metric(smoothing).sentence_score(hypothesis, list(references)).score)


def summary_statistics(hypothesis: str, references: Sequence[str]) -> list[int]:
    """The sufficient statistics of one summary against its references (:data:`STATISTICS`):
    sacrebleu's corpus score of a one-summary corpus exposes them."""
    s = corpus_metric().corpus_score([hypothesis], [[r] for r in references])
    return [int(s.sys_len), int(s.ref_len), *map(int, s.counts), *map(int, s.totals)]


def bleu_from_statistics(stats: Sequence[float], smoothing: str = "none") -> float:
    """BLEU (0-100) from (summed) sufficient statistics, by sacrebleu's ``BLEU.compute_bleu``:
    unsmoothed, all four orders - the corpus BLEU of the sentences whose statistics were summed -
    or, with ``smoothing``, the smoothed sentence BLEU with effective order (equal to sacrebleu's
    ``sentence_score``)."""
    return bleu_from_counts([int(x) for x in stats], smoothing)


def bleu_from_counts(counts: list[int], smoothing: str = "none") -> float:
    """:func:`bleu_from_statistics` for statistics that are already a list of Python ints (the
    bootstrap calls it tens of thousands of times)."""
    return BLEU.compute_bleu(counts[2:2 + MAX_ORDER], counts[2 + MAX_ORDER:], counts[0], counts[1],
                             smoothing, None, smoothing != "none", MAX_ORDER).score


# sacrebleu's own float operations, one element at a time, so the vectorised BLEU below gives its bits
_LOG = np.frompyfunc(math.log, 1, 1)
_EXP = np.frompyfunc(math.exp, 1, 1)


def corpus_bleu_of_rows(stats: np.ndarray) -> np.ndarray:
    """Unsmoothed corpus BLEU (0-100) of every row of (K, 10) integer statistics (:data:`STATISTICS`),
    equal bit for bit to sacrebleu's ``BLEU.compute_bleu`` of each row (:func:`bleu_from_counts`), with
    its operations done for all rows at once (the bootstrap scores tens of thousands of samples).

    Method, as sacrebleu's ``compute_bleu`` with ``smooth_method='none'``, ``effective_order=False``,
    four orders: precision p_n = 100 * correct_n / total_n; a row with an order matched nowhere
    scores 0 (sacrebleu floors log 0 at -9999999999, so its exponential is exactly 0); otherwise
    BLEU = BP * exp((((log p_1 + log p_2) + log p_3) + log p_4) / 4), with the brevity penalty
    BP = exp(1 - ref_len / hyp_len) when 0 < hyp_len < ref_len, 0 when 0 = hyp_len < ref_len, else 1. The logarithms and exponentials
    are Python's ``math.log``/``math.exp`` (what sacrebleu calls), so no vectorised libm's last bit
    enters; the divisions and sums are IEEE operations in sacrebleu's order on integers exact in
    float64."""
    stats = np.asarray(stats, dtype=np.int64).reshape(-1, len(STATISTICS))
    hyp_len, ref_len = stats[:, 0], stats[:, 1]
    correct, total = stats[:, 2:2 + MAX_ORDER], stats[:, 2 + MAX_ORDER:]
    out = np.zeros(len(stats))
    scored = np.flatnonzero((correct > 0).all(axis=1) & (total > 0).all(axis=1))
    if not len(scored):
        return out
    precisions = 100.0 * correct[scored] / total[scored]
    logs = _LOG(precisions).astype(np.float64)
    log_sum = logs[:, 0]
    for n in range(1, MAX_ORDER):
        log_sum = log_sum + logs[:, n]
    geometric = _EXP(log_sum / MAX_ORDER).astype(np.float64)
    hyp, ref = hyp_len[scored], ref_len[scored]
    penalty = np.ones(len(scored))
    penalty[(hyp < ref) & (hyp == 0)] = 0.0
    short = np.flatnonzero((hyp < ref) & (hyp > 0))
    if len(short):
        penalty[short] = _EXP(1 - ref[short] / hyp[short]).astype(np.float64)
    out[scored] = penalty * geometric
    return out


def corpus_signature(reference_counts: Sequence[int]) -> str:
    """sacrebleu's signature of the corpus BLEU of hypotheses with these numbers of references (it
    names the common number, or ``nrefs:var``): computed on a placeholder corpus of one-word
    segments, since nothing else enters the signature."""
    counts = sorted(set(reference_counts))
    return corpus_bleu_signed(["a"] * len(counts), [["a"] * k for k in counts])[1]


def corpus_statistics(corpus, peers: Sequence[int], reference_sets: Sequence[Sequence[int]]) -> np.ndarray:
    """(K, 10) int64 sufficient statistics (:data:`STATISTICS`) of peer ``peers[k]`` against the
    references ``reference_sets[k]`` (indices into ``corpus``, a :class:`metaeval.metrics.rouge.Corpus`
    of the tokenised summaries; a summary's text is its tokens joined by spaces)."""
    from .rouge import clipped_max_matches, ngram_counts   # defers numba: rouge's kernels are compiled

    peers = np.asarray(peers, dtype=np.int64)
    refs = np.fromiter((r for rs in reference_sets for r in rs), dtype=np.int64)
    refs_off = np.zeros(len(reference_sets) + 1, dtype=np.int64)
    refs_off[1:] = np.cumsum([len(rs) for rs in reference_sets])
    lengths = np.diff(corpus.lump_off)
    out = np.zeros((len(peers), len(STATISTICS)), dtype=np.int64)
    hyp = lengths[peers]
    out[:, 0] = hyp
    for k, rs in enumerate(reference_sets):          # the closest reference length, the shorter on a tie
        ref_lens = lengths[np.asarray(rs, dtype=np.int64)]
        diff = np.abs(ref_lens - hyp[k])
        out[k, 1] = ref_lens[diff == diff.min()].min() if len(ref_lens) else 0
    for n in range(1, MAX_ORDER + 1):
        grams = ngram_counts(corpus, n)
        best = np.zeros(max(1, int(np.diff(grams.off).max(initial=0))), dtype=np.int64)
        matched = np.zeros(len(peers), dtype=np.int64)
        clipped_max_matches(grams.ids, grams.counts, grams.off, peers, refs, refs_off, best, matched)
        out[:, 1 + n] = matched
        out[:, 1 + MAX_ORDER + n] = grams.total[peers]
    return out
