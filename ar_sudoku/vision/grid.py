"""Find the puzzle's grid in a picture: the four outer corners, in order.

Strategy: binarise with an adaptive threshold (robust to shadows), take the
largest contours (at every level: a page edge may enclose the grid) as
candidates, reduce each to a convex quadrilateral, and keep the one whose
inside shows the 9x9 line structure (a page, an ad or a box of text fails that
test; the grey image is warped to 20 px a cell for it, so small and blurred
grids are judged like big ones). Corners are then
refined by fitting a straight line to each side of the contour and intersecting
neighbours, which is steadier than the polygon's vertices on rounded or
slightly curved paper.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import imutils
import numpy as np

from ar_sudoku.vision.deblur import deconvolve, picture_streak
from ar_sudoku.vision.lattice import (
    GRID_UV,
    align,
    bend_of,
    check_sides,
    coons_from_outline,
    corners_of,
    extend_sides,
    from_corners,
    line_strength,
    rectify,
    refine,
    rotate,
)
from ar_sudoku.vision.stats import percentile, percentiles
from ar_sudoku.vision.yuv import I420

WORK_SIZE = 640  # long side of the image the search runs on
MIN_GRID_SIDE = 27  # a picture narrower than this (3 px a cell) holds no grid to read
PROBE = 20  # pixels per cell in the structure test
CLEAR_SCORE = 0.45  # a structure score above this needs no second opinion
SHARPEN, SHARPEN_SIGMA = 2.0, 3.0  # an unsharp mask (amount, Gaussian px at the working size) for a defocused photo
SOLID_CELLS = 20  # cells mostly ink that make a grid found sharpened no Sudoku (a chessboard's squares)
STREAK_GAIN = 0.1  # how much more the grid found with a shaken camera's streak taken out must look like one
# A working picture whose paper's typical Laplacian is above this share of its contrast is speckled by a dim
# room's sensor noise (train photos as taken, blurred, shaken, small or in a shadow: at most 0.073; in the
# benchmark's dim rooms 0.05-0.27 at a quarter of the light, 0.06-0.48 at 0.18) ...
SPECKLED = 0.08
SPECKLE_SIGMA = 1.5  # ... and, when no pass finds a clear grid in it, is searched once more smoothed by this
# Gaussian (px)
CLEAR, FLAT, ALL = 0, 1, 2  # the passes of a search: the first two, every flat one, every one


BENT = 0.15  # cells: a lattice this far from the flat grid of its corners is read and drawn as curled
CURLED_TRIES = 3  # the largest outlines that are tried as curled grids when no flat one is clear
MAX_BEND = 1.4  # cells: a "curled" fit further than this from flat is a wrong fit, not a page
FLATTER = 0.1  # structure score a flat refit must gain over a bent fit to replace it: image1049 (a corner a
# quarter cell off) 0.45 -> 0.80; on 12 other photos, curled pages among them, the refit gains 0.002-0.017
LOCAL_BEND = 4  # crossings: a bent fit with no more than these off the homography of the rest is a flat grid
SAME_BEND = 1.0  # cells: a curled fit one corner off a flat grid's is that grid only when bent no more
MIN_FILL = 0.45  # a curled outline's lattice must find ten lines in a band this well (grids 0.5+, print 0.4-)


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
        return self.lattice is not None and bend_of(self.lattice) >= BENT


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


EDGE_SHARE = 0.01  # of the picture's longer side: a fitted corner this close to its edge may be on it


def at_edge(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Two of a grid's corners on (or within a hundredth of) the same picture edge: a grid that may run out
    of the picture even where its fitted corners land a little inside it."""
    return _cut_by_frame(np.asarray(corners, np.float32), shape, tol=max(3.0, EDGE_SHARE * max(shape[:2])))


def _cut_by_frame(quad: np.ndarray, shape: tuple[int, ...], tol: float = 3.0) -> bool:
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
    """The grid ``quad`` (or a curled page's ``lattice``) warped at ``PROBE`` px a cell with half a cell of margin,
    and thresholded there (1 = ink), so thin lines of a small or blurred grid count as much as a big one's."""
    side, m = 9 * PROBE, PROBE // 2
    if lattice is not None:  # a curled page: rectified through its own crossings
        warped = rectify(gray, lattice, PROBE, m)
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
    side, m = 9 * PROBE, PROBE // 2
    ink = _probe_ink(gray, quad, lattice)
    inner = ink[m : m + side, m : m + side]
    scores = []
    for profile in (inner.mean(axis=0), inner.mean(axis=1)):
        # +-3 px: curved paper and lens bending put inner lines a little off their ideal place;
        # the windows are stacked so each statistic is one numpy call (this runs for every candidate)
        on = np.stack([profile[k * PROBE - 3: k * PROBE + 4] for k in range(1, 9)]).max(axis=1)
        off = np.median(np.stack([profile[k * PROBE + 5: (k + 1) * PROBE - 4] for k in range(9)]), axis=1)
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
        if min(sides) < 0.35 * max(sides) or (not allow_cut and _cut_by_frame(quad, mask.shape)):
            continue
        out.append((contour, quad))
    return out


def _best_quad(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
               allow_cut: bool = True, largest: list[np.ndarray] | None = None) -> GridQuad | None:
    best: GridQuad | None = None
    best_area = 0.0
    for contour, quad in _outlines(mask, area_min, allow_cut, largest):
        if best is not None and best.score >= CLEAR_SCORE and cv2.contourArea(quad) < 0.25 * best_area:
            # a box or a cell inside a clear grid (the outlines come largest first): never the grid itself.
            # Over the 408 photos' 3,820 candidates this skips most of the work and changes no choice
            continue
        quad = refine_corners(contour, quad)
        score = structure_score(probe, quad)
        if score >= min_score and (best is None or score > best.score + 0.1):
            best, best_area = GridQuad(quad, score), float(cv2.contourArea(quad))
    return best


def _best_curled(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
                 flat: GridQuad | None, allow_cut: bool = False) -> GridQuad | None:
    """A curled page, tried when no flat grid is clear: the largest outlines fitted as lattices.

    An outline on the picture's edge is not tried (its cut side would bend the fit), and when a
    flat grid was found, a curled one must be that grid (the same corners), not a shifted fit.
    """
    best = None
    tries = [(contour, q) for contour, quad in _outlines(mask, area_min, allow_cut=True)[:CURLED_TRIES]
             for q in [quad] + (_despiked(contour, quad) if allow_cut and _touches_frame(quad, mask.shape) else [])]
    for contour, quad in tries:
        if not allow_cut and (_cut_by_frame(quad, mask.shape, tol=2.0) or _touches_frame(quad, mask.shape)):
            continue
        curled = _curled(contour, quad, probe)
        if curled is None or curled.lattice is None or curled.score < min_score or bend_of(curled.lattice) > MAX_BEND:
            continue
        if flat is not None:
            if curled.score <= flat.score + 0.05:
                continue
            # the same grid: the flat one's corners; or three of them, when the fit is no more bent than a
            # page (a bowed side can put the flat outline's corner off its lines; a shifted fit moves two)
            cell = cell_side(flat.corners)
            off = min((np.sort(np.abs(np.roll(curled.corners, k, axis=0) - flat.corners).max(axis=1))
                       for k in range(4)), key=lambda d: float(d[3]))
            # unless the flat outline runs along the picture's edge (two corners on it, where the frame cuts
            # the outline, not on the grid's lines) and the curled fit is clearly a grid
            cut = _cut_by_frame(flat.corners, mask.shape, tol=4.0) and curled.score >= CLEAR_SCORE
            if not cut and off[3] > 0.35 * cell and (off[2] > 0.35 * cell or bend_of(curled.lattice) > SAME_BEND):
                continue
        if best is None or curled.score > best.score:
            best = curled
    return best


