"""A page of three puzzles panned over (issue 24): a real video of real photos, written and read back by the
real CLI (``ar-sudoku video --headless --jsonl``); the assertions are on its JSONL log against the truth."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PHOTOS, need


@pytest.mark.data
def test_panning_over_a_page_of_three_puzzles_locks_each_soon_and_never_draws_one_on_another(tmp_path):
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import clips
    import eval_page_video
    import make_page_video

    video = tmp_path / "page.mp4"
    assert make_page_video.main(["--out", str(video), "--seconds", "8", "--size", "960x540"]) == 0
    truth = clips.read_jsonl(video.with_suffix(".truth.jsonl"))
    assert len(truth) == 240 and all(len(t["puzzles"]) == 3 for t in truth)
    assert any(all(p["visible"] for p in t["puzzles"]) for t in truth)  # the whole page in view at once
    log_path = tmp_path / "page.jsonl"
    clips.run_video(video, log_path, "test")
    log = clips.read_jsonl(log_path)
    fig = eval_page_video.compare(truth, log)
    assert fig.frames == 240
    assert fig.wrong_puzzle == 0 and fig.wrong_answer == 0
    assert fig.worst_lock() is not None and fig.worst_lock() <= 5  # every puzzle, each time it comes into view
    assert {s.puzzle for s in fig.stretches} == {0, 1, 2}
    for j in range(3):
        assert fig.drawn[j] >= 0.85 * fig.in_view[j]
    assert fig.t_ms.get(3), "no frame with the three answers drawn at once"
    # old readers: the top-level fields are the first puzzle's of the list
    for row in log:
        if row["puzzles"]:
            first = row["puzzles"][0]
            assert (row["corners"], row["givens"], row["solution"]) == (first["corners"], first["givens"],
                                                                        first["solution"])
        assert len({p["puzzle"] for p in row["puzzles"]}) == len(row["puzzles"])


@pytest.fixture(scope="module")
def seed_two(tmp_path_factory):
    """Seed 2's clip (4 s, 960x540), whose middle puzzle is image1049, and its truth."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import clips
    import make_page_video

    video = tmp_path_factory.mktemp("seed2") / "page.mp4"
    assert make_page_video.main(["--out", str(video), "--seconds", "4", "--size", "960x540", "--seed", "2"]) == 0
    truth = clips.read_jsonl(video.with_suffix(".truth.jsonl"))
    assert truth[0]["puzzles"][1]["name"] == "image1049"
    return video, truth


@pytest.mark.data
def test_a_puzzle_whose_outline_sits_half_a_cell_off_its_grid_is_answered_and_drawn_where_its_lines_are(
        seed_two, tmp_path):
    """Seed 2's middle puzzle (image1049): the live detector's outline puts its bottom-right corner half a cell
    up, so a reading through it loses the bottom row's givens (it used to stay unsolved for the whole clip).
    Once read without a solution, and once solved, its detections fit the corners to the crossings of the
    lines (``find_grid(precise=True)``): it locks, and its answer is drawn on the grid, not a third of a cell
    off where the outline's corner sits (as it was while only an unsolved board was detected so)."""
    import clips
    import eval_page_video

    video, truth = seed_two
    log_path = tmp_path / "page.jsonl"
    clips.run_video(video, log_path, "test")
    log = clips.read_jsonl(log_path)
    fig = eval_page_video.compare(truth, log)
    assert fig.wrong_puzzle == 0 and fig.wrong_answer == 0
    assert fig.in_view[1] > 40 and fig.drawn[1] >= 0.75 * fig.in_view[1]
    puzzle = truth[0]["puzzles"][1]
    cell = np.linalg.norm(np.subtract(puzzle["corners"][1], puzzle["corners"][0])) / 9
    off = [np.abs(np.subtract(p["corners"], t["puzzles"][1]["corners"])).max()
           for t, row in zip(truth, log) for p in row.get("puzzles") or []
           if p.get("solution") == puzzle["solution"] and t["puzzles"][1]["visible"]]
    assert off and np.median(off) < 0.15 * cell, (np.median(off), cell)


