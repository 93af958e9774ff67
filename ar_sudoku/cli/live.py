"""``ar-sudoku live`` (and ``ar-sudoku`` alone): the webcam, with the solution drawn on the paper.

The frame loop is ``cli.frames``; opening the run and its closing line, ``cli.capture``.
"""

from __future__ import annotations

import argparse

from ar_sudoku.cli.capture import add_common, run_capture
from ar_sudoku.cli.common import help_format, refuse_overwriting


def camera_index(text: str) -> int:
    """An argparse type: a camera index 0, 1, 2, ... (OpenCV crashes on some negative ones)."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a camera number (0, 1, 2, ...)") from exc
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: camera numbers start at 0")
    return value


def run(args: argparse.Namespace) -> int:
    refuse_overwriting([("--output", args.output), ("--jsonl", args.jsonl)], [])
    return run_capture(args, args.camera, headless=args.headless, progress=False, need_solution=False)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "live",
        help="the webcam view with solved digits drawn on the paper (the default)",
        **help_format(
            "Open the webcam and draw the solution on the puzzle as you move it. Keys: q/Esc quit, "
            "space pause, s save a PNG snapshot, i hide/show the status box; a answer, c check (mistakes "
            "only), h hint, n next hint. Click a cell and type a digit (0 or Backspace clears) to correct a "
            "misread given.",
            "  ar-sudoku live\n  ar-sudoku live --camera 1 --output demo.mp4 --no-status\n",
        ),
    )
    p.add_argument("--camera", type=camera_index, default=0, metavar="N", help="camera index (default 0)")
    p.add_argument("--headless", action="store_true", help="no window (record with --output)")
    add_common(p)
    p.set_defaults(func=run)
