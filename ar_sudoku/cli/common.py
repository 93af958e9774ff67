"""What every command shares: exit codes, the user-facing error, help layout, and safe output paths.

Commands import this module, never ``ar_sudoku.cli`` itself, so the package's
``__init__`` can list the commands without an import cycle.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

EXIT_OK, EXIT_UNSOLVED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130

IMAGE_OUT_EXT = (".png", ".jpg", ".jpeg", ".bmp")


class CliError(Exception):
    """A problem the user can fix; printed as one line, exit code 2 unless said otherwise."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT):
        super().__init__(message)
        self.code = code


def help_format(description: str, examples: str) -> dict:
    """``add_parser`` keyword arguments: a description and an examples epilog, laid out as written."""
    return {
        "description": description,
        "epilog": "examples:\n" + examples,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above zero."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds above 0")
    return value


def same_file(a: str | Path, b: str | Path) -> bool:
    """True when two paths name one file (resolved, or the same inode for links)."""
    pa, pb = Path(a), Path(b)
    try:
        if pa.exists() and pb.exists():
            return os.path.samefile(pa, pb)
        return pa.resolve() == pb.resolve()
    except (OSError, RuntimeError):  # a loop of links is no file at all (refused as an output next)
        return pa.absolute() == pb.absolute()


def refuse_overwriting(outputs: Iterable[tuple[str, str | Path | None]], inputs: Iterable[str | Path]) -> None:
    """An output that is also an input (or another output) would destroy it: refuse before anything runs."""
    named = [(flag, Path(p)) for flag, p in outputs if p is not None]
    ins = [Path(p) for p in inputs]
    for flag, out in named:
        for src in ins:
            if same_file(out, src):
                raise CliError(f"{flag} {out}: is the input {src}; choose another output name (the input is untouched)")
    for k, (flag, out) in enumerate(named):
        for flag2, out2 in named[k + 1 :]:
            if same_file(out, out2) and not same_file(out, os.devnull):  # what goes to /dev/null may meet there
                raise CliError(f"{flag} and {flag2} are the same file {out}; give each its own name")


def check_image_out(path: Path) -> None:
    """Refuse an image output before any work: not .png/.jpg, a missing or read-only folder, a folder."""
    from ar_sudoku.io.files import OutputError, check_output

    if path.suffix.lower() not in IMAGE_OUT_EXT:
        raise CliError(f"{path}: give a .png or .jpg file name")
    try:
        check_output(path)
    except OutputError as exc:
        raise CliError(str(exc)) from exc


def write_image(path: Path, img: np.ndarray) -> None:
    """Write an image atomically (a temporary name, then rename; a FIFO or device directly), or raise a
    one-line CliError: exit 2 for a name refused up front, 1 when the write itself failed."""
    from ar_sudoku.errors import ArSudokuError
    from ar_sudoku.io import files

    check_image_out(path)
    try:
        files.write_image(path, img)
    except ArSudokuError as exc:
        raise CliError(str(exc), EXIT_UNSOLVED) from exc


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def pixel_count(text: str) -> int:
    """An argparse type for ``--max-pixels``: a whole number of pixels above zero (``200000000`` or ``2e8``)."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of pixels") from exc
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of pixels of at least 1")
    return int(value)


MAX_PIXELS_HELP = ("read no photo (or video frame) larger than N pixels, judged from its header before it is "
                   "decoded (default 50000000: a small file can declare gigabytes of pixels)")
