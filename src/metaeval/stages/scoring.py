"""Scoring stage: which summaries are scored against which references, the per-(setting, shard)
score tables, and the gathered summary- and system-level tables.

* Scored ("peer") summaries are the judged ones. Their references are the human summaries of the
  topic in summarizer order; a judged human summary is scored against the *other* references
  (jackknifing); with ``jackknife_systems`` a system summary is scored against every leave-one-out
  reference set and the scores are averaged (see :func:`metaeval.metrics.rouge.reference_sets`).
* System-level variants (:mod:`metaeval.variants`): ``{measure}_ST{0,1}_RS{0,1}_{A,M}_{P,R,F}``
  is the mean (A) or median (M) over a summarizer's judged summaries of the per-summary P, R or F;
  ``BLEU_ST{s}_RS{r}`` is the corpus BLEU of the summarizer's summaries, ``CHRF`` / ``CHRF++`` their
  corpus chrF / chrF++ (scored by its own job, :mod:`metaeval.stages.chrf`); a per-summary metric
  such as ``SERA5_PL`` gives ``SERA5_PL_A`` and ``SERA5_PL_M``.

Jobs: ``score`` (per preprocessing setting and topic shard: tokenise once, encode once, every ROUGE
measure and BLEU's statistics from that one corpus) -> ``gather`` (summary_scores.tsv,
system_scores.tsv with the corpus BLEU and chrF of the summed statistics, the BLEU statistics and
the scoring signature). Topics are cut into contiguous shards, and corpus BLEU is computed from
summed per-summary statistics, so the shard count changes no result.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .. import __version__, tables
from ..data.datasets import Dataset, Summary
from ..files import write_text
from ..logs import CheckError
from ..metrics.families import REGISTRY, corpus_families
from ..metrics.bleu import (STATISTICS as BLEU_STATISTICS, bleu_from_counts, bleu_from_statistics,
                            corpus_signature, corpus_statistics, sentence_signature)
from ..metrics.rouge import Measure, Task, encode, parse_measure, plan, reference_sets, score
from ..metrics.tokenize import ALPHABETICAL, NO_EXCEPTIONS, Setting, Tokenized, exceptions_label, tokenize_summary
from ..records import RougeOptions, ScoreJob
from ..parts import part_key
from ..stats.stable import mean_of, median_of
from ..variants import PRF, STATISTICS, Variant, setting_tag

PART_COLUMNS = ("topic", "summarizer", "measure", "P", "R", "F")
SUMMARY_COLUMNS = ("topic", "summarizer", "measure", "stem", "stopwords_removed", "P", "R", "F")


class ScoringError(CheckError):
    """A summary cannot be scored; the message names topic and summarizer."""


@dataclass(frozen=True)
class TokenRecord:
    topic: str
    summarizer: str
    kind: str
    judged: bool
    tokenized: Tokenized


# ----------------------------------------------------------------------------- tokens

def setting_from_tag(stem: int, stop: int, word_limit: int | None = None, byte_limit: int | None = None,
                     exceptions: tuple[str, ...] = ALPHABETICAL) -> Setting:
    return Setting(bool(int(stem)), bool(int(stop)), word_limit, byte_limit, exceptions)


def scoring_summaries(ds: Dataset, topics: set[str] | None = None) -> list[tuple[Summary, bool]]:
    """Every summary the scoring needs, with whether it is judged: the judged ones, and the human
    summaries of their topics (of ``topics`` only, if given), in the canonical order."""
    judged_topics = {t for t, _ in ds.judgments}
    out = []
    for s in ds.summaries:
        if topics is not None and s.topic not in topics:
            continue
        # a judged reference alone in its topic (judged_lone_references) is a reference only: unscored
        judged = s.key in ds.judgments and s.key not in ds.lone_references
        if judged or (s.kind == "human" and s.topic in judged_topics):
            out.append((s, judged))
    return out


def tokenize_dataset(ds: Dataset, setting: Setting, topics: set[str] | None = None) -> list[TokenRecord]:
    """:func:`scoring_summaries`, tokenized as ROUGE-1.5.5 would."""
    return [TokenRecord(s.topic, s.summarizer, s.kind, judged, tokenize_summary(s.sentences, setting))
            for s, judged in scoring_summaries(ds, topics)]


def shard_topics(topics: Sequence[str], shard: int, shards: int) -> set[str]:
    """Topic shard ``shard`` of ``shards``: the sorted topics cut into contiguous, nearly equal
    chunks (a topic's summaries and references always share a shard)."""
    topics = sorted(set(topics))
    size, extra = divmod(len(topics), shards)
    start = shard * size + min(shard, extra)
    return set(topics[start:start + size + (1 if shard < extra else 0)])



# ----------------------------------------------------------------------------- ROUGE and BLEU parts

def scoring_task(records: Sequence, jackknife_systems: bool) -> tuple[list[tuple[str, str]], Task]:
    """Rows (judged summaries, in order) and, for each, its reference sets (indices into records;
    any records with ``topic``, ``summarizer``, ``kind`` and ``judged``, e.g. :class:`TokenRecord`)."""
    refs: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        if r.kind == "human":
            refs.setdefault(r.topic, []).append(i)
    for topic in refs:
        refs[topic].sort(key=lambda i: records[i].summarizer)
    rows, peers, sets = [], [], []
    for i, r in enumerate(records):
        if not r.judged:
            continue
        topic_refs = refs.get(r.topic, [])
        chosen = reference_sets(topic_refs, i if r.kind == "human" else None, jackknife_systems)
        if not chosen or not chosen[0]:
            raise ScoringError(f"topic {r.topic!r}, summarizer {r.summarizer!r}: no reference summary left to "
                               "score it against (jackknifing leaves out the summary itself; the topic needs "
                               "another human summary)")
        rows.append((r.topic, r.summarizer))
        peers.append(i)
        sets.append(chosen)
    return rows, Task(peers, sets)


def score_measure(records: Sequence[TokenRecord], measure: Measure, alpha: float, mode: str,
                  jackknife_systems: bool) -> list[tuple[str, str, float, float, float]]:
    """P, R, F of every judged summary under one measure."""
    scored = score_chunks([records], [measure], alpha, mode, jackknife_systems, bleu=False)
    return [(t, s, p, r, f) for (t, s), (p, r, f) in zip(scored.rows, scored.prf[measure.id])]


@dataclass
class BleuResult:
    per_summary: list[tuple[str, str, float]]          # smoothed sentence BLEU
    stats: list[tuple[str, str, int, list[int]]]       # (topic, summarizer, set k, sufficient statistics)
    signatures: list[str]


def bleu_scores(records: Sequence[TokenRecord], jackknife_systems: bool, smoothing: str) -> BleuResult:
    """Per-summary smoothed BLEU (sacrebleu's 0-100 scale; the mean over the summary's reference
    sets), the per-summary sufficient statistics of the corpus BLEU (one row per reference set),
    and the distinct sacrebleu signatures. The statistics come from the engine's n-gram counts
    (:func:`metaeval.metrics.bleu.corpus_statistics`, equal to sacrebleu's), and every score from
    them through sacrebleu's ``compute_bleu``."""
    scored = score_chunks([records], [], 0.5, "A", jackknife_systems, bleu=True)
    return bleu_result(scored.rows, scored.bleu_stats, scored.reference_counts, smoothing)


def bleu_result(rows: Sequence[tuple[str, str]], stats: Sequence[tuple[str, str, int, list[int]]],
                reference_counts: Mapping[str, set[int]], smoothing: str) -> BleuResult:
    """Per-summary BLEU (mean over the summary's reference sets) and the signatures, from the
    statistics."""
    per_summary = per_summary_scores(rows, stats, lambda st: bleu_from_counts(st, smoothing))
    signatures = {f"per-summary: {sentence_signature(smoothing)}"}
    for counts_ in reference_counts.values():
        # the corpus signature names the number of references (nrefs) of the summarizer's corpus
        signatures.add(f"system: {corpus_signature(sorted(counts_))}")
    return BleuResult(per_summary, list(stats), sorted(signatures))


def per_summary_scores(rows: Sequence[tuple[str, str]], stats: Sequence[tuple[str, str, int, list[int]]],
                       score: Callable[[list[int]], float]) -> list[tuple[str, str, float]]:
    """Every row's score: the mean over its reference sets of ``score`` of the set's statistics."""
    scores: dict[tuple[str, str], list[float]] = {}
    for topic, summarizer, _, st in stats:
        scores.setdefault((topic, summarizer), []).append(score(st))
    return [(*key, math.fsum(scores[key]) / len(scores[key])) for key in rows]


def flat_reference_sets(task: Task) -> tuple[list[int], list[list[int]]]:
    """Every (peer, reference set) of ``task`` as two parallel lists, row by row and set by set."""
    return ([p for p, sets in zip(task.peers, task.reference_sets) for _ in sets],
            [refs for sets in task.reference_sets for refs in sets])


def label_statistics(rows: Sequence[tuple[str, str]], task: Task, matrix: np.ndarray
                     ) -> list[tuple[str, str, int, list[int]]]:
    """(topic, summarizer, set k, statistics) from the statistics of :func:`flat_reference_sets`."""
    values = iter(matrix.tolist())
    return [(topic, summarizer, k, next(values))
            for (topic, summarizer), sets in zip(rows, task.reference_sets) for k in range(len(sets))]


def _bleu_statistics(corpus, rows: Sequence[tuple[str, str]], task: Task) -> list[tuple[str, str, int, list[int]]]:
    """(topic, summarizer, set k, statistics) of every reference set of every row of ``task``,
    whose summaries are encoded in ``corpus``."""
    return label_statistics(rows, task, corpus_statistics(corpus, *flat_reference_sets(task)))


def expand_stats(stats: Sequence[tuple[str, str, int, list]]) -> list[tuple[str, str, int, list]]:
    """Give every summary of a summarizer as many reference-set rows as the summarizer's largest
    count (a summary with fewer sets repeats its last one), so that corpus set k is well defined."""
    last: dict[tuple[str, str], int] = {}
    for t, s, k, _ in stats:
        last[(t, s)] = max(k, last.get((t, s), -1))
    width: dict[str, int] = {}
    for (t, s), k in last.items():
        width[s] = max(width.get(s, 0), k + 1)
    out = []
    for t, s, k, st in stats:
        out.append((t, s, k, st))
        if k == last[(t, s)]:
            out.extend((t, s, j, st) for j in range(k + 1, width[s]))
    return out


def corpus_bleu_from_stats(stats: Sequence[tuple[str, str, int, list]]) -> list[tuple[str, float]]:
    """Corpus BLEU per summarizer from expanded per-summary statistics: for every set k the BLEU of
    the summed statistics (sacrebleu's ``compute_bleu``, so equal to its corpus_score), averaged
    over k."""
    return corpus_from_stats(stats, bleu_from_statistics)


def corpus_from_stats(stats: Sequence[tuple[str, str, int, list]], score: Callable[[list], float]
                      ) -> list[tuple[str, float]]:
    """Per summarizer, the mean over reference sets k of ``score`` of the summed statistics of its
    summaries' set k (expanded statistics, :func:`expand_stats`), summarizers sorted."""
    sums: dict[str, dict[int, list[float]]] = {}
    for _, s, k, st in stats:
        acc = sums.setdefault(s, {}).setdefault(k, [0.0] * len(st))
        for i, x in enumerate(st):
            acc[i] += x
    out = []
    for s in sorted(sums):
        values = [score([int(x) for x in sums[s][k]]) for k in sorted(sums[s])]
        out.append((s, math.fsum(values) / len(values)))
    return out


# ----------------------------------------------------------------------------- the score job

@dataclass
class SettingScores:
    """One setting and shard: every measure's per-summary P, R, F (BLEU: the smoothed per-summary
    BLEU as F), BLEU's per-summary statistics and signatures."""

    rows: list[tuple[str, str, str, float | None, float | None, float]]   # topic, summarizer, measure, P, R, F
    bleu: BleuResult | None


CHUNK_SUMMARIES = 20_000   # summaries (judged and references) encoded together: bounds a job's memory


def topic_chunks(topics: Sequence[str], sizes: Mapping[str, int], size: int = CHUNK_SUMMARIES) -> list[list[str]]:
    """Consecutive runs of whole topics (in the given order) of about ``size`` summaries each."""
    chunks: list[list[str]] = [[]]
    n = 0
    for t in topics:
        if chunks[-1] and n + sizes.get(t, 0) > size:
            chunks.append([])
            n = 0
        chunks[-1].append(t)
        n += sizes.get(t, 0)
    return [c for c in chunks if c]


@dataclass
class EngineScores:
    """Every judged summary's P, R, F per ROUGE measure and BLEU statistics, from chunks of topics."""

    rows: list[tuple[str, str]] = field(default_factory=list)              # (topic, summarizer), in order
    prf: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)   # measure id -> per row
    bleu_stats: list[tuple[str, str, int, list[int]]] = field(default_factory=list)
    reference_counts: dict[str, set[int]] = field(default_factory=dict)    # summarizer -> its numbers of references


