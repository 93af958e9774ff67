"""The board locator: where the board is on each frame (find, track, steady check).

Detection and tracking run on a frame scaled to ``work_side`` (long side), so a
4K camera costs about what 720p does; the corners it hands back are in
full-frame pixels, for the cells to be cut from the full-resolution frame.
The locator knows nothing of the puzzle: the session tells it whether the
board is settled (solved), and it reports whether tracking slipped.

A locator that follows one puzzle of a page (``near_only``, ``ar.page``) detects only around where its
board is, so the largest grid in view, another puzzle, never takes the tracked one's place; it is
started from where the page found the grid (``seed``) and, once it has lost the board, finds nothing. While the
board's reading has no solution it also searches wider now and then (``WIDE``), for a grid that holds the board
or lies inside it: a track started on a part of the grid as a page slid in would otherwise keep the part.

A puzzle pasted on a page as a photo has the photo's edge close around its grid, and the search around the board
finds that edge first. On the frame the page found the grid, the page's fit is kept when the detection finds an
outline around it; while the board is read, an
edge found around the tracked grid is looked inside of, in a window too close to hold the edge (``TIGHT``; once
solved, the flow holds the board closer than a detection in such a window); and a board whose outline is
such an edge and reads no solution is looked inside of with the edge painted over (``page_grids.inside_frame``).
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.vision.cells import edges_evenness, grid_edges, quick_ink, square
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.lattice import refine, rotate
from ar_sudoku.vision.look import cells_in_view
from ar_sudoku.vision.page_grids import PAGE_GRIDS, inside_frame
from ar_sudoku.vision.quads import QUADS, WORK_SIZE, GridQuad, cut_by_frame, to_gray, working_gray
from ar_sudoku.vision.tracker import GridTracker
from ar_sudoku.vision.yuv import I420, as_bgr


@dataclass(frozen=True)
class Located:
    """Where the board is on this frame, in full-frame pixels."""

    corners: np.ndarray | None
    detected: bool  # found by the detector on this frame (exact), not only tracked
    slipped: bool = False  # detected far from where it was tracked: tracking slipped, or another grid
    held: bool = False  # neither tracked nor detected (or only smeared, ``MADE_UP``): where the settled board last
    # was (``COAST``)
    streaked: bool = False  # held on a frame where its grid is streaked (a shaking hand's motion blur)
    # a settled board's detection far (``MADE_UP``) from where the flow had it: the flow's corners and lattice
    # (the session may take them back, ``undo_slip``: a curled page's re-detection can land a column off)
    tracked: np.ndarray | None = None
    tracked_lattice: np.ndarray | None = None


NEAR = 0.3  # of the board's side: the margin around it that a near-only locator searches
# ... and, every ``WIDE_EVERY`` frames while its reading has no solution, for a grid it is a part of (a page slid
# in: the track started on the box lines of two of the three columns of boxes), or one inside it (a page's edge)
WIDE = 1.0
WIDE_EVERY = 3
MIN_SCORE = 0.25  # structure score a grid found inside the board's outline needs (``find_grid``'s own floor)
FRAMED_GAIN = 0.05  # ... and its gain over the fit the board was taken from (``page_grids``' clearer-inside margin)
TIGHT = 0.05  # of the board's side: the margin searched again when an edge was found around the board
SLIP = 0.08  # of the diagonal: a board detected farther than this from where it was tracked has slipped
NEAR_SIDE = 320  # px: the board's size in the picture a near-only locator searches, when it is larger
RESIZED = 1.1  # a slipped board whose size (``size``) changed by more than this factor is another outline, not a move
BLUR = 0.93  # evenness below this share of the board's usual: the frame is streaked, not read
FADED = 0.25  # a cell's paper lifted this far from the page's towards white: a glare fades its print
SPOT_CELLS = 30  # more cells lifted than this (over a third of the grid): the light on the page, not a spot
SOFT = 0.75  # the grid's edges fainter than this share of the board's usual: blurred (by a streak any way)
HALF_CELL = ((0.5, 0.0), (-0.5, 0.0), (0.0, 0.5), (0.0, -0.5))  # cells: half a cell off each way
MADE_UP = 0.03  # of the diagonal (0.4 cell): a settled board detected this far from where it was, on a streaked frame
SLOW = 0.03  # of the board's side a frame: moving slower, a tracked board's corners are exact enough to read by
SNAP = 0.3  # of a cell: how far a drifted board's lines are looked for about where it is tracked (``snapped``)
SNAP_LINES = 30  # crossings of the 100 that must lie on one plane for the board's lines to be found there
COAST = 12  # frames the board is held where it last was while a shaking hand's streak hides its crossings


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


def _nested(found: np.ndarray, tracked: np.ndarray) -> bool:
    """One quad holds the other (``_surrounds``): the grid a tracked part of it belongs to, or the grid inside a
    tracked page's edge."""
    return _surrounds(found, tracked) or _surrounds(tracked, found)