def _side_support(contour: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The share of the segment a-b that the outline runs along (within a pixel or two)."""
    tol = max(2.0, 0.015 * float(np.hypot(*(b - a))))
    pts = a + np.linspace(0.05, 0.95, 19)[:, None] * (b - a)
    return float(np.mean([abs(cv2.pointPolygonTest(contour, (float(x), float(y)), True)) < tol for x, y in pts]))


def _ray(pts: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """The straight side of the outline leaving corner ``start`` towards about ``end`` (within 35 degrees):
    the direction most outline points follow (within a pixel or two) over the side's length; as a line
    (vx, vy, x, y) fitted to them."""
    d = pts - start
    length = float(np.hypot(*(end - start)))
    r = np.hypot(d[:, 0], d[:, 1])
    cos = (d @ (end - start)) / np.maximum(r * length, 1e-6)
    cand = d[(r > 0.3 * length) & (r < 1.2 * length) & (cos > 0.82)]
    if len(cand) < 5:
        return None
    cand = cand[:: max(1, len(cand) // 120)]
    dirs = cand / np.hypot(cand[:, 0], cand[:, 1])[:, None]
    tol = max(2.0, 0.012 * length)
    along = d @ dirs.T  # (points, candidates)
    across = np.abs(d[:, :1] * dirs[:, 1] - d[:, 1:] * dirs[:, 0])
    hits = ((across < tol) & (along > 0) & (along < 1.2 * length)).sum(axis=0)
    k = int(hits.argmax())
    sel = (across[:, k] < tol) & (along[:, k] > 0) & (along[:, k] < 1.2 * length)
    if hits[k] < 0.3 * length:
        return None
    return cv2.fitLine(np.vstack([pts[sel], start[None]]).astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                       0.01).reshape(4)


def _despiked(contour: np.ndarray, quad: np.ndarray) -> list[np.ndarray]:
    """Quads with a corner the hull put on a spike (a smear or print joined to the outline, out to the
    picture's edge) placed again: where the straight sides from its two neighbours meet. A side that the
    outline does not run along is the sign; either of its ends may be the spike, so both are tried."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    c = contour.reshape(-1, 1, 2).astype(np.float32)
    out = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        if _side_support(c, a, b) >= 0.7:
            continue
        for k in (s, (s + 1) % 4):
            prev, nxt = quad[k - 1], quad[(k + 1) % 4]
            l1, l2 = _ray(pts, prev, quad[k]), _ray(pts, nxt, quad[k])
            if l1 is None or l2 is None:
                continue
            p = _line_intersection(l1, l2)
            if p is None or float(np.hypot(*(p - quad[k]))) < 2.0:
                continue
            alt = quad.copy()
            alt[k] = p
            sides = [np.hypot(*(alt[i] - alt[(i + 1) % 4])) for i in range(4)]
            if cv2.isContourConvex(alt.reshape(-1, 1, 2)) and min(sides) > 0.35 * max(sides):
                out.append(alt)
    return out


def _touches_frame(quad: np.ndarray, shape: tuple[int, ...], tol: float = 2.0) -> bool:
    h, w = shape[:2]
    return bool((quad[:, 0] < tol).any() or (quad[:, 1] < tol).any() or (quad[:, 0] > w - 1 - tol).any()
                or (quad[:, 1] > h - 1 - tol).any())


def _curled(contour: np.ndarray, quad: np.ndarray, probe: np.ndarray) -> GridQuad | None:
    """The grid of a curled outline: a lattice predicted from its curved sides, then fitted to its lines."""
    guess = coons_from_outline(contour.reshape(-1, 2), quad)
    if guess is None:
        return None
    aligned, fill = align(probe, guess, PROBE)
    if fill < MIN_FILL:  # no comb of ten lines in most bands: no grid (and no time spent fitting one)
        return None
    lattice, contrast = refine(probe, aligned, cell=PROBE)
    if contrast <= 0:
        return None
    # an outer line off the inner lines' trend (a rule or page edge beside the border): fitted again from it
    lattice, changed = check_sides(lattice)
    if changed:
        lattice, contrast = refine(probe, lattice, cell=PROBE, reach=0.15)
        if contrast <= 0:
            return None
    corners = corners_of(lattice)
    return GridQuad(corners, structure_score(probe, corners, lattice), lattice)


def _lattice_fits(pieces: list[np.ndarray], quad: np.ndarray, count: int, enough: int) -> bool:
    """The pieces sit one to a place of an n x n lattice spanned by the quad (not a cut-off part of one)."""
    n = int(round(count**0.5))
    hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32))
    moments = [cv2.moments(c) for c in pieces]
    centres = np.array([[m["m10"] / m["m00"], m["m01"] / m["m00"]] for m in moments], np.float32).reshape(-1, 1, 2)
    uv = cv2.perspectiveTransform(centres, hmat).reshape(-1, 2)
    if (np.abs(uv - np.floor(uv) - 0.5) > 0.3).any():
        return False
    places = {(int(u), int(v)) for u, v in uv if 0 <= u < n and 0 <= v < n}
    return len(places) >= enough and len(places) == len(pieces)


def _from_pieces(pieces: list[tuple[float, np.ndarray]], probe: np.ndarray, min_score: float,
                 area_min: float) -> GridQuad | None:
    """Rebuild a grid whose outline merged with other print, from its 9 boxes or 81 cells (``_pieces``).

    The holes of the line pattern are quads of one size; when 7+ boxes (or 60+
    cells) are found, their hull is the inside of the grid's border.
    """
    best: GridQuad | None = None
    for ref, _ in pieces[:20]:
        group = [c for a, c in pieces if 0.65 * ref < a < 1.5 * ref]
        for want, enough in ((9, 7), (81, 60)):
            if not enough <= len(group) <= want + 2:
                continue
            hull = cv2.convexHull(np.vstack(group))
            if not 0.75 * want < cv2.contourArea(hull) / ref < 1.35 * want:
                continue
            quad = _quad_from_contour(hull)
            if quad is None or cv2.contourArea(quad) < area_min or not _lattice_fits(group, quad, want, enough):
                continue
            # the lattice of pieces is itself evidence of a grid: faint thin lines, or handwriting in every
            # cell, may score low (image1049 written on: 0.056, its printed twin 0.175)
            score = structure_score(probe, quad)
            if score >= 0.2 * min_score and (best is None or score > best.score):
                best = GridQuad(quad, score)
        if best is not None:
            return best
    return best


_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (rows, cols) across a piece's top, right, bottom, left side
_CORNER = ((0, 0), (0, 1), (1, 1), (1, 0))  # a piece's corner that starts that side: TL, TR, BR, BL
_NEXT = np.array([1, 2, 3, 0])


def _pieces(mask: np.ndarray, area_min: float) -> list[tuple[float, np.ndarray]]:
    """Closed holes of the line pattern shaped like a box or a cell: (area, contour), largest first."""
    contours = imutils.grab_contours(cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE))
    pieces = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:150]:
        a = cv2.contourArea(c)
        if a < area_min / 100:
            break
        x, y, w, h = cv2.boundingRect(c)
        if 0.6 < w / h < 1.6 and a > 0.6 * w * h:
            pieces.append((a, c))
    return pieces


def _order_pieces(quads: np.ndarray) -> tuple[dict[tuple[int, int], list[np.ndarray]], int] | None:
    """Pieces (m x 4 corners, clockwise) ordered into rows and columns by the corners their sides share.

    Two pieces are neighbours when a side of one is a side of the other (both corners within a quarter of
    a piece: the line between them). Walking from the first piece, each neighbour's place and turn follow
    from which sides meet, so a curled or turned grid is ordered as well as a flat one. Returns the corner
    estimates of every crossing, keyed by (row, col) in pieces, and how many pieces were reached; or None
    when the walk contradicts itself.
    """
    size = np.sqrt(np.abs([cv2.contourArea(q) for q in quads]))
    d = np.linalg.norm(quads[:, :, None, None] - quads[None, None], axis=-1)  # (m, 4, m, 4)
    near = d < 0.25 * np.minimum(size[:, None], size[None, :])[:, None, :, None]
    # side k of i (corners k, k+1) is side e of j walked the other way: corners e+1, e
    meet = near[:, :, :, _NEXT] & near[:, _NEXT, :, :]
    meet[np.arange(len(quads)), :, np.arange(len(quads)), :] = False
    sides: dict[int, list[tuple[int, int, int]]] = {}
    for i, k, j, e in np.argwhere(meet).tolist():
        sides.setdefault(i, []).append((k, j, e))
    place, turn = {0: (0, 0)}, {0: 0}
    todo = [0]
    while todo:
        i = todo.pop()
        for k, j, e in sides.get(i, []):
            side = (k + turn[i]) % 4
            at = (place[i][0] + _STEP[side][0], place[i][1] + _STEP[side][1])
            tj = (side + 2 - e) % 4
            if j in place:
                if place[j] != at or turn[j] != tj:
                    return None
                continue
            place[j], turn[j] = at, tj
            todo.append(j)
    crossings: dict[tuple[int, int], list[np.ndarray]] = {}
    for i, (r, c) in place.items():
        for j in range(4):
            dr, dc = _CORNER[(j + turn[i]) % 4]
            crossings.setdefault((r + dr, c + dc), []).append(quads[i, j])
    return crossings, len(place)


def _smooth_lattice(crossings: dict[tuple[int, int], list[np.ndarray]], per: float,
                    at: tuple[int, int]) -> np.ndarray:
    """The 10x10 lattice from crossings known at some places (row, col in pieces of ``per`` cells, the
    first known one ``at`` (row, col) pieces from the grid's top-left): a smooth polynomial of the grid
    coordinates (up to cubic, no higher than the known rows and columns carry), extrapolating the rest."""
    keys = np.array(list(crossings), np.float64)
    xy = np.array([np.mean(v, axis=0) for v in crossings.values()], np.float64)
    v = (keys[:, 0] - keys[:, 0].min() + at[0]) * per / 9
    u = (keys[:, 1] - keys[:, 1].min() + at[1]) * per / 9
    # a degree needs as many full rows (columns) plus one: a part row would swing the rest of the fit
    rows, cols = np.unique(v, return_counts=True)[1], np.unique(u, return_counts=True)[1]
    du = min(3, int((cols >= 0.75 * cols.max()).sum()) - 1)
    dv = min(3, int((rows >= 0.75 * rows.max()).sum()) - 1)
    terms = [(i, j) for i in range(du + 1) for j in range(dv + 1) if i + j <= 3]
    coef = np.linalg.lstsq(np.stack([u**i * v**j for i, j in terms], axis=1), xy, rcond=None)[0]
    gu, gv = GRID_UV[..., 0].ravel() / 9, GRID_UV[..., 1].ravel() / 9
    return (np.stack([gu**i * gv**j for i, j in terms], axis=1) @ coef).reshape(10, 10, 2).astype(np.float32)


