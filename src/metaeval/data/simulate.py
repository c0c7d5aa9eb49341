"""The embedded default data set: a seeded, DUC-like benchmark generated from a known model.

Generative model (documented in docs/datasets.md, so a user can check that the analyses recover it):

* **Topics** have ``units`` content units (like pyramid SCUs) with importance
  ``w_k = exp(-k / 4)`` (k = 0 most important). Every unit can be said three ways:
  variant 0 (the source documents' wording), variant 1 (other inflections and function words:
  matches after stemming), variant 2 (synonyms and reordered halves: few shared bigrams, some LCS).
  Topics also have *filler* sentences: document text that belongs to no unit.
* **Human summarizers** (letters ``A``, ``B``, ...) write one sentence per unit for ``sentences``
  distinct units drawn by importance, mostly in variants 1 and 2, and write fluently (a sentence
  is damaged with probability 0.03). They are judged too.
* **Systems** (digits ``1``..``S``) have a latent *content skill* ``c_s`` (evenly spaced in
  [0.15, 0.9], assigned to system ids in a seeded random order) and a latent *fluency* ``f_s``
  (uniform in [0.35, 1], independent of skill). Each of a system's sentences is a unit with
  probability ``c_s`` (units drawn by importance raised to ``1 + 3 c_s``, so skilled systems pick the
  important ones), otherwise filler. Odd systems are extractive (variant 0), even ones abstractive
  (variants 1 and 2). With probability ``1 - f_s`` a sentence is damaged (adjacent words swapped,
  function words dropped) and with probability ``(1 - f_s) / 3`` a sentence is repeated.
* **Latent scores** of a summary: content ``C`` = importance of the distinct units it expresses over
  the importance of the best ``n`` units it could have expressed in its ``n`` sentences; fluency
  ``F`` = share of undamaged, non-repeated sentences.
* **Pyramids**: each topic's units expressed by its human summaries are its SCUs, weighted by how
  many human summaries express them; every judged summary is annotated with the SCUs it expresses
  (``pyramids.jsonl``), so pyramid scores are available as human scores.
* **Judgments**: ``coverage`` = C + N(0, 0.08) clipped to [0, 1] (like DUC mean coverage);
  five linguistic-quality questions on 1-5 = round(1 + 4 (F + N(0, 0.12))) clipped.
  About 1 % of quality cells are left empty (missing judgments), and the weakest system returns an
  empty summary once in a while (empty summaries are legal and score 0).

What is known to be true: systems' expected coverage rises with ``c_s``; their linguistic quality
rises with ``f_s``; the two are independent, so coverage-only and LQ-only rankings differ; metrics
that use stemming and skip-bigrams should track coverage better than exact bigrams on the
abstractive systems. ``dataset.yaml`` records every system's ``c_s`` and ``f_s`` under
``simulation:``.
"""

from __future__ import annotations

import math

import numpy as np

from ..records import SimulationParams
from .contract import Dataset, Dimension, Summary
from .pyramid import TopicPyramid

FUNCTION_WORDS = ("the", "of", "and", "a", "to", "in", "was", "for", "on", "that", "with", "by",
                  "as", "at", "from", "its", "has", "were", "which", "after", "their", "into")
SYLLABLES = ("ka", "lo", "mi", "ren", "tus", "vo", "dar", "pel", "sin", "gor", "ba", "ne", "tri",
             "pho", "lan", "cu", "mer", "sol", "vik", "ta", "zen", "ru", "fam", "dor", "bel", "qui")
LQ_QUESTIONS = ("grammaticality", "non_redundancy", "referential_clarity", "focus", "structure")


def _word(rng: np.random.Generator, n_syll: int) -> str:
    return "".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n_syll))


def _inflect(verb: str, form: int) -> str:
    return verb + ("s", "ed", "ing")[form % 3]


