"""A board's votes: the readings of its steady frames, their mean, and whether a new reading is of the same page.

The live session solves the mean of a board's last few readings (``ARSession._vote``). A board whose detection
jumps from where the flow tracked it (``Event.SLIPPED``) is read afresh: the jump may be another grid. Its votes
are set aside, not lost: a page sliding in faster than the flow follows slips on every frame until it rests,
and the first reading after the slip that agrees with them (:func:`agrees`) takes them back.
"""

from __future__ import annotations

import numpy as np

from ar_sudoku.sudoku.rules import FEWEST_GIVENS, Reading

SURE = 0.8  # a cell's reading this confident is compared; a less sure one (blur, glare) neither agrees nor differs
# of the cells both readings are sure of, the share that may read otherwise on the same page (a digit the motion
# blurred, a given one frame took for blank); another puzzle differs in most of them
DIFFER = 0.1


def mean(votes: list[Reading]) -> Reading:
    """The mean reading of the votes, each cell over the frames that saw it (a glare hides a cell on some
    frames, ``doubts.unreadable_cells``; as the page or the light moves, other frames read it)."""
    if not votes:
        probs = np.zeros((81, 10))
    else:
        stack = np.array([r.probs for r in votes])
        seen = (stack.sum(axis=2) > 0).sum(axis=0)
        probs = stack.sum(axis=0) / np.maximum(seen, 1)[:, None]
    digits = probs.argmax(axis=1)
    return Reading(digits, probs.max(axis=1), probs)


def agrees(votes: list[Reading], reading: Reading) -> bool:
    """Whether ``reading`` is of the page ``votes`` were read on: at least ``FEWEST_GIVENS`` digits both are sure
    of, and at most ``DIFFER`` of the cells both are sure of read otherwise."""
    if not votes:
        return False
    before = mean(votes)
    sure = (before.confidence > SURE) & (reading.confidence > SURE)
    digits = sure & (before.digits > 0) & (reading.digits > 0)
    differ = sure & (before.digits != reading.digits)
    return int(digits.sum()) >= FEWEST_GIVENS and int(differ.sum()) <= DIFFER * int(sure.sum())
