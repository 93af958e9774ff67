"""The live session's state machine is its table: every row walked, the docstring the table, one assignment."""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import EASY, EASY_SOLUTION

from ar_sudoku.ar import machine, session
from ar_sudoku.ar.machine import ROWS, STATES, TABLE, Action, Event, State
from ar_sudoku.ar.session import ARSession, SessionConfig
from ar_sudoku.ar.solve_worker import SolveWorker
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.synth import background, page, place, quad

ROW_PAIRS = [(source, row.event) for row in ROWS for source in row.sources]


@pytest.fixture(scope="module")
def worker():
    with SolveWorker() as w:
        yield w


@pytest.fixture
def fresh(reader, worker):
    with ARSession(reader, worker) as s:
        yield s


def _ids(pair):
    return f"{pair[0].value}-{pair[1].name.lower()}"


@pytest.mark.parametrize("pair", ROW_PAIRS, ids=[_ids(p) for p in ROW_PAIRS])
def test_every_row_of_the_table_moves_the_session_and_runs_its_action(fresh, pair):
    source, event = pair
    target, action = TABLE[pair]
    s = fresh
    s.state = source  # the test puts the session in the row's state; the session itself never does this
    s.board.givens, s.board.votes = EASY, ["a vote"]
    s.board.since_read = 1
    taken = []
    s._take_entries = lambda: taken.append(True)  # noqa: B023 - the spy for TAKE_ENTRIES
    result = BoardResult(Status.SOLVED, givens=EASY, solution=EASY_SOLUTION)
    s._fire(event, result)
    assert s.state is target
    forgotten = s.board.givens is None and s.board.votes == []
    assert forgotten == (action in (Action.FORGET, Action.LOSE, Action.SET_ASIDE))  # LOSE: a board that was read
    assert (s._aside == ["a vote"]) == (action is Action.SET_ASIDE)  # set aside for a reading that agrees
    assert (s.board.result is result) == (action is Action.SETTLE)
    assert bool(taken) == (action is Action.TAKE_ENTRIES)
    assert (s.board.since_read == s.cfg.recheck_every - 2) == (action is Action.RECHECK_SOON)


def test_losing_a_board_not_yet_read_keeps_its_votes_for_its_return(fresh):
    fresh.state = State.READING
    fresh.board.votes = ["a vote"]
    fresh._fire(Event.LOST)
    assert fresh.state is State.SEARCHING and fresh.board.votes == ["a vote"]


def test_an_event_without_a_row_is_an_error_not_a_silent_no_op(fresh):
    missing = [(s, e) for s in STATES for e in Event if (s, e) not in TABLE]
    assert (State.SOLVED, Event.FOUND) in missing and (State.SEARCHING, Event.SUBMITTED) in missing
    fresh.state = State.SOLVED
    with pytest.raises(KeyError):
        fresh._fire(Event.FOUND)


def test_the_docstring_shows_the_table_the_code_uses():
    doc = " ".join(session.__doc__.split())
    assert " ".join(machine.table_text().split()) in doc
    for row in ROWS:  # and every row says where it goes
        assert row.event.value in doc and row.target.value in doc


def test_the_transitions_that_were_missing_from_the_old_docstring_are_rows():
    assert TABLE[State.SOLVED, Event.CORRECTED] == (State.SOLVING, Action.NONE)  # a user's correction
    assert TABLE[State.READING, Event.CACHED_SOLVED] == (State.SOLVED, Action.SETTLE)  # a cache hit in _submit


def test_the_state_is_assigned_in_one_place():
    """Only ``_fire`` assigns ``self.state`` (the class default is the start state)."""
    tree = ast.parse(Path(session.__file__).read_text(encoding="utf-8"))
    where = [f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for node in ast.walk(f)
             if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
             for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
             for sub in ast.walk(t) if isinstance(sub, ast.Attribute) and sub.attr == "state"]
    assert where == ["_fire"]


def test_no_function_of_the_session_or_its_parts_is_over_fifty_lines():
    for module in ("session", "locator", "ledger", "machine"):
        path = Path(session.__file__).with_name(f"{module}.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        long = [f"{f.name}: {f.end_lineno - f.lineno + 1}" for f in ast.walk(tree)
                if isinstance(f, ast.FunctionDef) and f.end_lineno - f.lineno + 1 > 50]
        assert not long, f"{module}: {long}"


def _frame(puzzle: str) -> np.ndarray:
    return place(*page(puzzle, seed=1), quad((480, 270), 380, 0, 0.0), background((960, 540), 3), 0.6)


