"""``ar-sudoku generate``: new puzzles with one solution, and a printable sheet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ar_sudoku.cli.common import EXIT_OK, EXIT_UNSOLVED, CliError, check_image_out, help_format, write_image
from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io.files import OutputError, check_output, write_text


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.sudoku.generator import generate_many
    from ar_sudoku.vision.render import sheet_png, sheet_svg

    if args.count < 1:
        raise CliError("--count must be at least 1")
    if args.sheet:
        sheet = Path(args.sheet)
        if sheet.suffix.lower() != ".svg":
            check_image_out(sheet)
        else:
            try:
                check_output(sheet)
            except OutputError as exc:
                raise CliError(str(exc)) from exc
    puzzles = generate_many(args.difficulty, args.count, args.seed)
    for p in puzzles:
        print(p.puzzle)
        print(
            f"# {p.rating.level}, {p.clues} clues, seed {p.seed}, "
            f"singles {p.rating.naked}+{p.rating.hidden}, hardest step: {p.rating.hardest}",
            file=sys.stderr,
        )
    if args.sheet:
        p = puzzles[0]
        path = Path(args.sheet)
        title = f"ar-sudoku  -  {p.rating.level}  -  seed {p.seed}"
        if path.suffix.lower() == ".svg":
            try:
                write_text(path, sheet_svg(p.puzzle, title))
            except ArSudokuError as exc:
                raise CliError(str(exc), EXIT_UNSOLVED) from exc
        else:
            write_image(path, sheet_png(p.puzzle, title))
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="make new puzzles with one solution, and a printable sheet",
        **help_format(
            "Generate puzzles with exactly one solution, rated by the hardest technique they need: "
            "easy (singles only), medium (pointing or claiming), hard (pairs, triples, fish or wings). "
            "The same seed gives the same puzzles. Puzzles go to stdout, one a line; ratings to stderr. "
            "See how one is solved with: ar-sudoku solve PUZZLE --explain",
            "  ar-sudoku generate --difficulty hard --count 5 --seed 42\n"
            "  ar-sudoku generate --sheet puzzle.png   # print it, point the webcam at it\n",
        ),
    )
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="medium")
    p.add_argument("--count", type=int, default=1, metavar="N")
    p.add_argument("--seed", type=int, default=None, metavar="S")
    p.add_argument("--sheet", metavar="OUT.png|OUT.svg", help="render the first puzzle as a printable page")
    p.set_defaults(func=run)
