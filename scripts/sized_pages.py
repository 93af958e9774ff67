"""Rendered, photographed-looking pages of one 4x4, 6x6 or 16x16 puzzle (issue 24), for
``scripts/eval_page.py`` and ``tests/test_sizes_photo.py``.

A page is a generated puzzle printed with a TrueType face the symbol model never saw in training
(``PAGE_FONTS``: DejaVu and Liberation, left out by ``scripts/train_symbols.py``), in the page's symbol
style, thin cell lines and thick box lines; then turned by a random perspective, bowed a little, lit
unevenly, blurred and noised as a camera would. Everything follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.solver import Box
from ar_sudoku.vision.render import draw_grid_lines
from ar_sudoku.vision.sizes import styled
from ar_sudoku.vision.synth import background, bend

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
PAGE_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuSansCondensed.ttf",
              "LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf", "LiberationSerif-Regular.ttf",
              "LiberationMono-Regular.ttf")
KINDS: tuple[tuple[Box, str], ...] = (((2, 2), "1-9"), ((2, 3), "1-9"), ((3, 2), "1-9"), ((4, 4), "1-9A-G"),
                                      ((4, 4), "0-F"), ((4, 4), "1-16"))


def page_fonts() -> list[Path]:
    """The faces pages are printed in (those installed here)."""
    return [d / f for f in PAGE_FONTS for d in FONT_DIRS if (d / f).exists()]


@dataclass(frozen=True)
class SizedPage:
    image: np.ndarray
    givens: str  # the solver's symbols
    box: Box
    style: str
    corners: np.ndarray


def _glyph(img: np.ndarray, text: str, centre: tuple[float, float], height: float, width: float,
           font: Path) -> None:
    """``text`` in black, its ink box ``height`` px tall (no wider than ``width``), centred on ``centre``."""
    from PIL import Image, ImageDraw, ImageFont

    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    face = ImageFont.truetype(str(font), 40)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=face)
    k = min(height / max(1, y1 - y0), width / max(1, x1 - x0))
    face = ImageFont.truetype(str(font), max(6, round(40 * k)))
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=face)
    draw.text((centre[0] - (x0 + x1) / 2, centre[1] - (y0 + y1) / 2), text, fill=(0, 0, 0), font=face)
    img[:] = np.asarray(pil)


def printed(givens: str, box: Box, style: str, cell: int, font: Path, faint: int = 0) -> np.ndarray:
    """The puzzle as printed: white paper, 4 px around its outer edge; ``faint``: the cell lines' grey level
    (0: black as the box lines), a tuning knob for the line search (issue 58), never on in the reported pages."""
    n = box[0] * box[1]
    side = n * cell
    img = np.full((side + 8, side + 8, 3), 255, np.uint8)
    for i, ch in enumerate(styled(givens, style)):
        if ch != ".":
            r, c = divmod(i, n)
            _glyph(img, ch, (4 + (c + 0.5) * cell, 4 + (r + 0.5) * cell), cell * 0.5, cell * 0.8, font)
    draw_grid_lines(img, (4, 4), cell, box=box)
    if faint:
        n, thin = box[0] * box[1], max(1, cell // 30)
        for k in range(1, n):
            off = 4 + k * cell
            if k % box[1]:
                cv2.line(img, (off, 4), (off, 4 + n * cell), (faint, faint, faint), thin)
            if k % box[0]:
                cv2.line(img, (4, off), (4 + n * cell, off), (faint, faint, faint), thin)
    return img


def sized_page(box: Box, style: str, rng: random.Random, size: tuple[int, int] = (1280, 960),
               faint: int = 0) -> SizedPage:
    """One generated puzzle of ``box`` printed in ``style`` and photographed (seeded by ``rng``; ``faint``: see
    :func:`printed`)."""
    n = box[0] * box[1]
    puzzle = generate("easy" if n == 16 else rng.choice(["easy", "medium"]), seed=rng.randrange(1 << 30),
                      box=box).puzzle
    cell = {4: 90, 6: 70, 9: 45, 16: 36}[n]
    side = n * cell
    font = rng.choice(page_fonts())
    pad, head = 60, 70
    width, height = side + 2 * pad, side + head + 2 * pad
    sheet = np.full((height, width, 3), 246, np.uint8)
    cv2.putText(sheet, rng.choice(["SUDOKU", "Super Sudoku", "Kids' puzzle", "Brain games"]), (pad, head - 15),
                cv2.FONT_HERSHEY_DUPLEX, 1.3, (30, 30, 30), 2, cv2.LINE_AA)
    x, y = pad, head + pad
    sheet[y - 4:y + side + 4, x - 4:x + side + 4] = printed(puzzle, box, style, cell, font, faint)
    flat = np.float32([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
    w, h = size
    k = rng.uniform(0.8, 0.95) * min(w / width, h / height)
    cx, cy = w / 2 + rng.uniform(-0.03, 0.03) * w, h / 2 + rng.uniform(-0.03, 0.03) * h
    src = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    dst = np.float32([[cx + (sx - width / 2) * k, cy + (sy - height / 2) * k] for sx, sy in src])
    dst += np.float32([[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]) * 0.05 * k * height
    hmat = cv2.getPerspectiveTransform(src, dst)
    frame = background((w, h), seed=rng.randrange(1000))
    warped = cv2.warpPerspective(sheet, hmat, (w, h), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full((height, width), 255, np.uint8), hmat, (w, h)) > 0
    frame[inside] = warped[inside]
    corners = cv2.perspectiveTransform(flat[None], hmat)[0]
    bow = rng.uniform(0.0, 0.01)
    if bow > 0.002:  # a page not quite flat: its middle bowed by up to 1% of the grid's side
        frame, _ = bend(frame, corners, bow, axis=rng.randrange(2))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = np.cos(angle) * xx / w + np.sin(angle) * yy / h
    light = 1.0 - rng.uniform(0.1, 0.35) * (ramp - ramp.min()) / max(1e-6, float(ramp.max() - ramp.min()))
    out = frame.astype(np.float32) * light[..., None]
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.2))
    out += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 6), out.shape)
    return SizedPage(np.clip(out, 0, 255).astype(np.uint8), puzzle, box, style, corners)
