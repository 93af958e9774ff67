from __future__ import annotations

import threading
import time

from conftest import EASY, EASY_SOLUTION, PATHOLOGICAL, SLOW

from ar_sudoku.ar.solve_worker import SolveWorker


def test_submit_returns_at_once_and_solves():
    with SolveWorker() as worker:
        t0 = time.perf_counter()
        h = worker.submit(EASY, timeout=2)
        assert time.perf_counter() - t0 < 0.05
        assert h.wait(5).solution == EASY_SOLUTION
        assert h.done() and h.status == "solved"


def test_pathological_reading_times_out_and_never_blocks_the_caller():
    with SolveWorker() as worker:
        h = worker.submit(SLOW, timeout=0.3)
        t0 = time.perf_counter()
        slowest_poll = 0.0
        while not h.done():
            t = time.perf_counter()
            assert h.result() is None  # polling returns at once
            slowest_poll = max(slowest_poll, time.perf_counter() - t)
            time.sleep(0.002)
            assert time.perf_counter() - t0 < 5, "the deadline was not honoured"
        assert h.status == "timeout"
        assert slowest_poll < 0.02


def test_newer_submission_supersedes_older():
    with SolveWorker() as worker:
        handles = [worker.submit(SLOW, timeout=30) for _ in range(5)]
        last = worker.submit(EASY, timeout=5)
        assert last.wait(5).solution == EASY_SOLUTION
        for h in handles:
            h.wait(5)  # cancelled, not left to run its 30 s
            assert h.done() and h.superseded and h.status == "superseded"


def test_the_impossible_puzzle_is_proved_unsolvable_not_timed_out():
    with SolveWorker() as worker:
        assert worker.submit(PATHOLOGICAL, timeout=5).wait(6).status == "no_solution"


def test_bad_reading_reports_invalid():
    with SolveWorker() as worker:
        assert worker.submit("55" + EASY[2:]).wait(5).status == "invalid"
        assert worker.submit("garbage").wait(5).status == "invalid"


def test_close_joins_the_thread():
    before = {t.name for t in threading.enumerate()}
    worker = SolveWorker()
    worker.submit(EASY)
    worker.close()
    after = [t for t in threading.enumerate() if t.name == "ar-sudoku-solver"]
    assert not after or "ar-sudoku-solver" in before
