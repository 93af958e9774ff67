"""A solved board the flow let drift off its lines is put back on them, and a settled board is re-read only where its
print can be read (issue 57: a small, faint page of a pan lost its answer for a second while in full view)."""

from __future__ import annotations

import numpy as np
import pytest
from test_live_trust import LOCKSTEP, SOLUTIONS, frame_of

from ar_sudoku.ar.page import Page
from ar_sudoku.ar.witness import Verdict
from ar_sudoku.io.records import frame_json
from ar_sudoku.vision.kinds import KindReader


@pytest.fixture(scope="module")
def kinds():
    return KindReader()


def _locked(page: Page, frame: np.ndarray) -> dict:
    for _ in range(8):
        log = frame_json(page.step(frame))
    assert log["puzzles"] and log["puzzles"][0].get("solution") == SOLUTIONS[0]
    return log


@pytest.mark.parametrize("grow", [1.09, 1.12])
def test_a_board_grown_off_its_lines_is_put_back_on_them_on_the_next_frame(reader, kinds, grow):
    # the flow's drift: the tracked quad grown about its centre, its edge columns a third of a cell off
    frame, truth = frame_of(0, angle=5)
    exact = np.float32(truth[0]["corners"])
    cell = float(np.linalg.norm(exact[1] - exact[0])) / 9
    with Page(reader, kinds=kinds, config=LOCKSTEP) as page:
        _locked(page, frame)
        locator = page.tracks[0].session.locator
        centre = exact.mean(axis=0)
        drifted = centre + (exact - centre) * grow
        assert np.abs(drifted - exact).max() > 0.3 * cell
        locator.relocate(drifted)
        locator.last_corners = drifted
        log = frame_json(page.step(frame))
    puzzle = log["puzzles"][0]
    assert puzzle.get("solution") == SOLUTIONS[0] and puzzle["status"] == "solved"  # never taken away
    assert np.abs(np.float32(puzzle["corners"]) - exact).max() < 0.15 * cell


def test_a_board_off_any_lines_is_not_moved(reader, kinds):
    # drifted onto the empty desk, the board has no lines about it to be put back on: it is not moved there
    frame, truth = frame_of(0, angle=5)
    desk, _ = frame_of(None)
    with Page(reader, kinds=kinds, config=LOCKSTEP) as page:
        _locked(page, frame)
        locator = page.tracks[0].session.locator
        locator.prepare(desk, None)
        assert locator.snapped(np.float32(truth[0]["corners"])) is None


def test_a_settled_board_is_not_read_again_on_a_fast_pan(reader, kinds):
    frame, truth = frame_of(0, angle=5)
    with Page(reader, kinds=kinds, config=LOCKSTEP) as page:
        _locked(page, frame)
        locator = page.tracks[0].session.locator
        corners = np.float32(truth[0]["corners"])
        assert locator.rereadable(corners)
        locator.speed = 0.05  # a twentieth of the board's side a frame: a pan
        assert not locator.rereadable(corners)


def test_a_look_in_doubt_is_learnt_only_where_the_grid_was_detected(reader, kinds):
    frame, truth = frame_of(0, angle=5)
    corners = np.float32(truth[0]["corners"])
    with Page(reader, kinds=kinds, config=LOCKSTEP) as page:
        _locked(page, frame)
        session = page.tracks[0].session
        witness = session.board.witness
        assert witness.known
        for detected, learnt in ((False, False), (True, True)):
            witness.squared = marker = np.zeros_like(witness.squared)
            session._judged = (corners, Verdict.UNSURE)
            session._remember(corners, detected)
            assert (witness.squared is not marker) is learnt
