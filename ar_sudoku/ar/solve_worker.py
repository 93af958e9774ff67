"""One background thread that solves readings so the frame loop never waits.

The loop calls :meth:`SolveWorker.submit` with a givens string and a time
budget and gets a :class:`SolveHandle` back at once; it polls ``handle.done()``
on later frames. Only the newest submission matters: a newer one cancels the
search in progress and drops any still queued, whose handles report
``superseded``. Pure-Python search holds the GIL, so the worker also shortens
the interpreter's switch interval while it runs, which keeps the frame loop's
OpenCV calls from queueing behind it.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ar_sudoku.solver import Board, SolveResult, parse_line, solve

Job = Callable[[Callable[[], bool]], Any]  # gets a cancel() poll, returns the result

SWITCH_INTERVAL = 0.0005  # seconds; CPython's default is 0.005


@dataclass(eq=False)
class SolveHandle:
    """A future-like view of one submission; every method returns at once."""

    givens: str
    timeout: float
    job: Job | None = field(default=None, repr=False)
    submitted: float = field(default_factory=time.perf_counter)
    _event: threading.Event = field(default_factory=threading.Event, repr=False)
    _result: Any = None
    _superseded: bool = False
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)

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
        self._result = result
        self._superseded = superseded
        self._event.set()


class SolveWorker:
    """A single solver thread with a one-slot queue (newest wins)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: SolveHandle | None = None
        self._running: SolveHandle | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._loop, name="ar-sudoku-solver", daemon=True)
        self._old_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._old_interval, SWITCH_INTERVAL))
        self._thread.start()

    def submit(self, givens: str | Board, timeout: float = 2.0) -> SolveHandle:
        """Queue a reading (81 chars or a Board); returns a handle immediately."""
        text = givens.to_string() if isinstance(givens, Board) else givens
        return self.submit_job(text, timeout, None)

    def submit_job(self, givens: str, timeout: float, job: Job | None) -> SolveHandle:
        """Queue any solving job (e.g. a reading to check with the rules); newest wins."""
        handle = SolveHandle(givens, timeout, job)
        with self._cond:
            if self._stop:
                raise RuntimeError("the solve worker is closed")
            if self._pending is not None:
                self._pending._finish(None, superseded=True)
            if self._running is not None:
                self._running._cancel.set()
            self._pending = handle
            self._cond.notify()
        return handle

    def _loop(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                handle, self._pending = self._pending, None
                self._running = handle
            assert handle is not None
            try:
                if handle.job is not None:
                    result = handle.job(handle._cancel.is_set)
                else:
                    result = solve(parse_line(handle.givens), handle.timeout, handle._cancel.is_set)
            except ValueError:  # a malformed reading is simply not solvable
                result = SolveResult("invalid")
            with self._cond:
                self._running = None
            handle._finish(result, superseded=handle._cancel.is_set())

    def close(self) -> None:
        """Cancel what is running, drop what is queued, and join the thread."""
        with self._cond:
            self._stop = True
            if self._pending is not None:
                self._pending._finish(None, superseded=True)
                self._pending = None
            if self._running is not None:
                self._running._cancel.set()
            self._cond.notify_all()
        self._thread.join()
        sys.setswitchinterval(self._old_interval)

    def __enter__(self) -> SolveWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
