"""Cells a reader cannot see (a glare's washed-out core and halo) or is unsure of (a faded or misread given).

A cell the reader cannot see is never guessed into a blank or a digit: it is named ``unreadable`` unless the
solution of the cells that can be read, or their ink weighed among that solution's few rivals, gives it back.
Pure functions over the reading, the cell-kind model's view and the warped grid (arrays in, arrays out).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import SEVERAL, BoardResult, Reading
from ar_sudoku.sudoku.solver import all_solutions, count_solutions, parse_line, validate
from ar_sudoku.sudoku.vocabulary import Status, is_empty
from ar_sudoku.sudoku.written import NAMES
from ar_sudoku.vision.cells import glare_gain
from ar_sudoku.vision.kinds import BLANK, GIVEN, KINDS, CellKinds, pen_or_pencil, percentiles, sure_of_writing
from ar_sudoku.vision.kinds import CELL as VIEW_CELL
from ar_sudoku.vision.kinds import MARGIN as VIEW_MARGIN
from ar_sudoku.vision.own_print import prefers, print_matches, print_read, print_seen, seen_in


@dataclass(frozen=True)
class DoubtsConfig:
    """This stage's tuning: each field with the reason for its value."""

    saturated: int = 250  # grey level of a washed-out pixel (glare)
    washed: float = 0.4  # share of a cell's middle this bright: nothing can be seen there, it is unreadable
    lifted: float = 0.5  # paper lifted this far from the page's paper towards white somewhere: the picture has a glare
    # a cell whose paper a glare lifts this far towards white has lost that share of its ink's contrast: its faded
    # print looks like a pen's or a pencil's line, an 8 like a 3 (its halo)
    halo: float = 0.2
    # ... and this far, a tenth of it: a cell both readers see as blank may hold a given washed out past seeing
    blind: float = 0.9
    # ... and this far, a tenth: the glare's light reaches it (a given that breaks the rules there is doubted)
    lit: float = 0.1
    bright_paper: int = 238  # pages whose paper is this bright already: glare cannot be told from paper
    # grey levels of stroke a washed-out cell's middle shows (its dark lines' black-hat): faded print
    faint_ink: int = 8
    faint_stroke: int = 9  # px at VIEW_CELL: wider than a digit's stroke, narrower than its loops
    restore: float = 0.3  # a doubtful cell is the solution's given when a reader gives the solution's digit this much
    # ... and it holds a digit (its solution's digit must be one its readers see) below these odds of blank
    inked: float = 0.5
    # a washed-out cell's strokes the cell-kind model takes for candidates at these odds: a pencil's, no given
    pencil: float = 0.5
    # the most solutions of the readable cells that the doubtful cells' ink is asked to choose between
    pick_among: int = 64
    # a doubtful cell a reader gives one digit these odds is taken as read while the others are weighed
    sure_ink: float = 0.9
    # the most solutions weighed so (a glare's halo hides a few givens: on the training photos, hundreds of solutions)
    weigh_among: int = 1024
    # A given the digit model reads below these odds, or that the cell-kind model (at least ``other_print`` sure it is
    # a digit) reads as another digit, is not trusted on a page of print alone. On the 125 training printed photos under
    # nine conditions (taken, dim, screen, half, 320 px, shadow, blur, motion, JPEG 40), every given the digit model
    # misread (47) was one of these, and few of those it read right (471 of 32,362).
    unsure_print: float = 0.8
    other_print: float = 0.5
    # the unsure givens' likeliest digits (as the solutions allow) must be this much likelier than others
    ink_odds: float = 10.0
    alike: float = 0.5  # a digit both readers give these odds, that the rules changed, shows the rules fitted misreads
    ink_floor: float = 0.01  # a reader's least say in a digit: one reader's zero does not veto what the other sees


