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
and pencil (grey, lighter than print) keep their relative darkness.

Colour is a second, per-page opinion: people often write in blue (or red)
ink, and a printer's ink is one colour across the page. When the cells the
model is sure of show two inks, one for the givens and another for the
entries, each cell's own ink colour settles given against entry
(:func:`ink_votes`). A page written in black shows one ink, and the model
decides alone.

Usage::

    views, inks = cell_inputs(bgr, corners)    # corners TL, TR, BR, BL of the grid
    kinds = KindReader().read(views, inks)     # CellKinds
    kinds.kinds, kinds.digits, kinds.given_reading()
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.sudoku.rules import Reading
from ar_sudoku.vision.cells import CELLS, cell_centres, glare_gain, is_spot
from ar_sudoku.vision.deblur import unstreak
from ar_sudoku.vision.digits import load_onnx, softmax_run
from ar_sudoku.vision.entries import EntryReader
from ar_sudoku.vision.lattice import rectify
from ar_sudoku.vision.quads import speckle
from ar_sudoku.vision.stats import percentile, percentiles

MODEL_NAME = "cells.onnx"
# the same recipe trained again (another seed, another machine's fonts): asked beside the first
MORE_MODELS = ("cells_2.onnx", "cells_3.onnx")


@dataclass(frozen=True)
class KindsConfig:
    """This stage's tuning: each field with the reason for its value."""

    written_cells: int = 3  # cells read as handwriting or pencil (half their odds or more) that make a page written on
    ink_skip: float = 0.15  # a cell whose interior never reaches this normalised ink is blank without asking the model
    unsure: float = 0.9  # a cell whose best class is below this is read again at shifts
    # (dy, dx) in view pixels
    shifts: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))
    ink_pixels: int = 6  # inked pixels (half scale) a cell needs for its ink colour to count
    min_sure: int = 3  # sure givens and sure entries needed to learn a page's two inks
    two_inks: float = 0.1  # how far apart (in optical-density shares) two inks must be to tell them apart
    # A grid whose paper's typical Laplacian is above this share of its contrast is noisy (a dim room's sensor
    # noise: 0.07-0.14; the held-out photos as taken: 0.01-0.05, and they are left exactly as they are) ...
    noisy_paper: float = 0.06
    quiet_sigma: float = 1.2  # ... and is smoothed by a Gaussian this wide (px at CELL scale) before its views are cut
    # Its colour square (half scale) is smoothed by the same width, for the inks: each channel's own noise
    # scatters a stroke's colour shares, and a pen's cells fall among the print's. A wider one (1.0) also took
    # thin printed strokes below the ink level, and they lost their colour.
    ink_sigma: float = quiet_sigma / 2
    # A grid whose ink edges rise by less than soft of the typical ink a pixel (half scale, across x or y, the less
    # steep) is out of focus, and its views are sharpened: the more the further below, fully at soft - soft_ramp.
    # (On the training photos as taken 0.42-1.31, a tenth below 0.52; blurred by 1.6 px on 640: 0.23-1.13.)
    soft: float = 0.60
    soft_ramp: float = 0.1
    sharpen: float = 3.0  # the unsharp mask's full amount ...
    sharpen_sigma: float = 0.75  # ... and its Gaussian, px at the views' half scale
    # edges of one direction (of four) less steep than this share of the steepest: a streak, not focus
    streaked: float = 0.75
    even_ramp: float = 0.1  # ... and sharpened the less, the nearer it is to a streak's (fully at streaked + even_ramp)
    # A block whose colour's saturation (chroma over its brightest channel) lies this far above the grid's median
    # is ink, not paper, however bright: in a shadowed row a red pen can be brighter by grey level than its paper,
    # and taken for the paper it made the paper seem to absorb red, and the pen's cells read blank or in the print's
    # ink ...
    ink_saturation: float = 0.15
    saturation_weight: float = 2.0  # ... and its grey level counts for less by this many times its excess
    saturated: int = 250  # paper this bright somewhere in the grid is a glare's white core (shade_gain)
    pen_darkness: float = 160.0  # grey levels the strongest pen stroke of a pen map is drawn with
    # a cell the kind model is this sure holds print, blank to the digit model: the print was missed
    missed_print: float = 0.9
    # cells of pencil marks that make a page written on (a glare's faded print is read as a pen's, not these)
    marked: int = 3


