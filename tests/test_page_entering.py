"""A second puzzle slid slowly into view beside a tracked one is found soon after it is wholly in view.

While the tracked puzzles stand still, the page looks for new ones only every ``PageConfig.find_still`` frames (a
still view holds no new puzzle, unless one slides in). A grid seen touching the frame's edge beside them is a
puzzle coming in: the page looks again every ``find_entering`` frames until it is whole.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import EASY, HARDEST

from ar_sudoku.ar.page import Page
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.synth import background, page, place, quad

SIZE = 300  # px: each grid's side


@pytest.fixture(scope="module")
def kinds():
    return KindReader()


def _frame(x: float) -> np.ndarray:
    """EASY still on the left; HARDEST's grid centred at ``x`` (wholly in view once ``x <= 959 - SIZE / 2``)."""
    out = place(*page(EASY, seed=1), quad((230, 270), SIZE), background((960, 540), 3))
    return place(*page(HARDEST, seed=2), quad((x, 270), SIZE), out)


def test_a_puzzle_slid_in_beside_a_still_one_is_found_soon_after_it_is_whole(reader, kinds):
    whole_at, found_at = None, None
    with Page(reader, kinds=kinds) as p:
        for k in range(90):
            x = max(760.0, 880.0 - 1.5 * k)  # 1.5 px a frame: far under what makes the view "moving"
            if whole_at is None and x + SIZE / 2 <= 955:
                whole_at = k
            p.step(_frame(x))
            if len(p.tracks) == 2:
                found_at = k
                break
    assert whole_at is not None and found_at is not None, "the second puzzle was never found"
    assert found_at - whole_at <= 6, (whole_at, found_at)  # find_entering (4), and a frame or two to see it whole


def test_a_neighbour_the_edge_cuts_for_good_is_not_looked_at_every_few_frames(reader, kinds):
    searches = 0
    with Page(reader, kinds=kinds) as p:
        for _ in range(60):
            p.step(_frame(870.0))  # a sixth of HARDEST out of view, and staying so
            searches += p._last_find == p.frame_index
        assert len(p.tracks) == 1
    assert searches <= 1 + 60 // 15 + 2, searches  # the first, one every find_still frames, one quick look again
