"""Killer pages in photos: rendered, photographed, read through the real models, solved and drawn clear of the sums."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.photo import analyse_page, annotate
from ar_sudoku.cli import main
from ar_sudoku.sudoku.vocabulary import Status
from ar_sudoku.vision.synth import background, page, place, quad
from killer_pages import KillerPage, page_a, photo_a, photograph, puzzle


@pytest.fixture(scope="module")
def readers():
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    return DigitReader(), KindReader()


def read(image, readers):
    found, _ = analyse_page(image, readers[0], kinds=readers[1], timeout=2.0)
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("style, seed, givens", [("dashed", 7, 2), ("dotted", 8, 0), ("shaded", 9, 3)])
def test_a_photographed_killer_page_is_read_whole_and_solved(style, seed, givens, readers):
    shot = photo_a(seed, style, givens)
    got = read(shot.image, readers).result
    assert got.status == Status.SOLVED, got.message
    assert got.cages == shot.killer.cages and got.givens == shot.killer.to_string()
    assert got.solution == shot.solution
    assert np.abs(np.asarray(got.corners) - shot.corners).max() < 12


def test_the_answers_leave_the_sums_clear(readers):
    shot = photo_a(12, "dashed", 0)
    analysis = read(shot.image, readers)
    assert analysis.marks is not None and analysis.marks.corner_clear and len(analysis.marks.answers) == 81
    drawn = annotate(shot.image, analysis)
    side = 9 * 40
    hmat = cv2.getPerspectiveTransform(shot.corners, np.float32([[0, 0], [side, 0], [side, side], [0, side]]))
    before, after = (cv2.warpPerspective(img, hmat, (side, side)).astype(int) for img in (shot.image, drawn))
    changed = np.abs(after - before).sum(axis=2) > 60
    cells = changed.reshape(9, 40, 9, 40).transpose(0, 2, 1, 3)
    corner = cells[:, :, 2:13, 2:17].sum(axis=(2, 3))  # where a sum is printed (the top-left 0.3 x 0.4)
    middle = cells[:, :, 16:34, 18:34].sum(axis=(2, 3))  # where the answer goes: below and right of the middle
    assert corner.max() == 0 and (middle > 10).all()


def test_a_sideways_killer_page_is_read_upright(readers):
    killer, solution = puzzle(31)
    rng = random.Random(31)
    flat = page_a(killer, solution, "dashed", rng)
    turned = np.ascontiguousarray(np.rot90(flat.image))  # a quarter turn anticlockwise: the TR corner goes top-left
    h = flat.image.shape[1]
    corners = np.float32([[y, h - x] for x, y in flat.corners[[1, 2, 3, 0]]])
    shot = photograph(KillerPage(turned, corners, killer, solution, "dashed"), rng)
    got = read(shot.image, readers).result
    assert got.status == Status.SOLVED and got.solution == solution and got.cages == killer.cages


def test_a_killer_page_missing_a_sum_is_not_answered(readers):
    killer, solution = puzzle(41)
    rng = random.Random(41)
    flat = page_a(killer, solution, "dashed", rng)
    cage = killer.cages[len(killer.cages) // 2]
    r, c = divmod(cage.first, 9)
    x0, y0 = flat.corners[0]
    cell = (flat.corners[1, 0] - x0) / 9
    cv2.rectangle(flat.image, (int(x0 + (c + 0.05) * cell), int(y0 + (r + 0.04) * cell)),
                  (int(x0 + (c + 0.45) * cell), int(y0 + (r + 0.33) * cell)), (246, 246, 246), -1)
    got = read(photograph(flat, rng).image, readers)
    assert got.result.solution is None and got.marks is None
    assert got.result.status == Status.UNSOLVABLE and "killer page, not answered" in got.result.message


def test_an_ordinary_page_stays_ordinary(readers):
    easy = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    img, corners = page(easy, seed=3)
    frame = place(img, corners, quad((640, 360), 480, 6, 0.05), background((1280, 720), 3), blur=0.8)
    got = read(frame, readers).result
    assert got.status == Status.SOLVED and got.cages is None and "killer" not in got.message


def test_image_json_carries_the_cages(tmp_path, capsys):
    shot = photo_a(13, "dotted", 1)
    path = tmp_path / "killer.jpg"
    cv2.imwrite(str(path), shot.image)
    assert main(["image", str(path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["cages"] == [{"sum": c.total, "cells": list(c.cells)} for c in shot.killer.cages]
    assert obj["solution"] == shot.solution and obj["givens"] == shot.killer.to_string()
