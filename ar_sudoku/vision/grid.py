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
import numpy as np

from ar_sudoku.vision.curled import (
    _best_curled,
    _fitted,
    _from_cut_pieces,
    _from_pieces,
    _pieces,
    _whole_of_box,
)
from ar_sudoku.vision.deblur import deconvolve, picture_streak
from ar_sudoku.vision.quads import (
    ALL,
    CLEAR,
    FLAT,
    QUADS,
    WORK_SIZE,
    GridQuad,
    _best_quad,
    _contains,
    _corners_moved,
    _cut_by_frame,
    _inked_cells,
    _largest,
    _solid_cells,
    approx_quad,
    binarize,
    box_line_score,
    long_lines,
    shrink,
    speckle,
    structure_score,
    to_gray,
    unshade,
)


@dataclass(frozen=True)
class GridConfig:
    """This stage's tuning: each field with the reason for its value."""

    sharpen: float = 2.0  # an unsharp mask's amount for a defocused photo ...
    sharpen_sigma: float = 3.0  # ... and its Gaussian, px at the working size
    solid_cells: int = 20  # cells mostly ink that make a grid found sharpened no Sudoku (a chessboard's squares)
    streak_gain: float = 0.1  # how much more the grid found with a shaken camera's streak taken out must look like one
    # A working picture whose paper's typical Laplacian is above this share of its contrast is speckled by a dim
    # room's sensor noise (train photos as taken, blurred, shaken, small or in a shadow: at most 0.073; in the
    # benchmark's dim rooms 0.05-0.27 at a quarter of the light, 0.06-0.48 at 0.18) ...
    speckled: float = 0.08
    speckle_sigma: float = 1.5  # ... and, when no pass finds a clear grid in it, is searched once more smoothed by this
    inked_cells: int = 17  # cells holding ink that a grid found by its box lines alone needs (a puzzle's fewest givens)
    # Box-line score (:func:`box_line_score`) that makes an outline a grid whose thin lines a blur took. Box lines
    # alone hardly tell a grid from a part of it (two rows of boxes put cell lines where box lines would be): of the
    # other large outlines of the train photos, as taken, blurred and shaken, a quarter pass. So it is the last
    # resort, where no pass found a grid or only a part of one (``_box_lined``): on the train split that changes
    # nothing under the benchmark's conditions or an 11 px streak, and under a 2.4 px defocus finds three pen-and-
    # pencil pages that had no grid (their solutions agree: 60 -> 63 of 64)
    box_lines: float = 0.45
    moved: float = 1.0  # cells: a grid found smoothed with two corners this far from the first one's is another grid
    other_outlines: int = 24  # outlines kept from the first search, where the other puzzles of a page are looked for


GRID = GridConfig()


