"""The ``ar-sudoku`` command: one module per subcommand, listed in ``commands()``.

Each command module exposes ``add_parser(subparsers)`` and ``run(args) -> int``.
This is the one place that turns errors into messages and exit codes: 0 all
done, 1 some input had no answer (no solution, timed out, no grid, a write
that failed, an internal error), 2 bad input or usage, 130 interrupted, 143
terminated. Errors are one line on stderr, never a traceback (unless
AR_SUDOKU_DEBUG is set).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ar_sudoku import signals

if TYPE_CHECKING:
    import argparse
    from types import ModuleType

# a write the machine refused (a full disk or quota, a device error): the answer is lost, exit 1
WRITE_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG, errno.EROFS}


def commands() -> dict[str, ModuleType]:
    """name -> module; the order is the order of `ar-sudoku --help`.

    Imported here, once the signal handlers are in place (``video`` imports NumPy and OpenCV): a Ctrl-C
    during those imports is an interruption like any other, not a traceback.
    """
    from ar_sudoku.cli import calibrate, generate, hint, image, live, serve, solve, video

    return {
        "live": live,
        "video": video,
        "image": image,
        "solve": solve,
        "hint": hint,
        "generate": generate,
        "calibrate": calibrate,
        "serve": serve,
    }


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from ar_sudoku import __version__
    from ar_sudoku.cli.common import help_format

    parser = argparse.ArgumentParser(
        prog="ar-sudoku",
        **help_format(
            "Real-time augmented-reality Sudoku solver: point a webcam at a puzzle "
            "and the missing digits appear on the paper.",
            "  ar-sudoku video samples/demo.mp4 --headless --output annotated.mp4\n"
            "  ar-sudoku image samples/photo.jpg -o solved.png\n"
            "  ar-sudoku solve samples/puzzles.txt --pretty\n"
            "  ar-sudoku generate --difficulty hard --sheet puzzle.png\n",
        ),
    )
    parser.add_argument("--version", action="version", version=f"ar-sudoku {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in commands().values():
        module.add_parser(sub)
    return parser


def quiet_opencv() -> None:
    """Our one-line messages replace OpenCV's and FFmpeg's own logs (set the variables to see them)."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    if "cv2" in sys.modules:
        import cv2

        with contextlib.suppress(AttributeError):
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)


def names_print_as_given() -> None:
    """A file name that is not valid UTF-8 is printed as the bytes it is (Python holds those bytes as
    lone surrogates, which a strict stdout refuses with a traceback)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a TextIOWrapper's; a replaced stream may lack it
        with contextlib.suppress(ValueError):
            if reconfigure is not None:
                reconfigure(errors="surrogateescape")


def reserve_closed_descriptors() -> None:
    """Put /dev/null on a standard descriptor the caller closed (``>&-``): else the next file we open
    would get that number, and whatever is printed there would land in it."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def main(argv: Sequence[str] | None = None) -> int:
    from ar_sudoku.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_UNSOLVED, CliError
    from ar_sudoku.errors import ArSudokuError
    from ar_sudoku.io.memory import keep_freed_memory

    if sys.stdout is None:  # started with stdout closed (`>&-`): every command's results would be lost
        print("ar-sudoku: stdout is closed, so the results would be lost; redirect it to a file or /dev/null",
              file=sys.stderr or sys.__stderr__)
        return EXIT_BAD_INPUT
    names_print_as_given()
    quiet_opencv()
    keep_freed_memory()
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        argv = ["live", *argv]  # `ar-sudoku` alone opens the webcam
    args = parser.parse_args(argv)
    if os.environ.get("AR_SUDOKU_DEBUG"):  # the vision's named passes, each with its time, on stderr
        logging.basicConfig(format="ar-sudoku: %(message)s")
        logging.getLogger("ar_sudoku.vision").setLevel(logging.DEBUG)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"ar-sudoku: {exc}", file=sys.stderr)
        return exc.code
    except ArSudokuError as exc:
        print(f"ar-sudoku: {exc}", file=sys.stderr)
        return exc.exit_code
    except signals.Terminated as exc:
        print("ar-sudoku: terminated", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("ar-sudoku: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of our output went away (`| head`): run() stops quietly
        raise
    except OSError as exc:
        if os.environ.get("AR_SUDOKU_DEBUG"):
            raise
        if exc.errno in WRITE_FAILURES:
            where = f" ({exc.filename})" if exc.filename else ""
            print(f"ar-sudoku: a write failed{where}: {exc.strerror}", file=sys.stderr)
            return EXIT_UNSOLVED
        if exc.filename is not None and exc.strerror:  # a name the system refused: too long, not a folder, ...
            print(f"ar-sudoku: {exc.filename}: {exc.strerror}", file=sys.stderr)
            return EXIT_BAD_INPUT
        return _internal_error(exc)
    except Exception as exc:
        signum = signals.caught()
        if signum is not None:  # the signal raised inside a C call, which wrapped it (a SystemError)
            print(f"ar-sudoku: {'interrupted' if signum == signal.SIGINT else 'terminated'}", file=sys.stderr)
            return 128 + signum
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """A bug of ours: one line for the user, the traceback on request."""
    if os.environ.get("AR_SUDOKU_DEBUG"):
        raise exc
    print(f"ar-sudoku: internal error ({exc.__class__.__name__}: {exc}); run again with AR_SUDOKU_DEBUG=1 "
          "for the traceback, and please report it", file=sys.stderr)
    return 1


def run() -> None:
    """Console-script entry point: the signal handlers first, then the imports and the command."""
    reserve_closed_descriptors()
    try:
        signals.stop_on_signals()
        code = main()
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:  # `ar-sudoku solve big.txt | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except OSError as exc:  # stdout on a full disk (`> /dev/full`): the results could not be written
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"ar-sudoku: stdout could not be written ({exc.strerror or exc})", file=sys.stderr)
        code = 1
    except signals.Terminated as exc:  # before main() caught it: while importing
        print("ar-sudoku: terminated", file=sys.stderr)
        code = 128 + exc.signum
    except KeyboardInterrupt:
        print("ar-sudoku: interrupted", file=sys.stderr)
        code = 130
    signals.forget_unhandled_interrupt()  # an interruption handled is not one "unhandled": exit with ``code``
    sys.exit(code)
