"""Photos are decoded once, at the size the reading needs."""

import cv2
import numpy as np

from ar_sudoku.io import images
from ar_sudoku.io.images import decode_image


def _jpeg(w: int, h: int) -> np.ndarray:
    img = np.full((h, w, 3), 200, np.uint8)
    cv2.putText(img, "5", (w // 3, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 4, (0, 0, 0), 8)
    return cv2.imencode(".jpg", img)[1].ravel()


def test_a_photo_too_small_to_halve_is_decoded_once_in_full_and_a_large_one_once_at_half_size(monkeypatch):
    calls = []
    real = cv2.imdecode

    def counted(buf, flags):
        calls.append(flags)
        return real(buf, flags)

    monkeypatch.setattr(images.cv2, "imdecode", counted)
    small = decode_image(_jpeg(1280, 960), full=False)  # a newspaper photo: halved it would be under MIN_SIDE
    assert small.scale == 1.0 and small.image.shape == (960, 1280, 3) and calls == [cv2.IMREAD_COLOR]
    calls.clear()
    large = decode_image(_jpeg(4000, 3000), full=False)  # a 12 MP phone photo
    assert large.scale == 2.0 and large.image.shape == (1500, 2000, 3) and calls == [cv2.IMREAD_REDUCED_COLOR_2]
    calls.clear()
    assert decode_image(_jpeg(4000, 3000), full=True).image.shape == (3000, 4000, 3) and calls == [cv2.IMREAD_COLOR]
