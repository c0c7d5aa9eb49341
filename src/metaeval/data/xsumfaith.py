"""XSumFaith (Maynez, Narayan, Bohnet & McDonald 2020), google-research-datasets/xsum_hallucination_annotations
-> the canonical form, the per-worker judgments as annotations, and a score file of the authors'
metrics. The only module that knows the release's layout (three CSV files, by their release names):

* ``hallucination_annotations_xsum_summaries.csv``: ``bbcid, system, summary, hallucination_type,
  hallucinated_span, hallucinated_span_start, hallucinated_span_end, worker_id``: one row per span a
  worker (``wid_0`` .. ``wid_2``) marked as not supported by the article (``NULL`` and -1 / -1: the
  worker marked none), for 500 BBC articles x 5 summarizers (BERTS2S, PtGen, TConvS2S, TranS2S, and
  Gold, the XSum reference itself);
* ``factuality_annotations_xsum_summaries.csv``: ``bbcid, system, summary, is_factual, worker_id``:
  the system summaries with a hallucinated span, judged factual (``yes``) or not (``no``; ``NULL``:
  no answer) by each worker;
* ``eval_scores_xsum_summaries.csv``: ``system_bbcid, R1, R2, RL, BERTScore, Entailment, Faithful,
  Factual``: the authors' metric scores and aggregated human scores of 1,992 system summaries. Its
  key joins a short system name and the article id; the short names are not the annotation files'
  (:data:`SYSTEMS`, established from the data: ``tests/test_xsumfaith.py`` recomputes Faithful from
  the spans under every assignment of names).

The canonical copy: topic = ``bbcid``; summarizer = the annotation files' system name; Gold is the
reference (kind human) of its topic's four system summaries, one sentence each (XSum summaries are
one sentence), the release's escaped apostrophes (``\\'``, in the hallucination file only) unescaped
as the factuality file and the span offsets have them. The dimensions ``faithful`` and ``factual``
are the authors' aggregates as released (``Faithful``, ``Factual``), for the summaries the eval
file scores; Gold has none (the release gives no aggregate of it) and is scored by no metric. The
per-worker judgments are annotations (annotators ``wid_0`` .. ``wid_2``, positions: the release does
not say who they are): ``faithful`` = the share of the summary's words outside every span the
worker marked (a word, a run of non-space characters, inside a span; offsets 1-based in the
unescaped text, a span starting at 0 taken from the start), the authors' stated rule, whose mean
over the three workers is the released Faithful on 1,937 of the 1,992 summaries (mean absolute
difference 0.0013); ``factual`` = 1 (yes) or 0 (no) where the worker answered. No articles: they
are the XSum corpus's.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Iterator

from ..metrics.families import metric_id_problem
from .contract import (Annotation, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, fail,
                       parse_number, read_text)
from .canonical_files import check_imported
from .dataset_yaml import dimension_spec
# the release's files, declared with the format
from .formats import XSUMFAITH_FACTUAL as FACTUAL, XSUMFAITH_SCORES as SCORES, XSUMFAITH_SPANS as SPANS

GOLD = "Gold"
# eval_scores' short system names -> the annotation files' names. Recomputing Faithful from the
# spans matches the released value on 90 % or more of a short name's summaries under this
# assignment, and on under 3 % under any other (tests/test_xsumfaith.py)
SYSTEMS = {"bert_withckpt": "BERTS2S", "bert_nockpt": "TranS2S", "ptgen": "PtGen", "tconvs2s": "TConvS2S"}
WORKERS = ("wid_0", "wid_1", "wid_2")
SPAN_COLUMNS = ("bbcid", "system", "summary", "hallucination_type", "hallucinated_span", "hallucinated_span_start",
                "hallucinated_span_end", "worker_id")
FACTUAL_COLUMNS = ("bbcid", "system", "summary", "is_factual", "worker_id")
SCORE_COLUMNS = ("system_bbcid", "R1", "R2", "RL", "BERTScore", "Entailment", "Faithful", "Factual")
# the release's metric columns -> score-file metric ids (its ROUGE prefixed, so as not to be taken
# for the ROUGE the workflow computes)
METRICS = {"R1": "XSumFaith_ROUGE_1", "R2": "XSumFaith_ROUGE_2", "RL": "XSumFaith_ROUGE_L", "BERTScore": "BERTScore",
           "Entailment": "Entailment"}
METRIC_DESCRIPTIONS = {"R1": "the authors' ROUGE-1 F1 against the reference", "R2": "the authors' ROUGE-2 F1",
                       "RL": "the authors' ROUGE-L F1", "BERTScore": "BERTScore (Zhang et al. 2019), the authors' run",
                       "Entailment": "the probability that the article entails the summary (the authors' "
                                     "entailment classifier)"}
HALLUCINATION_TYPES = ("extrinsic", "intrinsic", "NULL")
ANSWERS = {"yes": 1.0, "no": 0.0}
WORD = re.compile(r"\S+")


def unescape(text: str) -> str:
    """The hallucination file's summary as the workers saw it: ``\\'`` is ``'``."""
    return text.replace("\\'", "'")


