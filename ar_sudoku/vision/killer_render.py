"""Killer pages drawn flat: the printable sheet (``generate --variant killer --sheet``) and ``solve --png``.

A killer page as newspapers print it: the ordinary grid with its thick box lines; each cage outlined by a
thin dashed line just inside its cells (so it is never taken for a grid line), which runs on across the
cell borders inside the cage and turns at its corners; the cage's sum printed small in the top-left corner
of its first cell (top-most, then left-most), the outline broken under it. Some newspapers dot the outline
(:data:`DOTTED`) or shade each cage in one of a few pale colours instead, neighbours apart (:data:`SHADED`).
OpenCV's Hershey faces, as the ordinary sheet, so no font files are needed at run time. :func:`cage_segments`
(the outline as line segments in cell units) is shared with the SVG and the training pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.sudoku.killer import SIDE, Killer
from ar_sudoku.vision.render import BLACK, BLUE, draw_grid_lines, put_centered

Segment = tuple[float, float, float, float]  # x0, y0, x1, y1 in cell units (the grid's top-left is 0, 0)


@dataclass(frozen=True)
class KillerStyle:
    """How a killer page is drawn, in cells (one cell is 1.0)."""

    inset: float = 0.1  # the outline's distance inside the cell border: clear of the grid line
    dash: float = 0.1  # a dash's length ...
    gap: float = 0.07  # ... and the gap after it
    line: float = 0.025  # the outline's width
    sum_height: float = 0.2  # the sum's digit height: small, in the corner, as printed
    sum_at: tuple[float, float] = (0.07, 0.07)  # the sum's top-left within its cell
    digit_height: float = 0.55  # a given's digit height, as on the ordinary sheet
    outline: bool = True  # the dashed (or dotted) outline; shaded pages may print none
    shades: tuple[tuple[int, int, int], ...] = ()  # pale BGR fills, one a cage, neighbours apart (none: white)
    sum_font: int = cv2.FONT_HERSHEY_SIMPLEX  # the sums' face
    sums: bool = True  # draw the sums (the training pages draw their own, in other faces)


STYLE = KillerStyle()
DOTTED = KillerStyle(dash=0.001, gap=0.065, line=0.035)  # round dots: a dash of no length with round caps
PALE = ((205, 235, 250), (250, 225, 205), (210, 245, 215), (240, 215, 240), (255, 255, 255))  # BGR
SHADED = KillerStyle(outline=False, shades=PALE)


def cage_colours(killer: Killer, count: int) -> tuple[int, ...]:
    """A colour index (0 to ``count`` - 1) for each cage, no two neighbouring cages alike: a page of shaded
    cages without outlines shows a cage's edge only where its shade changes, so two touching cages of one
    colour would read as one. The cages form a map on the plane, which four colours always colour; the
    colouring is searched (the cage with the fewest colours left first, backtracking), and only with fewer
    than four colours may it fail, when the greedy colouring's clash is kept."""
    cage_of = killer.cage_of()
    near: list[set[int]] = [set() for _ in killer.cages]
    for i, k in enumerate(cage_of):
        for j in (i + 1, i + SIDE):
            if j < SIDE * SIDE and (j != i + 1 or j % SIDE) and k >= 0 and cage_of[j] >= 0 and cage_of[j] != k:
                near[k].add(cage_of[j])
                near[cage_of[j]].add(k)
    colour = [-1] * len(killer.cages)

    def search() -> bool:
        open_ = [k for k in range(len(colour)) if colour[k] < 0]
        if not open_:
            return True
        k = min(open_, key=lambda k: (count - len({colour[n] for n in near[k]} - {-1}), -len(near[k]), k))
        used = {colour[n] for n in near[k]}
        for c in range(count):
            if c not in used:
                colour[k] = c
                if search():
                    return True
        colour[k] = -1
        return False

    if not search():
        for k in sorted(range(len(killer.cages)), key=lambda k: -len(near[k])):
            used = {colour[n] for n in near[k]}
            colour[k] = next((c for c in range(count) if c not in used), k % count)
    return tuple(colour)


