"""One grid's reading as a list of named passes over one record, as spaCy runs its components over a ``Doc``.

A :class:`CellRecord` holds everything known of a grid so far: where it is, what each model read, what each
cell is (blank, print, pen, pencil), which cells a glare hides, the rules' board and the person's entries.
Each pass is a small function that takes the record and gives back the next; it writes its own fields and
leaves the rest as they were. :func:`run` runs a list of passes and logs, per pass, its time and the cells
whose reading it changed (:class:`~ar_sudoku.sudoku.rules.PassLog`), so that a person can see which pass
changed which cell (``ar-sudoku image PHOTO --explain-reading``).

Two lists run here:

* :data:`KIND_PASSES` reads the cells' kinds and joins the two models: the live loop runs it on every steady
  frame (``ar.session``), the photo path inside :data:`PHOTO_PASSES`;
* :data:`PHOTO_PASSES`: the whole reading of one grid of a photo, from its orientation to the person's
  entries, each correction by the rules, the glare and the entries in its own pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ar_sudoku.sudoku.rules import FEWEST_GIVENS, SEVERAL, BoardResult, PassLog, Reading, check_reading, faint_givens
from ar_sudoku.sudoku.vocabulary import Status, is_empty
from ar_sudoku.sudoku.written import Written
from ar_sudoku.vision.checking import written_part
from ar_sudoku.vision.corrections import (
    both_models,
    disowned,
    entries_against,
    fuse,
    hidden_open,
    kind_givens,
    print_alone_solves,
    settled,
    sound,
)
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.doubts import (
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
from ar_sudoku.vision.kinds import KIND_CHARS, CellKinds, GridViews, KindReader, grid_views, sure_of_writing, written_on
from ar_sudoku.vision.lattice import rotate
from ar_sudoku.vision.orient import confirm_turn, read_oriented
from ar_sudoku.vision.quads import GridQuad
from ar_sudoku.vision.writing import EntryOpinion, read_kinds


@dataclass(frozen=True)
class Inputs:
    """What every pass may look at and none changes: the pictures, the readers and the person's corrections."""

    image: np.ndarray  # the colour picture (the cells' inks are read from it)
    gray: np.ndarray
    reader: DigitReader
    kinds: KindReader | None  # None: print alone, no cell kinds (``--model`` without the kind model)
    timeout: float = 1.0
    overrides: dict[int, int] | None = None  # cells the person set (``--set``)
    wide: bool = True  # a glare's halo judged wide (a photo) or narrow (a live frame, voted over frames)

    @property
    def fixed(self) -> set[int]:
        return set(self.overrides or {})


@dataclass(frozen=True)
class CellRecord:
    """One grid's reading so far; each pass fills or changes its own fields (None: not read yet)."""

    given: Inputs
    quad: GridQuad | None  # the grid as found (a photo); None when the caller oriented it (live)
    corners: np.ndarray
    bent: np.ndarray | None  # the curled page's crossings, turned as the corners; None on a flat grid
    lattice: np.ndarray | None = None  # the crossings drawn through (flat grids too)
    printed: Reading | None = None  # the print model's reading (the doubted cells left out)
    reading: Reading | None = None  # the givens as the solver should see them: both models fused
    seen: GridViews | None = None  # the cell-kind model's views of the grid
    second: EntryOpinion | None = None  # the entry-digit model, asked about odd entries
    cell_kinds: CellKinds | None = None  # what each cell is: blank, print, pen or pencil, and how sure
    unreadable: tuple[int, ...] = ()  # cells a glare hides: not read, never taken for blank
    seen_as: tuple[Reading, Reading] | None = None  # (printed, reading) before the doubted cells were left out
    all_print: BoardResult | None = None  # the page read as print alone, when its few "entries" are in doubt
    result: BoardResult | None = None  # the rules' board (givens, solution, message)
    ruled: bool = False  # the rules read the fused reading (not the page as print alone)
    given_back: tuple[int, ...] = ()  # the glare's cells given back from the solution
    several: bool = False  # the givens leave several solutions
    written: Written | None = None  # the person's entries and pencil marks
    message: str = ""
    log: tuple[PassLog, ...] = ()

    def cells(self) -> tuple[str, ...]:
        """Each cell as the record reads it now (what :func:`run` compares to tell which cells a pass changed): its
        kind (``.`` blank, ``g`` print, ``e`` pen, ``c`` pencil; the person's part once it is read), its digit (the
        given's, or the person's entry; ``.`` none), ``?`` when a glare hides it, and its pencilled candidates."""
        if self.result is not None and self.result.givens:
            digits = list(self.result.givens)
        elif self.reading is not None:
            digits = [str(int(d)) if d else "." for d in self.reading.digits]
        else:
            return ("",) * 81
        if self.written is not None:
            w = self.written
            kind = list(w.cells)
            digits = [e if e != "." else d for d, e in zip(digits, w.entries)]
            marks = list(w.candidates) if w.candidates else [""] * 81
        else:
            kind = [KIND_CHARS[int(k)] for k in self.cell_kinds.kinds] if self.cell_kinds is not None else [""] * 81
            marks = [""] * 81
        hidden = set(self.unreadable)
        return tuple(kind[i] + digits[i] + ("?" if i in hidden else "") + (f"({marks[i]})" if marks[i] else "")
                     for i in range(81))


