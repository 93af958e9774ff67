"""Child processes leave Ctrl-C to their parent.

A terminal's Ctrl-C goes to the whole process group: the solver process and the photo
workers got it too, each printed a ``KeyboardInterrupt`` traceback (from wherever it was,
often the middle of an import) and died while the parent was still handing out work. The
parent alone decides: it stops its children itself when it is interrupted.

A spawned child is a fresh interpreter that needs a while to import its modules; a handler
set once its code runs would come too late. So the parent starts children with SIGINT
*blocked* (a signal mask survives ``fork`` and ``exec``): a Ctrl-C during the child's start
stays pending, and :func:`ignore_sigint`, its first act, ignores it for good (which drops one
pending) and unblocks. The parent's own Ctrl-C is not lost meanwhile: the mask is the calling
thread's, and Python runs the handler in the main thread whichever thread took the signal (or
once the mask is lifted). Like :mod:`errors`, this sits below every layer.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def sigint_blocked() -> Iterator[None]:
    """Processes started inside this block begin with SIGINT blocked (POSIX; elsewhere a no-op)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
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
