"""The curled lattice: a grid whose outline is not four straight sides, fitted through its 10x10 crossings.

A curled outline's sides fitted with cubics, a grid cut into pieces by glare or folds put back together from its
boxes, and a box taken for the grid grown to the whole of it. Asked by :func:`ar_sudoku.vision.grid.find_grid`
when no flat grid is clear.
"""


from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import imutils
import numpy as np

from ar_sudoku.vision.lattice import (
    GRID_UV,
    align,
    bend_of,
    check_sides,
    coons_from_outline,
    corners_of,
    extend_sides,
    line_strength,
    refine,
    rotate,
)
from ar_sudoku.vision.quads import (
    QUADS,
    GridQuad,
    _agrees,
    _line_intersection,
    _outlines,
    _quad_from_contour,
    cell_side,
    cut_by_frame,
    order_corners,
    structure_score,
)


def _best_curled(mask: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
                 flat: GridQuad | None, allow_cut: bool = False) -> GridQuad | None:
    """A curled page, tried when no flat grid is clear: the largest outlines fitted as lattices.

    An outline on the picture's edge is not tried (its cut side would bend the fit), and when a
    flat grid was found, a curled one must be that grid (the same corners), not a shifted fit.
    """
    best = None
    tries = [(contour, q) for contour, quad in _outlines(mask, area_min, allow_cut=True)[:QUADS.curled_tries]
             for q in [quad] + (_despiked(contour, quad) if allow_cut and _touches_frame(quad, mask.shape) else [])]
    for contour, quad in tries:
        if not allow_cut and (cut_by_frame(quad, mask.shape, tol=2.0) or _touches_frame(quad, mask.shape)):
            continue
        curled = _curled(contour, quad, probe)
        if curled is None or curled.lattice is None or curled.score < min_score or (
                bend_of(curled.lattice) > QUADS.max_bend):
            continue
        if flat is not None:
            if curled.score <= flat.score + 0.05:
                continue
            # the same grid: the flat one's corners; or three of them, when the fit is no more bent than a
            # page (a bowed side can put the flat outline's corner off its lines; a shifted fit moves two)
            cell = cell_side(flat.corners)
            off = min((np.sort(np.abs(np.roll(curled.corners, k, axis=0) - flat.corners).max(axis=1))
                       for k in range(4)), key=lambda d: float(d[3]))
            # unless the flat outline runs along the picture's edge (two corners on it, where the frame cuts
            # the outline, not on the grid's lines) and the curled fit is clearly a grid
            cut = cut_by_frame(flat.corners, mask.shape, tol=4.0) and curled.score >= QUADS.clear_score
            if not cut and off[3] > 0.35 * cell and (off[2] > 0.35 * cell or bend_of(curled.lattice) > QUADS.same_bend):
                continue
        if best is None or curled.score > best.score:
            best = curled
    return best


