"""``ar-sudoku solve``: puzzles given as text, solved and printed (or rendered)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ar_sudoku.cli import killer_text
from ar_sudoku.cli.common import (
    EXIT_OK,
    EXIT_UNSOLVED,
    CliError,
    check_image_out,
    help_format,
    positive_seconds,
    write_image,
)
from ar_sudoku.sudoku.killer import Killer
from ar_sudoku.sudoku.logic import explain
from ar_sudoku.sudoku.solver import (
    SYMBOLS,
    ZERO_F,
    Board,
    Box,
    PuzzleFormatError,
    box_label,
    count_solutions,
    format_grid,
    parse_box,
    parse_puzzles_lenient,
    solve,
)
from ar_sudoku.sudoku.steps import NoSolutionError
from ar_sudoku.sudoku.vocabulary import Status


def box_arg(text: str) -> Box:
    """An argparse type for ``--box``: rows x columns of one box (``3x2`` for turned 6x6 boxes)."""
    try:
        return parse_box(text)
    except PuzzleFormatError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


FROM_INTERNAL = str.maketrans(SYMBOLS[:16], ZERO_F)  # solutions printed the way 0-F puzzles are written
SYMBOLS_HELP = ("how 16x16 symbols are written: 1-G (1-9 then A-G, '.' or 0 blank; the default) or 0-F "
                "(0-9 then A-F, '.' blank); solutions are printed the same way")

BOX_HELP = ("one box's rows x columns: 2x3 (the default for 6x6) or 3x2 for 6x6 grids printed with "
            "tall boxes; 2x2, 3x3 and 4x4 are the only boxes of 4x4, 9x9 and 16x16")


def read_stdin() -> str:
    """The puzzles on stdin; a closed stdin (``<&-``) is bad input, said in one line."""
    stream = sys.stdin
    if stream is None or getattr(stream, "closed", False):
        raise CliError("stdin is closed; give the puzzles on stdin, in a file, or as an argument")
    buffer = getattr(stream, "buffer", None)
    try:
        return stream.read() if buffer is None else puzzle_text(buffer.read(), "stdin")
    except OSError as exc:  # stdin on a descriptor that cannot be read (a folder, a closed socket)
        raise CliError(f"stdin cannot be read ({exc.strerror or exc})") from exc


def puzzle_text(data: bytes, source: str) -> str:
    """Puzzle text from bytes: UTF-8 (a byte-order mark ignored), a line that is not UTF-8 kept with its
    stray bytes as they are (the parser names that line and column, and the other lines are solved);
    a file with a NUL byte is no text at all."""
    if b"\0" in data:
        raise CliError(f"{source}: not a text file (puzzles are lines of digits and '.')")
    return data.decode("utf-8-sig", errors="surrogateescape")


def read_puzzle_arg(arg: str) -> str:
    """The puzzle text behind PUZZLE|FILE|-: stdin, a file's text, or the argument itself."""
    if arg == "-":
        return read_stdin()
    if not arg.strip():
        raise CliError("the puzzle is empty; give 81 characters ('.' or 0 for blanks) or a file")
    path = Path(arg)
    try:
        is_dir, is_file = path.is_dir(), path.is_file()
    except OSError:  # e.g. a 256-character puzzle is too long for a file name
        is_dir = is_file = False
    if is_dir:
        raise CliError(f"{arg}: is a folder; give a puzzle file or an 81-character puzzle")
    if is_file:
        try:
            return puzzle_text(path.read_bytes(), arg)
        except OSError as exc:
            raise CliError(f"{arg}: cannot read ({exc.strerror})") from exc
    stripped = arg.strip()
    looks_like_puzzle = len(stripped) in (16, 36, 81, 256) or "\n" in stripped or stripped.startswith("{")
    if not looks_like_puzzle and ("/" in arg or "." in Path(arg).suffix or len(stripped) < 16):
        raise CliError(f"{arg}: no such file, and not a puzzle (81 characters, '.' or 0 for blanks)")
    return arg


MAX_BAD_LINES = 10  # bad puzzles named one a line; more are counted in one summary line


Puzzle = Board | Killer  # a line of a puzzle file: an ordinary puzzle, or a killer one (a JSON object)


