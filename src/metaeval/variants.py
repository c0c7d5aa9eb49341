"""Metric variant ids: the one place that builds and parses them.

A *variant* is a system-level score of a metric, named as Graham (2015) names the ROUGE variants:

=====================  =====================================================================
``R2_ST1_RS0_A_P``     ROUGE-2, stemmed (ST1), stop words kept (RS0), mean over the
                       summarizer's summaries (A; M = median), precision (P; R recall, F F)
``BLEU_ST1_RS0``       corpus BLEU of the summarizer's summaries on the same preprocessing
``CHRF``, ``CHRF++``   corpus chrF / chrF++ of the summarizer's summaries (raw text, no preprocessing)
``SERA5_PL_A``         a per-summary metric that is neither ROUGE nor BLEU (here SERA), mean (A)
                       or median (M) over the summarizer's summaries
=====================  =====================================================================

Every variant aggregates a *per-summary metric* (:attr:`Variant.summary_metric`): ``R2_ST1_RS0_P``,
``BLEU_ST1_RS0`` (smoothed sentence BLEU), ``CHRF`` (sentence chrF) or ``SERA5_PL``. The agreement
and re-ranking stages test per-summary metrics; the correlation stage correlates variants. BLEU and
chrF variants are *corpus-level* (:attr:`Variant.corpus_level`): their system score is computed
from the summed per-summary sufficient statistics, not as a mean or median.

ROUGE measures are ``R1``..``R9`` (ROUGE-N), ``RL``, ``RW``, ``RS<d>`` / ``RSU<d>`` (skip-bigrams with
at most d words between, without / with unigrams; ``RS*`` / ``RSU*`` unlimited):
:data:`MEASURE_PATTERN` is the one regular expression for them (the Snakefile's wildcard
constraint and :func:`metaeval.metrics.rouge.parse_measure` use it).

The id forms sit below the metric families (:mod:`metaeval.metrics.families`, which import this
module and never the reverse): an id's text, its per-summary metric and whether it is corpus-level
follow from its form alone. Parsing reads the four forms; the catch-all ``<metric>_A`` form never
takes a metric that has the look of another form's (a ROUGE, BLEU or chrF metric id). Which family
owns a metric, and whether a score file may name it, is the families' to say
(:func:`metaeval.metrics.families.owner`, :func:`metaeval.metrics.families.metric_id_problem`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MEASURE_PATTERN = r"R(?:[1-9]|L|W|SU?(?:[0-9]+|\*))"
STATISTICS = ("A", "M")        # mean, median over a summarizer's summaries
PRF = ("P", "R", "F")          # precision, recall, F
CHRF_METRICS = ("CHRF", "CHRF++")    # chrF (word order 0) and chrF++ (word order 2)

_MEASURE = re.compile(MEASURE_PATTERN)

# The id forms (Variant.family): the form of a ROUGE variant, a BLEU variant, a chrF variant, and the
# mean / median <metric>_A / <metric>_M of a per-summary metric over a summarizer's summaries (the
# metric id: a letter, then letters, digits and _ . + -).
ROUGE_ID = re.compile(rf"^(?P<measure>{MEASURE_PATTERN})_ST(?P<stem>[01])_RS(?P<stop>[01])_(?P<stat>[AM])_(?P<prf>[PRF])$")
ROUGE_METRIC = re.compile(rf"^{MEASURE_PATTERN}_ST[01]_RS[01]")     # a per-summary ROUGE metric id (its start)
BLEU_ID = re.compile(r"^BLEU_ST(?P<stem>[01])_RS(?P<stop>[01])$")
CHRF_ID = re.compile(r"^CHRF(?:\+\+)?$")
MEAN_MEDIAN = re.compile(r"^(?P<metric>[A-Za-z][A-Za-z0-9_.+-]*?)_(?P<stat>[AM])$")
# How the ids of each form look (for the parse error), in the order they are tried.
EXAMPLES = ("R2_ST1_RS0_A_R (ROUGE: measure, ST0/ST1, RS0/RS1, A/M, P/R/F)", "BLEU_ST1_RS0", "CHRF, CHRF++",
            "<metric>_A / <metric>_M (e.g. SERA5_PL_A)")
CORPUS_FORMS = ("bleu", "chrf")      # system score from summed per-summary statistics

# What Graham's Table 2 calls the options of a ROUGE variant, in id order.
OPTIONS = ("n-gram method", "stemming", "stop words", "mean/median", "P/R/F")


def is_measure(text: str) -> bool:
    """Whether ``text`` is a ROUGE measure id (R1..R9, RL, RW, RS<d>, RSU<d>, RS*, RSU*)."""
    return _MEASURE.fullmatch(text) is not None


def is_sentence_bleu(metric_id: str) -> bool:
    """Whether a per-summary metric id is the smoothed sentence BLEU (BLEU_ST1_RS0)."""
    return BLEU_ID.match(metric_id) is not None


def has_form_of_other_metric(metric: str) -> bool:
    """Whether a per-summary metric id looks like one of the ROUGE, BLEU or chrF forms' (so that its
    ``<metric>_A`` would not name a mean of a metric of its own)."""
    return (ROUGE_METRIC.match(metric) is not None or BLEU_ID.match(metric) is not None or metric == "BLEU"
            or CHRF_ID.match(metric) is not None)


def setting_tag(stem: int, stop: int) -> str:
    """The preprocessing part of an id: ST1_RS0 = stemmed, stop words kept."""
    return f"ST{int(stem)}_RS{int(stop)}"


@dataclass(frozen=True, order=True)
class Variant:
    """A system-level variant; ``str(v)`` is its id and :meth:`parse` reads one back."""

    family: str                    # the id form: "rouge", "bleu", "chrf" or "metric" (Family.form)
    measure: str                   # R2, BLEU, CHRF / CHRF++, or the per-summary metric's id (SERA5_PL)
    stem: int | None = None        # 0/1 for ROUGE and BLEU
    stop: int | None = None        # 0/1 for ROUGE and BLEU
    statistic: str | None = None   # "A" mean, "M" median; None for corpus BLEU and chrF
    prf: str | None = None         # "P", "R", "F" for ROUGE

    @staticmethod
    def rouge(measure: str, stem: int, stop: int, statistic: str, prf: str) -> Variant:
        return Variant("rouge", measure, int(stem), int(stop), statistic, prf)

    @staticmethod
    def bleu(stem: int, stop: int) -> Variant:
        return Variant("bleu", "BLEU", int(stem), int(stop))

    @staticmethod
    def chrf(name: str) -> Variant:
        """Corpus chrF (``CHRF``) or chrF++ (``CHRF++``)."""
        if name not in CHRF_METRICS:
            raise ValueError(f"{name!r} is not a chrF variant; expected one of {CHRF_METRICS}")
        return Variant("chrf", name)

    @staticmethod
    def metric(name: str, statistic: str) -> Variant:
        return Variant("metric", name, None, None, statistic)

    @staticmethod
    def parse(text: str) -> Variant:
        """Read an id; a ValueError says what was expected."""
        m = ROUGE_ID.match(text)
        if m:
            return Variant.rouge(m["measure"], int(m["stem"]), int(m["stop"]), m["stat"], m["prf"])
        m = BLEU_ID.match(text)
        if m:
            return Variant.bleu(int(m["stem"]), int(m["stop"]))
        if CHRF_ID.match(text):
            return Variant.chrf(text)
        m = MEAN_MEDIAN.match(text)
        if m and not has_form_of_other_metric(m["metric"]):
            return Variant.metric(m["metric"], m["stat"])
        raise ValueError(f"{text!r} is not a variant id; expected e.g. {', '.join(EXAMPLES[:-1])}, or {EXAMPLES[-1]}")

    def __str__(self) -> str:
        if self.family == "rouge":
            return f"{self.measure}_{setting_tag(self.stem, self.stop)}_{self.statistic}_{self.prf}"
        if self.family == "bleu":
            return f"BLEU_{setting_tag(self.stem, self.stop)}"
        if self.family == "chrf":
            return self.measure
        return f"{self.measure}_{self.statistic}"

    @property
    def id(self) -> str:
        return str(self)

    @property
    def corpus_level(self) -> bool:
        """Whether the system score comes from summed per-summary statistics (BLEU, chrF)."""
        return self.family in CORPUS_FORMS

    @property
    def setting(self) -> tuple[int, int] | None:
        """(stem, stop) of ROUGE and BLEU variants."""
        return None if self.stem is None else (self.stem, self.stop)

    @property
    def summary_metric(self) -> str:
        """The per-summary metric this variant aggregates: R2_ST1_RS0_A_R -> R2_ST1_RS0_R;
        BLEU_ST0_RS1 -> BLEU_ST0_RS1 (smoothed sentence BLEU); CHRF -> CHRF (sentence chrF);
        SERA5_PL_A -> SERA5_PL."""
        if self.family == "rouge":
            return summary_metric_id(self.measure, self.stem, self.stop, self.prf)
        return str(self) if self.corpus_level else self.measure

    def option(self, name: str) -> str:
        """The value of one of Graham's :data:`OPTIONS` for a ROUGE variant (as in its id)."""
        if self.family != "rouge":
            raise ValueError(f"{self} is not a ROUGE variant")
        return {"n-gram method": self.measure, "stemming": f"ST{self.stem}", "stop words": f"RS{self.stop}",
                "mean/median": self.statistic, "P/R/F": self.prf}[name]


def summary_metric_id(measure: str, stem: int, stop: int, prf: str | None = None) -> str:
    """Id of a per-summary score column: R2_ST1_RS0_R (ROUGE-2 recall), BLEU_ST1_RS0 (``prf`` None)."""
    return f"{measure}_{setting_tag(stem, stop)}" + ("" if prf is None else f"_{prf}")


def rouge_variants(measures, settings) -> list[Variant]:
    """Every ROUGE variant of the measures and (stem, stop) settings, in the order of
    system_scores.tsv: per measure and setting, A then M, each P, R, F."""
    return [Variant.rouge(m, s, r, stat, prf) for m in measures for s, r in settings
            for stat in STATISTICS for prf in PRF]


def parse_all(ids, key: str) -> list[Variant]:
    """Parse config ids; the error names the config key and position."""
    out = []
    for i, text in enumerate(ids):
        try:
            out.append(Variant.parse(str(text)))
        except ValueError as e:
            raise ValueError(f"config key {key}[{i}]: {e}") from None
    return out
