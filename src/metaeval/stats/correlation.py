"""Correlation of metric scores with human scores (Graham 2015 §3, §6).

* :func:`point_correlations`: Pearson r, Spearman rho and Kendall tau-b (scipy) between a metric's
  and a human combination's scores over the items where both are defined; undefined (NaN) with
  fewer than 3 items or a constant side.
* :func:`pearson_columns`: Pearson r between every column of two matrices at once.
* :func:`summary_level`: the summary-level correlation - within each topic, across summarizers,
  averaged over the topics where it is defined (a different question from the system level: does
  the metric rank the summaries of one input correctly?).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
from scipy import stats


def pearson_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r between every column of x (n, a) and every column of y (n, b): (a, b); NaN where
    a column is constant."""
    xc = x - x.mean(axis=0)
    yc = y - y.mean(axis=0)
    sx = np.sqrt((xc ** 2).sum(axis=0))
    sy = np.sqrt((yc ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc.T @ yc) / np.outer(sx, sy)
    r[np.outer(sx == 0, sy == 0) | (sx == 0)[:, None] | (sy == 0)[None, :]] = np.nan
    return np.clip(r, -1, 1)


def point_correlations(metric: np.ndarray, human: np.ndarray) -> tuple[float, float, float, int]:
    """Pearson, Spearman, Kendall tau-b and n over the items where both are defined."""
    ok = ~np.isnan(metric) & ~np.isnan(human)
    m, h = metric[ok], human[ok]
    n = int(ok.sum())
    if n < 3 or np.ptp(m) == 0 or np.ptp(h) == 0:
        return np.nan, np.nan, np.nan, n
    return (float(np.clip(np.corrcoef(m, h)[0, 1], -1, 1)), float(stats.spearmanr(m, h)[0]),
            float(stats.kendalltau(m, h, variant="b")[0]), n)


def summary_level(metrics: Mapping[str, np.ndarray], human: Mapping[str, np.ndarray], combinations: Sequence[str]
                  ) -> list[tuple[str, str, int, float, float, float]]:
    """Within-topic correlations averaged over topics, for every (S, T) metric grid and human
    combination grid: (metric, combination, topics where defined, pearson, spearman, kendall)."""
    rows = []
    for name, x in metrics.items():
        for c in combinations:
            h = human[c]
            rp, rsp, rk = [], [], []
            for t in range(x.shape[1]):
                p, s, k, n = point_correlations(x[:, t], h[:, t])
                if not np.isnan(p):
                    rp.append(p)
                    rsp.append(s)
                    rk.append(k)
            mean = lambda v: float(np.mean(v)) if v else np.nan  # noqa: E731
            rows.append((name, c, len(rp), mean(rp), mean(rsp), mean(rk)))
    return rows
