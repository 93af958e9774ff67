"""Generator P: 9x9 pages printed in the machine's many print faces and photographed, to tune on (issue 58).

Its own renderer, sharing nothing with ``scenes_b.draw_page`` (the lead's held-out generator B, evaluated on,
never tuned on) nor with ``vision.synth``: Pillow draws the page at three times its size and shrinks it (print's
anti-aliasing), in a face picked from every installed print family (``print_faces``: serif, sans, slab, condensed,
monospace, bold, book faces; B's own faces, DejaVu and Liberation left out), with rules of other weights (thin
grey cell lines, heavy box lines, a heavier or a plain border), black, grey or coloured print, shaded boxes
(alternate, checked, or a tint on every box), and text round the grid. A share of the blanks may be written in a
handwriting face (``HAND_FACES``, none of B's). The page is then photographed (``photograph``): a perspective,
a turn, light falling off across it, focus, sensor noise, JPEG. Everything follows from the seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scenes_b import PRINT_FACES as B_FACES

FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))
# families that are not print (handwriting, symbols, dingbats, scripts, emoji, maths) or are held out
NOT_PRINT = ("dejavu", "liberation", "kristi", "fifthhorseman", "sjfonts", "bwht", "ecolier", "dancingscript",
             "kaushanscript", "comic-neue", "humor-sans", "femkeklaver", "tomsontalks", "rufscript", "breip", "seto",
             "klee", "yusei", "cabinsketch", "D050000L", "StandardSymbols", "Z003", "Italic", "Oblique", "Ita.",
             "math", "Math", "Emoji", "Symbols", "Music", "Sign", "Display", "Looped", "Arabic", "Hebrew")
# handwriting faces for the written-on pages: none of generator B's
HAND_FACES = ("ComicNeue-Regular", "ComicNeue-Light", "DancingScript-Regular", "KaushanScript-Regular",
              "BecauseWeBuild-Regular", "BecauseWeCreate-Regular", "CabinSketch-Regular", "KleeOne-Regular",
              "setofont", "Breip")


def _font_files() -> list[Path]:
    """Every TrueType/OpenType file under the font roots, sorted (a seed picks the same face on any run)."""
    out: set[Path] = set()
    for root in FONT_ROOTS:
        if root.is_dir():
            out.update(p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    return sorted(out)


def print_faces() -> list[Path]:
    """The print faces generator P draws in: every installed face but handwriting, symbols and B's."""
    return [p for p in _font_files()
            if not any(k in str(p) for k in NOT_PRINT) and p.stem not in B_FACES and _draws_digits(p)]


def hand_faces() -> list[Path]:
    """The handwriting faces of ``HAND_FACES`` installed here."""
    return [p for p in _font_files() if p.stem in HAND_FACES]


def _draws_digits(path: Path) -> bool:
    """A face whose 1 and 8 are drawn unlike each other (not one blank box): some Noto faces are for other
    scripts."""
    try:
        face = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    marks = []
    for ch in "18":
        img = Image.new("L", (60, 60), 0)
        ImageDraw.Draw(img).text((30, 30), ch, fill=255, font=face, anchor="mm")
        marks.append(np.asarray(img) > 127)
    return all(m.sum() > 30 for m in marks) and int((marks[0] != marks[1]).sum()) > 60


@dataclass(frozen=True)
class Look:
    """How one page is printed (page pixels at the final scale)."""

    cell: int  # px a cell
    thin: float  # cell lines' width, px
    thick: float  # box lines' width, px
    border: float  # the outer border's width, px
    line_ink: tuple[int, int, int]  # RGB of the rules
    ink: tuple[int, int, int]  # RGB of the print
    paper: tuple[int, int, int]
    shade: str  # "", "alternate", "every", "checked": which boxes are tinted
    digit: float  # the digits' height as a share of the cell
    lift: float  # the digits' centre above the cell's, share of the cell (fonts sit differently)
    face: Path


