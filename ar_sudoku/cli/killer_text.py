"""Killer puzzles as text for ``solve`` and ``hint``: found among the lines of a puzzle file, solved and printed.

A killer puzzle is one JSON object on a line (``{"givens": "...", "cages": [{"sum": 17, "cells": [0, 9, 10]}]}``);
any line of a puzzle file that starts with ``{`` is one. They may stand among ordinary puzzles: the killer
lines are taken out (left blank, so that the ordinary puzzles keep their line numbers) and read here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ar_sudoku.sudoku.killer import Killer, is_killer_line, parse_killer_line
from ar_sudoku.sudoku.solver import PuzzleFormatError, format_grid
from ar_sudoku.sudoku.vocabulary import Status


def split_killers(text: str) -> tuple[str, list[Killer], list[PuzzleFormatError]]:
    """The text with its killer lines blanked, the killer puzzles read from them, and their errors."""
    lines = text.removeprefix("\ufeff").splitlines()
    killers: list[Killer] = []
    errors: list[PuzzleFormatError] = []
    for n, line in enumerate(lines, 1):
        if is_killer_line(line):
            lines[n - 1] = ""
            try:
                killers.append(parse_killer_line(line.strip(), n))
            except PuzzleFormatError as exc:
                errors.append(exc)
    return "\n".join(lines), killers, errors


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


def solve_one(args: argparse.Namespace, killer: Killer, label: str, index: int | None,
              say: Callable[[str], None] = _stderr) -> bool:
    """``solve`` for one killer puzzle (plain, ``--pretty``, ``--count``, ``--explain`` or ``--json``); False when
    it has no answer. ``say``: a line for stderr (above ``solve``'s progress bar)."""
    from ar_sudoku.sudoku.killer_solver import count_killer, solve_killer

    if args.explain or args.json:
        return _explain(args, killer, label, index, say)
    if args.count:
        res = count_killer(killer, 2, args.timeout)
        print(res.label)
        if res.count == 0 and not res.complete:
            say(f"{label}: timed out after {args.timeout:g} s")
        return res.count > 0
    result = solve_killer(killer, args.timeout)
    if result.status != Status.SOLVED or result.solution is None:
        say(f"{label}: {result.message}")
        if not args.pretty:
            print()  # keep output line k = puzzle k
        return False
    print(format_grid(result.solution) + "\n" if args.pretty else result.solution)
    if args.png:
        write_png(args.png, killer, result.solution, index, say)
    return True


def _explain(args: argparse.Namespace, killer: Killer, label: str, index: int | None,
             say: Callable[[str], None]) -> bool:
    from ar_sudoku.io.records import cages_json, killer_explanation_json
    from ar_sudoku.sudoku.killer_logic import explain_killer
    from ar_sudoku.sudoku.steps import NoSolutionError

    try:
        e = explain_killer(killer, args.timeout)
    except NoSolutionError as exc:
        say(f"{label}: {exc}")
        if args.json:
            print(json.dumps({"puzzle": killer.to_string(), "givens": killer.to_string(), "size": 9, "box": "3x3",
                              "cages": cages_json(killer.cages), "solution": None, "logical": False, "rating": None,
                              "steps": [], "error": str(exc)}))
        return False
    if args.json:
        print(json.dumps(killer_explanation_json(e)))
    else:
        for n, step in enumerate(e.steps, 1):
            print(f"{n}. {step}")
        how = "solved by named techniques alone" if e.logical else "needs revealed cells"
        print(f"rating: {e.rating} (hardest step: {e.hardest or 'none'}); {how}")
        print(format_grid(e.solution) + "\n" if args.pretty else e.solution)
    if args.png:
        write_png(args.png, killer, e.solution, index, say)
    return True


def write_png(out: str, killer: Killer, solution: str, index: int | None,
              say: Callable[[str], None] = _stderr) -> None:
    """The solved killer grid as a picture: cages, sums, givens, and the answers in blue."""
    from ar_sudoku.cli.common import write_image
    from ar_sudoku.vision.killer_render import killer_image

    path = Path(out)
    if index is not None:
        path = path.with_name(f"{path.stem}_{index}{path.suffix}")
    write_image(path, killer_image(killer, solution))
    say(f"wrote {path}")