def _side_support(contour: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """The share of the segment a-b that the outline runs along (within a pixel or two)."""
    tol = max(2.0, 0.015 * float(np.hypot(*(b - a))))
    pts = a + np.linspace(0.05, 0.95, 19)[:, None] * (b - a)
    return float(np.mean([abs(cv2.pointPolygonTest(contour, (float(x), float(y)), True)) < tol for x, y in pts]))


def _ray(pts: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """The straight side of the outline leaving corner ``start`` towards about ``end`` (within 35 degrees):
    the direction most outline points follow (within a pixel or two) over the side's length; as a line
    (vx, vy, x, y) fitted to them."""
    d = pts - start
    length = float(np.hypot(*(end - start)))
    r = np.hypot(d[:, 0], d[:, 1])
    cos = (d @ (end - start)) / np.maximum(r * length, 1e-6)
    cand = d[(r > 0.3 * length) & (r < 1.2 * length) & (cos > 0.82)]
    if len(cand) < 5:
        return None
    cand = cand[:: max(1, len(cand) // 120)]
    dirs = cand / np.hypot(cand[:, 0], cand[:, 1])[:, None]
    tol = max(2.0, 0.012 * length)
    along = d @ dirs.T  # (points, candidates)
    across = np.abs(d[:, :1] * dirs[:, 1] - d[:, 1:] * dirs[:, 0])
    hits = ((across < tol) & (along > 0) & (along < 1.2 * length)).sum(axis=0)
    k = int(hits.argmax())
    sel = (across[:, k] < tol) & (along[:, k] > 0) & (along[:, k] < 1.2 * length)
    if hits[k] < 0.3 * length:
        return None
    return cv2.fitLine(np.vstack([pts[sel], start[None]]).astype(np.float32), cv2.DIST_HUBER, 0, 0.01,
                       0.01).reshape(4)


def _despiked(contour: np.ndarray, quad: np.ndarray) -> list[np.ndarray]:
    """Quads with a corner the hull put on a spike (a smear or print joined to the outline, out to the
    picture's edge) placed again: where the straight sides from its two neighbours meet. A side that the
    outline does not run along is the sign; either of its ends may be the spike, so both are tried."""
    pts = contour.reshape(-1, 2).astype(np.float32)
    c = contour.reshape(-1, 1, 2).astype(np.float32)
    out = []
    for s in range(4):
        a, b = quad[s], quad[(s + 1) % 4]
        if _side_support(c, a, b) >= 0.7:
            continue
        for k in (s, (s + 1) % 4):
            prev, nxt = quad[k - 1], quad[(k + 1) % 4]
            l1, l2 = _ray(pts, prev, quad[k]), _ray(pts, nxt, quad[k])
            if l1 is None or l2 is None:
                continue
            p = _line_intersection(l1, l2)
            if p is None or float(np.hypot(*(p - quad[k]))) < 2.0:
                continue
            alt = quad.copy()
            alt[k] = p
            sides = [np.hypot(*(alt[i] - alt[(i + 1) % 4])) for i in range(4)]
            if cv2.isContourConvex(alt.reshape(-1, 1, 2)) and min(sides) > 0.35 * max(sides):
                out.append(alt)
    return out


def _touches_frame(quad: np.ndarray, shape: tuple[int, ...], tol: float = 2.0) -> bool:
    h, w = shape[:2]
    return bool((quad[:, 0] < tol).any() or (quad[:, 1] < tol).any() or (quad[:, 0] > w - 1 - tol).any()
                or (quad[:, 1] > h - 1 - tol).any())


def _curled(contour: np.ndarray, quad: np.ndarray, probe: np.ndarray) -> GridQuad | None:
    """The grid of a curled outline: a lattice predicted from its curved sides, then fitted to its lines."""
    guess = coons_from_outline(contour.reshape(-1, 2), quad)
    if guess is None:
        return None
    aligned, fill = align(probe, guess, QUADS.probe)
    if fill < QUADS.min_fill:  # no comb of ten lines in most bands: no grid (and no time spent fitting one)
        return None
    lattice, contrast = refine(probe, aligned, cell=QUADS.probe)
    if contrast <= 0:
        return None
    # an outer line off the inner lines' trend (a rule or page edge beside the border): fitted again from it
    lattice, changed = check_sides(lattice)
    if changed:
        lattice, contrast = refine(probe, lattice, cell=QUADS.probe, reach=0.15)
        if contrast <= 0:
            return None
    corners = corners_of(lattice)
    return GridQuad(corners, structure_score(probe, corners, lattice), lattice)


def _lattice_fits(pieces: list[np.ndarray], quad: np.ndarray, count: int, enough: int) -> bool:
    """The pieces sit one to a place of an n x n lattice spanned by the quad (not a cut-off part of one)."""
    n = int(round(count**0.5))
    hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32))
    moments = [cv2.moments(c) for c in pieces]
    centres = np.array([[m["m10"] / m["m00"], m["m01"] / m["m00"]] for m in moments], np.float32).reshape(-1, 1, 2)
    uv = cv2.perspectiveTransform(centres, hmat).reshape(-1, 2)
    if (np.abs(uv - np.floor(uv) - 0.5) > 0.3).any():
        return False
    places = {(int(u), int(v)) for u, v in uv if 0 <= u < n and 0 <= v < n}
    return len(places) >= enough and len(places) == len(pieces)


def _from_pieces(pieces: list[tuple[float, np.ndarray]], probe: np.ndarray, min_score: float,
                 area_min: float) -> GridQuad | None:
    """Rebuild a grid whose outline merged with other print, from its 9 boxes or 81 cells (``_pieces``).

    The holes of the line pattern are quads of one size; when 7+ boxes (or 60+
    cells) are found, their hull is the inside of the grid's border.
    """
    best: GridQuad | None = None
    for ref, group in _by_size(pieces):
        for want, enough in ((9, 7), (81, 60)):
            # the lattice of pieces is itself evidence of a grid: faint thin lines, or handwriting in every cell,
            # may score low (a page written on in every cell scores a third of its printed twin)
            found = _rebuilt(group, ref, want, enough, probe, 0.2 * min_score, area_min)
            if found is not None and (best is None or found.score > best.score):
                best = found
        if best is not None:
            return best
    return best


def _from_clusters(pieces: list[tuple[float, np.ndarray]], probe: np.ndarray, min_score: float,
                   area_min: float) -> GridQuad | None:
    """The clearest grid rebuilt from one cluster of pieces of one size that lies apart (:func:`_clusters`), when
    all the pieces of that size make no grid (:func:`_from_pieces`): two puzzles of one size side by side on a
    page, both merged with the print around them, give twice the boxes. A cluster must look like a grid
    (``min_score``): nine squares of a calendar beside the puzzle are a lattice of pieces too."""
    best: GridQuad | None = None
    for ref, group in _by_size(pieces):
        for want, enough in ((9, 7), (81, 60)):
            if len(group) <= enough:
                continue
            for part in _clusters(group, ref):
                found = _rebuilt(part, ref, want, enough, probe, min_score, area_min)
                if found is not None and (best is None or found.score > best.score):
                    best = found
        if best is not None:
            return best
    return best


def _by_size(pieces: list[tuple[float, np.ndarray]]) -> Iterator[tuple[float, list[np.ndarray]]]:
    """For each of the 20 largest pieces, in turn: its area and every piece of about its size (a grid's boxes, or
    its cells)."""
    for ref, _ in pieces[:20]:
        yield ref, [c for a, c in pieces if 0.65 * ref < a < 1.5 * ref]


def _rebuilt(group: list[np.ndarray], ref: float, want: int, enough: int, probe: np.ndarray, least: float,
             area_min: float) -> GridQuad | None:
    """The grid whose ``want`` boxes (or cells) of area about ``ref`` are ``group`` (``enough`` of them at least),
    scoring ``least`` or more."""
    if not enough <= len(group) <= want + 2:
        return None
    hull = cv2.convexHull(np.vstack(group))
    if not 0.75 * want < cv2.contourArea(hull) / ref < 1.35 * want:
        return None
    quad = _quad_from_contour(hull)
    if quad is None or cv2.contourArea(quad) < area_min or not _lattice_fits(group, quad, want, enough):
        return None
    score = structure_score(probe, quad)
    return GridQuad(quad, score) if score >= least else None


# pieces whose centres lie within this many piece sides are neighbours in one grid (a box's neighbour across a
# line lies one side and a line away; a puzzle beside it, a margin further)
NEIGHBOUR_SIDES = 1.3


def _clusters(group: list[np.ndarray], ref: float) -> list[list[np.ndarray]]:
    """``group`` split into clusters of neighbouring pieces (each piece's centre within ``NEIGHBOUR_SIDES`` sides
    of another's in its cluster), of two pieces or more."""
    centres = np.array([c.reshape(-1, 2).mean(axis=0) for c in group], np.float32)
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) <= NEIGHBOUR_SIDES * ref**0.5
    label = [-1] * len(group)
    for start in range(len(group)):
        if label[start] >= 0:
            continue
        label[start], todo = start, [start]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(near[i]):
                if label[j] < 0:
                    label[j] = start
                    todo.append(int(j))
    out = [[group[i] for i in range(len(group)) if label[i] == k] for k in sorted(set(label))]
    return [part for part in out if len(part) >= 2] if len(out) > 1 else []


_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (rows, cols) across a piece's top, right, bottom, left side


_CORNER = ((0, 0), (0, 1), (1, 1), (1, 0))  # a piece's corner that starts that side: TL, TR, BR, BL


_NEXT = np.array([1, 2, 3, 0])


def _pieces(mask: np.ndarray, area_min: float) -> list[tuple[float, np.ndarray]]:
    """Closed holes of the line pattern shaped like a box or a cell: (area, contour), largest first."""
    contours = imutils.grab_contours(cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE))
    pieces = []
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:150]:
        a = cv2.contourArea(c)
        if a < area_min / 100:
            break
        x, y, w, h = cv2.boundingRect(c)
        if 0.6 < w / h < 1.6 and a > 0.6 * w * h:
            pieces.append((a, c))
    return pieces