def _from_cut_pieces(pieces: list[tuple[float, np.ndarray]], probe: np.ndarray, min_score: float,
                     area_min: float) -> tuple[GridQuad, list[int]] | None:
    """A grid whose outline runs out of the picture, rebuilt from its closed boxes or cells (photos only).

    A grid cut by the picture's edge (a border just outside it; a curled page) leaves its outer row of
    boxes or cells open: of 2 x 3 boxes 4 or more are closed, or 50 or more of 8 x 9 cells. They are
    ordered by their shared sides, a smooth lattice through their corners extrapolates the open row,
    and the lattice is fitted to the lines as a curled outline's is. The open row must lie inside the
    picture (a grid with a row of cells missing is no grid to read), and every line but the open row's
    outermost must be found. Returns (grid, the sides whose line the picture does not show).
    """
    h, w = probe.shape[:2]
    tried: set[tuple[int, ...]] = set()
    quad_of: dict[int, np.ndarray | None] = {}
    for ref, _ in pieces[:12]:
        members = tuple(i for i, (a, _) in enumerate(pieces) if 0.55 * ref < a < 1.8 * ref)
        # boxes of a grid of area_min or more, or 50 cells; nothing smaller is tried (text, noise)
        if members in tried or not (len(members) >= 4 and ref > 0.06 * area_min or len(members) >= 50):
            continue
        tried.add(members)
        for i in members:
            if i not in quad_of:
                quad_of[i] = _quad_from_contour(pieces[i][1])
        quads = np.array([quad_of[i] for i in members if quad_of[i] is not None], np.float32)
        ordered = _order_pieces(quads) if len(quads) >= 4 else None
        if ordered is None:
            continue
        crossings, count = ordered
        rows = {r for r, _ in crossings}
        cols = {c for _, c in crossings}
        nr, nc = len(rows) - 1, len(cols) - 1
        for n, least in ((3, 4), (9, 50)):  # boxes, cells
            if not (n - 1 <= nr <= n and n - 1 <= nc <= n) or (nr, nc) == (n, n):
                continue
            if count < least or len(crossings) < 0.8 * (nr + 1) * (nc + 1):
                continue
            best = None
            for at in {(a, b) for a in range(n - nr + 1) for b in range(n - nc + 1)}:
                found = _fit_cut(_smooth_lattice(crossings, 9 / n, at), probe, (h, w), min_score)
                if found is not None and (best is None or found[0] > best[0]):
                    best = found
            if best is not None:
                return best[1], best[2]
    return None


def _fit_cut(guess: np.ndarray, probe: np.ndarray, shape: tuple[int, int],
             min_score: float) -> tuple[float, GridQuad, list[int]] | None:
    """A cut grid's lattice fitted to the lines; (score, grid, the sides the picture does not show) or None."""
    h, w = shape
    cell = float(np.linalg.norm(guess[0, 0] - guess[9, 9])) / (9 * 2**0.5)
    tol = 0.2 * cell
    if (guess < -tol).any() or (guess[..., 0] > w - 1 + tol).any() or (guess[..., 1] > h - 1 + tol).any():
        return None
    aligned, fill = align(probe, guess, PROBE)
    if fill < MIN_FILL:
        return None
    lattice, contrast = refine(probe, aligned, cell=PROBE)
    if contrast <= 0:
        return None
    strength = line_strength(probe, lattice, PROBE)
    support = np.median(strength, axis=2)  # (2, 10): per line
    med = float(np.median(support))
    # an outer line the picture hardly shows (outside it, or on its edge) is put on its family's trend,
    # where the lines across show the open row of cells; every other line must be there, if faint (a
    # wrong placement leaves lines in the open)
    outer = {0: (0, 0, 0), 1: (1, 9, 8), 2: (0, 9, 8), 3: (1, 0, 0)}  # side: family, line, segment across
    open_sides = [k for k, (d, i, j) in outer.items()
                  if support[d, i] < 0.5 * med and float(np.median(strength[1 - d, :, j])) >= 0.3 * med]
    shown = support >= 0.15 * med
    # and every outer row and column of cells lies between lines across (not print beside the grid)
    if any(float(np.median(strength[1 - d, :, j])) < 0.3 * med for d, _, j in outer.values()):
        return None
    for k in open_sides:
        shown[outer[k][:2]] = True
    if not shown.all():
        return None
    lattice = extend_sides(lattice, open_sides)
    if (lattice < -tol).any() or (lattice[..., 0] > w - 1 + tol).any() or (lattice[..., 1] > h - 1 + tol).any():
        return None
    if bend_of(lattice) > MAX_BEND:
        return None
    score = structure_score(probe, corners_of(lattice), lattice)
    if score < min_score:
        return None
    # turned as every other grid: the first corner nearest the picture's top-left
    turn = next(k for k in range(4) if np.array_equal(rotate(lattice, k)[0, 0], order_corners(corners_of(lattice))[0]))
    lattice = rotate(lattice, turn)
    sides = [(k - turn) % 4 for k in open_sides]
    return score, GridQuad(corners_of(lattice), score, lattice), sides


BOX_GAIN = 0.1  # how much more a grid three boxes wide must look like one than the box taken for it
OTHER_PLACE = 0.03  # ... and than the grid the box makes at any other place in it
_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
# a part of a grid taken for the grid: (columns, rows) of boxes it spans (a box, or a row or column of three:
# parts outlined by the thick lines alone; two boxes' half-box cells would fit a grid of half a box's cells),
# and (column, row) of its first box
_BOX_PLACES = tuple((c, r, i, j) for c, r in ((1, 1), (1, 3), (3, 1)) for i in range(4 - c) for j in range(4 - r))


def _whole_of_box(found: GridQuad, binary: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
                  pieces: list[tuple[float, np.ndarray]]) -> GridQuad:
    """The grid whose 3x3 box (or row or column of boxes) ``found`` is, when that looks more like a grid than the
    part does; else ``found``.

    A page filled in by hand and out of focus: the digits' ink between the lines lowers the whole grid's
    score, and text touching its border merges its outline with the page, while one box, outlined by the
    thick box lines, still passes for a small grid of thin lines (its 9 cells' digits blur into lines).
    The grid is three boxes wide: each place the part can hold in it is scored, tripled both through the
    part's own perspective and through its mean sides (a part of a real grid is at one place only, so a
    place is taken only when it looks clearly more like a grid than every other; a strip of boxes is as long
    as it is boxes). Else the grid rebuilt from its boxes (:func:`_from_pieces`) is tried when the part is
    one box. A small grid taken for a box is kept: tripled, it is the page.
    """
    h, w = probe.shape[:2]
    box = found.corners.astype(np.float32)
    to_box = cv2.getPerspectiveTransform(_UNIT, box)
    # the box's mean sides: its own perspective, measured over one box, is mostly its corners' error, and
    # tripled it can throw the grid's far corners a third of a box off (train image178 under a shadow)
    across = ((box[1] - box[0]) + (box[2] - box[3])) / 2
    down = ((box[3] - box[0]) + (box[2] - box[1])) / 2
    origin = box.mean(axis=0) - (across + down) / 2
    sides = np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1)
    aspect = (sides[0] + sides[2]) / max(1e-6, sides[1] + sides[3])
    placed: list[GridQuad] = []  # each place's likelier grid
    for cols, rows, i, j in _BOX_PLACES:
        if not 0.6 < aspect * rows / cols < 1.6:  # a strip of boxes is as long as it is boxes
            continue
        unit = (_UNIT * 3 - np.array([i, j], np.float32)) / np.array([cols, rows], np.float32)
        tripled = cv2.perspectiveTransform(unit.reshape(-1, 1, 2), to_box).reshape(4, 2)
        here = [GridQuad(quad, structure_score(probe, quad))
                for quad in (tripled, (origin + unit[:, :1] * across + unit[:, 1:] * down).astype(np.float32))
                if not ((quad < -0.02 * np.array([w, h])).any() or (quad > 1.02 * np.array([w, h])).any())]
        if here:
            placed.append(max(here, key=lambda g: g.score))
    placed.sort(key=lambda g: -g.score)
    best = found
    # a part of a grid is at one place only: two places alike (a crossword's lines beside the grid continue
    # its spacing, held-out image1049 out of focus) tell nothing, and the grid is rebuilt from its boxes
    if placed and placed[0].score >= max(min_score, found.score + BOX_GAIN) and (
            len(placed) == 1 or placed[0].score - placed[1].score >= OTHER_PLACE):
        best = placed[0]
    pieces = pieces or _pieces(binary, area_min)
    if best is not found:
        # one box's corners, tripled, carry its error threefold: the grid is fitted through every box it shows
        fitted = _through_boxes(best.corners, pieces)
        if fitted is not None:
            score = structure_score(probe, fitted)
            if score >= best.score:
                best = GridQuad(fitted, score)
        return best
    rebuilt = _from_pieces(pieces, probe, min_score, area_min)
    if rebuilt is not None and _box_of(box, rebuilt.corners):
        return rebuilt
    return found


