"""Follow the grid from frame to frame with pyramidal Lucas-Kanade optical flow.

The tracked points are the grid's 100 line crossings (strong, well-spread
corners), each with a known place in the flat grid. A forward-backward check
drops points that slipped; a RANSAC homography from the survivors gives the
new corners, and all 100 points are re-seeded from it, so points lost to a
hand or glare come back and the set never thins out. Re-detection (in the
session) corrects slow drift.

A curled page is tracked as its lattice: each crossing keeps its own place.
A crossing that slipped follows the frame-to-frame homography of the others,
and every crossing moves by that homography plus half of what its own flow
adds to it, which holds a still page steady (the noise halves each frame)
while the page's bending is followed within a few frames.
"""

from __future__ import annotations

import cv2
import numpy as np

SIDE = 9.0  # flat grid coordinates: one unit per cell
FLAT_CORNERS = np.array([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float32)
FLAT_POINTS = np.array([[x, y] for y in range(10) for x in range(10)], np.float32)
RETRY = 0.8  # of the crossings predicted to stay in the picture: fewer passing the flow's check, the flow is tried
# again from the board's matched shift (``_shift``)
SHIFT_MATCH = 0.5  # the normalised correlation the board's picture needs where it is matched (``_shift``)
SHIFT_MARGIN = 0.1  # ... and how much better than where the motion so far puts the board
SHIFT_PAD = 96  # px: how far beyond the picture's edge a board leaving it may be matched
LK = {
    "winSize": (21, 21),
    "maxLevel": 3,
    # a step under 0.1 px ends a point's search: 0.03 px made it slower and moved no figure
    # (sample: corners median 4.42 px, max 5.33 px; bent video: 147/150 right, crossings median
    # 0.52 px, p95 5.15 px; both the same with either), since the corners are fitted to 100 points
    "criteria": (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.1),
}


def _around(points: np.ndarray, w: int, h: int) -> tuple[int, int, int, int]:
    """A box around ``points`` with room for LK's coarsest window (21 px at level 3: 168 px), inside the frame."""
    lo, hi = points.min(axis=0), points.max(axis=0)
    margin = 96 + 0.1 * float((hi - lo).max())
    x0, y0 = (max(0, int(v - margin)) for v in lo)
    x1, y1 = int(min(w, hi[0] + margin + 1)), int(min(h, hi[1] + margin + 1))
    return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)


