"""One background thread that solves readings so the frame loop never waits.

The loop calls :meth:`SolveWorker.submit` (a givens string) or
:meth:`SolveWorker.submit_reading` (a model reading, repaired with the rules)
with a time budget and gets a :class:`SolveHandle` back at once; it polls
``handle.done()`` on later frames. Only the newest submission of a lane matters:
a newer one cancels that lane's search in progress and drops its job still
queued, whose handles report ``superseded``. Lanes let several boards share one
worker (a page of puzzles, one lane each) without one board's newer reading
cancelling another board's solve; queued jobs of different lanes run in turn.

The thread hands each job to a child process and waits on a pipe. A
pure-Python search in a thread would hold the GIL and slow every OpenCV call of
the frame loop (it more than doubled a frame's time); in its own process it costs
the loop nothing. The child polls the pipe inside the search, so a cancel
lands within milliseconds. If no child process can be started, the jobs run
on the thread itself.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ar_sudoku.children import ignore_sigint, sigint_blocked
from ar_sudoku.sudoku.rules import Reading, check_reading, or_as_print
from ar_sudoku.sudoku.solver import Board, SolveResult, parse_line, solve
from ar_sudoku.sudoku.vocabulary import Status

READY_TIMEOUT = 20.0  # seconds; a cold start on a slow disk compiles the modules first
class SolveJob(NamedTuple):
    """Solve a board's text as it is."""

    givens: str
    timeout: float


class CheckJob(NamedTuple):
    """Solve a model reading and, if it breaks the rules, repair it (``rules.check_reading``)."""

    reading: Reading
    timeout: float
    overrides: dict[int, int]
    require_unique: bool
    as_print: Reading | None = None  # the page as print alone, if the reading leaves several solutions


class Cancel(NamedTuple):
    """Sent to the child while a job runs: stop it (one that arrives after its job ended is ignored)."""


Job = SolveJob | CheckJob


def run_job(job: Job, cancel: Callable[[], bool]) -> Any:
    """Run one job (in the child process, or on the thread as a fallback)."""
    try:
        if isinstance(job, SolveJob):
            return solve(parse_line(job.givens), job.timeout, cancel)
        result = check_reading(job.reading, job.timeout, overrides=job.overrides,
                               require_unique=job.require_unique, cancel=cancel)
        return or_as_print(result, job.as_print, job.timeout, job.overrides, cancel)
    except ValueError:  # a malformed reading is simply not solvable
        return SolveResult(Status.INVALID)


def _child(conn: Any) -> None:
    """The solver process: jobs in, results out; any message during a job cancels it.

    Ctrl-C (sent to the whole process group by a terminal) is ignored: the parent stops this process.
    """
    ignore_sigint()
    conn.send("ready")  # imports are done: the first job will not pay for them
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if isinstance(msg, Cancel):
            continue  # arrived after its job had finished
        result = run_job(msg, conn.poll)
        try:
            conn.send(result)
        except (BrokenPipeError, OSError):
            return


@dataclass(eq=False)
class SolveHandle:
    """A future-like view of one submission; every method returns at once."""

    givens: str
    timeout: float
    job: Job
    lane: object = None  # submissions of one lane supersede each other; other lanes' are left alone
    submitted: float = field(default_factory=time.perf_counter)
    _event: threading.Event = field(default_factory=threading.Event, repr=False)
    _result: Any = None
    _superseded: bool = False
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    finished: float = 0.0

    def done(self) -> bool:
        return self._event.is_set()

    @property
    def superseded(self) -> bool:
        return self._superseded

    def result(self) -> Any:
        """The result if finished, else ``None``; never blocks."""
        return self._result if self._event.is_set() else None

    def wait(self, timeout: float | None = None) -> Any:
        """Block until done (for scripts and tests, never the frame loop)."""
        self._event.wait(timeout)
        return self.result()

    @property
    def status(self) -> str:
        if not self._event.is_set():
            return "pending"
        if self._superseded:
            return "superseded"
        return getattr(self._result, "status", "done")

    def _finish(self, result: Any, superseded: bool = False) -> None:
        self.finished = time.perf_counter()
        self._result = result
        self._superseded = superseded
        self._event.set()