DOUBTS = DoubtsConfig()


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
    lit (a shadow, ``glare_gain``), and pictures with no cell lifted by ``DOUBTS.lifted`` have no glare.
    """
    middle = _middles(square)
    washed = (middle >= DOUBTS.saturated).mean(axis=1)
    paper_of = percentiles(middle, [75], axis=-1)[0]
    page = float(np.median(paper_of))
    if page >= DOUBTS.bright_paper:
        return None
    cover = np.clip((paper_of - page) / (255.0 - page), 0.0, 1.0)
    if not (washed >= DOUBTS.washed).any() and (
            cover.max() < DOUBTS.lifted or glare_gain(paper_of, paper_of.reshape(9, 9)) is None):
        return None
    return np.where(washed >= DOUBTS.washed, np.maximum(cover, washed), cover).astype(np.float32)


def glare_cells(square: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cells under a glare: (washed out, in its halo).

    ``square``: as :func:`glare_cover`. A glare spot on a glossy page leaves no ink to see in its
    core: such a cell is neither blank nor a digit (a saturated middle with no ink darker than the
    page's paper). Around the core the ink is faded towards white by as much as the glare covers the
    cell (``glare_cover``): a halo cell (covered by ``DOUBTS.halo`` or more) is read only when it is surely print.
    """
    cover = glare_cover(square)
    if cover is None:
        return (), ()
    middle = _middles(square)
    washed = (middle >= DOUBTS.saturated).mean(axis=1)
    paper_of, darkest = percentiles(middle, [75, 1], axis=-1)
    core = (washed >= DOUBTS.washed) & (darkest >= float(np.median(paper_of)))  # no ink darker than the page's paper
    halo = ~core & (cover >= DOUBTS.halo)
    return tuple(int(i) for i in np.flatnonzero(core)), tuple(int(i) for i in np.flatnonzero(halo))


def glare_clashes(result: BoardResult, square: np.ndarray, kinds: CellKinds, fixed: Collection[int]) -> tuple[int, ...]:
    """The clashing givens of a reading that breaks the rules which a glare's light reaches (``DOUBTS.lit``), on a page
    of print alone.

    A glare's halo can fade a given into another digit, or a blank cell's grain into a 1, that both
    readers read alike and surely (under a strong glare's halo): the reading breaks the rules, and
    the readers' second guesses cannot mend it. These givens are doubted as the halo's others are: left
    out, the rest may solve, and their ink is weighed then. Cells the person set (``fixed``) stay.
    """
    if result.status != Status.INVALID or not result.givens or pen_or_pencil(kinds):
        return ()
    cover = glare_cover(square)
    if cover is None:
        return ()
    clash = {c for x in validate(parse_line(result.givens)) for c in (x.a, x.b)}
    return tuple(sorted(i for i in clash if cover[i] >= DOUBTS.lit and i not in fixed))


def faint_print(square: np.ndarray, cells: tuple[int, ...]) -> tuple[int, ...]:
    """The ``cells`` (a glare's washed-out core) that still show a digit's strokes, however faint.

    Saturated paper is flat, so any thin dark line in it is ink: the lines darker than their
    surroundings (a morphological black-hat, ``DOUBTS.faint_stroke`` px) by ``DOUBTS.faint_ink`` grey levels. A
    gradient of the glare's light is no line and does not count (unlike a cell's plain contrast).
    """
    if not cells:
        return ()
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (DOUBTS.faint_stroke, DOUBTS.faint_stroke))
    lines = _middles(cv2.morphologyEx(square, cv2.MORPH_BLACKHAT, kernel))[list(cells)]
    strokes = percentiles(lines, [99], axis=-1)[0]
    return tuple(i for i, s in zip(cells, strokes) if s >= DOUBTS.faint_ink)


def blind_cover(square: np.ndarray) -> np.ndarray:
    """(81,) bool: the cells a glare covers ``DOUBTS.blind`` or more (none without a glare)."""
    cover = glare_cover(square)
    return np.zeros(81, bool) if cover is None else cover >= DOUBTS.blind


