"""A killer page in the live view: read, agreed on over two frames, and watched, beside the session's own reading.

The session reads a board's givens and solves them; a killer page prints few or none, so that reading never
solves and the board sits unsolvable. Then, on a steady frame now and then (``EVERY``), the page is read as a
killer page (:func:`ar_sudoku.vision.killer_read.read_page`: cages, sums, givens, checked and solved); the
reading is taken once two of them agree (the same cages and solution), as the ordinary reading waits for its
votes. While it is drawn, a re-read's cage sums must still be the page's (``same_page``): another killer page in
its place, whose givens (none) and ink (small sums) the ordinary checks hardly see change, ends the drawing.
On every frame between, the page's evidence is its sums' look (``vision.look.sums_look``), not the ink of its
cells: at the working size a small sum is inked on one frame and not on the next, and a page's look without
its sums is any killer page's of that newspaper.
The session keeps a :class:`KillerSight` in its board's reading, so it is forgotten with the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ar_sudoku.ar.locator import BoardLocator
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.cages import CageOdds
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.killer_read import PageSight, cage_reader, decide, see_page
from ar_sudoku.vision.look import SUMS, Look, likeness, sums_look

EVERY = 3  # steady frames between killer readings of an unsolved board ...
BACK_OFF = 2  # ... doubled after each reading that saw no cage sums, at most this many times (3, 6, 12): an
# ordinary page that never solves is not read as a killer page every third frame for as long as it is in view
VOTES = 3  # sights whose odds are averaged
SUMS_MOVED = 4  # a re-read with this many corners' sums (present or not) unlike the page's: another page
# the sums' likeness (``sums_look``) at or above which the view is the page read: the page tracked 0.97 or more
# (moving, tilting, lit unevenly), its corners 1.5 px off 0.72 or more; the same newspaper's next puzzle slid
# into its place 0.3-0.67 (measured on renderer A's videos; B's never tuned on)
SUMS_SAME = 0.8
SUMS_LEAST = 27  # cells in view the sums' look needs (a third of the grid): fewer tell the desk from little


@dataclass
class KillerSight:
    """What the live view has seen of a board as a killer page."""

    last: BoardResult | None = None  # the last killer reading that solved (waiting for one to agree)
    frames: int = 0  # steady frames seen unsolved since the last killer reading
    sights: list[PageSight] = field(default_factory=list)  # the last few sights, the same way up
    misses: int = 0  # readings in a row that saw no cage sums
    sums: Look | None = None  # the look of the sums of the page taken (``sums_look``), the puzzle's way up


def remember_sums(sight: KillerSight, locator: BoardLocator, corners: np.ndarray) -> None:
    """The taken page's sums, squared up on the frame it was read on."""
    sight.sums = sums_look(locator.squared(corners, SUMS.cell))


def sums_there(sight: KillerSight, locator: BoardLocator, corners: np.ndarray) -> bool | None:
    """Whether the page at ``corners`` on this frame prints the taken page's sums where they were (every frame,
    cheaply); None when it cannot tell (no page taken, too little in view)."""
    if sight.sums is None:
        return None
    score = likeness(sums_look(locator.squared(corners, SUMS.cell), locator.seen(corners)), sight.sums,
                     least=SUMS_LEAST)
    return None if score is None else score >= SUMS_SAME


def still_there(sight: KillerSight, result: BoardResult, locator: BoardLocator, corners: np.ndarray) -> bool:
    """On a re-read: the page is the one taken (its sums' look; too little in view for it, the sum model's
    reading of the corners)."""
    there = sums_there(sight, locator, corners)
    return same_page(result, locator.colour(), corners, locator.lattice) if there is None else there


def look(sight: KillerSight, image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None,
         reader: DigitReader, timeout: float) -> BoardResult | None:
    """On an unsolved board's steady frame: the killer reading to take (two readings agreed), or None."""
    sight.frames += 1
    if sight.frames < EVERY << min(sight.misses, BACK_OFF):
        return None
    sight.frames = 0
    seen = see_page(image, corners, lattice, reader, shifted=False)
    if seen is None:
        sight.misses += 1
        return None
    sight.misses = 0
    if sight.sights and sight.sights[-1].odds.turn != seen.odds.turn:
        sight.sights.clear()  # turned another way: not the same sight of the page
    sight.sights = [*sight.sights, seen][-VOTES:]
    found = decide(voted(sight.sights), timeout)
    if found.status != Status.SOLVED or found.cages is None:
        sight.last = None
        return None
    agreed = sight.last is not None and sight.last.cages == found.cages and sight.last.solution == found.solution
    sight.last = found
    return found if agreed else None


def voted(sights: list[PageSight]) -> PageSight:
    """The newest sight with the odds of all averaged (its corners and givens are the newest frame's)."""
    last = sights[-1]
    if len(sights) == 1:
        return last
    sums = np.mean([s.odds.sums for s in sights], axis=0)
    borders = np.mean([s.odds.borders for s in sights], axis=0)
    return replace(last, odds=CageOdds(sums, borders, last.odds.turn, last.odds.square))


def same_page(result: BoardResult, image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None) -> bool:
    """Whether the grid at ``corners`` still prints ``result``'s cage sums where they were (a cheap re-read of the
    corners alone: the sum model, no solving)."""
    if result.cages is None:
        return True
    odds = cage_reader().read(image, corners, lattice)
    if odds.turn != 0:
        return False
    first = {c.first: c.total for c in result.cages}
    read = odds.sums.argmax(axis=1)
    sure = odds.sums.max(axis=1) >= 0.8
    moved = sum(1 for i in range(81) if sure[i] and int(read[i]) != first.get(i, 0))
    return moved < SUMS_MOVED