def pick_look(rng: np.random.Generator, faces: list[Path]) -> Look:
    """A page's look, drawn from the seed."""
    if not faces:  # a fresh machine: the font packages are not installed (a numpy error said nothing of it)
        raise SystemExit("print_pages: no print faces installed for generator P; install the font packages "
                         "scripts/train_cells.py lists (apt-get install -y fonts-urw-base35 fonts-liberation ...)")
    cell = int(rng.integers(40, 90))
    inks = [(0, 0, 0), (25, 25, 25), (70, 70, 70), (110, 110, 110), (20, 30, 110), (140, 20, 20), (0, 80, 40)]
    ink = inks[int(rng.choice(len(inks), p=[0.35, 0.2, 0.12, 0.08, 0.1, 0.1, 0.05]))]
    thin = float(rng.uniform(0.6, 2.2))
    thick = float(rng.uniform(max(thin + 1.0, 2.0), 6.5))
    shade = str(rng.choice(["", "", "alternate", "every", "checked"]))
    return Look(cell, thin, thick, float(max(thick, rng.uniform(2.0, 8.0))),
                (0, 0, 0) if rng.random() < 0.6 else ink,
                ink, tuple(int(v) for v in rng.integers(225, 256, 3)), shade, float(rng.uniform(0.45, 0.78)),
                float(rng.uniform(-0.04, 0.04)), faces[int(rng.integers(len(faces)))])


SCALE = 3  # the page is drawn this many times larger, then shrunk: print's own anti-aliasing


def _shaded(look: Look, br: int, bc: int) -> bool:
    return (look.shade == "alternate" and (br + bc) % 2 == 1) or look.shade == "every" or (
        look.shade == "checked" and (br * 3 + bc) % 2 == 0)


def _rules(d: ImageDraw.ImageDraw, look: Look, x0: float, y0: float) -> None:
    """The grid's lines as filled rectangles (each centred on its line), thick on the boxes' edges."""
    c, side = look.cell * SCALE, 9 * look.cell * SCALE
    for k in range(10):
        w = (look.border if k in (0, 9) else look.thick if k % 3 == 0 else look.thin) * SCALE
        p = k * c
        d.rectangle([x0 + p - w / 2, y0 - w / 2, x0 + p + w / 2, y0 + side + w / 2], fill=look.line_ink)
        d.rectangle([x0 - w / 2, y0 + p - w / 2, x0 + side + w / 2, y0 + p + w / 2], fill=look.line_ink)


def _text_around(d: ImageDraw.ImageDraw, look: Look, rng: np.random.Generator, w: int, y: float) -> None:
    """A title and a line of instructions above the grid, as a newspaper prints them."""
    title = ImageFont.truetype(str(look.face), int(look.cell * SCALE * 0.8))
    d.text((20 * SCALE, y), str(rng.choice(["SUDOKU", "Su Doku", "Number Place", "Puzzle 417", "KILLER? NO"])),
           fill=look.ink, font=title)
    small = ImageFont.truetype(str(look.face), int(look.cell * SCALE * 0.28))
    words = ("Fill", "the", "grid", "so", "that", "every", "row", "column", "and", "3x3", "box", "holds", "the",
             "digits", "1", "to", "9", "Level")
    x, line = 20.0 * SCALE, y + look.cell * SCALE * 1.0
    while x < w - 60 * SCALE:
        word = str(rng.choice(words))
        d.text((x, line), word, fill=(80, 80, 80), font=small)
        x += small.getlength(word + " ")


@dataclass(frozen=True)
class Page:
    """A page as printed: the picture (BGR), its grid's corners (TL, TR, BR, BL), the puzzle, the cells written."""

    image: np.ndarray
    corners: np.ndarray
    givens: str
    entries: str  # the digits written by hand, '.' elsewhere


