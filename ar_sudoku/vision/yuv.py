"""Frames kept as the video decoder hands them over: 8-bit I420 (Y at full size, then U and V at half).

A headless recording reads H.264 and writes H.264, and both ends are I420. Turning every
frame into BGR after decoding and back into I420 before encoding is a full pass over
the frame each way (ten times the pixels at 4K), on the core that the frame loop shares
with the decoder and the encoder. An :class:`I420` frame skips both: detection and tracking take
its grey straight from the Y plane, the overlay is drawn into its planes
(``ar.overlay``), and the encoder takes its buffer as it is. BGR is made only where
colour is needed (the kinds reader's ink colours, on frames that read cells), once.

The conversions are BT.601 with limited range (Y 16-235), as OpenCV's I420 conversions
and our recordings' colour tags are; grey from Y differs from ``cvtColor(bgr, GRAY)`` of the
same frame by a level or two of rounding.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

# Y (16..235) to grey (0..255): grey = 0.299 R + 0.587 G + 0.114 B is exactly 255/219 (Y - 16) in BT.601
_GAIN = 255 / 219


def _y_to_gray(y: np.ndarray) -> np.ndarray:
    """Limited-range Y to full-range grey, rounded and clipped (one vectorised pass: quicker than a lookup table)."""
    return cv2.addWeighted(y, _GAIN, y, 0.0, -16 * _GAIN)


class I420:
    """One frame as a contiguous I420 buffer, ``(h * 3 // 2, w)`` uint8; ``w`` and ``h`` even.

    ``shape`` is the BGR frame's, (h, w, 3), so code that only asks a frame's size takes either.
    ``bgr()`` and ``gray()`` are made on first use and kept.
    """

    __slots__ = ("data", "shape", "_bgr", "_gray")

    def __init__(self, data: np.ndarray):
        h = data.shape[0] * 2 // 3
        w = data.shape[1]
        if data.dtype != np.uint8 or data.ndim != 2 or h * 3 // 2 != data.shape[0] or h % 2 or w % 2:
            raise ValueError(f"not an I420 buffer of even size: {data.shape} {data.dtype}")
        self.data = np.ascontiguousarray(data)
        self.shape = (h, w, 3)
        self._bgr: np.ndarray | None = None
        self._gray: np.ndarray | None = None

    @classmethod
    def from_bgr(cls, bgr: np.ndarray) -> I420:
        return cls(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420))

    @property
    def size(self) -> tuple[int, int]:
        """(width, height), as OpenCV and the sinks take sizes."""
        return self.shape[1], self.shape[0]

    def planes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Y (h, w), U and V (h/2, w/2): writable views into ``data``, for drawing."""
        h, w = self.shape[:2]
        # each chroma plane is (h/2 x w/2) pixels packed one after the other behind Y: by byte offset, since
        # a height that is not a multiple of 4 (482) puts the V plane's start in the middle of a row of w
        flat = self.data.reshape(-1)
        n = (h // 2) * (w // 2)
        y = self.data[:h]
        u = flat[h * w: h * w + n].reshape(h // 2, w // 2)
        v = flat[h * w + n: h * w + 2 * n].reshape(h // 2, w // 2)
        return y, u, v

    def bgr(self) -> np.ndarray:
        """The frame in BGR (made once; drawing into the planes afterwards does not change it)."""
        if self._bgr is None:
            self._bgr = cv2.cvtColor(self.data, cv2.COLOR_YUV2BGR_I420)
        return self._bgr

    def gray(self) -> np.ndarray:
        """The full-size grey image, from the Y plane alone."""
        if self._gray is None:
            self._gray = _y_to_gray(self.data[: self.shape[0]])
        return self._gray

    def gray_every(self, k: int) -> np.ndarray:
        """The grey of every ``k``-th pixel of every ``k``-th row (a frame subsampled by a whole factor)."""
        return _y_to_gray(np.ascontiguousarray(self.data[: self.shape[0]: k, ::k]))


def as_bgr(frame: np.ndarray | I420) -> np.ndarray:
    """A BGR (or grey) image as it is; an I420 frame converted."""
    return frame.bgr() if isinstance(frame, I420) else frame


@lru_cache(maxsize=64)
def yuv_of(color: tuple[int, int, int]) -> tuple[int, int, int]:
    """A BGR colour's (Y, U, V), by the same conversion the frames use."""
    patch = cv2.cvtColor(np.full((2, 2, 3), color, np.uint8), cv2.COLOR_BGR2YUV_I420).ravel()
    return int(patch[0]), int(patch[4]), int(patch[5])
