"""Draw on the paper, in the grid's own perspective: solved digits, marked mistakes, hints.

What to draw is a :class:`~ar_sudoku.ar.marks.Marks`; it is drawn once in a
flat, square BGRA image of the grid (one cell = ``cell`` pixels) and
reprojected onto the frame with ``cv2.findHomography`` +
``cv2.warpPerspective``, then blended with ``cv2.addWeighted``. Only the
bounding box of the grid is warped and blended, and on a grid large on screen
(4K) only the boxes of its ink (digits, rings, shaded units), so the cost
hardly grows with the frame size. The flat layer is cached per ``Marks``, so a tracked
board redraws cheaply every frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

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
    _inked: tuple | None = field(default=None, repr=False)  # (the cached layer, its inked boxes)

    mistake_color: tuple[int, int, int] = (30, 30, 230)  # BGR red
    hint_color: tuple[int, int, int] = (200, 90, 0)  # BGR blue
    shade_color: tuple[int, int, int] = (0, 200, 255)  # BGR amber

    def fresh(self) -> OverlayRenderer:
        """The same look with caches of its own: for drawing on another thread (the recording's writer)."""
        return replace(self, _cache={}, _inked=None)

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
            self._inked = (layer, _ink_boxes(alpha))
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
            boxes = self._inked[1] if self._inked is not None and self._inked[0] is layer else None
            self._blend(frame, layer, src, np.asarray(corners, np.float32).reshape(4, 2), boxes)
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

    def _blend(self, frame: np.ndarray, layer: np.ndarray, src: np.ndarray, dst: np.ndarray,
               boxes: np.ndarray | None = None) -> None:
        """Warp ``layer`` (its points ``src`` onto ``dst``) into the bounding box of ``dst``, and blend.

        With ``boxes`` (the layer's inked boxes, flat pixels) and a grid large on screen, only the
        boxes' places on the frame are warped and blended: the ink covers a few percent of the grid, and
        at 4K the whole box of the grid (3 Mpx) costs ~10 ms to warp. The boxes never overlap on the
        frame (overlapping ones are merged), so each pixel is blended once, as by the whole warp.
        """
        h, w = frame.shape[:2]
        x0, y0 = np.floor(dst.min(axis=0)).astype(int)
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1 + 1), min(h, y1 + 1)
        if x1 <= x0 or y1 <= y0:
            return
        hmat, _ = cv2.findHomography(src, dst)
        if hmat is None:
            return
        rects = [(x0, y0, x1, y1)]
        if boxes is not None and len(boxes) and (x1 - x0) * (y1 - y0) > PER_BOX_AREA:
            placed = _place(boxes, hmat, (x0, y0, x1, y1))
            if len(placed) * PER_BOX_COST + int(((placed[:, 2] - placed[:, 0]) * (placed[:, 3] - placed[:, 1])).sum()) \
                    < (x1 - x0) * (y1 - y0):
                rects = [tuple(int(v) for v in r) for r in placed]
        for rx0, ry0, rx1, ry1 in rects:
            shift = np.array([[1, 0, -rx0], [0, 1, -ry0], [0, 0, 1]], np.float64)
            warped = cv2.warpPerspective(layer, shift @ hmat, (rx1 - rx0, ry1 - ry0), flags=cv2.INTER_LINEAR)
            self._mix(frame[ry0:ry1, rx0:rx1], warped)

    def _mix(self, roi: np.ndarray, warped: np.ndarray) -> None:
        """Blend a warped BGRA layer into ``roi`` in place: marks strongly, shading and soft edges weakly."""
        # whole-array conversions: a strided numpy view of three channels would be copied slowly
        bgr, alpha = cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), cv2.extractChannel(warped, 3)
        blended = cv2.addWeighted(roi, 1.0 - self.alpha, bgr, self.alpha, 0.0)
        strong = cv2.compare(alpha, (STRONG + WEAK) // 2, cv2.CMP_GT)
        weak = cv2.inRange(alpha, 41, (STRONG + WEAK) // 2)  # 40 < alpha <= the strong threshold
        if cv2.countNonZero(weak):
            cv2.copyTo(cv2.addWeighted(roi, 0.65, bgr, 0.35, 0.0), weak, roi)
        cv2.copyTo(blended, strong, roi)


# Per-box blending pays once the grid is large on screen: each box costs a fixed ~PER_BOX_COST pixels'
# worth of work (the calls), so the boxes are used only when they cost less than the grid's whole box.
PER_BOX_AREA = 400_000
PER_BOX_COST = 12_000


def _ink_boxes(alpha: np.ndarray) -> np.ndarray:
    """Bounding boxes (x0, y0, x1, y1, flat pixels) of the layer's inked blobs: digits, rings, shaded units."""
    n, _, stats, _ = cv2.connectedComponentsWithStats((alpha > 0).astype(np.uint8), connectivity=8)
    st = stats[1:n]
    return np.stack([st[:, 0], st[:, 1], st[:, 0] + st[:, 2], st[:, 1] + st[:, 3]], axis=1).astype(np.float32)


def _place(boxes: np.ndarray, hmat: np.ndarray, clip: tuple[int, int, int, int]) -> np.ndarray:
    """The frame rectangles that hold the warped ``boxes`` (a pixel's margin for the interpolation),
    clipped, with overlapping ones merged until none overlap."""
    # a blob of pixels x0..x1-1 colours the warp (bilinear) over (x0 - 1, x1) in the layer's coordinates
    grown = boxes + np.float32([-1, -1, 0, 0])
    corners = grown[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(corners, hmat).reshape(-1, 4, 2)
    r = np.concatenate([np.floor(pts.min(axis=1)), np.ceil(pts.max(axis=1)) + 1], axis=1).astype(np.int64)
    cx0, cy0, cx1, cy1 = clip
    r[:, [0, 2]] = r[:, [0, 2]].clip(cx0, cx1)
    r[:, [1, 3]] = r[:, [1, 3]].clip(cy0, cy1)
    r = r[(r[:, 2] > r[:, 0]) & (r[:, 3] > r[:, 1])]
    while len(r) > 1:
        over = ((r[:, None, 0] < r[None, :, 2]) & (r[None, :, 0] < r[:, None, 2])
                & (r[:, None, 1] < r[None, :, 3]) & (r[None, :, 1] < r[:, None, 3]))
        if int(over.sum()) == len(r):  # each overlaps only itself
            break
        group = np.arange(len(r))
        for i, j in zip(*np.nonzero(np.triu(over, 1))):  # union-find, small n
            a, b = group[i], group[j]
            while group[a] != a:
                a = group[a]
            while group[b] != b:
                b = group[b]
            group[max(a, b)] = min(a, b)
        for i in range(len(r)):
            while group[group[i]] != group[i]:
                group[i] = group[group[i]]
        roots = np.unique(group)
        r = np.array([[r[group == g, 0].min(), r[group == g, 1].min(), r[group == g, 2].max(), r[group == g, 3].max()]
                      for g in roots], np.int64)
    return r


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
