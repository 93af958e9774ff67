"""A shaken camera's streak, measured on the grid itself and taken back out before the cells are cut.

A hand that moves while the shutter is open smears the picture along one line: every point
becomes a short straight streak (a line PSF), a few pixels to a dozen on a 640 px photo. Unlike a
picture out of focus, this blur has a direction: a grid line along the streak stays sharp while
one across it is smeared by exactly the streak's length. The cell models learnt from sharp
photos, and a streaked 6 reads as 5, a 9 as 3, print as handwriting (issue 21).

The grid is a good test chart: ink edges a pixel wide in every direction. A line PSF's spectrum is a
sinc along the streak, with zeros that repeat at the inverse of its length; in the cepstrum (the
inverse transform of the log spectrum) they add up to a deep negative peak at exactly the streak's
length and direction, while a sharp grid's only dips are at a stroke's width (:func:`measure_streak`).
Knowing the line PSF, a Wiener filter undoes most of it (:func:`deconvolve`).

Most pictures are not streaked: :func:`measure_streak` first compares the gradient energy across the
two principal directions (the structure tensor of the grid, a few sums) and stops when it is even;
the spectrum is computed only for a grid that fails this.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

MEASURE_CELL = 32  # px a cell the streak is measured at


@dataclass(frozen=True)
class DeblurConfig:
    """This stage's tuning: each field with the reason for its value."""

    # A grid whose gradient energy in its weakest direction is at least this share of its strongest, in its
    # digits (uneven) and across its lines (uneven_grid), is even, not streaked (training photos as taken:
    # 0.42 and more in the digits of the 640 px ones, 0.62 in the 1280 px ones; under a 15 px streak 0.26-0.55)
    uneven: float = 0.4
    uneven_grid: float = 0.5
    # A short streak across the diagonal leaves that energy even (across x as across y, and a 640 px photo's
    # digits are too small to tell): the steepest edges in the least steep of four directions are then under this
    # share of the steepest direction's (training photos as taken: 0.71-0.92; under the benchmark's motion blur a
    # median of 0.50-0.68)
    steep_even: float = 0.70
    # Otherwise it is streaked when its cepstrum's deepest dip at a lag of min_lag to max_lag cells (px at
    # MEASURE_CELL) is this deep and at least shortest px long. A sharp grid's dips are at a stroke's width
    # (training photos as taken: down to 0.035 at 4.0 px and shorter; streaked by the benchmark, 0.016 and deeper
    # at 4.25 px and longer)
    dip: float = 0.016
    min_lag: float = 2.5
    shortest: float = 4.25
    max_lag: float = 0.5
    # The dip lies a little beyond the streak's own length (training photos streaked by known PSFs: 1.03-1.09
    # times it, more on the 12 MP pen-and-pencil photos), and a deconvolution too long rings: the length is taken
    # as this share of the dip's lag (chosen on the training photos under the benchmark's motion blur)
    length_share: float = 0.96
    # A whole picture's cepstrum (no grid found to measure on) dips less for its texture (the training photos whose
    # grid the benchmark's motion blur hid, at the 640 px working size: 0.011-0.043; but a sharp picture's texture
    # can dip as deep, so it is asked only where no grid is found) and looks as far as this share of its side
    picture_dip: float = 0.008
    picture_lag: float = 0.04
    floor: float = 1e-3  # the log spectrum's floor, a share of its peak: the sinc's zeros deep, the noise not endless
    line_band: float = 0.12  # a share of a cell either side of a grid line left out of the digits' evenness
    # The Wiener filter's noise-to-signal power: lower sharpens more and rings more (training photos under the
    # benchmark's motion blur, 0.01-0.03 tried: fewest cells of the wrong kind at this)
    wiener: float = 0.02


DEBLUR = DeblurConfig()


@dataclass(frozen=True)
class Streak:
    """A straight streak: ``length`` in px of the picture it was measured on, ``angle`` in degrees from the
    x axis towards y (image coordinates, 0-180), and ``dip``, how clearly it showed (-1..0)."""

    length: float
    angle: float
    dip: float

    def scaled(self, k: float) -> Streak:
        """The same streak in a picture ``k`` times as large."""
        return Streak(self.length * k, self.angle, self.dip)


def line_psf(length: float, angle: float) -> np.ndarray:
    """A streak of ``length`` px at ``angle`` degrees as a normalised kernel (odd side, centred), drawn
    with sub-pixel ends so that any real length has its own kernel."""
    side = int(np.ceil(length)) // 2 * 2 + 3
    k = np.zeros((side, side), np.float32)
    c = (side - 1) / 2
    u = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    n = max(2, int(np.ceil(length * 4)))
    for t in np.linspace(-length / 2, length / 2, n):
        x, y = c + t * u[0], c + t * u[1]
        x0, y0 = int(np.floor(x)), int(np.floor(y))
        fx, fy = x - x0, y - y0
        k[y0, x0] += (1 - fx) * (1 - fy)
        k[y0, x0 + 1] += fx * (1 - fy)
        k[y0 + 1, x0] += (1 - fx) * fy
        k[y0 + 1, x0 + 1] += fx * fy
    return k / k.sum()


