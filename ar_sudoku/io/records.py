"""The JSON contracts: what ``image --json``, ``video --jsonl`` and the web API print for a result.

The core hands back dataclasses (``BoardResult``, ``PhotoAnalysis``, ``FrameResult``); the words and
keys a user's script reads are written here, in the shell, once, so the photo command, the live log and
the web page cannot drift apart: both shells (``cli`` and ``web``) import them from here, neither from the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ar_sudoku.sudoku.solver import box_label
from ar_sudoku.sudoku.steps import Explanation, Step, cell_names
from ar_sudoku.sudoku.written import NAMES, Written

if TYPE_CHECKING:  # the text commands (solve, hint) write JSON too, without loading the vision stack
    from collections.abc import Iterable

    import numpy as np

    from ar_sudoku.ar.photo import PhotoAnalysis
    from ar_sudoku.ar.session import FrameResult
    from ar_sudoku.sudoku.killer import Cage
    from ar_sudoku.sudoku.killer_logic import KillerExplanation
    from ar_sudoku.sudoku.rules import BoardResult

NO_WRITING: dict[str, Any] = {"cells": None, "entries": None, "candidates": None, "mistakes": [], "doubts": []}


def _points(points: np.ndarray | None) -> list[list[float]] | None:
    """Pixel points as [x, y] pairs rounded to a tenth (corners, or a lattice's crossings row by row)."""
    return None if points is None else [[round(float(x), 1), round(float(y), 1)] for x, y in points.reshape(-1, 2)]


def board_json(result: BoardResult, path: str) -> dict[str, Any]:
    """The ``image --json`` object of one picture's reading (README: the image command)."""
    return {
        "path": path,
        "corners": _points(result.corners),
        "lattice": _points(result.lattice),
        "givens": result.givens,
        "confidence": None if result.confidence is None else [round(float(c), 4) for c in result.confidence],
        "solution": result.solution,
        "status": str(result.status),
        "message": result.message,
        "ms": round(result.ms, 2),
        **(written_json(result.written, result.solution) if result.written is not None else NO_WRITING),
        "unreadable": [NAMES[i] for i in result.unreadable],
        # the grid's side and boxes as the text commands write them, and how the page prints its values
        # (``givens`` and ``solution`` are in the solver's symbols, 1-9 then A-G, whatever the page prints)
        "size": result.size,
        "box": box_label(result.box),
        "symbols": result.symbols,
        **killer_json(result.cages),
    }


def photo_json(analysis: PhotoAnalysis, path: str) -> dict[str, Any]:
    """The reading's keys, plus ``hint`` (the next logical step, or null) in hint mode."""
    obj = board_json(analysis.result, path)
    if analysis.show == "hint":
        obj["hint"] = None if analysis.hint is None else step_json(analysis.hint)
    return obj


def frame_json(result: FrameResult) -> dict[str, Any]:
    """One ``--jsonl`` line (and the web page's live frame): where the board is, what it holds, its status.

    The top-level keys describe the first puzzle in view (what a reader of one puzzle expects); ``puzzles``
    has the same keys for every puzzle in view, in reading order, each with its track id ``puzzle``.
    """
    return {"frame": result.frame, "t_ms": round(result.t_ms, 2), **_puzzle_json(result),
            "puzzles": [{"puzzle": p.puzzle, **_puzzle_json(p)} for p in result.puzzles]}


def _puzzle_json(result: FrameResult) -> dict[str, Any]:
    """One puzzle's keys of a frame's line."""
    from ar_sudoku.vision.lattice import from_corners

    out: dict[str, Any] = {
        "corners": _points(result.corners),
        "lattice": None if result.corners is None or result.size != 9 else _points(
            result.lattice if result.lattice is not None else from_corners(result.corners)),
        "givens": result.givens,
        "solution": result.solution,
        "status": str(result.status),
        "size": result.size,
        "box": box_label(result.box),
        "symbols": result.symbols,
        **killer_json(result.cages),
    }
    if result.written is not None and result.givens is not None:
        out.update({k: v for k, v in written_json(result.written, result.solution).items() if k != "candidates"})
    if result.marks is not None and result.marks.text:
        out["say"] = result.marks.text
    return out


def written_json(written: Written, solution: str | None) -> dict[str, Any]:
    """What the person wrote: each cell's kind, the entries, pencilled candidates, mistakes and doubts."""
    return {
        "cells": written.cells,
        "entries": written.entries,
        "candidates": None if written.candidates is None else list(written.candidates),
        "mistakes": [NAMES[i] for i in written.mistakes(solution)] if solution else [],
        "doubts": [{"cell": NAMES[i], "looks_like": int(d), "solution": int(solution[i])}
                   for i, d in written.doubts] if solution and written.checked else [],
    }


def step_json(step: Step) -> dict[str, Any]:
    """One logical step (``hint --json``, the photo's ``hint``): its technique, cells named ``r3c5``."""
    names = cell_names(step.size)
    return {
        "technique": step.technique,
        "cell": None if step.cell is None else names[step.cell],
        "digit": step.digit,
        "eliminations": [f"{names[c]}-{d}" for c, d in step.eliminations],
        "cells": [names[c] for c in step.cells],
        "text": step.text,
    }


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    """``solve --json``: the puzzle, its size and boxes, the solution, its rating and every step."""
    return {
        "puzzle": explanation.puzzle,
        "size": explanation.box[0] * explanation.box[1],
        "box": box_label(explanation.box),
        "solution": explanation.solution,
        "logical": explanation.logical,
        "rating": explanation.rating,
        "steps": [step_json(s) for s in explanation.steps],
    }


def killer_json(cages: Iterable[Cage] | None) -> dict[str, Any]:
    """A killer page's ``cages`` key (as ``solve`` reads them back); none on an ordinary puzzle, whose object
    stays as it always was."""
    return {} if cages is None else {"cages": cages_json(cages)}


def cages_json(cages: Iterable[Cage] | None) -> list[dict[str, Any]] | None:
    """A killer puzzle's cages as ``solve`` reads them back: ``[{"sum": 17, "cells": [0, 9, 10]}, ...]``
    (cells 0-80 row by row, the first one where the sum is printed); None for an ordinary puzzle."""
    return None if cages is None else [{"sum": c.total, "cells": list(c.cells)} for c in cages]


def killer_explanation_json(explanation: KillerExplanation) -> dict[str, Any]:
    """``solve --json`` of a killer puzzle: the ordinary keys, with its givens and cages beside them."""
    return {
        "puzzle": explanation.puzzle,
        "givens": explanation.puzzle,
        "size": 9,
        "box": "3x3",
        "cages": cages_json(explanation.killer.cages),
        "solution": explanation.solution,
        "logical": explanation.logical,
        "rating": explanation.rating,
        "steps": [step_json(s) for s in explanation.steps],
    }
