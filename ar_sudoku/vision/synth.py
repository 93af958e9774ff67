"""Made-up camera pictures of a puzzle with known truth, for tests, samples and benchmarks.

A printed page (grid, givens, some newspaper-like text around it) is warped
into a frame by a homography, over a table-like background. Everything that
is drawn is known, so the corners and the givens are exact ground truth.
"""

from __future__ import annotations

import cv2
import numpy as np

from ar_sudoku.sudoku.vocabulary import is_empty
from ar_sudoku.vision.render import BLACK, draw_grid_lines, put_centered


def page(puzzle: str, cell: int = 60, margin: int = 90, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A newspaper-ish page with the puzzle; returns (BGR image, grid corners TL,TR,BR,BL)."""
    rng = np.random.default_rng(seed)
    side = 9 * cell
    w, h = side + 2 * margin, side + 2 * margin + cell
    img = np.full((h, w, 3), 245, np.uint8)
    x0, y0 = margin, margin + cell // 2
    for i, ch in enumerate(puzzle):
        if not is_empty(ch):
            r, c = divmod(i, 9)
            put_centered(img, ch, (x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), cell * 0.55, BLACK)
    draw_grid_lines(img, (x0, y0), cell)
    # text lines above and below, as a newspaper page has
    for y in (margin // 3, margin // 3 + 22, y0 + side + cell // 2 + 10):
        xs = 20
        while xs < w - 60:
            wl = int(rng.integers(20, 70))
            cv2.rectangle(img, (xs, y), (min(w - 20, xs + wl), y + 8), (90, 90, 90), -1)
            xs += wl + 12
    corners = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], np.float32)
    return img, corners


def background(size: tuple[int, int], seed: int = 0) -> np.ndarray:
    """A wooden-table-like backdrop: a smooth gradient with some texture."""
    w, h = size
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    base = 90 + 40 * (xx / w) + 20 * np.sin(yy / 37.0)
    noise = cv2.GaussianBlur(rng.normal(0, 12, (h, w)).astype(np.float32), (0, 0), 3)
    g = np.clip(base + noise, 0, 255)
    return cv2.merge([g * 0.7, g * 0.85, g]).astype(np.uint8)


def place(page_img: np.ndarray, page_grid: np.ndarray, grid_dst: np.ndarray, backdrop: np.ndarray,
          blur: float = 0.0) -> np.ndarray:
    """Warp the page so its grid lands on ``grid_dst`` (TL,TR,BR,BL) in the backdrop."""
    hmat = cv2.getPerspectiveTransform(np.float32(page_grid), np.float32(grid_dst))
    h, w = backdrop.shape[:2]
    warped = cv2.warpPerspective(page_img, hmat, (w, h), flags=cv2.INTER_LINEAR)
    ph, pw = page_img.shape[:2]
    mask = cv2.warpPerspective(np.full((ph, pw), 255, np.uint8), hmat, (w, h))
    out = backdrop.copy()
    out[mask > 127] = warped[mask > 127]
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    return out


def quad(center: tuple[float, float], size: float, angle_deg: float = 0.0, tilt: float = 0.0) -> np.ndarray:
    """A grid quad in a frame: centred, ``size`` px across, rotated, with some perspective ``tilt``."""
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    s = size / 2
    pts = np.array([[-s * (1 - tilt), -s], [s * (1 - tilt), -s], [s * (1 + tilt), s], [-s * (1 + tilt), s]], np.float32)
    return (pts @ rot.T + np.array(center, np.float32)).astype(np.float32)


FLAT_UNIT = np.array([[0, 0], [9, 0], [9, 9], [0, 9]], np.float32)  # grid coordinates: one unit per cell


def bend(image: np.ndarray, corners: np.ndarray, bow: float, lean: float = 0.0, axis: int = 0,
         camera: np.ndarray | None = None, size: tuple[int, int] | None = None,
         points: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A flat page bent through a known smooth mapping; returns (picture, the true 10x10 crossings).

    In the grid's own coordinates (u across, v down, one unit a cell) the page
    bows like paper over a fold: ``v += bow * 9 * sin(pi * u / 9)`` (``axis`` 0;
    axis 1 bows the columns instead), so the middle of every line leaves its
    chord by ``bow`` of the grid's side. ``lean`` then turns the page away
    (the far side shorter, as a page held in one hand), and ``camera`` is an
    extra homography of the whole picture. ``corners`` (TL, TR, BR, BL) place
    the flat grid in ``image``; with ``size`` the picture is first scaled to it.
    The crossings are returned row by row from the grid's top-left, (10, 10, 2);
    given ``points`` (pixels of ``image``, e.g. crossings measured on the flat
    photo), where the mapping takes those instead.
    """
    corners = np.float32(corners).reshape(4, 2)
    if size is not None:
        h0, w0 = image.shape[:2]
        corners = corners * np.array([size[0] / w0, size[1] / h0], np.float32)
        if points is not None:
            points = np.array(points, np.float32) * np.array([size[0] / w0, size[1] / h0], np.float32)
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA if size[0] < w0 else cv2.INTER_CUBIC)
    h, w = image.shape[:2]
    grid = cv2.getPerspectiveTransform(FLAT_UNIT, corners)  # grid units -> picture
    centre = corners.mean(axis=0)
    # the page turning away: the side beyond the bow's axis shrinks towards the centre
    far = np.array([[1 - lean, 1], [1 - lean, 1], [1 + lean, 1], [1 + lean, 1]], np.float32) if axis == 0 else \
        np.array([[1 - lean, 1 - lean], [1 + lean, 1 + lean], [1 + lean, 1 + lean], [1 - lean, 1 - lean]], np.float32)
    leaned = (corners - centre) * far[:, ::-1] + centre if axis == 0 else (corners - centre) * far + centre
    turn = cv2.getPerspectiveTransform(corners, np.float32(leaned))
    cam = turn if camera is None else np.asarray(camera, np.float64) @ turn
    amp = bow * 9.0

    # every output pixel looks up where it came from: camera^-1, grid^-1, unbend, grid
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    out_pts = np.stack([xs, ys], axis=-1)
    uv = _apply(np.linalg.inv(grid) @ np.linalg.inv(cam), out_pts)
    src = _apply(grid, _bowed(uv, -amp, axis)).astype(np.float32)
    bent = cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if points is None:
        flat = np.stack(np.meshgrid(np.arange(10.0), np.arange(10.0)), axis=-1)  # (row, col) -> (u, v)
    else:
        flat = _apply(np.linalg.inv(grid), np.asarray(points, np.float64))
    truth = _apply(cam @ grid, _bowed(flat, amp, axis)).astype(np.float32)
    return bent, truth


def _bowed(uv: np.ndarray, amp: float, axis: int) -> np.ndarray:
    """Grid coordinates bowed by ``amp`` cells at the middle (a negative ``amp`` undoes it): the rows
    (``axis`` 0) or the columns move along a half sine of the other coordinate."""
    u, v = uv[..., 0], uv[..., 1]
    if axis == 0:
        v = v + amp * np.sin(np.pi * np.clip(u, -4.5, 13.5) / 9)
    else:
        u = u + amp * np.sin(np.pi * np.clip(v, -4.5, 13.5) / 9)
    return np.stack([u, v], axis=-1)


def _apply(hmat: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points of any shape (..., 2) through a homography, in float64."""
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), hmat).reshape(pts.shape)