class GridTracker:
    """Holds the previous frame and the points; ``track`` returns new corners or None when lost."""

    def __init__(self, min_points: int = 16, fb_error: float = 1.5):
        self.min_points = min_points
        self.fb_error = fb_error
        self.prev: np.ndarray | None = None
        self.corners: np.ndarray | None = None
        self.lattice: np.ndarray | None = None  # (10, 10, 2) crossings of a curled page, else None
        self.motion: np.ndarray | None = None  # last frame-to-frame homography, for prediction

    @property
    def active(self) -> bool:
        return self.corners is not None

    def start(self, gray: np.ndarray, corners: np.ndarray, motion: np.ndarray | None = None,
              lattice: np.ndarray | None = None) -> None:
        """(Re)start from known corners (or a curled page's lattice); ``motion`` is the last frame-to-frame
        homography, if known."""
        self.motion = motion
        self.prev = gray
        self.corners = np.asarray(corners, np.float32).reshape(4, 2)
        self.lattice = None if lattice is None else np.asarray(lattice, np.float32).reshape(10, 10, 2)

    def reset(self) -> None:
        self.prev = None
        self.corners = None
        self.lattice = None
        self.motion = None

    def _points(self) -> np.ndarray:
        assert self.corners is not None
        if self.lattice is not None:
            return self.lattice.reshape(-1, 1, 2).copy()
        hmat = cv2.getPerspectiveTransform(FLAT_CORNERS, self.corners)
        return cv2.perspectiveTransform(FLAT_POINTS.reshape(-1, 1, 2), hmat)

    def track(self, gray: np.ndarray) -> np.ndarray | None:
        if self.prev is None or self.corners is None:
            return None
        p0 = self._points()
        h, w = gray.shape[:2]
        inside = _in_picture(p0, w, h)
        # start the search where constant motion would put each point: a grid is periodic,
        # and a search from zero motion snaps to the neighbouring crossing when the page moves fast
        guess = p0.copy() if self.motion is None else cv2.perspectiveTransform(p0, self.motion)
        # the flow is computed on the board's neighbourhood only: its pyramids cost what the board's size
        # does, not the frame's (LK's own pyramids and gradients are most of its time)
        x0, y0, x1, y1 = _around(np.concatenate([p0, guess]).reshape(-1, 2), w, h)
        prev, cur = self.prev[y0:y1, x0:x1], gray[y0:y1, x0:x1]
        origin = np.array([x0, y0], np.float32)
        p1, good = self._flow(prev, cur, p0 - origin, guess - origin, inside, back_from_guess=False)
        fit = self._fit(p0, p1 + origin, good)
        stay = inside & _in_picture(guess, w, h)
        if fit is None or good.sum() < RETRY * stay.sum():
            # most crossings failed, or no grid fits them: the page moved about a cell more (or less) than
            # predicted, and crossings snapped to their neighbours (a grid is periodic): tried again from the
            # board's shift, its picture matched (of the crossings predicted to stay in view)
            predicted = np.median((guess - p0).reshape(-1, 2)[stay], axis=0) if stay.any() else np.zeros(2)
            shift = _shift(prev, cur, (p0 - origin).reshape(-1, 2), predicted)
            if shift is not None:
                p1b, good_b = self._flow(prev, cur, p0 - origin, p0 - origin + shift, inside, back_from_guess=True)
                fit_b = self._fit(p0, p1b + origin, good_b) if good_b.sum() > good.sum() else None
                if fit_b is not None and (fit is None or _apart(fit[0], fit_b[0])):
                    fit = fit_b  # (the same place found again: the first fit stays, as it always was)
        if fit is None:
            self.reset()
            return None
        corners, lattice, motion = fit
        self.motion = motion
        self.prev = gray
        self.corners = corners
        if lattice is not None:
            self.lattice = lattice
        return self.corners

    def _fit(self, p0: np.ndarray, p1: np.ndarray, good: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray] | None:
        """The grid the crossings that passed moved to: its corners, a curled page's lattice (else None) and the
        frame-to-frame homography; None when too few passed, or the grid folds or collapses (lost, not moved)."""
        if good.sum() < self.min_points:
            return None
        if self.lattice is not None:
            return self._fit_lattice(p0, p1, good)
        hmat, inl = cv2.findHomography(FLAT_POINTS[good], p1.reshape(-1, 2)[good], cv2.RANSAC, 2.0)
        if hmat is None or inl is None or int(inl.sum()) < self.min_points:
            return None
        corners = cv2.perspectiveTransform(FLAT_CORNERS.reshape(-1, 1, 2), hmat).reshape(4, 2).astype(np.float32)
        if not _sound(corners):
            return None
        assert self.corners is not None
        return corners, None, cv2.getPerspectiveTransform(self.corners, corners)

    def _flow(self, prev: np.ndarray, cur: np.ndarray, p0: np.ndarray, guess: np.ndarray, inside: np.ndarray,
              back_from_guess: bool) -> tuple[np.ndarray, np.ndarray]:
        """The points' flow from ``prev`` to ``cur`` searched from ``guess``, and which of them came back to where
        they were (the forward-backward check). The way back starts at the found points themselves, or
        (``back_from_guess``) as far from them as the guess was from the points, the way there: from the found
        points it snaps to the neighbouring crossing whenever the page moved about a cell."""
        # (a copy: OpenCV writes the found points into the array it starts from)
        p1, st, _ = cv2.calcOpticalFlowPyrLK(prev, cur, p0, guess.copy(), flags=cv2.OPTFLOW_USE_INITIAL_FLOW, **LK)
        if p1 is None:
            return guess, np.zeros(len(p0), bool)
        if back_from_guess:
            p0r, st2, _ = cv2.calcOpticalFlowPyrLK(cur, prev, p1, p1 - (guess - p0),
                                                   flags=cv2.OPTFLOW_USE_INITIAL_FLOW, **LK)
        else:
            p0r, st2, _ = cv2.calcOpticalFlowPyrLK(cur, prev, p1, None, **LK)
        fb = np.linalg.norm((p0 - p0r).reshape(-1, 2), axis=1)
        return p1, (st.ravel() == 1) & (st2.ravel() == 1) & (fb < self.fb_error) & inside

    def follow(self, gray: np.ndarray, motion: np.ndarray) -> np.ndarray | None:
        """Move by a frame-to-frame homography found by another tracker on the same flat page (the puzzles of
        a page move as one sheet), instead of this grid's own flow; None when that folds the grid."""
        if self.prev is None or self.corners is None:
            return None
        corners = cv2.perspectiveTransform(self.corners.reshape(-1, 1, 2), motion).reshape(4, 2).astype(np.float32)
        if not _sound(corners):
            self.reset()
            return None
        if self.lattice is not None:
            self.lattice = cv2.perspectiveTransform(self.lattice.reshape(-1, 1, 2), motion).reshape(10, 10, 2).astype(
                np.float32)
        self.motion = motion
        self.prev = gray
        self.corners = corners
        return corners

    def _fit_lattice(self, p0: np.ndarray, p1: np.ndarray, good: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """A curled page: every crossing moves by the frame's homography plus half its own extra flow."""
        step, inl = cv2.findHomography(p0.reshape(-1, 2)[good], p1.reshape(-1, 2)[good], cv2.RANSAC, 2.0)
        if step is None or inl is None or int(inl.sum()) < self.min_points:
            return None
        predicted = cv2.perspectiveTransform(p0, step).reshape(-1, 2)
        flow = p1.reshape(-1, 2)
        own = np.zeros(len(flow), bool)
        own[good] = np.linalg.norm(flow[good] - predicted[good], axis=1) < 3.0  # a slipped point follows the rest
        own &= _agreed(flow - predicted, own) | ~OUTLINE  # an inner crossing is on the paper whatever the cut
        moved = predicted.copy()
        moved[own] += 0.5 * (flow[own] - predicted[own])
        lattice = moved.reshape(10, 10, 2).astype(np.float32)
        corners = lattice[[0, 0, 9, 9], [0, 9, 9, 0]].astype(np.float32)
        return (corners, lattice, step) if _sound(corners) else None


def _in_picture(points: np.ndarray, w: int, h: int) -> np.ndarray:
    """Which of the (N, 1, 2) points lie in a picture of ``w`` x ``h`` pixels."""
    x, y = points[:, 0, 0], points[:, 0, 1]
    return (x >= 0) & (x < w) & (y >= 0) & (y < h)


def _apart(a: np.ndarray, b: np.ndarray) -> bool:
    """Two fits of the board put a corner more than half a cell apart: not the same place."""
    cell = float(np.linalg.norm(a[0] - a[2])) / (SIDE * np.sqrt(2.0))
    return float(np.abs(a - b).max()) > 0.5 * cell


def _sound(corners: np.ndarray) -> bool:
    """A tracked quad that folds or collapses is lost, not moved."""
    return bool(cv2.isContourConvex(corners.reshape(-1, 1, 2))) and cv2.contourArea(corners) >= 400


def _shift(prev: np.ndarray, cur: np.ndarray, points: np.ndarray, predicted: np.ndarray) -> np.ndarray | None:
    """How far the board moved, found by matching its picture on the last frame (the box of its crossings in view,
    at half size) in this one, over the flow's window: the digits and the page's edges, not only the periodic
    lines, decide it, so a move of a cell or two is not taken for none. Beyond the picture's edge is plain grey
    (``SHIFT_PAD``: a board leaving the view; a copied edge would draw lines a grid's rows match). None unless the
    match is good (``SHIFT_MATCH``) and clearly better than where the ``predicted`` shift puts the board
    (``SHIFT_MARGIN``)."""
    h, w = prev.shape[:2]
    lo = np.maximum(points.min(axis=0), 0).astype(int)
    hi = np.minimum(points.max(axis=0), (w - 1, h - 1)).astype(int)
    if (hi - lo).min() < 32:
        return None
    a = cv2.resize(prev[lo[1]:hi[1], lo[0]:hi[0]], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    b = cv2.resize(cur, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    pad = SHIFT_PAD // 2
    b = cv2.copyMakeBorder(b, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=float(b.mean()))
    match = cv2.matchTemplate(b, a, cv2.TM_CCOEFF_NORMED)
    _, best, _, (x, y) = cv2.minMaxLoc(match)
    px, py = np.round((lo + predicted) / 2 + pad).astype(int)
    there = float(match[py, px]) if 0 <= py < match.shape[0] and 0 <= px < match.shape[1] else -1.0
    if best < SHIFT_MATCH or best - there < SHIFT_MARGIN:
        return None
    x, y = x - pad, y - pad
    return np.array([2.0 * x - lo[0], 2.0 * y - lo[1]], np.float32)


_FRAME = np.ones((10, 10), bool)
_FRAME[1:-1, 1:-1] = False
OUTLINE = _FRAME.reshape(-1)  # the crossings of the grid's outer lines: the ones a cut can leave off the paper
AGREE = 1.0  # px (working size): two neighbouring crossings' own motions this close are one bend of the paper


def _agreed(extra: np.ndarray, own: np.ndarray) -> np.ndarray:
    """The crossings whose own motion (beyond the frame's homography) most of their neighbours share.

    A curl changes smoothly over the page, so a crossing moves like the crossings round it; one whose neighbours
    do not agree is following something else (the page beneath, where a clipping cut at its grid's line leaves
    a crossing off the paper) and follows the homography instead: half its flow every frame drifted it a cell off.
    """
    e = extra.reshape(10, 10, 2)
    ok = own.reshape(10, 10)
    agree = np.zeros((10, 10), np.int32)
    count = np.zeros((10, 10), np.int32)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            ys = slice(max(0, dy), 10 + min(0, dy))  # the neighbour's rows ...
            yd = slice(max(0, -dy), 10 + min(0, -dy))  # ... seen from these rows
            xs = slice(max(0, dx), 10 + min(0, dx))
            xd = slice(max(0, -dx), 10 + min(0, -dx))
            both = ok[yd, xd] & ok[ys, xs]
            close = np.linalg.norm(e[yd, xd] - e[ys, xs], axis=-1) < AGREE
            count[yd, xd] += ok[ys, xs]
            agree[yd, xd] += both & close
    return (2 * agree > count).reshape(-1)
