"""Bytes from the network, checked before any decoder sees them.

An upload is hostile until shown otherwise: it may be empty, not an image, or
a small file that decodes to gigabytes (a 2 MB JPEG can declare 60000×60000
pixels). So the kind is told from the first bytes and the size from the
header (JPEG SOF, PNG IHDR, WebP VP8/VP8L/VP8X) before OpenCV decodes
anything; a decode that still fails is a 415 with one line, never a traceback.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ar_sudoku.io.images import ImageError, Photo, decode_image, jpeg_size, webp_size
from ar_sudoku.sudoku.written import Corrections, parse_corrections


class UploadError(Exception):
    """A request the client can fix: an HTTP status and one line saying what."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Header:
    kind: str  # jpeg, png, webp, bmp, tiff or "" (left to OpenCV)
    width: int = 0  # 0 when the header does not say (OpenCV's own pixel limit still applies)
    height: int = 0


def sniff(data: bytes) -> Header:
    """The image kind and declared size from the first bytes; raises UploadError for what is plainly no image."""
    if not data:
        raise UploadError(400, "the photo is empty (0 bytes)")
    if data[:3] == b"\xff\xd8\xff":
        return Header("jpeg", *jpeg_size(data))
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        w, h = struct.unpack(">II", data[16:24]) if len(data) >= 24 else (0, 0)
        return Header("png", w, h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return Header("webp", *webp_size(data))
    if data[:2] == b"BM":
        return Header("bmp")
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return Header("tiff")
    if data[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1", b"ftyphevc", b"ftypavif"):
        raise UploadError(415, "HEIC/AVIF photos cannot be read here; send a JPEG or PNG "
                               "(on an iPhone: Settings > Camera > Formats > Most Compatible)")
    head = data[:512]
    if head.lstrip().startswith((b"{", b"[", b"<")) or all(32 <= b < 127 or b in (9, 10, 13) for b in head):
        raise UploadError(415, "that is text, not a photo; send a JPEG or PNG image")
    return Header("")


def decode_upload(data: bytes, *, full: bool, max_pixels: int) -> Photo:
    """Check and decode an uploaded image, as ``ar-sudoku image`` would decode the same file."""
    head = sniff(data)
    if head.width * head.height > max_pixels:
        raise UploadError(413, f"the image is {head.width}×{head.height} pixels; "
                               f"at most {max_pixels / 1e6:.0f} megapixels are read")
    try:
        photo = decode_image(data, full=full)
    except ImageError as exc:
        why = f"the {head.kind.upper()} is truncated or corrupt" if head.kind else \
            "not an image (send a JPEG, PNG, WebP, BMP or TIFF)"
        raise UploadError(415, f"cannot read the photo: {why}") from exc
    h, w = photo.image.shape[:2]
    if w * h * photo.scale**2 > max_pixels:  # a kind whose header was not read
        raise UploadError(413, f"the image is {w}×{h} pixels; at most {max_pixels / 1e6:.0f} megapixels are read")
    return photo


def parse_sets(items: list[str]) -> Corrections:
    """``set`` fields: ``r3c5=7`` the first puzzle read's, ``1:r3c5=7`` puzzle 1's (as ``image --set``)."""
    try:
        return parse_corrections(items)
    except ValueError as exc:
        raise UploadError(400, f"set={exc}") from None


def frame_array(data: bytes, max_pixels: int) -> np.ndarray:
    """A live frame (a JPEG from the page) as a BGR array."""
    return decode_upload(data, full=True, max_pixels=max_pixels).image
