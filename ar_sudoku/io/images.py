"""Photos from files or bytes: decoded once, as cheaply as the caller's need allows.

A 12 MP JPEG decodes several times faster at half size than in full, in
grey or in colour (libjpeg scales in the DCT, and JPEG keeps its colour at
half size anyway). Reading a puzzle needs colour (a
blue or red pen tells entries from print) but not 12 MP: the grid is
searched at 640 px and cells are cut at 32-64 px each. So a photo that is
only read is decoded at half size when that still leaves a long side of at
least ``MIN_SIDE``; one that will be annotated is decoded in full.

libpng prints its own line on the process's stderr (``libpng error: IHDR: CRC error``) when a PNG
is damaged, before OpenCV hands back nothing; that line is caught here and becomes part of ours.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError

MIN_SIDE = 1600  # the long side a reduced decode must keep
MAX_PIXELS = 50_000_000  # what a photo may declare unless the caller says more (the web API's limit too)


class ImageError(ArSudokuError, ValueError):
    """A photo that cannot be read: missing, empty, or not an image."""


class TooManyPixels(ImageError):
    """A photo whose header declares more pixels than the caller reads (a small file can decode to gigabytes)."""

    def __init__(self, width: int, height: int, limit: int):
        super().__init__(f"{width}×{height} pixels ({width * height / 1e6:.0f} MP) is more than the "
                         f"{limit / 1e6:g} MP read")
        self.width, self.height, self.limit = width, height, limit


def jpeg_size(data: bytes) -> tuple[int, int]:
    """Walk the JPEG's segments up to the first SOF marker, which holds the size."""
    pos, n = 2, len(data)
    while pos + 4 <= n:
        if data[pos] != 0xFF:
            return 0, 0  # not where a marker should be: let the decoder judge
        code = data[pos + 1]
        if code == 0xFF:  # fill byte
            pos += 1
            continue
        if code in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            pos += 2
            continue
        if code in (0xD9, 0xDA):  # end of image, start of scan: no SOF before it
            return 0, 0
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC) and pos + 9 <= n:
            h, w = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return w, h
        pos += 2 + length
    return 0, 0


def webp_size(data: bytes) -> tuple[int, int]:
    """A WebP's size from its first chunk (lossy, lossless or extended)."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25:
        b = int.from_bytes(data[21:25], "little")
        return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return 0, 0


def declared_size(data: bytes | np.ndarray) -> tuple[int, int]:
    """(width, height) as a PNG, JPEG, WebP or BMP header declares it, before anything is decoded; (0, 0) for
    another kind or a header that does not say (OpenCV's own pixel limit then applies)."""
    head = bytes(data[:1 << 16]) if isinstance(data, np.ndarray) else data
    if head[:3] == b"\xff\xd8\xff":
        size = jpeg_size(head)
        if size == (0, 0) and len(data) > len(head):  # the SOF may follow large metadata
            size = jpeg_size(data.tobytes() if isinstance(data, np.ndarray) else data)
        return size
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        w, h = struct.unpack(">II", head[16:24])
        return w, h
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return webp_size(head)
    if head[:2] == b"BM" and len(head) >= 26:
        w, h = struct.unpack("<ii", head[18:26])  # BITMAPINFOHEADER; a negative height is stored top-down
        return abs(w), abs(h)
    return 0, 0


@dataclass(frozen=True)
class Photo:
    """A decoded photo; ``scale`` turns its pixel coordinates into the file's (2 after a half-size decode)."""

    image: np.ndarray
    scale: float = 1.0


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_STDERR = threading.Lock()  # one decode at a time borrows the process's stderr


@contextlib.contextmanager
def c_library_lines(catch: bool = True) -> Iterator[list[str]]:
    """The lines a C library prints on the process's stderr (descriptor 2) while the block runs, kept
    (in the list yielded, once it ends) instead of printed: libpng's own error line would come before
    ours. Python's ``sys.stderr`` is flushed first, so nothing of ours is caught."""
    said: list[str] = []
    if not catch:
        yield said
        return
    with _STDERR, tempfile.TemporaryFile() as caught:
        with contextlib.suppress(ValueError, OSError):
            sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            yield said
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            said += [ln.strip() for ln in caught.read().decode("utf-8", "replace").splitlines() if ln.strip()]


def _library_reason(lines: list[str]) -> str:
    """libpng's own words, as a reason in our line (``libpng error: IHDR: CRC error`` -> ``IHDR: CRC error``)."""
    if not lines:
        return ""
    return f": {lines[-1].removeprefix('libpng error:').strip()}"


def decode_image(data: bytes | np.ndarray, full: bool = True, max_pixels: int | None = None) -> Photo:
    """Decode image bytes (JPEG, PNG, ...) to BGR; unless ``full``, at half size when that loses nothing.

    With ``max_pixels``, a photo that declares more is refused before it is decoded (:class:`TooManyPixels`).
    """
    buf = np.frombuffer(data, np.uint8) if isinstance(data, bytes | bytearray) else data
    if buf.size == 0:
        raise ImageError("empty file")
    w, h = declared_size(buf)
    if max_pixels is not None and w * h > max_pixels:
        raise TooManyPixels(w, h, max_pixels)
    img = None
    png = bytes(buf[:8]) == PNG_SIGNATURE
    # a photo whose header says a half-size decode would be too small is decoded once, in full
    if not full and (w == 0 or (max(w, h) + 1) // 2 >= MIN_SIDE):
        with c_library_lines(png):
            img = _imdecode(buf, cv2.IMREAD_REDUCED_COLOR_2)  # None too when too small to halve (1x1)
        if img is not None and max(img.shape[:2]) >= MIN_SIDE:
            if max_pixels is not None and 4 * img.shape[0] * img.shape[1] > max_pixels:
                raise TooManyPixels(2 * img.shape[1], 2 * img.shape[0], max_pixels)
            return Photo(img, 2.0)
    with c_library_lines(png) as said:
        img = _imdecode(buf, cv2.IMREAD_COLOR)
    if img is None:
        if png and said:
            raise ImageError(f"a damaged PNG{_library_reason(said)}")
        raise ImageError("not an image OpenCV can read (corrupt, unknown format, or too large)")
    if max_pixels is not None and img.shape[0] * img.shape[1] > max_pixels:  # a kind whose header was not read
        raise TooManyPixels(img.shape[1], img.shape[0], max_pixels)
    return Photo(img)


def _imdecode(buf: np.ndarray, flags: int) -> np.ndarray | None:
    """OpenCV's decode, None for what it cannot decode (a size it refuses it says over several lines)."""
    try:
        return cv2.imdecode(buf, flags)
    except cv2.error:
        return None


def read_image(path: Path, full: bool = True, max_pixels: int | None = None) -> Photo:
    """Load a photo or raise :class:`ImageError` with a one-line reason (without the path)."""
    if not path.exists():
        raise ImageError("no such file")
    if path.is_dir():
        raise ImageError("is a folder")
    try:
        data = np.fromfile(str(path), np.uint8)
    except OSError as exc:
        raise ImageError(f"cannot read ({exc.strerror})") from exc
    return decode_image(data, full, max_pixels)
