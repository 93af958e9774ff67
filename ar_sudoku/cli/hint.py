"""``ar-sudoku hint``: the next step only, with the reason, so the puzzle is not spoiled.

A mistake in the entries always comes first; otherwise the easiest technique
that applies to the givens plus the (correct) entries; a revealed cell only
when no named technique is left.
"""

from __future__ import annotations

import argparse
import json

from ar_sudoku.cli.common import EXIT_OK, CliError, help_format, positive_seconds
from ar_sudoku.cli.solve import parse_boards
from ar_sudoku.sudoku.logic import next_step


def _entries(text: str | None) -> str | None:
    """The --entries string, checked: 81 characters of 1-9, '.' or '0'."""
    if text is None:
        return None
    entries = text.strip()
    if len(entries) != 81:
        raise CliError(f"--entries: {len(entries)} characters; give 81 (1-9, '.' or 0 for an empty cell)")
    for k, ch in enumerate(entries):
        if ch not in ".0123456789":
            raise CliError(f"--entries: unexpected {ch!r} at column {k + 1} (expected 1-9, '.' or '0')")
    return entries


def run(args: argparse.Namespace) -> int:
    boards, _ = parse_boards(args.puzzle)
    if len(boards) != 1:
        raise CliError(f"{args.puzzle}: {len(boards)} puzzles; a hint is for one puzzle")
    board = boards[0]
    if board.n != 3:
        raise CliError("hints are for 9x9 puzzles only")
    step = next_step(board, _entries(args.entries), reveal_digit=args.reveal, timeout=args.timeout)
    if args.json:
        print(json.dumps(None if step is None else step.to_json()))
    else:
        print("solved: every cell is filled" if step is None else step)
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hint",
        help="the next step of a puzzle and why, without the whole answer",
        **help_format(
            "Print the next step only: a mistake in --entries first (without the right digit "
            "unless --reveal), else the easiest technique that applies, with one sentence "
            "saying why; a cell of the solution only when no named technique is left. "
            "Exit 0 with a hint, 1 when the puzzle has no single solution, 2 for bad input.",
            "  ar-sudoku hint 53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
            "  ar-sudoku hint puzzle.txt --entries ..4.............(81 characters) --json\n",
        ),
    )
    p.add_argument("puzzle", metavar="PUZZLE|FILE|-", help="the givens: a puzzle, a file with one, or - for stdin")
    p.add_argument("--entries", metavar="81-CHARS",
                   help="digits written in so far (1-9, '.' or 0 for none); entries on givens are ignored")
    p.add_argument("--json", action="store_true",
                   help="print the step as {technique, cell, digit, eliminations, cells, text} (null when solved)")
    p.add_argument("--reveal", action="store_true", help="say the right digit of a wrong entry")
    p.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="S",
                   help="give up finding the solution after S seconds (default 10)")
    p.set_defaults(func=run)
