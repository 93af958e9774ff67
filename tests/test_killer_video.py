"""A killer page moving in a video: read live, answered once two readings agree, never a wrong answer; its sums,
not its cells' ink, are the evidence that it is still there, and another killer page swapped in its place is
no longer answered with the first one's solution."""

from __future__ import annotations

import numpy as np
import pytest

import clips
from ar_sudoku.ar.killer_live import KillerSight, look
from ar_sudoku.sudoku.vocabulary import Status
from eval_killer_video import compare
from make_killer_video import make


def test_a_moving_killer_page_is_answered_and_never_wrongly(tmp_path):
    video = tmp_path / "killer.mp4"
    truth_path = make(video, renderer="A", style="dashed", seconds=2.0, size=(800, 450), fps=15, seed=50_200,
                      givens=1)
    truth = clips.read_jsonl(truth_path)
    log = clips.replay_video(video, lag=1)
    figures = compare(truth, log)
    assert figures.in_view == len(truth) and figures.wrong == 0
    assert figures.first is not None and figures.first <= 12  # answered within the first second or so
    assert figures.right >= len(truth) - 13 and figures.cages_right >= figures.right
    answered = [line for line in log if line["solution"]]
    assert answered and all(line["cages"] == truth[0]["cages"] for line in answered)


def test_a_killer_page_keeps_its_answer_when_the_camera_loses_focus(tmp_path):
    """Once taken, the page's evidence is its sums' look, not its cells' ink: a camera that loses focus (a 2.2 px
    blur at 720p) leaves the small sums too faint to count as ink, and main took every frame after for another
    page (nothing drawn after frame 20 here), while a person still sees the same page."""
    import cv2

    from ar_sudoku.ar.page import Page
    from ar_sudoku.ar.session import SessionConfig
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    video = tmp_path / "dotted.mp4"
    truth = clips.read_jsonl(make(video, renderer="A", style="dotted", seconds=2.0, size=(1280, 720), fps=30,
                                  seed=5, givens=0))
    capture = cv2.VideoCapture(str(video))
    drawn = []
    with Page(DigitReader(), kinds=KindReader(), config=SessionConfig(solve_lag=1)) as page:
        for i in range(len(truth)):
            ok, frame = capture.read()
            assert ok
            result = page.step(cv2.GaussianBlur(frame, (0, 0), 2.2) if i >= 20 else frame)
            drawn.append(result.solution)
    assert drawn[:20].count(truth[0]["solution"]) >= 12  # locked on the sharp frames
    assert all(d == truth[0]["solution"] for d in drawn[20:])


def test_another_killer_page_swapped_in_place_is_not_answered_as_the_first(tmp_path):
    """The same newspaper's next killer puzzle, slid into the hand's place: the same grid and much the same cage
    lines, no givens; the first page's answer must leave it at once."""
    video = tmp_path / "swap.mp4"
    truth = clips.read_jsonl(make(video, renderer="A", style="dotted", seconds=3.0, size=(1280, 720), fps=15,
                                  seed=5, givens=0, swap_at=1.5))
    log = clips.replay_video(video, lag=1)
    swap = next(t["frame"] for t in truth if t["solution"] != truth[0]["solution"])
    first = [line["solution"] == truth[0]["solution"] for line in log[:swap]]
    assert sum(first) >= swap - 10  # the first page was answered
    assert all(line["solution"] in (None, want["solution"]) for line, want in zip(log[swap:], truth[swap:]))


def test_the_sums_look_tells_a_page_from_the_next_one():
    """``sums_look`` over two photographs of one page, against the same newspaper's next puzzle."""
    import random

    import cv2

    from ar_sudoku.ar.killer_live import SUMS_SAME
    from ar_sudoku.vision.cells import square
    from ar_sudoku.vision.look import SUMS, likeness, sums_look
    from killer_pages import page_a, photograph, puzzle

    def sums(seed: int, shot: int):
        killer, solution = puzzle(seed)
        photo = photograph(page_a(killer, solution, "dotted", random.Random(3)), random.Random(shot))
        gray = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
        return sums_look(square(gray, photo.corners, SUMS.cell, centred=True))

    page = sums(400, 1)
    assert likeness(sums(400, 2), page) >= SUMS_SAME + 0.1
    assert likeness(sums(401, 1), page) < SUMS_SAME - 0.05
    assert likeness(sums(402, 2), page) < SUMS_SAME - 0.05


def test_a_single_reading_is_not_taken_alone(monkeypatch):
    """Two killer readings in a row must agree before one is drawn (``killer_live.look``), as the votes of
    givens do; the cage models' odds are averaged over the last few sights."""
    from ar_sudoku.ar import killer_live
    from ar_sudoku.sudoku.killer import Cage
    from ar_sudoku.sudoku.rules import BoardResult
    from ar_sudoku.vision.cages import CageOdds
    from ar_sudoku.vision.killer_read import PageSight

    cage = (Cage(45, tuple(range(9))),)
    decided = iter([BoardResult(Status.SOLVED, solution=s * 81, cages=cage) for s in "122"])
    odds = iter([np.full((81, 46), v, np.float32) for v in (0.1, 0.2, 0.3)])
    averaged = []

    def decide(seen, timeout):
        averaged.append(float(seen.odds.sums[0, 0]))
        return next(decided)

    monkeypatch.setattr(killer_live, "see_page", lambda *a, **k: PageSight(
        CageOdds(next(odds), np.zeros(144, np.float32), 0, np.zeros((4, 4, 3), np.uint8)),
        np.zeros((4, 2), np.float32), None, "." * 81))
    monkeypatch.setattr(killer_live, "decide", decide)
    sight = KillerSight()
    image, corners = np.zeros((8, 8, 3), np.uint8), np.zeros((4, 2), np.float32)
    taken = [look(sight, image, corners, None, None, 1.0) for _ in range(3 * killer_live.EVERY)]
    found = [t for t in taken if t is not None]
    assert len(found) == 1 and found[0].solution == "2" * 81  # the first reading disagreed with the second
    assert averaged == pytest.approx([0.1, 0.15, 0.2])
