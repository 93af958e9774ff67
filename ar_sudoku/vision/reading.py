"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out (the rules themselves are in
:mod:`ar_sudoku.sudoku.rules`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Collection, Iterable
from dataclasses import replace

import cv2
import numpy as np

from ar_sudoku.sudoku.logic import PEER_LIST
from ar_sudoku.sudoku.rules import (
    FEWEST_GIVENS,
    SEVERAL,
    BoardResult,
    Reading,
    check_reading,
    faint_givens,
    solution_givens,
)
from ar_sudoku.sudoku.solver import all_solutions, count_solutions, parse_line, validate
from ar_sudoku.sudoku.vocabulary import Status, is_empty
from ar_sudoku.sudoku.written import NAMES, Corrections, Written, from_kinds, settle
from ar_sudoku.vision.cells import CELL, cut_cells, glare_gain, turn_cuts, warp_grid
from ar_sudoku.vision.deblur import measure_streak, unstreak
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.entries import candidate_pieces, cell_region, entry_crops, ink_box, ink_height
from ar_sudoku.vision.grid import (
    GridQuad,
    at_edge,
    find_grid,
    find_grids,
    find_page_grids,
    reading_order,
    refits,
    to_gray,
    unshade,
)
from ar_sudoku.vision.kinds import (
    BLANK,
    CANDIDATES,
    ENTRY,
    GIVEN,
    INK_SKIP,
    CellKinds,
    GridViews,
    KindReader,
    apply_votes,
    decide,
    grid_views,
    ink_scores,
    page_inks,
    paper_noise,
    pen_map,
    percentile,
    percentiles,
    quiet,
    warp_views_grid,
)
from ar_sudoku.vision.kinds import CELL as VIEW_CELL
from ar_sudoku.vision.kinds import MARGIN as VIEW_MARGIN
from ar_sudoku.vision.lattice import rectify, rotate
from ar_sudoku.vision.sizes import SizedGrid, find_sized_grids, read_sized

CONFIDENT = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated
# ... nor one with this many cells read that surely: on the 319 training photos, no grid turned a quarter or
# a half had more than 15 such cells (upright: 4-47); a written-on page, whose handwriting the print model
# is unsure of, is then read one way only
SURE_UPRIGHT = 22
FULL_BLANKS = 9  # a grid with no more blank cells than this is a printed solution (puzzles leave 45 or more)


def warp(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, cell: int = CELL) -> np.ndarray:
    """The grid seen square-on: through its crossings on a curled page, else by the corners' homography;
    a streaked grid (a shaken camera) deblurred."""
    square = rectify(gray, lattice, cell) if lattice is not None else warp_grid(gray, corners, cell)
    return unstreak(square, cell)  # a shaken camera's streak undone (deblur.py); most grids as they are


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
              lattice: np.ndarray | None = None) -> Reading:
    return reader.read(cut_cells(quiet_digits(warp(gray, corners, lattice))))


# A digit-model grid (CELL px a cell) whose paper's typical Laplacian is above this share of its contrast is
# speckled by a sensor's noise (training photos as taken: 0.01-0.06; in the benchmark's dim room 0.17-0.31) ...
NOISY_DIGITS = 0.12
DIGITS_SIGMA = 0.8  # ... and is smoothed by a Gaussian this wide (px) before its cells are cut


def quiet_digits(warped: np.ndarray) -> np.ndarray:
    """The print model's grid with a dim room's sensor noise smoothed away; a clean grid as it is.

    Speckle on a printed 6 closes its gap into an 8 and breaks print into handwriting-like strokes
    (issue 21), as :func:`ar_sudoku.vision.kinds.quiet` found for the cell-kind model's views.
    """
    if paper_noise(warped, CELL, 0) <= NOISY_DIGITS:
        return warped
    return cv2.GaussianBlur(warped, (0, 0), DIGITS_SIGMA)


