"""A grid's quadrilateral and how much its inside looks like a grid: the shapes and scores every search shares.

The picture binarised with an adaptive threshold (robust to shadows), its largest contours reduced to convex
quadrilaterals, corners refined by a line fitted to each side (steadier than the polygon's vertices on rounded
or slightly curved paper), and the inside warped to 20 px a cell to test it for the 9x9 line structure.
"""


from __future__ import annotations

from dataclasses import dataclass

import cv2
import imutils
import numpy as np

from ar_sudoku.vision.lattice import (
    bend_of,
    from_corners,
    rectify,
)
from ar_sudoku.vision.stats import percentile, percentiles
from ar_sudoku.vision.yuv import I420

WORK_SIZE = 640  # long side of the image the search runs on


@dataclass(frozen=True)
class QuadsConfig:
    """This stage's tuning: each field with the reason for its value."""

    min_grid_side: int = 27  # a picture narrower than this (3 px a cell) holds no grid to read
    probe: int = 20  # pixels per cell in the structure test
    clear_score: float = 0.45  # a structure score above this needs no second opinion
    bent: float = 0.15  # cells: a lattice this far from the flat grid of its corners is read and drawn as curled
    curled_tries: int = 3  # the largest outlines that are tried as curled grids when no flat one is clear
    max_bend: float = 1.4  # cells: a "curled" fit further than this from flat is a wrong fit, not a page
    # structure score a flat refit must gain over a bent fit to replace it: a flat grid with a corner a quarter cell
    # off gains far more than this, a curled page's refit far less
    flatter: float = 0.1
    local_bend: int = 4  # crossings: a bent fit with no more than these off the homography of the rest is a flat grid
    same_bend: float = 1.0  # cells: a curled fit one corner off a flat grid's is that grid only when bent no more
    # a curled outline's lattice must find ten lines in a band this well (grids 0.5+, print 0.4-)
    min_fill: float = 0.45
    edge_share: float = 0.01  # of the picture's longer side: a fitted corner this close to its edge may be on it
    agree: float = 0.25  # cells: a refitted corner this close to the outline's agrees with it


QUADS = QuadsConfig()


# Gaussian (px)
CLEAR, FLAT, ALL = 0, 1, 2  # the passes of a search: the first two, every flat one, every one


@dataclass(frozen=True)
class GridQuad:
    """Corners TL, TR, BR, BL (float32, 4x2) in the input image's pixels, and the structure score.

    ``lattice`` holds the 10x10 crossings of the lines' centres where they were
    fitted (None: they follow from the corners, ``crossings()``). A flat grid's
    corners stay the outline's (its outer edge, as the cell cutter expects);
    a curled grid (``bent``) is cut and drawn through its lattice.
    """

    corners: np.ndarray
    score: float
    lattice: np.ndarray | None = None

    def crossings(self) -> np.ndarray:
        return self.lattice if self.lattice is not None else from_corners(self.corners)

    @property
    def bent(self) -> bool:
        return self.lattice is not None and bend_of(self.lattice) >= QUADS.bent

    def scaled(self, k: float) -> GridQuad:
        """The same fit in a picture ``k`` times the size."""
        return GridQuad(self.corners * k, self.score, None if self.lattice is None else self.lattice * k)


def to_gray(image: np.ndarray | I420) -> np.ndarray:
    if isinstance(image, I420):
        return image.gray()
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def working_gray(frame: np.ndarray | I420, side: int) -> np.ndarray:
    """The frame in grey, no larger than ``side`` on its long side: what detection and tracking see.

    Pure, so a video's decoder thread can make it ahead of the frame loop, while the frame is
    still in the cache. A large frame is subsampled before it is made grey: nearest-neighbour
    reads a third of a 4K frame's rows (linear, or grey-then-area, read them all), and measured on
    the sample upscaled to 4K its corners are as exact as in 720p. An I420 frame gives its Y plane.
    """
    h, w = frame.shape[:2]
    scale = min(1.0, side / max(h, w))
    if scale == 1.0:
        return to_gray(frame)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))  # a sliver keeps a row
    k = round(1 / scale)
    if k * size[0] == w and k * size[1] == h:
        # a whole factor (4K to 1280x720: 3): grey of every k-th row, then every k-th pixel of those;
        # the same pixels as nearest-neighbour on the colour frame, sooner (cvtColor reads rows faster)
        if isinstance(frame, I420):
            return frame.gray_every(k)
        return cv2.resize(to_gray(frame[::k]), size, interpolation=cv2.INTER_NEAREST)
    if isinstance(frame, I420):
        return cv2.resize(frame.gray(), size, interpolation=cv2.INTER_NEAREST)
    return to_gray(cv2.resize(frame, size, interpolation=cv2.INTER_NEAREST))


