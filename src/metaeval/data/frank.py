"""FRANK (Pagnoni, Balachandran & Tsvetkov 2021), artidoro/frank data/ -> the canonical form and a
score file. The only module that knows the release's layout:

* ``human_annotations.json``: a list of records, one per (article ``hash``, ``model_name``):
  ``Factuality`` (the share of the summary's sentences without a factual error), one field per
  error category and group (1 = no such error, 0 = every sentence has one), their ``Flip_``
  variants (the factuality with that category's errors ignored: the paper's ablation), ``dataset``
  (``cnndm`` or ``bbc`` = XSum) and ``split`` (``valid`` or ``test``);
* ``baseline_factuality_metrics_outputs.json``: the same records with the scores of the 15 metrics
  the paper compared (numbers, or numbers as strings; ``null`` where the release has no score, which
  leaves that summary without a score of that metric: the frank format allows partial coverage).

The two files have no summary texts, so the data set is score-only (``texts: false``): topic = hash,
summarizer = model name, ``split`` and ``subset`` (= ``dataset``) kept on every summary; the
dimensions are the release's fields, all proportions; the baseline metrics become score-file rows
under ids made of the release's names (spaces -> ``_``).

* ``benchmark_data.json`` (the release's larger file, "the data on which new evaluation metrics have
  to be executed"): a list of records, one per (``hash``, ``model_name``), with the ``summary``, its
  ``reference`` summary and the ``article``. The import does not read it (the data set is score-only
  whether or not it is there); :func:`read_texts` gives it to the texts-out job, so that a metric of
  the user's is scored on FRANK's texts.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NamedTuple

from ..metrics.families import metric_id_problem
from .contract import (NUMBER_EXPECTED, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, check_texts,
                       fail, load_json, may_hold_surrogates, parse_number, read_text, record_pairs)
from .dataset_yaml import dimension_spec
# the release's files and splits, declared with the format
from .formats import (FRANK_BASELINES as BASELINES, FRANK_FILES as RELEASE_FILES,  # noqa: F401
                      FRANK_HUMAN as HUMAN, FRANK_SPLITS as SPLITS)

KEYS = ("hash", "model_name", "dataset", "split")
SUBSETS = {"cnndm": "CNN/DailyMail", "bbc": "XSum (BBC)"}
# The release's error typology (the paper's Table 1), for the dimensions' descriptions.
CATEGORIES = {
    "Semantic_Frame_Errors": "semantic frame errors (RelE, EntE, CircE)", "Discourse_Errors": "discourse errors "
    "(CorefE, LinkE)", "Content_Verifiability_Errors": "content verifiability errors (OutE, GramE)",
    "RelE": "relation errors", "EntE": "entity errors", "CircE": "circumstance errors", "OutE": "out-of-article "
    "errors", "GramE": "grammatical errors", "CorefE": "coreference errors", "LinkE": "discourse link errors",
    "Other": "other errors"}
METRIC_ID = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")


def _at(i: int, rec: dict[str, Any] | None = None) -> str:
    """A record as messages name it: its index, and its article and model when it has them."""
    if rec is not None and isinstance(rec.get("hash"), str) and isinstance(rec.get("model_name"), str):
        return f"record {i} ({rec['hash']}, {rec['model_name']})"
    return f"record {i}"


def _records(path: Path) -> list[dict[str, Any]]:
    text = read_text(path)
    data = load_json(text, path, None, "the release's list of records", object_pairs_hook=record_pairs)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DatasetError(f"{path}: expected a list of records (JSON objects)")
    escapes = may_hold_surrogates(text)   # once: the text is megabytes
    for i, rec in enumerate(data):
        if rec.duplicate is not None:
            raise fail(path, _at(i, rec), rec.duplicate, "the key appears twice in this record; expected each key once")
        if escapes:
            check_texts(path, _at(i, rec), rec)
    return data


def _key(path: Path, i: int, rec: dict[str, Any], names: NameTwins) -> tuple[str, str]:
    for k in KEYS:
        if not isinstance(rec.get(k), str) or not rec[k]:
            raise fail(path, f"record {i}", k, "missing or not a non-empty string")
        check_name(path, _at(i, rec), k, rec[k])
    for k in ("hash", "model_name"):
        names.check(path, _at(i, rec), k, rec[k])
    if rec["split"] not in SPLITS:
        raise DatasetError(f"{path}: record {i} ({rec['hash']}, {rec['model_name']}), field 'split': "
                           f"{rec['split']!r}; expected one of {', '.join(SPLITS)}")
    return rec["hash"], rec["model_name"]


def _number(path: Path, i: int, key: tuple[str, str], field: str, value: Any) -> float:
    return parse_number(path, f"record {i} ({key[0]}, {key[1]})", field, value,
                        f"{NUMBER_EXPECTED}, as a JSON number or a string")


def metric_id(name: str) -> str:
    """A score-file metric id for a release metric name ("Rouge 1" -> "Rouge_1")."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", name.strip())


