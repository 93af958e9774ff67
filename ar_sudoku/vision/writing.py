"""A written-on page: which cells are the person's writing, and which of their digits may be called mistakes.

The cell-kind model's classes are checked against the page's own print (its size, plane and half-turn
pattern) and inks; a mistake is claimed only when both readers are sure of it (``written_part``), and a
reading that might be wrong is a doubt ("looks like"), never a mistake.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.vision.deblur import measure_streak
from ar_sudoku.vision.doubts import glare_cover, ink_contrast
from ar_sudoku.vision.entries import candidate_pieces, cell_region, entry_crops, ink_box, ink_height
from ar_sudoku.vision.kinds import (
    BLANK,
    ENTRY,
    GIVEN,
    CellKinds,
    GridViews,
    KindReader,
    apply_votes,
    decide,
    page_inks,
    pen_map,
    percentile,
    percentiles,
    quiet,
    sure_of_writing,
    warp_views_grid,
)
from ar_sudoku.vision.kinds import CELL as VIEW_CELL
from ar_sudoku.vision.kinds import MARGIN as VIEW_MARGIN
from ar_sudoku.vision.own_print import print_likeness, smoothed_strokes
from ar_sudoku.vision.page_print import print_alike
from ar_sudoku.vision.quads import to_gray, unshade


@dataclass(frozen=True)
class WritingConfig:
    """This stage's tuning: each field with the reason for its value."""

    sure_written: float = 0.8  # a cell less sure than this of holding a written digit is never called a mistake
    # an entry whose readers give the solution's digit these odds against their likeliest is the solution's
    doubt: float = 0.1
    # A mistake is claimed only when each reader alone is sure of it: the cell is handwriting (sure_entry; a
    # given the rules did not keep is not), each model gives its likeliest digit at least sure_digit of its digit
    # odds, and the solution's digit under against of that one's when the two name the same digit. Anything
    # less is a doubt ("looks like"), never a mistake.
    sure_entry: float = 0.5
    against: float = 0.05
    # ... or, the two naming different digits or one of them less sure, each below alone and the two together
    # (their geometric mean) below together: two readers each nearly sure the entry is not the solution's digit
    # say so together even when they differ on which digit it is (planted swaps on the train photos: 652 -> 662
    # of 724 found; the nearest correct entry that the two readers misread, printed nowhere near, together 0.039)
    alone: float = 0.15
    together: float = 0.02
    # ... and, when the written digit is printed in the cell's row, column or box, the two readers' odds together
    # (their geometric mean) below this: a slip a person seldom makes, the print being in plain view, so a reading
    # that makes it is more often a misreading (a blurred 4 open at the top read as 7, a printed 7 in
    # its column). Planted swaps on the train photos: 7 of 309 such sure mistakes become doubts
    against_printed: float = 0.015
    # In a blurred or noisy picture (EntryOpinion.poor_picture) a claimed mistake is a doubt, unless both readers
    # name the same digit and their odds of the solution's, together, are below this: 3x under the surest misread
    # of a correct entry in a poor picture (planted swaps, train photos under the benchmark's 12 conditions: 0.015;
    # scripts/mistake_odds.py)
    poor_sure: float = 0.005
    sharp: float = 0.40  # a picture whose steepest edges are below this share of its contrast is blurred (EntryOpinion)
    noisy: float = 0.06  # ... whose paper's typical Laplacian is above this share of its contrast is noisy
    # ... and whose least steep edges of four directions are below this share of its steepest is shaken (train
    # written-on photos as taken: 0.57-0.99, a tenth below 0.75; under the benchmark's 7 px streak: median 0.58)
    shaken: float = 0.55
    sure_digit: float = 0.5
    # Sizes against the page's own sure entries (the median height of up to reference of them, at least min_reference):
    # pencilled candidates are about 0.6 of them (0.45-0.8 on the handwritten photos), entries about 1 (>= 0.78).
    # one small digit, read as candidates, this tall and the solution's digit: an entry written small
    lone_entry: float = 0.85
    # ... or in several pieces (a shaken pen stroke broken up) when the entry model reads the whole cell as the
    # solution's digit this surely (a shaken pen's entries, broken up, read as pencil)
    broken_entry: float = 0.8
    # the entry odds of the page's only "pencil mark" that makes it an entry, when the readers leave the solution's
    # digit a fair chance (doubt) and it is as tall as the page's entries (lone_entry): shaken, a pen 1's thin stroke
    # looks pencilled, with far lower entry odds than real candidates get
    alone_entry: float = 0.2
    seen_entry: float = 2 / 3  # an entry the gate would drop as a smudge, this tall and the solution's digit: kept
    agreed_entry: float = 0.55  # ... this tall when both readers name the solution's digit on a written-on page
    # an unsure entry on a page with pencil marks, smaller than this (entries: >= 0.78): candidates
    small_entry: float = 0.75
    reference: int = 5
    min_reference: int = 3
    # a "given" this much shorter than the page's sure givens is handwriting (print has one size)
    small_print: float = 0.8
    print_reference: int = 7  # the surest givens whose median height is the page's print size
    # a given whose rough height (from the model's views) is under this share is measured exactly
    maybe_small: float = 0.9
    # The least entry odds of a short "given" that is handwriting. On the train written-on photos under twelve
    # conditions, the height alone turned 65 givens to entries: the 43 that were entries had odds 0.055 and more,
    # the 22 that were print (a screen's moire, blur at the grid's edge) 0.049 and less
    small_odd_entry: float = 0.05
    shape_sure: float = 0.9  # givens the kind model is this sure of are the page's print, the templates' source
    like_print: float = 0.9  # a given whose likeness to its digit's print is this share of that print's own is print
    place_slack: int = 2  # px (at CELL scale) a digit may stand off its print's place and be print standing there
    # Print stands where its font puts it: on the training written-on photos, the sure givens' digit boxes lie
    # on one plane over the grid (all but a few centres within 3.5 px of it; px at CELL scale) and are one height
    # (0.91-1.06 of their median). Entries the kind model takes for print under blur, a screen's moire or a
    # small picture mostly lie off it (median 5 px) or are shorter (median 0.79-0.93).
    print_sure: float = 0.97  # givens this sure are the page's print: where they stand and how tall is the reference
    min_placed: int = 6  # sure givens needed to fit the print's plane
    # a given with at least these entry odds is measured (fewer: it is print, as the model says) ...
    odd_entry: float = 0.1
    noisy_odd_entry: float = 0.15  # ... in a noisy picture (a dim room's speckle sways the model's odds for print too)
    off_place: float = 2.5  # a digit whose box's centre is this far off the print's plane (px at CELL scale) ...
    off_spread: float = 2.0  # ... and this many times the 90th percentile of the sure givens' own distances to it
    short_print: float = 0.85  # ... or this much shorter than the print is handwriting,
    tall_print: float = 1.1  # unless its box is this much taller than print (or wide_print wider than print's widest
    wide_print: float = 1.5  # digit): something else joined it (a neighbour's stroke, the border), nothing is judged
    # the entry model's least probability of its digit for a blank-looking cell in the entries' ink
    pale_pen_sure: float = 0.8
    # the entry model's least probability of its digit for a blank cell drawn in the entries' ink alone: lower than
    # pale_pen_sure, as its strokes stand out from the print and the paper there (train written-on photos under six
    # conditions: 11 more entries found than at 0.8, none in a blank cell)
    pen_sure: float = 0.5
    # the entry odds such a cell is given: a written digit, never sure enough to be called wrong
    pale_pen_mass: float = 0.75
    # Most newspapers print their givens in a pattern symmetric under a half turn (65 of the 160 sudoku-photos
    # puzzles; each of the others is at least 24 cells off it). A reading one pair of cells off such a pattern has
    # misread one of the two: the chance that a pattern of this many givens (symmetric_givens) is a single pair
    # off by design is slight.
    symmetric_givens: int = 20
    # Pairs off the pattern that are set right. Two pairs gained one train photo-condition (1437 -> 1438 split
    # exactly), too little for the larger chance that a pattern two pairs off is the printed one
    off_pairs: int = 1
    # The least odds the model must give the cell that changes kind (a given's entry odds, an entry's print odds).
    # Chosen on the train written-on photos under six conditions: the eight right changes had 0.08 and more, the two
    # wrong ones (a given read as a sure entry, whose partner, sure print, was taken for handwriting) 0.03 and 0.05.
    # At this bar, under all thirteen conditions of scripts/eval_robust.py, the rule makes 11 changes there, all right
    odd_kind: float = 0.07
    stain: float = 0.4  # an "entry" on a printed page fainter than this share of the print's contrast is a stain
    min_print: int = 17  # sure givens that tell the print's contrast (as many as the fewest a puzzle has)
    # A "pencil mark" in the entries' own pen ink (a page of two inks) is an entry written small: pencil is grey.
    # On the train written-on photos under twelve conditions, of 2969 cells left as pencil marks none of the true
    # ones was in the entries' ink, and 3 entries were. A person who pencils in pen marks many cells: at most this
    # many in the pen's ink are read as entries
    pen_marks: int = 2
    # A cell the kind model took for blank but less surely than this may hold a faint entry (_unseen_pen). On the train
    # written-on photos in the darker room, the missed entries in the entries' ink had 0.40-0.86
    unseen_blank: float = 0.9


