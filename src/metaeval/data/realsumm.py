"""REALSumm's own release (Bhandari et al. 2020; neulab/REALSumm ``scores_dicts/abs.pkl`` and
``ext.pkl``) -> the canonical form and a score file of the authors' metric scores. The only module
that knows the release's layout:

``{doc_id: {"doc_id": doc_id, "ref_summ": reference, "system_summaries": {system: {"system_summary":
summary, "scores": {name: value}}}}}`` for the same 100 CNN/DailyMail test documents in each file
(``abs.pkl``: 14 abstractive systems, ``ext.pkl``: 11 extractive ones). The scores are floats and
NumPy float64 / float32 scalars, read by :func:`metaeval.data.safe_pickle.load_data_pickle` without
running code (it rebuilds the scalars itself, as plain floats).

What the importer makes of it:

* topic = ``str(doc_id)`` (the key; the record's ``doc_id`` must equal it); summarizer = the system
  name without its ``.txt``; one reference per topic, ``ref0`` = ``ref_summ``, which must be the
  same text in every file;
* texts are tokenised and mostly lower-cased as released (5 systems keep capitals throughout, 32
  references and a few other summaries in places), one sentence per ``<t> ... </t>`` span: the release marks its sentences, so they are
  taken from the marks, not re-split. 4 of ``bottom_up_out``'s summaries end in a sentence whose
  ``</t>`` is missing (the summary was cut mid-sentence): that last sentence is kept as it is;
* a system in several files (``bart_out`` is in both, as the paper compares BART with both groups)
  must have the same summary and the same scores, to the bit, in each: it is then one system
  (24 in all), and an entry whose copies differ is refused naming both files;
* the dimension ``litepyramid_recall`` (the human score, on [0, 1]) is the coverage component; there
  is no linguistic-quality judgment;
* every other score is a metric of the score file (:data:`METRICS`: release name -> metric id,
  display name, description), each required of every summary. The release has no source
  articles, so the data set has no documents.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from .canonical_files import check_imported
from .contract import REFERENCE_NAME, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, check_text, fail
from .dataset_yaml import dimension_spec
from .safe_pickle import brief, load_data_pickle

HUMAN = "litepyramid_recall"
RELEASE_FILES = ("abs.pkl", "ext.pkl")
# The authors' metric scores: release name -> (metric id, display name, description). The ids of
# BERTScore, MoverScore and JS-2 are those of the canonical copy in ../shared/data/realsumm; the
# authors' ROUGE is prefixed REALSumm_ so that it reads apart from the ROUGE the workflow computes.
_ROUGE = "ROUGE-{n} {prf} as computed by the REALSumm authors (pyrouge, 5 decimals)"
METRICS: dict[str, tuple[str, str, str]] = {
    "bert_precision_score": ("BERTScore_P", "BERTScore P", "BERTScore precision (REALSumm authors' run)"),
    "bert_recall_score": ("BERTScore_R", "BERTScore R", "BERTScore recall (REALSumm authors' run)"),
    "bert_f_score": ("BERTScore_F", "BERTScore F", "BERTScore F1 (REALSumm authors' run)"),
    "mover_score": ("MoverScore", "MoverScore", "MoverScore (REALSumm authors' run)"),
    "js-2": ("JS2", "JS-2", "Jensen-Shannon divergence of the bigram distributions of summary and reference, negated "
             "as REALSumm stores it (in [-ln 2, 0]): higher is better"),
    **{f"rouge_{n}_{field}": (f"REALSumm_ROUGE_{n.upper()}_{prf}", f"REALSumm ROUGE-{n.upper()} {prf}",
                              _ROUGE.format(n=n.upper(), prf=long))
       for n in ("1", "2", "l")
       for field, prf, long in (("precision", "P", "precision"), ("recall", "R", "recall"), ("f_score", "F", "F1"))},
}
OPEN, CLOSE = "<t>", "</t>"

# dataset.yaml's description; {systems}: the counts of the files read (the full release: 24 systems,
# 14 in abs.pkl and 11 in ext.pkl, bart_out in both, kept once).
DESCRIPTION = (
    "REALSumm (Bhandari et al., 2020), from the authors' own release: {systems} on {documents} CNN/DailyMail "
    "test articles, each summary scored by crowd-sourced LitePyramid recall (semantic content units of the "
    "reference); 1 reference per article; no source articles. Texts tokenised (mostly lower-cased), one sentence "
    "per <t> ... </t> of the release. The authors' scores of BERTScore, MoverScore, JS-2 and ROUGE are the "
    "score-file metrics.")
SOURCE = "neulab/REALSumm scores_dicts/abs.pkl and ext.pkl (read without running code)"
LICENSE = "REALSumm: CC BY 4.0 (neulab/REALSumm)"
CITATION = "Bhandari et al. 2020. Re-evaluating Evaluation in Text Summarization. EMNLP."

Rows = list[tuple[str, str, str, float]]


def split_marked(path: Path, where: str, field: str, text: str) -> tuple[str, ...]:
    """The sentences of a text marked ``<t> s1 </t> <t> s2 </t>``; the last ``</t>`` may be missing
    (a summary cut mid-sentence). Anything outside the marks, an empty or nested mark is an error."""
    parts = text.split(OPEN)
    if parts[0].strip() or len(parts) < 2:
        raise fail(path, where, field, f"{brief(text)}; expected sentences marked {OPEN} ... {CLOSE}")
    sentences = []
    for i, part in enumerate(parts[1:], start=1):
        body, closed, rest = part.partition(CLOSE)
        if rest.strip() or CLOSE in rest or (not closed and i < len(parts) - 1) or not body.strip():
            raise fail(path, where, field, f"sentence {i}: {brief(OPEN + part)}; expected {OPEN} text {CLOSE}, "
                       "only white space between sentences (the last one may be cut off)")
        sentences.append(body.strip())
    return tuple(sentences)


def _text(path: Path, where: str, value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise fail(path, where, field, f"{brief(value)}; expected a string")
    return check_text(path, where, field, value)


def _score(path: Path, where: str, name: str, value: Any) -> float:
    field = f"scores.{name}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(path, where, field, f"{brief(value)}; expected a number")
    number = float(value) if not isinstance(value, int) or value.bit_length() <= 1000 else math.inf
    if not math.isfinite(number):
        raise fail(path, where, field, f"{brief(value)}; expected a finite number")
    if name == HUMAN and not 0 <= number <= 1:
        raise fail(path, where, field, f"{number!r} is outside [0, 1]; expected a LitePyramid recall")
    return number


def _topic(path: Path, doc_id: Any, rec: Any) -> str:
    where = f"record {brief(doc_id)}"
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or (isinstance(doc_id, int)
                                                                         and doc_id.bit_length() > 64):
        raise fail(path, where, "doc_id", f"{brief(doc_id)}; expected a string or an integer id")
    topic = check_text(path, where, "doc_id", str(doc_id))
    check_name(path, where, "doc_id", topic)
    if not isinstance(rec, dict):
        raise fail(path, where, None, f"{brief(rec)}; expected a mapping with doc_id, ref_summ and system_summaries")
    if rec.get("doc_id") != doc_id:
        raise fail(path, where, "doc_id", f"{brief(rec.get('doc_id'))}; expected the record's key, {brief(doc_id)}")
    return topic


class _Reader:
    """Reads the pickles one after another, keeping what the earlier ones gave (to compare)."""

    def __init__(self) -> None:
        self.refs: dict[str, tuple[Path, str]] = {}                          # topic -> (first file, ref_summ)
        self.systems: dict[tuple[str, str], tuple[Path, str, dict[str, float]]] = {}   # (topic, system) -> first copy
        self.summaries: list[Summary] = []
        self.judgments: dict[tuple[str, str], dict[str, float]] = {}
        self.rows: Rows = []
        self.twins = NameTwins()
        self.docs: tuple[Path, list[str]] | None = None                    # the first file and its topics
        self.shared: dict[str, list[Path]] = {}                            # system -> the files it is in

    def read(self, path: Path) -> None:
        data = load_data_pickle(path)
        if not isinstance(data, dict) or not data:
            raise DatasetError(f"{path}: {brief(data)}; expected a non-empty mapping {{doc_id: record}}")
        topics = []
        for doc_id, rec in data.items():
            topic = _topic(path, doc_id, rec)
            topics.append(topic)
            self.record(path, topic, f"record {brief(doc_id)}", rec)
        if self.docs is None:
            self.docs = (path, topics)
        elif sorted(topics) != sorted(self.docs[1]):
            missing = sorted(set(self.docs[1]) - set(topics)) or sorted(set(topics) - set(self.docs[1]))
            raise DatasetError(f"{path}: documents {_few(missing)} are in one of {self.docs[0]} and {path} only; "
                               "expected the same documents in every file of the release")

    def record(self, path: Path, topic: str, where: str, rec: dict) -> None:
        ref = _text(path, where, rec.get("ref_summ"), "ref_summ")
        if topic in self.refs:
            first, text = self.refs[topic]
            if first == path:
                raise fail(path, where, "doc_id", f"a second record of document {topic!r}")
            if text != ref:
                raise fail(path, where, "ref_summ", f"differs from {first}'s reference of this document; expected "
                           "the same reference in every file")
        else:
            self.refs[topic] = (path, ref)
            self.add(path, where, Summary(topic, "ref0", "human", split_marked(path, where, "ref_summ", ref)),
                     "ref_summ")
        systems = rec.get("system_summaries")
        if not isinstance(systems, dict) or not systems:
            raise fail(path, where, "system_summaries", f"{brief(systems)}; expected {{system: {{system_summary, "
                       "scores}}}")
        for system, entry in systems.items():
            self.system(path, topic, f"{where}, system {brief(system)}", system, entry)

    def system(self, path: Path, topic: str, at: str, system: Any, entry: Any) -> None:
        if not isinstance(system, str):
            raise fail(path, at, "system_summaries", f"{brief(system)}; expected a system name")
        name = check_text(path, at, "system_summaries", system).removesuffix(".txt")
        check_name(path, at, "system_summaries", name)
        if REFERENCE_NAME.fullmatch(name):
            raise fail(path, at, "system_summaries", f"{name!r} is the name the importer gives a reference; "
                       "expected another name for a system")
        if not isinstance(entry, dict):
            raise fail(path, at, None, f"{brief(entry)}; expected a mapping with system_summary and scores")
        text = _text(path, at, entry.get("system_summary"), "system_summary")
        scores = entry.get("scores")
        if not isinstance(scores, dict):
            raise fail(path, at, "scores", f"{brief(scores)}; expected {{{HUMAN} and metric name: value}}")
        expected = [HUMAN, *METRICS]
        for key in scores:
            if key not in expected:
                shown = key if isinstance(key, str) else brief(key)
                raise fail(path, at, f"scores.{shown}", f"an unknown score; expected {', '.join(expected)}")
        values = {}
        for key in expected:
            if key not in scores:
                raise fail(path, at, f"scores.{key}", f"missing; expected every one of {', '.join(expected)}")
            values[key] = _score(path, at, key, scores[key])
        first = self.systems.get((topic, name))
        if path not in self.shared.setdefault(name, []):
            self.shared[name].append(path)
        if first is not None:
            self.same(path, at, first, text, values)
            return
        self.systems[(topic, name)] = (path, text, values)
        self.add(path, at, Summary(topic, name, "system", split_marked(path, at, "system_summary", text)),
                 "system_summary")
        self.judgments[(topic, name)] = {HUMAN: values[HUMAN]}
        self.rows.extend((topic, name, METRICS[k][0], values[k]) for k in METRICS)

    def same(self, path: Path, at: str, first: tuple[Path, str, dict[str, float]], text: str,
             values: dict[str, float]) -> None:
        """A system's second copy (another file) must equal the first, text and every score."""
        where, first_text, first_values = first
        if where == path:
            raise fail(path, at, "system_summaries", "a second summary of this system for this document")
        if text != first_text:
            raise fail(path, at, "system_summary", f"differs from {where}'s summary of this system and document; "
                       "expected a system in several files to have the same summaries there")
        for key, value in values.items():
            if value != first_values[key]:
                raise fail(path, at, f"scores.{key}", f"{value!r}, but {first_values[key]!r} in {where}; expected "
                           "a system in several files to have the same scores there")

    def add(self, path: Path, where: str, summary: Summary, field: str) -> None:
        check_imported(path, where, summary, field, self.twins, fields=("doc_id", "system_summaries"))
        self.summaries.append(summary)


