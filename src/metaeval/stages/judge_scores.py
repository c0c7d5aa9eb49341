"""The judges' scores, read from their outputs (results/{dataset}/judges/): the score file the
leaderboard reads beside every other metric's, and what the reading found.

* ``scores.tsv``: ``topic, summarizer, metric, score``, a judge x method x dimension a metric
  (:func:`metaeval.data.judges.metric_id`), its score of a summary the mean over its samples;
  the file metrics job reads it as any score file (metaeval.data.metric_scores).
* ``parse.tsv``: per judge x method x dimension the responses, the parse failures (never scored)
  and the items judged more than once; the log quotes a few failures of each.
* ``samples.tsv``: per summary a judge scored in several samples, each sample's value.
* ``choices.tsv``: every pairwise choice read (``choice`` empty for a parse failure), the
  duplicates resolved to the last.

load (:func:`metaeval.data.judges.read_judges`) -> :func:`compute` -> :func:`write`.
"""

from __future__ import annotations

import json
import logging
from typing import Mapping

from .. import tables
from ..data import judges as jd
from ..records import JudgeScoresOptions

SCORE_COLUMNS = ("topic", "summarizer", "metric", "score")
PARSE_COLUMNS = ("judge", "dimension", "responses", "failures", "failure_rate", "duplicates")
SAMPLE_COLUMNS = ("judge", "dimension", "topic", "summarizer", "sample_values")
CHOICE_COLUMNS = ("judge", "dimension", "topic", "summarizer_a", "summarizer_b", "order", "choice", "position")
log = logging.getLogger(__name__)


def rules(options: JudgeScoresOptions) -> dict[str, jd.ParseRule]:
    """The tool's parse rules and the config's ``parse_rules`` (a name declared in both is the
    config's)."""
    given = jd.rules_from(json.loads(options.parse_rules), "config key parse_rules") if options.parse_rules else {}
    return {**jd.builtin_rules(), **given}


def load(inputs: Mapping[str, str], options: JudgeScoresOptions) -> jd.JudgeRead:
    return jd.read_judges(options.judges, rules(options))


def compute(read: jd.JudgeRead, options: JudgeScoresOptions) -> jd.JudgeScores:
    return jd.scores(read)


def write(result: jd.JudgeScores, options: JudgeScoresOptions, out: Mapping[str, str]) -> None:
    for c in result.counts:
        if c.failures:
            log.info("%s, %s: %d of %d responses not read by the parse rule, e.g. %s", c.judge, c.dimension,
                     c.failures, c.responses, " | ".join(c.examples))
    score_rows = []
    for item in result.items:
        judge, method = (item.judge.split(":", 1) + [""])[:2]
        score_rows.append([item.topic, item.summarizer, jd.metric_id(judge, method, item.dimension), repr(item.score)])
    tables.write_tsv(tables.frame(sorted(score_rows, key=lambda r: (r[2], r[0], r[1])), SCORE_COLUMNS), out["scores"])
    tables.write_tsv(tables.frame([[c.judge, c.dimension, c.responses, c.failures,
                                    tables.fixed(c.failures / c.responses if c.responses else float("nan"), 4),
                                    c.duplicates] for c in result.counts], PARSE_COLUMNS), out["parse"])
    tables.write_tsv(tables.frame([[i.judge, i.dimension, i.topic, i.summarizer, " ".join(repr(v) for v in i.samples)]
                                   for i in result.items if len(i.samples) > 1], SAMPLE_COLUMNS), out["samples"])
    tables.write_tsv(tables.frame([[c.judge, c.dimension, c.topic, c.a, c.b, c.order, c.choice or "", c.position or ""]
                                   for c in result.choices], CHOICE_COLUMNS), out["choices"])
