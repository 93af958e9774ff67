"""Grids of the other printed sizes (issue 24): 4x4, 6x6 (2x3 boxes, or 3x2 turned) and 16x16.

The 9x9 search (:mod:`ar_sudoku.vision.grid`) looks for nine cells a side and finds none of these; this
module is asked only when it found no puzzle to solve. It takes the picture's largest outlines, squares
each up and counts the lines inside: the side whose line positions hold ink while its cells' middles
hold none is the grid's size, and the thicker of those lines give the boxes' shape. The cells are then
cut from the same square (``cut_sized``): 1-9 for the digit model, and on a 16x16 grid whatever the page
prints (``symbol_patch``: one glyph, or two for 10-16) for the symbol model.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import cv2
import imutils
import numpy as np

from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.solver import SYMBOLS, Box, cell_name, count_solutions, parse_line, validate
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.cells import CELL, CELLS, FIT, INPUT, _strip_cells, digit_patch, normalise
from ar_sudoku.vision.digits import DigitReader, load_onnx, softmax_run
from ar_sudoku.vision.quads import WORK_SIZE, approx_quad, binarize, long_lines, refine_corners, shrink

SIDES = (4, 6, 9, 16)
BOXES: dict[int, tuple[Box, ...]] = {4: ((2, 2),), 6: ((2, 3), (3, 2)), 9: ((3, 3),), 16: ((4, 4),)}
SQUARE = 480  # px: an outline is squared up to this side to count its lines (30 px a cell at 16x16)


@dataclass(frozen=True)
class SizesConfig:
    """This stage's tuning: each field with the reason for its value."""

    min_lines: float = 0.45  # a side's score (ink on its lines less ink between them) a grid needs
    bands: int = 4  # strips each family of lines is profiled in
    outlines: int = 10  # the largest outlines looked at
    min_area: float = 0.02  # of the working picture: smaller outlines hold no grid to read
    soft: float = 0.2  # of the ink level: a glyph's faint ink, kept where it joins the glyph found at CELLS.ink
    line_band: int = 8  # of a cell: the band along each side where a grid line's remnant may lie, cut through its lines
    # a row or column of that band this much ink is a line (a glyph's stroke covers at most 0.62)
    line_cover: float = 0.7
    # a cut cell whose "nothing here" odds are above this is blank (a speck, a line's remnant)
    not_a_symbol: float = 0.5
    alternatives: int = 3  # readings of a cell the rules may choose from (its likeliest)
    likely: float = 0.02  # ... each at least this likely
    most_doubts: int = 8  # cells whose reading the rules may change
    most_changes: int = 2  # ... at most this many of them at once
    # a cell read surer than this is never changed by the rules (a wrong answer is worse than none)
    overturn: float = 0.95
    most_found: int = 4  # readings that solve, weighed against each other
    clearer: float = 0.25  # the readings the rules settle on must overturn cells this much less sure than the next
    sure_upright: float = 0.9  # every symbol read at least this surely: the grid is the right way up, no turn is read


SIZES = SizesConfig()

# the symbol model's classes: 0 is no symbol, then every glyph and number a 16x16 page prints
GLYPHS = ("",) + tuple("0123456789ABCDEFG") + tuple(str(k) for k in range(10, 17))
# how a 16x16 page prints its values 1-16, and each style's glyph for each value
STYLES: dict[str, tuple[str, ...]] = {
    "1-9A-G": tuple("123456789ABCDEFG"),
    "0-F": tuple("0123456789ABCDEF"),
    "1-16": tuple(str(k) for k in range(1, 17)),
}
DIGITS_STYLE = "1-9"  # 4x4, 6x6 and 9x9 pages print digits


@dataclass(frozen=True)
class SizedGrid:
    """A grid's corners (TL, TR, BR, BL in the picture's pixels), its side, its box and how clear its lines are."""

    corners: np.ndarray
    side: int
    box: Box
    score: float
    other: int = 0  # another side its lines allow (:func:`line_structure`): read as such when its own does not solve


MARGIN = SQUARE // 40  # px kept around the squared-up quad (the threshold's context at the border)


def _square(quad: np.ndarray) -> np.ndarray:
    """The homography taking ``quad`` to the SQUARE px square (MARGIN px in)."""
    m = MARGIN
    dst = np.array([[m, m], [m + SQUARE, m], [m + SQUARE, m + SQUARE], [m, m + SQUARE]], np.float32)
    return cv2.getPerspectiveTransform(quad.astype(np.float32), dst)