WRITING = WritingConfig()


def _rough_heights(views: np.ndarray) -> np.ndarray:
    """Each cell's ink height in its model view (half scale): the rows of the cell's interior, clear of its
    grid lines, holding ink in the middle columns. Rough (a stray mark makes a digit taller), but free."""
    m, half = VIEW_MARGIN // 2, VIEW_CELL // 2
    inner: np.ndarray = views[:, m + 3: m + half - 3, m + 6: m + half - 6] > 0.5
    rows = np.asarray(inner.any(axis=2))
    first = rows.argmax(axis=1)
    last = rows.shape[1] - 1 - rows[:, ::-1].argmax(axis=1)
    return np.where(rows.any(axis=1), last - first + 1, 0)


def shaped_as_print(kinds: CellKinds, square: np.ndarray, cells: list[int],
                    placed: list[int] | None = None) -> set[int]:
    """The ``cells`` and ``placed`` (givens as read) whose shape is the page's own print of their digit
    (:func:`own_print.print_likeness`): a short digit, or one standing off its place, that is print all the same.

    A digit's box is a threshold's edge: a dim room's speckle moves it, and a glare fades strokes short of the
    print's size. Its shape, correlated over the whole digit, holds in both. A newspaper prints every given in
    one font, so a given matches the page's other givens of its digit about as closely as they match each
    other (the median of the page's sure givens of the digit, each against the others; of all its print for a
    digit printed only twice): ``WRITING.like_print`` of that, and the digit is print whatever its box measures. A
    digit the page prints too seldom is not judged. ``cells`` are matched a few pixels around the print's
    place (a hand's neat 7 standing off it matches as closely); ``placed``, whose boxes stand off that place,
    must show the print where the print stands (within ``WRITING.place_slack``).
    """
    placed = placed or []
    asked = np.asarray([*cells, *placed], np.int64)
    if not len(asked):
        return set()
    printed = np.flatnonzero((kinds.kinds == GIVEN) & (kinds.probs[:, 1:10].sum(axis=1) >= WRITING.shape_sure))
    # only each cell's own digit is asked (its template alone): nothing here looks at another digit's likeness
    strokes = smoothed_strokes(square)
    likeness = print_likeness(square, kinds.digits, printed, np.concatenate([printed, cells]).astype(np.int64),
                              own_digit=True, strokes=strokes)
    own = np.full(9, np.nan, np.float32)
    for d in range(1, 10):
        mine = likeness[printed[kinds.digits[printed] == d], d - 1]
        if (~np.isnan(mine)).any():
            own[d - 1] = float(np.nanmedian(mine))
    if np.isnan(own).all():
        return set()
    if placed:  # asked where their print would stand
        likeness[placed] = print_likeness(square, kinds.digits, printed, placed, WRITING.place_slack,
                                          own_digit=True, strokes=strokes)[placed]
    own[np.isnan(own)] = float(np.nanmedian(own))  # a digit printed twice: the page's other print says how alike
    shares = likeness[asked, kinds.digits[asked] - 1] / own[kinds.digits[asked] - 1]
    return {int(i) for i, share in zip(asked, shares) if share >= WRITING.like_print}  # NaN: the digit has no template


