"""What the frame loop asks of a live session, whichever it is: one puzzle (``ARSession``) or a page of them
(``Page``). The loop (``cli.frames``), the web page's socket and the scripts hold a :class:`LiveSession`, never
a concrete class, and call nothing else of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ar_sudoku.ar.marks import Mode
    from ar_sudoku.ar.overlay import OverlayRenderer
    from ar_sudoku.ar.session import FrameResult
    from ar_sudoku.vision.yuv import I420


class LiveSession(Protocol):
    """A session the frame loop steps: a frame in, its result out; the user's commands; drawing; closing."""

    overlay: OverlayRenderer
    mode: Mode  # what is drawn: answer, check or hint

    def working_gray(self, frame: np.ndarray | I420) -> np.ndarray:
        """The frame's grey at working size: pure, for a decoder thread to make ahead of ``step``."""
        ...

    def step(self, frame: np.ndarray | I420, still: bool = False, small: np.ndarray | None = None) -> FrameResult:
        """Advance one frame (``still``: a photo, its own scene, read at once)."""
        ...

    def draw(self, frame: np.ndarray, result: FrameResult) -> np.ndarray:
        """The overlay of ``result`` on ``frame``, in place."""
        ...

    def set_mode(self, mode: Mode) -> None:
        """answer, check or hint, from the next frame on."""
        ...

    def set_focus(self, puzzle: int | None) -> None:
        """The puzzle (a track id) that corrections and hints go to; one puzzle's session has only its own."""
        ...

    def set_override(self, cell: int, digit: int) -> None:
        """A user's correction of a misread cell (0 clears)."""
        ...

    def next_hint(self) -> None:
        """Take the hint shown as written, and show the next."""
        ...

    def close(self) -> None:
        """Stop the solver and let go of what the session holds."""
        ...
