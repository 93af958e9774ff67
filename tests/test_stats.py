"""The reading's percentiles are numpy's, exactly, whether a sample brackets the rank or not."""

import numpy as np
import pytest

from ar_sudoku.vision import stats
from ar_sudoku.vision.stats import percentile, percentiles


def test_the_measures_percentiles_are_numpys():
    rng = np.random.default_rng(5)
    for a in (rng.normal(size=1001).astype(np.float32), rng.integers(0, 256, (81, 120)).astype(np.uint8),
              rng.random((37, 53)), np.abs(rng.standard_cauchy(60_000)).astype(np.float32),
              rng.integers(0, 4, 50_000).astype(np.float32)):
        assert percentile(a, 99.5) == pytest.approx(float(np.percentile(a, 99.5)), rel=1e-6)
        assert percentile(a, 50) == pytest.approx(float(np.median(a)), rel=1e-6)
        assert np.allclose(percentiles(a, [0, 2, 90, 100]), np.percentile(a, [0, 2, 90, 100]), rtol=1e-6)
        if a.ndim == 2:  # per row, as glare_cover and glare_cells take them
            assert np.allclose(percentiles(a, [75, 1], axis=-1), np.percentile(a, [75, 1], axis=1), rtol=1e-6)


def test_a_large_arrays_ranks_are_the_same_bracketed_by_a_sample_as_selected_whole(monkeypatch):
    rng = np.random.default_rng(7)
    # a real measure's shape: most values tied at zero (flat paper), a long tail (edges), and sorted runs
    a = np.where(rng.random(90_000) < 0.6, 0.0, rng.exponential(30.0, 90_000)).astype(np.float32)
    a[:20_000].sort()
    qs = [0, 2, 50, 75, 90, 99.3, 99.5, 100]
    bracketed = percentiles(a, qs)
    monkeypatch.setattr(stats, "_bracketed", lambda flat, sample, r: None)  # every bracket missed: selected whole
    assert np.array_equal(bracketed, percentiles(a, qs))
    assert np.allclose(bracketed, np.percentile(a, qs), rtol=1e-6)


def test_a_small_arrays_percentiles_taken_in_plain_floats_are_the_whole_selections_exactly():
    """A live board's few dozen values go the short way (``stats._small``); a row of a 2-D array goes the array
    way: the two agree to the bit, for every dtype the looks use."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 81, 144, 1000):
        for a in (rng.normal(100, 40, n).astype(np.float32), rng.normal(size=n),
                  rng.integers(0, 256, n).astype(np.uint8), np.round(rng.normal(9, 3, n)).astype(np.float32)):
            qs = [0, 5, 50, 75, 95, 99.5, 100]
            short = percentiles(a, qs)
            assert np.array_equal(short, percentiles(a[None], qs, axis=-1)[:, 0])
            assert np.allclose(short, np.percentile(a, qs), rtol=1e-9)
            assert percentile(a, 95) == short[4]
