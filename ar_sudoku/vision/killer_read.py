"""A killer page in a picture: its cages, sums and givens read, checked and solved, as a ``BoardResult``.

Asked only of a 9x9 grid whose ordinary reading found no one solution (a killer page prints few or no givens,
so its ordinary reading never solves): an ordinary page that solves is never looked at again, and one that
does not stays as it was unless its corners print cage sums (:func:`ar_sudoku.sudoku.killer_reading.looks_like_killer`).
The page is told by what it prints, never guessed. The grid is squared up and read by the two cage models
(:mod:`ar_sudoku.vision.cages`), turned the way its sums read upright; the givens are the digit model's, in
the same orientation; :mod:`ar_sudoku.sudoku.killer_reading` then makes a checked puzzle of the odds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np

from ar_sudoku.sudoku.killer_reading import RULES, KillerReading, looks_like_killer, read_killer
from ar_sudoku.sudoku.rules import SEVERAL, BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.cages import CageOdds, CageReader
from ar_sudoku.vision.cells import CELL, cut_cells, warp_grid
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.lattice import bend_of, from_corners, rectify, rotate
from ar_sudoku.vision.quads import QUADS, to_gray


@dataclass(frozen=True)
class KillerReadConfig:
    """This stage's tuning: each field with the reason for its value."""

    given: float = 0.5  # a digit read at these odds is a given of a killer page (its few givens: large, centred print)
    # a sum's ink lies wholly left of and above these shares of its cell; a given's reaches below
    sum_box: tuple[float, float] = (0.55, 0.42)
    halo: int = 2  # px (at the digit model's cell) of paper painted around a sum's ink when it is wiped
    # A page whose killer reading is not answered is said to be a killer page (its doubts named, in place of the
    # ordinary reading) only when this many corners print a sum surely. Pencilled candidates in an ordinary
    # puzzle's corners can pass the 12 sums that make a page worth reading as a killer (a written-on peer photo:
    # 12); the renderer-A development pages print 24-32 (a newspaper's killer has 25-35 cages). An answered
    # reading needs no such count: its cages and sums have kept every rule and solve one way.
    named_sums: int = 20


KILLER_READ = KillerReadConfig()


@cache
def cage_reader() -> CageReader:
    """The cage models, loaded once a process, the first time a grid may be a killer page."""
    return CageReader()


def sound(result: BoardResult) -> bool:
    """An ordinary reading that stands: solved, one way only."""
    return result.status == Status.SOLVED and SEVERAL not in (result.message or "")


def killer_or(image: np.ndarray, result: BoardResult, reader: DigitReader, timeout: float = 1.0,
              cages: CageReader | None = None) -> BoardResult:
    """``result``, or the killer reading of its grid when it did not solve and its corners print cage sums."""
    if sound(result) or result.corners is None or result.size != 9 or image.ndim != 3:
        return result
    found = read_page(image, np.asarray(result.corners, np.float32), result.lattice, reader, timeout, cages,
                      KILLER_READ.named_sums)
    return result if found is None else replace(found, ms=result.ms)


@dataclass(frozen=True)
class PageSight:
    """A grid seen as a killer page: the cage models' odds and the givens, turned upright with its corners."""

    odds: CageOdds
    corners: np.ndarray  # TL, TR, BR, BL of the page upright
    lattice: np.ndarray | None  # a curled page's crossings, upright (None: flat)
    givens: str


def see_page(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, reader: DigitReader,
             cages: CageReader | None = None, shifted: bool = True) -> PageSight | None:
    """The grid at ``corners`` read as a killer page (the surer of :func:`see_pages`), or None when its corners
    print no cage sums."""
    sights = see_pages(image, corners, lattice, reader, cages, shifted)
    return sights[0] if sights else None


def see_pages(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, reader: DigitReader,
              cages: CageReader | None = None, shifted: bool = True) -> list[PageSight]:
    """The grid at ``corners`` read as a killer page, surest first; none when its corners print no cage sums.

    A grid the ordinary reading followed through curled crossings (``lattice``) is squared both ways, by its
    corners and through the crossings: a killer page's cage outlines and sums, lines and ink inside the cells,
    can pull the crossings off a flat page, and a curled page needs them. Each way is read (``shifted``: its
    sums from a little to each side too, as a photo's are; live, the frames' odds are averaged instead), and
    the one the models are surer of comes first (:func:`sureness`)."""
    if lattice is not None and bend_of(np.asarray(lattice, np.float32).reshape(10, 10, 2)) < QUADS.bent:
        lattice = None  # a flat grid is squared by its corners, as the ordinary reading squares it
    reader_ = cages or cage_reader()
    ways: list[tuple[np.ndarray | None, CageOdds]] = [(None, reader_.read(image, corners, None, shifted))]
    if lattice is not None:
        ways.append((lattice, reader_.read(image, corners, lattice, shifted)))
    ways = sorted((w for w in ways if looks_like_killer(w[1].sums)), key=lambda w: -sureness(w[1]))
    out = []
    for bent, odds in ways:
        up = np.roll(np.asarray(corners, np.float32), -odds.turn, axis=0)
        crossings = rotate(np.asarray(bent, np.float32).reshape(10, 10, 2), odds.turn) if bent is not None else None
        out.append(PageSight(odds, up, crossings, killer_givens(image, up, crossings, reader,
                                                                odds.sums[:, 0] < 0.5)))
    return out


