"""Draw on the paper, in the grid's own perspective: solved digits, marked mistakes, hints.

What to draw is a :class:`~ar_sudoku.ar.marks.Marks`. It becomes shapes in the
flat grid plane (one unit = one cell): the outlines of each digit's glyph
(OpenCV's Hershey font, traced once at high resolution), the annuli of rings,
the quads of shaded cells. Each frame reprojects the shapes' points onto the
paper with the grid's homography (on a curled page, one homography per 3x3
box, fitted by ``cv2.findHomography`` to its 16 crossings) and fills them with
anti-aliased ``cv2.fillPoly``. Only the ink's own pixels are touched, not a
whole raster layer warped and blended over the frame, so the cost follows the
ink, not the frame's size (``scripts/bench_frame.py`` times it), and the digits
stay sharp on a grid that fills a 4K frame.
The shapes are cached per ``Marks``, so a tracked board costs only the reprojection.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from ar_sudoku.ar.marks import Marks
from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.vision.render import put_centered
from ar_sudoku.vision.tracker import FLAT_CORNERS  # the grid's corners in cell units
from ar_sudoku.vision.yuv import I420, yuv_of

BGR = tuple[int, int, int]
Canvas = np.ndarray | I420  # what is drawn on: a BGR image, or a video's frame as it was decoded

TRACE = 256  # pixels a cell when a glyph is traced: outlines exact to ~1/300 of a cell
SHIFT = 4  # fillPoly's fractional bits: points placed to 1/16 px
ANSWER: BGR = (40, 170, 0)  # a clear green-teal: the answers, on a grid of any size
SHADE = 0.35  # the shading of a hint's unit: this much of its colour over the paper
RING = 0.42  # a ring's radius, in cells
KILLER_ANSWER = 0.4  # an answer's height on a killer page, in cells: below and right of the cage's sum ...
KILLER_AT = (0.1, 0.12)  # ... its centre this far right of and below the cell's (clear of a two-digit sum)


@lru_cache(maxsize=256)
def glyph(text: str, height: float, stroke: float) -> tuple[np.ndarray, ...]:
    """Outlines (outer and holes) of ``text`` in OpenCV's Hershey font (``height`` cells for the font's
    digit height, strokes ``stroke`` cells wide), the ink centred on (0, 0), in cell units (float32, N x 2)."""
    side = 3 * TRACE
    img = np.zeros((side, side), np.uint8)
    put_centered(img, text, (side / 2, side / 2), height * TRACE, (255, 255, 255), max(1, round(stroke * TRACE)))
    _, ink = cv2.threshold(img, 127, 255, cv2.THRESH_BINARY)
    contours, _ = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    x, y, w, h = cv2.boundingRect(ink)
    centre = np.array([x + w / 2, y + h / 2], np.float32)  # the ink's own centre: the text box sits the digit low
    return tuple((cv2.approxPolyDP(c, 0.75, True).reshape(-1, 2).astype(np.float32) - centre) / TRACE
                 for c in contours)


def ring(radius: float, stroke: float, sides: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """An annulus centred on (0, 0): its outer circle and its inner one (the hole), in cell units."""
    t = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    unit = np.stack([np.cos(t), np.sin(t)], axis=1).astype(np.float32)
    return unit * (radius + stroke / 2), unit[::-1] * (radius - stroke / 2)


@dataclass(frozen=True)
class Shapes:
    """A ``Marks`` as outlines in the flat grid, all points in one array, in layers by kind and colour.

    ``layers`` (colour, first contour, end contour) are drawn in order; the first ``weak`` of
    them is shading (blended), the rest ink (filled). Within a layer no two shapes overlap
    (each sits in its own cell), so one ``fillPoly`` call (even-odd: a glyph's holes stay
    open) draws the whole layer. ``box`` gives each point's 3x3 box, whose homography places
    it on a curled page.
    """

    points: np.ndarray  # float32 (n, 2), cell units
    box: np.ndarray  # int (n,)
    contours: tuple[slice, ...]  # each contour's points in ``points`` (slices: 5x sooner than np.split)
    layers: tuple[tuple[BGR, int, int], ...]
    weak: int = 0


@dataclass
class OverlayRenderer:
    """Configured once, applied per frame: ``frame = renderer.draw_marks(frame, corners, marks)``."""

    color: BGR = ANSWER
    digit_height: float = 0.5  # of a cell
    mistake_color: BGR = (30, 30, 230)  # BGR red
    hint_color: BGR = (200, 90, 0)  # BGR blue
    shade_color: BGR = (0, 200, 255)  # BGR amber
    _cache: dict = field(default_factory=dict, repr=False)

    def fresh(self) -> OverlayRenderer:
        """The same look with a cache of its own: for drawing on another thread (the recording's writer)."""
        return replace(self, _cache={})

    def shapes(self, marks: Marks) -> Shapes:
        """``marks`` as outlines in the flat grid plane (cached for the last ``Marks`` drawn)."""
        if marks not in self._cache:
            layers: dict[tuple[str, BGR], list[tuple[int, np.ndarray]]] = {}

            def add(kind: str, color: BGR, cell: int, contours, offset: tuple[float, float] = (0.0, 0.0)) -> None:
                r, c = divmod(cell, 9)
                at = np.array([c + 0.5 + offset[0], r + 0.5 + offset[1]], np.float32)
                layers.setdefault((kind, color), []).extend((cell, k + at) for k in contours)

            square = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)
            for i in marks.shade:
                add("shade", self.shade_color, i, (square,))
            answer = (KILLER_ANSWER, KILLER_AT) if marks.corner_clear else (self.digit_height, (0.0, 0.0))
            for i, d in marks.answers:
                add("answer", self.color, i, glyph(d, answer[0], 1 / 16), answer[1])
            for cells, color in ((marks.ring, self.hint_color), (marks.mistakes, self.mistake_color)):
                for i in cells:
                    add("ring", color, i, ring(RING, 1 / 12))
            for i, text in marks.small:
                # a hinted digit sits small in its ring; a removed candidate ("-4") in the top-right corner;
                # the right digit of a mistake ("+4", drawn without the sign) there too, in the answer's colour
                color = self.color if text.startswith("+") else self.hint_color
                where, height = ((0.0, 0.0), 0.34) if text.isdigit() else ((0.2, -0.24), 0.26)
                add("small", color, i, glyph(text.lstrip("+"), height, 1 / 24), where)
            contours = [(cell, k) for items in layers.values() for cell, k in items]
            lengths = np.array([len(k) for _, k in contours], np.int64)
            ends = np.cumsum(lengths)
            cell_ids = np.repeat(np.array([cell for cell, _ in contours], np.int64), lengths)
            bounds = np.cumsum([0] + [len(items) for items in layers.values()])
            self._cache.clear()
            self._cache[marks] = Shapes(
                points=np.concatenate([k for _, k in contours]).astype(np.float32),
                box=(cell_ids // 27) * 3 + (cell_ids % 9) // 3,
                contours=tuple(slice(int(a), int(b)) for a, b in zip(ends - lengths, ends)),
                layers=tuple((color, int(bounds[n]), int(bounds[n + 1])) for n, (_, color) in enumerate(layers)),
                weak=1 if marks.shade else 0)  # layers keep their insertion order: shading first
        return self._cache[marks]

    def draw_marks(self, frame: Canvas, corners: np.ndarray, marks: Marks,
                   lattice: np.ndarray | None = None) -> Canvas:
        """Draw ``marks`` on ``frame`` in place (and return it); through ``lattice`` on a curled page."""
        if marks.empty and not marks.shade:
            return frame
        shapes = self.shapes(marks)
        placed = _project(shapes.points, shapes.box, corners, lattice)
        if placed is None:
            return frame  # a degenerate quad: nothing sensible to draw
        fixed = np.rint(placed * (1 << SHIFT)).astype(np.int32)
        polys = [fixed[c] for c in shapes.contours]
        for k, (color, first, end) in enumerate(shapes.layers):
            for plane, value, half in _planes(frame, color):
                if k < shapes.weak:
                    _shade(plane, polys[first:end], value, SHIFT + half)
                else:  # a chroma plane takes the same points with one more fractional bit: half the size
                    cv2.fillPoly(plane, polys[first:end], value, cv2.LINE_8 if half else cv2.LINE_AA, SHIFT + half)
        return frame

    def draw(self, frame: Canvas, corners: np.ndarray, givens: str, solution: str,
             lattice: np.ndarray | None = None) -> Canvas:
        """The solved digits of the empty cells on ``frame``, in place (and returned)."""
        answers = tuple((i, d) for i, (g, d) in enumerate(zip(givens, solution)) if is_empty(g) and not is_empty(d))
        return self.draw_marks(frame, corners, Marks(answers=answers), lattice)


_BOX_CROSSINGS = np.stack(np.meshgrid(np.arange(4.0), np.arange(4.0)), axis=-1).reshape(-1, 2)  # one box's 4x4


def _project(points: np.ndarray, box: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None) -> np.ndarray | None:
    """Flat points (cell units) onto the frame: by the corners' homography, or on a curled page by the
    homography of each point's 3x3 box (fitted to the box's 16 crossings)."""
    if lattice is None:
        hmat = cv2.getPerspectiveTransform(FLAT_CORNERS, np.asarray(corners, np.float32).reshape(4, 2))
        out = cv2.perspectiveTransform(points.reshape(-1, 1, 2), hmat).reshape(-1, 2)
        return out if _sane(out) else None
    grid = np.asarray(lattice, np.float32).reshape(10, 10, 2)
    out = np.empty_like(points)
    for b in np.unique(box):
        br, bc = divmod(int(b), 3)
        flat = (_BOX_CROSSINGS + [bc * 3, br * 3]).astype(np.float32)
        hmat, _ = cv2.findHomography(flat, grid[br * 3: br * 3 + 4, bc * 3: bc * 3 + 4].reshape(-1, 2))
        if hmat is None:
            return None
        sel = box == b
        out[sel] = cv2.perspectiveTransform(points[sel].reshape(-1, 1, 2), hmat).reshape(-1, 2)
    return out if _sane(out) else None


def _sane(points: np.ndarray) -> bool:
    """Finite and within reach of any frame (a collapsing quad throws points to infinity)."""
    return bool(np.isfinite(points).all() and np.abs(points).max(initial=0) < 1e6)


def _planes(frame: Canvas, color: BGR) -> tuple[tuple[np.ndarray, tuple[int, ...], int], ...]:
    """Where ``color`` is drawn: a BGR image whole; an I420 frame's Y plane, and its U and V planes at
    half size (the third item: 1 where the plane is halved). The ink's edges are anti-aliased in Y
    only: at half size a soft chroma edge only left a pale fringe around each digit (looked at 3x,
    decoded as a player does), and a hard one is cheaper."""
    if isinstance(frame, I420):
        y, u, v = frame.planes()
        cy, cu, cv = yuv_of(color)
        return (y, (cy,), 0), (u, (cu,), 1), (v, (cv,), 1)
    return ((frame, color, 0),)


def _shade(plane: np.ndarray, polys: list[np.ndarray], value: tuple[int, ...], shift: int) -> None:
    """Tint the polygons' area lightly (``SHADE`` of ``value``), blending only within their bounding box."""
    h, w = plane.shape[:2]
    allp = np.concatenate(polys) >> shift
    x0, y0 = np.maximum(allp.min(axis=0) - 1, 0)
    x1, y1 = np.minimum(allp.max(axis=0) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    roi = plane[y0:y1, x0:x1]
    tinted = roi.copy()
    offset = np.array([x0, y0], np.int32) << shift
    # no anti-aliasing: neighbouring cells share edges, and a soft edge on each would leave a seam
    cv2.fillPoly(tinted, [p - offset for p in polys], value, cv2.LINE_8, shift)
    cv2.addWeighted(roi, 1.0 - SHADE, tinted, SHADE, 0.0, dst=roi)


def draw_status(frame: Canvas, lines: list[str], color: BGR = (255, 255, 255)) -> Canvas:
    """A small translucent box of status lines in the top-left corner (in place).

    On an I420 frame the text is drawn in Y only: its colour is the box's, darkened and nearly grey.
    """
    if not lines:
        return frame
    scale = max(0.45, frame.shape[0] / 1400)
    th = 1
    sizes = [cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, scale, th)[0] for t in lines]
    lh = max(s[1] for s in sizes) + 8
    w = max(s[0] for s in sizes) + 16
    h = lh * len(lines) + 8
    for (plane, value, half), (_, black, _) in zip(_planes(frame, color), _planes(frame, (0, 0, 0))):
        roi = plane[0: min(h >> half, plane.shape[0]), 0: min(w >> half, plane.shape[1])]
        cv2.addWeighted(roi, 0.45, roi, 0.0, 0.55 * black[0], dst=roi)  # mostly black (I420: Y 16, U and V 128)
        if half:
            continue
        for k, t in enumerate(lines):
            cv2.putText(plane, t, (8, 4 + lh * (k + 1) - 4), cv2.FONT_HERSHEY_SIMPLEX, scale, value, th, cv2.LINE_AA)
    return frame