def _profiles(gray: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ink (0-1) down each column and along each row of the quad squared up to SQUARE px, in SIZES.bands
    across (a bowed page bends a line; within a quarter of the grid it stays nearly straight)."""
    m = MARGIN
    hmat = _square(quad)
    warped = cv2.warpPerspective(gray, hmat, (SQUARE + 2 * m, SQUARE + 2 * m), flags=cv2.INTER_AREA,
                                 borderMode=cv2.BORDER_REPLICATE)
    ink = cv2.adaptiveThreshold(warped, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 15, 4)
    inner = ink[m:m + SQUARE, m:m + SQUARE].astype(np.float32).reshape(SIZES.bands, SQUARE // SIZES.bands, SIZES.bands,
                                                                        SQUARE // SIZES.bands)
    cols = inner.mean(axis=1).reshape(SIZES.bands, SQUARE)  # band of rows -> ink down each column
    rows = inner.mean(axis=3).transpose(2, 0, 1)  # band of columns -> ink along each row
    return cols, rows.reshape(SIZES.bands, SQUARE)


def _side_score(profiles: np.ndarray, n: int) -> tuple[float, np.ndarray]:
    """How well ``n`` cells fit one family of lines: in each band, the median ink on its inner lines less
    the typical darkest ink between them (a cell's middle holds a glyph's strokes, never a line across
    it), the median over the bands; and each inner line's weight (its ink summed across its width)."""
    step = SQUARE / n
    reach = max(2, round(step * 0.12))
    scores, weights = [], []
    for profile in profiles:
        on, weight, off = [], [], []
        for k in range(1, n):
            c = round(k * step)
            win = profile[max(0, c - reach): c + reach + 1]
            on.append(float(win.max()))
            weight.append(float(win.sum()))
        for k in range(n):
            a, b = round((k + 0.3) * step), round((k + 0.7) * step)
            off.append(float(profile[a:b + 1].max()))
        scores.append(float(np.median(on) - np.median(off)))
        weights.append(weight)
    return float(np.median(scores)), np.asarray(weights).sum(axis=0)


def _lines(profiles: np.ndarray, n: int) -> np.ndarray:
    """Where each of a family's n + 1 lines lies in each band (px of the square; SIZES.bands x (n + 1)): the
    ink-weighted middle of its peak, or where the straight fit through the peaks found puts it."""
    step = SQUARE / n
    reach = max(2, round(step * 0.2))
    want = np.arange(n + 1) * step
    out = []
    for profile in profiles:
        got = np.full(n + 1, np.nan)
        for k, e in enumerate(want):
            a, b = max(0, round(e) - reach), min(SQUARE, round(e) + reach + 1)
            win = profile[a:b]
            if win.max() >= 0.5:
                w = np.where(win >= 0.5 * win.max(), win, 0.0)
                got[k] = a + float((w * np.arange(len(win))).sum() / w.sum())
        found = ~np.isnan(got)
        if found.sum() < 3:
            got = want.copy()
        else:
            slope, offset = np.polyfit(want[found], got[found], 1)
            fit = offset + slope * want
            got = np.where(found & (np.abs(got - fit) < reach), got, fit)
        out.append(got)
    return np.asarray(out)


def _edges(profiles: np.ndarray, n: int) -> np.ndarray:
    """The first and the last line of a family in each band (px of the square): the straight fit through
    all the lines' positions, at its ends."""
    lines = _lines(profiles, n)
    want = np.arange(n + 1) * SQUARE / n
    fits = [np.polyfit(want, row, 1) for row in lines]
    return np.asarray([(offset, offset + slope * SQUARE) for slope, offset in fits])


def warp_lines(gray: np.ndarray, corners: np.ndarray, n: int, cell: int = CELL) -> np.ndarray:
    """The grid squared up ``cell`` px a cell through its own lines: each line's position measured in the
    SIZES.bands of the corners' square and bent through them (a parabola), so that on a bowed page each cell
    is cut between its own lines, not where one homography of the corners puts it."""
    cols, rows = _profiles(gray, corners)
    centre = (np.arange(SIZES.bands) + 0.5) * SQUARE / SIZES.bands
    side = n * cell
    at = (np.arange(side) + 0.5) * SQUARE / side  # output pixels in the square's px, either way
    xs = np.stack([np.polyval(np.polyfit(centre, line, 2), at) for line in _lines(cols, n).T])  # (n+1, side)
    ys = np.stack([np.polyval(np.polyfit(centre, line, 2), at) for line in _lines(rows, n).T])
    k = np.arange(side) // cell
    f = ((np.arange(side) % cell) + 0.5) / cell
    # X(v, u): between vertical lines k and k+1 (at output row v); Y(v, u) likewise between horizontal lines
    x = xs[k, :].T * (1 - f)[None, :] + xs[k + 1, :].T * f[None, :]  # (v, u)
    y = ys[k, :] * (1 - f)[:, None] + ys[k + 1, :] * f[:, None]  # (v, u)
    pts = np.stack([x + MARGIN, y + MARGIN], axis=-1).astype(np.float32)
    src = cv2.perspectiveTransform(pts.reshape(1, -1, 2), np.linalg.inv(_square(corners))).reshape(side, side, 2)
    return cv2.remap(gray, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def refit_corners(gray: np.ndarray, quad: np.ndarray, n: int) -> np.ndarray:
    """The corners moved onto the centres of the grid's outer lines: an outline runs round the border's
    outer edge (a quarter of a cell off, on a 16x16 grid in a photo). Each outer line is fitted through its
    position in the SIZES.bands (a parabola: a bowed page bends it) and the corners are where the fitted lines meet."""
    cols, rows = _profiles(gray, quad)
    centre = (np.arange(SIZES.bands) + 0.5) * SQUARE / SIZES.bands
    x_edges, y_edges = _edges(cols, n), _edges(rows, n)  # per band of rows: left, right x; per band of columns
    left, right = np.polyfit(centre, x_edges[:, 0], 2), np.polyfit(centre, x_edges[:, 1], 2)
    top, bottom = np.polyfit(centre, y_edges[:, 0], 2), np.polyfit(centre, y_edges[:, 1], 2)
    pts = []
    for xs, ys in ((left, top), (right, top), (right, bottom), (left, bottom)):
        y = float(np.polyval(ys, 0.0 if xs is left else SQUARE))
        for _ in range(3):  # x on the side line at y, y on the top/bottom line at x
            x = float(np.polyval(xs, y))
            y = float(np.polyval(ys, x))
        pts.append((x + MARGIN, y + MARGIN))
    moved = cv2.perspectiveTransform(np.array([pts], np.float32), np.linalg.inv(_square(quad)))[0]
    step = float(np.linalg.norm(quad[0] - quad[2])) / (n * 2 ** 0.5)
    if float(np.abs(moved - quad).max()) > 0.5 * step:  # lines not found where they should be: keep the outline
        return quad.astype(np.float32)
    return moved.astype(np.float32)


def _thick(weights: np.ndarray, every: int) -> float:
    """How much heavier the inner lines after every ``every`` cells are than the others."""
    at = np.arange(1, len(weights) + 1) % every == 0
    return float(weights[at].mean() - weights[~at].mean())


def grid_side(gray: np.ndarray, quad: np.ndarray) -> tuple[int, Box, float]:
    """The side, box and line score of the grid inside ``quad`` (the best of :data:`SIDES`).

    The box comes from the thick lines: on a 6x6 grid, thick lines after every third column and every
    second row are 2x3 boxes; after every second column and third row, 3x2.
    """
    cols, rows = _profiles(gray, quad)
    best: tuple[int, Box, float] = (0, (0, 0), -1.0)
    for n in SIDES:
        sc, wc = _side_score(cols, n)
        sr, wr = _side_score(rows, n)
        score = min(sc, sr)
        if score <= best[2]:
            continue
        box = BOXES[n][0]
        if len(BOXES[n]) > 1:
            wide = _thick(wc, 3) + _thick(wr, 2)  # 2x3: box edges after columns 3, rows 2 and 4
            tall = _thick(wc, 2) + _thick(wr, 3)
            box = (2, 3) if wide >= tall else (3, 2)
        best = (n, box, score)
    return best


@dataclass(frozen=True)
class LineBars:
    """When an outline's lines make a grid of a size (issue 58: a 16x16 page whose cell lines are printed faint
    or grey, read as one 9x9 puzzle a quadrant, or as nothing)."""

    # a side's score (:func:`_side_score`) that makes a grid on its lines alone (``SIZES.min_lines``)
    lines: float = SIZES.min_lines
    # ... or this, when its box lines stand out as a grid's do: a 16x16 of grey hairlines (generator A's pages
    # with cell lines at grey 215-230: 0.31-0.45, their box lines 1.7-2.7 times the cell lines' weight)
    faint: float = 0.3
    # the box lines' weight over the cell lines' that says "boxes" (cell lines alone vary by a quarter)
    boxed: float = 1.5
    # a 4x4 grid whose inner lines are this alike (the box line no heavier than the cell lines) may be a 16x16
    # one whose cell lines the threshold lost, its 4x4 boxes taken for cells (generator A, grey 190-230: 0.9-1.05;
    # a 4x4 page: 1.9-2.2): it is read as 16x16 too, and the rules say which solves
    alike: float = 1.25


BARS = LineBars()


def _boxed(weights: np.ndarray, every: int) -> float:
    """The inner lines after every ``every`` cells, over the others, by weight (1: all alike)."""
    at = np.arange(1, len(weights) + 1) % every == 0
    if at.all() or not at.any():
        return 1.0
    return float(weights[at].mean() / max(float(weights[~at].mean()), 1e-6))


def line_structure(gray: np.ndarray, quad: np.ndarray, bars: LineBars = BARS) -> tuple[int, Box, float, int]:
    """:func:`grid_side`, held to ``bars``: the side (0 when no grid), box, score, and another side the models may
    find it to be (16 for a 4x4 grid whose inner lines are all alike; else 0).

    A side scoring ``bars.lines`` is a grid; one scoring ``bars.faint`` whose box lines are ``bars.boxed`` times
    its cell lines' weight is one too (cell lines printed faint: a person still reads the boxes at a glance)."""
    n, box, score = grid_side(gray, quad)
    cols, rows = _profiles(gray, quad)
    weights = [_side_score(cols, n)[1], _side_score(rows, n)[1]] if n else []
    boxed = min(_boxed(weights[0], box[1]), _boxed(weights[1], box[0])) if n else 0.0
    if score < bars.lines and not (score >= bars.faint and boxed >= bars.boxed):
        return 0, box, score, 0
    return n, box, score, 16 if n == 4 and boxed < bars.alike else 0


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 0.1 * min(cv2.contourArea(a.astype(np.float32)), cv2.contourArea(b.astype(np.float32)))


def find_sized_grids(gray: np.ndarray, most: int = 4) -> list[SizedGrid]:
    """Grids of any printed size in a grey picture, clearest first, none inside another (a box of a grid
    is a grid of its own on paper: 2x2 cells of a 4x4 one); the caller reads the sides it wants."""
    h, w = gray.shape[:2]
    if min(h, w) < 27:
        return []
    scale = min(1.0, WORK_SIZE / max(h, w))
    small = shrink(gray, (round(w * scale), round(h * scale))) if scale < 1 else gray
    area_min = SIZES.min_area * small.shape[0] * small.shape[1]
    binary = binarize(small)
    found: list[SizedGrid] = []
    for mask in (binary, long_lines(binary)):
        pad = 4
        padded = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        contours = imutils.grab_contours(cv2.findContours(padded, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE))
        for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:SIZES.outlines]:
            contour = contour - pad
            if cv2.contourArea(contour) < area_min:
                break
            quad = approx_quad(contour)
            if quad is None or cv2.contourArea(quad) < area_min:
                continue
            sides = [float(np.hypot(*(quad[k] - quad[(k + 1) % 4]))) for k in range(4)]
            if min(sides) < 0.5 * max(sides):
                continue
            quad = refine_corners(contour, quad)
            n, box, score, other = line_structure(small, quad)
            if not n:
                continue
            grid = SizedGrid((quad / scale).astype(np.float32), n, box, score, other)
            clash = [g for g in found if _overlap(g.corners, grid.corners)]
            if not clash:
                found.append(grid)
            elif all(cv2.contourArea(grid.corners) > 1.5 * cv2.contourArea(g.corners) or
                     (grid.score > g.score + 0.1 and cv2.contourArea(grid.corners) > 0.8 * cv2.contourArea(g.corners))
                     for g in clash):
                found = [g for g in found if g not in clash] + [grid]  # the whole grid, not one of its boxes
        if found:
            break
    found.sort(key=lambda g: -g.score)
    # the outline's corners, on the border's outer edge, moved onto its lines' centres (at full resolution)
    return [SizedGrid(refit_corners(gray, g.corners, g.side), g.side, g.box, g.score, g.other) for g in found[:most]]


def strip_lines(masks: np.ndarray) -> np.ndarray:
    """Cells' ink masks (..., h, w) without the grid lines' remnants along their sides. Narrower and stricter
    than ``cells._strip_cells``: a cell cut between its own lines has them at its very edge, and a wide
    number (``16``) puts a digit's upright stroke close to it."""
    h, w = masks.shape[-2:]
    band = max(2, h // SIZES.line_band)
    edge_r = np.zeros(h, bool)
    edge_r[:band] = edge_r[h - band:] = True
    edge_c = np.zeros(w, bool)
    edge_c[:band] = edge_c[w - band:] = True
    rows = edge_r & (masks.mean(axis=-1) > SIZES.line_cover)
    cols = edge_c & (masks.mean(axis=-2) > SIZES.line_cover)
    return np.where(rows[..., :, None] | cols[..., None, :], 0, masks).astype(np.uint8)


def symbol_patch(norm_cell: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray | None:
    """What a cell prints, fitted into the model's input: every glyph-sized blob near its middle together
    (two for 10-16), the longer side of them all FIT px, centred; None when the cell is blank."""
    s = norm_cell.shape[0]
    if mask is None:
        mask = strip_lines((norm_cell > CELLS.ink).astype(np.uint8))
    num, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = []
    edge = 0.2 * s
    for k in range(1, num):
        x, y, w, h, area = (int(v) for v in stats[k])
        if h < 0.25 * s or h > 0.95 * s or w > 0.95 * s or area < 0.01 * s * s:
            continue
        if x + w <= edge or y + h <= edge or x >= s - edge or y >= s - edge:
            continue
        cy = y + h / 2
        if abs(cy - s / 2) > 0.3 * s:
            continue
        keep.append(k)
    if not keep:
        return None
    box = stats[keep]
    x0, y0 = int(box[:, 0].min()), int(box[:, 1].min())
    x1, y1 = int((box[:, 0] + box[:, 2]).max()), int((box[:, 1] + box[:, 3]).max())
    # the pieces of a glyph broken at the threshold (a serif E's thin arms): small blobs within its height,
    # beside or inside it
    reach = round(0.15 * s)
    for k in range(1, num):
        x, y, w, h, area = (int(v) for v in stats[k])
        if k not in keep and area >= 3 and y >= y0 - 2 and y + h <= y1 + 2 and x >= x0 - reach \
                and x + w <= x1 + reach and x > 0 and x + w < s:
            keep.append(k)
    box = stats[keep]
    x0, x1 = int(box[:, 0].min()), int((box[:, 0] + box[:, 2]).max())
    if abs((x0 + x1) / 2 - s / 2) > 0.3 * s:
        return None
    glyph = np.isin(labels, keep)
    # the glyph's fainter ink too (a serif's hairlines fall below CELLS.ink once blurred): the soft-threshold blobs
    # that hold its ink, unless they run into a line
    soft = strip_lines((norm_cell > SIZES.soft).astype(np.uint8))
    _, soft_labels, soft_stats, _ = cv2.connectedComponentsWithStats(soft, connectivity=8)
    held = [int(k) for k in np.unique(soft_labels[glyph]) if k]
    if held:
        sb = soft_stats[held]
        sx0, sy0 = int(sb[:, 0].min()), int(sb[:, 1].min())
        sx1, sy1 = int((sb[:, 0] + sb[:, 2]).max()), int((sb[:, 1] + sb[:, 3]).max())
        if sx1 - sx0 <= 0.95 * s and sy1 - sy0 <= 0.95 * s and sx0 > 0 and sy0 > 0 and sx1 < s and sy1 < s:
            glyph = np.isin(soft_labels, held)
            x0, y0, x1, y1 = sx0, sy0, sx1, sy1
    crop = norm_cell[y0:y1, x0:x1] * glyph[y0:y1, x0:x1]
    w, h = x1 - x0, y1 - y0
    scale = FIT / max(w, h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(crop.astype(np.float32), (nw, nh), interpolation=cv2.INTER_AREA)
    patch = np.zeros((INPUT, INPUT), np.float32)
    ox, oy = (INPUT - nw) // 2, (INPUT - nh) // 2
    patch[oy:oy + nh, ox:ox + nw] = small
    return np.clip(patch, 0.0, 1.0)


def cut_sized(warped: np.ndarray, n: int, symbols: bool, cell: int = CELL) -> tuple[np.ndarray, np.ndarray]:
    """The n x n cells of a squared-up grid (``cell`` px a cell): model patches and which cells hold ink.

    ``symbols``: patches for the symbol model (:func:`symbol_patch`), else for the digit model
    (``cells.digit_patch``, as the 9x9 reader cuts them).
    """
    norm = normalise(warped, cell)
    grid = norm[: n * cell, : n * cell].reshape(n, cell, n, cell).transpose(0, 2, 1, 3).reshape(n * n, cell, cell)
    patches = np.zeros((n * n, INPUT, INPUT), np.float32)
    has = np.zeros(n * n, bool)
    m = cell // 5
    todo = np.flatnonzero(grid[:, m:cell - m, m:cell - m].max(axis=(1, 2)) > CELLS.ink)
    if not len(todo):
        return patches, has
    masks = (strip_lines if symbols else _strip_cells)((grid[todo] > CELLS.ink).astype(np.uint8))
    for i, sub, mask in zip(todo, grid[todo], masks):
        p = symbol_patch(sub, mask) if symbols else digit_patch(sub, mask=mask)[0]
        if p is not None:
            patches[i], has[i] = p, True
    return patches, has


def symbols_model_path() -> Path:
    return Path(__file__).resolve().parents[2] / "models" / "symbols.onnx"


class SymbolReader:
    """The 16x16 pages' symbol model (``scripts/train_symbols.py``): 0-9, A-G and 10-16 in a cell."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1):
        self.session, self.input_name, self.meta = load_onnx(
            Path(model_path) if model_path else symbols_model_path(), "symbol model", "scripts/train_symbols.py",
            threads)

    def probabilities(self, patches: np.ndarray) -> np.ndarray:
        return softmax_run(self.session, self.input_name, patches, len(GLYPHS))


def page_style(probs: np.ndarray) -> str:
    """Which of :data:`STYLES` a 16x16 page prints, from its inked cells' symbol odds: the style whose
    glyphs hold the most of the odds (a 0 or a number over 9 is never printed in the others)."""
    totals = {name: float(probs[:, [GLYPHS.index(g) for g in glyphs]].sum()) for name, glyphs in STYLES.items()}
    return max(totals, key=lambda k: totals[k])


def styled(text: str, style: str) -> list[str]:
    """A board's text (the solver's symbols, ``.`` blank) as the page prints it, cell by cell."""
    glyphs = STYLES.get(style)
    return [ch if glyphs is None or ch not in SYMBOLS else glyphs[SYMBOLS.index(ch)] for ch in text]


def warp_sized(gray: np.ndarray, grid: SizedGrid, cell: int = CELL) -> np.ndarray:
    """The grid squared up through its lines (:func:`warp_lines`), ``cell`` px a cell."""
    return warp_lines(gray, grid.corners, grid.side, cell)


def _read_cells(warped: np.ndarray, n: int, digits: DigitReader, symbols: SymbolReader | None
                ) -> tuple[np.ndarray, np.ndarray, dict[int, list[int]], str]:
    """Each cell's value (0 blank) and confidence, each inked cell's likely values (likeliest first), and the
    page's symbol style."""
    values = np.zeros(n * n, np.int64)
    conf = np.ones(n * n, np.float32)
    patches, has = cut_sized(warped, n, symbols=n > 9)
    idx = np.flatnonzero(has)
    if not len(idx):
        return values, conf, {}, DIGITS_STYLE if n <= 9 else "1-9A-G"
    if n <= 9:
        probs = digits.probabilities(patches[idx])
        p = probs[:, 1:n + 1] / np.maximum(probs[:, 1:n + 1].sum(axis=1, keepdims=True), 1e-9)
        style = DIGITS_STYLE
    else:
        if symbols is None:
            symbols = SymbolReader()
        probs = symbols.probabilities(patches[idx])
        inked = probs[:, 0] <= SIZES.not_a_symbol
        style = page_style(probs[inked]) if inked.any() else "1-9A-G"
        cols = [GLYPHS.index(g) for g in STYLES[style]]
        p = probs[:, cols] / np.maximum(probs[:, cols].sum(axis=1, keepdims=True), 1e-9)
    blank = probs[:, 0] > SIZES.not_a_symbol
    values[idx] = np.where(blank, 0, p.argmax(axis=1) + 1)
    conf[idx] = np.where(blank, probs[:, 0], p.max(axis=1) * (1 - probs[:, 0]))
    likely = {int(i): [int(v) + 1 for v in np.argsort(-row)[:SIZES.alternatives] if row[v] >= SIZES.likely]
              for i, row, b in zip(idx, p, blank) if not b}
    return values, conf, likely, style


def _text(values: np.ndarray) -> str:
    return "".join(SYMBOLS[v - 1] if v else "." for v in values)


def _solve_one(values: np.ndarray, box: Box, timeout: float) -> tuple[Status, str | None, str]:
    """Status, the one solution (or None) and why not, of a reading."""
    board = parse_line(_text(values), box=box)
    conflicts = validate(board)
    if conflicts:
        return Status.INVALID, None, "; ".join(str(c) for c in conflicts[:3])
    count = count_solutions(board, 2, timeout)
    if count.count == 1 and count.complete:
        return Status.SOLVED, count.first, ""
    if count.count >= 2:
        return Status.UNSOLVABLE, None, "the reading has several solutions"
    if not count.complete:
        return Status.TIMEOUT, None, "the solver ran out of time"
    return Status.UNSOLVABLE, None, "the reading has no solution"


def _doubts(values: np.ndarray, conf: np.ndarray, box: Box) -> list[int]:
    """The cells to doubt: both of each pair of clashing givens, then the least sure others."""
    conflicts = validate(parse_line(_text(values), box=box))
    clashing = sorted({i for c in conflicts for i in (c.a, c.b)}, key=lambda i: conf[i])
    others = [int(i) for i in np.argsort(conf) if values[i] and i not in clashing]
    return (clashing + others)[:SIZES.most_doubts]


def settle(values: np.ndarray, conf: np.ndarray, likely: dict[int, list[int]], box: Box,
           timeout: float) -> tuple[Status, np.ndarray, str | None, str]:
    """A reading that does not solve one way, settled by the rules with as few changes as can be: one of its
    doubtful cells (``_doubts``) read as another likely value (or as ink whose value the solution gives),
    else two of them. Of the readings that then solve one way, the one overturning the least sure cells is
    taken, when clearly so (SIZES.clearer); else the reading as read, with why it fails. The caller names the cells
    changed (``corrected``)."""
    status, solution, message = _solve_one(values, box, timeout)
    if status == Status.SOLVED:
        return status, values, solution, message
    doubt = [i for i in _doubts(values, conf, box) if conf[i] < SIZES.overturn]
    # a change is another likely value, or (0) "ink, value unknown": the cell left to the solution
    changes = [(i, v) for i in doubt for v in likely.get(i, []) + [0] if v != values[i]]
    for count in range(1, SIZES.most_changes + 1):
        found: dict[str, tuple[float, np.ndarray, str]] = {}
        for combo in combinations(changes, count):
            if len({i for i, _ in combo}) < count:
                continue
            trial = values.copy()
            for i, v in combo:
                trial[i] = v
            if validate(parse_line(_text(trial), box=box)):
                continue
            st, sol, _ = _solve_one(trial, box, timeout / 4)
            if st == Status.SOLVED and sol is not None:
                for i, v in combo:
                    if v == 0:
                        trial[i] = SYMBOLS.index(sol[i]) + 1
                # what it overturns: how sure the cells it changes were read
                found[_text(trial)] = (float(sum(conf[i] for i, _ in combo)), trial, sol)
                if len(found) >= SIZES.most_found:
                    break
        if found:
            ranked = sorted(found.values(), key=lambda f: f[0])
            if len(ranked) == 1 or ranked[0][0] + SIZES.clearer <= ranked[1][0]:
                return Status.SOLVED, ranked[0][1], ranked[0][2], ""
            break  # readings that solve, none clearly likelier: the rules cannot tell which was printed
    return status, values, None, message


def _upright(read: np.ndarray, conf: np.ndarray) -> float:
    """How upright a reading looks: the mean log-confidence of the surer half of its inked cells (as the
    9x9 reader's ``reading._score``: a few unsure cells do not drown the clear preference of the rest)."""
    inked = read > 0
    if not inked.any():
        return 0.0
    logs = np.sort(np.log(np.maximum(conf[inked], 1e-6)))[::-1]
    return float(logs[: max(1, len(logs) // 2)].mean())


def _turns(warped: np.ndarray, n: int, digits: DigitReader, symbols: SymbolReader | None
           ) -> list[tuple[int, tuple[np.ndarray, np.ndarray, dict[int, list[int]], str]]]:
    """The quarter turns worth settling, likeliest upright first, each with its reading (:func:`_read_cells`):
    the grid as found alone when it reads surely; else it and the turn that reads best, when that is
    another (a page photographed sideways or upside down reads its symbols unsurely, and often as a
    reading that clashes or solves wrongly)."""
    first = _read_cells(warped, n, digits, symbols)
    inked = first[0] > 0
    if not inked.any() or bool((first[1][inked] >= SIZES.sure_upright).all()):
        return [(0, first)]
    turned = [(k, _read_cells(np.ascontiguousarray(np.rot90(warped, k)), n, digits, symbols)) for k in (1, 2, 3)]
    k, best = max(turned, key=lambda t: _upright(t[1][0], t[1][1]))
    if _upright(best[0], best[1]) <= _upright(first[0], first[1]):
        return [(0, first)]
    return [(k, best), (0, first)]


def _corrected(read: np.ndarray, conf: np.ndarray, likely: dict[int, list[int]], n: int,
               overrides: dict[int, int]) -> tuple[np.ndarray, np.ndarray, dict[int, list[int]], str]:
    """The reading with the person's corrections (``written.parse_corrections``: keyed as on a 9x9 grid,
    ``(row - 1) * 9 + col - 1``) put in, each sure (the rules never overturn it); and what could not be
    put in, said in a sentence: a cell off the grid, a digit the puzzle has not, or any on a 16x16 grid
    (a correction's one digit can name neither its cells past r9c9 nor its symbols past 9)."""
    read, conf, likely = read.copy(), conf.copy(), dict(likely)
    refused = []
    for key, value in sorted(overrides.items()):
        row, col = divmod(key, 9)
        if n > 9 or row >= n or col >= n or value > n:
            refused.append(f"r{row + 1}c{col + 1}={value}")
            continue
        i = row * n + col
        read[i], conf[i] = value, 1.0
        likely.pop(i, None)
    if not refused:
        return read, conf, likely, ""
    return read, conf, likely, f"corrections a {n}x{n} puzzle cannot take, left out: {', '.join(refused)}"


def read_sized(gray: np.ndarray, grid: SizedGrid, digits: DigitReader, symbols: SymbolReader | None,
               timeout: float, t0: float, overrides: dict[int, int] | None = None) -> BoardResult:
    """The digits (or symbols) of a grid of any size, the right way up (:func:`_turns`), with the person's
    corrections (``overrides``), solved (:func:`settle` when the reading as read does not solve one way).
    Corners come back turned so that the first is the puzzle's own top-left."""
    n, refused = grid.side, ""
    if n > 9 and symbols is None:
        symbols = SymbolReader()  # once for every turn read
    for k, reading in _turns(warp_sized(gray, grid), n, digits, symbols):
        read, conf, likely, style = reading
        if overrides:
            read, conf, likely, refused = _corrected(read, conf, likely, n, overrides)
        box = grid.box if k % 2 == 0 else (grid.box[1], grid.box[0])
        status, values, solution, message = settle(read, conf, likely, box, timeout)
        if status == Status.SOLVED:
            break
    corners = np.roll(grid.corners, -k, axis=0)
    message = "; ".join(m for m in (message, refused) if m)
    corrected = tuple(f"{cell_name(int(i), n)}: {styled(_text(read[i:i + 1]), style)[0]}->"
                      f"{styled(_text(values[i:i + 1]), style)[0]}" for i in np.flatnonzero(values != read))
    return BoardResult(status, corners=corners, givens=_text(values), confidence=conf, solution=solution,
                       message=message, ms=(time.perf_counter() - t0) * 1e3, corrected=corrected,
                       box=box, symbols=style)


def read_sized_or_other(gray: np.ndarray, grid: SizedGrid, digits: DigitReader, timeout: float, t0: float,
                        overrides: dict[int, int] | None = None) -> BoardResult:
    """:func:`read_sized`; a grid that does not solve at its side is read at the other side its lines allow
    (``SizedGrid.other``: a 16x16 whose faint cell lines left only its boxes, taken for a 4x4 grid's cells), and
    that reading is taken when it solves: the lines propose, the models and the rules confirm."""
    result = read_sized(gray, grid, digits, None, timeout, t0, overrides)
    if result.status == Status.SOLVED or not grid.other:
        return result
    again = read_sized(gray, SizedGrid(grid.corners, grid.other, BOXES[grid.other][0], grid.score), digits, None,
                       timeout, t0, overrides)
    return again if again.status == Status.SOLVED else result