def sureness(odds: CageOdds) -> float:
    """How sure the models are of a squared grid: the mean log-odds of each corner's likeliest reading and of
    each border's (a grid squared off its cells reads its sums and borders less surely)."""
    borders = np.maximum(odds.borders, 1.0 - odds.borders)
    return float(np.log(np.maximum(odds.sums.max(axis=1), 1e-6)).mean() + np.log(np.maximum(borders, 1e-6)).mean())


def read_page(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, reader: DigitReader,
              timeout: float = 1.0, cages: CageReader | None = None, named: int = 0) -> BoardResult | None:
    """The killer reading of the grid at ``corners``, checked and solved, or None when it is no killer page:
    the surer squaring's, or, when it is not answered, the other's (each checked by the rules and the solver
    on its own). A reading not answered is given only when ``named`` corners or more print a sum surely."""
    first: BoardResult | None = None
    for seen in see_pages(image, corners, lattice, reader, cages):
        found = decide(seen, timeout)
        if found.status == Status.SOLVED:
            return found
        if first is None and int((seen.odds.sums[:, 0] < 1 - RULES.sure_sum).sum()) >= named:
            first = found
    return first


def decide(seen: PageSight, timeout: float) -> BoardResult:
    """A killer page's odds made a checked, solved puzzle (``killer_reading.read_killer``), as a photo's result."""
    found = read_killer(seen.odds.sums, seen.odds.borders, seen.givens, replace(RULES, budget=timeout))
    return as_result(found, seen.odds, seen.corners, seen.lattice, seen.givens)


def killer_givens(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, reader: DigitReader,
                  summed: np.ndarray | None = None) -> str:
    """The large digits printed in the cells (the digit model's reading, surely read ones only). The sums of
    the cells ``summed`` are wiped from their corners first: beside a given, the cutter would take the two
    for one blob."""
    gray = to_gray(image)
    square = rectify(gray, lattice, CELL) if lattice is not None else warp_grid(gray, corners, CELL)
    if summed is not None:
        square = wipe_sums(square, summed)
    reading = reader.read(cut_cells(square))
    sure = KILLER_READ.given
    return "".join(str(int(d)) if d and p >= sure else "." for d, p in zip(reading.digits, reading.confidence))


def wipe_sums(square: np.ndarray, summed: np.ndarray, cell: int = CELL) -> np.ndarray:
    """The squared grid with the ink blobs that lie wholly in a summed cell's top-left corner painted paper."""
    out = square.copy()
    box = KILLER_READ.sum_box
    halo = np.ones((2 * KILLER_READ.halo + 1,) * 2, np.uint8)
    for i in np.flatnonzero(summed):
        r, c = divmod(int(i), 9)
        patch = out[r * cell:(r + 1) * cell, c * cell:(c + 1) * cell]
        paper = float(np.percentile(patch, 90))
        ink = (patch < paper - max(20.0, 0.25 * (paper - float(patch.min())))).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
        for k in range(1, n):
            x, y, w, h, _ = stats[k]
            if x + w <= box[0] * cell and y + h <= box[1] * cell and x > 0 and y > 0:
                # with its soft edge: a blurred sum's rim, left alone, is a faint figure the digit model may read
                blob = cv2.dilate((labels == k).astype(np.uint8), halo) > 0
                patch[blob] = paper
    return out


def as_result(found: KillerReading, odds: CageOdds, corners: np.ndarray, lattice: np.ndarray | None,
              givens: str) -> BoardResult:
    """The killer reading as a photo's result (its cages beside the givens and the solution)."""
    crossings = lattice if lattice is not None else from_corners(corners)
    if found.killer is None or found.solution is None:
        return BoardResult(Status.UNSOLVABLE, corners=corners, givens=givens, message=found.message,
                           lattice=crossings)
    return BoardResult(Status.SOLVED, corners=corners, givens=found.killer.to_string(),
                       confidence=1.0 - odds.sums[:, 0], solution=found.solution, message=found.message,
                       lattice=crossings, cages=found.killer.cages)