def _box_lined(small: np.ndarray, largest: list[np.ndarray], found: GridQuad | None,
               area_min: float) -> GridQuad | None:
    """The largest outline that looks like a grid by its box lines alone (``GRID.box_lines``), when no grid was found or
    only one that hardly looks like one: then only an outline holding it (the part of the grid it is) counts.

    A filled-in page out of focus: the thin lines fade and the digits fill the cells, and no outline passes
    :func:`structure_score` but one of its boxes, or none. A chessboard's squares are no Sudoku (``GRID.solid_cells``).
    """
    for contour in largest:
        quad = approx_quad(contour)
        if quad is None or cv2.contourArea(quad) < area_min:
            continue
        if found is not None and not (cv2.contourArea(quad) > 2 * cv2.contourArea(found.corners)
                                      and _contains(quad, found.corners.mean(axis=0))):
            continue
        if (box_line_score(small, quad) >= GRID.box_lines and _solid_cells(small, quad) <= GRID.solid_cells
                and _inked_cells(small, quad) >= GRID.inked_cells):
            return GridQuad(quad.astype(np.float32), structure_score(small, quad))
    return None


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
    ``QUADS.clear_score``), is looked at once more with a shaken camera's streak taken out
    (:func:`ar_sudoku.vision.deblur.picture_streak`): a streak across the grid's lines smears them into the
    paper, and its outline breaks (or holds two boxes of three under a long streak). Only
    such a picture pays for the measure.
    """
    h, w = gray.shape[:2]
    if min(h, w) < QUADS.min_grid_side:  # a sliver (20000x2) or a dot: no grid, and nothing to shrink it to
        return None, None, 1.0
    scale = min(1.0, WORK_SIZE / max(h, w))
    small = shrink(gray, (round(w * scale), round(h * scale))) if scale < 1 else gray
    searched = _look(gray, small, scale, min_score, min_area, allow_cut, precise, passes, agreeing)
    first = searched[0]
    if (first is not None and first.score >= QUADS.clear_score) or not streaked or passes != ALL:
        return searched
    if speckle(small) > GRID.speckled:
        # a dim room's speckle breaks the thresholded outline into pieces; smoothed, its lines join again
        smoothed = cv2.GaussianBlur(small, (0, 0), GRID.speckle_sigma)
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
                              < _clear_score(clear, first, scale) + GRID.streak_gain):
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


def _another_grid(quiet: GridQuad, first: GridQuad, smoothed: np.ndarray, scale: float) -> bool:
    """Whether the grid found on the smoothed picture (``quiet``) is another grid than the ``first`` one, and looks
    more like one there: the speckle broke the first's outline (a dark bottom row lost, the rest taken for a grid
    cut by the picture's edge). Two corners more than ``GRID.moved`` cells apart; the same grid is kept as first
    fitted."""
    if _corners_moved(quiet.corners, first.corners, GRID.moved) < 2:
        return False
    lattice = None if first.lattice is None else first.lattice * scale
    return quiet.score > structure_score(smoothed, first.corners * scale, lattice)


def _clear_score(clear: np.ndarray, quad: GridQuad, scale: float) -> float:
    """How much the grid first found (``quad``, in full-size pixels; ``clear`` at ``scale`` of them, the streak
    taken out) looks like a grid on the clear picture: a curled fit by the worse of its corners and its crossings.

    Its own score, on the streaked picture, flatters a fit the streak's ghosts bent; by its corners alone, a fit on
    the grid's corners may have its crossings on the digits' smears (under a streak: good
    by its corners, poor as its cells would be cut). A curled page's crossings fit its lines better
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
    blurred = cv2.GaussianBlur(small, (0, 0), GRID.sharpen_sigma)
    sharp = cv2.addWeighted(small, 1 + GRID.sharpen, blurred, -GRID.sharpen, 0)
    again = _look(gray, sharp, scale, min_score, min_area, True, precise, ALL, agreeing)
    if again[0] is None or _solid_cells(small, again[0].corners * scale) > GRID.solid_cells:
        # last, a page written in to its last cell: its box lines alone (the thin ones faded)
        found = _box_lined(small, searched[1][1][:8] if searched[1] else [], None,
                           min_area * small.shape[0] * small.shape[1])
        if found is None:
            return searched
        return _fitted(gray, found, scale, precise, agreeing), searched[1], scale
    return again


def _look(gray: np.ndarray, small: np.ndarray, scale: float, min_score: float, min_area: float, allow_cut: bool,
          precise: bool, passes: int, agreeing: bool = False) -> Searched:
    """:func:`_search`'s passes over ``small`` (``gray`` at ``scale``, the working size)."""
    area_min = min_area * small.shape[0] * small.shape[1]
    binary = binarize(small)
    largest = _largest(binary, GRID.other_outlines)  # the first eight are the search's; the rest, other puzzles'
    found = _best_quad(binary, small, min_score, area_min, allow_cut, largest[:8])
    if found is None or found.score < QUADS.clear_score:
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
    if found is None or found.score < QUADS.clear_score:
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
    if found is not None and found.score < QUADS.clear_score:
        found = _whole_of_box(found, binary, small, min_score, area_min, pieces)
    if found is not None and found.score < QUADS.clear_score and passes == ALL:
        found = _box_lined(small, largest[:8], found, area_min) or found
    open_sides: list[int] = []  # sides of a cut grid whose line lies outside the picture: extrapolated
    if found is None and allow_cut:
        cut = _from_cut_pieces(pieces, small, min_score, area_min)
        if cut is not None:
            found, open_sides = cut
    if found is None:
        return None, (small, largest), scale
    return _fitted(gray, found, scale, precise, agreeing, open_sides), (small, largest), scale


