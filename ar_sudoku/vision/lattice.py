"""A grid as its 10x10 lattice of line crossings: flat pages and curled ones alike.

A flat page is the special case where one homography of the four corners
places every crossing. A curled page bows its lines: the outline is no
quadrilateral and the middle of a line can sit half a cell off the chord of
its ends. So the lattice is built from the outside in:

1. the four corners give a homography, which takes the outline's points to
   grid units (one unit a cell), where a flat border would be straight;
2. each side of the outline is fitted there with a low polynomial, and a
   Coons patch (the bilinear blend of the four sides) predicts the inside;
   for a smooth bend that puts every inner line within a small part of a cell;
3. every line is then found in the picture rectified through that lattice:
   a dark ridge searched across a narrow band, segment by segment, then
   smoothed along the line with a low polynomial; where a horizontal and a
   vertical line cross is the crossing. Twice, from the better lattice.

Arrays are (10, 10, 2): row by row from the grid's top-left, (x, y) in pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

N = 10  # lines each way
FLAT_UNIT = np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)
GRID_UV = np.stack(np.meshgrid(np.arange(10.0), np.arange(10.0)), axis=-1)  # [row, col] -> (u, v)


def from_corners(corners: np.ndarray) -> np.ndarray:
    """The crossings of a flat grid with these corners (TL, TR, BR, BL)."""
    hmat = cv2.getPerspectiveTransform(FLAT_UNIT, np.float32(corners).reshape(4, 2))
    return cv2.perspectiveTransform(GRID_UV.reshape(-1, 1, 2), hmat).reshape(N, N, 2).astype(np.float32)


def corners_of(lattice: np.ndarray) -> np.ndarray:
    return np.array([lattice[0, 0], lattice[0, 9], lattice[9, 9], lattice[9, 0]], np.float32)


def rotate(lattice: np.ndarray, k: int) -> np.ndarray:
    """The lattice of the grid turned as ``np.roll(corners, -k)`` turns its corners."""
    return np.ascontiguousarray(np.rot90(lattice, k % 4))


def bend_of(lattice: np.ndarray) -> float:
    """How far the lattice is from the flat grid of its corners, in cells (0 for a flat page)."""
    flat = from_corners(corners_of(lattice))
    side = float(np.linalg.norm(lattice[0, 0] - lattice[9, 9])) / (9 * 2**0.5)
    return float(np.abs(lattice - flat).max()) / max(side, 1e-6)


def _weights(side: int, cell: int, margin: int) -> np.ndarray:
    """(side, 10) linear-interpolation weights from pixels to lattice lines (extrapolating outside)."""
    t = (np.arange(side, dtype=np.float64) - margin) / cell  # pixel -> grid units
    j = np.clip(np.floor(t).astype(int), 0, 8)
    f = t - j
    w = np.zeros((side, N))
    w[np.arange(side), j] = 1 - f
    w[np.arange(side), j + 1] += f
    return w


def dense_map(lattice: np.ndarray, cell: int, margin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``remap`` maps that rectify the grid to ``cell`` px a cell (plus ``margin``), bilinear within each cell.

    Within one cell a page is flat enough that a bilinear mix of its four
    crossings places every pixel; outside the grid the edge cells extend.
    Bilinear interpolation over a rectangular lattice is separable, so it is
    two small matrix products, not a per-pixel gather.
    """
    side = 9 * cell + 2 * margin
    w = _weights(side, cell, margin)
    lat = lattice.astype(np.float64)
    rows = np.einsum("sj,ijc->isc", w, lat)  # every lattice row interpolated across: (10, side, 2)
    pts = np.einsum("ri,isc->rsc", w, rows).astype(np.float32)  # then down: (side, side, 2)
    return np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1])