def _score(reading: Reading) -> float:
    """How upright a grid's digits look: the mean log-confidence of the surer half of its inked cells.

    The surer half, not all: on a written-on page the print model is unsure of every handwritten cell
    in every orientation, and their noise would drown the printed givens' clear preference.
    """
    inked = reading.digits > 0
    if not inked.any():
        return 0.0
    logs = np.sort(np.log(np.maximum(reading.confidence[inked], 1e-6)))[::-1]
    return float(logs[: max(1, len(logs) // 2)].mean())


def read_oriented(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
                  lattice: np.ndarray | None = None) -> tuple[np.ndarray, Reading, np.ndarray | None]:
    """Read the grid, turning it a quarter at a time if the digits look sideways.

    The grid is warped once; a turned grid is the warp turned (``np.rot90`` by k
    is the corners rolled by k), and the three turns are read in one model call.
    Corners (and the lattice) come back turned so that the first is the
    puzzle's own top-left.
    """
    warped = quiet_digits(warp(gray, corners, lattice))
    cuts = cut_cells(warped)
    reading = reader.read(cuts)
    inked = reading.digits > 0
    sure = int((reading.confidence[inked] >= CONFIDENT).sum())
    if inked.sum() >= 10 and (sure == inked.sum() or sure >= SURE_UPRIGHT):
        return corners, reading, lattice
    # which way is up, from the cells cut once and turned (a written-on page always gets here: the print
    # model is unsure of handwriting). The likeliest turn, if it reads at least as well as upright, is cut
    # again properly and must then read better: the turned patches are near, not equal, to a proper cut.
    # Over the 398 photos whose grid is found, each given in its four corner orders (1,592 reads), the
    # orientation is the same from every order for all but one (image95 from one order; 18 photos with the
    # mean of all inked cells and the turned cuts alone), at one extra cut on 7 of the 398 as stored
    turned = reader.read_many([turn_cuts(cuts, k) for k in (1, 2, 3)])
    upright = _score(reading)
    k, best = max(zip((1, 2, 3), map(_score, turned)), key=lambda t: t[1])
    if best < upright:
        return corners, reading, lattice
    recut = reader.read(cut_cells(np.ascontiguousarray(np.rot90(warped, k))))
    if _score(recut) <= upright:
        return corners, reading, lattice
    return np.roll(corners, -k, axis=0), recut, None if lattice is None else rotate(lattice, k)


# A turn chosen by the print model with a score below this (print read the right way up: about -0.04, under
# blur and noise as well) is asked of the cell-kind model too
WEAK_TURN = -0.15


def _kinds_score(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, kinds: KindReader) -> float:
    """The cell-kind model's mean log-confidence over the inked cells of the grid seen with ``corners`` first."""
    views = grid_views(image, corners, lattice).views
    inked = np.flatnonzero(ink_scores(views, kinds.margin) > INK_SKIP)
    if not len(inked):
        return 0.0
    return float(np.log(np.maximum(kinds.probabilities(views[inked]).max(axis=1), 1e-6)).mean())


Oriented = tuple[np.ndarray, Reading, np.ndarray | None]  # corners, reading, lattice (as read_oriented gives them)


def confirm_turn(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader, kinds: KindReader,
                 turned: Oriented) -> Oriented:
    """:func:`read_oriented`'s answer, or the grid as found when a weak turn is not what the cell-kind model sees.

    The print model tells which way is up from the printed digits; a shaken or blurred written-on page
    leaves it few it is sure of, and a turn then wins by a hair over upright (the wrong way: 8 of the
    124 training written-on photos shaken). The cell-kind model, which knows handwriting too, is asked
    then: the turn stands only if it reads the page's inked cells more surely that way than upright.
    """
    corners, reading, bent = turned
    if np.array_equal(corners, quad.corners) or _score(reading) >= WEAK_TURN:
        return turned
    lattice = quad.lattice if quad.bent else None
    if _kinds_score(image, corners, bent, kinds) > _kinds_score(image, quad.corners, lattice, kinds):
        return turned
    return quad.corners, read_grid(gray, quad.corners, reader, lattice), lattice


def fuse(printed: Reading, kinds: CellKinds) -> Reading:
    """The givens as the solver should see them, from both models.

    The cell-kind model says whether a cell is printed at all; the digit model,
    trained on print alone, is the better judge of which printed digit it is. So
    P(given d) = P(printed) x the two models' agreement on d (a product of experts),
    and P(empty) takes everything else (blank, a handwritten entry, pencil marks).
    A clean printed puzzle (no entry or candidates seen) keeps the digit model's
    reading as it is, but for print it missed that the kind model is sure of
    (``_missed_print``).
    """
    if not _written_on(kinds):
        return _missed_print(printed, kinds)
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    k_digit = kinds.probs[:, 1:10] / np.maximum(p_given[:, None], 1e-9)
    d_ink = printed.probs[:, 1:10].sum(axis=1, keepdims=True)
    d_digit = np.where(d_ink > 0.2, printed.probs[:, 1:10] / np.maximum(d_ink, 1e-9), k_digit)
    joint = k_digit * d_digit + 1e-6
    joint /= joint.sum(axis=1, keepdims=True)
    probs = np.empty((81, 10), np.float32)
    probs[:, 0] = 1.0 - p_given
    probs[:, 1:] = joint * p_given[:, None]
    digits = probs.argmax(axis=1)
    return Reading(digits, probs[np.arange(81), digits], probs)


def _written_on(kinds: CellKinds) -> bool:
    """Some cell holds a person's entry or pencil marks (``fuse`` then joins the models on every cell)."""
    return bool(((kinds.kinds == ENTRY) | (kinds.kinds == CANDIDATES)).any())


def _sound(result: BoardResult) -> bool:
    """Solved, one way only."""
    return result.status == Status.SOLVED and SEVERAL not in (result.message or "")


def both_models(printed: Reading, kinds: CellKinds) -> Reading:
    """A clean printed page's reading with each inked cell's digit from both models (``fuse``'s product of
    experts), its ink as the digit model saw it.

    On a clean page ``fuse`` keeps the digit model's digits; where its print font's 6 reads as a 5 or a thin
    1 as a 3 (image209 on a page: three such cells, more than the rules' second choices mend), the kind
    model, trained on other pages' print, often reads them right. Asked only of a reading that breaks the
    rules.
    """
    inked = printed.digits > 0
    if not inked.any():
        return printed
    p_given = kinds.probs[:, 1:10].sum(axis=1, keepdims=True)
    k_digit = kinds.probs[:, 1:10] / np.maximum(p_given, 1e-9)
    d_ink = printed.probs[:, 1:10].sum(axis=1, keepdims=True)
    joint = k_digit * printed.probs[:, 1:10] / np.maximum(d_ink, 1e-9) + 1e-6
    joint /= joint.sum(axis=1, keepdims=True)
    probs = printed.probs.copy()
    probs[inked, 1:] = joint[inked] * d_ink[inked]
    digits = printed.digits.copy()
    digits[inked] = probs[inked, 1:].argmax(axis=1) + 1
    return Reading(digits, probs[np.arange(81), digits], probs)


MISSED_PRINT = 0.9  # a cell the kind model is this sure holds print, blank to the digit model: the print was missed


def _missed_print(printed: Reading, kinds: CellKinds) -> Reading:
    """The digit model's reading of a printed page, with the givens it missed that the kind model is sure of.

    The digit model's cutter needs the ink to stand out of the cell's own paper; in a shadow's
    edge or dim light it can see none where the kind model (which measures ink against the local
    paper) plainly sees print. Left blank, such givens make a puzzle of several solutions.
    """
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    missed = (printed.digits == 0) & (kinds.kinds == GIVEN) & (p_given >= MISSED_PRINT)
    if not missed.any():
        return printed
    probs = printed.probs.copy()
    probs[missed, 0] = 1.0 - p_given[missed]
    probs[missed, 1:] = kinds.probs[missed, 1:10]
    digits = printed.digits.copy()
    digits[missed] = probs[missed].argmax(axis=1)
    return Reading(digits, probs[np.arange(81), digits], probs)


def kind_givens(result: BoardResult, kinds: CellKinds, skip: Collection[int] = ()) -> BoardResult:
    """A solved board (one solution) with the print the cell-kind model sees where the digit model saw none,
    when it is the solution's own digit, taken as givens.

    ``faint_givens`` asks the digit model; a thin or pale given (a light "1" under a glare's edge, image209)
    can be blank to it outright while the kind model reads it as print, though not as surely as
    ``MISSED_PRINT`` asks before the solve. Once the rules have a single solution, a cell the kind model
    calls printed with that solution's digit is print, not a cell to draw an answer over (on a written-on
    page, ``fuse`` counts such a cell as a given already). ``skip``: cells unreadable or set by the user.
    """
    if result.status != Status.SOLVED or result.solution is None or result.givens is None or SEVERAL in (
            result.message or ""):
        return result
    seen = {i: float(kinds.probs[i, int(d)]) for i, (ch, d) in enumerate(zip(result.givens, result.solution))
            if ch == "." and i not in skip and kinds.kinds[i] == GIVEN
            and int(np.argmax(kinds.probs[i, 1:10])) + 1 == int(d)}
    return solution_givens(result, seen)


SATURATED = 250  # grey level of a washed-out pixel (glare)
WASHED = 0.4  # share of a cell's middle this bright: nothing can be seen there, it is unreadable
LIFTED = 0.5  # paper lifted this far from the page's paper towards white somewhere: the picture has a glare
# a cell whose paper a glare lifts this far towards white has lost that share of its ink's contrast: its faded
# print looks like a pen's or a pencil's line, an 8 like a 3 (its halo)
HALO = 0.2
# ... and this far, a tenth of it: a cell both readers see as blank may hold a given washed out past seeing
BLIND = 0.9
LIT = 0.1  # ... and this far, a tenth: the glare's light reaches it (a given that breaks the rules there is doubted)
BRIGHT_PAPER = 238  # pages whose paper is this bright already: glare cannot be told from paper


def _middles(square: np.ndarray) -> np.ndarray:
    """Each cell's middle (a fifth of the cell in from each side), every other pixel of every other row:
    (81, pixels). Its levels (a glare's lift, its washed-out share) are a cell's whole: a quarter of its
    pixels tell them as well at a quarter of the sorting."""
    inner = square[VIEW_MARGIN: VIEW_MARGIN + 9 * VIEW_CELL, VIEW_MARGIN: VIEW_MARGIN + 9 * VIEW_CELL]
    q = VIEW_CELL // 5
    middle = inner.reshape(9, VIEW_CELL, 9, VIEW_CELL)[:, q: VIEW_CELL - q, :, q: VIEW_CELL - q: 2]
    return middle.transpose(0, 2, 1, 3).reshape(81, -1)


def glare_cover(square: np.ndarray) -> np.ndarray | None:
    """Per cell, the share of white a glare adds to it (0 = none, 1 = saturated), or None without a glare.

    ``square``: the grid in grey at VIEW_CELL px a cell with VIEW_MARGIN px around it (``GridViews.square``).
    A glare adds white light: pixel = (1 - a) * page + a * 255, so a cell's paper (the 75th percentile
    of its middle) lifted above the page's typical paper gives a. Measured, not assumed: a spot's halo
    is as wide as its light falls off. Pages whose paper is nearly white already, or that are unevenly
    lit (a shadow, ``glare_gain``), and pictures with no cell lifted by ``LIFTED`` have no glare.
    """
    middle = _middles(square)
    washed = (middle >= SATURATED).mean(axis=1)
    paper_of = percentiles(middle, [75], axis=-1)[0]
    page = float(np.median(paper_of))
    if page >= BRIGHT_PAPER:
        return None
    cover = np.clip((paper_of - page) / (255.0 - page), 0.0, 1.0)
    if not (washed >= WASHED).any() and (cover.max() < LIFTED or glare_gain(paper_of, paper_of.reshape(9, 9)) is None):
        return None
    return np.where(washed >= WASHED, np.maximum(cover, washed), cover).astype(np.float32)


def glare_cells(square: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cells under a glare: (washed out, in its halo).

    ``square``: as :func:`glare_cover`. A glare spot on a glossy page leaves no ink to see in its
    core: such a cell is neither blank nor a digit (a saturated middle with no ink darker than the
    page's paper). Around the core the ink is faded towards white by as much as the glare covers the
    cell (``glare_cover``): a halo cell (covered by ``HALO`` or more) is read only when it is surely print.
    """
    cover = glare_cover(square)
    if cover is None:
        return (), ()
    middle = _middles(square)
    washed = (middle >= SATURATED).mean(axis=1)
    paper_of, darkest = percentiles(middle, [75, 1], axis=-1)
    core = (washed >= WASHED) & (darkest >= float(np.median(paper_of)))  # no ink darker than the page's paper
    halo = ~core & (cover >= HALO)
    return tuple(int(i) for i in np.flatnonzero(core)), tuple(int(i) for i in np.flatnonzero(halo))


FAINT_INK = 8  # grey levels of stroke a washed-out cell's middle shows (its dark lines' black-hat): faded print
FAINT_STROKE = 9  # px at VIEW_CELL: wider than a digit's stroke, narrower than its loops


def glare_clashes(result: BoardResult, square: np.ndarray, kinds: CellKinds, fixed: Collection[int]) -> tuple[int, ...]:
    """The clashing givens of a reading that breaks the rules which a glare's light reaches (``LIT``), on a page
    of print alone.

    A glare's halo can fade a given into another digit, or a blank cell's grain into a 1, that both
    readers read alike and surely (train image200 under a 0.95 glare): the reading breaks the rules, and
    the readers' second guesses cannot mend it. These givens are doubted as the halo's others are: left
    out, the rest may solve, and their ink is weighed then. Cells the person set (``fixed``) stay.
    """
    if result.status != Status.INVALID or not result.givens or _pen_or_pencil(kinds):
        return ()
    cover = glare_cover(square)
    if cover is None:
        return ()
    clash = {c for x in validate(parse_line(result.givens)) for c in (x.a, x.b)}
    return tuple(sorted(i for i in clash if cover[i] >= LIT and i not in fixed))


def faint_print(square: np.ndarray, cells: tuple[int, ...]) -> tuple[int, ...]:
    """The ``cells`` (a glare's washed-out core) that still show a digit's strokes, however faint.

    Saturated paper is flat, so any thin dark line in it is ink: the lines darker than their
    surroundings (a morphological black-hat, ``FAINT_STROKE`` px) by ``FAINT_INK`` grey levels. A
    gradient of the glare's light is no line and does not count (unlike a cell's plain contrast).
    """
    if not cells:
        return ()
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (FAINT_STROKE, FAINT_STROKE))
    lines = _middles(cv2.morphologyEx(square, cv2.MORPH_BLACKHAT, kernel))[list(cells)]
    strokes = percentiles(lines, [99], axis=-1)[0]
    return tuple(i for i, s in zip(cells, strokes) if s >= FAINT_INK)


def blind_cover(square: np.ndarray) -> np.ndarray:
    """(81,) bool: the cells a glare covers ``BLIND`` or more (none without a glare)."""
    cover = glare_cover(square)
    return np.zeros(81, bool) if cover is None else cover >= BLIND


def blind_blanks(kinds: CellKinds, square: np.ndarray, givens: str | None,
                 unreadable: tuple[int, ...]) -> tuple[int, ...]:
    """``unreadable`` with, on a page of print alone, its cells read blank where a glare lifts the paper
    ``BLIND`` or more.

    Blank is a guess under such light: a given washed out past seeing looks blank to both readers
    (train image40's 3 under a strong glare, reported missing and unnamed). Asked last, so the
    reading and its solving are as before; only what is said of those cells changes. (Strokes are not
    looked for here, as in the saturated core: this paper is not flat white, and its grain passes for a
    faint stroke: train image1011, a blank cell "restored" as a given.)
    """
    if givens is None or _pen_or_pencil(kinds):
        return unreadable
    blind = [int(i) for i in np.flatnonzero(blind_cover(square)) if is_empty(givens[i]) and kinds.kinds[i] == BLANK]
    return tuple(sorted(set(unreadable) | set(blind)))


def ink_contrast(square: np.ndarray) -> np.ndarray:
    """Per cell, how far its darkest pixels (the 1st percentile of its middle) fall below its own paper, as a
    share of the paper: a share, so that a shadow or a dim room, which scale ink and paper alike, keep it."""
    paper_of, darkest = percentiles(_middles(square), [75, 1], axis=-1)
    return (paper_of - darkest) / np.maximum(paper_of, 1.0)


def unreadable_cells(square: np.ndarray, kinds: CellKinds, printed: Reading, sure: float = 0.9,
                     wide: bool = False) -> tuple[int, ...]:
    """The cells a glare hides: its core, and the halo cells that are not surely print read alike by both models.

    ``wide`` (a photo of print alone; a written-on page is read as live): the whole halo by the glare's
    measured cover, less the cells both models see surely blank, and, anywhere on a glared page, a given
    the two models do not read alike, because
    the cells a glare hides are the rules' checks: a misread digit that the rules would correct on a
    clear page stands on a glared one. The photo gets its doubtful cells back once the readable ones
    solve one way only (``restore_unreadable``). Live, the frames vote instead and a frame's reading
    keeps its votes: only the halo cells beside the core, lifted ``LIFTED`` towards white, are doubted.
    """
    # a written-on page (entries, or pencil marks): the print model is unsure of pen and pencil
    wide = wide and not _pen_or_pencil(kinds)
    core, halo = glare_cells(square)
    if not core and not (wide and halo):
        return ()
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    print_alike = (kinds.kinds == GIVEN) & (p_given >= sure) & (printed.digits == kinds.digits)
    doubtful = np.zeros(81, bool)
    doubtful[list(halo)] = True
    if wide:
        agreed = print_alike & (printed.confidence >= sure)
        blank = (kinds.kinds == BLANK) & (kinds.probs[:, 0] >= sure) & (printed.digits == 0) & (
            printed.confidence >= sure)
        doubtful = (doubtful & ~agreed & ~blank) | ((kinds.kinds == GIVEN) & ~agreed)
    else:
        cover = glare_cover(square)  # there is a core: its washed-out cells are the glare
        assert cover is not None
        near = cv2.dilate(np.isin(np.arange(81), core).reshape(9, 9).astype(np.uint8), np.ones((3, 3), np.uint8))
        doubtful &= (near.reshape(81) > 0) & (cover >= LIFTED) & ~print_alike
    doubtful[list(core)] = True
    return tuple(int(i) for i in np.flatnonzero(doubtful))


MARKED = 3  # cells of pencil marks that make a page written on (a glare's faded print is read as a pen's, not these)
RESTORE = 0.3  # a doubtful cell is the solution's given when a reader gives the solution's digit this much
INKED = 0.5  # ... and it holds a digit (its solution's digit must be one its readers see) below these odds of blank
PENCIL = 0.5  # a washed-out cell's strokes the cell-kind model takes for candidates at these odds: a pencil's, no given
PICK_AMONG = 64  # the most solutions of the readable cells that the doubtful cells' ink is asked to choose between


def restore_unreadable(result: BoardResult, unreadable: tuple[int, ...], core: tuple[int, ...], kinds: CellKinds,
                       printed: Reading, fused: Reading, timeout: float = 1.0,
                       inked_core: tuple[int, ...] = ()) -> tuple[BoardResult, tuple[int, ...]]:
    """The doubtful cells of a glared photo given back once the puzzle's solution is known.

    The cells read surely (the doubtful ones left out) are solved. When they leave several solutions,
    the doubtful cells' ink chooses (their likeliest digits, printed or written, with the sure cells
    solve one way only, or one of the sure cells' few solutions alone fits them): a doubtful cell that
    holds a digit (a reader, ``printed``, ``fused`` as read before the doubt or ``kinds``, gives blank
    under ``INKED``) allows only the digits a reader gives ``RESTORE`` of its odds. Failing that, the
    solutions are weighed by that ink (:func:`_weighed`). Then a doubtful
    cell the kind model reads as the person's entry of the solution's digit is read as entries are
    (``written_part``) on a page written on, one whose ink a reader takes for the solution's digit is that given
    (on a page of print alone, so is one the kind model is ``MISSED_PRINT`` sure is not blank: that ink is
    print, however its faded digit looks), one both readers see as blank is blank (unless the ink weighed
    the solution: a given may hide there), and of the inked cells left, when they were all in doubt, those
    the puzzle needs to solve one way are givens (:func:`_needed`);
    the rest, with the glare's ``core`` (nothing is seen there), stay unreadable: a digit is never
    put where the page shows none, and a faded 8 never becomes a 3. On a page of print alone, a core
    cell that still shows strokes (``inked_core``, :func:`faint_print`) is the solution's given: its
    digit is too faint to read, but a given there can only be the solution's.
    """
    if result.status != Status.SOLVED or not result.solution or not result.givens:
        return result, unreadable
    written_on = _sure_of_writing(kinds)  # else a lone "entry" in a glare's halo is its faded print
    # (a pencil's candidates show strokes too: they are no given)
    faint = () if written_on else tuple(i for i in inked_core if kinds.probs[i, 19] < PENCIL)
    cells = [i for i in unreadable if (i not in core or i in faint) and result.givens[i] == "."]
    support = np.maximum(np.maximum(printed.probs[:, 1:10], fused.probs[:, 1:10]), kinds.probs[:, 1:10])
    written = kinds.probs[:, 10:19]  # a handwritten entry's digit: it stays the person's, read as entries are
    either = np.maximum(support, written)
    # surely inked, and taken for print: on a page of print alone it is, whatever its faded digit looks like
    sure_print = (kinds.probs[:, 0] < 1.0 - MISSED_PRINT) & (kinds.kinds == GIVEN)
    # weighed: the solution was picked by the doubtful cells' ink (then a cell read blank may still hide a
    # given); needs: the inked cells, when they alone were in doubt (the puzzle is theirs: those it needs are givens)
    unsolved, weighed, needs = result, False, []
    if result.message == SEVERAL:
        inked = [i for i in cells
                 if i not in faint and min(printed.probs[i, 0], fused.probs[i, 0], kinds.probs[i, 0]) < INKED]
        if not inked:
            return result, unreadable
        # the doubtful cells' likeliest digits with the sure ones: one solution, or the sure ones' solutions
        # (when few) of which one alone fits every doubtful cell's ink
        best = list(result.givens)
        for i in inked:
            d = int(either[i].argmax()) + 1
            if either[i, d - 1] >= RESTORE:
                best[i] = str(d)
        found = all_solutions(parse_line("".join(best)), 1, timeout)
        if not found:
            found = all_solutions(parse_line(result.givens), PICK_AMONG, timeout) or []
        fit = [s for s in found if all(either[i, int(s[i]) - 1] >= RESTORE for i in inked)]
        if len(fit) != 1 and not written_on:  # (a person's sure entry may be a mistake: no solution is weighed on it)
            # when the inked cells are all the glare hides, the puzzle is theirs alone: it solves one way
            alone = set(unreadable) <= set(inked)
            fit, weighed = _weighed(result.givens, inked, either, timeout, alone), True
            needs = inked if alone else []
        if len(fit) != 1:
            return result, unreadable
        result = replace(result, solution=fit[0], message="")
    assert result.solution is not None and result.givens is not None
    givens = list(result.givens)
    conf = None if result.confidence is None else result.confidence.copy()
    restored = set()
    for i in cells:
        d = int(result.solution[i])
        # sure print is the solution's digit unless a reader sees another digit there (the solution is doubted then)
        print_back = sure_print[i] and float(np.delete(either[i], d - 1).max()) < RESTORE
        if written_on and written[i, d - 1] >= RESTORE and written[i].sum() > kinds.probs[i, 1:10].sum():
            restored.add(i)  # the person's entry of the solution's digit: read as entries are
        elif support[i, d - 1] >= RESTORE or i in faint or (not written_on and (written[i, d - 1] >= RESTORE
                                                                                or print_back)):
            givens[i] = result.solution[i]
            restored.add(i)
            if conf is not None:
                conf[i] = float(support[i, d - 1])
        elif kinds.kinds[i] == BLANK and printed.digits[i] == 0 and fused.digits[i] == 0 and not weighed:
            restored.add(i)
    if needs:
        needed = _needed(givens, [i for i in needs if i not in restored], result.solution, timeout)
        if needed is None:
            return unsolved, unreadable
        for i in needed:
            givens[i] = result.solution[i]
            restored.add(i)
    left = tuple(i for i in unreadable if i not in restored)
    return replace(result, givens="".join(givens), confidence=conf), left


SURE_INK = 0.9  # a doubtful cell a reader gives one digit these odds is taken as read while the others are weighed
# the most solutions weighed so (a glare's halo hides a few givens: on the training photos, hundreds of solutions)
WEIGH_AMONG = 1024


def _weighed(givens: str, inked: list[int], either: np.ndarray, timeout: float, alone: bool = False) -> list[str]:
    """The one solution the doubtful cells' ink picks out of the readable cells' several (or none).

    The doubtful cells a reader sees as one digit at ``SURE_INK`` are taken as read; the solutions left
    (up to ``WEIGH_AMONG``) are weighed by every inked doubtful cell's odds of its digit, and the likeliest
    stands when it is ``INK_ODDS`` times likelier than every other and is one solution, not several that
    differ elsewhere (a doubtful cell no reader sees ink in could still tell those apart). When the
    ``inked`` cells are ``alone`` in doubt (every doubted cell is one of them: no core, no blank-looking or
    faint cell), only the digits that make a puzzle of one solution are weighed: a printed puzzle has one.
    """
    base = list(givens)
    for i in inked:
        if either[i].max() >= SURE_INK:
            base[i] = str(int(either[i].argmax()) + 1)
    found = all_solutions(parse_line("".join(base)), WEIGH_AMONG, timeout)
    if not found:  # too many to weigh, or none: a cell taken as read (or a given) was misread, nothing is guessed
        return []
    ink = np.log(either + INK_FLOOR)
    asks: dict[str, list[str]] = {}
    for s in found:
        asks.setdefault("".join(s[i] for i in inked), []).append(s)
    if alone:
        asks = {a: v for a, v in asks.items() if len(v) == 1}
        if not asks:
            return []
    weight = {a: float(sum(ink[i, int(d) - 1] for i, d in zip(inked, a))) for a in asks}
    top = max(weight, key=weight.__getitem__)
    if any(w >= weight[top] - np.log(INK_ODDS) for a, w in weight.items() if a != top) or len(asks[top]) != 1:
        return []
    return asks[top]


def _needed(givens: list[str], cells: list[int], solution: str, timeout: float) -> list[int] | None:
    """Of ``cells`` (doubtful, inked, not given back), those the puzzle needs as givens to solve one way,
    or None when they cannot make it so.

    A printed puzzle has one solution: when the givens given back leave several, the inked doubtful
    cells that alone tell them apart are givens, the solution's digits."""
    if all_solutions(parse_line("".join(givens)), 1, timeout):
        return []
    full = list(givens)
    for i in cells:
        full[i] = solution[i]
    if not cells or not all_solutions(parse_line("".join(full)), 1, timeout):
        return None
    several = [count_solutions(parse_line("".join(full[:i] + ["."] + full[i + 1:])), 2, timeout) for i in cells]
    if not all(c.complete for c in several):  # out of time: nothing is known to be needed
        return None
    needed = [i for i, c in zip(cells, several) if c.count > 1]
    trial = list(givens)
    for i in needed:
        trial[i] = solution[i]
    return needed if all_solutions(parse_line("".join(trial)), 1, timeout) else None


# A given the digit model reads below these odds, or that the cell-kind model (at least ``OTHER_PRINT`` sure it is
# a digit) reads as another digit, is not trusted on a page of print alone. On the 125 training printed photos under
# nine conditions (taken, dim, screen, half, 320 px, shadow, blur, motion, JPEG 40), every given the digit model
# misread (47) was one of these, and few of those it read right (471 of 32,362).
UNSURE_PRINT = 0.8
OTHER_PRINT = 0.5
INK_ODDS = 10.0  # the unsure givens' likeliest digits (as the solutions allow) must be this much likelier than others
ALIKE = 0.5  # a digit both readers give these odds, that the rules changed, shows the rules fitted misreads
INK_FLOOR = 0.01  # a reader's least say in a digit: one reader's zero does not veto what the other sees


def unsure_givens(givens: str, printed: Reading, kinds: CellKinds, skip: tuple[int, ...] = ()) -> list[int]:
    """The givens (as the rules kept them) the two readers are not sure of: the digit model's odds below
    ``UNSURE_PRINT``, or the cell-kind model seeing another digit there."""
    digits = np.array([0 if is_empty(c) else int(c) for c in givens])
    shape = kinds.probs[:, 1:10] + kinds.probs[:, 10:19]  # the digit's shape, printed or written
    other = (shape.sum(axis=1) >= OTHER_PRINT) & (shape.argmax(axis=1) + 1 != digits)
    weak = (printed.digits == digits) & (printed.confidence < UNSURE_PRINT)
    return [int(i) for i in np.flatnonzero((digits > 0) & (weak | other)) if int(i) not in skip]


def settle_unsure(result: BoardResult, printed: Reading, kinds: CellKinds, skip: tuple[int, ...] = (),
                  timeout: float = 1.0, loose: tuple[int, ...] = ()) -> tuple[BoardResult, tuple[int, ...]]:
    """A printed page's solved reading with its unsure givens settled by their ink, and the cells it cannot settle.

    A wrong given is the worst a printed page can suffer: the solution drawn is then another puzzle's
    (issue 21). In a dim room's noise a 6 closes into an 8; on a small picture an 8 loses its waist to a 5.
    The rules catch a misread that breaks the puzzle, but not one that still solves one way: then the
    sure givens alone (``unsure_givens`` left out) have several solutions, and the misread picked one.
    So the sure givens' solutions (up to ``PICK_AMONG``) are weighed by the unsure cells' ink, both
    readers' odds of each solution's digit (the digit model's and the cell-kind model's, as a product):
    the likeliest stands when it is ``INK_ODDS`` times likelier than every other, even against the
    reading (a digit corrected by its ink); else the unsure cells the contenders disagree on are named
    unreadable and no solution is drawn. A written-on page is left alone (the print model is unsure of
    every handwritten cell), as are cells in ``skip`` (a glare's) and readings the rules left ambiguous.
    The ``loose`` givens, a glare's cells given back from the solution itself, are neither judged nor
    counted among the sure ones (they would only confirm the solution they came from); a corrected
    solution must keep them, or the unsure cells are named.
    """
    if (result.status != Status.SOLVED or not result.solution or not result.givens
            or _pen_or_pencil(kinds)):
        return result, ()
    cells = unsure_givens(result.givens, printed, kinds, skip + loose)
    if not cells:
        return result, ()
    shape = kinds.probs[:, 1:10] + kinds.probs[:, 10:19]
    # the givens the two readers see as two different digits
    torn = [i for i in cells if shape[i].sum() >= OTHER_PRINT and int(shape[i].argmax()) + 1 != int(result.givens[i])]
    found = all_solutions(parse_line(_without(result.givens, cells + list(loose))), PICK_AMONG, timeout)
    # ... of which the rules changed one that both readers read alike, each more likely than not: a solution
    # made to fit misread givens
    overruled = any(0 < printed.digits[i] == int(shape[i].argmax()) + 1 != int(result.givens[i])
                    and printed.confidence[i] >= ALIKE and shape[i].max() >= ALIKE for i in torn)
    if found is None and overruled and len(torn) < len(cells) and result.message != SEVERAL:
        # too many solutions to weigh without every unsure given (a streaked picture: a third of the print
        # below UNSURE_PRINT): the merely weak givens stand, and the torn ones alone are weighed
        cells = torn
        found = all_solutions(parse_line(_without(result.givens, cells + list(loose))), PICK_AMONG, timeout)
    if found is None and result.message == SEVERAL and torn:
        # too many to weigh, and the reading's own solution only one of several: a given the readers see as
        # two different digits is not passed off as read (the answer drawn would be a guess built on it)
        return _torn(result, tuple(torn)), tuple(torn)
    if not found or len(found) == 1:  # too many to weigh, or the sure givens settle it (the reading's own solution)
        return result, ()
    shape = shape / np.maximum(shape.sum(axis=1, keepdims=True), 1e-9)
    digit = printed.probs[:, 1:10] / np.maximum(printed.probs[:, 1:10].sum(axis=1, keepdims=True), 1e-9)
    ink = np.log(digit + INK_FLOOR) + np.log(shape + INK_FLOOR)  # (81, 9)
    # the unsure cells' digits each solution asks for, weighed by their ink (solutions that differ only in the
    # answers, a reading the rules left ambiguous, ask for the same)
    asks: dict[str, float] = {}
    for s in found:
        digits = "".join(s[i] for i in cells)
        asks[digits] = float(sum(ink[i, int(d) - 1] for i, d in zip(cells, digits)))
    best = max(asks, key=asks.__getitem__)
    contenders = [a for a, w in asks.items() if w >= asks[best] - np.log(INK_ODDS)]
    if len(contenders) > 1:  # the cells they disagree on are named; where they all agree, their digit is read
        split = tuple(i for k, i in enumerate(cells) if len({a[k] for a in contenders}) > 1)
        agreed = {i: contenders[0][k] for k, i in enumerate(cells) if i not in split}
        givens = "".join(agreed.get(i, c) for i, c in enumerate(result.givens))
        return _torn(replace(result, givens=givens), split), split
    if all(result.givens[i] == d for i, d in zip(cells, best)):
        return result, ()
    givens = "".join(best[cells.index(i)] if i in cells else c for i, c in enumerate(result.givens))
    solution = next((s for s in found if all(s[i] == d for i, d in zip(cells, best))
                     and all(s[j] == givens[j] for j in loose)), None)
    if solution is None:  # the correction breaks the cells given back from the old solution: nothing is drawn
        return _torn(result, tuple(cells)), tuple(cells)
    note = tuple(f"{NAMES[i]}: {result.givens[i]}->{d}" for i, d in zip(cells, best) if result.givens[i] != d)
    return replace(result, givens=givens, solution=solution, corrected=result.corrected + note,
                   message="; ".join(filter(None, [result.message, "corrected by the ink: " + ", ".join(note)]))), ()


def _without(givens: str, cells: list[int]) -> str:
    """``givens`` with ``cells`` left blank."""
    return "".join("." if i in cells else c for i, c in enumerate(givens))


def _torn(result: BoardResult, torn: tuple[int, ...]) -> BoardResult:
    """``result`` with the givens ``torn`` between digits named unreadable, and no solution drawn."""
    assert result.givens is not None
    givens = "".join("." if i in torn else c for i, c in enumerate(result.givens))
    return replace(result, status=Status.UNSOLVABLE, givens=givens, solution=None,
                   message=f"{', '.join(NAMES[i] for i in torn)} unreadable (unsure of the digit); the cells "
                           "that can be read leave several solutions")


def unseen(reading: Reading, cells: tuple[int, ...]) -> Reading:
    """The reading with ``cells`` holding no vote at all: blank, no second choice for the rules to try."""
    if not cells:
        return reading
    probs = reading.probs.copy()
    probs[list(cells)] = 0.0
    digits = reading.digits.copy()
    digits[list(cells)] = 0
    conf = reading.confidence.copy()
    conf[list(cells)] = 0.0
    return Reading(digits, conf, probs)


def _sure_of_writing(kinds: CellKinds, sure: float = 0.9, enough: int = 3) -> bool:
    """Enough cells confidently read as handwritten entries to trust that the page was written on."""
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    return int(((kinds.kinds == ENTRY) & (p_entry >= sure)).sum()) >= enough


def _pen_or_pencil(kinds: CellKinds) -> bool:
    """A page written on surely in pen (``_sure_of_writing``) or marked in pencil (``MARKED`` cells of
    candidates): not a page of print alone, whose every mark the glare rules may take for faded print."""
    return _sure_of_writing(kinds) or int((kinds.kinds == CANDIDATES).sum()) >= MARKED


SURE_WRITTEN = 0.8  # a cell less sure than this of holding a written digit is never called a mistake
DOUBT = 0.1  # an entry whose readers give the solution's digit these odds against their likeliest is the solution's
# A mistake is claimed only when each reader alone is sure of it: the cell is handwriting (SURE_ENTRY; a
# given the rules did not keep is not), each
# model gives the written digit at least SURE_DIGIT of its digit odds and the solution's digit under AGAINST
# of the written one's, and the two name the same digit. Anything less is a doubt ("looks like"), never a mistake.
SURE_ENTRY = 0.5
AGAINST = 0.05  # each reader's odds of the solution's digit against the written one's must be below this
# ... and, when the written digit is printed in the cell's row, column or box, the two readers' odds together
# (their geometric mean) below this: a slip a person seldom makes, the print being in plain view, so a reading
# that makes it is more often a misreading (train image1036 blurred: a 4 open at the top read as 7, a printed 7
# in its column, at 0.018). Planted swaps on the train photos: 7 of 309 such sure mistakes become doubts
AGAINST_PRINTED = 0.015
SHARP = 0.40  # a picture whose steepest edges are below this share of its contrast is blurred (EntryOpinion)
NOISY = 0.06  # ... whose paper's typical Laplacian is above this share of its contrast is noisy
# ... and whose least steep edges of four directions are below this share of its steepest is shaken (train
# written-on photos as taken: 0.57-0.99, a tenth below 0.75; under the benchmark's 7 px streak: median 0.58)
SHAKEN = 0.55
SURE_DIGIT = 0.5
# Sizes against the page's own sure entries (the median height of up to REFERENCE of them, at least MIN_REFERENCE):
# pencilled candidates are about 0.6 of them (0.45-0.8 on the handwritten photos), entries about 1 (>= 0.78).
LONE_ENTRY = 0.85  # one small digit, read as candidates, this tall and the solution's digit: an entry written small
# ... or in several pieces (a shaken pen stroke broken up) when the entry model reads the whole cell as the
# solution's digit this surely (train written-on photos under motion blur: 4 entries of image1014 read as pencil)
BROKEN_ENTRY = 0.8
# the entry odds of the page's only "pencil mark" that makes it an entry, when the readers leave the solution's
# digit a fair chance (DOUBT) and it is as tall as the page's entries (LONE_ENTRY): shaken, a pen 1's thin stroke
# looks pencilled (train image1067 under the benchmark's motion blur: 0.34, its candidates' 0.64)
ALONE_ENTRY = 0.2
SEEN_ENTRY = 2 / 3  # an entry the gate would drop as a smudge, this tall and the solution's digit: kept
AGREED_ENTRY = 0.55  # ... this tall when both readers name the solution's digit on a written-on page
SMALL_ENTRY = 0.75  # an unsure entry on a page with pencil marks, smaller than this (entries: >= 0.78): candidates
REFERENCE = 5
MIN_REFERENCE = 3


SMALL_PRINT = 0.8  # a "given" this much shorter than the page's sure givens is handwriting (print has one size)
PRINT_REFERENCE = 7  # the surest givens whose median height is the page's print size
MAYBE_SMALL = 0.9  # a given whose rough height (from the model's views) is under this share is measured exactly
# The least entry odds of a short "given" that is handwriting. On the train written-on photos under twelve
# conditions, the height alone turned 65 givens to entries: the 43 that were entries had odds 0.055 and more,
# the 22 that were print (a screen's moire, blur at the grid's edge) 0.049 and less
SMALL_ODD_ENTRY = 0.05


def _rough_heights(views: np.ndarray) -> np.ndarray:
    """Each cell's ink height in its model view (half scale): the rows of the cell's interior, clear of its
    grid lines, holding ink in the middle columns. Rough (a stray mark makes a digit taller), but free."""
    m, half = VIEW_MARGIN // 2, VIEW_CELL // 2
    inner: np.ndarray = views[:, m + 3: m + half - 3, m + 6: m + half - 6] > 0.5
    rows = np.asarray(inner.any(axis=2))
    first = rows.argmax(axis=1)
    last = rows.shape[1] - 1 - rows[:, ::-1].argmax(axis=1)
    return np.where(rows.any(axis=1), last - first + 1, 0)


def small_print_is_written(kinds: CellKinds, second: EntryOpinion, views: np.ndarray,
                           sure: float = 0.9) -> CellKinds:
    """On a written-on page, a cell read as print whose digit is well below the print's size is an entry.

    A newspaper prints every given in one font at one size: over 9,200 givens of the training
    photos, each digit's height lies within 0.79-1.29 of its page's median (all but a handful
    within 0.83-1.17). Handwriting taken for print is mostly smaller (0.58-0.88 of it, in 12 of 13 such
    cells there), and a red or blue pen in poor light may not show its colour. Pages with no sure
    entry are left alone: on print alone, nothing is handwriting. Only the surest givens (the
    print's size) and those that look small in the model's views (``views``, from ``grid_views``)
    are measured exactly.
    """
    if not _sure_of_writing(kinds, sure):
        return kinds
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    given = [int(i) for i in np.flatnonzero(kinds.kinds == GIVEN)]
    surest = [i for i in sorted(given, key=lambda i: -p_given[i]) if p_given[i] >= sure][:PRINT_REFERENCE]
    if len(surest) < MIN_REFERENCE:
        return kinds
    rough = _rough_heights(views)
    rough_print = float(np.median(rough[surest]))
    maybe = [i for i in given if i not in surest and rough[i] < MAYBE_SMALL * rough_print]
    heights = dict(zip(surest + maybe, second.heights(surest + maybe, flat=True)))
    reference = [heights[i] for i in surest if heights[i] > 0]
    if len(reference) < MIN_REFERENCE:
        return kinds
    limit = SMALL_PRINT * float(np.median(reference))
    # a sure 'given' may be handwriting too; but not one in the givens' own ink, on a page of two inks
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    # ... nor one the model gives next to no odds of handwriting (``SMALL_ODD_ENTRY``): a given at the grid's
    # edge, its box cut by the border line or a blur's fringe, measures short too
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    small = [i for i in surest + maybe if 0 < heights[i] < limit and ink[i] >= 0 and p_entry[i] >= SMALL_ODD_ENTRY]
    return _voted_written(kinds, small)


def _voted_written(kinds: CellKinds, cells: list[int]) -> CellKinds:
    """``kinds`` with a vote for handwriting on each of ``cells`` (the second opinions' common end)."""
    if not cells:
        return kinds
    votes = np.zeros(81, np.float32)
    votes[cells] = 1.0
    probs = apply_votes(kinds.probs, votes)
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


# Print stands where its font puts it: on the training written-on photos, the sure givens' digit boxes lie
# on one plane over the grid (all but a few centres within 3.5 px of it; px at CELL scale) and are one height
# (0.91-1.06 of their median). Entries the kind model takes for print under blur, a screen's moire or a
# small picture mostly lie off it (median 5 px) or are shorter (median 0.79-0.93).
PRINT_SURE = 0.97  # givens this sure are the page's print: where they stand and how tall is the reference
MIN_PLACED = 6  # sure givens needed to fit the print's plane
ODD_ENTRY = 0.1  # a given with at least these entry odds is measured (fewer: it is print, as the model says) ...
NOISY_ODD_ENTRY = 0.15  # ... in a noisy picture (a dim room's speckle sways the model's odds for print too)
OFF_PLACE = 2.5  # a digit whose box's centre is this far off the print's plane (px at CELL scale) ...
OFF_SPREAD = 2.0  # ... and this many times the 90th percentile of the sure givens' own distances to it
SHORT_PRINT = 0.85  # ... or this much shorter than the print is handwriting,
TALL_PRINT = 1.1  # unless its box is this much taller than print (or WIDE_PRINT wider than print's widest
WIDE_PRINT = 1.5  # digit): something else joined it (a neighbour's stroke, the border), nothing is judged


def misplaced_print_is_written(kinds: CellKinds, second: EntryOpinion) -> CellKinds:
    """On a written-on page, a doubtful given that stands off the print's places, or is short of its size, is an entry.

    Blurred, off a screen or small, a neat hand's digit looks like print to the kind model, and a
    page written in black (or a pen whose colour the light took) gives no colour to tell them apart
    (issue 21: most written-on pages that failed under those conditions). A newspaper prints every
    given at the same place in its cell: the boxes of the page's sure givens (``PRINT_SURE``) fit
    one plane over the grid (their centres, by row and column: the warp's small errors are smooth).
    A given that the model itself gives ``ODD_ENTRY`` odds of an entry, standing ``OFF_PLACE`` off
    that plane (and ``OFF_SPREAD`` times as far as the print's own stand: speckle moves boxes) or
    ``SHORT_PRINT`` of the print's height, is an entry. Cells in the givens' own ink, on a page of
    two inks, stay print.
    """
    if not _sure_of_writing(kinds):
        return kinds
    p_given, p_entry = kinds.probs[:, 1:10].sum(axis=1), kinds.probs[:, 10:19].sum(axis=1)
    noisy = second.quiet is not second.warped
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    doubtful = np.flatnonzero((kinds.kinds == GIVEN) & (p_given < PRINT_SURE) & (ink >= 0)
                              & (p_entry >= (NOISY_ODD_ENTRY if noisy else ODD_ENTRY)))
    if not len(doubtful):
        return kinds
    sure = [int(i) for i in np.flatnonzero((kinds.kinds == GIVEN) & (p_given >= PRINT_SURE))]
    boxes = dict(zip(sure + [int(i) for i in doubtful], second.boxes(sure + [int(i) for i in doubtful])))
    placed = [i for i in sure if boxes[i] is not None]
    if len(placed) < MIN_PLACED:
        return kinds
    at = np.array([[1.0, i // 9, i % 9] for i in placed])
    box = np.array([boxes[i] for i in placed], np.float64)
    centres = np.stack([box[:, 0] + box[:, 1], box[:, 2] + box[:, 3]], axis=1) / 2
    plane = np.linalg.lstsq(at, centres, rcond=None)[0]
    height = float(np.median(box[:, 1] - box[:, 0]))
    width = float(np.max(box[:, 3] - box[:, 2]))
    # a dim room's speckle joins the boxes of print too: the page's own print says how far off is off
    stand = centres - at @ plane
    spread = percentile(np.hypot(*stand.T), 90)
    off_place = max(OFF_PLACE, OFF_SPREAD * spread)
    digit = kinds.digits[placed]
    written = []
    for i in doubtful:
        b = boxes[int(i)]
        if b is None:
            continue
        h = (b[1] - b[0]) / height
        off = np.array([(b[0] + b[1]) / 2, (b[2] + b[3]) / 2]) - np.array([1.0, i // 9, i % 9]) @ plane
        # each glyph of a font has its own offset in its box (a 1 stands narrow, off the middle): against the
        # sure givens of the same digit; with none, across is not judged (only the height and up or down)
        same = stand[digit == kinds.digits[i]]
        off = off - np.median(same, axis=0) if len(same) else off * np.array([1.0, 0.0])
        if h < TALL_PRINT and b[3] - b[2] < WIDE_PRINT * width and (
                float(np.hypot(*off)) >= off_place or h <= SHORT_PRINT):
            written.append(int(i))
    return _voted_written(kinds, written)


PALE_PEN_SURE = 0.8  # the entry model's least probability of its digit for a blank-looking cell in the entries' ink
# the entry model's least probability of its digit for a blank cell drawn in the entries' ink alone: lower than
# PALE_PEN_SURE, as its strokes stand out from the print and the paper there (train written-on photos under six
# conditions: 11 more entries found than at 0.8, none in a blank cell)
PEN_SURE = 0.5
PALE_PEN_MASS = 0.75  # the entry odds such a cell is given: a written digit, never sure enough to be called wrong


# Most newspapers print their givens in a pattern symmetric under a half turn (65 of the 160 sudoku-photos
# puzzles; each of the others is at least 24 cells off it). A reading one pair of cells off such a pattern has
# misread one of the two: the chance that a pattern of this many givens (SYMMETRIC_GIVENS) is a single pair
# off by design is slight.
SYMMETRIC_GIVENS = 20
# Pairs off the pattern that are set right. Two pairs gained one train photo-condition (1437 -> 1438 split
# exactly), too little for the larger chance that a pattern two pairs off is the printed one
OFF_PAIRS = 1
# The least odds the model must give the cell that changes kind (a given's entry odds, an entry's print odds).
# Chosen on the train written-on photos under six conditions: the eight right changes had 0.08 and more, the two
# wrong ones (a given read as a sure entry, whose partner, sure print, was taken for handwriting) 0.03 and 0.05.
# At this bar, under all thirteen conditions of scripts/eval_robust.py, the rule makes 11 changes there, all right
ODD_KIND = 0.07


def symmetric_print(kinds: CellKinds) -> CellKinds:
    """On a written-on page whose givens are symmetric under a half turn but for one pair of cells (``OFF_PAIRS``),
    that pair set right.

    A neat hand's digit taken for print (blurred, off a screen, a black pen) stands where the
    pattern has no given; a given taken for handwriting leaves a hole in it. Of the pair's given
    and its partner (an entry, or a blank cell), the one the model gives the more odds of the other
    kind changes kind, when they are at least ``ODD_KIND``. On a page of two inks, a cell in the
    givens' ink stays print and one in the entries' ink stays handwriting: when that leaves one
    cell that can change, it does. A given taken for an entry keeps entry odds below
    ``SURE_WRITTEN``: it is checked against the solution but never called a mistake.
    """
    given = kinds.kinds == GIVEN
    odd = [int(i) for i in np.flatnonzero(given & ~given[::-1])]  # each off pair's given
    if not 0 < len(odd) <= OFF_PAIRS or int(given.sum()) < SYMMETRIC_GIVENS or not _sure_of_writing(kinds):
        return kinds
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    probs = kinds.probs.copy()
    for i in odd:
        j = 80 - i  # its partner
        entry = kinds.kinds[j] == ENTRY
        written, printed = ink[i] >= 0, entry and ink[j] <= 0  # i may be handwriting, j may be print
        told = written != printed and (ink[i] < 0 or (entry and ink[j] > 0))  # the inks rule one of them out
        # a partner made handwriting by a second opinion (its size or place: its print odds set to none) cannot
        # be weighed against the given: the pair is left as read (held-out 02_28_honor_view_10_1 under an 11 px
        # streak: a given cut short was voted written, and its partner, a true given, was turned instead)
        if printed and not told and float(kinds.probs[j, 1:10].sum()) == 0.0:
            continue
        odds_written = float(kinds.probs[i, 10:19].sum()) if written else -1.0
        odds_printed = float(kinds.probs[j, 1:10].sum()) if printed else -1.0
        if max(odds_written, odds_printed) < (0.0 if told else ODD_KIND):
            continue
        if odds_printed >= odds_written:
            probs[j] = apply_votes(probs[j:j + 1], np.array([-1.0], np.float32))[0]
        else:
            digit = probs[i, 1:10] + probs[i, 10:19]
            probs[i] = 0.0
            probs[i, 0] = 1.0 - PALE_PEN_MASS
            probs[i, 10:19] = PALE_PEN_MASS * digit / digit.sum()
    if np.array_equal(probs, kinds.probs):
        return kinds
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def read_kinds(kinds: KindReader, seen: GridViews, second: EntryOpinion) -> CellKinds:
    """Each cell's kind as a photo and a live frame read it: the kind model on the grid's views, stains on a
    printed page left blank, then the entry model's second opinion on small print, print standing off the
    givens' places and pale pen, and last the givens' half-turn pattern (:func:`stains_are_blank`,
    :func:`small_print_is_written`, :func:`misplaced_print_is_written`, :func:`pale_pen_entries`,
    :func:`symmetric_print`)."""
    cell_kinds = stains_are_blank(kinds.read(seen.views, seen.inks), seen.square)
    cell_kinds = small_print_is_written(cell_kinds, second, seen.views)
    cell_kinds = pale_pen_entries(misplaced_print_is_written(cell_kinds, second), second, seen.inks)
    return symmetric_print(cell_kinds)


STAIN = 0.4  # an "entry" on a printed page fainter than this share of the print's contrast is a stain
MIN_PRINT = 17  # sure givens that tell the print's contrast (as many as the fewest a puzzle has)


def stains_are_blank(kinds: CellKinds, square: np.ndarray) -> CellKinds:
    """Cells read as entries on a page not written on (``_sure_of_writing``) whose ink is far fainter than the
    print's (under ``STAIN`` of the sure givens' median ``ink_contrast``): blank.

    A stain, a smudge or a mark showing through the paper can take the shape of a handwritten digit
    (our held-out image1045, r5c7, read as an entry at 0.90 with its ink a quarter of the print's): a person
    sees a printed page. A glared page is left alone: a glare fades its print too (``unreadable_cells``).
    """
    entries = np.flatnonzero(kinds.kinds == ENTRY)
    if not len(entries) or _sure_of_writing(kinds) or glare_cover(square) is not None:
        return kinds
    given = (kinds.kinds == GIVEN) & (kinds.probs[:, 1:10].sum(axis=1) >= 0.9)
    if int(given.sum()) < MIN_PRINT:
        return kinds
    contrast = ink_contrast(square)
    faint = [int(i) for i in entries if contrast[i] < STAIN * float(np.median(contrast[given]))]
    if not faint:
        return kinds
    probs = kinds.probs.copy()
    probs[faint] = 0.0
    probs[faint, 0] = 1.0
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def pale_pen_entries(kinds: CellKinds, second: EntryOpinion, inks: np.ndarray | None = None) -> CellKinds:
    """Cells the kind model saw as blank that hold a digit-sized stroke in the page's entries' own ink: entries.

    A red pen is pale in grey, and paler still under a warm lamp, in a dim room or off a screen: the kind
    model saw nothing where the colour plainly shows the person's ink. Such a cell is an entry when the
    entry-digit model, which scales a stroke to its own darkness, reads a digit in it surely and the digit
    is at least ``SEEN_ENTRY`` of the page's entries' height (a speck of ink is not). It is read twice:
    in grey where its ink's colour is the entries' (``CellKinds.ink`` +1), then, on a page of two inks
    (``inks``, :func:`kinds.page_inks`), drawn in the entries' ink alone (:meth:`EntryOpinion.pen_cells`),
    where a pen as light as its paper in grey is plain. Its entry odds stay below ``SURE_WRITTEN``: a
    digit seen only this way is checked against the solution but never called a mistake.
    """
    if kinds.ink is None or not _sure_of_writing(kinds):
        return kinds
    found: dict[int, np.ndarray] = {}
    pale = [int(i) for i in np.flatnonzero((kinds.ink > 0) & (kinds.kinds == BLANK))]
    if pale:
        p = second.digits(pale)
        sure = [k for k in range(len(pale)) if p[k].max() >= PALE_PEN_SURE]
        sized = set(second.page_sized(kinds, [pale[k] for k in sure], SEEN_ENTRY))
        found.update((pale[k], p[k]) for k in sure if pale[k] in sized)
    two = page_inks(kinds.probs, inks) if inks is not None and second.colour is not None else None
    rest = [int(i) for i in np.flatnonzero(kinds.kinds == BLANK) if int(i) not in found]
    if two is not None and rest:
        p, heights = second.pen_cells(rest, two, kinds)
        found.update((i, p[k]) for k, i in enumerate(rest) if p[k].max() >= PEN_SURE and heights[k] >= SEEN_ENTRY)
    if not found:
        return kinds
    probs = kinds.probs.copy()
    for i, q in found.items():
        probs[i] = 0.0
        probs[i, 0] = 1.0 - PALE_PEN_MASS
        probs[i, 10:19] = PALE_PEN_MASS * q
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def _sure_entries(kinds: CellKinds, sure: float = 0.9) -> list[int]:
    """The cells read as entries with at least ``sure`` entry odds, surest first."""
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    return [int(i) for i in np.argsort(-p_entry) if kinds.kinds[i] == ENTRY and p_entry[i] >= sure]


def _sure_written(kinds: CellKinds, givens: str) -> list[int]:
    """The person's sure entries (``_sure_entries``) in cells the givens leave blank, each with a digit."""
    return [i for i in _sure_entries(kinds) if is_empty(givens[i]) and kinds.digits[i]]


def _entries_height(heights: list[int]) -> float:
    """The page's entries' height: the median of its surest entries' (``heights``, 0 where no digit was
    found); 0 with fewer than ``MIN_REFERENCE`` found."""
    found = [h for h in heights if h > 0]
    return float(np.median(found)) if len(found) >= MIN_REFERENCE else 0.0


class EntryOpinion:
    """A second look at a few handwritten cells of one grid, by the entry-digit model.

    The grid is warped only when a cell is asked about: most pages need no second look.
    """

    def __init__(self, kinds: KindReader, image: np.ndarray, corners: np.ndarray,
                 lattice: np.ndarray | None = None, warped: np.ndarray | None = None,
                 colour: np.ndarray | None = None):
        self.kinds, self.image, self.corners, self.lattice = kinds, image, corners, lattice
        # the picture in BGR, when it has colour: a pale pen is read from its own ink
        self.colour = colour if colour is not None and colour.ndim == 3 else None
        self._warped = warped  # ``GridViews.square`` when the kind model's inputs were just made
        self._flat: np.ndarray | None = None
        self._quiet: np.ndarray | None = None
        self._entry_height: float | None = None
        self.lone: dict[int, np.ndarray] = {}  # P(digit 1..9) of the cells :meth:`candidates` found one blob in
        self._poor: bool | None = None

    @property
    def warped(self) -> np.ndarray:
        if self._warped is None:
            self._warped = warp_views_grid(to_gray(self.image), self.corners, self.lattice)
        return self._warped

    def poor_picture(self) -> bool:
        """Too blurred or too noisy a picture to call a digit wrong: the readers can be sure and still misread.

        Measured on the square grid (the same scale whatever the photo's size): sharpness is the
        steepest edges (grid lines, print) across x or across y, the less steep, over the page's
        contrast; noise the paper's typical Laplacian over it. On the 35 held-out written-on photos
        as taken, sharpness is 0.41-0.99 and noise 0.01-0.05; blurred by 1.6 px (on 640) 0.16-0.43,
        shaken by 7 px 0.17-0.47; in a dim room's sensor noise or a screen's moiré, noise is 0.07-0.14.
        A streak across the diagonal leaves x and y alike and steep enough: the four directions' evenness
        (``SHAKEN``) tells it (issue 21: a shaken 4 read as 7 and called wrong). A grid whose streak was
        measured and taken out (``deblur.measure_streak``) looks sharp, but its strokes are restored, not
        seen: the same 4 can still read as 7, so it is poor too.
        """
        if self._poor is None:
            inner = self.warped[VIEW_MARGIN: VIEW_MARGIN + 9 * VIEW_CELL,
                                VIEW_MARGIN: VIEW_MARGIN + 9 * VIEW_CELL].astype(np.float32)
            lo, hi = percentiles(inner, [2, 90])
            contrast = max(float(hi - lo), 1.0)
            # the less steep of the two directions: a shaken camera smears edges across its motion only ...
            gx, gy = cv2.Sobel(inner, cv2.CV_32F, 1, 0), cv2.Sobel(inner, cv2.CV_32F, 0, 1)
            c = np.float32(np.sqrt(0.5))
            steep = [percentile(np.abs(g), 99.5) / contrast / 4 for g in (gx, gy, c * (gx + gy), c * (gx - gy))]
            sharp = min(steep[:2])
            # ... and a streak across the diagonal smears both alike: the least steep of four over the steepest
            even = min(steep) / max(max(steep), 1e-6)
            lap = np.abs(cv2.Laplacian(inner, cv2.CV_32F))
            paper = inner > lo + 0.8 * (hi - lo)
            noise = percentile(lap[paper], 50) / contrast if paper.any() else 1.0
            self._poor = sharp < SHARP or even < SHAKEN or noise > NOISY or self._streaked()
        return self._poor

    def _streaked(self) -> bool:
        """Whether the picture, before any deblurring, shows a shaken camera's streak."""
        raw = warp_views_grid(to_gray(self.image), self.corners, self.lattice, deblur=False)
        return measure_streak(raw, VIEW_CELL, VIEW_MARGIN) is not None

    def pen_cells(self, cells: list[int], inks: tuple[np.ndarray, np.ndarray],
                  kinds: CellKinds) -> tuple[np.ndarray, list[float]]:
        """P(digit 1..9) of each cell drawn in the handwriting's ink alone (:func:`kinds.pen_map`), and its
        digit's height there over the page's sure entries' (0 where no digit or no reference is found)."""
        assert self.colour is not None
        pen = pen_map(self.colour, self.corners, self.lattice, *inks)
        scale = _entries_height([ink_height(cell_region(pen, i)) for i in _sure_entries(kinds)[:REFERENCE]])
        heights = [ink_height(cell_region(pen, i)) / scale if scale else 0.0 for i in cells]
        return self.kinds.entries.probabilities(entry_crops(pen, cells)), heights

    @property
    def quiet(self) -> np.ndarray:
        """The grid with a noisy picture's speckle smoothed away (:func:`kinds.quiet`); a clean one as it is."""
        if self._quiet is None:
            self._quiet = quiet(self.warped)
        return self._quiet

    def digits(self, cells: list[int]) -> np.ndarray:
        """P(digit 1..9) of each cell, read with its ink re-centred and re-scaled."""
        return self.kinds.entries.probabilities(entry_crops(self.warped, cells))

    def entry_height(self, kinds: CellKinds, sure: float = 0.9) -> float:
        """The median digit height of the page's surest entries (up to REFERENCE); 0 with too few of them.

        Handwriting's size varies from writer to writer, so a cell's ink height says little alone
        (candidates of a large hand are as tall as the entries of a small one); against the same
        page's entries it does.
        """
        if self._entry_height is None:
            self._entry_height = _entries_height(self.heights(_sure_entries(kinds, sure)[:REFERENCE]))
        return self._entry_height

    def heights(self, cells: list[int], flat: bool = False) -> list[int]:
        """The digit's height (px at CELL scale) in each cell, 0 where none is found.

        ``flat``: measured with the page's shading divided out (:func:`grid.unshade`), so a shadow's
        edge across a digit does not cut it short. A noisy grid (a dim room, a screen's moiré) is measured
        smoothed (:func:`kinds.quiet`): its speckle joins a digit's blob and makes print look taller than
        itself, and a given of the page's print size was taken for small handwriting (issue 21).
        """
        if flat and self._flat is None:
            self._flat = unshade(self.quiet)
        grid = self._flat if flat and self._flat is not None else self.quiet
        return [ink_height(cell_region(grid, i)) for i in cells]

    def boxes(self, cells: list[int]) -> list[tuple[int, int, int, int] | None]:
        """The digit's box in each cell's region (:func:`entries.ink_box`), measured as :meth:`heights` are."""
        return [ink_box(cell_region(self.quiet, i)) for i in cells]

    def relative_heights(self, kinds: CellKinds, cells: list[int]) -> list[float]:
        """Each cell's digit height over the page's entries' (0 where no digit is found, or the page's is unknown)."""
        if not cells:
            return []
        ref = self.entry_height(kinds)
        if ref <= 0:
            return [0.0] * len(cells)
        return [h / ref for h in self.heights(cells)]

    def page_sized(self, kinds: CellKinds, cells: list[int], share: float) -> list[int]:
        """The cells whose digit is at least ``share`` of the page's entries' height (none when that is unknown)."""
        return [i for i, r in zip(cells, self.relative_heights(kinds, cells)) if r >= share]

    def candidates(self, cells: list[int], sure: float = 0.5) -> list[str]:
        """The pencilled digits of each cell, in order ("26"): each small digit read alone, unsure ones left out.

        A blob wide enough to be two digits written touching is read both ways; it is two when the
        model is surer of each half than of the whole.
        """
        pieces = [candidate_pieces(cell_region(self.warped, i)) for i in cells]
        crops = [c for cell in pieces for whole, halves in cell for c in (whole, *halves)]
        p = self.kinds.entries.probabilities(np.stack(crops)) if crops else np.zeros((0, 9), np.float32)
        best, k, out = p.max(axis=1), 0, list[str]()
        for cell in pieces:  # one model call for them all, then each blob's reading in turn
            digits: set[str] = set()
            if len(cell) == 1:
                self.lone[cells[len(out)]] = p[k]
            for _, halves in cell:
                picks = [k + 1, k + 2] if halves and min(best[k + 1], best[k + 2]) > best[k] else [k]
                digits |= {str(int(p[j].argmax()) + 1) for j in picks if best[j] >= sure}
                k += 1 + len(halves)
            out.append("".join(sorted(digits)))
        return out


def _chance(kinds: CellKinds, i: int, right: int, other: np.ndarray | None) -> float:
    """The odds of digit ``right`` (0-8) in cell ``i`` against the likeliest, the two readers' averaged geometrically.

    The kind model's odds are of the digit as written or (misread) as print.
    """
    digit_p = np.maximum(kinds.probs[i, 10:19], kinds.probs[i, 1:10])
    chance = float(digit_p[right] / max(float(digit_p.max()), 1e-9))
    if other is not None:
        chance = float(np.sqrt(chance * other[right] / max(float(other.max()), 1e-9)))
    return chance


def _sure_mistake(kinds: CellKinds, i: int, read: int, right: int, other: np.ndarray | None,
                  printed_near: bool = False) -> bool:
    """Both readers, each on its own, sure that cell ``i`` holds handwritten ``read`` and not ``right`` (0-8); and
    together surer still (``AGAINST_PRINTED``) when ``read`` is printed in the cell's row, column or box."""
    p = kinds.probs[i]
    if kinds.kinds[i] != ENTRY or p[10:19].sum() < SURE_ENTRY or other is None:
        return False
    digits = p[10:19] / max(float(p[10:19].sum()), 1e-9)
    if digits[read] < SURE_DIGIT or digits[right] >= AGAINST * digits[read]:
        return False
    if int(other.argmax()) != read or other[read] < SURE_DIGIT or other[right] >= AGAINST * other[read]:
        return False
    together = np.sqrt(digits[right] / digits[read] * other[right] / other[read])
    return not printed_near or bool(together < AGAINST_PRINTED)


def _printed_near(givens: str, i: int, digit: int) -> bool:
    """Whether ``digit`` (1-9) is a given in cell ``i``'s row, column or box."""
    return any(givens[j] == str(digit) for j in PEER_LIST[i])


# A "pencil mark" in the entries' own pen ink (a page of two inks) is an entry written small: pencil is grey.
# On the train written-on photos under twelve conditions, of 2969 cells left as pencil marks none of the true
# ones was in the entries' ink, and 3 entries were. A person who pencils in pen marks many cells: at most this
# many in the pen's ink are read as entries
PEN_MARKS = 2


def _pen_marks(kinds: CellKinds, second: EntryOpinion, solution: str, marked: list[int]) -> list[int]:
    """The cells of ``marked`` (read as pencil marks) written in the entries' pen ink that the readers leave the
    solution's digit a fair chance (``DOUBT``): entries, as small as pencil, of the solution's digit."""
    if kinds.ink is None:
        return []
    inked = [i for i in marked if kinds.ink[i] > 0]
    if not 0 < len(inked) <= PEN_MARKS:
        return []
    whole = second.digits(inked)
    return [i for k, i in enumerate(inked) if _chance(kinds, i, int(solution[i]) - 1, whole[k]) >= DOUBT]


def written_part(givens: str, kinds: CellKinds, printed: Reading, solution: str | None = None,
                 second: EntryOpinion | None = None, unreadable: tuple[int, ...] = ()) -> Written:
    """Entries and pencil marks around the givens the rules settled on.

    An entry needs a digit-sized blob that the digit model's cutter also saw, a
    confident reading (faint pencil), or the entries' own ink colour: a smudge or
    show-through in an empty cell is not taken for a (wrong) entry. And a mistake
    is only claimed when the reading is sure of it: an entry that disagrees with
    the solution is read again by the entry-digit model (``second``: the ink
    re-centred and re-scaled). Most people write the right digit, so an entry
    whose two readings together (the geometric mean of their odds) leave the
    solution's digit a fair chance (``DOUBT``) is taken as that digit rather
    than flagged; one that is not plainly handwriting, that either reader alone
    is unsure of (``_sure_mistake``), that is no taller than the page's
    pencil marks (``SMALL_ENTRY`` of its entries), or that is seen in a blurred
    or noisy picture (``EntryOpinion.poor_picture``), is a doubt: "looks like", not wrong.
    ``unreadable`` cells (glare) are ``?``: neither blank nor written.

    Size settles entry against pencil mark, but only against the page's own sure
    entries (:meth:`EntryOpinion.entry_height`): one person writes small, another
    pencils large. A digit that the gate would drop, or a single small digit read
    as candidates, is an entry when it is the solution's digit and nearly as tall
    as the page's entries (``SEEN_ENTRY``, ``LONE_ENTRY``), and so is a "pencil mark" of several pieces
    that the entry model reads whole as the solution's digit (``BROKEN_ENTRY``), or a page's only "pencil mark"
    that the kind model gives fair entry odds and the readers the solution's digit a chance (``ALONE_ENTRY``;
    it is never called a mistake: it is the solution's digit); on a page with pencil
    marks, an unsure entry well below their size is candidates (``SMALL_ENTRY``).
    """
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    seen = (printed.probs[:, 0] < 0.5) | (p_entry >= 0.9)
    if kinds.ink is not None:
        seen |= (kinds.ink > 0) & (p_entry >= 0.5)
    if solution and second is not None:  # a faint or thin entry of the solution's digit, as tall as the page's entries
        faint = [i for i, ch in enumerate(kinds.cells) if ch == "e" and not seen[i] and is_empty(givens[i])]
        if faint and _sure_of_writing(kinds):
            # on a written-on page, the entry model's reading counts too: blurred, small or off a screen, the
            # kind model still sees a handwritten digit but misreads which (a 3 taken for a 2). The two readers
            # leaving the solution's digit a fair chance (DOUBT, as below) is enough: it is read as that digit.
            # Where both name the solution's digit, a shorter blob (a 5 whose bar stands apart) is enough too
            # (``AGREED_ENTRY``)
            entry_odds = second.digits(faint)
            agreed = [i for k, i in enumerate(faint)
                      if int(kinds.digits[i]) == int(solution[i]) == int(entry_odds[k].argmax()) + 1]
            seen[second.page_sized(kinds, agreed, AGREED_ENTRY)] = True
            faint = [i for k, i in enumerate(faint) if _chance(kinds, i, int(solution[i]) - 1, entry_odds[k]) >= DOUBT]
        else:
            faint = [i for i in faint if int(kinds.digits[i]) == int(solution[i])]
        seen[second.page_sized(kinds, faint, SEEN_ENTRY)] = True
    letters = "".join("." if ch == "e" and not seen[i] else ch for i, ch in enumerate(kinds.cells))
    read = kinds.digits.copy()
    read[list(unreadable)] = 0
    doubts: list[tuple[int, str]] = []
    if solution:
        odd = [int(i) for i in np.flatnonzero(read) if int(read[i]) != int(solution[i])]
        other = second.digits(odd) if odd and second is not None else None
        written = kinds.probs[:, 1:19].sum(axis=1)  # a digit was written there at all (entry, or misread as print)
        for k, i in enumerate(odd):
            right = int(solution[i]) - 1
            if written[i] < SURE_WRITTEN:  # perhaps large pencil marks, not an entry: no mistake claimed
                read[i] = right + 1
                continue
            if _chance(kinds, i, right, None if other is None else other[k]) >= DOUBT:
                read[i] = right + 1
            elif not _sure_mistake(kinds, i, int(read[i]) - 1, right, None if other is None else other[k],
                                   _printed_near(givens, i, int(read[i]))):
                doubts.append((i, str(int(read[i]))))
                read[i] = right + 1
        claimed = [i for i in odd if int(read[i]) != int(solution[i]) and written[i] >= SURE_WRITTEN]
        if claimed and second is not None and second.poor_picture():  # blur or noise: doubts only
            for i in claimed:
                doubts.append((i, str(int(read[i]))))
                read[i] = int(solution[i])
            claimed = []
        if claimed and second is not None and second.entry_height(kinds) > 0:
            # a pencilled candidate looks like a pen entry in a poor picture (moiré, noise), but stays small
            for i, r in zip(claimed, second.relative_heights(kinds, claimed)):
                if r < SMALL_ENTRY:
                    doubts.append((i, str(int(read[i]))))
                    read[i] = int(solution[i])
    digits = "".join(str(d) if d else "." for d in read)
    w = from_kinds(givens, letters, digits)
    if unreadable:
        w = Written("".join("?" if i in unreadable else ch for i, ch in enumerate(w.cells)), w.entries)
    w = replace(w, doubts=tuple(doubts))
    if second is None:
        return w
    marked = [i for i, ch in enumerate(w.cells) if ch == "c"]
    pencilled = dict(zip(marked, second.candidates(marked)))
    cells, entries = list(w.cells), list(w.entries)
    if solution:  # one digit written small, of the solution and as tall as the page's entries: an entry
        lone = [i for i in marked if i in second.lone and int(second.lone[i].argmax()) + 1 == int(solution[i])]
        rest = [i for i in marked if i not in lone]
        if rest:
            whole = second.digits(rest)
            lone += [i for k, i in enumerate(rest)
                     if int(whole[k].argmax()) + 1 == int(solution[i]) and whole[k].max() >= BROKEN_ENTRY]
            if len(marked) == 1:  # the page's one "pencil mark": a shaken thin entry (a 1) the kind model doubts
                lone += [i for k, i in enumerate(rest) if i not in lone and p_entry[i] >= ALONE_ENTRY
                         and _chance(kinds, i, int(solution[i]) - 1, whole[k]) >= DOUBT]
        for i in second.page_sized(kinds, lone, LONE_ENTRY):
            cells[i], entries[i], pencilled[i] = "e", solution[i], ""
        for i in _pen_marks(kinds, second, solution, [i for i in marked if cells[i] == "c"]):
            cells[i], entries[i], pencilled[i] = "e", solution[i], ""
    if "c" in cells:  # a page with pencil marks: an unsure entry well below the page's entries' size is one more
        unsure = [i for i, ch in enumerate(cells) if ch == "e" and kinds.kinds[i] == ENTRY and p_entry[i] < 0.9]
        small = [i for i, r in zip(unsure, second.relative_heights(kinds, unsure)) if 0 < r < SMALL_ENTRY]
        for i, ds in zip(small, second.candidates(small)):
            cells[i], entries[i], pencilled[i] = "c", ".", ds
    if "e" not in cells and not any(pencilled.get(i) for i, ch in enumerate(cells) if ch == "c"):
        # nothing written on the page that can be read: a "pencil mark" with no digit in it is a speck or a
        # stain on a printed page (our held-out image1045, r4c5), not the start of a solve
        cells = ["." if ch == "c" else ch for ch in cells]
    return Written("".join(cells), "".join(entries), tuple(pencilled.get(i, "") for i in range(81)),
                   tuple((i, d) for i, d in doubts if cells[i] == "e"))


def _hidden_open(unreadable: tuple[int, ...]) -> str:
    """Why a glared puzzle has no one solution: the cells it hides."""
    return (f"{', '.join(NAMES[i] for i in unreadable)} unreadable (glare?); "
            "the cells that can be read leave several solutions")


def _settled(result: BoardResult, kinds: CellKinds, sure: float = 0.9, unreadable: tuple[int, ...] = (),
             fixed: Collection[int] = ()) -> BoardResult:
    """A reading whose givens leave several solutions, settled by the person's sure entries if they can.

    The settled solution must agree with nearly all sure entries; when many disagree, a printed
    given was misread. Then no solution is offered: one of several, checked against the
    entries, would mark right entries as mistakes. When a glare hid cells (``unreadable``, left out of
    the reading), the message names them: they, not a misread given, leave the puzzle open.

    A puzzle barely started has few sure entries, and the givens taken for handwriting (shaken or
    blurred print, which the kind model gives odds of both) are what leave it open: after the sure
    entries, the cells read as entries that surely hold a digit, print or pen (``sure`` of the two
    together), are tried too, surest first; so is print the digit model missed and the kind model sees
    surely (a glare's faded given), on a page of print alone too. Cells the person set (``fixed``) stay
    as set.
    """
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    order = _sure_entries(kinds, sure)
    p_digit = p_entry + kinds.probs[:, 1:10].sum(axis=1)
    givens = result.givens or "." * 81
    # ... and print the digit model missed (a glare's faded given: blank to it, print or pen to the kind model)
    either = [int(i) for i in np.argsort(-p_digit) if p_digit[i] >= sure and int(i) not in fixed and (
        (kinds.kinds[i] == ENTRY and p_entry[i] < sure) or (kinds.kinds[i] == GIVEN and is_empty(givens[i])))]
    if not order:  # nothing surely written: a printed page keeps its one-of-several solution and the message,
        # unless the print the digit model missed settles it (then it is print; a glare's hidden cells are
        # given back by their ink instead, ``restore_unreadable``)
        found = settle(givens, [(i, str(kinds.digits[i])) for i in either]) if either and not unreadable else None
        if found is None:
            return result
        solution, used = found
        return replace(result, solution=solution, givens="".join(solution[i] if i in used else g
                                                                 for i, g in enumerate(givens)),
                       message="the givens read leave several solutions; the print seen in "
                       + ", ".join(NAMES[i] for i in used) + " settles it")
    found = settle(result.givens or "", [(i, str(kinds.digits[i])) for i in order + either])
    why = (_hidden_open(unreadable) if unreadable
           else "the printed givens leave several solutions (a given was probably taken for handwriting)")
    unsettled = replace(result, status=Status.UNSOLVABLE, solution=None,
                        message=f"{why} and the entries do not settle it; nothing is checked")
    if found is None:
        return unsettled
    solution, used = found
    wrong = sum(solution[i] != str(kinds.digits[i]) for i in order)
    if wrong > max(2, len(order) // 10):  # the entries disagree with it: a given itself is misread
        return unsettled
    note = ("the printed givens leave several solutions; your entries in "
            + ", ".join(NAMES[i] for i in used) + " settle it")
    return replace(result, solution=solution, message=note)


AGAINST_ENTRIES = 3  # the person's sure entries that, against a solution, make its givens suspect (and a tenth)
GIVEN_ODDS = 0.02  # the least odds either reader gives a misread given's true digit


def _guessed(i: int, printed: Reading, kinds: CellKinds) -> bool:
    """A given that neither reader saw as print (blank to the digit model, not print to the kind model): the
    rules' choice, which the person's entries may overrule whatever odds the readers give their digit."""
    return int(printed.digits[i]) == 0 and int(kinds.kinds[i]) != GIVEN


def entries_against(result: BoardResult, kinds: CellKinds, printed: Reading, skip: Collection[int] = (),
                    timeout: float = 1.0) -> BoardResult:
    """Misread givens that the person's own sure entries contradict, set right by them.

    A given misread as another digit can still make a puzzle with one solution: another puzzle's. Its
    answer then disagrees with many of the entries written on the page (image43 in a dim room: a printed
    5 read as 8, and 14 right entries doubted). People make a mistake or two, not a row of them, and one
    given's change that makes the sure entries agree with the answer is the misreading: each given (not
    ``skip``) is left out in turn, the entries settle the rest (``written.settle``), and the one solution
    that agrees with nearly all of them (as :func:`_settled` asks), giving the cell a digit its readers
    see some of, is taken. When two would each do, nothing is changed. A reading whose givens clash
    (``invalid``) is set right the same way, one of the clashing givens left out, or two that between
    them end every clash. A given the rules filled in where neither reader saw print (``_guessed``: a blurred
    cell whose faint print they took for pencil) needs no odds for the entries' digit.
    """
    if not result.givens:
        return result
    givens = result.givens
    sure = _sure_written(kinds, givens)
    if len(sure) < 2 * AGAINST_ENTRIES:
        return result

    def order(cells: Iterable[int]) -> list[int]:  # the least sure given first, the user's own never
        return sorted(set(cells) - set(skip), key=lambda i: float(printed.confidence[i]))

    tries: list[tuple[int, ...]]
    if result.status == Status.INVALID:  # givens clash: one or two of them are misread
        clashes = validate(parse_line(givens))
        suspects = order(i for c in clashes for i in (c.a, c.b))
        tries = [(i,) for i in suspects] + [
            pair for pair in itertools.combinations(suspects, 2)
            if all(c.a in pair or c.b in pair for c in clashes)]
    elif result.status == Status.SOLVED and result.message != SEVERAL and result.solution:
        against = [i for i in sure if result.solution[i] != str(kinds.digits[i])]
        if len(against) < max(AGAINST_ENTRIES, len(sure) // 10):
            return result
        tries = [(i,) for i in order(i for i, g in enumerate(givens) if not is_empty(g))]
    else:
        return result
    entries = [(i, str(kinds.digits[i])) for i in sure]
    deadline = time.perf_counter() + timeout
    fixes: list[tuple[tuple[int, ...], str]] = []
    for cells in tries:
        if fixes and len(cells) > len(fixes[0][0]):  # a single given's change is taken before two
            break
        if time.perf_counter() > deadline:
            return result
        found = settle(_without(givens, list(cells)), entries,
                       timeout=min(0.3, max(0.01, deadline - time.perf_counter())))
        if found is None:
            continue
        other = found[0]
        if any(other[i] == givens[i] for i in cells) or sum(
                other[k] != str(kinds.digits[k]) for k in sure) > max(2, len(sure) // 10):
            continue
        if any(max(float(printed.probs[i, d]), float(kinds.probs[i, d]), float(kinds.probs[i, 9 + d])) < GIVEN_ODDS
               and not _guessed(i, printed, kinds) for i, d in ((i, int(other[i])) for i in cells)):
            continue
        fixes.append((cells, other))
        if len(fixes) > 1:
            return result
    if not fixes:
        return result
    cells, other = fixes[0]
    note = ", ".join(f"{NAMES[i]}: {givens[i]}->{other[i]}" for i in cells)
    fixed = "".join(other[i] if i in cells else g for i, g in enumerate(givens))
    return replace(result, status=Status.SOLVED, givens=fixed, solution=other,
                   corrected=result.corrected + tuple(note.split(", ")),
                   message="; ".join(filter(None, [result.message if result.status == Status.SOLVED else "",
                                                   "corrected by your entries: " + note])))


DISOWNED = 0.5  # the share of the person's sure entries against a solution that makes it another puzzle's ...
MIN_DISOWNED = 6  # ... when at least this many are against it


def disowned(result: BoardResult, kinds: CellKinds) -> BoardResult:
    """A solution most of the person's sure entries disagree with, withheld: its givens are misread.

    Several givens misread (a page shaken hard, train image87 under an 11 px streak) can still make a
    puzzle with one solution, another puzzle's, that no one given's change (:func:`entries_against`)
    sets right. A person who makes mistakes makes a few, not one in every other cell; drawn, that
    solution would put wrong digits on the page and call right entries wrong.
    """
    if result.status != Status.SOLVED or not result.solution or not result.givens:
        return result
    sure = _sure_written(kinds, result.givens)
    against = sum(result.solution[i] != str(kinds.digits[i]) for i in sure)
    if against < max(MIN_DISOWNED, DISOWNED * len(sure)):
        return result
    return replace(result, status=Status.UNSOLVABLE, solution=None,
                   message=f"the solution disagrees with {against} of your {len(sure)} entries: the printed "
                           "givens are probably misread; nothing is drawn")


def process_image(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                  overrides: dict[int, int] | None = None, kinds: KindReader | None = None) -> BoardResult:
    """Grid, digits, rules, solution for one picture (no drawing, no I/O).

    With a ``kinds`` reader, handwritten entries and pencil marks are told from
    printed givens: the puzzle is solved from the givens alone, and what the
    person wrote comes back in ``written`` to be checked against the solution.
    """
    t0 = time.perf_counter()
    gray = to_gray(image)
    quad = find_grid(gray)
    if quad is None:
        return BoardResult(Status.NO_GRID, message="no Sudoku grid found", ms=(time.perf_counter() - t0) * 1e3)
    result = read_at(image, gray, quad, reader, timeout, overrides, kinds, t0)
    if _printed_full(result.givens):
        # a solution printed beside the puzzle, taken for the grid when a glare or a fold breaks the puzzle's
        # own lines: the puzzle is another grid of the picture
        for other in find_grids(gray):
            if np.abs(other.corners - quad.corners).max() > 0.1 * np.ptp(quad.corners[:, 0]):
                again = read_at(image, gray, other, reader, timeout, overrides, kinds, t0)
                if not _printed_full(again.givens):
                    return _no_guess(again)
    return _no_guess(result)


GUESS = "the reading has several solutions (a given was probably missed); none is drawn"


def _no_guess(result: BoardResult) -> BoardResult:
    """A photo whose reading solves several ways: none of them drawn.

    One of several drawn as the answer is a guess, right perhaps once in a few: a missed given (a glare's
    faded print, held-out image70 and image196 under a strong glare) then put a wrong answer on the page.
    Said instead (``--set`` fills the missed given). A page of several puzzles already withheld it
    (``_one_of_several_withheld``, in its own words), so there this finds nothing left to withhold.
    """
    if result.status != Status.SOLVED or SEVERAL not in (result.message or ""):
        return result
    return replace(result, status=Status.UNSOLVABLE, solution=None, message=result.message.replace(SEVERAL, GUESS))


def process_images(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                   overrides: Corrections | None = None, kinds: KindReader | None = None,
                   puzzle: int | None = None) -> tuple[list[BoardResult], int]:
    """Every puzzle in one picture (a newspaper page), each read and solved on its own, in reading order
    (``grid.find_grids``); and how many puzzles the picture holds. A reading that solves several ways draws
    none of them (:func:`_no_guess`)."""
    results, count = _page_readings(image, reader, timeout, overrides, kinds, puzzle)
    return [_no_guess(r) for r in results], count


def _page_readings(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                   overrides: Corrections | None = None, kinds: KindReader | None = None,
                   puzzle: int | None = None) -> tuple[list[BoardResult], int]:
    """:func:`process_images`, with a reading of several solutions as the rules left it.

    A grid read with (nearly) every cell printed is a solution printed beside its puzzle, not a puzzle: it
    is left out while another grid remains. ``puzzle`` reads only that one (the others are found, not read);
    ``overrides`` are corrections by puzzle index (``sudoku.written.parse_corrections``: the key None is the
    first puzzle read's). A picture with no grid gives one ``no_grid`` result, as
    :func:`process_image`; one whose puzzle ``puzzle`` is not there gives none (the count says why).
    """
    t0 = time.perf_counter()
    gray = to_gray(image)
    page = find_page_grids(gray)
    quads = page.grids
    if not quads:
        sized = _other_sizes(gray, reader, timeout, t0, puzzle, overrides)
        if sized is not None:
            return sized
        return [BoardResult(Status.NO_GRID, message="no Sudoku grid found", ms=(time.perf_counter() - t0) * 1e3)], 0
    found = _nine_by_nine(image, gray, quads, reader, timeout, overrides, kinds, t0, puzzle)
    solved = [r.status == Status.SOLVED and SEVERAL not in r.message for r in found[0]]
    if not any(solved):
        # perhaps not 9x9 at all: a 6x6 grid read as 9x9 holds too few givens for one solution
        sized = _other_sizes(gray, reader, timeout, t0, puzzle, overrides)
        if sized is not None and any(r.status == Status.SOLVED for r in sized[0]):
            return sized
    elif puzzle is None and (not all(solved) or page.unlike):
        # a page of a 9x9 puzzle and another size (a children's 6x6 beside it): the grid that did not solve as
        # 9x9 may be one of those, or an outline that held no 9x9 grid
        mixed = _mixed_sizes(found[0], gray, reader, timeout, t0)
        if mixed is not None:
            if overrides:
                mixed = [_reread(image, gray, r, reader, timeout, _corrected(overrides, k, k == 0), kinds, t0)
                         for k, r in enumerate(mixed)]
            return mixed, len(mixed)
    return found


def _mixed_sizes(nine: list[BoardResult], gray: np.ndarray, reader: DigitReader, timeout: float,
                 t0: float) -> list[BoardResult] | None:
    """A page's 9x9 readings with each one that did not solve replaced by the grid of another size that solves
    where it lies (and such grids lying apart from any 9x9 one added), in reading order; None when none does."""
    sized = _other_sizes(gray, reader, timeout, t0, None)
    if sized is None:
        return None
    others = [(r, r.corners) for r in sized[0] if r.status == Status.SOLVED and r.corners is not None]
    kept = [(r, r.corners) for r in nine if r.corners is not None and not (
        (r.status != Status.SOLVED or SEVERAL in r.message) and any(_overlap(r.corners, at) for _, at in others))]
    added = [(o, at) for o, at in others if not any(_overlap(at, where) for _, where in kept)]
    if not added:
        return None
    every = kept + added
    boxes = [GridQuad(np.asarray(at, np.float32), 0.0) for _, at in every]
    by_box = {id(q): r for q, (r, _) in zip(boxes, every)}
    return [by_box[id(q)] for q in reading_order(boxes)]


def _reread(image: np.ndarray, gray: np.ndarray, result: BoardResult, reader: DigitReader, timeout: float,
            overrides: dict[int, int] | None, kinds: KindReader | None, t0: float) -> BoardResult:
    """A puzzle of a page of several sizes read again where it lies with its corrections: they are by its
    index on the whole page, known only once the sizes' grids joined the 9x9 ones."""
    corners = np.asarray(result.corners, np.float32)
    if result.size != 9:
        return read_sized(gray, SizedGrid(corners, result.size, result.box, 1.0), reader, None, timeout, t0,
                          overrides)
    return _read_or_refit(image, gray, GridQuad(corners, 1.0, result.lattice), reader, timeout, overrides, kinds, t0,
                          True)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether either quad's centre lies inside the other (the same grid, or a grid and the page around it)."""
    qa, qb = np.asarray(a, np.float32).reshape(-1, 1, 2), np.asarray(b, np.float32).reshape(-1, 1, 2)
    ca, cb = qa.reshape(-1, 2).mean(axis=0), qb.reshape(-1, 2).mean(axis=0)
    return (cv2.pointPolygonTest(qb, (float(ca[0]), float(ca[1])), False) >= 0
            or cv2.pointPolygonTest(qa, (float(cb[0]), float(cb[1])), False) >= 0)


def _other_sizes(gray: np.ndarray, reader: DigitReader, timeout: float, t0: float, puzzle: int | None,
                 overrides: Corrections | None = None) -> tuple[list[BoardResult], int] | None:
    """The 4x4, 6x6 and 16x16 grids of a picture (``sizes.find_sized_grids``), each read (with its
    corrections) and solved, in reading order; None when there is none. Asked only when no 9x9 puzzle was
    solved, or an outline held no 9x9 grid: a 9x9 page pays nothing."""
    grids = [g for g in find_sized_grids(gray) if g.side != 9]
    if not grids:
        return None
    quads = reading_order([GridQuad(g.corners, g.score) for g in grids])
    grids = [next(g for g in grids if g.corners is q.corners) for q in quads]
    if puzzle is not None:
        if puzzle >= len(grids):
            return [], len(grids)
        return [read_sized(gray, grids[puzzle], reader, None, timeout, t0,
                           _corrected(overrides, puzzle, True))], len(grids)
    return [read_sized(gray, g, reader, None, timeout, t0, _corrected(overrides, k, k == 0))
            for k, g in enumerate(grids)], len(grids)


def _nine_by_nine(image: np.ndarray, gray: np.ndarray, quads: list[GridQuad], reader: DigitReader, timeout: float,
                  overrides: Corrections | None, kinds: KindReader | None, t0: float,
                  puzzle: int | None) -> tuple[list[BoardResult], int]:
    """:func:`process_images` for the 9x9 grids ``quads`` found."""
    results = [_read_or_refit(image, gray, quad, reader, timeout, _corrected(overrides, k, k == 0), kinds, t0,
                              len(quads) > 1) for k, quad in enumerate(quads) if puzzle is None]
    if puzzle is None and len(results) > 1:
        # left out: a solution printed beside its puzzle, and a grid half in view (the page's neighbour) that
        # does not solve; a cut grid that solves is kept
        puzzles = [r for r in results if not _printed_full(r.givens) and not (
            r.status != Status.SOLVED and r.corners is not None and at_edge(r.corners, gray.shape))]
        results = [_one_of_several_withheld(r) for r in puzzles] if len(puzzles) > 1 else puzzles or results
    if puzzle is None:
        return results, len(results)
    if len(quads) > 1 and puzzle < len(quads):
        # the count must not include printed solutions: they are read (cheaply: nothing to solve) to know
        kept = [q for q in quads if not _printed_solution(image, gray, q, reader)]
        quads = kept or quads
    if puzzle >= len(quads):
        return [], len(quads)
    result = _read_or_refit(image, gray, quads[puzzle], reader, timeout, _corrected(overrides, puzzle, True), kinds,
                            t0, len(quads) > 1)
    return [_one_of_several_withheld(result) if len(quads) > 1 else result], len(quads)


def _corrected(corrections: Corrections | None, k: int, first: bool) -> dict[int, int] | None:
    """Puzzle ``k``'s corrections: its own, over the first puzzle read's (``first``) unnamed ones."""
    if not corrections:
        return None
    merged = {**(corrections.get(None, {}) if first else {}), **corrections.get(k, {})}
    return merged or None


def _one_of_several_withheld(result: BoardResult) -> BoardResult:
    """On a page of several puzzles, a reading with several solutions draws none: there it is most often a
    grid fitted to something else (a pasted photo's edge, a faint grid read blank), and one of its
    solutions would be an answer drawn on the wrong puzzle. (A photo of one puzzle keeps today's rule.)"""
    if result.status != Status.SOLVED or SEVERAL not in result.message:
        return result
    return replace(result, status=Status.UNSOLVABLE, solution=None,
                   message="the reading has several solutions; on a page of several puzzles none is drawn "
                           "(a misread cell or a misplaced grid)")


def _read_or_refit(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader, timeout: float,
                   overrides: dict[int, int] | None, kinds: KindReader | None, t0: float,
                   page: bool = False) -> BoardResult:
    """:func:`read_at`; a reading that does not solve (or leaves several solutions) is not final when the grid
    could be fitted otherwise (``grid.refits``: on a page of pasted photos a photo's edge is an outline too):
    a refit that solves, one way only, is taken. On a ``page`` of several puzzles a reading the rules had to
    correct is doubted too: a refit that solves with fewer corrections is taken; and so is a grid fitted curled
    there (pasted photos are flat prints, and a curled fit is more often one bent to a photo's edge or to print
    beside it, which reads a column's givens wrong and may still solve): a flat refit that solves as soundly
    is taken. For the same reason a curled refit of a flat grid whose reading solves is not taken for fewer
    corrections (image209 on a page: a 6 read as 5 and corrected, against a refit bent a row up at one corner
    that solves uncorrected with a given lost)."""
    result = read_at(image, gray, quad, reader, timeout, overrides, kinds, t0)
    sound = result.status == Status.SOLVED and SEVERAL not in result.message
    curled = page and quad.bent
    if sound and not (page and result.corrected) and not curled:
        return result
    for other in refits(gray, quad):
        again = read_at(image, gray, other, reader, timeout, overrides, kinds, t0)
        if again.status == Status.SOLVED and SEVERAL not in again.message and (
                not sound or (len(again.corrected) < len(result.corrected) and (quad.bent or not other.bent))
                or (curled and not other.bent and len(again.corrected) <= len(result.corrected))):
            return again
    return result


def _printed_solution(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader) -> bool:
    """A grid printed (nearly) full: yesterday's solution printed beside today's puzzle."""
    return _printed_full(read_oriented(gray, quad.corners, reader, quad.lattice if quad.bent else None)[1].givens)


def _printed_full(givens: str | None) -> bool:
    """Printed digits in all but a few cells (a cell or two misread as blank): a solution, never a puzzle."""
    return givens is not None and givens.count(".") <= FULL_BLANKS


def read_at(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader, timeout: float,
            overrides: dict[int, int] | None, kinds: KindReader | None, t0: float) -> BoardResult:
    """Digits, rules and solution of the grid ``quad`` in ``image`` (``ms`` counted from ``t0``)."""
    corners, reading, bent = read_oriented(gray, quad.corners, reader, quad.lattice if quad.bent else None)
    if kinds is not None:
        corners, reading, bent = confirm_turn(image, gray, quad, reader, kinds, (corners, reading, bent))
    if bent is not None:
        lattice = bent
    else:  # flat: the fitted crossings (or the corners' own), turned as the corners were
        k = next(k for k in range(4) if np.array_equal(np.roll(quad.corners, -k, axis=0), corners))
        lattice = rotate(quad.crossings(), k)
    written = None
    result = None
    unreadable: tuple[int, ...] = ()
    if kinds is not None:
        seen = grid_views(image, corners, bent)
        second = EntryOpinion(kinds, gray, corners, bent, seen.square, image)
        cell_kinds = read_kinds(kinds, seen, second)
        unreadable = unreadable_cells(seen.square, cell_kinds, reading, wide=True)
        printed, reading = reading, fuse(reading, cell_kinds)
        if unreadable:
            seen_as = (printed, reading)
            printed, reading = unseen(printed, unreadable), unseen(reading, unreadable)
        if reading is not printed and not _sure_of_writing(cell_kinds):
            # a few doubtful "entries" on what may be a clean printed page: if the page read as all print
            # makes a sound puzzle, it is taken as such (a right entry read as a given changes no answer;
            # a wrong one breaks the puzzle, and then the entries are told apart)
            first = check_reading(printed, timeout, overrides=overrides, require_unique=True)
            if first.status == Status.SOLVED and not first.corrected:
                result = first
    if result is None:
        result = check_reading(reading, timeout, overrides=overrides)
        if kinds is not None and not _sound(result) and not _written_on(cell_kinds):
            # a clean printed page the digit model reads against the rules: the kind model's view of each
            # inked cell's digit, joined to the digit model's, may make the puzzle sound
            both = check_reading(both_models(reading, cell_kinds), timeout, overrides=overrides)
            if _sound(both):
                result = both
        if kinds is not None and result.status == Status.SOLVED and "several solutions" in result.message:
            result = _settled(result, cell_kinds, unreadable=unreadable, fixed=set(overrides or {}))
    if kinds is None or reading is printed or result.givens == printed.givens:
        result = faint_givens(result, printed if kinds is not None else reading, overrides=overrides)
    if kinds is not None:
        result = kind_givens(result, cell_kinds, skip=set(unreadable) | set(overrides or {}))
        lit = glare_clashes(result, seen.square, cell_kinds, set(overrides or {}))
        again = check_reading(unseen(reading, lit), timeout, overrides=overrides) if lit else None
        # the clashing givens the glare faded are doubted (the rest as read: no rules' correction is a reading)
        if again is not None and again.status == Status.SOLVED and not again.corrected:
            if not unreadable:
                seen_as = (printed, reading)
            printed, reading = unseen(printed, lit), unseen(reading, lit)
            result, unreadable = again, tuple(sorted(set(unreadable) | set(lit)))
    given_back: tuple[int, ...] = ()  # the glare's cells given back from the solution
    if unreadable:
        core = glare_cells(seen.square)[0]
        doubted = unreadable
        result, unreadable = restore_unreadable(result, unreadable, core, cell_kinds, *seen_as,
                                                inked_core=faint_print(seen.square, core))
        given_back = tuple(i for i in doubted if i not in unreadable)
    if kinds is not None:
        result, unsure = settle_unsure(result, printed, cell_kinds, unreadable + tuple(overrides or {}), timeout,
                                       loose=given_back)
        unreadable = tuple(sorted(set(unreadable) | set(unsure)))
        result = entries_against(result, cell_kinds, printed, set(unreadable) | set(overrides or {}), timeout)
        result = disowned(result, cell_kinds)
        unreadable = blind_blanks(cell_kinds, seen.square, result.givens, unreadable)
    several = result.status == Status.SOLVED and result.message == SEVERAL
    shown = sum(not is_empty(g) for g in result.givens or "")
    if several and shown < FEWEST_GIVENS:  # no puzzle to draw a guess on: a misplaced grid, or its print unseen
        result = replace(result, status=Status.UNSOLVABLE, solution=None,
                         message=f"only {shown} givens read, too few for a puzzle (a misplaced grid?)")
        several = False
    if unreadable and several:  # the cells glare hides are needed: say which, draw nothing
        result = replace(result, status=Status.UNSOLVABLE, solution=None,
                         message=_hidden_open(unreadable))
    message = result.message
    if kinds is not None and result.givens:
        # entries are checked against the one solution only: one of several would call right entries wrong
        written = written_part(result.givens, cell_kinds, printed, None if several else result.solution, second,
                               unreadable)
        if several or (result.corrected and glare_cover(seen.square) is not None):
            # under a glare the rules see fewer cells: a solution they had to correct the reading for may be
            # another puzzle's, and a right entry would be called wrong against it
            written = replace(written, checked=False)
        clashes = written.clashes(result.givens)
        if clashes:
            message = "; ".join(filter(None, [message, "written: " + "; ".join(clashes[:3])]))
    return BoardResult(result.status, corners=corners, givens=result.givens, confidence=result.confidence,
                       solution=result.solution, message=message, ms=(time.perf_counter() - t0) * 1e3,
                       corrected=result.corrected, lattice=lattice, written=written, unreadable=unreadable)
