from __future__ import annotations

import threading

import pytest
from conftest import EASY, EASY_SOLUTION, PATHOLOGICAL, SLOW

from ar_sudoku.ar import solve_worker
from ar_sudoku.ar.solve_worker import SolveWorker


@pytest.fixture
def gated(monkeypatch):
    """A worker on its own thread whose jobs block until the test opens the gate: what the caller sees
    while a solve is still running is then certain, whatever the machine's load."""
    gate, started = threading.Event(), threading.Event()
    real = solve_worker.run_job

    def blocked(job, cancel):
        started.set()
        assert gate.wait(60), "the test never opened the gate"
        return real(job, cancel)

    monkeypatch.setattr(solve_worker, "run_job", blocked)
    with SolveWorker(use_process=False) as worker:
        yield worker, gate, started
        gate.set()


def test_submit_returns_at_once_and_solves(gated):
    worker, gate, started = gated
    h = worker.submit(EASY, timeout=2)
    assert started.wait(60)  # the worker has the job, and is held inside it: submit did not wait for it
    assert not h.done() and h.status == "pending"
    gate.set()
    assert h.wait(60).solution == EASY_SOLUTION
    assert h.done() and h.status == "solved"


def test_polling_a_running_solve_never_blocks_the_caller(gated):
    worker, gate, started = gated
    h = worker.submit(SLOW, timeout=0.3)
    assert started.wait(60)
    for _ in range(100):  # the worker is held: every poll answers "not yet" without waiting for it
        assert h.result() is None and not h.done()
    gate.set()
    assert h.wait(60).status == "timeout"


def test_pathological_reading_times_out_in_the_solver_process():
    """The search has its own deadline: a search that would run for minutes reports a timeout."""
    with SolveWorker() as worker:
        assert worker._proc is not None and worker._proc.is_alive()
        h = worker.submit(SLOW, timeout=0.3)
        assert h.wait(60) is not None, "the deadline was not honoured"
        assert h.status == "timeout"


def test_newer_submission_supersedes_older():
    with SolveWorker() as worker:
        handles = [worker.submit(SLOW, timeout=30) for _ in range(5)]
        last = worker.submit(EASY, timeout=5)
        assert last.wait(60).solution == EASY_SOLUTION
        for h in handles:
            h.wait(60)  # cancelled, not left to run its 30 s
            assert h.done() and h.superseded and h.status == "superseded"


def test_the_impossible_puzzle_is_proved_unsolvable_not_timed_out():
    with SolveWorker() as worker:
        assert worker.submit(PATHOLOGICAL, timeout=5).wait(60).status == "unsolvable"


def test_bad_reading_reports_invalid():
    with SolveWorker() as worker:
        assert worker.submit("55" + EASY[2:]).wait(60).status == "invalid"
        assert worker.submit("garbage").wait(60).status == "invalid"


def test_close_joins_the_thread():
    worker = SolveWorker()
    thread, proc = worker._thread, worker._proc
    assert thread.is_alive() and thread.name == "ar-sudoku-solver"
    assert proc is not None and proc.is_alive()
    h = worker.submit(EASY)
    worker.close()
    assert not thread.is_alive()  # joined, not left running
    assert not proc.is_alive() and worker._proc is None  # the solver process is stopped too
    assert h.done()  # solved, or superseded by the close: never left pending
    with pytest.raises(RuntimeError, match="closed"):
        worker.submit(EASY)


def test_a_lane_supersedes_only_its_own_submissions(gated):
    """A page's puzzles share one worker, a lane each: one puzzle's newer reading must not cancel another's
    solve (its session would wait for an answer that never comes), only its own older one."""
    worker, gate, started = gated
    running = worker.submit(EASY, timeout=2, lane="a")
    assert started.wait(60)  # lane a's job is inside the solver, held there
    queued_b = worker.submit(EASY, timeout=2, lane="b")
    old_a = worker.submit(SLOW, timeout=0.3, lane="a")
    new_a = worker.submit(EASY, timeout=2, lane="a")
    assert old_a.done() and old_a.superseded  # dropped from the queue by its own lane's newer one
    assert not queued_b.done()  # lane b's job waits its turn, untouched
    gate.set()
    running.wait(60)
    assert running.superseded  # a's running job was cancelled by a's newer one
    assert queued_b.wait(60).solution == EASY_SOLUTION and not queued_b.superseded
    assert new_a.wait(60).solution == EASY_SOLUTION
