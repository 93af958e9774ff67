"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out (the rules themselves are in
:mod:`ar_sudoku.sudoku.rules`). What a glare hides and which givens are in doubt
is :mod:`ar_sudoku.vision.doubts`; which cells a person wrote, and which of
their digits may be called mistakes, :mod:`ar_sudoku.vision.writing`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.sudoku.logic import PEERS
from ar_sudoku.sudoku.rules import (
    FEWEST_GIVENS,
    SEVERAL,
    BoardResult,
    Reading,
    check_reading,
    faint_givens,
    solution_givens,
)
from ar_sudoku.sudoku.solver import count_solutions, parse_line, validate
from ar_sudoku.sudoku.vocabulary import Status, is_empty
from ar_sudoku.sudoku.written import NAMES, Corrections, settle
from ar_sudoku.vision.cells import CELL, cut_cells, turn_cuts, warp_grid
from ar_sudoku.vision.deblur import unstreak
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.doubts import (
    blanked,
    blind_blanks,
    faint_print,
    glare_cells,
    glare_clashes,
    glare_cover,
    restore_unreadable,
    settle_unsure,
    unreadable_cells,
    unseen,
)
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.kinds import (
    ENTRY,
    GIVEN,
    KINDS,
    CellKinds,
    KindReader,
    grid_views,
    ink_scores,
    paper_noise,
    sure_of_writing,
    written_on,
)
from ar_sudoku.vision.lattice import rectify, rotate
from ar_sudoku.vision.page_grids import find_grids, find_page_grids, reading_order, refits
from ar_sudoku.vision.quads import GridQuad, at_edge, to_gray
from ar_sudoku.vision.sizes import SizedGrid, find_sized_grids, read_sized, read_sized_or_other
from ar_sudoku.vision.writing import EntryOpinion, read_kinds, sure_entries, sure_written, written_part


@dataclass(frozen=True)
class ReadingConfig:
    """This stage's tuning: each field with the reason for its value."""

    confident: float = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated
    # ... nor one with this many cells read that surely: on the 319 training photos, no grid turned a quarter or
    # a half had more than 15 such cells (upright: 4-47); a written-on page, whose handwriting the print model
    # is unsure of, is then read one way only
    sure_upright: int = 22
    full_blanks: int = 9  # a grid with no more blank cells than this is a printed solution (puzzles leave 45 or more)
    # A digit-model grid (CELL px a cell) whose paper's typical Laplacian is above this share of its contrast is
    # speckled by a sensor's noise (training photos as taken: 0.01-0.06; in the benchmark's dim room 0.17-0.31) ...
    noisy_digits: float = 0.12
    digits_sigma: float = 0.8  # ... and is smoothed by a Gaussian this wide (px) before its cells are cut
    # A turn chosen by the print model with a score below this (print read the right way up: about -0.04, under
    # blur and noise as well) is asked of the cell-kind model too
    weak_turn: float = -0.15
    # the kind model's least odds of print for a doubtful "entry" the print alone makes a given
    print_alone: float = 0.25
    # the person's sure entries that, against a solution, make its givens suspect (and a tenth)
    against_entries: int = 3
    given_odds: float = 0.02  # the least odds either reader gives a misread given's true digit
    # the share of the person's sure entries against a solution that makes it another puzzle's ...
    disowned: float = 0.5
    min_disowned: int = 6  # ... when at least this many are against it


READING = ReadingConfig()


def warp(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, cell: int = CELL) -> np.ndarray:
    """The grid seen square-on: through its crossings on a curled page, else by the corners' homography;
    a streaked grid (a shaken camera) deblurred."""
    square = rectify(gray, lattice, cell) if lattice is not None else warp_grid(gray, corners, cell)
    return unstreak(square, cell)  # a shaken camera's streak undone (deblur.py); most grids as they are


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader,
              lattice: np.ndarray | None = None) -> Reading:
    return reader.read(cut_cells(quiet_digits(warp(gray, corners, lattice))))


def quiet_digits(warped: np.ndarray) -> np.ndarray:
    """The print model's grid with a dim room's sensor noise smoothed away; a clean grid as it is.

    Speckle on a printed 6 closes its gap into an 8 and breaks print into handwriting-like strokes
    (issue 21), as :func:`ar_sudoku.vision.kinds.quiet` found for the cell-kind model's views.
    """
    if paper_noise(warped, CELL, 0) <= READING.noisy_digits:
        return warped
    return cv2.GaussianBlur(warped, (0, 0), READING.digits_sigma)


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
    sure = int((reading.confidence[inked] >= READING.confident).sum())
    if inked.sum() >= 10 and (sure == inked.sum() or sure >= READING.sure_upright):
        return corners, reading, lattice
    # which way is up, from the cells cut once and turned (a written-on page always gets here: the print
    # model is unsure of handwriting). The likeliest turn, if it reads at least as well as upright, is cut
    # again properly and must then read better: the turned patches are near, not equal, to a proper cut.
    # Over the 398 photos whose grid is found, each given in its four corner orders (1,592 reads), the
    # orientation is the same from every order for all but one (18 photos with the mean of all inked cells and
    # the turned cuts alone), at one extra cut on 7 of the 398 as stored
    turned = reader.read_many([turn_cuts(cuts, k) for k in (1, 2, 3)])
    upright = _score(reading)
    k, best = max(zip((1, 2, 3), map(_score, turned)), key=lambda t: t[1])
    if best < upright:
        return corners, reading, lattice
    recut = reader.read(cut_cells(np.ascontiguousarray(np.rot90(warped, k))))
    if _score(recut) <= upright:
        return corners, reading, lattice
    return np.roll(corners, -k, axis=0), recut, None if lattice is None else rotate(lattice, k)


