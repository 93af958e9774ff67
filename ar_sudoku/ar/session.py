"""The per-frame state machine of the live loop: ``ARSession.step(frame) -> FrameResult``.

Most frames take the short path: the board is tracked, its givens are known,
its solution is cached, and only the overlay is drawn. The long path (detect,
read over a few frames and vote, hand the reading to the solve worker) runs
when a board appears or tracking is lost. A periodic re-read of the tracked
board notices a different puzzle; drawing stops at the first sign of one, so a
solution is never drawn on a puzzle it does not belong to. The session owns no
windows or files: the caller draws the result where it wants.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field

import cv2
import numpy as np

from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.solve_worker import SolveHandle, SolveWorker
from ar_sudoku.sudoku.rules import BoardResult, Reading
from ar_sudoku.vision.cells import quick_ink
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid, to_gray
from ar_sudoku.vision.reading import read_grid, read_oriented
from ar_sudoku.vision.tracker import GridTracker


@dataclass(frozen=True)
class FrameResult:
    """What one frame showed: feeds the overlay, the status display and the JSONL log alike."""

    frame: int
    status: str  # searching | reading | solving | solved | no_solution
    corners: np.ndarray | None
    givens: str | None
    solution: str | None  # the solution drawn on this frame, or None
    t_ms: float
    timings: dict[str, float] = field(default_factory=dict)
    message: str = ""

    def to_json(self) -> dict:
        return {
            "frame": self.frame,
            "t_ms": round(self.t_ms, 2),
            "corners": None if self.corners is None else [[round(float(x), 1), round(float(y), 1)]
                                                          for x, y in self.corners],
            "givens": self.givens,
            "solution": self.solution,
            "status": self.status,
        }


@dataclass
class SessionConfig:
    votes: int = 3  # readings averaged before the first solve
    window: int = 5  # the newest readings kept for the vote
    recheck_every: int = 6  # frames between re-reads of a solved board
    redetect_every: int = 10  # frames between re-detections while tracking
    mismatch_new: int = 5  # confident cells that disagree: a different puzzle
    pattern_mismatch: int = 12  # cells whose ink disagrees with the givens: not this puzzle (now)
    solve_timeout: float = 1.5


def _align(corners: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Roll a detected quad so its corners match the tracked (puzzle-ordered) ones."""
    best = min(range(4), key=lambda k: float(np.linalg.norm(np.roll(corners, -k, axis=0) - reference)))
    return np.roll(corners, -best, axis=0)


