"""Scoring a whole data set: which summaries are scored against which references, the cached
token files, per-(measure, setting) score tables, and the summary- and system-level tables.

* Scored ("peer") summaries are the judged ones. Their references are the human summaries of the
  topic in summarizer order; a judged human summary is scored against the *other* references
  (jackknifing); with ``jackknife_systems`` a system summary is scored against every leave-one-out
  reference set and the scores are averaged (see :func:`metaeval.rouge.reference_sets`).
* System-level variants follow Graham (2015): ``{measure}_ST{0,1}_RS{0,1}_{A,M}_{P,R,F}`` is the
  mean (A) or median (M) over a summarizer's judged summaries of the per-summary P, R or F;
  ``BLEU_ST{s}_RS{r}`` is the corpus BLEU of the summarizer's summaries.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .bleu import corpus_bleu_signed, sentence_bleu, sentence_signature, sufficient_stats
from .datasets import Dataset, atomic_write_text
from .rouge import Measure, Task, encode, plan, reference_sets, score
from .tokenize import Setting, Tokenized, tokenize_summary

STATISTICS = ("A", "M")
PRF = ("P", "R", "F")


class ScoringError(ValueError):
    """A summary cannot be scored; the message names topic and summarizer."""


@dataclass(frozen=True)
class TokenRecord:
    topic: str
    summarizer: str
    kind: str
    judged: bool
    tokenized: Tokenized


def setting_from_tag(stem: int, stop: int, word_limit: int | None = None, byte_limit: int | None = None) -> Setting:
    return Setting(bool(int(stem)), bool(int(stop)), word_limit, byte_limit)


def tokenize_dataset(ds: Dataset, setting: Setting) -> list[TokenRecord]:
    """Every summary the scoring needs (judged ones, and the human summaries of their topics),
    tokenized as ROUGE-1.5.5 would, in the canonical order."""
    judged_topics = {t for t, _ in ds.judgments}
    out = []
    for s in ds.summaries:
        judged = s.key in ds.judgments
        if judged or (s.kind == "human" and s.topic in judged_topics):
            out.append(TokenRecord(s.topic, s.summarizer, s.kind, judged, tokenize_summary(s.sentences, setting)))
    return out


def write_tokens(records: Iterable[TokenRecord], path: Path | str) -> None:
    lines = (json.dumps({"topic": r.topic, "summarizer": r.summarizer, "kind": r.kind, "judged": r.judged,
                         "tokens": list(r.tokenized.tokens), "sentences": [list(s) for s in r.tokenized.sentences]},
                        ensure_ascii=True, separators=(",", ":")) for r in records)
    atomic_write_text(path, "".join(l + "\n" for l in lines))


def read_tokens(path: Path | str) -> list[TokenRecord]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            out.append(TokenRecord(d["topic"], d["summarizer"], d["kind"], d["judged"],
                                   Tokenized(tuple(d["tokens"]), tuple(tuple(s) for s in d["sentences"]))))
    return out


def scoring_task(records: Sequence[TokenRecord], jackknife_systems: bool) -> tuple[list[tuple[str, str]], Task]:
    """Rows (judged summaries, in order) and, for each, its reference sets (indices into records)."""
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
    rows, task = scoring_task(records, jackknife_systems)
    corpus = encode([r.tokenized for r in records])
    p, r, f = score(corpus, measure, plan(task), alpha, mode)
    return [(t, s, float(p[i]), float(r[i]), float(f[i])) for i, (t, s) in enumerate(rows)]


@dataclass
class BleuResult:
    per_summary: list[tuple[str, str, float]]          # smoothed sentence BLEU
    stats: list[tuple[str, str, int, list[float]]]     # (topic, summarizer, set k, sufficient statistics)
    signatures: list[str]


def bleu_scores(records: Sequence[TokenRecord], jackknife_systems: bool, smoothing: str) -> BleuResult:
    """Per-summary smoothed BLEU (sacrebleu's 0-100 scale), the per-summary sufficient statistics of
    the corpus BLEU (one row per reference set of the summary), and the distinct sacrebleu
    signatures. The corpus BLEU of a summarizer is computed from the statistics of all its
    summaries (:func:`corpus_bleu_from_stats`), so topics can be scored in shards."""
    rows, task = scoring_task(records, jackknife_systems)
    text = [" ".join(r.tokenized.tokens) for r in records]
    per_summary = []
    by_summarizer: dict[str, list[int]] = {}
    for row, ((topic, summarizer), peer, sets) in enumerate(zip(rows, task.peers, task.reference_sets)):
        scores = [sentence_bleu(text[peer], [text[m] for m in refs], smoothing) for refs in sets]
        per_summary.append((topic, summarizer, math.fsum(scores) / len(scores)))
        by_summarizer.setdefault(summarizer, []).append(row)
    stats = _bleu_statistics(rows, task, text)
    signatures = {f"per-summary: {sentence_signature(smoothing)}"}
    for summarizer, idx in by_summarizer.items():
        # the corpus signature names the number of references (nrefs); computed on this summarizer's corpus
        _, signature = corpus_bleu_signed([text[task.peers[i]] for i in idx],
                                          [[text[m] for m in task.reference_sets[i][0]] for i in idx])
        signatures.add(f"system: {signature}")
    return BleuResult(per_summary, stats, sorted(signatures))


def _bleu_statistics(rows: Sequence[tuple[str, str]], task: Task, text: Sequence[str]
                     ) -> list[tuple[str, str, int, list[float]]]:
    return [(topic, summarizer, k, sufficient_stats(text[peer], [text[m] for m in refs]))
            for (topic, summarizer), peer, sets in zip(rows, task.peers, task.reference_sets)
            for k, refs in enumerate(sets)]


def bleu_statistics(records: Sequence[TokenRecord], jackknife_systems: bool) -> list[tuple[str, str, int, list[float]]]:
    """Only the per-summary sufficient statistics of :func:`bleu_scores` (all a corpus BLEU needs)."""
    rows, task = scoring_task(records, jackknife_systems)
    return _bleu_statistics(rows, task, [" ".join(r.tokenized.tokens) for r in records])


def expand_stats(stats: Sequence[tuple[str, str, int, list[float]]]) -> list[tuple[str, str, int, list[float]]]:
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


def corpus_bleu_from_stats(stats: Sequence[tuple[str, str, int, list[float]]]) -> list[tuple[str, float]]:
    """Corpus BLEU per summarizer from expanded per-summary statistics: for every set k the BLEU of
    the summed statistics (sacrebleu's own formula, so equal to its corpus_score), averaged over k."""
    from .bleu import corpus_metric

    sums: dict[str, dict[int, list[float]]] = {}
    for _, s, k, st in stats:
        acc = sums.setdefault(s, {}).setdefault(k, [0.0] * len(st))
        for i, x in enumerate(st):
            acc[i] += x
    metric = corpus_metric()
    out = []
    for s in sorted(sums):
        values = [metric._compute_score_from_stats([int(x) for x in sums[s][k]]).score for k in sorted(sums[s])]
        out.append((s, math.fsum(values) / len(values)))
    return out


def read_bleu_stats(path: Path | str) -> list[tuple[str, str, int, list[float]]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()[1:]
    return [(c[0], c[1], int(c[2]), [float(x) for x in c[3:]]) for c in (l.split("\t") for l in lines)]


def write_bleu_stats(stats: Iterable[tuple[str, str, int, list[float]]], path: Path | str) -> None:
    header = "topic\tsummarizer\tset\thyp_len\tref_len\t" + "\t".join(
        [f"correct_{n}" for n in range(1, 5)] + [f"total_{n}" for n in range(1, 5)])
    body = "".join(f"{t}\t{s}\t{k}\t" + "\t".join(str(int(x)) for x in st) + "\n" for t, s, k, st in stats)
    atomic_write_text(path, header + "\n" + body)


# ----------------------------------------------------------------------------- tables

def fmt(x: float) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))


def write_part(rows: Iterable[tuple[str, str, float, float, float]], path: Path | str) -> None:
    body = "".join(f"{t}\t{s}\t{fmt(p)}\t{fmt(r)}\t{fmt(f)}\n" for t, s, p, r, f in rows)
    atomic_write_text(path, "topic\tsummarizer\tP\tR\tF\n" + body)


def read_part(path: Path | str) -> list[tuple[str, str, float, float, float]]:
    out = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        t, s, p, r, f = line.split("\t")
        num = lambda v: float(v) if v else math.nan  # noqa: E731
        out.append((t, s, num(p), num(r), num(f)))
    return out


def variant_id(measure: str, stem: int, stop: int, statistic: str | None = None, prf: str | None = None) -> str:
    """Graham's (2015) variant id, e.g. R2_ST1_RS0_A_P; BLEU_ST0_RS1 for BLEU."""
    base = f"{measure}_ST{stem}_RS{stop}"
    return base if statistic is None else f"{base}_{statistic}_{prf}"


def summary_scores_table(parts: Mapping[tuple[str, int, int], Sequence[tuple[str, str, float, float, float]]]) -> str:
    """summary_scores.tsv: topic, summarizer, measure, stem, stopwords_removed, P, R, F."""
    lines = ["topic\tsummarizer\tmeasure\tstem\tstopwords_removed\tP\tR\tF"]
    for (measure, stem, stop), rows in parts.items():
        for t, s, p, r, f in rows:
            lines.append(f"{t}\t{s}\t{measure}\t{stem}\t{stop}\t{fmt(p)}\t{fmt(r)}\t{fmt(f)}")
    return "\n".join(lines) + "\n"


def read_metric_scores(path: Path | str) -> list[tuple[str, str, str, float]]:
    """A long per-summary table of other metrics (topic, summarizer, metric, score), e.g. SERA."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines()[1:]:
        t, s, m, v = line.split("\t")
        out.append((t, s, m, math.nan if v in ("", "NA") else float(v)))
    return out


def system_scores_table(parts: Mapping[tuple[str, int, int], Sequence[tuple[str, str, float, float, float]]],
                        bleu_system: Mapping[tuple[int, int], Sequence[tuple[str, float]]],
                        other: Sequence[tuple[str, str, str, float]] = ()) -> str:
    """system_scores.tsv: summarizer, variant, score (ROUGE variants: mean/median of P, R, F over
    the summarizer's judged summaries; BLEU: its corpus BLEU; other per-summary metrics such as
    SERA5_PL: their mean (``_A``) and median (``_M``), e.g. SERA5_PL_A)."""
    lines = ["summarizer\tvariant\tscore"]
    values: dict[str, list[tuple[str, float]]] = {}
    for (measure, stem, stop), rows in parts.items():
        if measure == "BLEU":
            continue
        by: dict[str, list[tuple[float, float, float]]] = {}
        for _, s, p, r, f in rows:
            by.setdefault(s, []).append((p, r, f))
        for s, triples in by.items():
            for stat in STATISTICS:
                for k, name in enumerate(PRF):
                    xs = [t[k] for t in triples]
                    v = math.fsum(xs) / len(xs) if stat == "A" else statistics.median(xs)
                    values.setdefault(s, []).append((variant_id(measure, stem, stop, stat, name), v))
    for (stem, stop), rows in bleu_system.items():
        for s, v in rows:
            values.setdefault(s, []).append((variant_id("BLEU", stem, stop), v))
    by_metric: dict[str, dict[str, list[float]]] = {}
    for _, s, metric, v in other:
        if not math.isnan(v):
            by_metric.setdefault(metric, {}).setdefault(s, []).append(v)
    for metric, per in by_metric.items():
        for s, xs in per.items():
            values.setdefault(s, []).append((f"{metric}_A", math.fsum(xs) / len(xs)))
            values.setdefault(s, []).append((f"{metric}_M", statistics.median(xs)))
    for s in sorted(values):
        for variant, v in values[s]:
            lines.append(f"{s}\t{variant}\t{fmt(v)}")
    return "\n".join(lines) + "\n"


def rouge_signature(rouge: Mapping[str, object]) -> str:
    """A reproducibility signature of the ROUGE options, in sacrebleu's style."""
    from . import __version__

    limit = (f"w{rouge['word_limit']}" if rouge.get("word_limit") else
             f"b{rouge['byte_limit']}" if rouge.get("byte_limit") else "none")
    return "|".join([
        "ROUGE-1.5.5-exact",
        f"measures:{','.join(rouge['measures'])}",
        f"stem:{','.join(map(str, rouge['stemming']))}",
        f"stop:{','.join(map(str, rouge['stopwords_removed']))}",
        f"w:{rouge['wlcs_weight']}",
        f"alpha:{rouge['alpha']}",
        f"f:{rouge['multiple_references']}",
        f"jk:{'yes' if rouge['jackknife_systems'] else 'no'}",
        f"limit:{limit}",
        f"metaeval:{__version__}",
    ])


def gather(paths: Sequence[str], measures: Sequence[str], settings: Sequence[Sequence[int]], shards: int,
           bleu: Mapping[str, object], rouge: Mapping[str, object], summary_out: str, system_out: str,
           signature_out: str, bleu_stats_out: Mapping[tuple[int, int], str], other_scores: Sequence[str] = (),
           other_signatures: Sequence[str] = ()) -> None:
    """Read the per-(measure, setting, shard) tables named as the workflow names them, and write
    the two score tables, the merged BLEU statistics and the scoring signature."""
    by_name = {Path(p).name: p for p in paths}

    def shard_files(stem: str, ext: str = "tsv") -> list[str]:
        return [by_name[f"{stem}.shard{k}.{ext}"] for k in range(shards)]

    parts: dict[tuple[str, int, int], list] = {}
    bleu_system: dict[tuple[int, int], list] = {}
    bleu_signatures: set[str] = set()
    for measure in [*measures, *(["BLEU"] if bleu["enabled"] else [])]:
        for stem, stop in settings:
            tag = f"ST{stem}_RS{stop}"
            parts[(measure, stem, stop)] = [row for f in shard_files(f"{measure}_{tag}") for row in read_part(f)]
            if measure == "BLEU":
                stats = expand_stats([row for f in shard_files(f"BLEU_stats_{tag}") for row in read_bleu_stats(f)])
                write_bleu_stats(stats, bleu_stats_out[(stem, stop)])
                bleu_system[(stem, stop)] = corpus_bleu_from_stats(stats)
                for f in shard_files(f"BLEU_signature_{tag}", "txt"):
                    bleu_signatures.update(Path(f).read_text().splitlines())
    atomic_write_text(summary_out, summary_scores_table(parts))
    other = [row for f in other_scores for row in read_metric_scores(f)]
    atomic_write_text(system_out, system_scores_table(parts, bleu_system, other))
    lines = [f"rouge\t{rouge_signature(rouge)}"]
    lines.extend(f"bleu\t{s}" for s in sorted(bleu_signatures))
    lines.extend(f"sera\t{s}" for s in other_signatures)
    atomic_write_text(signature_out, "\n".join(lines) + "\n")


def shard_records(records: Sequence[TokenRecord], shard: int, shards: int) -> list[TokenRecord]:
    """The records of topic shard ``shard`` of ``shards``: the sorted topics cut into contiguous,
    nearly equal chunks (a topic's summaries and references always share a shard)."""
    topics = sorted({r.topic for r in records})
    size, extra = divmod(len(topics), shards)
    start = shard * size + min(shard, extra)
    chosen = set(topics[start:start + size + (1 if shard < extra else 0)])
    return [r for r in records if r.topic in chosen]


def score_dataset(ds: Dataset, measures: Sequence[Measure], settings: Sequence[Setting], alpha: float = 0.5,
                  mode: str = "A", jackknife_systems: bool = False
                  ) -> dict[tuple[str, int, int], list[tuple[str, str, float, float, float]]]:
    """Every measure under every setting, in one process (what the workflow does job by job)."""
    out = {}
    for setting in settings:
        records = tokenize_dataset(ds, setting)
        rows, task = scoring_task(records, jackknife_systems)
        corpus = encode([r.tokenized for r in records])
        pl = plan(task)
        for m in measures:
            p, r, f = score(corpus, m, pl, alpha, mode)
            out[(m.id, int(setting.stem), int(setting.remove_stopwords))] = [
                (t, s, float(p[i]), float(r[i]), float(f[i])) for i, (t, s) in enumerate(rows)]
    return out
