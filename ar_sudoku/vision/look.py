"""A page's look at its grid: how a live board tells its own page from the desk, another page, or itself turned.

The grid squared up small (:func:`~ar_sudoku.vision.cells.square`, 12 pixels a cell) is cut to its cells'
insides (the lines are alike on every grid and say nothing of which page this is), blurred (a shaking hand's
streak and a tracker's pixel or two must not count) and normalised (a dimmer light or the camera's gain must
not count). Two looks are compared by their correlation over the cells both see: the same page is near 1,
streaked or dimmed still well above half; the empty desk, or another puzzle's digits, near 0.

Turned by a quarter turn, the squared grid turns with the corners' order: the corners rolled by ``k``
(``np.roll(corners, -k, axis=0)``) square up to ``np.rot90(squared, k)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CELL = 12  # pixels a cell of the squared grid the looks are made from (``locator``'s per-frame square)


@dataclass(frozen=True)
class LookConfig:
    # px (of 12 a cell): a 9-15 px streak on a 640 px frame and a tracker a pixel off blur less; more would make
    # a page turned round, or another puzzle, look like this one (thin print keeps little shape at 12 px a cell)
    blur: float = 1.5
    edge: int = 2  # px of each cell's edge left out: the grid's lines, which every page shares


LOOK = LookConfig()


@dataclass(frozen=True)
class SumsLookConfig:
    """The look of a killer page's cage sums: each cell's top-left corner, where its cage's sum is printed."""

    cell: int = 24  # px a cell of the squared grid: a sum is a quarter of a cell high, 12 px a cell blurs it away
    blur: float = 1.0
    # the part of each cell looked at (from its top-left, as shares of a cell): inside the cage's dashed line,
    # around the sum; every page's lines and most of its cage outlines lie outside it
    window: tuple[float, float] = (0.15, 0.42)


SUMS = SumsLookConfig()


@dataclass(frozen=True)
class Look:
    """A grid's cells' insides, blurred (81 cells of ``(12 - 2 * edge)²`` pixels), and which cells were seen."""

    pixels: np.ndarray  # (81, n) float32
    seen: np.ndarray  # (81,) bool: cells in the picture (a page partly out of view shows only some)


def look(squared: np.ndarray, seen: np.ndarray | None = None, cfg: LookConfig = LOOK) -> Look:
    """The look of a squared-up grid (``cells.square`` at 12 px a cell); ``seen``: the cells in view."""
    blurred = cv2.GaussianBlur(np.asarray(squared, np.float32), (0, 0), cfg.blur)
    e = cfg.edge
    cells = blurred.reshape(9, CELL, 9, CELL)[:, e:CELL - e, :, e:CELL - e].transpose(0, 2, 1, 3).reshape(81, -1)
    # each cell against its own paper: a shadow or a glare across the page is not the page's look, its ink is
    cells = cells - cells.mean(axis=1, keepdims=True)
    return Look(np.ascontiguousarray(cells), np.ones(81, bool) if seen is None else np.asarray(seen, bool))


def sums_look(squared: np.ndarray, seen: np.ndarray | None = None, cfg: SumsLookConfig = SUMS) -> Look:
    """The look of a killer page's sums (``squared`` at ``cfg.cell`` px a cell): two killer pages of one
    newspaper share their grid and much of their cage lines, so the whole cells look alike (0.8-0.95); the
    sums' corners tell them apart (the next puzzle slid in 0.3-0.67, the same page tracked 0.97 or more)."""
    c = cfg.cell
    a, b = round(c * cfg.window[0]), round(c * cfg.window[1])
    blurred = cv2.GaussianBlur(np.asarray(squared, np.float32), (0, 0), cfg.blur)
    cells = blurred.reshape(9, c, 9, c)[:, a:b, :, a:b].transpose(0, 2, 1, 3).reshape(81, -1)
    cells = cells - cells.mean(axis=1, keepdims=True)
    return Look(np.ascontiguousarray(cells), np.ones(81, bool) if seen is None else np.asarray(seen, bool))


def likeness(a: Look, b: Look, least: int = 9) -> float | None:
    """The correlation of two looks over the cells both saw (-1..1); None when they share fewer than ``least``
    cells (too little of the grid in view to tell)."""
    both = a.seen & b.seen
    if int(both.sum()) < least:
        return None
    x, y = a.pixels[both].ravel(), b.pixels[both].ravel()
    x = x - x.mean()
    y = y - y.mean()
    den = float(np.sqrt((x * x).sum() * (y * y).sum()))
    return float((x * y).sum() / den) if den > 1e-6 else 0.0


def turned(look_of: Look, k: int) -> Look:
    """The look of the same grid with its corners rolled by ``k`` (a quarter turn each)."""
    px = look_of.pixels.reshape(9, 9, -1)
    side = int(round(np.sqrt(px.shape[2])))
    cells = px.reshape(9, 9, side, side)
    # the grid turns, and so does every cell's inside
    out = np.rot90(np.rot90(cells, k, axes=(0, 1)), k, axes=(2, 3)).reshape(81, -1)
    seen = np.rot90(look_of.seen.reshape(9, 9), k).reshape(81)
    return Look(np.ascontiguousarray(out), np.ascontiguousarray(seen))


def cells_in_view(corners: np.ndarray, lattice: np.ndarray | None, size: tuple[int, int],
                  margin: float = 0.3) -> np.ndarray:
    """Which of the 81 cells lie in a picture of ``size`` (w, h): their centres at least ``margin`` of a cell
    inside its edges. A page partly out of view is judged, and its answer drawn, on these cells."""
    from ar_sudoku.vision.lattice import from_corners

    pts = from_corners(corners) if lattice is None else np.asarray(lattice, np.float32).reshape(10, 10, 2)
    centres = (pts[:-1, :-1] + pts[1:, :-1] + pts[:-1, 1:] + pts[1:, 1:]).reshape(81, 2) / 4
    cell = np.sqrt(abs(cv2.contourArea(np.asarray(corners, np.float32).reshape(-1, 1, 2)))) / 9
    m = margin * cell
    w, h = size
    return (centres[:, 0] >= m) & (centres[:, 0] <= w - m) & (centres[:, 1] >= m) & (centres[:, 1] <= h - m)


def shifted(corners: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """The corners of the grid moved ``dx`` cells across and ``dy`` down its own rows (a flat grid)."""
    unit = np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)
    hmat = cv2.getPerspectiveTransform(unit, np.asarray(corners, np.float32).reshape(4, 2))
    moved = (unit + np.array([dx, dy], np.float32)).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(moved, hmat).reshape(4, 2).astype(np.float32)


def roll_of(turned: np.ndarray, corners: np.ndarray) -> int:
    """The roll ``k`` with ``np.roll(corners, -k)`` nearest ``turned`` (the same quad, its first corner moved)."""
    return min(range(4), key=lambda k: float(np.abs(np.roll(corners, -k, axis=0) - turned).max()))