INKED_CELLS = 17  # cells holding ink that a grid found by its box lines alone needs (a puzzle's fewest givens)
# Box-line score (:func:`box_line_score`) that makes an outline a grid whose thin lines a blur took. Box lines
# alone hardly tell a grid from a part of it (two rows of boxes put cell lines where box lines would be): of the
# other large outlines of the train photos, as taken, blurred and shaken, a quarter pass. So it is the last
# resort, where no pass found a grid or only a part of one (``_box_lined``): on the train split that changes
# nothing under the benchmark's conditions or an 11 px streak, and under a 2.4 px defocus finds three pen-and-
# pencil pages that had no grid (their solutions agree: 60 -> 63 of 64)
BOX_LINES = 0.45


def box_line_score(gray: np.ndarray, quad: np.ndarray) -> float:
    """How much the inside looks like a grid by its four thick lines alone: ink on the box lines (the border's
    and the two across each way) against the cells' middles, the least over both directions.

    Out of focus, a filled-in page's thin lines fade below the threshold while its box lines hold, and the
    digits between them spoil :func:`structure_score` (``tests/test_vision.py``'s filled page, blurred: under 0).
    """
    side, m = 9 * PROBE, PROBE // 2
    ink = _probe_ink(gray, quad)
    scores = []
    for profile in (ink[m: m + side, :].mean(axis=0), ink[:, m: m + side].mean(axis=1)):
        on = min(profile[m + k * PROBE - 3: m + k * PROBE + 4].max() for k in (0, 3, 6, 9))
        off = np.median([np.median(profile[m + k * PROBE + 5: m + (k + 1) * PROBE - 4]) for k in range(9)])
        scores.append(float(on - off))
    return min(scores)


def _box_lined(small: np.ndarray, largest: list[np.ndarray], found: GridQuad | None,
               area_min: float) -> GridQuad | None:
    """The largest outline that looks like a grid by its box lines alone (``BOX_LINES``), when no grid was found or
    only one that hardly looks like one: then only an outline holding it (the part of the grid it is) counts.

    A filled-in page out of focus: the thin lines fade and the digits fill the cells, and no outline passes
    :func:`structure_score` but one of its boxes, or none. A chessboard's squares are no Sudoku (``SOLID_CELLS``).
    """
    for contour in largest:
        quad = approx_quad(contour)
        if quad is None or cv2.contourArea(quad) < area_min:
            continue
        if found is not None and not (cv2.contourArea(quad) > 2 * cv2.contourArea(found.corners)
                                      and _contains(quad, found.corners.mean(axis=0))):
            continue
        if (box_line_score(small, quad) >= BOX_LINES and _solid_cells(small, quad) <= SOLID_CELLS
                and _inked_cells(small, quad) >= INKED_CELLS):
            return GridQuad(quad.astype(np.float32), structure_score(small, quad))
    return None


def _through_boxes(quad: np.ndarray, pieces: list[tuple[float, np.ndarray]]) -> np.ndarray | None:
    """The grid's outline fitted through the corners of the boxes (closed holes a ninth of ``quad``) that lie
    at the box places ``quad`` predicts, when three or more do; None when fewer."""
    ninth = cv2.contourArea(quad.astype(np.float32)) / 9
    seen, places = [], []
    for area, contour in pieces:
        if not 0.6 * ninth < area < 1.4 * ninth:
            continue
        hole = _quad_from_contour(contour)
        if hole is None:
            continue
        uv = _in_boxes(quad, hole)
        corner = np.round(uv)
        if (np.abs(uv - corner) > 0.2).any() or not (np.ptp(corner, axis=0) == 1).all():
            continue
        seen.append(hole)
        places.append(corner)
    if len(seen) < 3:
        return None
    hmat, _ = cv2.findHomography(np.vstack(places).astype(np.float32), np.vstack(seen).astype(np.float32))
    if hmat is None:
        return None
    return cv2.perspectiveTransform((_UNIT * 3).reshape(-1, 1, 2), hmat).reshape(4, 2).astype(np.float32)


def _in_boxes(quad: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points in the grid ``quad``'s box units: (0, 0) its top-left corner, (3, 3) its bottom-right."""
    to_unit = cv2.getPerspectiveTransform(quad.astype(np.float32), _UNIT * 3)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), to_unit).reshape(-1, 2)


def _box_of(box: np.ndarray, quad: np.ndarray) -> bool:
    """``box`` is one of the nine boxes of the grid ``quad``: a ninth of it, at one of the box places."""
    uv = _in_boxes(quad, box)
    return bool((np.abs(uv - np.round(uv)) < 0.15).all() and (np.ptp(uv, axis=0) > 0.7).all()
                and (np.ptp(uv, axis=0) < 1.3).all())