def _order_pieces(quads: np.ndarray) -> tuple[dict[tuple[int, int], list[np.ndarray]], int] | None:
    """Pieces (m x 4 corners, clockwise) ordered into rows and columns by the corners their sides share.

    Two pieces are neighbours when a side of one is a side of the other (both corners within a quarter of
    a piece: the line between them). Walking from the first piece, each neighbour's place and turn follow
    from which sides meet, so a curled or turned grid is ordered as well as a flat one. Returns the corner
    estimates of every crossing, keyed by (row, col) in pieces, and how many pieces were reached; or None
    when the walk contradicts itself.
    """
    size = np.sqrt(np.abs([cv2.contourArea(q) for q in quads]))
    d = np.linalg.norm(quads[:, :, None, None] - quads[None, None], axis=-1)  # (m, 4, m, 4)
    near = d < 0.25 * np.minimum(size[:, None], size[None, :])[:, None, :, None]
    # side k of i (corners k, k+1) is side e of j walked the other way: corners e+1, e
    meet = near[:, :, :, _NEXT] & near[:, _NEXT, :, :]
    meet[np.arange(len(quads)), :, np.arange(len(quads)), :] = False
    sides: dict[int, list[tuple[int, int, int]]] = {}
    for i, k, j, e in np.argwhere(meet).tolist():
        sides.setdefault(i, []).append((k, j, e))
    place, turn = {0: (0, 0)}, {0: 0}
    todo = [0]
    while todo:
        i = todo.pop()
        for k, j, e in sides.get(i, []):
            side = (k + turn[i]) % 4
            at = (place[i][0] + _STEP[side][0], place[i][1] + _STEP[side][1])
            tj = (side + 2 - e) % 4
            if j in place:
                if place[j] != at or turn[j] != tj:
                    return None
                continue
            place[j], turn[j] = at, tj
            todo.append(j)
    crossings: dict[tuple[int, int], list[np.ndarray]] = {}
    for i, (r, c) in place.items():
        for j in range(4):
            dr, dc = _CORNER[(j + turn[i]) % 4]
            crossings.setdefault((r + dr, c + dc), []).append(quads[i, j])
    return crossings, len(place)


