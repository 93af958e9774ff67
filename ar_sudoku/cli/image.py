"""``ar-sudoku image``: read, solve and annotate photos (the I/O around ``reading.process_image``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Generator
from dataclasses import dataclass, replace
from pathlib import Path

from ar_sudoku import signals
from ar_sudoku.ar.marks import MODES, Mode
from ar_sudoku.ar.photo import PhotoAnalysis
from ar_sudoku.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_UNSOLVED,
    MAX_PIXELS_HELP,
    CliError,
    check_image_out,
    help_format,
    pixel_count,
    positive_seconds,
    refuse_overwriting,
    usable_cores,
)
from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io.files import Staged
from ar_sudoku.io.images import MAX_PIXELS, TooManyPixels
from ar_sudoku.sudoku.rules import BoardResult
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.sudoku.written import Corrections, parse_corrections

UNSURE = 0.8  # cells read with less confidence than this are named in the text output


def puzzle_index(text: str) -> int:
    """``--puzzle N``: a puzzle's index on the page, 0 or more."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a puzzle number, 0 or more (0 is the page's first)")
    return n


def parse_sets(items: list[str] | None) -> Corrections:
    """``--set`` values: ``r3c5=7`` the first puzzle read's, ``1:r3c5=7`` puzzle 1's (``parse_corrections``)."""
    try:
        return parse_corrections(items or [])
    except ValueError as exc:
        raise CliError(f"--set {exc}") from None


def print_text(path: str, result: BoardResult, reveal: bool = True, label: str = "") -> None:
    """The reading and (when ``reveal``) the solution side by side, and the cells least sure of.

    ``label`` names the puzzle on a page of several (`` puzzle 1``)."""
    from ar_sudoku.vision.sizes import styled

    print(f"{path}{label}: {result.status}" + (f" ({result.message})" if result.message else "")
          + f"  [{result.ms:.0f} ms]")
    if result.unreadable and result.status == Status.SOLVED:
        print("unreadable (glare?), no answer drawn there: "
              + ", ".join(f"r{i // 9 + 1}c{i % 9 + 1}" for i in result.unreadable))
    if result.givens:
        n = result.size
        read = styled_grid(result.givens, result.box, result.symbols).splitlines()
        shown = result.solution if reveal else None
        sol = styled_grid(shown, result.box, result.symbols).splitlines() if shown else [""] * len(read)
        print(f"{'read':<{max(27, len(read[0]) + 2)}}{'   solution' if shown else ''}")
        for a, b in zip(read, sol):
            print(f"{a}   {b}")
        if result.confidence is not None:
            weak = [i for i in range(n * n) if result.confidence[i] < UNSURE]
            if weak:
                shown_as = styled(result.givens, result.symbols)
                cells = ", ".join(f"r{i // n + 1}c{i % n + 1}={shown_as[i]} ({result.confidence[i]:.2f})"
                                  for i in weak[:8])
                print(f"least sure of: {cells}" + (" ..." if len(weak) > 8 else "")
                      + ("  (fix a misread cell with --set rRcC=D)" if n <= 9 else ""))
    print()


def debug() -> bool:
    """``AR_SUDOKU_DEBUG=1``: the reading's passes are logged on stderr as ``--explain-reading`` prints them."""
    return bool(os.environ.get("AR_SUDOKU_DEBUG"))


def explain_lines(result: BoardResult) -> list[str]:
    """``--explain-reading``: the reading's passes in order, each one's time and the cells whose reading it changed
    (a cell as ``r3c5=g7``: its kind, ``.`` blank, ``g`` print, ``e`` pen, ``c`` pencil; its digit; ``?`` hidden by a
    glare; then, once the entries are read, the person's part)."""
    if not result.passes:
        return ["  (no passes: no 9x9 grid was read)"]
    lines = []
    for p in result.passes:
        cells = ", ".join(f"r{i // 9 + 1}c{i % 9 + 1}={state}" for i, state in zip(p.changed, p.states))
        if len(p.changed) > 12:
            cells = ", ".join(cells.split(", ")[:12]) + f" ... ({len(p.changed)} cells)"
        lines.append(f"  {p.name:<16}{p.ms:8.1f} ms  {cells}".rstrip())
    return lines


