"""The live session's state machine as data: ``(state, event) -> (state, action)``.

``ROWS`` is the whole table; ``TABLE`` is the same rows looked up by state and
event. :class:`~ar_sudoku.ar.session.ARSession` changes its state in one
method, by looking the event up here, and then runs the row's action. An
event that has no row for the current state is a bug (a ``KeyError``), not a
silent no-op. ``table_text()`` renders the rows as the session's docstring
shows them; a test checks that the two agree, and another walks every row.
"""

from __future__ import annotations

from dataclasses import dataclass

from ar_sudoku.sudoku.vocabulary import Status, StrEnum

State = Status  # the live states are statuses: the JSON, the web page and the photo path share the words
STATES = (State.SEARCHING, State.READING, State.SOLVING, State.UNSOLVABLE, State.SOLVED, State.SUSPECT)


class Event(StrEnum):
    """What happened on a frame (or to the user's corrections) that can move the session."""

    FOUND = "board found"
    LOST = "board lost"
    SLIPPED = "tracking slipped, or another grid"
    RESIZED = "the frame size changed"
    STILL = "a still photo"
    SUBMITTED = "a new vote to the solver"
    CORRECTED = "a user's correction to the solver"
    CACHED_SOLVED = "cache hit: solved"
    CACHED_UNSOLVABLE = "cache hit: no solution"
    SOLVED = "solver: solved"
    UNSOLVABLE = "solver: no solution"
    AGREES = "re-read agrees"
    PARTLY = "re-read sees part of the givens"
    DIFFERS = "re-read differs"
    DIFFERS_MUCH = "re-read differs twice over"


class Action(StrEnum):
    """What the session does on a transition, besides changing its state."""

    NONE = "-"
    FORGET = "forget the board's reading"
    SET_ASIDE = "read afresh; set the votes aside"
    LOSE = "stop tracking; forget a read board"
    SETTLE = "keep the result"
    TAKE_ENTRIES = "take the person's entries"
    RECHECK_SOON = "stop drawing; re-read soon"


ANY = STATES


@dataclass(frozen=True)
class Row:
    """From any of ``sources``, ``event`` leads to ``target`` with ``action``."""

    sources: tuple[State, ...]
    event: Event
    target: State
    action: Action


_IN_VIEW = (State.READING, State.SOLVING, State.UNSOLVABLE, State.SOLVED, State.SUSPECT)  # any but searching
_VOTING = (State.READING, State.SOLVING, State.UNSOLVABLE)
_SETTLED = (State.SOLVED, State.SUSPECT)

_TABLE: tuple[tuple[tuple[State, ...], Event, State, Action], ...] = (
    ((State.SEARCHING,), Event.FOUND, State.READING, Action.NONE),
    (_IN_VIEW, Event.LOST, State.SEARCHING, Action.LOSE),
    # the vote (every steady frame in these states) reads differently from the last one submitted
    (_VOTING, Event.SUBMITTED, State.SOLVING, Action.NONE),
    # a correction is solved again in any state, even with the board out of view (its votes are kept)
    (ANY, Event.CORRECTED, State.SOLVING, Action.NONE),
    # a vote or a correction already solved: straight to its outcome, no worker
    (ANY, Event.CACHED_SOLVED, State.SOLVED, Action.SETTLE),
    (ANY, Event.CACHED_UNSOLVABLE, State.UNSOLVABLE, Action.SETTLE),
    # the worker's answer (or a still's reading), in whatever state it finds the session
    (ANY, Event.SOLVED, State.SOLVED, Action.SETTLE),
    (ANY, Event.UNSOLVABLE, State.UNSOLVABLE, Action.SETTLE),
    # the periodic re-read of a solved board
    (_SETTLED, Event.AGREES, State.SOLVED, Action.TAKE_ENTRIES),
    # glare, a dim corner or faint print hid some givens, none contradicts: keep the solution, take no entries
    ((State.SOLVED,), Event.PARTLY, State.SOLVED, Action.NONE),
    ((State.SUSPECT,), Event.PARTLY, State.SUSPECT, Action.RECHECK_SOON),
    ((State.SOLVED,), Event.DIFFERS, State.SUSPECT, Action.RECHECK_SOON),
    ((State.SUSPECT,), Event.DIFFERS, State.READING, Action.FORGET),
    (_SETTLED, Event.DIFFERS_MUCH, State.READING, Action.FORGET),
    # a new board in view: read it afresh (the cache makes a known one instant)
    # ... unless its votes are being gathered: a page sliding in faster than the flow follows slips until it rests
    ((State.READING, State.SOLVING), Event.SLIPPED, State.READING, Action.SET_ASIDE),
    ((State.SEARCHING, State.SOLVED, State.SUSPECT, State.UNSOLVABLE), Event.SLIPPED, State.READING, Action.FORGET),
    (ANY, Event.RESIZED, State.SEARCHING, Action.FORGET),
    (ANY, Event.STILL, State.SEARCHING, Action.FORGET),
)
ROWS = tuple(Row(sources=s, event=e, target=t, action=a) for s, e, t, a in _TABLE)


def _index(rows: tuple[Row, ...]) -> dict[tuple[State, Event], tuple[State, Action]]:
    table: dict[tuple[State, Event], tuple[State, Action]] = {}
    for row in rows:
        for source in row.sources:
            if (source, row.event) in table:
                raise ValueError(f"two rows for {source} on {row.event}")
            table[source, row.event] = (row.target, row.action)
    return table


TABLE = _index(ROWS)


def _sources(row: Row) -> str:
    if row.sources == ANY:
        return "any"
    if set(ANY) - set(row.sources) == {State.SEARCHING}:
        return "any but searching"
    return ", ".join(s.value for s in row.sources)


def table_text() -> str:
    """The rows as the session's docstring shows them, one line each."""
    lines = [f"{'state':<28}  {'event':<34}  {'next':<10}  action", f"{'-' * 28}  {'-' * 34}  {'-' * 10}  {'-' * 34}"]
    lines += [f"{_sources(r):<28}  {r.event.value:<34}  {r.target.value:<10}  {r.action.value}" for r in ROWS]
    return "\n".join(lines)
