"""The registered metric families (:class:`metaeval.metrics.family.Family`), by name.

Everything that lists families iterates over :data:`REGISTRY`: variant ids are parsed by asking
each family in turn (:meth:`metaeval.variants.Variant.parse`; the score files' catch-all id form
comes last), the bootstrap resamples every corpus-level family through its ``corpus_scores``, the
analyses read every family's long table and statistics, and the gathering job its corpus scores
and signatures. The order is the order of the tables: the analyses read the per-summary metrics
in it (SERA before chrF, as before the registry), the gathering job the corpus-level families first.

Adding a family: its engine module (``metaeval/metrics/<family>.py``) and a class here, entered in
:data:`REGISTRY` before :class:`FileMetrics`; a per-summary family in a long table subclasses
:class:`metaeval.metrics.family.MeanMedianFamily`, a corpus-level one
:class:`metaeval.metrics.family.CorpusFamily`. The variant ids sit below the families
(:mod:`metaeval.variants`: their forms, parsed and written without a family); a family says which
per-summary metrics of a form are its own. The engines of the corpus scores are imported with the
module (none imports the families).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from ..variants import BLEU_ID as _BLEU, CHRF_ID as _CHRF, MEASURE_PATTERN, ROUGE_ID as _ROUGE, \
    ROUGE_METRIC as _ROUGE_METRIC, Variant
from .bleu import corpus_bleu_of_rows
from .chrf import f_scores
from .family import CorpusFamily, Family, MeanMedianFamily

if TYPE_CHECKING:
    import numpy as np

_SERA = re.compile(r"^SERA(?:DIS)?[0-9]+_(?:PL|KW)$")   # metaeval.metrics.sera.metric_id
# The start of the id of a metric the workflow computes (docs/DATASET_FORMAT.md, metric_scores.tsv):
# a ROUGE measure alone or with part of its settings (R2, RSU4, R2_ST1), BLEU with part of its
# settings, SERA's measure without its kind (SERA5), chrF++ short of its last '+'. A score file's
# metric so named would read as that metric in every table (R2_A beside R2_ST1_RS0_A_R).
_ID_START = re.compile(rf"(?:{MEASURE_PATTERN})(?:_ST[01](?:_RS[01])?)?|BLEU_ST[01](?:_RS[01])?|SERA(?:DIS)?[0-9]+"
                       r"|CHRF\+")


class Rouge(Family):
    """ROUGE-1.5.5 (:mod:`metaeval.metrics.rouge`): per-summary P, R, F in summary_scores.tsv."""

    name = form = signature_kind = "rouge"
    needs_texts = True

    def parse(self, text: str) -> Variant | None:
        m = _ROUGE.match(text)
        return Variant.rouge(m["measure"], int(m["stem"]), int(m["stop"]), m["stat"], m["prf"]) if m else None

    def owns_metric(self, metric: str) -> bool:
        return _ROUGE_METRIC.match(metric) is not None


class Bleu(CorpusFamily):
    """Corpus BLEU through sacrebleu (:mod:`metaeval.metrics.bleu`): smoothed sentence BLEU in
    summary_scores.tsv, the merged statistics per setting as ``bleu_stats_ST1_RS0``..."""

    name = form = signature_kind = "bleu"
    needs_texts = True
    flag = "bleu_enabled"
    stats_prefix = "bleu_stats_ST"             # not the score jobs' parts, bleu_stats__ST..__shard..

    def parse(self, text: str) -> Variant | None:
        m = _BLEU.match(text)
        return Variant.bleu(int(m["stem"]), int(m["stop"])) if m else None

    def owns_metric(self, metric: str) -> bool:
        return _BLEU.match(metric) is not None or metric == "BLEU"

    def stats_variant(self, key: str) -> str | None:
        return f"BLEU_{key[len('bleu_stats_'):]}" if key.startswith(self.stats_prefix) else None

    def corpus_scores(self, stats: np.ndarray) -> Sequence[float]:
        """sacrebleu's ``BLEU.compute_bleu`` of every row, computed for all rows at once with its bits
        (:func:`metaeval.metrics.bleu.corpus_bleu_of_rows`)."""
        return corpus_bleu_of_rows(stats)


class Sera(MeanMedianFamily):
    """SERA (:mod:`metaeval.metrics.sera`), scored by its own job over an index of documents."""

    name = signature_kind = stage = "sera"
    needs_texts = True
    flag = "sera_enabled"

    def owns_metric(self, metric: str) -> bool:
        return _SERA.match(metric) is not None


class Chrf(CorpusFamily):
    """chrF and chrF++ as sacrebleu computes them (:mod:`metaeval.metrics.chrf`), scored by its own
    job on the raw text: sentence chrF in its long table, statistics as ``chrf_stats_<id>``."""

    name = form = signature_kind = stage = "chrf"
    needs_texts = True
    flag = "chrf_enabled"
    stats_prefix = "chrf_stats_"

    def output_values(self, options) -> dict[str, object]:
        return {"metric": list(options.chrf.metrics)}       # one statistics file per variant

    def parse(self, text: str) -> Variant | None:
        return Variant.chrf(text) if _CHRF.match(text) else None

    def owns_metric(self, metric: str) -> bool:
        return _CHRF.match(metric) is not None

    def stats_variant(self, key: str) -> str | None:
        return key[len(self.stats_prefix):] if key.startswith(self.stats_prefix) else None

    def corpus_scores(self, stats: np.ndarray) -> Sequence[float]:
        """chrF's F of every row, all at once (:func:`metaeval.metrics.chrf.f_scores`)."""
        return f_scores(stats)


