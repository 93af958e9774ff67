"""The person's part of the page: their entries and pencil marks, checked against the solution.

A mistake is claimed only when each reader alone is sure of it; anything less is a doubt ("looks like"),
never ringed. Size, ink and the entry-digit model settle entry against pencil mark (``written_part``).
"""


from __future__ import annotations

from dataclasses import replace

import numpy as np

from ar_sudoku.sudoku.rules import Reading
from ar_sudoku.sudoku.steps import PEER_LIST
from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.sudoku.written import Written, from_kinds
from ar_sudoku.vision.kinds import (
    ENTRY,
    CellKinds,
    in_entry_ink,
    sure_of_writing,
)
from ar_sudoku.vision.writing import WRITING, EntryOpinion


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
    """Both readers, each on its own, sure that cell ``i`` holds a handwritten digit (the kind model: ``read``)
    and that it is not ``right`` (0-8).

    Each reader's odds of ``right`` against its likeliest digit must be under ``WRITING.against`` when the two
    name the same digit, or under ``WRITING.alone`` with the two together (their geometric mean) under
    ``WRITING.together``: the claim is that the entry is not the solution's digit, which two readers can make
    without agreeing which digit it is. When ``read`` is printed in the cell's row, column or box, together
    under ``WRITING.against_printed`` in either case.
    """
    p = kinds.probs[i]
    if kinds.kinds[i] != ENTRY or p[10:19].sum() < WRITING.sure_entry or other is None:
        return False
    digits = p[10:19] / max(float(p[10:19].sum()), 1e-9)
    if digits[read] < WRITING.sure_digit or other.max() < WRITING.sure_digit:
        return False
    kind_odds, entry_odds = _odds_of_right(kinds, i, read, right, other)
    if max(kind_odds, entry_odds) >= WRITING.alone:
        return False
    together = np.sqrt(kind_odds * entry_odds)
    if printed_near:
        return bool(together < WRITING.against_printed)
    agreed = int(other.argmax()) == read and max(kind_odds, entry_odds) < WRITING.against
    return agreed or bool(together < WRITING.together)


def _odds_of_right(kinds: CellKinds, i: int, read: int, right: int, other: np.ndarray) -> tuple[float, float]:
    """Each reader's odds of digit ``right`` (0-8) in cell ``i``: the kind model's against ``read`` (of its handwritten
    digits), the entry model's (``other``) against its likeliest."""
    digits = kinds.probs[i, 10:19] / max(float(kinds.probs[i, 10:19].sum()), 1e-9)
    return float(digits[right] / max(float(digits[read]), 1e-9)), float(other[right] / max(float(other.max()), 1e-9))


def _printed_near(givens: str, i: int, digit: int) -> bool:
    """Whether ``digit`` (1-9) is a given in cell ``i``'s row, column or box."""
    return any(givens[j] == str(digit) for j in PEER_LIST[i])


def _pen_marks(kinds: CellKinds, second: EntryOpinion, solution: str, marked: list[int]) -> list[int]:
    """The cells of ``marked`` (read as pencil marks) written in the entries' pen ink that the readers leave the
    solution's digit a fair chance (``WRITING.doubt``): entries, as small as pencil, of the solution's digit."""
    if kinds.ink is None:
        return []
    inked = [i for i in marked if kinds.ink[i] > 0]
    if not 0 < len(inked) <= WRITING.pen_marks:
        return []
    whole = second.digits(inked)
    return [i for k, i in enumerate(inked) if _chance(kinds, i, int(solution[i]) - 1, whole[k]) >= WRITING.doubt]