def small_print_is_written(kinds: CellKinds, second: EntryOpinion, views: np.ndarray,
                           sure: float = 0.9) -> CellKinds:
    """On a written-on page, a cell read as print whose digit is well below the print's size is an entry.

    A newspaper prints every given in one font at one size: over 9,200 givens of the training
    photos, each digit's height lies within 0.79-1.29 of its page's median (all but a handful
    within 0.83-1.17). Handwriting taken for print is mostly smaller (0.58-0.88 of it, in 12 of 13 such
    cells there), and a red or blue pen in poor light may not show its colour. Pages with no sure
    entry are left alone: on print alone, nothing is handwriting. Only the surest givens (the
    print's size) and those that look small in the model's views (``views``, from ``grid_views``)
    are measured exactly, and a small digit whose shape is the page's print (:func:`shaped_as_print`) stays
    print.
    """
    if not sure_of_writing(kinds, sure):
        return kinds
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    given = [int(i) for i in np.flatnonzero(kinds.kinds == GIVEN)]
    surest = [i for i in sorted(given, key=lambda i: -p_given[i]) if p_given[i] >= sure][:WRITING.print_reference]
    if len(surest) < WRITING.min_reference:
        return kinds
    rough = _rough_heights(views)
    rough_print = float(np.median(rough[surest]))
    maybe = [i for i in given if i not in surest and rough[i] < WRITING.maybe_small * rough_print]
    heights = dict(zip(surest + maybe, second.heights(surest + maybe, flat=True)))
    reference = [heights[i] for i in surest if heights[i] > 0]
    if len(reference) < WRITING.min_reference:
        return kinds
    limit = WRITING.small_print * float(np.median(reference))
    # a sure 'given' may be handwriting too; but not one in the givens' own ink, on a page of two inks
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    # ... nor one the model gives next to no odds of handwriting (``WRITING.small_odd_entry``): a given at the grid's
    # edge, its box cut by the border line or a blur's fringe, measures short too
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    small = [i for i in surest + maybe if 0 < heights[i] < limit and ink[i] >= 0
             and p_entry[i] >= WRITING.small_odd_entry]
    shaped = shaped_as_print(kinds, second.warped, small)
    return _voted_written(kinds, [i for i in small if i not in shaped])


