"""BLEU through sacrebleu, on ROUGE-preprocessed text.

System level: one corpus per summarizer (all its summaries; each summary's references as multiple
references; topics may have different numbers of references) scored with
``BLEU(lowercase=True, tokenize='none', smooth_method='none', max_ngram_order=4,
effective_order=False, force=True)``, which equals Moses ``multi-bleu.perl -lc`` on the same
tokenised text (tests/test_bleu.py holds values multi-bleu.perl printed). Per summary: sacrebleu's
sentence BLEU with smoothing (``exp`` by default) and effective order, for per-topic analyses.
Scores are on sacrebleu's 0-100 scale.
"""

from __future__ import annotations

import functools
from typing import Sequence

from sacrebleu.metrics import BLEU

CORPUS_OPTIONS = dict(lowercase=True, tokenize="none", smooth_method="none", max_ngram_order=4,
                      effective_order=False, force=True)


@functools.lru_cache(maxsize=None)
def corpus_metric() -> BLEU:
    return BLEU(**CORPUS_OPTIONS)


@functools.lru_cache(maxsize=None)
def sentence_metric(smoothing: str = "exp") -> BLEU:
    return BLEU(lowercase=True, tokenize="none", smooth_method=smoothing, max_ngram_order=4,
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
    """Smoothed sentence BLEU (0-100) of one summary against its references."""
    return float(sentence_metric(smoothing).sentence_score(hypothesis, list(references)).score)


def sufficient_stats(hypothesis: str, references: Sequence[str]) -> list[float]:
    """The corpus-BLEU sufficient statistics of one summary: [hyp_len, ref_len (closest),
    correct_1..4, total_1..4]; corpus BLEU is a function of their sums (see
    :func:`metaeval.correlation.bleu_from_stats`), which lets the bootstrap resample topics."""
    streams = [[r] for r in references]
    return [float(x) for x in corpus_metric()._extract_corpus_statistics([hypothesis], streams)[0]]
