"""Inter-annotator agreement: Krippendorff's alpha with a bootstrap interval over items.

* :func:`alpha`: Krippendorff's alpha of a reliability matrix (annotators x items, NaN = not
  rated), computed by the ``krippendorff`` package (Castro 2017, ``krippendorff.alpha``) at the
  level of measurement that fits the dimension's kind (:func:`level_of`): interval for graded
  scores and proportions, nominal for binary labels and preferences (Krippendorff 2011,
  "Computing Krippendorff's Alpha-Reliability").
* :func:`weighted_alpha`: the same alpha when every item u counts w_u times (a bootstrap sample of
  items drawn with replacement is a set of counts), for many weight vectors at once, from the
  coincidence sums: with m_u pairable values in item u (items with m_u < 2 carry no pairs),
  n = sum_u w_u m_u,

  - interval: alpha = 1 - (n - 1) sum_u w_u (m_u S2_u - S1_u^2) / (m_u - 1) / (n S2 - S1^2),
    S1_u / S2_u = the sum / sum of squares of item u's values, S1 / S2 their w-weighted sums;
  - nominal: alpha = 1 - (n - 1) sum_u w_u (m_u^2 - sum_c n_uc^2) / (m_u - 1) / (n^2 - sum_c n_c^2),
    n_uc = values c in item u, n_c = sum_u w_u n_uc.

  These are Krippendorff's D_o / D_e with the difference functions (c - k)^2 and [c != k]
  written as sums over values; equal to ``krippendorff.alpha`` on the data with every column
  repeated w_u times (tested to 1e-12), and linear in the weights, so B samples cost one product.
* :func:`bootstrap_alpha`: percentile bootstrap over items (the columns), seeded
  (``numpy.random.default_rng(seed)``, one draw of N items per sample). Hayes & Krippendorff (2007)
  resample pairs of values instead; resampling whole items keeps each item's annotators together,
  as the correlation bootstraps of this project resample whole inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .core import counts, percentile_interval

LEVELS = {"graded": "interval", "proportion": "interval", "binary": "nominal", "preference": "nominal"}


def level_of(kind: str) -> str:
    """The level of measurement of a dimension kind (graded | proportion -> interval; binary |
    preference -> nominal)."""
    if kind not in LEVELS:
        raise ValueError(f"unknown dimension kind {kind!r}; expected one of {', '.join(LEVELS)}")
    return LEVELS[kind]


def pairable(data: np.ndarray) -> int:
    """How many items have at least two values (the items alpha rests on)."""
    return int(((~np.isnan(data)).sum(axis=0) >= 2).sum())


# krippendorff.alpha builds a value-by-value coincidence matrix per item (items x values^2 cells);
# beyond this many cells (XSumFaith's per-worker shares: 2,500 items x hundreds of distinct values,
# gigabytes) alpha is the closed form of :func:`weighted_alpha` with every item once, equal to it
KRIPPENDORFF_MAX_CELLS = 20_000_000


def alpha(data: np.ndarray, level: str) -> float:
    """Krippendorff's alpha of ``data`` (annotators x items, NaN = missing) by ``krippendorff.alpha``
    (by :func:`weighted_alpha` with unit weights where the package's coincidence matrices would pass
    :data:`KRIPPENDORFF_MAX_CELLS`); NaN when fewer than two items are pairable or every pairable
    value is the same (no variation: alpha is 0/0)."""
    data = np.asarray(data, dtype=float)
    if data.ndim != 2 or data.shape[0] < 2 or pairable(data) < 1:
        return float("nan")
    values = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
    distinct = np.unique(data[~np.isnan(data)]).size
    if np.unique(values[~np.isnan(values)]).size < 2:
        return float("nan")
    if data.shape[1] * distinct * distinct > KRIPPENDORFF_MAX_CELLS:
        return float(weighted_alpha(data, level, np.ones((1, data.shape[1])))[0])
    import krippendorff

    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))


def _item_sums(data: np.ndarray, level: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per item: (m_u, within-item disagreement term, and the per-item pieces of the expected
    disagreement: interval -> (S1_u, S2_u) stacked; nominal -> value counts (N, C))."""
    ok = ~np.isnan(data)
    m = ok.sum(axis=0).astype(float)
    x = np.where(ok, data, 0.0)
    usable = m >= 2
    m_safe = np.where(usable, m - 1, 1.0)
    if level == "interval":
        s1, s2 = x.sum(axis=0), (x * x).sum(axis=0)
        within = np.where(usable, (m * s2 - s1 * s1) / m_safe, 0.0)
        pieces = np.stack([s1, s2], axis=1)
    elif level == "nominal":
        cats = np.unique(data[ok])
        counts = np.stack([((data == c) & ok).sum(axis=0) for c in cats], axis=1).astype(float)  # (N, C)
        within = np.where(usable, (m * m - (counts * counts).sum(axis=1)) / m_safe, 0.0)
        pieces = counts
    else:
        raise ValueError(f"unsupported level {level!r}; expected interval or nominal")
    m = np.where(usable, m, 0.0)
    pieces = np.where(usable[:, None], pieces, 0.0)
    return m, within, pieces, usable


def weighted_alpha(data: np.ndarray, level: str, weights: np.ndarray) -> np.ndarray:
    """Alpha (B,) when item u counts ``weights[b, u]`` times (see the module docstring); NaN where a
    sample has no pairable value or no variation."""
    data = np.asarray(data, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    m, within, pieces, _ = _item_sums(data, level)
    n = w @ m
    d_within = w @ within
    p = w @ pieces
    if level == "interval":
        expected = n * p[:, 1] - p[:, 0] ** 2
    else:
        expected = n * n - (p * p).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 1.0 - (n - 1) * d_within / expected
    # floating noise may leave a tiny positive "expected" for constant data: treat as no variation
    out[~(expected > 1e-9 * np.maximum(1.0, n * n))] = np.nan
    return out


@dataclass
class AlphaInterval:
    lo: float
    hi: float
    samples: np.ndarray   # (B,), NaN where undefined


def bootstrap_alpha(data: np.ndarray, level: str, samples: int, seed: int, confidence: float) -> AlphaInterval:
    """Percentile bootstrap interval of alpha over items (columns drawn with replacement, seeded);
    undefined samples are left out; NaN bounds without any defined sample."""
    data = np.asarray(data, dtype=float)
    n_items = data.shape[1]
    if samples <= 0 or n_items == 0:
        return AlphaInterval(float("nan"), float("nan"), np.zeros(0))
    rng = np.random.default_rng(seed)
    w = counts(rng.integers(0, n_items, (samples, n_items)), n_items)
    a = weighted_alpha(data, level, w)
    lo, hi = percentile_interval(a, confidence)
    return AlphaInterval(float(lo), float(hi), a)
