"""chrF stage: chrF and chrF++ (:mod:`metaeval.metrics.chrf`, sacrebleu's definition) of every
judged summary, in one job per data set that reads the validated data set, like SERA's: chrF
scores the raw text (the sentences joined by a single space), so ROUGE's preprocessing settings do
not concern it, and changing them does not re-run it.

* References: as for ROUGE and BLEU (:func:`metaeval.stages.scoring.scoring_task`): the topic's
  human summaries, a judged human summary scored against the others (jackknifing), and with
  ``jackknife_systems`` a system summary against every leave-one-out set.
* Per summary (the long table ``topic, summarizer, metric, score``, as SERA's): sentence chrF /
  chrF++, the mean over the summary's reference sets (one set: sacrebleu's ``sentence_score``).
* Per summary and reference set: the sufficient statistics (``scores/chrf_stats_<id>.tsv``), from
  which the gathering job computes each summarizer's corpus chrF (one set: sacrebleu's
  ``corpus_score``) and the correlation stage its bootstrap samples.

load (the data set) -> :func:`compute` (:class:`ChrfScores`) -> :func:`write`; the gathering job
reads the statistics back as every corpus-level family's
(:func:`metaeval.stages.scoring.corpus_system_scores`, with the chrF family's corpus score,
:class:`metaeval.metrics.families.Chrf`). (:mod:`metaeval.stages.scoring` does not import this
module, so a change here re-runs no ROUGE scoring job.)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping, NamedTuple, Sequence

from .. import tables
from ..data.datasets import Dataset
from ..files import write_text
from ..metrics import chrf
from ..metrics.families import REGISTRY
from ..records import ChrfOptions
from .scoring import (corpus_from_stats, flat_reference_sets, label_statistics, per_summary_scores, scoring_summaries,
                      scoring_task, topic_chunks, write_stats)


class TextRecord(NamedTuple):
    """A summary as chrF reads it (the fields :func:`metaeval.stages.scoring.scoring_task` uses)."""

    topic: str
    summarizer: str
    kind: str
    judged: bool
    text: str


@dataclass
class ChrfScores:
    rows: list[tuple[str, str, str, float]]                              # topic, summarizer, metric id, score
    stats: dict[str, list[tuple[str, str, int, list[int]]]]              # metric id -> (topic, summarizer, set, stats)
    specs: list[chrf.ChrfSpec]
    signatures: list[str]


def specs_of(options: ChrfOptions) -> list[chrf.ChrfSpec]:
    return [chrf.spec(name, options.char_order, options.whitespace) for name in options.metrics]


def signatures(specs: list[chrf.ChrfSpec]) -> list[str]:
    """sacrebleu's signatures of every variant's system (corpus) and per-summary (sentence) score."""
    return [f"{level}: {s.name} {chrf.signature(s, level == 'per-summary')}"
            for s in specs for level in ("system", "per-summary")]


# Summaries per chunk: fewer than the scoring jobs' (metaeval.stages.scoring.CHUNK_SUMMARIES), since
# a chunk's character n-gram tables take about 0.1 MB per summary (simulated 400 x 24: 1.4 GB in one
# chunk of 11,200 judged summaries and their references). Each summary's statistics depend on its
# topic alone, so the chunking changes no number and no order.
CHUNK_SUMMARIES = 4_000


def compute(ds: Dataset, options: ChrfOptions) -> ChrfScores:
    """Every judged summary's chrF statistics and sentence scores, topics in chunks of about
    :data:`CHUNK_SUMMARIES` summaries (bounded memory)."""
    specs = specs_of(options)
    stats: dict[str, list] = {s.name: [] for s in specs}
    rows: dict[str, list] = {s.name: [] for s in specs}
    sizes = Counter(s.topic for s in ds.summaries)
    for chunk in topic_chunks(ds.topics, sizes, CHUNK_SUMMARIES):
        records = [TextRecord(s.topic, s.summarizer, s.kind, judged, chrf.text_of(s.sentences))
                   for s, judged in scoring_summaries(ds, set(chunk))]
        keys, task = scoring_task(records, options.jackknife_systems)
        if not keys:
            continue
        matrices = chrf.corpus_statistics([r.text for r in records], *flat_reference_sets(task), specs)
        for s in specs:
            mine = label_statistics(keys, task, matrices[s.name])
            stats[s.name] += mine
            rows[s.name] += [(t, u, s.name, v) for t, u, v in per_summary_scores(keys, mine, chrf.chrf_from_counts)]
    return ChrfScores([r for s in specs for r in rows[s.name]], stats, specs, signatures(specs))


def write(result: ChrfScores, out: Mapping[str, str]) -> None:
    tables.write_tsv(tables.frame(result.rows, ["topic", "summarizer", "metric", "score"]), out["scores"])
    for s in result.specs:
        write_stats(result.stats[s.name], s.statistics, out[f"stats_{s.name}"])
    write_text(out["signature"], "".join(line + "\n" for line in result.signatures))


# ----------------------------------------------------------------------------- system level

def corpus_chrf_from_stats(stats: Sequence[tuple[str, str, int, list]]) -> list[tuple[str, float]]:
    """Corpus chrF per summarizer from expanded per-summary statistics, as the gathering job
    computes it (:func:`metaeval.stages.scoring.corpus_from_stats` with the chrF family's corpus
    score: the F of the summed statistics per reference set, averaged over the sets; with one set
    per summary sacrebleu's corpus_score)."""
    return corpus_from_stats(stats, REGISTRY["chrf"].corpus_score)
