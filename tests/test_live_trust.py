"""Never an answer where its paper is not (issue 57): turned, pulled away, swapped, partly out of view.

The scenes are drawn here (``vision.synth``: a page warped onto a desk) and judged by the live scoreboard's own
judge (``scripts/eval_live.verdict``: each drawn answer against the grids truly in the frame). The last test
draws random sequences of pages, turns, cuts and empty desks (hypothesis) and checks the one invariant: from
the 4th frame of a new scene on, no answer is drawn on an empty desk or on another puzzle, and no frame says
``solved`` with nothing drawn.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ar_sudoku.ar.page import Page
from ar_sudoku.ar.session import SessionConfig
from ar_sudoku.ar.witness import PageWitness, Verdict
from ar_sudoku.io.records import frame_json
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import open_source
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.sudoku.solver import solve_text
from ar_sudoku.vision.cells import square
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.look import likeness, look, turned
from ar_sudoku.vision.quads import to_gray
from ar_sudoku.vision.synth import background, page, place, quad
from eval_live import GRACE, verdict

W, H = 640, 480
LOCKSTEP = SessionConfig(solve_lag=1)
PUZZLES = [generate("medium", seed=s).puzzle for s in (31, 32, 33)]
SOLUTIONS = [solve_text(p).solution for p in PUZZLES]
PAGES = [page(p, cell=36, margin=40, seed=i) for i, p in enumerate(PUZZLES)]
DESK = background((W, H), 5)


def frame_of(which: int | None, angle: float = 0.0, centre=(W / 2, H / 2), size: float = 300.0,
             streak: float = 0.0) -> tuple[np.ndarray, list[dict]]:
    """A frame showing page ``which`` (None: the empty desk) and the truth of its grid (puzzle order)."""
    if which is None:
        return DESK.copy(), []
    img, corners = PAGES[which]
    q = quad(centre, size, angle, 0.04)
    frame = place(img, corners, q, DESK, blur=0.6)
    if streak:
        k = np.zeros((int(streak) | 1, int(streak) | 1), np.float32)
        k[k.shape[0] // 2, :] = 1.0 / k.shape[1]
        frame = cv2.filter2D(frame, -1, k)
    return frame, [{"name": str(which), "solution": SOLUTIONS[which], "corners": q.tolist(), "visible": 1.0}]


@pytest.fixture(scope="module")
def kinds():
    return KindReader()


def run(frames: list[np.ndarray], reader, kinds) -> list[dict]:
    with Page(reader, kinds=kinds, config=LOCKSTEP) as session:
        return [frame_json(session.step(f)) for f in frames]


def shown(log: dict) -> list[dict]:
    return [p for p in log["puzzles"] if p.get("solution")]


def test_a_turned_look_is_the_look_at_rolled_corners():
    """The witness rights a turned page by rolling its corners: the look at corners rolled by k is the look
    turned by k."""
    frame, truth = frame_of(0, angle=8)
    gray = to_gray(frame)
    corners = np.float32(truth[0]["corners"])
    base = look(square(gray, corners, centred=True))
    witness = PageWitness()
    witness.remember(square(gray, corners, centred=True))
    every = np.ones(81, bool)
    for k in range(4):
        rolled = square(gray, np.roll(corners, -k, axis=0), centred=True)
        at_rolled = look(rolled)
        assert witness.judge(rolled, every) == ((Verdict.SAME, 0) if k == 0 else (Verdict.TURNED, (4 - k) % 4))
        scores = [likeness(turned(base, j), at_rolled) for j in range(4)]  # alike to within the warp's pixel
        assert all(scores[k] > scores[j] + 0.2 for j in range(4) if j != k), scores


def test_an_almost_symmetric_page_put_back_turned_is_in_doubt_not_somewhere_else():
    """A page whose print is nearly the same turned round (generator P's page 15 looked 0.86 like itself turned
    by half a turn): put back upright while the board was tracked turned, the look in the tracked order is still
    above ``same``, but the turned order looks likelier. The order is in doubt (the print re-read rights it); the
    page is not a cell off (the neighbour search had taken the doubt for "same" and learnt the wrong order)."""
    rng = np.random.default_rng(4)
    sym = rng.uniform(0, 255, (108, 108))
    sym = (sym + np.rot90(sym, 2)) / 2  # a page that looks the same turned round ...
    page_look = np.clip(sym + rng.normal(0, 18, sym.shape), 0, 255).astype(np.uint8)  # ... all but a little
    witness = PageWitness()
    witness.remember(page_look)
    every = np.ones(81, bool)
    assert witness.judge(page_look, every)[0] is Verdict.SAME and not witness.maybe_turned()
    verdict, _ = witness.judge(np.ascontiguousarray(np.rot90(page_look, 2)), every)
    assert verdict is not Verdict.SAME and witness.maybe_turned()
    assert witness.score is not None and witness.score >= witness.cfg.same


def test_a_streaked_view_of_a_column_or_two_is_no_sign_of_the_page():
    """A page slid out of view, held at its last place on a streaked frame: one column of its grid is left in
    the picture, over the desk, and a coarse look at so few cells passes for anything: unsure, never "same"."""
    frame, truth = frame_of(0, angle=5)
    corners = np.float32(truth[0]["corners"])
    witness = PageWitness()
    witness.remember(square(to_gray(frame), corners, centred=True))
    column = np.zeros((9, 9), bool)
    column[:, 8] = True
    desk = square(to_gray(DESK), corners, centred=True)
    page_now = square(to_gray(frame), corners, centred=True)
    assert witness.judge(desk, column.reshape(81), streaked=True)[0] is Verdict.UNSURE
    assert witness.judge(page_now, column.reshape(81), streaked=True)[0] is Verdict.UNSURE
    third = np.zeros((9, 9), bool)
    third[:, 6:] = True
    assert witness.judge(page_now, third.reshape(81), streaked=True)[0] is Verdict.SAME


def test_the_witness_tells_the_page_from_the_desk_and_from_another_page():
    frame, truth = frame_of(0, angle=5)
    corners = np.float32(truth[0]["corners"])
    witness = PageWitness()
    witness.remember(square(to_gray(frame), corners, centred=True))
    every = np.ones(81, bool)
    streaked, _ = frame_of(0, angle=5, streak=13)
    other, _ = frame_of(1, angle=5)
    assert witness.judge(square(to_gray(streaked), corners, centred=True), every)[0] is Verdict.SAME
    assert witness.judge(square(to_gray(DESK), corners, centred=True), every)[0] is Verdict.OTHER
    assert witness.judge(square(to_gray(other), corners, centred=True), every)[0] is not Verdict.SAME
    # a hard streak (a third of a cell and more) is judged coarsely: the page from the desk, no more
    hard, _ = frame_of(0, angle=5, streak=31)
    assert witness.judge(square(to_gray(hard), corners, centred=True), every, streaked=True)[0] is Verdict.SAME
    assert witness.judge(square(to_gray(DESK), corners, centred=True), every, streaked=True)[0] is Verdict.OTHER


def _moved(corners: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The corners ``dx``, ``dy`` cells further along the grid's own rows and columns."""
    flat = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    to_image = cv2.getPerspectiveTransform(flat, corners)
    return cv2.perspectiveTransform((flat + np.float32([dx, dy])).reshape(-1, 1, 2), to_image).reshape(4, 2)