def blind_blanks(kinds: CellKinds, square: np.ndarray, givens: str | None,
                 unreadable: tuple[int, ...]) -> tuple[int, ...]:
    """``unreadable`` with, on a page of print alone, its cells read blank where a glare lifts the paper
    ``DOUBTS.blind`` or more.

    Blank is a guess under such light: a given washed out past seeing looks blank to both readers
    (a 3 under a strong glare, reported missing and unnamed). Asked last, so the
    reading and its solving are as before; only what is said of those cells changes. (Strokes are not
    looked for here, as in the saturated core: this paper is not flat white, and its grain passes for a
    faint stroke: a blank cell would be "restored" as a given.)
    """
    if givens is None or pen_or_pencil(kinds):
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
    keeps its votes: only the halo cells beside the core, lifted ``DOUBTS.lifted`` towards white, are doubted.
    A given both models read alike, not surely, that the page's own print reads so too
    (:func:`own_print.print_read`, its sure givens the templates) is as good as agreed.
    """
    # a written-on page (entries, or pencil marks): the print model is unsure of pen and pencil
    wide = wide and not pen_or_pencil(kinds)
    core, halo = glare_cells(square)
    if not core and not (wide and halo):
        return ()
    p_given = kinds.probs[:, 1:10].sum(axis=1)
    print_alike = (kinds.kinds == GIVEN) & (p_given >= sure) & (printed.digits == kinds.digits)
    doubtful = np.zeros(81, bool)
    doubtful[list(halo)] = True
    if wide:
        agreed = print_alike & (printed.confidence >= sure)
        # read alike, not surely: the page's own print is asked too (its sure givens the templates)
        alike = np.flatnonzero(~agreed & (kinds.kinds == GIVEN) & (printed.digits == kinds.digits)
                               & (printed.digits > 0))
        if alike.size:
            sure_givens = "".join(str(d) if a else "." for d, a in zip(printed.digits, agreed))
            read = print_read(square, sure_givens, alike.tolist(), glare_cover(square))
            agreed[[i for i, d in read.items() if int(d) == printed.digits[i]]] = True
        blank = (kinds.kinds == BLANK) & (kinds.probs[:, 0] >= sure) & (printed.digits == 0) & (
            printed.confidence >= sure)
        doubtful = (doubtful & ~agreed & ~blank) | ((kinds.kinds == GIVEN) & ~agreed)
    else:
        cover = glare_cover(square)  # there is a core: its washed-out cells are the glare
        assert cover is not None
        near = cv2.dilate(np.isin(np.arange(81), core).reshape(9, 9).astype(np.uint8), np.ones((3, 3), np.uint8))
        doubtful &= (near.reshape(81) > 0) & (cover >= DOUBTS.lifted) & ~print_alike
    doubtful[list(core)] = True
    return tuple(int(i) for i in np.flatnonzero(doubtful))


def restore_unreadable(result: BoardResult, unreadable: tuple[int, ...], core: tuple[int, ...], kinds: CellKinds,
                       printed: Reading, fused: Reading, timeout: float = 1.0,
                       inked_core: tuple[int, ...] = (),
                       square: np.ndarray | None = None) -> tuple[BoardResult, tuple[int, ...]]:
    """The doubtful cells of a glared photo given back once the puzzle's solution is known.

    The cells read surely are solved. When they leave several solutions, the doubtful cells' ink chooses
    (``_picked_by_ink``: a cell holding a digit allows only the digits a reader gives ``DOUBTS.restore`` of its
    odds; the solution chosen must be ``DOUBTS.ink_odds`` times likelier by that ink, else the solutions are
    weighed by it). Then (``_given_back``) a doubtful cell the kind model reads as the person's entry is read as
    entries are; one whose ink a reader takes for the solution's digit is that given (on a page of print alone,
    so is one the kind model is ``KINDS.missed_print`` sure is not blank); one both readers see as blank is
    blank unless the ink weighed the solution; of the inked cells left, when all were in doubt, those the
    puzzle needs to solve one way are givens (``_needed``). The rest, with the glare's ``core``, stay
    unreadable: a digit is never put where the page shows none, and a faded 8 never becomes a 3. On a page of
    print alone, a core cell still showing strokes (``inked_core``) and a doubtful cell showing the page's own
    print of the solution's digit (``square``: ``own_print.print_seen``) are the solution's givens.
    """
    if result.status != Status.SOLVED or not result.solution or not result.givens:
        return result, unreadable
    pen_page = sure_of_writing(kinds)  # else a lone "entry" in a glare's halo is its faded print
    # (a pencil's candidates show strokes too: they are no given)
    faint = () if pen_page else tuple(i for i in inked_core if kinds.probs[i, 19] < DOUBTS.pencil)
    cells = [i for i in unreadable if (i not in core or i in faint) and result.givens[i] == "."]
    support = np.maximum(np.maximum(printed.probs[:, 1:10], fused.probs[:, 1:10]), kinds.probs[:, 1:10])
    written = kinds.probs[:, 10:19]  # a handwritten entry's digit: it stays the person's, read as entries are
    either = np.maximum(support, written)
    # weighed: the solution was picked by the doubtful cells' ink (then a cell read blank may still hide a given);
    # needs: the inked cells, when they alone were in doubt (the puzzle is theirs: those it needs are givens)
    unsolved, weighed, needs, matches = result, False, list[int](), None
    if result.message == SEVERAL:
        picked = _picked_by_ink(result, cells, faint, kinds, printed, fused, either, unreadable, pen_page, square,
                                timeout)
        if picked is None:
            return result, unreadable
        result, weighed, needs, matches = picked
    assert result.solution is not None and result.givens is not None
    blank = {i: result.solution[i] for i in unreadable if result.givens[i] == "."}
    own = ({} if pen_page or square is None else seen_in(matches, blank) if matches is not None
           else print_seen(square, result.givens, blank, glare_cover(square), unreadable))
    givens, conf, restored = _given_back(result, cells, kinds, printed, fused, support, either, faint, own, pen_page,
                                         weighed)
    if needs:
        needed = _needed(givens, [i for i in needs if i not in restored], result.solution, timeout)
        if needed is None:
            return unsolved, unreadable
        for i in needed:
            givens[i] = result.solution[i]
            restored.add(i)
    left = tuple(i for i in unreadable if i not in restored)
    return replace(result, givens="".join(givens), confidence=conf), left


def _picked_by_ink(result: BoardResult, cells: list[int], faint: tuple[int, ...], kinds: CellKinds,
                   printed: Reading, fused: Reading,
                   either: np.ndarray, unreadable: tuple[int, ...], pen_page: bool, square: np.ndarray | None,
                   timeout: float) -> tuple[BoardResult, bool, list[int], np.ndarray | None] | None:
    """:func:`restore_unreadable`'s solution when the sure cells leave several: the one the doubtful cells' ink
    picks; and whether the ink weighed it (a cell read blank may then hide a given), the inked cells the puzzle
    needs when they alone were in doubt, and the page's own print's matches. None: no one solution is clear."""
    inked = [i for i in cells
             if i not in faint and min(printed.probs[i, 0], fused.probs[i, 0], kinds.probs[i, 0]) < DOUBTS.inked]
    if not inked:
        return None
    # the doubtful cells' likeliest digits with the sure ones: one solution, or the sure ones' solutions
    # (when few) of which one alone fits every doubtful cell's ink
    assert result.givens is not None
    best = list(result.givens)
    for i in inked:
        d = int(either[i].argmax()) + 1
        if either[i, d - 1] >= DOUBTS.restore:
            best[i] = str(d)
    found = all_solutions(parse_line("".join(best)), 1, timeout)
    if not found:
        found = all_solutions(parse_line(result.givens), DOUBTS.pick_among, timeout) or []
    fit = [s for s in found if all(either[i, int(s[i]) - 1] >= DOUBTS.restore for i in inked)]
    # the page's own print of each digit in the doubted cells: a third opinion on their faded ink
    matches = (None if pen_page or square is None
               else print_matches(square, result.givens, unreadable, glare_cover(square)))
    if len(fit) == 1 and not _clear(fit[0], result.givens, inked, either, timeout, matches):
        fit = []
    weighed, needs = False, list[int]()
    if len(fit) != 1 and not pen_page:  # (a person's sure entry may be a mistake: no solution is weighed on it)
        # when the inked cells are all the glare hides, the puzzle is theirs alone: it solves one way
        alone = set(unreadable) <= set(inked)
        fit, weighed = _weighed(result.givens, inked, either, timeout, alone, matches), True
        needs = inked if alone else []
    if len(fit) != 1:
        return None
    return replace(result, solution=fit[0], message=""), weighed, needs, matches


def _given_back(result: BoardResult, cells: list[int], kinds: CellKinds, printed: Reading, fused: Reading,
                support: np.ndarray, either: np.ndarray, faint: tuple[int, ...], own: dict[int, float],
                pen_page: bool, weighed: bool) -> tuple[list[str], np.ndarray | None, set[int]]:
    """:func:`restore_unreadable`'s doubtful ``cells`` given back from the solution where a reader, the faint
    strokes or the page's own print (``own``) allow: the givens, their confidences and the cells restored."""
    assert result.solution is not None and result.givens is not None
    written = kinds.probs[:, 10:19]  # a handwritten entry's digit: it stays the person's, read as entries are
    # surely inked, and taken for print: on a page of print alone it is, whatever its faded digit looks like
    sure_print = (kinds.probs[:, 0] < 1.0 - KINDS.missed_print) & (kinds.kinds == GIVEN)
    givens = list(result.givens)
    conf = None if result.confidence is None else result.confidence.copy()
    restored = set()
    for i in cells:
        d = int(result.solution[i])
        # sure print is the solution's digit unless a reader sees another digit there (the solution is doubted then)
        print_back = sure_print[i] and float(np.delete(either[i], d - 1).max()) < DOUBTS.restore
        if pen_page and written[i, d - 1] >= DOUBTS.restore and written[i].sum() > kinds.probs[i, 1:10].sum():
            restored.add(i)  # the person's entry of the solution's digit: read as entries are
        elif support[i, d - 1] >= DOUBTS.restore or i in faint or (
                not pen_page and (written[i, d - 1] >= DOUBTS.restore or print_back)):
            givens[i] = result.solution[i]
            restored.add(i)
            if conf is not None:
                conf[i] = float(support[i, d - 1])
        elif i in own:
            continue  # given below, with the core's cells
        elif kinds.kinds[i] == BLANK and printed.digits[i] == 0 and fused.digits[i] == 0 and not weighed:
            restored.add(i)
    for i, match in own.items():
        if i not in restored:
            givens[i] = result.solution[i]
            restored.add(i)
            if conf is not None:
                conf[i] = match  # how well it matches the page's print: no model's odds
    return givens, conf, restored