Pass = Callable[[CellRecord], CellRecord]


def run(passes: Sequence[tuple[str, Pass]], record: CellRecord) -> CellRecord:
    """The record through ``passes`` in order, each pass's time and changed cells logged."""
    log = list(record.log)
    before = record.cells()
    for name, step in passes:
        t0 = time.perf_counter()
        record = step(record)
        ms = (time.perf_counter() - t0) * 1e3
        after = record.cells()
        changed = tuple(i for i in range(81) if after[i] != before[i])
        log.append(PassLog(name, ms, changed, tuple(after[i] for i in changed)))
        before = after
    return replace(record, log=tuple(log))


# ------------------------------------------------------------------------------------------ the cells' kinds


def views(r: CellRecord) -> CellRecord:
    """The cell-kind model's views of the grid (from the colour picture: a pen's ink tells entries from print),
    and the entry-digit model beside it."""
    g = r.given
    if g.kinds is None:
        return r
    seen = grid_views(g.image, r.corners, r.bent)
    second = EntryOpinion(g.kinds, g.gray, r.corners, r.bent, seen.square, g.image, seen.inks)
    return replace(r, seen=seen, second=second)


def kinds(r: CellRecord) -> CellRecord:
    """What each cell is: blank, printed, handwritten or pencil marks (``writing.read_kinds``: the model, then
    ink, size, place and pattern)."""
    if r.given.kinds is None or r.seen is None or r.second is None:
        return r
    return replace(r, cell_kinds=read_kinds(r.given.kinds, r.seen, r.second))


def glare(r: CellRecord) -> CellRecord:
    """The cells a glare hides (``doubts.unreadable_cells``)."""
    if r.cell_kinds is None or r.seen is None or r.reading is None:
        return r
    return replace(r, unreadable=unreadable_cells(r.seen.square, r.cell_kinds, r.reading, wide=r.given.wide))


def fused(r: CellRecord) -> CellRecord:
    """The givens as the solver should see them, from both models (``corrections.fuse``); the cells a glare
    hides left out of both readings."""
    if r.cell_kinds is None or r.reading is None:
        return replace(r, printed=r.reading)
    printed, reading = r.reading, fuse(r.reading, r.cell_kinds)
    seen_as = r.seen_as
    if r.unreadable:
        seen_as = (printed, reading)
        printed, reading = unseen(printed, r.unreadable), unseen(reading, r.unreadable)
    return replace(r, printed=printed, reading=reading, seen_as=seen_as)


KIND_PASSES: tuple[tuple[str, Pass], ...] = (("views", views), ("kinds", kinds), ("glare", glare), ("fuse", fused))


# ------------------------------------------------------------------------------------------ one grid of a photo


def orient(r: CellRecord) -> CellRecord:
    """The grid read the right way up by the print model (``orient.read_oriented``); a weak turn confirmed by the
    cell-kind model. The crossings are turned as the corners were."""
    g, quad = r.given, r.quad
    assert quad is not None
    turned = read_oriented(g.gray, quad.corners, g.reader, quad.lattice if quad.bent else None)
    if g.kinds is not None:
        turned = confirm_turn(g.image, g.gray, quad, g.reader, g.kinds, turned)
    corners, reading, bent = turned
    if bent is not None:
        lattice = bent
    else:  # flat: the fitted crossings (or the corners' own), turned as the corners were
        k = next(k for k in range(4) if np.array_equal(np.roll(quad.corners, -k, axis=0), corners))
        lattice = rotate(quad.crossings(), k)
    return replace(r, corners=corners, bent=bent, lattice=lattice, reading=reading)


def page_as_print(r: CellRecord) -> CellRecord:
    """A few doubtful "entries" on what may be a clean printed page: if the page read as all print makes a sound
    puzzle, it is taken as such (a right entry read as a given changes no answer; a wrong one breaks the
    puzzle, and then the entries are told apart)."""
    if r.cell_kinds is None or r.reading is r.printed or sure_of_writing(r.cell_kinds):
        return r
    assert r.printed is not None
    g = r.given
    all_print = check_reading(r.printed, g.timeout, overrides=g.overrides, require_unique=True)
    if all_print.status == Status.SOLVED and not all_print.corrected:
        return replace(r, all_print=all_print, result=all_print)
    return replace(r, all_print=all_print)