def score_chunks(chunks: Iterable[Sequence[TokenRecord]], measures: Sequence[Measure], alpha: float, mode: str,
                 jackknife_systems: bool, bleu: bool) -> EngineScores:
    """Score every chunk of records (whole topics: a summary's references are in its chunk) with
    every measure and BLEU's statistics, each chunk encoded once. The result does not depend on
    how the topics are chunked: every score is a function of one summary and its references."""
    out = EngineScores(prf={m.id: [] for m in measures})
    for records in chunks:
        rows, task = scoring_task(records, jackknife_systems)
        corpus = encode([r.tokenized for r in records])
        pl = plan(task) if measures else None
        out.rows += rows
        for m in measures:
            p, r, f = score(corpus, m, pl, alpha, mode)
            out.prf[m.id] += list(zip(p.tolist(), r.tolist(), f.tolist()))
        if bleu:
            out.bleu_stats += _bleu_statistics(corpus, rows, task)
        for (_, summarizer), sets in zip(rows, task.reference_sets):
            out.reference_counts.setdefault(summarizer, set()).add(len(sets[0]))
    return out


def score_setting(ds: Dataset, stem: int, stop: int, shard: int, job: ScoreJob) -> SettingScores:
    """Tokenise the judged summaries of one topic shard and their references once under one
    setting, and score every ROUGE measure and BLEU from that one encoded corpus (encoded in chunks
    of whole topics, so that memory stays bounded whatever the shard's size)."""
    # a job that does not stem has no exception table (None): any value would do
    setting = setting_from_tag(stem, stop, job.word_limit, job.byte_limit, job.stemmer_exceptions or NO_EXCEPTIONS)
    chosen = shard_topics(ds.topics, shard, job.shards)
    sizes = Counter(s.topic for s in ds.summaries)
    chunks = (tokenize_dataset(ds, setting, set(c)) for c in topic_chunks([t for t in ds.topics if t in chosen], sizes))
    measures = [parse_measure(m, job.wlcs_weight) for m in job.measures]
    scored = score_chunks(chunks, measures, job.alpha, job.multiple_references, job.jackknife_systems, job.bleu)
    rows: list[tuple] = []
    for m in job.measures:
        rows += [(t, s, m, p, r, f) for (t, s), (p, r, f) in zip(scored.rows, scored.prf[m])]
    bleu = None
    if job.bleu:
        bleu = bleu_result(scored.rows, scored.bleu_stats, scored.reference_counts, job.per_summary_smoothing)
        rows += [(t, s, "BLEU", None, None, f) for t, s, f in bleu.per_summary]
    return SettingScores(rows, bleu)


