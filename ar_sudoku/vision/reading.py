"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out (the rules themselves are in
:mod:`ar_sudoku.sudoku.rules`). What a glare hides and which givens are in doubt
is :mod:`ar_sudoku.vision.doubts`; which cells a person wrote, and which of
their digits may be called mistakes, :mod:`ar_sudoku.vision.writing`.
"""


from __future__ import annotations

import time
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import (
    SEVERAL,
    BoardResult,
    PassLog,
)
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.sudoku.written import Corrections
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.grid import find_grid
from ar_sudoku.vision.killer_read import killer_or
from ar_sudoku.vision.kinds import (
    KindReader,
)
from ar_sudoku.vision.orient import (
    read_oriented,
)
from ar_sudoku.vision.page_grids import PageGrids, find_grids, find_page_grids, reading_order, refits
from ar_sudoku.vision.passes import read_at
from ar_sudoku.vision.quads import GridQuad, at_edge, to_gray
from ar_sudoku.vision.sizes import SizedGrid, find_sized_grids, read_sized, read_sized_or_other


@dataclass(frozen=True)
class ReadingConfig:
    """This stage's tuning: each field with the reason for its value."""

    full_blanks: int = 9  # a grid with no more blank cells than this is a printed solution (puzzles leave 45 or more)


READING = ReadingConfig()


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
    return killer_or(image, _no_guess(result), reader, timeout)


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
    return [killer_or(image, _no_guess(r), reader, timeout) for r in results], count


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
    found_in = PassLog("find_grids", (time.perf_counter() - t0) * 1e3)
    results, count = _page_of(image, gray, page, reader, timeout, overrides, kinds, puzzle, t0)
    return [replace(r, passes=(found_in, *r.passes)) for r in results], count


def _page_of(image: np.ndarray, gray: np.ndarray, page: PageGrids, reader: DigitReader, timeout: float,
             overrides: Corrections | None, kinds: KindReader | None, puzzle: int | None,
             t0: float) -> tuple[list[BoardResult], int]:
    """:func:`_page_readings` once the page's grids are found."""
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
