"""The page's own print as the template of a faded given: a glare takes a digit's contrast, not its shape.

A page's givens share one font, size and place in their cells. Once the puzzle's solution is known,
whether a glared cell holds print needs no model: the page's clear givens of the solution's digit,
averaged, are matched against it. Normalised correlation asks the shape; the strokes' contrast,
once the glare's lift ``a`` is allowed for (it leaves ``1 - a`` of it), asks that the shape is ink as
strong as the page's print, not a blank cell's grain or the reverse page showing through.

On the training photos under glares of peak 0.95 and 1.0 (scratch runs over every cell against the
truth, 250 photos), ``OWN_PRINT.match`` and ``OWN_PRINT.amplitude`` together pass 0 of 12,249 blank cells and 83 of the
102
givens the glare lifts 0.9 or more (the models read some of those at no odds at all).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.vision.kinds import CELL, MARGIN


@dataclass(frozen=True)
class OwnPrintConfig:
    """This stage's tuning: each field with the reason for its value."""

    smooth: float = 5.0  # px (sigma): the paper's light taken away, a glare's gradient with it; a stroke is 4-7 px wide
    half: int = 20  # px: half a template's side, 40 px of the 60 px cell: the digit, not the grid's lines
    slack: int = 5  # px a cell's print may sit off its page's others (the warp, the printing's registration)
    # normalised correlation with the page's print of the digit (blank cells, clear or glared: at most 0.72;
    # givens: 1 in 20 under 0.68) ...
    match: float = 0.55
    # ... and the strokes' contrast, as a share of the page's print's once the glare's lift is allowed for
    # (blank cells that correlate 0.45 or more: median 0.15, at most 0.7; givens: median 1.0)
    amplitude: float = 0.7
    clear: float = 0.2  # templates are cut from the givens whose paper a glare lifts less than this
    # the best match this far above the next digit's reads the cell (the training photos' doubted givens under a glare
    # of peak 1.0: 260 of 552 read so, 241 right, most of the rest a digit the page prints nowhere clear; no blank)
    read_margin: float = 0.1
    shape_smooth: float = 1.5  # px (sigma): a dim room's speckle taken out of the cells before their shape is compared
    # givens of a digit a template needs when telling print from handwriting: one alone is its own noise
    sources: int = 2
    place_tie: float = 0.02  # a match at the print's place this near the best further off is the print standing there


OWN_PRINT = OwnPrintConfig()


def _strokes(square: np.ndarray) -> np.ndarray:
    """The ink standing out of its paper (positive where darker): the paper's smooth light taken away."""
    f = square.astype(np.float32)
    return cv2.GaussianBlur(f, (0, 0), OWN_PRINT.smooth) - f


