"""The per-frame state machine of the live loop: ``ARSession.step(frame) -> FrameResult``.

Most frames take the short path: the board is tracked, its givens are known,
its solution is cached, and only the overlay is drawn. The long path (detect,
read over a few frames and vote, hand the reading to the solve worker) runs
when a board appears or tracking is lost. The session owns no windows or
files: the caller draws the result where it wants.

States (``State``) and the events that move between them; the whole table
lives in ``ARSession`` and nowhere else::

    state        every steady frame          event                        next
    -----------  --------------------------  ---------------------------  -----------
    SEARCHING    detect                      board found                  READING
    READING      read, add a vote            enough votes: submit         SOLVING
    SOLVING      read, add a vote            worker: solved               SOLVED
                                             worker: no solution          NO_SOLUTION
    NO_SOLUTION  read, add a vote            the vote reads differently   SOLVING
    SOLVED       draw; re-read now and then  re-read differs              SUSPECT
    SUSPECT      draw nothing; re-read soon  re-read agrees               SOLVED
                                             re-read differs again        READING (new board)
    any          -                           board lost                   SEARCHING
    any          -                           tracking slipped, other grid READING (new board)

Two checks guard the drawing in SOLVED: a cheap test every frame that the
inked cells still match the givens (a swapped puzzle or a hand over the page
stops the drawing at once), and the periodic full re-read that confirms a
different puzzle. A solution is never drawn on a puzzle it does not belong to.

Stills (a photo, a folder of photos) are each their own scene:
``step(frame, still=True)`` reads and solves at once, with no tracking or votes.

Detection and tracking run on a frame scaled to ``SessionConfig.work_side``
(long side), so a 4K camera costs about what 720p does; cells are cut from
the full-resolution frame.
"""

from __future__ import annotations

import enum
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from ar_sudoku.ar.marks import Marks, Mode, plan_marks
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.solve_worker import SolveHandle, SolveWorker
from ar_sudoku.sudoku.rules import BoardResult, Reading
from ar_sudoku.sudoku.written import Written
from ar_sudoku.vision.cells import quick_ink
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import BENT, find_grid, to_gray, working_gray
from ar_sudoku.vision.kinds import CellKinds, KindReader, grid_views
from ar_sudoku.vision.lattice import bend_of, from_corners, rotate
from ar_sudoku.vision.reading import (
    EntryOpinion,
    fuse,
    process_image,
    read_grid,
    read_oriented,
    small_print_is_written,
    unreadable_cells,
    unseen,
    written_part,
)
from ar_sudoku.vision.tracker import GridTracker
from ar_sudoku.vision.yuv import I420, as_bgr


class State(enum.Enum):
    SEARCHING = "searching"
    READING = "reading"
    SOLVING = "solving"
    NO_SOLUTION = "no_solution"
    SOLVED = "solved"
    SUSPECT = "suspect"


@dataclass(frozen=True)
class FrameResult:
    """What one frame showed: feeds the overlay, the status display and the JSONL log alike."""

    frame: int
    status: str  # a State's value
    corners: np.ndarray | None
    givens: str | None
    solution: str | None  # the solution drawn on this frame, or None
    t_ms: float
    timings: dict[str, float] = field(default_factory=dict)
    message: str = ""
    marks: Marks | None = None  # what the display mode draws on this frame (None: nothing)
    lattice: np.ndarray | None = None  # a curled page's 10x10 crossings (None: flat, from the corners)
    written: Written | None = None  # what the person has written, when the cells' kinds are read

    def to_json(self) -> dict:
        out = {
            "frame": self.frame,
            "t_ms": round(self.t_ms, 2),
            "corners": None if self.corners is None else [[round(float(x), 1), round(float(y), 1)]
                                                          for x, y in self.corners],
            "lattice": None if self.corners is None else [
                [round(float(x), 1), round(float(y), 1)]
                for x, y in (self.lattice if self.lattice is not None else from_corners(self.corners)).reshape(-1, 2)],
            "givens": self.givens,
            "solution": self.solution,
            "status": self.status,
        }
        if self.written is not None and self.givens is not None:
            out.update({k: v for k, v in self.written.to_json(self.solution).items() if k != "candidates"})
        if self.marks is not None and self.marks.text:
            out["say"] = self.marks.text
        return out


