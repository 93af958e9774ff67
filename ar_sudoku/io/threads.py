"""Helper threads that yield to the frame loop."""

from __future__ import annotations

import contextlib
import os
import threading


def lower_priority(step: int = 10) -> None:
    """Make the calling thread yield to the frame loop's (Linux: nice is per thread); elsewhere a no-op.

    The decoder and the encoder run beside the loop on their own threads; when the cores
    are shared, the loop's work goes first and they take the time left over.
    """
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + step)
