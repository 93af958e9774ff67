"""A second, independent generator of 4x4, 6x6 and 16x16 pages (issue 58), for ``eval_page.py --sized-gen B``.

Never tuned on. It shares no drawing code with ``sized_pages.py`` (generator A: DejaVu and Liberation glyphs on
OpenCV's ``render.draw_grid_lines``, then a warp of its own): Pillow draws the whole page four times larger and
shrinks it, the rules are filled rectangles of other weights (hairline grey cell lines to heavy ones, box lines
of 2-7 px, a border as heavy or heavier, sometimes boxes shaded), the glyphs come from other faces (``FACES``: URW,
Noto, Roboto, Lato, Open Sans, FreeFont, TeX Gyre, set in their own proportions: no stretching to a box), sized
0.42-0.7 of a cell, and the camera is another (a turn of the page, a tilt along one axis, light from one side, a
soft focus, grain and JPEG). The puzzles have one solution (``sudoku.generator``), printed in the page's symbol
style (``sizes.styled``). Everything follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.solver import Box
from ar_sudoku.vision.sizes import styled

FACES = ("NimbusSans-Regular", "NimbusSans-Bold", "NimbusSansNarrow-Regular", "NimbusRoman-Regular",
         "C059-Roman", "P052-Roman", "URWGothic-Book", "URWBookman-Light", "NimbusMonoPS-Regular", "NotoSans-Regular",
         "NotoSans-Bold", "NotoSerif-Regular", "NotoSansMono-Regular", "Roboto-Regular", "Roboto-Bold",
         "Lato-Regular", "OpenSans-Regular", "FreeSans", "FreeSerif", "FreeSansBold", "texgyreheros-regular",
         "texgyretermes-regular", "texgyrecursor-regular", "Cantarell-Regular", "Carlito-Regular")
SUPER = 4  # drawn this many times larger, then shrunk


def faces() -> list[Path]:
    """The ``FACES`` installed here, in ``FACES``' order."""
    found: dict[str, Path] = {}
    for root in (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype")):
        if root.is_dir():
            for p in root.rglob("*"):
                if p.suffix.lower() in (".ttf", ".otf"):
                    found.setdefault(p.stem, p)
    return [found[n] for n in FACES if n in found]


@dataclass(frozen=True)
class PageB:
    """A photographed page: the photo (BGR), the puzzle in the solver's symbols, its boxes and style."""

    image: np.ndarray
    givens: str
    box: Box
    style: str


def _print(puzzle: str, box: Box, style: str, rng: random.Random, face: Path) -> tuple[Image.Image, int]:
    """The page, ``SUPER`` times larger, and the grid's side in its pixels."""
    n = box[0] * box[1]
    cell = {4: 110, 6: 90, 16: 44}[n] * SUPER
    side = n * cell
    pad = 70 * SUPER
    paper = tuple(rng.randint(232, 255) for _ in range(3))
    img = Image.new("RGB", (side + 2 * pad, side + 2 * pad + 40 * SUPER), paper)
    d = ImageDraw.Draw(img)
    x0, y0 = pad, pad + 40 * SUPER
    head = ImageFont.truetype(str(face), 30 * SUPER)
    d.text((pad, 12 * SUPER), rng.choice([f"{n} x {n}", "Mini Sudoku", "Sudoku Junior", "Mega Sudoku", "Puzzle"]),
           fill=(20, 20, 20), font=head)
    if rng.random() < 0.35:  # the boxes shaded like a chessboard
        tint = tuple(max(0, v - rng.randint(15, 35)) for v in paper)
        for br in range(n // box[0]):
            for bc in range(n // box[1]):
                if (br + bc) % 2:
                    d.rectangle([x0 + bc * box[1] * cell, y0 + br * box[0] * cell, x0 + (bc + 1) * box[1] * cell,
                                 y0 + (br + 1) * box[0] * cell], fill=tint)
    ink = rng.choice([(0, 0, 0), (30, 30, 30), (40, 40, 90)])
    size = rng.uniform(0.42, 0.7) * cell
    font = ImageFont.truetype(str(face), 100)
    tall = font.getbbox("8")
    font = ImageFont.truetype(str(face), max(8, int(100 * size / max(1, tall[3] - tall[1]))))
    narrow = font  # two-digit symbols set smaller, as a page sets them, to stay inside their cell
    wide = max(font.getlength(ch) for ch in ("10", "16", "8"))
    if wide > 0.8 * cell:
        narrow = ImageFont.truetype(str(face), max(8, int(font.size * 0.8 * cell / wide)))
    for i, ch in enumerate(styled(puzzle, style)):
        if ch != ".":
            r, c = divmod(i, n)
            d.text((x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), ch, fill=ink, font=narrow if len(ch) > 1 else font,
                   anchor="mm")
    thin = rng.uniform(0.7, 2.5) * SUPER
    thick = rng.uniform(max(2.0, thin / SUPER + 1.0), 7.0) * SUPER
    border = max(thick, rng.uniform(2.0, 9.0) * SUPER)
    grey = rng.choice([(0, 0, 0), (90, 90, 90), (140, 140, 140)])
    for k in range(n + 1):
        for across, step in ((True, box[1]), (False, box[0])):
            w = border if k in (0, n) else thick if k % step == 0 else thin
            colour = (0, 0, 0) if k % step == 0 else grey
            p = k * cell
            if across:  # a vertical line: columns, thick between boxes side by side
                d.rectangle([x0 + p - w / 2, y0 - border / 2, x0 + p + w / 2, y0 + side + border / 2], fill=colour)
            else:
                d.rectangle([x0 - border / 2, y0 + p - w / 2, x0 + side + border / 2, y0 + p + w / 2], fill=colour)
    return img, side


def sized_page_b(box: Box, style: str, rng: random.Random, size: tuple[int, int] = (1600, 1200)) -> PageB:
    """One generated puzzle of ``box`` printed in ``style`` by generator B and photographed."""
    n = box[0] * box[1]
    puzzle = generate("easy" if n == 16 else rng.choice(["easy", "medium"]), seed=rng.randrange(1 << 30),
                      box=box).puzzle
    fs = faces()
    big, _ = _print(puzzle, box, style, rng, fs[rng.randrange(len(fs))])
    page = cv2.cvtColor(np.asarray(big.resize((big.width // SUPER, big.height // SUPER), Image.Resampling.LANCZOS)),
                        cv2.COLOR_RGB2BGR)
    return PageB(_camera(page, rng, size), puzzle, box, style)


def _camera(page: np.ndarray, rng: random.Random, size: tuple[int, int]) -> np.ndarray:
    """The page on a table: turned, tilted along one axis, lit from one side, softly focused, grainy, JPEG."""
    w, h = size
    ph, pw = page.shape[:2]
    k = rng.uniform(0.75, 0.95) * min(w / pw, h / ph)
    turn = np.radians(rng.uniform(-8, 8))
    tilt = rng.uniform(-0.12, 0.12)  # one side of the page further away than the other
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]])
    pts = (src - [pw / 2, ph / 2]) * k
    pts[:, 1] *= 1 + tilt * np.sign(pts[:, 0]) * 0.5
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    dst = (pts @ rot.T + [w / 2 + rng.uniform(-30, 30), h / 2 + rng.uniform(-30, 30)]).astype(np.float32)
    hmat = cv2.getPerspectiveTransform(src, dst)
    table = np.empty((h, w, 3), np.uint8)
    table[:] = (rng.randint(70, 140), rng.randint(80, 150), rng.randint(90, 170))
    out = cv2.warpPerspective(page, hmat, (w, h), dst=table, flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_TRANSPARENT).astype(np.float32)
    xs = np.linspace(0, 1, w, dtype=np.float32)[None, :]
    side = xs if rng.random() < 0.5 else 1 - xs
    out *= (1.0 - rng.uniform(0.05, 0.3) * side)[..., None]
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.0))
    out += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(1.0, 5.0), out.shape)
    ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 88])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)