def _kinds_score(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, kinds: KindReader) -> float:
    """The cell-kind model's mean log-confidence over the inked cells of the grid seen with ``corners`` first."""
    views = grid_views(image, corners, lattice).views
    inked = np.flatnonzero(ink_scores(views, kinds.margin) > KINDS.ink_skip)
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
    if np.array_equal(corners, quad.corners) or _score(reading) >= READING.weak_turn:
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
    if not written_on(kinds):
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


def _sound(result: BoardResult) -> bool:
    """Solved, one way only."""
    return result.status == Status.SOLVED and SEVERAL not in (result.message or "")


def _print_alone(all_print: BoardResult, result: BoardResult, kinds: CellKinds) -> bool:
    """Whether the page read as print alone, mended by the rules, is the puzzle ``result`` makes, and every cell
    it makes a given that ``result`` does not is one the kind model gives ``READING.print_alone`` odds of print: then
    those doubtful "entries" are its print (a dim room's printed 7 taken for handwriting beside a misread
    given). A person's sure entry, or a blank the rules filled, is not made print so (pen-and-pencil
    pages barely started: their right entries would no longer be the person's)."""
    if all_print.status != Status.SOLVED or not _sound(result) or result.solution != all_print.solution:
        return False
    made = [i for i, (a, b) in enumerate(zip(all_print.givens or "", result.givens or "")) if a != b and is_empty(b)]
    return all(float(kinds.probs[i, 1:10].sum()) >= READING.print_alone for i in made)


def both_models(printed: Reading, kinds: CellKinds) -> Reading:
    """A clean printed page's reading with each inked cell's digit from both models (``fuse``'s product of
    experts), its ink as the digit model saw it.

    On a clean page ``fuse`` keeps the digit model's digits; where its print font's 6 reads as a 5 or a thin
    1 as a 3 (three such cells on a page, more than the rules' second choices mend), the kind
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


def _missed_print(printed: Reading, kinds: CellKinds) -> Reading:
    """The digit model's reading of a printed page, with the givens it missed that the kind model is sure of.

    The digit model's cutter needs the ink to stand out of the cell's own paper; in a shadow's
    edge or dim light it can see none where the kind model (which measures ink against the local
    paper) plainly sees print. Left blank, such givens make a puzzle of several solutions.
    """
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    missed = (printed.digits == 0) & (kinds.kinds == GIVEN) & (p_given >= KINDS.missed_print)
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

    ``faint_givens`` asks the digit model; a thin or pale given (a light "1" under a glare's edge)
    can be blank to it outright while the kind model reads it as print, though not as surely as
    ``KINDS.missed_print`` asks before the solve. Once the rules have a single solution, a cell the kind model
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
    order = sure_entries(kinds, sure)
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


def _guessed(i: int, printed: Reading, kinds: CellKinds) -> bool:
    """A given that neither reader saw as print (blank to the digit model, not print to the kind model): the
    rules' choice, which the person's entries may overrule whatever odds the readers give their digit."""
    return int(printed.digits[i]) == 0 and int(kinds.kinds[i]) != GIVEN


def entries_against(result: BoardResult, kinds: CellKinds, printed: Reading, skip: Collection[int] = (),
                    timeout: float = 1.0) -> BoardResult:
    """Misread givens that the person's own sure entries contradict, set right by them.

    A given misread as another digit can still make a puzzle with one solution: another puzzle's. Its
    answer then disagrees with many of the entries written on the page (a dim room: a printed 5 read
    as 8, and many right entries doubted). People make a mistake or two, not a row of them, and one
    given's change that makes the sure entries agree with the answer is the misreading: each given (not
    ``skip``) is left out in turn, the entries settle the rest (``written.settle``), and the one solution
    that agrees with nearly all of them (as :func:`_settled` asks), giving the cell a digit its readers
    see some of, is taken. When two would each do, nothing is changed. A reading whose givens clash
    (``invalid``) is set right the same way, one of the clashing givens left out, or two that between
    them end every clash; so is one whose givens have no solution at all, the givens the most sure entries
    repeat in their row, column or box tried first (a dim room's 8 read as a 6 at 0.99, three sure 6s
    around it). A given the rules filled in where neither reader saw print (``_guessed``: a blurred
    cell whose faint print they took for pencil) needs no odds for the entries' digit.
    """
    if not result.givens:
        return result
    givens = result.givens
    sure = sure_written(kinds, givens)
    if len(sure) < 2 * READING.against_entries:
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
        if len(against) < max(READING.against_entries, len(sure) // 10):
            return result
        tries = [(i,) for i in order(i for i, g in enumerate(givens) if not is_empty(g))]
    elif result.status == Status.UNSOLVABLE and _no_solution(givens, timeout):
        # givens with no solution: one is misread, the likeliest the one most sure entries clash with
        clash = _entry_clashes(givens, kinds, sure)
        tries = [(i,) for i in sorted(order(i for i, g in enumerate(givens) if not is_empty(g)),
                                      key=lambda i: -clash[i])]
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
        found = settle(blanked(givens, list(cells)), entries,
                       timeout=min(0.3, max(0.01, deadline - time.perf_counter())))
        if found is None:
            continue
        other = found[0]
        if any(other[i] == givens[i] for i in cells) or sum(
                other[k] != str(kinds.digits[k]) for k in sure) > max(2, len(sure) // 10):
            continue
        if any(max(float(printed.probs[i, d]), float(kinds.probs[i, d]), float(kinds.probs[i, 9 + d]))
               < READING.given_odds
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


def _no_solution(givens: str, timeout: float) -> bool:
    """Whether the givens are known to have no solution (not merely several, or not found in time)."""
    found = count_solutions(parse_line(givens), 1, timeout)
    return found.complete and found.count == 0


def _entry_clashes(givens: str, kinds: CellKinds, sure: list[int]) -> dict[int, int]:
    """Per given, how many of the person's sure entries repeat its digit in its row, column or box."""
    return {i: sum(str(kinds.digits[k]) == g for k in sure if k in PEERS[i])
            for i, g in enumerate(givens) if not is_empty(g)}


