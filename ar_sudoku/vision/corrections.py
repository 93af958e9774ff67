"""A reading set right by the two readers together, the rules, and the person's own sure entries.

Each function takes a reading or a board and gives back one (never changes it): fuse the two models, mend a
printed page the digit model reads against the rules, settle several solutions by the sure entries, set a
misread given right by them, and withhold a solution most of them disagree with.
"""


from __future__ import annotations

import itertools
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace

import numpy as np

from ar_sudoku.sudoku.rules import (
    SEVERAL,
    BoardResult,
    Reading,
    solution_givens,
)
from ar_sudoku.sudoku.solver import count_solutions, parse_line, validate
from ar_sudoku.sudoku.steps import PEERS
from ar_sudoku.sudoku.vocabulary import Status, is_empty
from ar_sudoku.sudoku.written import NAMES, settle
from ar_sudoku.vision.doubts import (
    blanked,
)
from ar_sudoku.vision.kinds import (
    ENTRY,
    GIVEN,
    KINDS,
    CellKinds,
    written_on,
)
from ar_sudoku.vision.writing import sure_entries, sure_written


@dataclass(frozen=True)
class CorrectionsConfig:
    """This stage's tuning: each field with the reason for its value."""

    # the kind model's least odds of print for a doubtful "entry" the print alone makes a given
    print_alone: float = 0.25
    # the person's sure entries that, against a solution, make its givens suspect (and a tenth)
    against_entries: int = 3
    given_odds: float = 0.02  # the least odds either reader gives a misread given's true digit
    # the share of the person's sure entries against a solution that makes it another puzzle's ...
    disowned: float = 0.5
    min_disowned: int = 6  # ... when at least this many are against it


CORRECTIONS = CorrectionsConfig()


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


def sound(result: BoardResult) -> bool:
    """Solved, one way only."""
    return result.status == Status.SOLVED and SEVERAL not in (result.message or "")


def print_alone_solves(all_print: BoardResult, result: BoardResult, kinds: CellKinds) -> bool:
    """Whether the page read as print alone, mended by the rules, is the puzzle ``result`` makes, and every cell
    it makes a given that ``result`` does not is one the kind model gives ``CORRECTIONS.print_alone`` odds of print:
    then those doubtful "entries" are its print (a dim room's printed 7 taken for handwriting beside a misread
    given). A person's sure entry, or a blank the rules filled, is not made print so (pen-and-pencil
    pages barely started: their right entries would no longer be the person's)."""
    if all_print.status != Status.SOLVED or not sound(result) or result.solution != all_print.solution:
        return False
    made = [i for i, (a, b) in enumerate(zip(all_print.givens or "", result.givens or "")) if a != b and is_empty(b)]
    return all(float(kinds.probs[i, 1:10].sum()) >= CORRECTIONS.print_alone for i in made)


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


def hidden_open(unreadable: tuple[int, ...]) -> str:
    """Why a glared puzzle has no one solution: the cells it hides."""
    return (f"{', '.join(NAMES[i] for i in unreadable)} unreadable (glare?); "
            "the cells that can be read leave several solutions")


def settled(result: BoardResult, kinds: CellKinds, sure: float = 0.9, unreadable: tuple[int, ...] = (),
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
    why = (hidden_open(unreadable) if unreadable
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
    that agrees with nearly all of them (as :func:`settled` asks), giving the cell a digit its readers
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
    if len(sure) < 2 * CORRECTIONS.against_entries:
        return result

    tries = _suspects(result, kinds, printed, sure, skip, timeout)
    fix = _one_fix(givens, tries, kinds, printed, sure, timeout) if tries else None
    if fix is None:
        return result
    cells, other = fix
    note = ", ".join(f"{NAMES[i]}: {givens[i]}->{other[i]}" for i in cells)
    fixed = "".join(other[i] if i in cells else g for i, g in enumerate(givens))
    return replace(result, status=Status.SOLVED, givens=fixed, solution=other,
                   corrected=result.corrected + tuple(note.split(", ")),
                   message="; ".join(filter(None, [result.message if result.status == Status.SOLVED else "",
                                                   "corrected by your entries: " + note])))


def _suspects(result: BoardResult, kinds: CellKinds, printed: Reading, sure: list[int], skip: Collection[int],
              timeout: float) -> list[tuple[int, ...]] | None:
    """The givens :func:`entries_against` leaves out in turn, in the order tried (one given, or two that between
    them end every clash); None when the person's entries give no cause to doubt the givens."""
    givens = result.givens or ""

    def order(cells: Iterable[int]) -> list[int]:  # the least sure given first, the user's own never
        return sorted(set(cells) - set(skip), key=lambda i: float(printed.confidence[i]))

    if result.status == Status.INVALID:  # givens clash: one or two of them are misread
        clashes = validate(parse_line(givens))
        suspects = order(i for c in clashes for i in (c.a, c.b))
        return [(i,) for i in suspects] + [
            pair for pair in itertools.combinations(suspects, 2)
            if all(c.a in pair or c.b in pair for c in clashes)]
    if result.status == Status.SOLVED and result.message != SEVERAL and result.solution:
        against = [i for i in sure if result.solution[i] != str(kinds.digits[i])]
        if len(against) < max(CORRECTIONS.against_entries, len(sure) // 10):
            return None
        return [(i,) for i in order(i for i, g in enumerate(givens) if not is_empty(g))]
    if result.status == Status.UNSOLVABLE and _no_solution(givens, timeout):
        # givens with no solution: one is misread, the likeliest the one most sure entries clash with
        clash = _entry_clashes(givens, kinds, sure)
        return [(i,) for i in sorted(order(i for i, g in enumerate(givens) if not is_empty(g)),
                                     key=lambda i: -clash[i])]
    return None


def _one_fix(givens: str, tries: list[tuple[int, ...]], kinds: CellKinds, printed: Reading, sure: list[int],
             timeout: float) -> tuple[tuple[int, ...], str] | None:
    """The one change of ``tries`` whose puzzle the sure entries settle and nearly all agree with, each changed
    given a digit its readers see some of; None when none does, when two do, or when time runs out."""
    entries = [(i, str(kinds.digits[i])) for i in sure]
    deadline = time.perf_counter() + timeout
    fixes: list[tuple[tuple[int, ...], str]] = []
    for cells in tries:
        if fixes and len(cells) > len(fixes[0][0]):  # a single given's change is taken before two
            break
        if time.perf_counter() > deadline:
            return None
        found = settle(blanked(givens, list(cells)), entries,
                       timeout=min(0.3, max(0.01, deadline - time.perf_counter())))
        if found is None:
            continue
        other = found[0]
        if any(other[i] == givens[i] for i in cells) or sum(
                other[k] != str(kinds.digits[k]) for k in sure) > max(2, len(sure) // 10):
            continue
        if any(max(float(printed.probs[i, d]), float(kinds.probs[i, d]), float(kinds.probs[i, 9 + d]))
               < CORRECTIONS.given_odds
               and not _guessed(i, printed, kinds) for i, d in ((i, int(other[i])) for i in cells)):
            continue
        fixes.append((cells, other))
        if len(fixes) > 1:
            return None
    return fixes[0] if fixes else None


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
    if against < max(CORRECTIONS.min_disowned, CORRECTIONS.disowned * len(sure)):
        return result
    return replace(result, status=Status.UNSOLVABLE, solution=None,
                   message=f"the solution disagrees with {against} of your {len(sure)} entries: the printed "
                           "givens are probably misread; nothing is drawn")
