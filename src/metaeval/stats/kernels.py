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


@numba.njit(cache=True)
def weighted_pair_counts(xs, ys, ws, out):  # pragma: no cover - compiled
    """Pair counts of rows sorted by (x, y) (see :func:`metaeval.stats.levels.pair_counts`): per row
    out[r] = (concordant, discordant, tied in x only, tied in y only, tied in both), a pair of
    items i < j counting ws[i] * ws[j]. Ties from the runs of equal x, (x, y) and y, (S^2 - Q) / 2
    per run (S, Q: the sum of its weights and of their squares); the discordant pairs are the
    inversions of y, counted while merge-sorting it (Knight 1966); concordant is the rest."""
    rows, n = xs.shape
    v, wv, tv, tw = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    for r in range(rows):
        s = q = tx = txy = sx = qx = sxy = qxy = 0.0
        for i in range(n):
            w = ws[r, i]
            if i > 0 and xs[r, i] != xs[r, i - 1]:
                tx += (sx * sx - qx) / 2
                sx = qx = 0.0
            if i > 0 and (xs[r, i] != xs[r, i - 1] or ys[r, i] != ys[r, i - 1]):
                txy += (sxy * sxy - qxy) / 2
                sxy = qxy = 0.0
            s += w
            q += w * w
            sx += w
            qx += w * w
            sxy += w
            qxy += w * w
        tx += (sx * sx - qx) / 2
        txy += (sxy * sxy - qxy) / 2
        for i in range(n):
            v[i] = ys[r, i]
            wv[i] = ws[r, i]
        dis = 0.0
        width = 1
        while width < n:
            for lo in range(0, n, 2 * width):
                mid, hi = min(lo + width, n), min(lo + 2 * width, n)
                left = 0.0                      # the weight still waiting in the left half
                for i in range(lo, mid):
                    left += wv[i]
                i, j, k = lo, mid, lo
                while i < mid and j < hi:
                    if v[j] < v[i]:
                        dis += wv[j] * left
                        tv[k], tw[k] = v[j], wv[j]
                        j += 1
                    else:
                        left -= wv[i]
                        tv[k], tw[k] = v[i], wv[i]
                        i += 1
                    k += 1
                while i < mid:
                    tv[k], tw[k] = v[i], wv[i]
                    i += 1
                    k += 1
                while j < hi:
                    tv[k], tw[k] = v[j], wv[j]
                    j += 1
                    k += 1
            for i in range(n):
                v[i] = tv[i]
                wv[i] = tw[i]
            width *= 2
        ty = sy = qy = 0.0
        for i in range(n):
            if i > 0 and v[i] != v[i - 1]:
                ty += (sy * sy - qy) / 2
                sy = qy = 0.0
            sy += wv[i]
            qy += wv[i] * wv[i]
        ty += (sy * sy - qy) / 2
        out[r, 0] = (s * s - q) / 2 - dis - tx - ty + txy
        out[r, 1] = dis
        out[r, 2] = tx - txy
        out[r, 3] = ty - txy
        out[r, 4] = txy


@numba.njit(cache=True)
def pair_exceedances(partial, observed, first, second, out):  # pragma: no cover - compiled
    """out[k, q] = count over p of (partial[k, first[q], p] - partial[k, second[q], p] >= observed[k, q]),
    in the arrays' float32 (see :func:`metaeval.stats.soft_pairwise.pairwise_p_values`: pce.py's
    null deltas against the observed one)."""
    K, _, P = partial.shape
    for k in range(K):
        for q in range(first.shape[0]):
            a, b = partial[k, first[q]], partial[k, second[q]]
            o = observed[k, q]
            c = 0
            for p in range(P):
                if a[p] - b[p] >= o:
                    c += 1
            out[k, q] = c