def _clear(solution: str, givens: str, inked: list[int], either: np.ndarray, timeout: float,
           own: np.ndarray | None = None) -> bool:
    """Whether the doubtful cells' ink makes ``solution`` ``DOUBTS.ink_odds`` times likelier than the readable cells'
    other solutions. A faded 5 read as an 8 at three to one (under a strong glare) fits a puzzle
    of one solution too: another one's. The doubtful cells whose digit is that much likelier than any other
    digit there are taken as read; the solutions that agree with them (up to ``DOUBTS.weigh_among``; more: it cannot
    be told) are weighed by the other doubtful cells' ink. A rival the page's own print tells from ``solution``
    (``own``: :func:`own_print.print_matches`) does not count; one it prefers makes ``solution`` unclear."""
    ink = np.log(either + DOUBTS.ink_floor)
    unclear = [i for i in inked
               if ink[i, int(solution[i]) - 1] - np.delete(ink[i], int(solution[i]) - 1).max()
               < np.log(DOUBTS.ink_odds)]
    if not unclear:
        return True
    fixed = list(givens)
    for i in inked:
        if i not in unclear:
            fixed[i] = solution[i]
    rivals = all_solutions(parse_line("".join(fixed)), DOUBTS.weigh_among, timeout)
    if rivals is None:
        return False

    def weight(s: str) -> float:
        return float(sum(ink[i, int(s[i]) - 1] for i in unclear))

    mine = weight(solution)
    rivals = [r for r in rivals if any(r[i] != solution[i] for i in unclear)]
    if own is not None and any(prefers(own, unclear, r, solution) for r in rivals):
        return False
    # the print may discount a rival the ink leaves close, never one the ink prefers
    return all(weight(r) <= mine - np.log(DOUBTS.ink_odds) or (own is not None and weight(r) <= mine
                                                         and prefers(own, unclear, solution, r)) for r in rivals)


