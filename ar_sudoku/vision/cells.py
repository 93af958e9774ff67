"""Cut the 81 cells out of a found grid and turn each into a model input or 'empty'.

The grid is warped to a square of ``CELL`` pixels a cell. Ink is measured
against the grid's own contrast (paper level minus ink level), so a faint
photo and a crisp scan look alike to what follows. A cell holds a digit when a
blob of ink of digit height sits near its centre after grid-line remnants are
stripped; that blob is cropped, scaled to fit ``FIT`` pixels and centred in an
``INPUT`` x ``INPUT`` patch, as the model was trained.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.vision.lattice import rectify
from ar_sudoku.vision.stats import percentile, percentiles

CELL = 32  # pixels per cell in the warped grid
INPUT = 28  # model input side
FIT = 20  # the digit's longer side in the input


@dataclass(frozen=True)
class CellsConfig:
    """This stage's tuning: each field with the reason for its value."""

    ink: float = 0.38  # ink threshold on the contrast-normalised cell
    faint: float = 0.22  # a second, lower threshold: faint print the rules may still want to consider
    # cells' paper this much brighter in one part of the grid than in another: a shadow, not the usual fall-off
    # of a phone's light (the 125 training sudoku-photos as taken span 1.1-1.9, one shadowed photo 2.6)
    shaded: float = 2.0
    # paper lifted this far from the page's typical paper towards white: a glare's light is there
    glare_lift: float = 0.5
    bright_paper: int = 238  # paper this bright already leaves no room to tell a glare from the page
    # a spot standing this far towards white above its row's and column's light is a glare (the training photos
    # under a readable glare: 0.38 and up; as taken: up to 0.3; a gutter's shadow over a book page: 0.1-0.3)
    spot: float = 0.35
    # ... and covers no more than this many of the 81 cells: a lamp's highlight lights a few (on the training photos
    # under glares of peak 0.95 and 1.0: 4-10 cells; saturated: up to 16); more is the lit part of a page in shadow
    max_spot: int = 12
    # a page that shades alternate boxes (four or five of nine) shows its paper at two levels box by box: this many
    # boxes lighter than the darkest by ``spot`` of the way to white are such a page's, and a spot must stand above
    # its boxes' level too (a glare lifting whole boxes stands above the other light boxes, and is still a glare)
    light_boxes: int = 3
    # ink is restored while the added light leaves it a quarter of its contrast; past that, unreadable
    max_gain: float = 4.0
    # a row (column) of a cell inked this far across is a line crossing it (a digit's bar spans well under this);
    # the rows beside it inked this far across are the same line's blurred edges
    crossing: float = 0.85
    crossing_edge: float = 0.5
    edge_line: float = 0.3  # a row (column) of a cell's edge band inked this far across is the cell's own grid line


CELLS = CellsConfig()


@dataclass(frozen=True)
class CellCuts:
    """The 81 model inputs (zeros where empty) and which cells hold ink."""

    patches: np.ndarray  # (81, INPUT, INPUT) float32 in [0, 1], ink bright
    has_ink: np.ndarray  # (81,) bool
    ink_score: np.ndarray  # (81,) float, how sure the cell is not empty (0..1)
    faint: np.ndarray  # (81,) bool: empty at CELLS.ink but a digit-sized blob at CELLS.faint (patch filled in)


def turn_cuts(cuts: CellCuts, k: int) -> CellCuts:
    """The cuts of the grid turned by ``np.rot90(.., k)``, from the cuts already made: each patch turned and
    moved to its turned place. Near enough to cutting the turned grid to tell which way is up (the cutter
    looks for upright digit shapes, so a sideways 1 may be missing), at no cutting cost."""
    order = np.rot90(np.arange(81).reshape(9, 9), k).ravel()
    return CellCuts(np.ascontiguousarray(np.rot90(cuts.patches[order], k, axes=(1, 2))), cuts.has_ink[order],
                    cuts.ink_score[order], cuts.faint[order])


