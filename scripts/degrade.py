"""What a real camera in a real room does to a photo, at random, for the training scripts.

Issue 21: photos read perfectly as taken fall apart dim, blurred, shaken, small or glared.
The training data (real photos and synthetic pages alike) goes through :func:`camera`
before the cells are cut, so the models learn the page as the camera delivers it, not
the cells after the fact. The ranges are deliberately broader than (and not tuned to)
any benchmark's fixed conditions:

  * the page's light: an uneven shadow (a soft or hard edge), a warm or cold colour cast,
    a glare spot (a specular highlight that washes part of the page out);
  * the optics: Gaussian defocus, a straight motion streak;
  * the sensor: dim light (low exposure, gamma), shot noise (grows with the signal) plus
    read noise, then the camera's own gain back up;
  * the file: down-scaling (the grid then 160-700 px across), JPEG quality 25-95.

``camera`` returns the picture and the factor by which it was scaled, so corners follow.
``glare`` is the washed-out share per pixel: a cell under strong glare whose ink cannot be
seen any more is left out of training (``glared_cells``), never relabelled blank.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Shot:
    """A degraded picture: ``image`` (uint8, grey or BGR as given), ``scale`` applied to
    coordinates, ``glare`` (float32 0..1 at the new size, or None)."""

    image: np.ndarray
    scale: float
    glare: np.ndarray | None


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    n = max(3, int(np.ceil(length)) | 1)
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
             cv2.LINE_AA)
    return k / max(float(k.sum()), 1e-6)


def camera(img: np.ndarray, rng: random.Random, grid_px: float, strength: float = 1.0) -> Shot:
    """``img`` (uint8 grey or BGR) as a random real camera in a random room might have delivered it.

    ``grid_px`` is the grid's side in the picture: blur, motion and down-scaling are drawn
    relative to the cell, so a 12 MP photo and a 640 px one are hurt alike. ``strength`` < 1
    makes every effect rarer.
    """
    nrng = np.random.default_rng(rng.randrange(2**32))
    p = lambda q: rng.random() < q * strength  # noqa: E731
    f = img.astype(np.float32)
    h, w = f.shape[:2]
    cell = grid_px / 9
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    yy, xx = yy / max(h, w) - 0.5 * h / max(h, w), xx / max(h, w) - 0.5 * w / max(h, w)
    light = np.ones((h, w), np.float32)
    if p(0.35):  # uneven light: a gradient and sometimes a shadow's edge (soft or hard)
        light *= 1 + rng.uniform(-0.5, 0.5) * xx + rng.uniform(-0.5, 0.5) * yy
        if rng.random() < 0.6:
            a = rng.uniform(0, 2 * np.pi)
            edge = np.cos(a) * xx + np.sin(a) * yy - rng.uniform(-0.3, 0.3)
            soft = rng.uniform(0.002, 0.08) * max(h, w)
            mask = cv2.GaussianBlur((edge > 0).astype(np.float32), (0, 0), soft)
            light *= 1 - rng.uniform(0.2, 0.7) * mask
    f = f * (light[..., None] if f.ndim == 3 else light)
    if f.ndim == 3 and p(0.35):  # warm (tungsten) or cold (daylight, screen) white balance
        t = rng.uniform(-0.3, 0.3)
        f = f * np.float32([1 - t, 1 - 0.1 * abs(t), 1 + t])
    glare = None
    if p(0.12):  # a specular highlight: light added toward white over a soft spot
        cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
        rx = rng.uniform(0.3, 2.5) * cell
        ry = rx * rng.uniform(0.4, 1.0)
        a = rng.uniform(0, np.pi)
        xr = ((xx * max(h, w) + 0.5 * w - cx) * np.cos(a) + (yy * max(h, w) + 0.5 * h - cy) * np.sin(a)) / rx
        yr = (-(xx * max(h, w) + 0.5 * w - cx) * np.sin(a) + (yy * max(h, w) + 0.5 * h - cy) * np.cos(a)) / ry
        glare = (np.exp(-(xr**2 + yr**2) ** rng.uniform(0.8, 2.0)) * rng.uniform(0.6, 1.2)).astype(np.float32)
        glare = np.clip(glare, 0, 1)
        g = glare[..., None] if f.ndim == 3 else glare
        f = f + (300 - f) * g
    if p(0.3):
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.02, 0.08) * cell)
    if p(0.2):
        f = cv2.filter2D(f, -1, _motion_kernel(rng.uniform(0.05, 0.3) * cell, rng.uniform(0, np.pi)))
    if p(0.35):  # dim: little light reaches the sensor, noise grows relative to it, the gain brings it back
        expo = rng.uniform(0.08, 0.6)
        sig = np.clip(f, 0, 255) / 255 * expo
        photons = rng.uniform(150, 2500)  # full-well-ish electrons at white: fewer, noisier
        sig = nrng.poisson(sig * photons).astype(np.float32) / photons
        sig = sig + nrng.normal(0, rng.uniform(0.002, 0.012), sig.shape).astype(np.float32)
        gain = rng.uniform(0.25, 1.0) / expo  # auto-exposure may leave the picture dark
        f = 255 * np.clip(sig * gain, 0, 1) ** rng.uniform(0.7, 1.5)
    elif p(0.3):
        f = f + nrng.normal(0, rng.uniform(1, 8), f.shape).astype(np.float32)
    f = np.clip(f, 0, 255)
    scale = 1.0
    if p(0.35):  # the file or the stream is small: the grid 160..700 px across
        target = rng.uniform(160, 700)
        if target < grid_px:
            scale = target / grid_px
            size = (max(8, int(round(w * scale))), max(8, int(round(h * scale))))
            f = cv2.resize(f, size, interpolation=cv2.INTER_AREA)
            if glare is not None:
                glare = cv2.resize(glare, size, interpolation=cv2.INTER_AREA)
            scale = size[0] / w
    out = f.astype(np.uint8)
    if p(0.6):
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(25, 95)])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return Shot(out, scale, glare)


def glared_cells(glare: np.ndarray | None, corners: np.ndarray, limit: float = 0.75) -> np.ndarray:
    """(81,) bool: the cells whose centre the glare washes out by more than ``limit`` (their ink may be gone)."""
    if glare is None:
        return np.zeros(81, bool)
    c = np.float32(corners)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [9, 0], [9, 9], [0, 9]]), c)
    centres = np.float32([[(i % 9) + 0.5, (i // 9) + 0.5] for i in range(81)]).reshape(-1, 1, 2)
    pts = cv2.perspectiveTransform(centres, m).reshape(-1, 2)
    h, w = glare.shape
    xi = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
    return glare[yi, xi] > limit


def screen_photo(img: np.ndarray, rng: random.Random, cell_px: float) -> np.ndarray:
    """``img`` shown on a phone screen and photographed: the sub-pixel stripes beating with the sensor's
    (moire), the screen's black level and gamma, a little blur, resampled, JPEG. Drawn at random over a
    broad range (stripe period, angle, depth, black level), sized to the cell (``cell_px``); the picture
    keeps its size, so corners need no scaling."""
    nrng = np.random.default_rng(rng.randrange(2**32))
    f = img.astype(np.float32) / 255.0
    h, w = f.shape[:2]
    period = rng.uniform(0.06, 0.16) * cell_px
    t = rng.uniform(-0.25, 0.25)
    depth = rng.uniform(0.1, 0.4)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    phase = (xx * np.cos(t) + yy * np.sin(t)) / period
    lit = f ** rng.uniform(1.0, 1.5) * rng.uniform(0.75, 0.95) + rng.uniform(0.02, 0.15)
    if f.ndim == 3:
        stripes = np.stack([1 - depth + depth * np.cos(2 * np.pi * (phase - k / 3)) for k in (2, 1, 0)], axis=-1)
    else:
        stripes = 1 - depth + depth * np.cos(2 * np.pi * phase)
    out = cv2.GaussianBlur(lit * stripes * 255.0, (0, 0), rng.uniform(0.01, 0.04) * cell_px)
    out = out + nrng.normal(0, rng.uniform(0, 4), out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(50, 95)])
    return cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