def shrink(gray: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Area-average down to ``size``: by a whole factor first (OpenCV's fast path, several times
    quicker than a fractional one for 12 MP to 640 px), then the small rest by linear interpolation."""
    h, w = gray.shape[:2]
    k = int(min(w / size[0], h / size[1]))
    if k >= 2:
        gray = cv2.resize(gray, (w // k, h // k), interpolation=cv2.INTER_AREA)
    if (gray.shape[1], gray.shape[0]) == size:
        return gray
    return cv2.resize(gray, size, interpolation=cv2.INTER_AREA if k < 2 else cv2.INTER_LINEAR)


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Clockwise from the corner nearest the image's top-left (TL, TR, BR, BL)."""
    pts = np.asarray(pts, np.float32).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise on screen (y points down)
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def binarize(gray: np.ndarray, c: float = 7) -> np.ndarray:
    """Ink as white on black; the block size follows the image size."""
    block = max(11, (min(gray.shape[:2]) // 30) | 1)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    return cv2.adaptiveThreshold(blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, c)


def unshade(gray: np.ndarray) -> np.ndarray:
    """The page with its shading divided out: a closing wider than any stroke is the paper's own light."""
    side = max(9, (min(gray.shape[:2]) // 32) | 1)
    paper = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (side, side)))
    return cv2.divide(gray, paper, scale=200)


def long_lines(binary: np.ndarray) -> np.ndarray:
    """Only the long horizontal and vertical strokes: cuts a grid loose from text that touches it."""
    k = max(10, min(binary.shape[:2]) // 25)
    horiz = cv2.morphologyEx(binary, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, 1)))
    vert = cv2.morphologyEx(binary, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, k)))
    return cv2.dilate(horiz | vert, np.ones((3, 3), np.uint8))


def approx_quad(contour: np.ndarray) -> np.ndarray | None:
    """The contour's convex hull simplified to a convex quad (TL, TR, BR, BL), coarser until one is; None if none."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return order_corners(approx.reshape(4, 2))
    return None


def _quad_from_contour(contour: np.ndarray) -> np.ndarray | None:
    quad = approx_quad(contour)
    if quad is not None:
        return quad
    pts = cv2.convexHull(contour).reshape(-1, 2).astype(np.float32)
    s, d = pts.sum(axis=1), pts[:, 0] - pts[:, 1]
    quad = np.array([pts[s.argmin()], pts[d.argmax()], pts[s.argmax()], pts[d.argmin()]], np.float32)
    if len({tuple(p) for p in quad.tolist()}) < 4:
        return None
    return order_corners(quad)


def at_edge(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Two of a grid's corners on (or within a hundredth of) the same picture edge: a grid that may run out
    of the picture even where its fitted corners land a little inside it."""
    return cut_by_frame(np.asarray(corners, np.float32), shape, tol=max(3.0, QUADS.edge_share * max(shape[:2])))


def cut_by_frame(quad: np.ndarray, shape: tuple[int, ...], tol: float = 3.0) -> bool:
    """Two corners on the same picture edge: a grid (or page) running out of the picture."""
    h, w = shape[:2]
    x, y = quad[:, 0], quad[:, 1]
    return any(int(n) >= 2 for n in ((x < tol).sum(), (y < tol).sum(), (x > w - 1 - tol).sum(),
                                     (y > h - 1 - tol).sum()))