def is_spot(page: np.ndarray) -> bool:
    """Whether the brightest paper of ``page`` (the grid's 9 x 9 cells' paper levels) is a spot, as a glare
    leaves, and not the lit side of a page in a gradient (a book's gutter shadow, a lamp's fall-off), nor the
    white boxes of a page that shades the others.

    The levels are modelled as a row's light plus a column's (their medians): a
    shadow across the page along either way, or both, fits that; a glare's spot lights a few cells of
    some rows and columns and stands above it by ``CELLS.spot`` of the way to white. On a page whose boxes stand
    at two levels (:func:`box_lift`) the spot must stand that far above its boxes' level too: its white boxes
    stand above the grey rows and columns around them as a spot would, and a digit's ink, pulling its cell's
    level down, moves a row's or column's median (a glare's gain on them lost the grey boxes' print).
    """
    if page.shape != (9, 9):  # a smooth paper map (the kind model's views): too smooth to tell, as before
        return True
    lift = spot_lift(page)
    boxed = box_lift(page)
    if boxed is not None:
        lift = np.minimum(lift, boxed)
    return float(lift.max()) >= CELLS.spot


def box_lift(page: np.ndarray) -> np.ndarray | None:
    """Per cell of ``page`` (9 x 9 paper levels), how far its paper stands towards white above its boxes' level
    (the median of the light boxes' medians, or of the others'), on a page whose boxes stand at two levels:
    ``CELLS.light_boxes`` or more lighter than the darkest by ``CELLS.spot`` of the way to white, two or more not,
    and not as light falling across the page leaves them (a box row's light plus a box column's, off by
    ``CELLS.spot`` somewhere); None on any other page."""
    levels = page.astype(np.float32)
    boxes = levels.reshape(3, 3, 3, 3).transpose(0, 2, 1, 3).reshape(9, 9)  # a row per box
    level = np.sort(boxes, axis=1)[:, 4]
    low = float(level.min())
    light = level >= low + CELLS.spot * (255.0 - low)
    if int(light.sum()) < CELLS.light_boxes or int((~light).sum()) < 2:
        return None
    grid = level.reshape(3, 3)  # light falling across the page fits a box row's light plus a box column's
    expected = _rows_and_columns(grid)
    if float((np.abs(grid - expected) / np.maximum(255.0 - expected, 1.0)).max()) < CELLS.spot:
        return None
    # each cell's boxes' level: the light boxes' median, or the others' (a glare lifting one box lifts it above both)
    shade = np.where(light, float(np.median(level[light])), float(np.median(level[~light])))
    own = shade.reshape(3, 3).repeat(3, axis=0).repeat(3, axis=1)
    return (levels - own) / np.maximum(255.0 - own, 1.0)


def spot_lift(levels: np.ndarray) -> np.ndarray:
    """Per cell of ``levels`` (9 x 9 paper levels), how far its paper stands towards white above the light of
    its row and its column (``is_spot``'s model of a shadow): 0 as lit as they are (below 0: darker), 1 white."""
    levels = levels.astype(np.float32)
    expected = _rows_and_columns(levels)
    return (levels - expected) / np.maximum(255.0 - expected, 1.0)