def styled_grid(text: str, box: tuple[int, int], symbols: str) -> str:
    """A boxed grid for people, each value as the page prints it (``11`` on a 1-16 page: columns widen)."""
    from ar_sudoku.sudoku.solver import format_grid
    from ar_sudoku.vision.sizes import styled

    cells = styled(text, symbols)
    wide = max(len(c) for c in cells)
    if wide == 1:
        return format_grid("".join(cells), box)
    rows, cols = box
    n = rows * cols
    sep = "+".join("-" * ((wide + 1) * cols + 1) for _ in range(rows))
    lines = ["+" + sep + "+"]
    for r in range(n):
        row = [c.rjust(wide) for c in cells[r * n:(r + 1) * n]]
        lines.append("| " + " | ".join(" ".join(row[b * cols:(b + 1) * cols]) for b in range(rows)) + " |")
        if r % rows == rows - 1:
            lines.append("+" + sep + "+")
    return "\n".join(lines)


@dataclass(frozen=True)
class PhotoJob:
    """What every photo of one run shares; sent once to each worker process with ``--jobs``."""

    model: str | None
    timeout: float
    overrides: Corrections
    calibration: str | None
    out: str | None  # -o OUT (one photo)
    out_dir: str | None
    show: Mode = "answer"
    puzzle: int | None = None  # --puzzle N: read only that puzzle of each photo
    threads: int = 1  # onnxruntime threads per process: the cores the other processes leave free
    max_pixels: int | None = None  # a photo declaring more is refused before decoding


@dataclass(frozen=True)
class PhotoDone:
    """One photo's outcome, back from the worker: each puzzle's result (in reading order; one ``no_grid`` or
    ``error`` result when there is none), how many puzzles the photo holds, and the annotated photo (encoded,
    for the main process to write: a worker stopped mid-photo leaves nothing on disk) or why it cannot be."""

    src: str
    analyses: tuple[PhotoAnalysis, ...]
    count: int = 1
    wrote: str | None = None
    write_error: CliError | None = None
    dest: str | None = None
    encoded: bytes | None = None


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
    from ar_sudoku.ar.photo import analyse_page, annotate
    from ar_sudoku.io.images import read_image

    dest = Path(job.out) if job.out else out_dir_name(src, job.out_dir) if job.out_dir else None
    t0 = time.perf_counter()
    try:
        # an annotated copy needs the photo at full size; a reading does not
        photo = read_image(src, full=dest is not None or job.calibration is not None, max_pixels=job.max_pixels)
        image = photo.image
        if job.calibration is not None:
            from ar_sudoku.io.calibration import load_named

            image = load_named(job.calibration).undistort_image(image)
    except ArSudokuError as exc:
        hint = " (--max-pixels N reads it)" if isinstance(exc, TooManyPixels) else ""
        return PhotoDone(str(src), (PhotoAnalysis(BoardResult(Status.ERROR, message=f"{src}: {exc}{hint}"), job.show),))
    digits, kinds = _readers_for(job)
    found, count = analyse_page(image, digits, timeout=job.timeout, overrides=job.overrides, show=job.show,
                                scale=photo.scale, kinds=kinds, puzzle=job.puzzle)
    if not found:  # --puzzle N on a photo holding fewer
        held = f"{count} puzzle{'s' * (count != 1)}" + (f" (--puzzle 0-{count - 1})" if count > 1 else "")
        found = [PhotoAnalysis(BoardResult(Status.NO_GRID, message=f"no puzzle {job.puzzle}: the photo holds {held}"),
                               job.show)]
    stray = sorted(k for k in job.overrides if k is not None and k >= count)
    if stray and found:  # --set 3:r1c1=5 on a photo of two puzzles: said, not silently dropped
        first = found[0].result
        said = f"--set {stray[0]}:...: not applied, the photo holds {count} puzzle{'s' * (count != 1)}"
        found[0] = replace(found[0], result=replace(first, message="; ".join(m for m in (first.message, said) if m)))
    # decoding included: what a user waits for (on a page of several, the whole page's time)
    ms = (time.perf_counter() - t0) * 1e3
    done = tuple(replace(a, result=replace(a.result, ms=ms)) for a in found)
    if dest is None:
        return PhotoDone(str(src), done, count)
    try:
        refuse_overwriting([("--out-dir" if job.out_dir else "--output", dest)], [src])
        encoded = encode_image(dest, annotate(image, *done))
    except CliError as exc:
        return PhotoDone(str(src), done, count, write_error=exc)
    return PhotoDone(str(src), done, count, dest=str(dest), encoded=encoded)