def _smooth_lattice(crossings: dict[tuple[int, int], list[np.ndarray]], per: float,
                    at: tuple[int, int]) -> np.ndarray:
    """The 10x10 lattice from crossings known at some places (row, col in pieces of ``per`` cells, the
    first known one ``at`` (row, col) pieces from the grid's top-left): a smooth polynomial of the grid
    coordinates (up to cubic, no higher than the known rows and columns carry), extrapolating the rest."""
    keys = np.array(list(crossings), np.float64)
    xy = np.array([np.mean(v, axis=0) for v in crossings.values()], np.float64)
    v = (keys[:, 0] - keys[:, 0].min() + at[0]) * per / 9
    u = (keys[:, 1] - keys[:, 1].min() + at[1]) * per / 9
    # a degree needs as many full rows (columns) plus one: a part row would swing the rest of the fit
    rows, cols = np.unique(v, return_counts=True)[1], np.unique(u, return_counts=True)[1]
    du = min(3, int((cols >= 0.75 * cols.max()).sum()) - 1)
    dv = min(3, int((rows >= 0.75 * rows.max()).sum()) - 1)
    terms = [(i, j) for i in range(du + 1) for j in range(dv + 1) if i + j <= 3]
    coef = np.linalg.lstsq(np.stack([u**i * v**j for i, j in terms], axis=1), xy, rcond=None)[0]
    gu, gv = GRID_UV[..., 0].ravel() / 9, GRID_UV[..., 1].ravel() / 9
    return (np.stack([gu**i * gv**j for i, j in terms], axis=1) @ coef).reshape(10, 10, 2).astype(np.float32)


