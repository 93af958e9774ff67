"""The board locator: where the board is on each frame (find, track, steady check).

Detection and tracking run on a frame scaled to ``work_side`` (long side), so a
4K camera costs about what 720p does; the corners it hands back are in
full-frame pixels, for the cells to be cut from the full-resolution frame.
The locator knows nothing of the puzzle: the session tells it whether the
board is settled (solved), and it reports whether tracking slipped.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.vision.cells import evenness, quick_ink
from ar_sudoku.vision.grid import find_grid, to_gray, working_gray
from ar_sudoku.vision.lattice import rotate
from ar_sudoku.vision.tracker import GridTracker
from ar_sudoku.vision.yuv import I420, as_bgr


@dataclass(frozen=True)
class Located:
    """Where the board is on this frame, in full-frame pixels."""

    corners: np.ndarray | None
    detected: bool  # found by the detector on this frame (exact), not only tracked
    slipped: bool = False  # detected far from where it was tracked: tracking slipped, or another grid


BLUR = 0.93  # evenness below this share of the board's usual: the frame is streaked, not read


def _turn(corners: np.ndarray, reference: np.ndarray) -> int:
    """How far to roll a detected quad so its corners match the tracked (puzzle-ordered) ones."""
    return min(range(4), key=lambda k: float(np.linalg.norm(np.roll(corners, -k, axis=0) - reference)))


def _surrounds(outer: np.ndarray, inner: np.ndarray) -> bool:
    """``outer`` holds all of ``inner`` (to within a hair: a grid printed up to its page's edge shares it)
    and is clearly larger: a page's edge around the grid. Another grid in view would take the tracked one's
    place, not frame it; a track slipped by a cell pokes out of the true grid by a cell."""
    poly = outer.astype(np.float32).reshape(-1, 1, 2)
    margin = 0.02 * side(inner)
    inside = all(cv2.pointPolygonTest(poly, (float(x), float(y)), True) > -margin for x, y in inner)
    return inside and cv2.contourArea(poly) > 1.15 * cv2.contourArea(inner.astype(np.float32).reshape(-1, 1, 2))


def side(corners: np.ndarray) -> float:
    """The grid's diagonal, TL to BR: the scale motion is measured against."""
    return float(np.linalg.norm(corners[0] - corners[2]))


class BoardLocator:
    """Holds the frame (full size and at working size), the tracker, and the board's last corners."""

    def __init__(self, work_side: int = 1280, redetect_every: int = 10):
        self.work_side = work_side
        self.redetect_every = redetect_every  # frames between re-detections of a settled, tracked board
        self.tracker = GridTracker()
        self.last_corners: np.ndarray | None = None
        self.speed = 0.0  # corner motion on the last frame, as a fraction of the grid's diagonal
        self.lattice: np.ndarray | None = None  # a curled board's crossings (full-size pixels), else None
        self.frame: np.ndarray | I420 = np.zeros((1, 1), np.uint8)
        self.small = np.zeros((1, 1), np.uint8)  # the frame's grey at working size
        self.scale = 1.0  # working size / full size
        self._shape: tuple[int, ...] | None = None
        self._gray: np.ndarray | None = None  # its grey at full size, made when a reading needs it
        self.evenness: deque[float] = deque(maxlen=30)  # the board's last frames' ``cells.evenness``

    # ------------------------------------------------------------------ the frame

    def prepare(self, frame: np.ndarray | I420, small: np.ndarray | None) -> bool:
        """Grey at working size now (or the one made ahead), at full size only if a reading needs it.
        True when the frame size changed: everything known about the board is void."""
        resized = frame.shape[:2] != self._shape
        if resized:
            self._shape = frame.shape[:2]
            self.tracker.reset()
            self.evenness.clear()
            self.last_corners = None
            self.lattice = None
        h, w = frame.shape[:2]
        self.scale = min(1.0, self.work_side / max(h, w))
        self.frame = frame
        self._gray = None
        if small is None or small.shape[:2] != (round(h * self.scale), round(w * self.scale)):
            small = working_gray(frame, self.work_side)
        self.small = small
        if self.scale == 1.0:
            self._gray = small
        return resized

    def full_gray(self) -> np.ndarray:
        if self._gray is None:
            self._gray = to_gray(self.frame)
        return self._gray

    def colour(self) -> np.ndarray:
        """The frame in BGR (a recording's I420 frame is converted only when a reading needs its colour)."""
        return as_bgr(self.frame)

    def still(self, lattice: np.ndarray | None) -> None:
        """A photo is its own scene: nothing tracked before it or after it."""
        self.tracker.reset()
        self.last_corners = None
        self._shape = None
        self.lattice = lattice

    # ------------------------------------------------------------------ finding the board

    def restart(self, corners: np.ndarray, motion: np.ndarray | None = None) -> None:
        """Track from these (full-size) corners, and the lattice if the page is curled."""
        k = self.scale
        self.tracker.start(self.small, corners * k, motion=motion,
                           lattice=None if self.lattice is None else self.lattice * k)

    def lose(self) -> None:
        self.tracker.reset()
        self.evenness.clear()

    def locate(self, frame_index: int, settled: bool) -> Located:
        """Track the board, and detect it on every frame until it is settled (the reading needs exact
        corners) or while it moves fast; once settled, now and then, to correct drift."""
        k = self.scale
        prev = self.last_corners
        tracked = self.tracker.track(self.small) if self.tracker.active else None
        if tracked is not None:
            tracked = tracked / k
            if self.tracker.lattice is not None:
                self.lattice = self.tracker.lattice / k
        # fast motion (now or on the last frame) makes a periodic grid easy to mis-track by a cell
        moving = self.speed > 0.01 or (tracked is not None and prev is not None and float(
            np.abs(tracked - prev).max()) > 0.01 * side(tracked))
        if tracked is not None and settled and not moving and frame_index % self.redetect_every:
            return Located(tracked, False)
        quad = find_grid(self.small, allow_cut=False, precise=False)
        if quad is None:
            return Located(tracked, False)
        if tracked is not None and (_surrounds(quad.corners / k, tracked) or self._streaked(tracked) and float(
                np.abs(quad.corners / k - tracked).max()) > 0.08 * side(tracked)):
            return Located(tracked, False)  # the page's edge around the grid, or a quad a streaked frame made up
        ref = tracked if tracked is not None else prev
        turn = 0 if ref is None else _turn(quad.corners / k, ref)
        det = np.roll(quad.corners / k, -turn, axis=0)
        self.lattice = rotate(quad.lattice / k, turn) if quad.bent and quad.lattice is not None else None
        if tracked is not None:
            motion = self.tracker.motion
        elif prev is not None:
            motion = cv2.getPerspectiveTransform((prev * k).astype(np.float32), (det * k).astype(np.float32))
        else:
            motion = None
        self.restart(det, motion)
        slipped = ref is not None and float(np.abs(det - ref).max()) > 0.08 * side(det)
        return Located(det, True, slipped)

    def steady(self, corners: np.ndarray, detected: bool) -> bool:
        """Whole board in view, its corners exact (detected on this frame, or tracked while slow), and the
        picture not streaked by a shaking hand (a reading of a blurred frame is wrong, not just unsure)."""
        h, w = self.frame.shape[:2]
        m = 2.0
        if (corners[:, 0] < m).any() or (corners[:, 1] < m).any() or (corners[:, 0] > w - m).any() \
                or (corners[:, 1] > h - m).any():
            return False
        if self.blurred(corners):
            return False
        if detected:
            return True
        if self.last_corners is None:
            return False
        return float(np.abs(corners - self.last_corners).max()) < 0.03 * side(corners)

    def blurred(self, corners: np.ndarray) -> bool:
        """The grid's edges less even across and down than on the board's recent frames: a motion streak."""
        now = self._evenness(corners)
        usual = float(np.median(self.evenness)) if len(self.evenness) >= 5 else None
        self.evenness.append(now)
        return usual is not None and now < BLUR * usual

    def _streaked(self, corners: np.ndarray) -> bool:
        """``blurred``, without counting the frame in the board's usual evenness."""
        return len(self.evenness) >= 5 and self._evenness(corners) < BLUR * float(np.median(self.evenness))

    def _evenness(self, corners: np.ndarray) -> float:
        k = self.scale
        return evenness(self.small, corners * k, lattice=None if self.lattice is None else self.lattice * k)

    def moved_to(self, corners: np.ndarray | None) -> None:
        """The frame's corners become the last ones; the motion since the last frame is kept as ``speed``."""
        prev = self.last_corners
        self.speed = 0.0 if corners is None or prev is None else float(np.abs(corners - prev).max()) / side(corners)
        self.last_corners = corners

    def inked(self, corners: np.ndarray, expect: np.ndarray | None = None) -> np.ndarray:
        """Every frame, cheaply: which of the 81 cells hold ink (a bool per cell); ``expect``, the cells
        that should (``quick_ink``: their print sets the scale when it is paler than the pen)."""
        k = self.scale
        lattice = None if self.lattice is None else self.lattice * k
        return quick_ink(self.small, corners * k, lattice=lattice, expect=expect) > 0.5
