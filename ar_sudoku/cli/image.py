"""``ar-sudoku image``: read, solve and annotate photos (the I/O around ``reading.process_image``)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_UNSOLVED,
    CliError,
    check_image_out,
    help_format,
    positive_seconds,
    refuse_overwriting,
    write_image,
)
from ar_sudoku.sudoku.rules import BoardResult

UNSURE = 0.8  # cells read with less confidence than this are named in the text output
SET_RE = re.compile(r"^r([1-9])c([1-9])=([0-9.])$", re.IGNORECASE)


def parse_sets(items: list[str] | None) -> dict[int, int]:
    """``r3c5=7`` -> {22: 7}; ``=0`` or ``=.`` clears a cell."""
    out: dict[int, int] = {}
    for item in items or []:
        m = SET_RE.match(item.strip())
        if not m:
            raise CliError(f"--set {item}: expected rRcC=D, e.g. r3c5=7 (0 clears the cell)")
        r, c, d = int(m[1]), int(m[2]), m[3]
        out[(r - 1) * 9 + c - 1] = 0 if d in "0." else int(d)
    return out


def read_image(path: Path) -> np.ndarray:
    """Load a photo or raise a one-line reason."""
    if not path.exists():
        raise ValueError("no such file")
    if path.is_dir():
        raise ValueError("is a folder")
    data = np.fromfile(str(path), np.uint8)
    if data.size == 0:
        raise ValueError("empty file")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError("not an image OpenCV can read (corrupt or unknown format)")
    return img


def annotate(image: np.ndarray, result: BoardResult) -> np.ndarray:
    from ar_sudoku.ar.overlay import OverlayRenderer

    out = image.copy()
    if result.solution and result.corners is not None and result.givens:
        side = float(np.hypot(*(result.corners[0] - result.corners[1])))
        OverlayRenderer(cell=max(24, min(96, int(side / 9)))).draw(out, result.corners, result.givens,
                                                                   result.solution)
    return out


def print_text(path: str, result: BoardResult) -> None:
    from ar_sudoku.sudoku.solver import format_grid

    print(f"{path}: {result.status}" + (f" ({result.message})" if result.message else "")
          + f"  [{result.ms:.0f} ms]")
    if result.givens:
        read = format_grid(result.givens).splitlines()
        sol = format_grid(result.solution).splitlines() if result.solution else [""] * len(read)
        print(f"{'read':<27}{'   solution' if result.solution else ''}")
        for a, b in zip(read, sol):
            print(f"{a}   {b}")
        if result.confidence is not None:
            weak = [i for i in range(81) if result.confidence[i] < UNSURE]
            if weak:
                cells = ", ".join(f"r{i // 9 + 1}c{i % 9 + 1}={result.givens[i]} ({result.confidence[i]:.2f})"
                                  for i in weak[:8])
                print(f"least sure of: {cells}" + (" ..." if len(weak) > 8 else "")
                      + "  (fix a misread cell with --set rRcC=D)")
    print()


def out_path(src: Path, args: argparse.Namespace) -> Path | None:
    if args.output:
        return Path(args.output)
    if args.out_dir:
        return Path(args.out_dir) / f"{src.stem}_solved.png"
    return None


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.vision.digits import DigitReader, ModelError
    from ar_sudoku.vision.reading import process_image

    photos = [Path(p) for p in args.photos]
    if args.output and len(photos) > 1:
        raise CliError("-o/--output takes one photo; use --out-dir DIR for several")
    if args.out_dir:
        d = Path(args.out_dir)
        if d.exists() and not d.is_dir():
            raise CliError(f"--out-dir {d}: not a folder")
        d.mkdir(parents=True, exist_ok=True)
    if args.output:
        check_image_out(Path(args.output))
        refuse_overwriting([("--output", args.output)], photos)
    overrides = parse_sets(args.set)
    calib = None
    if args.calibration:
        from ar_sudoku.io.calibration import load_named

        calib = load_named(args.calibration)
    try:
        reader = DigitReader(args.model)
    except ModelError as exc:
        raise CliError(str(exc)) from exc
    code = EXIT_OK
    for src in photos:
        try:
            image = read_image(src)
        except ValueError as exc:
            result = BoardResult("error", message=f"{src}: {exc}")
        else:
            result = None
            if calib is not None:
                from ar_sudoku.vision.camera import CalibrationError

                try:
                    image = calib.undistort_image(image)
                except CalibrationError as exc:
                    result = BoardResult("error", message=f"{src}: {exc}")
            if result is None:
                result = process_image(image, reader, args.timeout, overrides)
        # a photo that cannot be read is bad input (2); one read without an answer is 1
        code = max(code, EXIT_BAD_INPUT if result.status == "error" else EXIT_OK if result.status == "solved"
                   else EXIT_UNSOLVED)
        if args.json:
            print(json.dumps(result.to_json(str(src))), flush=True)
        else:
            print_text(str(src), result)
        dest = out_path(src, args)
        if dest is not None and result.status != "error":
            try:
                refuse_overwriting([("--out-dir", dest)], [src])
                write_image(dest, annotate(image, result))
            except CliError as exc:
                print(f"ar-sudoku: {exc}", file=sys.stderr)
                code = max(code, exc.code)
            else:
                if not args.json:
                    print(f"wrote {dest}\n")
        if result.status == "error":
            print(f"ar-sudoku: {result.message}", file=sys.stderr)
    return code


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "image",
        help="read, solve and annotate photos of puzzles",
        **help_format(
            "Find the puzzle in each photo, read its digits, solve it, and (with -o or --out-dir) "
            "write the photo with the solved digits drawn in the empty cells. Exit 0 when every "
            "photo is solved, 1 when any is not (no grid, unreadable, no solution), 2 for bad usage.",
            "  ar-sudoku image samples/photo.jpg -o solved.png\n"
            "  ar-sudoku image photos/*.jpg --out-dir out/ --json > results.jsonl\n"
            "  ar-sudoku image samples/photo.jpg --set r3c5=7 --set r1c1=0   # correct a misread cell\n",
        ),
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO")
    p.add_argument("-o", "--output", metavar="OUT.png", help="the annotated photo (one photo only)")
    p.add_argument("--out-dir", metavar="DIR", help="write PHOTO_solved.png for each photo here")
    p.add_argument("--json", action="store_true", help="one JSON object per photo on stdout")
    p.add_argument("--set", action="append", metavar="rRcC=D", help="override a read cell (0 clears); repeatable")
    p.add_argument("--timeout", type=positive_seconds, default=1.0, metavar="S",
                   help="solver time limit per photo (default 1)")
    p.add_argument("--model", metavar="PATH", help="another digits.onnx (default: the shipped model)")
    p.add_argument("--calibration", metavar="NAME|PATH", help="undistort with a camera calibration")
    p.set_defaults(func=run)

