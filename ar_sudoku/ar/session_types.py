"""What a live session keeps and gives: each frame's result, its tuning, and what it has read of the board in view.

Data only, apart from :mod:`ar_sudoku.ar.session` (which re-exports ``FrameResult`` and ``SessionConfig``), so
that the session's module holds its behaviour alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ar_sudoku.ar.killer_live import KillerSight
from ar_sudoku.ar.marks import Marks
from ar_sudoku.ar.solve_worker import SolveHandle
from ar_sudoku.ar.witness import PageWitness
from ar_sudoku.sudoku.killer import Cage
from ar_sudoku.sudoku.rules import BoardResult, Reading
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.sudoku.written import Written
from ar_sudoku.vision.kinds import CellKinds
from ar_sudoku.vision.writing import EntryOpinion


@dataclass(frozen=True, kw_only=True)
class FrameResult:
    """What one frame showed: feeds the overlay, the status display and the JSONL log alike
    (its JSON: ``io.records.frame_json``)."""

    frame: int
    status: Status  # one of the live states
    corners: np.ndarray | None
    givens: str | None
    solution: str | None  # the solution drawn on this frame, or None
    t_ms: float
    timings: dict[str, float] = field(default_factory=dict)
    message: str = ""
    marks: Marks | None = None  # what the display mode draws on this frame (None: nothing)
    lattice: np.ndarray | None = None  # a curled page's 10x10 crossings (None: flat, from the corners)
    written: Written | None = None  # what the person has written, when the cells' kinds are read
    puzzle: int | None = None  # the puzzle's track on a page (``ar.page``), stable while it stays in view
    puzzles: tuple[FrameResult, ...] = ()  # a page's frame: every puzzle in view, in reading order; this
    # result's own fields are the first one's (or nothing found), so a reader of one puzzle keeps working
    box: tuple[int, int] = (3, 3)  # a 4x4, 6x6 or 16x16 grid's boxes (``ar.sized_board``): givens and solution
    symbols: str = "1-9"  # are n*n of the solver's symbols; the page prints its values in this style
    cages: tuple[Cage, ...] | None = None  # a killer page's cages (its givens and solution beside them)

    @property
    def size(self) -> int:
        return self.box[0] * self.box[1]


@dataclass
class SessionConfig:
    votes: int = 2  # readings averaged before the first solve of a moving board (later ones solve again if they differ)
    still_votes: int = 1  # ... of a board at rest (``locator.SLOW``): one reading of a still page is solved at once
    window: int = 5  # the newest readings kept for the vote
    recheck_every: int = 6  # frames between re-reads of a solved board
    redetect_every: int = 10  # frames between re-detections while tracking
    mismatch_new: int = 5  # confident cells that disagree: a different puzzle
    pattern_mismatch: int = 12  # cells whose ink disagrees with the givens: not this puzzle (now)
    solve_timeout: float = 1.5
    work_side: int = 1280  # detect and track on frames no larger than this (long side)
    # None (live): never wait for the solver. k: every solve's answer is taken k frames after its submission,
    # waited for if still running and never taken sooner, so the frame a board locks on depends on the frames
    # alone, not on the machine's load (tests, and any run that must be reproducible)
    solve_lag: int | None = None


@dataclass
class BoardReading:
    """What the session has read of the board in view; forgotten as a whole when another board comes."""

    votes: list[Reading] = field(default_factory=list)
    prints: list[Reading] = field(default_factory=list)  # the same frames read as print alone ("entries" too)
    givens: str | None = None
    result: BoardResult | None = None
    handle: SolveHandle | None = None
    oriented: bool = False  # the reading found which way up the puzzle is
    since_read: int = 0  # frames since the last re-read of a settled board
    submitted: str | None = None  # the last vote handed to the solver (its cache key)
    submitted_at: int = -1  # the frame it was handed over on
    doubted: bool = False  # once read without a solution: the board is detected precisely from then on
    witness: PageWitness = field(default_factory=PageWitness)  # the solved page's look, judged on every frame
    killer: KillerSight = field(default_factory=KillerSight)  # the board read as a killer page (``ar.killer_live``)


@dataclass(frozen=True)
class CellsSeen:
    """The last reading's cell kinds (printed, written, pencilled, blank) and what it made of them."""

    kinds: CellKinds
    second: EntryOpinion  # the entry-digit model on that reading's frame, asked about odd entries
    printed: Reading  # the printed digits alone