def _voted_written(kinds: CellKinds, cells: list[int]) -> CellKinds:
    """``kinds`` with a vote for handwriting on each of ``cells`` (the second opinions' common end)."""
    if not cells:
        return kinds
    votes = np.zeros(81, np.float32)
    votes[cells] = 1.0
    probs = apply_votes(kinds.probs, votes)
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def misplaced_print_is_written(kinds: CellKinds, second: EntryOpinion) -> CellKinds:
    """On a written-on page, a doubtful given that stands off the print's places, or is short of its size, is an entry.

    Blurred, off a screen or small, a neat hand's digit looks like print to the kind model, and a
    page written in black (or a pen whose colour the light took) gives no colour to tell them apart
    (issue 21: most written-on pages that failed under those conditions). A newspaper prints every
    given at the same place in its cell: the boxes of the page's sure givens (``WRITING.print_sure``) fit
    one plane over the grid (their centres, by row and column: the warp's small errors are smooth).
    A given that the model itself gives ``WRITING.odd_entry`` odds of an entry, standing ``WRITING.off_place`` off
    that plane (and ``WRITING.off_spread`` times as far as the print's own stand: speckle moves boxes) or
    ``WRITING.short_print`` of the print's height (unless its shape is the page's print: :func:`shaped_as_print`),
    is an entry. Cells in the givens' own ink, on a page of two inks, stay print.
    """
    if not sure_of_writing(kinds):
        return kinds
    p_given, p_entry = kinds.probs[:, 1:10].sum(axis=1), kinds.probs[:, 10:19].sum(axis=1)
    noisy = second.quiet is not second.warped
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    doubtful = np.flatnonzero((kinds.kinds == GIVEN) & (p_given < WRITING.print_sure) & (ink >= 0)
                              & (p_entry >= (WRITING.noisy_odd_entry if noisy else WRITING.odd_entry)))
    if not len(doubtful):
        return kinds
    sure = [int(i) for i in np.flatnonzero((kinds.kinds == GIVEN) & (p_given >= WRITING.print_sure))]
    boxes = dict(zip(sure + [int(i) for i in doubtful], second.boxes(sure + [int(i) for i in doubtful])))
    placed = [i for i in sure if boxes[i] is not None]
    if len(placed) < WRITING.min_placed:
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
    off_place = max(WRITING.off_place, WRITING.off_spread * spread)
    digit = kinds.digits[placed]
    written, short = [], []
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
        if h < WRITING.tall_print and b[3] - b[2] < WRITING.wide_print * width:
            if float(np.hypot(*off)) >= off_place:
                written.append(int(i))
            elif h <= WRITING.short_print:
                short.append(int(i))
    shaped = shaped_as_print(kinds, second.warped, short, placed=written)
    return _voted_written(kinds, [i for i in written + short if i not in shaped])