def _weighed(givens: str, inked: list[int], either: np.ndarray, timeout: float, alone: bool = False,
             own: np.ndarray | None = None) -> list[str]:
    """The one solution the doubtful cells' ink picks out of the readable cells' several (or none).

    The doubtful cells a reader sees as one digit at ``DOUBTS.sure_ink`` are taken as read; the solutions left
    (up to ``DOUBTS.weigh_among``) are weighed by every inked doubtful cell's odds of its digit, and the likeliest
    stands when it is ``DOUBTS.ink_odds`` times likelier than every other and is one solution, not several that
    differ elsewhere (a doubtful cell no reader sees ink in could still tell those apart). When the
    ``inked`` cells are ``alone`` in doubt (every doubted cell is one of them: no core, no blank-looking or
    faint cell), only the digits that make a puzzle of one solution are weighed: a printed puzzle has one.
    The page's own print (``own``: :func:`own_print.print_matches` of the doubted cells) has a say: a rival it
    tells from the likeliest does not count, one it prefers leaves nothing picked, and of several solutions
    that differ where no ink was weighed (a glare's core) it picks the one it tells from every other.
    """
    base = list(givens)
    for i in inked:
        if either[i].max() >= DOUBTS.sure_ink:
            base[i] = str(int(either[i].argmax()) + 1)
    found = all_solutions(parse_line("".join(base)), DOUBTS.weigh_among, timeout)
    if not found:  # too many to weigh, or none: a cell taken as read (or a given) was misread, nothing is guessed
        return []
    ink = np.log(either + DOUBTS.ink_floor)
    asks: dict[str, list[str]] = {}
    for s in found:
        asks.setdefault("".join(s[i] for i in inked), []).append(s)
    if alone:
        asks = {a: v for a, v in asks.items() if len(v) == 1}
        if not asks:
            return []
    weight = {a: float(sum(ink[i, int(d) - 1] for i, d in zip(inked, a))) for a in asks}
    top = max(weight, key=weight.__getitem__)
    if own is not None and any(prefers(own, inked, asks[a][0], asks[top][0]) for a in asks if a != top):
        return []
    close = [a for a, w in weight.items() if a != top and w >= weight[top] - np.log(DOUBTS.ink_odds)]
    if own is not None:
        close = [a for a in close if not prefers(own, inked, asks[top][0], asks[a][0])]
    if close:
        return []
    if len(asks[top]) > 1 and own is not None:  # they differ where no ink was weighed: a glare's core, perhaps
        asked = [int(i) for i in np.flatnonzero(~np.isnan(own).all(axis=1))]
        apart: dict[str, list[str]] = {}  # the solutions by their digits in the cells the print was asked of
        for s in asks[top]:
            apart.setdefault("".join(s[i] for i in asked), []).append(s)
        # the one the print tells from every other: the last standing of a knockout, then checked against all
        groups = list(apart.values())
        lead = groups[0]
        for g in groups[1:]:
            if prefers(own, asked, g[0], lead[0]):
                lead = g
        told = len(lead) == 1 and all(prefers(own, asked, lead[0], g[0]) for g in groups if g is not lead)
        return lead if told else []
    return asks[top] if len(asks[top]) == 1 else []


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