def parse_boards(arg: str, lenient: bool = False, box: Box | None = None,
                 symbols: str = "1-G") -> tuple[list[Puzzle], list[PuzzleFormatError]]:
    """The puzzles behind PUZZLE|FILE|-, in line order. Strict: the first bad one is a CliError. ``lenient``: bad
    ones are returned beside the good ones, which are still solved; only a text with no good puzzle fails.
    ``box`` (``--box``) is every ordinary puzzle's box shape; a puzzle it does not fit is a bad one.
    ``symbols`` ``0-F``: 16x16 puzzles written 0-F, read as 1-G (any other size is refused). A line that
    starts with ``{`` is a killer puzzle (``killer_text``)."""
    text = read_puzzle_arg(arg)
    source = "stdin" if arg == "-" else "puzzle" if text is arg else arg
    text, killers, errors = killer_text.split_killers(text)
    if symbols == "0-F":
        every: list[Puzzle] = [*parse_puzzles_lenient(text, box)[0], *killers]
        other = next((b for b in every if b.size != 16), None)
        if other is not None:  # the sizes as written, before the 0-F alphabet is applied
            where = f" (line {other.line})" if other.line else ""
            raise CliError(f"{source}: --symbols 0-F is for 16x16 puzzles; this one{where} is "
                           f"{other.size}x{other.size}")
    boards, bad = parse_puzzles_lenient(text, box, symbols=ZERO_F if symbols == "0-F" else SYMBOLS)
    errors = sorted(errors + bad, key=lambda e: e.line or 0)
    found: list[Puzzle] = sorted([*boards, *killers], key=lambda b: b.line or 0)
    if errors and (not lenient or not found):
        more = f" (and {len(errors) - 1} more bad lines)" if len(errors) > 1 else ""
        raise CliError(f"{source}: {errors[0]}{more}")
    if not found:
        raise CliError(f"{arg}: no puzzle found")
    if errors:
        for exc in errors[:MAX_BAD_LINES]:
            print(f"ar-sudoku: {source}: {exc}; skipped", file=sys.stderr)
        if len(errors) > MAX_BAD_LINES:
            print(f"ar-sudoku: {source}: {len(errors) - MAX_BAD_LINES} more bad lines skipped "
                  f"({len(errors)} in all)", file=sys.stderr)
    return found, errors


