"""From a picture to a checked reading: grid, orientation, digits, then the rules.

This is the pure core shared by the photo command and the live loop: arrays
in, a frozen :class:`BoardResult` out. A reading that breaks the rules or has
no solution is not taken as final: the least confident cells' second choices
(including "empty") are tried, cheapest first, before reporting ``invalid`` or
``unsolvable``.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

from ar_sudoku.solver import count_solutions, parse_line, solve, validate
from ar_sudoku.vision.cells import cut_cells, warp_grid
from ar_sudoku.vision.digits import DigitReader, Reading
from ar_sudoku.vision.grid import find_grid, to_gray

CONFIDENT = 0.9  # a reading whose weakest inked cell is above this is not re-read rotated


@dataclass(frozen=True)
class BoardResult:
    """One picture's outcome; ``to_json`` gives the photo command's contract."""

    status: str  # solved | no_grid | invalid | unsolvable | timeout | error
    corners: np.ndarray | None = None  # TL, TR, BR, BL of the puzzle itself
    givens: str | None = None
    confidence: np.ndarray | None = None
    solution: str | None = None
    message: str = ""
    ms: float = 0.0
    corrected: tuple[str, ...] = ()  # cells changed by the rules, e.g. "r3c5: 1->7"

    def to_json(self, path: str) -> dict:
        return {
            "path": path,
            "corners": None if self.corners is None else [[round(float(x), 1), round(float(y), 1)]
                                                          for x, y in self.corners],
            "givens": self.givens,
            "confidence": None if self.confidence is None else [round(float(c), 4) for c in self.confidence],
            "solution": self.solution,
            "status": self.status,
            "message": self.message,
            "ms": round(self.ms, 2),
        }


def read_grid(gray: np.ndarray, corners: np.ndarray, reader: DigitReader) -> Reading:
    return reader.read(cut_cells(warp_grid(gray, corners)))


def _score(reading: Reading) -> float:
    inked = reading.digits > 0
    if not inked.any():
        return 0.0
    return float(np.log(np.maximum(reading.confidence[inked], 1e-6)).mean())


def read_oriented(gray: np.ndarray, corners: np.ndarray, reader: DigitReader) -> tuple[np.ndarray, Reading]:
    """Read the grid, turning it a quarter at a time if the digits look sideways.

    Corners come back re-ordered so that the first is the puzzle's own top-left.
    """
    reading = read_grid(gray, corners, reader)
    inked = reading.digits > 0
    if inked.sum() >= 10 and reading.confidence[inked].min() >= CONFIDENT:
        return corners, reading
    best = (_score(reading), 0, reading)
    for k in (1, 2, 3):
        r = read_grid(gray, np.roll(corners, -k, axis=0), reader)
        s = _score(r)
        if s > best[0] + 0.05:
            best = (s, k, r)
    return np.roll(corners, -best[1], axis=0), best[2]


def _try(givens: str, timeout: float) -> tuple[str, str | None, str]:
    board = parse_line(givens)
    conflicts = validate(board)
    if conflicts:
        return "invalid", None, "; ".join(str(c) for c in conflicts[:3])
    res = solve(board, timeout)
    if res.status == "solved":
        return "solved", res.solution, ""
    if res.status == "timeout":
        return "timeout", None, res.message
    return "unsolvable", None, "the reading has no solution"


def check_reading(reading: Reading, timeout: float = 1.0, max_tries: int = 40,
                  overrides: dict[int, int] | None = None, require_unique: bool = False) -> BoardResult:
    """Solve the reading; if it breaks the rules, try the likeliest second choices.

    ``overrides`` (cell -> digit, 0 = empty) are the user's corrections and are
    never changed. With ``require_unique`` a reading with several solutions
    (a digit was missed) is reported ``unsolvable`` instead of drawing a guess.
    """
    digits = reading.digits.copy()
    fixed = set(overrides or {})
    for i, d in (overrides or {}).items():
        digits[i] = d
    givens = "".join(str(d) if d else "." for d in digits)
    status, solution, message = _try(givens, timeout)
    if status == "solved" and count_solutions(parse_line(givens), 2, timeout).count == 1:
        return BoardResult(status, givens=givens, confidence=reading.confidence, solution=solution)
    first = (status, solution, message)
    # alternatives: for each inked cell, its second-best class; cost = how much less likely it is
    alts = []
    for i in range(81):
        if i in fixed or digits[i] == 0:
            continue
        p = reading.probs[i]
        order = np.argsort(-p)
        for alt in order[1:3]:
            if alt != digits[i]:
                alts.append((float(np.log(p[digits[i]] + 1e-9) - np.log(p[alt] + 1e-9)), i, int(alt)))
    alts.sort()
    alts = alts[:12]
    tries = 0
    deadline = time.perf_counter() + max(0.2, timeout)
    for size in (1, 2):
        combos = sorted(itertools.combinations(alts, size), key=lambda c: sum(a[0] for a in c))
        for combo in combos:
            if len({a[1] for a in combo}) < size:
                continue
            if tries >= max_tries or time.perf_counter() > deadline:
                break
            tries += 1
            d2 = digits.copy()
            for _, i, alt in combo:
                d2[i] = alt
            g2 = "".join(str(d) if d else "." for d in d2)
            st, sol, _ = _try(g2, min(timeout, 0.2))
            if st == "solved" and count_solutions(parse_line(g2), 2, 0.2).count == 1:
                note = tuple(f"r{i // 9 + 1}c{i % 9 + 1}: {digits[i] or '.'}->{alt or '.'}" for _, i, alt in combo)
                conf = reading.confidence.copy()
                for _, i, alt in combo:
                    conf[i] = float(reading.probs[i][alt])
                return BoardResult("solved", givens=g2, confidence=conf, solution=sol,
                                   message="corrected by the rules: " + ", ".join(note), corrected=note)
    status, solution, message = first
    if status == "solved" and require_unique:
        return BoardResult("unsolvable", givens=givens, confidence=reading.confidence,
                           message="the reading has several solutions (a digit was probably missed)")
    if status == "solved":  # several solutions and no single fix: still draw one, but say so
        return BoardResult("solved", givens=givens, confidence=reading.confidence, solution=solution,
                           message="the reading has several solutions; one is shown")
    return BoardResult(status, givens=givens, confidence=reading.confidence, message=message)


def process_image(image: np.ndarray, reader: DigitReader, timeout: float = 1.0,
                  overrides: dict[int, int] | None = None) -> BoardResult:
    """Grid, digits, rules, solution for one picture (no drawing, no I/O)."""
    t0 = time.perf_counter()
    gray = to_gray(image)
    quad = find_grid(gray)
    if quad is None:
        return BoardResult("no_grid", message="no Sudoku grid found", ms=(time.perf_counter() - t0) * 1e3)
    corners, reading = read_oriented(gray, quad.corners, reader)
    result = check_reading(reading, timeout, overrides=overrides)
    return BoardResult(result.status, corners, result.givens, result.confidence, result.solution,
                       result.message, (time.perf_counter() - t0) * 1e3, result.corrected)
