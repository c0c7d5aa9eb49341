"""Corpora for the BLEU test, built deterministically (the expected values in test_bleu.py are
what Moses multi-bleu.perl -lc printed for exactly these corpora)."""
from __future__ import annotations

import random

from metaeval.metrics.tokenize import Setting, tokenize_summary


def hand_made():
    hyps = ["the cat sat on the mat", "The Dog barked loudly at night", "a b c d e f g", "police killed the gunman"]
    refs = [["the cat is on the mat", "there is a cat on the mat"],
            ["the dog barked at night", "at night the dog barked loudly"],
            ["a b c d e f g h", "a b c x e f g"],
            ["police kill the gunman", "the gunman was killed by police"]]
    return hyps, refs


def random_corpus(seed: int, n: int, n_refs: int, short: bool):
    rng = random.Random(seed)
    words = "The the A a police Police gunman killed kill cat mat Dog dog night barked on at is was by".split()
    hyps, refs = [], []
    for _ in range(n):
        base = [rng.choice(words) for _ in range(rng.randint(8, 20))]
        hyp = [w if rng.random() < 0.7 else rng.choice(words) for w in base]
        if short:
            hyp = hyp[: max(1, len(hyp) // 2)]
        hyps.append(" ".join(hyp))
        refs.append([" ".join(w if rng.random() < 0.8 else rng.choice(words) for w in base) for _ in range(n_refs)])
    return hyps, refs


def summeval_corpus(ds, system: str, n: int):
    setting = Setting(False, False)
    text = lambda s: " ".join(tokenize_summary(s.sentences, setting).tokens)  # noqa: E731
    hyps, refs = [], []
    for topic in ds.topics[:n]:
        hyps.append(text(ds.summary(topic, system)))
        refs.append([text(r) for r in ds.references(topic)])
    return hyps, refs