class Progress:
    """A bar on stderr while many puzzles are solved (``solve big.txt > out.txt`` on a terminal): shown after
    half a second, gone at the end. None when stderr is not a terminal, or when stdout is one too (the
    solutions scrolling by say how far it got). Lines for stderr go through :meth:`say`, above the bar."""

    DELAY = 0.5  # seconds before the bar shows: a quick run never draws it

    def __init__(self, total: int):
        self.bar = None
        if total > 1 and _is_terminal(sys.stderr) and not _is_terminal(sys.stdout):
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="puzzle", delay=self.DELAY, leave=False, dynamic_ncols=True,
                            file=sys.stderr)

    def step(self) -> None:
        if self.bar is not None:
            self.bar.update()

    def say(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed
        return False


def run(args: argparse.Namespace) -> int:
    if args.png:
        check_image_out(Path(args.png))  # refused before any work: a bad name, a missing or read-only folder
    boards, bad = parse_boards(args.puzzle, lenient=True, box=args.box, symbols=args.symbols)
    if (args.explain or args.json) and args.count:
        raise CliError("--count and --explain/--json do not go together; choose one")
    code = EXIT_UNSOLVED if bad else EXIT_OK  # the good puzzles are solved; the bad ones were named
    progress = Progress(len(boards))
    try:
        for k, board in enumerate(boards, 1):
            if not _solve_one(args, board, k, len(boards), progress.say):
                code = EXIT_UNSOLVED
            progress.step()
    finally:
        progress.close()
    return code


def _solve_one(args: argparse.Namespace, board: Puzzle, k: int, n: int, say: Callable[[str], None]) -> bool:
    """Print puzzle ``k`` of ``n`` as the options ask; False when it has no answer."""
    shown = (lambda text: text.translate(FROM_INTERNAL)) if args.symbols == "0-F" else (lambda text: text)
    label = f"puzzle {k}" + (f" (line {board.line})" if board.line and n > 1 else "")
    index = k if n > 1 else None
    if isinstance(board, Killer):
        return killer_text.solve_one(args, board, label, index, say)
    if args.explain or args.json:
        return _explain(args, board, label, index, shown, say)
    if args.count:
        res = count_solutions(board, 2, args.timeout)
        print(res.label)
        if res.count == 0 and not res.complete:
            say(f"{label}: timed out after {args.timeout:g} s")
        return res.count != 0
    result = solve(board, args.timeout)
    if result.status != Status.SOLVED:
        say(f"{label}: {result.message}")
        if not args.pretty:
            print()  # keep output line k = puzzle k
        return False
    assert result.solution is not None
    print(shown(format_grid(result.solution, board.box) + "\n" if args.pretty else result.solution))
    if args.png:
        _write_png(args.png, board, result.solution, index, say)
    return True


def _explain(args: argparse.Namespace, board: Board, label: str, index: int | None,
             shown: Callable[[str], str], say: Callable[[str], None]) -> bool:
    """Print one puzzle's steps (``--explain``) or its JSON object (``--json``); False when it has no answer."""
    try:
        e = explain(board, args.timeout)
    except NoSolutionError as exc:
        say(f"{label}: {exc}")
        if args.json:  # one object per puzzle, even without an answer
            print(json.dumps({"puzzle": shown(board.to_string()), "size": board.size, "box": box_label(board.box),
                              "solution": None, "logical": False, "rating": None, "steps": [], "error": str(exc)}))
        return False
    if args.json:
        from ar_sudoku.io.records import explanation_json

        obj = explanation_json(e)
        print(json.dumps({**obj, "puzzle": shown(obj["puzzle"]), "solution": shown(obj["solution"])}))
    else:
        for n, step in enumerate(e.steps, 1):
            print(f"{n}. {step}")
        how = "solved by named techniques alone" if e.logical else "needs revealed cells"
        print(f"rating: {e.rating} (hardest step: {e.hardest or 'none'}); {how}")
        print(shown(format_grid(e.solution, board.box) + "\n" if args.pretty else e.solution))
    if args.png:
        _write_png(args.png, board, e.solution, index, say)
    return True


def _write_png(out: str, board: Board, solution: str, index: int | None, say: Callable[[str], None]) -> None:
    from ar_sudoku.vision.render import board_image

    path = Path(out)
    if index is not None:
        path = path.with_name(f"{path.stem}_{index}{path.suffix}")
    write_image(path, board_image(board.to_string(), solution, cell=60 if board.size <= 9 else 40, box=board.box))
    say(f"wrote {path}")  # stdout keeps one line a puzzle


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help="solve puzzles given as text",
        **help_format(
            "Solve each puzzle: an 81-character line ('.' or 0 for a blank), 9 lines of 9 "
            "space-separated digits, or a file with one puzzle a line. 4x4, 6x6 (36 "
            "characters or 6 rows; 2x3 boxes, --box 3x2 for tall ones) and 16x16 (digits 1-9 then A-G) "
            "work too, and killer puzzles: a line that starts with '{' is one, a JSON object "
            "{\"givens\": \"81 chars\", \"cages\": [{\"sum\": 17, \"cells\": [0, 9, 10]}, ...]} (cells 0-80 "
            "row by row; givens may be left out). Exit 0 when all are solved, 1 when any has "
            "no solution or timed out, 2 for bad input.",
            "  ar-sudoku solve 53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\n"
            "  ar-sudoku solve puzzles.txt --pretty\n"
            "  ar-sudoku solve 1....6..3.....14....5....2..4..3...2 --box 3x2 --pretty   # a 6x6 with tall boxes\n"
            "  cat puzzles.txt | ar-sudoku solve - --count\n"
            "  ar-sudoku solve puzzle.txt --png solved.png\n"
            "  ar-sudoku solve puzzle.txt --explain        # every step, easiest technique first\n"
            "  ar-sudoku solve puzzles.txt --json          # one object per puzzle, with rating and steps\n"
            "  ar-sudoku solve killers.jsonl --json        # killer puzzles: the same, with their cages\n",
        ),
    )
    p.add_argument("puzzle", metavar="PUZZLE|FILE|-", help="a puzzle, a file of puzzles, or - for stdin")
    p.add_argument("--pretty", action="store_true", help="print a boxed grid instead of one line")
    p.add_argument("--count", action="store_true", help="print the number of solutions: 0, 1 or 2+")
    p.add_argument("--explain", action="store_true",
                   help="print the steps a person can follow, one a line, then the rating and the solution")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per puzzle: puzzle, size, box, solution, logical, rating, steps "
                        "(a killer puzzle: givens and cages too)")
    p.add_argument("--box", type=box_arg, metavar="RxC", help=BOX_HELP)
    p.add_argument("--symbols", choices=["1-G", "0-F"], default="1-G", help=SYMBOLS_HELP)
    p.add_argument("--png", metavar="OUT.png", help="render the solved grid (givens black, solved blue)")
    p.add_argument("--timeout", type=positive_seconds, default=10.0, metavar="S",
                   help="give up on a puzzle after S seconds (default 10)")
    p.set_defaults(func=run)