def _rows(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row) of a release CSV whose header is ``columns``."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    header = next(reader, None)
    if header != list(columns):
        raise fail(path, 1, None, f"header {header}; expected the release's columns {', '.join(columns)}")
    for cells in reader:
        if len(cells) != len(columns):
            raise fail(path, reader.line_num, None, f"{len(cells)} cells; expected {len(columns)} "
                                                   f"({', '.join(columns)})")
        yield reader.line_num, dict(zip(columns, cells))


def _names(path: Path, line: int, row: dict[str, str], twins: NameTwins) -> tuple[str, str]:
    for field in ("bbcid", "system"):
        if not row[field]:
            raise fail(path, line, field, "empty; expected a name")
        check_name(path, line, field, row[field])
        twins.check(path, line, field, row[field])
    return row["bbcid"], row["system"]


def _worker(path: Path, line: int, row: dict[str, str]) -> str:
    if row["worker_id"] not in WORKERS:
        raise fail(path, line, "worker_id", f"{row['worker_id']!r}; expected one of {', '.join(WORKERS)}")
    return row["worker_id"]


def _offset(path: Path, line: int, field: str, cell: str) -> int:
    if not re.fullmatch(r"-?[0-9]+", cell):
        raise fail(path, line, field, f"{cell!r}; expected a whole number (a character offset, -1 for none)")
    return int(cell)


def faithful_share(text: str, spans: list[tuple[int, int]]) -> float:
    """The share of ``text``'s words (runs of non-space characters) outside every span, a span
    ``(start, end)`` in the release's offsets (1-based in the unescaped text, end exclusive; a span
    starting at 0 is taken from the start of the text)."""
    words = [(m.start(), m.end()) for m in WORD.finditer(text)]
    if not words:
        return 1.0
    bounds = [(s - 1, e - 1) if s > 0 else (0, e) for s, e in spans]
    inside = sum(any(a >= s and b <= e for s, e in bounds) for a, b in words)
    return (len(words) - inside) / len(words)


