"""Helper threads that yield to the frame loop."""

from __future__ import annotations

import contextlib
import os
import threading


def lower_priority(step: int = 10, *, idle: bool = False) -> None:
    """Make the calling thread yield to the frame loop's (Linux: nice is per thread); elsewhere a no-op.

    The decoder and the encoder run beside the loop on their own threads; when the cores
    are shared, the loop's work goes first and they take the time left over.

    ``idle`` (Linux): the thread runs only when no other thread wants the core (``SCHED_IDLE``),
    and gives it up the moment one wakes. For the recording's writer: a niced thread keeps the
    core until its time slice ends, so OpenCV's pool worker, woken to share a frame's parallel
    work, came too late to help, and a 720p recording ran at 87% of a plain run's fps; as idle,
    90% (``scripts/bench_live.py --recording-only``). Starving it cannot lose a frame: its queue
    is bounded, and a full queue makes the loop wait until the writer has caught up.
    """
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + step)
        if idle:
            os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