@dataclass
class SessionConfig:
    votes: int = 3  # readings averaged before the first solve
    window: int = 5  # the newest readings kept for the vote
    recheck_every: int = 6  # frames between re-reads of a solved board
    redetect_every: int = 10  # frames between re-detections while tracking
    mismatch_new: int = 5  # confident cells that disagree: a different puzzle
    pattern_mismatch: int = 12  # cells whose ink disagrees with the givens: not this puzzle (now)
    solve_timeout: float = 1.5
    work_side: int = 1280  # detect and track on frames no larger than this (long side)
    # None (live): never wait for the solver. k: a solve still running k frames after its submission is
    # waited for, so the frame a board locks on depends on the frames alone, not on the machine's load
    # (tests, and any run that must be reproducible)
    solve_lag: int | None = None


@dataclass(frozen=True)
class Located:
    """Where the board is on this frame, in full-frame pixels."""

    corners: np.ndarray | None
    detected: bool  # found by the detector on this frame (exact), not only tracked


def _turn(corners: np.ndarray, reference: np.ndarray) -> int:
    """How far to roll a detected quad so its corners match the tracked (puzzle-ordered) ones."""
    return min(range(4), key=lambda k: float(np.linalg.norm(np.roll(corners, -k, axis=0) - reference)))


def _side(corners: np.ndarray) -> float:
    return float(np.linalg.norm(corners[0] - corners[2]))


