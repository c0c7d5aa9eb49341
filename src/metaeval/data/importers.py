"""Importers: other layouts -> the canonical form (a :class:`~metaeval.data.contract.Dataset`).

- :func:`import_summeval_jsonl`: the official SummEval paired annotation file(s).
- :func:`import_duc_tac`: NIST DUC/TAC folders (summary files named
  ``<TOPIC>.M.<LEN>.<X>.<SUMMARIZER>``) with a DUC SEE table and/or a TAC ``manual.peer`` table.

Every problem raises :class:`~metaeval.data.contract.DatasetError` naming the file, line and field.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..files import read_text
from .canonical_files import annotation_means, check_imported, check_judged_references, check_sentences
from .contract import (REFERENCE_NAME, Annotation, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name,
                       check_text, fail, json_objects, parse_number)
from .dataset_yaml import dimension_spec
from .sentences import split_sentences
# a DUC/TAC summary file's name and the importer's record, declared with the format
from .formats import SUMMARY_FILE, DucTacOptions

# ----------------------------------------------------------------------------- SummEval

SUMMEVAL_DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")


# The annotator groups of the release: its expert and crowd (turker) annotation lists.
SUMMEVAL_GROUPS = (("expert", "expert_annotations"), ("crowd", "turker_annotations"))


def _annotations(path: Path, line_no: int, rec: Mapping[str, Any], topic: str, system: str) -> list[Annotation]:
    """A record's expert and crowd annotations, annotator ``expert1``.. / ``crowd1``.. by position."""
    out = []
    for group, field_name in SUMMEVAL_GROUPS:
        anns = rec.get(field_name)
        if not isinstance(anns, list) or not anns:
            raise fail(path, line_no, field_name, "expected a non-empty list of {dimension: score} objects")
        for i, a in enumerate(anns):
            for dim in SUMMEVAL_DIMENSIONS:
                value = a.get(dim) if isinstance(a, dict) else None
                where = f"{field_name}[{i}].{dim}"
                if value is None:
                    raise fail(path, line_no, where, "None: missing or not a number from 1 to 5")
                number = parse_number(path, line_no, where, value, "a JSON number from 1 to 5", text=False)
                if not 1 <= number <= 5:
                    raise fail(path, line_no, where, f"{value!r}: missing or not a number from 1 to 5")
                out.append(Annotation(topic, system, dim, f"{group}{i + 1}", group, number))
    return out