def encode_image(path: Path, img) -> bytes:
    """The image encoded as ``path``'s extension says (the costly part of writing it, done where it was read)."""
    import cv2

    check_image_out(path)
    try:
        ok, buf = cv2.imencode(path.suffix, img)
    except cv2.error:
        ok = False
    if not ok:
        raise CliError(f"{path}: cannot encode the image", EXIT_UNSOLVED)
    return buf.tobytes()


def stage(done: PhotoDone) -> tuple[PhotoDone, Staged | None]:
    """Write a photo's encoded annotation (main process) under a temporary name beside its target, or
    into its FIFO or device (once a reader opens it), through :class:`ar_sudoku.io.files.Staged`.

    Done before the section that renames and reports it, so that Ctrl-C and SIGTERM stop a wait for a
    FIFO's reader; whatever stops it (a full disk, a signal) removes the temporary file."""
    if done.dest is None or done.encoded is None:
        return done, None
    try:
        staged = Staged(done.dest)  # removes its temporary file itself when it fails or is stopped
    except ArSudokuError as exc:
        return replace(done, encoded=None, write_error=CliError(str(exc), EXIT_UNSOLVED)), None
    try:
        staged.write(done.encoded)
        return replace(done, encoded=None), staged  # a stop while this is made discards the file too
    except ArSudokuError as exc:
        return replace(done, encoded=None, write_error=CliError(str(exc), EXIT_UNSOLVED)), None
    except BaseException:
        staged.discard()
        raise


def commit(done: PhotoDone, staged: Staged | None) -> PhotoDone:
    """The staged image renamed into place: only a whole image takes the name."""
    if staged is None:
        return done
    try:
        staged.commit()
    except ArSudokuError as exc:
        return replace(done, write_error=CliError(str(exc), EXIT_UNSOLVED))
    return replace(done, wrote=str(staged.path))


# Worker processes pay for their start (an interpreter and the models each) only on enough work. The work is
# estimated from the files, as one process reading with two model threads would spend it: a fixed share a photo,
# plus decoding and the larger grid of a big photo, which grow with the file's size. The constants were fitted
# to whole-process runs of one process against two (small and 12 MP photos, printed and written-on): below
# WORTH_PROCESSES the second process's start costs about what it saves. docs/benchmarks.md has today's timings.
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


def out_dir_name(src: Path, out_dir: str | Path) -> Path:
    """Where ``--out-dir`` puts a photo's annotated copy."""
    return Path(out_dir) / f"{src.stem}_solved.png"


