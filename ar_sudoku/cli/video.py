"""``ar-sudoku video``: every frame of a video file (or a folder of photos, or one photo), annotated.

The frame loop is ``cli.frames``; opening the run and its closing line, ``cli.capture``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ar_sudoku.cli.capture import add_common, run_capture
from ar_sudoku.cli.common import help_format, refuse_overwriting


def _inputs(path: str) -> list[Path]:
    """The files a run reads: the path itself, or the images of a folder."""
    p = Path(path)
    return [p, *sorted(p.iterdir())] if p.is_dir() else [p]


def run(args: argparse.Namespace) -> int:
    refuse_overwriting([("--output", args.output), ("--jsonl", args.jsonl)], _inputs(args.path))
    # a file in which no puzzle was ever solved has no answer (exit 1)
    return run_capture(args, args.path, headless=args.headless, progress=args.headless, need_solution=True)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "video",
        help="annotate a video file (or a folder of images, or one image), headless or on screen",
        **help_format(
            "Process every frame of a video in order and draw the solution on the puzzle. With "
            "--headless no window opens and a progress bar shows frames, fps and time left.",
            "  ar-sudoku video samples/demo.mp4 --headless --output annotated.mp4\n"
            "  ar-sudoku video clip.mp4 --headless --jsonl frames.jsonl\n"
            "  ar-sudoku video photos/ --headless --output slideshow.avi\n",
        ),
    )
    p.add_argument("path", metavar="PATH", help="a video file, an image, or a folder of images")
    p.add_argument("--headless", action="store_true", help="no window; show a progress bar")
    add_common(p)
    p.set_defaults(func=run)
