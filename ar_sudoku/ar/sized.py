"""Answers drawn on a 4x4, 6x6 or 16x16 grid (issue 24), in the symbols the page prints.

The photo's 9x9 marks (:mod:`ar_sudoku.ar.marks`, :mod:`ar_sudoku.ar.overlay`) name 81 cells; a grid of
another size gets its answers here: each missing value in the page's own style (``B`` or ``11`` or ``A``),
drawn flat in the grid's plane and carried onto the paper by the corners' homography, blended into the
photo's pixels under the ink only, in the grid's bounding box.
"""

from __future__ import annotations

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.vision.render import BLUE, put_centered
from ar_sudoku.vision.sizes import styled

CELL = 64  # px a cell where the answers are drawn flat


def draw_answers(img: np.ndarray, result: BoardResult, colour: tuple[int, int, int] = BLUE) -> None:
    """Every missing value of a solved grid of any size, drawn on ``img`` (BGR, in place)."""
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
    x0, y0, w, h = cv2.boundingRect(corners.reshape(-1, 1, 2))
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(img.shape[1], x0 + w + 1), min(img.shape[0], y0 + h + 1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, corners - np.array([x0, y0], np.float32))
    alpha = cv2.warpPerspective(flat, hmat, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    roi = img[y0:y1, x0:x1].astype(np.float32)
    roi = roi * (1 - alpha[..., None]) + np.array(colour, np.float32) * alpha[..., None]
    img[y0:y1, x0:x1] = roi.astype(np.uint8)
