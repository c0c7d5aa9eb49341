"""SummEdits (Laban et al. 2023), salesforce/factualNLG data/summedits/ -> the canonical form. The only
module that knows the release's layout: one JSON file per domain, ``summedits_<domain>.json``, a list
of records ``id, doc, summary, label, original_summary, edit_types, split``: a seed summary of the
document ``doc`` (its id ends in ``_og``) and its edits, each labelled consistent with ``doc`` (1) or
not (0), in the split ``evaluation`` or ``test``. ``label`` is the number 1 in some files and the
string "1" in others: both are read, nothing else is.

The canonical copy: topic = the record's ``id`` (unique across the domains), one summarizer
(:data:`SUMMARIZER`: the release has no systems; every summary is a seed or an edit of one), the
summary as one text, ``doc`` the topic's document, the split kept, the domain as the subset, and the
binary dimension ``consistent``. The release has no reference summaries (``references: false``): the
workflow's text metrics, all reference-based, do not apply, and a metric of the user's reads the
summary and its document from the texts-out job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .canonical_files import check_imported
from .contract import (Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, check_texts, fail, load_json,
                       may_hold_surrogates, read_text, record_pairs)
from .dataset_yaml import dimension_spec
# the release's file names and splits, declared with the format
from .formats import SUMMEDITS_FILE as DOMAIN_FILE, SUMMEDITS_SPLITS as SPLITS

SUMMARIZER = "summedits"
DIMENSION = "consistent"
FIELDS = ("id", "doc", "summary", "label", "split")
LABELS = {0: 0.0, 1: 1.0, "0": 0.0, "1": 1.0}


def domain_of(path: Path | str) -> str:
    """A domain file's domain (``summedits_news.json`` -> ``news``); another name is an error."""
    found = DOMAIN_FILE.match(Path(path).name)
    if not found:
        raise DatasetError(f"{path}: expected a SummEdits domain file named summedits_<domain>.json")
    return found["domain"]


def _at(i: int, rec: Any) -> str:
    """A record as messages name it: its index, and its id when it has one."""
    return f"record {i} ({rec['id']})" if isinstance(rec, dict) and isinstance(rec.get("id"), str) else f"record {i}"


def label_of(path: Path, i: int, rec: dict[str, Any]) -> float:
    """The record's label: 0 or 1, as a number or a string ("0", "1"); anything else (a boolean,
    1.0, "yes") is an error naming the file, the record and the field."""
    value = rec["label"]
    if isinstance(value, bool) or not isinstance(value, (int, str)) or value not in LABELS:
        raise fail(path, _at(i, rec), "label", f"{value!r}; expected 0 or 1 (1 = consistent), as a number or the "
                                               'string "0" or "1"')
    return LABELS[value]


def read_domain(path: Path, twins: NameTwins) -> list[tuple[int, dict[str, Any]]]:
    """The (index, record) of one domain file, each with the fields :data:`FIELDS` checked."""
    text = read_text(path)
    data = load_json(text, path, None, "the domain's list of records", object_pairs_hook=record_pairs)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DatasetError(f"{path}: expected a list of records (JSON objects)")
    if not data:
        raise DatasetError(f"{path}: no records")
    escapes = may_hold_surrogates(text)
    out = []
    for i, rec in enumerate(data):
        if rec.duplicate is not None:
            raise fail(path, _at(i, rec), rec.duplicate, "the key appears twice in this record; expected each key once")
        for field in FIELDS:
            if field not in rec:
                raise fail(path, _at(i, rec), field, f"missing; expected the fields {', '.join(FIELDS)}")
        for field in ("id", "doc", "summary", "split"):
            if not isinstance(rec[field], str):
                raise fail(path, _at(i, rec), field, f"{type(rec[field]).__name__}; expected a string")
        if not rec["id"]:
            raise fail(path, f"record {i}", "id", "empty; expected the record's id")
        check_name(path, _at(i, rec), "id", rec["id"])
        twins.check(path, _at(i, rec), "id", rec["id"])
        if rec["split"] not in SPLITS:
            raise fail(path, _at(i, rec), "split", f"{rec['split']!r}; expected one of {', '.join(SPLITS)}")
        if escapes:
            check_texts(path, _at(i, rec), {k: rec[k] for k in ("doc", "summary")})
        out.append((i, rec))
    return out


def import_summedits(paths: list[Path | str], if_present: list[Path | str] = (), name: str = "summedits"
                     ) -> tuple[Dataset, list[str]]:
    """(the data set, notes: the domain files of ``if_present`` that are not there, left out). Errors
    name the file, the record (index and id) and the field: a label neither 0/1 nor "0"/"1", an id
    given twice (in one file or two), a split not in :data:`SPLITS`."""
    files = [Path(p) for p in paths] + [Path(p) for p in if_present if Path(p).is_file()]
    notes = [f"{p}: the domain {domain_of(p)} is not there (not fetched, or not in the folder): left out"
             for p in map(Path, if_present) if not p.is_file()]
    twins = NameTwins()
    summaries: list[Summary] = []
    judgments: dict[tuple[str, str], dict[str, float]] = {}
    documents: dict[str, list[str]] = {}
    first: dict[str, tuple[Path, int]] = {}
    domains: list[str] = []
    for path in files:
        domain = domain_of(path)
        if domain in domains:
            raise DatasetError(f"{path}: a second file of the domain {domain!r}; expected one file per domain")
        domains.append(domain)
        check_name(path, None, "domain", domain)
        for i, rec in read_domain(path, twins):
            topic = rec["id"]
            if topic in first:
                where, j = first[topic]
                raise fail(path, _at(i, rec), "id", f"{topic!r} again (first in {where}, record {j}); expected every "
                                                    "id once across the domains")
            first[topic] = (path, i)
            label = label_of(path, i, rec)
            s = Summary(topic, SUMMARIZER, "system", (rec["summary"],), split=rec["split"], subset=domain)
            check_imported(path, _at(i, rec), s, "summary", fields=("id", "summarizer"))
            summaries.append(s)
            judgments[s.key] = {DIMENSION: label}
            documents[topic] = [rec["doc"]]
    dims = {DIMENSION: Dimension(DIMENSION, 0.0, 1.0, "1 = the summary is consistent with the document, 0 = not "
                                 "(the annotators' label)", "binary", role="factual")}
    human = {"coverage": [DIMENSION], "linguistic_quality": []}
    absent = sorted(domain_of(p) for p in if_present if not Path(p).is_file())
    meta = {
        "name": name,
        "description": f"SummEdits (Laban et al., 2023): {len(summaries)} summaries (seed summaries and their "
                       f"edits) in {len(domains)} domains ({', '.join(sorted(domains))}), each labelled consistent with its "
                       "document (1) or not (0), split into evaluation and test; the domain is the subset."
                       + (f" Left out: {', '.join(absent)} (the release's files of these domains could not be "
                          "had)." if absent else "")
                       + " No reference summaries: the workflow's text metrics do not apply; metrics of yours read "
                         "the summary and its document.",
        "source": "salesforce/factualNLG data/summedits/ (" + ", ".join(p.name for p in files) + ")",
        "license": "Apache-2.0 (salesforce/factualNLG)",
        "citation": "Laban, Kryscinski, Agarwal, Fabbri, Xiong, Joty & Wu 2023. SummEdits: Measuring LLM Ability at "
                    "Factual Reasoning Through The Lens of Summarization. EMNLP.",
        "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
        "human": human,
        "references": False,
    }
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=summaries, judgments=judgments,
                 documents=documents)
    return ds, notes
