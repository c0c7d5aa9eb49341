"""The fields of the stages' options records that are not keys of their config sections, in one place.

A stage's record (its registry entry's ``record``) is built by field name from its first config
section (:meth:`metaeval.options.Options.record`); :func:`derived_fields` gives the rest, by stage:
values of other sections (``StatisticsOptions.summarizers`` is ``correlation.summarizers``) and
values derived from the validated config (``SeraOptions.mu`` only for the lm_dirichlet model).
"""

from __future__ import annotations

from typing import Any, Mapping

from .metrics.tokenize import exception_order
from .variants import Variant


def derived_fields(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """By stage, the fields of its options record that are not keys of its config section of the same
    names: values of other sections and values derived from the validated ``config``. The one place
    they are written (:meth:`Options.record` adds them to the fields taken from the section); a
    stage whose record is its section's keys alone has no entry."""
    r, b, s, h, c = (config[k] for k in ("rouge", "bleu", "scale", "human_scores", "correlation"))
    exceptions = exception_order(r["stemmer_exceptions"])
    se, st, sw, f = (config[k] for k in ("sera", "statistics", "sweeps", "factuality"))
    # the permutation tests cover every human combination when "optimal" rests on them
    permutation_combinations = (h["combinations"] if st["optimal"] == "permutation"
                                else [x for x in st["combinations"] if x != "all"])
    # "optimal" in correlations.tsv rests on the statistics job's permutation tests
    optimal = "permutation" if st["enabled"] and st["optimal"] == "permutation" else "williams"
    # the statistics job's permutation tests when it writes them for the across combination, else Williams
    across_tests = ("permutation" if st["enabled"] and config["across"]["combination"] in permutation_combinations
                    else "williams")
    sweeps = dict(alpha=r["alpha"], multiple_references=r["multiple_references"],
                  stemmer_exceptions=exceptions if any(Variant.parse(v).stem for v in sw["variants"]) else None)
    return {
        "score": dict(shards=s["shards"], bleu=b["enabled"], per_summary_smoothing=b["per_summary_smoothing"],
                      stemmer_exceptions=exceptions),
        "chrf": dict(jackknife_systems=r["jackknife_systems"]),
        "sera_index": dict(stemming=bool(se["stemming"]), stemmer_exceptions=exceptions if se["stemming"] else None),
        # each retrieval model's own parameters only
        "sera": dict(mu=se["mu"] if se["model"] == "lm_dirichlet" else None,
                     bm25=(se["bm25_k1"], se["bm25_b"]) if se["model"] == "bm25" else None),
        # a data set's entry fills these in (Options.human_job)
        "human": dict(target_dimensions=(), composites=(), primary=None, entry="config key datasets.<name>"),
        "correlation": dict(combinations=h["combinations"], human_order=h["order"], optimal=optimal),
        "correlation_tables": dict(optimal=optimal, answer_baseline=config["agreement"]["baseline"]),
        "statistics": dict(summarizers=c["summarizers"], baselines=c["baselines"], alpha=c["alpha"],
                           permutation_combinations=permutation_combinations,
                           accuracy_baseline=st["accuracy_baseline"] or config["agreement"]["baseline"]),
        "annotators": dict(summarizers=c["summarizers"], baselines=c["baselines"]),
        "reference_sweep": sweeps,
        "length_sweep": sweeps,
        "agreement": dict(combinations=h["combinations"]),
        "rerank": dict(summarizers=c["summarizers"]),
        "factuality": dict(proportion_cutoff=float(f["proportion_cutoff"]),
                           validation_split=(f["validation_split"],) if isinstance(f["validation_split"], str)
                           else tuple(f["validation_split"]),
                           validation_fraction=float(f["validation_fraction"]), confidence=float(f["confidence"]),
                           baselines=tuple(dict.fromkeys(Variant.parse(v).summary_metric
                                                         for v in [*c["baselines"], config["agreement"]["baseline"]]))),
        # the leaderboard's columns follow the data sets in the order the config lists them
        "leaderboard": dict(datasets=tuple(config["datasets"]), ablation_prefix=f["ablation_prefix"]),
        "across": dict(datasets=sorted(config["datasets"]), tests=across_tests),
    }