def test_a_held_page_that_looks_likelier_half_a_cell_on_has_moved_on():
    """A board held where it was through a streak: a page pulled on by more than half a cell (0.6, a 41 px streak)
    still passes the coarse look there, but looks likelier half a cell further on, so it has gone; a page only
    shaken (streaked in place) is likeliest where it is held."""
    frame, truth = frame_of(0, angle=5)
    corners = np.float32(truth[0]["corners"])
    witness = PageWitness()
    witness.remember(square(to_gray(frame), corners, centred=True))
    every = np.ones(81, bool)
    cell = float(np.linalg.norm(corners[1] - corners[0])) / 9
    for gray, gone in ((to_gray(frame_of(0, angle=5, centre=(W / 2 + 0.6 * cell, H / 2), streak=41)[0]), True),
                       (to_gray(frame_of(0, angle=5, streak=41)[0]), False)):
        here = square(gray, corners, centred=True)
        around = [square(gray, _moved(corners, dx, dy), centred=True)
                  for dx, dy in ((0.5, 0), (-0.5, 0), (0, 0.5), (0, -0.5))]
        assert witness.judge(here, every, streaked=True)[0] is Verdict.SAME
        assert witness.moved_off(here, around, every, streaked=True) is gone


def test_a_page_put_back_turned_keeps_its_answer_in_its_cells(reader, kinds, tmp_path):
    """Locked upright, then the page is put down a quarter turn round in one frame (a real video, read back):
    the answer follows it, in the puzzle's own order, and the status never says solved with nothing drawn."""
    frames, truths = [], []
    for i in range(60):
        f, t = frame_of(0, angle=(2 if i < 25 else 92) + math.sin(i / 5))
        frames.append(f)
        truths.append(t)
    path = tmp_path / "turned.avi"
    with VideoSink(path, (W, H), 30) as sink:
        for f in frames:
            sink.write(f)
    with open_source(str(path)) as src:
        log = run(list(src), reader, kinds)
    assert all(not (p["status"] == "solved" and not p["solution"]) for rec in log for p in [rec, *rec["puzzles"]])
    after = [i for i in range(25 + GRACE, 60)]
    right = [i for i in after if any(verdict(p, truths[i])[0] == "right" for p in shown(log[i]))]
    assert all(verdict(p, truths[i])[0] == "right" for i in range(60) for p in shown(log[i]))
    assert len(right) >= len(after) - 3