def symmetric_print(kinds: CellKinds) -> CellKinds:
    """On a written-on page whose givens are symmetric under a half turn but for one pair of cells
    (``WRITING.off_pairs``),
    that pair set right.

    A neat hand's digit taken for print (blurred, off a screen, a black pen) stands where the
    pattern has no given; a given taken for handwriting leaves a hole in it. Of the pair's given
    and its partner (an entry, or a blank cell), the one the model gives the more odds of the other
    kind changes kind, when they are at least ``WRITING.odd_kind``. On a page of two inks, a cell in the
    givens' ink stays print and one in the entries' ink stays handwriting: when that leaves one
    cell that can change, it does. A given taken for an entry keeps entry odds below
    ``WRITING.sure_written``: it is checked against the solution but never called a mistake.
    """
    given = kinds.kinds == GIVEN
    odd = [int(i) for i in np.flatnonzero(given & ~given[::-1])]  # each off pair's given
    if not 0 < len(odd) <= WRITING.off_pairs or int(given.sum()) < WRITING.symmetric_givens or (
            not sure_of_writing(kinds)):
        return kinds
    ink = kinds.ink if kinds.ink is not None else np.zeros(81, np.float32)
    probs = kinds.probs.copy()
    for i in odd:
        j = 80 - i  # its partner
        entry = kinds.kinds[j] == ENTRY
        written, printed = ink[i] >= 0, entry and ink[j] <= 0  # i may be handwriting, j may be print
        told = written != printed and (ink[i] < 0 or (entry and ink[j] > 0))  # the inks rule one of them out
        # a partner made handwriting by a second opinion (its size or place: its print odds set to none) cannot
        # be weighed against the given: the pair is left as read (under a long motion streak a given cut short
        # was voted written, and its partner, a true given, would be turned instead)
        if printed and not told and float(kinds.probs[j, 1:10].sum()) == 0.0:
            continue
        odds_written = float(kinds.probs[i, 10:19].sum()) if written else -1.0
        odds_printed = float(kinds.probs[j, 1:10].sum()) if printed else -1.0
        if max(odds_written, odds_printed) < (0.0 if told else WRITING.odd_kind):
            continue
        if odds_printed >= odds_written:
            probs[j] = apply_votes(probs[j:j + 1], np.array([-1.0], np.float32))[0]
        else:
            digit = probs[i, 1:10] + probs[i, 10:19]
            probs[i] = 0.0
            probs[i, 0] = 1.0 - WRITING.pale_pen_mass
            probs[i, 10:19] = WRITING.pale_pen_mass * digit / digit.sum()
    if np.array_equal(probs, kinds.probs):
        return kinds
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def read_kinds(kinds: KindReader, seen: GridViews, second: EntryOpinion) -> CellKinds:
    """Each cell's kind as a photo and a live frame read it: the kind model on the grid's views, stains on a
    printed page left blank, "entries" that look like the page's print made print (:func:`page_print.print_alike`),
    then the entry model's second opinion on small print, print standing off the
    givens' places and pale pen, and last the givens' half-turn pattern (:func:`stains_are_blank`,
    :func:`small_print_is_written`, :func:`misplaced_print_is_written`, :func:`pale_pen_entries`,
    :func:`symmetric_print`)."""
    cell_kinds = stains_are_blank(kinds.read(seen.views, seen.inks, noisy=seen.noisy), seen.square)
    cell_kinds = print_alike(cell_kinds, seen.square, second, seen.inks)
    cell_kinds = small_print_is_written(cell_kinds, second, seen.views)
    cell_kinds = pale_pen_entries(misplaced_print_is_written(cell_kinds, second), second, seen.inks)
    return symmetric_print(cell_kinds)


