"""The full photo pipeline as a reader for ``scripts/eval_written.py --reader pipeline_reader:read_cells``.

The grid is found by the pipeline itself (the corners the evaluation offers are
ignored), exactly as ``ar-sudoku image`` reads a photo: grid, orientation, both
models, the rules, the solution.
"""

from __future__ import annotations

import numpy as np

from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.reading import process_image

_READERS: tuple[DigitReader, KindReader] | None = None


def read_cells(image: np.ndarray, corners: np.ndarray | None) -> tuple[str, str, str, str | None]:
    """(cells, givens, entries, solution) as in ``image --json``; blanks where nothing was found."""
    global _READERS
    if _READERS is None:
        _READERS = (DigitReader(), KindReader())
    result = process_image(image, _READERS[0], kinds=_READERS[1])
    if result.givens is None or result.written is None:
        return "." * 81, "." * 81, "." * 81, None
    return result.written.cells, result.givens, result.written.entries, result.solution