def _unseen_pen(givens: str, kinds: CellKinds, second: EntryOpinion, solution: str,
                unreadable: tuple[int, ...]) -> list[int]:
    """Cells read blank, not surely, whose ink is the person's pen (:func:`kinds.in_entry_ink`) and whose digit the
    readers leave the solution's a fair chance (``WRITING.doubt``), as tall as the page's entries
    (``WRITING.seen_entry``): entries
    of the solution's digit.

    In a dim room a red pen's faint strokes drown in the noise, and the kind model half sees them (P(blank)
    0.4-0.9); the colour still tells the person's ink, and the solution which digit it must be. Such an entry
    is the solution's digit by construction: it is never called a mistake. Without the colour (the kind model's
    digit alone), the pencil marks and smudges of 17 train pen-and-pencil photo-conditions became entries.
    """
    if second.inks is None or not sure_of_writing(kinds):
        return []
    pen = in_entry_ink(kinds.probs, second.inks)
    cells = [i for i, ch in enumerate(kinds.cells) if ch == "." and pen[i] and kinds.probs[i, 0] < WRITING.unseen_blank
             and is_empty(givens[i]) and i not in unreadable]
    if not cells:
        return []
    odds = second.digits(cells)
    fair = [i for k, i in enumerate(cells) if _chance(kinds, i, int(solution[i]) - 1, odds[k]) >= WRITING.doubt]
    return second.page_sized(kinds, fair, WRITING.seen_entry)


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
    solution's digit a fair chance (``WRITING.doubt``) is taken as that digit rather
    than flagged; one that is not plainly handwriting, that either reader alone
    is unsure of (``_sure_mistake``), that is no taller than the page's
    pencil marks (``WRITING.small_entry`` of its entries), or that is seen in a blurred
    or noisy picture (``EntryOpinion.poor_picture``) unless both readers name its digit and are far surer
    (``WRITING.poor_sure``), is a doubt: "looks like", not wrong.
    ``unreadable`` cells (glare) are ``?``: neither blank nor written.

    Size settles entry against pencil mark, but only against the page's own sure
    entries (:meth:`EntryOpinion.entry_height`): one person writes small, another
    pencils large. A digit that the gate would drop, or a single small digit read
    as candidates, is an entry when it is the solution's digit and nearly as tall
    as the page's entries (``WRITING.seen_entry``, ``WRITING.lone_entry``), and so is a "pencil mark" of several pieces
    that the entry model reads whole as the solution's digit (``WRITING.broken_entry``), or a page's only "pencil mark"
    that the kind model gives fair entry odds and the readers the solution's digit a chance (``WRITING.alone_entry``;
    it is never called a mistake: it is the solution's digit); on a page with pencil
    marks, an unsure entry well below their size is candidates (``WRITING.small_entry``).
    """
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    seen = _seen_entries(givens, kinds, printed, p_entry, solution, second)
    letters = "".join("." if ch == "e" and not seen[i] else ch for i, ch in enumerate(kinds.cells))
    read = kinds.digits.copy()
    if solution and second is not None:
        for i in _unseen_pen(givens, kinds, second, solution, unreadable):
            letters, read[i] = letters[:i] + "e" + letters[i + 1:], int(solution[i])
    read[list(unreadable)] = 0
    doubts = _doubted(givens, kinds, read, solution, second) if solution else []
    digits = "".join(str(d) if d else "." for d in read)
    w = from_kinds(givens, letters, digits)
    if unreadable:
        w = Written("".join("?" if i in unreadable else ch for i, ch in enumerate(w.cells)), w.entries)
    w = replace(w, doubts=tuple(doubts))
    if second is None:
        return w
    return _pencil_or_pen(w, kinds, second, solution, p_entry, doubts)


def _seen_entries(givens: str, kinds: CellKinds, printed: Reading, p_entry: np.ndarray, solution: str | None,
                  second: EntryOpinion | None) -> np.ndarray:
    """(81,) bool: the cells whose entry :func:`written_part` keeps: a blob the digit model's cutter saw, a
    confident reading, the entries' own ink, or a faint or thin entry of the solution's digit as tall as the
    page's entries."""
    seen = (printed.probs[:, 0] < 0.5) | (p_entry >= 0.9)
    if kinds.ink is not None:
        seen |= (kinds.ink > 0) & (p_entry >= 0.5)
    if not solution or second is None:
        return seen
    faint = [i for i, ch in enumerate(kinds.cells) if ch == "e" and not seen[i] and is_empty(givens[i])]
    if faint and sure_of_writing(kinds):
        # on a written-on page, the entry model's reading counts too: blurred, small or off a screen, the
        # kind model still sees a handwritten digit but misreads which (a 3 taken for a 2). The two readers
        # leaving the solution's digit a fair chance (WRITING.doubt, as below) is enough: it is read as that digit.
        # Where both name the solution's digit, a shorter blob (a 5 whose bar stands apart) is enough too
        # (``WRITING.agreed_entry``)
        entry_odds = second.digits(faint)
        agreed = [i for k, i in enumerate(faint)
                  if int(kinds.digits[i]) == int(solution[i]) == int(entry_odds[k].argmax()) + 1]
        seen[second.page_sized(kinds, agreed, WRITING.agreed_entry)] = True
        faint = [i for k, i in enumerate(faint) if _chance(kinds, i, int(solution[i]) - 1, entry_odds[k])
                 >= WRITING.doubt]
    else:
        faint = [i for i in faint if int(kinds.digits[i]) == int(solution[i])]
    seen[second.page_sized(kinds, faint, WRITING.seen_entry)] = True
    return seen


