"""What a metric family provides, in the way of sacrebleu's ``Metric`` base class (every metric
gives its sufficient statistics and a corpus score computed from them, so that resampling is one
generic routine) and of sacrerouge's registries (metrics looked up by name).

A *family* is a kind of metric the workflow scores or reads: ROUGE, BLEU, chrF, SERA, the metrics
of score files (the registry: :data:`metaeval.metrics.families.REGISTRY`). A family says

* how its variant ids look (:meth:`Family.parse`, :meth:`Family.variant_id`) and which per-summary
  metric a variant aggregates (:meth:`Family.summary_metric`, :meth:`Family.owns_metric`);
* where its per-summary scores are: a long table ``topic, summarizer, metric, score`` written by
  its own job (:attr:`Family.table`, the name the jobs give it as an input; read by
  :meth:`Family.read_scores`), or the score jobs' summary_scores.tsv (ROUGE, BLEU: ``table`` None);
* for a corpus-level family (:class:`CorpusFamily`: BLEU, chrF), its per-summary sufficient
  statistics (the inputs named ``<stats_prefix>...``, :meth:`CorpusFamily.stats_variant`) and the
  corpus score of summed statistics (:meth:`CorpusFamily.corpus_scores`: sacrebleu's);
* its signature (:attr:`Family.signature`, the input name of its signature file; its lines are
  labelled :attr:`Family.signature_kind` in scoring_signature.txt);
* whether it needs the summaries' texts, and what turns it on (:attr:`Family.flag`, the
  :class:`metaeval.options.Options` attribute, or :attr:`Family.switch`, the config section whose
  ``enabled`` key does; neither: on whenever the data set has what it reads), so whether it is
  scored for a data set (:meth:`Family.active`);
* the job that writes its files, if it has its own (:attr:`Family.stage`, a stage of
  :data:`metaeval.outputs.STAGES`), and how the jobs that read them name them
  (:meth:`Family.input_name`): the rules' input functions (``family_files`` in rules/common.smk)
  are derived from these.

The variant ids are :mod:`metaeval.variants`' (below the families): a family's :meth:`Family.parse`
takes the ids of its form whose metric it owns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Sequence

import numpy as np

from .. import tables
from ..variants import MEAN_MEDIAN, Variant

if TYPE_CHECKING:
    import pandas as pd


class Family(ABC):
    """A metric family (see the module's docstring). Subclasses set the class attributes."""

    name: ClassVar[str]                      # the registry key
    form: ClassVar[str]                      # the :attr:`metaeval.variants.Variant.family` of its variants
    needs_texts: ClassVar[bool]              # scored from the summaries' texts (not run on a score-only data set)
    flag: ClassVar[str | None] = None        # the Options attribute that turns it on, or:
    switch: ClassVar[str | None] = None      # the config section whose ``enabled`` key does (neither: always on)
    computed: ClassVar[bool] = True          # scored by the workflow (False: read from score files)
    signature_kind: ClassVar[str]            # the label of its lines in scoring_signature.txt
    corpus_level: ClassVar[bool] = False     # system score from summed sufficient statistics
    stage: ClassVar[str | None] = None       # the outputs stage of its own job (None: the score jobs)
    gathered: ClassVar[tuple[str, ...]] = ("scores", "signature")   # the kinds of its files the gathering reads

    @abstractmethod
    def parse(self, text: str) -> Variant | None:
        """The variant of id ``text`` if it is one of this family's, else None."""

    def variant_id(self, variant: Variant) -> str:
        """The id of one of this family's variants (what :meth:`parse` reads back): its form's."""
        return str(variant)

    def summary_metric(self, variant: Variant) -> str:
        """The id of the per-summary metric the variant aggregates: its form's."""
        return variant.summary_metric

    @abstractmethod
    def owns_metric(self, metric: str) -> bool:
        """Whether ``metric`` is (or looks like) the id of one of this family's per-summary metrics."""

    def enabled(self, options) -> bool:
        """Whether the configuration (a :class:`metaeval.options.Options`) turns the family on: its
        ``flag``, else its ``switch`` section's ``enabled`` key, else always."""
        if self.flag is not None:
            return bool(getattr(options, self.flag))
        return self.switch is None or bool(options.config[self.switch]["enabled"])

    @property
    def table(self) -> str | None:
        """The input name of its long per-summary table (families with their own job)."""
        return self.input_name("scores") if self.stage else None

    @property
    def signature(self) -> str | None:
        """The input name of its signature file (families with their own job)."""
        return self.input_name("signature") if self.stage else None

    def active(self, options, dataset: str) -> bool:
        """Whether the family is scored for a data set: on, and the data set has texts if it needs them."""
        return self.enabled(options) and (not self.needs_texts or options.has_texts(dataset))

    def output_values(self, options) -> dict[str, object]:
        """The values that fill the placeholders of its stage's files (:func:`metaeval.outputs.files`)."""
        return {}

    def input_name(self, key: str) -> str:
        """The name the reading jobs give its stage's file ``key``: ``scores`` is :attr:`table`,
        any other ``<kind>...`` is ``<name>_<kind>...`` (``chrf_signature``, ``chrf_stats_CHRF``)."""
        return self.name if key == "scores" else f"{self.name}_{key}"

    @staticmethod
    def file_kind(key: str) -> str:
        """The kind of a stage's file (``stats_CHRF`` -> ``stats``)."""
        return key.split("_", 1)[0]

    def read_scores(self, path: str) -> pd.DataFrame:
        """The family's long per-summary table (``topic, summarizer, metric, score``)."""
        return tables.read_tsv(path, numeric=("score",))

    def signature_lines(self, path: str) -> list[str]:
        """The non-empty lines of the family's signature file."""
        return [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


class CorpusFamily(Family):
    """A family whose system score is a corpus score of summed per-summary sufficient statistics
    (sacrebleu's ``Metric._compute_score_from_stats``), so that any corpus - a summarizer's, a
    bootstrap sample's - is scored from the statistics alone."""

    corpus_level = True
    gathered = ("stats", "signature")        # the system score comes from the statistics
    stats_prefix: ClassVar[str]              # the input names of its statistics start with this

    @abstractmethod
    def stats_variant(self, key: str) -> str | None:
        """The variant id whose statistics an input named ``key`` holds, or None."""

    @abstractmethod
    def corpus_scores(self, stats: np.ndarray) -> Sequence[float]:
        """The corpus score of every row of summed statistics (K, statistics; int64)."""

    def corpus_score(self, counts: list[int]) -> float:
        """The corpus score of one row of summed statistics (Python ints)."""
        return float(self.corpus_scores(np.asarray([counts], dtype=np.int64))[0])


class MeanMedianFamily(Family):
    """A family of per-summary metrics in a long table whose variants are ``<metric>_A`` (mean)
    and ``<metric>_M`` (median) over a summarizer's summaries (SERA, the score files' metrics)."""

    form = "metric"

    def parse(self, text: str) -> Variant | None:
        m = MEAN_MEDIAN.match(text)
        return Variant.metric(m["metric"], m["stat"]) if m and self.owns_metric(m["metric"]) else None