def size(corners: np.ndarray) -> float:
    """The grid's size whichever way it is tilted: the square root of its area."""
    return float(np.sqrt(abs(cv2.contourArea(np.asarray(corners, np.float32).reshape(-1, 1, 2)))))


def _same_size(a: np.ndarray, b: np.ndarray) -> bool:
    """Two outlines of one size (within ``RESIZED``): the board moved, not another outline taken."""
    return 1 / RESIZED < size(a) / size(b) < RESIZED


def side(corners: np.ndarray) -> float:
    """The grid's diagonal, TL to BR: the scale motion is measured against."""
    return float(np.linalg.norm(corners[0] - corners[2]))


class BoardLocator:
    """Holds the frame (full size and at working size), the tracker, and the board's last corners."""

    def __init__(self, work_side: int = 1280, redetect_every: int = 10, near_only: bool = False):
        self.work_side = work_side
        self.near_only = near_only  # detect only around the board (one puzzle of a page), never anywhere
        self.detects = True  # False: followed by the flow alone (a grid of another side: the detector finds 9x9)
        # this frame's motion (working-size homography) found by another board's tracker on the same page: the
        # board follows it instead of computing its own flow (``ar.page``); used once, then None
        self.follow: np.ndarray | None = None
        self.redetect_every = redetect_every  # frames between re-detections of a settled, tracked board
        self.tracker = GridTracker()
        self.last_corners: np.ndarray | None = None
        self.fit_score = 1.0  # the structure score of the fit the board was last taken from
        self.seeded: GridQuad | None = None  # the page's fit of a board just seeded, for its first frame
        self.speed = 0.0  # corner motion on the last frame, as a fraction of the grid's diagonal
        self.velocity: np.ndarray | None = None  # ... and the board's shift on it (full-size pixels)
        self.lattice: np.ndarray | None = None  # a curled board's crossings (full-size pixels), else None
        self.frame: np.ndarray | I420 = np.zeros((1, 1), np.uint8)
        self.small = np.zeros((1, 1), np.uint8)  # the frame's grey at working size
        self.scale = 1.0  # working size / full size
        self._shape: tuple[int, ...] | None = None
        self._gray: np.ndarray | None = None  # its grey at full size, made when a reading needs it
        self.evenness: deque[float] = deque(maxlen=30)  # the board's last frames' ``cells.evenness``
        self.edges: deque[float] = deque(maxlen=30)  # ... and their edges' strength (``_edge_level``)
        self.held = 0  # frames in a row the board has been held (``COAST``), not tracked or detected
        # the board's outline changed size (``RESIZED``): its frames are not judged sharp until they alone can judge
        self.relearning = False
        # this frame's squared-up grid and its edges, by where the board is: the blur, streak, ink and glare
        # looks of one frame share them (each of those looks runs on every frame)
        self._squares: dict[bytes, np.ndarray] = {}
        self._edges: dict[bytes, tuple[np.float32, np.float32]] = {}

    # ------------------------------------------------------------------ the frame

    def prepare(self, frame: np.ndarray | I420, small: np.ndarray | None) -> bool:
        """Grey at working size now (or the one made ahead), at full size only if a reading needs it.
        True when the frame size changed: everything known about the board is void."""
        resized = frame.shape[:2] != self._shape
        if resized:
            self._shape = frame.shape[:2]
            self.tracker.reset()
            self.evenness.clear()
            self.edges.clear()
            self.last_corners = None
            self.lattice = None
            self.fit_score, self.seeded = 1.0, None
        h, w = frame.shape[:2]
        self.scale = min(1.0, self.work_side / max(h, w))
        self.frame = frame
        self._gray = None
        self._squares.clear()
        self._edges.clear()
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

    def seed(self, corners: np.ndarray, grid: GridQuad | None = None) -> None:
        """Where the board was found (full-size pixels): a near-only locator detects around it next. ``grid``,
        the page's whole fit of it on this frame (full-size pixels), is taken over an outline the detection
        around it finds holding it: a pasted photo's edge, which the page's search looked inside of."""
        self.last_corners = np.asarray(corners, np.float32).reshape(4, 2)
        self.seeded = grid

    def _detect(self, near: np.ndarray | None, precise: bool = False, agreeing: bool = False,
                margin: float = NEAR) -> GridQuad | None:
        """The grid on the working frame (working-size pixels): anywhere, or only around ``near`` (``margin`` of
        its size about it); ``precise``, its corners where its lines cross (``find_grid``), not the outline's:
        an outline's corner can sit a quarter cell off the grid (a fold, a border missing at a corner);
        ``agreeing``, only where that fit agrees with the outline but for one corner."""
        if not self.detects:
            return None
        if not self.near_only:
            return find_grid(self.small, allow_cut=False, precise=precise, agreeing=agreeing)
        if near is None:
            return None
        k = self.scale
        pts = near * k
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        m = margin * float((hi - lo).max())
        h, w = self.small.shape[:2]
        x0, y0 = max(0, int(lo[0] - m)), max(0, int(lo[1] - m))
        x1, y1 = min(w, int(hi[0] + m) + 1), min(h, int(hi[1] + m) + 1)
        if x1 - x0 < 27 or y1 - y0 < 27:
            return None
        # searched with the grid at about the size a search of the whole frame sees a close one (the same
        # thresholds over about as many pixels a cell): never more magnified than the working frame, nor
        # shrunk more than that search shrinks it (a small grid of a page seen whole keeps its pixels)
        crop = self.small[y0:y1, x0:x1]
        s = min(1.0, max(WORK_SIZE / max(h, w), NEAR_SIDE / max(1.0, float((hi - lo).max()))))
        if s < 1.0:
            crop = cv2.resize(crop, (max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))),
                              interpolation=cv2.INTER_AREA)
        quad = find_grid(crop, allow_cut=False, precise=precise, agreeing=agreeing)
        if quad is None:
            return None
        if s < 1.0:
            # divided, not ``scaled(1 / s)``: a float32 ulp of difference moves a lock by a frame on some videos
            quad = replace(quad, corners=quad.corners / s, lattice=None if quad.lattice is None else quad.lattice / s)
        # a grid cut by the picture's own edge is refused by find_grid; one cut only by the search window's
        # edge (another puzzle poking in) is refused here
        shift = np.array([x0, y0], np.float32)
        corners = quad.corners + shift
        left, top = (x0 if x0 > 0 else -9), (y0 if y0 > 0 else -9)
        right, bottom = (x1 if x1 < w else w + 9), (y1 if y1 < h else h + 9)
        if (corners[:, 0] <= left + 2).any() or (corners[:, 1] <= top + 2).any() \
                or (corners[:, 0] >= right - 3).any() or (corners[:, 1] >= bottom - 3).any():
            return None
        return replace(quad, corners=corners, lattice=None if quad.lattice is None else quad.lattice + shift)

    def lose(self) -> None:
        self.tracker.reset()
        self.evenness.clear()
        self.edges.clear()
        self.held = 0
        self.relearning = False
        self.fit_score, self.seeded = 1.0, None

    def locate(self, frame_index: int, settled: bool, doubtful: bool = False, precise: bool = False,
               agreeing: bool = False) -> Located:
        """Track the board, and detect it on every frame until it is settled (the reading needs exact
        corners) or while it moves fast; once settled, now and then, to correct drift.

        ``doubtful``: the board's reading has no solution. A grid detected around the tracked one is then taken
        (the track may have started on a part of the grid, its box lines, as a page slid in), not refused as the
        page's edge around it; a near-only locator looks for it (or a grid inside the board) in a wider window
        every ``WIDE_EVERY`` frames, and inside its own outline when that hardly looked like a grid (``_framed``).
        An edge found around a board being read is looked inside of (``_inside_edge``); on a board's first frame an
        outline around the page's fit of it leaves the page's fit (``seed``). A settled board the flow
        lost on a streaked frame is held where it was rather than moved more than ``MADE_UP`` by a detection there.
        ``precise``: detect with the corners fitted to the lines' crossings (``agreeing``: only where that fit
        agrees with the outline but for one corner, ``find_grid``)."""
        prev = self.last_corners
        held, self.held = self.held, 0  # frames the board was held before this one; a found board ends a hold
        tracked = self._flow()
        # fast motion (now or on the last frame) makes a periodic grid easy to mis-track by a cell
        moving = self.speed > 0.01 or (tracked is not None and prev is not None and float(
            np.abs(tracked - prev).max()) > 0.01 * side(tracked))
        if tracked is not None and settled and not moving and frame_index % self.redetect_every:
            return Located(tracked, False)
        quad = self._search(tracked, prev, frame_index, doubtful, precise, agreeing)
        seeded, self.seeded = self.seeded, None
        if seeded is not None and tracked is None and quad is not None and prev is not None \
                and _surrounds(quad.corners / self.scale, prev):
            quad = seeded.scaled(self.scale)  # the frame the page found it on: an edge around it is not the grid
        if quad is None:
            return self._hold(prev, held) if tracked is None and settled else Located(tracked, False)
        found = quad.corners / self.scale
        if tracked is None and settled and self._not_restarted(found, prev):
            return self._hold(prev, held)
        edge = not doubtful and _surrounds(found, tracked) if tracked is not None else False
        if edge and tracked is not None and not settled:  # once solved the flow holds it closer than such a window
            inner = self._inside_edge(tracked, precise, agreeing)
            if inner is not None:
                quad, found, edge = inner, inner.corners / self.scale, False
        if tracked is not None and (edge or self.streaked_at(tracked) and float(
                np.abs(found - tracked).max()) > SLIP * side(tracked)):
            return Located(tracked, False)  # the page's edge around the grid, or a quad a streaked frame made up
        lattice = self.lattice
        loc = self._take(quad, tracked, prev)
        assert loc.corners is not None
        if settled and tracked is not None and float(np.abs(loc.corners - tracked).max()) > MADE_UP * side(tracked):
            loc = replace(loc, tracked=tracked, tracked_lattice=lattice)
        return loc

    def _not_restarted(self, found: np.ndarray, prev: np.ndarray | None) -> bool:
        """Whether a settled board the flow lost is held as when nothing is found rather than restarted from the
        detection ``found``: one with a corner beyond the picture while the board moves fast (a grid sliding out,
        its last column cut, is fitted narrower than it is), or one more than ``MADE_UP`` from where a streak
        smeared the board (a detection there is smeared)."""
        h, w = self.frame.shape[:2]
        if self.speed > SLOW and ((found < 0).any() or (found[:, 0] > w).any() or (found[:, 1] > h).any()):
            return True
        return prev is not None and self.streaked_at(prev) and float(
            np.abs(found - prev).max()) > MADE_UP * side(prev)

    def _flow(self) -> np.ndarray | None:
        """The board tracked by the optical flow onto this frame (full-size pixels), or by the page's motion
        (``follow``); None when the tracker is not running or lost it."""
        follow, self.follow = self.follow, None
        if not self.tracker.active:
            return None
        tracked = self.tracker.follow(self.small, follow) if follow is not None else self.tracker.track(self.small)
        if tracked is None:
            return None
        if self.tracker.lattice is not None:
            self.lattice = self.tracker.lattice / self.scale
        return tracked / self.scale

    def _search(self, tracked: np.ndarray | None, prev: np.ndarray | None, frame_index: int, doubtful: bool,
                precise: bool, agreeing: bool) -> GridQuad | None:
        """The grid detected where the board is; while its reading has no solution, now and then, a grid that
        holds the tracked one or lies inside it, looked for wider (``WIDE``), and, when the board was taken
        from a fit that hardly looks like a grid, the grid its outline frames (``inside_frame``)."""
        if doubtful and self.near_only and tracked is not None and frame_index % WIDE_EVERY == 0:
            quad = self._detect(tracked, precise, agreeing, margin=WIDE)
            if quad is not None and _nested(quad.corners / self.scale, tracked):
                return quad
            if self.fit_score < PAGE_GRIDS.framed_score:
                # hardly a grid where it was taken: perhaps a pasted photo's edge, the puzzle's lines fitted inside
                framed = self._framed(tracked)
                if framed is not None:
                    return framed
            # else another puzzle of the page, or this one again: the usual search decides
        return self._detect(tracked if tracked is not None else prev, precise, agreeing)

    def _framed(self, tracked: np.ndarray) -> GridQuad | None:
        """The grid the board's outline frames (``inside_frame``: the outline painted over), taken as the page's
        search takes one: whole in the picture, clearer than the fit the board was taken from, and of the size a
        grid inside a photo's edge has (``PAGE_GRIDS.framed`` of the outline's area), not a box of it."""
        framed = inside_frame(self.small, GridQuad(tracked * self.scale, 0.0), MIN_SCORE)
        if framed is None or cut_by_frame(framed.corners, self.small.shape) \
                or framed.score < self.fit_score + FRAMED_GAIN:
            return None
        share = size(framed.corners / self.scale) ** 2 / max(size(tracked) ** 2, 1e-6)
        low, high = PAGE_GRIDS.framed
        return framed if low <= share <= high and _surrounds(tracked, framed.corners / self.scale) else None

    def _inside_edge(self, tracked: np.ndarray, precise: bool, agreeing: bool) -> GridQuad | None:
        """The grid inside an edge found around the tracked board (a pasted photo's, a page's): looked for again
        in a window so close about the board (``TIGHT``) that the edge is cut by it; taken only where the
        board is (within ``SLIP`` of it), not as a part of it. Only a near-only locator searches a window."""
        if not self.near_only:
            return None
        quad = self._detect(tracked, precise, agreeing, margin=TIGHT)
        if quad is None:
            return None
        found = quad.corners / self.scale
        if float(np.abs(found - tracked).max()) > SLIP * side(tracked) or not _same_size(found, tracked):
            return None
        return quad

    def _take(self, quad: GridQuad, tracked: np.ndarray | None, prev: np.ndarray | None) -> Located:
        """The detected grid becomes the board: turned to the tracked corners' order, tracked from here on."""
        k = self.scale
        ref = tracked if tracked is not None else prev
        turn = 0 if ref is None else _turn(quad.corners / k, ref)
        det = np.roll(quad.corners / k, -turn, axis=0)
        self.lattice = rotate(quad.lattice / k, turn) if quad.bent and quad.lattice is not None else None
        self.fit_score = quad.score
        if tracked is not None:
            motion = self.tracker.motion
        elif prev is not None:
            motion = cv2.getPerspectiveTransform((prev * k).astype(np.float32), (det * k).astype(np.float32))
        else:
            motion = None
        self.restart(det, motion)
        return Located(det, True, ref is not None and self._slipped(det, ref))

    def _slipped(self, det: np.ndarray, ref: np.ndarray) -> bool:
        """Whether the board detected at ``det`` is far from where it was (``ref``). A slip to an outline of
        another size (``RESIZED``) is another outline, not the board moved: a part of a grid sliding into view,
        now seen whole. The usual blur measured on that part is no measure of this grid (a part of a grid is
        more even than the whole: held-out room video seed 7's third page stood 23 sharp frames "streaked" once
        in full view); its own frames are, once there are enough of them to judge by (``blurred``)."""
        if float(np.abs(det - ref).max()) <= SLIP * side(det):
            return False
        if not _same_size(det, ref):
            self.evenness.clear()
            self.edges.clear()
            self.relearning = True
        return True

    def _hold(self, prev: np.ndarray | None, held: int) -> Located:
        """A settled board neither tracked nor detected: it is where it last was, for at most ``COAST`` frames in
        a row (a shaking hand's burst: the crossings' flow and the detector fail on a streaked grid, and on the
        first sharp frame or two after it); they find it again once the burst is over. The session draws a held
        board only while its givens' ink is there (a bare table, a page gone, another puzzle: lost at once),
        and never reads it; ``streaked`` tells it the grid is blurred there (its print smeared)."""
        if prev is None or held >= COAST:
            return Located(None, False)
        self.held = held + 1
        return Located(prev, False, held=True, streaked=self.streaked_at(prev))

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
        return float(np.abs(corners - self.last_corners).max()) < SLOW * side(corners)

    def rereadable(self, corners: np.ndarray) -> bool:
        """A settled board may be read again here: moving slower than ``SLOW`` and not streaked. Its print read
        on a fast pan or smeared by a streak reads as another puzzle's, and its answer would be taken away."""
        return self.speed <= SLOW and not self.streaked_at(corners)

    def blurred(self, corners: np.ndarray) -> bool:
        """The grid's edges less even across and down than on the board's recent frames: a motion streak. While
        a resized board is ``relearning`` (too few of its own frames to judge by), every frame counts as blurred:
        a hand still shaking after a fast move must not be read unjudged."""
        now = self._evenness(corners)
        usual = statistics.median(self.evenness) if len(self.evenness) >= 5 else None
        self.evenness.append(now)
        self.edges.append(self._edge_level(corners))
        if usual is None:
            return self.relearning
        self.relearning = False
        return now < BLUR * usual

    def streaked_at(self, corners: np.ndarray) -> bool:
        """``blurred``, without counting the frame in the board's usual evenness; or the grid's edges much
        fainter than usual all ways (a streak along the diagonal blurs across and down alike)."""
        if len(self.evenness) < 5 or len(self.edges) < 5:
            return False
        return (self._evenness(corners) < BLUR * statistics.median(self.evenness)
                or self._edge_level(corners) < SOFT * statistics.median(self.edges))

    def _edge_level(self, corners: np.ndarray) -> float:
        """How strong the squared-up grid's edges are: the mean gradient, across and down."""
        ex, ey = self._grid_edges(corners)
        return float(ex + ey)

    def _key(self, corners: np.ndarray) -> bytes:
        """Where the board is on this frame, as the per-frame looks' key (its lattice too, when curled)."""
        at = np.ascontiguousarray(corners)
        key = at.dtype.str.encode() + at.tobytes()
        return key if self.lattice is None else key + self.lattice.dtype.str.encode() + self.lattice.tobytes()

    def _square(self, corners: np.ndarray, cell: int = 12, centred: bool = False) -> np.ndarray:
        """The grid squared up small from the working frame (float), ``cell`` pixels a cell; made once a frame
        for where the board is, whichever look asks first."""
        key = self._key(corners) + bytes([cell, centred])
        got = self._squares.get(key)
        if got is None:
            k = self.scale
            got = self._squares[key] = square(self.small, corners * k, cell,
                                              None if self.lattice is None else self.lattice * k, centred)
            got.flags.writeable = False  # shared by the frame's looks
        return got

    def _grid_edges(self, corners: np.ndarray) -> tuple[np.float32, np.float32]:
        key = self._key(corners)
        got = self._edges.get(key)
        if got is None:
            got = self._edges[key] = grid_edges(self._square(corners))
        return got

    def _evenness(self, corners: np.ndarray) -> float:
        """``cells.evenness`` of the board on this frame."""
        return edges_evenness(self._grid_edges(corners))

    def moved_to(self, corners: np.ndarray | None) -> None:
        """The frame's corners become the last ones; the motion since the last frame is kept as ``speed``."""
        prev = self.last_corners
        self.speed = 0.0 if corners is None or prev is None else float(np.abs(corners - prev).max()) / side(corners)
        self.velocity = None if corners is None or prev is None else (corners - prev).mean(axis=0)
        self.last_corners = corners

    def inked(self, corners: np.ndarray, expect: np.ndarray | None = None,
              seen: np.ndarray | None = None) -> np.ndarray:
        """Every frame, cheaply: which of the 81 cells hold ink (a bool per cell); ``expect``, the cells
        that should (``quick_ink``: their print sets the scale when it is paler than the pen); ``seen``, the
        cells in view (only they set the scale)."""
        return quick_ink(self.small, corners * self.scale, expect=expect, squared=self._square(corners),
                         seen=seen) > 0.5

    def seen(self, corners: np.ndarray) -> np.ndarray:
        """Which of the 81 cells are in the picture (a page partly out of view shows some)."""
        h, w = self.frame.shape[:2]
        return cells_in_view(corners, self.lattice, (w, h))

    def squared(self, corners: np.ndarray, cell: int = 12) -> np.ndarray:
        """The grid squared up small at these corners on this frame, pixel centres placed symmetrically (as
        ``vision.look`` compares a page with itself turned; ``cells.square``, ``cell`` px a cell; made once)."""
        return self._square(corners, cell, centred=True)

    def half_cell_off(self, corners: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """The grid squared up where the board is, and half a cell off each way (:meth:`squared_moved`), with the
        cells in view: a held page that went on looks likelier off than where it is held (``witness.moved_off``)."""
        around = [self.squared_moved(corners, dx, dy) for dx, dy in HALF_CELL]
        return self.squared(corners), around, self.seen(corners)

    def squared_moved(self, corners: np.ndarray, dx: float, dy: float) -> np.ndarray:
        """The grid squared up as :meth:`squared` makes it, with the board ``dx``, ``dy`` cells further along its own
        rows and columns (a curled page's crossings moved as its corners' plane moves them)."""
        flat = np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)
        to_image = cv2.getPerspectiveTransform(flat, np.asarray(corners, np.float32))
        to_flat = np.linalg.inv(to_image)

        def moved(points: np.ndarray) -> np.ndarray:
            pts = np.asarray(points, np.float32).reshape(-1, 1, 2)
            on_flat = cv2.perspectiveTransform(pts, to_flat) + np.array([dx, dy], np.float32)
            return cv2.perspectiveTransform(on_flat, to_image).reshape(np.shape(points)).astype(np.float32)

        k = self.scale
        lattice = None if self.lattice is None else moved(self.lattice) * k
        return square(self.small, moved(corners) * k, 12, lattice, centred=True)

    def snapped(self, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray | None] | None:
        """The board moved back onto the grid's lines about where it is tracked (a curled board's lattice with it):
        each crossing looked for within ``SNAP`` of a cell, and the board moved by the one plane's motion that
        ``SNAP_LINES`` of them agree on. The flow lets a small, faint board drift most of a cell at one side, where
        the detector may not find it again. None where too few lines agree."""
        k = self.scale
        lattice = self.lattice
        guess = lattice * k if lattice is not None else GridQuad(np.asarray(corners, np.float32) * k, 0.0).crossings()
        found, contrast = refine(self.small, guess, cell=QUADS.probe, reach=SNAP, rounds=1)
        if contrast <= 0:
            return None
        motion, inliers = cv2.findHomography(guess.reshape(-1, 2), found.reshape(-1, 2), cv2.RANSAC, 1.5)
        if motion is None or int(inliers.sum()) < SNAP_LINES:
            return None

        def moved(points: np.ndarray) -> np.ndarray:
            pts = (np.asarray(points, np.float32) * k).reshape(-1, 1, 2)
            return (cv2.perspectiveTransform(pts, motion) / k).reshape(np.shape(points)).astype(np.float32)

        return moved(corners), None if lattice is None else moved(lattice)

    def undo_slip(self, loc: Located) -> Located:
        """The board where the flow had it before a detection moved it (``Located.tracked``), tracked from there."""
        assert loc.tracked is not None
        self.lattice = loc.tracked_lattice
        self.relocate(loc.tracked)
        return Located(loc.tracked, False)

    def relocate(self, corners: np.ndarray) -> None:
        """The board is at ``corners`` (found by its look, not by the flow or the detector): tracked from there,
        moving as it moved from the last frame to here."""
        prev = self.last_corners
        motion = None
        if prev is not None:
            k = self.scale
            motion = cv2.getPerspectiveTransform((prev * k).astype(np.float32), (corners * k).astype(np.float32))
        self.held = 0
        self.restart(corners, motion)

    def turn(self, corners: np.ndarray, k: int) -> np.ndarray:
        """The board in view is its page turned: its corners (and a curled page's lattice) rolled by ``k``
        quarter turns into the puzzle's order, and tracked so from here."""
        rolled = np.roll(np.asarray(corners, np.float32), -k, axis=0)
        if self.lattice is not None:
            self.lattice = rotate(self.lattice, k)
        self.restart(rolled, self.tracker.motion)
        return rolled

    def glared(self, corners: np.ndarray) -> np.ndarray:
        """Every frame, cheaply: which of the 81 cells a glare spot lifts towards white (a bool per cell), where
        print may fade out of ``inked``'s sight. Lifted against the page's typical paper (the cells' median),
        and a spot only: with more than ``SPOT_CELLS`` lifted it is the page's light, and none count."""
        paper = np.median(self._square(corners).reshape(9, 12, 9, 12), axis=(1, 3)).reshape(81)
        typical = float(np.median(paper))
        lifted = (paper - typical) / max(255.0 - typical, 1.0) >= FADED
        return lifted if int(lifted.sum()) <= SPOT_CELLS else np.zeros(81, bool)
