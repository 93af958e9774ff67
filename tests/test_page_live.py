"""Several puzzles live (issue 24): each tracked, read, solved and drawn on its own by ``ar.page.Page``."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.page import Page
from ar_sudoku.ar.session import SessionConfig
from ar_sudoku.io.records import frame_json
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.vision.synth import background, page, place, quad

W, H = 1280, 720
A = generate("medium", seed=31)
B = generate("medium", seed=32)
LOCKSTEP = SessionConfig(solve_lag=1)
# B with most of its givens gone: many solutions, so it is never drawn (a reading the session cannot trust)
THIN = "".join(ch if i < 20 else "." for i, ch in enumerate(B.puzzle))


def two_puzzles(left: str, right: str, n: int, hand_on_right: range = range(0)) -> tuple[list, list]:
    """Two pages side by side on a table, moving a little together; a hand over the right one on some frames."""
    pages = (page(left, cell=36, margin=40, seed=1), page(right, cell=36, margin=40, seed=2))
    back = background((W, H), 5)
    frames, truth = [], []
    for i in range(n):
        u = i / 12.0
        dx, dy = 25 * math.sin(u), 12 * math.cos(u * 1.3)
        quads = (quad((330 + dx, 360 + dy), 330, 2 * math.sin(u)), quad((930 + dx, 360 + dy), 330, 2 * math.sin(u)))
        f = back.copy()
        for (img, c), q in zip(pages, quads):
            f = place(img, c, q, f, blur=0.6)
        if i in hand_on_right:
            cv2.ellipse(f, (int(930 + dx), int(380 + dy)), (150, 110), -20, 0, 360, (120, 150, 205), -1)
        frames.append(f)
        truth.append(quads)
    return frames, truth


def _on(corners: np.ndarray | None, truth: tuple) -> int | None:
    if corners is None:
        return None
    c = corners.mean(axis=0)
    return next((k for k, q in enumerate(truth) if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c[0]),
                                                                                         float(c[1])), False) >= 0),
                None)


def test_two_puzzles_in_view_are_both_tracked_solved_and_drawn_each_on_its_own(reader):
    frames, truth = two_puzzles(A.puzzle, B.puzzle, 30)
    solutions = (A.solution, B.solution)
    with Page(reader, config=LOCKSTEP) as p:
        results = [p.step(f) for f in frames]
    both = [r for r in results if sum(q.solution is not None for q in r.puzzles) == 2]
    assert len(both) >= 20  # locked within a few frames, then held
    ids = set()
    for r, t in zip(results, truth):
        assert len(r.puzzles) <= 2
        for q in r.puzzles:
            if q.solution is not None:
                assert q.solution == solutions[_on(q.corners, t)]  # never the other puzzle's answer
        if r.puzzles:  # the frame's own fields are the first puzzle's, in reading order (left first)
            assert r.corners is r.puzzles[0].corners and _on(r.corners, t) == 0
            ids |= {q.puzzle for q in r.puzzles}
    assert len(ids) == 2  # one track each, kept all along
    line = frame_json(results[-1])
    assert [q["solution"] for q in line["puzzles"]] == [A.solution, B.solution]
    assert line["solution"] == A.solution and line["puzzles"][0]["corners"] == line["corners"]
    assert {q["puzzle"] for q in line["puzzles"]} == ids


def test_one_puzzles_trouble_never_stops_the_drawing_on_its_neighbour(reader):
    """The right puzzle cannot be solved (too few givens) and a hand covers it for a while: the left one's
    answer stays drawn on every frame once it is locked, and the right one never shows an answer."""
    frames, truth = two_puzzles(A.puzzle, THIN, 40, hand_on_right=range(15, 25))
    with Page(reader, config=LOCKSTEP) as p:
        results = [p.step(f) for f in frames]
    locked = next(i for i, r in enumerate(results) if any(q.solution for q in r.puzzles))
    assert locked <= 5
    for r, t in zip(results[locked:], truth[locked:]):
        drawn = {_on(q.corners, t): q.solution for q in r.puzzles if q.solution is not None}
        assert drawn == {0: A.solution}


@pytest.mark.parametrize("shape", [(720, 1280, 3), (540, 960, 3)])
def test_nothing_in_view_gives_a_searching_frame_with_an_empty_list(reader, shape):
    with Page(reader, config=LOCKSTEP) as p:
        r = p.step(np.full(shape, 120, np.uint8))
    assert r.puzzles == () and r.corners is None and r.solution is None and str(r.status) == "searching"
    assert frame_json(r)["puzzles"] == []


def test_video_over_a_folder_reads_every_puzzle_of_each_photo_as_the_image_command_does(tmp_path):
    """A folder of photos in ``video``: each photo its own scene, every puzzle on it read (a page of two 9x9
    puzzles, a 6x6 page), each with what ``image --json`` gives for it."""
    import json
    import random
    import subprocess
    import sys
    from pathlib import Path

    import eval_page
    import sized_pages

    folder = tmp_path / "photos"
    folder.mkdir()
    assert cv2.imwrite(str(folder / "a_page.jpg"), eval_page.rendered_page(2, random.Random(3)).image,
                       [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert cv2.imwrite(str(folder / "b_six.jpg"), sized_pages.sized_page((2, 3), "1-9", random.Random(1)).image,
                       [cv2.IMWRITE_JPEG_QUALITY, 92])
    root = Path(__file__).resolve().parents[1]

    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "ar_sudoku", *args], capture_output=True, text=True, cwd=root,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    log = tmp_path / "log.jsonl"
    run("video", str(folder), "--headless", "--jsonl", str(log))
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    photos = [json.loads(x) for x in run("image", str(folder / "a_page.jpg"), str(folder / "b_six.jpg"),
                                         "--json").splitlines()]
    assert [len(r["puzzles"]) for r in rows] == [2, 1]
    want = [[(p["givens"], p["solution"], p["size"]) for p in photos if p["path"].endswith(name)]
            for name in ("a_page.jpg", "b_six.jpg")]
    got = [[(p["givens"], p["solution"], p["size"]) for p in r["puzzles"]] for r in rows]
    assert got == want
    assert all(s for page in got for _, s, _ in page)  # every one solved
