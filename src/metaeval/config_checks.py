"""The checks of config sections that a schema cannot express, each error naming the config key:
whether a variant a section names is computed by the configuration (:func:`require_computed`), and
the ``statistics``, ``calibration`` and ``delta`` sections' own checks (metaeval.options.check runs
them on the validated config, its defaults filled in)."""
from __future__ import annotations

from typing import Any, Mapping

from .logs import CheckError
from .variants import Variant, parse_all


class ConfigError(CheckError):
    """A configuration value is wrong; the message names the key."""


def require_computed(variant: Variant, key: str, config: Mapping[str, Any], alternative: str = "") -> None:
    """Refuse a ROUGE, BLEU or chrF ``variant`` named by config ``key`` that the validated
    ``config`` does not compute. Metrics that are not ROUGE, BLEU or chrF (SERA) are checked where
    their scores are read."""
    rouge = config["rouge"]
    problem = None
    if variant.family == "bleu" and not config["bleu"]["enabled"]:
        problem = "bleu.enabled is false"
    elif variant.family == "chrf" and not config["chrf"]["enabled"]:
        problem = "chrf.enabled is false"
    elif variant.family == "chrf" and variant.measure not in config["chrf"]["metrics"]:
        problem = f"chrf.metrics is {list(config['chrf']['metrics'])}"
    elif variant.family == "rouge" and variant.measure not in rouge["measures"]:
        problem = f"rouge.measures is {list(rouge['measures'])}"
    elif variant.family in ("rouge", "bleu") and variant.stem not in rouge["stemming"]:
        problem = f"rouge.stemming is {list(rouge['stemming'])}"
    elif variant.family in ("rouge", "bleu") and variant.stop not in rouge["stopwords_removed"]:
        problem = f"rouge.stopwords_removed is {list(rouge['stopwords_removed'])}"
    if problem:
        raise ConfigError(f"config key {key}: {variant} is not computed by this configuration ({problem}); "
                          f"expected {alternative}a variant of the configured measures and settings")


# The selectors of statistics.variants besides variant ids (metaeval.stages.statistics.candidates).
VARIANT_SELECTORS = ("top", "baselines", "bleu", "metrics", "all")


def check_statistics(config: Mapping[str, Any]) -> None:
    """The ``statistics:`` section: its variant ids parse and are computed; the permutation basis
    of "optimal" needs the permutation tests."""
    st = config["statistics"]
    for i, text in enumerate(st["variants"]):
        if text in VARIANT_SELECTORS:
            continue
        try:
            variant = Variant.parse(str(text))
        except ValueError as e:
            raise ConfigError(f"config key statistics.variants[{i}]: {e}, or one of {', '.join(VARIANT_SELECTORS)}"
                              ) from None
        require_computed(variant, f"statistics.variants[{i}]", config)
    if st["accuracy_baseline"] is not None:
        try:
            variant = Variant.parse(st["accuracy_baseline"])
        except ValueError as e:
            raise ConfigError(f"config key statistics.accuracy_baseline: null or a variant id: {e}") from None
        require_computed(variant, "statistics.accuracy_baseline", config, "null or ")
    if st["optimal"] == "permutation" and not (st["enabled"] and st["permutation_samples"] > 0):
        raise ConfigError("config key statistics.optimal: permutation needs the permutation tests "
                          "(statistics.enabled true and statistics.permutation_samples > 0)")


def check_calibration(config: Mapping[str, Any]) -> None:
    """The calibration section: known data sets, two distinct mean variants (the model is one of
    means over topics). Whether the configuration computes them (and the combination) is checked by
    the calibration jobs, which only ``snakemake calibration`` runs: its defaults must not stop a
    main job whose configuration leaves them out."""
    c = config["calibration"]
    for i, name in enumerate(c["datasets"] or []):
        if name not in config["datasets"]:
            raise ConfigError(f"config key calibration.datasets[{i}]: {name!r} is not a configured data set; "
                              f"expected one of {sorted(config['datasets'])}")
    if c["metrics"][0] == c["metrics"][1]:
        raise ConfigError("config key calibration.metrics: expected two different variants")
    try:
        parsed = parse_all(c["metrics"], "calibration.metrics")
    except ValueError as e:
        raise ConfigError(str(e)) from None
    for i, v in enumerate(parsed):
        if v.statistic != "A":
            raise ConfigError(f"config key calibration.metrics[{i}]: {v} is not a mean variant; expected a variant "
                              "ending in _A or _A_<P|R|F> (the calibration model is one of means over topics)")


def check_delta(config: Mapping[str, Any]) -> None:
    """The ``delta:`` section's variant ids parse (the figures' and the query's; one no data set
    computes is said so by the job)."""
    d = config["delta"]
    try:
        parse_all(d["variants"], "delta.variants")
    except ValueError as e:
        raise ConfigError(str(e)) from None
    if d["metric"] is not None:
        try:
            Variant.parse(d["metric"])
        except ValueError as e:
            raise ConfigError(f"config key delta.metric: {e}") from None
