"""The words every path shares: a status, and what an empty cell looks like.

The photo command, the live session, the JSON lines and the web API all say a
board's status with :class:`Status`, so ``solved`` means one thing everywhere
and a new word has to be added here, where a type checker sees every use.
"""

from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # Python 3.10: the same, by hand (str() and format() give the value)

    class StrEnum(str, enum.Enum):
        """An enum whose members are their own strings."""

        def __str__(self) -> str:
            return str.__str__(self)

EMPTY = ".0"  # the characters a board's text uses for an empty cell: "." (and "0", as many files write it)


def is_empty(ch: str) -> bool:
    """True for a cell's character that marks it empty (``.`` or ``0``)."""
    return ch in EMPTY


class Status(StrEnum):
    """A board's status: the outcome of a picture or a solve, or where the live session stands.

    A picture or a solve ends ``solved``, ``unsolvable`` (no solution, or several where one is needed),
    ``invalid`` (the givens break the rules), ``timeout``, ``no_grid`` or ``error``. The live session
    is also ``searching``, ``reading``, ``solving`` or ``suspect`` on its way there.
    """

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    INVALID = "invalid"
    TIMEOUT = "timeout"
    NO_GRID = "no_grid"
    ERROR = "error"
    # the live session's states on the way to an outcome
    SEARCHING = "searching"
    READING = "reading"
    SOLVING = "solving"
    SUSPECT = "suspect"