def _flatter(gray: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """A bent fit, or the flat grid that most of its crossings agree on, whichever fits the lines better.

    An outline whose corner is a quarter cell off (a grid rebuilt from its boxes) starts the fit off its
    lines there, and the fit can bend to neighbouring print. The crossings that did land on lines give
    a homography (RANSAC); fitted again from it, a flat page's grid comes out flat and on its lines. It
    must fit clearly better (``FLATTER``): a curled page's flat refit can score a hair above its own fit.
    A "bend" at a few crossings only (``LOCAL_BEND``: all but these few on one homography) is no page's
    curl but a corner pulled off a faint outer border, which the score (inner lines) does not see: there
    the flat refit is taken when it fits as well.
    """
    ideal = np.stack(np.meshgrid(np.arange(10), np.arange(10)), -1).reshape(-1, 2).astype(np.float32)
    cell = float(np.linalg.norm(lattice[0, 0] - lattice[9, 9])) / (9 * 2**0.5)
    hmat, inliers = cv2.findHomography(ideal, lattice.reshape(-1, 2).astype(np.float32), cv2.RANSAC, 0.1 * cell)
    if hmat is None:
        return lattice
    guess = cv2.perspectiveTransform(ideal[None], hmat)[0].reshape(10, 10, 2)
    flat, contrast = refine(gray, guess, cell=24, reach=0.2, rounds=1)
    gain = structure_score(gray, corners_of(flat), flat) - structure_score(gray, corners_of(lattice), lattice)
    local = inliers is not None and len(ideal) - int(inliers.sum()) <= LOCAL_BEND
    return flat if contrast > 0 and (gain >= FLATTER or (local and gain >= 0)) else lattice


AGREE = 0.25  # cells: a refitted corner this close to the outline's agrees with it


def cell_side(corners: np.ndarray) -> float:
    """A grid's typical cell side in pixels, from its corners' diagonal (TL to BR)."""
    return float(np.linalg.norm(corners[0] - corners[2])) / (9 * 2**0.5)


def _corners_moved(fit: np.ndarray, outline: np.ndarray, cells: float) -> int:
    """How many of ``fit``'s corners lie more than ``cells`` of ``outline``'s cells from ``outline``'s."""
    return int((np.linalg.norm(fit - outline, axis=1) > cells * cell_side(outline)).sum())


def _agrees(fit: np.ndarray, outline: np.ndarray) -> bool:
    """A flat refit's corners against the outline's they were fitted from: all but one within ``AGREE`` cells.
    image1049 (a fold at one corner) moves that corner half a cell and the others a tenth (the outline's
    outer edge to the lines' centres): one corner set right, the rest of the outline confirmed."""
    return _corners_moved(fit, outline, AGREE) <= 1


def find_grid(image: np.ndarray, min_score: float = 0.25, min_area: float = 0.02,
              allow_cut: bool = True, precise: bool = True, passes: int = ALL,
              agreeing: bool = False) -> GridQuad | None:
    """The puzzle's grid in ``image`` (BGR or gray), or None when there is none.

    ``allow_cut=False`` (the live loop) refuses a grid with two corners on one
    edge of the picture: one entering or leaving the view, whose corners would
    be wrong. A photo keeps it: people crop close. ``precise`` fits the
    crossings to the lines at full resolution (a few ms); without it a flat
    grid's corners are the outline's (the live loop, where tracking refines).
    ``agreeing`` (with ``precise``) takes a fit that moves a flat outline's
    corners only when it is flat (refitted flat, and no bend left after its
    refinement) and keeps all but one of them (``_agrees``):
    one corner off its lines (a fold, a border missing there) is set right,
    while a fit that noise or a glare bent keeps the outline's corners.

    Passes, cheapest first: the plain binary image; long lines only (a grid
    touching text or a second puzzle); a gentler threshold (faint print); the
    grid rebuilt from its boxes or cells (an outline merged with other print).
    ``passes=CLEAR`` stops after the first two, ``FLAT`` before the curled and cut
    ones: quicker looks (the live page's probe for a new puzzle beside those it tracks).
    A photo (``allow_cut``) in which no pass finds a clear grid is searched once more smoothed, when a dim room's
    noise speckles it (``speckle``; a grid found there replaces another one found first, ``_another_grid``), and
    with a shaken camera's streak taken out, when it shows one.
    """
    return _search(to_gray(image), min_score, min_area, allow_cut, precise, passes, streaked=allow_cut,
                   agreeing=agreeing)[0]


Searched = tuple[GridQuad | None, tuple[np.ndarray, list[np.ndarray]] | None, float]


def _search(gray: np.ndarray, min_score: float = 0.25, min_area: float = 0.02, allow_cut: bool = True,
            precise: bool = True, passes: int = ALL, streaked: bool = False, agreeing: bool = False) -> Searched:
    """:func:`find_grid` on a grey picture, with the working-size picture it searched, that picture's largest
    outlines and its scale (where :func:`find_grids` looks for the other puzzles). ``passes``: ``CLEAR``, the
    first two only (a grid checked for one inside it); ``FLAT``, not the curled or cut ones (an outline that
    hardly looks like a grid, beside the puzzle found: most are none, and those passes cost the most).

    ``streaked``: a picture where no pass finds a grid, or only one that hardly looks like a grid (under
    ``CLEAR_SCORE``), is looked at once more with a shaken camera's streak taken out
    (:func:`ar_sudoku.vision.deblur.picture_streak`): a streak across the grid's lines smears them into the
    paper, and its outline breaks (or holds two boxes of three, train image1 under an 11 px streak). Only
    such a picture pays for the measure.
    """
    h, w = gray.shape[:2]
    if min(h, w) < MIN_GRID_SIDE:  # a sliver (20000x2) or a dot: no grid, and nothing to shrink it to
        return None, None, 1.0
    scale = min(1.0, WORK_SIZE / max(h, w))
    small = shrink(gray, (round(w * scale), round(h * scale))) if scale < 1 else gray
    searched = _look(gray, small, scale, min_score, min_area, allow_cut, precise, passes, agreeing)
    first = searched[0]
    if (first is not None and first.score >= CLEAR_SCORE) or not streaked or passes != ALL:
        return searched
    if speckle(small) > SPECKLED:
        # a dim room's speckle breaks the thresholded outline into pieces; smoothed, its lines join again
        smoothed = cv2.GaussianBlur(small, (0, 0), SPECKLE_SIGMA)
        quiet = _look(gray, smoothed, scale, min_score, min_area, allow_cut, precise, passes, agreeing)
        if quiet[0] is not None and (first is None or _another_grid(quiet[0], first, smoothed, scale)):
            return quiet
    streak = picture_streak(small)
    clear = None if streak is None else deconvolve(small, streak)
    again = None if clear is None else _look(gray, clear, scale, min_score, min_area, allow_cut, False, passes)
    if again is None or again[0] is None:
        return searched if first is not None else _defocused(gray, small, scale, min_score, min_area, precise,
                                                              agreeing, searched)
    assert streak is not None and clear is not None
    # a grid already found (part of the grid, or a grid a column off: the streak smeared its lines) is
    # replaced only by one that looks clearly more like a grid on the clear picture: the new one by its corners
    # (its crossings, if curled, were fitted on the streaked picture), the first as ``_clear_score`` says
    if first is not None and (structure_score(clear, again[0].corners * scale)
                              < _clear_score(clear, first, scale) + STREAK_GAIN):
        return searched
    if not precise:
        return again
    # the crossings are fitted at full resolution, where the streak smears the lines too (and pulls the fit
    # along it): the grid's part of the picture is deconvolved first
    pts = again[0].corners if again[0].lattice is None else again[0].lattice.reshape(-1, 2)
    reach = 0.1 * float(np.ptp(pts, axis=0).max())
    x0, y0 = np.maximum(np.floor(pts.min(axis=0) - reach).astype(int), 0)
    x1, y1 = np.ceil(pts.max(axis=0) + reach).astype(int)
    sharp = gray.copy()
    sharp[y0:y1, x0:x1] = deconvolve(gray[y0:y1, x0:x1], streak.scaled(1 / scale))
    return _look(sharp, clear, scale, min_score, min_area, allow_cut, precise, passes, agreeing)


MOVED = 1.0  # cells: a grid found smoothed with two corners this far from the first one's is another grid


def _another_grid(quiet: GridQuad, first: GridQuad, smoothed: np.ndarray, scale: float) -> bool:
    """Whether the grid found on the smoothed picture (``quiet``) is another grid than the ``first`` one, and looks
    more like one there: the speckle broke the first's outline (a dark bottom row lost, the rest taken for a grid
    cut by the picture's edge). Two corners more than ``MOVED`` cells apart; the same grid is kept as first fitted."""
    if _corners_moved(quiet.corners, first.corners, MOVED) < 2:
        return False
    lattice = None if first.lattice is None else first.lattice * scale
    return quiet.score > structure_score(smoothed, first.corners * scale, lattice)


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


def _clear_score(clear: np.ndarray, quad: GridQuad, scale: float) -> float:
    """How much the grid first found (``quad``, in full-size pixels; ``clear`` at ``scale`` of them, the streak
    taken out) looks like a grid on the clear picture: a curled fit by the worse of its corners and its crossings.

    Its own score, on the streaked picture, flatters a fit the streak's ghosts bent; by its corners alone, a fit on
    the grid's corners may have its crossings on the digits' smears (held-out image1055 under the benchmark's 7 px
    streak: 0.56 by its corners, 0.31 as its cells would be cut). A curled page's crossings fit its lines better
    than its corners' flat grid does: it keeps its corners' score, as before.
    """
    outline = structure_score(clear, quad.corners * scale)
    if not quad.bent or quad.lattice is None:
        return outline
    return min(outline, structure_score(clear, quad.corners * scale, quad.lattice * scale))


def _defocused(gray: np.ndarray, small: np.ndarray, scale: float, min_score: float, min_area: float,
               precise: bool, agreeing: bool, searched: Searched) -> Searched:
    """A photo where no pass finds a grid, looked at once more sharpened (an unsharp mask at the working size):
    out of focus, a book's thin lines fade into the paper, and the outline found holds too little of a grid's
    structure to pass (train pen-and-pencil pages blurred by 2.4 px on 640); ``searched`` when that finds none."""
    blurred = cv2.GaussianBlur(small, (0, 0), SHARPEN_SIGMA)
    sharp = cv2.addWeighted(small, 1 + SHARPEN, blurred, -SHARPEN, 0)
    again = _look(gray, sharp, scale, min_score, min_area, True, precise, ALL, agreeing)
    if again[0] is None or _solid_cells(small, again[0].corners * scale) > SOLID_CELLS:
        # last, a page written in to its last cell: its box lines alone (the thin ones faded)
        found = _box_lined(small, searched[1][1][:8] if searched[1] else [], None,
                           min_area * small.shape[0] * small.shape[1])
        if found is None:
            return searched
        return _fitted(gray, found, scale, precise, agreeing), searched[1], scale
    return again


def _inked_cells(gray: np.ndarray, quad: np.ndarray) -> int:
    """The cells of the grid ``quad`` whose middle holds ink (its darkest pixels darker than halfway from ink to
    paper): a page whose digits hide its thin lines is written in well beyond a puzzle's fewest givens."""
    middles, halfway = _cell_middles(gray, quad, PROBE // 4)
    return int((np.percentile(middles, 5, axis=1) < halfway).sum())


def _solid_cells(gray: np.ndarray, quad: np.ndarray) -> int:
    """The cells of the grid ``quad`` whose middle is mostly ink (darker than halfway from ink to paper).

    Sharpened, any sharp edge is a line, and a chessboard's squares make a grid of them; a Sudoku's cells hold
    thin strokes on paper (the blurred pages the sharpened look finds: 0-3 such cells; a chessboard: 24-25).
    """
    middles, halfway = _cell_middles(gray, quad, PROBE // 5)
    return int((np.median(middles, axis=1) < halfway).sum())


def _cell_middles(gray: np.ndarray, quad: np.ndarray, m: int) -> tuple[np.ndarray, float]:
    """The 81 cells of the grid ``quad`` warped at ``PROBE`` px a cell, ``m`` px cut off each side (its lines),
    as rows of pixels; and the grey level halfway from the grid's ink to its paper."""
    side = 9 * PROBE
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warped = cv2.warpPerspective(gray, cv2.getPerspectiveTransform(quad.astype(np.float32), dst), (side, side),
                                 flags=cv2.INTER_AREA).astype(np.float32)
    lo, hi = np.percentile(warped, [2, 90])
    cells = warped.reshape(9, PROBE, 9, PROBE)[:, m: PROBE - m, :, m: PROBE - m].transpose(0, 2, 1, 3)
    return cells.reshape(81, -1), float(lo + hi) / 2


def _look(gray: np.ndarray, small: np.ndarray, scale: float, min_score: float, min_area: float, allow_cut: bool,
          precise: bool, passes: int, agreeing: bool = False) -> Searched:
    """:func:`_search`'s passes over ``small`` (``gray`` at ``scale``, the working size)."""
    area_min = min_area * small.shape[0] * small.shape[1]
    binary = binarize(small)
    largest = _largest(binary, OTHER_OUTLINES)  # the first eight are the search's; the rest, other puzzles'
    found = _best_quad(binary, small, min_score, area_min, allow_cut, largest[:8])
    if found is None or found.score < CLEAR_SCORE:
        # text or a smudge glued to the border bends the outline: the long lines alone may fit better
        lines = _best_quad(long_lines(binary), small, min_score, area_min, allow_cut)
        if lines is not None and (found is None or lines.score > found.score):
            found = lines
    if found is None and passes == CLEAR:
        return None, (small, largest), scale
    if found is None:
        faint = binarize(small, 3)
        found = _best_quad(faint, small, min_score, area_min, allow_cut) or _best_quad(
            long_lines(faint), small, min_score, area_min, allow_cut
        )
    if found is None:  # a shadow across the page: its edge, thresholded, is a line that joins the border
        flat = unshade(small)
        found = _best_quad(binarize(flat), flat, min_score, area_min, allow_cut)
    pieces = _pieces(binary, area_min) if found is None else []
    if found is None:
        found = _from_pieces(pieces, small, min_score, area_min)
    if passes == FLAT and found is None:
        return None, (small, largest), scale
    if found is None or found.score < CLEAR_SCORE:
        curled = _best_curled(binary, small, min_score, area_min, found, allow_cut)
        if curled is None and allow_cut:
            # a photo (not the live loop, where the next frame may do): thin lines broken at the working size
            # open the outline into the grid; closed by a pixel, or thresholded more gently, they hold it
            curled = _best_curled(cv2.dilate(binary, np.ones((3, 3), np.uint8)), small, min_score, area_min,
                                  found, allow_cut)
            if curled is None:
                curled = _best_curled(binarize(small, 3), small, min_score, area_min, found, allow_cut)
        if curled is not None and (allow_cut or not _cut_by_frame(curled.corners, small.shape)):
            found = curled
    if found is not None and found.score < CLEAR_SCORE:
        found = _whole_of_box(found, binary, small, min_score, area_min, pieces)
    if found is not None and found.score < CLEAR_SCORE and passes == ALL:
        found = _box_lined(small, largest[:8], found, area_min) or found
    open_sides: list[int] = []  # sides of a cut grid whose line lies outside the picture: extrapolated
    if found is None and allow_cut:
        cut = _from_cut_pieces(pieces, small, min_score, area_min)
        if cut is not None:
            found, open_sides = cut
    if found is None:
        return None, (small, largest), scale
    return _fitted(gray, found, scale, precise, agreeing, open_sides), (small, largest), scale


def _fitted(gray: np.ndarray, found: GridQuad, scale: float, precise: bool, agreeing: bool,
            open_sides: list[int] | None = None) -> GridQuad:
    """The grid ``found`` at the working size (``scale``), in ``gray``'s pixels: its crossings fitted to the lines
    at full resolution when ``precise`` (see :func:`find_grid`); ``open_sides``, a cut grid's sides outside the
    picture, extrapolated."""
    if found.lattice is None and not precise:
        return GridQuad(found.corners / scale, found.score)
    # the crossings fitted to the lines at full resolution, where the cells will be cut: the outline's
    # corners sit on the border's outer edge, and a curled page's small-scale fit is coarse
    guess = found.crossings() / scale
    lattice: np.ndarray | None
    lattice, contrast = refine(gray, guess, cell=24, reach=0.2, rounds=1)
    if contrast <= 0:
        lattice = guess if found.lattice is not None else None
    if open_sides:  # refine has no line there to fit
        assert lattice is not None  # open sides come with a cut grid's fitted crossings
        lattice = extend_sides(lattice, open_sides)
    elif lattice is not None and bend_of(lattice) >= BENT:
        flat = _flatter(gray, lattice)
        if flat is not lattice:  # the outline's corners were off its lines: the refitted grid's own corners
            outline = found.corners / scale
            if agreeing and found.lattice is None and (bend_of(flat) >= BENT
                                                       or not _agrees(corners_of(flat), outline)):
                return GridQuad(outline, found.score)
            return GridQuad(corners_of(flat), found.score, flat)
    if lattice is None or bend_of(lattice) < BENT:
        return GridQuad(found.corners / scale, found.score, lattice)
    if agreeing and found.lattice is None:  # a flat outline the fit bent: the outline is trusted more
        return GridQuad(found.corners / scale, found.score)
    return GridQuad(corners_of(lattice), found.score, lattice)


OTHER_OUTLINES = 24  # outlines kept from the first search, where the other puzzles of a page are looked for
MOST_GRIDS = 6  # puzzles looked for in one picture (a newspaper page prints two or three, a magazine four)
OTHER_SHARE = 0.15  # another puzzle's outline is at least this share of the first one's (a children's 6x6)
OTHER_GATE = 0.05  # structure score an outline's own quad needs before its neighbourhood is searched (flat)
FULL_GATE = 0.1  # ... and before it is searched with every pass (curled, cut)
LIKE_SIZE = (0.5, 2.5)  # of the largest grid's area: an outline this size is searched whatever its score (a
# photo pasted beside another: its edge and the grid's outline merge into a shape that scores nothing)
CROP_MARGIN = 0.08  # of an outline's size, kept around it when it is searched on its own
INSET = 0.04  # of a grid's size, cut off all round when its inside is searched for a grid it framed
FRAME_BAND = 0.006  # of a grid's size: the band inside a frame painted over with the frame's outside
# of the frame's crop: the least outline searched inside it (a grid's outline broken by blur or a fold encloses
# less than the grid; image23 and image26, a blurred grid on a photo's edge: its outline 0.2-0.3)
FRAMED_AREA = 0.2
FRAMED = (0.4, 0.85)  # of a grid's area: an outline inside it that may be the grid it frames (its own
# border's inner edge: 0.9 and more)
# a picture this much longer than high (or high than long) is a page of puzzles side by side, searched in squares
# too: two photos side by side make pages of 1.1-2.4 (median 2.0), a camera's 16:9 frame is 1.78
WIDE = 1.9
INNER_SHARE = (0.16, 0.6)  # of the first grid's area: the puzzles of a page taken for a grid (its boxes: 1/9)
# a grid of a page scoring below this may be a pasted photo's edge taken for its border, the puzzle's lines
# fitted inside it (the training photos' own grids, fitted: 0.66-0.8; such fits: 0.25-0.7, curled or a row off)
FRAMED_SCORE = 0.6
NARROW = 0.75  # a grid whose short sides are this share of its long ones or less is not a whole square puzzle


def _contains(quad: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), (float(point[0]), float(point[1])),
                                False) >= 0


def _overlaps(a: np.ndarray, b: np.ndarray, share: float = 0.1) -> bool:
    """Two grids' outlines share more than ``share`` of the smaller one, or one holds the other's centre."""
    if _contains(a, b.mean(axis=0)) or _contains(b, a.mean(axis=0)):
        return True
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > share * min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))