def rules(r: CellRecord) -> CellRecord:
    """The rules' board of the fused reading (``rules.check_reading``: a reading that breaks them mended by the
    likeliest second guesses), unless the page was taken as print alone."""
    if r.result is not None:
        return r
    assert r.reading is not None
    g = r.given
    return replace(r, result=check_reading(r.reading, g.timeout, overrides=g.overrides), ruled=True)


def by_both_models(r: CellRecord) -> CellRecord:
    """A clean printed page the digit model reads against the rules: the kind model's view of each inked cell's
    digit, joined to the digit model's, may make the puzzle sound (``corrections.both_models``)."""
    if not r.ruled or r.cell_kinds is None or r.result is None or sound(r.result) or written_on(r.cell_kinds):
        return r
    assert r.reading is not None
    g = r.given
    both = check_reading(both_models(r.reading, r.cell_kinds), g.timeout, overrides=g.overrides)
    return replace(r, result=both) if sound(both) else r


def print_alone(r: CellRecord) -> CellRecord:
    """The page read as print alone, when it makes the puzzle the fused reading makes and its doubtful "entries"
    may be print (``corrections.print_alone_solves``)."""
    if not r.ruled or r.all_print is None or r.result is None or r.cell_kinds is None:
        return r
    return replace(r, result=r.all_print) if print_alone_solves(r.all_print, r.result, r.cell_kinds) else r


def settle_several(r: CellRecord) -> CellRecord:
    """Givens that leave several solutions, settled by the person's sure entries (``corrections.settled``)."""
    res = r.result
    if not r.ruled or r.cell_kinds is None or res is None or res.status != Status.SOLVED or (
            "several solutions" not in res.message):
        return r
    return replace(r, result=settled(res, r.cell_kinds, unreadable=r.unreadable, fixed=r.given.fixed))


def faint(r: CellRecord) -> CellRecord:
    """Faint print the digit model half saw, given back where the solution has its digit (``rules.faint_givens``)."""
    assert r.result is not None and r.reading is not None
    if r.cell_kinds is None:
        return replace(r, result=faint_givens(r.result, r.reading, overrides=r.given.overrides, blank=None))
    assert r.printed is not None
    if r.reading is r.printed or r.result.givens == r.printed.givens:
        return replace(r, result=faint_givens(r.result, r.printed, overrides=r.given.overrides,
                                              blank=r.cell_kinds.probs[:, 0]))
    return r


def kind_print(r: CellRecord) -> CellRecord:
    """Print the kind model sees where the digit model saw none, the solution's digit: a given
    (``corrections.kind_givens``)."""
    if r.cell_kinds is None or r.result is None:
        return r
    skip = set(r.unreadable) | r.given.fixed
    return replace(r, result=kind_givens(r.result, r.cell_kinds, skip=skip))


def glare_clash(r: CellRecord) -> CellRecord:
    """Givens a glare's light faded into a clash, doubted, when the rest solve as read
    (``doubts.glare_clashes``)."""
    if r.cell_kinds is None or r.result is None or r.seen is None:
        return r
    assert r.reading is not None and r.printed is not None
    g = r.given
    lit = glare_clashes(r.result, r.seen.square, r.cell_kinds, g.fixed)
    if not lit:
        return r
    again = check_reading(unseen(r.reading, lit), g.timeout, overrides=g.overrides)
    # the clashing givens the glare faded are doubted (the rest as read: no rules' correction is a reading)
    if again.status != Status.SOLVED or again.corrected:
        return r
    seen_as = r.seen_as if r.unreadable else (r.printed, r.reading)
    return replace(r, printed=unseen(r.printed, lit), reading=unseen(r.reading, lit), seen_as=seen_as, result=again,
                   unreadable=tuple(sorted(set(r.unreadable) | set(lit))))


def restore(r: CellRecord) -> CellRecord:
    """The glare's cells given back from the solution where their ink allows (``doubts.restore_unreadable``)."""
    if not r.unreadable:
        return r
    assert r.seen is not None and r.cell_kinds is not None and r.seen_as is not None and r.result is not None
    square = r.seen.square
    core = glare_cells(square)[0]
    result, unreadable = restore_unreadable(r.result, r.unreadable, core, r.cell_kinds, *r.seen_as,
                                            inked_core=faint_print(square, core), square=square)
    return replace(r, result=result, unreadable=unreadable,
                   given_back=tuple(i for i in r.unreadable if i not in unreadable))