def write_setting(result: SettingScores, out: Mapping[str, str]) -> None:
    """The setting's part table, and BLEU's statistics and signatures (empty without BLEU)."""
    tables.write_tsv(tables.frame(result.rows, PART_COLUMNS), out["scores"], blank=("P", "R", "F"))
    write_bleu_stats(result.bleu.stats if result.bleu else [], out["bleu_stats"])
    write_text(out["bleu_signature"], "".join(s + "\n" for s in result.bleu.signatures) if result.bleu else "")


# ----------------------------------------------------------------------------- tables

def read_part(path: Path | str) -> dict[str, list[tuple[str, str, float, float, float]]]:
    """A score job's part table: {measure: [(topic, summarizer, P, R, F)]}, measures in table order."""
    f = tables.read_tsv(path, numeric=("P", "R", "F"))
    out: dict[str, list] = {}
    for t, s, m, p, r, fv in zip(f["topic"], f["summarizer"], f["measure"], f["P"].tolist(), f["R"].tolist(),
                                 f["F"].tolist()):
        out.setdefault(m, []).append((t, s, p, r, fv))
    return out


def write_bleu_stats(stats: Iterable[tuple[str, str, int, Sequence[float]]], path: Path | str) -> None:
    write_stats(stats, BLEU_STATISTICS, path)


