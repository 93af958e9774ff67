"""``ar-sudoku image``: read, solve and annotate photos (the I/O around ``reading.process_image``)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ar_sudoku.ar.marks import MODES, Mode
from ar_sudoku.ar.photo import PhotoAnalysis
from ar_sudoku.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_UNSOLVED,
    CliError,
    check_image_out,
    help_format,
    positive_seconds,
    refuse_overwriting,
    usable_cores,
    write_image,
)
from ar_sudoku.errors import ArSudokuError
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


def print_text(path: str, result: BoardResult, reveal: bool = True) -> None:
    """The reading and (when ``reveal``) the solution side by side, and the cells least sure of."""
    from ar_sudoku.sudoku.solver import format_grid

    print(f"{path}: {result.status}" + (f" ({result.message})" if result.message else "")
          + f"  [{result.ms:.0f} ms]")
    if result.unreadable and result.status == "solved":
        print("unreadable (glare?), no answer drawn there: "
              + ", ".join(f"r{i // 9 + 1}c{i % 9 + 1}" for i in result.unreadable))
    if result.givens:
        read = format_grid(result.givens).splitlines()
        shown = result.solution if reveal else None
        sol = format_grid(shown).splitlines() if shown else [""] * len(read)
        print(f"{'read':<27}{'   solution' if shown else ''}")
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


@dataclass(frozen=True)
class PhotoJob:
    """What every photo of one run shares; sent once to each worker process with ``--jobs``."""

    model: str | None
    timeout: float
    overrides: dict[int, int]
    calibration: str | None
    out: str | None  # -o OUT (one photo)
    out_dir: str | None
    show: Mode = "answer"
    threads: int = 1  # onnxruntime threads per process: the cores the other processes leave free


@dataclass(frozen=True)
class PhotoDone:
    """One photo's outcome, back from the worker: the result, and the annotated file or why it failed."""

    src: str
    analysis: PhotoAnalysis
    wrote: str | None = None
    write_error: CliError | None = None


_reader = None  # one model session per process


def _readers_for(job: PhotoJob):
    """The digit and cell-kind models, loaded once per process."""
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    global _reader
    if _reader is None:
        _reader = (DigitReader(job.model, threads=job.threads), KindReader(threads=job.threads))
    return _reader


def read_photo(src: Path, job: PhotoJob) -> PhotoDone:
    """Decode, read, solve and (if asked) annotate one photo; never raises for a bad photo."""
    from ar_sudoku.ar.photo import analyse, annotate
    from ar_sudoku.io.images import read_image

    dest = Path(job.out) if job.out else Path(job.out_dir) / f"{src.stem}_solved.png" if job.out_dir else None
    t0 = time.perf_counter()
    try:
        # an annotated copy needs the photo at full size; a reading does not
        photo = read_image(src, full=dest is not None or job.calibration is not None)
        image = photo.image
        if job.calibration is not None:
            from ar_sudoku.io.calibration import load_named

            image = load_named(job.calibration).undistort_image(image)
    except ArSudokuError as exc:
        return PhotoDone(str(src), PhotoAnalysis(BoardResult("error", message=f"{src}: {exc}"), job.show))
    digits, kinds = _readers_for(job)
    done = analyse(image, digits, timeout=job.timeout, overrides=job.overrides, show=job.show,
                   scale=photo.scale, kinds=kinds)
    # decoding included: what a user waits for
    done = replace(done, result=replace(done.result, ms=(time.perf_counter() - t0) * 1e3))
    if dest is None:
        return PhotoDone(str(src), done)
    try:
        refuse_overwriting([("--out-dir" if job.out_dir else "--output", dest)], [src])
        write_image(dest, annotate(image, done))
    except CliError as exc:
        return PhotoDone(str(src), done, write_error=exc)
    return PhotoDone(str(src), done, wrote=str(dest))


# Worker processes pay for their start (an interpreter and the models, ~0.6 s each) only on enough work. The
# work is estimated from the files, one process reading with two model threads: ~20 ms a photo, plus decoding
# and the larger grid of a big photo, ~30 ms a MB (a 640x480 JPEG is ~50 kB and takes ~22 ms; a 12 MP phone
# photo ~0.8 MB and ~45 ms). Measured, whole process, one process vs two: 16 12 MP photos 1.02-1.03 s vs
# 1.04-1.08 s; 40 written-on 640x480 photos 1.36-1.38 s vs 1.29-1.34 s; 40 12 MP photos 2.06-2.10 s vs
# 1.63-1.68 s; 124 written-on 640x480 photos 3.75-3.78 s vs 2.80-2.92 s.
SECONDS_A_PHOTO = 0.02
SECONDS_A_MB = 0.03
WORTH_PROCESSES = 1.2  # estimated seconds of reading from which two processes finish clearly sooner