def import_frank(folder: Path | str, name: str = "frank"
                 ) -> tuple[Dataset, list[tuple[str, str, str, float]], dict[str, dict[str, str]]]:
    """(the score-only data set, the baseline metrics' rows (topic, summarizer, metric, score),
    their declarations {metric id: {name, description}}). Errors name the file, the record (index,
    hash, model) and the field."""
    folder = Path(folder)
    hpath, bpath = folder / HUMAN, folder / BASELINES
    for p in (hpath, bpath):
        if not p.is_file():
            raise DatasetError(f"{p}: missing; expected FRANK's data/ folder with {HUMAN} and {BASELINES}")
    human = _records(hpath)
    if not human:
        raise DatasetError(f"{hpath}: no records")
    dims_names = [k for k in human[0] if k not in KEYS]
    if "Factuality" not in dims_names:
        raise DatasetError(f"{hpath}: record 0, field 'Factuality': missing; expected the summary's factuality")
    for d in dims_names:  # each becomes a judgments.tsv column
        check_name(hpath, _at(0, human[0]), d, d)
        if d in ("topic", "summarizer"):
            raise fail(hpath, _at(0, human[0]), d, "'topic' and 'summarizer' are reserved column names")
    twins = NameTwins()
    summaries: list[Summary] = []
    judgments: dict[tuple[str, str], dict[str, float]] = {}
    where: dict[tuple[str, str], tuple[str, str]] = {}
    for i, rec in enumerate(human):
        key = _key(hpath, i, rec, twins)
        if key in judgments:
            raise DatasetError(f"{hpath}: record {i} ({key[0]}, {key[1]}): a second record of this article and model")
        row = {}
        for d in dims_names:
            if d not in rec:
                raise DatasetError(f"{hpath}: record {i} ({key[0]}, {key[1]}), field '{d}': missing (record 0 has it)")
            v = _number(hpath, i, key, d, rec[d])
            if not 0 <= v <= 1:
                raise DatasetError(f"{hpath}: record {i} ({key[0]}, {key[1]}), field '{d}': {v!r} is outside [0, 1]")
            row[d] = v
        judgments[key] = row
        where[key] = (rec["split"], rec["dataset"])
        summaries.append(Summary(key[0], key[1], "system", (), split=rec["split"], subset=rec["dataset"]))
    rows: list[tuple[str, str, str, float]] = []
    names: dict[str, str] = {}
    missing: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    for i, rec in enumerate(_records(bpath)):
        key = _key(bpath, i, rec, twins)
        if key not in judgments:
            raise DatasetError(f"{bpath}: record {i} ({key[0]}, {key[1]}): no human annotation of this article and "
                               f"model in {hpath.name}")
        if key in seen:
            raise DatasetError(f"{bpath}: record {i} ({key[0]}, {key[1]}): a second record of this article and model")
        seen.add(key)
        if where[key] != (rec["split"], rec["dataset"]):
            raise DatasetError(f"{bpath}: record {i} ({key[0]}, {key[1]}), field 'split': {rec['split']}/"
                               f"{rec['dataset']} differs from {hpath.name}'s {where[key][0]}/{where[key][1]}")
        for field, value in rec.items():
            if field in KEYS:
                continue
            mid = metric_id(field)
            if not METRIC_ID.fullmatch(mid):
                raise DatasetError(f"{bpath}: record {i}, field '{field}': cannot name a metric")
            if mid not in names:
                problem = metric_id_problem(mid)
                if problem:
                    raise fail(bpath, _at(i, rec), field, f"the metric id {mid!r}: {problem}")
                names[mid] = field
            elif names[mid] != field:
                raise fail(bpath, _at(i, rec), field, f"becomes the metric id {mid!r}, as the field {names[mid]!r} "
                           "does (spaces and other characters become '_'); expected release names that stay distinct")
            if value is None:
                # the release has no score of this metric for this summary (Dep Entail: 83, FEQA: 4)
                missing[mid] = missing.get(mid, 0) + 1
                continue
            rows.append((key[0], key[1], mid, _number(bpath, i, key, field, value)))
    dims = {d: Dimension(d, 0.0, 1.0, _description(d), "proportion") for d in dims_names}
    declarations = {m: {"name": n, "description": f"FRANK's baseline output '{n}' (higher = more factual)"
                                                 + (f"; no score for {missing[m]} summaries (null in the release)"
                                                    if m in missing else "")}
                    for m, n in sorted(names.items())}
    comps = {"coverage": ["Factuality"], "linguistic_quality": []}
    meta = {
        "name": name,
        "description": "FRANK (Pagnoni, Balachandran & Tsvetkov, 2021): summaries of 9 systems on CNN/DailyMail "
                       "(cnndm) and XSum (bbc) articles, each sentence annotated with a typology of factual errors; "
                       "Factuality is the share of sentences without error, each category's field the share without "
                       "that error, Flip_ the factuality with that category ignored. No summary texts: a score-only "
                       "data set, with the scores of the 15 metrics the paper compared. Split (valid / test) and "
                       "subset (cnndm / bbc) on every summary.",
        "source": f"artidoro/frank data/ ({HUMAN}, {BASELINES})",
        "license": "FRANK: MIT (artidoro/frank)",
        "citation": "Pagnoni, Balachandran & Tsvetkov 2021. Understanding Factuality in Abstractive Summarization "
                    "with FRANK: A Benchmark for Factuality Metrics. NAACL.",
        "texts": False,
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": comps,
    }
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=comps, summaries=summaries, judgments=judgments,
                 has_texts=False)
    return ds, rows, declarations