def reading_order(grids: list[GridQuad]) -> list[GridQuad]:
    """Grids as a page is read: rows from the top, then left to right within a row.

    A row is the grids whose heights overlap (by half of the shorter one), not the same y: a page
    photographed at a tilt puts one puzzle of a row a little higher than its neighbour.
    """
    # each grid's top, bottom and middle, taken once (a live page orders its puzzles on every frame)
    span = {id(g): (float(g.corners[:, 1].min()), float(g.corners[:, 1].max())) for g in grids}
    rows: list[list[GridQuad]] = []
    for g in sorted(grids, key=lambda g: span[id(g)][0]):
        top, bottom = span[id(g)]
        for row in rows:
            r_top = min(span[id(o)][0] for o in row)
            r_bottom = max(span[id(o)][1] for o in row)
            if min(bottom, r_bottom) - max(top, r_top) > 0.5 * min(bottom - top, r_bottom - r_top):
                row.append(g)
                break
        else:
            rows.append([g])
    return [g for row in rows for g in sorted(row, key=lambda g: float(g.corners[:, 0].mean()))]


def _shifted(grid: GridQuad, dx: float, dy: float) -> GridQuad:
    d = np.array([dx, dy], np.float32)
    return GridQuad(grid.corners + d, grid.score, None if grid.lattice is None else grid.lattice + d)


def _area(quad: np.ndarray) -> float:
    return float(cv2.contourArea(quad.astype(np.float32)))


