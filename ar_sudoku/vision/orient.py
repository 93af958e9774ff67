"""The grid's digits read the right way up: warped square, cut, read by the print model, turned when sideways.
"""


from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import (
    Reading,
)
from ar_sudoku.vision.cells import CELL, cut_cells, turn_cuts, warp_grid
from ar_sudoku.vision.deblur import unstreak
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import (
    KINDS,
    KindReader,
    grid_views,
    ink_scores,
    paper_noise,
)
from ar_sudoku.vision.lattice import rectify, rotate
from ar_sudoku.vision.quads import GridQuad


@dataclass(frozen=True)
class OrientConfig:
    """This stage's tuning: each field with the reason for its value."""

    confident: float = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated
    # ... nor one with this many cells read that surely: on the 319 training photos, no grid turned a quarter or
    # a half had more than 15 such cells (upright: 4-47); a written-on page, whose handwriting the print model
    # is unsure of, is then read one way only
    sure_upright: int = 22
    # A digit-model grid (CELL px a cell) whose paper's typical Laplacian is above this share of its contrast is
    # speckled by a sensor's noise (training photos as taken: 0.01-0.06; in the benchmark's dim room 0.17-0.31) ...
    noisy_digits: float = 0.12
    digits_sigma: float = 0.8  # ... and is smoothed by a Gaussian this wide (px) before its cells are cut
    # A turn chosen by the print model with a score below this (print read the right way up: about -0.04, under
    # blur and noise as well) is asked of the cell-kind model too
    weak_turn: float = -0.15


ORIENT = OrientConfig()


def warp(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, cell: int = CELL) -> np.ndarray:
    """The grid seen square-on: through its crossings on a curled page, else by the corners' homography;
    a streaked grid (a shaken camera) deblurred."""
    square = rectify(gray, lattice, cell) if lattice is not None else warp_grid(gray, corners, cell)
    return unstreak(square, cell)  # a shaken camera's streak undone (deblur.py); most grids as they are


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
              lattice: np.ndarray | None = None) -> Reading:
    return reader.read(cut_cells(quiet_digits(warp(gray, corners, lattice))))


def quiet_digits(warped: np.ndarray) -> np.ndarray:
    """The print model's grid with a dim room's sensor noise smoothed away; a clean grid as it is.

    Speckle on a printed 6 closes its gap into an 8 and breaks print into handwriting-like strokes
    (issue 21), as :func:`ar_sudoku.vision.kinds.quiet` found for the cell-kind model's views.
    """
    if paper_noise(warped, CELL, 0) <= ORIENT.noisy_digits:
        return warped
    return cv2.GaussianBlur(warped, (0, 0), ORIENT.digits_sigma)


def _score(reading: Reading) -> float:
    """How upright a grid's digits look: the mean log-confidence of the surer half of its inked cells.

    The surer half, not all: on a written-on page the print model is unsure of every handwritten cell
    in every orientation, and their noise would drown the printed givens' clear preference.
    """
    inked = reading.digits > 0
    if not inked.any():
        return 0.0
    logs = np.sort(np.log(np.maximum(reading.confidence[inked], 1e-6)))[::-1]
    return float(logs[: max(1, len(logs) // 2)].mean())


def read_oriented(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
                  lattice: np.ndarray | None = None) -> tuple[np.ndarray, Reading, np.ndarray | None]:
    """Read the grid, turning it a quarter at a time if the digits look sideways.

    The grid is warped once; a turned grid is the warp turned (``np.rot90`` by k
    is the corners rolled by k), and the three turns are read in one model call.
    Corners (and the lattice) come back turned so that the first is the
    puzzle's own top-left.
    """
    warped = quiet_digits(warp(gray, corners, lattice))
    cuts = cut_cells(warped)
    reading = reader.read(cuts)
    inked = reading.digits > 0
    sure = int((reading.confidence[inked] >= ORIENT.confident).sum())
    if inked.sum() >= 10 and (sure == inked.sum() or sure >= ORIENT.sure_upright):
        return corners, reading, lattice
    # which way is up, from the cells cut once and turned (a written-on page always gets here: the print
    # model is unsure of handwriting). The likeliest turn, if it reads at least as well as upright, is cut
    # again properly and must then read better: the turned patches are near, not equal, to a proper cut.
    # Over the 398 photos whose grid is found, each given in its four corner orders (1,592 reads), the
    # orientation is the same from every order for all but one (18 photos with the mean of all inked cells and
    # the turned cuts alone), at one extra cut on 7 of the 398 as stored
    turned = reader.read_many([turn_cuts(cuts, k) for k in (1, 2, 3)])
    upright = _score(reading)
    k, best = max(zip((1, 2, 3), map(_score, turned)), key=lambda t: t[1])
    if best < upright:
        return corners, reading, lattice
    recut = reader.read(cut_cells(np.ascontiguousarray(np.rot90(warped, k))))
    if _score(recut) <= upright:
        return corners, reading, lattice
    return np.roll(corners, -k, axis=0), recut, None if lattice is None else rotate(lattice, k)


def _kinds_score(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, kinds: KindReader) -> float:
    """The cell-kind model's mean log-confidence over the inked cells of the grid seen with ``corners`` first."""
    views = grid_views(image, corners, lattice).views
    inked = np.flatnonzero(ink_scores(views, kinds.margin) > KINDS.ink_skip)
    if not len(inked):
        return 0.0
    return float(np.log(np.maximum(kinds.probabilities(views[inked]).max(axis=1), 1e-6)).mean())


Oriented = tuple[np.ndarray, Reading, np.ndarray | None]  # corners, reading, lattice (as read_oriented gives them)


def confirm_turn(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader, kinds: KindReader,
                 turned: Oriented) -> Oriented:
    """:func:`read_oriented`'s answer, or the grid as found when a weak turn is not what the cell-kind model sees.

    The print model tells which way is up from the printed digits; a shaken or blurred written-on page
    leaves it few it is sure of, and a turn then wins by a hair over upright (the wrong way: 8 of the
    124 training written-on photos shaken). The cell-kind model, which knows handwriting too, is asked
    then: the turn stands only if it reads the page's inked cells more surely that way than upright.
    """
    corners, reading, bent = turned
    if np.array_equal(corners, quad.corners) or _score(reading) >= ORIENT.weak_turn:
        return turned
    lattice = quad.lattice if quad.bent else None
    if _kinds_score(image, corners, bent, kinds) > _kinds_score(image, quad.corners, lattice, kinds):
        return turned
    return quad.corners, read_grid(gray, quad.corners, reader, lattice), lattice
