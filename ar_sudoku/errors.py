"""The one base class of every error a user can act on.

Core modules raise their own subclasses (``PuzzleFormatError``,
``CalibrationError``, ``SourceError``, ...); only ``cli`` (and later ``web``)
turns them into a one-line message and an exit code or HTTP status. Keeping
the base here, below every layer, means the CLI catches them all without
importing OpenCV for a ``solve``.
"""

from __future__ import annotations


class ArSudokuError(Exception):
    """A problem with the user's input or environment, said in one line."""

    exit_code = 2  # bad input or usage, as the README says
