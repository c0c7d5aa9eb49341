"""BARTScore's unified meta-evaluation files (neulab/BARTScore, SUM/<Release>/data.pkl) -> the
canonical form. The only module that knows their layout:

``{doc_id: {"src": article, "ref_summ": reference, ["ref_summs": [references]],
"sys_summs": {system: {"sys_summ": summary, "scores": {human_metric: value}}}}}``, all text tokenised.

Six releases share it; each has a :class:`Release` profile (its human dimensions, their kinds and
scales, its description). The pickle is read by :func:`metaeval.data.safe_pickle.load_data_pickle`,
which refuses anything but plain data. Topic = ``str(doc_id)``; summarizer = the system name without
REALSumm's ``.txt``; sentences are split after stand-alone ``.``, ``!`` and ``?`` tokens (the text is
tokenised); the source becomes the topic's document. References: SummEval's ``ref_summs`` are
``ref0``..``ref10`` (``ref0`` is ``ref_summ``, the original highlights); the others' ``ref_summ`` is
``ref0``. For the factuality releases (QAGS, Rank19) ``ref_summ`` is the source itself (BARTScore
scores summaries against the source there), so text metrics compare a summary with its article.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .canonical_files import check_imported
from .contract import REFERENCE_NAME, Dataset, DatasetError, Dimension, NameTwins, Summary, check_name, check_text
from .dataset_yaml import dimension_spec
from .qags import read_mturk
from .safe_pickle import brief, load_data_pickle

SENTENCE_END = (".", "!", "?")
# the releases whose authors' per-worker judgments can be read beside the pickle (metaeval.data.qags)
QAGS_RELEASES = ("QAGS_CNN", "QAGS_XSUM")


@dataclass(frozen=True)
class Release:
    """What one release's scores are: its dimensions (name -> (min, max, kind, description)), the
    human components, the systems it may name (None: any) and its description."""

    dimensions: Mapping[str, tuple[float, float, str, str]]
    coverage: tuple[str, ...]
    linguistic_quality: tuple[str, ...]
    description: str
    source: str
    license: str
    citation: str
    systems: tuple[str, ...] | None = None
    multi_reference: bool = False
    factual: tuple[str, ...] = ()     # the dimensions the release defines as factual consistency


_SE = "expert {}, mean of 3 annotators"
_NR = "{}, mean of 3 annotators"
_BART = "neulab/BARTScore SUM/{}/data.pkl"
_BART_LICENSE = "BARTScore repository: Apache-2.0"

RELEASES: dict[str, Release] = {
    "SummEval": Release(
        {d: (1, 5, "graded", _SE.format(d)) for d in ("coherence", "consistency", "fluency", "relevance")},
        ("relevance",), ("coherence", "fluency"),
        "SummEval (Fabbri et al., 2021): 16 summarization systems on 100 CNN/DailyMail test articles, each summary "
        "rated 1-5 by 3 experts on coherence, consistency, fluency and relevance (mean of the 3 experts); 11 reference "
        "summaries per article (the original highlights + 10 crowd-written).",
        _BART.format("SummEval") + " (derived from Yale-LILY/SummEval model_annotations.aligned.paired.jsonl); text is "
        "tokenised", "SummEval annotations: MIT (Yale-LILY/SummEval); " + _BART_LICENSE + "; CNN/DailyMail articles: "
        "see the CNN/DM dataset terms", "Fabbri et al. 2021. SummEval: Re-evaluating Summarization Evaluation. TACL 9.",
        multi_reference=True, factual=("consistency",)),
    "REALSumm": Release(
        {"litepyramid_recall": (0, 1, "graded", "LitePyramid recall of reference SCUs")}, ("litepyramid_recall",), (),
        "REALSumm (Bhandari et al., 2020): 24 extractive and abstractive systems on 100 CNN/DailyMail test articles, "
        "each summary scored by crowd-sourced LitePyramid recall (semantic content units of the reference); "
        "1 reference per article.",
        _BART.format("REALSumm") + " (derived from neulab/REALSumm scores_dicts); text is tokenised",
        "REALSumm: CC-BY 4.0; " + _BART_LICENSE,
        "Bhandari et al. 2020. Re-evaluating Evaluation in Text Summarization. EMNLP."),
    "Newsroom": Release(
        {d: (1, 5, "graded", _NR.format(d)) for d in ("coherence", "fluency", "informativeness", "relevance")},
        ("informativeness",), ("coherence", "fluency"),
        "Newsroom human evaluation (Grusky et al., 2018): 7 systems on 60 news articles, each summary rated 1-5 by "
        "3 annotators on coherence, fluency, informativeness and relevance (mean of 3); 1 reference per article.",
        _BART.format("Newsroom") + "; text is tokenised",
        "Newsroom human evaluation data: see lil-lab/newsroom; " + _BART_LICENSE,
        "Grusky et al. 2018. Newsroom: A Dataset of 1.3 Million Summaries with Diverse Extractive Strategies. NAACL."),
    **{name: Release(
        {"fact": (0, 1, "proportion", "share of the summary's sentences judged factually consistent with the article")}, ("fact",), (),
        f"QAGS-{corpus} (Wang et al., 2020): one model summary of each of {n} {corpus_long} articles (one system, "
        "named 0 in the release), each sentence judged for factual consistency with the article; the score is the share of "
        "consistent sentences. There are no reference summaries: as BARTScore does, the article is the reference "
        "(ref0), so text metrics compare a summary with its source.",
        _BART.format(name) + "; text is tokenised", "QAGS annotations: see W4ngatang/qags; " + _BART_LICENSE,
        "Wang, Cho & Lewis 2020. Asking and Answering Questions to Evaluate the Factual Consistency of Summaries. ACL.")
        for name, corpus, corpus_long, n in (("QAGS_CNN", "CNN", "CNN/DailyMail", 235), ("QAGS_XSUM", "XSum", "XSum", 239))},
    "Rank19": Release(
        {"fact": (0, 1, "preference", "1 = the factually correct summary of the pair, 0 = the incorrect one")},
        ("fact",), (),
        "Rank19 (Falke et al., 2019): 373 CNN/DailyMail articles, each with a pair of summary sentences, one "
        "factually correct and one incorrect (summarizers 'correct' and 'incorrect'); a metric should score the "
        "correct one higher. There are no reference summaries: as BARTScore does, the article is the reference "
        "(ref0).",
        _BART.format("Rank19") + "; text is tokenised", "Falke et al. 2019 data: see their release; " + _BART_LICENSE,
        "Falke et al. 2019. Ranking Generated Summaries by Correctness: An Interesting but Challenging Application "
        "for Natural Language Inference. ACL.", systems=("correct", "incorrect")),
}


def split_tokenised(text: str) -> tuple[str, ...]:
    """Sentences of tokenised text: a sentence ends after a stand-alone ``.``, ``!`` or ``?`` token."""
    sentences, current = [], []
    for token in text.split():
        current.append(token)
        if token in SENTENCE_END:
            sentences.append(" ".join(current))
            current = []
    if current:
        sentences.append(" ".join(current))
    return tuple(sentences)


def _text(path: Path, where: str, value: Any, field: str) -> str:
    """A text: a string of proper Unicode (a pickle stores strings as UTF-8 with surrogates let
    through, so a cut-off emoji loads, and would fail only when written out:
    :func:`~metaeval.data.contract.check_text`)."""
    if not isinstance(value, str):
        raise DatasetError(f"{path}: {where}, field '{field}': expected a string, got {type(value).__name__}")
    return check_text(path, where, field, value)


def _name(path: Path, where: str, key: Any, field: str) -> str:
    """A doc_id or system name (a dict key) as text: a string or an integer (of at most 64 bits),
    proper Unicode, without tabs, line breaks or control characters (the canonical copy could not
    hold them: :func:`~metaeval.data.contract.check_name`)."""
    if isinstance(key, bool) or not isinstance(key, (str, int)) or (isinstance(key, int) and key.bit_length() > 64):
        raise DatasetError(f"{path}: {where}, field '{field}': {brief(key)}; expected a string or an integer name")
    return check_text(path, where, field, str(key))


def _score(path: Path, where: str, value: Any, name: str, spec: tuple[float, float, str, str]) -> float:
    """A human score: a finite float (an integer is converted; one too large for a float is refused)."""
    lo, hi, kind, _ = spec
    field = f"{path}: {where}, field 'scores.{name}': {brief(value)}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DatasetError(f"{field} is not a number")
    if isinstance(value, int) and value.bit_length() > 1000:     # float() would overflow
        raise DatasetError(f"{field} is not a finite number (too large for a float)")
    if not math.isfinite(value):
        raise DatasetError(f"{field} is not a finite number")
    if not lo <= value <= hi:
        raise DatasetError(f"{field} is outside [{lo:g}, {hi:g}]")
    if kind == "preference" and value not in (0, 1):
        raise DatasetError(f"{field}; expected the label 0 or 1")
    return float(value)


def _read_records(path: Path, data: dict, release: str):
    """The summaries, judgments and documents of every record. The records are plain data of any
    shape (:func:`~metaeval.data.safe_pickle.load_data_pickle` bounds their size and depth), and each
    check names record and field; should one still fail unforeseen, it is reported naming the file."""
    out: tuple[list[Summary], dict[tuple[str, str], dict[str, float]], dict[str, list[str]]] = ([], {}, {})
    try:
        for doc_id, rec in data.items():
            _read_record(path, release, doc_id, rec, out)
    except DatasetError:
        raise
    except Exception as e:  # noqa: BLE001 - the safety net the module's contract promises: no other exception
        raise DatasetError(f"{path}: a record the importer cannot read ({type(e).__name__}: {e})") from None
    return out


def _read_record(path: Path, release: str, doc_id: Any, rec: Any, out: tuple) -> None:
    profile = RELEASES[release]
    summaries, judgments, documents = out
    where = f"record {brief(doc_id)}"
    topic = _name(path, where, doc_id, "doc_id")
    check_name(path, where, "doc_id", topic)
    if not isinstance(rec, dict):
        raise DatasetError(f"{path}: {where}: expected a mapping with src, ref_summ and sys_summs")
    if topic in documents:
        raise DatasetError(f"{path}: {where}: a second record of topic {brief(topic)}")
    documents[topic] = [_text(path, where, rec.get("src"), "src")]
    refs = rec.get("ref_summs") if profile.multi_reference else [rec.get("ref_summ")]
    if not isinstance(refs, list) or not refs:
        raise DatasetError(f"{path}: {where}, field 'ref_summs': expected a non-empty list of references")
    for i, ref in enumerate(refs):
        field = f"ref_summs[{i}]" if profile.multi_reference else "ref_summ"
        summaries.append(Summary(topic, f"ref{i}", "human", split_tokenised(_text(path, where, ref, field))))
    systems = rec.get("sys_summs")
    if not isinstance(systems, dict) or not systems:
        raise DatasetError(f"{path}: {where}, field 'sys_summs': missing or empty; expected {{system: "
                           "{sys_summ, scores}}")
    for system, entry in systems.items():
        at = f"{where}, system {brief(system)}"
        summarizer = _name(path, at, system, "sys_summs").removesuffix(".txt")
        # names the canonical copy could not hold, or that it gives the references, are refused here,
        # naming the release (not the copy written from it)
        check_name(path, at, "sys_summs", summarizer)
        if REFERENCE_NAME.fullmatch(summarizer):
            raise DatasetError(f"{path}: {at}, field 'sys_summs': {brief(summarizer)} is the name the importer gives "
                               "a reference summary; expected another name for a system")
        _read_summary(path, release, (topic, summarizer), at, entry, out)
    if profile.systems is not None:
        _check_pair(path, release, topic, where, out[1], systems)


def _read_summary(path: Path, release: str, key: tuple[str, str], at: str, entry: Any, out: tuple) -> None:
    profile = RELEASES[release]
    summaries, judgments, _ = out
    if profile.systems is not None and key[1] not in profile.systems:
        raise DatasetError(f"{path}: {at}, field 'sys_summs': unknown system for {release}; expected "
                           f"{' or '.join(profile.systems)}")
    if key in judgments:
        raise DatasetError(f"{path}: {at}: a second summary by {brief(key[1])}")
    if not isinstance(entry, dict):
        raise DatasetError(f"{path}: {at}: expected a mapping with sys_summ and scores")
    text = _text(path, at, entry.get("sys_summ"), "sys_summ")
    scores = entry.get("scores")
    if not isinstance(scores, dict):
        raise DatasetError(f"{path}: {at}, field 'scores': missing; expected {{human metric: value}}")
    row = {}
    for dim, spec in profile.dimensions.items():
        if dim not in scores:
            raise DatasetError(f"{path}: {at}, field 'scores.{dim}': missing ({release} judges "
                               f"{', '.join(profile.dimensions)})")
        row[dim] = _score(path, at, scores[dim], dim, spec)
    summaries.append(Summary(*key, "system", split_tokenised(text)))
    judgments[key] = row


def _check_pair(path: Path, release: str, topic: str, where: str, judgments: dict, systems: dict) -> None:
    """A preference release (Rank19): exactly one summary labelled 1 and one labelled 0 per record."""
    profile = RELEASES[release]
    labels = sorted(judgments[(topic, s)][d] for s in profile.systems if (topic, s) in judgments
                    for d, spec in profile.dimensions.items() if spec[2] == "preference")
    if len(systems) != len(profile.systems) or labels != [0.0, 1.0]:
        raise DatasetError(f"{path}: {where}, field 'sys_summs': expected exactly one 'correct' (label 1) "
                           f"and one 'incorrect' (label 0) summary, got {_few(sorted(map(str, systems)))} with "
                           f"labels {_few(labels)}")


def _few(values: list) -> str:
    """A list for a message, cut after its first 4 items."""
    shown = ", ".join(brief(v) for v in values[:4])
    return f"[{shown}]" if len(values) <= 4 else f"[{shown}, ... {len(values)} in all]"


def import_bartscore_pkl(path: Path | str, name: str, release: str | None = None,
                         annotations: Path | str | None = None) -> Dataset:
    """Read one of BARTScore's unified files; ``release`` (default: the file's folder name) picks
    its profile in :data:`RELEASES`; ``annotations``: QAGS's per-worker judgments of the same release
    (:mod:`metaeval.data.qags`). Errors name the file, the record (doc_id, system) and the field;
    any other failure on a hostile file is reported the same way (:func:`_read_records`)."""
    path = Path(path)
    release = release or path.parent.name
    if release not in RELEASES:
        raise DatasetError(f"{path}: release {release!r} is not known; expected one of {', '.join(RELEASES)} (config "
                           "key release, or the name of the file's folder)")
    profile = RELEASES[release]
    data = load_data_pickle(path)
    if not isinstance(data, dict) or not data:
        raise DatasetError(f"{path}: expected a non-empty mapping {{doc_id: record}}, got {type(data).__name__}")
    summaries, judgments, documents = _read_records(path, data, release)
    # what the canonical copy would refuse (an empty name, "M1" beside "M1 ", a sentence too long) is
    # refused here, naming the pickle and the record
    twins = NameTwins()
    for s in summaries:
        check_imported(path, f"record {s.topic!r}, system {s.summarizer!r}", s,
                       "sys_summ" if s.kind == "system" else "ref_summ", twins, fields=("doc_id", "sys_summs"))
    dims = {d: Dimension(d, float(lo), float(hi), desc, kind, role="factual" if d in profile.factual else None)
            for d, (lo, hi, kind, desc) in profile.dimensions.items()}
    human = {"coverage": list(profile.coverage), "linguistic_quality": list(profile.linguistic_quality)}
    meta = {"name": name, "description": profile.description, "source": profile.source, "license": profile.license,
            "citation": profile.citation, "dimensions": {d.name: dimension_spec(d) for d in dims.values()},
            "human": human}
    annotated = []
    if annotations is not None:
        if release not in QAGS_RELEASES:
            raise DatasetError(f"{annotations}: per-worker judgments are read for {' and '.join(QAGS_RELEASES)} only "
                               f"(W4ngatang/qags data/mturk_*.jsonl); {path} is {release}")
        systems = {s.topic: s for s in summaries if s.kind == "system"}
        annotated = read_mturk(annotations, list(documents), documents, systems)
        meta["description"] += (" The authors' per-worker judgments (W4ngatang/qags) are annotations: each "
                                "sentence's 3 workers' yes / no, a sentence a part of the summary.")
        meta["source"] += f"; the workers' judgments: W4ngatang/qags data/{Path(annotations).name}"
    return Dataset(name=name, meta=meta, dimensions=dims, human=human, summaries=summaries, judgments=judgments,
                   documents=documents, annotations=annotated)
