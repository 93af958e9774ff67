"""The training scripts' random camera and room (issue 21): pictures stay pictures, corners follow a
down-scaled picture, and a glare spot's washed-out cells are left out of the labels; and the digit cutter
measures ink against its own paper, so a shadow does not make print faint."""

from __future__ import annotations

import random

import cv2
import numpy as np
from conftest import EASY, rendered_frame

from ar_sudoku.vision.cells import cut_cells, warp_grid
from degrade import camera, glared_cells

QUAD = np.float32([[200, 100], [520, 110], [510, 420], [190, 410]])


def test_a_degraded_picture_keeps_its_kind_and_its_corners_follow_the_scale():
    img = rendered_frame(EASY, QUAD, size=(640, 480))
    rng = random.Random(7)
    scaled = 0
    for _ in range(40):
        shot = camera(img, rng, grid_px=320.0, strength=1.5)
        assert shot.image.dtype == np.uint8 and shot.image.ndim == 3
        h, w = shot.image.shape[:2]
        assert abs(w - 640 * shot.scale) <= 1 and abs(h - 480 * shot.scale) <= 1
        scaled += shot.scale < 1
        if shot.glare is not None:
            assert shot.glare.shape == (h, w)
    assert scaled > 0  # down-scaling was drawn at least once in 40 pictures


def test_the_cells_under_a_glare_spot_are_the_ones_left_out():
    glare = np.zeros((480, 640), np.float32)
    corners = np.float32([[100, 50], [460, 50], [460, 410], [100, 410]])  # 40 px a cell
    cv2.circle(glare, (100 + 4 * 40 + 20, 50 + 2 * 40 + 20), 25, 1.0, -1)  # over r3c5's centre
    lost = glared_cells(glare, corners)
    assert lost.sum() == 1 and lost[2 * 9 + 4]
    assert not glared_cells(None, corners).any()


def test_print_in_a_shadow_is_still_cut_as_ink():
    img = cv2.cvtColor(rendered_frame(EASY, QUAD, size=(640, 480)), cv2.COLOR_BGR2GRAY)
    clean = cut_cells(warp_grid(img, QUAD)).has_ink
    shade = np.ones(img.shape, np.float32)
    shade[:, 355:] = 0.35  # the grid's right half in a deep shadow
    shaded = (img.astype(np.float32) * cv2.GaussianBlur(shade, (0, 0), 4)).astype(np.uint8)
    cut = cut_cells(warp_grid(shaded, QUAD)).has_ink
    assert clean.sum() == sum(ch != "." for ch in EASY)
    assert np.array_equal(cut, clean)
