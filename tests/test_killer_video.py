"""A killer page moving in a video: read live, answered once two readings agree, never a wrong answer."""

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