def disowned(result: BoardResult, kinds: CellKinds) -> BoardResult:
    """A solution most of the person's sure entries disagree with, withheld: its givens are misread.

    Several givens misread (a page shaken hard, under a long streak) can still make a
    puzzle with one solution, another puzzle's, that no one given's change (:func:`entries_against`)
    sets right. A person who makes mistakes makes a few, not one in every other cell; drawn, that
    solution would put wrong digits on the page and call right entries wrong.
    """
    if result.status != Status.SOLVED or not result.solution or not result.givens:
        return result
    sure = sure_written(kinds, result.givens)
    against = sum(result.solution[i] != str(kinds.digits[i]) for i in sure)
    if against < max(READING.min_disowned, READING.disowned * len(sure)):
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
    faded print under a strong glare) then put a wrong answer on the page.
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
        return [read_sized_or_other(gray, grids[puzzle], reader, timeout, t0,
                                _corrected(overrides, puzzle, True))], len(grids)
    return [read_sized_or_other(gray, g, reader, timeout, t0, _corrected(overrides, k, k == 0))
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
    corrections (a 6 read as 5 and corrected, against a refit bent a row up at one corner that solves
    uncorrected with a given lost)."""
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
    return givens is not None and givens.count(".") <= READING.full_blanks


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
    all_print = None  # the page read as print alone, when its few "entries" are in doubt
    unreadable: tuple[int, ...] = ()
    if kinds is not None:
        seen = grid_views(image, corners, bent)
        second = EntryOpinion(kinds, gray, corners, bent, seen.square, image, seen.inks)
        cell_kinds = read_kinds(kinds, seen, second)
        unreadable = unreadable_cells(seen.square, cell_kinds, reading, wide=True)
        printed, reading = reading, fuse(reading, cell_kinds)
        if unreadable:
            seen_as = (printed, reading)
            printed, reading = unseen(printed, unreadable), unseen(reading, unreadable)
        if reading is not printed and not sure_of_writing(cell_kinds):
            # a few doubtful "entries" on what may be a clean printed page: if the page read as all print
            # makes a sound puzzle, it is taken as such (a right entry read as a given changes no answer;
            # a wrong one breaks the puzzle, and then the entries are told apart)
            all_print = check_reading(printed, timeout, overrides=overrides, require_unique=True)
            if all_print.status == Status.SOLVED and not all_print.corrected:
                result = all_print
    if result is None:
        result = check_reading(reading, timeout, overrides=overrides)
        if kinds is not None and not _sound(result) and not written_on(cell_kinds):
            # a clean printed page the digit model reads against the rules: the kind model's view of each
            # inked cell's digit, joined to the digit model's, may make the puzzle sound
            both = check_reading(both_models(reading, cell_kinds), timeout, overrides=overrides)
            if _sound(both):
                result = both
        if all_print is not None and _print_alone(all_print, result, cell_kinds):
            result = all_print
        if kinds is not None and result.status == Status.SOLVED and "several solutions" in result.message:
            result = _settled(result, cell_kinds, unreadable=unreadable, fixed=set(overrides or {}))
    if kinds is None or reading is printed or result.givens == printed.givens:
        result = faint_givens(result, printed if kinds is not None else reading, overrides=overrides,
                              blank=cell_kinds.probs[:, 0] if kinds is not None else None)
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
                                                inked_core=faint_print(seen.square, core), square=seen.square)
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
