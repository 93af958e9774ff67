"""Every puzzle in view at once: ``Page.step(frame) -> FrameResult`` with one result per puzzle.

A newspaper page prints two or three puzzles side by side. The page keeps one
:class:`~ar_sudoku.ar.session.ARSession` per puzzle it tracks (its *track*), each unchanged: it
tracks, reads, votes, solves, caches and guards its own drawing exactly as the single-puzzle
session does, so one puzzle's trouble (a hand over it, a misread, a solve that fails) touches no
other. What the page adds:

- **Finding new puzzles** with :func:`~ar_sudoku.vision.grid.find_grids` on the frame's working
  grey, at a modest rate: while nothing is tracked, on the first frame where ``find_grid`` sees a
  grid; then every few frames while the view moves (a puzzle panned into view is found soon after
  it is whole), now and then when it is still.
  A grid whose centre lies on a tracked puzzle is that puzzle; any other starts a track there.
- **Keeping each track on its own puzzle.** A track's locator detects only around its own board
  (``BoardLocator.near_only``), so the largest grid in view never takes another track's place; a
  track that loses its board ends (the puzzle left the view, or was covered), and one that
  comes to lie on the same puzzle as an older track ends too. A puzzle seen again starts a new
  track, which reads it afresh: a track's solution is never carried to another place.
- **Sharing what is per frame or per puzzle, not per board:** the working grey is made once a
  frame, the solver is one worker with a lane per track (``SolveWorker``: one track's newer
  reading never cancels another's solve), the cache of solved puzzles is one (keyed by the givens
  read, so a puzzle panned away and back locks as soon as it is read again), and the tracks' periodic
  re-detections and re-reads fall on different frames, each track's as much less often as there are
  tracks (the per-frame ink check still stops a drawing at once).
- **One flow for a steady page.** While no track moves, one track a frame (each in turn) computes
  its optical flow and the others move by its homography (``GridTracker.follow``): the puzzles of a
  page are one sheet. While any moves, each computes its own.

Grids of 4x4, 6x6 and 16x16 are tracks too, each the same session, read whole
(:mod:`ar_sudoku.ar.sized_board`), looked for while a 9x9 puzzle in view is unsolved (a 9x9 track on such a
grid ends once it is known for what it is), and a photo of a folder is read as ``image`` reads it, every
puzzle on it (:meth:`Page._step_still`).

The frame's result is the first puzzle's (in reading order: rows from the top, then left to
right) with every puzzle's result in ``puzzles``, each with its track id in ``puzzle``; with no
puzzle in view it is a searching result with no corners. The user's commands (mode, hint,
corrections) go to the puzzle in focus: the one last clicked (``focus``), else the first.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.ar.marks import Marks, Mode
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.session import SIZED_MODES, ARSession, FrameResult, SessionConfig
from ar_sudoku.ar.sized import draw_answers
from ar_sudoku.ar.sized_board import SIZED, SizedBoard
from ar_sudoku.ar.solve_worker import SolveWorker
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.page_grids import PAGE_GRIDS, find_grids, reading_order
from ar_sudoku.vision.quads import ALL, CLEAR, FLAT, GridQuad, working_gray
from ar_sudoku.vision.reading import process_images
from ar_sudoku.vision.sizes import find_sized_grids
from ar_sudoku.vision.yuv import I420, as_bgr

__all__ = ["Page", "PageConfig"]



@dataclass
class PageConfig:
    most: int = PAGE_GRIDS.most_grids  # puzzles tracked at once
    find_moving: int = 2  # frames between searches for new puzzles while the view moves
    find_still: int = 15  # ... while it is still (all in view already found, unless a page slid in)
    find_entering: int = 4  # ... while a grid touches the frame's edge beside those tracked (being panned in)
    entering_grows: float = 0.02  # ... first seen, or grown by this share of its area since (a neighbour the edge
    # cuts for good is not looked at so often)
    moving: float = 0.01  # a track's corner motion (share of its diagonal) that makes the view "moving" (a shaking
    # hand does not; a pan does, as it makes each track re-detect its board on every frame)
    follow_below: float = 0.004  # every track's motion (share of its diagonal) under this: they follow one's flow


@dataclass
class Track:
    """One puzzle followed on the page: its id (the JSON's ``puzzle``) and its own session."""

    id: int
    session: ARSession


def _centre_on(corners: np.ndarray, point: np.ndarray) -> bool:
    poly = corners.reshape(-1, 1, 2).astype(np.float32)
    return cv2.pointPolygonTest(poly, (float(point[0]), float(point[1])), False) >= 0


def _later(due: int, taken: set[int], most: int) -> int:
    """Frames after ``due`` to the first one no other track has ``taken`` (at most ``most``)."""
    k = 0
    while k < most and due + k in taken:
        k += 1
    return k


def _where(track: Track) -> np.ndarray | None:
    """The track's board on the last frame (full-size pixels)."""
    return track.session.locator.last_corners


class Page:
    """The puzzles in view, each tracked by its own session; the live loop's session for a page."""

    def __init__(self, reader: DigitReader, worker: SolveWorker | None = None,
                 config: SessionConfig | None = None, overlay: OverlayRenderer | None = None,
                 mode: Mode = "answer", kinds: KindReader | None = None, page: PageConfig | None = None):
        self.reader, self.kinds, self.mode = reader, kinds, mode
        self.worker = worker or SolveWorker()
        self._own_worker = worker is None
        self.cfg = config or SessionConfig()
        self.page = page or PageConfig()
        self.overlay = overlay or OverlayRenderer()
        self.cache: OrderedDict[str, BoardResult] = OrderedDict()  # givens -> checked result, for every track
        self.tracks: list[Track] = []
        self.frame_index = -1
        self.focus: int | None = None  # the track the user's commands go to (None: the first in view)
        self._next_id = 0
        self._last_find = -(10**9)
        self._entering = False  # the last search saw a grid coming in at the frame's edge beside the tracked ones
        self._edge_area = 0.0  # that grid's area (working-size px; 0: none seen)
        self._shape: tuple[int, ...] | None = None
        self._stills: list[ARSession] = []  # a folder of photos: each photo its own scene, a session a puzzle
        self._leader: Track | None = None  # the track whose flow the others follow on this frame
        self._configs: dict[int, SessionConfig] = {}  # the tracks' config by how many there are
        self._since_sized = SIZED.find_every  # frames since grids of other sizes were looked for: look at once
        self._scale = 1.0  # working grey / frame, on the last frame

    # ------------------------------------------------------------------ the user's commands

    def _focused(self) -> ARSession | None:
        for tr in self.tracks:
            if tr.id == self.focus:
                return tr.session
        if self._stills and not self.tracks:
            return self._stills[0]
        return self.tracks[0].session if self.tracks else None

    def set_focus(self, puzzle: int | None) -> None:
        """The puzzle (a track id) that the corrections and hints go to."""
        self.focus = puzzle

    def set_override(self, cell: int, digit: int) -> None:
        session = self._focused()
        if session is not None:
            session.set_override(cell, digit)

    def set_mode(self, mode: Mode) -> None:
        """Every puzzle is drawn in one mode."""
        self.mode = mode
        for session in self._sessions():
            session.set_mode(mode)

    def next_hint(self) -> None:
        session = self._focused()
        if session is not None:
            session.next_hint()

    def _sessions(self) -> list[ARSession]:
        return [tr.session for tr in self.tracks] + self._stills

    # ------------------------------------------------------------------ the frame

    def working_gray(self, frame: np.ndarray | I420) -> np.ndarray:
        """The frame's grey at working size, shared by the search and every track (``ARSession.working_gray``)."""
        return working_gray(frame, self.cfg.work_side)

    def _new_session(self, track_id: int, sized: SizedBoard | None = None) -> ARSession:
        session = ARSession(self.reader, self.worker, self.cfg, self.overlay, self.mode,
                            self.kinds if sized is None else None, lane=track_id, sized=sized)
        session.cache = self.cache
        session.locator.near_only = True
        return session

    def _end(self, track: Track) -> None:
        self.tracks.remove(track)
        track.session.close()  # the shared worker stays: the session does not own it

    def _find_due(self) -> bool:
        if not self.tracks:
            return True
        since = self.frame_index - self._last_find
        still = self.page.find_entering if self._entering else self.page.find_still
        return since >= (self.page.find_moving if self._moving() else still)

    def _moving(self) -> bool:
        return any(tr.session.locator.speed > self.page.moving for tr in self.tracks)

    def _find_new(self, frame: np.ndarray | I420, small: np.ndarray, scale: float) -> float:
        """Start a track on every grid in view that no track follows; the search's time in ms.

        The frame with the tracked puzzles painted out is first asked :func:`find_grid` (with nothing
        tracked, what the single-puzzle session asks on every frame while it searches; beside tracked
        puzzles, its flat passes while the view moves, its clear ones while it is still; a grid cut by the
        frame's edge is not one): only when it sees a
        whole grid that no track follows is the page searched for every puzzle, a search that costs far
        more, most of all on a frame where a grid is entering the view.
        """
        t = time.perf_counter()
        self._last_find = self.frame_index
        grids: list[GridQuad] = []
        # beside tracked puzzles, a quicker look (a search that finds nothing tries every pass): while the view
        # moves, for any flat grid (a puzzle panned into view); while it is still, for a clear one
        passes = ALL if not self.tracks else FLAT if self._moving() else CLEAR
        untracked = self._untracked(small, scale)
        self._entering = False
        if find_grid(untracked, allow_cut=False, precise=False, passes=passes) is not None:
            grids = find_grids(small, most=self.page.most)
            self._edge_area = 0.0
        elif passes == CLEAR:
            self._entering = self._coming_in(untracked, scale)
        for grid in grids:
            if len(self.tracks) >= self.page.most:
                break
            corners = grid.corners / scale
            centre = corners.mean(axis=0)
            if any(_centre_on(at, centre) for at in self._boards()):
                continue
            track = Track(self._next_id, self._new_session(self._next_id))
            self._next_id += 1
            track.session.locator.prepare(frame, small)  # this frame's size is not news to the track
            track.session.locator.seed(corners, grid.scaled(1 / scale))
            self.tracks.append(track)
        return (time.perf_counter() - t) * 1e3

    def _coming_in(self, untracked: np.ndarray, scale: float) -> bool:
        """On a still view where no whole new grid was found: whether a grid refused only for touching the frame's
        edge (and no tracked board's) is a puzzle coming in, too slowly to make the view "moving": first seen, or
        grown since (``entering_grows``). It is looked for again soon (``find_entering``), not in half a second;
        these quicker passes run no photo-only view."""
        part = find_grid(untracked, allow_cut=True, precise=False, passes=CLEAR)
        area = 0.0
        if part is not None and not any(_centre_on(at, part.corners.mean(axis=0) / scale) for at in self._boards()):
            area = float(cv2.contourArea(part.corners))
        before, self._edge_area = self._edge_area, area
        return area > 0 and (before == 0 or area > (1 + self.page.entering_grows) * before)

    def _order(self) -> list[tuple[Track, bool]]:
        """The tracks in the order they step, and whether each follows the page's motion.

        While the view is steady, the puzzles of a page move as one sheet: one track (a different one each
        frame, so each one's own flow is looked at in turn) computes its optical flow, the others move by
        its frame-to-frame homography. A track found moving on its own is then seen moving, and every track
        computes its own flow again while any moves (as they do anyway while the page's view moves fast:
        each re-detects its board on every frame).
        """
        tracks = list(self.tracks)
        steady = len(tracks) >= 2 and all(
            tr.session.locator.tracker.active and tr.session.locator.speed <= self.page.follow_below for tr in tracks)
        if not steady:
            self._leader = None
            return [(tr, False) for tr in tracks]
        lead = tracks[self.frame_index % len(tracks)]
        self._leader = lead
        return [(lead, False)] + [(tr, True) for tr in tracks if tr is not lead]

    def _motion(self, small: np.ndarray) -> np.ndarray | None:
        """The leader's frame-to-frame motion on this frame, if it tracked its board on it."""
        lead = self._leader
        if lead is None or lead not in self.tracks:
            return None
        tracker = lead.session.locator.tracker
        if not tracker.active or tracker.prev is not small or tracker.motion is None:
            return None
        return tracker.motion

    def _stagger(self) -> None:
        """The tracks' periodic work spread out: with ``n`` tracks each re-detects its settled board and
        re-reads it ``n`` times less often (the page then costs about what one puzzle does; the per-frame ink
        check still stops a drawing at once), and no two do either on the same frame (a page whose puzzles
        locked together would otherwise read them all on one frame, every time)."""
        n = max(1, len(self.tracks))
        cfg = self._configs.setdefault(n, replace(self.cfg, recheck_every=self.cfg.recheck_every * n,
                                                  redetect_every=self.cfg.redetect_every * n))
        reads: set[int] = set()
        detections: set[int] = set()
        for tr in sorted(self.tracks, key=lambda t: t.id):
            session = tr.session
            session.cfg = cfg
            session.locator.redetect_every = cfg.redetect_every
            due = (-(session.frame_index + 1)) % cfg.redetect_every  # frames to its next re-detection
            later = _later(due, detections, n)
            session.frame_index -= later
            detections.add(due + later)
            if session.state is not Status.SOLVED:
                continue
            board = session.board
            due = cfg.recheck_every - board.since_read  # frames to its next re-read
            later = _later(due, reads, n)
            board.since_read -= later
            reads.add(due + later)

    def _untracked(self, small: np.ndarray, scale: float) -> np.ndarray:
        """The working grey with every tracked board (and a margin) filled with its paper's grey."""
        boards = self._boards()
        if not boards:
            return small
        out = small.copy()
        for at in boards:
            pts = at * scale
            centre = pts.mean(axis=0)
            poly = np.round(centre + (pts - centre) * 1.08).astype(np.int32)
            x, y, w, h = cv2.boundingRect(poly)
            patch = small[max(0, y):y + h, max(0, x):x + w]
            fill = int(np.median(patch[::4, ::4])) if patch.size else 255
            cv2.fillConvexPoly(out, poly, fill)
        return out

    def _dedupe(self) -> None:
        """Two tracks on one puzzle (one slipped onto its neighbour): the younger ends."""
        for young in sorted(self.tracks, key=lambda tr: -tr.id):
            at = _where(young)
            if at is None:
                continue
            centre = at.mean(axis=0)
            if any(old.id < young.id and (o := _where(old)) is not None and _centre_on(o, centre)
                   for old in self.tracks):
                self._end(young)

    def step(self, frame: np.ndarray | I420, still: bool = False, small: np.ndarray | None = None) -> FrameResult:
        """Advance every track one frame; never waits for the solver (except on a still, its own scene)."""
        t0 = time.perf_counter()
        self.frame_index += 1
        if still:
            return self._step_still(frame, t0)
        h, w = frame.shape[:2]
        scale = min(1.0, self.cfg.work_side / max(h, w))
        if small is None or small.shape[:2] != (round(h * scale), round(w * scale)):
            small = working_gray(frame, self.cfg.work_side)
        if frame.shape[:2] != self._shape:  # another camera or size: nothing tracked holds
            self._shape = frame.shape[:2]
            for tr in list(self.tracks):
                self._end(tr)
        self._scale = scale
        timings: dict[str, float] = {}
        if self._find_due():
            timings["page"] = self._find_new(frame, small, scale)
        if self._sized_due():
            timings["sized"] = self._find_sized(frame, small, scale)
        results: list[tuple[Track, FrameResult]] = []
        for tr, follow in self._order():
            if follow:
                motion = self._motion(small)
                tr.session.locator.follow = motion  # None: the leader lost its board, each tracks on its own
            res = tr.session.step(frame, small=small)
            if tr.session.state is Status.SEARCHING:  # its board was lost: the track ends
                self._end(tr)
                self._last_find = -(10**9)  # look for it (or what took its place) on the next frame
            else:
                results.append((tr, res))
        self._end_nines_on_sized()
        self._stagger()
        self._dedupe()
        kept = {tr.id for tr in self.tracks}
        results = [(tr, r) for tr, r in results if tr.id in kept and r.corners is not None]
        return self._page_result(results, timings, t0)

    def _sized_due(self) -> bool:
        """Grids of other sizes are looked for every ``find_every`` frames while a 9x9 puzzle in view is unsolved (or
        none is in view), three times less often once one such grid is tracked, ``slow`` times less often once
        every 9x9 puzzle in view is solved (a children's 6x6 panned in beside a solved 9x9 one is still found)."""
        self._since_sized += 1
        nines = [tr for tr in self.tracks if tr.session.sized is None]
        eager = not nines or not all(tr.session.state is Status.SOLVED for tr in nines)
        due = SIZED.find_every * (3 if len(nines) < len(self.tracks) else 1) * (1 if eager else SIZED.slow)
        return self._since_sized >= due

    def _find_sized(self, frame: np.ndarray | I420, small: np.ndarray, scale: float) -> float:
        """Start a track on every grid of another size in view that no such track follows (``sizes``'
        search, the photo reader's own); each is a table session of its own, read whole (``ar.sized_board``).
        The search's time in ms."""
        t = time.perf_counter()
        self._since_sized = 0
        sized = [at for tr in self.tracks if tr.session.sized is not None and (at := _where(tr)) is not None]
        for grid in find_sized_grids(small, most=self.page.most):
            if grid.side == 9 or len(sized) >= self.page.most:
                continue
            corners = grid.corners / scale
            if any(_centre_on(at, corners.mean(axis=0)) for at in sized):
                continue
            board = SizedBoard(grid, self.reader, self.cfg.solve_timeout)
            track = Track(self._next_id, self._new_session(self._next_id, board))
            self._next_id += 1
            locator = track.session.locator
            locator.prepare(frame, small)  # this frame's size is not news to the track
            locator.seed(corners)
            locator.restart(corners)  # followed by the flow from here: no detector finds it again
            self.tracks.append(track)
            sized.append(corners)
        return (time.perf_counter() - t) * 1e3

    def _end_nines_on_sized(self) -> None:
        """A 9x9 track on a grid of another size (it reads it as 9x9 and never solves) ends."""
        sized = [at for tr in self.tracks if tr.session.sized is not None and (at := _where(tr)) is not None]
        for tr in [t for t in self.tracks if t.session.sized is None]:
            if (at := _where(tr)) is not None and any(_centre_on(s, at.mean(axis=0)) for s in sized):
                self._end(tr)

    def _boards(self) -> list[np.ndarray]:
        """Every tracked board's corners on the last frame (full-size pixels), of any size."""
        return [at for tr in self.tracks if (at := _where(tr)) is not None]

    def _page_result(self, results: list[tuple[Track, FrameResult]], timings: dict[str, float],
                     t0: float) -> FrameResult:
        if results:
            quads = [GridQuad(np.asarray(r.corners), 0.0) for _, r in results]
            at = {id(q): pair for q, pair in zip(quads, results)}
            results = [at[id(q)] for q in reading_order(quads)]
        puzzles = tuple(replace(r, frame=self.frame_index, puzzle=tr.id) for tr, r in results)
        for p in puzzles:
            for k, v in p.timings.items():
                timings[k] = timings.get(k, 0.0) + v
        first = puzzles[0] if puzzles else FrameResult(frame=self.frame_index, status=Status.SEARCHING,
                                                       corners=None, givens=None, solution=None, t_ms=0.0)
        t_ms = (time.perf_counter() - t0) * 1e3
        return replace(first, t_ms=t_ms, timings=timings, puzzles=puzzles)

    def _step_still(self, frame: np.ndarray | I420, t0: float) -> FrameResult:
        """A photo of a folder is its own scene, every puzzle on it read as ``ar-sudoku image`` reads it
        (``process_images``), each taken by a session of its own; corrections go to the first puzzle, as
        ``image --set``."""
        for tr in list(self.tracks):
            self._end(tr)
        self._shape = None
        first = self._still_session(0)
        results, _ = process_images(as_bgr(frame), self.reader, self.cfg.solve_timeout, {None: dict(first.overrides)},
                                    self.kinds)
        puzzles = []
        for k, res in enumerate(results):
            if res.size != 9:
                puzzles.append(FrameResult(frame=self.frame_index, status=res.status, corners=res.corners,
                                           givens=res.givens, t_ms=0.0, box=res.box, symbols=res.symbols, puzzle=k,
                                           solution=res.solution if self.mode == "answer" else None,
                                           marks=None if self.mode == "answer" else Marks(text=SIZED_MODES)))
                continue
            one = self._still_session(k).take_still(res, t0)
            puzzles.append(replace(one, frame=self.frame_index, puzzle=k))
        in_view = tuple(p for p in puzzles if p.corners is not None)
        first_result = puzzles[0] if puzzles else FrameResult(frame=self.frame_index, status=Status.NO_GRID,
                                                              corners=None, givens=None, solution=None, t_ms=0.0)
        t_ms = (time.perf_counter() - t0) * 1e3
        return replace(first_result, t_ms=t_ms, timings={"read": t_ms}, puzzles=in_view)

    def _still_session(self, k: int) -> ARSession:
        """The session that takes puzzle ``k`` of each still (made when a photo first holds that many)."""
        while len(self._stills) <= k:
            session = ARSession(self.reader, self.worker, self.cfg, self.overlay, self.mode, self.kinds)
            session.cache = self.cache
            self._stills.append(session)
        return self._stills[k]

    def draw(self, frame: np.ndarray, result: FrameResult) -> np.ndarray:
        """Every puzzle's overlay on ``frame`` (in place)."""
        for p in result.puzzles:
            if p.size != 9:
                draw_answers(frame, p)
            elif p.marks is not None and p.corners is not None:
                self.overlay.draw_marks(frame, p.corners, p.marks, lattice=p.lattice)
        return frame

    def close(self) -> None:
        for tr in list(self.tracks):
            self._end(tr)
        for session in self._stills:
            session.close()
        if self._own_worker:
            self.worker.close()

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