def read_bleu_stats(path: Path | str) -> list[tuple[str, str, int, list[int]]]:
    return read_stats(path)


def write_stats(stats: Iterable[tuple[str, str, int, Sequence[float]]], names: Sequence[str], path: Path | str) -> None:
    """Per-summary sufficient statistics: topic, summarizer, set (reference set k), then ``names``."""
    rows = [(t, s, k, *(int(x) for x in st)) for t, s, k, st in stats]
    tables.write_tsv(tables.frame(rows, ("topic", "summarizer", "set", *names)), path)


def read_stats(path: Path | str) -> list[tuple[str, str, int, list[int]]]:
    """:func:`write_stats`'s table: (topic, summarizer, set, statistics in column order)."""
    f = tables.read_tsv(path, integer=("set",))
    values = f[list(f.columns[3:])].to_numpy(dtype=np.int64).reshape(len(f), len(f.columns) - 3).tolist()
    return list(zip(f["topic"], f["summarizer"], f["set"].tolist(), values))


def read_metric_scores(path: Path | str) -> pd.DataFrame:
    """A long per-summary table of other metrics: topic, summarizer, metric, score (e.g. SERA)."""
    return tables.read_tsv(path, numeric=("score",))


def summary_scores_frames(parts: Mapping[tuple[str, int, int], Sequence[tuple[str, str, float, float, float]]]
                          ) -> Iterable[pd.DataFrame]:
    """summary_scores.tsv (topic, summarizer, measure, stem, stopwords_removed, P, R, F), one frame
    per (measure, setting)."""
    for (measure, stem, stop), part in parts.items():
        yield tables.frame([(t, s, measure, stem, stop, p, r, f) for t, s, p, r, f in part], SUMMARY_COLUMNS)


