"""The allocator keeps the large per-frame buffers it is given back, rather than return them to the kernel.

glibc hands blocks over 128 kB to the kernel when they are freed (``mmap``/``munmap``, and trimming the
heap's top), so every frame's multi-megabyte arrays (the decoded frame, its grey copies, the warps, the
annotated copy, the encoder's input) are page-faulted and zeroed anew, frame after frame. Keeping freed
memory for reuse removes that kernel work from every frame of a video and every photo of a folder
(whole-process runs with the equivalent ``MALLOC_*_`` variables were measurably faster, headless and
recording). The process keeps its peak heap (tens of MB), which it would reach again on the next frame
anyway.
"""

from __future__ import annotations

import ctypes
import sys

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_FROM = 32 << 20  # blocks this large still come from mmap (a 12 MP photo's 36 MB); glibc's ceiling
TRIM_FROM = 512 << 20  # free heap kept before any is given back


def keep_freed_memory() -> bool:
    """Tell glibc to reuse freed blocks (Linux); elsewhere, or on another C library, a no-op. True if set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_FROM)) and bool(libc.mallopt(M_TRIM_THRESHOLD, TRIM_FROM))
    except (OSError, AttributeError):  # musl and others have no mallopt
        return False