def _line_intersection(l1: np.ndarray, l2: np.ndarray) -> np.ndarray | None:
    (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = l1, l2
    a = np.array([[vx1, -vx2], [vy1, -vy2]], np.float64)
    if abs(np.linalg.det(a)) < 1e-6:
        return None
    t = np.linalg.solve(a, np.array([x2 - x1, y2 - y1], np.float64))
    return np.array([x1 + t[0] * vx1, y1 + t[0] * vy1], np.float32)


def refine_corners(contour: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Fit a line to the contour points along each side and intersect the sides."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    lines = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        ab = b - a
        length = float(np.hypot(*ab))
        if length < 1:
            return quad
        t = ((pts - a) @ ab) / (length * length)
        dist = np.abs((pts[:, 0] - a[0]) * ab[1] - (pts[:, 1] - a[1]) * ab[0]) / length
        sel = pts[(t > 0.1) & (t < 0.9) & (dist < max(3.0, 0.02 * length))]
        if len(sel) < 5:
            return quad
        lines.append(cv2.fitLine(sel, cv2.DIST_HUBER, 0, 0.01, 0.01).reshape(4))
    out = []
    for k in range(4):
        p = _line_intersection(lines[k - 1], lines[k])
        if p is None or np.hypot(*(p - quad[k])) > 0.08 * cv2.arcLength(quad.reshape(-1, 1, 2), True) / 4:
            return quad
        out.append(p)
    return np.array(out, np.float32)


def _probe_ink(gray: np.ndarray, quad: np.ndarray, lattice: np.ndarray | None = None) -> np.ndarray:
    """The grid ``quad`` (or a curled page's ``lattice``) warped at ``QUADS.probe`` px a cell with half a cell of
    margin,
    and thresholded there (1 = ink), so thin lines of a small or blurred grid count as much as a big one's."""
    side, m = 9 * QUADS.probe, QUADS.probe // 2
    if lattice is not None:  # a curled page: rectified through its own crossings
        warped = rectify(gray, lattice, QUADS.probe, m)
    else:
        dst = np.array([[m, m], [m + side, m], [m + side, m + side], [m, m + side]], np.float32)
        hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
        warped = cv2.warpPerspective(gray, hmat, (side + 2 * m, side + 2 * m), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_REPLICATE)
    return cv2.adaptiveThreshold(warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 11, 3)


def structure_score(gray: np.ndarray, quad: np.ndarray, lattice: np.ndarray | None = None) -> float:
    """How much the inside looks like a 9x9 grid: ink on the 10+10 line positions vs between.

    The quad (with a margin around it) is warped from the grey image to 20 px a
    cell and thresholded there, so thin lines of a small or blurred grid count
    as much as those of a big one; the margin gives the threshold context at the
    border lines.
    """
    side, m = 9 * QUADS.probe, QUADS.probe // 2
    ink = _probe_ink(gray, quad, lattice)
    inner = ink[m : m + side, m : m + side]
    scores = []
    for profile in (inner.mean(axis=0), inner.mean(axis=1)):
        # +-3 px: curved paper and lens bending put inner lines a little off their ideal place;
        # the windows are stacked so each statistic is one numpy call (this runs for every candidate)
        on = np.stack([profile[k * QUADS.probe - 3: k * QUADS.probe + 4] for k in range(1, 9)]).max(axis=1)
        off = np.median(np.stack([profile[k * QUADS.probe + 5: (k + 1) * QUADS.probe - 4] for k in range(9)]), axis=1)
        scores.append(float(np.median(on) - np.median(off)))
    return min(scores)


def _largest(mask: np.ndarray, limit: int = 8) -> list[np.ndarray]:
    """The ``limit`` largest contours of ``mask``, largest first."""
    # a border of background lets a grid that touches the frame edge still close its contour
    pad = 4
    padded = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    # RETR_LIST, not EXTERNAL: a page edge or a frame around the puzzle encloses the grid's own contour
    contours = imutils.grab_contours(cv2.findContours(padded, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE))
    return [c - pad for c in sorted(contours, key=cv2.contourArea, reverse=True)[:limit]]


def _outlines(mask: np.ndarray, area_min: float, allow_cut: bool,
              largest: list[np.ndarray] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The largest closed outlines with a plausible quad (outline, quad), largest first (of ``largest``,
    the mask's contours when they are known already)."""
    out = []
    for contour in _largest(mask) if largest is None else largest:
        if cv2.contourArea(contour) < area_min:
            break
        quad = _quad_from_contour(contour)
        if quad is None or cv2.contourArea(quad) < area_min:
            continue
        sides = [np.hypot(*(quad[k] - quad[(k + 1) % 4])) for k in range(4)]
        if min(sides) < 0.35 * max(sides) or (not allow_cut and cut_by_frame(quad, mask.shape)):
            continue
        out.append((contour, quad))
    return out


def _best_quad(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
               allow_cut: bool = True, largest: list[np.ndarray] | None = None) -> GridQuad | None:
    best: GridQuad | None = None
    best_area = 0.0
    for contour, quad in _outlines(mask, area_min, allow_cut, largest):
        if best is not None and best.score >= QUADS.clear_score and cv2.contourArea(quad) < 0.25 * best_area:
            # a box or a cell inside a clear grid (the outlines come largest first): never the grid itself.
            # Over the 408 photos' 3,820 candidates this skips most of the work and changes no choice
            continue
        quad = refine_corners(contour, quad)
        score = structure_score(probe, quad)
        if score >= min_score and (best is None or score > best.score + 0.1):
            best, best_area = GridQuad(quad, score), float(cv2.contourArea(quad))
    return best


def box_line_score(gray: np.ndarray, quad: np.ndarray) -> float:
    """How much the inside looks like a grid by its four thick lines alone: ink on the box lines (the border's
    and the two across each way) against the cells' middles, the least over both directions.

    Out of focus, a filled-in page's thin lines fade below the threshold while its box lines hold, and the
    digits between them spoil :func:`structure_score` (``tests/test_vision.py``'s filled page, blurred: under 0).
    """
    side, m = 9 * QUADS.probe, QUADS.probe // 2
    ink = _probe_ink(gray, quad)
    scores = []
    for profile in (ink[m: m + side, :].mean(axis=0), ink[:, m: m + side].mean(axis=1)):
        on = min(profile[m + k * QUADS.probe - 3: m + k * QUADS.probe + 4].max() for k in (0, 3, 6, 9))
        off = np.median([np.median(profile[m + k * QUADS.probe + 5: m + (k + 1) * QUADS.probe - 4]) for k in range(9)])
        scores.append(float(on - off))
    return min(scores)


def cell_side(corners: np.ndarray) -> float:
    """A grid's typical cell side in pixels, from its corners' diagonal (TL to BR)."""
    return float(np.linalg.norm(corners[0] - corners[2])) / (9 * 2**0.5)


def _corners_moved(fit: np.ndarray, outline: np.ndarray, cells: float) -> int:
    """How many of ``fit``'s corners lie more than ``cells`` of ``outline``'s cells from ``outline``'s."""
    return int((np.linalg.norm(fit - outline, axis=1) > cells * cell_side(outline)).sum())


def _agrees(fit: np.ndarray, outline: np.ndarray) -> bool:
    """A flat refit's corners against the outline's they were fitted from: all but one within ``QUADS.agree`` cells.
    A fold at one corner moves that corner half a cell and the others a tenth (the outline's
    outer edge to the lines' centres): one corner set right, the rest of the outline confirmed."""
    return _corners_moved(fit, outline, QUADS.agree) <= 1


def speckle(small: np.ndarray) -> float:
    """The paper's typical Laplacian over the picture's contrast: a sensor's noise in a dim room, a screen's moire
    (``kinds.paper_noise`` measures a grid's square with it). The Laplacian at full resolution (the speckle is a
    pixel's size); its statistics from every fourth pixel of every fourth row, which tell the same levels at a
    sixteenth of the sorting."""
    lap = np.abs(cv2.Laplacian(small.astype(np.float32), cv2.CV_32F))[::4, ::4]
    sample = small[::4, ::4].astype(np.float32)
    lo, hi = percentiles(sample, [2, 90])
    paper = sample > lo + 0.8 * (hi - lo)
    return percentile(lap[paper], 50) / max(float(hi - lo), 1.0) if paper.any() else 0.0


def _inked_cells(gray: np.ndarray, quad: np.ndarray) -> int:
    """The cells of the grid ``quad`` whose middle holds ink (its darkest pixels darker than halfway from ink to
    paper): a page whose digits hide its thin lines is written in well beyond a puzzle's fewest givens."""
    middles, halfway = _cell_middles(gray, quad, QUADS.probe // 4)
    return int((np.percentile(middles, 5, axis=1) < halfway).sum())


def _solid_cells(gray: np.ndarray, quad: np.ndarray) -> int:
    """The cells of the grid ``quad`` whose middle is mostly ink (darker than halfway from ink to paper).

    Sharpened, any sharp edge is a line, and a chessboard's squares make a grid of them; a Sudoku's cells hold
    thin strokes on paper (the blurred pages the sharpened look finds: 0-3 such cells; a chessboard: 24-25).
    """
    middles, halfway = _cell_middles(gray, quad, QUADS.probe // 5)
    return int((np.median(middles, axis=1) < halfway).sum())


def _cell_middles(gray: np.ndarray, quad: np.ndarray, m: int) -> tuple[np.ndarray, float]:
    """The 81 cells of the grid ``quad`` warped at ``QUADS.probe`` px a cell, ``m`` px cut off each side (its lines),
    as rows of pixels; and the grey level halfway from the grid's ink to its paper."""
    side = 9 * QUADS.probe
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warped = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(quad.astype(np.float32), dst), (side, side),
                                 flags=cv2.INTER_AREA).astype(np.float32)
    lo, hi = np.percentile(warped, [2, 90])
    cells = warped.reshape(9, QUADS.probe, 9, QUADS.probe)[:, m: QUADS.probe - m, :, m: QUADS.probe - m].transpose(0,
    2, 1, 3)
    return cells.reshape(81, -1), float(lo + hi) / 2


def _contains(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), (float(point[0]), float(point[1])),
                                False) >= 0