def system_scores_frame(parts: Mapping[tuple[str, int, int], Sequence[tuple[str, str, float, float, float]]],
                        bleu_system: Mapping[tuple[int, int], Sequence[tuple[str, float]]],
                        other: pd.DataFrame | None = None,
                        corpus_system: Mapping[str, Sequence[tuple[str, float]]] = {}) -> pd.DataFrame:
    """system_scores.tsv: summarizer, variant, score (ROUGE variants: mean/median of P, R, F over
    the summarizer's judged summaries; BLEU: its corpus BLEU; the other corpus-level families
    (``corpus_system``, by variant id, e.g. chrF): their corpus score; other per-summary metrics
    such as SERA5_PL: their mean (``_A``) and median (``_M``) over the summaries that have a score)."""
    values: dict[str, list[tuple[str, float]]] = {}
    for (measure, stem, stop), rows in parts.items():
        if measure == "BLEU":
            continue
        by: dict[str, list[tuple[float, float, float]]] = {}
        for _, s, p, r, f in rows:
            by.setdefault(s, []).append((p, r, f))
        for s, triples in by.items():
            for stat in STATISTICS:
                for k, prf in enumerate(PRF):
                    xs = [t[k] for t in triples]
                    v = mean_of(xs) if stat == "A" else median_of(xs)
                    values.setdefault(s, []).append((str(Variant.rouge(measure, stem, stop, stat, prf)), v))
    corpus = [*((str(Variant.bleu(stem, stop)), rows) for (stem, stop), rows in bleu_system.items()),
              *corpus_system.items()]
    for variant_id, rows in corpus:
        for s, v in rows:
            values.setdefault(s, []).append((variant_id, v))
    if other is not None and len(other):
        by_metric: dict[str, dict[str, list[float]]] = {}
        for s, metric, v in zip(other["summarizer"], other["metric"], other["score"].tolist()):
            if not math.isnan(v):
                by_metric.setdefault(metric, {}).setdefault(s, []).append(v)
        for metric, per in by_metric.items():
            for s, xs in per.items():
                values.setdefault(s, []).append((str(Variant.metric(metric, "A")), mean_of(xs)))
                values.setdefault(s, []).append((str(Variant.metric(metric, "M")), median_of(xs)))
    rows = [(s, variant, v) for s in sorted(values) for variant, v in values[s]]
    return tables.frame(rows, ("summarizer", "variant", "score"))


