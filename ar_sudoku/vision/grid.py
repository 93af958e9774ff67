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

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ar_sudoku.vision.curled import (
    _best_curled,
    _fitted,
    _from_clusters,
    _from_cut_pieces,
    _from_pieces,
    _pieces,
    _whole_of_box,
)
from ar_sudoku.vision.deblur import deconvolve, picture_streak
from ar_sudoku.vision.quads import (
    ALL,
    CLEAR,
    QUADS,
    WORK_SIZE,
    GridQuad,
    _best_quad,
    _contains,
    _corners_moved,
    _inked_cells,
    _largest,
    _solid_cells,
    approx_quad,
    binarize,
    box_line_score,
    cut_by_frame,
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
log = logging.getLogger(__name__)  # each pass's time and find (``AR_SUDOKU_DEBUG=1`` prints it)


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


@dataclass(frozen=True)
class Search:
    """One search of a grey picture: its parameters (:func:`find_grid`'s) and what the picture as taken showed
    (``first``); each of :data:`VIEWS` looks at it once more in another way, when it must."""

    gray: np.ndarray
    small: np.ndarray  # ``gray`` at the working size (``scale``)
    scale: float
    min_score: float
    min_area: float
    allow_cut: bool
    precise: bool
    passes: int
    streaked: bool
    agreeing: bool
    first: Searched = (None, None, 1.0)

    def look(self, small: np.ndarray, gray: np.ndarray | None = None, precise: bool | None = None,
             agreeing: bool | None = None, allow_cut: bool | None = None, passes: int | None = None) -> Searched:
        """:data:`OUTLINE_PASSES` over ``small`` (a working-size view of ``gray``), fitted on ``gray``."""
        return _look(self.gray if gray is None else gray, small, self.scale, self.min_score, self.min_area,
                     self.allow_cut if allow_cut is None else allow_cut, self.precise if precise is None else precise,
                     self.passes if passes is None else passes, self.agreeing if agreeing is None else agreeing)


def _search(gray: np.ndarray, min_score: float = 0.25, min_area: float = 0.02, allow_cut: bool = True,
            precise: bool = True, passes: int = ALL, streaked: bool = False, agreeing: bool = False) -> Searched:
    """:func:`find_grid` on a grey picture, with the working-size picture it searched, that picture's largest
    outlines and its scale (where :func:`find_grids` looks for the other puzzles). ``passes``: ``CLEAR``, the
    first two only (a grid checked for one inside it); ``FLAT``, not the curled or cut ones (an outline that
    hardly looks like a grid, beside the puzzle found: most are none, and those passes cost the most).

    The picture is looked at as taken, then in each of :data:`VIEWS` in turn until one gives the answer.
    """
    h, w = gray.shape[:2]
    if min(h, w) < QUADS.min_grid_side:  # a sliver (20000x2) or a dot: no grid, and nothing to shrink it to
        return None, None, 1.0
    scale = min(1.0, WORK_SIZE / max(h, w))
    small = shrink(gray, (round(w * scale), round(h * scale))) if scale < 1 else gray
    search = Search(gray, small, scale, min_score, min_area, allow_cut, precise, passes, streaked, agreeing)
    log.debug("grid: the picture as taken, %dx%d", small.shape[1], small.shape[0])
    search = replace(search, first=search.look(small))
    for name, view in VIEWS:
        log.debug("grid: view %s", name)
        got = view(search)
        if got is not None:
            return got
    return search.first


def as_taken(s: Search) -> Searched | None:
    """The picture as taken, when it shows a clear grid, or when no other view may be tried: the live loop
    (``streaked`` false: the next frame may do) and a search of part of a picture (``passes`` not ``ALL``)."""
    first = s.first[0]
    if (first is not None and first.score >= QUADS.clear_score) or not s.streaked or s.passes != ALL:
        return s.first
    return None


def smoothed(s: Search) -> Searched | None:
    """A dim room's speckle (``GRID.speckled``) breaks the thresholded outline into pieces; smoothed, its lines
    join again. The grid found there is taken when none was found first, or when it is another grid that looks
    more like one (:func:`_another_grid`)."""
    if speckle(s.small) <= GRID.speckled:
        return None
    quiet_picture = cv2.GaussianBlur(s.small, (0, 0), GRID.speckle_sigma)
    quiet = s.look(quiet_picture)
    first = s.first[0]
    if quiet[0] is not None and (first is None or _another_grid(quiet[0], first, quiet_picture, s.scale)):
        return quiet
    return None


def destreaked(s: Search) -> Searched | None:
    """The picture with a shaken camera's streak taken out (:func:`ar_sudoku.vision.deblur.picture_streak`), when
    it shows one: a streak across the grid's lines smears them into the paper, and its outline breaks (or holds
    two boxes of three under a long streak). Only a picture where no clear grid was found pays for the measure.
    """
    streak = picture_streak(s.small)
    clear = None if streak is None else deconvolve(s.small, streak)
    again = None if clear is None else s.look(clear, precise=False, agreeing=False)
    if again is None or again[0] is None:
        return None
    assert streak is not None and clear is not None
    first = s.first[0]
    # a grid already found (part of the grid, or a grid a column off: the streak smeared its lines) is
    # replaced only by one that looks clearly more like a grid on the clear picture: the new one by its corners
    # (its crossings, if curled, were fitted on the streaked picture), the first as ``_clear_score`` says
    if first is not None and (structure_score(clear, again[0].corners * s.scale)
                              < _clear_score(clear, first, s.scale) + GRID.streak_gain):
        return s.first
    if not s.precise:
        return again
    # the crossings are fitted at full resolution, where the streak smears the lines too (and pulls the fit
    # along it): the grid's part of the picture is deconvolved first
    pts = again[0].corners if again[0].lattice is None else again[0].lattice.reshape(-1, 2)
    reach = 0.1 * float(np.ptp(pts, axis=0).max())
    x0, y0 = np.maximum(np.floor(pts.min(axis=0) - reach).astype(int), 0)
    x1, y1 = np.ceil(pts.max(axis=0) + reach).astype(int)
    sharp = s.gray.copy()
    sharp[y0:y1, x0:x1] = deconvolve(s.gray[y0:y1, x0:x1], streak.scaled(1 / s.scale))
    return s.look(clear, gray=sharp)


def sharpened(s: Search) -> Searched:
    """The grid found as taken, however unclear; else the picture sharpened (an unsharp mask at the working
    size): out of focus, a book's thin lines fade into the paper, and the outline found holds too little of a
    grid's structure to pass (train pen-and-pencil pages blurred by 2.4 px on 640). Last, a page written in to
    its last cell: its box lines alone (the thin ones faded, :func:`_box_lined`)."""
    if s.first[0] is not None:
        return s.first
    blurred = cv2.GaussianBlur(s.small, (0, 0), GRID.sharpen_sigma)
    sharp = cv2.addWeighted(s.small, 1 + GRID.sharpen, blurred, -GRID.sharpen, 0)
    again = s.look(sharp, allow_cut=True, passes=ALL)
    if again[0] is None or _solid_cells(s.small, again[0].corners * s.scale) > GRID.solid_cells:
        pictures = s.first[1]
        found = _box_lined(s.small, pictures[1][:8] if pictures else [], None,
                           s.min_area * s.small.shape[0] * s.small.shape[1])
        if found is None:
            return s.first
        return _fitted(s.gray, found, s.scale, s.precise, s.agreeing), pictures, s.scale
    return again


VIEWS: tuple[tuple[str, Callable[[Search], Searched | None]], ...] = (
    ("as taken", as_taken), ("smoothed", smoothed), ("destreaked", destreaked), ("sharpened", sharpened))


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


# ------------------------------------------------------------------------------------------ one working picture


@dataclass(frozen=True)
class Look:
    """One working-size picture searched for the grid, and what :data:`OUTLINE_PASSES` found on it so far."""

    small: np.ndarray
    min_score: float
    area_min: float  # px at the working size
    allow_cut: bool
    passes: int
    binary: np.ndarray
    largest: list[np.ndarray]  # its largest outlines: the first eight are the search's; the rest, other puzzles'
    found: GridQuad | None = None
    # the outline's pieces (each with its area), when no outline held a grid
    pieces: list[tuple[float, np.ndarray]] = field(default_factory=list)
    open_sides: list[int] = field(default_factory=list)  # sides of a cut grid whose line lies outside the picture

    @property
    def unclear(self) -> bool:
        """No grid found yet, or one that hardly looks like one (under ``QUADS.clear_score``)."""
        return self.found is None or self.found.score < QUADS.clear_score

    def best(self, binary: np.ndarray, small: np.ndarray | None = None,
             largest: list[np.ndarray] | None = None) -> GridQuad | None:
        """The outline of ``binary`` most like a grid on ``small`` (this look's picture by default)."""
        return _best_quad(binary, self.small if small is None else small, self.min_score, self.area_min,
                          self.allow_cut, largest)


def _look(gray: np.ndarray, small: np.ndarray, scale: float, min_score: float, min_area: float, allow_cut: bool,
          precise: bool, passes: int, agreeing: bool = False) -> Searched:
    """:data:`OUTLINE_PASSES` over ``small`` (``gray`` at ``scale``, the working size), cheapest first, each tried
    only where the ones before found no clear grid; the grid found is fitted on ``gray``."""
    binary = binarize(small)
    k = Look(small, min_score, min_area * small.shape[0] * small.shape[1], allow_cut, passes, binary,
             _largest(binary, GRID.other_outlines))
    for name, step in OUTLINE_PASSES:
        t0, before = time.perf_counter(), k.found
        k = step(k)
        if log.isEnabledFor(logging.DEBUG):
            found = "" if k.found is before or k.found is None else f": a grid, score {k.found.score:.2f}"
            log.debug("grid pass %-14s %6.1f ms%s", name, (time.perf_counter() - t0) * 1e3, found)
    if k.found is None:
        return None, (small, k.largest), scale
    return _fitted(gray, k.found, scale, precise, agreeing, k.open_sides), (small, k.largest), scale


def by_outline(k: Look) -> Look:
    """The plain binary picture's largest outlines."""
    return replace(k, found=k.best(k.binary, largest=k.largest[:8]))


def by_long_lines(k: Look) -> Look:
    """Text or a smudge glued to the border bends the outline: the long lines alone may fit better."""
    if not k.unclear:
        return k
    lines = k.best(long_lines(k.binary))
    if lines is not None and (k.found is None or lines.score > k.found.score):
        return replace(k, found=lines)
    return k


def by_faint_print(k: Look) -> Look:
    """A gentler threshold: faint print (``CLEAR`` searches stop before it)."""
    if k.found is not None or k.passes == CLEAR:
        return k
    faint = binarize(k.small, 3)
    return replace(k, found=k.best(faint) or k.best(long_lines(faint)))


def by_unshaded(k: Look) -> Look:
    """A shadow across the page: its edge, thresholded, is a line that joins the border; evened out, it is not."""
    if k.found is not None or k.passes == CLEAR:
        return k
    flat = unshade(k.small)
    return replace(k, found=k.best(binarize(flat), flat))


def by_pieces(k: Look) -> Look:
    """The grid rebuilt from its boxes or cells: an outline merged with other print."""
    if k.found is not None or k.passes == CLEAR:
        return k
    pieces = _pieces(k.binary, k.area_min)
    return replace(k, pieces=pieces, found=_from_pieces(pieces, k.small, k.min_score, k.area_min))


def by_curled(k: Look) -> Look:
    """A curled page's grid, fitted through its lines' crossings (``FLAT`` searches stop before it)."""
    if not k.unclear or (k.found is None and k.passes != ALL):
        return k
    small, found, area_min = k.small, k.found, k.area_min
    curled = _best_curled(k.binary, small, k.min_score, area_min, found, k.allow_cut)
    if curled is None and k.allow_cut:
        # a photo (not the live loop, where the next frame may do): thin lines broken at the working size
        # open the outline into the grid; closed by a pixel, or thresholded more gently, they hold it
        curled = _best_curled(cv2.dilate(k.binary, np.ones((3, 3), np.uint8)), small, k.min_score, area_min,
                              found, k.allow_cut)
        if curled is None:
            curled = _best_curled(binarize(small, 3), small, k.min_score, area_min, found, k.allow_cut)
    if curled is not None and (k.allow_cut or not cut_by_frame(curled.corners, small.shape)):
        return replace(k, found=curled)
    return k


def by_whole_of_box(k: Look) -> Look:
    """A grid that hardly looks like one may be one box of it: the whole grid around it."""
    if k.found is None or not k.unclear:
        return k
    return replace(k, found=_whole_of_box(k.found, k.binary, k.small, k.min_score, k.area_min, k.pieces))


def by_box_lines(k: Look) -> Look:
    """A grid that hardly looks like one may be part of one whose thin lines a blur took (:func:`_box_lined`)."""
    if k.found is None or not k.unclear or k.passes != ALL:
        return k
    return replace(k, found=_box_lined(k.small, k.largest[:8], k.found, k.area_min) or k.found)


def by_cut_pieces(k: Look) -> Look:
    """A grid cut by the picture's edge (a photo only: the live loop refuses one), its open sides extrapolated."""
    if k.found is not None or not k.allow_cut or k.passes != ALL:
        return k
    cut = _from_cut_pieces(k.pieces, k.small, k.min_score, k.area_min)
    if cut is None:
        return k
    return replace(k, found=cut[0], open_sides=cut[1])


def by_pieces_apart(k: Look) -> Look:
    """The pieces of two puzzles of one size side by side, when nothing else was found: each cluster of them on its
    own (:func:`_from_clusters`)."""
    if k.found is not None or k.passes == CLEAR:
        return k
    return replace(k, found=_from_clusters(k.pieces, k.small, k.min_score, k.area_min))


OUTLINE_PASSES: tuple[tuple[str, Callable[[Look], Look]], ...] = (
    ("outline", by_outline),
    ("long lines", by_long_lines),
    ("faint print", by_faint_print),
    ("unshaded", by_unshaded),
    ("pieces", by_pieces),
    ("curled", by_curled),
    ("whole of a box", by_whole_of_box),
    ("box lines", by_box_lines),
    ("cut pieces", by_cut_pieces),
    ("pieces apart", by_pieces_apart),
)
