"""Print against handwriting decided for the page, not cell by cell (issue 58).

The cell-kind model judges each cell alone, and some typefaces' digits (a bold sans at 12 MP, a thin or a
condensed face, an old-style serif) look to it like a hand's: a page of print alone was read as "written on",
and the person, who had written nothing, was told their entries settle the puzzle. A page prints every given
in one typeface, size, weight and colour at one place in its cell; a hand varies. So an "entry" that looks like
the page's print is print:

  * it matches the page's sure print of its digit where that print stands (:func:`own_print.print_likeness`) as
    no hand does, or
  * it has a twin: another "entry" of the same digit as alike as one typeface prints it twice
    (:func:`own_print.twin_likeness`), of one height, near the page's print height.

Cells in the entries' own ink, or only nearer it than the print's, on a page of two inks, are never judged: print
taken for a hand has the print's own ink, and the colour has spoken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ar_sudoku.vision.kinds import ENTRY, GIVEN, CellKinds, apply_votes, decide, nearer_entry_ink
from ar_sudoku.vision.own_print import print_likeness, smoothed_strokes, twin_likeness


class Heights(Protocol):
    """What measures a digit's height in a cell (``writing.EntryOpinion``)."""

    def heights(self, cells: list[int], flat: bool = False) -> list[int]: ...


@dataclass(frozen=True)
class PrintLook:
    """When an "entry" is the page's print."""

    # givens the kind model is this sure of are the page's print: the templates' and the height's source
    sure: float = 0.9
    # sure givens a page needs before its print has a look of its own (a third of a sparse puzzle's); sure givens
    # and twins together count too (a face the model half takes for a hand: seven of each on EB Garamond)
    least_print: int = 8
    # correlation with the page's print of its digit that only print reaches (train hands: at most 0.84 in pen,
    # 0.87 in red; a black pen's 7 shaken by the robustness benchmark's motion blur, deblurred: 0.905; print taken
    # for handwriting on generator P's pages: median 0.97)
    like: float = 0.93
    # ... and this share of that print's likeness to itself (a blurred page's print matches itself less) ...
    share: float = 0.9
    # ... where the print stands: within this many px of its place (at CELL scale), and best there (a hand's
    # neat 7 standing a few px off matches a blurred print 7 nearly as well; ``writing.WRITING.place_slack``)
    place: int = 2
    # two "entries" of one digit (not 1) this alike are one typeface's print (train hands' pairs, 1s left out and
    # cells in the entries' own ink: at most 0.948; red pairs the colour did not rule out: 0.985; print's pairs on
    # the train photos: median 0.96, on generator P's pages 0.998)
    twin: float = 0.975
    # a 1 is a stroke: every hand writes two of them as alike as print (train red pairs: 0.991), and one as like
    # the print's 1 as a digit of shape is like its print: neither rule judges it
    strokes: tuple[int, ...] = (1,)
    # ... the two of one height within this share (one glyph, printed twice) ...
    same_height: float = 0.06
    # ... within these shares of the page's print height (old-style figures rise and fall: a 5 is 1.4 times a 2
    # in EB Garamond): a pencil's small candidates are not print's twins
    short: float = 0.7
    tall: float = 1.5

LOOK = PrintLook()


def print_alike(kinds: CellKinds, square: np.ndarray, second: Heights, inks: np.ndarray | None = None,
                look: PrintLook = LOOK) -> CellKinds:
    """``kinds`` with each "entry" that looks like the page's print made a given (its entry odds moved to print,
    digit by digit). ``square``: the grid seen square-on (``GridViews.square``); ``inks``: its cells' ink colours
    (``GridViews.inks``), when the picture has colour: a cell nearer the pen's ink than the print's is not judged."""
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    pen = nearer_entry_ink(kinds.probs, inks) if inks is not None else np.zeros(81, bool)
    entries = [int(i) for i in np.flatnonzero((kinds.kinds == ENTRY) & (ink <= 0) & ~pen)]
    printed = np.flatnonzero((kinds.kinds == GIVEN) & (kinds.probs[:, 1:10].sum(axis=1) >= look.sure))
    if not entries:
        return kinds
    strokes = smoothed_strokes(square)  # what both judges match, computed once
    made = _twins(kinds, square, printed, entries, second, look, strokes)
    if len(printed) >= look.least_print:
        made |= _like_print(kinds, square, printed, entries, look, strokes)
    elif len(printed) + len(made) < look.least_print:  # too little print, sure or twinned, to say the page's look
        return kinds
    else:  # the twins join the sure print as the page's look: an "entry" left that looks like them is print too
        rest = [i for i in entries if i not in made]
        made |= _like_print(kinds, square, np.union1d(printed, sorted(made)).astype(int), rest, look, strokes)
    if not made:
        return kinds
    votes = np.zeros(81, np.float32)
    votes[sorted(made)] = -1.0
    probs = apply_votes(kinds.probs, votes)
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def _like_print(kinds: CellKinds, square: np.ndarray, printed: np.ndarray, entries: list[int],
                look: PrintLook, strokes: np.ndarray) -> set[int]:
    """The ``entries`` that match the page's sure print of their digit as closely as only print does."""
    # only each cell's own digit is asked (its template alone): the printed cells' to say how alike the page's
    # print is, the entries' where the print stands
    likeness = print_likeness(square, kinds.digits, printed, printed, own_digit=True, strokes=strokes)
    likeness[entries] = print_likeness(square, kinds.digits, printed, entries, look.place, own_digit=True,
                                       strokes=strokes)[entries]
    own = np.full(9, np.nan, np.float32)  # each digit's print against its others (left out of its template)
    for d in range(9):
        mine = likeness[printed[kinds.digits[printed] == d + 1], d]
        if (~np.isnan(mine)).any():
            own[d] = float(np.nanmedian(mine))
    if np.isnan(own).all():
        return set()
    own[np.isnan(own)] = float(np.nanmedian(own))  # a digit printed twice: the page's other print says how alike
    out = set()
    for i in (i for i in entries if int(kinds.digits[i]) not in look.strokes):
        d = int(kinds.digits[i]) - 1
        if likeness[i, d] >= max(look.like, look.share * own[d]):  # NaN (no template) is never
            out.add(i)
    return out

def _twins(kinds: CellKinds, square: np.ndarray, printed: np.ndarray, entries: list[int], second: Heights,
           look: PrintLook, strokes: np.ndarray) -> set[int]:
    """The ``entries`` with a twin (:func:`own_print.twin_likeness` at ``look.twin``), both of the print's height."""
    shaped = [i for i in entries if int(kinds.digits[i]) not in look.strokes]
    alike = {i: v for i, v in twin_likeness(square, kinds.digits, shaped, strokes).items() if v >= look.twin}
    if not alike:
        return set()
    surest = [int(i) for i in sorted(printed, key=lambda i: -float(kinds.probs[i, 1:10].sum()))[:look.least_print]]
    if len(surest) < look.least_print:  # a page whose print is nearly all taken for a hand: its twins are its print
        surest = sorted(alike)
    cells = sorted(set(surest) | set(alike))
    heights = dict(zip(cells, second.heights(cells, flat=True)))
    reference = [heights[i] for i in surest if heights[i] > 0]
    if not reference:
        return set()
    tall = float(np.median(reference))
    sized = [i for i in alike if look.short <= heights[i] / tall <= look.tall]
    # a twin counts only with a twin of its digit and its height (one glyph printed twice)
    return {i for i in sized if any(j != i and kinds.digits[j] == kinds.digits[i]
                                    and abs(heights[j] - heights[i]) <= max(1.0, look.same_height * heights[i])
                                    for j in sized)}