def _few(values: list) -> str:
    shown = ", ".join(map(repr, values[:4]))
    return f"[{shown}]" if len(values) <= 4 else f"[{shown}, ... {len(values)} in all]"


def import_realsumm_pkl(paths: Iterable[Path | str], name: str = "realsumm") -> tuple[Dataset, Rows, dict[str, dict]]:
    """(the data set, the authors' metric scores as rows (topic, summarizer, metric id, score), their
    declarations {metric id: {name, description}}) from REALSumm's pickles (``abs.pkl``, ``ext.pkl``;
    any one of them alone is a data set too). Errors name the file, the record (doc_id), the system
    and the field; any other failure on a hostile file is reported naming the file."""
    reader = _Reader()
    for path in map(Path, paths):
        try:
            reader.read(path)
        except DatasetError:
            raise
        except Exception as e:  # noqa: BLE001 - the safety net: no other exception on a hostile file
            raise DatasetError(f"{path}: a record the importer cannot read ({type(e).__name__}: {e})") from None
    dims = {HUMAN: Dimension(HUMAN, 0.0, 1.0, "LitePyramid recall of the reference's semantic content units "
                             "(crowd-sourced)", "graded")}
    human = {"coverage": [HUMAN], "linguistic_quality": []}
    in_several = sorted(s for s, files in reader.shared.items() if len(files) > 1)
    per_file = Counter(f.name for files in reader.shared.values() for f in files)
    systems = (f"{len(reader.shared)} systems ({', '.join(f'{n} in {name}' for name, n in per_file.items())}"
               + (f"; {', '.join(in_several)} in several files with the same summaries and scores, kept once)"
                  if in_several else ")"))
    declarations = {mid: {"name": shown, "description": description}
                    for mid, shown, description in sorted(METRICS.values())}
    description = DESCRIPTION.format(systems=systems, documents=len(reader.refs))
    meta = {"name": name, "description": description, "source": SOURCE, "license": LICENSE, "citation": CITATION,
            "dimensions": {d.name: dimension_spec(d) for d in dims.values()}, "human": human,
            "metrics": declarations}
    ds = Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=reader.summaries,
                 judgments=reader.judgments)
    ds.warnings.extend(f"{s}: in {', '.join(str(p) for p in reader.shared[s])} with the same summaries and scores; "
                       "kept once" for s in in_several)
    return ds, sorted(reader.rows), declarations
