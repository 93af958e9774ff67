"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out (the rules themselves are in
:mod:`ar_sudoku.sudoku.rules`).
"""

from __future__ import annotations

import time

import numpy as np

from ar_sudoku.sudoku.rules import BoardResult, Reading, check_reading
from ar_sudoku.vision.cells import CELL, cut_cells, warp_grid
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid, to_gray
from ar_sudoku.vision.lattice import rectify, rotate

CONFIDENT = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated


def warp(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, cell: int = CELL) -> np.ndarray:
    """The grid seen square-on: through its crossings on a curled page, else by the corners' homography."""
    if lattice is not None:
        return rectify(gray, lattice, cell)
    return warp_grid(gray, corners, cell)


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
              lattice: np.ndarray | None = None) -> Reading:
    return reader.read(cut_cells(warp(gray, corners, lattice)))


def _score(reading: Reading) -> float:
    inked = reading.digits > 0
    if not inked.any():
        return 0.0
    return float(np.log(np.maximum(reading.confidence[inked], 1e-6)).mean())


def read_oriented(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
                  lattice: np.ndarray | None = None) -> tuple[np.ndarray, Reading, np.ndarray | None]:
    """Read the grid, turning it a quarter at a time if the digits look sideways.

    The grid is warped once; a turned grid is the warp turned (``np.rot90`` by k
    is the corners rolled by k), and the three turns are read in one model call.
    Corners (and the lattice) come back turned so that the first is the
    puzzle's own top-left.
    """
    warped = warp(gray, corners, lattice)
    reading = reader.read(cut_cells(warped))
    inked = reading.digits > 0
    if inked.sum() >= 10 and reading.confidence[inked].min() >= CONFIDENT:
        return corners, reading, lattice
    turned = reader.read_many([cut_cells(np.ascontiguousarray(np.rot90(warped, k))) for k in (1, 2, 3)])
    best = (_score(reading), 0, reading)
    for k, r in zip((1, 2, 3), turned):
        s = _score(r)
        if s > best[0] + 0.05:
            best = (s, k, r)
    k = best[1]
    return np.roll(corners, -k, axis=0), best[2], None if lattice is None else rotate(lattice, k)


def process_image(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                  overrides: dict[int, int] | None = None) -> BoardResult:
    """Grid, digits, rules, solution for one picture (no drawing, no I/O)."""
    t0 = time.perf_counter()
    gray = to_gray(image)
    quad = find_grid(gray)
    if quad is None:
        return BoardResult("no_grid", message="no Sudoku grid found", ms=(time.perf_counter() - t0) * 1e3)
    corners, reading, bent = read_oriented(gray, quad.corners, reader, quad.lattice if quad.bent else None)
    if bent is not None:
        lattice = bent
    else:  # flat: the fitted crossings (or the corners' own), turned as the corners were
        k = next(k for k in range(4) if np.array_equal(np.roll(quad.corners, -k, axis=0), corners))
        lattice = rotate(quad.crossings(), k)
    result = check_reading(reading, timeout, overrides=overrides)
    return BoardResult(result.status, corners, result.givens, result.confidence, result.solution,
                       result.message, (time.perf_counter() - t0) * 1e3, result.corrected, lattice)