def _from_cut_pieces(pieces: list[tuple[float, np.ndarray]], probe: np.ndarray, min_score: float,
                     area_min: float) -> tuple[GridQuad, list[int]] | None:
    """A grid whose outline runs out of the picture, rebuilt from its closed boxes or cells (photos only).

    A grid cut by the picture's edge (a border just outside it; a curled page) leaves its outer row of
    boxes or cells open: of 2 x 3 boxes 4 or more are closed, or 50 or more of 8 x 9 cells. They are
    ordered by their shared sides, a smooth lattice through their corners extrapolates the open row,
    and the lattice is fitted to the lines as a curled outline's is. The open row must lie inside the
    picture (a grid with a row of cells missing is no grid to read), and every line but the open row's
    outermost must be found. Returns (grid, the sides whose line the picture does not show).
    """
    h, w = probe.shape[:2]
    tried: set[tuple[int, ...]] = set()
    quad_of: dict[int, np.ndarray | None] = {}
    for ref, _ in pieces[:12]:
        members = tuple(i for i, (a, _) in enumerate(pieces) if 0.55 * ref < a < 1.8 * ref)
        # boxes of a grid of area_min or more, or 50 cells; nothing smaller is tried (text, noise)
        if members in tried or not (len(members) >= 4 and ref > 0.06 * area_min or len(members) >= 50):
            continue
        tried.add(members)
        for i in members:
            if i not in quad_of:
                quad_of[i] = _quad_from_contour(pieces[i][1])
        quads = np.array([quad_of[i] for i in members if quad_of[i] is not None], np.float32)
        ordered = _order_pieces(quads) if len(quads) >= 4 else None
        if ordered is None:
            continue
        crossings, count = ordered
        rows = {r for r, _ in crossings}
        cols = {c for _, c in crossings}
        nr, nc = len(rows) - 1, len(cols) - 1
        for n, least in ((3, 4), (9, 50)):  # boxes, cells
            if not (n - 1 <= nr <= n and n - 1 <= nc <= n) or (nr, nc) == (n, n):
                continue
            if count < least or len(crossings) < 0.8 * (nr + 1) * (nc + 1):
                continue
            best = None
            for at in {(a, b) for a in range(n - nr + 1) for b in range(n - nc + 1)}:
                found = _fit_cut(_smooth_lattice(crossings, 9 / n, at), probe, (h, w), min_score)
                if found is not None and (best is None or found[0] > best[0]):
                    best = found
            if best is not None:
                return best[1], best[2]
    return None