def _spans(path: Path, twins: NameTwins) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], dict[str, list]]]:
    """Every summary's text and, per worker, the spans it marked ([] for none)."""
    texts: dict[tuple[str, str], tuple[str, int]] = {}
    spans: dict[tuple[str, str], dict[str, list[tuple[int, int]]]] = {}
    for line, row in _rows(path, SPAN_COLUMNS):
        key = _names(path, line, row, twins)
        first = texts.setdefault(key, (row["summary"], line))
        if first[0] != row["summary"]:
            raise fail(path, line, "summary", f"differs from the summary of ({key[0]}, {key[1]}) on line {first[1]}; "
                                              "expected one text per article and system")
        if row["hallucination_type"] not in HALLUCINATION_TYPES:
            raise fail(path, line, "hallucination_type", f"{row['hallucination_type']!r}; expected one of "
                                                         f"{', '.join(HALLUCINATION_TYPES)}")
        start = _offset(path, line, "hallucinated_span_start", row["hallucinated_span_start"])
        end = _offset(path, line, "hallucinated_span_end", row["hallucinated_span_end"])
        marked = spans.setdefault(key, {}).setdefault(_worker(path, line, row), [])
        if row["hallucination_type"] == "NULL":
            if (start, end) != (-1, -1):
                raise fail(path, line, "hallucinated_span_start", f"{start}, {end} for a NULL span; expected -1, -1")
            continue
        if not 0 <= start < end <= len(unescape(row["summary"])) + 1:
            raise fail(path, line, "hallucinated_span_end", f"the span {start}..{end} is not within the summary's "
                                                            f"{len(unescape(row['summary']))} characters")
        marked.append((start, end))
    return {k: unescape(t) for k, (t, _) in texts.items()}, spans


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _factual(path: Path, texts: dict[tuple[str, str], str], twins: NameTwins) -> list[Annotation]:
    """The workers' factuality answers (a summary the hallucination file has, the same text up to
    spacing and punctuation; each worker once)."""
    out, seen = [], {}
    for line, row in _rows(path, FACTUAL_COLUMNS):
        key = _names(path, line, row, twins)
        if key not in texts:
            raise fail(path, line, "system", f"({key[0]}, {key[1]}) is not a summary of {SPANS}")
        if key[1] == GOLD:
            raise fail(path, line, "system", "the reference (Gold) is judged for faithfulness only; expected a system")
        if _letters(row["summary"]) != _letters(texts[key]):
            raise fail(path, line, "summary", f"differs from {SPANS}'s text of ({key[0]}, {key[1]}) in its letters "
                                              "and digits; expected the same summary")
        worker = _worker(path, line, row)
        if (key, worker) in seen:
            raise fail(path, line, "worker_id", f"{worker} answers for ({key[0]}, {key[1]}) again (first on line "
                                                f"{seen[key, worker]}); expected one answer per worker")
        seen[key, worker] = line
        if row["is_factual"] == "NULL":
            continue                      # no answer: no annotation
        if row["is_factual"] not in ANSWERS:
            raise fail(path, line, "is_factual", f"{row['is_factual']!r}; expected yes, no or NULL")
        out.append(Annotation(*key, "factual", worker, "crowd", ANSWERS[row["is_factual"]]))
    return out


def _scores(path: Path, texts: dict[tuple[str, str], str]
            ) -> tuple[dict[tuple[str, str], dict[str, float]], list[tuple[str, str, str, float]]]:
    """The authors' human scores (judgments) and metric scores, each key mapped to an annotated
    summary (an error names the line and the field otherwise)."""
    judgments: dict[tuple[str, str], dict[str, float]] = {}
    rows: list[tuple[str, str, str, float]] = []
    lines: dict[tuple[str, str], int] = {}
    for line, row in _rows(path, SCORE_COLUMNS):
        short, _, bbcid = row["system_bbcid"].rpartition("_")
        if short not in SYSTEMS or not bbcid:
            raise fail(path, line, "system_bbcid", f"{row['system_bbcid']!r}; expected <system>_<bbcid> with the "
                                                   f"system one of {', '.join(SYSTEMS)}")
        key = (bbcid, SYSTEMS[short])
        if key not in texts:
            raise fail(path, line, "system_bbcid", f"{row['system_bbcid']!r} maps to ({bbcid}, {SYSTEMS[short]}), which "
                                                   f"{SPANS} does not annotate; expected an annotated summary")
        if key in lines:
            raise fail(path, line, "system_bbcid", f"{row['system_bbcid']!r} again (first on line {lines[key]})")
        lines[key] = line
        values = {c: parse_number(path, line, c, row[c], "a number") for c in SCORE_COLUMNS[1:]}
        for c in ("Faithful", "Factual"):
            if not 0 <= values[c] <= 1:
                raise fail(path, line, c, f"{values[c]!r} is outside [0, 1]")
        judgments[key] = {"faithful": values["Faithful"], "factual": values["Factual"]}
        rows += [(*key, METRICS[c], values[c]) for c in METRICS]
    return judgments, rows