def rouge_signature(rouge: RougeOptions) -> str:
    """A reproducibility signature of the ROUGE options, in sacrebleu's style."""
    limit = (f"w{rouge.word_limit}" if rouge.word_limit else f"b{rouge.byte_limit}" if rouge.byte_limit else "none")
    return "|".join([
        "ROUGE-1.5.5-exact",
        f"measures:{','.join(rouge.measures)}",
        f"stem:{','.join(map(str, rouge.stemming))}",
        f"stop:{','.join(map(str, rouge.stopwords_removed))}",
        f"w:{rouge.wlcs_weight}",
        f"alpha:{rouge.alpha}",
        f"f:{rouge.multiple_references}",
        f"jk:{'yes' if rouge.jackknife_systems else 'no'}",
        f"limit:{limit}",
        f"stemexc:{exceptions_label(rouge.stemmer_exceptions)}",
        f"metaeval:{__version__}",
    ])


# ----------------------------------------------------------------------------- gathering

@dataclass
class Gathered:
    parts: dict[tuple[str, int, int], list[tuple[str, str, float, float, float]]]
    bleu_stats: dict[tuple[int, int], list[tuple[str, str, int, list]]]
    bleu_system: dict[tuple[int, int], list[tuple[str, float]]]
    bleu_signatures: set[str]
    other: pd.DataFrame | None
    other_signatures: list[tuple[str, str]]     # (kind, signature line) of the families with their own job
    corpus_system: dict[str, list[tuple[str, float]]] = field(default_factory=dict)   # e.g. CHRF -> per summarizer


