"""Renderer B: killer pages drawn apart from the app, with Pillow, for held-out evaluation only.

Written separately from ``ar_sudoku.vision.killer_render`` (renderer A) and never used to tune the reader or
to train its models: other drawing code (Pillow, drawn at twice the size and scaled down), other faces
(DejaVu, Liberation, FreeFont, Noto, Roboto: none of them in the sum model's training), other dash patterns,
round dots, other pale colours, a title and columns of text around the grid, and a few given digits on
some pages. Its geometry (cage outline inset, sum size and place, line widths) is drawn at random per page
from ranges of its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ar_sudoku.sudoku.killer import SIDE, Killer

FACES = ("dejavu/DejaVuSans.ttf", "dejavu/DejaVuSans-Bold.ttf", "dejavu/DejaVuSerif.ttf",
         "liberation/LiberationSans-Regular.ttf", "liberation/LiberationSans-Bold.ttf",
         "liberation/LiberationSerif-Regular.ttf", "freefont/FreeSans.ttf", "freefont/FreeSansBold.ttf",
         "freefont/FreeSerif.ttf", "noto/NotoSans-Regular.ttf", "noto/NotoSans-Bold.ttf",
         "roboto/unhinted/RobotoTTF/Roboto-Regular.ttf", "roboto/unhinted/RobotoTTF/Roboto-Medium.ttf")
PALETTES = (
    ((255, 246, 196), (206, 236, 250), (226, 226, 226), (250, 214, 226), (255, 255, 255)),  # RGB
    ((232, 246, 220), (255, 232, 204), (220, 228, 255), (246, 246, 246), (255, 250, 214)),
    ((236, 236, 236), (212, 212, 212), (255, 255, 255), (224, 224, 224)),  # newsprint greys
)
SCALE = 2  # drawn at twice the size, then scaled down (Pillow's lines are not anti-aliased)


def faces() -> list[Path]:
    """The installed faces renderer B prints in."""
    root = Path("/usr/share/fonts/truetype")
    return [root / f for f in FACES if (root / f).exists()]


@dataclass(frozen=True)
class Look:
    """One page's look, drawn at random."""

    style: str  # dashed | dotted | shaded
    face: Path
    sum_face: Path
    inset: float
    dash: float
    gap: float
    width: float
    sum_height: float
    sum_at: tuple[float, float]
    palette: tuple[tuple[int, int, int], ...]
    thin: float
    thick: float
    ink: tuple[int, int, int]


def look(style: str, rng: random.Random) -> Look:
    fs = faces()
    return Look(style, rng.choice(fs), rng.choice(fs), rng.uniform(0.06, 0.14), rng.uniform(0.05, 0.12),
                rng.uniform(0.04, 0.08), rng.uniform(0.015, 0.03), rng.uniform(0.16, 0.24),
                (rng.uniform(0.05, 0.1), rng.uniform(0.03, 0.08)), rng.choice(PALETTES), rng.uniform(0.012, 0.025),
                rng.uniform(0.05, 0.08), (rng.randint(0, 40),) * 3)


def _outline(killer: Killer, k: int, inset: float) -> list[tuple[float, float, float, float]]:
    """Cage ``k``'s outline, walked cell side by cell side, in cell units (written for this renderer)."""
    cells = set(killer.cages[k].cells)
    out = []
    for i in cells:
        r, c = divmod(i, SIDE)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIDE and 0 <= cc < SIDE and rr * SIDE + cc in cells:
                continue
            # the side's two ends, each pulled in (convex), left at the edge, or pushed out (concave)
            along = (0, 1) if dr else (1, 0)
            pts = []
            for s in (-1, 1):
                nr, nc = r + s * along[0], c + s * along[1]
                inside = 0 <= nr < SIDE and 0 <= nc < SIDE and nr * SIDE + nc in cells
                diag = inside and 0 <= nr + dr < SIDE and 0 <= nc + dc < SIDE and (nr + dr) * SIDE + nc + dc in cells
                pts.append(0.5 + inset if diag else 0.5 if inside else 0.5 - inset)
            cy, cx = r + 0.5 + dr * (0.5 - inset), c + 0.5 + dc * (0.5 - inset)
            out.append((cx - along[1] * pts[0], cy - along[0] * pts[0], cx + along[1] * pts[1], cy + along[0] * pts[1]))
    return out


def _colours(killer: Killer, n: int, rng: random.Random) -> list[int]:
    """A colour a cage, no two neighbours alike (backtracking over a random order: four always do)."""
    cage_of = killer.cage_of()
    near: list[set[int]] = [set() for _ in killer.cages]
    for i, k in enumerate(cage_of):
        for j in (i + 1, i + SIDE):
            if j < SIDE * SIDE and (j != i + 1 or j % SIDE) and cage_of[j] != k:
                near[k].add(cage_of[j])
                near[cage_of[j]].add(k)
    order = sorted(range(len(killer.cages)), key=lambda k: (-len(near[k]), rng.random()))
    colour = [-1] * len(killer.cages)

    def fill(at: int) -> bool:
        if at == len(order):
            return True
        k = order[at]
        options = list(range(n))
        rng.shuffle(options)
        for c in options:
            if all(colour[m] != c for m in near[k]):
                colour[k] = c
                if fill(at + 1):
                    return True
        colour[k] = -1
        return False

    if not fill(0):
        raise RuntimeError("no colouring found")
    return colour