def unsure_givens(givens: str, printed: Reading, kinds: CellKinds, skip: tuple[int, ...] = ()) -> list[int]:
    """The givens (as the rules kept them) the two readers are not sure of: the digit model's odds below
    ``DOUBTS.unsure_print``, or the cell-kind model seeing another digit there."""
    digits = np.array([0 if is_empty(c) else int(c) for c in givens])
    shape = kinds.probs[:, 1:10] + kinds.probs[:, 10:19]  # the digit's shape, printed or written
    other = (shape.sum(axis=1) >= DOUBTS.other_print) & (shape.argmax(axis=1) + 1 != digits)
    weak = (printed.digits == digits) & (printed.confidence < DOUBTS.unsure_print)
    return [int(i) for i in np.flatnonzero((digits > 0) & (weak | other)) if int(i) not in skip]


def settle_unsure(result: BoardResult, printed: Reading, kinds: CellKinds, skip: tuple[int, ...] = (),
                  timeout: float = 1.0, loose: tuple[int, ...] = ()) -> tuple[BoardResult, tuple[int, ...]]:
    """A printed page's solved reading with its unsure givens settled by their ink, and the cells it cannot settle.

    A wrong given is the worst a printed page can suffer: the solution drawn is then another puzzle's
    (issue 21). In a dim room's noise a 6 closes into an 8; on a small picture an 8 loses its waist to a 5.
    The rules catch a misread that breaks the puzzle, but not one that still solves one way: then the
    sure givens alone (``unsure_givens`` left out) have several solutions, and the misread picked one.
    So the sure givens' solutions (up to ``DOUBTS.pick_among``) are weighed by the unsure cells' ink, both
    readers' odds of each solution's digit (the digit model's and the cell-kind model's, as a product):
    the likeliest stands when it is ``DOUBTS.ink_odds`` times likelier than every other, even against the
    reading (a digit corrected by its ink); else the unsure cells the contenders disagree on are named
    unreadable and no solution is drawn. A written-on page is left alone (the print model is unsure of
    every handwritten cell), as are cells in ``skip`` (a glare's) and readings the rules left ambiguous.
    The ``loose`` givens, a glare's cells given back from the solution itself, are neither judged nor
    counted among the sure ones (they would only confirm the solution they came from); a corrected
    solution must keep them, or the unsure cells are named.
    """
    if (result.status != Status.SOLVED or not result.solution or not result.givens
            or pen_or_pencil(kinds)):
        return result, ()
    cells = unsure_givens(result.givens, printed, kinds, skip + loose)
    if not cells:
        return result, ()
    shape = kinds.probs[:, 1:10] + kinds.probs[:, 10:19]
    # the givens the two readers see as two different digits
    torn = [i for i in cells if shape[i].sum() >= DOUBTS.other_print
            and int(shape[i].argmax()) + 1 != int(result.givens[i])]
    found = all_solutions(parse_line(blanked(result.givens, cells + list(loose))), DOUBTS.pick_among, timeout)
    # ... of which the rules changed one that both readers read alike, each more likely than not: a solution
    # made to fit misread givens
    overruled = any(0 < printed.digits[i] == int(shape[i].argmax()) + 1 != int(result.givens[i])
                    and printed.confidence[i] >= DOUBTS.alike and shape[i].max() >= DOUBTS.alike for i in torn)
    if found is None and overruled and len(torn) < len(cells) and result.message != SEVERAL:
        # too many solutions to weigh without every unsure given (a streaked picture: a third of the print
        # below DOUBTS.unsure_print): the merely weak givens stand, and the torn ones alone are weighed
        cells = torn
        found = all_solutions(parse_line(blanked(result.givens, cells + list(loose))), DOUBTS.pick_among, timeout)
    if found is None and result.message == SEVERAL and torn:
        # too many to weigh, and the reading's own solution only one of several: a given the readers see as
        # two different digits is not passed off as read (the answer drawn would be a guess built on it)
        return _torn(result, tuple(torn)), tuple(torn)
    if not found or len(found) == 1:  # too many to weigh, or the sure givens settle it (the reading's own solution)
        return result, ()
    return _by_ink(result, printed, shape, cells, found, loose)