def rectify(gray: np.ndarray, lattice: np.ndarray, cell: int, margin: int = 0) -> np.ndarray:
    mx, my = dense_map(lattice, cell, margin)
    return cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _polyfit(x: np.ndarray, y: np.ndarray, w: np.ndarray, deg: int) -> np.ndarray:
    """A weighted least-squares polynomial that drops its worst outliers once."""
    deg = min(deg, max(0, len(x) - 2))
    coef = np.polyfit(x, y, deg, w=w)
    res = np.abs(np.polyval(coef, x) - y)
    keep = res <= max(3 * float(np.median(res)), 0.04)
    if keep.sum() > deg + 1 and not keep.all():
        coef = np.polyfit(x[keep], y[keep], deg, w=w[keep])
    return coef


def coons_from_outline(contour: np.ndarray, corners: np.ndarray, deg: int = 3) -> np.ndarray | None:
    """The lattice that the grid's curved outline predicts (Coons patch of its four fitted sides)."""
    hmat = cv2.getPerspectiveTransform(np.float32(corners).reshape(4, 2), FLAT_UNIT)
    uv = cv2.perspectiveTransform(contour.reshape(-1, 1, 2).astype(np.float32), hmat).reshape(-1, 2)
    u, v = uv[:, 0].astype(np.float64), uv[:, 1].astype(np.float64)
    sides = []
    # (along, across, the across value of that side): top, bottom as v(u); left, right as u(v). A straight
    # fit in a wide band first, then the curve in a narrow band around it: print merged with the outline
    # (a page edge, a headline) stays out of the fit
    for along, across, at in ((u, v, 0.0), (u, v, 9.0), (v, u, 0.0), (v, u, 9.0)):
        sel = (np.abs(across - at) < 1.2) & (along > 0.4) & (along < 8.6)
        if sel.sum() < 12:
            return None
        line = _polyfit(along[sel], across[sel] - at, np.ones(int(sel.sum())), 1)
        near = sel & (np.abs(across - at - np.polyval(line, along)) < 0.6)
        if near.sum() < 12:
            return None
        x, y = along[near], across[near] - at
        # where a gap in the border lets the outline run inside the grid, the side has no points near a
        # corner: there the cubic would swing cells off, so that end is held at the quad's corner
        ends = [e for e, gap in ((0.0, x.min() - 0.4), (9.0, 8.6 - x.max())) if gap > 0.6]
        weight = np.ones(len(x))
        if ends:
            x, y = np.append(x, ends), np.append(y, np.zeros(len(ends)))
            weight = np.append(weight, np.full(len(ends), 0.25 * len(weight) ** 0.5))
        sides.append(_polyfit(x, y, weight, deg))
    top, bottom, left, right = sides
    s = np.arange(10.0)
    t_top, t_bot = np.polyval(top, s), np.polyval(bottom, s)  # v offsets along the top and bottom
    t_left, t_right = np.polyval(left, s), np.polyval(right, s)  # u offsets along left and right
    # the corners are where the fitted sides meet (their ends), not the quad's guesses
    uu, vv = np.meshgrid(s, s)  # [row, col]
    a, b = uu / 9.0, vv / 9.0
    du = (1 - a) * t_left[:, None] + a * t_right[:, None]
    dv = (1 - b) * t_top[None, :] + b * t_bot[None, :]
    grid_uv = np.stack([uu + du, vv + dv], axis=-1).astype(np.float32)
    inv = np.linalg.inv(hmat)
    return cv2.perspectiveTransform(grid_uv.reshape(-1, 1, 2), inv).reshape(N, N, 2).astype(np.float32)


