"""Exact percentiles of large arrays at a fraction of a sort: the reading's measures of a picture.

Each photo's reading takes a few dozen percentiles of tens of thousands of values (a grid's
gradients, its paper, its ink). ``np.percentile`` runs a selection over every value for each
one. Here a sample of about a thousand values brackets each rank first; the values inside the
bracket (a few per cent of them) are counted and selected among, and the bracket is checked by
counting, so the result is the exact order statistic, as ``np.percentile``'s. A bracket that
misses (a sample unlike the whole) falls back to the full selection.
"""

from __future__ import annotations

import numpy as np

SMALL = 16384  # arrays up to this many values are partitioned whole
SAMPLE = 1024  # about this many values bracket each rank of a larger one
SLACK = 4.0  # the bracket's half-width in the sample: this many standard deviations of a sampled rank, ...
SLACK_MIN = 6  # ... and at least this many sample ranks


def _bracketed(flat: np.ndarray, sample: np.ndarray, r: int) -> tuple[float, float] | None:
    """The values of ranks ``r`` and ``r + 1`` of the 1-D ``flat``, bracketed by ``sample`` (sorted values of
    ``flat`` spread over it), or None if the bracket missed."""
    n, m = flat.size, sample.size
    centre = r / (n - 1) * (m - 1)
    p = min(max(r / (n - 1), 1.0 / m), 1.0 - 1.0 / m)
    half = max(SLACK * np.sqrt(m * p * (1 - p)), SLACK_MIN)
    a, b = int(centre - half), int(np.ceil(centre + half))  # the bracket's sample ranks; past an end, open
    lo_v = sample[a] if a > 0 else None
    hi_v = sample[b] if b < m - 1 else None
    below = 0 if lo_v is None else int(np.count_nonzero(flat < lo_v))
    if lo_v is None:
        inside = flat if hi_v is None else flat[flat <= hi_v]
    else:
        inside = flat[flat >= lo_v] if hi_v is None else flat[(flat >= lo_v) & (flat <= hi_v)]
    k = r - below
    if k < 0 or (k + 1 if r + 1 < n else k) >= inside.size:
        return None
    kk = min(k + 1, inside.size - 1)
    part = np.partition(inside, (k, kk))
    return float(part[k]), float(part[kk])


def _bracketed_ranks(flat: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The values at ranks ``lo`` and ``lo + 1`` of the large 1-D ``flat``, each bracketed by one sorted sample;
    None if any bracket missed."""
    sample = np.sort(flat[:: flat.size // SAMPLE])
    found = [_bracketed(flat, sample, int(r)) for r in lo]
    if any(f is None for f in found):
        return None
    return np.array([f[0] for f in found if f]), np.array([f[1] for f in found if f])


def percentiles(a: np.ndarray, qs: list[float], axis: int | None = None) -> np.ndarray:
    """``np.percentile(a, qs, axis)`` (linear interpolation; ``axis`` None or -1): one row per ``qs``.

    Rows (each cell's pixels) and small arrays are partitioned whole."""
    flat = a.ravel() if axis is None else a
    n = flat.shape[-1]
    if flat.ndim == 1 and 0 < n <= SMALL:
        return _small(flat, qs)
    pos = np.asarray(qs, np.float64) / 100 * (n - 1)
    lo = pos.astype(np.int64)
    ranked = _bracketed_ranks(flat, lo) if flat.ndim == 1 and n > SMALL else None
    if ranked is None:
        hi = np.minimum(lo + 1, n - 1)
        part = np.partition(flat, np.unique(np.concatenate([lo, hi])), axis=-1)
        ranked = part[..., lo].astype(np.float64), part[..., hi].astype(np.float64)
    low, high = ranked
    return np.moveaxis(low + (high - low) * (pos - lo), -1, 0)


def _small(flat: np.ndarray, qs: list[float]) -> np.ndarray:
    """``percentiles`` of a small 1-D array, the same arithmetic in plain floats: a live board's few dozen values
    are looked at several times a frame, where the array machinery would cost more than the selection."""
    n = flat.size
    pos = [float(q) / 100 * (n - 1) for q in qs]
    lo = [int(p) for p in pos]
    hi = [min(r + 1, n - 1) for r in lo]
    part = np.partition(flat, sorted(set(lo + hi)))
    out = []
    for p, r, r1 in zip(pos, lo, hi):
        low, high = float(part[r]), float(part[r1])
        out.append(low + (high - low) * (p - r))
    return np.array(out)


def percentile(a: np.ndarray, q: float) -> float:
    """``np.percentile(a, q)`` of all of ``a``, as :func:`percentiles`."""
    return float(percentiles(a, [q])[0])
