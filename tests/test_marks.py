"""Display modes: what is drawn on the paper for answer, check and hint, on a real photo."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.marks import mistakes_of, plan_marks
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.cli import main
from ar_sudoku.io.records import step_json
from ar_sudoku.sudoku.logic import PAPER_ORDER, next_steps


def next_step(puzzle: str):
    """The hint drawn on paper: the first step in paper order (hidden singles first)."""
    return next_steps(puzzle, finders=PAPER_ORDER)[0]

PUZZLE = "2......8.936..5.......7269...82..4..54......1....8.57.82.7.3.....9......6.....1.7"  # samples/photo.jpg
SOLUTION = "275196384936845712481372695198257463547639821362481579824713956719564238653928147"


def _entries(**cells: str) -> str:
    out = ["."] * 81
    for name, d in cells.items():
        r, c = int(name[1]), int(name[3])
        out[(r - 1) * 9 + c - 1] = d
    return "".join(out)


def test_answer_fills_empty_cells_but_not_written_ones():
    entries = _entries(r1c2="7", r1c3="9")  # r1c2 right, r1c3 wrong (it is 5)
    m = plan_marks("answer", PUZZLE, SOLUTION, entries)
    cells = {i for i, _ in m.answers}
    assert 1 not in cells and 2 not in cells and 3 in cells
    assert len(m.answers) == PUZZLE.count(".") - 2
    assert m.mistakes == (2,) == mistakes_of(PUZZLE, SOLUTION, entries)


def test_check_reveals_nothing_and_counts_what_is_left():
    m = plan_marks("check", PUZZLE, SOLUTION, _entries(r1c3="9"))
    assert m.answers == () and m.small == () and m.mistakes == (2,)
    assert m.text == f"1 mistake; {PUZZLE.count('.') - 1} cells still empty"


def test_hint_shows_one_step_and_a_mistake_first():
    step = next_step(PUZZLE)
    m = plan_marks("hint", PUZZLE, SOLUTION)
    assert m.answers == () and m.ring == (step.cell,) and m.small == ((step.cell, str(step.digit)),)
    assert SOLUTION[step.cell] == str(step.digit) and m.text == step.text
    wrong = plan_marks("hint", PUZZLE, SOLUTION, _entries(r1c3="9"))
    assert wrong.mistakes == (2,) and wrong.small == () and "r1c3 is wrong" in wrong.text
    assert "5" not in wrong.text  # the right digit is not given away


def test_marks_are_drawn_in_the_grid_and_only_there():
    frame = np.full((400, 400, 3), 255, np.uint8)
    corners = np.float32([[50, 50], [350, 60], [340, 350], [60, 340]])
    renderer = OverlayRenderer()
    hint = plan_marks("hint", PUZZLE, SOLUTION)
    out = renderer.draw_marks(frame.copy(), corners, hint)
    changed = (out != frame).any(axis=2)
    ys, xs = np.nonzero(changed)
    assert changed.sum() > 50 and xs.min() >= 50 and xs.max() <= 350 and ys.min() >= 50 and ys.max() <= 350
    r, c = divmod(hint.ring[0], 9)
    # the ring and its digit (drawn strongly) sit at the hinted cell (bilinear map of the cell's centre);
    # the unit that proves it is shaded lightly
    u, v = (c + 0.5) / 9, (r + 0.5) / 9
    top = corners[0] + u * (corners[1] - corners[0])
    bottom = corners[3] + u * (corners[2] - corners[3])
    cx, cy = top + v * (bottom - top)
    diff = cv2.absdiff(out, frame).max(axis=2)
    sy, sx = np.nonzero(diff > 150)
    assert len(sx) > 30 and abs(sx.mean() - cx) < 12 and abs(sy.mean() - cy) < 12
    if hint.shade:
        assert int(((diff > 40) & (diff <= 150)).sum()) > 9 * 20 * 20
    answer = renderer.draw_marks(frame.copy(), corners, plan_marks("answer", PUZZLE, SOLUTION))
    assert (answer != frame).any(axis=2).sum() > 5 * len(sx)  # every missing digit, against one hint


@pytest.mark.parametrize("mode", ["answer", "check", "hint"])
def test_image_show_modes_on_the_sample_photo(tmp_path, capsys, mode):
    out = tmp_path / f"{mode}.png"
    code = main(["image", "samples/photo.jpg", "--show", mode, "-o", str(out), "--json"])
    assert code == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["givens"] == PUZZLE and obj["solution"] == SOLUTION
    assert ("hint" in obj) == (mode == "hint")
    if mode == "hint":
        assert obj["hint"] == step_json(next_step(PUZZLE))
    photo, drawn = cv2.imread("samples/photo.jpg"), cv2.imread(str(out))
    changed = int((cv2.absdiff(photo, drawn).max(axis=2) > 40).sum())
    assert (changed == 0) if mode == "check" else (changed > 100)


def test_check_text_hides_the_solution(capsys):
    assert main(["image", "samples/photo.jpg", "--check"]) == 0
    text = capsys.readouterr().out
    assert SOLUTION[:9] not in text.replace(" ", "").replace("|", "") and "no mistakes" in text


def test_live_hint_mode_follows_n_and_switches_modes(reader):
    from conftest import EASY, EASY_SOLUTION, rendered_frame

    from ar_sudoku.ar.session import ARSession, SessionConfig

    quad = np.float32([[420, 140], [860, 150], [850, 590], [410, 580]])
    frame = rendered_frame(EASY, quad)
    with ARSession(reader, config=SessionConfig(solve_lag=1), mode="hint") as session:  # frames, not the clock
        result = None
        for _ in range(40):
            result = session.step(frame.copy())
            if result.marks is not None:
                break
        assert result is not None and result.solution == EASY_SOLUTION and result.marks is not None
        first = result.marks
        assert first.ring and first.answers == () and EASY_SOLUTION[first.ring[0]] == first.small[0][1]
        session.next_hint()  # the person wrote it: the next hint is another cell
        second = session.step(frame.copy()).marks
        assert second is not None and second.ring != first.ring and session.entries()[first.ring[0]] != "."
        session.set_mode("answer")
        answer = session.step(frame.copy()).marks
        assert answer is not None and len(answer.answers) == EASY.count(".") - 1  # the hinted cell is written
        drawn = session.draw(frame.copy(), session.step(frame.copy()))
        assert int((cv2.absdiff(drawn, frame).max(axis=2) > 40).sum()) > 500


def _cell_centre(quad: np.ndarray, cell: int) -> np.ndarray:
    """Where the centre of ``cell`` lands under the homography of ``quad``."""
    from ar_sudoku.ar.overlay import FLAT_CORNERS

    r, c = divmod(cell, 9)
    hmat = cv2.getPerspectiveTransform(FLAT_CORNERS, np.float32(quad))
    return cv2.perspectiveTransform(np.float32([[[c + 0.5, r + 0.5]]]), hmat).reshape(2)


@pytest.mark.parametrize("size", [(1280, 720), (3840, 2160)])
def test_answers_are_drawn_in_their_cells_at_any_size(size):
    """Each answer's ink sits centred in its own cell, as tall as the font makes it, and nothing outside the grid
    changes; at 4K as at 720p (the outlines are reprojected, so a big grid stays sharp)."""
    from conftest import EASY, EASY_SOLUTION

    w, h = size
    s = w / 1280
    quad = np.float32([[300, 80], [1000, 110], [980, 660], [280, 640]]) * s
    frame = np.full((h, w, 3), 200, np.uint8)
    frame[:: max(1, round(40 * s))] = 120  # some texture under the marks
    out = OverlayRenderer().draw(frame.copy(), quad, EASY, EASY_SOLUTION)
    ink = (cv2.absdiff(out, frame).max(axis=2) > 60).astype(np.uint8)
    outside = cv2.fillConvexPoly(np.ones((h, w), np.uint8), np.int32(quad), 0)
    assert not (ink & outside).any()
    cell_px = float(np.linalg.norm(quad[1] - quad[0])) / 9  # across
    cell_h = float(np.linalg.norm(quad[3] - quad[0])) / 9  # down
    for i in (i for i, g in enumerate(EASY) if g == "."):
        cx, cy = _cell_centre(quad, i)
        r = round(0.45 * cell_px)
        ys, xs = np.nonzero(ink[round(cy) - r: round(cy) + r, round(cx) - r: round(cx) + r])
        assert len(xs) > 0.02 * cell_px**2, i
        assert abs(xs.mean() - r) < 0.1 * cell_px and abs(ys.mean() - r) < 0.1 * cell_px, i
        assert 0.3 * cell_h < ys.max() - ys.min() < 0.45 * cell_h, i  # the font's height: 0.375 of a cell
    green = np.array(OverlayRenderer.color, np.int16)
    solid = out[ink.astype(bool)].astype(np.int16)
    assert (np.abs(solid - green).max(axis=1) < 8).mean() > 0.6  # filled in the answers' colour, edges blended


def test_answers_follow_a_curled_lattice():
    """On a curled page each digit is placed by its own box's homography: centred in its bent cell."""
    from conftest import EASY, EASY_SOLUTION

    from ar_sudoku.vision import lattice as L

    quad = np.float32([[300, 80], [1000, 110], [980, 660], [280, 640]])
    lattice = L.from_corners(quad).reshape(10, 10, 2).copy()
    lattice[:, :, 1] += 25 * np.sin(np.linspace(0, np.pi, 10))[None, :]  # bowed across: columns sag in the middle
    frame = np.full((720, 1280, 3), 200, np.uint8)
    out = OverlayRenderer().draw(frame.copy(), quad, EASY, EASY_SOLUTION, lattice)
    ink = cv2.absdiff(out, frame).max(axis=2) > 60
    for i in (i for i, g in enumerate(EASY) if g == "."):
        r, c = divmod(i, 9)
        centre = lattice[r: r + 2, c: c + 2].reshape(-1, 2).mean(axis=0)
        x, y = np.round(centre).astype(int)
        ys, xs = np.nonzero(ink[y - 30: y + 30, x - 30: x + 30])
        assert len(xs) > 40 and abs(xs.mean() - 30) < 6 and abs(ys.mean() - 30) < 7, i


def test_a_degenerate_quad_draws_nothing():
    frame = np.full((200, 200, 3), 200, np.uint8)
    flat = np.float32([[10, 10], [190, 10], [100, 10], [10, 10]])  # collapsed
    out = OverlayRenderer().draw_marks(frame.copy(), flat, plan_marks("answer", PUZZLE, SOLUTION))
    assert out.shape == frame.shape
