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

from ar_sudoku.vision.lattice import (
    align,
    bend_of,
    check_sides,
    coons_from_outline,
    corners_of,
    from_corners,
    rectify,
    refine,
)

WORK_SIZE = 640  # long side of the image the search runs on
PROBE = 20  # pixels per cell in the structure test
CLEAR_SCORE = 0.45  # a structure score above this needs no second opinion


BENT = 0.15  # cells: a lattice this far from the flat grid of its corners is read and drawn as curled
CURLED_TRIES = 3  # the largest outlines that are tried as curled grids when no flat one is clear
MAX_BEND = 1.4  # cells: a "curled" fit further than this from flat is a wrong fit, not a page
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


def to_gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def shrink(gray: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Area-average down to ``size``: by a whole factor first (OpenCV's fast path, 8 ms instead of
    30 ms for 12 MP to 640 px), then the small rest by linear interpolation."""
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


def _quad_from_contour(contour: np.ndarray) -> np.ndarray | None:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return order_corners(approx.reshape(4, 2))
    pts = hull.reshape(-1, 2).astype(np.float32)
    s, d = pts.sum(axis=1), pts[:, 0] - pts[:, 1]
    quad = np.array([pts[s.argmin()], pts[d.argmax()], pts[s.argmax()], pts[d.argmin()]], np.float32)
    if len({tuple(p) for p in quad.tolist()}) < 4:
        return None
    return order_corners(quad)


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


def structure_score(gray: np.ndarray, quad: np.ndarray, lattice: np.ndarray | None = None) -> float:
    """How much the inside looks like a 9x9 grid: ink on the 10+10 line positions vs between.

    The quad (with a margin around it) is warped from the grey image to 20 px a
    cell and thresholded there, so thin lines of a small or blurred grid count
    as much as those of a big one; the margin gives the threshold context at the
    border lines.
    """
    side, m = 9 * PROBE, PROBE // 2
    if lattice is not None:  # a curled page: rectified through its own crossings
        warped = rectify(gray, lattice, PROBE, m)
    else:
        dst = np.array([[m, m], [m + side, m], [m + side, m + side], [m, m + side]], np.float32)
        hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
        warped = cv2.warpPerspective(gray, hmat, (side + 2 * m, side + 2 * m), flags=cv2.INTER_AREA,
                                     borderMode=cv2.BORDER_REPLICATE)
    ink = cv2.adaptiveThreshold(warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 11, 3)
    inner = ink[m : m + side, m : m + side]
    scores = []
    for profile in (inner.mean(axis=0), inner.mean(axis=1)):
        # +-3 px: curved paper and lens bending put inner lines a little off their ideal place
        on = [profile[max(0, k * PROBE - 3) : k * PROBE + 4].max() for k in range(1, 9)]
        off = [np.median(profile[k * PROBE + 5 : (k + 1) * PROBE - 4]) for k in range(9)]
        scores.append(float(np.median(on) - np.median(off)))
    return min(scores)


def _outlines(mask: np.ndarray, area_min: float, allow_cut: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """The largest closed outlines with a plausible quad (outline, quad), largest first."""
    # a border of background lets a grid that touches the frame edge still close its contour
    pad = 4
    padded = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    # RETR_LIST, not EXTERNAL: a page edge or a frame around the puzzle encloses the grid's own contour
    contours = imutils.grab_contours(cv2.findContours(padded, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE))
    out = []
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:8]:
        if cv2.contourArea(contour) < area_min:
            break
        contour = contour - pad
        quad = _quad_from_contour(contour)
        if quad is None or cv2.contourArea(quad) < area_min:
            continue
        sides = [np.hypot(*(quad[k] - quad[(k + 1) % 4])) for k in range(4)]
        if min(sides) < 0.35 * max(sides) or (not allow_cut and _cut_by_frame(quad, mask.shape)):
            continue
        out.append((contour, quad))
    return out


def _best_quad(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
               allow_cut: bool = True) -> GridQuad | None:
    best: GridQuad | None = None
    for contour, quad in _outlines(mask, area_min, allow_cut):
        quad = refine_corners(contour, quad)
        score = structure_score(probe, quad)
        if score >= min_score and (best is None or score > best.score + 0.1):
            best = GridQuad(quad, score)
    return best


def _best_curled(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
                 flat: GridQuad | None, allow_cut: bool = False) -> GridQuad | None:
    """A curled page, tried when no flat grid is clear: the largest outlines fitted as lattices.

    An outline on the picture's edge is not tried (its cut side would bend the fit), and when a
    flat grid was found, a curled one must be that grid (the same corners), not a shifted fit.
    """
    best = None
    for contour, quad in _outlines(mask, area_min, allow_cut=True)[:CURLED_TRIES]:
        if not allow_cut and (_cut_by_frame(quad, mask.shape, tol=2.0) or _touches_frame(quad, mask.shape)):
            continue
        curled = _curled(contour, quad, probe)
        if curled is None or curled.score < min_score or bend_of(curled.lattice) > MAX_BEND:
            continue
        if flat is not None:
            if curled.score <= flat.score + 0.05:
                continue
            cell = float(np.linalg.norm(flat.corners[0] - flat.corners[2])) / (9 * 2**0.5)
            if min(float(np.abs(np.roll(curled.corners, k, axis=0) - flat.corners).max())
                   for k in range(4)) > 0.35 * cell:
                continue
        if best is None or curled.score > best.score:
            best = curled
    return best


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
    hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), np.float32([[0, 0], [n, 0], [n, n], [0, n]]))
    moments = [cv2.moments(c) for c in pieces]
    centres = np.float32([[m["m10"] / m["m00"], m["m01"] / m["m00"]] for m in moments]).reshape(-1, 1, 2)
    uv = cv2.perspectiveTransform(centres, hmat).reshape(-1, 2)
    if (np.abs(uv - np.floor(uv) - 0.5) > 0.3).any():
        return False
    places = {(int(u), int(v)) for u, v in uv if 0 <= u < n and 0 <= v < n}
    return len(places) >= enough and len(places) == len(pieces)


def _from_pieces(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float) -> GridQuad | None:
    """Rebuild a grid whose outline merged with other print, from its 9 boxes or 81 cells.

    The holes of the line pattern are quads of one size; when 7+ boxes (or 60+
    cells) are found, their hull is the inside of the grid's border.
    """
    contours = imutils.grab_contours(cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE))
    pieces = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:150]:
        a = cv2.contourArea(c)
        if a < area_min / 100:
            break
        x, y, w, h = cv2.boundingRect(c)
        if 0.6 < w / h < 1.6 and a > 0.6 * w * h:
            pieces.append((a, c))
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
            # the lattice of pieces is itself evidence of a grid: faint thin lines may score low
            score = structure_score(probe, quad)
            if score >= 0.25 * min_score and (best is None or score > best.score):
                best = GridQuad(quad, score)
        if best is not None:
            return best
    return best


def find_grid(image: np.ndarray, min_score: float = 0.25, min_area: float = 0.02,
              allow_cut: bool = True, precise: bool = True) -> GridQuad | None:
    """The puzzle's grid in ``image`` (BGR or gray), or None when there is none.

    ``allow_cut=False`` (the live loop) refuses a grid with two corners on one
    edge of the picture: one entering or leaving the view, whose corners would
    be wrong. A photo keeps it: people crop close. ``precise`` fits the
    crossings to the lines at full resolution (a few ms); without it a flat
    grid's corners are the outline's (the live loop, where tracking refines).

    Passes, cheapest first: the plain binary image; long lines only (a grid
    touching text or a second puzzle); a gentler threshold (faint print); the
    grid rebuilt from its boxes or cells (an outline merged with other print).
    """
    gray = to_gray(image)
    h, w = gray.shape[:2]
    scale = min(1.0, WORK_SIZE / max(h, w))
    small = shrink(gray, (round(w * scale), round(h * scale))) if scale < 1 else gray
    area_min = min_area * small.shape[0] * small.shape[1]
    binary = binarize(small)
    found = _best_quad(binary, small, min_score, area_min, allow_cut)
    if found is None or found.score < CLEAR_SCORE:
        # text or a smudge glued to the border bends the outline: the long lines alone may fit better
        lines = _best_quad(long_lines(binary), small, min_score, area_min, allow_cut)
        if lines is not None and (found is None or lines.score > found.score):
            found = lines
    if found is None:
        faint = binarize(small, 3)
        found = _best_quad(faint, small, min_score, area_min, allow_cut) or _best_quad(
            long_lines(faint), small, min_score, area_min, allow_cut
        )
    if found is None:  # a shadow across the page: its edge, thresholded, is a line that joins the border
        flat = unshade(small)
        found = _best_quad(binarize(flat), flat, min_score, area_min, allow_cut)
    if found is None:
        found = _from_pieces(binary, small, min_score, area_min)
    if found is None or found.score < CLEAR_SCORE:
        curled = _best_curled(binary, small, min_score, area_min, found, allow_cut)
        if curled is not None and (allow_cut or not _cut_by_frame(curled.corners, small.shape)):
            found = curled
    if found is None:
        return None
    if found.lattice is None and not precise:
        return GridQuad(found.corners / scale, found.score)
    # the crossings fitted to the lines at full resolution, where the cells will be cut: the outline's
    # corners sit on the border's outer edge, and a curled page's small-scale fit is coarse
    guess = found.crossings() / scale
    lattice, contrast = refine(gray, guess, cell=24, reach=0.2, rounds=1)
    if contrast <= 0:
        lattice = guess if found.lattice is not None else None
    if lattice is None or bend_of(lattice) < BENT:
        return GridQuad(found.corners / scale, found.score, lattice)
    return GridQuad(corners_of(lattice), found.score, lattice)