def cage_segments(cells: Sequence[int], inset: float) -> list[Segment]:
    """A cage's outline ``inset`` inside its cells, as straight segments in cell units.

    Each cell side facing out of the cage gives one segment; at either end it stops short (a convex corner),
    runs to the cell's edge (the outline goes on along the next cell), or runs past the edge by ``inset``
    (a concave corner, where it meets the neighbouring cell's outline).
    """
    inside = set(cells)

    def has(r: int, c: int) -> bool:
        return 0 <= r < SIDE and 0 <= c < SIDE and r * SIDE + c in inside

    out: list[Segment] = []
    for cell in cells:
        r, c = divmod(cell, SIDE)
        # (outward step, along step): top, bottom, left, right
        for (dr, dc), (ar, ac) in (((-1, 0), (0, 1)), ((1, 0), (0, 1)), ((0, -1), (1, 0)), ((0, 1), (1, 0))):
            if has(r + dr, c + dc):
                continue
            ends = []
            for sign in (-1, 1):
                nr, nc = r + sign * ar, c + sign * ac
                if not has(nr, nc):
                    ends.append(0.5 - inset)
                elif has(nr + dr, nc + dc):
                    ends.append(0.5 + inset)
                else:
                    ends.append(0.5)
            mid_r, mid_c = r + 0.5 + dr * (0.5 - inset), c + 0.5 + dc * (0.5 - inset)
            out.append((mid_c - ac * ends[0], mid_r - ar * ends[0], mid_c + ac * ends[1], mid_r + ar * ends[1]))
    return out


def dashes(seg: Segment, dash: float, gap: float) -> list[Segment]:
    """The dashes of one segment, phased by position on the page so that they run on across cell borders."""
    x0, y0, x1, y1 = seg
    horizontal = abs(y1 - y0) < 1e-9
    a, b = (x0, x1) if horizontal else (y0, y1)
    period = dash + gap
    out = []
    start = np.floor(a / period) * period
    while start < b:
        lo, hi = max(start, a), min(start + dash, b)
        if hi > lo:
            out.append((lo, y0, hi, y0) if horizontal else (x0, lo, x0, hi))
        start += period
    return out


