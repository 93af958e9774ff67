"""The JSON contracts: what ``image --json``, ``video --jsonl`` and the web API print for a result.

The core hands back dataclasses (``BoardResult``, ``PhotoAnalysis``, ``FrameResult``); the words and
keys a user's script reads are written here, in the shell, once, so the photo command, the live log and
the web page cannot drift apart. The web app imports these too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ar_sudoku.ar.photo import PhotoAnalysis
from ar_sudoku.ar.session import FrameResult
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.written import NAMES
from ar_sudoku.vision.lattice import from_corners

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
        **(result.written.to_json(result.solution) if result.written is not None else NO_WRITING),
        "unreadable": [NAMES[i] for i in result.unreadable],
    }


def photo_json(analysis: PhotoAnalysis, path: str) -> dict[str, Any]:
    """The reading's keys, plus ``hint`` (the next logical step, or null) in hint mode."""
    obj = board_json(analysis.result, path)
    if analysis.show == "hint":
        obj["hint"] = None if analysis.hint is None else analysis.hint.to_json()
    return obj


def frame_json(result: FrameResult) -> dict[str, Any]:
    """One ``--jsonl`` line (and the web page's live frame): where the board is, what it holds, its status."""
    out: dict[str, Any] = {
        "frame": result.frame,
        "t_ms": round(result.t_ms, 2),
        "corners": _points(result.corners),
        "lattice": None if result.corners is None else _points(
            result.lattice if result.lattice is not None else from_corners(result.corners)),
        "givens": result.givens,
        "solution": result.solution,
        "status": str(result.status),
    }
    if result.written is not None and result.givens is not None:
        out.update({k: v for k, v in result.written.to_json(result.solution).items() if k != "candidates"})
    if result.marks is not None and result.marks.text:
        out["say"] = result.marks.text
    return out