def unsure_print(r: CellRecord) -> CellRecord:
    """Givens read unsurely on a page of print alone, weighed by their ink, else named unreadable
    (``doubts.settle_unsure``)."""
    if r.cell_kinds is None or r.result is None:
        return r
    assert r.printed is not None
    g = r.given
    result, unsure = settle_unsure(r.result, r.printed, r.cell_kinds, r.unreadable + tuple(g.overrides or {}),
                                   g.timeout, loose=r.given_back)
    return replace(r, result=result, unreadable=tuple(sorted(set(r.unreadable) | set(unsure))))


def by_entries(r: CellRecord) -> CellRecord:
    """Misread givens the person's own sure entries contradict, set right by them
    (``corrections.entries_against``)."""
    if r.cell_kinds is None or r.result is None:
        return r
    assert r.printed is not None
    g = r.given
    return replace(r, result=entries_against(r.result, r.cell_kinds, r.printed, set(r.unreadable) | g.fixed,
                                             g.timeout))


def disown(r: CellRecord) -> CellRecord:
    """A solution most of the person's sure entries disagree with, withheld (``corrections.disowned``)."""
    if r.cell_kinds is None or r.result is None:
        return r
    return replace(r, result=disowned(r.result, r.cell_kinds))


def blind(r: CellRecord) -> CellRecord:
    """Cells read blank where a glare lifts the paper nearly to white, named unreadable
    (``doubts.blind_blanks``)."""
    if r.cell_kinds is None or r.result is None or r.seen is None:
        return r
    return replace(r, unreadable=blind_blanks(r.cell_kinds, r.seen.square, r.result.givens, r.unreadable))


def no_puzzle(r: CellRecord) -> CellRecord:
    """A reading of several solutions with too few givens for a puzzle, or whose glare hides cells it needs:
    nothing drawn, and said why."""
    result = r.result
    assert result is not None
    several = result.status == Status.SOLVED and result.message == SEVERAL
    shown = sum(not is_empty(g) for g in result.givens or "")
    if several and shown < FEWEST_GIVENS:  # no puzzle to draw a guess on: a misplaced grid, or its print unseen
        result = replace(result, status=Status.UNSOLVABLE, solution=None,
                         message=f"only {shown} givens read, too few for a puzzle (a misplaced grid?)")
        several = False
    if r.unreadable and several:  # the cells glare hides are needed: say which, draw nothing
        result = replace(result, status=Status.UNSOLVABLE, solution=None, message=hidden_open(r.unreadable))
    return replace(r, result=result, several=several, message=result.message)


def entries(r: CellRecord) -> CellRecord:
    """The person's entries and pencil marks, checked against the one solution (``checking.written_part``)."""
    result = r.result
    if r.cell_kinds is None or result is None or not result.givens:
        return r
    assert r.printed is not None and r.seen is not None
    # entries are checked against the one solution only: one of several would call right entries wrong
    written = written_part(result.givens, r.cell_kinds, r.printed, None if r.several else result.solution,
                           r.second, r.unreadable)
    if r.several or (result.corrected and glare_cover(r.seen.square) is not None):
        # under a glare the rules see fewer cells: a solution they had to correct the reading for may be
        # another puzzle's, and a right entry would be called wrong against it
        written = replace(written, checked=False)
    clashes = written.clashes(result.givens)
    message = r.message
    if clashes:
        message = "; ".join(filter(None, [message, "written: " + "; ".join(clashes[:3])]))
    return replace(r, written=written, message=message)


PHOTO_PASSES: tuple[tuple[str, Pass], ...] = (
    ("orient", orient),
    *KIND_PASSES,
    ("page_as_print", page_as_print),
    ("rules", rules),
    ("both_models", by_both_models),
    ("print_alone", print_alone),
    ("settle_several", settle_several),
    ("faint_print", faint),
    ("kind_print", kind_print),
    ("glare_clash", glare_clash),
    ("restore", restore),
    ("unsure_print", unsure_print),
    ("by_entries", by_entries),
    ("disown", disown),
    ("blind", blind),
    ("no_puzzle", no_puzzle),
    ("entries", entries),
)


def read_at(image: np.ndarray, gray: np.ndarray, quad: GridQuad, reader: DigitReader, timeout: float,
            overrides: dict[int, int] | None, kinds: KindReader | None, t0: float) -> BoardResult:
    """Digits, rules and solution of the grid ``quad`` in ``image`` (``ms`` counted from ``t0``): the record
    through :data:`PHOTO_PASSES`, its log in the result's ``passes``."""
    given = Inputs(image, gray, reader, kinds, timeout, overrides)
    r = run(PHOTO_PASSES, CellRecord(given, quad, quad.corners, None))
    result = r.result
    assert result is not None
    return BoardResult(result.status, corners=r.corners, givens=result.givens, confidence=result.confidence,
                       solution=result.solution, message=r.message, ms=(time.perf_counter() - t0) * 1e3,
                       corrected=result.corrected, lattice=r.lattice, written=r.written, unreadable=r.unreadable,
                       passes=r.log)
