"""The grids of a page: every puzzle of a newspaper page, each searched on its own crop, in reading order.

Each outline beside the first grid is searched around; fits found on different crops are compared by their
structure on the whole picture (:func:`_clarity`), and refits of a grid are offered to the reader
(:func:`refits`) when a reading does not solve.
"""


from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ar_sudoku.vision.grid import _search
from ar_sudoku.vision.quads import (
    ALL,
    CLEAR,
    FLAT,
    QUADS,
    GridQuad,
    _contains,
    _outlines,
    _quad_from_contour,
    cell_side,
    cut_by_frame,
    refine_corners,
    structure_score,
    to_gray,
)


@dataclass(frozen=True)
class PageGridsConfig:
    """This stage's tuning: each field with the reason for its value."""

    most_grids: int = 6  # puzzles looked for in one picture (a newspaper page prints two or three, a magazine four)
    other_share: float = 0.15  # another puzzle's outline is at least this share of the first one's (a children's 6x6)
    other_gate: float = 0.05  # structure score an outline's own quad needs before its neighbourhood is searched (flat)
    full_gate: float = 0.1  # ... and before it is searched with every pass (curled, cut)
    # of the largest grid's area: an outline this size is searched whatever its score (a
    like_size: tuple[float, float] = (0.5, 2.5)
    # photo pasted beside another: its edge and the grid's outline merge into a shape that scores nothing)
    crop_margin: float = 0.08  # of an outline's size, kept around it when it is searched on its own
    inset: float = 0.04  # of a grid's size, cut off all round when its inside is searched for a grid it framed
    frame_band: float = 0.006  # of a grid's size: the band inside a frame painted over with the frame's outside
    # of the frame's crop: the least outline searched inside it (a grid's outline broken by blur or a fold encloses
    # less than the grid, as a blurred grid on a photo's edge does)
    framed_area: float = 0.2
    # of a grid's area: an outline inside it that may be the grid it frames (its own
    framed: tuple[float, float] = (0.4, 0.85)
    # border's inner edge: 0.9 and more)
    # a picture this much longer than high (or high than long) is a page of puzzles side by side, searched in squares
    # too: two photos side by side make pages of 1.1-2.4 (median 2.0), a camera's 16:9 frame is 1.78
    wide: float = 1.9
    # of the first grid's area: the puzzles of a page taken for a grid (its boxes: 1/9)
    inner_share: tuple[float, float] = (0.16, 0.6)
    # a grid of a page scoring below this may be a pasted photo's edge taken for its border, the puzzle's lines
    # fitted inside it (the training photos' own grids, fitted: 0.66-0.8; such fits: 0.25-0.7, curled or a row off)
    framed_score: float = 0.6
    # a grid whose short sides are this share of its long ones or less is not a whole square puzzle
    narrow: float = 0.75
    # structure score a curled fit gives up against a flat one when fits are compared (_clarity)
    curl_doubt: float = 0.05


