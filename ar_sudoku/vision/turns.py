"""Which way up a known puzzle lies: the quarter turn under which the grid in view reads as its givens.

A live board's page can be turned between two frames (put down the other way round, turned while the camera
blinked): its grid is found again at the same place, but its first corner is no longer the puzzle's. The
cells are cut once, turned four ways and read in one model call (``vision.reading.read_oriented`` does the
same to find which way is up at all); the turn under which clearly more of the givens read as themselves is
the page's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ar_sudoku.vision.cells import cut_cells, turn_cuts
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.orient import quiet_digits, warp


@dataclass(frozen=True)
class TurnConfig:
    sure: float = 0.8  # a given counts as read when the print model names its digit at least this surely
    share: float = 0.5  # the turn must read at least this share of the givens
    lead: float = 0.2  # ... and this share more of them than the order the corners have


TURN = TurnConfig()


def turn_to(gray: np.ndarray, corners: np.ndarray, givens: str, reader: DigitReader,
            lattice: np.ndarray | None = None, cfg: TurnConfig = TURN) -> int:
    """The roll ``k`` of the corners (``np.roll(corners, -k)``) under which the grid reads as ``givens``; 0 when
    no turn reads them clearly better than the corners' own order."""
    cuts = cut_cells(quiet_digits(warp(gray, corners, lattice)))
    readings = reader.read_many([cuts] + [turn_cuts(cuts, k) for k in (1, 2, 3)])
    want = np.array([0 if ch in ".0" else int(ch, 16) for ch in givens])
    given = want > 0
    scores = [int(((r.digits == want) & given & (r.confidence >= cfg.sure)).sum()) for r in readings]
    k = int(np.argmax(scores))
    n = int(given.sum())
    if k and scores[k] >= cfg.share * n and scores[k] - scores[0] >= cfg.lead * n:
        return k
    return 0