@pytest.mark.data
def test_a_puzzle_whose_outline_sits_off_its_grid_at_one_corner_locks_from_its_first_votes(seed_two):
    """image1049 again, its frames stepped through ``Page`` with the solver waited for a frame after each
    submission (so the frame it locks on depends on the frames alone). While its first reading is voted, a
    crossings' fit that moves one corner of the outline (the fold) and keeps the other three is taken
    (``find_grid(agreeing=True)``), so that reading has its bottom row and solves: it locked 7 frames after
    coming wholly into view, after a first reading without a solution; now within 5 (the issue's target)."""
    from ar_sudoku.ar.page import Page
    from ar_sudoku.ar.session import SessionConfig
    from ar_sudoku.io.sources import open_source
    from ar_sudoku.vision.digits import DigitReader
    from ar_sudoku.vision.kinds import KindReader

    video, truth = seed_two
    solution = truth[0]["puzzles"][1]["solution"]
    whole = next(f for f, t in enumerate(truth) if t["puzzles"][1]["visible"])
    locked, answers, unsolvable = None, set(), False
    with Page(DigitReader(), kinds=KindReader(), config=SessionConfig(solve_lag=1)) as page, \
            open_source(str(video)) as source:
        for f, frame in enumerate(source):
            result = page.step(frame)
            answers |= {p.solution for p in result.puzzles if p.solution}
            unsolvable |= any(p.status == "unsolvable" for p in result.puzzles)
            if f >= whole and any(p.solution == solution for p in result.puzzles):
                locked = f
                break
    assert locked is not None and locked - whole <= 5, (whole, locked)
    assert not unsolvable  # the first reading solved: no reading without a solution came before it
    assert answers <= {p["solution"] for p in truth[0]["puzzles"]}  # no answer that is no puzzle's


@pytest.mark.data
def test_a_puzzle_pasted_with_its_photo_edge_round_it_is_tracked_on_its_grid_not_on_the_edge(tmp_path):
    """Seed 3's middle puzzle (image70) is a photo pasted on the page whose edge runs a few pixels from the grid
    above and below, far beside it. The page finds the grid; the track's own search around it finds the photo's
    edge first. The track keeps the grid (it never read more than 6 of 26 givens off the edge, nor answered)."""
    pytest.importorskip("onnxruntime")
    need(PHOTOS / "printed")
    import clips
    import eval_page_video
    import make_page_video

    video = tmp_path / "page.mp4"
    assert make_page_video.main(["--out", str(video), "--seconds", "6", "--size", "960x540", "--seed", "3"]) == 0
    truth = clips.read_jsonl(video.with_suffix(".truth.jsonl"))
    assert truth[0]["puzzles"][1]["name"] == "image70"
    fig = eval_page_video.compare(truth, clips.replay_video(video, 1))
    assert fig.wrong_puzzle == 0 and fig.wrong_answer == 0
    assert fig.drawn[1] >= 0.9 * fig.in_view[1] > 0
    assert fig.worst_lock() is not None and fig.worst_lock() <= 5


def test_an_answer_over_its_puzzle_but_half_a_cell_off_is_counted_misplaced():
    # the judge counts which puzzle an answer is over (``drawn``) and, apart, how well it sits on its cells
    import eval_page_video

    grid = [[100.0, 100.0], [370.0, 100.0], [370.0, 370.0], [100.0, 370.0]]  # 30 px cells
    truth = [{"frame": f, "puzzles": [{"corners": grid, "visible": True, "solution": "1" * 81}]} for f in range(3)]
    off = [[x + dx, y] for (x, y), dx in zip(grid, (0.0, 20.0, 20.0, 0.0))]  # the right side two thirds of a cell out
    rolled = grid[1:] + grid[:1]  # a page read turned is drawn turned: still in place
    log = [{"t_ms": 1.0, "puzzles": [{"corners": c, "solution": "1" * 81}]} for c in (grid, off, rolled)]
    fig = eval_page_video.compare(truth, log)
    assert fig.drawn[0] == 3 and fig.misplaced == {0: 1}
    assert "1 of them over half a cell off" in fig.lines()[1]
