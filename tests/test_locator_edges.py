"""A page's track keeps its grid, not the edge of the photo the grid is printed on (``ar/locator.py``).

A puzzle pasted on a page as a photo has the photo's edge close around its grid. Three rules keep the track on
the grid: the page's fit wins on a track's first frame; while the board is read, an edge found around it is
searched inside in a close window; and a board taken from a fit that hardly looks like a grid is searched inside
its own outline (``_framed``), taken only as the page's search would take it. Drawn frames here; the real photos
are ``test_page_video.py``'s.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from conftest import EASY

from ar_sudoku.ar.locator import BoardLocator
from ar_sudoku.vision.quads import GridQuad
from ar_sudoku.vision.synth import background, page, place, quad

GRID = quad((430, 270), 300)  # the puzzle's grid in the frame
EDGE = np.float32([[265, 114], [655, 114], [655, 426], [265, 426]])  # the photo's edge: 6 px above and below


def _frame() -> np.ndarray:
    """A drawn puzzle, its photo's edge (a darker print, as a pasted photo is) close above and below its grid and
    far beside it, on a desk."""
    out = place(*page(EASY, seed=1), GRID, background((960, 540), 3))
    photo = np.zeros(out.shape[:2], np.uint8)
    cv2.fillConvexPoly(photo, np.round(EDGE).astype(np.int32), 1)
    grid = np.zeros_like(photo)
    cv2.fillConvexPoly(grid, np.round(GRID).astype(np.int32), 1)
    around = (photo > 0) & (grid == 0)
    out[around] = (out[around] * 0.55).astype(np.uint8)
    return out


@pytest.fixture()
def locator() -> BoardLocator:
    loc = BoardLocator(near_only=True)
    frame = _frame()
    loc.prepare(frame, None)
    return loc


def test_a_board_taken_from_the_edge_finds_the_grid_the_edge_frames(locator):
    locator.fit_score = 0.33  # taken from a fit that hardly looks like a grid: the photo's edge
    found = locator._framed(EDGE)
    assert found is not None
    assert np.abs(found.corners / locator.scale - GRID).max() < 8


def test_the_grid_inside_is_taken_only_clearer_than_the_fit_the_board_came_from(locator):
    locator.fit_score = 0.95  # a clear fit already: nothing inside it replaces it
    assert locator._framed(EDGE) is None


def test_a_box_of_the_grid_is_not_the_grid_the_board_frames(locator):
    locator.fit_score = 0.2
    # the board is the grid itself: what lies inside its outline is a box, a ninth of it, never taken
    assert locator._framed(GRID) is None


def test_while_read_an_edge_found_around_the_board_is_looked_inside_of(locator, monkeypatch):
    """The search around the board returns the edge (a window 0.3 of the board around it holds the edge); the
    close window (``TIGHT``) cuts the edge and finds the grid. Once solved, the flow holds the board instead."""
    edge = GridQuad(EDGE * locator.scale, 0.33)
    detect = locator._detect

    def around(near, precise=False, agreeing=False, margin=0.3):
        return edge if margin > 0.1 else detect(near, precise, agreeing, margin)

    monkeypatch.setattr(locator, "_detect", around)
    locator.restart(GRID)
    locator.last_corners = GRID.copy()
    loc = locator.locate(1, settled=False)
    assert loc.detected and np.abs(loc.corners - GRID).max() < 8
    locator.restart(GRID)
    loc = locator.locate(2, settled=True)
    assert not loc.detected and np.abs(loc.corners - GRID).max() < 3
