"""The per-frame state machine of the live loop: ``ARSession.step(frame) -> FrameResult``.

Most frames take the short path: the board is tracked, its givens are known,
its solution is cached, and only the overlay is drawn. The long path (detect,
read over a few frames and vote, hand the reading to the solve worker) runs
when a board appears or tracking is lost. The session owns no windows or
files: the caller draws the result where it wants.

The session is a small core with parts that each do one job: the
:class:`~ar_sudoku.ar.locator.BoardLocator` finds and tracks the board, the
:class:`~ar_sudoku.ar.ledger.EntryLedger` keeps what the person wrote, and
the state machine is the table in :mod:`ar_sudoku.ar.machine`. The state
changes in one place, ``ARSession._fire``, which looks the event up there::

    state                         event                               next        action
    ----------------------------  ----------------------------------  ----------  ----------------------------------
    searching                     board found                         reading     -
    any but searching             board lost                          searching   stop tracking; forget a read board
    reading, solving, unsolvable  a new vote to the solver            solving     -
    any                           a user's correction to the solver   solving     -
    any                           cache hit: solved                   solved      keep the result
    any                           cache hit: no solution              unsolvable  keep the result
    any                           solver: solved                      solved      keep the result
    any                           solver: no solution                 unsolvable  keep the result
    solved, suspect               re-read agrees                      solved      take the person's entries
    solved                        re-read sees part of the givens     solved      -
    suspect                       re-read sees part of the givens     suspect     stop drawing; re-read soon
    solved                        re-read differs                     suspect     stop drawing; re-read soon
    suspect                       re-read differs                     reading     forget the board's reading
    solved, suspect               re-read differs twice over          reading     forget the board's reading
    reading, solving              tracking slipped, or another grid   reading     read afresh; set the votes aside
    searching, solved, suspect, unsolvable  tracking slipped, or another grid   reading     forget the board's reading
    any                           the frame size changed              searching   forget the board's reading
    any                           a still photo                       searching   forget the board's reading

On a steady frame (the whole board in view, its corners exact) reading,
solving and unsolvable add a vote (the mean of the last few goes to the solver
when it reads differently from the last one submitted); solved and suspect
re-read now and then, suspect soon.

Two checks guard the drawing in SOLVED: a cheap test every frame that the
inked cells still match the givens (a swapped puzzle or a hand over the page
stops the drawing at once), and the periodic full re-read that confirms a
different puzzle. A solution is never drawn on a puzzle it does not belong to.

Every size goes through this table: a grid of another side (4x4, 6x6, 16x16) is the same session with a
:class:`~ar_sudoku.ar.sized_board.SizedBoard`, which reads it whole (solved as read: two reads alike lock it,
no votes, no worker) and checks its ink on every frame; its answers are drawn in the page's own symbols.

Stills (a photo, a folder of photos) are each their own scene:
``step(frame, still=True)`` reads and solves at once, with no tracking or votes.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ar_sudoku.ar import killer_live
from ar_sudoku.ar.killer_marks import plan_killer
from ar_sudoku.ar.ledger import EntryLedger
from ar_sudoku.ar.locator import SLOW, BoardLocator, Located
from ar_sudoku.ar.machine import TABLE, Action, Event, State
from ar_sudoku.ar.marks import Marks, Mode, plan_marks
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.session_types import BoardReading, CellsSeen, FrameResult, SessionConfig
from ar_sudoku.ar.sized import draw_answers
from ar_sudoku.ar.sized_board import SizedBoard
from ar_sudoku.ar.solve_worker import SolveWorker
from ar_sudoku.ar.votes import agrees, mean
from ar_sudoku.ar.witness import Verdict
from ar_sudoku.sudoku.rules import AS_PRINT, BoardResult, Reading
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.checking import written_part
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader, sure_of_writing
from ar_sudoku.vision.lattice import bend_of
from ar_sudoku.vision.look import roll_of, shifted
from ar_sudoku.vision.orient import read_grid, read_oriented
from ar_sudoku.vision.passes import KIND_PASSES, CellRecord, Inputs, run
from ar_sudoku.vision.quads import QUADS, working_gray
from ar_sudoku.vision.reading import process_image
from ar_sudoku.vision.turns import turn_to
from ar_sudoku.vision.yuv import I420, as_bgr

__all__ = ["ARSession", "FrameResult", "Located", "SessionConfig", "State"]

SIZED_MODES = "checks and hints are for 9x9 puzzles: a grid of another size shows its answers only"
UNLIKE_GONE = 3  # frames in a row the solved page's look is not where its board is tracked: the board is gone
NEIGHBOURS = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))  # where it is, and a cell off any way
SEEN_LEAST = 9  # cells of a page partly out of view that must be in the picture to judge its ink (a row's worth)


class ARSession:
    """Stateful tracking and caching on the caller's thread; solving on the worker."""

    state: State = State.SEARCHING  # changed only by ``_fire``

    def __init__(self, reader: DigitReader, worker: SolveWorker | None = None,
                 config: SessionConfig | None = None, overlay: OverlayRenderer | None = None,
                 mode: Mode = "answer", kinds: KindReader | None = None, lane: object = None,
                 sized: SizedBoard | None = None):
        self.reader = reader
        self.sized = sized  # a grid of another side (4x4, 6x6, 16x16): read whole, checked by its ink (``sized_board``)
        self.lane = lane  # this board's lane on a shared worker (a page's puzzles share one)
        self.kinds = kinds  # tells printed givens from what the person writes; None: print only
        self.mode: Mode = mode
        self.worker = worker or SolveWorker()
        self._own_worker = worker is None
        self.cfg = config or SessionConfig()
        self.overlay = overlay or OverlayRenderer()
        self.locator = BoardLocator(self.cfg.work_side, self.cfg.redetect_every)
        self.locator.detects = sized is None  # the detector finds 9x9 grids: a grid of another side is followed
        self.ledger = EntryLedger()
        self.board = BoardReading()
        self.cells: CellsSeen | None = None
        self.overrides: dict[int, int] = {}
        self.override_base: str | None = None  # the reading the corrections were made on
        self.cache: OrderedDict[str, BoardResult] = OrderedDict()  # givens -> checked result
        self.frame_index = -1
        self.streaked = False  # this frame's board is held where it was, its grid streaked (``Located.streaked``)
        self.unlike = False  # this frame's view at the board does not look like the solved page (``PageWitness``)
        self._unlike_run = 0  # frames in a row it has not
        self._aside: list[Reading] = []  # the votes of a board that slipped, for a reading that agrees (``votes``)
        self._judged: tuple[np.ndarray, Verdict] | None = None  # this frame's corners, and their verdict
        self._marks_key: tuple | None = None
        self._given_cells: tuple[str | None, np.ndarray] = (None, np.zeros(81, bool))  # givens, their inked cells
        self._marks: Marks | None = None
        # what each state does on a steady frame with the board in view
        vote, recheck = (self._vote, self._recheck) if sized is None else (self._vote_sized, self._recheck_sized)
        self._on_steady: dict[State, Callable[[np.ndarray], np.ndarray]] = {
            State.READING: vote,
            State.SOLVING: vote,
            State.UNSOLVABLE: vote,
            State.SOLVED: recheck,
            State.SUSPECT: recheck,
        }

    # ------------------------------------------------------------------ the state machine

    def _fire(self, event: Event, result: BoardResult | None = None) -> None:
        """The one place the state changes: the table's row for (state, event), then its action."""
        self.state, action = TABLE[self.state, event]
        if action in (Action.FORGET, Action.SET_ASIDE):
            self._aside = self.board.votes if action is Action.SET_ASIDE else []
            self.board = BoardReading()
        elif action is Action.LOSE:
            self.locator.lose()
            if self.board.givens is not None:  # a board seen again is re-read (the cache makes it instant);
                self.board = BoardReading()  # votes not yet submitted are kept for its return
        elif action is Action.SETTLE:
            assert result is not None
            self.board.result = result
            if result.givens:
                self.board.givens = result.givens
        elif action is Action.TAKE_ENTRIES:
            self._take_entries()
        elif action is Action.RECHECK_SOON:
            self.board.since_read = self.cfg.recheck_every - 2  # confirm on the next re-read, soon

    def _settle(self, result: BoardResult, *, cached: bool = False) -> None:
        """A checked result arrived (from the worker, the cache or a still's reading)."""
        solved = result.status == Status.SOLVED
        if cached:
            self._fire(Event.CACHED_SOLVED if solved else Event.CACHED_UNSOLVABLE, result)
        else:
            self._fire(Event.SOLVED if solved else Event.UNSOLVABLE, result)

    # ------------------------------------------------------------------ the user's commands

    def set_override(self, cell: int, digit: int) -> None:
        """A user's correction of a misread cell (0 clears); the board is solved again."""
        if self.board.votes:
            self.override_base = self._voted().givens
        self.overrides[cell] = digit
        if self.board.votes:
            voted = self._voted()
            self._submit(voted, self._as_print(voted), corrected=True)

    def set_mode(self, mode: Mode) -> None:
        """answer, check or hint: what is drawn on the paper from the next frame on."""
        self.mode = mode

    def next_hint(self) -> None:
        """Take the hint shown (as if its digit were written) and move on to the next one."""
        m = self._marks
        if self.mode == "hint" and m is not None and m.ring and m.small and m.small[0][1].isdigit():
            self.ledger.take_hint(self.board.givens, m.small[0][0], m.small[0][1])

    def entries(self) -> str | None:
        """The person's own digits, as far as the session knows them (hints taken count as written)."""
        return self.ledger.entries(self.board.givens)

    def marks(self) -> Marks | None:
        """What the display mode draws for the solved board (cached: hints cost a logical solve)."""
        result, givens = self.board.result, self.board.givens
        if self.state is not State.SOLVED or result is None or not result.solution or not givens:
            return None
        if self.sized is not None:  # its answers are drawn in the page's own symbols (``sized.draw_answers``)
            return None if self.mode == "answer" else Marks(text=SIZED_MODES)
        key = (self.mode, result.givens or givens, result.solution, self.entries(), None,
               self.ledger.doubts, self.ledger.unreadable)
        if key != self._marks_key:
            self._marks_key, self._marks = key, plan_marks(*key)
            if result.cages is not None:  # a killer page: answers clear of its sums, killer hints
                self._marks = plan_killer(givens, result.solution, result.cages, self.mode)[0]
        return self._marks

    def set_focus(self, puzzle: int | None) -> None:
        """One puzzle's session: its commands go to its own puzzle, whatever was clicked (``LiveSession``)."""

    def clear_overrides(self) -> None:
        self.overrides.clear()
        self.override_base = None

    # ------------------------------------------------------------------ solving

    def _voted(self, votes: list[Reading] | None = None) -> Reading:
        """The mean of the board's votes (``votes.mean``), or of ``votes``."""
        return mean(self.board.votes if votes is None else votes)

    def _cache_key(self, givens: str, as_print: Reading | None = None) -> str:
        return givens + (f"|{as_print.givens}" if as_print is not None else "") + repr(sorted(self.overrides.items()))

    def _as_print(self, voted: Reading) -> Reading | None:
        """The votes read as print alone, to solve if ``voted`` leaves several solutions (``rules.or_as_print``):
        only on a page the last reading is not sure was written on, and only if it reads otherwise."""
        cells = self.cells
        if cells is None or len(self.board.prints) < len(self.board.votes) or sure_of_writing(cells.kinds):
            return None
        printed = self._voted(self.board.prints)
        return printed if printed.givens != voted.givens else None

    def _submit(self, reading: Reading, as_print: Reading | None, *, corrected: bool = False) -> None:
        """Hand a reading to the solver (a reading with several solutions is not drawn: a digit was missed;
        unless ``as_print``, the page read as print alone, makes one puzzle: ``_as_print``)."""
        if self.override_base is not None and sum(
                a != b for a, b in zip(reading.givens, self.override_base)) > self.cfg.mismatch_new:
            self.clear_overrides()  # corrections belong to the puzzle they were made on
        board = self.board
        board.givens = reading.givens
        key = board.submitted = self._cache_key(board.givens, as_print)
        if key in self.cache:
            self.cache.move_to_end(key)
            board.handle = None
            self._settle(self.cache[key], cached=True)
            return
        board.result = None
        board.submitted_at = self.frame_index
        board.handle = self.worker.submit_reading(reading, timeout=self.cfg.solve_timeout,
                                                  overrides=dict(self.overrides), require_unique=True, key=key,
                                                  lane=self.lane, as_print=as_print)
        self._fire(Event.CORRECTED if corrected else Event.SUBMITTED)

    def _poll(self) -> None:
        handle = self.board.handle
        if handle is None:
            return
        lag = self.cfg.solve_lag
        if lag is not None:  # taken ``lag`` of this session's frames on, never sooner: sooner is the load speaking
            if self.frame_index - self.board.submitted_at < lag:
                return
            handle.wait()  # ends: the worker finishes every handle (the search has its own deadline)
        if not handle.done():
            return
        self.board.handle = None
        result: BoardResult | None = handle.result()
        if handle.superseded or result is None:
            return
        self.cache[handle.givens] = result
        while len(self.cache) > 32:
            self.cache.popitem(last=False)
        self._settle(result)

    # ------------------------------------------------------------------ what the states do on a steady frame

    def _read(self, corners: np.ndarray) -> tuple[np.ndarray, Reading]:
        """The givens as the solver should see them (and, with a kinds reader, the cells' kinds)."""
        gray = self.locator.full_gray()
        lattice = self.locator.lattice
        if not self.board.oriented:
            corners, reading, lattice = read_oriented(gray, corners, self.reader, lattice=lattice)
            if (reading.digits > 0).sum() >= 10:
                self.board.oriented = True
                self.locator.lattice = lattice
                self.locator.restart(corners)
        else:
            reading = read_grid(gray, corners, self.reader, lattice=lattice)
        self.cells = None
        if self.kinds is not None and self.board.oriented:
            # the cells' kinds, read as the photo path reads them (vision.passes.KIND_PASSES), from the colour
            # frame: a pen's own ink tells entries from print (kinds.ink_votes)
            given = Inputs(self.locator.colour(), gray, self.reader, self.kinds, wide=False)
            seen = run(KIND_PASSES, CellRecord(given, None, corners, self.locator.lattice, reading=reading))
            assert seen.cell_kinds is not None and seen.second is not None and seen.printed is not None
            assert seen.reading is not None
            self.ledger.unreadable = seen.unreadable  # no vote from a cell this frame cannot see
            reading = seen.reading
            self.cells = CellsSeen(seen.cell_kinds, seen.second, seen.printed)
        return corners, reading

    def _vote(self, corners: np.ndarray) -> np.ndarray:
        """READING, SOLVING, UNSOLVABLE: every steady frame adds a vote; the mean of the last few goes
        to the solver whenever it reads differently from the last one submitted."""
        corners, reading = self._read(corners)
        board = self.board
        board.since_read = 0
        if self.state is State.UNSOLVABLE or not board.oriented:  # no solution, or too few digits to vote on
            killer = killer_live.look(board.killer, self.locator.colour(), corners, self.locator.lattice, self.reader,
                                      self.cfg.solve_timeout)
            if killer is not None and killer.corners is not None:
                return self._take_killer(killer)
        aside, self._aside = self._aside, []
        if board.oriented and not board.votes and agrees(aside, reading):  # the same page, slipped: its votes back
            board.votes = aside
        if board.oriented:
            board.votes = [*board.votes, reading][-self.cfg.window :]
            if self.cells is not None:
                board.prints = [*board.prints, self.cells.printed][-self.cfg.window :]
        # a still page's first reading is solved at once; a moving one's (a pan's streak, a corner a little off)
        # waits for a second to be averaged with: alone it was unsolvable more often, and held the lock back
        need = self.cfg.still_votes if self.locator.speed <= SLOW else self.cfg.votes
        if len(board.votes) >= need and board.handle is None:
            voted = self._voted()
            as_print = self._as_print(voted)
            if self._cache_key(voted.givens, as_print) != board.submitted:
                self._submit(voted, as_print)
        return corners

    def _take_killer(self, result: BoardResult) -> np.ndarray:
        """A killer reading two frames agreed on: settled, tracked the way its sums read, its sums' look what
        ``_same_pattern`` watches (``killer_live.sums_there``: not the ink of givens it mostly lacks)."""
        assert result.corners is not None
        self._settle(result)
        self.board.oriented = True  # its sums said which way up: a re-read keeps these corners (not a few givens')
        if self.locator.lattice is not None:
            self.locator.lattice = result.lattice
        self.locator.restart(result.corners)
        self._given_cells = (result.givens, self.locator.inked(result.corners))
        killer_live.remember_sums(self.board.killer, self.locator, result.corners)
        return result.corners

    def _recheck(self, corners: np.ndarray) -> np.ndarray:
        """SOLVED, SUSPECT: re-read now and then; a different puzzle is suspected, then confirmed."""
        self.board.since_read += 1
        if self.board.since_read < self.cfg.recheck_every or not self.locator.rereadable(corners):
            return corners
        corners, reading = self._read(corners)
        self.board.since_read = 0
        result = self.board.result
        if result is not None and result.message == AS_PRINT and self.cells is not None:
            reading = self.cells.printed  # the page was taken as print alone: its "entries" are its givens
        diff, hidden = self._differs(reading)
        if result is not None and result.cages is not None:  # a killer page: its sums say which page, which way up
            # (its own sums where they were: a reading of its few givens that differs took sums for givens)
            there = killer_live.still_there(self.board.killer, result, self.locator, corners)
            diff = hidden = 0 if there else 2 * self.cfg.mismatch_new
        elif max(diff, hidden) >= self.cfg.mismatch_new and self.board.givens:
            # the page turned while the tracker followed its symmetric grid: read so, it is this puzzle
            k = turn_to(self.locator.full_gray(), corners, self.board.givens, self.reader, self.locator.lattice)
            if k:
                corners = self.locator.turn(corners, k)
                self._fire(Event.AGREES)
                return corners
        if diff >= 2 * self.cfg.mismatch_new:
            self._fire(Event.DIFFERS_MUCH)
        elif diff >= self.cfg.mismatch_new:
            self._fire(Event.DIFFERS)
        elif hidden >= self.cfg.mismatch_new:
            self._fire(Event.PARTLY)  # a subset of the givens: not a sign of another puzzle, nor a reading to trust
        else:
            self._fire(Event.AGREES)
        return corners

    def _read_sized(self, corners: np.ndarray) -> tuple[np.ndarray, BoardResult]:
        """A grid of another side read whole at ``corners`` (full-size pixels), on the working grey; the corners
        come back in the puzzle's own order (a grid held upside down is read the right way up)."""
        assert self.sized is not None
        k = self.locator.scale
        result = self.sized.read(self.locator.small, corners * k)
        turned = np.asarray(result.corners, np.float32) / k if result.corners is not None else corners
        roll = roll_of(turned, corners)
        if roll:
            corners = self.locator.turn(corners, roll)
        return corners, replace(result, corners=corners)

    def _vote_sized(self, corners: np.ndarray) -> np.ndarray:
        """READING, SOLVING, UNSOLVABLE for a grid of another side: read whole; two reads alike that solve lock it
        (the reading is its answer: no worker)."""
        assert self.sized is not None
        corners, result = self._read_sized(corners)
        self.board.since_read = 0
        self.board.oriented = True
        if self.sized.locks(result):
            self._settle(result)
        return corners

    def _recheck_sized(self, corners: np.ndarray) -> np.ndarray:
        """SOLVED, SUSPECT for a grid of another side: read again now and then; another puzzle (more than a cell
        or two apart) is read afresh."""
        assert self.sized is not None and self.board.givens is not None
        self.board.since_read += 1
        swapped = not self.sized.agrees(self.locator.small, corners * self.locator.scale, self.board.givens)
        if self.board.since_read < self._recheck_every() and not swapped:
            return corners
        corners, again = self._read_sized(corners)  # on the frame its ink changed: another puzzle is read at once
        self.board.since_read = 0
        if self.sized.differs(again.givens, self.board.givens):
            self._fire(Event.DIFFERS_MUCH)
            self.sized.locks(again)  # the first of the new puzzle's two reads alike
        else:
            self._fire(Event.AGREES)
        return corners

    def _recheck_every(self) -> int:
        """Frames between re-reads of a solved board (a grid of another side, read whole, less often)."""
        return self.cfg.recheck_every if self.sized is None else max(self.cfg.recheck_every, self.sized.cfg.recheck)

    def _take_entries(self) -> None:
        """What the person has written, from this reading: an entry counts once two readings agree.

        While something is unconfirmed the next re-read comes sooner, so a new
        entry is checked within a few frames of the page being steady.
        """
        givens, cells = self.board.givens, self.cells
        if cells is None or not givens:
            return
        result = self.board.result
        solution = result.solution if result is not None else None
        part = written_part(givens, cells.kinds, cells.printed, solution=solution, second=cells.second,
                            unreadable=self.ledger.unreadable)
        if self.ledger.take(givens, part.entries, part.doubts):
            self.board.since_read = self.cfg.recheck_every - 2

    def _differs(self, reading: Reading) -> tuple[int, int]:
        """A fresh reading against the board's givens: its confident digits that contradict them (another
        digit, or a digit where there was none), and the givens it did not see (read blank or unsure: glare,
        dim light, faint print hide a given, they do not change it)."""
        if not self.board.givens:
            return 0, 0
        before = np.array([0 if ch == "." else int(ch) for ch in self.board.givens])
        sure = reading.confidence > 0.8
        contra = sure & (reading.digits != before) & (reading.digits > 0)
        hidden = (before > 0) & ((reading.digits == 0) | ~sure)
        for i in self.overrides:
            contra[i] = hidden[i] = False
        return int(contra.sum()), int(hidden.sum())

    def _same_pattern(self, corners: np.ndarray) -> bool:
        """Every frame, cheaply: do the inked cells still match the givens? A different puzzle
        (or a hand over this one) fails at once, and a full re-read is due on the next frame."""
        assert self.board.givens is not None
        if self.sized is not None:
            if self.sized.agrees(self.locator.small, corners * self.locator.scale, self.board.givens):
                return True
            self.board.since_read = self._recheck_every()  # another puzzle in its place, or a hand: read it now
            return False
        if self.board.result is not None and self.board.result.cages is not None:  # a killer page: its sums
            there = killer_live.sums_there(self.board.killer, self.locator, corners)  # (not its ink) are its evidence
            if there is not None:
                if not there:
                    self.board.since_read = self._recheck_every()  # another page in its place, or a hand: read it
                return there
        if self._given_cells[0] != self.board.givens:
            cells = np.array([ch != "." for ch in self.board.givens])
            cells.flags.writeable = False
            self._given_cells = (self.board.givens, cells)
        # a page partly out of view is judged on the cells in view, and too few of them judge nothing
        seen = self.locator.seen(corners)
        if int(seen.sum()) < SEEN_LEAST:
            return False
        want = self._given_cells[1] & seen
        # with a person's pen about, the print sets the ink's scale (pale print under dark pen is not gone)
        ink = self.locator.inked(corners, expect=None if self.kinds is None else want, seen=seen) & seen
        if self.kinds is None:  # print only: any change of the ink pattern counts
            mismatch = ink != want
        else:  # new ink in an empty cell is someone writing, not another puzzle: givens gone missing count
            mismatch = want & ~ink
            known = self.ledger.known()
            if any(int(i) not in known for i in np.flatnonzero(ink & ~want)):
                self.board.since_read = max(self.board.since_read, self.cfg.recheck_every - 2)  # read it soon
        for i in self.overrides:
            mismatch[i] = False
        # a board held through a streak sits a few pixels off and its print is smeared: only givens gone missing
        # in number (another puzzle) stop its drawing there, and the re-read follows once it is found again
        limit = self.cfg.pattern_mismatch if self.kinds is None or self.streaked else self.cfg.pattern_mismatch // 2
        limit = max(3, round(limit * int(seen.sum()) / 81))  # part of a page shows part of its givens
        if int(mismatch.sum()) >= limit:
            # print a glare spot fades is not gone: another puzzle (or a hand) shows across the grid, not in a
            # spot (looked at only when it could matter: most frames match without it)
            mismatch &= ~self.locator.glared(corners)
        if int(mismatch.sum()) >= limit:
            self.board.since_read = self.cfg.recheck_every
            return False
        return True

    # ------------------------------------------------------------------ the frame

    def working_gray(self, frame: np.ndarray | I420) -> np.ndarray:
        """What ``step(frame, small=...)`` takes: pure and thread-safe, for a decoder thread to make ahead."""
        return working_gray(frame, self.cfg.work_side)

    def step(self, frame: np.ndarray | I420, still: bool = False, small: np.ndarray | None = None) -> FrameResult:
        """Advance one frame; never waits for the solver (except on a still, its own scene).

        ``small`` is the frame's ``working_gray``, if it was made ahead (off the loop's thread). A video's
        frame may come as :class:`~ar_sudoku.vision.yuv.I420` (a recording's, which is never made BGR
        unless a reading needs its colour); a still is BGR.
        """
        if still:
            return self._step_still(as_bgr(frame))
        t0 = time.perf_counter()
        self.frame_index += 1
        timings: dict[str, float] = {}
        if self.locator.prepare(frame, small):
            self._fire(Event.RESIZED)
        self._poll()

        t = time.perf_counter()
        loc = self._find()
        timings["find"] = (time.perf_counter() - t) * 1e3

        t = time.perf_counter()
        corners = loc.corners
        # a board held through a streak (``Located.held``) is drawn where it was, never read there
        steady = corners is not None and not loc.held and self.locator.steady(corners, loc.detected)
        self.locator.moved_to(corners)
        if corners is not None and steady:
            corners = self._on_steady[self.state](corners)
        timings["read"] = (time.perf_counter() - t) * 1e3
        self._poll()
        result = self._result(corners, t0, timings)
        if steady and corners is not None and result.solution is not None:
            self._remember(corners, loc.detected)
        return result

    def _remember(self, corners: np.ndarray, detected: bool) -> None:
        """A steady, sharp frame whose drawing was confirmed by the ink: the witness keeps its look, unless it
        looks unlike the page it knows (a page slipped in with the same pattern of givens is not learnt). A look
        only in doubt (``UNSURE``) is learnt where the grid was detected on this frame: the flow lets a board
        drift a third of a cell while the look is learnt along, and the detection that sets it right looks unlike
        that (a page panned on was lost three frames after)."""
        witness = self.board.witness
        seen = self.locator.seen(corners)
        if not seen.all():
            return
        squared = self.locator.squared(corners)
        at, verdict = self._judged if self._judged is not None else (None, Verdict.UNSURE)
        if at is None or not np.array_equal(at, corners):  # righted or re-read since it was judged
            verdict = witness.judge(squared, seen)[0]
        if not witness.known or verdict is Verdict.SAME or (
                detected and verdict is Verdict.UNSURE and not witness.maybe_turned()):
            witness.remember(squared)

    def _find(self) -> Located:
        """Where the board is, and the events that follows from it: slipped, lost, found."""
        if self.state is State.UNSOLVABLE:
            self.board.doubted = True
        settled = self.state in (State.SOLVED, State.SUSPECT)
        # precise (corners where the lines cross) once the board is solved, where its answer is drawn, or once
        # it was read without a solution: an outline's corner a quarter cell off the grid's (a fold, a border
        # missing at a corner) loses a row's givens. While a first reading is voted, only a fit that agrees
        # with the outline but for that one corner: a crossings' fit made bent by a dim room's noise or a
        # glare spot moves the corners the votes are read through
        exact = self.board.doubted or settled
        loc = self.locator.locate(self.frame_index, settled=settled, doubtful=self.state is State.UNSOLVABLE,
                                  precise=True, agreeing=not exact)
        self.streaked = loc.held and loc.streaked
        self.unlike = False
        self._judged = None
        if settled and loc.corners is not None:
            loc = self._witnessed(loc)
        if settled and loc.corners is not None and not (loc.held or loc.detected):
            loc = self._undrifted(loc)
        if loc.held and loc.corners is not None and not self._same_pattern(loc.corners):
            # not the board blurred where it was: the givens' ink is gone, and so is the board
            loc, self.streaked = Located(None, False), False
        if loc.slipped and not self._looks_solved():
            self._fire(Event.SLIPPED)  # tracking had slipped, or another grid is in view: read again
        if loc.corners is None:
            self.locator.lattice = None
            if self.state is not State.SEARCHING:
                self._fire(Event.LOST)
        elif self.state is State.SEARCHING:
            self._fire(Event.FOUND)
        return loc

    def _undrifted(self, loc: Located) -> Located:
        """A tracked board whose page looks unlike itself there, or whose givens' ink is not where they are, may have
        drifted off its lines (``locator.snapped``): tracked from its lines again where its givens' ink is, and
        its page looks like itself (in doubt only, where the ink alone failed), on a sharp frame of a board that was
        not moving (a page swapped in under a streak, its lines snapped to, passed the ink check of the page
        before: the answer went on the new page)."""
        assert loc.corners is not None
        if (not self.unlike and self._same_pattern(loc.corners)) or self.locator.speed > SLOW:
            return loc  # (a moving board: its lines are not sharp enough to be put back on)
        snapped, lattice = self.locator.snapped(loc.corners) or (None, None)
        before, self.locator.lattice = self.locator.lattice, lattice
        if snapped is not None and not self.locator.streaked_at(snapped) and self._same_pattern(snapped):
            verdict = self.board.witness.judge(self.locator.squared(snapped), self.locator.seen(snapped))[0]
            if verdict is Verdict.SAME or (verdict is Verdict.UNSURE and not self.unlike):
                self.locator.relocate(snapped)
                self._judged, self.unlike, self._unlike_run = (snapped, verdict), False, 0
                return replace(loc, corners=snapped)
        self.locator.lattice = before
        return loc

    def _witnessed(self, loc: Located) -> Located:
        """The solved page's look at the board (``ar.witness``): a page turned while the tracker blinked is righted
        (its corners rolled to the puzzle's order); a held board needs its page, or it is gone; another page or
        the desk where the board was stops the drawing on this frame and asks for a re-read."""
        assert loc.corners is not None
        verdict, k = self.board.witness.judge(self.locator.squared(loc.corners), self.locator.seen(loc.corners),
                                              streaked=loc.held and loc.streaked)
        self._judged = (loc.corners, verdict)
        if loc.tracked is not None and verdict is not Verdict.SAME:
            loc, verdict, k = self._unslipped(loc, verdict, k)
        assert loc.corners is not None
        if verdict in (Verdict.OTHER, Verdict.UNSURE) and not loc.detected and not self.board.witness.maybe_turned():
            moved = self._relocated(loc.corners)
            if moved is not None:  # tracked (or held) a cell off: the page is a cell further on
                loc, verdict = Located(moved, False), Verdict.SAME
                self._judged = (moved, verdict)
        if verdict is Verdict.TURNED:
            assert loc.corners is not None
            return replace(loc, corners=self.locator.turn(loc.corners, k))
        if loc.held and (verdict is not Verdict.SAME or loc.corners is None
                         or self.board.witness.moved_off(*self.locator.half_cell_off(loc.corners), loc.streaked)):
            return Located(None, False)
        if loc.held and loc.corners is not None:  # held, its page there: tracked from here (while the page is seen)
            self.locator.relocate(loc.corners)
        self._unlike_run = self._unlike_run + 1 if verdict is Verdict.OTHER else 0
        if self._unlike_run >= UNLIKE_GONE:
            return Located(None, False)  # the tracker follows the desk, or a page that is not this one: gone
        if verdict is Verdict.OTHER:
            self.unlike = True
        if verdict is not Verdict.SAME:  # the print decides, on the next steady frame: this page, turned, or not
            self.board.since_read = max(self.board.since_read, self._recheck_every())
        return loc

    def _unslipped(self, loc: Located, verdict: Verdict, k: int) -> tuple[Located, Verdict, int]:
        """A re-detection that moved the solved board far and does not look like its page there, while the
        flow's place does: the flow was right (a curled page's detection can land a column off), and the board
        is tracked from there; else the detection stands."""
        assert loc.tracked is not None
        witness, found = self.board.witness, self.locator.lattice
        self.locator.lattice = loc.tracked_lattice
        score = witness.likeness(self.locator.squared(loc.tracked), self.locator.seen(loc.tracked))
        self.locator.lattice = found
        if score is None or score < witness.cfg.same:
            return loc, verdict, k
        back = self.locator.undo_slip(loc)
        assert back.corners is not None
        verdict, k = witness.judge(self.locator.squared(back.corners), self.locator.seen(back.corners))
        self._judged = (back.corners, verdict)
        return back, verdict, k

    def _looks_solved(self) -> bool:
        """This frame's board looks like the solved page (``_witnessed``): a detection far from the track is the
        page moved faster than the flow could follow, not another grid."""
        witness = self.board.witness
        return (self._judged is not None and self._judged[1] is Verdict.SAME and witness.score is not None
                and witness.score >= witness.cfg.solid)

    def _relocated(self, corners: np.ndarray) -> np.ndarray | None:
        """The board a cell off its page (a fast move along a periodic grid makes the flow snap to the next
        crossing, as the grid's lines look alike): the neighbouring place whose look is the solved page's, tracked
        from there; None when none is (a flat page only: a curled one is not moved by whole cells)."""
        witness = self.board.witness
        if not witness.known or self.locator.lattice is not None:
            return None
        best, found = witness.cfg.same, None
        starts = [corners]
        if self.locator.velocity is not None:  # where it would be had it moved on as it moved on the last frame
            starts.append(corners + self.locator.velocity)
        for start in starts:
            for dx, dy in NEIGHBOURS:
                at = shifted(start, dx, dy) if dx or dy else start
                score = witness.likeness(self.locator.squared(at), self.locator.seen(at))
                if score is not None and score >= best:
                    best, found = score, at
        if found is not None:
            self.locator.relocate(found)
        return found

    def _step_still(self, frame: np.ndarray) -> FrameResult:
        """A photo is its own scene, read exactly as ``ar-sudoku image`` reads it (``process_image``: grid,
        orientation, both models, the rules, the person's entries), waiting for the solution: done."""
        t0 = time.perf_counter()
        res = process_image(frame, self.reader, timeout=self.cfg.solve_timeout, overrides=dict(self.overrides),
                            kinds=self.kinds)
        return self.take_still(res, t0)

    def take_still(self, res: BoardResult, t0: float) -> FrameResult:
        """A still's reading, made elsewhere (one puzzle of a page: ``ar.page``), taken as the board in view:
        its own scene, settled at once."""
        self.frame_index += 1
        self._fire(Event.STILL)
        corners = res.corners
        self.locator.still(res.lattice if res.lattice is not None and bend_of(res.lattice) >= QUADS.bent else None)
        if corners is not None and res.givens:
            self._settle(res)
            self.ledger.take_still(res.givens, res.written, res.unreadable)
        return self._result(corners, t0, {"read": res.ms}, check_pattern=False)

    def _result(self, corners: np.ndarray | None, t0: float, timings: dict[str, float],
                check_pattern: bool = True) -> FrameResult:
        board = self.board
        shown = (corners is not None and self.state is State.SOLVED and board.result is not None
                 and board.givens is not None and not self.unlike
                 and (not check_pattern or self._same_pattern(corners)))
        result = board.result
        solution = result.solution if shown and result is not None else None
        if self.sized is not None and self.mode != "answer":
            solution = None  # a grid of another side shows its answers only; its marks say why
        message = result.message if result is not None else ""
        marks = self.marks() if shown else None
        t_ms = (time.perf_counter() - t0) * 1e3
        in_view = corners is not None
        written = None
        killer = board.result is not None and board.result.cages is not None
        if self.kinds is not None and in_view and board.givens and not killer:  # a killer page's sums are no entries
            written = self.ledger.on_paper(board.givens)
        # the status says what is shown: a solved board whose answer is held back on this frame is in doubt
        status = State.SUSPECT if self.state is State.SOLVED and not shown else self.state
        box, symbols = (3, 3), "1-9"
        if self.sized is not None:  # as read (a grid read turned has its boxes turned), else as found
            box, symbols = (result.box, result.symbols) if result is not None else (self.sized.grid.box, symbols)
        return FrameResult(frame=self.frame_index, status=status, corners=corners,
                           givens=board.givens if in_view else None, solution=solution, t_ms=t_ms,
                           timings=timings, message=message, marks=marks,
                           lattice=self.locator.lattice if in_view else None, written=written, box=box,
                           symbols=symbols, cages=result.cages if in_view and result is not None else None)

    def draw(self, frame: np.ndarray, result: FrameResult) -> np.ndarray:
        """The overlay for ``result`` on ``frame`` (in place)."""
        if result.size != 9:
            draw_answers(frame, result)
        elif result.marks is not None and result.corners is not None:
            self.overlay.draw_marks(frame, result.corners, result.marks, lattice=result.lattice)
        return frame

    def close(self) -> None:
        if self._own_worker:
            self.worker.close()

    def __enter__(self) -> ARSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