def _fit_cut(guess: np.ndarray, probe: np.ndarray, shape: tuple[int, int],
             min_score: float) -> tuple[float, GridQuad, list[int]] | None:
    """A cut grid's lattice fitted to the lines; (score, grid, the sides the picture does not show) or None."""
    h, w = shape
    cell = float(np.linalg.norm(guess[0, 0] - guess[9, 9])) / (9 * 2**0.5)
    tol = 0.2 * cell
    if (guess < -tol).any() or (guess[..., 0] > w - 1 + tol).any() or (guess[..., 1] > h - 1 + tol).any():
        return None
    aligned, fill = align(probe, guess, QUADS.probe)
    if fill < QUADS.min_fill:
        return None
    lattice, contrast = refine(probe, aligned, cell=QUADS.probe)
    if contrast <= 0:
        return None
    strength = line_strength(probe, lattice, QUADS.probe)
    support = np.median(strength, axis=2)  # (2, 10): per line
    med = float(np.median(support))
    # an outer line the picture hardly shows (outside it, or on its edge) is put on its family's trend,
    # where the lines across show the open row of cells; every other line must be there, if faint (a
    # wrong placement leaves lines in the open)
    outer = {0: (0, 0, 0), 1: (1, 9, 8), 2: (0, 9, 8), 3: (1, 0, 0)}  # side: family, line, segment across
    open_sides = [k for k, (d, i, j) in outer.items()
                  if support[d, i] < 0.5 * med and float(np.median(strength[1 - d, :, j])) >= 0.3 * med]
    shown = support >= 0.15 * med
    # and every outer row and column of cells lies between lines across (not print beside the grid)
    if any(float(np.median(strength[1 - d, :, j])) < 0.3 * med for d, _, j in outer.values()):
        return None
    for k in open_sides:
        shown[outer[k][:2]] = True
    if not shown.all():
        return None
    lattice = extend_sides(lattice, open_sides)
    if (lattice < -tol).any() or (lattice[..., 0] > w - 1 + tol).any() or (lattice[..., 1] > h - 1 + tol).any():
        return None
    if bend_of(lattice) > QUADS.max_bend:
        return None
    score = structure_score(probe, corners_of(lattice), lattice)
    if score < min_score:
        return None
    # turned as every other grid: the first corner nearest the picture's top-left
    turn = next(k for k in range(4) if np.array_equal(rotate(lattice, k)[0, 0], order_corners(corners_of(lattice))[0]))
    lattice = rotate(lattice, turn)
    sides = [(k - turn) % 4 for k in open_sides]
    return score, GridQuad(corners_of(lattice), score, lattice), sides


@dataclass(frozen=True)
class CurledConfig:
    """This stage's tuning: each field with the reason for its value."""

    box_gain: float = 0.1  # how much more a grid three boxes wide must look like one than the box taken for it
    other_place: float = 0.03  # ... and than the grid the box makes at any other place in it


CURLED = CurledConfig()


_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)


# a part of a grid taken for the grid: (columns, rows) of boxes it spans (a box, or a row or column of three:
# parts outlined by the thick lines alone; two boxes' half-box cells would fit a grid of half a box's cells),
# and (column, row) of its first box
_BOX_PLACES = tuple((c, r, i, j) for c, r in ((1, 1), (1, 3), (3, 1)) for i in range(4 - c) for j in range(4 - r))