KINDS = KindsConfig()
CELL = 60  # pixels per cell in the warped grid (before the 2x2 average)
MARGIN = 10  # pixels of the neighbouring cells kept around a cell, at CELL scale
VIEW = (CELL + 2 * MARGIN) // 2  # model input side: 40 px, the cell is the middle 30 px
N_CLASSES = 20
BLANK, GIVEN, ENTRY, CANDIDATES = 0, 1, 2, 3
KIND_CHARS = ".gec"  # the JSON's `cells` characters, indexed by kind code
SPREADS, NOISY_SPREADS = 3.0, 2.0  # ... and how many times their spread (a dim room's noise spreads them)


@dataclass(frozen=True)
class CellKinds:
    """The 81 cells' kinds and digits, row by row.

    ``kinds``: 0 blank, 1 printed given, 2 handwritten entry, 3 pencilled candidates.
    ``digits``: the digit of a given or an entry, 0 otherwise.
    ``probs``: softmax over [blank, given 1..9, entry 1..9, candidates].
    ``confidence``: the probability of the chosen class.
    ``ink``: the colour's vote per cell, -1 (the givens' ink) .. +1 (the entries' ink), 0 when the
    page shows one ink or the cell too little (:func:`ink_votes`).
    """

    kinds: np.ndarray  # (81,) int8
    digits: np.ndarray  # (81,) int8
    probs: np.ndarray  # (81, 20) float32
    confidence: np.ndarray  # (81,) float32
    ink: np.ndarray | None = None  # (81,) float32

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
    """The paper's brightness (or colour) at every pixel of the half-scale grid.

    The brightest 4x4-pixel mean within about half a cell is paper even under a
    marker stroke; a blur of that follows shadows across the grid at a fraction of
    the cost of a median filter. In colour the brightest block is chosen by its grey
    level and keeps its own colour: each channel's own maximum would take a blue
    pen's blue (brighter than yellowed paper in that channel) for the paper's, and
    the paper around a thin blue stroke would then seem to absorb blue.
    """
    h, wd = w.shape[:2]
    small = cv2.resize(w, (wd // 4, h // 4), interpolation=cv2.INTER_AREA)
    paper = cv2.dilate(small, np.ones((3, 3), np.uint8)) if small.ndim == 2 else _brightest(small)
    paper = cv2.blur(paper, (3, 3))
    return cv2.resize(paper, (wd, h), interpolation=cv2.INTER_LINEAR)


def _brightest(colour: np.ndarray) -> np.ndarray:
    """Each pixel's brightest 3x3 neighbour by grey level, in that neighbour's own colour; a block of ink's
    saturated colour (``KINDS.ink_saturation``) counts as the darker."""
    sh, sw = colour.shape[:2]
    top = colour.max(axis=2)
    sat = (top - colour.min(axis=2)) / np.maximum(top, 1.0)
    excess = np.maximum(sat - (float(np.median(sat)) + KINDS.ink_saturation), 0.0)
    grey = colour.sum(axis=2) * np.maximum(1.0 - KINDS.saturation_weight * excess, 0.0)
    gp = cv2.copyMakeBorder(grey, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    cp = cv2.copyMakeBorder(colour, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    shifts = [(dy, dx) for dy in range(3) for dx in range(3)]
    best = np.argmax(np.stack([gp[dy: dy + sh, dx: dx + sw] for dy, dx in shifts]), axis=0)
    colours = np.stack([cp[dy: dy + sh, dx: dx + sw] for dy, dx in shifts])
    return np.take_along_axis(colours, best[None, :, :, None], axis=0)[0]


def shade_gain(paper: np.ndarray, page: np.ndarray) -> np.ndarray | None:
    """Per pixel of ``paper``, the factor that lifts a shadowed part of the grid to the lit part's light; None
    when the grid's light is even enough (its paper spanning less than ``CELLS.shaded`` times: every photo as taken
    but a shadowed one).

    A shadow dims paper and ink alike, so the ink's difference from its paper shrinks with the light: in a
    hand's shadow a digit looked faint or blank to the model, and its colour too pale to count
    (issue 21). Divided by the local light (the lit paper's level over the local paper's), the ink
    is measured as if the whole grid were lit. ``page``: the paper levels inside the grid.
    """
    sample = page[::4, ::4]  # the paper level is smooth (a blur of a quarter-scale map): these tell its levels
    low, high = (float(v) for v in percentiles(sample, [5, 95]))
    if high < CELLS.shaded * max(low, 1.0):
        return None
    # a glare's bright spot (its core white), not a
    if is_spot(cell_centres(page)) or float(sample.max()) >= KINDS.saturated:
        return None  # shadow's dark part: lifting the rest would bury the spot's faded ink deeper
    return np.clip(high / np.maximum(paper, 1.0), 1.0, CELLS.shaded * 2).astype(np.float32)


def _grid_crop(image: np.ndarray, corners: np.ndarray,
               lattice: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The picture's part around the grid, with the corners (and lattice) in its coordinates."""
    pts = np.float32(lattice).reshape(-1, 2) if lattice is not None else np.asarray(corners, np.float32)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 4
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    off = np.array([x0, y0], np.float32)
    return (image[y0:y1, x0:x1], np.asarray(corners, np.float32) - off,
            None if lattice is None else np.float32(lattice) - off)


def _square(img: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, cell: int, margin: int) -> np.ndarray:
    """``img`` warped to the grid seen square-on, ``cell`` px a cell and ``margin`` px of page around it."""
    if lattice is not None:
        return rectify(img, lattice, cell, margin)
    side = 9 * cell
    dst = np.array([[margin, margin], [margin + side, margin], [margin + side, margin + side],
                      [margin, margin + side]], np.float32)
    m = cv2.getPerspectiveTransform(np.float32(corners), dst)
    return cv2.warpPerspective(img, m, (side + 2 * margin,) * 2, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def paper_noise(square: np.ndarray, cell: int = CELL, margin: int = MARGIN) -> float:
    """The paper's typical Laplacian over the grid's contrast (``square``: the grid at ``cell`` px a cell), as
    :func:`ar_sudoku.vision.grid.speckle` measures a whole picture's."""
    m = margin
    return speckle(square[m: m + 9 * cell, m: m + 9 * cell])


def quiet(square: np.ndarray, cell: int = CELL, margin: int = MARGIN) -> np.ndarray:
    """``square`` with a dim room's sensor noise smoothed away; a clean grid is returned as it is.

    The cell model learnt print as clean strokes: in speckled paper a printed digit's grainy edges
    look like a pen's, and print was read as handwriting (issue 21). Smoothed, the same print is the
    low-contrast page the model knows; the ink scale that follows (the grid's own) is unchanged.
    """
    if paper_noise(square, cell, margin) <= KINDS.noisy_paper:
        return square
    return cv2.GaussianBlur(square, (0, 0), KINDS.quiet_sigma)


def edge_steepness(norm: np.ndarray, cell: int = CELL, margin: int = MARGIN, *,
                   even: bool = True) -> tuple[float, float]:
    """How steeply the ink's edges rise in ``norm`` (the grid at half scale, 1 = typical ink): (across x or y,
    the less steep; the least steep of four directions over the steepest, 1.0 unless ``even`` is asked).

    The steepest edges (a high percentile of the Sobel response) of print and grid lines are a pixel or
    two wide in focus and spread with the blur. A shaken camera smears them along its motion only, so
    the second figure is well below 1 for a streak and near it for a picture merely out of focus.
    The percentiles are taken on every other row: as many edges, at a fraction of the sorting.
    """
    step, m = cell // 2, margin // 2
    inner = norm[m: m + 9 * step, m: m + 9 * step]
    gx = cv2.Sobel(inner, cv2.CV_32F, 1, 0)[::2]
    gy = cv2.Sobel(inner, cv2.CV_32F, 0, 1)[::2]

    def steepest(g: np.ndarray) -> float:
        return percentile(np.abs(g), 99.5) / 4

    across = [steepest(gx), steepest(gy)]
    if not even:
        return min(across), 1.0
    c = np.float32(np.sqrt(0.5))
    steep = across + [steepest(c * (gx + gy)), steepest(c * (gx - gy))]
    return min(across), min(steep) / max(max(steep), 1e-6)


def unblur(norm: np.ndarray, cell: int = CELL, margin: int = MARGIN) -> np.ndarray:
    """``norm`` (the grid at half scale, 1 = typical ink) sharpened if it is out of focus; else as it is.

    The cell model learnt handwriting from sharp photos: out of focus, a pen's thin strokes swell
    into print's soft, even ones, and entries were read as givens (issue 21). An unsharp mask,
    stronger the blurrier the grid, gives the strokes back their edges. A shaken camera's streak
    (``KINDS.streaked``) is not a blur an isotropic mask undoes: it only rings, and is left alone.
    """
    # most pictures: in focus, nothing more to measure
    if edge_steepness(norm, cell, margin, even=False)[0] >= KINDS.soft:
        return norm
    steep, even = edge_steepness(norm, cell, margin)
    if even < KINDS.streaked:
        return norm
    amount = KINDS.sharpen * min(1.0, (KINDS.soft - steep) / KINDS.soft_ramp) * min(1.0, (even - KINDS.streaked) /
    KINDS.even_ramp)
    return norm + amount * (norm - cv2.GaussianBlur(norm, (0, 0), KINDS.sharpen_sigma))


def warp_views_grid(gray: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, *,
                    cell: int = CELL, margin: int = MARGIN, deblur: bool = True) -> np.ndarray:
    """The grid seen square-on at ``cell`` px a cell, with ``margin`` px of page around it.

    A 12 MP photo is first halved with pyrDown until the grid is at most twice the
    target size, so the warp's bilinear sampling does not skip thin pencil strokes.
    A curled page (``lattice``, its 10x10 crossings) is rectified through its crossings. A streaked
    grid (a shaken camera) is deblurred (:func:`ar_sudoku.vision.deblur.unstreak`), unless not ``deblur``.
    """
    square = _square_halved(gray, corners, lattice, cell, margin)
    return unstreak(square, cell, margin) if deblur else square


def _square_halved(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, cell: int,
                   margin: int) -> np.ndarray:
    """:func:`_square` of the grid's crop, halved first (pyrDown) while the grid is over twice the target size."""
    img, pts, lat = _grid_crop(image, corners, lattice)
    span = float(np.ptp(pts if lat is None else lat.reshape(-1, 2), axis=0).max())
    k = 1.0
    while span > 3 * 9 * cell and min(img.shape[:2]) > 8:
        img, span, k = cv2.pyrDown(img), span / 2, k * 2
    return _square(img, pts / k, None if lat is None else lat / k, cell, margin)


@dataclass(frozen=True)
class GridViews:
    """What the cell-kind model and the entry model see of one grid.

    ``square``: the grid in grey seen square-on at CELL px a cell with MARGIN px of page around it
    (:func:`warp_views_grid`; the entry model cuts its crops from it too, so it is warped once);
    ``views``, ``inks``: see :func:`grid_views`; ``noisy``: its paper was speckled (:func:`quiet` smoothed it).
    """

    square: np.ndarray
    views: np.ndarray
    inks: np.ndarray | None
    noisy: bool = False


def grid_views(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, *,
               cell: int = CELL, margin: int = MARGIN) -> GridViews:
    """The model inputs of the 81 cells, each cell's ink colour when the picture has colour, and the grey square.

    Views: (81, VIEW, VIEW) float32, 0 = paper, 1 = typical ink. ``image`` is the whole picture
    (grey or BGR uint8), ``corners`` the grid's TL, TR, BR, BL in it. Each view is the cell with a
    quarter-cell margin of its neighbours, the ink measured against the local paper and scaled by
    the grid's own ink level (so pencil stays lighter than print); a grid out of focus is sharpened
    (:func:`unblur`).

    Inks: (81, 3) float32, the shares of blue, green and red in the optical density of the cell's
    ink (the page's own paper colour as white; NaN where the cell holds too little ink). Colour needs
    no fine detail, so it is warped straight to the views' half scale from the grid's crop.

    ``cell``, ``margin``: the warp's geometry (kinds.py's CELL and MARGIN unless a model of another
    input size is trained or evaluated: its json records them); the views are ``(cell + 2 margin) / 2`` px.
    """
    colour = None
    if image.ndim == 3:
        crop, pts, lat = _grid_crop(image, corners, lattice)
        colour = _square(crop, pts, lat, cell // 2, margin // 2)
        image, corners, lattice = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), pts, lat
    w = warp_views_grid(image, corners, lattice, cell=cell, margin=margin)
    smooth = quiet(w, cell, margin)
    noisy = smooth is not w
    half = cv2.resize(smooth, (w.shape[1] // 2, w.shape[0] // 2), interpolation=cv2.INTER_AREA).astype(np.float32)
    paper = _paper_level(half)
    diff = paper - half
    step = cell // 2
    m = margin // 2
    view = (cell + 2 * margin) // 2
    gain = glare_gain(paper, paper[m: m + 9 * step, m: m + 9 * step])
    if gain is not None:  # a glare spot: ink faded towards white is given its contrast back
        diff *= gain
    shade = None if gain is not None else shade_gain(paper, paper[m: m + 9 * step, m: m + 9 * step])
    if shade is not None:  # a shadow over part of the grid: its ink as if it were lit
        diff *= shade
    # typical ink: a high percentile of the cells' interiors (grid lines are often darker than digits)
    inner = diff[m: m + 9 * step, m: m + 9 * step].reshape(9, step, 9, step)
    q = step // 5
    ink = percentile(inner[:, q: step - q, :, q: step - q], 99.3)
    half = diff / max(ink, 12.0)
    if not noisy and gain is None:  # a noisy grid (a dim room) is smoothed, and sharpening it would bring the
        half = unblur(half, cell, margin)  # noise back; a glare's restored ink is too uneven to judge the focus by
    half = np.clip(half, 0.0, 1.5)
    s0, s1 = half.strides
    views = np.lib.stride_tricks.as_strided(half, (9, 9, view, view), (step * s0, step * s1, s0, s1))
    if colour is not None and noisy:  # a noisy grid's colour quietened as its grey was
        colour = cv2.GaussianBlur(colour, (0, 0), KINDS.ink_sigma)
    inks = None if colour is None else _cell_inks(colour, 0.3 * max(ink, 12.0), cell, margin, shade)
    return GridViews(w, np.ascontiguousarray(views.reshape(81, view, view), dtype=np.float32), inks, noisy)


def cell_inputs(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, *,
                cell: int = CELL, margin: int = MARGIN) -> tuple[np.ndarray, np.ndarray | None]:
    """The views and inks of :func:`grid_views`, for the kind model alone."""
    g = grid_views(image, corners, lattice, cell=cell, margin=margin)
    return g.views, g.inks


def _cell_inks(square: np.ndarray, level: float, cell: int = CELL, margin: int = MARGIN,
               shade: np.ndarray | None = None) -> np.ndarray:
    """Per cell, its ink's colour: the shares of (B, G, R) in its optical density, summing to 1 (NaN: little ink).

    ``square`` is the grid in colour at the views' half scale; ink is where some channel loses
    ``level`` (0.3 of the grid's typical ink in grey): a blue pen that is pale in grey still takes
    most of the red light. ``shade``: :func:`shade_gain`'s factors, which the light lost is measured with.
    """
    f = square.astype(np.float32)
    paper = _paper_level(f)
    absorbed = cv2.max(paper - f, 0.0)
    if shade is not None:
        absorbed *= shade[..., None]
    step, m = cell // 2, margin // 2
    q = step // 5  # the cell's interior, clear of its grid lines (a grid found a little off included)
    n = step - 2 * q
    a = absorbed[m: m + 9 * step, m: m + 9 * step].reshape(9, step, 9, step, 3)[:, q: q + n, :, q: q + n]
    strongest = a.max(axis=4)
    # the stroke's core: a faint pen's edges and the paper's grain around it would pull its colour to grey
    core = np.maximum(level, 0.5 * strongest.max(axis=(1, 3), keepdims=True))
    inked = strongest >= core
    # optical density, log(paper / ink), not the light lost: a dye's density ratios between the channels
    # hold however dark its stroke (Beer-Lambert), where a dark blue stroke in dim light loses nearly as
    # much of every channel as black print does. On the training mixed photos: 120/128 split exactly, 119
    # with the light lost (and KINDS.two_inks 0.08); 121 with the paper's colour taken whole (_brightest)
    od = cv2.max(cv2.log(paper + 1.0) - cv2.log(f + 1.0), 0.0)
    a = od[m: m + 9 * step, m: m + 9 * step].reshape(9, step, 9, step, 3)[:, q: q + n, :, q: q + n]
    total = np.einsum("aybxc,aybx->abc", a, inked.astype(np.float32)).reshape(81, 3)
    count = inked.sum(axis=(1, 3)).reshape(81)
    shares = total / np.maximum(total.sum(axis=1, keepdims=True), 1e-6)
    shares[count < KINDS.ink_pixels] = np.nan
    return shares.astype(np.float32)


def pen_map(colour: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None, print_ink: np.ndarray,
            pen_ink: np.ndarray, cell: int = CELL, margin: int = MARGIN) -> np.ndarray:
    """The grid square-on in grey (as :func:`warp_views_grid`), drawn with the handwriting's ink alone.

    A red pen can be as light as its paper in grey (its red light reflected like the paper's), so a
    digit a person plainly sees in colour is blank to the models. Each pixel's optical density (against
    the local paper, per channel) is projected on the difference of the page's two ink colours
    (:func:`page_inks`), made square to the print's: print and the grid lines vanish with the paper;
    the pen's strokes stand dark on white, the strongest at ``KINDS.pen_darkness``.
    """
    f = _square_halved(colour, corners, lattice, cell, margin).astype(np.float32)
    od = cv2.log(np.maximum(cv2.divide(_paper_level(f) + 1.0, f + 1.0), 1.0))  # log(paper / pixel), one log
    # the pen's colour less its part along the print's: the print's own density projects to nothing
    towards = np.float32(pen_ink - print_ink * float(pen_ink @ print_ink) / max(float(print_ink @ print_ink), 1e-6))
    pen = np.maximum(od.reshape(-1, 3) @ (towards / max(float(np.linalg.norm(towards)), 1e-6)), 0.0)
    pen = pen.reshape(f.shape[:2])
    top = max(percentile(pen[margin: margin + 9 * cell, margin: margin + 9 * cell], 99.5), 1e-3)
    return np.clip(255.0 - KINDS.pen_darkness * pen / top, 0, 255).astype(np.uint8)


def cell_views(image: np.ndarray, corners: np.ndarray, lattice: np.ndarray | None = None, *,
               cell: int = CELL, margin: int = MARGIN) -> np.ndarray:
    """The model inputs of the 81 cells alone (see :func:`cell_inputs`)."""
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return cell_inputs(image, corners, lattice, cell=cell, margin=margin)[0]


def page_inks(probs: np.ndarray, inks: np.ndarray, sure: float = 0.9) -> tuple[np.ndarray, np.ndarray] | None:
    """The colours (shares of B, G, R density) of the page's print and of its handwriting; None unless it shows two.

    They are learnt from the cells the model is sure of (at least ``KINDS.min_sure`` givens and as many
    entries), and count as two inks only when they lie apart by ``KINDS.two_inks`` and by several times
    their own spread: a page written in black, or in the printer's own blue, shows one.
    """
    return _two_inks(probs, inks, sure, spreads=SPREADS)


def _two_inks(probs: np.ndarray, inks: np.ndarray, sure: float, spreads: float) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`page_inks`, the two inks apart by ``spreads`` times their spread."""
    valid = ~np.isnan(inks).any(axis=1)
    given = valid & (probs[:, 1:10].sum(axis=1) >= sure)
    entry = valid & (probs[:, 10:19].sum(axis=1) >= sure)
    if given.sum() < KINDS.min_sure or entry.sum() < KINDS.min_sure:
        return None
    mg, me = np.median(inks[given], axis=0), np.median(inks[entry], axis=0)
    apart = float(np.linalg.norm(mg - me))
    spread = float(np.median(np.linalg.norm(inks[given] - mg, axis=1))
                   + np.median(np.linalg.norm(inks[entry] - me, axis=1)))
    return None if apart < KINDS.two_inks or apart < spreads * spread else (mg, me)


def _nearer(inks: np.ndarray, two: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per cell, -1 at the givens' ink of ``two`` and +1 at the entries' (NaN where the cell has too little ink)."""
    mg, me = two
    return (np.linalg.norm(inks - mg, axis=1) - np.linalg.norm(inks - me, axis=1)) / float(np.linalg.norm(mg - me))


def in_entry_ink(probs: np.ndarray, inks: np.ndarray, sure: float = 0.9) -> np.ndarray:
    """(n,) bool: the cells whose ink is clearly the entries' (as :func:`ink_votes` votes +1), on a page whose
    sure givens and sure entries show two inks apart by ``KINDS.two_inks`` and by twice their spread (not three times).

    Looser than :func:`page_inks`: a dim room's noise spreads both inks, and a page of a red pen plainly two
    inks to a person was one to the votes (a red pen in a dark room: the inks three spreads apart, not four). It
    only tells a cell read blank after solving whether it holds the person's ink (:func:`checking.written_part`),
    never moves a cell's kind on its own.
    """
    two = _two_inks(probs, inks, sure, spreads=NOISY_SPREADS)
    if two is None:
        return np.zeros(len(probs), bool)
    x = _nearer(inks, two)
    return np.nan_to_num(x, nan=0.0) >= 0.5


def nearer_entry_ink(probs: np.ndarray, inks: np.ndarray, sure: float = 0.9) -> np.ndarray:
    """(n,) bool: the cells whose ink is nearer the entries' than the print's, however little, on a page whose sure
    givens and sure entries show two inks (as :func:`in_entry_ink` finds them). Print taken for a hand has the
    print's own ink: a cell nearer a pen's is never made print by its shape (``page_print``)."""
    two = _two_inks(probs, inks, sure, spreads=NOISY_SPREADS)
    if two is None:
        return np.zeros(len(probs), bool)
    return np.nan_to_num(_nearer(inks, two), nan=0.0) > 0


def ink_votes(probs: np.ndarray, inks: np.ndarray, sure: float = 0.9, *, noisy: bool = False) -> np.ndarray:
    """Per cell, what its ink colour says: -1 the givens' ink, +1 the entries' ink, 0 nothing.

    A page showing two inks (:func:`page_inks`) votes: a cell whose ink is clearly nearer one of them.
    ``noisy`` (a dim room's speckled grid, whose noise spreads both inks): a page whose inks are apart by
    twice their spread (as :func:`in_entry_ink`), not three times, votes too, on the cells the model is
    unsure of alone (neither kind at ``sure``).
    """
    votes = np.zeros(len(probs), np.float32)
    valid = ~np.isnan(inks).any(axis=1)
    two = page_inks(probs, inks, sure)
    if two is None and noisy:
        two = _two_inks(probs, inks, sure, spreads=NOISY_SPREADS)
        valid &= (probs[:, 1:10].sum(axis=1) < sure) & (probs[:, 10:19].sum(axis=1) < sure)
    if two is None:
        return votes
    x = _nearer(inks[valid], two)
    votes[valid] = np.where(np.abs(x) >= 0.5, np.sign(x), 0.0)
    return votes


def apply_votes(probs: np.ndarray, votes: np.ndarray) -> np.ndarray:
    """Probabilities with each voting cell's given/entry mass moved to the kind its ink says, digit by digit."""
    out = probs.copy()
    to_entry, to_given = votes > 0, votes < 0
    out[to_entry, 10:19] += out[to_entry, 1:10]
    out[to_entry, 1:10] = 0.0
    out[to_given, 1:10] += out[to_given, 10:19]
    out[to_given, 10:19] = 0.0
    return out


def ink_scores(views: np.ndarray, margin: int = MARGIN) -> np.ndarray:
    """How much ink a cell's interior holds (the 2nd-highest pixel of a 2x2 mean), per cell.

    Cheap enough to decide which cells are clearly blank and need no model call. ``margin`` is the
    views' warp margin (see :func:`grid_views`).
    """
    m = margin // 2 + 2  # skip the margin and the cell's own grid lines
    side = views.shape[1]
    inner = views[:, m: side - m, m: side - m]
    pooled = (inner[:, :-1, :-1] + inner[:, 1:, :-1] + inner[:, :-1, 1:] + inner[:, 1:, 1:]) / 4
    flat = pooled.reshape(len(views), -1)
    return np.partition(flat, flat.shape[1] - 2, axis=1)[:, -2]


def default_model_path() -> Path:
    return Path(str(resources.files("ar_sudoku.models").joinpath(MODEL_NAME)))


def more_model_paths() -> list[Path]:
    """The shipped models asked beside the first (:meth:`KindReader.more_opinions`)."""
    return [Path(str(resources.files("ar_sudoku.models").joinpath(name))) for name in MORE_MODELS]


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
        self.threads = threads
        # the same recipe's other draws, asked too (:meth:`more_opinions`); a model named alone is asked alone
        self.others = [] if model_path else [
            load_onnx(path, "cell-kind model", "scripts/train_cells.py", threads)[:2] for path in more_model_paths()]
        # the warp margin its views were cut with (a model trained at another size records its own)
        self.margin = int(self.meta.get("input", {}).get("margin", MARGIN))
        self._entries: EntryReader | None = None

    @property
    def entries(self) -> EntryReader:
        """The entry-digit model, loaded on first use: a second opinion on an entry that looks wrong."""
        if self._entries is None:
            self._entries = EntryReader(threads=self.threads)
        return self._entries

    def probabilities(self, views: np.ndarray) -> np.ndarray:
        """Softmax over the 20 classes for a batch of (n, VIEW, VIEW) views."""
        return softmax_run(self.session, self.input_name, views, N_CLASSES)

    def more_opinions(self, views: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """``probs`` averaged with the other models' readings, on a written page's every inked cell, else on the
        cells the first model is not sure of (under ``KINDS.unsure``: trained with label smoothing, a sure cell reads
        about 0.95).

        Two trainings of one recipe disagree on a few cells of a degraded written-on page (a faint entry, a
        neat hand that looks like print), each on other cells: the same command run again read 374 of the
        robustness benchmark's 455 held-out written-on photo-conditions exactly where the first read 391.
        Their mean is steadier than any one of them. A printed page's cells are nearly all sure, so it costs
        little there.
        """
        if not self.others or not len(probs):
            return probs
        written = int((probs[:, 10:].sum(axis=1) >= 0.5).sum()) >= KINDS.written_cells
        ask = np.arange(len(probs)) if written else np.flatnonzero(probs.max(axis=1) < KINDS.unsure)
        if not len(ask):
            return probs
        total = probs[ask].copy()
        for session, name in self.others:
            total += softmax_run(session, name, views[ask], N_CLASSES)
        out = probs.copy()
        out[ask] = total / (1 + len(self.others))
        return out

    def second_look(self, views: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """The doubtful cells read again at ``KINDS.shifts`` and the readings averaged (log-probabilities).

        A handwritten 4 or 9 that the model half-believes often flips with the view shifted by a
        pixel; the geometric mean over nine nearly equal views is steadier. Only cells whose best
        class is below ``KINDS.unsure`` are re-read (about 7 of 80 on a written page), so it costs little.
        """
        unsure = np.flatnonzero(probs.max(axis=1) < KINDS.unsure)
        if not len(unsure):
            return probs
        v = views[unsure]
        shifted = np.concatenate([np.roll(v, s, axis=(1, 2)) for s in KINDS.shifts])
        p = self.probabilities(shifted).reshape(len(KINDS.shifts), len(v), -1)
        logp = (np.log(p + 1e-6).sum(axis=0) + np.log(probs[unsure] + 1e-6)) / (len(KINDS.shifts) + 1)
        e = np.exp(logp - logp.max(axis=1, keepdims=True))
        out = probs.copy()
        out[unsure] = e / e.sum(axis=1, keepdims=True)
        return out

    def read(self, views: np.ndarray, inks: np.ndarray | None = None, *, noisy: bool = False) -> CellKinds:
        """Kinds of the 81 cells from :func:`cell_inputs`: one model call for the cells that hold ink.

        With ``inks`` (a colour picture), the page's two inks, if it shows two, settle given against entry.
        """
        probs = np.zeros((len(views), N_CLASSES), np.float32)
        probs[:, 0] = 1.0
        idx = np.flatnonzero(ink_scores(views, self.margin) > KINDS.ink_skip)
        if len(idx):
            first = self.probabilities(views[idx])
            probs[idx] = self.second_look(views[idx], self.more_opinions(views[idx], first))
        votes = None
        if inks is not None:
            votes = ink_votes(probs, inks, noisy=noisy)
            probs = apply_votes(probs, votes)
        kinds, digits, conf = decide(probs)
        return CellKinds(kinds, digits, probs, conf, ink=votes)


def read_kinds(image: np.ndarray, corners: np.ndarray, reader: KindReader,
               lattice: np.ndarray | None = None) -> CellKinds:
    """Cells of one grid in one call: views (and inks, from a colour picture), then the model."""
    return reader.read(*cell_inputs(image, corners, lattice))


# --------------------------------------------------------------------------- what the kinds say of the page


def written_on(kinds: CellKinds) -> bool:
    """Some cell holds a person's entry or pencil marks (``reading.fuse`` then joins the models on every cell)."""
    return bool(((kinds.kinds == ENTRY) | (kinds.kinds == CANDIDATES)).any())


def sure_of_writing(kinds: CellKinds, sure: float = 0.9, enough: int = 3) -> bool:
    """Enough cells confidently read as handwritten entries to trust that the page was written on."""
    p_entry = kinds.probs[:, 10:19].sum(axis=1)
    return int(((kinds.kinds == ENTRY) & (p_entry >= sure)).sum()) >= enough


def pen_or_pencil(kinds: CellKinds) -> bool:
    """A page written on surely in pen (``sure_of_writing``) or marked in pencil (``KINDS.marked`` cells of
    candidates): not a page of print alone, whose every mark the glare rules may take for faded print."""
    return sure_of_writing(kinds) or int((kinds.kinds == CANDIDATES).sum()) >= KINDS.marked