def expand_folders(paths: list[Path]) -> list[Path]:
    """Each folder given as a photo stands for the photos in it (sorted by name), as ``video FOLDER`` reads them."""
    from ar_sudoku.io.sources import IMAGE_EXT

    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_EXT)
        if not found:
            raise CliError(f"{path}: no photos in this folder (looked for {', '.join(sorted(IMAGE_EXT))})")
        out += found
    return out


def estimated_seconds(photos: list[Path]) -> float:
    """How long one process (two model threads) would take to read ``photos``, from their files' sizes."""
    total = 0.0
    for p in photos:
        try:
            size = p.stat().st_size
        except OSError:  # reported per photo later
            size = 0
        total += SECONDS_A_PHOTO + SECONDS_A_MB * size / 1e6
    return total


def auto_jobs(photos: list[Path]) -> int:
    """Processes when ``--jobs`` is not given: one per core this process may use, when there is enough work.

    A single photo, or a few, are read sooner by one process that lends the models the free cores.
    """
    if estimated_seconds(photos) < WORTH_PROCESSES:
        return 1
    return max(1, min(usable_cores(), len(photos) // 8))


def model_threads(jobs: int) -> int:
    """onnxruntime threads for each of ``jobs`` processes: the cores left free by the others.

    One photo at a time on two cores: the models' batched calls take half the time on two threads
    (a written-on 640x480 photo's ~12 ms of model time becomes ~6); with a process per core, one each.
    """
    return max(1, usable_cores() // max(1, jobs))


def _photos_in_order(photos: list[Path], job: PhotoJob, jobs: int) -> Iterator[PhotoDone]:
    """Each photo's outcome, in the order given; with ``jobs`` > 1 read by that many processes."""
    if jobs <= 1 or len(photos) < 2:
        for src in photos:
            yield read_photo(src, job)
        return
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial
    from multiprocessing import get_context

    from ar_sudoku.io.memory import keep_freed_memory

    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"), initializer=keep_freed_memory) as pool:
        yield from pool.map(partial(read_photo, job=job), photos, chunksize=4)


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    photos = expand_folders([Path(p) for p in args.photos])
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
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    jobs = args.jobs if args.jobs is not None else auto_jobs(photos)
    show = "check" if args.check else args.show
    job = PhotoJob(args.model, args.timeout, parse_sets(args.set), args.calibration, args.output, args.out_dir, show,
                   model_threads(jobs))
    if args.calibration:
        from ar_sudoku.io.calibration import load_named

        load_named(args.calibration)  # a bad calibration fails once, before any photo
    DigitReader(args.model)  # likewise a missing model
    KindReader()
    code = EXIT_OK
    for done in _photos_in_order(photos, job, jobs):
        result, marks = done.analysis.result, done.analysis.marks
        # a photo that cannot be read is bad input (2); one read without an answer is 1
        code = max(code, EXIT_BAD_INPUT if result.status == "error" else EXIT_OK if result.status == "solved"
                   else EXIT_UNSOLVED)
        if args.json:
            print(json.dumps(done.analysis.to_json(done.src)), flush=True)
        else:
            print_text(done.src, result, reveal=show == "answer")
            if result.written is not None and result.solution:
                for line in result.written.mistake_lines(result.solution, reveal=show == "answer"):
                    print(line)
            if marks is not None and marks.text:
                print(f"{show}: {marks.text}\n")
        if done.write_error is not None:
            print(f"ar-sudoku: {done.write_error}", file=sys.stderr)
            code = max(code, done.write_error.code)
        elif done.wrote and not args.json:
            print(f"wrote {done.wrote}\n")
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
            "  ar-sudoku image photos/ --out-dir out/ --json > results.jsonl   # a folder: every photo in it\n"
            "  ar-sudoku image samples/photo.jpg --set r3c5=7 --set r1c1=0   # correct a misread cell\n",
        ),
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="photo files, or folders of them")
    p.add_argument("-o", "--output", metavar="OUT.png", help="the annotated photo (one photo only)")
    p.add_argument("--out-dir", metavar="DIR", help="write PHOTO_solved.png for each photo here")
    p.add_argument("--json", action="store_true", help="one JSON object per photo on stdout")
    p.add_argument("--set", action="append", metavar="rRcC=D", help="override a read cell (0 clears); repeatable")
    p.add_argument("--timeout", type=positive_seconds, default=1.0, metavar="S",
                   help="solver time limit per photo (default 1)")
    p.add_argument("--model", metavar="PATH", help="another digits.onnx (default: the shipped model)")
    p.add_argument("--calibration", metavar="NAME|PATH", help="undistort with a camera calibration")
    p.add_argument("--show", choices=MODES, default="answer",
                   help="answer: every missing digit (default); check: mistakes only; hint: the next step only")
    p.add_argument("--check", action="store_true", help="same as --show check: mark mistakes, reveal nothing")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="read photos in N processes (default: one per core when there is a second or more of "
                        "work, judged from the files' sizes, else 1; the output order is kept)")
    p.set_defaults(func=run)