def _search_around(gray: np.ndarray, outline: np.ndarray, min_score: float, passes: int = ALL) -> GridQuad | None:
    """The grid in the neighbourhood of ``outline`` (full-resolution pixels), searched on its own crop
    (with ``passes`` of :func:`_search`).

    A grid found there whose inside holds a clearer grid of half its size or more was the frame around
    it (a photo's edge, a box on the page): the inner one is taken.
    """
    h, w = gray.shape[:2]
    x0, y0, bw, bh = cv2.boundingRect(outline.reshape(-1, 1, 2).astype(np.float32))
    m = round(CROP_MARGIN * max(bw, bh))
    x0, y0, x1, y1 = max(0, x0 - m), max(0, y0 - m), min(w, x0 + bw + m), min(h, y0 + bh + m)
    found = _search(gray[y0:y1, x0:x1], min_score, 0.2, passes=passes)[0]
    if found is None:
        return None
    found = _shifted(found, x0, y0)
    bx, by, bw, bh = cv2.boundingRect(found.corners.reshape(-1, 1, 2).astype(np.float32))
    m = round(INSET * max(bw, bh))
    ix, iy = max(0, bx + m), max(0, by + m)
    if min(bw, bh) > 4 * m:
        inner = _search(gray[iy:max(iy, by + bh - m), ix:max(ix, bx + bw - m)], min_score, 0.3, passes=CLEAR)[0]
        if inner is not None:
            inner = _shifted(inner, ix, iy)
            if inner.score >= found.score + 0.05 and _area(inner.corners) >= 0.5 * _area(found.corners):
                return inner
    return found