def import_xsumfaith(paths: list[Path | str], name: str = "xsumfaith"
                     ) -> tuple[Dataset, list[tuple[str, str, str, float]], dict[str, dict[str, str]]]:
    """(the data set with its annotations, the authors' metric rows (topic, summarizer, metric, score),
    their declarations). ``paths``: the three files, by their release names. Errors name the file,
    the line and the field."""
    by_name = {Path(p).name: Path(p) for p in paths}
    missing = [n for n in (SPANS, FACTUAL, SCORES) if n not in by_name]
    if missing:
        raise DatasetError(f"{missing[0]}: not among the files given ({', '.join(map(str, paths))}); expected "
                           f"XSumFaith's {SPANS}, {FACTUAL} and {SCORES}")
    twins = NameTwins()
    texts, spans = _spans(by_name[SPANS], twins)
    systems = sorted({s for _, s in texts})
    if GOLD not in systems:
        raise DatasetError(f"{by_name[SPANS]}: no summary of the system {GOLD}; expected the reference among the "
                           "judged summaries")
    for topic in sorted({t for t, _ in texts}):
        if (topic, GOLD) not in texts:
            raise fail(by_name[SPANS], None, "system", f"article {topic} has no {GOLD} summary; expected its reference")
    summaries = []
    for (topic, system), text in sorted(texts.items()):
        s = Summary(topic, system, "human" if system == GOLD else "system", (text,))
        check_imported(by_name[SPANS], f"article {topic}, system {system}", s, "summary", fields=("bbcid", "system"))
        summaries.append(s)
    annotations = [Annotation(*key, "faithful", worker, "crowd", faithful_share(texts[key], marked))
                   for key, by_worker in sorted(spans.items()) for worker, marked in sorted(by_worker.items())]
    annotations += _factual(by_name[FACTUAL], texts, twins)
    judgments, rows = _scores(by_name[SCORES], texts)
    for metric in METRICS.values():
        if metric_id_problem(metric):
            raise DatasetError(f"{by_name[SCORES]}: the metric id {metric!r}: {metric_id_problem(metric)}")
    dims = {"faithful": Dimension("faithful", 0.0, 1.0, "the authors' faithfulness score (Faithful): the share of the "
                                  "summary's words outside the spans a worker marked as unsupported by the article, "
                                  "averaged over the 3 workers", "proportion", role="factual"),
            "factual": Dimension("factual", 0.0, 1.0, "the authors' factuality score (Factual): the share of the 3 "
                                 "workers who judged the summary factual (1 where no worker marked a span)",
                                 "proportion", role="factual")}
    declarations = {m: {"name": m, "description": METRIC_DESCRIPTIONS[c] + " (XSumFaith's eval_scores)"}
                    for c, m in sorted(METRICS.items(), key=lambda x: x[1])}
    human = {"coverage": ["faithful"], "linguistic_quality": []}
    unscored = sum(1 for k in texts if k[1] != GOLD and k not in judgments)
    meta = {
        "name": name,
        "description": f"XSumFaith (Maynez et al., 2020): {len(texts) // len(systems)} BBC articles x "
                       f"{len(systems) - 1} systems ({', '.join(s for s in systems if s != GOLD)}) and the XSum "
                       "reference (Gold, itself judged), each summary's unsupported spans marked by 3 workers and "
                       "each system summary with a span judged factual or not; faithful and factual are the authors' "
                       f"aggregates of the {len(judgments)} system summaries they scored ({unscored} other system "
                       "summaries have annotations only), the per-worker judgments are annotations, and the authors' "
                       "metric scores a score file. Metrics are correlated over all judged summaries pooled, as the "
                       "paper reports them. No articles (the XSum corpus's); Gold is the reference of the others.",
        "source": f"google-research-datasets/xsum_hallucination_annotations ({SPANS}, {FACTUAL}, {SCORES})",
        "license": "CC BY 4.0 (google-research-datasets/xsum_hallucination_annotations)",
        "citation": "Maynez, Narayan, Bohnet & McDonald 2020. On Faithfulness and Factuality in Abstractive "
                    "Summarization. ACL.",
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": human,
        "summary_level": "pooled",
    }
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=summaries, judgments=judgments,
                 annotations=annotations)
    return ds, rows, declarations
