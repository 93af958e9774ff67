"""Made-up camera pictures of a puzzle with known truth, for tests, samples and benchmarks.

A printed page (grid, givens, some newspaper-like text around it) is warped
into a frame by a homography, over a table-like background. Everything that
is drawn is known, so the corners and the givens are exact ground truth.
"""

from __future__ import annotations

import cv2
import numpy as np

from ar_sudoku.vision.render import BLACK, draw_grid_lines, put_centered


def page(puzzle: str, cell: int = 60, margin: int = 90, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A newspaper-ish page with the puzzle; returns (BGR image, grid corners TL,TR,BR,BL)."""
    rng = np.random.default_rng(seed)
    side = 9 * cell
    w, h = side + 2 * margin, side + 2 * margin + cell
    img = np.full((h, w, 3), 245, np.uint8)
    x0, y0 = margin, margin + cell // 2
    for i, ch in enumerate(puzzle):
        if ch not in ".0":
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
    corners = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])
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
    pts = np.float32([[-s * (1 - tilt), -s], [s * (1 - tilt), -s], [s * (1 + tilt), s], [-s * (1 + tilt), s]])
    return (pts @ rot.T + np.float32(center)).astype(np.float32)