def stains_are_blank(kinds: CellKinds, square: np.ndarray) -> CellKinds:
    """Cells read as entries on a page not written on (``sure_of_writing``) whose ink is far fainter than the
    print's (under ``WRITING.stain`` of the sure givens' median ``ink_contrast``): blank.

    A stain, a smudge or a mark showing through the paper can take the shape of a handwritten digit
    (read as an entry, surely, with its ink a quarter of the print's): a person
    sees a printed page. A glared page is left alone: a glare fades its print too (``doubts.unreadable_cells``).
    """
    entries = np.flatnonzero(kinds.kinds == ENTRY)
    if not len(entries) or sure_of_writing(kinds) or glare_cover(square) is not None:
        return kinds
    given = (kinds.kinds == GIVEN) & (kinds.probs[:, 1:10].sum(axis=1) >= 0.9)
    if int(given.sum()) < WRITING.min_print:
        return kinds
    contrast = ink_contrast(square)
    faint = [int(i) for i in entries if contrast[i] < WRITING.stain * float(np.median(contrast[given]))]
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
    is at least ``WRITING.seen_entry`` of the page's entries' height (a speck of ink is not). It is read twice:
    in grey where its ink's colour is the entries' (``CellKinds.ink`` +1), then, on a page of two inks
    (``inks``, :func:`kinds.page_inks`), drawn in the entries' ink alone (:meth:`EntryOpinion.pen_cells`),
    where a pen as light as its paper in grey is plain. Its entry odds stay below ``WRITING.sure_written``: a
    digit seen only this way is checked against the solution but never called a mistake.
    """
    if kinds.ink is None or not sure_of_writing(kinds):
        return kinds
    found: dict[int, np.ndarray] = {}
    pale = [int(i) for i in np.flatnonzero((kinds.ink > 0) & (kinds.kinds == BLANK))]
    if pale:
        p = second.digits(pale)
        sure = [k for k in range(len(pale)) if p[k].max() >= WRITING.pale_pen_sure]
        sized = set(second.page_sized(kinds, [pale[k] for k in sure], WRITING.seen_entry))
        found.update((pale[k], p[k]) for k in sure if pale[k] in sized)
    two = page_inks(kinds.probs, inks) if inks is not None and second.colour is not None else None
    rest = [int(i) for i in np.flatnonzero(kinds.kinds == BLANK) if int(i) not in found]
    if two is not None and rest:
        p, heights = second.pen_cells(rest, two, kinds)
        found.update((i, p[k]) for k, i in enumerate(rest) if p[k].max() >= WRITING.pen_sure
                     and heights[k] >= WRITING.seen_entry)
    if not found:
        return kinds
    probs = kinds.probs.copy()
    for i, q in found.items():
        probs[i] = 0.0
        probs[i, 0] = 1.0 - WRITING.pale_pen_mass
        probs[i, 10:19] = WRITING.pale_pen_mass * q
    cell_kinds, digits, confidence = decide(probs)
    return CellKinds(cell_kinds, digits, probs, confidence, kinds.ink)


def sure_entries(kinds: CellKinds, sure: float = 0.9) -> list[int]:
    """The cells read as entries with at least ``sure`` entry odds, surest first."""
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    return [int(i) for i in np.argsort(-p_entry) if kinds.kinds[i] == ENTRY and p_entry[i] >= sure]


def sure_written(kinds: CellKinds, givens: str) -> list[int]:
    """The person's sure entries (``sure_entries``) in cells the givens leave blank, each with a digit."""
    return [i for i in sure_entries(kinds) if is_empty(givens[i]) and kinds.digits[i]]


def _entries_height(heights: list[int]) -> float:
    """The page's entries' height: the median of its surest entries' (``heights``, 0 where no digit was
    found); 0 with fewer than ``WRITING.min_reference`` found."""
    found = [h for h in heights if h > 0]
    return float(np.median(found)) if len(found) >= WRITING.min_reference else 0.0


class EntryOpinion:
    """A second look at a few handwritten cells of one grid, by the entry-digit model.

    The grid is warped only when a cell is asked about: most pages need no second look.
    """

    def __init__(self, kinds: KindReader, image: np.ndarray, corners: np.ndarray,
                 lattice: np.ndarray | None = None, warped: np.ndarray | None = None,
                 colour: np.ndarray | None = None, inks: np.ndarray | None = None):
        self.kinds, self.image, self.corners, self.lattice = kinds, image, corners, lattice
        # the picture in BGR, when it has colour: a pale pen is read from its own ink
        self.colour = colour if colour is not None and colour.ndim == 3 else None
        self.inks = inks  # each cell's ink colour (``GridViews.inks``), when the picture has colour
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
        (``WRITING.shaken``) tells it (issue 21: a shaken 4 read as 7 and called wrong). A grid whose streak was
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
            self._poor = sharp < WRITING.sharp or even < WRITING.shaken or noise > WRITING.noisy or self._streaked()
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
        scale = _entries_height([ink_height(cell_region(pen, i)) for i in sure_entries(kinds)[:WRITING.reference]])
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
        """The median digit height of the page's surest entries (up to WRITING.reference); 0 with too few of them.

        Handwriting's size varies from writer to writer, so a cell's ink height says little alone
        (candidates of a large hand are as tall as the entries of a small one); against the same
        page's entries it does.
        """
        if self._entry_height is None:
            self._entry_height = _entries_height(self.heights(sure_entries(kinds, sure)[:WRITING.reference]))
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


