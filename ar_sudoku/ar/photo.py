"""One photo, start to finish, without I/O: read, solve, decide what to draw, draw it, describe it.

The photo command and the web page share this, so a photo posted to the web
page gives the same object as ``ar-sudoku image --json``. Decoding and writing
files stay in the shell (``io.images``, ``cli.image``, ``web``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ar_sudoku.ar.killer_marks import plan_killer
from ar_sudoku.ar.marks import Marks, Mode, plan_marks
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.sized import draw_answers
from ar_sudoku.sudoku.logic import PAPER_ORDER, next_steps
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.steps import NoSolutionError, Step
from ar_sudoku.sudoku.written import Corrections
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_image, process_images


@dataclass(frozen=True)
class PhotoAnalysis:
    """A photo's reading and solution (``result``), what the display mode draws, and its hint step."""

    result: BoardResult
    show: Mode = "answer"
    marks: Marks | None = None
    hint: Step | None = None  # the next logical step in hint mode


def plan(result: BoardResult, show: Mode) -> tuple[Marks | None, Step | None]:
    """What to draw for a solved photo in the display mode ``show``, and the hint's step."""
    if not (result.solution and result.givens) or result.size != 9:  # other sizes: ``sized.draw_answers``
        return None, None
    if result.cages is not None:  # a killer page: answers clear of its sums, killer hints
        return plan_killer(result.givens, result.solution, result.cages, show, result.unreadable)
    entries = result.entries
    w = result.written
    marks = plan_marks(show, result.givens, result.solution, entries,
                       mistakes=None if w is None else w.mistakes(result.solution),
                       doubts=() if w is None or not w.checked else w.doubts, unreadable=result.unreadable)
    hint = None
    if show == "hint":
        try:
            steps = next_steps(result.givens, entries, timeout=2.0, finders=PAPER_ORDER)
            step = steps[0] if steps else None
        except (NoSolutionError, ValueError):
            step = None
        hint = step
    return marks, hint


def analyse(image: np.ndarray, reader: DigitReader, *, timeout: float = 1.0,
            overrides: dict[int, int] | None = None, show: Mode = "answer", scale: float = 1.0,
            kinds: KindReader | None = None) -> PhotoAnalysis:
    """Read and solve ``image``; ``scale`` maps its pixels to the original photo's (a reduced decode).

    With ``kinds`` the printed givens are told from what the person wrote (``result.written``).
    """
    result = _scaled(process_image(image, reader, timeout, overrides, kinds), scale)
    marks, hint = plan(result, show)
    return PhotoAnalysis(result, show=show, marks=marks, hint=hint)


def _scaled(result: BoardResult, scale: float) -> BoardResult:
    if result.corners is None or scale == 1.0:
        return result
    return replace(result, corners=result.corners * scale,
                   lattice=None if result.lattice is None else result.lattice * scale)


def analyse_page(image: np.ndarray, reader: DigitReader, *, timeout: float = 1.0,
                 overrides: Corrections | None = None, show: Mode = "answer", scale: float = 1.0,
                 kinds: KindReader | None = None, puzzle: int | None = None) -> tuple[list[PhotoAnalysis], int]:
    """Every puzzle in ``image``, each read, solved and planned on its own, in reading order (or only
    puzzle number ``puzzle``); and how many puzzles the photo holds (``reading.process_images``)."""
    results, count = process_images(image, reader, timeout, overrides, kinds, puzzle)
    out = []
    for result in results:
        result = _scaled(result, scale)
        marks, hint = plan(result, show)
        out.append(PhotoAnalysis(result, show, marks, hint))
    return out, count


def annotate(image: np.ndarray, *analyses: PhotoAnalysis) -> np.ndarray:
    """A copy of the (full-size, colour) photo with every puzzle's marks drawn on the paper."""
    out = image.copy()
    renderer = OverlayRenderer()
    for analysis in analyses:
        corners = analysis.result.corners
        if analysis.result.size != 9 and analysis.show == "answer":
            draw_answers(out, analysis.result)
        elif analysis.marks is not None and corners is not None:
            renderer.draw_marks(out, corners, analysis.marks, analysis.result.lattice)
    return out