TEXT_FIELDS = ("summary", "reference", "article")


class Texts(NamedTuple):
    summary: str
    reference: str
    article: str


def read_texts(path: Path | str) -> dict[tuple[str, str], Texts]:
    """The texts of benchmark_data.json by (article hash, model name). Every record must have the two
    names and the three texts as strings; a summary given twice must have the same texts. Errors name
    the file, the record (index, hash, model) and the field."""
    path = Path(path)
    out: dict[tuple[str, str], Texts] = {}
    first: dict[tuple[str, str], int] = {}
    for i, rec in enumerate(_records(path)):
        for k in ("hash", "model_name"):
            if not isinstance(rec.get(k), str) or not rec[k]:
                raise fail(path, f"record {i}", k, "missing or not a non-empty string; expected FRANK's "
                           f"benchmark_data.json records (hash, model_name, {', '.join(TEXT_FIELDS)})")
        for k in TEXT_FIELDS:
            if not isinstance(rec.get(k), str):
                raise fail(path, _at(i, rec), k, "missing or not a string; expected the record's text")
        key = (rec["hash"], rec["model_name"])
        texts = Texts(*(rec[k] for k in TEXT_FIELDS))
        if key in out and out[key] != texts:
            raise DatasetError(f"{path}: record {i} ({key[0]}, {key[1]}): a second record of this article and model "
                               f"with other texts than record {first[key]}'s")
        first.setdefault(key, i)
        out[key] = texts
    return out


def _description(field: str) -> str:
    if field == "Factuality":
        return "share of the summary's sentences without a factual error"
    flip = field.startswith("Flip_")
    what = CATEGORIES.get(field.removeprefix("Flip_"), field)
    return (f"factuality with {what} ignored (FRANK's ablation)" if flip else f"share of sentences without {what}")
