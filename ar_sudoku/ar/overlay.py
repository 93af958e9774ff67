"""Draw on the paper, in the grid's own perspective: solved digits, marked mistakes, hints.

What to draw is a :class:`~ar_sudoku.ar.marks.Marks`; it is drawn once in a
flat, square BGRA image of the grid (one cell = ``cell`` pixels) and
reprojected onto the frame with ``cv2.findHomography`` +
``cv2.warpPerspective``, then blended with ``cv2.addWeighted``. Only the
bounding box of the grid is warped and blended, so the cost does not grow
with the frame size. The flat layer is cached per ``Marks``, so a tracked
board redraws cheaply every frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from ar_sudoku.ar.marks import Marks
from ar_sudoku.vision.render import put_centered

STRONG, WEAK = 255, 110  # layer alpha: marks, and the shading of a hint's unit


@dataclass
class OverlayRenderer:
    """Configured once, applied per frame: ``frame = renderer.draw(frame, corners, givens, solution)``."""

    color: tuple[int, int, int] = (40, 170, 0)  # BGR, a clear green-teal
    alpha: float = 0.9
    cell: int = 48
    digit_height: float = 0.5  # of a cell
    _cache: dict = field(default_factory=dict, repr=False)

    mistake_color: tuple[int, int, int] = (30, 30, 230)  # BGR red
    hint_color: tuple[int, int, int] = (200, 90, 0)  # BGR blue
    shade_color: tuple[int, int, int] = (0, 200, 255)  # BGR amber

    def _center(self, i: int) -> tuple[float, float]:
        r, c = divmod(i, 9)
        return (c + 0.5) * self.cell, (r + 0.5) * self.cell

    def layer(self, marks: Marks) -> np.ndarray:
        """``marks`` in the flat grid plane, as BGRA (alpha: STRONG for marks, WEAK for shading)."""
        if marks not in self._cache:
            k = self.cell
            side = 9 * k
            bgr = np.zeros((side, side, 3), np.uint8)
            alpha = np.zeros((side, side), np.uint8)
            for i in marks.shade:
                r, c = divmod(i, 9)
                bgr[r * k : (r + 1) * k, c * k : (c + 1) * k] = self.shade_color
                alpha[r * k : (r + 1) * k, c * k : (c + 1) * k] = WEAK
            thick = max(2, k // 16)
            for i, d in marks.answers:
                for img, col in ((bgr, self.color), (alpha, (STRONG,) * 3)):
                    put_centered(img, d, self._center(i), k * self.digit_height, col, thick)
            rings = [(i, self.hint_color) for i in marks.ring] + [(i, self.mistake_color) for i in marks.mistakes]
            for i, col in rings:
                x, y = self._center(i)
                for img, c in ((bgr, col), (alpha, (STRONG,) * 3)):
                    cv2.circle(img, (round(x), round(y)), round(0.42 * k), c, max(2, k // 12), cv2.LINE_AA)
            for i, text in marks.small:
                x, y = self._center(i)
                # a hinted digit sits small in its ring; a removed candidate ("-4") in the top-right corner;
                # the right digit of a mistake ("+4", drawn without the sign) there too, in the answer's colour
                where, height = ((x, y), 0.34 * k) if text.isdigit() else ((x + 0.2 * k, y - 0.24 * k), 0.26 * k)
                col = self.color if text.startswith("+") else self.hint_color
                for img, c in ((bgr, col), (alpha, (STRONG,) * 3)):
                    put_centered(img, text.lstrip("+"), where, height, c, max(2, k // 20))
            layer = cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA)
            layer[:, :, 3] = alpha
            self._cache.clear()
            self._cache[marks] = layer
        return self._cache[marks]

    def flat_layer(self, givens: str, solution: str) -> np.ndarray:
        """The solved digits of the empty cells, in the flat grid plane, as BGRA."""
        return self.layer(Marks(answers=tuple((i, d) for i, (g, d) in enumerate(zip(givens, solution))
                                              if g in ".0" and d not in ".0")))

    def draw(self, frame: np.ndarray, corners: np.ndarray, givens: str, solution: str,
             lattice: np.ndarray | None = None) -> np.ndarray:
        """Blend the solved digits into ``frame`` in place (and return it)."""
        return self.composite(frame, corners, self.flat_layer(givens, solution), lattice)

    def draw_marks(self, frame: np.ndarray, corners: np.ndarray, marks: Marks,
                   lattice: np.ndarray | None = None) -> np.ndarray:
        """Blend ``marks`` into ``frame`` in place (and return it); through ``lattice`` on a curled page."""
        if marks.empty and not marks.shade:
            return frame
        return self.composite(frame, corners, self.layer(marks), lattice)

    def composite(self, frame: np.ndarray, corners: np.ndarray, layer: np.ndarray,
                  lattice: np.ndarray | None = None) -> np.ndarray:
        """Reproject a flat BGRA layer onto the grid and blend it in, in place.

        A flat grid takes one homography of its corners; a curled one (``lattice``,
        the 10x10 crossings) one homography per 3x3 box, fitted by
        ``findHomography`` to the box's 16 crossings, so digits sit centred in each
        cell's own shape. Each warp covers only its bounding box, then
        ``addWeighted`` and a masked ``copyTo`` there: the cost follows the grid's
        size on screen, never the frame's.
        """
        side = layer.shape[0]
        if lattice is None:
            src = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
            self._blend(frame, layer, src, np.asarray(corners, np.float32).reshape(4, 2))
            return frame
        k = side / 9.0
        flat = np.stack(np.meshgrid(np.arange(4.0), np.arange(4.0)), axis=-1).reshape(-1, 2) * k  # a box: 4x4 crossings
        for br in range(3):
            for bc in range(3):
                patch = layer[round(br * 3 * k) : round((br + 1) * 3 * k), round(bc * 3 * k) : round((bc + 1) * 3 * k)]
                if not patch[:, :, 3].any():
                    continue
                dst = lattice[br * 3 : br * 3 + 4, bc * 3 : bc * 3 + 4].reshape(-1, 2)
                self._blend(frame, patch, flat.astype(np.float32), dst.astype(np.float32))
        return frame

    def _blend(self, frame: np.ndarray, layer: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
        """Warp ``layer`` (its points ``src`` onto ``dst``) into the bounding box of ``dst``, and blend."""
        h, w = frame.shape[:2]
        x0, y0 = np.floor(dst.min(axis=0)).astype(int)
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1 + 1), min(h, y1 + 1)
        if x1 <= x0 or y1 <= y0:
            return
        hmat, _ = cv2.findHomography(src, dst - np.float32([x0, y0]))
        if hmat is None:
            return
        warped = cv2.warpPerspective(layer, hmat, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        # whole-array conversions: a strided numpy view of three channels would be copied slowly
        bgr, alpha = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), cv2.extractChannel(warped, 3)
        roi = frame[y0:y1, x0:x1]
        blended = cv2.addWeighted(roi, 1.0 - self.alpha, bgr, self.alpha, 0.0)
        strong = cv2.compare(alpha, (STRONG + WEAK) // 2, cv2.CMP_GT)
        weak = cv2.bitwise_and(cv2.compare(alpha, 40, cv2.CMP_GT), cv2.bitwise_not(strong))
        if cv2.countNonZero(weak):
            cv2.copyTo(cv2.addWeighted(roi, 0.65, bgr, 0.35, 0.0), weak, roi)
        cv2.copyTo(blended, strong, roi)


def draw_status(frame: np.ndarray, lines: list[str], color: tuple[int, int, int] = (255, 255, 255)) -> np.ndarray:
    """A small translucent box of status lines in the top-left corner (in place)."""
    if not lines:
        return frame
    scale = max(0.45, frame.shape[0] / 1400)
    th = 1
    sizes = [cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, scale, th)[0] for t in lines]
    lh = max(s[1] for s in sizes) + 8
    w = max(s[0] for s in sizes) + 16
    h = lh * len(lines) + 8
    roi = frame[0 : min(h, frame.shape[0]), 0 : min(w, frame.shape[1])]
    cv2.addWeighted(roi, 0.45, np.zeros_like(roi), 0.55, 0, dst=roi)
    for k, t in enumerate(lines):
        cv2.putText(frame, t, (8, 4 + lh * (k + 1) - 4), cv2.FONT_HERSHEY_SIMPLEX, scale, color, th, cv2.LINE_AA)
    return frame