class SolveWorker:
    """A single solver thread (driving one solver process) with a one-slot queue per lane: newest wins."""

    def __init__(self, use_process: bool = True) -> None:
        self._cond = threading.Condition()
        self._pending: dict[object, SolveHandle] = {}  # lane -> its newest queued job, oldest lane first
        self._running: SolveHandle | None = None
        self._stop = False
        self._proc: Any = None
        self._conn: Any = None
        if use_process:
            self._start_process()
        self._thread = threading.Thread(target=self._loop, name="ar-sudoku-solver", daemon=True)
        self._thread.start()

    def _start_process(self) -> None:
        try:
            ctx = mp.get_context("spawn")  # no fork of a process that holds threads and OpenCV state
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_child, args=(child,), name="ar-sudoku-solver", daemon=True)
            with sigint_blocked():  # a Ctrl-C while the child imports must not reach it
                proc.start()
            child.close()
            # wait for it once, at start-up, so the first puzzle does not wait for Python to import
            if not parent.poll(READY_TIMEOUT) or parent.recv() != "ready":
                proc.kill()
                raise OSError("the solver process did not start")
            self._proc, self._conn = proc, parent
        except (OSError, RuntimeError, EOFError):
            self._proc = self._conn = None

    def submit(self, givens: str | Board, timeout: float = 2.0, lane: object = None) -> SolveHandle:
        """Queue a reading (81 chars or a Board); returns a handle immediately."""
        text = givens.to_string() if isinstance(givens, Board) else givens
        return self._submit(SolveHandle(text, timeout, SolveJob(text, timeout), lane))

    def submit_reading(self, reading: Reading, *, timeout: float = 1.5, overrides: dict[int, int] | None = None,
                       require_unique: bool = True, key: str | None = None, lane: object = None,
                       as_print: Reading | None = None) -> SolveHandle:
        """Queue a model reading to be solved and, if it breaks the rules, repaired; ``as_print``: the page read
        as print alone, taken if the reading leaves several solutions and it makes one (``rules.or_as_print``)."""
        job = CheckJob(reading=reading, timeout=timeout, overrides=dict(overrides or {}), require_unique=require_unique,
                       as_print=as_print)
        return self._submit(SolveHandle(key or reading.givens, timeout, job, lane))

    def _submit(self, handle: SolveHandle) -> SolveHandle:
        with self._cond:
            if self._stop:
                raise RuntimeError("the solve worker is closed")
            old = self._pending.pop(handle.lane, None)
            if old is not None:
                old._finish(None, superseded=True)
            if self._running is not None and self._running.lane == handle.lane:
                self._running._cancel.set()
            self._pending[handle.lane] = handle
            self._cond.notify()
        return handle

    def _run_in_process(self, handle: SolveHandle) -> Any:
        conn = self._conn
        conn.send(handle.job)
        cancelled = False
        # the child has its own deadline; this one only guards against a child that died
        limit = time.perf_counter() + handle.timeout * 4 + 10
        while not conn.poll(0.005):
            if handle._cancel.is_set() and not cancelled:
                conn.send(Cancel())
                cancelled = True
            if time.perf_counter() > limit or not self._proc.is_alive():
                raise OSError("the solver process stopped answering")
        return conn.recv()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                handle = self._pending.pop(next(iter(self._pending)))
                self._running = handle
            assert handle is not None
            result = None
            if self._conn is not None:
                try:
                    result = self._run_in_process(handle)
                except (OSError, EOFError):
                    self._shutdown_process()
            if result is None and self._conn is None:
                result = run_job(handle.job, handle._cancel.is_set)
            with self._cond:
                self._running = None
            handle._finish(result, superseded=handle._cancel.is_set())

    def _shutdown_process(self) -> None:
        if self._proc is None:
            return
        with contextlib.suppress(OSError, BrokenPipeError):
            self._conn.send(None)
        self._proc.join(timeout=1.0)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=1.0)
        self._conn.close()
        self._proc = self._conn = None

    def close(self) -> None:
        """Cancel what is running, drop what is queued, join the thread and stop the process."""
        with self._cond:
            self._stop = True
            for queued in self._pending.values():
                queued._finish(None, superseded=True)
            self._pending.clear()
            if self._running is not None:
                self._running._cancel.set()
            self._cond.notify_all()
        self._thread.join()
        self._shutdown_process()

    def __enter__(self) -> SolveWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
