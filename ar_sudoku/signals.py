"""Ctrl-C, SIGTERM and SIGHUP as exceptions in the main thread: raised once, or held over a short section.

``stop_on_signals()`` is the first thing the ``ar-sudoku`` command does (before it imports
NumPy or OpenCV): SIGINT raises ``KeyboardInterrupt`` as Python's own handler does, and
SIGTERM and SIGHUP raise :class:`Terminated`, so every ``with`` and ``finally`` on the way out
runs (workers stopped, temporary files removed) and the command ends with one line and
128 + the signal's number, as a shell reports it. By default SIGTERM killed the process on the
spot, leaving its worker processes running. Only the first signal is raised: once the command
is stopping, a second Ctrl-C must not cut its clean-up short (SIGKILL still ends it). Inside
:func:`held` a signal waits for the section's end, so that what the section does (write a
file and report it) is done whole or not at all.

Stdlib only, so that importing it costs nothing before the handlers are in place; below every layer (as
:mod:`ar_sudoku.children` is, which holds a signal while it starts a child process), and without the handlers
installed (a library's use) :func:`held` changes nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_caught: int | None = None  # the signal being acted on: later ones are dropped
_pending: int | None = None  # a signal that arrived inside held()
_holding = 0
RETRY = 0.005  # seconds before a signal that landed inside an import is raised again


def exception_for(signum: int) -> KeyboardInterrupt:
    """What a signal raises: KeyboardInterrupt for Ctrl-C, Terminated for the others."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def _handler(signum: int, frame: FrameType | None) -> None:
    global _caught, _pending
    if _caught is not None:
        return  # stopping already
    if _holding:
        _pending = _pending or signum
        return
    if frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
        # raised in the import machinery's weakref callbacks, the exception is printed as "ignored" and the
        # command runs on: the signal is sent again once the main thread is out of it
        threading.Timer(RETRY, os.kill, (os.getpid(), signum)).start()
        return
    _caught = signum
    raise exception_for(signum)


def stop_on_signals() -> None:
    """Install the handlers (main thread only; a signal the caller ignores, as ``nohup`` does SIGHUP, stays so)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handler)


def caught() -> int | None:
    """The signal that stopped the command, if one did."""
    return _caught


@contextmanager
def held() -> Iterator[None]:
    """A signal that arrives inside the block is raised when it ends, not in its middle."""
    global _holding, _pending, _caught
    _holding += 1
    try:
        yield
    finally:
        _holding -= 1
        if not _holding and _pending is not None:
            signum, _pending = _pending, None
            if _caught is None:
                _caught = signum
                raise exception_for(signum)


def forget_unhandled_interrupt() -> None:
    """Before exiting: CPython remembers a ``KeyboardInterrupt`` raised inside code that an extension ran from a
    string (``PyRun_String``: pybind11's, while onnxruntime imports) as unhandled, although the command handled
    it, and at the exit of ``python -m ar_sudoku`` killed itself with SIGINT (the shell saw -2, not 130: one
    Ctrl-C in ten during start-up, on a loaded machine). Running any code from a string resets that flag."""
    import ctypes

    ctypes.pythonapi.PyRun_SimpleString(b"")
