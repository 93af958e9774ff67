"""Which digit a handwritten entry is: a small model that sees the ink re-centred and re-scaled.

The cell-kind model (:mod:`ar_sudoku.vision.kinds`) must see the ink's size and
position to tell a pencilled candidate from an entry or a given, so its input
keeps a large, off-centre, slanted entry as written. That view is poor for
telling *which* digit was written: a 9 and a 4, a 3 and a 7 differ in a few
pixels that move with every writer's size and placement, and the kind model
confuses them. Each such confusion turns into a false "mistake" on the page.

This module reads only the digit, the way MNIST is prepared: find the ink blob
in the cell (grid lines and the neighbours' overflow left out), crop its
bounding box, scale the longer side to ``FIT`` px in a ``SIZE`` x ``SIZE``
input keeping the aspect (a 1 stays thin), and centre it. The ink is measured
against the local paper and scaled to the stroke's own darkness, so blue, red,
black pen and grey pencil all look alike: colour and lightness carry no
information about the digit. The model (``models/entries.onnx``, trained by
``scripts/train_entries.py``) gives 9 classes, digits 1-9.

Usage::

    warped = warp_views_grid(gray, corners)        # the grid at CELL px a cell (kinds.py)
    crops = entry_crops(warped, cells)             # cells: indices 0..80 of the entries
    probs = EntryReader().probabilities(crops)     # (n, 9): P(digit 1..9)

The two models err on different cells: the product of this model's probabilities with the kind
model's digit probabilities (its given and entry heads summed, renormalised) is a little better
still than either (``scripts/eval_entries.py`` reports all three on the held-out photos).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.digits import load_onnx, softmax_run
from ar_sudoku.vision.stats import percentile

# the geometry of the rectified grid this module is given (kinds.warp_views_grid): kinds.CELL and kinds.MARGIN.
# Held here, not imported, because the cell-kind reader asks this model for its second opinion
# (tests/test_entries.py checks that the two agree).
CELL = 60
MARGIN = 10

MODEL_NAME = "entries.onnx"
SIZE = 32  # model input side
FIT = 28  # the blob's longer side in the input: a little room left for a stroke's anti-aliased edge
PAD = 8  # px (at CELL scale) of the neighbouring cells looked at: big entries overflow their cell


@dataclass(frozen=True)
class EntriesConfig:
    """This stage's tuning: each field with the reason for its value."""

    paper_k: int = 11  # px: the max filter that finds the paper under a stroke (pen strokes are thinner)
    ink_floor: float = 12.0  # grey levels: the least stroke darkness that is scaled up to 1 (no noise blown up)
    thresh: float = 0.3  # normalised ink that counts as a stroke pixel for the blob search
    # how far in from the region's edge grid lines are looked for (corners a third of a cell off)
    line_band: int = PAD + 22
    inset: int = 10  # a component must reach this far inside the cell to be part of the digit
    min_area: int = 6  # px: smaller components are specks
    inner_share: float = 0.3  # share of a component's pixels that must lie in the interior for it to count
    line_thick: int = 6  # px: a grid-line remnant is at most this thick
    small: float = 0.15  # a component below this share of the digit's area counts only when it touches the digit's box
    faint: float = 0.6  # a component whose mean ink is below this share of the digit's is texture or show-through
    near: int = 4  # px: how near the digit's bounding box such a small component must come (a 5's detached bar)


ENTRIES = EntriesConfig()
LINE_LEN = int(0.75 * CELL)  # a straight run this long near the cell's edge is a grid line, not a digit
N_CLASSES = 9


