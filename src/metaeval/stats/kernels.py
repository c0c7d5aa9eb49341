"""Compiled kernels of the statistics (numba), kept apart so that only the jobs that run them load
the compiler."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def resampled_medians(values, order, n_valid, c, total, out):  # pragma: no cover - compiled
    """Medians of sorted ``values`` rows over the drawn counts ``c`` (see
    :func:`metaeval.stats.bootstrap.resampled_medians`)."""
    rows, samples = out.shape
    for r in range(rows):
        for b in range(samples):
            n = total[r, b]
            if n <= 0:
                out[r, b] = np.nan
                continue
            k1 = (n - 1) // 2          # 0-based positions of the middle value(s) in the drawn multiset
            k2 = n // 2
            seen = 0
            low = np.nan
            for j in range(n_valid[r]):
                seen += c[b, order[r, j]]
                if seen > k1 and np.isnan(low):
                    low = values[r, j]
                if seen > k2:
                    out[r, b] = low if k1 == k2 else (low + values[r, j]) / 2
                    break


@numba.njit(cache=True)
def draw_order_sums(x, idx, out):  # pragma: no cover - compiled
    """out[g, r] = x[g, idx[r, 0]] + x[g, idx[r, 1]] + ... added left to right, as ROUGE-1.5.5 adds a
    resample's scores (see :mod:`metaeval.stats.rouge_bootstrap`)."""
    for g in range(x.shape[0]):
        for r in range(idx.shape[0]):
            s = 0.0
            for j in range(idx.shape[1]):
                s += x[g, idx[r, j]]
            out[g, r] = s