def check_out_dir_names(photos: list[Path], out_dir: str) -> None:
    """Refuse, before any work, an ``--out-dir`` run that would overwrite one of its photos or write two
    results to one name (``d1/p.jpg`` and ``d2/p.jpg``, or ``a.jpg`` and ``a.png``): the names stay the
    predictable PHOTO_solved.png, and nothing is silently lost."""
    inputs: dict[tuple[int, int], Path] = {}
    for src in photos:
        with contextlib.suppress(OSError):
            st = os.stat(src)
            inputs[(st.st_dev, st.st_ino)] = src
    taken: dict[Path, Path] = {}
    for src in photos:
        dest = out_dir_name(src, out_dir)
        with contextlib.suppress(OSError):
            st = os.stat(dest)
            if (st.st_dev, st.st_ino) in inputs:
                raise CliError(f"--out-dir: {src} would be written to {dest}, which is one of the photos read; "
                               "choose another --out-dir (no file was touched)")
        try:
            key = dest.resolve()
        except (OSError, RuntimeError):  # a loop of links: the folder is refused next, in one line
            key = dest.absolute()
        if key in taken:
            raise CliError(f"--out-dir: {taken[key]} and {src} would both be written to {dest}; rename one "
                           "or run them with separate --out-dir folders (no file was touched)")
        taken[key] = src


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

    One photo at a time on two cores: the models' batched calls take about half the time on two
    threads; with a process per core, one each, so the processes do not fight over the cores.
    """
    return max(1, usable_cores() // max(1, jobs))


def _worker_start() -> None:
    """A worker process keeps freed memory for reuse (Ctrl-C it leaves to the main process)."""
    from ar_sudoku.io.memory import keep_freed_memory

    keep_freed_memory()


def _photos_in_order(photos: list[Path], job: PhotoJob, jobs: int) -> Generator[PhotoDone, None, None]:
    """Each photo's outcome, in the order given; with ``jobs`` > 1 read by that many processes, which stop
    (mid-photo: they write nothing) when the command does."""
    if jobs <= 1 or len(photos) < 2:
        for src in photos:
            yield read_photo(src, job)
        return
    from functools import partial

    from ar_sudoku.children import WorkerDied, ordered_map

    try:
        yield from ordered_map(partial(read_photo, job=job), photos, jobs, initializer=_worker_start)
    except WorkerDied as exc:
        signum = signals.caught()
        if signum is not None:  # a SIGTERM to the whole group ended the workers first
            raise signals.exception_for(signum) from None
        raise CliError(f"{exc} (out of memory?); try --jobs 1", EXIT_UNSOLVED) from exc


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    photos = expand_folders([Path(p) for p in args.photos])
    if args.output and len(photos) > 1:
        raise CliError("-o/--output takes one photo; use --out-dir DIR for several")
    if args.out_dir:
        from ar_sudoku.io.files import OutputError, ensure_folder

        check_out_dir_names(photos, args.out_dir)
        try:
            ensure_folder(Path(args.out_dir))  # made in a folder that exists, never a tree; not read-only
        except OutputError as exc:
            raise CliError(f"--out-dir {exc}") from exc
    if args.output:
        check_image_out(Path(args.output))
        refuse_overwriting([("--output", args.output)], photos)
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs must be at least 1")
    jobs = args.jobs if args.jobs is not None else auto_jobs(photos)
    if jobs > usable_cores():  # more processes than cores only share them, each with its own models in memory
        print(f"ar-sudoku: --jobs {jobs}: {usable_cores()} usable cores here, so {usable_cores()} processes",
              file=sys.stderr)
        jobs = usable_cores()
    show: Mode = "check" if args.check else args.show
    job = PhotoJob(model=args.model, timeout=args.timeout, overrides=parse_sets(args.set), calibration=args.calibration,
                   out=args.output, out_dir=args.out_dir, show=show, puzzle=args.puzzle, threads=model_threads(jobs),
                   max_pixels=args.max_pixels)
    if args.calibration:
        from ar_sudoku.io.calibration import load_named

        load_named(args.calibration)  # a bad calibration fails once, before any photo
    DigitReader(args.model)  # likewise a missing model
    KindReader()
    code, read = EXIT_OK, False
    # closed on the way out, whatever the road: the worker processes stop with the command
    with contextlib.closing(_photos_in_order(photos, job, jobs)) as outcomes:
        for done in outcomes:
            staged = None
            try:
                done, staged = stage(done)
                with signals.held():  # the image renamed into place and reported, or neither
                    code = max(code, _report(commit(done, staged), args, show))
            except BaseException:
                if staged is not None:
                    staged.discard()
                raise
            read = read or any(a.result.status != Status.ERROR for a in done.analyses)
    # no photo could be read at all: bad input, and nothing was done; some among others: those had no answer
    return code if read else EXIT_BAD_INPUT


def _report(done: PhotoDone, args: argparse.Namespace, show: Mode) -> int:
    """Print one photo's outcome, puzzle by puzzle; its exit code."""
    from ar_sudoku.io.records import photo_json

    code = EXIT_OK
    several = len(done.analyses) > 1 or args.puzzle is not None
    for k, analysis in enumerate(done.analyses):
        result, marks = analysis.result, analysis.marks
        index = args.puzzle if args.puzzle is not None else k
        # a photo that cannot be read, or one read without an answer: 1 (run() makes it 2 when none could be read)
        code = max(code, EXIT_OK if result.status == Status.SOLVED else EXIT_UNSOLVED)
        if args.explain_reading or debug():
            label = f" puzzle {index}" if several else ""
            print(f"{done.src}{label}: the reading's passes", *explain_lines(result), sep="\n",
                  file=sys.stderr if args.json or not args.explain_reading else sys.stdout, flush=True)
        if args.json:
            obj = photo_json(analysis, done.src)
            # which puzzle of the page (in reading order); none when no grid was found or the photo is unreadable
            obj["puzzle"] = index if result.corners is not None else None
            print(json.dumps(obj), flush=True)
        else:
            print_text(done.src, result, reveal=show == "answer", label=f" puzzle {index}" if several else "")
            if result.written is not None and result.solution:
                for line in result.written.mistake_lines(result.solution, reveal=show == "answer"):
                    print(line)
            if marks is not None and marks.text:
                print(f"{show}: {marks.text}\n")
        missing = result.status == Status.NO_GRID and args.puzzle is not None and done.count
        if result.status == Status.ERROR or missing:
            print(f"ar-sudoku: {done.src}: {result.message}" if result.status == Status.NO_GRID
                  else f"ar-sudoku: {result.message}", file=sys.stderr)
    if done.write_error is not None:
        print(f"ar-sudoku: {done.write_error}", file=sys.stderr)
        code = max(code, done.write_error.code)
    elif done.wrote and not args.json:
        print(f"wrote {done.wrote}\n")
    return code


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "image",
        help="read, solve and annotate photos of puzzles",
        **help_format(
            "Find the puzzles in each photo (a page of several: each one), read their digits, solve them, and "
            "(with -o or --out-dir) write the photo with the solved digits drawn in the empty cells. Exit 0 when every "
            "photo is solved, 1 when any is not (no grid, unreadable, no solution), 2 for bad usage or when no "
            "photo could be read.",
            "  ar-sudoku image samples/photo.jpg -o solved.png\n"
            "  ar-sudoku image photos/ --out-dir out/ --json > results.jsonl   # a folder: every photo in it\n"
            "  ar-sudoku image samples/photo.jpg --set r3c5=7 --set r1c1=0   # correct a misread cell\n"
            "  ar-sudoku image page.jpg --puzzle 1 -o solved.png   # a page of puzzles: only the second\n",
        ),
    )
    p.add_argument("photos", nargs="+", metavar="PHOTO", help="photo files, or folders of them")
    where = p.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT.png", help="the annotated photo (one photo only)")
    where.add_argument("--out-dir", metavar="DIR",
                       help="write PHOTO_solved.png for each photo into this folder, made when missing inside a "
                            "folder that exists (refused when a name would be an input's, or two photos' names "
                            "would meet)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per puzzle on stdout (a page of several: one per puzzle, each with its "
                        "'puzzle' index, in reading order)")
    p.add_argument("--puzzle", type=puzzle_index, default=None, metavar="N",
                   help="read only puzzle N of each photo (0 first; rows of the page from the top, then left "
                        "to right); a photo holding fewer is said on stderr (exit 1)")
    p.add_argument("--set", action="append", metavar="rRcC=D",
                   help="override a read cell (0 clears); repeatable; on a page of several, the first puzzle's "
                        "(with --puzzle N, puzzle N's), or N:rRcC=D for puzzle N's")
    p.add_argument("--timeout", type=positive_seconds, default=1.0, metavar="S",
                   help="solver time limit per photo (default 1)")
    p.add_argument("--model", metavar="PATH", help="another digits.onnx (default: the shipped model)")
    p.add_argument("--calibration", metavar="NAME|PATH", help="undistort with a camera calibration")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--show", choices=MODES, default="answer",
                      help="answer: every missing digit (default); check: mistakes only; hint: the next step only")
    mode.add_argument("--check", action="store_true", help="same as --show check: mark mistakes, reveal nothing")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N",
                   help="read photos in N processes (default: one per core when there is a second or more of "
                        "work, judged from the files' sizes, else 1; the output order is kept)")
    p.add_argument("--explain-reading", action="store_true",
                   help="print the reading's named passes in order, each one's time (ms) and the cells it changed "
                        "(on stderr with --json; AR_SUDOKU_DEBUG=1 prints them on stderr too)")
    p.add_argument("--max-pixels", type=pixel_count, default=MAX_PIXELS, metavar="N", help=MAX_PIXELS_HELP)
    p.set_defaults(func=run)