def _rows_and_columns(levels: np.ndarray) -> np.ndarray:
    """The levels light falling across a square of them leaves: each row's median plus each column's, less the
    median of all. The medians of an odd count are their middle ones (np.median's, taken by a sort: a live
    board's ink check asks this on every frame under a bright spot)."""
    n = levels.shape[0]
    typical = float(np.sort(levels, axis=None)[levels.size // 2])
    return np.sort(levels, axis=1)[:, n // 2: n // 2 + 1] + np.sort(levels, axis=0)[n // 2: n // 2 + 1, :] - typical


def cell_centres(page: np.ndarray) -> np.ndarray:
    """The 9 x 9 levels at the cells' centres of ``page``, a smooth map of a grid's paper (the kind model's views)."""
    step = min(page.shape) // 9
    return page[: 9 * step, : 9 * step].reshape(9, step, 9, step)[:, step // 2, :, step // 2]


def uneven(page: np.ndarray, low: float, high: float) -> bool:
    """Whether the grid's paper (``page``: 9 x 9 cell levels, or a smooth map of the grid; ``low`` and ``high``
    its 5th and 95th percentiles) spans ``CELLS.shaded`` times or more: a shadow over part of it, not the usual
    fall-off of a phone's light. The cells a glare's spot lifts (``CELLS.spot`` above their row's and column's
    light, ``CELLS.max_spot`` cells at most) are left out of the span: on grey or dimly lit paper, the spot alone
    would span it (grey paper under a glare: the spot nearly white, the paper mid-grey), and the page would be taken for
    shaded, its glare unseen. A grid of another size's cells (4 x 4 to 16 x 16) is judged by its span alone.
    """
    if high <= CELLS.shaded * max(low, 1.0):
        return False
    if page.shape != (9, 9):
        if min(page.shape) // 9 < 2:  # another size's cells, not a smooth map of a 9 x 9 grid
            return True
        page = cell_centres(page)
    spot = spot_lift(page) >= CELLS.spot
    if not spot.any() or int(spot.sum()) > CELLS.max_spot:
        return True
    low, high = (float(v) for v in percentiles(page[~spot].astype(np.float32), [5, 95]))
    return high > CELLS.shaded * max(low, 1.0)


def glare_gain(paper: np.ndarray, page: np.ndarray) -> np.ndarray | None:
    """Per pixel of ``paper``, the factor that gives back the ink's contrast a glare took, or None without glare.

    A glossy page's highlight adds white light: pixel = (1 - a) * page + a * 255, so paper and ink
    alike are pulled towards white and the ink's difference from its paper shrinks by (1 - a). Where
    the local ``paper`` is lifted above the page's typical paper, a = (paper - typical) / (255 -
    typical), and the difference divided by (1 - a) is the ink as it would be without the glare.
    The typical paper is the median of the grid's paper levels (``page``). A page in uneven light
    (its paper spanning ``CELLS.shaded`` times or more, a glare's spot aside: ``uneven``) gets no gain: its lit
    part is not a glare, and a shadow dims paper and ink alike. Pictures without a strong lift
    anywhere are left exactly as they are.
    """
    # a smooth paper level: every other pixel of every other row tells its levels as well as all of them
    sample = page if page.size <= 4096 else page[::2, ::2]
    low, typical, high = (float(v) for v in percentiles(sample, [5, 50, 95]))
    if typical >= CELLS.bright_paper or uneven(page, low, high):
        return None
    if (float(paper.max()) - typical) / (255.0 - typical) < CELLS.glare_lift or not is_spot(page):
        return None
    lift = (paper - typical) / (255.0 - typical)
    return 1.0 / (1.0 - np.clip(lift, 0.0, 1.0 - 1.0 / CELLS.max_gain))


def warp_grid(gray: np.ndarray, corners: np.ndarray, cell: int = CELL, n: int = 9) -> np.ndarray:
    """The grid seen square-on, ``cell`` pixels a cell."""
    side = cell * n
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return cv2.warpPerspective(gray, m, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def normalise(warped: np.ndarray, cell: int = CELL) -> np.ndarray:
    """Ink as a fraction of the grid's contrast: 0 = paper, 1 = typical ink.

    The paper level is taken per cell neighbourhood (a large median blur),
    which flattens shadows that cross the grid, and no brighter than the
    cell's own paper (its 80th percentile), so a shaded cell is not ink. On an
    unevenly lit grid, ink is measured relative to that local paper (a shadow
    scales both), in grey levels at the page's median paper.
    """
    g = warped.astype(np.float32)
    k = cell | 1
    ksize = min(k * 2 + 1, 255)
    # pad by reflection: medianBlur's own replication of the thick outer border darkens the corners
    pad = ksize // 2
    padded = cv2.copyMakeBorder(warped, pad, pad, pad, pad, cv2.BORDER_REFLECT_101)
    # the median at half scale (a quarter of the pixels, half the window): the paper changes slowly, and this
    # is a fraction of the full-size filter's time; the photo figures did not move
    ph, pw = padded.shape
    half = cv2.resize(padded, (pw // 2, ph // 2), interpolation=cv2.INTER_AREA)
    paper = cv2.resize(cv2.medianBlur(half, (ksize // 2) | 1), (pw, ph), interpolation=cv2.INTER_LINEAR)
    paper = paper[pad:-pad, pad:-pad].astype(np.float32)
    # a shaded cell (a highlighted row, a shadow's end) is its own paper: no digit covers a fifth of a cell
    n = min(g.shape[0] // cell, g.shape[1] // cell)
    q = cell // 5
    cells = g[: n * cell, : n * cell].reshape(n, cell, n, cell)[:, q: cell - q, :, q: cell - q]
    own = percentiles(cells.transpose(0, 2, 1, 3).reshape(n, n, -1), [80], axis=-1)[0].astype(np.float32)
    paper[: n * cell, : n * cell] = np.minimum(paper[: n * cell, : n * cell],
                                               np.repeat(np.repeat(own, cell, axis=0), cell, axis=1))
    diff = paper - g
    gain = None
    low, high = percentiles(own, [5, 95])
    if uneven(own, float(low), float(high)):
        # a page in uneven light: ink as a share of its own paper's light (at the page's typical paper),
        # since a shadow dims paper and ink alike, a digit in it keeps its print's contrast and is not cut
        # as faint. Other pages keep the plain difference: in a dim, noisy picture the cells' own paper
        # levels are noisy too, and dividing by them flipped digits
        diff *= float(np.median(paper)) / np.maximum(paper, 1.0)
    else:
        gain = glare_gain(paper[: n * cell, : n * cell], own)
    if gain is not None:  # a glare spot: ink faded towards white is given its contrast back
        diff[: n * cell, : n * cell] *= gain
    # the ink level of digits, from cell interiors only (grid lines are often darker)
    inner = np.zeros(cell, bool)
    inner[cell // 5 : cell - cell // 5] = True
    rows = np.tile(inner, diff.shape[0] // cell + 1)[: diff.shape[0]]
    cols = np.tile(inner, diff.shape[1] // cell + 1)[: diff.shape[1]]
    interior = diff[np.ix_(rows, cols)]
    ink = percentile(interior, 99.3)
    return np.clip(diff / max(ink, 12.0), 0.0, 1.5)


def _strip_lines(mask: np.ndarray) -> np.ndarray:
    """Clear rows/columns near the border that are mostly ink (grid-line remnants), and lines crossing the
    cell's middle but where a glyph's stroke runs through them."""
    return _strip_cells(mask[None, None])[0, 0]


def _crossing(fill: np.ndarray, band: int) -> np.ndarray:
    """Which rows of a cell (``fill``: each row's inked share) are a line crossing its middle, clear of the
    ``band`` rows at each edge: rows inked nearly all across, with their mostly inked neighbours."""
    middle = np.zeros(len(fill), bool)
    middle[band : len(fill) - band] = True
    grown = middle & (fill >= CELLS.crossing)
    for y in np.flatnonzero(grown):
        for step in (-1, 1):
            z = y + step
            while middle[z] and not grown[z] and fill[z] >= CELLS.crossing_edge:
                grown[z] = True
                z += step
    return grown


def _bridge(out: np.ndarray, mask: np.ndarray, body: np.ndarray, line: np.ndarray) -> None:
    """Clear the ``line`` rows of ``out`` but where a stroke of ``body`` (the ink on no line) goes on both
    above and below them, slanted by up to the line's width (``mask``: the ink before clearing)."""
    h = len(line)
    y = 0
    while y < h:
        if not line[y]:
            y += 1
            continue
        end = y
        while end + 1 < h and line[end + 1]:
            end += 1
        reach = np.ones((1, 2 * ((end - y + 1) // 2 + 1) + 1), np.uint8)
        side = body[[y - 1, end + 1]]
        wide, near = cv2.dilate(side, reach), cv2.dilate(side, np.ones((1, 3), np.uint8))
        # where the stroke goes on both sides, and not past its own ends along the line
        out[y : end + 1] = mask[y : end + 1] & wide[0] & wide[1] & (near[0] | near[1])
        y = end + 1


def _cross_out(mask: np.ndarray, band: int) -> np.ndarray:
    """``mask`` (h, w) with the lines crossing the cell's middle, either way, cleared except where a glyph's
    stroke runs through them (inked on both sides, off any line).

    The ``band`` rows and columns at each edge are left to :func:`_strip_cells`, which takes the cell's own
    lines off whole. A line through a digit (a fold, a rule printed across, a grid warped a little off) would
    otherwise make it one blob the cell's width, thrown away as a line, and its cut parts too short for a
    digit; where two lines cross, neither side's ink is a stroke, so no remnant is left to pass for one.
    """
    h, w = mask.shape
    rows = _crossing(mask.mean(axis=1), band)
    cols = _crossing(mask.mean(axis=0), band)
    if not rows.any() and not cols.any():
        return mask
    edge_r = np.ones(h, bool)
    edge_r[band : h - band] = False
    edge_c = np.ones(w, bool)
    edge_c[band : w - band] = False
    off_r = rows | (edge_r & (mask.mean(axis=1) > CELLS.edge_line))
    off_c = cols | (edge_c & (mask.mean(axis=0) > CELLS.edge_line))
    body = np.where(off_r[:, None] | off_c[None, :], 0, mask).astype(np.uint8)
    out = mask.copy()
    _bridge(out, mask, body, rows)
    _bridge(out.T, out.T.copy(), body.T, cols)
    return out


def _strip_cells(cells: np.ndarray) -> np.ndarray:
    """:func:`_strip_lines` for many cells at once: ``cells`` (..., h, w) masks, all the same size."""
    h, w = cells.shape[-2:]
    band = max(2, h // 5)
    across, down = cells.mean(axis=-1), cells.mean(axis=-2)  # (..., h), (..., w)
    crossed = (across[..., band : h - band] >= CELLS.crossing).any(axis=-1) | (
        down[..., band : w - band] >= CELLS.crossing).any(
        axis=-1)
    if crossed.any():  # a line through the middle of a few cells: taken off them first, one by one
        cells = cells.copy()
        for at in map(tuple, np.argwhere(crossed)):
            cells[at] = _cross_out(cells[at], band)
        across, down = cells.mean(axis=-1), cells.mean(axis=-2)
    edge_r = np.zeros(h, bool)
    edge_r[:band] = edge_r[h - band:] = True
    edge_c = np.zeros(w, bool)
    edge_c[:band] = edge_c[w - band:] = True
    rows = edge_r & (across > CELLS.edge_line)
    cols = edge_c & (down > CELLS.edge_line)
    return np.where(rows[..., :, None] | cols[..., None, :], 0, cells).astype(np.uint8)


def digit_patch(norm_cell: np.ndarray, ink_level: float = CELLS.ink,
                mask: np.ndarray | None = None) -> tuple[np.ndarray | None, float]:
    """The centred digit from one normalised cell, or None if the cell is empty.

    Also returns an ink score in [0, 1] (how clearly a digit-sized blob is there). ``mask``: the cell's
    ink at ``ink_level`` with the grid-line remnants stripped, when the caller made it for all cells at once.
    """
    s = norm_cell.shape[0]
    if mask is None:
        mask = _strip_lines((norm_cell > ink_level).astype(np.uint8))
    num, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    rows = stats.tolist()  # plain ints: indexing a numpy row per component costs more than the test itself
    best = -1
    best_key = 0.0
    c0 = s / 2
    for k, (x, y, w, h, area) in enumerate(rows):
        if k == 0 or h < 0.28 * s or h > 0.95 * s or w > 0.9 * s or area < 0.012 * s * s:
            continue
        cx, cy = x + w / 2, y + h / 2
        if abs(cx - c0) > 0.3 * s or abs(cy - c0) > 0.3 * s:
            continue
        edge = 0.28 * s  # wholly inside a border band: a piece of grid line
        if x + w <= edge or y + h <= edge or x >= s - edge or y >= s - edge:
            continue
        # a component glued to the edge is a line remnant unless it is digit-shaped
        touches = x == 0 or y == 0 or x + w == s or y + h == s
        if touches and (w > 0.8 * s or h > 0.8 * s or h > 6 * w or w > 3 * h):
            continue
        key = area * (1.0 - (abs(cx - c0) + abs(cy - c0)) / s)
        if key > best_key:
            best, best_key = k, key
    if best < 0:
        return None, 0.0
    x, y, w, h, _ = rows[best]
    # gather pieces of a broken digit that lie within its column band
    for k in range(1, num):
        if k == best:
            continue
        kx, ky, kw, kh, ka = rows[k]
        if ka >= 4 and kx >= x - 2 and kx + kw <= x + w + 2 and ky > 1 and ky + kh < s - 1:
            nx0, ny0 = min(x, kx), min(y, ky)
            nx1, ny1 = max(x + w, kx + kw), max(y + h, ky + kh)
            if ny1 - ny0 <= 0.95 * s:
                x, y, w, h = nx0, ny0, nx1 - nx0, ny1 - ny0
    crop = norm_cell[y : y + h, x : x + w] * (labels[y : y + h, x : x + w] > 0)
    scale = FIT / max(w, h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
    patch = np.zeros((INPUT, INPUT), np.float32)
    ox, oy = (INPUT - nw) // 2, (INPUT - nh) // 2
    patch[oy : oy + nh, ox : ox + nw] = small
    ink = float(min(1.0, h / (0.45 * s)))
    return np.clip(patch, 0.0, 1.0), ink


def cut_cells(warped: np.ndarray, cell: int = CELL) -> CellCuts:
    """All 81 cells of a warped grid: model inputs and the empty/ink decision."""
    norm = normalise(warped, cell)
    patches = np.zeros((81, INPUT, INPUT), np.float32)
    has = np.zeros(81, bool)
    faint = np.zeros(81, bool)
    score = np.zeros(81, np.float32)
    # most cells are blank: skip those whose middle holds no ink at all
    m = cell // 5
    grid = norm[: 9 * cell, : 9 * cell].reshape(9, cell, 9, cell).transpose(0, 2, 1, 3)
    peak = grid[:, :, m : cell - m, m : cell - m].max(axis=(2, 3)).reshape(81)
    todo = np.flatnonzero(peak > CELLS.faint)
    if not len(todo):
        return CellCuts(patches, has, score, faint)
    cells = grid.reshape(81, cell, cell)[todo]
    masks = _strip_cells((cells > CELLS.ink).astype(np.uint8))  # every cell's lines stripped in one pass
    for i, sub, mask in zip(todo, cells, masks):
        p, ink = digit_patch(sub, mask=mask)
        if p is not None:
            patches[i] = p
            has[i] = True
            score[i] = ink
        elif sub.max() > CELLS.faint:
            p, _ = digit_patch(sub, CELLS.faint)
            if p is not None:
                patches[i] = p
                faint[i] = True
    return CellCuts(patches, has, score, faint)


def square(gray: np.ndarray, corners: np.ndarray, cell: int = 12, lattice: np.ndarray | None = None,
           centred: bool = False) -> np.ndarray:
    """The grid squared up small (``cell`` pixels a cell, float): what the per-frame looks below measure, made
    once for all of them (a live board is looked at several ways on every frame). ``centred``: the pixels'
    centres placed symmetrically in the grid (pixel i's at (i + 1/2) / side of it), so that the corners rolled
    by a quarter turn square up to exactly this picture turned (``vision.look``)."""
    if lattice is not None:
        return rectify(gray, lattice, cell).astype(np.float32)
    if not centred:
        return warp_grid(gray, corners, cell).astype(np.float32)
    side = 9 * cell
    dst = np.array([[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5], [-0.5, side - 0.5]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    warped = cv2.warpPerspective(gray, m, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return warped.astype(np.float32)


def grid_edges(squared: np.ndarray) -> tuple[np.float32, np.float32]:
    """The squared-up grid's mean gradient across and down (float32, as ``evenness`` and a live board's edge
    strength both take them)."""
    ex = np.abs(cv2.Sobel(squared, cv2.CV_32F, 1, 0)).mean()
    ey = np.abs(cv2.Sobel(squared, cv2.CV_32F, 0, 1)).mean()
    return ex, ey


def evenness(gray: np.ndarray, corners: np.ndarray, cell: int = 12, lattice: np.ndarray | None = None) -> float:
    """How evenly the squared-up grid's edges run both ways: the smaller of its mean horizontal and vertical
    gradients over the larger. A grid has as many edges across as down, so a sharp one is near 1 whatever the
    light; a shaking hand's streak blurs the edges across it and not along it, and the ratio drops."""
    return edges_evenness(grid_edges(square(gray, corners, cell, lattice)))


def edges_evenness(edges: tuple[np.float32, np.float32]) -> float:
    """:func:`evenness` of a grid whose ``grid_edges`` are known."""
    ex, ey = (float(v) for v in edges)
    return min(ex, ey) / max(ex, ey, 1e-6)


def quick_ink(gray: np.ndarray, corners: np.ndarray, cell: int = 12, lattice: np.ndarray | None = None,
              expect: np.ndarray | None = None, squared: np.ndarray | None = None,
              seen: np.ndarray | None = None) -> np.ndarray:
    """A cheap guess of which cells hold ink, for checking every frame.

    The grid is warped small; a cell's darkest central pixel against its own
    median (the paper) gives how inked it is, scaled by the grid's contrast.
    ``expect`` (81 bools: the cells whose print is looked for) scales by that
    print instead when it is fainter than the page's darkest ink: pale print
    on a page written in dark pen is still print, not gone. ``squared``: the
    grid's ``square`` at ``cell``, if it was made already. ``seen``: the cells
    in the picture (a page partly out of view), the only ones that set the scale.
    Returns 81 values; above 0.5 means ink.
    """
    w = square(gray, corners, cell, lattice) if squared is None else squared
    # each cell's pixels in a row of their own: the darkest of its middle, and its median (the middle of its
    # sorted row, as np.median takes it), at a fraction of the cost of reducing over the grid's axes
    by_cell = w.reshape(9, cell, 9, cell).transpose(0, 2, 1, 3).reshape(81, cell, cell)
    m = cell // 4
    dark = by_cell[:, m : cell - m, m : cell - m].min(axis=(1, 2)).reshape(9, 9)
    n = cell * cell
    paper = np.sort(by_cell.reshape(81, n), axis=1)[:, (n - 1) // 2 : n // 2 + 1].mean(axis=1).reshape(9, 9)
    depth = paper - dark
    gain = glare_gain(paper, paper)
    if gain is not None:  # print under a glare keeps its ink: its givens are not taken as gone
        depth = depth * gain
    depth = depth.reshape(81)
    scale = percentile(depth if seen is None or not seen.any() else depth[seen], 95)
    if expect is not None and expect.any():  # a quarter of the print may be gone before the scale drops
        scale = min(scale, percentile(depth[expect], 75))
    return depth / max(scale, 10.0)