def test_a_correction_on_a_solved_board_solves_it_again_and_a_known_board_comes_back_solved(reader):
    """On real frames: solved -> solving on a user's correction; lost and found again, the cached
    solution takes the board straight from reading to solved, with no solve in between."""
    frame, empty = _frame(EASY), background((960, 540), 3)
    states = []
    with ARSession(reader, config=SessionConfig(solve_lag=1)) as s:
        fired = s._fire

        def spy(event, result=None):
            before = s.state
            fired(event, result)
            states.append((before, event, s.state))

        s._fire = spy
        results = [s.step(frame) for _ in range(8)]
        assert results[-1].status == "solved" and results[-1].solution == EASY_SOLUTION
        blank = EASY.index(".")
        s.set_override(blank, int(EASY_SOLUTION[blank]))
        assert states[-1] == (State.SOLVED, Event.CORRECTED, State.SOLVING)
        s.clear_overrides()
        for _ in range(3):
            s.step(empty)
        states.clear()
        back = [s.step(frame) for _ in range(8)]
    assert back[-1].solution == EASY_SOLUTION
    events = [e for _, e, _ in states]
    assert Event.CACHED_SOLVED in events and Event.SUBMITTED not in events and Event.SOLVED not in events
    assert all(to is not State.SOLVING for _, _, to in states)
    assert re.fullmatch(r"[1-9]{81}", back[-1].solution)


def _reading_of(givens: str) -> session.Reading:
    """A sure reading of ``givens`` (blank where '.')."""
    digits = np.array([0 if ch == "." else int(ch) for ch in givens])
    probs = np.zeros((81, 10))
    probs[np.arange(81), digits] = 1.0
    return session.Reading(digits, np.ones(81), probs)


def _solved_rereading(s: ARSession, seen: str) -> None:
    """The session solved on EASY, then its periodic re-read sees ``seen``."""
    s.state = State.SOLVED
    s.board.givens = EASY
    s.board.result = BoardResult(Status.SOLVED, givens=EASY, solution=EASY_SOLUTION)
    s.board.since_read = s.cfg.recheck_every
    corners = np.float32([[0, 0], [100, 0], [100, 100], [0, 100]])
    s._read = lambda c: (c, _reading_of(seen))  # the re-read, as the camera gave it
    s._recheck(corners)


def test_a_re_read_that_sees_only_some_of_the_givens_keeps_the_solution_and_takes_no_entries(fresh):
    taken = []
    fresh._take_entries = lambda: taken.append(True)
    washed = "".join(ch if i % 9 < 2 else "." for i, ch in enumerate(EASY))  # a glare hides most of the page
    _solved_rereading(fresh, washed)
    assert fresh.state is State.SOLVED and fresh.board.result.solution == EASY_SOLUTION
    assert not taken  # a reading that saw so little is not trusted with the person's entries
    _solved_rereading(fresh, "." * 81)  # nothing readable at all: nothing contradicts the puzzle either
    assert fresh.state is State.SOLVED and not taken


def test_a_re_read_with_givens_that_contradict_the_puzzle_stops_the_drawing(fresh, reader, worker):
    other = "." * 81
    for i in range(0, 81, 7):  # digits where the puzzle has none, or other digits: another puzzle
        other = other[:i] + str(int(EASY[i]) % 9 + 1 if EASY[i] != "." else 4) + other[i + 1 :]
    _solved_rereading(fresh, other)
    assert fresh.state is State.READING and fresh.board.result is None
    with ARSession(reader, worker) as s:
        few = "".join(str(int(ch) % 9 + 1) if ch != "." and i < 20 else "." for i, ch in enumerate(EASY))
        _solved_rereading(s, few)  # eight contradicting givens, the rest unseen: suspect, drawn no more
        assert s.state is State.SUSPECT and s.marks() is None


def test_what_a_frame_reports_written_on_the_paper_follows_the_ledger_and_is_made_once_while_it_stays():
    from ar_sudoku.ar.ledger import EntryLedger

    givens = "1" + "." * 80
    ledger = EntryLedger()
    blank = ledger.on_paper(givens)
    assert blank.cells == "g" + "." * 80 and blank.entries == "." * 81
    assert ledger.on_paper(givens) is blank  # nothing changed: the same report
    entries = ".5" + "." * 79
    ledger.take(givens, entries, ())
    assert ledger.on_paper(givens) == blank  # seen once: not yet confirmed
    ledger.take(givens, entries, ((1, "6"),))
    now = ledger.on_paper(givens)
    assert now.cells == "ge" + "." * 79 and now.entries == entries and now.doubts == ((1, "6"),)
    ledger.take(givens, "." * 81, ())
    ledger.take(givens, "." * 81, ())  # rubbed out: blank in two readings running
    assert ledger.on_paper(givens) == blank
    assert ledger.on_paper("2" + "." * 80).cells == "g" + "." * 80  # another puzzle's givens


@pytest.mark.parametrize("lag", [1, 2, 3])
def test_in_lockstep_a_solve_is_taken_exactly_lag_frames_after_it_was_submitted(reader, lag):
    """However fast the solver (it has long finished: the test sleeps before every frame), its answer is taken
    on the ``lag``-th frame after the submission, never sooner: sooner would be the machine's load speaking."""
    frame = _frame(EASY)
    with ARSession(reader, config=SessionConfig(solve_lag=lag)) as s:
        submitted = solved = None
        for k in range(12):
            time.sleep(0.05)
            res = s.step(frame)
            if submitted is None and s.board.handle is not None:
                submitted = k
            if res.status == "solved":
                solved = k
                break
    assert submitted is not None and solved == submitted + lag, (submitted, solved)
