"""The one place that calls imshow/waitKey; keys and clicks are decided by pure functions.

``handle_key`` and ``cell_at`` take plain values and return what to do, so the
key bindings and the click-to-correct feature are tested without a screen.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.vision.tracker import FLAT_CORNERS

WINDOW = "ar-sudoku"
BACKSPACE = {8, 127, 0xFF08, 0xFFFF}  # Backspace/Delete on the usual HighGUI backends
ESC = 27


class WindowError(ArSudokuError, RuntimeError):
    """No screen to show a window on."""


MODE_KEYS = {ord("a"): "answer", ord("c"): "check", ord("h"): "hint"}


@dataclass
class UiState:
    paused: bool = False
    show_status: bool = True
    selected: int | None = None  # the cell clicked for a correction
    quit: bool = False


@dataclass(frozen=True)
class Action:
    kind: str  # quit | pause | snapshot | toggle_status | set | mode | next_hint | none
    cell: int | None = None
    digit: int | None = None
    mode: str | None = None


def handle_key(key: int, ui: UiState) -> Action:
    """What a key press means; updates ``ui`` (pause, status display, selection)."""
    if key < 0:
        return Action("none")
    k = key & 0xFF if key not in BACKSPACE else key
    if k in (ord("q"), ord("Q"), ESC):
        ui.quit = True
        return Action("quit")
    if k == ord(" "):
        ui.paused = not ui.paused
        return Action("pause")
    if k in (ord("s"), ord("S")):
        return Action("snapshot")
    if k in (ord("i"), ord("I")):
        ui.show_status = not ui.show_status
        return Action("toggle_status")
    if k | 0x20 in MODE_KEYS:
        return Action("mode", mode=MODE_KEYS[k | 0x20])
    if k in (ord("n"), ord("N")):
        return Action("next_hint")
    if ui.selected is not None and (ord("0") <= k <= ord("9") or key in BACKSPACE or k in (8, 127)):
        digit = k - ord("0") if ord("0") <= k <= ord("9") else 0
        cell, ui.selected = ui.selected, None
        return Action("set", cell, digit)
    return Action("none")


def cell_at(point: tuple[float, float], corners: np.ndarray | None) -> int | None:
    """The cell (0..80, row by row) under a click, or None outside the grid."""
    if corners is None:
        return None
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), FLAT_CORNERS)
    x, y = cv2.perspectiveTransform(np.array([[point]], np.float32), hmat)[0, 0]
    if not (0 <= x < 9 and 0 <= y < 9):
        return None
    return int(y) * 9 + int(x)


def display_available() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


class Window:
    """An OpenCV window with a click handler; ``poll`` returns the key pressed (or -1)."""

    def __init__(self, title: str = WINDOW):
        os.environ.setdefault("QT_LOGGING_RULES", "*.debug=false;qt.qpa.*=false")
        fonts = "/usr/share/fonts/truetype/dejavu"
        if os.path.isdir(fonts):
            os.environ.setdefault("QT_QPA_FONTDIR", fonts)  # the wheel's Qt ships no fonts
        if not display_available():
            raise WindowError("no screen to show a window on (DISPLAY is not set); "
                              "run headless: ar-sudoku video samples/demo.mp4 --headless --output annotated.mp4")
        self.title = title
        self.click: tuple[int, int] | None = None
        try:
            cv2.namedWindow(title, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)  # no Qt toolbar
            cv2.setMouseCallback(title, self._on_mouse)
        except cv2.error as exc:
            raise WindowError(f"cannot open a window ({exc.err}); try --headless") from exc

    def _on_mouse(self, event: int, x: int, y: int, flags: int, param: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN:
            self.click = (x, y)

    def show(self, frame: np.ndarray) -> None:
        cv2.imshow(self.title, frame)

    def poll(self, delay_ms: int = 1) -> int:
        return cv2.waitKeyEx(delay_ms)

    def take_click(self) -> tuple[int, int] | None:
        c, self.click = self.click, None
        return c

    def close(self) -> None:
        with contextlib.suppress(cv2.error):
            cv2.destroyWindow(self.title)
