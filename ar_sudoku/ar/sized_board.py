"""A grid of another size (4x4, 6x6, 16x16) as the live session reads and checks it.

The table session (:mod:`ar_sudoku.ar.session`) drives every size through the same states, the same tracking,
the same witness and the same drawing guard; what differs for a grid of another side is here:

- **read** whole by the photo reader (``sizes.read_sized``: the right way up, the symbols model for 16x16,
  solved as read), so no vote of probabilities and no solver worker: the reading is the answer;
- **locked** only when two reads a frame or more apart give the same values and solve: a single read of a
  moving, noisy frame may settle on a wrong digit, and a wrong answer is worse than none;
- **checked** on every frame by a quick look at its cells' ink (:func:`ink_agrees`, the 9x9 ink check for a grid
  of any side), and re-read now and then: a read that differs in more than a cell or two is another puzzle.

The page (:mod:`ar_sudoku.ar.page`) finds these grids (``sizes.find_sized_grids``) and starts a session on each.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.sizes import SizedGrid, SymbolReader, read_sized

__all__ = ["SIZED", "SizedBoard", "SizedConfig", "ink_agrees"]


@dataclass(frozen=True)
class SizedConfig:
    differ: int = 2  # cells a re-read may differ in (a glint, a finger) and still be the locked puzzle
    recheck: int = 15  # frames between re-reads of a locked grid: read whole, it costs more than a 9x9 re-read
    find_every: int = 10  # frames between the page's searches for such grids while a 9x9 puzzle is unsolved
    slow: int = 3  # times less often once every 9x9 puzzle in view is solved (a children's 6x6 panned in beside it)
    ink_px: int = 16  # px a cell where the ink is looked at on every frame
    ink_share: float = 0.06  # of a cell's middle darker than ``ink_dark`` of the paper: a symbol is there
    ink_dark: float = 0.6
    ink_mismatch: float = 0.1  # of the cells with ink and no given, or a given and no ink: another puzzle


SIZED = SizedConfig()


class SizedBoard:
    """One grid of another side: how it is read (whole, the right way up, solved), and checked frame by frame."""

    def __init__(self, grid: SizedGrid, reader: DigitReader, timeout: float, cfg: SizedConfig = SIZED):
        self.grid, self.reader, self.timeout, self.cfg = grid, reader, timeout, cfg
        self.pending: str | None = None  # the last read's values, waiting for a second read alike
        self._symbols: SymbolReader | None = None

    @property
    def side(self) -> int:
        return self.grid.side

    def read(self, gray: np.ndarray, corners: np.ndarray) -> BoardResult:
        """The grid at ``corners`` (pixels of ``gray``) read and solved; its corners come back turned so that the
        first is the puzzle's own top-left."""
        if self.grid.side > 9 and self._symbols is None:  # loaded when a 16x16 grid is first read
            self._symbols = SymbolReader()
        grid = SizedGrid(np.asarray(corners, np.float32), self.grid.side, self.grid.box, self.grid.score)
        return read_sized(gray, grid, self.reader, self._symbols, self.timeout, time.perf_counter())

    def locks(self, result: BoardResult) -> bool:
        """Whether this read, solved, repeats the last one: then the grid is locked; else it waits for the next."""
        values = result.givens if result.status is Status.SOLVED and result.givens else None
        alike = values is not None and values == self.pending
        self.pending = None if alike else values
        return alike

    def differs(self, a: str | None, b: str | None) -> bool:
        """Another puzzle: more than ``differ`` cells apart (a glint or a finger changes one or two)."""
        if a is None or b is None:
            return True
        return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b)) > self.cfg.differ

    def agrees(self, gray: np.ndarray, corners: np.ndarray, givens: str) -> bool:
        return ink_agrees(gray, corners, givens, self.grid.side, self.cfg)


def ink_agrees(gray: np.ndarray, corners: np.ndarray, givens: str, n: int, cfg: SizedConfig = SIZED) -> bool:
    """Whether the cells with ink on this frame are the locked puzzle's givens (a quick look, every frame:
    the 9x9 session's pattern check for a grid of any size); a page swapped under a steady camera fails it."""
    px = cfg.ink_px
    side = n * px
    flat = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32).reshape(4, 2), flat)
    view = cv2.warpPerspective(gray, hmat, (side, side), flags=cv2.INTER_AREA)
    q = px // 4  # a cell's middle half: its symbol, not the grid's lines
    middles = view.reshape(n, px, n, px)[:, q:px - q, :, q:px - q]
    paper = float(np.percentile(view, 75))
    ink = (middles < cfg.ink_dark * paper).mean(axis=(1, 3)).ravel() > cfg.ink_share
    given = np.array([ch not in ".0" for ch in givens[:n * n]])
    return len(given) == n * n and int((ink != given).sum()) <= max(2, cfg.ink_mismatch * n * n)
