"""What a killer page prints besides the grid: each cell's corner sum and each border's cage line, as odds.

The grid (found as for any page) is squared up in colour, ``PX`` pixels a cell, with a margin so that a crop
at the grid's edge stays whole. Two small ONNX models (``models/killer_sums.onnx``, ``models/killer_borders.onnx``,
trained by ``scripts/train_killer.py`` on rendered pages only) then read it, each in one batched call:

- the top-left corner of every cell (:func:`sum_crops`, contrast-stretched grey): no sum, or which of 1-45 is
  printed there, read whole (two small digits side by side are never cut apart: the model names the number's
  tens and units digits at once, :func:`sum_odds`);
- a strip across every border between two cells (:func:`border_patches`: grey and the two colour axes of Lab,
  across the border and along most of it): whether the two cells lie in different cages, which a dashed or
  dotted outline just inside each cell says, or a change of shading.

The grid's thin and thick lines stand at the strip's middle whatever the answer, so the model learns to look
beside them: a cage outline is never taken for a grid line. This module only measures; which cages and sums
the odds make, and whether they hold together, is :mod:`ar_sudoku.sudoku.killer_reading`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.sudoku.killer_reading import BORDERS as BORDER_CELLS
from ar_sudoku.vision.digits import load_onnx, run_batched
from ar_sudoku.vision.lattice import dense_map

SIDE = 9


@dataclass(frozen=True)
class CageGeometry:
    """Where the models look, in cells (one cell is 1.0); the training script cuts its samples with these."""

    px: int = 64  # pixels a cell in the squared grid: a small sum's strokes stay a pixel or more wide
    margin: float = 0.5  # cells of page kept around the grid, so edge crops are whole
    sum_box: tuple[float, float, float, float] = (-0.04, -0.04, 0.54, 0.44)  # x0, y0, x1, y1 of the corner crop
    sum_size: tuple[int, int] = (32, 40)  # (h, w) of the sum model's input: about the squared grid's own pixels
    across: float = 0.34  # a border strip reaches this far into each cell
    along: tuple[float, float] = (0.06, 0.94)  # ... and spans this much of the border's length
    border_size: tuple[int, int] = (24, 24)  # (along, across) of the border model's input
    chroma: float = 12.0  # Lab a/b units to one input unit: pale shading differs by a few units
    shift: float = 0.03  # cells: a photo's corners are also read this far to each side (``CageReader.read``)


GEOMETRY = CageGeometry()
N_SUMS = 46  # what a corner holds: 0 no sum, 1-45
# the sum model's outputs: a sum or none (2), its tens digit 0-4 (5), its units digit 0-9 (10); a number is read as
# its digits, so each digit is learnt from every number it is part of, not each of 45 numbers apart
SUM_HEADS = (2, 5, 10)


def sum_odds(logits: np.ndarray) -> np.ndarray:
    """The (n, 46) odds of no sum and of 1-45 from the sum model's (n, 17) outputs: P(v) is the odds of a sum
    times those of v's tens and units digits, over the numbers 1-45 a cage can have."""
    def soft(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    a, b = SUM_HEADS[0], SUM_HEADS[0] + SUM_HEADS[1]
    present, tens, units = soft(logits[:, :a])[:, 1], soft(logits[:, a:b]), soft(logits[:, b:])
    values = np.arange(1, N_SUMS)
    joint = tens[:, values // 10] * units[:, values % 10]
    joint /= np.maximum(joint.sum(axis=1, keepdims=True), 1e-12)
    return np.concatenate([1.0 - present[:, None], present[:, None] * joint], axis=1).astype(np.float32)
# 72 borders between cells side by side (row by row), then 72 between cells one above the other (column by
# column): :func:`border_patches` cuts them in the order of ``killer_reading.border_cells``
BORDERS = len(BORDER_CELLS)


def squared(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None,
            geo: CageGeometry = GEOMETRY) -> np.ndarray:
    """The grid of ``image`` (BGR) seen square-on, ``geo.px`` a cell with ``geo.margin`` cells around it:
    by the corners' homography, or through the crossings of a curled page."""
    m = round(geo.margin * geo.px)
    side = SIDE * geo.px
    if lattice is not None:
        mx, my = dense_map(np.asarray(lattice, np.float32).reshape(10, 10, 2), geo.px, m)
        return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    dst = np.array([[m, m], [m + side, m], [m + side, m + side], [m, m + side]], np.float32)
    hmat = cv2.getPerspectiveTransform(np.asarray(corners, np.float32).reshape(4, 2), dst)
    return cv2.warpPerspective(image, hmat, (side + 2 * m, side + 2 * m), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _planes(square: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grey (0-1, the page's paper near 1) and Lab's a and b about the page's own (a colour cast taken out)."""
    lab = cv2.cvtColor(square, cv2.COLOR_BGR2LAB).astype(np.float32)
    grey = cv2.cvtColor(square, cv2.COLOR_BGR2GRAY).astype(np.float32)
    paper = max(float(np.percentile(grey, 95)), 1.0)
    return grey / paper, lab[..., 1] - np.median(lab[..., 1]), lab[..., 2] - np.median(lab[..., 2])


def sum_crops(square: np.ndarray, geo: CageGeometry = GEOMETRY) -> np.ndarray:
    """Every cell's top-left corner, (81, h, w) float32, ink 1 and paper 0 (each crop stretched by its own
    paper and darkest ink, but never by less than a third of the paper: a blank corner stays blank)."""
    grey = cv2.cvtColor(square, cv2.COLOR_BGR2GRAY) if square.ndim == 3 else square
    m = geo.margin * geo.px
    x0, y0, x1, y1 = geo.sum_box
    h, w = geo.sum_size
    out = np.empty((SIDE * SIDE, h, w), np.float32)
    for i in range(SIDE * SIDE):
        r, c = divmod(i, SIDE)
        left, right, top, bottom = (m + (c + x0) * geo.px, m + (c + x1) * geo.px, m + (r + y0) * geo.px,
                                    m + (r + y1) * geo.px)
        src = np.array([[left, top], [right, top], [left, bottom]], np.float32)
        dst = np.array([[0, 0], [w, 0], [0, h]], np.float32)
        crop = cv2.warpAffine(grey, cv2.getAffineTransform(src, dst), (w, h), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        paper = float(np.percentile(crop, 90))
        dark = float(crop.min())
        out[i] = np.clip((paper - crop) / max(paper - dark, paper / 3, 1.0), 0, 1)
    return out


def border_patches(square: np.ndarray, geo: CageGeometry = GEOMETRY) -> np.ndarray:
    """A strip across each of the 144 borders, (144, 3, along, across) float32: grey, a, b; the strip's
    across axis always runs from the first cell (left, or above) into the second."""
    grey, a, b = _planes(square)
    planes = np.stack([grey, a / geo.chroma, b / geo.chroma], axis=-1)
    m = geo.margin * geo.px
    n_along, n_across = geo.border_size
    lo, hi = geo.along
    out = np.empty((BORDERS, 3, n_along, n_across), np.float32)
    k = 0
    for across, along in (((1.0, 0.0), (0.0, 1.0)), ((0.0, 1.0), (1.0, 0.0))):
        for line in range(SIDE):  # a row of cells (side by side), then a column (one above the other)
            for step in range(SIDE - 1):
                # the border's start: between cell ``step`` and ``step + 1`` of that row or column
                bx = m + (step + 1) * geo.px * across[0] + line * geo.px * along[0]
                by = m + (step + 1) * geo.px * across[1] + line * geo.px * along[1]
                ox = bx - across[0] * geo.across * geo.px + along[0] * lo * geo.px
                oy = by - across[1] * geo.across * geo.px + along[1] * lo * geo.px
                wide, long = 2 * geo.across * geo.px, (hi - lo) * geo.px
                src = np.array([[ox, oy], [ox + across[0] * wide, oy + across[1] * wide],
                                [ox + along[0] * long, oy + along[1] * long]], np.float32)
                dst = np.array([[0, 0], [n_across, 0], [0, n_along]], np.float32)
                out[k] = cv2.warpAffine(planes, cv2.getAffineTransform(src, dst), (n_across, n_along),
                                        flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE).transpose(2, 0, 1)
                k += 1
    return out


def _model(name: str) -> Path:
    return Path(str(resources.files("ar_sudoku.models").joinpath(name)))


@dataclass(frozen=True)
class CageOdds:
    """A squared killer grid's reading: each cell's odds of no sum and of 1-45 (81, 46); each border's odds
    of parting two cages (144,); and which quarter turn of the grid as found these are for."""

    sums: np.ndarray
    borders: np.ndarray
    turn: int
    square: np.ndarray  # the squared grid the odds were read from, turned upright


class CageReader:
    """The sum and border models, loaded once."""

    def __init__(self, threads: int = 1, geo: CageGeometry = GEOMETRY):
        self.geo = geo
        self.sums, self.sums_input, self.sums_meta = load_onnx(
            _model("killer_sums.onnx"), "killer sum model", "scripts/train_killer.py", threads)
        self.borders, self.borders_input, self.borders_meta = load_onnx(
            _model("killer_borders.onnx"), "killer border model", "scripts/train_killer.py", threads)

    def sum_odds(self, crops: np.ndarray) -> np.ndarray:
        """The (n, 46) odds of no sum and of 1-45 of a batch of corner crops."""
        if len(crops) == 0:
            return np.zeros((0, N_SUMS), np.float32)
        x = np.ascontiguousarray(crops, dtype=np.float32)[:, None]
        return sum_odds(run_batched(self.sums, self.sums_input, x))

    def border_odds(self, patches: np.ndarray) -> np.ndarray:
        if len(patches) == 0:
            return np.zeros((0,), np.float32)
        x = np.ascontiguousarray(patches, dtype=np.float32)
        logits = run_batched(self.borders, self.borders_input, x)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (e[:, 1] / e.sum(axis=1)).astype(np.float32)

    def read(self, image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None,
             shifted: bool = False) -> CageOdds:
        """The odds of a grid, turned the way its sums read best: each quarter turn's corner crops in one call,
        the turn with the most sums seen kept, and its borders read. ``shifted``: the upright corners are read
        again a little to each side (``geo.shift``) and the odds joined (a photo's one look; live, the frames are)."""
        square = squared(image, corners, lattice, self.geo)
        turns = [np.ascontiguousarray(np.rot90(square, k)) for k in range(4)]
        odds = self.sum_odds(np.concatenate([sum_crops(t, self.geo) for t in turns]))
        seen = [(1.0 - odds[k * 81:(k + 1) * 81, 0]).sum() for k in range(4)]
        k = int(np.argmax(seen))
        sums = odds[k * 81:(k + 1) * 81]
        if shifted:
            sums = self._shifted(turns[k], sums)
        return CageOdds(sums, self.border_odds(border_patches(turns[k], self.geo)), k, turns[k])

    def _shifted(self, square: np.ndarray, sums: np.ndarray) -> np.ndarray:
        """``sums`` joined (a geometric mean) with the odds of the corners cut ``geo.shift`` of a cell to each side:
        a corner cut a little off, or a stroke on a pixel's edge, reads surely from one side or another."""
        x0, y0, x1, y1 = self.geo.sum_box
        d = self.geo.shift
        boxes = [replace(self.geo, sum_box=(x0 + dx, y0 + dy, x1 + dx, y1 + dy))
                 for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d))]
        more = self.sum_odds(np.concatenate([sum_crops(square, g) for g in boxes])).reshape(len(boxes), 81, N_SUMS)
        logs = np.log(np.maximum(np.concatenate([sums[None], more]), 1e-6)).mean(axis=0)
        joined = np.exp(logs - logs.max(axis=1, keepdims=True))
        return (joined / joined.sum(axis=1, keepdims=True)).astype(np.float32)