def _by_ink(result: BoardResult, printed: Reading, shape: np.ndarray, cells: list[int], found: list[str],
            loose: tuple[int, ...]) -> tuple[BoardResult, tuple[int, ...]]:
    """:func:`settle_unsure`'s sure givens' solutions ``found`` weighed by the unsure ``cells``' ink (``shape``:
    the kind model's odds of each digit, print or pen): the likeliest by ``DOUBTS.ink_odds``, else the cells the
    contenders disagree on named."""
    assert result.givens is not None
    shape = shape / np.maximum(shape.sum(axis=1, keepdims=True), 1e-9)
    digit = printed.probs[:, 1:10] / np.maximum(printed.probs[:, 1:10].sum(axis=1, keepdims=True), 1e-9)
    ink = np.log(digit + DOUBTS.ink_floor) + np.log(shape + DOUBTS.ink_floor)  # (81, 9)
    # the unsure cells' digits each solution asks for, weighed by their ink (solutions that differ only in the
    # answers, a reading the rules left ambiguous, ask for the same)
    asks: dict[str, float] = {}
    for s in found:
        digits = "".join(s[i] for i in cells)
        asks[digits] = float(sum(ink[i, int(d) - 1] for i, d in zip(cells, digits)))
    best = max(asks, key=asks.__getitem__)
    contenders = [a for a, w in asks.items() if w >= asks[best] - np.log(DOUBTS.ink_odds)]
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


def blanked(givens: str, cells: list[int]) -> str:
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