@lru_cache(maxsize=8)
def _digit_band(shape: tuple[int, int], cell: float, margin: float) -> np.ndarray:
    """A weight over a grid of ``cell`` px a cell and ``margin`` px around it: 1 in the cells' middles, 0 on
    and near the grid lines, tapered, and faded towards the picture's edges. The lines run only across and
    down, so they would pull a streak's direction to theirs; the digits' strokes run every way."""
    def axis(n: int) -> np.ndarray:
        pos = (np.arange(n) - margin) % cell / cell
        away = np.minimum(pos, 1 - pos)  # 0 on a line, 0.5 in a cell's middle
        ramp = np.clip((away - DEBLUR.line_band) / 0.08, 0.0, 1.0)
        return (ramp * np.hanning(n)).astype(np.float32)
    band = np.outer(axis(shape[0]), axis(shape[1]))
    band.setflags(write=False)
    return band


def _even(square: np.ndarray, cell: int, margin: int) -> bool:
    """Whether the grid's gradients are even in every direction, across its lines (``DEBLUR.uneven_grid``) or in
    its digits (``DEBLUR.uneven``): not streaked. Measured on every pixel of a grid of about MEASURE_CELL px a
    cell, every other (or more) of a larger one: the stop most pictures take, at the cost of two Sobels."""
    step = max(1, round(cell / MEASURE_CELL))
    view = np.ascontiguousarray(square[::step, ::step])
    gx = cv2.Sobel(view, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(view, cv2.CV_32F, 0, 1, ksize=3)
    if _tensor(gx, gy)[0] < DEBLUR.uneven_grid:  # a streak along the lines across or down stands out most here
        return False
    keep = _digit_band(view.shape, cell / step, margin / step)
    if _tensor(gx * keep, gy * keep)[0] < DEBLUR.uneven:  # the digits: a streak in any direction
        return False
    m, n = round(margin / step), round(9 * cell / step)
    # every other pixel of every other row: as many steep edges to rank, at a quarter of the sorting
    return _steepness(gx[m: m + n: 2, m: m + n: 2], gy[m: m + n: 2, m: m + n: 2]) >= DEBLUR.steep_even


def _steepness(gx: np.ndarray, gy: np.ndarray) -> float:
    """How steep the steepest edges are in the least steep of four directions (across x, y and both diagonals)
    over the steepest: near 1 for a sharp picture or one merely out of focus. Each direction's is its
    gradient's 8th-power mean (8th root): the steepest edges outweigh the rest, as a high percentile would,
    without sorting."""
    k = np.float32(1.0 / (float(np.abs(gx).max()) + float(np.abs(gy).max()) + 1e-6))  # no float32 overflow
    gx, gy = gx * k, gy * k
    c = np.float32(np.sqrt(0.5))
    steep = []
    for g in (gx, gy, c * (gx + gy), c * (gx - gy)):
        g4 = (g * g) ** 2
        steep.append(float(np.dot(g4.ravel(), g4.ravel())))
    return (min(steep) / max(max(steep), 1e-30)) ** 0.125


def _tensor(gx: np.ndarray, gy: np.ndarray) -> tuple[float, float]:
    """The gradients' energy in their weakest direction over their strongest (0..1, their structure tensor),
    and that weakest direction in degrees (0-180): a streak's, when it is streaked."""
    a, b, c = (float(np.dot(u.ravel(), v.ravel())) for u, v in ((gx, gx), (gx, gy), (gy, gy)))
    root = np.sqrt(((a - c) / 2) ** 2 + b * b)
    hi, lo = (a + c) / 2 + root, (a + c) / 2 - root
    angle = (np.degrees(0.5 * np.arctan2(2 * b, a - c)) + 90.0) % 180.0
    return (lo / hi if hi > 0 else 1.0), float(angle)


def _small(square: np.ndarray, cell: int) -> tuple[np.ndarray, float]:
    """``square`` at MEASURE_CELL px a cell (float32), and the factor back to ``square``'s pixels."""
    k = MEASURE_CELL / cell
    if abs(k - 1) < 1e-3:
        return square.astype(np.float32), 1.0
    h, w = square.shape[:2]
    small = cv2.resize(square, (max(8, round(w * k)), max(8, round(h * k))), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32), 1 / k


def measure_streak(square: np.ndarray, cell: int, margin: int = 0) -> Streak | None:
    """The streak of ``square`` (a grid seen square-on, ``cell`` px a cell, ``margin`` px of page around it,
    grey), in its pixels; None when it shows none.

    A grid whose gradients are even in every direction, across its lines and in its digits alike
    (``DEBLUR.uneven_grid``, ``DEBLUR.uneven``), with edges as steep along the diagonals as across
    (``DEBLUR.steep_even``), is not
    streaked: most pictures stop there. Otherwise the streak is
    read from the cepstrum (the inverse transform of the log spectrum): a line PSF's spectrum is a sinc
    whose zeros repeat at the inverse of its length, and their log is a deep negative peak at exactly
    the streak's length and direction. Its lag is the length; one no longer than a stroke is wide
    (``DEBLUR.shortest``), or too shallow (``DEBLUR.dip``), is no streak worth undoing.
    """
    if _even(square, cell, margin):
        return None
    img, back = _small(square, cell)
    found = _cepstrum_dip(img, DEBLUR.max_lag * MEASURE_CELL, DEBLUR.dip)
    if found is None or found.length < DEBLUR.shortest:
        return None
    return found.scaled(back * DEBLUR.length_share)


def _cepstrum_dip(img: np.ndarray, longest: float, depth: float) -> Streak | None:
    """The deepest dip of ``img``'s cepstrum (float32) at a lag of ``DEBLUR.min_lag`` to ``longest`` px, as a streak of
    that lag and direction; None when it is shallower than ``depth`` or at the shortest lag (a stroke's width)."""
    if min(img.shape[:2]) < 2 * longest + 2:  # a sliver of a picture: no room for a streak that long
        return None
    img = img[: img.shape[0] // 2 * 2, : img.shape[1] // 2 * 2]  # even sides: the cepstrum's centre is a pixel
    h, w = img.shape
    win = np.outer(np.hanning(h), np.hanning(w)).astype(np.float32)
    spectrum = np.abs(np.fft.rfft2((img - img.mean()) * win))
    peak = float(spectrum.max())
    if peak <= 0:  # a flat picture: nothing in it to be streaked
        return None
    cep = np.fft.fftshift(np.fft.irfft2(np.log(spectrum + DEBLUR.floor * peak), (h, w))).astype(np.float32)
    theta = np.radians(np.arange(0.0, 180.0, 1.0))[:, None]
    lags = np.arange(DEBLUR.min_lag, longest + 0.01, 0.25)[None, :]
    ray = cv2.remap(cep, (w // 2 + lags * np.cos(theta)).astype(np.float32),
                    (h // 2 + lags * np.sin(theta)).astype(np.float32), cv2.INTER_LINEAR)
    a, r = np.unravel_index(int(np.argmin(ray)), ray.shape)
    dip = float(ray[a, r])
    if dip > -depth or r == 0:  # at the shortest lag tried: the strokes' own width, not a streak
        return None
    return Streak(float(lags[0, r]), float(np.degrees(theta[a, 0])), dip)


def picture_streak(small: np.ndarray) -> Streak | None:
    """The streak of a whole picture (grey, at the grid search's working size), in its pixels; None when it
    shows none.

    Where no grid is found there are no cells to measure a streak in, but a streak blurs the whole
    picture alike, paper, print and table: its cepstrum dips at the streak as a grid's does, less deeply
    (``DEBLUR.picture_dip``) for the picture's own texture. Up to ``DEBLUR.picture_lag`` of the picture's longer side
    long.
    """
    longest = DEBLUR.picture_lag * max(small.shape[:2])
    found = _cepstrum_dip(small.astype(np.float32), longest, DEBLUR.picture_dip)
    return None if found is None else found.scaled(DEBLUR.length_share)


def deconvolve(square: np.ndarray, streak: Streak, nsr: float = DEBLUR.wiener) -> np.ndarray:
    """``square`` with ``streak`` taken back out (Wiener filter with its line PSF), same shape and dtype.

    The picture is mirrored at its edges first, so the filter's wrap-around does not ring at the border, and
    on to sides the FFT factors well (a prime side is many times slower).
    """
    pad = int(np.ceil(streak.length)) + 4
    h, w = square.shape[:2]
    down, right = (cv2.getOptimalDFTSize(n + 2 * pad) - n - pad for n in (h, w))
    img = cv2.copyMakeBorder(square.astype(np.float32), pad, down, pad, right, cv2.BORDER_REFLECT)
    k = line_psf(streak.length, streak.angle)
    psf = np.zeros(img.shape, np.float32)
    s = k.shape[0]
    psf[:s, :s] = k
    psf = np.roll(psf, (-(s // 2), -(s // 2)), axis=(0, 1))
    otf = np.fft.rfft2(psf)
    out = np.fft.irfft2(np.fft.rfft2(img) * np.conj(otf) / (np.abs(otf) ** 2 + nsr), img.shape)
    out = out[pad: pad + h, pad: pad + w]
    if square.dtype == np.uint8:
        return np.clip(out + 0.5, 0, 255).astype(np.uint8)
    return out.astype(square.dtype)


def unstreak(square: np.ndarray, cell: int, margin: int = 0) -> np.ndarray:
    """``square`` (a grid seen square-on, ``cell`` px a cell, ``margin`` px of page around it) with a shaken
    camera's streak undone; a grid that is not streaked is returned as it is (the same array)."""
    streak = measure_streak(square, cell, margin)
    if streak is None:
        return square
    return deconvolve(square, streak)