def _stroke_map(region: np.ndarray) -> np.ndarray:
    """Ink darkness 0..1 of a region: the local paper minus the pixel, over the stroke's own darkness.

    The paper is a max filter (wider than a pen stroke) then a blur, so it follows a shadow across the
    cell; the scale is the 99th percentile inside the cell, so faint pencil reads like black pen.
    """
    paper = cv2.blur(cv2.dilate(region, np.ones((ENTRIES.paper_k, ENTRIES.paper_k), np.uint8)), (ENTRIES.paper_k,
    ENTRIES.paper_k))
    ink = np.clip(paper - region, 0.0, None)
    inner = ink[PAD + ENTRIES.inset // 2: PAD + CELL - ENTRIES.inset // 2, PAD + ENTRIES.inset // 2: PAD + CELL -
    ENTRIES.inset // 2]
    scale = max(percentile(inner, 99), ENTRIES.ink_floor)
    return np.clip(ink / scale, 0.0, 1.0)


def _line_mask(strokes: np.ndarray) -> np.ndarray:
    """Pixels of long straight horizontal and vertical runs near the region's edges: the grid lines.

    A 3-px dilation across the line first lets a line that steps by a pixel (a slightly tilted or
    curled page) still make one run. A run counts when its middle lies within ENTRIES.line_band of the
    region's edge (the grid's corners may be off by a third of a cell); then all of it goes, however
    thick. A 7's bar or a 1's stem in the middle of the cell stays.
    """
    h, w = strokes.shape
    hor = cv2.dilate(strokes, np.ones((3, 1), np.uint8))
    hor = cv2.morphologyEx(hor, cv2.MORPH_OPEN, np.ones((1, LINE_LEN), np.uint8))
    ver = cv2.dilate(strokes, np.ones((1, 3), np.uint8))
    ver = cv2.morphologyEx(ver, cv2.MORPH_OPEN, np.ones((LINE_LEN, 1), np.uint8))
    hor[_middle_runs(hor.any(axis=1), h)] = 0
    ver[:, _middle_runs(ver.any(axis=0), w)] = 0
    return cv2.dilate(hor | ver, np.ones((3, 3), np.uint8))


def _middle_runs(on: np.ndarray, n: int) -> np.ndarray:
    """The rows (or columns) of the runs of ``on`` whose middle lies more than ENTRIES.line_band from both ends."""
    out = np.zeros(n, bool)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], on.astype(np.int8), [0]])))
    for a, b in zip(edges[::2], edges[1::2]):
        mid = (a + b - 1) / 2
        if ENTRIES.line_band <= mid <= n - 1 - ENTRIES.line_band:
            out[a:b] = True
    return out


def _digit_mask(strokes: np.ndarray, ink: np.ndarray) -> np.ndarray | None:
    """The components that make the digit; None when there is none.

    The digit's main stroke is the component with the most pixels inside the cell (halved when it
    touches the region's outer edge: a neighbour's overflow): not necessarily in the cell's middle,
    as a grid found a third of a cell off leaves the digit near an edge. Another component joins when
    it is as dark as the main one (paper texture and show-through are fainter), is not a piece of grid
    line (long, thin, parallel to the near edge) nor touches the region's edge, and either lies mostly
    in the cell's interior and is not small, or comes next to the main stroke's box (a 5's detached bar).
    """
    n, lab, stats, _ = cv2.connectedComponentsWithStats(strokes, connectivity=8)
    if n <= 1:
        return None
    h, w = strokes.shape
    lo, hi = PAD + ENTRIES.inset, PAD + CELL - ENTRIES.inset
    inner = np.bincount(lab[lo:hi, lo:hi].ravel(), minlength=n)[1:]
    in_cell = np.bincount(lab[PAD: PAD + CELL, PAD: PAD + CELL].ravel(), minlength=n)[1:]
    x, y, bw, bh, area = (stats[1:, k] for k in range(5))
    mean = np.bincount(lab.ravel(), weights=ink.ravel(), minlength=n)[1:] / area
    edge = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
    score = np.where(edge, in_cell / 2, in_cell)
    main = int(np.argmax(score))
    if score[main] < ENTRIES.min_area:
        return None
    cx, cy = x + bw / 2, y + bh / 2
    thin = np.minimum(bw, bh) <= ENTRIES.line_thick
    upright = (bh >= 3 * bw) & ((cx < ENTRIES.line_band) | (cx > w - ENTRIES.line_band))
    flat = (bw >= 3 * bh) & ((cy < ENTRIES.line_band) | (cy > h - ENTRIES.line_band))
    line_like = thin & (upright | flat)
    lx, ly = x[main] - ENTRIES.near, y[main] - ENTRIES.near
    near = (x < lx + bw[main] + 2 * ENTRIES.near) & (x + bw > lx) & (y < ly + bh[main] + 2 * ENTRIES.near) & (y + bh >
    ly)
    inside = (inner >= ENTRIES.inner_share * area) & (area >= max(ENTRIES.min_area, ENTRIES.small * area[main]))
    keep = ~(edge | line_like) & (mean >= ENTRIES.faint * mean[main]) & (inside | (near & (in_cell >= area / 2)))
    keep[main] = True
    table = np.concatenate([[False], keep]).astype(np.uint8)
    return table[lab]