class ARSession:
    """Stateful tracking and caching on the caller's thread; solving on the worker."""

    def __init__(self, reader: DigitReader, worker: SolveWorker | None = None,
                 config: SessionConfig | None = None, overlay: OverlayRenderer | None = None,
                 mode: Mode = "answer", kinds: KindReader | None = None):
        self.reader = reader
        self.kinds = kinds  # tells printed givens from what the person writes; None: print only
        self.mode: Mode = mode
        self._marks_key: tuple | None = None
        self._marks: Marks | None = None
        self.hinted: dict[int, str] = {}  # hints taken with `n`, counted as written on this puzzle
        self.hinted_for: str | None = None  # the givens they were taken on
        self.written: dict[int, str] = {}  # entries on the paper, confirmed by two readings running
        self.seen: dict[int, str] = {}  # the entries of the last reading
        self.written_for: str | None = None  # the givens they were written on
        self.cell_kinds: CellKinds | None = None  # the last reading's kinds, and its digit-model reading
        self.second: EntryOpinion | None = None  # the entry-digit model on that reading's frame
        self.printed: Reading | None = None
        self.unreadable: tuple[int, ...] = ()  # cells the last reading could not see (glare)
        self.doubts: tuple[tuple[int, str], ...] = ()  # entries the last reading was unsure of: "looks like"
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
        self._shape: tuple[int, ...] | None = None
        self.lattice: np.ndarray | None = None  # a curled board's crossings (full-size pixels), else None
        self._frame = self._small = np.zeros((1, 1), np.uint8)  # this frame, and its grey at working size
        self._gray: np.ndarray | None = None  # its grey at full size, made when a reading needs it
        self._scale = 1.0  # working size / full size
        self.state = State.SEARCHING
        # what each state does on a steady frame with the board in view
        self._on_steady: dict[State, Callable[[np.ndarray], np.ndarray]] = {
            State.READING: self._vote,
            State.SOLVING: self._vote,
            State.NO_SOLUTION: self._vote,
            State.SOLVED: self._recheck,
            State.SUSPECT: self._recheck,
        }
        self._new_board()

    # ------------------------------------------------------------------ board state and transitions

    def _new_board(self, state: State = State.SEARCHING) -> None:
        """Forget the board's reading: the next one is read afresh (the cache makes a known one instant)."""
        self.votes: list[Reading] = []
        self.givens: str | None = None
        self.result: BoardResult | None = None
        self.handle: SolveHandle | None = None
        self.oriented = False
        self.since_read = 0
        self.submitted: str | None = None  # the last vote handed to the solver
        self.submitted_at = -1  # the frame it was handed over on
        self.state = state

    def _settle(self, result: BoardResult) -> None:
        """A checked result arrived (from the worker or the cache): SOLVED or NO_SOLUTION."""
        self.result = result
        if result.givens:
            self.givens = result.givens
        self.state = State.SOLVED if result.status == "solved" else State.NO_SOLUTION

    def set_override(self, cell: int, digit: int) -> None:
        """A user's correction of a misread cell (0 clears); the board is solved again."""
        if self.votes:
            self.override_base = self._voted().givens
        self.overrides[cell] = digit
        if self.votes:
            self._submit(self._voted())

    def set_mode(self, mode: Mode) -> None:
        """answer, check or hint: what is drawn on the paper from the next frame on."""
        self.mode = mode

    def next_hint(self) -> None:
        """Take the hint shown (as if its digit were written) and move on to the next one."""
        m = self._marks
        if self.mode == "hint" and m is not None and m.ring and m.small and m.small[0][1].isdigit():
            if self.hinted_for != self.givens:
                self.hinted, self.hinted_for = {}, self.givens
            self.hinted[m.small[0][0]] = m.small[0][1]

    def entries(self) -> str | None:
        """The person's own digits, as far as the session knows them (hints taken count as written)."""
        paper = self.written if self.written_for == self.givens else {}
        hints = self.hinted if self.hinted_for == self.givens else {}
        if not paper and not hints:
            return None
        return "".join(paper.get(i) or hints.get(i, ".") for i in range(81))

    def marks(self) -> Marks | None:
        """What the display mode draws for the solved board (cached: hints cost a logical solve)."""
        if self.state is not State.SOLVED or self.result is None or not self.result.solution or not self.givens:
            return None
        key = (self.mode, self.result.givens or self.givens, self.result.solution, self.entries(), None,
               self.doubts, self.unreadable)
        if key != self._marks_key:
            self._marks_key, self._marks = key, plan_marks(*key)
        return self._marks

    def clear_overrides(self) -> None:
        self.overrides.clear()
        self.override_base = None

    # ------------------------------------------------------------------ solving

    def _voted(self) -> Reading:
        """The mean reading of the votes, each cell over the frames that saw it (a glare hides a cell on some
        frames, ``reading.unreadable_cells``; as the page or the light moves, other frames read it)."""
        if not self.votes:
            probs = np.zeros((81, 10))
        else:
            stack = np.array([r.probs for r in self.votes])
            seen = (stack.sum(axis=2) > 0).sum(axis=0)
            probs = stack.sum(axis=0) / np.maximum(seen, 1)[:, None]
        digits = probs.argmax(axis=1)
        return Reading(digits, probs.max(axis=1), probs)

    def _cache_key(self, givens: str) -> str:
        return givens + repr(sorted(self.overrides.items()))

    def _submit(self, reading: Reading) -> None:
        """Hand a reading to the solver (a reading with several solutions is not drawn: a digit was missed)."""
        if self.override_base is not None and sum(
                a != b for a, b in zip(reading.givens, self.override_base)) > self.cfg.mismatch_new:
            self.clear_overrides()  # corrections belong to the puzzle they were made on
        self.givens = self.submitted = reading.givens
        key = self._cache_key(self.givens)
        if key in self.cache:
            self.cache.move_to_end(key)
            self.handle = None
            self._settle(self.cache[key])
            return
        self.result = None
        self.submitted_at = self.frame_index
        self.handle = self.worker.submit_reading(reading, self.cfg.solve_timeout, dict(self.overrides), True, key)
        self.state = State.SOLVING

    def _poll(self) -> None:
        if self.handle is None:
            return
        lag = self.cfg.solve_lag
        if lag is not None and self.frame_index - self.submitted_at >= lag:
            self.handle.wait()  # ends: the worker finishes every handle (the search has its own deadline)
        if not self.handle.done():
            return
        h, self.handle = self.handle, None
        if h.superseded or h.result() is None:
            return
        result: BoardResult = h.result()
        self.cache[h.givens] = result
        while len(self.cache) > 32:
            self.cache.popitem(last=False)
        self._settle(result)

    # ------------------------------------------------------------------ what the states do

    def _read(self, corners: np.ndarray) -> tuple[np.ndarray, Reading]:
        """The givens as the solver should see them (and, with a kinds reader, the cells' kinds)."""
        gray = self._full_gray()
        if not self.oriented:
            corners, reading, lattice = read_oriented(gray, corners, self.reader, self.lattice)
            if (reading.digits > 0).sum() >= 10:
                self.oriented = True
                self.lattice = lattice
                self._restart_tracker(corners)
        else:
            reading = read_grid(gray, corners, self.reader, self.lattice)
        self.cell_kinds = None
        if self.kinds is not None and self.oriented:
            # the colour frame: a pen's own ink tells entries from print (kinds.ink_votes)
            seen = grid_views(as_bgr(self._frame), corners, self.lattice)
            self.second = EntryOpinion(self.kinds, gray, corners, self.lattice, seen.square)  # asked about odd entries
            self.cell_kinds = small_print_is_written(self.kinds.read(seen.views, seen.inks), self.second, seen.views)
            self.unreadable = unreadable_cells(seen.square, self.cell_kinds, reading)
            self.printed = reading
            reading = fuse(reading, self.cell_kinds)
            if self.unreadable:  # no vote from a cell this frame cannot see
                self.printed, reading = unseen(self.printed, self.unreadable), unseen(reading, self.unreadable)
        return corners, reading

    def _vote(self, corners: np.ndarray) -> np.ndarray:
        """READING, SOLVING, NO_SOLUTION: every steady frame adds a vote; the mean of the last few goes
        to the solver whenever it reads differently from the last one submitted."""
        corners, reading = self._read(corners)
        self.since_read = 0
        if self.oriented:
            self.votes = [*self.votes, reading][-self.cfg.window :]
        if len(self.votes) >= self.cfg.votes and self.handle is None:
            voted = self._voted()
            if voted.givens != self.submitted:
                self._submit(voted)
        return corners

    def _recheck(self, corners: np.ndarray) -> np.ndarray:
        """SOLVED, SUSPECT: re-read now and then; a different puzzle is suspected, then confirmed."""
        self.since_read += 1
        if self.since_read < self.cfg.recheck_every:
            return corners
        corners, reading = self._read(corners)
        self.since_read = 0
        diff = self._differs(reading)
        if diff < self.cfg.mismatch_new:
            self.state = State.SOLVED
            self._take_entries()
        elif self.state is State.SUSPECT or diff >= 2 * self.cfg.mismatch_new:
            self._new_board(State.READING)
        else:
            self.state = State.SUSPECT  # stop drawing at once; confirm on the next re-read, soon
            self.since_read = self.cfg.recheck_every - 2
        return corners

    def _take_entries(self) -> None:
        """What the person has written, from this reading: an entry counts once two readings agree.

        An entry read only once (a hand passing, a blurred frame) is not taken; a
        cell read blank twice loses its entry (rubbed out). While something is
        unconfirmed the next re-read comes sooner, so a new entry is checked
        within a few frames of the page being steady.
        """
        if self.cell_kinds is None or not self.givens:
            return
        if self.written_for != self.givens:
            self.written, self.seen, self.written_for = {}, {}, self.givens
        solution = self.result.solution if self.result is not None else None
        part = written_part(self.givens, self.cell_kinds, self.printed, solution, self.second, self.unreadable)
        self.doubts = part.doubts
        now = part.entries
        # a cell hidden by glare on this reading keeps what earlier readings saw there
        now = "".join(self.seen.get(i, ".") if i in self.unreadable else d for i, d in enumerate(now))
        fresh = {i: d for i, d in enumerate(now) if d != "."}
        for i, d in fresh.items():
            if self.seen.get(i) == d:
                self.written[i] = d
        for i in [i for i in self.written if i not in fresh and i not in self.seen]:
            del self.written[i]  # blank in two readings running: rubbed out
        self.seen = fresh
        if any(self.written.get(i) != d for i, d in fresh.items()) or any(i not in fresh for i in self.written):
            self.since_read = self.cfg.recheck_every - 2

    def _differs(self, reading: Reading) -> int:
        """Confident cells of a fresh reading that disagree with the board's givens."""
        if not self.givens:
            return 0
        before = np.array([0 if ch == "." else int(ch) for ch in self.givens])
        mask = (reading.confidence > 0.8) & (reading.digits != before)
        for i in self.overrides:
            mask[i] = False
        return int(mask.sum())

    def _same_pattern(self, corners: np.ndarray) -> bool:
        """Every frame, cheaply: do the inked cells still match the givens? A different puzzle
        (or a hand over this one) fails at once, and a full re-read is due on the next frame."""
        assert self.givens is not None
        k = self._scale
        ink = quick_ink(self._small, corners * k, lattice=None if self.lattice is None else self.lattice * k) > 0.5
        want = np.array([ch != "." for ch in self.givens])
        if self.kinds is None:  # print only: any change of the ink pattern counts
            mismatch = ink != want
        else:  # new ink in an empty cell is someone writing, not another puzzle: givens gone missing count
            mismatch = want & ~ink
            known = set(self.written) | set(self.seen)
            if any(ink[i] and not want[i] and i not in known for i in range(81)):
                self.since_read = max(self.since_read, self.cfg.recheck_every - 2)  # read it soon
        for i in self.overrides:
            mismatch[i] = False
        limit = self.cfg.pattern_mismatch if self.kinds is None else self.cfg.pattern_mismatch // 2
        if int(mismatch.sum()) >= limit:
            self.since_read = self.cfg.recheck_every
            return False
        return True

    # ------------------------------------------------------------------ finding the board

    def _restart_tracker(self, corners: np.ndarray, motion: np.ndarray | None = None) -> None:
        k = self._scale
        self.tracker.start(self._small, corners * k, motion, None if self.lattice is None else self.lattice * k)

    def _locate(self) -> Located:
        """Track the board, and detect it on every frame until it is solved (the reading needs exact
        corners) or while it moves fast; once solved, now and then, to correct drift."""
        k = self._scale
        prev = self.last_corners
        tracked = self.tracker.track(self._small) if self.tracker.active else None
        if tracked is not None:
            tracked = tracked / k
            if self.tracker.lattice is not None:
                self.lattice = self.tracker.lattice / k
        # fast motion (now or on the last frame) makes a periodic grid easy to mis-track by a cell
        moving = self.speed > 0.01 or (tracked is not None and prev is not None and float(
            np.abs(tracked - prev).max()) > 0.01 * _side(tracked))
        settled = self.state in (State.SOLVED, State.SUSPECT)
        if tracked is not None and settled and not moving and self.frame_index % self.cfg.redetect_every:
            return Located(tracked, False)
        quad = find_grid(self._small, allow_cut=False, precise=False)
        if quad is None:
            return Located(tracked, False)
        ref = tracked if tracked is not None else prev
        turn = 0 if ref is None else _turn(quad.corners / k, ref)
        det = np.roll(quad.corners / k, -turn, axis=0)
        self.lattice = rotate(quad.lattice / k, turn) if quad.bent else None
        if tracked is not None:
            motion = self.tracker.motion
        elif prev is not None:
            motion = cv2.getPerspectiveTransform((prev * k).astype(np.float32), (det * k).astype(np.float32))
        else:
            motion = None
        self._restart_tracker(det, motion)
        if ref is not None and float(np.abs(det - ref).max()) > 0.08 * _side(det):
            self._new_board(State.READING)  # tracking had slipped, or another grid is in view: read again
        return Located(det, True)

    def _steady(self, corners: np.ndarray, shape: tuple[int, ...], detected: bool) -> bool:
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
        return float(np.abs(corners - self.last_corners).max()) < 0.03 * _side(corners)

    # ------------------------------------------------------------------ the frame

    def _prepare(self, frame: np.ndarray | I420, small: np.ndarray | None) -> None:
        """Grey at working size now (or the one made ahead), at full size only if a reading needs it;
        a new frame size starts afresh."""
        if frame.shape[:2] != self._shape:
            self._shape = frame.shape[:2]
            self.tracker.reset()
            self.last_corners = None
            self.lattice = None
            self._new_board()
        h, w = frame.shape[:2]
        self._scale = min(1.0, self.cfg.work_side / max(h, w))
        self._frame = frame
        self._gray = None
        if small is None or small.shape[:2] != (round(h * self._scale), round(w * self._scale)):
            small = working_gray(frame, self.cfg.work_side)
        self._small = small
        if self._scale == 1.0:
            self._gray = small

    def working_gray(self, frame: np.ndarray | I420) -> np.ndarray:
        """What ``step(frame, small=...)`` takes: pure and thread-safe, for a decoder thread to make ahead."""
        return working_gray(frame, self.cfg.work_side)

    def _full_gray(self) -> np.ndarray:
        if self._gray is None:
            self._gray = to_gray(self._frame)
        return self._gray

    def step(self, frame: np.ndarray | I420, still: bool = False, small: np.ndarray | None = None) -> FrameResult:
        """Advance one frame; never waits for the solver (except on a still, its own scene).

        ``small`` is the frame's ``working_gray``, if it was made ahead (off the loop's thread). A video's
        frame may come as :class:`~ar_sudoku.vision.yuv.I420` (a recording's, which is never made BGR
        unless a reading needs its colour); a still is BGR.
        """
        if still:
            return self._step_still(as_bgr(frame))
        t0 = time.perf_counter()
        self.frame_index += 1
        timings: dict[str, float] = {}
        self._prepare(frame, small)
        self._poll()

        t = time.perf_counter()
        prev = self.last_corners
        loc = self._locate()
        corners = loc.corners
        if corners is None:
            self.lattice = None
        if corners is None and self.state is not State.SEARCHING:
            self.tracker.reset()
            if self.givens is not None:
                self._new_board()  # lost: a board seen again is re-read (the cache makes it instant)
            self.state = State.SEARCHING  # votes not yet submitted are kept for its return
        elif corners is not None and self.state is State.SEARCHING:
            self.state = State.READING
        timings["find"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        steady = corners is not None and self._steady(corners, frame.shape, loc.detected)
        self.speed = 0.0 if corners is None or prev is None else float(np.abs(corners - prev).max()) / _side(corners)
        self.last_corners = corners
        if corners is not None and steady:
            corners = self._on_steady[self.state](corners)
        timings["read"] = (time.perf_counter() - t) * 1e3
        self._poll()
        return self._result(corners, t0, timings)

    def _step_still(self, frame: np.ndarray) -> FrameResult:
        """A photo is its own scene, read exactly as ``ar-sudoku image`` reads it (``process_image``: grid,
        orientation, both models, the rules, the person's entries), waiting for the solution: done."""
        t0 = time.perf_counter()
        self.frame_index += 1
        self.tracker.reset()
        self.last_corners = None
        self._shape = None
        self._new_board()
        res = process_image(frame, self.reader, timeout=self.cfg.solve_timeout, overrides=dict(self.overrides),
                            kinds=self.kinds)
        corners = res.corners
        self.lattice = res.lattice if res.lattice is not None and bend_of(res.lattice) >= BENT else None
        if corners is not None and res.givens:
            self._settle(res)
            entries = res.written.entries if res.written is not None else "." * 81
            self.written = {i: d for i, d in enumerate(entries) if d != "."}
            self.seen, self.written_for = dict(self.written), self.givens
            self.doubts = res.written.doubts if res.written is not None and res.written.checked else ()
            self.unreadable = res.unreadable
        result = self._result(corners, t0, {"read": res.ms}, check_pattern=False)
        self.last_corners = None
        return result

    def _result(self, corners: np.ndarray | None, t0: float, timings: dict[str, float],
                check_pattern: bool = True) -> FrameResult:
        solution = None
        if (corners is not None and self.state is State.SOLVED and self.result is not None
                and self.givens is not None
                and (not check_pattern or self._same_pattern(corners))):
            solution = self.result.solution
        message = self.result.message if self.result is not None else ""
        marks = self.marks() if solution is not None else None
        t_ms = (time.perf_counter() - t0) * 1e3
        written = None
        if self.kinds is not None and corners is not None and self.givens:
            paper = self.written if self.written_for == self.givens else {}
            cells = "".join("g" if g != "." else "e" if i in paper else "." for i, g in enumerate(self.givens))
            written = Written(cells, "".join(paper.get(i, ".") for i in range(81)), doubts=self.doubts)
        return FrameResult(self.frame_index, self.state.value, corners,
                           self.givens if corners is not None else None, solution, t_ms, timings, message, marks,
                           self.lattice if corners is not None else None, written)

    def draw(self, frame: np.ndarray, result: FrameResult) -> np.ndarray:
        """The overlay for ``result`` on ``frame`` (in place)."""
        if result.marks is not None and result.corners is not None:
            self.overlay.draw_marks(frame, result.corners, result.marks, result.lattice)
        return frame

    def close(self) -> None:
        if self._own_worker:
            self.worker.close()

    def __enter__(self) -> ARSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