def draw_killer(img: np.ndarray, origin: tuple[int, int], cell: int, killer: Killer, solution: str | None = None,
                style: KillerStyle = STYLE) -> None:
    """A killer grid drawn into ``img`` with its top-left at ``origin``: givens, cages, sums, and (given a
    ``solution``) the answers in blue, smaller and low to the right so that they leave the sums clear."""
    x0, y0 = origin
    width = max(1, round(style.line * cell))

    def px(x: float, y: float) -> tuple[int, int]:
        return round(x0 + x * cell), round(y0 + y * cell)

    if style.shades:
        colours = cage_colours(killer, len(style.shades))
        for cage, k in zip(killer.cages, colours):
            for i in cage.cells:
                row, col = divmod(i, SIDE)
                cv2.rectangle(img, px(col, row), px(col + 1, row + 1), style.shades[k], -1)
    if style.outline:
        for cage in killer.cages:
            for seg in cage_segments(cage.cells, style.inset):
                for a, b, c, d in dashes(seg, style.dash, style.gap):
                    cv2.line(img, px(a, b), px(c, d), BLACK, width, cv2.LINE_AA)
    draw_grid_lines(img, (x0, y0), cell)
    for cage in killer.cages if style.sums else ():
        r, c = divmod(cage.first, SIDE)
        draw_sum(img, str(cage.total), (x0 + (c + style.sum_at[0]) * cell, y0 + (r + style.sum_at[1]) * cell),
                 style.sum_height * cell, style.sum_font, clear=style.outline)
    for i, v in enumerate(killer.givens.cells):
        r, c = divmod(i, SIDE)
        if v:
            put_centered(img, str(v), (x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), style.digit_height * cell,
                         BLACK)
        elif solution is not None:
            put_centered(img, solution[i], (x0 + (c + 0.56) * cell, y0 + (r + 0.58) * cell), 0.42 * cell, BLUE,
                         max(1, cell // 30))


def draw_sum(img: np.ndarray, text: str, top_left: tuple[float, float], height: float,
             font: int = cv2.FONT_HERSHEY_SIMPLEX, clear: bool = True) -> None:
    """A cage's sum, ``height`` px tall, with the paper cleared behind it when ``clear`` (the outline breaks
    under it)."""
    scale = height / cv2.getTextSize("8", font, 1.0, 1)[0][1]
    th = max(1, round(scale * 1.4))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    x, y = round(top_left[0]), round(top_left[1])
    pad = max(1, round(height * 0.15))
    if clear:
        cv2.rectangle(img, (x - pad, y - pad), (x + w + pad, y + h + pad), (255, 255, 255), -1)
    cv2.putText(img, text, (x, y + h), font, scale, BLACK, th, cv2.LINE_AA)


def killer_image(killer: Killer, solution: str | None = None, cell: int = 60, margin: int = 20,
                 style: KillerStyle = STYLE) -> np.ndarray:
    """A killer grid on white (``solve --png``): cages, sums, givens, and the answers in blue."""
    side = SIDE * cell + 2 * margin
    img = np.full((side, side, 3), 255, np.uint8)
    draw_killer(img, (margin, margin), cell, killer, solution, style)
    return img


def killer_sheet_png(killer: Killer, title: str, dpi: int = 150) -> np.ndarray:
    """An A4 page with one large killer puzzle, to print and hold under the webcam."""
    w, h = round(8.27 * dpi), round(11.69 * dpi)
    img = np.full((h, w, 3), 255, np.uint8)
    cell = int(w * 0.8) // SIDE
    x0 = (w - SIDE * cell) // 2
    y0 = round(h * 0.18)
    put_centered(img, title, (w / 2, h * 0.09), dpi * 0.18, BLACK, 2, cv2.FONT_HERSHEY_SIMPLEX)
    draw_killer(img, (x0, y0), cell, killer)
    put_centered(img, "Each cage's digits add up to its sum and do not repeat. Point ar-sudoku at this page.",
                 (w / 2, y0 + SIDE * cell + dpi * 0.5), dpi * 0.1, BLACK, 1, cv2.FONT_HERSHEY_SIMPLEX)
    return img


def killer_sheet_svg(killer: Killer, title: str, style: KillerStyle = STYLE) -> str:
    """The same page as SVG, in millimetres, with a Helvetica/Arial face."""
    w, h = 210.0, 297.0
    cell = 18.0
    x0, y0 = (w - SIDE * cell) / 2, 50.0
    face = 'font-family="Helvetica, Arial, sans-serif"'
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{w / 2}" y="30" {face} font-size="7" text-anchor="middle">{title}</text>']
    dash = f'stroke-dasharray="{style.dash * cell:.2f} {style.gap * cell:.2f}"'
    for cage in killer.cages:
        for a, b, c, d in cage_segments(cage.cells, style.inset):
            out.append(f'<line x1="{x0 + a * cell:.2f}" y1="{y0 + b * cell:.2f}" x2="{x0 + c * cell:.2f}" '
                       f'y2="{y0 + d * cell:.2f}" stroke="black" stroke-width="{style.line * cell:.2f}" {dash}/>')
    for k in range(SIDE + 1):
        x, y = x0 + k * cell, y0 + k * cell
        width = 0.9 if k % 3 == 0 else 0.3
        out.append(f'<line x1="{x}" y1="{y0}" x2="{x}" y2="{y0 + SIDE * cell}" stroke="black" '
                   f'stroke-width="{width}" stroke-linecap="square"/>')
        out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + SIDE * cell}" y2="{y}" stroke="black" '
                   f'stroke-width="{width}" stroke-linecap="square"/>')
    size = style.sum_height * cell / 0.72  # a digit is about 0.72 of the font size
    for cage in killer.cages:
        r, c = divmod(cage.first, SIDE)
        x, y = x0 + (c + style.sum_at[0]) * cell, y0 + (r + style.sum_at[1]) * cell
        text = str(cage.total)
        out.append(f'<rect x="{x - 0.4:.2f}" y="{y - 0.4:.2f}" width="{0.62 * size * len(text) + 0.8:.2f}" '
                   f'height="{style.sum_height * cell + 0.8:.2f}" fill="white"/>')
        out.append(f'<text x="{x:.2f}" y="{y + style.sum_height * cell:.2f}" {face} font-size="{size:.2f}">'
                   f'{text}</text>')
    for i, v in enumerate(killer.givens.cells):
        if v:
            r, c = divmod(i, SIDE)
            out.append(f'<text x="{x0 + (c + 0.5) * cell:.2f}" y="{y0 + (r + 0.5) * cell + 3.6:.2f}" {face} '
                       f'font-size="11" text-anchor="middle">{v}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