class ARSession:
    """Stateful tracking and caching on the caller's thread; solving on the worker."""

    def __init__(self, reader: DigitReader, worker: SolveWorker | None = None,
                 config: SessionConfig | None = None, overlay: OverlayRenderer | None = None):
        self.reader = reader
        self.worker = worker or SolveWorker()
        self._own_worker = worker is None
        self.cfg = config or SessionConfig()
        self.overlay = overlay or OverlayRenderer()
        self.tracker = GridTracker()
        self.frame_index = -1
        self.last_corners: np.ndarray | None = None
        self.speed = 0.0  # corner motion on the last frame, as a fraction of the grid's diagonal
        self.overrides: dict[int, int] = {}
        self.override_base: str | None = None  # the reading the corrections were made on
        self.cache: OrderedDict[str, BoardResult] = OrderedDict()  # givens -> checked result
        self._reset_board()

    # ------------------------------------------------------------------ state

    def _reset_board(self) -> None:
        self.votes: list[Reading] = []
        self.givens: str | None = None
        self.result: BoardResult | None = None
        self.handle: SolveHandle | None = None
        self.oriented = False
        self.since_read = 0
        self.suspect = 0
        self.submitted: str | None = None  # the last vote handed to the solver

    @property
    def state(self) -> str:
        if not self.tracker.active:
            return "searching"
        if self.result is not None:
            return "solved" if self.result.status == "solved" else "no_solution"
        if self.handle is not None:
            return "solving"
        return "reading"

    def set_override(self, cell: int, digit: int) -> None:
        """A user's correction of a misread cell (0 clears); the board is solved again."""
        if self.votes:
            self.override_base = self._voted().givens
        self.overrides[cell] = digit
        if self.votes:
            self._submit(self._voted())

    def clear_overrides(self) -> None:
        self.overrides.clear()
        self.override_base = None

    # ------------------------------------------------------------------ steps

    def _voted(self) -> Reading:
        probs = np.mean([r.probs for r in self.votes], axis=0) if self.votes else np.zeros((81, 10))
        digits = probs.argmax(axis=1)
        return Reading(digits, probs.max(axis=1), probs)

    def _submit(self, reading: Reading) -> None:
        if self.override_base is not None and sum(
                a != b for a, b in zip(reading.givens, self.override_base)) > self.cfg.mismatch_new:
            self.clear_overrides()  # corrections belong to the puzzle they were made on
        overrides = dict(self.overrides)
        self.givens = self.submitted = reading.givens
        key = self.givens + repr(sorted(overrides.items()))
        if key in self.cache:
            self.result = self.cache[key]
            self.cache.move_to_end(key)
            self.handle = None
            return
        self.result = None
        self.handle = self.worker.submit_reading(reading, self.cfg.solve_timeout, overrides, True, key)

    def _poll(self) -> None:
        if self.handle is None or not self.handle.done():
            return
        h, self.handle = self.handle, None
        if h.superseded or h.result() is None:
            return
        result: BoardResult = h.result()
        self.result = result
        self.cache[h.givens] = result
        while len(self.cache) > 32:
            self.cache.popitem(last=False)
        if result.givens:
            self.givens = result.givens

    def _read(self, gray: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, Reading]:
        if not self.oriented:
            corners, reading = read_oriented(gray, corners, self.reader)
            inked = reading.digits > 0
            if inked.sum() >= 10:
                self.oriented = True
                self.tracker.start(gray, corners)
            return corners, reading
        return corners, read_grid(gray, corners, self.reader)

    def _steady(self, corners: np.ndarray, shape: tuple[int, ...], detected: bool = False) -> bool:
        """Whole board in view, and its corners exact: detected on this frame, or tracked while slow."""
        h, w = shape[:2]
        m = 2.0
        if (corners[:, 0] < m).any() or (corners[:, 1] < m).any() or (corners[:, 0] > w - m).any() \
                or (corners[:, 1] > h - m).any():
            return False
        if detected:
            return True
        if self.last_corners is None:
            return False
        side = float(np.linalg.norm(corners[0] - corners[2]))
        return float(np.abs(corners - self.last_corners).max()) < 0.03 * side

    def _same_pattern(self, gray: np.ndarray, corners: np.ndarray) -> bool:
        """Every frame, cheaply: do the inked cells still match the givens? A different puzzle
        (or a hand over this one) fails at once, and a full re-read is due on the next frame."""
        assert self.givens is not None
        ink = quick_ink(gray, corners) > 0.5
        want = np.array([ch != "." for ch in self.givens])
        mismatch = ink != want
        for i in self.overrides:
            mismatch[i] = False
        if int(mismatch.sum()) >= self.cfg.pattern_mismatch:
            self.since_read = self.cfg.recheck_every
            return False
        return True

    def _differs(self, reading: Reading) -> int:
        """Confident cells of a fresh reading that disagree with the board's givens."""
        if not self.givens:
            return 0
        now = reading.digits
        before = np.array([0 if ch == "." else int(ch) for ch in self.givens])
        confident = reading.confidence > 0.8
        mask = confident & (now != before)
        for i in self.overrides:
            mask[i] = False
        return int(mask.sum())

    def step(self, frame: np.ndarray) -> FrameResult:
        """Advance one frame; never waits for the solver."""
        t0 = time.perf_counter()
        self.frame_index += 1
        timings: dict[str, float] = {}
        gray = to_gray(frame)
        self._poll()

        t = time.perf_counter()
        prev = self.last_corners
        tracked = self.tracker.track(gray) if self.tracker.active else None
        corners = tracked
        # fast motion (now or on the last frame) makes a periodic grid easy to mis-track by a cell
        moving = self.speed > 0.01 or (tracked is not None and prev is not None and float(
            np.abs(tracked - prev).max()) > 0.01 * float(np.linalg.norm(tracked[0] - tracked[2])))
        settled = self.result is not None and self.result.status == "solved"
        detected = False
        # detect on every frame until the board is solved (the reading needs exact corners) or while it
        # moves fast; after that, now and then, to correct drift
        if tracked is None or not settled or moving or self.frame_index % self.cfg.redetect_every == 0:
            quad = find_grid(gray, allow_cut=False)
            if quad is not None:
                ref = tracked if tracked is not None else prev
                det = quad.corners if ref is None else _align(quad.corners, ref)
                if tracked is not None:
                    motion = self.tracker.motion
                elif prev is not None:
                    motion = cv2.getPerspectiveTransform(prev.astype(np.float32), det.astype(np.float32))
                else:
                    motion = None
                self.tracker.start(gray, det, motion)
                corners = det
                detected = True
                if ref is not None and float(np.abs(det - ref).max()) > 0.08 * float(np.linalg.norm(det[0] - det[2])):
                    self._reset_board()  # tracking had slipped, or another grid is in view: read again
        if corners is None and self.givens is not None:
            self._reset_board()  # lost: a board seen again is re-read (the cache makes it instant)
        timings["find"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        steady = corners is not None and self._steady(corners, frame.shape, detected)
        self.speed = 0.0
        if corners is not None and prev is not None:
            self.speed = float(np.abs(corners - prev).max()) / float(np.linalg.norm(corners[0] - corners[2]))
        self.last_corners = corners
        if corners is not None and steady:
            self.since_read += 1
            solved = self.result is not None and self.result.status == "solved"
            if not solved:
                # reading, or reading on after "no solution": every steady frame adds a vote, and the
                # mean of the last few goes to the solver whenever it reads differently from the last
                corners, reading = self._read(gray, corners)
                self.since_read = 0
                if self.oriented:
                    self.votes = [*self.votes, reading][-self.cfg.window :]
                if len(self.votes) >= self.cfg.votes and self.handle is None:
                    voted = self._voted()
                    if voted.givens != self.submitted:
                        self._submit(voted)
            elif self.since_read >= self.cfg.recheck_every:
                corners, reading = self._read(gray, corners)
                self.since_read = 0
                diff = self._differs(reading)
                if diff >= self.cfg.mismatch_new:
                    self.suspect += 1  # stop drawing at once; confirm on the next re-read
                    self.since_read = self.cfg.recheck_every - 2
                    if self.suspect >= 2 or diff >= 2 * self.cfg.mismatch_new:
                        self._reset_board()
                else:
                    self.suspect = 0
        timings["read"] = (time.perf_counter() - t) * 1e3
        self._poll()

        solution = None
        if (corners is not None and self.result is not None and self.result.status == "solved"
                and self.suspect == 0 and self.givens is not None and self._same_pattern(gray, corners)):
            solution = self.result.solution
        status = self.state
        message = self.result.message if self.result is not None else ""
        t_ms = (time.perf_counter() - t0) * 1e3
        return FrameResult(self.frame_index, status, corners, self.givens if corners is not None else None,
                           solution, t_ms, timings, message)

    def draw(self, frame: np.ndarray, result: FrameResult) -> np.ndarray:
        """The overlay for ``result`` on ``frame`` (in place)."""
        if result.solution and result.corners is not None and self.result is not None and self.result.givens:
            self.overlay.draw(frame, result.corners, self.result.givens, result.solution)
        return frame

    def close(self) -> None:
        if self._own_worker:
            self.worker.close()

    def __enter__(self) -> ARSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