def _text(draw: ImageDraw.ImageDraw, text: str, xy: tuple[float, float], height: float, face: Path,
          fill: tuple[int, int, int], anchor_centre: bool = False) -> tuple[float, float, float, float]:
    font = ImageFont.truetype(str(face), 100)
    x0, y0, x1, y1 = draw.textbbox((0, 0), "8", font=font)
    font = ImageFont.truetype(str(face), max(6, round(100 * height / (y1 - y0))))
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    if anchor_centre:
        x, y = xy[0] - (x0 + x1) / 2, xy[1] - (y0 + y1) / 2
    else:
        x, y = xy[0] - x0, xy[1] - y0
    draw.text((x, y), text, fill=fill, font=font)
    return x + x0, y + y0, x + x1, y + y1


def render(killer: Killer, style: str, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """A page (BGR) with the puzzle in ``style``, and its grid's corners (TL, TR, BR, BL) in it."""
    lk = look(style, rng)
    cell = rng.randint(58, 76) * SCALE
    margin = rng.randint(60, 120) * SCALE
    side = SIDE * cell
    paper = (rng.randint(238, 252),) * 3
    w, h = side + 2 * margin, side + 2 * margin + 2 * cell
    img = Image.new("RGB", (w, h), paper)
    draw = ImageDraw.Draw(img)
    x0, y0 = margin, margin + cell
    _text(draw, "KILLER SUDOKU", (w / 2, margin / 2 + cell * 0.3), cell * 0.35, lk.face, lk.ink, anchor_centre=True)
    if style == "shaded":
        colour = _colours(killer, len(lk.palette), rng)
        for k, cage in enumerate(killer.cages):
            for i in cage.cells:
                r, c = divmod(i, SIDE)
                draw.rectangle((x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell),
                               fill=lk.palette[colour[k]])
    for k in range(SIDE + 1):  # thin lines first, then the thick ones over them
        if k % 3:
            wd = max(1, round(lk.thin * cell))
            draw.line((x0 + k * cell, y0, x0 + k * cell, y0 + side), fill=(110, 110, 110), width=wd)
            draw.line((x0, y0 + k * cell, x0 + side, y0 + k * cell), fill=(110, 110, 110), width=wd)
    for k in range(0, SIDE + 1, 3):
        wd = max(2, round(lk.thick * cell * (1.3 if k in (0, SIDE) else 1.0)))
        draw.line((x0 + k * cell, y0 - wd // 2, x0 + k * cell, y0 + side + wd // 2), fill=lk.ink, width=wd)
        draw.line((x0 - wd // 2, y0 + k * cell, x0 + side + wd // 2, y0 + k * cell), fill=lk.ink, width=wd)
    if style != "shaded":
        _cage_lines(draw, killer, lk, (x0, y0), cell)
    for cage in killer.cages:
        r, c = divmod(cage.first, SIDE)
        at = (x0 + (c + lk.sum_at[0]) * cell, y0 + (r + lk.sum_at[1]) * cell)
        box = _text(draw, str(cage.total), at, lk.sum_height * cell, lk.sum_face, lk.ink)
        if style != "shaded":  # the outline broken under the sum: the sum drawn again on cleared paper
            pad = 0.03 * cell
            draw.rectangle((box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad), fill=paper)
            _text(draw, str(cage.total), at, lk.sum_height * cell, lk.sum_face, lk.ink)
    for i, v in enumerate(killer.givens.cells):
        if v:
            r, c = divmod(i, SIDE)
            _text(draw, str(v), (x0 + (c + 0.55) * cell, y0 + (r + 0.55) * cell), 0.5 * cell, lk.face, lk.ink,
                  anchor_centre=True)
    _columns(draw, (w, h), y0 + side + cell * 0.5, lk, rng)
    small = img.resize((w // SCALE, h // SCALE), Image.LANCZOS)
    corners = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]]) / SCALE
    return np.ascontiguousarray(np.asarray(small)[..., ::-1]), corners


def _cage_lines(draw: ImageDraw.ImageDraw, killer: Killer, lk: Look, origin: tuple[int, int], cell: int) -> None:
    x0, y0 = origin
    period = (lk.dash + lk.gap) * cell
    wd = max(1, round(lk.width * cell))
    for k in range(len(killer.cages)):
        for a, b, c, d in _outline(killer, k, lk.inset):
            ax, ay, bx, by = x0 + a * cell, y0 + b * cell, x0 + c * cell, y0 + d * cell
            length = abs(bx - ax) + abs(by - ay)
            ux, uy = (bx - ax) / max(length, 1e-6), (by - ay) / max(length, 1e-6)
            t = 0.0
            while t < length:
                if lk.style == "dotted":
                    px, py = ax + ux * t, ay + uy * t
                    rad = max(1.0, wd * 0.8)
                    draw.ellipse((px - rad, py - rad, px + rad, py + rad), fill=lk.ink)
                    t += max(period * 0.5, 3 * rad)
                else:
                    e = min(length, t + lk.dash * cell)
                    draw.line((ax + ux * t, ay + uy * t, ax + ux * e, ay + uy * e), fill=lk.ink, width=wd)
                    t += period


WORDS = ("the", "council", "said", "on", "tuesday", "that", "new", "rules", "would", "apply", "from", "next",
         "month", "weather", "rain", "later", "sunny", "spells", "market", "prices", "rose", "sharply")


def _columns(draw: ImageDraw.ImageDraw, size: tuple[int, int], top: float, lk: Look, rng: random.Random) -> None:
    """A few lines of newspaper text below the grid."""
    w, h = size
    font = ImageFont.truetype(str(lk.face), max(8, round((h - top) / 9)))
    y = top
    while y < h - 2 * font.size:
        draw.text((w * 0.06, y), " ".join(rng.choice(WORDS) for _ in range(14)), fill=(60, 60, 60), font=font)
        y += font.size * 1.4
