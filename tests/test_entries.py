"""The entry-digit reader: crops re-centred and re-scaled on the ink, and the shipped model reading them."""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from ar_sudoku.vision import entries as entries_mod
from ar_sudoku.vision.entries import FIT, N_CLASSES, SIZE, EntryReader, entry_crops
from ar_sudoku.vision.kinds import CELL, MARGIN

SIDE = 9 * CELL + 2 * MARGIN  # the rectified grid of kinds.warp_views_grid


@pytest.fixture(scope="module")
def ereader() -> EntryReader:
    return EntryReader()


def _grid(paper: int = 225, ink: int = 50) -> np.ndarray:
    """A rectified empty grid as warp_views_grid gives it: thin cell lines, thick box lines."""
    img = np.full((SIDE, SIDE), paper, np.uint8)
    for k in range(10):
        p = MARGIN + k * CELL
        t = 4 if k % 3 == 0 else 2
        cv2.line(img, (p, MARGIN), (p, SIDE - MARGIN), ink, t)
        cv2.line(img, (MARGIN, p), (SIDE - MARGIN, p), ink, t)
    return img


def _ink_box(crop: np.ndarray) -> tuple[float, float, int, int]:
    """Centre (x, y) and size (w, h) of the crop's ink."""
    ys, xs = np.nonzero(crop > 0.2)
    return (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2, int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1


def _hand_fonts() -> list:
    pytest.importorskip("PIL")
    from pathlib import Path

    from train_digits import HAND_FONT_DIRS, nine_digits

    fonts = [p for p in sorted(Path("/usr/share/fonts").rglob("*")) if p.suffix.lower() in (".ttf", ".otf")
             and any(d in p.parts for d in HAND_FONT_DIRS) and nine_digits(p)]
    if not fonts:
        pytest.skip("no handwriting fonts installed (see scripts/train_cells.py)")
    return fonts


def _write(img: np.ndarray, cell: int, digit: int, font_path, dx: float, dy: float, gray: int) -> None:
    """A font digit about 0.6 of a cell high, its box centred (dx, dy) px off the cell's centre."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(str(font_path), 48)
    layer = Image.new("L", (120, 120), 0)
    ImageDraw.Draw(layer).text((20, 10), str(digit), fill=255, font=font)
    a = np.asarray(layer)
    ys, xs = np.nonzero(a > 40)
    glyph = a[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1].astype(np.float32) / 255
    f = 0.6 * CELL / glyph.shape[0]
    glyph = cv2.resize(glyph, (max(1, round(glyph.shape[1] * f)), round(glyph.shape[0] * f)))
    r, c = divmod(cell, 9)
    x = round(MARGIN + (c + 0.5) * CELL + dx - glyph.shape[1] / 2)
    y = round(MARGIN + (r + 0.5) * CELL + dy - glyph.shape[0] / 2)
    sub = img[y: y + glyph.shape[0], x: x + glyph.shape[1]].astype(np.float32)
    img[y: y + glyph.shape[0], x: x + glyph.shape[1]] = (sub * (1 - glyph) + gray * glyph).astype(np.uint8)


def test_an_off_centre_digit_comes_out_centred_and_scaled():
    img = _grid()
    cells = [10, 40, 70]
    for cell, (dx, dy) in zip(cells, [(-12, -10), (10, 8), (0, 12)]):
        r, c = divmod(cell, 9)
        x = round(MARGIN + (c + 0.5) * CELL + dx - 10)
        y = round(MARGIN + (r + 0.5) * CELL + dy + 13)
        cv2.putText(img, "7", (x, y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 1.0, 60, 2, cv2.LINE_AA)
    crops = entry_crops(img, cells)
    assert crops.shape == (3, SIZE, SIZE) and crops.dtype == np.float32
    for crop in crops:
        cx, cy, w, h = _ink_box(crop)
        assert abs(cx - (SIZE - 1) / 2) <= 1.5 and abs(cy - (SIZE - 1) / 2) <= 1.5
        assert FIT - 2 <= max(w, h) <= FIT + 1  # the longer side fills FIT, the grid lines are gone
        assert crop.max() == pytest.approx(1.0, abs=0.05)  # normalised to the stroke's own darkness


def test_pencil_and_pen_give_the_same_crop():
    pen, pencil = _grid(), _grid()
    for img, gray in ((pen, 30), (pencil, 160)):
        cv2.putText(img, "4", (MARGIN + 4 * CELL + 18, MARGIN + 4 * CELL + 45), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                    1.2, gray, 3, cv2.LINE_AA)
    a, b = entry_crops(pen, [40])[0], entry_crops(pencil, [40])[0]
    assert np.abs(a - b).mean() < 0.05


def test_the_shipped_model_reads_handwriting_fonts(ereader: EntryReader):
    fonts = _hand_fonts()
    rng = random.Random(3)
    truth, crops = [], []
    for k, font in enumerate(fonts):
        img = _grid()
        digits = [(i + k) % 9 + 1 for i in range(81)]
        for i, d in enumerate(digits):
            _write(img, i, d, font, rng.uniform(-7, 7), rng.uniform(-6, 6), rng.choice([40, 70, 110]))
        img = cv2.GaussianBlur(img, (0, 0), 0.7)
        cells = list(range(0, 81, 4))
        crops.append(entry_crops(img, cells))
        truth += [digits[i] for i in cells]
    probs = ereader.probabilities(np.concatenate(crops))
    assert probs.shape == (len(truth), N_CLASSES)
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    acc = float((probs.argmax(axis=1) + 1 == np.array(truth)).mean())
    assert acc >= 0.85, f"read {acc:.2%} of {len(truth)} font digits"


def test_off_centre_writing_reads_as_centred(ereader: EntryReader):
    fonts = _hand_fonts()
    img = _grid()
    for d in range(1, 10):
        _write(img, d - 1, d, fonts[0], 0, 0, 50)  # row 0: centred
        _write(img, 9 + d - 1, d, fonts[0], -9, 8, 50)  # row 1: low and to the left
    p = ereader.probabilities(entry_crops(img, list(range(18))))
    assert (p[:9].argmax(axis=1) == p[9:].argmax(axis=1)).mean() >= 8 / 9


def test_no_crops_no_probabilities(ereader: EntryReader):
    assert ereader.probabilities(np.zeros((0, SIZE, SIZE), np.float32)).shape == (0, N_CLASSES)
    assert entry_crops(_grid(), []).shape == (0, SIZE, SIZE)
    assert ereader.meta["input"]["shape"][-1] == SIZE


def test_the_grid_geometry_is_the_cell_kind_readers():
    """entries.py holds kinds.CELL and MARGIN as its own constants (an import would be a cycle)."""
    assert (entries_mod.CELL, entries_mod.MARGIN) == (CELL, MARGIN)