def import_summeval_jsonl(paths: Iterable[Path | str], name: str = "summeval") -> Dataset:
    """Read the official SummEval paired annotation jsonl (one or more files of the same records).

    Topic = record ``id``; summarizer = ``model_id``; the summary is ``decoded`` split into
    sentences by :func:`metaeval.sentences.split_sentences`; ``references`` become human summaries
    ``ref0``..``refN`` in the file's order; the record's ``text`` (the source article) becomes the
    topic's document. Every annotation is kept (annotations.tsv): the experts as ``expert1``..
    ``expert3`` (group ``expert``) and the crowd workers as ``crowd1``..``crowd5`` (group ``crowd``),
    numbered by their position in the record's list — the release does not name its annotators, so
    a position is the same person across records only as far as the release keeps the order. The
    judgment of a dimension is the mean of its expert annotations, ``turker_<dim>`` the mean of its
    crowd annotations (dataset.yaml says so: ``annotations: {dimension, group}``).
    """
    summaries: dict[tuple[str, str], Summary] = {}
    annotations: list[Annotation] = []
    refs: dict[str, tuple[Path, int, list[str]]] = {}
    documents: dict[str, list[str]] = {}
    twins = NameTwins()
    for path in sorted(Path(p) for p in paths):
        for line_no, rec in json_objects(path, "one SummEval record per line"):
            for key in ("id", "model_id", "decoded"):
                if not isinstance(rec.get(key), str):
                    raise fail(path, line_no, key, "missing or not a string")
            topic, system = rec["id"], rec["model_id"]
            for key in ("id", "model_id"):
                check_name(path, line_no, key, rec[key])
                twins.check(path, line_no, key, rec[key])
            if REFERENCE_NAME.fullmatch(system.strip()):
                raise fail(path, line_no, "model_id", f"{system!r} is a name the importer gives a reference summary "
                           "(ref0, ref1, ... in the order of 'references'); expected another name for a system")
            if (topic, system) in summaries:
                raise fail(path, line_no, "model_id", f"second record for ({topic!r}, {system!r})")
            references = rec.get("references")
            if not isinstance(references, list) or not references or not all(isinstance(r, str) for r in references):
                raise fail(path, line_no, "references", "expected a non-empty list of strings")
            if topic in refs:
                first_path, first_line, first = refs[topic]
                if first != references:
                    raise fail(path, line_no, "references",
                               f"differ from the references of the same id in {first_path}, line {first_line}")
            else:
                refs[topic] = (path, line_no, references)
                for i, ref in enumerate(references):      # once per topic: the others must be the same
                    check_sentences(path, line_no, f"references[{i}]", split_sentences(ref))
            if isinstance(rec.get("text"), str) and topic not in documents:
                documents[topic] = [rec["text"]]
            summaries[(topic, system)] = Summary(topic, system, "system",
                                                 tuple(split_sentences(rec["decoded"])), line_no)
            # what the canonical copy would refuse is refused here, naming the release's line
            check_imported(path, line_no, summaries[(topic, system)], "decoded", fields=("id", "model_id"))
            annotations.extend(_annotations(path, line_no, rec, topic, system))
    if not summaries:
        raise DatasetError(f"{', '.join(map(str, paths))}: no SummEval records found")
    for topic, (_, _, references) in refs.items():
        for i, ref in enumerate(references):
            summaries[(topic, f"ref{i}")] = Summary(topic, f"ref{i}", "human", tuple(split_sentences(ref)))
    # SummEval defines consistency as "the factual alignment between the summary and the summarized
    # source" (Fabbri et al. 2021, §4.3): a factual dimension
    role = {d: "factual" if d == "consistency" else None for d in SUMMEVAL_DIMENSIONS}
    dims = {d: Dimension(d, 1.0, 5.0, f"expert {d}, mean of the 3 expert annotations", annotation_group="expert",
                         role=role[d])
            for d in SUMMEVAL_DIMENSIONS}
    dims.update({f"turker_{d}": Dimension(f"turker_{d}", 1.0, 5.0, f"crowd {d}, mean of the 5 crowd annotations",
                                          annotations_of=d, annotation_group="crowd", role=role[d])
                 for d in SUMMEVAL_DIMENSIONS})
    means = annotation_means(dims, annotations)
    judgments = {key: {d: means[d][key] for d in dims} for key in sorted({a.key for a in annotations})}
    human = {"coverage": ["relevance"], "linguistic_quality": ["coherence", "fluency"]}
    meta = {
        "name": name,
        "description": "SummEval (Fabbri et al., 2021), imported from the official paired annotation jsonl: "
                       "system summaries of CNN/DailyMail articles rated 1-5 by 3 experts and 5 crowd workers; "
                       "every annotation is in annotations.tsv.",
        "source": ", ".join(str(p) for p in paths),
        "license": "SummEval annotations: MIT (Yale-LILY/SummEval); CNN/DailyMail: see its terms",
        "citation": "Fabbri et al. 2021. SummEval: Re-evaluating Summarization Evaluation. TACL 9.",
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": human,
    }
    return Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=list(summaries.values()),
                   judgments=judgments, documents=documents or None, annotations=annotations)


# ----------------------------------------------------------------------------- DUC / TAC

_SEE_LINE = re.compile(r'<a (?:size="\d+" )?name="\d+">\[\d+\]</a>\s*<a href="#\d+" id=\d+>([^<]*)</a>')
GRADES = "ABCDE"
MISSING = ("", "-", "NA", "NAN")   # a missing value in NIST's tables (any case)


def summarizer_kind(summarizer: str) -> str:
    """NIST convention: letters name human summarizers, digits name systems."""
    if summarizer.isalpha():
        return "human"
    if summarizer.isdigit():
        return "system"
    raise ValueError(summarizer)


def read_duc_summary(path: Path, one_sentence_per_line: bool = True) -> tuple[str, ...]:
    """Sentences of one NIST summary file: SEE html (``<a name=..>[n]</a> <a href=.. id=n>text</a>``),
    one sentence per line, or running text split by :func:`split_sentences`."""
    try:
        text = read_text(path)
    except UnicodeDecodeError:
        text = read_text(path, encoding="latin-1")  # old NIST files are Latin-1
    see = _SEE_LINE.findall(text)
    if see:
        return tuple(see)
    lines = [l.rstrip("\r") for l in text.split("\n") if l.strip()]
    if one_sentence_per_line:
        return tuple(lines)
    return tuple(split_sentences(" ".join(lines)))


def grade_to_unit(cell: str, direction: str) -> float:
    """A DUC quality grade (A-E, or 1-5 meaning A-E) on [0, 1]: with ``A_best`` A = 100 %,
    B = 75 %, C = 50 %, D = 25 %, E = 0 %; ``E_best`` reverses the scale. Missing: NaN."""
    c = cell.strip().upper()
    if c in MISSING:
        return math.nan
    if c in ("1", "2", "3", "4", "5"):
        c = GRADES[int(c) - 1]
    if c not in GRADES:
        raise ValueError(cell)
    pos = GRADES.index(c)
    return (4 - pos) / 4 if direction == "A_best" else pos / 4


