"""What each cell holds: blank, printed given, handwritten entry, or pencilled candidates.

A person points the camera at a puzzle they have started. The digit model of
:mod:`ar_sudoku.vision.digits` reads printed digits only, so a handwritten
entry would become a given and break the rules. This module classifies every
cell into 20 classes in one batched ONNX call (``models/cells.onnx``, trained
by ``scripts/train_cells.py``)::

    0 blank | 1-9 printed given 1..9 | 10-18 handwritten entry 1..9 | 19 pencilled candidates

The model input keeps the ink's **size and position** in the cell (a view of
the cell plus a margin, never re-centred or re-scaled): candidates are small
and high in the cell, entries large, off-centre and slanted, print a centred
font. It is grayscale and contrast-normalised against the page itself, so pen
and pencil (grey, lighter than print) keep their relative darkness and no
colour is needed.

Usage::

    views = cell_views(gray, corners)          # corners TL, TR, BR, BL of the grid
    kinds = KindReader().read(views)           # CellKinds
    kinds.kinds, kinds.digits, kinds.given_reading()
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import Reading
from ar_sudoku.vision.digits import load_onnx
from ar_sudoku.vision.lattice import rectify

MODEL_NAME = "cells.onnx"
CELL = 60  # pixels per cell in the warped grid (before the 2x2 average)
MARGIN = 10  # pixels of the neighbouring cells kept around a cell, at CELL scale
VIEW = (CELL + 2 * MARGIN) // 2  # model input side: 40 px, the cell is the middle 30 px
N_CLASSES = 20
BLANK, GIVEN, ENTRY, CANDIDATES = 0, 1, 2, 3
KIND_CHARS = ".gec"  # the JSON's `cells` characters, indexed by kind code
INK_SKIP = 0.15  # a cell whose interior never reaches this normalised ink is blank without asking the model


@dataclass(frozen=True)
class CellKinds:
    """The 81 cells' kinds and digits, row by row.

    ``kinds``: 0 blank, 1 printed given, 2 handwritten entry, 3 pencilled candidates.
    ``digits``: the digit of a given or an entry, 0 otherwise.
    ``probs``: softmax over [blank, given 1..9, entry 1..9, candidates].
    ``confidence``: the probability of the chosen class.
    ``candidates``: the pencilled digits per cell, or None when not read (not yet read by this model).
    """

    kinds: np.ndarray  # (81,) int8
    digits: np.ndarray  # (81,) int8
    probs: np.ndarray  # (81, 20) float32
    confidence: np.ndarray  # (81,) float32
    candidates: list[str] | None = None

    @property
    def givens(self) -> str:
        """81 chars: the printed digits, '.' elsewhere."""
        return "".join(str(d) if k == GIVEN else "." for k, d in zip(self.kinds, self.digits))

    @property
    def entries(self) -> str:
        """81 chars: the handwritten digits, '.' elsewhere."""
        return "".join(str(d) if k == ENTRY else "." for k, d in zip(self.kinds, self.digits))

    @property
    def cells(self) -> str:
        """81 chars: g given, e entry, c candidates, . blank (the JSON's `cells`)."""
        return "".join(KIND_CHARS[k] for k in self.kinds)

    def given_reading(self) -> Reading:
        """The solver's view: printed givens only, for :func:`ar_sudoku.sudoku.rules.check_reading`.

        P(empty) = P(blank) + P(any entry) + P(candidates), P(given d) as is; so the rules'
        second choices can turn a doubtful given into an entry (empty) or another given.
        """
        p10 = np.empty((81, 10), np.float32)
        p10[:, 0] = self.probs[:, 0] + self.probs[:, 10:].sum(axis=1)
        p10[:, 1:] = self.probs[:, 1:10]
        digits = np.where(self.kinds == GIVEN, self.digits, 0).astype(np.int64)
        return Reading(digits, p10[np.arange(81), digits], p10)


def _paper_level(w: np.ndarray) -> np.ndarray:
    """The paper's brightness at every pixel of the half-scale grid.

    The brightest 4x4-pixel mean within about half a cell is paper even under a
    marker stroke; a blur of that follows shadows across the grid at a fraction of
    the cost of a median filter.
    """
    h, wd = w.shape
    small = cv2.resize(w, (wd // 4, h // 4), interpolation=cv2.INTER_AREA)
    paper = cv2.dilate(small, np.ones((3, 3), np.uint8))
    paper = cv2.blur(paper, (3, 3))
    return cv2.resize(paper, (wd, h), interpolation=cv2.INTER_LINEAR)


def warp_views_grid(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None) -> np.ndarray:
    """The grid seen square-on at CELL px a cell, with MARGIN px of page around it.

    A 12 MP photo is first halved with pyrDown until the grid is at most twice the
    target size, so the warp's bilinear sampling does not skip thin pencil strokes.
    A curled page (``lattice``, its 10x10 crossings) is rectified through its crossings.
    """
    if lattice is not None:
        corners = np.float32(lattice).reshape(-1, 2)  # the crop below covers every crossing
    corners = np.asarray(corners, np.float32)
    side = 9 * CELL
    target = side + 2 * MARGIN
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 4
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    img = gray[y0:y1, x0:x1]
    pts = corners - np.float32([x0, y0])
    span = float(max(np.ptp(corners[:, 0]), np.ptp(corners[:, 1])))
    k = 1.0
    while span > 3 * side and min(img.shape[:2]) > 8:
        img = cv2.pyrDown(img)
        pts = pts / 2
        span /= 2
        k *= 2
    if lattice is not None:
        return rectify(img, (np.float32(lattice) - np.float32([x0, y0])) / k, CELL, MARGIN)
    dst = np.float32([[MARGIN, MARGIN], [MARGIN + side, MARGIN], [MARGIN + side, MARGIN + side],
                      [MARGIN, MARGIN + side]])
    m = cv2.getPerspectiveTransform(pts, dst)
    return cv2.warpPerspective(img, m, (target, target), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def cell_views(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None) -> np.ndarray:
    """The model inputs of the 81 cells: (81, VIEW, VIEW) float32, 0 = paper, 1 = typical ink.

    ``gray`` is the whole picture (uint8), ``corners`` the grid's TL, TR, BR, BL in it. Each
    view is the cell with a quarter-cell margin of its neighbours, the ink measured against the
    local paper and scaled by the grid's own ink level (so pencil stays lighter than print).
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    w = warp_views_grid(gray, corners, lattice)
    half = cv2.resize(w, (w.shape[1] // 2, w.shape[0] // 2), interpolation=cv2.INTER_AREA).astype(np.float32)
    diff = _paper_level(half) - half
    # typical ink: a high percentile of the cells' interiors (grid lines are often darker than digits)
    step = CELL // 2
    m = MARGIN // 2
    inner = diff[m: m + 9 * step, m: m + 9 * step].reshape(9, step, 9, step)
    q = step // 5
    ink = float(np.percentile(inner[:, q: step - q, :, q: step - q], 99.3))
    half = np.clip(diff / max(ink, 12.0), 0.0, 1.5)
    step = CELL // 2
    s0, s1 = half.strides
    views = np.lib.stride_tricks.as_strided(half, (9, 9, VIEW, VIEW), (step * s0, step * s1, s0, s1))
    return np.ascontiguousarray(views.reshape(81, VIEW, VIEW), dtype=np.float32)


def ink_scores(views: np.ndarray) -> np.ndarray:
    """How much ink a cell's interior holds (the 2nd-highest pixel of a 2x2 mean), per cell.

    Cheap enough to decide which cells are clearly blank and need no model call.
    """
    m = MARGIN // 2 + 2  # skip the margin and the cell's own grid lines
    inner = views[:, m: VIEW - m, m: VIEW - m]
    pooled = (inner[:, :-1, :-1] + inner[:, 1:, :-1] + inner[:, :-1, 1:] + inner[:, 1:, 1:]) / 4
    flat = pooled.reshape(len(views), -1)
    return np.partition(flat, flat.shape[1] - 2, axis=1)[:, -2]


def default_model_path() -> Path:
    return Path(str(resources.files("ar_sudoku.models").joinpath(MODEL_NAME)))


def decide(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kind by the summed probability of each kind, then the likeliest digit within it.

    Summing first means a given whose digit is uncertain (3 or 8?) is still a given.
    """
    kind_p = np.stack([probs[:, 0], probs[:, 1:10].sum(1), probs[:, 10:19].sum(1), probs[:, 19]], axis=1)
    kinds = kind_p.argmax(axis=1).astype(np.int8)
    digits = np.zeros(len(probs), np.int8)
    g, e = kinds == GIVEN, kinds == ENTRY
    digits[g] = probs[g, 1:10].argmax(axis=1) + 1
    digits[e] = probs[e, 10:19].argmax(axis=1) + 1
    cls = np.where(g, digits, np.where(e, digits + 9, np.where(kinds == CANDIDATES, 19, 0)))
    return kinds, digits, probs[np.arange(len(probs)), cls].astype(np.float32)


class KindReader:
    """An onnxruntime session for the cell-kind model, loaded once and reused for every grid."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1):
        self.session, self.input_name, self.meta = load_onnx(
            Path(model_path) if model_path else default_model_path(), "cell-kind model", "scripts/train_cells.py",
            threads)

    def probabilities(self, views: np.ndarray) -> np.ndarray:
        """Softmax over the 20 classes for a batch of (n, VIEW, VIEW) views."""
        if len(views) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        x = np.ascontiguousarray(views, dtype=np.float32)[:, None]
        logits = self.session.run(None, {self.input_name: x})[0]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)

    def read(self, views: np.ndarray) -> CellKinds:
        """Kinds of the 81 cells from :func:`cell_views`: one model call for the cells that hold ink."""
        probs = np.zeros((len(views), N_CLASSES), np.float32)
        probs[:, 0] = 1.0
        idx = np.flatnonzero(ink_scores(views) > INK_SKIP)
        if len(idx):
            probs[idx] = self.probabilities(views[idx])
        kinds, digits, conf = decide(probs)
        return CellKinds(kinds, digits, probs, conf)


def read_kinds(gray: np.ndarray, corners: np.ndarray, reader: KindReader) -> CellKinds:
    """Cells of one grid in one call: views, then the model."""
    return reader.read(cell_views(gray, corners))