def test_a_still_page_shows_its_answer_on_the_second_frame(reader, kinds):
    """A page at rest is solved on its first reading (``SessionConfig.still_votes``): read on frame 0, solved
    while frame 1 is shown (the solve waited for one frame, as the scoreboard does), drawn from frame 1 on."""
    frame, truth = frame_of(0, angle=4)
    log = run([frame] * 6, reader, kinds)
    assert not shown(log[0])
    assert all(verdict(p, truth)[0] == "right" for rec in log[1:] for p in shown(rec))
    assert all(shown(rec) for rec in log[1:])


def test_a_page_pulled_away_takes_its_answer_with_it(reader, kinds):
    """Locked, then pulled out of view in four streaked frames: no answer over the empty desk after them."""
    frames = [frame_of(0)[0] for _ in range(20)]
    frames += [frame_of(0, centre=(W / 2 - 150 * k, H / 2), streak=10 * k)[0] for k in range(1, 5)]
    frames += [DESK.copy() for _ in range(15)]
    log = run(frames, reader, kinds)
    assert any(shown(rec) for rec in log[:20])
    assert not any(shown(rec) for rec in log[24:])


def test_a_page_partly_out_of_view_keeps_its_answer(reader, kinds):
    """Locked whole, then the camera moves down the page until only its bottom three rows are in the picture."""
    frames, truths = [], []
    for i in range(50):
        rise = min(1.0, max(0.0, (i - 15) / 10))
        f, t = frame_of(0, centre=(W / 2, H / 2 - rise * 270), size=330)
        frames.append(f)
        truths.append(t)
    log = run(frames, reader, kinds)
    late = range(30, 50)
    assert all(any(verdict(p, truths[i])[0] == "right" for p in shown(log[i])) for i in late)


SEGMENT = st.tuples(st.sampled_from([None, 0, 1, 2]), st.sampled_from([0, 90, 180, 270]),
                    st.integers(min_value=4, max_value=14))


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(SEGMENT, min_size=3, max_size=5))
def test_no_answer_is_ever_drawn_where_its_paper_is_not(reader, kinds, segments):
    """Random scenes: a page (or the empty desk), each cut to the next; a page may come back turned."""
    frames, truths, starts = [], [], []
    for which, angle, n in segments:
        starts.append(len(frames))
        for j in range(n):
            f, t = frame_of(which, angle=angle + 3 * math.sin(j / 4), centre=(W / 2 + 4 * j, H / 2))
            frames.append(f)
            truths.append(t)
    log = run(frames, reader, kinds)
    since = 0
    for i, rec in enumerate(log):
        if i in starts:
            since = i
        assert not any(p["status"] == "solved" and not p["solution"] for p in [rec, *rec["puzzles"]]), i
        if i - since < GRACE:
            continue
        for p in shown(rec):
            assert verdict(p, truths[i])[0] == "right", (i, segments)