def _fit(ink: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The masked ink, its strokes' darkness rescaled to 1.

    Its bounding box is scaled so the longer side is FIT px (aspect kept) and centred in SIZE x SIZE.
    """
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    crop = (ink * cv2.dilate(mask, np.ones((3, 3), np.uint8)))[y0:y1, x0:x1]
    # the digit's own stroke darkness is 1: a darker grid line in the cell set the first scale
    crop = np.clip(crop / max(percentile(ink[mask > 0], 90), 0.05), 0.0, 1.0)
    h, w = crop.shape
    f = FIT / max(h, w)
    nw, nh = max(1, round(w * f)), max(1, round(h * f))
    small = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    out = np.zeros((SIZE, SIZE), np.float32)
    oy, ox = (SIZE - nh) // 2, (SIZE - nw) // 2
    out[oy: oy + nh, ox: ox + nw] = small
    return out


def _digit(region: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """A cell region's ink map (grid lines removed) and its digit's mask (None: no digit found)."""
    ink = _stroke_map(region.astype(np.float32))
    strokes = (ink > ENTRIES.thresh).astype(np.uint8)
    lines = _line_mask(strokes)
    strokes[lines > 0] = 0
    ink = np.where(lines > 0, 0.0, ink).astype(np.float32)
    return ink, _digit_mask(strokes, ink)


def ink_height(region: np.ndarray) -> int:
    """The height in px (at CELL scale) of the digit found in a cell's region; 0 when there is none.

    Written size varies from writer to writer, so it says little alone; against the same page's
    sure entries it tells a small pencilled mark from an entry (``writing.EntryOpinion.heights``).
    """
    box = ink_box(region)
    return 0 if box is None else box[1] - box[0]


def ink_box(region: np.ndarray) -> tuple[int, int, int, int] | None:
    """The digit's bounding box in a cell's region (px at CELL scale): top, bottom, left, right (exclusive
    ends); None when no digit is found. Print sits where its font puts it, the same in every cell; a
    hand does not (``writing.misplaced_print_is_written``)."""
    mask = _digit(region)[1]
    if mask is None:
        return None
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return int(rows[0]), int(rows[-1] + 1), int(cols[0]), int(cols[-1] + 1)


def entry_crop(region: np.ndarray) -> np.ndarray:
    """One cell's model input from its region: the cell (CELL px) with PAD px of its neighbours around it."""
    ink, mask = _digit(region)
    if mask is None:  # nothing found: the cell's interior as it is, so the model still sees something
        mask = np.zeros(ink.shape, np.uint8)
        mask[PAD + ENTRIES.inset: PAD + CELL - ENTRIES.inset, PAD + ENTRIES.inset: PAD + CELL - ENTRIES.inset] = 1
    return _fit(ink, mask)


def candidate_pieces(region: np.ndarray) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """The pencilled digits of one cell's region, in reading order: per blob, its model input and,
    when the blob is wide enough to be two digits written touching ("26"), the inputs of its two halves.

    Candidates are small digits side by side or in a little grid: the cell's strokes (grid lines and
    the neighbours' overflow left out) fall into blobs; pieces that share most of their columns and
    lie close above one another are one digit (a 5's bar). Specks are dropped. Whether a wide blob is
    one digit or two is the reader's call (:meth:`ar_sudoku.vision.writing.EntryOpinion.candidates`).
    """
    ink = _stroke_map(region.astype(np.float32))
    strokes = (ink > ENTRIES.thresh).astype(np.uint8)
    strokes[_line_mask(strokes) > 0] = 0
    inner = np.zeros_like(strokes)
    inner[PAD + 3: PAD + CELL - 3, PAD + 3: PAD + CELL - 3] = 1
    n, lab, stats, _ = cv2.connectedComponentsWithStats(strokes * inner, connectivity=8)
    boxes = [list(stats[k, :4]) + [k] for k in range(1, n)
             if stats[k, 4] >= ENTRIES.min_area and max(stats[k, 2], stats[k, 3]) >= CELL // 10]
    groups: list[list[int]] = []  # [x0, y0, x1, y1, labels...]
    for x, y, w, h, k in sorted(boxes, key=lambda b: -b[2] * b[3]):
        for g in groups:
            overlap = min(x + w, g[2]) - max(x, g[0])
            if overlap >= 0.5 * min(w, g[2] - g[0]) and y < g[3] + CELL // 8 and y + h > g[1] - CELL // 8:
                g[0], g[1], g[2], g[3] = min(g[0], x), min(g[1], y), max(g[2], x + w), max(g[3], y + h)
                g.append(k)
                break
        else:
            groups.append([x, y, x + w, y + h, k])
    groups.sort(key=lambda g: (round((g[1] + g[3]) / 2 / (CELL / 3)), (g[0] + g[2]) / 2))  # rows of thirds
    out = []
    for g in groups:
        mask = np.isin(lab, g[4:]).astype(np.uint8)
        halves = []
        if g[2] - g[0] >= 0.8 * (g[3] - g[1]) and g[2] - g[0] >= 6:  # wide enough for two digits
            cols = mask[:, g[0]:g[2]].sum(axis=0).astype(np.float32)
            lo, hi = int(0.3 * len(cols)), int(0.7 * len(cols)) + 1
            cut = g[0] + lo + int(np.argmin(cols[lo:hi]))
            left, right = mask.copy(), mask.copy()
            left[:, cut:] = 0
            right[:, :cut] = 0
            if left.sum() >= ENTRIES.min_area and right.sum() >= ENTRIES.min_area:
                halves = [_fit(ink, left), _fit(ink, right)]
        out.append((_fit(ink, mask), halves))
    return out


def cell_region(warped: np.ndarray, cell: int) -> np.ndarray:
    """Cell ``cell`` (0..80, row by row) of a grid from ``kinds.warp_views_grid`` with PAD px around it.

    The region is padded by replication where the warp's own margin is narrower than PAD.
    """
    r, c = divmod(int(cell), 9)
    x0, y0 = MARGIN + c * CELL - PAD, MARGIN + r * CELL - PAD
    side = CELL + 2 * PAD
    h, w = warped.shape[:2]
    if x0 >= 0 and y0 >= 0 and x0 + side <= w and y0 + side <= h:
        return warped[y0: y0 + side, x0: x0 + side]
    big = cv2.copyMakeBorder(warped, PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE)
    return big[y0 + PAD: y0 + PAD + side, x0 + PAD: x0 + PAD + side]


def entry_crops(warped: np.ndarray, cells: np.ndarray | list[int]) -> np.ndarray:
    """The model inputs (n, SIZE, SIZE) float32 (0 paper, 1 stroke) of the given cells of a rectified grid.

    ``warped``: the grid at CELL px a cell with MARGIN px around it (``kinds.warp_views_grid``), grey or BGR.
    """
    if warped.ndim == 3:
        warped = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
    cells = np.asarray(cells, dtype=np.int64).reshape(-1)
    out = np.zeros((len(cells), SIZE, SIZE), np.float32)
    for k, i in enumerate(cells):
        out[k] = entry_crop(cell_region(warped, int(i)))
    return out


def default_model_path() -> Path:
    return Path(str(resources.files("ar_sudoku.models").joinpath(MODEL_NAME)))


class EntryReader:
    """An onnxruntime session for the entry-digit model, loaded once and reused for every grid."""

    def __init__(self, model_path: str | Path | None = None, threads: int = 1):
        self.session, self.input_name, self.meta = load_onnx(
            Path(model_path) if model_path else default_model_path(), "entry-digit model",
            "scripts/train_entries.py", threads)

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Softmax over the digits 1..9 (column k is digit k + 1) for a batch of (n, SIZE, SIZE) crops."""
        return softmax_run(self.session, self.input_name, crops, N_CLASSES)