PAGE_GRIDS = PageGridsConfig()
log = logging.getLogger(__name__)  # each page pass's time and grids (``AR_SUDOKU_DEBUG=1`` prints it)


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
    m = round(PAGE_GRIDS.crop_margin * max(bw, bh))
    x0, y0, x1, y1 = max(0, x0 - m), max(0, y0 - m), min(w, x0 + bw + m), min(h, y0 + bh + m)
    found = _search(gray[y0:y1, x0:x1], min_score, 0.2, passes=passes)[0]
    if found is None:
        return None
    found = _shifted(found, x0, y0)
    bx, by, bw, bh = cv2.boundingRect(found.corners.reshape(-1, 1, 2).astype(np.float32))
    m = round(PAGE_GRIDS.inset * max(bw, bh))
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
    looks like a grid (``QUADS.clear_score``): a grid whose border a blur or faint print breaks open at the working
    size traces a thin line round it, not a closed shape (its outline's own area a small share of its quad's, its
    structure score high). Rules and text columns, open too, do not look so."""
    out = []
    for contour in largest:
        if cv2.contourArea(contour) >= area_min:
            continue  # a closed outline: among ``_outlines``'
        quad = _quad_from_contour(contour)
        if quad is None or _area(quad) < area_min:
            continue
        sides = [np.hypot(*(quad[k] - quad[(k + 1) % 4])) for k in range(4)]
        if min(sides) >= 0.35 * max(sides) and (
                structure_score(small, refine_corners(contour, quad)) >= QUADS.clear_score):
            out.append((contour, quad))
    return out


def _at_least(shapes: list[tuple[np.ndarray, np.ndarray]], area: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """The outlines (and quads) of ``shapes`` as :func:`_outlines` gives them for ``area``."""
    return [(c, q) for c, q in shapes if cv2.contourArea(c) >= area and _area(q) >= area]


def _unframed(grid: GridQuad, gray: np.ndarray, small: np.ndarray, scale: float,
              shapes: list[tuple[np.ndarray, np.ndarray]], min_score: float) -> GridQuad:
    """The grid, or the clearer grid it frames: a photo's edge on a page of pasted photos, a box around a
    puzzle. Only an outline well inside it (``PAGE_GRIDS.framed`` of its area) that looks more like a grid is tried."""
    outer = grid.corners * scale
    area = _area(outer)
    for contour, quad in _at_least(shapes, PAGE_GRIDS.framed[0] * area):
        if _area(quad) > PAGE_GRIDS.framed[1] * area or not _contains(outer, quad.mean(axis=0)):
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
               most: int = PAGE_GRIDS.most_grids) -> list[GridQuad]:
    """Every puzzle's 9x9 grid in a photo, in reading order (:func:`find_page_grids`'s ``grids``)."""
    return find_page_grids(image, min_score, min_area, most).grids


def find_page_grids(image: np.ndarray, min_score: float = 0.25, min_area: float = 0.02,
                    most: int = PAGE_GRIDS.most_grids) -> PageGrids:
    """Every puzzle's grid in a photo (a newspaper page prints two or three side by side), in reading order.

    The first is :func:`find_grid`'s, found as it finds it, so a photo of one puzzle costs one more
    look at the outlines it already has. :data:`PAGE_PASSES` then run in order over a :class:`Page`: the grids
    inside it (it was the page around them), the page's other puzzles, those of a wide page side by side, the
    first grid found again beside them, and every grid squared on its lines, in reading order.
    """
    gray = to_gray(image)
    first, pictures, scale = _search(gray, min_score, min_area, streaked=True)
    if first is None or pictures is None:
        return PageGrids([], [])
    small, largest = pictures
    # the outlines every step below looks at, their quads made once
    first_area = _area(first.corners * scale)
    shapes = _outlines(small, min(PAGE_GRIDS.inner_share[0], PAGE_GRIDS.other_share) * first_area, True, largest)
    page = Page(gray, small, scale, largest, min_score, min_area, most, first, shapes)
    for name, step in PAGE_PASSES:
        t0 = time.perf_counter()
        page = step(page)
        log.debug("page pass %-14s %6.1f ms: %d grid(s)", name, (time.perf_counter() - t0) * 1e3, len(page.grids))
    return PageGrids(page.grids, [u for u in page.unlike if not any(_overlaps(u, g.corners) for g in page.grids)])


@dataclass(frozen=True)
class Page:
    """One picture searched for its puzzles: what :func:`find_grid` found there first, and the grids
    :data:`PAGE_PASSES` have found so far (full-size pixels)."""

    gray: np.ndarray
    small: np.ndarray  # the working-size picture of the first search (``scale`` of ``gray``)
    scale: float
    largest: list[np.ndarray]  # its largest outlines
    min_score: float
    min_area: float
    most: int  # puzzles looked for
    first: GridQuad
    shapes: list[tuple[np.ndarray, np.ndarray]]  # the outlines (and their quads) large enough to be a puzzle
    grids: list[GridQuad] = field(default_factory=list)
    unlike: list[np.ndarray] = field(default_factory=list)  # outlines with the look of a grid that held none


def inner_puzzles(p: Page) -> Page:
    """When two or more clear grids lie inside the first one, it was the page around them (its rows of puzzles
    can line up as a grid's lines do), and they replace it; else the first grid, or the clearer one it frames."""
    inner = _inner_grids(p.gray, p.small, p.scale, p.first.corners * p.scale, p.shapes, p.min_score)
    if len(inner) >= 2:
        return replace(p, grids=inner)
    return replace(p, grids=[_unframed(p.first, p.gray, p.small, p.scale, p.shapes, p.min_score)])


def other_puzzles(p: Page) -> Page:
    """The page's other puzzles, from the same outlines: each one that is not inside, around or across a grid
    found, is large enough beside the largest grid (``PAGE_GRIDS.other_share``; the page's puzzles are smaller
    than it) and shows some line structure is searched on its own (cropped, at its own resolution, with every
    pass :func:`find_grid` has: :func:`_other_puzzle`)."""
    grids, unlike, shapes, small, scale = list(p.grids), list(p.unlike), p.shapes, p.small, p.scale
    size = max(_area(g.corners) for g in grids) * scale * scale
    area_min = max(p.min_area * small.shape[0] * small.shape[1], PAGE_GRIDS.other_share * size)
    if area_min < min(PAGE_GRIDS.inner_share[0], PAGE_GRIDS.other_share) * _area(p.first.corners * scale):
        shapes = _outlines(small, area_min, True, p.largest)
    for contour, quad in _at_least(shapes, area_min) + _open_outlines(small, p.largest, area_min):
        if len(grids) >= p.most:
            break
        outline = quad / scale
        if any(_overlaps(outline, g.corners) for g in grids):
            continue
        found = _other_puzzle(p.gray, small, contour, quad, outline, size, p.min_score, unlike)
        if found is not None and not any(_overlaps(found.corners, g.corners) for g in grids):
            grids.append(found)
    return replace(p, grids=grids, unlike=unlike, shapes=shapes)


def side_by_side(p: Page) -> Page:
    """A picture much longer than high (``PAGE_GRIDS.wide``) is a page of puzzles side by side, searched in
    squares too (:func:`_in_strips`)."""
    h, w = p.gray.shape[:2]
    if len(p.grids) >= p.most or max(h, w) <= PAGE_GRIDS.wide * min(h, w):
        return p
    return replace(p, grids=p.grids + _in_strips(p.gray, p.grids, p.min_score, p.most - len(p.grids)))


def first_again(p: Page) -> Page:
    """On a page, the first grid too may be a pasted photo's edge fitted with the puzzle's lines, when it is
    fitted curled or hardly looks like a grid: the clearer grid inside that edge is taken (:func:`_refound`)."""
    first = p.grids[0]
    if len(p.grids) <= 1 or not (first.bent or first.score < PAGE_GRIDS.framed_score):
        return p
    return replace(p, grids=[_refound(p.gray, first, p.scale, p.shapes, p.min_score), *p.grids[1:]])


def squared(p: Page) -> Page:
    """Every grid squared on its lines (:func:`_squared`), in reading order."""
    return replace(p, grids=reading_order([_squared(p.gray, g, p.min_score) for g in p.grids]))


PAGE_PASSES: tuple[tuple[str, Callable[[Page], Page]], ...] = (
    ("inner puzzles", inner_puzzles),
    ("other puzzles", other_puzzles),
    ("side by side", side_by_side),
    ("first again", first_again),
    ("squared", squared),
)


def _inner_grids(gray: np.ndarray, small: np.ndarray, scale: float, outer: np.ndarray,
                 shapes: list[tuple[np.ndarray, np.ndarray]], min_score: float) -> list[GridQuad]:
    """The clear grids inside the first one found (``outer``, at the working size): when two or more, it was the
    page around them."""
    first_area = _area(outer)
    inner: list[GridQuad] = []
    for contour, quad in _at_least(shapes, PAGE_GRIDS.inner_share[0] * first_area):
        if _area(quad) > PAGE_GRIDS.inner_share[1] * first_area or not _contains(outer, quad.mean(axis=0)):
            continue
        if any(_overlaps(quad / scale, g.corners) for g in inner):
            continue
        if structure_score(small, refine_corners(contour, quad)) < QUADS.clear_score:
            continue
        found = _search_around(gray, quad / scale, min_score)
        if found is not None and not any(_overlaps(found.corners, g.corners) for g in inner):
            inner.append(found)
    return inner


def _other_puzzle(gray: np.ndarray, small: np.ndarray, contour: np.ndarray, quad: np.ndarray, outline: np.ndarray,
                  size: float, min_score: float, unlike: list[np.ndarray]) -> GridQuad | None:
    """The grid another outline of the page holds (``quad`` at the working size, ``outline`` at full size), whole
    and in view; None when it holds none. An outline searched that held no grid is added to ``unlike``."""
    looks = structure_score(small, refine_corners(contour, quad))
    low, high = PAGE_GRIDS.like_size
    if looks < PAGE_GRIDS.other_gate and not low * size <= _area(quad) <= high * size:
        return None
    passes = ALL if looks >= PAGE_GRIDS.full_gate else FLAT
    found = _search_around(gray, outline, min_score, passes)
    if found is None and _aspect(outline) <= PAGE_GRIDS.narrow:
        found = _part_of_grid(gray, outline, min_score, passes)
    if found is None:
        unlike.append(outline)
    if found is not None and (found.bent or found.score < PAGE_GRIDS.framed_score):
        found = _clearer_inside(gray, GridQuad(outline, looks), found, min_score)
    if found is not None and cut_by_frame(found.corners, gray.shape):
        # a pasted photo's edge cut by the page's: the grid it frames may be whole
        found = inside_frame(gray, found, min_score)
    if found is None or cut_by_frame(found.corners, gray.shape):
        return None
    return found


def _aspect(corners: np.ndarray) -> float:
    """A quad's mean short side over its mean long side (opposite sides averaged)."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    across, down = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return float(min(across, down) / max(across, down, 1e-6))


def _part_of_grid(gray: np.ndarray, outline: np.ndarray, min_score: float, passes: int) -> GridQuad | None:
    """The grid an outline much narrower than long (``PAGE_GRIDS.narrow``) is a part of, when nothing is found around
    it.

    A grid whose lines a glare or a fold breaks at the working size can leave its top rows for an outline of
    their own (rows one to six, the rest lost in a shadow below): the neighbourhood is
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
        if found is None or cut_by_frame(found.corners, gray.shape) or not _contains(found.corners, centre):
            continue
        if best is None or _clarity(gray, found) > _clarity(gray, best):
            best = found
    return best


def _clarity(gray: np.ndarray, grid: GridQuad) -> float:
    """A fit's structure score on the full picture, through its own crossings: fits found on different crops
    (each scored at its own working size) compared on one footing. A curled fit that took a box's rule above the
    grid for its top line scores as well on its crop as the true grid on another, and clearly worse here; so
    does one bent out into the text beside it. A curled fit
    bends to the lines near it and so scores a little higher than a flat one of the same grid: it gives up
    ``PAGE_GRIDS.curl_doubt`` (a curled fit a hair clearer than the flat one that misreads a 6 as 5 and
    still solves)."""
    return structure_score(gray, grid.corners, grid.lattice) - (PAGE_GRIDS.curl_doubt if grid.bent else 0.0)


def _squared(gray: np.ndarray, grid: GridQuad, min_score: float) -> GridQuad:
    """A grid found much narrower than it is long was a part of a puzzle or a frame around one: a faint
    puzzle's strongest columns, cut at one of its inner lines; a pasted photo's edges, cut close above and
    below its grid. Its neighbourhood is searched again as wide as it is long on each side of it, and its
    inside with only its long sides cut off (a margin kept beyond the others). A fit is taken only when
    it is squarer, holds the narrow one's centre and, from the inside, is clearer and at least half its
    size."""
    if _aspect(grid.corners) > PAGE_GRIDS.narrow:
        return grid
    x, y, w, h = cv2.boundingRect(grid.corners.reshape(-1, 1, 2).astype(np.float32))
    long, tall = max(w, h), h > w
    cx, cy = x + w / 2, y + h / 2
    half = (long, h / 2) if tall else (w / 2, long)
    box = np.array([[cx - half[0], cy - half[1]], [cx + half[0], cy - half[1]],
                    [cx + half[0], cy + half[1]], [cx - half[0], cy + half[1]]], np.float32)
    best = grid
    wide = _search_around(gray, box, min_score)
    if wide is not None and not cut_by_frame(wide.corners, gray.shape) \
            and _contains(wide.corners, grid.corners.mean(0)):
        best = wide
    m = round(PAGE_GRIDS.inset * long)
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
        if found is None or cut_by_frame(found.corners, tile.shape, tol=4.0):
            continue
        found = _shifted(found, a, 0) if w >= h else _shifted(found, 0, a)
        if not any(_overlaps(found.corners, g.corners) for g in grids + out):
            out.append(found)
    return out


def inside_frame(gray: np.ndarray, grid: GridQuad, min_score: float) -> GridQuad | None:
    """The grid inside ``grid`` taken as a frame: its crop with everything outside the frame's inner edge
    painted the inside's paper colour (no step left for the threshold to take as a line), searched."""
    bx, by, bw, bh = cv2.boundingRect(grid.corners.reshape(-1, 1, 2).astype(np.float32))
    m = max(2, round(PAGE_GRIDS.inset * max(bw, bh)))
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = max(0, bx - m), max(0, by - m), min(w, bx + bw + m), min(h, by + bh + m)
    crop = gray[y0:y1, x0:x1].copy()
    inside = np.zeros(crop.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(grid.corners - np.array([x0, y0], np.float32)).astype(np.int32), 1)
    band = max(2, round(PAGE_GRIDS.frame_band * max(bw, bh)))
    inside = cv2.erode(inside, np.ones((2 * band + 1, 2 * band + 1), np.uint8))
    if not inside.any():
        return None
    crop[inside == 0] = int(np.median(crop[inside > 0]))
    found = _search(crop, min_score, PAGE_GRIDS.framed_area)[0]
    return None if found is None else _shifted(found, x0, y0)


def _clearer_inside(gray: np.ndarray, frame: GridQuad, found: GridQuad, min_score: float) -> GridQuad:
    """``found``, or the grid inside ``frame`` (:func:`inside_frame`) when that looks more like a grid.

    A photo pasted on a page (or a box printed round a puzzle) whose edge joins the outline of a blurred or
    faint grid is fitted as a curled grid, or as a flat one a row off, with the edge for a border line;
    with the edge painted over, the grid inside is found as in the photo alone."""
    framed = inside_frame(gray, frame, min_score)
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
    m = round(PAGE_GRIDS.inset * max(bw, bh))
    found = []
    ix, iy = max(0, bx + m), max(0, by + m)
    if min(bw, bh) > 4 * m:
        inner = _search(gray[iy:max(iy, by + bh - m), ix:max(ix, bx + bw - m)], min_score, 0.3, passes=FLAT)[0]
        if inner is not None:
            found.append(_shifted(inner, ix, iy))
    around = _search_around(gray, grid.corners, min_score)
    if around is not None:
        found.append(around)
    framed = inside_frame(gray, grid, min_score)
    if framed is not None:
        found.append(framed)
    out: list[GridQuad] = []
    for g in found:
        moved = min(float(np.abs(np.roll(g.corners, k, axis=0) - grid.corners).max()) for k in range(4))
        if moved >= 0.25 * cell and not any(np.abs(g.corners - o.corners).max() < 0.25 * cell for o in out):
            out.append(g)
    return out