def other_tables(inputs: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The long per-summary tables and signatures of the families whose system scores are means
    and medians (SERA's, the file metrics') among a job's named inputs: signature kind ->
    (table, signature file), in registry order."""
    return {f.signature_kind: (inputs[f.table], inputs[f.signature]) for f in REGISTRY.values()
            if not f.corpus_level and f.table and inputs.get(f.table)}


def corpus_system_scores(inputs: Mapping[str, str]) -> dict[str, list[tuple[str, float]]]:
    """The corpus score of every summarizer per variant of the corpus-level families scored by
    their own job (chrF: ``chrf_stats_CHRF``...), from their statistics among a job's named inputs
    (:func:`corpus_from_stats` with the family's corpus score; the score jobs' BLEU parts are not
    among them)."""
    return {variant: corpus_from_stats(expand_stats(read_stats(path)), family.corpus_score)
            for family in corpus_families() for key, path in sorted(inputs.items())
            if (variant := family.stats_variant(key)) is not None}


def family_signatures(inputs: Mapping[str, str]) -> list[tuple[str, str]]:
    """(kind, line) of the signature files among a job's named inputs: the corpus-level families'
    (chrF's), then the others' (SERA's, the file metrics'), each in registry order."""
    ordered = [*corpus_families(), *(f for f in REGISTRY.values() if not f.corpus_level)]
    return [(f.signature_kind, line) for f in ordered if f.signature and inputs.get(f.signature)
            for line in f.signature_lines(inputs[f.signature])]


def load_parts(inputs: Mapping[str, str], rouge: RougeOptions, bleu: bool, shards: int) -> Gathered:
    """Read every score job's files (by :func:`part_key`) and every other family's files among the
    named inputs: the long tables (:func:`other_tables`), the corpus scores of the statistics
    (:func:`corpus_system_scores`) and the signatures (:func:`family_signatures`); the per-summary
    rows in measure, setting, shard order."""
    by_setting = {(stem, stop): [read_part(inputs[part_key("scores", stem, stop, k)]) for k in range(shards)]
                  for stem, stop in rouge.settings}
    parts: dict[tuple[str, int, int], list] = {}
    bleu_stats: dict[tuple[int, int], list] = {}
    bleu_system: dict[tuple[int, int], list] = {}
    signatures: set[str] = set()
    for measure in [*rouge.measures, *(["BLEU"] if bleu else [])]:
        for stem, stop in rouge.settings:
            parts[(measure, stem, stop)] = [row for part in by_setting[(stem, stop)] for row in part.get(measure, [])]
    if bleu:
        for stem, stop in rouge.settings:
            stats = expand_stats([row for k in range(shards)
                                  for row in read_bleu_stats(inputs[part_key("bleu_stats", stem, stop, k)])])
            bleu_stats[(stem, stop)] = stats
            bleu_system[(stem, stop)] = corpus_bleu_from_stats(stats)
            for k in range(shards):
                path = inputs[part_key("bleu_signature", stem, stop, k)]
                signatures.update(Path(path).read_text(encoding="utf-8").splitlines())
    frames = [read_metric_scores(table) for table, _ in other_tables(inputs).values()]
    other = pd.concat(frames, ignore_index=True) if frames else None
    return Gathered(parts, bleu_stats, bleu_system, signatures, other, family_signatures(inputs),
                    corpus_system_scores(inputs))


def write_gathered(g: Gathered, rouge: RougeOptions, out: Mapping[str, str]) -> None:
    """summary_scores.tsv, system_scores.tsv, the merged BLEU statistics per setting
    (``bleu_stats_ST1_RS0``...) and scoring_signature.txt."""
    tables.write_tsv_parts(summary_scores_frames(g.parts), SUMMARY_COLUMNS, out["summaries"], blank=("P", "R", "F"))
    tables.write_tsv(system_scores_frame(g.parts, g.bleu_system, g.other, g.corpus_system), out["systems"])
    for (stem, stop), stats in g.bleu_stats.items():
        write_bleu_stats(stats, out[f"bleu_stats_{setting_tag(stem, stop)}"])
    if not rouge.measures:
        # a score-only data set (texts: false): the rule's BLEU statistics files hold the header only
        for key in (k for k in out if k.startswith("bleu_stats_")):
            write_bleu_stats([], out[key])
    lines = [f"rouge\t{rouge_signature(rouge)}" if rouge.measures else
             "rouge\tnot computed: the data set has no summary texts (texts: false); only metrics from score files"]
    lines.extend(f"bleu\t{s}" for s in sorted(g.bleu_signatures))
    lines.extend(f"{kind}\t{s}" for kind, s in g.other_signatures)
    write_text(out["signature"], "\n".join(lines) + "\n")


def score_dataset(ds: Dataset, measures: Sequence[Measure], settings: Sequence[Setting], alpha: float = 0.5,
                  mode: str = "A", jackknife_systems: bool = False
                  ) -> dict[tuple[str, int, int], list[tuple[str, str, float, float, float]]]:
    """Every measure under every setting, in one process (what the workflow does job by job)."""
    out = {}
    for setting in settings:
        scored = score_chunks([tokenize_dataset(ds, setting)], measures, alpha, mode, jackknife_systems, bleu=False)
        for m in measures:
            out[(m.id, int(setting.stem), int(setting.remove_stopwords))] = [
                (t, s, p, r, f) for (t, s), (p, r, f) in zip(scored.rows, scored.prf[m.id])]
    return out
