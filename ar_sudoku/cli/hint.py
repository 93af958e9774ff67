"""``ar-sudoku hint``: the next step only, with the reason, so the puzzle is not spoiled.

A mistake in the entries always comes first; otherwise the easiest technique
that applies to the givens plus the (correct) entries; a revealed cell only
when no named technique is left.
"""

from __future__ import annotations

import argparse
import json

from ar_sudoku.cli.common import EXIT_OK, CliError, help_format, positive_seconds
from ar_sudoku.cli.solve import BOX_HELP, box_arg, parse_boards
from ar_sudoku.sudoku.killer import Killer
from ar_sudoku.sudoku.killer_logic import next_killer_step
from ar_sudoku.sudoku.logic import next_step
from ar_sudoku.sudoku.solver import SYMBOLS, Board
from ar_sudoku.sudoku.vocabulary import is_empty


def _entries(text: str | None, board: Board | Killer) -> str | None:
    """The --entries string, checked against the puzzle: one symbol a cell (1-9 on 9x9), '.' or '0'."""
    if text is None:
        return None
    entries = text.strip()
    cells, top = board.size * board.size, SYMBOLS[board.size - 1]
    allowed = "1-9" if board.size == 9 else f"1-{top}" if board.size < 9 else f"1-9, A-{top}"
    if len(entries) != cells:
        raise CliError(f"--entries: {len(entries)} characters; give {cells} ({allowed}, '.' or 0 for an empty cell)")
    for k, ch in enumerate(entries):
        if not is_empty(ch) and ch.upper() not in SYMBOLS[: board.size]:
            raise CliError(f"--entries: unexpected {ch!r} at column {k + 1} (expected {allowed}, '.' or '0')")
    return entries


def run(args: argparse.Namespace) -> int:
    boards, _ = parse_boards(args.puzzle, box=args.box)
    if len(boards) != 1:
        raise CliError(f"{args.puzzle}: {len(boards)} puzzles; a hint is for one puzzle")
    board = boards[0]
    if isinstance(board, Killer):
        step = next_killer_step(board, _entries(args.entries, board), reveal_digit=args.reveal, timeout=args.timeout)
    else:
        step = next_step(board, _entries(args.entries, board), reveal_digit=args.reveal, timeout=args.timeout)
    if args.json:
        from ar_sudoku.io.records import step_json

        print(json.dumps(None if step is None else step_json(step)))
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
            "Works on 4x4, 6x6 (2x3 boxes, or --box 3x2), 9x9 and 16x16 puzzles, and on killer puzzles "
            "(a JSON line, as solve reads them: the cage techniques first, the rule of 45, then the ordinary ones). "
            "Exit 0 with a hint, 1 when the puzzle has no single solution, 2 for bad input.",
            "  ar-sudoku hint 53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
            "  ar-sudoku hint puzzle.txt --entries ..4.............(81 characters) --json\n"
            "  ar-sudoku hint killer.jsonl   # a killer puzzle: one JSON line\n",
        ),
    )
    p.add_argument("puzzle", metavar="PUZZLE|FILE|-", help="the givens: a puzzle, a file with one, or - for stdin")
    p.add_argument("--entries", metavar="81-CHARS",
                   help="digits written in so far, one a cell (1-9, '.' or 0 for none; 36 for a 6x6); "
                        "entries on givens are ignored")
    p.add_argument("--box", type=box_arg, metavar="RxC", help=BOX_HELP)
    p.add_argument("--json", action="store_true",
                   help="print the step as {technique, cell, digit, eliminations, cells, text} (null when solved)")
    p.add_argument("--reveal", action="store_true", help="say the right digit of a wrong entry")
    p.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="S",
                   help="give up finding the solution after S seconds (default 10)")
    p.set_defaults(func=run)
