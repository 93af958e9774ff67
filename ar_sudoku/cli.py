"""The ``ar-sudoku`` command: argparse subcommands, each a function returning an exit code.

Exit codes everywhere: 0 all done, 1 some input had no answer (no solution,
timed out, no grid), 2 bad input or usage. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ar_sudoku import __version__

if TYPE_CHECKING:
    import numpy as np

    from ar_sudoku.solver import Board

EXIT_OK, EXIT_UNSOLVED, EXIT_BAD_INPUT = 0, 1, 2


class CliError(Exception):
    """A problem the user can fix; printed as one line, exit code 2."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = code


def _fmt(description: str, examples: str) -> dict:
    return {
        "description": description,
        "epilog": "examples:\n" + examples,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


# --------------------------------------------------------------------------- solve


def _read_puzzle_arg(arg: str) -> str:
    if arg == "-":
        return sys.stdin.read()
    path = Path(arg)
    try:
        is_dir, is_file = path.is_dir(), path.is_file()
    except OSError:  # e.g. a 256-character puzzle is too long for a file name
        is_dir = is_file = False
    if is_dir:
        raise CliError(f"{arg}: is a folder; give a puzzle file or an 81-character puzzle")
    if is_file:
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CliError(f"{arg}: cannot read ({exc.__class__.__name__}: {exc})") from exc
    stripped = arg.strip()
    looks_like_puzzle = len(stripped) in (16, 81, 256) or "\n" in stripped
    if not looks_like_puzzle and ("/" in arg or "." in Path(arg).suffix or len(stripped) < 16):
        raise CliError(f"{arg}: no such file, and not a puzzle (81 characters, '.' or 0 for blanks)")
    return arg


def cmd_solve(args: argparse.Namespace) -> int:
    from ar_sudoku.solver import PuzzleFormatError, count_solutions, format_grid, parse_puzzles, solve

    text = _read_puzzle_arg(args.puzzle)
    source = "stdin" if args.puzzle == "-" else "puzzle" if text is args.puzzle else args.puzzle
    try:
        boards = parse_puzzles(text)
    except PuzzleFormatError as exc:
        raise CliError(f"{source}: {exc}") from exc
    if not boards:
        raise CliError(f"{args.puzzle}: no puzzle found")
    code = EXIT_OK
    for k, board in enumerate(boards, 1):
        label = f"puzzle {k}" + (f" (line {board.line})" if board.line and len(boards) > 1 else "")
        if args.count:
            res = count_solutions(board, 2, args.timeout)
            print(res.label)
            if res.count == 0:
                code = EXIT_UNSOLVED
                if not res.complete:
                    print(f"{label}: timed out after {args.timeout:g} s", file=sys.stderr)
            continue
        result = solve(board, args.timeout)
        if result.status != "solved":
            print(f"{label}: {result.message}", file=sys.stderr)
            code = EXIT_UNSOLVED
            if not args.pretty:
                print()  # keep output line k = puzzle k
            continue
        assert result.solution is not None
        print(format_grid(result.solution, board.n) + "\n" if args.pretty else result.solution)
        if args.png:
            _write_png(args.png, board, result.solution, k if len(boards) > 1 else None)
    return code


def _write_png(out: str, board: Board, solution: str, index: int | None) -> None:
    from ar_sudoku.render import board_image

    path = Path(out)
    if index is not None:
        path = path.with_name(f"{path.stem}_{index}{path.suffix}")
    img = board_image(board.to_string(), solution, n=board.n, cell=60 if board.n <= 3 else 40)
    if not _imwrite(path, img):
        raise CliError(f"{path}: cannot write the image", EXIT_BAD_INPUT)


def _imwrite(path: Path, img: np.ndarray) -> bool:
    import cv2

    if path.suffix.lower() not in (".png", ".jpg", ".jpeg", ".bmp"):
        raise CliError(f"{path}: give a .png or .jpg file name")
    if not path.parent.exists():
        raise CliError(f"{path}: the folder {path.parent} does not exist")
    try:
        return bool(cv2.imwrite(str(path), img))
    except cv2.error:
        return False


# --------------------------------------------------------------------------- generate


def cmd_generate(args: argparse.Namespace) -> int:
    from ar_sudoku.generator import generate_many
    from ar_sudoku.render import sheet_png, sheet_svg

    if args.count < 1:
        raise CliError("--count must be at least 1")
    puzzles = generate_many(args.difficulty, args.count, args.seed)
    for p in puzzles:
        print(p.puzzle)
        print(
            f"# {p.rating.level}, {p.clues} clues, seed {p.seed}, "
            f"singles {p.rating.naked}+{p.rating.hidden}, guesses {p.rating.guesses}",
            file=sys.stderr,
        )
    if args.sheet:
        p = puzzles[0]
        path = Path(args.sheet)
        title = f"ar-sudoku  -  {p.rating.level}  -  seed {p.seed}"
        if path.suffix.lower() == ".svg":
            if not path.parent.exists():
                raise CliError(f"{path}: the folder {path.parent} does not exist")
            path.write_text(sheet_svg(p.puzzle, title), encoding="utf-8")
        elif not _imwrite(path, sheet_png(p.puzzle, title)):
            raise CliError(f"{path}: cannot write the sheet")
        print(f"wrote {path}", file=sys.stderr)
    return EXIT_OK


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ar-sudoku",
        **_fmt(
            "Real-time augmented-reality Sudoku solver: point a webcam at a puzzle "
            "and the missing digits appear on the paper.",
            "  ar-sudoku solve samples/puzzles.txt --pretty\n"
            "  ar-sudoku generate --difficulty hard --sheet puzzle.png\n",
        ),
    )
    parser.add_argument("--version", action="version", version=f"ar-sudoku {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "solve",
        help="solve puzzles given as text",
        **_fmt(
            "Solve each puzzle: an 81-character line ('.' or 0 for a blank), 9 lines of 9 "
            "space-separated digits, or a file with one puzzle a line. 4x4 and 16x16 "
            "(digits 1-9 then A-G) work too. Exit 0 when all are solved, 1 when any has "
            "no solution or timed out, 2 for bad input.",
            "  ar-sudoku solve 53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
            "  ar-sudoku solve puzzles.txt --pretty\n"
            "  cat puzzles.txt | ar-sudoku solve - --count\n"
            "  ar-sudoku solve puzzle.txt --png solved.png\n",
        ),
    )
    p.add_argument("puzzle", metavar="PUZZLE|FILE|-", help="a puzzle, a file of puzzles, or - for stdin")
    p.add_argument("--pretty", action="store_true", help="print a boxed grid instead of one line")
    p.add_argument("--count", action="store_true", help="print the number of solutions: 0, 1 or 2+")
    p.add_argument("--png", metavar="OUT.png", help="render the solved grid (givens black, solved blue)")
    p.add_argument("--timeout", type=float, default=10.0, metavar="S",
                   help="give up on a puzzle after S seconds (default 10)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser(
        "generate",
        help="make new puzzles with one solution, and a printable sheet",
        **_fmt(
            "Generate puzzles with exactly one solution, rated easy (naked singles), "
            "medium (hidden singles) or hard (needs guessing). The same seed gives the "
            "same puzzles. Puzzles go to stdout, one a line; ratings to stderr.",
            "  ar-sudoku generate --difficulty hard --count 5 --seed 42\n"
            "  ar-sudoku generate --sheet puzzle.png   # print it, point the webcam at it\n",
        ),
    )
    p.add_argument("--difficulty", choices=["easy", "medium", "hard"], default="medium")
    p.add_argument("--count", type=int, default=1, metavar="N")
    p.add_argument("--seed", type=int, default=None, metavar="S")
    p.add_argument("--sheet", metavar="OUT.png|OUT.svg", help="render the first puzzle as a printable page")
    p.set_defaults(func=cmd_generate)

    _add_more_commands(sub)
    return parser


def _add_more_commands(sub: argparse._SubParsersAction) -> None:
    """Commands that live in their own modules (photo, video, live, calibrate)."""
    for register in _REGISTRARS:
        register(sub)


_REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = []


def quiet_opencv() -> None:
    """Our one-line messages replace OpenCV's and FFmpeg's own logs (set the variables to see them)."""
    import os

    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    if "cv2" in sys.modules:
        import cv2

        with contextlib.suppress(AttributeError):
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def main(argv: Sequence[str] | None = None) -> int:
    quiet_opencv()
    import ar_sudoku.calib_cli  # noqa: F401  (these register their subcommands)
    import ar_sudoku.live_cli  # noqa: F401
    import ar_sudoku.photo_cli  # noqa: F401

    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["live", *argv]  # `ar-sudoku` alone opens the webcam
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"ar-sudoku: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("ar-sudoku: interrupted", file=sys.stderr)
        return 130


def run() -> None:
    """Console-script entry point."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # `ar-sudoku solve big.txt | head`: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_OK
    sys.exit(code)