def _around(strokes: np.ndarray, i: int, half: int) -> np.ndarray:
    """The ``2 * half`` px square around cell ``i``'s centre (within the picture for ``half`` up to 40 px: the
    margin and half a cell)."""
    y = MARGIN + (i // 9) * CELL + CELL // 2
    x = MARGIN + (i % 9) * CELL + CELL // 2
    return strokes[y - half: y + half, x - half: x + half]


def _templates(strokes: np.ndarray, givens: str, skip: set[int], lift: np.ndarray) -> dict[str, np.ndarray]:
    """Per digit, the mean of the page's clear givens of it (not in ``skip``, lifted less than ``OWN_PRINT.clear``)."""
    out = {}
    for d in "123456789":
        cuts = [_around(strokes, j, OWN_PRINT.half) for j in range(81) if givens[j] == d and j not in skip and lift[j]
        < OWN_PRINT.clear]
        if cuts:
            out[d] = np.mean(cuts, axis=0)
    return out


def _match(strokes: np.ndarray, i: int, template: np.ndarray, lift: float) -> float:
    """How well cell ``i`` shows ``template``: its normalised correlation (within ``OWN_PRINT.slack``), or 0 when its
    strokes there have less than ``OWN_PRINT.amplitude`` of the template's contrast the glare's lift leaves (no ink of
    that shape is there). ``OWN_PRINT.match`` is the caller's to ask: a digit just under it still has its say against
    another (a 0.54 is no better than nothing, but no worse than a 0.55 either)."""
    window = _around(strokes, i, OWN_PRINT.half + OWN_PRINT.slack)
    fit = cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
    y, x = np.unravel_index(int(fit.argmax()), fit.shape)
    here = window[y: y + 2 * OWN_PRINT.half, x: x + 2 * OWN_PRINT.half]
    t = template - template.mean()
    contrast = float(((here - here.mean()) * t).sum() / (t * t).sum())
    return float(fit.max()) if contrast >= OWN_PRINT.amplitude * (1.0 - lift) else 0.0


def print_seen(square: np.ndarray, givens: str, digits: dict[int, str], cover: np.ndarray | None,
               skip: Iterable[int] = ()) -> dict[int, float]:
    """The cells of ``digits`` (cell: the solution's digit there) that show the page's print of that digit,
    with how well (the normalised correlation).

    ``square``: the grid in grey, ``kinds.CELL`` px a cell with ``kinds.MARGIN`` around it;
    ``givens``: the reading's (81 characters, '.' for none), the templates' source, less the cells
    ``skip`` (in doubt) and those a glare lifts ``OWN_PRINT.clear`` or more (``cover``, per cell; None: no glare).
    A digit the page shows nowhere clear has no template, and its cells are not asked. Whether the print
    is that digit's and no other's is not asked: the solution's digit is the only one a given there can be.
    """
    lift = np.zeros(81, np.float32) if cover is None else cover
    strokes = _strokes(square)
    templates = _templates(strokes, givens, set(skip) | set(digits), lift)
    matched = {i: _match(strokes, i, templates[d], float(lift[i])) for i, d in digits.items() if d in templates}
    return {i: m for i, m in matched.items() if m >= OWN_PRINT.match}


def print_matches(square: np.ndarray, givens: str, cells: Iterable[int], cover: np.ndarray | None) -> np.ndarray:
    """(81, 9): how well each of ``cells`` shows the page's print of each digit (:func:`_match`: ``OWN_PRINT.match`` not
    asked; NaN where the page shows that digit nowhere clear, and for the cells not asked). Arguments as
    :func:`print_seen`'s."""
    lift = np.zeros(81, np.float32) if cover is None else cover
    strokes = _strokes(square)
    asked = list(cells)
    templates = _templates(strokes, givens, set(asked), lift)
    out = np.full((81, 9), np.nan, np.float32)
    for i in asked:
        for d, t in templates.items():
            out[i, int(d) - 1] = _match(strokes, i, t, float(lift[i]))
    return out


def seen_in(matches: np.ndarray, digits: dict[int, str]) -> dict[int, float]:
    """:func:`print_seen`'s answer from :func:`print_matches`' (asked of the same cells, the same templates)."""
    return {i: float(matches[i, int(d) - 1]) for i, d in digits.items() if matches[i, int(d) - 1] >= OWN_PRINT.match}


def print_read(square: np.ndarray, givens: str, cells: Iterable[int], cover: np.ndarray | None) -> dict[int, str]:
    """The ``cells`` the page's own print reads as one digit: its best match by ``OWN_PRINT.read_margin`` over any
    other.

    Arguments as :func:`print_seen`'s (the ``cells`` give no template). A faded 8 still matches a 3's
    template well, and a digit the page shows nowhere clear has none: alone, this is no reader; it is a
    third opinion beside the models'.
    """
    asked = list(cells)
    matches = print_matches(square, givens, asked, cover)
    out = {}
    for i in asked:
        known = np.flatnonzero(~np.isnan(matches[i]))
        if known.size < 2:
            continue
        order = known[np.argsort(-matches[i, known])]
        best, second = matches[i, order[0]], matches[i, order[1]]
        if best >= OWN_PRINT.match and best - second >= OWN_PRINT.read_margin:
            out[i] = str(int(order[0]) + 1)
    return out


def prefers(matches: np.ndarray, cells: Iterable[int], one: str, other: str) -> bool:
    """Whether the page's own print (``matches``, :func:`print_matches`) tells solution ``one`` from ``other``:
    at one of ``cells`` where they differ it matches ``one``'s digit ``OWN_PRINT.read_margin`` better (and at least
    ``OWN_PRINT.match``), and at none ``other``'s so. A cell whose digits the page shows nowhere clear has no say."""
    said = False
    for i in cells:
        a, b = int(one[i]) - 1, int(other[i]) - 1
        if a == b or np.isnan(matches[i, a]) or np.isnan(matches[i, b]):
            continue
        gap = float(matches[i, a] - matches[i, b])
        if gap <= -OWN_PRINT.read_margin and matches[i, b] >= OWN_PRINT.match:
            return False
        said = said or (gap >= OWN_PRINT.read_margin and matches[i, a] >= OWN_PRINT.match)
    return said


def smoothed_strokes(square: np.ndarray) -> np.ndarray:
    """The grid's strokes as :func:`print_likeness` and :func:`twin_likeness` match them: smoothed, the paper's
    light taken away (computed once for several calls on one grid)."""
    return _strokes(cv2.GaussianBlur(square.astype(np.float32), (0, 0), OWN_PRINT.shape_smooth))


def print_likeness(square: np.ndarray, digits: np.ndarray, printed: Iterable[int], cells: Iterable[int],
                   place: int | None = None, own_digit: bool = False,
                   strokes: np.ndarray | None = None) -> np.ndarray:
    """(81, 9): how well each of ``cells`` shows the page's print of each digit (normalised correlation within
    ``OWN_PRINT.slack``); NaN for the cells not asked and the digits without a template.

    ``digits``: (81,) each cell's digit as read; ``printed``: the cells taken for sure print, the templates'
    source (a digit's template is the mean of its ``OWN_PRINT.sources`` or more printed cells, the cell itself left
    out).
    With ``place`` (px), the print is asked where it stands in its cell: the best match within ``place`` px
    of it, and none (0) when the cell shows the print better further off (a blurred 8's template fits a hand's
    8 standing a few pixels off nearly as well). Contrast is not asked: a pen may be darker or lighter than the
    print; its shape is another font's. With ``own_digit`` each cell is matched with its own digit's template
    alone (the column ``digits[i] - 1``; the others stay NaN): what a caller that asks no other digit needs.
    ``strokes``: :func:`smoothed_strokes` of ``square``, when the caller has them.
    """
    if strokes is None:
        strokes = smoothed_strokes(square)
    sources: dict[int, list[int]] = {}
    for j in printed:
        sources.setdefault(int(digits[j]), []).append(int(j))
    cut = {j: _around(strokes, j, OWN_PRINT.half) for js in sources.values() for j in js}
    sums = {d: np.sum([cut[j] for j in js], axis=0) for d, js in sources.items()}
    out = np.full((81, 9), np.nan, np.float32)
    for i in map(int, cells):
        window = _around(strokes, i, OWN_PRINT.half + OWN_PRINT.slack)
        for d, js in sources.items():
            if own_digit and d - 1 != (int(digits[i]) - 1) % 9:
                continue
            own = i in js
            n = len(js) - own
            if n >= OWN_PRINT.sources:
                template = (sums[d] - cut[i]) / n if own else sums[d] / n
                fit = cv2.matchTemplate(window, template, cv2.TM_CCOEFF_NORMED)
                best = float(fit.max())
                if place is not None:
                    here = float(fit[OWN_PRINT.slack - place: OWN_PRINT.slack + place + 1, OWN_PRINT.slack - place:
                    OWN_PRINT.slack + place + 1].max())
                    best = here if here >= best - OWN_PRINT.place_tie else 0.0
                out[i, d - 1] = best
    return out


def twin_likeness(square: np.ndarray, digits: np.ndarray, cells: Iterable[int],
                  strokes: np.ndarray | None = None) -> dict[int, float]:
    """Each of ``cells``' best likeness to another of ``cells`` read as the same digit (normalised correlation of
    their strokes within ``OWN_PRINT.slack``, smoothed as :func:`print_likeness` smooths them); a cell with no such
    other is
    left out.

    One typeface prints every 7 of a page alike, pixel for pixel but for the camera; a hand never writes two
    7s so alike. Print taken for handwriting, a whole digit of the page at once, has no sure print of its digit
    to be matched with (:func:`print_likeness`), but its cells match each other. ``strokes``: as
    :func:`print_likeness` takes them.
    """
    asked = [int(i) for i in cells]
    if len({int(digits[i]) for i in asked}) == len(asked):  # no two of one digit: no twins, nothing to smooth
        return {}
    if strokes is None:
        strokes = smoothed_strokes(square)
    out: dict[int, float] = {}
    for a in asked:
        window = _around(strokes, a, OWN_PRINT.half + OWN_PRINT.slack)
        for b in asked:
            if b != a and digits[b] == digits[a]:
                fit = float(cv2.matchTemplate(window, _around(strokes, b, OWN_PRINT.half), cv2.TM_CCOEFF_NORMED).max())
                out[a] = max(out.get(a, -1.0), fit)
    return out
