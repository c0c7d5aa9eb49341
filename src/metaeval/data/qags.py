"""QAGS's per-worker judgments as its authors released them (W4ngatang/qags, data/mturk_cnndm.jsonl
and mturk_xsum.jsonl) -> annotations of BARTScore's QAGS_CNN and QAGS_XSUM data sets. The only module
that knows the files' layout: one JSON object per line, an article and its one model summary,
``{"article": text, "summary_sentences": [{"sentence": text, "responses": [{"worker_id": number,
"response": "yes" | "no"}, ...]}, ...]}``: each sentence of the summary judged supported by the
article or not by the same 3 workers.

Line i is the i-th record of BARTScore's pickle (its article and its summary, compared letter by
letter: the pickle's text is tokenised); each sentence is a part of the summary (``part`` = its
number, from 1), each answer an annotation of ``fact`` (yes = 1). The workers differ from summary to
summary (162 on QAGS-CNN, 84 on QAGS-XSum), so an annotator of the copy is a worker's position among
the summary's workers (``worker1`` .. ``worker3``, in the order of the first sentence's answers), as
SummEval's annotators are positions: Krippendorff's alpha does not depend on who the coders are,
only on which values share a unit (here a sentence). The share of a summary's sentences most
workers said yes to is BARTScore's ``fact`` (``tests/test_qags_release.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from .contract import Annotation, DatasetError, Summary, fail, json_objects

DIMENSION = "fact"
ANSWERS = {"yes": 1.0, "no": 0.0}


def letters(text: str) -> str:
    """A text's letters and digits, lower-cased: the same text tokenised or not."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _responses(path: Path, line: int, k: int, sentence: Any) -> list[tuple[str, float]]:
    field = f"summary_sentences[{k}]"
    if not isinstance(sentence, dict) or not isinstance(sentence.get("sentence"), str):
        raise fail(path, line, field, "expected {sentence: text, responses: [{worker_id, response}]}")
    responses = sentence.get("responses")
    if not isinstance(responses, list) or not responses:
        raise fail(path, line, f"{field}.responses", "missing or empty; expected the workers' answers")
    out = []
    for j, r in enumerate(responses):
        at = f"{field}.responses[{j}]"
        worker = r.get("worker_id") if isinstance(r, dict) else None
        if isinstance(worker, bool) or not isinstance(worker, (int, str)) or worker == "":
            raise fail(path, line, f"{at}.worker_id", "missing, or neither a number nor a non-empty string")
        if r.get("response") not in ANSWERS:
            raise fail(path, line, f"{at}.response", f"{r.get('response')!r}; expected yes or no")
        if str(worker) in (w for w, _ in out):
            raise fail(path, line, f"{at}.worker_id", f"{worker!r} answers twice for this sentence")
        out.append((str(worker), ANSWERS[r["response"]]))
    return out


def read_mturk(path: Path | str, topics: Sequence[str], documents: Mapping[str, Sequence[str]],
               summaries: Mapping[str, Summary]) -> list[Annotation]:
    """The annotations of ``fact`` from one mturk file: line i annotates ``topics[i]`` (the pickle's
    records in order), whose document (``documents``) and system summary (``summaries``, by topic)
    must be the line's article and sentences, letter by letter. Errors name the file, the line and
    the field."""
    path = Path(path)
    out: list[Annotation] = []
    n = 0
    for n, (line, rec) in enumerate(json_objects(path, "{article, summary_sentences}"), start=1):
        if n > len(topics):
            raise fail(path, line, None, f"a line beyond the {len(topics)} records of the data set; expected one "
                                         "line per record, in its order")
        topic = topics[n - 1]
        if not isinstance(rec.get("article"), str) or letters(rec["article"]) != letters(documents[topic][0]):
            raise fail(path, line, "article", f"is not the article of the data set's record {topic}; expected the "
                                              "records in the same order")
        sentences = rec.get("summary_sentences")
        if not isinstance(sentences, list) or not sentences:
            raise fail(path, line, "summary_sentences", "missing or empty; expected the summary's judged sentences")
        answers = [_responses(path, line, k, s) for k, s in enumerate(sentences)]
        summary = summaries[topic]
        if letters("".join(s["sentence"] for s in sentences)) != letters("".join(summary.sentences)):
            raise fail(path, line, "summary_sentences", f"are not the summary of the data set's record {topic} "
                                                        f"(system {summary.summarizer})")
        position = {w: i for i, (w, _) in enumerate(answers[0], start=1)}
        for k, a in enumerate(answers):
            if sorted(w for w, _ in a) != sorted(position):
                raise fail(path, line, f"summary_sentences[{k}].responses", "other workers than the first "
                                                                            "sentence's; expected the same workers "
                                                                            "for every sentence of a summary")
            out += [Annotation(topic, summary.summarizer, DIMENSION, f"worker{position[w]}", "crowd", v, str(k + 1))
                    for w, v in a]
    if n != len(topics):
        raise DatasetError(f"{path}: {n} lines; expected one per record of the data set ({len(topics)})")
    return out