def _whole_of_box(found: GridQuad, binary: np.ndarray, probe: np.ndarray, min_score: float, area_min: float,
                  pieces: list[tuple[float, np.ndarray]]) -> GridQuad:
    """The grid whose 3x3 box (or row or column of boxes) ``found`` is, when that looks more like a grid than the
    part does; else ``found``.

    A page filled in by hand and out of focus: the digits' ink between the lines lowers the whole grid's
    score, and text touching its border merges its outline with the page, while one box, outlined by the
    thick box lines, still passes for a small grid of thin lines (its 9 cells' digits blur into lines).
    The grid is three boxes wide: each place the part can hold in it is scored, tripled both through the
    part's own perspective and through its mean sides (a part of a real grid is at one place only, so a
    place is taken only when it looks clearly more like a grid than every other; a strip of boxes is as long
    as it is boxes). Else the grid rebuilt from its boxes (:func:`_from_pieces`) is tried when the part is
    one box. A small grid taken for a box is kept: tripled, it is the page.
    """
    h, w = probe.shape[:2]
    box = found.corners.astype(np.float32)
    to_box = cv2.getPerspectiveTransform(_UNIT, box)
    # the box's mean sides: its own perspective, measured over one box, is mostly its corners' error, and
    # tripled it can throw the grid's far corners a third of a box off (a box under a shadow)
    across = ((box[1] - box[0]) + (box[2] - box[3])) / 2
    down = ((box[3] - box[0]) + (box[2] - box[1])) / 2
    origin = box.mean(axis=0) - (across + down) / 2
    sides = np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1)
    aspect = (sides[0] + sides[2]) / max(1e-6, sides[1] + sides[3])
    placed: list[GridQuad] = []  # each place's likelier grid
    for cols, rows, i, j in _BOX_PLACES:
        if not 0.6 < aspect * rows / cols < 1.6:  # a strip of boxes is as long as it is boxes
            continue
        unit = (_UNIT * 3 - np.array([i, j], np.float32)) / np.array([cols, rows], np.float32)
        tripled = cv2.perspectiveTransform(unit.reshape(-1, 1, 2), to_box).reshape(4, 2)
        here = [GridQuad(quad, structure_score(probe, quad))
                for quad in (tripled, (origin + unit[:, :1] * across + unit[:, 1:] * down).astype(np.float32))
                if not ((quad < -0.02 * np.array([w, h])).any() or (quad > 1.02 * np.array([w, h])).any())]
        if here:
            placed.append(max(here, key=lambda g: g.score))
    placed.sort(key=lambda g: -g.score)
    best = found
    # a part of a grid is at one place only: two places alike (a crossword's lines beside the grid continue
    # its spacing, out of focus) tell nothing, and the grid is rebuilt from its boxes
    if placed and placed[0].score >= max(min_score, found.score + CURLED.box_gain) and (
            len(placed) == 1 or placed[0].score - placed[1].score >= CURLED.other_place):
        best = placed[0]
    pieces = pieces or _pieces(binary, area_min)
    if best is not found:
        # one box's corners, tripled, carry its error threefold: the grid is fitted through every box it shows
        fitted = _through_boxes(best.corners, pieces)
        if fitted is not None:
            score = structure_score(probe, fitted)
            if score >= best.score:
                best = GridQuad(fitted, score)
        return best
    rebuilt = _from_pieces(pieces, probe, min_score, area_min)
    if rebuilt is not None and _box_of(box, rebuilt.corners):
        return rebuilt
    return found


def _through_boxes(quad: np.ndarray, pieces: list[tuple[float, np.ndarray]]) -> np.ndarray | None:
    """The grid's outline fitted through the corners of the boxes (closed holes a ninth of ``quad``) that lie
    at the box places ``quad`` predicts, when three or more do; None when fewer."""
    ninth = cv2.contourArea(quad.astype(np.float32)) / 9
    seen, places = [], []
    for area, contour in pieces:
        if not 0.6 * ninth < area < 1.4 * ninth:
            continue
        hole = _quad_from_contour(contour)
        if hole is None:
            continue
        uv = _in_boxes(quad, hole)
        corner = np.round(uv)
        if (np.abs(uv - corner) > 0.2).any() or not (np.ptp(corner, axis=0) == 1).all():
            continue
        seen.append(hole)
        places.append(corner)
    if len(seen) < 3:
        return None
    hmat, _ = cv2.findHomography(np.vstack(places).astype(np.float32), np.vstack(seen).astype(np.float32))
    if hmat is None:
        return None
    return cv2.perspectiveTransform((_UNIT * 3).reshape(-1, 1, 2), hmat).reshape(4, 2).astype(np.float32)


def _in_boxes(quad: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points in the grid ``quad``'s box units: (0, 0) its top-left corner, (3, 3) its bottom-right."""
    to_unit = cv2.getPerspectiveTransform(quad.astype(np.float32), _UNIT * 3)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), to_unit).reshape(-1, 2)


