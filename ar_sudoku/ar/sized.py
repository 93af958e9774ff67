"""Answers drawn on a 4x4, 6x6 or 16x16 grid (issue 24), in the symbols the page prints.

The photo's 9x9 marks (:mod:`ar_sudoku.ar.marks`, :mod:`ar_sudoku.ar.overlay`) name 81 cells; a grid of
another size gets its answers here: each missing value in the page's own style (``B`` or ``11`` or ``A``),
drawn flat in the grid's plane and carried onto the paper by the corners' homography, blended into the
photo's pixels under the ink only, in the grid's bounding box.
"""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np

from ar_sudoku.ar.overlay import ANSWER, Canvas
from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.vision.render import put_centered
from ar_sudoku.vision.sizes import styled
from ar_sudoku.vision.yuv import I420, yuv_of


class Answered(Protocol):
    """What drawing a grid's answers needs: a photo's reading or a live frame's result alike (a protocol, so
    this module need not import the session that imports it)."""

    @property
    def corners(self) -> np.ndarray | None: ...
    @property
    def givens(self) -> str | None: ...
    @property
    def solution(self) -> str | None: ...
    @property
    def symbols(self) -> str: ...
    @property
    def size(self) -> int: ...

CELL = 64  # px a cell where the answers are drawn flat


def draw_answers(img: Canvas, result: Answered, colour: tuple[int, int, int] = ANSWER) -> None:
    """Every missing value of a solved grid of any size (a photo's reading, or a live frame's puzzle), drawn on
    ``img`` in place: a BGR image, or a video's I420 frame (its Y plane, and U and V at half size)."""
    if result.corners is None or not result.solution or not result.givens:
        return
    n = result.size
    side = n * CELL
    flat = np.zeros((side, side), np.uint8)
    answers = styled(result.solution, result.symbols)
    for i, ch in enumerate(result.givens):
        if is_empty(ch):
            r, c = divmod(i, n)
            text = answers[i]
            height = CELL * (0.5 if len(text) < 2 else 0.42)
            put_centered(flat, text, ((c + 0.5) * CELL, (r + 0.5) * CELL), height, (255, 255, 255),
                         max(2, CELL // 14))
    corners = np.asarray(result.corners, np.float32)
    h, w = img.shape[:2]
    x0, y0, bw, bh = cv2.boundingRect(corners.reshape(-1, 1, 2))
    # an even box: an I420 frame's chroma planes take it at half size, pixel for pixel
    x0, y0 = max(0, x0) & ~1, max(0, y0) & ~1
    x1, y1 = min(w & ~1, (x0 + bw + 2) & ~1), min(h & ~1, (y0 + bh + 2) & ~1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, corners - np.array([x0, y0], np.float32))
    alpha = cv2.warpPerspective(flat, hmat, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    if isinstance(img, I420):
        y, u, v = img.planes()
        cy, cu, cv = yuv_of(colour)
        half = cv2.resize(alpha, ((x1 - x0) // 2, (y1 - y0) // 2), interpolation=cv2.INTER_AREA)
        _blend(y[y0:y1, x0:x1], alpha, (cy,))
        _blend(u[y0 // 2:y1 // 2, x0 // 2:x1 // 2], half, (cu,))
        _blend(v[y0 // 2:y1 // 2, x0 // 2:x1 // 2], half, (cv,))
    else:
        _blend(img[y0:y1, x0:x1], alpha, colour)


def _blend(roi: np.ndarray, alpha: np.ndarray, colour: tuple[int, ...]) -> None:
    """``colour`` laid over ``roi`` (in place) as much as ``alpha`` says, pixel by pixel."""
    a = alpha if roi.ndim == 2 else alpha[..., None]
    roi[:] = (roi.astype(np.float32) * (1 - a) + np.array(colour, np.float32) * a).astype(np.uint8)
