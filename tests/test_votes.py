"""A board that slips while its votes are gathered gets them back from a reading of the same page (``ar.votes``).

A page sliding in faster than the flow follows is detected away from its track on every frame until it rests;
each slip read the page afresh, so it locked only once it stopped (the scoreboard's cut: four frames, not two).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EASY, HARDEST

from ar_sudoku.ar.machine import Event, State
from ar_sudoku.ar.session import ARSession
from ar_sudoku.ar.solve_worker import SolveWorker
from ar_sudoku.ar.votes import agrees
from ar_sudoku.sudoku.rules import Reading


def reading(givens: str, sure: float = 0.97) -> Reading:
    digits = np.array([0 if ch == "." else int(ch) for ch in givens])
    probs = np.full((81, 10), (1 - sure) / 9)
    probs[np.arange(81), digits] = sure
    return Reading(digits, probs.max(axis=1), probs)


def with_cell(givens: str, i: int, ch: str) -> str:
    return givens[:i] + ch + givens[i + 1:]


def test_a_reading_of_the_same_page_agrees_with_its_votes_and_another_puzzles_does_not():
    votes = [reading(EASY), reading(EASY)]
    assert agrees(votes, reading(EASY))
    assert agrees(votes, reading(with_cell(EASY, 0, ".")))  # a given one frame's blur took for blank
    assert not agrees(votes, reading(HARDEST))
    assert not agrees([], reading(EASY))
    few = "".join(ch if i < 30 else "." for i, ch in enumerate(EASY))  # 12 digits: too few to tell a page by
    assert not agrees([reading(few)], reading(few))


@pytest.fixture
def session(reader):
    with SolveWorker() as worker, ARSession(reader, worker) as s:
        yield s


def _slip_then_read(s: ARSession, givens: str) -> int:
    """One vote of EASY, a slip, then a reading of ``givens``: the votes the board then holds."""
    s.state = State.READING  # the session's own way there is a video; the table test walks every row
    s.board.oriented, s.board.votes = True, [reading(EASY)]
    s._fire(Event.SLIPPED)
    corners = np.float32([[0, 0], [90, 0], [90, 90], [0, 90]])

    def read(c: np.ndarray) -> tuple[np.ndarray, Reading]:
        s.board.oriented = True  # the page read the right way up, as ``_read`` finds it
        return c, reading(givens)

    s._read = read  # type: ignore[method-assign]
    s._vote(corners)
    return len(s.board.votes)


def test_a_board_that_slips_while_its_votes_are_gathered_gets_them_back_from_a_reading_that_agrees(session):
    assert _slip_then_read(session, EASY) == 2  # its votes back: their mean goes to the solver on this frame
    assert session.state is State.SOLVING


def test_another_puzzle_in_view_after_a_slip_is_read_afresh(session):
    assert _slip_then_read(session, HARDEST) == 1  # the other page's votes are not this one's
    assert session.state is State.SOLVING and session.board.givens == HARDEST  # solved on its own reading


def test_a_still_page_is_solved_on_its_first_reading_and_a_moving_one_on_its_second(session):
    """One reading of a page at rest goes to the solver at once (the lock a frame sooner); a moving page's first
    reading (a pan's streak, a corner a little off) waits for a second to be averaged with."""
    corners = np.float32([[0, 0], [90, 0], [90, 90], [0, 90]])

    def read(c: np.ndarray) -> tuple[np.ndarray, Reading]:
        session.board.oriented = True
        return c, reading(EASY)

    session._read = read  # type: ignore[method-assign]
    session.state = State.READING
    session.locator.speed = 0.1  # a tenth of its side a frame: moving
    session._vote(corners)
    assert session.state is State.READING and len(session.board.votes) == 1
    session._vote(corners)
    assert session.state is State.SOLVING

    session._fire(Event.SLIPPED)  # another board: read afresh
    session.board.votes, session._aside = [], []
    session.locator.speed = 0.0
    session._vote(corners)
    assert session.state is State.SOLVING and len(session.board.votes) == 1