class _Topic:
    """Units (three variants each) and filler sentences of one topic."""

    def __init__(self, rng: np.random.Generator, p: SimulationParams):
        self.weights = [math.exp(-k / 4) for k in range(p.units)]
        self.variants: list[list[list[str]]] = []
        for _ in range(p.units):
            nouns = [_word(rng, int(rng.integers(2, 4))) for _ in range(3)]
            verb = _word(rng, 2)
            synonyms = [_word(rng, int(rng.integers(2, 4))) for _ in range(2)]
            f = [FUNCTION_WORDS[i] for i in rng.integers(0, len(FUNCTION_WORDS), 4)]
            v0 = [f[0], nouns[0], _inflect(verb, 1), f[1], nouns[1], f[2], nouns[2]]
            v1 = [f[3], nouns[0], _inflect(verb, 2), nouns[1], f[1], f[0], nouns[2]]
            v2 = [f[0], synonyms[1], f[2], nouns[1], _inflect(verb, 0), f[3], synonyms[0], nouns[0]]
            self.variants.append([v0, v1, v2])
        self.filler = [[FUNCTION_WORDS[int(rng.integers(0, len(FUNCTION_WORDS)))] if j % 2 else _word(rng, 2)
                        for j in range(int(rng.integers(6, 10)))] for _ in range(3 * p.units)]

    def best_mass(self, n: int) -> float:
        return sum(sorted(self.weights, reverse=True)[:n])


def _sentence(words: list[str]) -> str:
    return " ".join([words[0].capitalize()] + words[1:]) + " ."


def _damage(rng: np.random.Generator, words: list[str]) -> list[str]:
    out = [w for w in words if not (w in FUNCTION_WORDS and rng.random() < 0.5)] or list(words)
    for i in range(0, len(out) - 1, 2):
        if rng.random() < 0.6:
            out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _write(rng: np.random.Generator, topic: _Topic, n: int, unit_prob: float, unit_power: float,
           variant_probs: tuple[float, float, float], fluency: float, human: bool
           ) -> tuple[list[str], float, float, list[int]]:
    """One summary: its sentences, latent content C, latent fluency F and the units it expresses."""
    w = np.array(topic.weights) ** unit_power
    chosen: list[int] = []
    sentences: list[str] = []
    good = 0
    used_filler: set[int] = set()
    for _ in range(n):
        if human:
            remaining = [k for k in range(len(w)) if k not in chosen]
            pick = remaining[int(rng.choice(len(remaining), p=w[remaining] / w[remaining].sum()))]
            words = list(topic.variants[pick][int(rng.choice(3, p=variant_probs))])
            chosen.append(pick)
        elif rng.random() < unit_prob:
            pick = int(rng.choice(len(w), p=w / w.sum()))
            words = list(topic.variants[pick][int(rng.choice(3, p=variant_probs))])
            chosen.append(pick)
        else:
            j = int(rng.integers(0, len(topic.filler)))
            used_filler.add(j)
            words = list(topic.filler[j])
        damaged = rng.random() > fluency
        if damaged:
            words = _damage(rng, words)
        else:
            good += 1
        sentences.append(_sentence(words))
        if not human and rng.random() < (1 - fluency) / 3 and len(sentences) < n + 2:
            sentences.append(sentences[-1])  # redundancy
    content = sum(topic.weights[k] for k in set(chosen)) / topic.best_mass(n)
    fluency_latent = good / len(sentences)
    return sentences, min(1.0, content), fluency_latent, sorted(set(chosen))


def _pyramid(topic: str, expressed: dict[str, list[int]], models: list[str]) -> TopicPyramid:
    """The topic's pyramid: the units the human summaries express, weighted by how many do; every
    summary annotated with the pyramid units it expresses (units no model has are not SCUs)."""
    weights: dict[str, int] = {}
    for h in models:
        for k in expressed[h]:
            weights[f"U{k + 1:02d}"] = weights.get(f"U{k + 1:02d}", 0) + 1
    return TopicPyramid(topic, len(models), weights, {
        s: tuple(f"U{k + 1:02d}" for k in units if f"U{k + 1:02d}" in weights) for s, units in expressed.items()})