def draw_page(puzzle: str, solution: str, rng: np.random.Generator, written: float = 0.0,
              faces: list[Path] | None = None) -> Page:
    """``puzzle`` printed in a face of ``faces`` (default: ``print_faces``); ``written`` of its blanks filled by
    hand (the solution's digits, in a pen's colour and a handwriting face)."""
    look = pick_look(rng, faces or print_faces())
    c = look.cell * SCALE
    mx, top = int(rng.integers(30, 90)) * SCALE, int(look.cell * 2.2) * SCALE
    w, h = 9 * c + 2 * mx, 9 * c + top + int(rng.integers(30, 90)) * SCALE
    img = Image.new("RGB", (w, h), look.paper)
    d = ImageDraw.Draw(img)
    _text_around(d, look, rng, w, 10 * SCALE)
    x0, y0 = mx, top
    tint = tuple(max(0, v - int(rng.integers(18, 45))) for v in look.paper)
    for br in range(3):
        for bc in range(3):
            if _shaded(look, br, bc):
                d.rectangle([x0 + bc * 3 * c, y0 + br * 3 * c, x0 + (bc + 1) * 3 * c, y0 + (br + 1) * 3 * c], fill=tint)
    font = ImageFont.truetype(str(look.face), 100)
    box = font.getbbox("8")
    font = ImageFont.truetype(str(look.face), max(8, int(100 * look.digit * c / max(1, box[3] - box[1]))))
    hands = hand_faces()
    hand = ImageFont.truetype(str(hands[int(rng.integers(len(hands)))]), int(c * 0.75)) if hands else font
    pen = [(20, 40, 170), (20, 20, 20), (170, 30, 30), (60, 60, 70)][int(rng.integers(4))]
    entries = ["."] * 81
    for i, ch in enumerate(puzzle):
        r, col = divmod(i, 9)
        cx, cy = x0 + (col + 0.5) * c, y0 + (r + 0.5 - look.lift) * c
        if ch not in ".0":
            d.text((cx, cy), ch, fill=look.ink, font=font, anchor="mm")
        elif written and rng.random() < written:
            jx, jy = rng.normal(0, c * 0.07, 2)
            d.text((cx + jx, cy + look.lift * c + jy), solution[i], fill=pen, font=hand, anchor="mm")
            entries[i] = solution[i]
    _rules(d, look, x0, y0)
    small = img.resize((w // SCALE, h // SCALE), Image.Resampling.LANCZOS)
    arr = cv2.cvtColor(np.asarray(small), cv2.COLOR_RGB2BGR)
    s = 9 * look.cell
    corners = np.float32([[x0, y0], [x0 + 9 * c, y0], [x0 + 9 * c, y0 + 9 * c], [x0, y0 + 9 * c]]) / SCALE
    assert abs(float(corners[1, 0] - corners[0, 0]) - s) < 1
    return Page(arr, corners, puzzle, "".join(entries))


def photograph(page: Page, rng: np.random.Generator, size: tuple[int, int] = (1600, 1200),
               hard: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The page on a desk under a camera: its grid filling a share of the frame, turned and seen at an angle,
    light falling off, a little out of focus, noise, JPEG. Returns the photo and the grid's corners in it."""
    h0, w0 = page.image.shape[:2]
    w, h = size
    grid = float(page.corners[1, 0] - page.corners[0, 0])
    k = rng.uniform(0.45, 0.8) * min(w, h) / grid
    centre = np.array([w / 2, h / 2]) + rng.uniform(-0.08, 0.08, 2) * np.array([w, h])
    ang = np.radians(rng.uniform(-12, 12) * (2.0 if hard else 1.0))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    mid = page.corners.mean(axis=0)
    src = np.float32([[0, 0], [w0, 0], [w0, h0], [0, h0]])
    dst = np.float32([(rot @ ((p - mid) * k)) + centre for p in src])
    dst += rng.normal(0, (0.06 if hard else 0.03) * grid * k, dst.shape).astype(np.float32)
    hmat = cv2.getPerspectiveTransform(src, dst)
    desk = np.full((h, w, 3), rng.integers(60, 160, 3), np.float32)
    desk += rng.normal(0, 8, (h // 8 + 1, w // 8 + 1, 1)).repeat(8, 0).repeat(8, 1)[:h, :w]
    warped = cv2.warpPerspective(page.image, hmat, (w, h), flags=cv2.INTER_AREA).astype(np.float32)
    mask = cv2.warpPerspective(np.ones((h0, w0), np.float32), hmat, (w, h))[..., None]
    out = warped * mask + desk * (1 - mask)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(a) * xx / w + np.sin(a) * yy / h)
    light = 1.0 - rng.uniform(0.05, 0.35) * (ramp - ramp.min()) / max(1e-6, float(np.ptp(ramp)))
    out *= (light * rng.uniform(0.75, 1.05))[..., None]
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6 if hard else 1.1))
    out += rng.normal(0, rng.uniform(1.5, 6.0), out.shape)
    ok, buf = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY,
                                                                            int(rng.integers(70, 95))])
    photo = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else np.clip(out, 0, 255).astype(np.uint8)
    corners = cv2.perspectiveTransform(page.corners[None], hmat)[0]
    return photo, corners.astype(np.float32)