def _float(path: Path, line_no: int, col: int, cell: str, what: str) -> float:
    """A number cell of a NIST table, by the contract's rules; NA, NaN or - is a missing value."""
    if cell.strip().upper() in MISSING:
        return math.nan
    return parse_number(path, line_no, f"column {col} ({what})", cell)


def read_see_table(path: Path, grade_direction: str = "A_best") -> dict[tuple[str, str], dict[str, float]]:
    """DUC SEE table (e.g. DUC 2004): whitespace-separated; after the header, column 0 topic,
    7 summarizer, 8-14 the seven quality questions, 16 peer units, 17 marked peer units,
    19 model units, 20 mean coverage E. Coverage score (Graham 2015) CS = marked PUs * E / MUs."""
    out: dict[tuple[str, str], dict[str, float]] = {}
    started = False
    for line_no, line in enumerate(read_text(path, errors="replace").split("\n"), start=1):
        cells = line.split()
        if not cells:
            continue
        is_data = len(cells) >= 21 and _looks_numeric(cells[16]) and _looks_numeric(cells[20])
        if not is_data:
            # a header has no number where a row has its unit counts; a row cut short (a cell lost) does
            if started or _row_like(cells, (16, 20)):
                raise fail(path, line_no, None, f"{len(cells)} columns; expected a SEE table row with at least 21 "
                           "(0 topic, 7 summarizer, 8-14 quality grades, 16/17/19 unit counts, 20 mean coverage)")
            continue  # header
        started = True
        key = (cells[0], cells[7])
        if key in out:
            raise fail(path, line_no, "column 7 (summarizer)", f"second row for {key}")
        row: dict[str, float] = {}
        for q in range(7):
            try:
                row[f"q{q + 1}"] = grade_to_unit(cells[8 + q], grade_direction)
            except ValueError:
                raise fail(path, line_no, f"column {8 + q} (quality question {q + 1})",
                           f"{cells[8 + q]!r}; expected a grade A-E or 1-5") from None
        marked = _float(path, line_no, 17, cells[17], "marked peer units")
        model_units = _float(path, line_no, 19, cells[19], "model units")
        e = _float(path, line_no, 20, cells[20], "mean coverage")
        if not 0 <= e <= 1:
            raise fail(path, line_no, "column 20 (mean coverage)", f"{e} is outside [0, 1]")
        row["mean_coverage"] = e
        row["coverage"] = min(1.0, marked * e / model_units) if model_units > 0 else math.nan
        out[key] = row
    if not out:
        raise fail(path, None, None, "no data rows; expected a DUC SEE table")
    return out


def _row_like(cells: list[str], columns: Iterable[int]) -> bool:
    """Whether a line before a table's first row is a row (a number in one of ``columns``), not a
    header: a row with a cell too few is an error naming its line, not skipped as a header."""
    return any(c < len(cells) and _looks_numeric(cells[c]) for c in columns)


def _looks_numeric(cell: str) -> bool:
    try:
        float(cell)
        return True
    except ValueError:
        return False


TAC_COLUMNS = {"topic": 0, "summarizer": 1, "pyramid": 2, "modified_pyramid": 5,
               "linguistic_quality": 6, "responsiveness": 7}


def read_manual_peer(path: Path, columns: Mapping[str, int] | None = None
                     ) -> dict[tuple[str, str], dict[str, float]]:
    """TAC ``manual.peer`` table: whitespace-separated, one row per peer summary. Column
    positions default to :data:`TAC_COLUMNS` (TAC 2009-2011: topic, peer, pyramid score, #SCUs,
    #repetitions, modified score, linguistic quality, overall responsiveness)."""
    cols = dict(TAC_COLUMNS, **(columns or {}))
    out: dict[tuple[str, str], dict[str, float]] = {}
    need = max(cols.values()) + 1
    for line_no, line in enumerate(read_text(path, errors="replace").split("\n"), start=1):
        cells = line.split()
        if not cells or cells[0].startswith("#"):
            continue
        if len(cells) < need or not _looks_numeric(cells[cols["pyramid"]]):
            # a header has no number where a row has its pyramid score; a row cut short (a cell lost) does
            if not out and not _row_like(cells, (cols["pyramid"],)):
                continue  # header
            raise fail(path, line_no, None, f"{len(cells)} columns; expected at least {need} (manual.peer row)")
        key = (cells[cols["topic"]], cells[cols["summarizer"]])
        if key in out:
            raise fail(path, line_no, f"column {cols['summarizer']} (summarizer)", f"second row for {key}")
        out[key] = {k: _float(path, line_no, c, cells[c], k) for k, c in cols.items()
                    if k not in ("topic", "summarizer")}
    if not out:
        raise fail(path, None, None, "no data rows; expected a TAC manual.peer table")
    return out


