"""``ar-sudoku generate``: new puzzles with one solution, and a printable sheet."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ar_sudoku.cli.common import EXIT_OK, EXIT_UNSOLVED, CliError, check_image_out, help_format, write_image
from ar_sudoku.cli.solve import BOX_HELP, box_arg
from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io.files import OutputError, check_output, write_text


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.sudoku.generator import generate_many
    from ar_sudoku.sudoku.solver import box_label, default_box
    from ar_sudoku.vision.render import sheet_png, sheet_svg

    if args.count < 1:
        raise CliError("--count must be at least 1")
    if args.variant == "killer":
        return _killers(args)
    args.difficulty = args.difficulty or "medium"
    box = args.box or default_box(args.size or 9)
    if args.size is not None and box[0] * box[1] != args.size:
        raise CliError(f"--box {box_label(box)} does not fit --size {args.size}: its grid is "
                       f"{box[0] * box[1]}x{box[0] * box[1]}")
    _checked_sheet(args.sheet)
    puzzles = generate_many(args.difficulty, args.count, args.seed, box)
    for p in puzzles:
        print(p.puzzle)
        print(
            f"# {p.size}x{p.size} ({box_label(p.box)} boxes), {p.rating.level}, {p.clues} clues, seed {p.seed}, "
            f"singles {p.rating.naked}+{p.rating.hidden}, hardest step: {p.rating.hardest}",
            file=sys.stderr,
        )
    if args.sheet:
        p = puzzles[0]
        path = Path(args.sheet)
        title = f"ar-sudoku  -  {p.rating.level}  -  seed {p.seed}"
        if p.size != 9:
            title = f"ar-sudoku  -  {p.size}x{p.size}  -  {p.rating.level}  -  seed {p.seed}"
        if path.suffix.lower() == ".svg":
            try:
                write_text(path, sheet_svg(p.puzzle, title, box=p.box))
            except ArSudokuError as exc:
                raise CliError(str(exc), EXIT_UNSOLVED) from exc
        else:
            write_image(path, sheet_png(p.puzzle, title, box=p.box))
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


def _killers(args: argparse.Namespace) -> int:
    """``--variant killer``: killer puzzles as JSON lines (what ``solve`` reads), the first drawn as a sheet."""
    import json

    from ar_sudoku.io.records import cages_json
    from ar_sudoku.sudoku.killer_generator import generate_killers
    from ar_sudoku.vision.killer_render import killer_sheet_png, killer_sheet_svg

    if (args.size not in (None, 9)) or (args.box not in (None, (3, 3))):
        raise CliError("--variant killer makes 9x9 puzzles; leave out --size and --box")
    sheet = _checked_sheet(args.sheet)
    puzzles = generate_killers(args.count, args.seed, args.difficulty)
    for p in puzzles:
        print(json.dumps({"givens": p.killer.to_string(), "cages": cages_json(p.killer.cages)}))
        print(f"# killer, {p.level}, {len(p.killer.cages)} cages, {p.clues} givens, seed {p.seed}, "
              f"hardest step: {p.hardest}", file=sys.stderr)
    if sheet is not None:
        p = puzzles[0]
        title = f"ar-sudoku  -  killer  -  {p.level}  -  seed {p.seed}"
        if sheet.suffix.lower() == ".svg":
            try:
                write_text(sheet, killer_sheet_svg(p.killer, title))
            except ArSudokuError as exc:
                raise CliError(str(exc), EXIT_UNSOLVED) from exc
        else:
            write_image(sheet, killer_sheet_png(p.killer, title))
        print(f"wrote {sheet}", file=sys.stderr)
    return EXIT_OK


def _checked_sheet(name: str | None) -> Path | None:
    """``--sheet``, refused before any work when it cannot be written."""
    if not name:
        return None
    sheet = Path(name)
    if sheet.suffix.lower() != ".svg":
        check_image_out(sheet)
    else:
        try:
            check_output(sheet)
        except OutputError as exc:
            raise CliError(str(exc)) from exc
    return sheet


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="make new puzzles with one solution, and a printable sheet",
        **help_format(
            "Generate puzzles with exactly one solution, rated by the hardest technique they need: "
            "easy (singles only), medium (pointing or claiming), hard (pairs, triples, fish or wings). "
            "The same seed gives the same puzzles. Puzzles go to stdout, one a line; ratings to stderr. "
            "--size 4, 6 or 16 makes smaller or larger grids (6x6 with 2x3 boxes; --box 3x2 for tall ones); "
            "a small grid may not reach the asked difficulty, and the rating then says what it got. "
            "--variant killer makes killer puzzles (cages with sums, few or no givens), one JSON line each, "
            "as solve reads them; without --difficulty the first one made, whatever its rating. "
            "See how one is solved with: ar-sudoku solve PUZZLE --explain",
            "  ar-sudoku generate --difficulty hard --count 5 --seed 42\n"
            "  ar-sudoku generate --sheet puzzle.png   # print it, point the webcam at it\n"
            "  ar-sudoku generate --size 6 --box 3x2 --seed 7 --sheet six.svg\n"
            "  ar-sudoku generate --variant killer --seed 3 --sheet killer.png\n",
        ),
    )
    p.add_argument("--variant", choices=["classic", "killer"], default="classic",
                   help="classic Sudoku (default) or killer: cages whose digits add up to a printed sum")
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default=None,
                   help="the hardest technique needed (default medium; killer: any)")
    p.add_argument("--count", type=int, default=1, metavar="N")
    p.add_argument("--seed", type=int, default=None, metavar="S")
    p.add_argument("--size", type=int, choices=[4, 6, 9, 16], default=None,
                   help="the grid's side (default 9, or the one --box sets)")
    p.add_argument("--box", type=box_arg, metavar="RxC", help=BOX_HELP)
    p.add_argument("--sheet", metavar="OUT.png|OUT.svg", help="render the first puzzle as a printable page")
    p.set_defaults(func=run)