def simulate(params: SimulationParams, name: str = "default") -> Dataset:
    """Generate the benchmark; the same parameters always give the same data set."""
    p = params
    rng = np.random.default_rng(p.seed)
    system_ids = [str(i) for i in range(1, p.systems + 1)]
    human_ids = [chr(ord("A") + i) for i in range(p.humans)]
    skills = np.linspace(0.15, 0.9, p.systems)[rng.permutation(p.systems)]
    fluencies = rng.uniform(0.35, 1.0, p.systems)
    summaries: list[Summary] = []
    judgments: dict[tuple[str, str], dict[str, float]] = {}
    documents: dict[str, list[str]] = {}
    pyramids: dict[str, TopicPyramid] = {}
    weakest = system_ids[int(np.argmin(skills))]
    for t in range(p.topics):
        topic_id = f"D{t + 1:03d}"
        topic = _Topic(rng, p)
        docs = []
        for _ in range(p.documents):
            pool = [v[0] for v in topic.variants] + topic.filler
            order = rng.permutation(len(pool))
            docs.append(" ".join(_sentence(pool[i]) for i in order))
        documents[topic_id] = docs
        writers = [(h, "human", 0.0, 1.0, (0.2, 0.4, 0.4), 0.97) for h in human_ids]
        for i, s in enumerate(system_ids):
            extractive = (i % 2) == 0
            variants = (0.9, 0.05, 0.05) if extractive else (0.2, 0.4, 0.4)
            writers.append((s, "system", skills[i], 1 + 3 * skills[i], variants, fluencies[i]))
        expressed: dict[str, list[int]] = {}
        for summarizer, kind, skill, power, variants, fluency in writers:
            human = kind == "human"
            sents, content, flu, units = _write(rng, topic, p.sentences, float(skill), float(power), variants,
                                                float(fluency), human)
            if summarizer == weakest and rng.random() < 0.05:
                sents, content, flu, units = [], 0.0, 0.0, []
            expressed[summarizer] = units
            summaries.append(Summary(topic_id, summarizer, kind, tuple(sents)))
            cov = float(np.clip(content + rng.normal(0, 0.08), 0, 1))
            row = {"coverage": round(cov, 4)}
            for q in LQ_QUESTIONS:
                val = float(np.clip(round(1 + 4 * (flu + rng.normal(0, 0.12))), 1, 5))
                row[q] = math.nan if rng.random() < 0.01 else val
            judgments[(topic_id, summarizer)] = row
        pyramids[topic_id] = _pyramid(topic_id, expressed, human_ids)
    dims = {"coverage": Dimension("coverage", 0, 1, "share of the topic's content units expressed, "
                                  "weighted by importance, plus assessor noise (like DUC mean coverage)")}
    for q in LQ_QUESTIONS:
        dims[q] = Dimension(q, 1, 5, f"linguistic quality: {q.replace('_', ' ')}, 1-5")
    human = {"coverage": ["coverage"], "linguistic_quality": list(LQ_QUESTIONS)}
    meta = {
        "name": name,
        "description": (f"Simulated DUC-like benchmark: {p.topics} topics, {p.systems} systems of graded content "
                        f"skill and fluency, {p.humans} human summarizers per topic who are also judged; "
                        "summaries built from weighted content units with paraphrase variants and filler; "
                        "coverage and linguistic-quality judgments from each summary's latent content and "
                        "fluency plus assessor noise. Generated by metaeval.data.simulate."),
        "source": f"metaeval.data.simulate (seed {p.seed})",
        "license": "CC0-1.0 (generated data)",
        "citation": "Graham, Y. 2015. Re-evaluating Automatic Summarization with BLEU and 192 Shades of ROUGE. EMNLP.",
        "dimensions": {d.name: {"min": d.min, "max": d.max, "description": d.description} for d in dims.values()},
        "human": human,
        "simulation": {
            "params": dict(p._asdict()),
            "systems": {s: {"content_skill": round(float(skills[i]), 6), "fluency": round(float(fluencies[i]), 6),
                            "style": "extractive" if i % 2 == 0 else "abstractive"}
                        for i, s in enumerate(system_ids)},
        },
    }
    return Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=summaries,
                   judgments=judgments, documents=documents, pyramids=pyramids)