def _doubted(givens: str, kinds: CellKinds, read: np.ndarray, solution: str,
             second: EntryOpinion | None) -> list[tuple[int, str]]:
    """The entries that disagree with the solution but are not surely mistakes: each a doubt ("looks like": the
    cell and the digit it looks like), its digit in ``read`` (changed in place) set to the solution's, as is an
    entry whose readers leave the solution's digit a fair chance. The rest stay, as mistakes."""
    doubts: list[tuple[int, str]] = []
    odd = [int(i) for i in np.flatnonzero(read) if int(read[i]) != int(solution[i])]
    other = second.digits(odd) if odd and second is not None else None
    written = kinds.probs[:, 1:19].sum(axis=1)  # a digit was written there at all (entry, or misread as print)
    for k, i in enumerate(odd):
        right = int(solution[i]) - 1
        if written[i] < WRITING.sure_written:  # perhaps large pencil marks, not an entry: no mistake claimed
            read[i] = right + 1
            continue
        if _chance(kinds, i, right, None if other is None else other[k]) >= WRITING.doubt:
            read[i] = right + 1
        elif not _sure_mistake(kinds, i, int(read[i]) - 1, right, None if other is None else other[k],
                               _printed_near(givens, i, int(read[i]))):
            doubts.append((i, str(int(read[i]))))
            read[i] = right + 1
    claimed = [i for i in odd if int(read[i]) != int(solution[i]) and written[i] >= WRITING.sure_written]
    if claimed and second is not None and second.poor_picture():  # blur or noise: doubts, but for the surest
        assert other is not None  # claimed cells are odd ones, read by the entry model above
        surest = _surest(kinds, claimed, read, solution, dict(zip(odd, other)))
        for i in claimed:
            if i not in surest:
                doubts.append((i, str(int(read[i]))))
                read[i] = int(solution[i])
        claimed = surest
    if claimed and second is not None and second.entry_height(kinds) > 0:
        # a pencilled candidate looks like a pen entry in a poor picture (moiré, noise), but stays small
        for i, r in zip(claimed, second.relative_heights(kinds, claimed)):
            if r < WRITING.small_entry:
                doubts.append((i, str(int(read[i]))))
                read[i] = int(solution[i])
    return doubts


def _surest(kinds: CellKinds, claimed: list[int], read: np.ndarray, solution: str,
            entry_odds: dict[int, np.ndarray]) -> list[int]:
    """The claimed mistakes a poor picture still leaves mistakes: both readers (the entry model's odds of each cell,
    ``entry_odds``, as read for the claim) name the same digit, and their odds of the solution's digit against it,
    together (the geometric mean), are below ``WRITING.poor_sure``."""
    out = []
    for i in claimed:
        said, right, other = int(read[i]) - 1, int(solution[i]) - 1, entry_odds[i]
        if int(other.argmax()) == said and np.sqrt(np.prod(_odds_of_right(kinds, i, said, right, other))) \
                < WRITING.poor_sure:
            out.append(i)
    return out


def _pencil_or_pen(w: Written, kinds: CellKinds, second: EntryOpinion, solution: str | None, p_entry: np.ndarray,
                   doubts: list[tuple[int, str]]) -> Written:
    """``w`` with its pencil marks read (their candidates), a mark that is an entry written small made an entry,
    and an unsure entry as small as the page's marks made candidates."""
    marked = [i for i, ch in enumerate(w.cells) if ch == "c"]
    pencilled = dict(zip(marked, second.candidates(marked)))
    cells, entries = list(w.cells), list(w.entries)
    if solution:  # one digit written small, of the solution and as tall as the page's entries: an entry
        for i in _written_small(kinds, second, solution, p_entry, marked):
            cells[i], entries[i], pencilled[i] = "e", solution[i], ""
        for i in _pen_marks(kinds, second, solution, [i for i in marked if cells[i] == "c"]):
            cells[i], entries[i], pencilled[i] = "e", solution[i], ""
    if "c" in cells:  # a page with pencil marks: an unsure entry well below the page's entries' size is one more
        unsure = [i for i, ch in enumerate(cells) if ch == "e" and kinds.kinds[i] == ENTRY and p_entry[i] < 0.9]
        small = [i for i, r in zip(unsure, second.relative_heights(kinds, unsure)) if 0 < r < WRITING.small_entry]
        for i, ds in zip(small, second.candidates(small)):
            cells[i], entries[i], pencilled[i] = "c", ".", ds
    if "e" not in cells and not any(pencilled.get(i) for i, ch in enumerate(cells) if ch == "c"):
        # nothing written on the page that can be read: a "pencil mark" with no digit in it is a speck or a
        # stain on a printed page, not the start of a solve
        cells = ["." if ch == "c" else ch for ch in cells]
    return Written("".join(cells), "".join(entries), tuple(pencilled.get(i, "") for i in range(81)),
                   tuple((i, d) for i, d in doubts if cells[i] == "e"))


def _written_small(kinds: CellKinds, second: EntryOpinion, solution: str, p_entry: np.ndarray,
                   marked: list[int]) -> list[int]:
    """The "pencil marks" that are one entry written small: a single small digit of the solution, one of several
    pieces the entry model reads whole as the solution's digit, or a page's only mark of fair entry odds; each
    as tall as the page's entries."""
    lone = [i for i in marked if i in second.lone and int(second.lone[i].argmax()) + 1 == int(solution[i])]
    rest = [i for i in marked if i not in lone]
    if rest:
        whole = second.digits(rest)
        lone += [i for k, i in enumerate(rest)
                 if int(whole[k].argmax()) + 1 == int(solution[i]) and whole[k].max() >= WRITING.broken_entry]
        if len(marked) == 1:  # the page's one "pencil mark": a shaken thin entry (a 1) the kind model doubts
            lone += [i for k, i in enumerate(rest) if i not in lone and p_entry[i] >= WRITING.alone_entry
                     and _chance(kinds, i, int(solution[i]) - 1, whole[k]) >= WRITING.doubt]
    return list(second.page_sized(kinds, lone, WRITING.lone_entry))