def _box_of(box: np.ndarray, quad: np.ndarray) -> bool:
    """``box`` is one of the nine boxes of the grid ``quad``: a ninth of it, at one of the box places."""
    uv = _in_boxes(quad, box)
    return bool((np.abs(uv - np.round(uv)) < 0.15).all() and (np.ptp(uv, axis=0) > 0.7).all()
                and (np.ptp(uv, axis=0) < 1.3).all())


def _flatter(gray: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """A bent fit, or the flat grid that most of its crossings agree on, whichever fits the lines better.

    An outline whose corner is a quarter cell off (a grid rebuilt from its boxes) starts the fit off its
    lines there, and the fit can bend to neighbouring print. The crossings that did land on lines give
    a homography (RANSAC); fitted again from it, a flat page's grid comes out flat and on its lines. It
    must fit clearly better (``QUADS.flatter``): a curled page's flat refit can score a hair above its own fit.
    A "bend" at a few crossings only (``QUADS.local_bend``: all but these few on one homography) is no page's
    curl but a corner pulled off a faint outer border, which the score (inner lines) does not see: there
    the flat refit is taken when it fits as well.
    """
    ideal = np.stack(np.meshgrid(np.arange(10), np.arange(10)), -1).reshape(-1, 2).astype(np.float32)
    cell = float(np.linalg.norm(lattice[0, 0] - lattice[9, 9])) / (9 * 2**0.5)
    hmat, inliers = cv2.findHomography(ideal, lattice.reshape(-1, 2).astype(np.float32), cv2.RANSAC, 0.1 * cell)
    if hmat is None:
        return lattice
    guess = cv2.perspectiveTransform(ideal[None], hmat)[0].reshape(10, 10, 2)
    flat, contrast = refine(gray, guess, cell=24, reach=0.2, rounds=1)
    gain = structure_score(gray, corners_of(flat), flat) - structure_score(gray, corners_of(lattice), lattice)
    local = inliers is not None and len(ideal) - int(inliers.sum()) <= QUADS.local_bend
    return flat if contrast > 0 and (gain >= QUADS.flatter or (local and gain >= 0)) else lattice


def _fitted(gray: np.ndarray, found: GridQuad, scale: float, precise: bool, agreeing: bool,
            open_sides: list[int] | None = None) -> GridQuad:
    """The grid ``found`` at the working size (``scale``), in ``gray``'s pixels: its crossings fitted to the lines
    at full resolution when ``precise`` (see :func:`find_grid`); ``open_sides``, a cut grid's sides outside the
    picture, extrapolated."""
    if found.lattice is None and not precise:
        return GridQuad(found.corners / scale, found.score)
    # the crossings fitted to the lines at full resolution, where the cells will be cut: the outline's
    # corners sit on the border's outer edge, and a curled page's small-scale fit is coarse
    guess = found.crossings() / scale
    lattice: np.ndarray | None
    lattice, contrast = refine(gray, guess, cell=24, reach=0.2, rounds=1)
    if contrast <= 0:
        lattice = guess if found.lattice is not None else None
    if open_sides:  # refine has no line there to fit
        assert lattice is not None  # open sides come with a cut grid's fitted crossings
        lattice = extend_sides(lattice, open_sides)
    elif lattice is not None and bend_of(lattice) >= QUADS.bent:
        flat = _flatter(gray, lattice)
        if flat is not lattice:  # the outline's corners were off its lines: the refitted grid's own corners
            outline = found.corners / scale
            if agreeing and found.lattice is None and (bend_of(flat) >= QUADS.bent
                                                       or not _agrees(corners_of(flat), outline)):
                return GridQuad(outline, found.score)
            return GridQuad(corners_of(flat), found.score, flat)
    if lattice is None or bend_of(lattice) < QUADS.bent:
        return GridQuad(found.corners / scale, found.score, lattice)
    if agreeing and found.lattice is None:  # a flat outline the fit bent: the outline is trusted more
        return GridQuad(found.corners / scale, found.score)
    return GridQuad(corners_of(lattice), found.score, lattice)
