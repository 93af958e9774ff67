"""Photographed-looking killer pages with known truth, for ``eval_killer.py``, the training script and the tests.

Two renderers print a page: renderer A is the app's own (``ar_sudoku.vision.killer_render``: OpenCV, Hershey
faces, its dashed, dotted or shaded style), renderer B (``killer_renderer_b.py``) was written apart from the
reader and is never tuned on. Either page is then photographed: placed in a frame by a random perspective over
a table, lit by a gradient, blurred, noised and saved as JPEG. Everything follows from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.sudoku.killer import Killer, make_killer
from ar_sudoku.sudoku.killer_generator import generate_killer
from ar_sudoku.vision.killer_render import DOTTED, SHADED, STYLE, KillerStyle, draw_killer
from ar_sudoku.vision.synth import background, place, quad

# newsprint's grey shading, its greys a dozen levels apart: renderer A's fourth style, to develop on (B's own
# palettes are never looked at)
GREYS = KillerStyle(outline=False, shades=((252, 252, 252), (240, 240, 240), (229, 229, 229), (218, 218, 218)))
STYLES: dict[str, KillerStyle] = {"dashed": STYLE, "dotted": DOTTED, "shaded": SHADED, "greys": GREYS}


@dataclass(frozen=True)
class KillerPage:
    """A page (or a photo of it), its grid's corners (TL, TR, BR, BL) in it, and the truth."""

    image: np.ndarray
    corners: np.ndarray
    killer: Killer
    solution: str
    style: str


def puzzle(seed: int, givens: int = 0) -> tuple[Killer, str]:
    """A generated killer puzzle and its solution, with ``givens`` more cells of the solution printed."""
    p = generate_killer(seed=seed)
    rng = random.Random(seed)
    cells = list(p.killer.givens.to_string())
    for i in rng.sample([i for i, ch in enumerate(cells) if ch == "."], givens):
        cells[i] = p.solution[i]
    return make_killer("".join(cells), [(c.total, c.cells) for c in p.killer.cages]), p.solution


def page_a(killer: Killer, solution: str, style: str, rng: random.Random) -> KillerPage:
    """Renderer A: the app's own drawing on a newspaper-like page (text bars above and below)."""
    cell = rng.randint(56, 72)
    margin = rng.randint(50, 110)
    side = 9 * cell
    img = np.full((side + 2 * margin + cell, side + 2 * margin, 3), 246, np.uint8)
    x0, y0 = margin, margin + cell // 2
    for y in (margin // 3, y0 + side + cell // 2):
        x = 20
        while x < img.shape[1] - 60:
            w = rng.randint(20, 70)
            cv2.rectangle(img, (x, y), (min(img.shape[1] - 20, x + w), y + 8), (90, 90, 90), -1)
            x += w + 12
    draw_killer(img, (x0, y0), cell, killer, style=STYLES[style])
    corners = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])
    return KillerPage(img, corners, killer, solution, style)


def photograph(page: KillerPage, rng: random.Random, size: tuple[int, int] = (1280, 720),
               strength: float = 1.0) -> KillerPage:
    """The page as a phone sees it: a random perspective over a table, uneven light, blur, noise, JPEG.
    ``strength`` scales how far each effect may go."""
    w, h = size
    side = rng.uniform(0.6, 0.9) * h
    centre = (w / 2 + rng.uniform(-0.08, 0.08) * w, h / 2 + rng.uniform(-0.04, 0.04) * h)
    dst = quad(centre, side, rng.uniform(-10, 10) * strength, rng.uniform(-0.1, 0.1) * strength)
    dst = dst + np.float32([[rng.gauss(0, 0.015 * side * strength) for _ in range(2)] for _ in range(4)])
    dst = inside_frame(dst, size)
    frame = place(page.image, page.corners, dst, background(size, rng.randrange(1000))).astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1 + strength * (rng.uniform(-0.3, 0.3) * (xx / w - 0.5) + rng.uniform(-0.3, 0.3) * (yy / h - 0.5))
    light *= rng.uniform(0.75, 1.05)
    frame = frame * light[..., None]
    if rng.random() < 0.5:  # a warm or cold cast
        t = rng.uniform(-0.12, 0.12) * strength
        frame = frame * np.float32([1 - t, 1, 1 + t])
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.3, 0.3 + 1.0 * strength))
    frame = frame + np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(1, 1 + 4 * strength),
                                                                          frame.shape).astype(np.float32)
    out = np.clip(frame, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 92)])
    return KillerPage(cv2.imdecode(buf, cv2.IMREAD_COLOR), dst.astype(np.float32), page.killer, page.solution,
                      page.style)


def inside_frame(quad: np.ndarray, size: tuple[int, int], margin: float = 0.03) -> np.ndarray:
    """The quad shrunk about its centre and moved, as little as needed, to lie wholly in the frame (the whole
    grid in view, as a person photographs a puzzle)."""
    w, h = size
    lo, hi = np.float32([margin * w, margin * h]), np.float32([(1 - margin) * w, (1 - margin) * h])
    centre = quad.mean(axis=0)
    span = quad.max(axis=0) - quad.min(axis=0)
    k = min(1.0, float(np.min((hi - lo) / np.maximum(span, 1e-6))))
    quad = (quad - centre) * k + centre
    shift = np.maximum(lo - quad.min(axis=0), 0) - np.maximum(quad.max(axis=0) - hi, 0)
    return (quad + shift).astype(np.float32)


def photo_a(seed: int, style: str, givens: int = 0, size: tuple[int, int] = (1280, 720)) -> KillerPage:
    """A photographed renderer-A page of a generated puzzle (``seed`` sets everything)."""
    killer, solution = puzzle(seed, givens)
    rng = random.Random(seed * 7 + 1)
    return photograph(page_a(killer, solution, style, rng), rng, size)
