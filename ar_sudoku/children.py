"""Child processes leave Ctrl-C to their parent.

A terminal's Ctrl-C goes to the whole process group: the solver process and the photo
workers got it too, each printed a ``KeyboardInterrupt`` traceback (from wherever it was,
often the middle of an import) and died while the parent was still handing out work. The
parent alone decides: it stops its children itself when it is interrupted.

A spawned child is a fresh interpreter that needs a while to import its modules; a handler
set once its code runs would come too late. So the parent starts children with SIGINT
*blocked* (a signal mask survives ``fork`` and ``exec``): a Ctrl-C during the child's start
stays pending, and :func:`ignore_sigint`, its first act, ignores it for good (which drops one
pending) and unblocks. The block is set once multiprocessing's resource tracker runs: starting
the tracker (the first spawn does) *unblocks* SIGINT in the calling thread, which undid the
block for every child started with it. The parent's own Ctrl-C is not lost meanwhile: the mask
is the calling thread's, and Python runs the handler in the main thread whichever thread took
the signal (or once the mask is lifted). :func:`ordered_map` runs work in such children and
stops them whenever its caller stops. Like :mod:`errors`, this sits below every layer.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Any

from ar_sudoku.signals import held


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """Processes started inside this block begin with SIGINT blocked (POSIX; elsewhere a no-op). A signal
    another thread took meanwhile is raised in the main thread once the block ends (``signals.held``): raised
    in the middle of a start, it left the child reading start-up data its parent never sent, and the child
    printed an ``EOFError`` traceback."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()  # now, not inside the block: its start unblocks SIGINT and SIGTERM
    with held():
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def ignore_sigint() -> None:
    """In a child's main thread: Ctrl-C is the parent's business from now on."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class WorkerDied(RuntimeError):
    """A worker process ended without answering (killed: out of memory, or a signal)."""


def _serve(conn: Any, fn: Callable[[Any], Any], initializer: Callable[[], object] | None) -> None:
    """A worker: batches of items in, their results (or the error) out, until told to stop."""
    ignore_sigint()
    if initializer is not None:
        initializer()
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        try:
            reply: tuple[str, Any] = ("ok", [fn(item) for item in batch])
        except Exception as exc:  # the parent raises it, as a pool would
            reply = ("error", exc)
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
        except Exception as exc:  # a result or an error that does not pickle
            conn.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def ordered_map(fn: Callable[[Any], Any], items: Sequence[Any], processes: int, *,
                initializer: Callable[[], object] | None = None, batch: int = 2) -> Iterator[Any]:
    """``fn(item)`` for each item, in order, computed by ``processes`` spawned worker processes.

    Unlike ``ProcessPoolExecutor`` (before Python 3.14 it cannot stop its workers), the caller's
    exit from the loop by any road (Ctrl-C, SIGTERM, an error, a ``break``) stops the workers at
    once and waits for each: each has a pipe of its own, so one killed mid-answer leaves no shared
    queue or lock half-used, and nothing waits for it at the interpreter's exit. The workers start
    with Ctrl-C blocked and then ignore it (it is the caller's to act on). A worker that dies raises
    :class:`WorkerDied`; an exception in ``fn`` is raised here.
    """
    ctx = mp.get_context("spawn")  # no fork of a process that holds threads and OpenCV state
    batches = [list(items[i: i + batch]) for i in range(0, len(items), batch)]
    workers: list[tuple[Any, Any]] = []
    finished = False
    try:
        with sigint_blocked():
            for _ in range(max(1, min(processes, len(batches)))):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(child, fn, initializer), name="ar-sudoku-worker",
                                   daemon=True)
                proc.start()
                child.close()
                workers.append((proc, parent))
        sent = 0
        busy: dict[Any, tuple[int, Any]] = {}  # connection -> (batch index, process)
        for proc, conn in workers:
            if sent < len(batches):
                conn.send(batches[sent])
                busy[conn] = (sent, proc)
                sent += 1
        results: dict[int, list[Any]] = {}
        for k in range(len(batches)):
            while k not in results:
                ready = wait([*busy, *(proc.sentinel for _, proc in busy.values())])
                answered = [c for c in busy if c in ready]
                for conn in answered:
                    index, proc = busy.pop(conn)
                    try:
                        status, value = conn.recv()
                    except (EOFError, OSError):
                        raise WorkerDied(f"a worker process (pid {proc.pid}) ended without answering") from None
                    if status == "error":
                        raise value
                    results[index] = value
                    if sent < len(batches):
                        conn.send(batches[sent])
                        busy[conn] = (sent, proc)
                        sent += 1
                if not answered:  # only a sentinel: a worker died with nothing to say
                    dead = next(proc for _, proc in busy.values() if proc.sentinel in ready)
                    raise WorkerDied(f"a worker process (pid {dead.pid}) ended without answering")
            yield from results.pop(k)
        finished = True
    finally:
        _stop(workers, politely=finished)


def _stop(workers: list[tuple[Any, Any]], politely: bool) -> None:
    """Idle workers are told to leave; otherwise SIGTERM (SIGKILL for one that lingers). Each is waited for."""
    for proc, conn in workers:
        if politely:
            with contextlib.suppress(OSError):
                conn.send(None)
        elif proc.is_alive():
            proc.terminate()
    for proc, conn in workers:
        proc.join(timeout=5.0)
        if proc.is_alive():
            proc.kill()
            proc.join()
        conn.close()