def _ridges(img: np.ndarray, cell: int, margin: int, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """For every line and every segment between crossings: the ridge's offset (px) and its strength.

    ``img`` is rectified with ``margin`` >= the search reach on every side. Returns
    (offsets, strengths), each (2, 10, 9): [horizontal | vertical][line][segment].
    """
    ink = 255.0 - img.astype(np.float32)
    ink -= cv2.blur(ink, (cell + 1, cell + 1))  # lines stand above their neighbourhood
    r = max(2, int(round(reach * cell)))
    lo, hi = cell // 10, cell - cell // 10  # the segment, less the crossings
    offsets = np.zeros((2, N, 9), np.float32)
    strength = np.zeros((2, N, 9), np.float32)
    rows = margin + np.arange(N)[:, None] * cell + np.arange(-r, r + 1)[None, :]  # (10, 2r+1)
    for d, view in enumerate((ink, ink.T)):
        # the lower quartile along the segment: a line runs through all of it, a digit's stroke through a part
        seg = view[:, margin : margin + 9 * cell].reshape(view.shape[0], 9, cell)[:, :, lo:hi]
        span = np.partition(seg, seg.shape[2] // 4, axis=2)[:, :, seg.shape[2] // 4]
        prof = span[rows]  # (10, 2r+1, 9): across each line, per segment
        k = prof.argmax(axis=1)  # (10, 9)
        kc = np.clip(k, 1, 2 * r - 1)
        a = np.take_along_axis(prof, (kc - 1)[:, None, :], 1)[:, 0]
        b = np.take_along_axis(prof, kc[:, None, :], 1)[:, 0]
        c = np.take_along_axis(prof, (kc + 1)[:, None, :], 1)[:, 0]
        den = a - 2 * b + c
        sub = np.where((den < 0) & (k == kc), 0.5 * (a - c) / np.where(den < 0, den, -1.0), 0.0)
        offsets[d] = k - r + sub
        # a peak at the end of the search is no ridge found, only the slope of something beyond
        edge = (k == 0) | (k == 2 * r)
        strength[d] = np.where(edge, 0.0, np.maximum(prof.max(axis=1) - np.median(prof, axis=1), 0.0))
    return offsets, strength


_SEG = np.arange(9) + 0.5  # segment centres along a line, in cells
_VAND = np.vander(_SEG, 4)  # cubic
_AT = np.vander(np.arange(10.0), 4)


def _smooth(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted cubic fits of many lines at once (rows of ``y``), evaluated at the 10 crossings.

    One pass, then a second without each line's outliers (a digit stroke mistaken for the line).
    """
    w = w / np.maximum(w.max(axis=1, keepdims=True), 1e-6) + 1e-3
    for _ in range(2):
        a = np.einsum("ls,sp,sq->lpq", w, _VAND, _VAND) + 1e-6 * np.eye(4)
        b = np.einsum("ls,sp,ls->lp", w, _VAND, y)
        coef = np.linalg.solve(a, b[..., None])[..., 0]
        res = np.abs(coef @ _VAND.T - y)
        w = np.where(res > np.maximum(3 * np.median(res, axis=1, keepdims=True), 0.04), 0.0, w)
    return coef @ _AT.T


def _sample(src: np.ndarray, lattice: np.ndarray, cell: int) -> tuple[np.ndarray, np.ndarray, float]:
    """``src`` halved while the lattice's cells are twice ``cell`` or more; returns (picture, lattice, factor).

    Sampling near 1:1 averages a thin line into the rectified image instead of letting it fall between
    two samples.
    """
    k = 1.0
    size = float(np.linalg.norm(lattice[0, 0] - lattice[9, 9])) / (9 * 2**0.5)
    while size / k >= 2 * cell and min(src.shape[:2]) > 64:
        src, k = cv2.pyrDown(src), 2 * k
    return src, lattice.astype(np.float32) / k, k


def _move(mx: np.ndarray, my: np.ndarray, shift: np.ndarray, cell: int, margin: int) -> np.ndarray:
    """The crossings of lines shifted in the rectified frame (``shift``: (2, 10, 10) px, [dv | du][line][crossing]),
    taken back to the picture through the rectifying maps."""
    ys = (margin + np.arange(N)[:, None] * cell + shift[0]).astype(np.float32)
    xs = (margin + np.arange(N)[None, :] * cell + shift[1].T).astype(np.float32)
    return np.stack([cv2.remap(mx, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                     cv2.remap(my, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)], axis=-1)


_STEPS = np.arange(-1.2, 1.2001, 0.1)  # cells: where the first and the last line of a family may be
_E0, _E9 = (a.ravel() for a in np.meshgrid(_STEPS, _STEPS, indexing="ij"))
_PAIRS = (np.abs(_E0) + np.abs(_E9) <= 1.5) & (np.abs(_E0 - _E9) <= 1.5)
_E0, _E9 = _E0[_PAIRS], _E9[_PAIRS]
_MOVE = np.abs(_E0) + np.abs(_E9)


def align(gray: np.ndarray, lattice: np.ndarray, cell: int = 20) -> tuple[np.ndarray, float]:
    """Correct a lattice whose lines are off by up to about a cell, as a wrong side of the outline leaves it.

    An outline that ran along an inner line (a gap in a faint border) or over print beside the grid bends
    one fitted side; the Coons patch blends the sides linearly, so across every band of the lattice the
    error grows linearly from one side to the other. So per band (each segment between crossings, for
    either family) the ten lines are searched together as an evenly stretched comb: where its first and
    last teeth sit, within +-1.2 cells, is what puts most ink under all ten. The two ends are then
    smoothed along the lattice (a weighted cubic, outliers dropped), which leaves ``refine`` within reach.
    Returns (lattice, fill): how full the best combs are, the median over the bands of their ink as a
    share of ten capped lines (near 1 on a grid; text, a photo or a page edge leave it low).
    """
    src, lat, k = _sample(gray, lattice, cell)
    margin = int(np.ceil((_STEPS[-1] + 0.1) * cell))  # room for the farthest comb
    mx, my = dense_map(lat, cell, margin)
    img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ink = 255.0 - img.astype(np.float32)
    ink -= cv2.blur(ink, (cell + 1, cell + 1))
    lo, hi = cell // 10, cell - cell // 10
    teeth = np.arange(N) / 9.0
    pos = margin + (np.arange(N) * cell)[None, :] + cell * (_E0[:, None] + (_E9 - _E0)[:, None] * teeth[None, :])
    i0 = np.floor(pos).astype(int)
    f = (pos - i0)[..., None]
    ends = np.zeros((2, 2, 9))  # [family][first | last][segment]
    weight = np.zeros((2, 9))
    fill = np.zeros((2, 9))
    for d, view in enumerate((ink, ink.T)):
        seg = view[:, margin : margin + 9 * cell].reshape(view.shape[0], 9, cell)[:, :, lo:hi]
        prof = np.partition(seg, seg.shape[2] // 4, axis=2)[:, :, seg.shape[2] // 4]  # (side, 9)
        # each tooth counts up to a cap: ten ordinary lines outweigh one strong rule or page edge beside
        # the grid; a faint tie goes to the smaller move
        cap = 0.5 * np.partition(prof, int(0.95 * len(prof)), axis=0)[int(0.95 * len(prof))]
        prof = np.clip(prof, 0.0, cap)
        score = ((1 - f) * prof[i0] + f * prof[i0 + 1]).sum(axis=1) - 0.1 * cap * _MOVE[:, None]  # (combs, 9)
        best = score.argmax(axis=0)
        ends[d, 0], ends[d, 1] = _E0[best], _E9[best]
        weight[d] = score.max(axis=0) - np.median(score, axis=0)
        fill[d] = score.max(axis=0) / np.maximum(N * cap, 1e-6)
    smooth = _smooth(ends.reshape(4, 9), np.repeat(weight, 2, axis=0))  # (4, 10): at the crossings
    first, last = smooth.reshape(2, 2, N)[:, 0], smooth.reshape(2, 2, N)[:, 1]  # (family, crossing)
    shift = (first[:, None, :] + (last - first)[:, None, :] * teeth[None, :, None]) * cell  # [family][line][crossing]
    return _move(mx, my, shift, cell, margin) * k, float(np.median(fill))


def check_sides(lattice: np.ndarray, tol: float = 0.2) -> tuple[np.ndarray, bool]:
    """Outer lines that leave the trend of the three inner lines next to them, put back on that trend.

    A grid's lines are nearly evenly spaced, and their spacing changes smoothly (perspective, a bow), so
    each outer line sits where the quadratic through its three inner neighbours extrapolates. A rule,
    a page edge or a headline just outside the border (a third of a cell away, say) can take the place
    of the border line in a fit, or part of it: its spacing to the next line is then a cell and a third.
    Such a side (four crossings or more further than ``tol`` of a cell from the trend) is replaced by the
    extrapolation, for ``refine`` to fit again.
    Returns (lattice, whether a side was replaced).
    """
    lat = lattice.astype(np.float32).copy()
    changed = False
    for k in range(4):  # each side in turn on top
        turned = rotate(lat, k)
        guess = 3 * turned[1] - 3 * turned[2] + turned[3]
        cell = np.linalg.norm(turned[1] - turned[2], axis=1)
        miss = np.sort(np.linalg.norm(turned[0] - guess, axis=1) / np.maximum(cell, 1e-6))
        if float(miss[N // 2 + 1]) > tol:  # four crossings or more off: the line left its side there
            turned[0] = guess
            lat = rotate(turned, -k)
            changed = True
    return lat, changed


def refine(gray: np.ndarray, lattice: np.ndarray, cell: int = 24, reach: float = 0.3,
           rounds: int = 2) -> tuple[np.ndarray, float]:
    """Move every crossing onto the lines the picture shows near it; returns (lattice, line contrast).

    The contrast (median ridge strength over the segments, in grey levels) says
    how much the lattice looks like a grid; it is 0 where no line was found.
    """
    margin = cell
    src, lat, k = _sample(gray, lattice, cell)
    contrast = 0.0
    for _ in range(rounds):
        mx, my = dense_map(lat, cell, margin)
        img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        off, strength = _ridges(img, cell, margin, reach)
        contrast = float(np.median(strength))
        if contrast <= 0:
            return lattice, 0.0
        # every line's offsets smoothed along it by a weighted cubic, all 20 lines in one solve
        shift = _smooth(off.reshape(2 * N, 9) / cell, strength.reshape(2 * N, 9))
        shift = (np.clip(shift, -reach, reach) * cell).reshape(2, N, N)  # [dv | du][line][crossing]
        # crossing (i, j): horizontal line i shifted at column j, vertical line j shifted at row i
        lat = _move(mx, my, shift, cell, margin).astype(np.float32)
    return lat * k, contrast



def line_strength(gray: np.ndarray, lattice: np.ndarray, cell: int = 20) -> np.ndarray:
    """How strongly the picture shows each segment of each line: (2, 10, 9), [horizontal | vertical][line][segment].

    The ridge strength (grey levels, as ``refine``'s contrast), searched a little either side of the
    segment: where the picture holds no line (cut off by the frame, or never there) it stays near 0.
    """
    src, lat, _ = _sample(gray, lattice, cell)
    mx, my = dense_map(lat, cell, cell)
    img = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _ridges(img, cell, cell, 0.15)[1]


def extend_sides(lattice: np.ndarray, sides: list[int]) -> np.ndarray:
    """The lattice with its outer lines on ``sides`` (0 top, 1 right, 2 bottom, 3 left) put where the
    other lines of their family extrapolate: per crossing, a cubic of its place along the family's lines.
    For a line the picture does not show (outside it, on a cut page)."""
    lat = lattice.astype(np.float32).copy()
    for family, ends in ((0, [i for k, i in ((0, 0), (2, 9)) if k in sides]),
                         (1, [i for k, i in ((3, 0), (1, 9)) if k in sides])):
        if not ends:
            continue
        view = lat if family == 0 else lat.transpose(1, 0, 2)  # [line][crossing]
        known = np.array([i for i in range(N) if i not in ends])
        basis = np.vander(known.astype(np.float64), 4)
        coef = np.linalg.lstsq(basis, view[known].reshape(len(known), -1).astype(np.float64), rcond=None)[0]
        view[ends] = (np.vander(np.array(ends, np.float64), 4) @ coef).reshape(len(ends), N, 2)
    return lat
