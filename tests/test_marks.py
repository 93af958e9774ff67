"""Display modes: what is drawn on the paper for answer, check and hint, on a real photo."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.marks import mistakes_of, plan_marks
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.cli import main
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
    renderer = OverlayRenderer(cell=40)
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
        assert obj["hint"] == next_step(PUZZLE).to_json()
    photo, drawn = cv2.imread("samples/photo.jpg"), cv2.imread(str(out))
    changed = int((cv2.absdiff(photo, drawn).max(axis=2) > 40).sum())
    assert (changed == 0) if mode == "check" else (changed > 100)


def test_check_text_hides_the_solution(capsys):
    assert main(["image", "samples/photo.jpg", "--check"]) == 0
    text = capsys.readouterr().out
    assert SOLUTION[:9] not in text.replace(" ", "").replace("|", "") and "no mistakes" in text


def test_live_hint_mode_follows_n_and_switches_modes(reader):
    from conftest import EASY, EASY_SOLUTION, rendered_frame

    from ar_sudoku.ar.session import ARSession

    quad = np.float32([[420, 140], [860, 150], [850, 590], [410, 580]])
    frame = rendered_frame(EASY, quad)
    with ARSession(reader, mode="hint") as session:
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


def test_a_grid_large_on_screen_is_blended_box_by_box_as_a_whole():
    """At 4K only the ink's boxes are warped and blended; the frame comes out as the whole-grid warp makes it."""
    from conftest import EASY, EASY_SOLUTION

    import ar_sudoku.ar.overlay as overlay_mod

    frame = np.full((2160, 3840, 3), 200, np.uint8)
    frame[::40] = 120  # some texture under the marks
    corners = np.float32([[900, 200], [3000, 260], [2950, 2050], [860, 1990]])
    boxes = OverlayRenderer(cell=48).draw(frame.copy(), corners, EASY, EASY_SOLUTION)
    saved = overlay_mod.PER_BOX_AREA
    overlay_mod.PER_BOX_AREA = 10**12  # never box by box: the whole grid's box is warped
    try:
        whole = OverlayRenderer(cell=48).draw(frame.copy(), corners, EASY, EASY_SOLUTION)
    finally:
        overlay_mod.PER_BOX_AREA = saved
    assert (whole != frame).any(axis=2).sum() > 10_000  # digits were drawn
    differ = (np.abs(boxes.astype(int) - whole.astype(int)).max(axis=2) > 2).sum()
    assert differ < 0.001 * (whole != frame).any(axis=2).sum()