class FileMetrics(MeanMedianFamily):
    """Metrics computed elsewhere, read from score files (:mod:`metaeval.data.metric_scores`): any
    metric id no other family owns. It comes last in :data:`REGISTRY`: its id form takes the rest."""

    name = stage = "file_metrics"
    signature_kind = "file"
    needs_texts = False
    computed = False

    def active(self, options, dataset: str) -> bool:
        """On when the data set has score files (a canonical folder's, an importer's, the entry's)."""
        return bool(options.file_metric_sources(dataset))

    def owns_metric(self, metric: str) -> bool:
        return owner(metric) is None


REGISTRY: dict[str, Family] = {f.name: f for f in (Rouge(), Bleu(), Sera(), Chrf(), FileMetrics())}


def owner(metric: str) -> Family | None:
    """The family the workflow computes that owns per-summary metric id ``metric``, or None."""
    return next((f for f in REGISTRY.values() if f.computed and f.owns_metric(metric)), None)


def metric_id_problem(metric: str) -> str | None:
    """Why ``metric`` cannot name a metric read from a score file, or None: its variants
    ``<metric>_A`` / ``<metric>_M`` must read back as that metric, and it must not be (or begin like)
    the id of a metric the workflow computes (ROUGE, BLEU, chrF, SERA), whose scores it would shadow,
    nor the start of one (:data:`_ID_START`)."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.+-]*", metric):
        return ("expected a letter followed by letters, digits and '_', '.', '+', '-' "
                "(it becomes the variant ids <metric>_A and <metric>_M)")
    if owner(metric) is not None:
        return "collides with a metric the workflow computes (ROUGE, BLEU, chrF or SERA ids); rename it"
    if _ID_START.fullmatch(metric):
        return ("is the start of the id of a metric the workflow computes (e.g. R2 of R2_ST1_RS0_R, SERA5 of "
                "SERA5_PL) and would read as that metric; rename it")
    try:
        parsed = Variant.parse(f"{metric}_A")
    except ValueError:
        parsed = None
    if parsed is None or parsed.measure != metric:
        return "its variant ids <metric>_A / <metric>_M would not read back as this metric; rename it"
    return None


def corpus_families() -> list[CorpusFamily]:
    """The corpus-level families, in registry order."""
    return [f for f in REGISTRY.values() if isinstance(f, CorpusFamily)]


# Variant.family -> the first family of that id form (SERA's and the score files' share "metric")
_BY_FORM: dict[str, Family] = {f.form: f for f in reversed(REGISTRY.values())}


def of_form(form: str) -> Family:
    """The (first) family whose variants have :attr:`metaeval.variants.Variant.family` ``form``."""
    return _BY_FORM[form]
