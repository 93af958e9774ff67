"""Flat pictures of boards: a solved grid for ``solve --png`` and a printable sheet.

Both are drawn with OpenCV's Hershey fonts so no font files are needed at run
time; the digit model is trained on these faces too, so a printed sheet reads.
"""

from __future__ import annotations

import cv2
import numpy as np

from ar_sudoku.sudoku.solver import SYMBOLS

BLACK = (0, 0, 0)
BLUE = (200, 80, 0)  # BGR: a clear blue for solved digits
FONT = cv2.FONT_HERSHEY_DUPLEX


def put_centered(img: np.ndarray, text: str, center: tuple[float, float], height: float,
                 color: tuple[int, int, int], thickness: int | None = None,
                 font: int = FONT) -> None:
    """Draw ``text`` with its glyph box centred on ``center``, ``height`` pixels tall."""
    scale = height / cv2.getTextSize("8", font, 1.0, 1)[0][1]
    th = thickness or max(1, round(scale * 1.6))
    (w, h), _ = cv2.getTextSize(text, font, scale, th)
    org = (round(center[0] - w / 2), round(center[1] + h / 2))
    cv2.putText(img, text, org, font, scale, color, th, cv2.LINE_AA)


def draw_grid_lines(img: np.ndarray, origin: tuple[int, int], cell: int, n: int = 3,
                    color: tuple[int, int, int] = BLACK, box: tuple[int, int] | None = None) -> None:
    """Thin cell lines and thick box lines, as printed in newspapers.

    ``box`` (rows x columns of one box, e.g. 2x3 on a 6x6 grid) overrides the square ``n`` x ``n`` box.
    """
    rows, cols = box or (n, n)
    size = rows * cols
    x0, y0 = origin
    thin = max(1, cell // 30)
    thick = max(3, cell // 10)
    for k in range(size + 1):
        off = k * cell
        cv2.line(img, (x0 + off, y0), (x0 + off, y0 + size * cell), color, thick if k % cols == 0 else thin)
        cv2.line(img, (x0, y0 + off), (x0 + size * cell, y0 + off), color, thick if k % rows == 0 else thin)


def board_image(givens: str, solution: str | None = None, cell: int = 60, margin: int = 20,
                n: int = 3, box: tuple[int, int] | None = None) -> np.ndarray:
    """A solved (or unsolved) grid: givens in black, solved digits in blue (``box`` as in draw_grid_lines)."""
    rows, cols = box or (n, n)
    size = rows * cols
    side = size * cell + 2 * margin
    img = np.full((side, side, 3), 255, np.uint8)
    for i in range(size * size):
        r, c = divmod(i, size)
        center = (margin + (c + 0.5) * cell, margin + (r + 0.5) * cell)
        g = givens[i]
        if g in SYMBOLS:
            put_centered(img, g, center, cell * 0.55, BLACK)
        elif solution is not None:
            put_centered(img, solution[i], center, cell * 0.55, BLUE, max(1, cell // 30))
    draw_grid_lines(img, (margin, margin), cell, box=(rows, cols))
    return img


def sheet_png(puzzle: str, title: str, dpi: int = 150, box: tuple[int, int] = (3, 3)) -> np.ndarray:
    """An A4 page with one large puzzle, to print and hold under the webcam (``box``: rows x columns)."""
    size = box[0] * box[1]
    w, h = round(8.27 * dpi), round(11.69 * dpi)
    img = np.full((h, w, 3), 255, np.uint8)
    cell = int(w * 0.8) // size
    x0 = (w - size * cell) // 2
    y0 = round(h * 0.18)
    put_centered(img, title, (w / 2, h * 0.09), dpi * 0.18, BLACK, 2, cv2.FONT_HERSHEY_SIMPLEX)
    for i, ch in enumerate(puzzle):
        if ch in SYMBOLS:
            r, c = divmod(i, size)
            put_centered(img, ch, (x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell), cell * 0.55, BLACK)
    draw_grid_lines(img, (x0, y0), cell, box=box)
    put_centered(img, "Point ar-sudoku at this page: ar-sudoku live",
                 (w / 2, y0 + size * cell + dpi * 0.5), dpi * 0.1, BLACK, 1, cv2.FONT_HERSHEY_SIMPLEX)
    return img


def sheet_svg(puzzle: str, title: str, box: tuple[int, int] = (3, 3)) -> str:
    """The same page as SVG, in millimetres, with a Helvetica/Arial face."""
    rows, cols = box
    size = rows * cols
    w, h = 210.0, 297.0
    cell = 162.0 / size  # the grid is as wide as a 9x9 one of 18 mm cells
    font = 11.0 * cell / 18.0
    x0, y0 = (w - size * cell) / 2, 50.0
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}">',
        '<rect width="100%" height="100%" fill="white"/>',
        f'<text x="{w / 2}" y="30" font-family="Helvetica, Arial, sans-serif" font-size="7" '
        f'text-anchor="middle">{title}</text>',
    ]
    for k in range(size + 1):
        x, y = x0 + k * cell, y0 + k * cell
        vw = 0.9 if k % cols == 0 else 0.3  # vertical lines: thick between boxes side by side
        hw = 0.9 if k % rows == 0 else 0.3
        out.append(f'<line x1="{x}" y1="{y0}" x2="{x}" y2="{y0 + size * cell}" '
                   f'stroke="black" stroke-width="{vw}" stroke-linecap="square"/>')
        out.append(f'<line x1="{x0}" y1="{y}" x2="{x0 + size * cell}" y2="{y}" '
                   f'stroke="black" stroke-width="{hw}" stroke-linecap="square"/>')
    for i, ch in enumerate(puzzle):
        if ch in SYMBOLS:
            r, c = divmod(i, size)
            out.append(f'<text x="{x0 + (c + 0.5) * cell:.2f}" y="{y0 + (r + 0.5) * cell + 3.6 * cell / 18:.2f}" '
                       f'font-family="Helvetica, Arial, sans-serif" font-size="{font:g}" '
                       f'text-anchor="middle">{ch}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
