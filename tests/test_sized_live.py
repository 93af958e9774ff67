"""Issue 24: 4x4, 6x6 and 16x16 puzzles in live video and ``video``: found, locked, followed and answered in the
page's own symbols, never with another puzzle's answer.

The pages are generated puzzles printed in a face the symbol model never trained on and photographed
(``scripts/sized_pages.py``), moved a little as a hand holds a page, written to a real video and read by the
real command (or by ``ar.page.Page`` itself where the test is about the session)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.page import SIZED_MODES, Page
from ar_sudoku.ar.sized_board import ink_agrees
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.solver import parse_line, solve
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.sizes import styled

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 720)


def _page(box: tuple[int, int], style: str, seed: int):
    import sized_pages

    return sized_pages.sized_page(box, style, random.Random(seed), size=SIZE)


def _held(image: np.ndarray, frames: int) -> list[np.ndarray]:
    """The page as a hand holds it: a few pixels of drift, frame by frame."""
    out = []
    for f in range(frames):
        shift = np.float32([[1, 0, 8 * np.sin(f / 9)], [0, 1, 5 * np.cos(f / 7)]])
        out.append(cv2.warpAffine(image, shift, SIZE, borderMode=cv2.BORDER_REPLICATE))
    return out


def _solution(givens: str, box: tuple[int, int]) -> str:
    res = solve(parse_line(givens, box=box), 10.0)
    assert res.solution
    return res.solution


@pytest.mark.parametrize("box,style,seed", [((2, 3), "1-9", 5), ((4, 4), "1-16", 5)])
def test_a_held_six_by_six_or_sixteen_by_sixteen_page_is_answered_in_the_video_from_its_second_frame(
        tmp_path, box, style, seed):
    page = _page(box, style, seed)
    truth = _solution(page.givens, box)
    video, out, log = tmp_path / "page.mp4", tmp_path / "out.mp4", tmp_path / "log.jsonl"
    with VideoSink(video, SIZE, 30) as sink:
        for frame in _held(page.image, 24):
            sink.write(frame)
    done = subprocess.run([sys.executable, "-m", "ar_sudoku", "video", str(video), "--headless", "--jsonl", str(log),
                           "--output", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(rows) == 24
    answered = [r["frame"] for r in rows if any(p["solution"] for p in r["puzzles"])]
    n = box[0] * box[1]
    for r in rows:
        for p in r["puzzles"]:
            if p["solution"]:
                assert (p["solution"], p["size"], p["box"], p["symbols"]) == (truth, n, f"{box[0]}x{box[1]}", style)
                assert p["givens"] == page.givens and p["lattice"] is None
    assert answered and answered[0] <= 2 and len(answered) == 24 - answered[0]  # then on every frame
    # the recording shows the answers on the paper: the last frame's empty cells hold the answers' green ink
    cap = cv2.VideoCapture(str(out))
    last = None
    while (ok := cap.read())[0]:
        last = ok[1]
    cap.release()
    assert last is not None
    corners = np.asarray(rows[-1]["puzzles"][0]["corners"], np.float32)
    side = n * 40
    flat = cv2.warpPerspective(last, cv2.getPerspectiveTransform(
        corners, np.float32([[0, 0], [side, 0], [side, side], [0, side]])), (side, side))
    b, g, r = (flat[..., k].astype(int) for k in range(3))
    green = (g - r > 60) & (g - b > 40)
    per_cell = green.reshape(n, 40, n, 40).mean(axis=(1, 3)).ravel()
    empty = np.array([ch == "." for ch in page.givens])
    assert (per_cell[empty] > 0.01).mean() > 0.95  # answers in the empty cells
    assert (per_cell[~empty] < 0.01).all()  # and none over the printed values
    assert styled(truth, style)  # the answer as the page prints it exists for every cell


def test_another_puzzle_of_the_same_size_in_the_same_place_ends_the_grid_at_once_and_is_read_afresh():
    box = (2, 3)
    first, second = _page(box, "1-9", 5), _page(box, "1-9", 6)
    truths = _solution(first.givens, box), _solution(second.givens, box)
    # the second puzzle's page warped onto the first's place: the same grid, other values
    hmat = cv2.getPerspectiveTransform(second.corners.astype(np.float32), first.corners.astype(np.float32))
    swapped = cv2.warpPerspective(second.image, hmat, SIZE, dst=first.image.copy(), borderMode=cv2.BORDER_TRANSPARENT)
    frames = _held(first.image, 10) + _held(swapped, 10)
    drawn = []
    with Page(DigitReader()) as live:
        for frame in frames:
            res = live.step(frame)
            drawn.append([p.solution for p in res.puzzles if p.solution])
    assert all(s == truths[0] for d in drawn[:10] for s in d) and drawn[9] == [truths[0]]
    assert all(s == truths[1] for d in drawn[10:] for s in d)  # never the first's answer on the second
    assert drawn[-1] == [truths[1]]


def test_a_locked_grid_quick_ink_look_tells_its_own_givens_from_another_puzzles():
    for box in [(2, 2), (3, 2), (4, 4)]:
        page = _page(box, "1-9" if box != (4, 4) else "0-F", 1)
        gray = cv2.cvtColor(page.image, cv2.COLOR_BGR2GRAY)
        n = box[0] * box[1]
        other = generate("easy", seed=7, box=box).puzzle
        assert ink_agrees(gray, page.corners, page.givens, n)
        assert not ink_agrees(gray, page.corners, other, n)


def test_checks_and_hints_on_a_six_by_six_page_draw_no_answer_and_say_why():
    box = (3, 2)
    page = _page(box, "1-9", 2)
    with Page(DigitReader(), mode="hint") as live:
        results = [live.step(frame) for frame in _held(page.image, 4)]
    found = [p for r in results for p in r.puzzles if p.size == 6 and p.status == "solved"]
    assert found, "the 6x6 grid is found and locked"
    assert all(p.solution is None and p.marks is not None and p.marks.text == SIZED_MODES for p in found)


def test_a_nine_by_nine_puzzle_and_a_six_by_six_one_held_side_by_side_are_both_answered_live():
    import eval_page
    from ar_sudoku.vision.kinds import KindReader

    rng = random.Random(2)
    nine = eval_page.rendered_page(1, rng, size=(640, 720))
    six = _page_of((2, 3), rng)
    image = np.hstack([nine.image, six.image])
    truths = {9: _solution(nine.givens[0], (3, 3)), 6: _solution(six.givens, (2, 3))}
    drawn = []
    with Page(DigitReader(), kinds=KindReader()) as live:
        for frame in _held(image, 20):
            res = live.step(frame)
            drawn.append({p.size: p.solution for p in res.puzzles if p.solution})
    assert all(sol == truths[n] for d in drawn for n, sol in d.items())  # never a wrong answer on either
    assert all(d.keys() == {9, 6} for d in drawn[8:])  # both answered once the 9x9 puzzle's votes are in


def _page_of(box: tuple[int, int], rng: random.Random):
    import sized_pages

    return sized_pages.sized_page(box, "1-9", rng, size=(640, 720))


def test_a_four_by_four_puzzle_brought_beside_a_solved_nine_by_nine_one_is_found_and_answered_live():
    """Once every 9x9 puzzle in view is solved the sizes' search slows down but goes on: a children's puzzle
    slid into view afterwards is answered within about a second, and the 9x9 answer stays drawn meanwhile."""
    import eval_page
    from ar_sudoku.ar.sized_board import SIZED

    rng = random.Random(1)
    nine = eval_page.rendered_page(1, rng, size=(640, 720))
    four = _page_of((2, 2), rng)
    alone = np.hstack([nine.image, np.full_like(four.image, 200)])
    both = np.hstack([nine.image, four.image])
    truths = {9: _solution(nine.givens[0], (3, 3)), 4: _solution(four.givens, (2, 2))}
    drawn = []
    with Page(DigitReader()) as live:
        for frame in _held(alone, 15) + _held(both, SIZED.find_every * SIZED.slow + 2):
            res = live.step(frame)
            drawn.append({p.size: p.solution for p in res.puzzles if p.solution})
    assert all(sol == truths[n] for d in drawn for n, sol in d.items())  # never a wrong answer on either
    assert drawn[14] == {9: truths[9]}  # the 9x9 puzzle solved before its neighbour came
    assert drawn[-1] == truths, "the 4x4 puzzle is answered beside it"
    assert all(9 in d for d in drawn[14:])


def test_a_six_by_six_page_held_upside_down_is_answered_the_right_way_up_and_followed_so():
    """The grid is read the right way up (``sizes.read_sized`` tries the quarter turns of an unsure reading)
    and its track follows the turned corners: the puzzle's own top-left stays first on every frame."""
    box = (2, 3)
    page = _page(box, "1-9", 3)
    turned = np.ascontiguousarray(np.rot90(page.image, 2))
    top_left = np.array([SIZE[0] - 1, SIZE[1] - 1]) - page.corners[0]
    truth = _solution(page.givens, box)
    with Page(DigitReader()) as live:
        answered = [p for frame in _held(turned, 12) for p in live.step(frame).puzzles if p.solution]
    assert answered, "the turned page is answered"
    assert all(p.solution == truth and p.givens == page.givens for p in answered)
    assert all(np.linalg.norm(np.asarray(p.corners)[0] - top_left) < 30 for p in answered)