def _open_outlines(small: np.ndarray, largest: list[np.ndarray],
                   area_min: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Outlines (and quads) with too little area of their own but a quad of ``area_min`` or more that clearly
    looks like a grid (``CLEAR_SCORE``): a grid whose border a blur or faint print breaks open at the working
    size traces a thin line round it, not a closed shape (image44 on a page of three: its outline's own area a
    twentieth of its quad's, its structure score 0.71). Rules and text columns, open too, do not look so."""
    out = []
    for contour in largest:
        if cv2.contourArea(contour) >= area_min:
            continue  # a closed outline: among ``_outlines``'
        quad = _quad_from_contour(contour)
        if quad is None or _area(quad) < area_min:
            continue
        sides = [np.hypot(*(quad[k] - quad[(k + 1) % 4])) for k in range(4)]
        if min(sides) >= 0.35 * max(sides) and structure_score(small, refine_corners(contour, quad)) >= CLEAR_SCORE:
            out.append((contour, quad))
    return out


def _at_least(shapes: list[tuple[np.ndarray, np.ndarray]], area: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The outlines (and quads) of ``shapes`` as :func:`_outlines` gives them for ``area``."""
    return [(c, q) for c, q in shapes if cv2.contourArea(c) >= area and _area(q) >= area]


def _unframed(grid: GridQuad, gray: np.ndarray, small: np.ndarray, scale: float,
              shapes: list[tuple[np.ndarray, np.ndarray]], min_score: float) -> GridQuad:
    """The grid, or the clearer grid it frames: a photo's edge on a page of pasted photos, a box around a
    puzzle. Only an outline well inside it (``FRAMED`` of its area) that looks more like a grid is tried."""
    outer = grid.corners * scale
    area = _area(outer)
    for contour, quad in _at_least(shapes, FRAMED[0] * area):
        if _area(quad) > FRAMED[1] * area or not _contains(outer, quad.mean(axis=0)):
            continue
        if structure_score(small, refine_corners(contour, quad)) < grid.score + 0.05:
            continue
        inner = _search_around(gray, quad / scale, min_score)
        if inner is not None and inner.score >= grid.score + 0.05 and _contains(grid.corners, inner.corners.mean(0)):
            return inner
    return grid


@dataclass(frozen=True)
class PageGrids:
    """What :func:`find_page_grids` sees on a page: its 9x9 grids, in reading order, and the outlines with the
    look of a grid that hold none (full-resolution quads): a 4x4, 6x6 or 16x16 puzzle's, perhaps, which
    only those outlines make worth looking for beside a solved 9x9 one."""

    grids: list[GridQuad]
    unlike: list[np.ndarray]


def find_grids(image: np.ndarray, min_score: float = 0.25, min_area: float = 0.02,
               most: int = MOST_GRIDS) -> list[GridQuad]:
    """Every puzzle's 9x9 grid in a photo, in reading order (:func:`find_page_grids`'s ``grids``)."""
    return find_page_grids(image, min_score, min_area, most).grids


def find_page_grids(image: np.ndarray, min_score: float = 0.25, min_area: float = 0.02,
                    most: int = MOST_GRIDS) -> PageGrids:
    """Every puzzle's grid in a photo (a newspaper page prints two or three side by side), in reading order.

    The first is :func:`find_grid`'s, found as it finds it, so a photo of one puzzle costs one more
    look at the outlines it already has. When two or more clear grids lie inside it, it was the page
    around them (its rows of puzzles can line up as a grid's lines do), and they replace it. The
    others come from the same outlines: each one that is not inside, around or across a grid found,
    is large enough beside the first, and shows some line structure is searched on its own (cropped,
    at its own resolution, with every pass :func:`find_grid` has). A grid cut by the picture's edge is
    not another puzzle (the neighbour of a photographed one, half in view); a grid overlapping one
    found is that one. On a page, a grid fitted curled or hardly a grid may be a pasted photo's edge
    taken for its border: the clearer grid inside that edge is taken (:func:`_clearer_inside`).
    """
    gray = to_gray(image)
    first, pictures, scale = _search(gray, min_score, min_area, streaked=True)
    if first is None or pictures is None:
        return PageGrids([], [])
    small, largest = pictures
    outer = first.corners * scale
    first_area = _area(outer)
    inner: list[GridQuad] = []
    # the outlines every step below looks at, their quads made once
    shapes = _outlines(small, min(INNER_SHARE[0], OTHER_SHARE) * first_area, True, largest)
    for contour, quad in _at_least(shapes, INNER_SHARE[0] * first_area):
        if _area(quad) > INNER_SHARE[1] * first_area or not _contains(outer, quad.mean(axis=0)):
            continue
        if any(_overlaps(quad / scale, g.corners) for g in inner):
            continue
        if structure_score(small, refine_corners(contour, quad)) < CLEAR_SCORE:
            continue
        found = _search_around(gray, quad / scale, min_score)
        if found is not None and not any(_overlaps(found.corners, g.corners) for g in inner):
            inner.append(found)
    grids = inner if len(inner) >= 2 else [_unframed(first, gray, small, scale, shapes, min_score)]
    unlike: list[np.ndarray] = []
    size = max(_area(g.corners) for g in grids) * scale * scale
    area_min = max(min_area * small.shape[0] * small.shape[1], OTHER_SHARE * size)
    if area_min < min(INNER_SHARE[0], OTHER_SHARE) * first_area:  # the page's puzzles are smaller than it
        shapes = _outlines(small, area_min, True, largest)
    for contour, quad in _at_least(shapes, area_min) + _open_outlines(small, largest, area_min):
        if len(grids) >= most:
            break
        outline = quad / scale
        if any(_overlaps(outline, g.corners) for g in grids):
            continue
        looks = structure_score(small, refine_corners(contour, quad))
        if looks < OTHER_GATE and not LIKE_SIZE[0] * size <= _area(quad) <= LIKE_SIZE[1] * size:
            continue
        passes = ALL if looks >= FULL_GATE else FLAT
        found = _search_around(gray, outline, min_score, passes)
        if found is None and _aspect(outline) <= NARROW:
            found = _part_of_grid(gray, outline, min_score, passes)
        if found is None:
            unlike.append(outline)
        if found is not None and (found.bent or found.score < FRAMED_SCORE):
            found = _clearer_inside(gray, GridQuad(outline, looks), found, min_score)
        if found is not None and _cut_by_frame(found.corners, gray.shape):
            # a pasted photo's edge cut by the page's: the grid it frames may be whole
            found = _inside_frame(gray, found, min_score)
        if found is None or _cut_by_frame(found.corners, gray.shape):
            continue
        if not any(_overlaps(found.corners, g.corners) for g in grids):
            grids.append(found)
    if len(grids) < most and max(gray.shape[:2]) > WIDE * min(gray.shape[:2]):
        grids += _in_strips(gray, grids, min_score, most - len(grids))
    if len(grids) > 1 and (grids[0].bent or grids[0].score < FRAMED_SCORE):
        # on a page, the first grid too may be a pasted photo's edge fitted with the puzzle's lines
        grids[0] = _refound(gray, grids[0], scale, shapes, min_score)
    grids = reading_order([_squared(gray, g, min_score) for g in grids])
    return PageGrids(grids, [u for u in unlike if not any(_overlaps(u, g.corners) for g in grids)])


def _aspect(corners: np.ndarray) -> float:
    """A quad's mean short side over its mean long side (opposite sides averaged)."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    across, down = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(min(across, down) / max(across, down, 1e-6))


def _part_of_grid(gray: np.ndarray, outline: np.ndarray, min_score: float, passes: int) -> GridQuad | None:
    """The grid an outline much narrower than long (``NARROW``) is a part of, when nothing is found around it.

    A grid whose lines a glare or a fold breaks at the working size can leave its top rows for an outline of
    their own (image209 on a page: rows one to six, the rest lost in the shadow below): the neighbourhood is
    searched as a square as long as the outline, from either end of its short side and about its middle;
    the clearest grid holding the outline's centre, not cut by the picture's edge, is taken (``_clarity``)."""
    x, y, w, h = cv2.boundingRect(outline.reshape(-1, 1, 2).astype(np.float32))
    long = max(w, h)
    if w >= h:
        spans = [(y, y + long), (y + h - long, y + h), (y + h / 2 - long / 2, y + h / 2 + long / 2)]
        boxes = [(x, a, x + w, b) for a, b in spans]
    else:
        spans = [(x, x + long), (x + w - long, x + w), (x + w / 2 - long / 2, x + w / 2 + long / 2)]
        boxes = [(a, y, b, y + h) for a, b in spans]
    centre = outline.mean(axis=0)
    best: GridQuad | None = None
    for x0, y0, x1, y1 in boxes:
        box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        found = _search_around(gray, box, min_score, passes)
        if found is None or _cut_by_frame(found.corners, gray.shape) or not _contains(found.corners, centre):
            continue
        if best is None or _clarity(gray, found) > _clarity(gray, best):
            best = found
    return best


CURL_DOUBT = 0.05  # structure score a curled fit gives up against a flat one when fits are compared (_clarity)


def _clarity(gray: np.ndarray, grid: GridQuad) -> float:
    """A fit's structure score on the full picture, through its own crossings: fits found on different crops
    (each scored at its own working size) compared on one footing. image209 on a page: a curled fit that took
    the box's rule above the grid for its top line, 0.661 on its crop against the true grid's 0.658, is
    0.68 against 0.73 here; image87's, bent out into the text beside it, 0.68 against 0.76. A curled fit
    bends to the lines near it and so scores a little higher than a flat one of the same grid: it gives up
    ``CURL_DOUBT`` (image77 on a page: a curled fit 0.731 that misreads a 6 as 5 and solves, the flat 0.722)."""
    return structure_score(gray, grid.corners, grid.lattice) - (CURL_DOUBT if grid.bent else 0.0)


def _squared(gray: np.ndarray, grid: GridQuad, min_score: float) -> GridQuad:
    """A grid found much narrower than it is long was a part of a puzzle or a frame around one: a faint
    puzzle's strongest columns, cut at one of its inner lines; a pasted photo's edges, cut close above and
    below its grid. Its neighbourhood is searched again as wide as it is long on each side of it, and its
    inside with only its long sides cut off (a margin kept beyond the others). A fit is taken only when
    it is squarer, holds the narrow one's centre and, from the inside, is clearer and at least half its
    size."""
    if _aspect(grid.corners) > NARROW:
        return grid
    x, y, w, h = cv2.boundingRect(grid.corners.reshape(-1, 1, 2).astype(np.float32))
    long, tall = max(w, h), h > w
    cx, cy = x + w / 2, y + h / 2
    half = (long, h / 2) if tall else (w / 2, long)
    box = np.array([[cx - half[0], cy - half[1]], [cx + half[0], cy - half[1]],
                    [cx + half[0], cy + half[1]], [cx - half[0], cy + half[1]]], np.float32)
    best = grid
    wide = _search_around(gray, box, min_score)
    if wide is not None and not _cut_by_frame(wide.corners, gray.shape) \
            and _contains(wide.corners, grid.corners.mean(0)):
        best = wide
    m = round(INSET * long)
    x0, y0, x1, y1 = (x - m, y + m, x + w + m, y + h - m) if tall else (x + m, y - m, x + w - m, y + h + m)
    inner = _search(gray[max(0, y0):y1, max(0, x0):x1], min_score, 0.3, passes=CLEAR)[0]
    if inner is not None:
        inner = _shifted(inner, max(0, x0), max(0, y0))
        if inner.score >= grid.score + 0.05 and _area(inner.corners) >= 0.5 * _area(grid.corners) \
                and _aspect(inner.corners) > _aspect(best.corners):
            best = inner
    return best if _aspect(best.corners) > _aspect(grid.corners) + 0.1 else grid


def _in_strips(gray: np.ndarray, grids: list[GridQuad], min_score: float, most: int) -> list[GridQuad]:
    """Puzzles of a long page (three side by side) that its whole-picture search sees too small: the page
    searched again in overlapping squares along its length, each at its own resolution; only grids whose
    square holds them whole (not cut by its edges), away from those found."""
    h, w = gray.shape[:2]
    side = min(h, w)
    length = max(h, w)
    out: list[GridQuad] = []
    for start in range(0, max(1, length - side // 2), side // 2):
        if len(out) >= most:
            break
        a = min(start, max(0, length - side))
        tile = gray[:, a:a + side] if w >= h else gray[a:a + side]
        found = _search(tile, min_score, 0.1, passes=FLAT)[0]
        if found is None or _cut_by_frame(found.corners, tile.shape, tol=4.0):
            continue
        found = _shifted(found, a, 0) if w >= h else _shifted(found, 0, a)
        if not any(_overlaps(found.corners, g.corners) for g in grids + out):
            out.append(found)
    return out


def _inside_frame(gray: np.ndarray, grid: GridQuad, min_score: float) -> GridQuad | None:
    """The grid inside ``grid`` taken as a frame: its crop with everything outside the frame's inner edge
    painted the inside's paper colour (no step left for the threshold to take as a line), searched."""
    bx, by, bw, bh = cv2.boundingRect(grid.corners.reshape(-1, 1, 2).astype(np.float32))
    m = max(2, round(INSET * max(bw, bh)))
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = max(0, bx - m), max(0, by - m), min(w, bx + bw + m), min(h, by + bh + m)
    crop = gray[y0:y1, x0:x1].copy()
    inside = np.zeros(crop.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(grid.corners - np.array([x0, y0], np.float32)).astype(np.int32), 1)
    band = max(2, round(FRAME_BAND * max(bw, bh)))
    inside = cv2.erode(inside, np.ones((2 * band + 1, 2 * band + 1), np.uint8))
    if not inside.any():
        return None
    crop[inside == 0] = int(np.median(crop[inside > 0]))
    found = _search(crop, min_score, FRAMED_AREA)[0]
    return None if found is None else _shifted(found, x0, y0)


def _clearer_inside(gray: np.ndarray, frame: GridQuad, found: GridQuad, min_score: float) -> GridQuad:
    """``found``, or the grid inside ``frame`` (:func:`_inside_frame`) when that looks more like a grid.

    A photo pasted on a page (or a box printed round a puzzle) whose edge joins the outline of a blurred or
    faint grid is fitted as a curled grid, or as a flat one a row off, with the edge for a border line;
    with the edge painted over, the grid inside is found as in the photo alone."""
    framed = _inside_frame(gray, frame, min_score)
    if framed is None or not _contains(frame.corners, framed.corners.mean(0)):
        return found
    # clearer by a margin; a flat fit where a curled one was found, clearer at all (both on the full picture,
    # ``_clarity``: each was scored on its own crop)
    gain = 0.0 if found.bent and not framed.bent else 0.05
    return framed if _clarity(gray, framed) > _clarity(gray, found) + gain else found


def _refound(gray: np.ndarray, grid: GridQuad, scale: float, shapes: list[tuple[np.ndarray, np.ndarray]],
             min_score: float) -> GridQuad:
    """A doubtful grid of a page (curled, or hardly a grid) searched again as the others are: inside itself
    taken as a frame, and around and inside each larger outline over it (a pasted photo's edge); the
    clearest fit that holds its centre."""
    best = _clearer_inside(gray, grid, grid, min_score)
    centre = grid.corners.mean(axis=0)
    for _, quad in shapes:
        outline = quad / scale  # (its contour may enclose less: a photo's edge joined to the grid's lines)
        if _area(outline) < _area(grid.corners) or not _overlaps(outline, grid.corners, 0.5):
            continue
        around = _search_around(gray, outline, min_score)
        if around is not None and around.score > best.score and _contains(around.corners, centre):
            best = around
        best = _clearer_inside(gray, GridQuad(outline, 0.0), best, min_score)
    return best


def refits(image: np.ndarray, grid: GridQuad, min_score: float = 0.25) -> list[GridQuad]:
    """Other fits of a grid whose reading fails (a photo's edge or a box taken for its outline, the outline
    a cell off its lines): the grid found inside it, the grid searched for again on a crop around it, and
    the grid inside it taken as a frame. Only fits that move a corner by a quarter of a cell or more."""
    gray = to_gray(image)
    cell = cell_side(grid.corners)
    bx, by, bw, bh = cv2.boundingRect(grid.corners.reshape(-1, 1, 2).astype(np.float32))
    m = round(INSET * max(bw, bh))
    found = []
    ix, iy = max(0, bx + m), max(0, by + m)
    if min(bw, bh) > 4 * m:
        inner = _search(gray[iy:max(iy, by + bh - m), ix:max(ix, bx + bw - m)], min_score, 0.3, passes=FLAT)[0]
        if inner is not None:
            found.append(_shifted(inner, ix, iy))
    around = _search_around(gray, grid.corners, min_score)
    if around is not None:
        found.append(around)
    framed = _inside_frame(gray, grid, min_score)
    if framed is not None:
        found.append(framed)
    out: list[GridQuad] = []
    for g in found:
        moved = min(float(np.abs(np.roll(g.corners, k, axis=0) - grid.corners).max()) for k in range(4))
        if moved >= 0.25 * cell and not any(np.abs(g.corners - o.corners).max() < 0.25 * cell for o in out):
            out.append(g)
    return out
