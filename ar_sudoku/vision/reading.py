"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out (the rules themselves are in
:mod:`ar_sudoku.sudoku.rules`).
"""

from __future__ import annotations

import time

import numpy as np

from ar_sudoku.sudoku.rules import BoardResult, Reading, check_reading
from ar_sudoku.vision.cells import cut_cells, warp_grid
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid, to_gray

CONFIDENT = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader) -> Reading:
    return reader.read(cut_cells(warp_grid(gray, corners)))


def _score(reading: Reading) -> float:
    inked = reading.digits > 0
    if not inked.any():
        return 0.0
    return float(np.log(np.maximum(reading.confidence[inked], 1e-6)).mean())


def read_oriented(gray: np.ndarray, corners: np.ndarray, reader: DigitReader) -> tuple[np.ndarray, Reading]:
    """Read the grid, turning it a quarter at a time if the digits look sideways.

    Corners come back re-ordered so that the first is the puzzle's own top-left.
    """
    reading = read_grid(gray, corners, reader)
    inked = reading.digits > 0
    if inked.sum() >= 10 and reading.confidence[inked].min() >= CONFIDENT:
        return corners, reading
    best = (_score(reading), 0, reading)
    for k in (1, 2, 3):
        r = read_grid(gray, np.roll(corners, -k, axis=0), reader)
        s = _score(r)
        if s > best[0] + 0.05:
            best = (s, k, r)
    return np.roll(corners, -best[1], axis=0), best[2]


def process_image(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                  overrides: dict[int, int] | None = None) -> BoardResult:
    """Grid, digits, rules, solution for one picture (no drawing, no I/O)."""
    t0 = time.perf_counter()
    gray = to_gray(image)
    quad = find_grid(gray)
    if quad is None:
        return BoardResult("no_grid", message="no Sudoku grid found", ms=(time.perf_counter() - t0) * 1e3)
    corners, reading = read_oriented(gray, quad.corners, reader)
    result = check_reading(reading, timeout, overrides=overrides)
    return BoardResult(result.status, corners, result.givens, result.confidence, result.solution,
                       result.message, (time.perf_counter() - t0) * 1e3, result.corrected)