def import_duc_tac(options: DucTacOptions, name: str) -> Dataset:
    """Read a NIST DUC/TAC folder (``options.path``, searched recursively for
    ``<TOPIC>.M.<LEN>.<X>.<SUMMARIZER>`` files) and its judgment tables into the canonical form."""
    see_table, manual_peer, grade_direction = options.see_table, options.manual_peer, options.grade_direction
    if grade_direction not in ("A_best", "E_best"):
        raise DatasetError(f"grade_direction: {grade_direction!r}; expected 'A_best' or 'E_best'")
    if see_table is None and manual_peer is None:
        raise DatasetError(f"{name}: a duc_tac data set needs see_table and/or manual_peer")
    root = Path(options.path)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a folder; expected the NIST summaries folder")
    summaries: dict[tuple[str, str], Summary] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        m = SUMMARY_FILE.match(path.name)
        if not m:
            continue
        key = (m["topic"], m["summarizer"])
        # a file name the file system could not decode holds surrogates; a name must survive the tables
        check_text(path, None, "file name (topic)", key[0])
        check_name(path, None, "file name (topic)", key[0])
        if key in summaries:
            raise DatasetError(f"{path}: a second summary file for topic {key[0]!r}, summarizer {key[1]!r}")
        try:
            kind = summarizer_kind(m["summarizer"])
        except ValueError:
            raise DatasetError(f"{path}: summarizer {m['summarizer']!r} is neither letters (human) nor digits (system)") from None
        summaries[key] = Summary(key[0], key[1], kind, read_duc_summary(path, options.one_sentence_per_line))
        check_imported(path, None, summaries[key], "sentence {i}", fields=("file name (topic)", "file name (summarizer)"))
    if not summaries:
        raise DatasetError(f"{root}: no summary files named <TOPIC>.M.<LEN>.<X>.<SUMMARIZER>")
    judgments: dict[tuple[str, str], dict[str, float]] = {}
    dims: dict[str, Dimension] = {}
    coverage: list[str] = []
    quality: list[str] = []
    tables = []
    if see_table is not None:
        tables.append((Path(see_table), read_see_table(Path(see_table), grade_direction)))
        dims["coverage"] = Dimension("coverage", 0, 1, "coverage score CS = marked peer units * E / model units (Graham 2015)")
        dims["mean_coverage"] = Dimension("mean_coverage", 0, 1, "assessors' mean coverage E of the model units")
        for q in range(1, 8):
            dims[f"q{q}"] = Dimension(f"q{q}", 0, 1, f"DUC quality question {q}, grade A-E mapped to [0, 1] ({grade_direction})")
        coverage.append("coverage")
        quality.extend(f"q{q}" for q in range(1, 8))
    if manual_peer is not None:
        tables.append((Path(manual_peer), read_manual_peer(Path(manual_peer), dict(options.tac_columns))))
        scales = {"pyramid": (0, 1), "modified_pyramid": (0, 1), "linguistic_quality": (1, 5), "responsiveness": (1, 5)}
        scales.update({k: tuple(v) for k, v in options.tac_scales})
        for d, (lo, hi) in scales.items():
            dims[d] = Dimension(d, float(lo), float(hi), f"TAC manual.peer {d}")
        if not coverage:
            coverage.append("pyramid")
        quality.append("linguistic_quality")
    for path, table in tables:
        for key, row in table.items():
            if key not in summaries:
                raise DatasetError(f"{path}: judges topic {key[0]!r}, summarizer {key[1]!r}, "
                                   f"which has no summary file under {root}")
            for d, v in row.items():
                if d in dims and not math.isnan(v) and not dims[d].min <= v <= dims[d].max:
                    raise DatasetError(f"{path}: topic {key[0]!r}, summarizer {key[1]!r}, {d} = {v} is outside "
                                       f"[{dims[d].min:g}, {dims[d].max:g}]")
            judgments.setdefault(key, {}).update({d: v for d, v in row.items() if d in dims})
        # what validation would refuse of the copy is refused here, naming the NIST table
        check_judged_references(path, list(summaries.values()), table, {})
    for key in judgments:
        for d in dims:
            judgments[key].setdefault(d, math.nan)
    human = {"coverage": coverage, "linguistic_quality": quality}
    meta = {
        "name": name,
        "description": options.description or f"NIST DUC/TAC data imported from {root}",
        "source": options.source or str(root),
        "license": options.license or "NIST DUC/TAC data: licensed by NIST; not redistributable",
        "citation": options.citation,
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": human,
    }
    return Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=list(summaries.values()),
                   judgments=judgments)
