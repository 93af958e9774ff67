"""4x4, 6x6 and 16x16 puzzles in live video (issue 24): found, read twice alike, then followed and drawn.

The 9x9 session (:mod:`ar_sudoku.ar.session`) reads 81 cells a frame and votes over frames; a grid of
another size is rarer and cheap to read whole, so it gets a simpler life here:

- **Found** by the photo reader's own search (``sizes.find_sized_grids``, every ``every`` frames) while a
  9x9 puzzle in view is unsolved (or none is), on the frame's working grey. A 9x9 track sitting on such a
  grid reads it as 9x9 and never solves: the page ends that track once the grid is known for what it is.
- **Locked** only when two reads a frame or more apart give the same values and solve: a single read of a
  moving, noisy frame may settle on a wrong digit, and a wrong answer is worse than none.
- **Followed** by optical flow (``GridTracker``), re-read every ``recheck`` frames: a read that differs from
  the locked values in more than a cell or two (another puzzle under the camera), or grid lines no longer
  there, ends the track; so does a lost flow.

The answers are drawn by :func:`ar_sudoku.ar.sized.draw_answers`, in the page's own symbols.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.sizes import SIZES, SizedGrid, SymbolReader, find_sized_grids, grid_side, read_sized
from ar_sudoku.vision.tracker import GridTracker

__all__ = ["SizedTrack", "SizedTracks"]

DIFFER = 2  # cells a re-read may differ in (a glint, a finger) and still be the locked puzzle


@dataclass
class SizedTrack:
    """One grid of another size, locked: its id (the JSON's ``puzzle``), its solved reading and its flow."""

    id: int
    result: BoardResult  # corners in the working grey's pixels, moved every frame
    tracker: GridTracker
    since_read: int = 0


def _differ(a: str, b: str) -> int:
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


SLOW = 3  # times less often a page whose 9x9 puzzles are all solved is searched for grids of other sizes


class SizedTracks:
    """The grids of other sizes in view: ``step`` once a frame with the working grey."""

    def __init__(self, reader: DigitReader, timeout: float = 1.0, every: int = 10, recheck: int = 15,
                 most: int = 4):
        self.reader, self.timeout = reader, timeout
        self.every, self.recheck, self.most = every, recheck, most
        self.tracks: list[SizedTrack] = []
        self._symbols: SymbolReader | None = None
        self._since_find = every  # look on the first frame asked
        self.searched = False  # whether the last step looked for new grids
        self._pending: dict[int, str] = {}  # a grid's first read (by its rough place), waiting for a second alike

    def _symbol_reader(self) -> SymbolReader:
        if self._symbols is None:  # loaded when a 16x16 grid is first read: a 9x9 page never pays for it
            self._symbols = SymbolReader()
        return self._symbols

    def _read(self, gray: np.ndarray, grid: SizedGrid) -> BoardResult:
        symbols = self._symbol_reader() if grid.side > 9 else None
        return read_sized(gray, grid, self.reader, symbols, self.timeout, time.perf_counter())

    def _follow(self, gray: np.ndarray) -> None:
        for tr in list(self.tracks):
            corners = tr.tracker.track(gray)
            if corners is None:
                self.tracks.remove(tr)
                continue
            tr.result = _moved(tr.result, corners)
            tr.since_read += 1
            if not ink_agrees(gray, corners, tr.result.givens or "", tr.result.size):
                self.tracks.remove(tr)  # another puzzle in its place (or a hand over it): nothing drawn on it
            elif tr.since_read >= self.recheck:
                tr.since_read = 0
                if not self._still_there(gray, tr):
                    self.tracks.remove(tr)

    def _still_there(self, gray: np.ndarray, tr: SizedTrack) -> bool:
        corners = np.asarray(tr.result.corners, np.float32)
        n, box, score = grid_side(gray, corners)
        if n != tr.result.size or score < SIZES.min_lines:
            return False
        again = self._read(gray, SizedGrid(corners, n, box, score))
        return again.givens is not None and _differ(again.givens, tr.result.givens or "") <= DIFFER

    def _search(self, gray: np.ndarray, next_id: int) -> int:
        """Grids of other sizes not yet tracked, read; a second alike read locks one. The ids used."""
        used = 0
        seen: dict[int, str] = {}
        for grid in find_sized_grids(gray, most=self.most):
            if grid.side == 9 or len(self.tracks) >= self.most or self._tracked(grid.corners):
                continue
            res = self._read(gray, grid)
            if res.status is not Status.SOLVED or not res.givens:
                continue
            place = _place(grid.corners, gray.shape)
            seen[place] = res.givens
            if self._pending.get(place) != res.givens:
                continue  # the first read of it, or not the same as the last: read again on the next frame
            tracker = GridTracker()
            tracker.start(gray, np.asarray(res.corners, np.float32))  # turned: the puzzle's own top-left first
            self.tracks.append(SizedTrack(next_id + used, res, tracker))
            used += 1
            del seen[place]
        self._pending = seen
        return used

    def _tracked(self, corners: np.ndarray) -> bool:
        centre = np.asarray(corners, np.float32).mean(axis=0)
        return any(_inside(np.asarray(tr.result.corners, np.float32), centre) for tr in self.tracks)

    def step(self, gray: np.ndarray, next_id: int, eager: bool) -> int:
        """Follow the locked grids on ``gray`` (the working grey) and look for new ones when due: every ``every``
        frames while ``eager`` (no 9x9 puzzle in view is solved), ``SLOW`` times less often otherwise (a
        children's 6x6 panned into view beside a solved 9x9 one), on the next frame while a first read waits
        for its second. Returns how many track ids were used."""
        self._follow(gray)
        self._since_find += 1
        due = self.every * (3 if self.tracks else 1)  # a page with a grid locked: others are looked for less often
        if not eager:
            due *= SLOW
        self.searched = not (self._since_find < due and not self._pending)
        if not self.searched:
            return 0
        self._since_find = 0
        return self._search(gray, next_id)

    def covers(self, corners: np.ndarray) -> bool:
        """Whether a 9x9 track's board lies on a grid of another size being tracked (or just read as one)."""
        return self._tracked(corners)


INK_PX = 16  # px a cell where the ink is looked at on every frame
INK_SHARE = 0.06  # of a cell's middle: ink darker than INK_DARK of the paper, a symbol is there
INK_DARK = 0.6
INK_MISMATCH = 0.1  # of the cells: this many more with ink and no given, or a given and no ink, is another puzzle


def ink_agrees(gray: np.ndarray, corners: np.ndarray, givens: str, n: int) -> bool:
    """Whether the cells with ink on this frame are the locked puzzle's givens (a quick look, every frame:
    the 9x9 session's pattern check for a grid of any size); a page swapped under a steady camera fails it."""
    side = n * INK_PX
    flat = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32).reshape(4, 2), flat)
    view = cv2.warpPerspective(gray, hmat, (side, side), flags=cv2.INTER_AREA)
    q = INK_PX // 4  # a cell's middle half: its symbol, not the grid's lines
    middles = view.reshape(n, INK_PX, n, INK_PX)[:, q:INK_PX - q, :, q:INK_PX - q]
    paper = float(np.percentile(view, 75))
    ink = (middles < INK_DARK * paper).mean(axis=(1, 3)).ravel() > INK_SHARE
    given = np.array([ch not in ".0" for ch in givens[:n * n]])
    return len(given) == n * n and int((ink != given).sum()) <= max(2, INK_MISMATCH * n * n)


def _moved(result: BoardResult, corners: np.ndarray) -> BoardResult:
    return replace(result, corners=np.asarray(corners, np.float32))


def _inside(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])), False) >= 0


def _place(corners: np.ndarray, shape: tuple[int, ...]) -> int:
    """A grid's rough place in the frame (its centre on a coarse 8x8 grid of the frame), to match reads."""
    cx, cy = np.asarray(corners, np.float32).mean(axis=0)
    h, w = shape[:2]
    return int(min(7, max(0, cy * 8 // h))) * 8 + int(min(7, max(0, cx * 8 // w)))
