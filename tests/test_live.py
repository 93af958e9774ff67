"""The live loop on videos made here: a board moving, leaving, a new puzzle, a hand over it."""

from __future__ import annotations

import json
import math
import threading

import cv2
import numpy as np
import pytest

from ar_sudoku.ar import solve_worker
from ar_sudoku.ar.overlay import OverlayRenderer
from ar_sudoku.ar.session import ARSession, SessionConfig
from ar_sudoku.ar.solve_worker import SolveHandle, SolveWorker
from ar_sudoku.cli import main
from ar_sudoku.cli.frames import Recorder, run_loop
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import FrameSource, open_source
from ar_sudoku.io.window import Action, UiState, cell_at, handle_key
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.vision.quads import working_gray
from ar_sudoku.vision.synth import background, page, place, quad

W, H = 960, 540
A = generate("medium", seed=21)
B = generate("medium", seed=22)
# a solve is waited for on the frame after its submission (a camera's frame outlasts a solve): how many frames
# a board takes to lock then depends on the frames, not on how loaded the machine is
LOCKSTEP = SessionConfig(solve_lag=1)


def scene(n_frames: int = 110):
    """Frames and truth: empty, board A moving (a hand crosses it), empty, board B."""
    pages = {"A": page(A.puzzle, seed=1), "B": page(B.puzzle, seed=2)}
    back = background((W, H), 3)
    frames, truth = [], []
    for i in range(n_frames):
        if i < 5 or 65 <= i < 72:
            frames.append(back.copy())
            truth.append(None)
            continue
        key = "A" if i < 65 else "B"
        u = i / 10.0
        q = quad((W / 2 + 60 * math.sin(u), H / 2 + 25 * math.cos(u * 1.3)), 360 + 20 * math.sin(u * 0.7),
                 8 * math.sin(u * 0.9), 0.1 * math.sin(u * 0.6))
        img, c = pages[key]
        f = place(img, c, q, back, blur=0.6)
        if 35 <= i < 45:  # a hand-like blob over part of the grid
            cv2.ellipse(f, (int(W / 2 + 150), int(H / 2 + 60)), (90, 60), -20, 0, 360, (120, 150, 205), -1)
        frames.append(f)
        truth.append((key, q))
    return frames, truth


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    frames, truth = scene()
    path = tmp_path_factory.mktemp("live") / "scene.avi"
    with VideoSink(path, (W, H), 30) as sink:
        for f in frames:
            sink.write(f)
    return path, truth


@pytest.fixture(scope="module")
def run(video, reader):
    path, truth = video
    results = []
    with open_source(str(path)) as src, ARSession(reader, config=LOCKSTEP) as session:
        for frame in src:
            results.append(session.step(frame))
    return results, truth


def test_every_frame_is_read_back_in_order(video, run):
    results, truth = run
    assert len(results) == len(truth) == 110
    assert [r.frame for r in results] == list(range(110))


def test_corners_follow_the_board(run):
    results, truth = run
    errors = [float(np.abs(r.corners - t[1]).max()) for r, t in zip(results, truth)
              if t is not None and r.corners is not None]
    assert len(errors) > 80
    assert np.median(errors) < 7 and max(errors) < 15


def test_drawn_solution_is_always_right_and_locks_fast(run):
    results, truth = run
    sol = {"A": A.solution, "B": B.solution}
    for r, t in zip(results, truth):
        if r.solution is not None:
            assert t is not None, f"a solution drawn on frame {r.frame} with no puzzle"
            assert r.solution == sol[t[0]], f"the wrong puzzle's solution on frame {r.frame}"
    first_a = next(r.frame for r in results if r.solution)
    assert first_a - 5 <= 10
    first_b = next(r.frame for r in results if r.solution == B.solution)
    assert first_b - 72 <= 15  # half a second at 30 fps
    locked = results[first_a:65]
    assert sum(r.solution == A.solution for r in locked) >= 0.9 * len(locked)


def test_nothing_drawn_without_a_puzzle(run):
    results, truth = run
    for r, t in zip(results, truth):
        if t is None:
            assert r.solution is None and r.corners is None


def test_a_new_puzzle_in_the_same_place_is_noticed(reader):
    """Board A is swapped for board B at the same pose: no lost tracking to help."""
    q = quad((W / 2, H / 2), 380, 3, 0.05)
    back = background((W, H), 3)
    fa = place(*page(A.puzzle, seed=1), q, back, 0.6)
    fb = place(*page(B.puzzle, seed=1), q, back, 0.6)
    with ARSession(reader, config=LOCKSTEP) as s:
        results = [s.step(fa if i < 20 else fb) for i in range(60)]
        assert any(r.solution == A.solution for r in results[:20])
        assert all(r.solution in (None, B.solution) for r in results[20:])
        switched = next(r.frame for r in results[20:] if r.solution == B.solution)
        assert switched - 20 <= 15


@pytest.mark.parametrize("lag", [None, 0, 2])
def test_the_solve_lag_waits_for_a_solve_exactly_that_many_frames_after_it_was_submitted(reader, monkeypatch, lag):
    """A job that can only finish once the session waits for it: live (no lag) the session never waits and
    draws nothing; with a lag of k the solution is drawn exactly k frames after the submission."""
    gate = threading.Event()
    run_job, wait = solve_worker.run_job, SolveHandle.wait

    def held(job, cancel):
        assert gate.wait(60), "nobody waited for the solve"
        return run_job(job, cancel)

    def waited(handle, timeout=None):
        gate.set()
        return wait(handle, timeout)

    monkeypatch.setattr(solve_worker, "run_job", held)
    monkeypatch.setattr(SolveHandle, "wait", waited)
    frame = place(*page(A.puzzle, seed=1), quad((W / 2, H / 2), 380, 0, 0.0), background((W, H), 3), 0.6)
    with SolveWorker(use_process=False) as worker:
        try:
            with ARSession(reader, worker, SessionConfig(solve_lag=lag)) as s:
                results = [s.step(frame) for _ in range(15)]
                submitted, handle = s.board.submitted_at, s.board.handle
                pending = handle is not None and not handle.done()
        finally:
            gate.set()  # let the worker's thread end
    assert submitted >= 0  # the board was read and handed to the solver
    drawn = [r.frame for r in results if r.solution is not None]
    if lag is None:
        assert not drawn and pending  # 15 frames, and the live session never waited
    else:
        assert drawn and drawn[0] == submitted + lag and all(r.solution == A.solution for r in results[drawn[0]:])


def test_recording_is_readable_after_an_exception_mid_stream(tmp_path, reader, video):
    path, _ = video
    out = tmp_path / "rec.mp4"

    class Failing(FrameSource):
        def __init__(self, src):
            self.src, self.info = src, src.info

        def __iter__(self):
            for k, f in enumerate(self.src):
                if k == 12:
                    raise RuntimeError("camera unplugged")
                yield f

    with pytest.raises(RuntimeError), open_source(str(path)) as src, ARSession(reader) as session, \
            VideoSink(out, (W, H), 30) as sink:
        run_loop(Failing(src), session, [Recorder(sink)])
    cap = cv2.VideoCapture(str(out))
    n = 0
    while cap.read()[0]:
        n += 1
    assert n == 12


def test_frames_are_prepared_ahead_on_the_decoder_thread(video, reader):
    """The working grey made ahead on the decoder thread is the one the session would make, and
    stepping with it gives the same result as stepping without it."""
    path, _ = video
    threads: list[str] = []

    def prepare(frame):
        threads.append(threading.current_thread().name)
        return frame, working_gray(frame, 640)

    with open_source(str(path)) as src:
        items = list(src.prepared(prepare))
    assert len(items) == 110 and threads[0] == "MainThread" and set(threads[1:]) == {"ar-sudoku-decoder"}
    frame, small = items[20]
    assert small.shape == (360, 640) and np.array_equal(small, working_gray(frame, 640))
    config = SessionConfig(work_side=640)
    with ARSession(reader, config=config) as a, ARSession(reader, config=config) as b:
        for frame, small in items[:30]:
            ra, rb = a.step(frame, small=small), b.step(frame)
            assert (ra.corners is None) == (rb.corners is None) and ra.givens == rb.givens
            assert ra.corners is None or np.allclose(ra.corners, rb.corners, atol=0.5)


def test_keys_and_clicks():
    ui = UiState()
    assert handle_key(-1, ui).kind == "none"
    assert handle_key(ord(" "), ui).kind == "pause" and ui.paused
    assert handle_key(ord("i"), ui).kind == "toggle_status" and not ui.show_status
    assert handle_key(ord("h"), ui) == Action("mode", mode="hint")
    assert handle_key(ord("C"), ui) == Action("mode", mode="check")
    assert handle_key(ord("a"), ui) == Action("mode", mode="answer")
    assert handle_key(ord("n"), ui).kind == "next_hint"
    assert handle_key(ord("s"), ui).kind == "snapshot"
    assert handle_key(ord("7"), ui).kind == "none"  # no cell selected
    corners = np.float32([[100, 100], [550, 100], [550, 550], [100, 550]])
    ui.selected = cell_at((100 + 50 * 4.5, 100 + 50 * 2.5), corners)
    assert ui.selected == 2 * 9 + 4
    assert handle_key(ord("7"), ui) == Action("set", 22, 7) and ui.selected is None
    ui.selected = cell_at((120, 120), corners)
    assert handle_key(8, ui) == Action("set", 0, 0)
    assert cell_at((50, 50), corners) is None and cell_at((10, 10), None) is None
    assert handle_key(ord("q"), ui).kind == "quit" and ui.quit
    assert handle_key(27, UiState()).kind == "quit"


def test_correction_resolves_the_board(reader):
    q = quad((W / 2, H / 2), 380, 0, 0.0)
    frame = place(*page(A.puzzle, seed=1), q, background((W, H), 3), 0.6)
    i = A.puzzle.index(".")
    with ARSession(reader, config=LOCKSTEP) as s:
        for _ in range(5):
            s.step(frame)
        s.set_override(i, int(A.solution[i]))
        r = s.step(frame)  # the corrected board's solve is waited for on this frame
        assert r.givens[i] == A.solution[i] and r.solution == A.solution


def _cli(capsys, args):
    code = main(args)
    return code, capsys.readouterr().err


def test_video_cli_writes_output_and_jsonl(tmp_path, video, capsys):
    path, truth = video
    out, log = tmp_path / "annotated.mp4", tmp_path / "log.jsonl"
    code, err = _cli(capsys, ["video", str(path), "--headless", "--output", str(out), "--jsonl", str(log)])
    assert code == 0, err
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(rows) == len(truth)
    assert set(rows[0]) == {"frame", "t_ms", "corners", "lattice", "givens", "solution", "status", "size", "box",
                            "symbols", "puzzles"}
    assert (rows[0]["size"], rows[0]["box"], rows[0]["symbols"]) == (9, "3x3", "1-9")
    assert any(r["solution"] == A.solution for r in rows)
    # one puzzle in view: the list holds it alone, with the top-level fields and its track
    for r in rows:
        assert len(r["puzzles"]) <= 1
        if r["puzzles"]:
            assert {k: v for k, v in r["puzzles"][0].items() if k != "puzzle"} == {
                k: v for k, v in r.items() if k not in ("frame", "t_ms", "puzzles")}
        else:
            assert r["corners"] is None and r["solution"] is None
    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == len(truth)
    assert (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))) == (W, H)
    # headless, the writer thread draws what it records: the overlay's digits on the frames with a solution
    green = np.array(OverlayRenderer.color, np.int16)
    shown = [i for i, r in enumerate(rows) if r["solution"]]
    cap.set(cv2.CAP_PROP_POS_FRAMES, shown[len(shown) // 2])
    ok, img = cap.read()
    assert ok and (np.abs(img.astype(np.int16) - green).max(axis=2) < 40).sum() > 200


def test_video_cli_bad_inputs(tmp_path, video, capsys):
    path, _ = video
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(bytes(range(256)) * 64)
    cases = [
        (["video", str(tmp_path / "missing.mp4"), "--headless"], "no such file"),
        (["video", str(empty), "--headless"], "empty file"),
        (["video", str(junk), "--headless"], "mp4"),
        (["video", str(path), "--headless", "--output", str(tmp_path / "no" / "o.mp4")], "does not exist"),
        (["video", str(path), "--headless", "--output", str(tmp_path / "o.xyz")], "extension"),
        (["live", "--camera", "97", "--headless"], "camera 97"),
    ]
    for args, fragment in cases:
        code, err = _cli(capsys, args)
        assert code == 2, args
        assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_no_screen_says_so(monkeypatch, video, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    path, _ = video
    code, err = _cli(capsys, ["video", str(path)])
    assert code == 2 and "--headless" in err


def test_folder_and_single_image_sources(tmp_path, video, capsys):
    frames, _ = scene(12)
    d = tmp_path / "frames"
    d.mkdir()
    for k, f in enumerate(frames[5:12]):
        cv2.imwrite(str(d / f"{k:03d}.png"), f)
    log = tmp_path / "log.jsonl"
    code, err = _cli(capsys, ["video", str(d), "--headless", "--jsonl", str(log)])
    assert code == 0, err
    assert len(log.read_text().splitlines()) == 7
    code, err = _cli(capsys, ["video", str(d / "000.png"), "--headless", "--jsonl", str(log)])
    assert code == 0 and len(log.read_text().splitlines()) == 1


def test_a_stream_cut_short_says_so_and_keeps_the_recording(tmp_path, video, capsys):
    path, truth = video
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    out = tmp_path / "o.avi"
    code, err = _cli(capsys, ["video", str(cut), "--headless", "--output", str(out)])
    assert code == 1 and "cut short" in err
    cap = cv2.VideoCapture(str(out))
    n = 0
    while cap.read()[0]:
        n += 1
    assert 0 < n < len(truth)


def test_corrections_do_not_follow_to_another_puzzle(reader):
    q = quad((W / 2, H / 2), 380, 0, 0.0)
    back = background((W, H), 3)
    fa = place(*page(A.puzzle, seed=1), q, back, 0.6)
    fb = place(*page(B.puzzle, seed=1), q, back, 0.6)
    i = A.puzzle.index(".")
    with ARSession(reader, config=LOCKSTEP) as s:
        for _ in range(5):
            s.step(fa)
        s.set_override(i, int(A.solution[i]))
        assert s.overrides
        for _ in range(40):
            r = s.step(fb)
        assert not s.overrides and r.solution == B.solution


@pytest.mark.data
def test_a_real_newspaper_photo_moving_in_front_of_the_camera(tmp_path, reader):
    """A shared photo, turned, moved and motion-blurred: lock fast, draw only its solution."""
    from conftest import photo_truth

    from ar_sudoku.sudoku.solver import parse_line, solve

    path, givens, _ = photo_truth("image10")
    img = cv2.imread(str(path))
    ih, iw = img.shape[:2]
    solution = solve(parse_line(givens)).solution
    frames = []
    for i in range(60):
        t = i / 30
        m = cv2.getRotationMatrix2D((iw / 2, ih / 2), 6 * math.sin(t * 1.3), 1.1 * (1 + 0.06 * math.sin(t)))
        m[0, 2] += W / 2 + 40 * math.sin(t * 1.1) - iw / 2
        m[1, 2] += H / 2 + 20 * math.sin(t * 1.7) - ih / 2
        f = cv2.warpAffine(img, m, (W, H), borderValue=(60, 60, 60))
        frames.append(cv2.blur(f, (3, 1)))
    out = tmp_path / "real.avi"
    with VideoSink(out, (W, H), 30) as sink:
        for f in frames:
            sink.write(f)
    with open_source(str(out)) as src, ARSession(reader, config=LOCKSTEP) as s:
        results = [s.step(f) for f in src]
    drawn = [r for r in results if r.solution is not None]
    assert drawn and all(r.solution == solution for r in drawn)
    assert drawn[0].frame <= 10
    assert len(drawn) >= 0.8 * len(results)


def test_stills_of_different_sizes_are_each_their_own_scene(tmp_path, capsys):
    """A folder of photos of different sizes: each still is read at once, as `image` reads it."""
    folder = tmp_path / "stills"
    folder.mkdir()
    photo = cv2.imread("samples/photo.jpg")
    cv2.imwrite(str(folder / "a.jpg"), photo)
    cv2.imwrite(str(folder / "b.png"), cv2.resize(photo, None, fx=0.7, fy=0.7))
    cv2.imwrite(str(folder / "c.png"), np.full((300, 500, 3), 200, np.uint8))  # no puzzle at all
    log = tmp_path / "stills.jsonl"
    assert main(["image", "samples/photo.jpg", "--json"]) == 0
    want = json.loads(capsys.readouterr().out)["solution"]
    assert main(["video", str(folder), "--headless", "--jsonl", str(log), "--output", str(tmp_path / "s.mp4")]) == 0
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["solution"] for r in rows] == [want, want, None]
    empty = tmp_path / "empty"
    empty.mkdir()
    cv2.imwrite(str(empty / "blank.png"), np.full((300, 500, 3), 200, np.uint8))
    assert main(["video", str(empty), "--headless"]) == 1  # nothing solved in the whole input: no answer


def test_a_pages_edge_around_the_tracked_grid_is_not_taken_for_another_grid():
    from ar_sudoku.ar.locator import _surrounds

    grid = np.float32([[30, 14], [475, 14], [484, 449], [34, 458]])
    page = np.float32([[7, 5], [610, 0], [615, 458], [14, 458]])  # a photo's edge, cut by the frame's bottom
    assert _surrounds(page, grid)
    assert not _surrounds(grid, page)  # the grid inside a tracked page's edge is the grid found at last
    cell = (grid[1] - grid[0]) / 9
    assert not _surrounds(grid + cell, grid)  # a grid a cell away: tracking slipped by a cell
    assert not _surrounds(grid * 1.05, grid)  # the same grid a little nearer the camera
    other = np.float32([[100, 60], [560, 60], [560, 470], [100, 470]])
    assert not _surrounds(other, grid)  # another grid in view, where the tracked one was


def _glare(frame: np.ndarray, centre: tuple[float, float], peak: float = 1.3) -> np.ndarray:
    """A glossy page's highlight, as make_room_video draws it: white light added, saturated in its core."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = np.clip(peak * np.exp(-(((xx - centre[0]) / 76) ** 2 + ((yy - centre[1]) / 46) ** 2) / 2), 0, 1)[..., None]
    return np.clip(frame * (1 - a) + 255 * a, 0, 255).astype(np.uint8)


def test_the_cells_under_a_glare_spot_are_told_and_an_evenly_lit_page_has_none():
    from ar_sudoku.ar.locator import SPOT_CELLS, BoardLocator

    q = quad((W / 2, H / 2), 380, 3, 0.05)
    clean = place(*page(A.puzzle, seed=1), q, background((W, H), 3), 0.6)
    loc = BoardLocator()
    loc.prepare(_glare(clean, (W / 2, H / 2)), None)
    spot = loc.glared(q).reshape(9, 9)
    assert 1 <= spot.sum() <= SPOT_CELLS and spot[4, 4]  # the middle cell, under the spot's core
    assert not spot[0].any() and not spot[8].any() and not spot[:, 0].any()  # not the grid's edges
    loc.prepare(clean, None)
    assert not loc.glared(q).any()
    loc.prepare(np.clip(clean.astype(np.int16) + 60, 0, 255).astype(np.uint8), None)  # a bright lamp on it all
    assert not loc.glared(q).any()


def test_a_frames_blur_ink_and_glare_looks_share_one_squared_grid_and_the_next_frame_is_looked_at_afresh():
    """The locator squares the board up once a frame for all its looks: each look gives what it gives on its
    own (``cells.evenness``, ``cells.quick_ink``), on this frame's pixels and this board's place, never the last."""
    from ar_sudoku.ar.locator import BoardLocator
    from ar_sudoku.vision.cells import evenness, quick_ink

    q = quad((W / 2, H / 2), 380, 3, 0.05)
    frames = [place(*page(p.puzzle, seed=1), q, background((W, H), 3), 0.6) for p in (A, B)]
    loc = BoardLocator()
    want = np.array([ch != "." for ch in A.puzzle])
    for frame in [*frames, _glare(frames[0], (W / 2, H / 2))]:
        loc.prepare(frame, None)
        gray = working_gray(frame, loc.work_side)
        for at in (q, q + 2.0):  # the same frame, the board found a little elsewhere: looked at there
            first = loc._evenness(at)
            assert first == evenness(gray, at)
            assert (loc.inked(at, expect=want) == (quick_ink(gray, at, expect=want) > 0.5)).all()
            assert loc._evenness(at) == first
    loc.prepare(frames[0], None)
    before = loc.inked(q)
    loc.prepare(frames[1], None)  # another puzzle in the same place: its own ink, not the last frame's
    assert (loc.inked(q) != before).any()


def test_under_a_glare_spot_the_answer_stays_drawn_and_another_puzzle_under_it_is_never_given_it(reader):
    """The per-frame ink check leaves out the cells a glare spot lifts (their print fades, it is not gone):
    the locked board keeps its answer under the spot, and a different puzzle in its place, under the same
    spot, still fails the check at once (it differs all over the grid, not in a spot)."""
    from ar_sudoku.vision.kinds import KindReader

    q = quad((W / 2, H / 2), 380, 3, 0.05)
    back = background((W, H), 3)
    fa = place(*page(A.puzzle, seed=1), q, back, 0.6)
    fb = place(*page(B.puzzle, seed=1), q, back, 0.6)
    centre = (W / 2, H / 2)
    with ARSession(reader, config=LOCKSTEP, kinds=KindReader()) as s:
        results = [s.step(f) for f in [fa] * 15 + [_glare(fa, centre)] * 20 + [_glare(fb, centre)] * 20]
    assert any(r.solution == A.solution for r in results[:15])
    assert all(r.solution == A.solution for r in results[15:35])
    assert all(r.solution in (None, B.solution) for r in results[35:])


def _streak(frame: np.ndarray, length: int, diagonal: bool) -> np.ndarray:
    """A shaking hand's motion blur: a line kernel, along the diagonal or across."""
    k = np.eye(length, dtype=np.float32) if diagonal else np.zeros((length, length), np.float32)
    if not diagonal:
        k[length // 2] = 1.0
    return cv2.filter2D(frame, -1, k / k.sum())


@pytest.mark.parametrize("diagonal", [False, True])
def test_a_burst_of_motion_blur_keeps_the_board_and_its_answer_and_a_bare_table_after_it_does_not(reader, diagonal):
    """Streaked across or along the diagonal (which blurs across and down alike, so only the edges' strength
    tells it), a locked board stays in view with its answer through the burst, however the flow fares; the
    table bare right after the burst has no board on it, held or not."""
    q = quad((W / 2, H / 2), 380, 3, 0.05)
    back = background((W, H), 3)
    fa = place(*page(A.puzzle, seed=1), q, back, 0.6)
    frames = [fa] * 20 + [_streak(fa, 35, diagonal)] * 8 + [_streak(back, 35, diagonal)] * 3 + [back] * 3
    with ARSession(reader, config=LOCKSTEP) as s:
        results = [s.step(f) for f in frames]
    assert results[19].solution == A.solution
    assert all(r.corners is not None and r.solution == A.solution for r in results[20:28])
    assert all(r.corners is None and r.solution is None for r in results[28:])


def _grid_and_part() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A frame of puzzle A, its grid's corners, and the corners of a part of it (between box lines): where a
    page sliding in may start its track."""
    q = quad((W / 2, H / 2), 380, 3, 0.05)
    frame = place(*page(A.puzzle, seed=1), q, background((W, H), 3), 0.6)
    flat = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    part = cv2.perspectiveTransform(np.float32([[[1, 1], [7, 1], [7, 8], [1, 8]]]),
                                    cv2.getPerspectiveTransform(flat, q)).reshape(4, 2)
    return q, frame, part


@pytest.mark.parametrize("doubtful", [False, True])
def test_a_track_started_on_part_of_the_grid_takes_the_whole_grid_once_its_reading_has_no_solution(doubtful):
    """A page sliding in can start the track on a part of its grid (between box lines), and a grid detected
    around a tracked one is usually the page's edge: refused while the reading stands, taken once the reading
    of the part has no solution (``doubtful``), so the board is read afresh on the whole grid."""
    from ar_sudoku.ar.locator import BoardLocator

    q, frame, part = _grid_and_part()
    loc = BoardLocator()
    loc.prepare(frame, None)
    loc.restart(part)
    loc.moved_to(part)
    loc.prepare(frame, None)
    got = loc.locate(1, settled=False, doubtful=doubtful)
    assert got.corners is not None
    near_whole = float(np.abs(got.corners - q).max()) < 0.02 * 380
    assert near_whole == doubtful and got.slipped == doubtful


@pytest.mark.parametrize(("settled", "cells", "held"), [(True, 0.5, True), (True, 0.1, False), (False, 0.5, False)])
def test_a_settled_board_the_flow_lost_in_a_streak_is_held_where_it_was_not_moved_by_a_smeared_detection(
        monkeypatch, settled, cells, held):
    """A shaking hand's streak, a lamp switched on in the same frame: the flow lost the solved board and the
    detector found it smeared half a cell off. Taken, the cells' ink no longer matched the givens and the answer
    was not drawn for 40 frames until a re-detection (held-out room video seed 1). A settled board is held where
    it was instead, as when nothing is detected; a detection that hardly moves it, or one of a board still being
    read (not drawn), is taken."""
    from ar_sudoku.ar.locator import BLUR, BoardLocator
    from ar_sudoku.vision.quads import GridQuad

    q, frame, _ = _grid_and_part()
    loc = BoardLocator()
    loc.prepare(frame, None)
    loc.moved_to(q)
    loc.evenness.extend([loc._evenness(q) / BLUR * 1.05] * 10)  # this frame less even than usual: streaked
    loc.edges.extend([loc._edge_level(q)] * 10)
    off = q + np.float32([cells * 380 / 9, 0])
    monkeypatch.setattr(loc, "_detect", lambda *a, **k: GridQuad(off * loc.scale, 0.5))
    loc.prepare(frame, None)
    got = loc.locate(1, settled=settled)  # the tracker is not running: the flow lost the board
    assert got.held == held
    assert np.allclose(got.corners, q if held else off, atol=0.5)


def _part_of(q: np.ndarray, cols: tuple[int, int], rows: tuple[int, int]) -> np.ndarray:
    flat = np.float32([[0, 0], [9, 0], [9, 9], [0, 9]])
    (c0, c1), (r0, r1) = cols, rows
    return cv2.perspectiveTransform(np.float32([[[c0, r0], [c1, r0], [c1, r1], [c0, r1]]]),
                                    cv2.getPerspectiveTransform(flat, q)).reshape(4, 2)


@pytest.mark.parametrize("doubtful", [False, True])
def test_a_puzzle_of_a_page_tracked_on_two_of_its_three_columns_of_boxes_takes_the_whole_grid_once_unsolved(doubtful):
    """One puzzle of a page (``near_only``) is detected only around its track, and a page sliding in can start the
    track on its first two columns of boxes: the whole grid pokes out of that search by a third of its width, so
    the track kept the part and the board stayed unsolvable (held-out room video seed 1: 5 s). Once the part's
    reading has no solution, the search around it is widened now and then (``WIDE_EVERY``)."""
    from ar_sudoku.ar.locator import WIDE_EVERY, BoardLocator

    q, frame, _ = _grid_and_part()
    part = _part_of(q, (0, 6), (0, 9))
    loc = BoardLocator(near_only=True)
    loc.prepare(frame, None)
    loc.restart(part)
    loc.moved_to(part)
    got = []
    for i in range(1, 1 + WIDE_EVERY):
        loc.prepare(frame, None)
        got.append(loc.locate(i, settled=False, doubtful=doubtful))
    whole = [r.corners is not None and float(np.abs(r.corners - q).max()) < 0.02 * 380 for r in got]
    assert any(whole) == doubtful
    if doubtful:
        first = whole.index(True)
        assert got[first].slipped and all(whole[first:])


def test_a_puzzle_of_a_page_unsolved_never_takes_its_neighbour_for_the_grid_it_is_part_of():
    """The widened search of an unsolved puzzle of a page sees its neighbour too: a grid that neither holds
    the tracked one nor lies inside it is another puzzle, and the track stays on its own."""
    from ar_sudoku.ar.locator import WIDE_EVERY, BoardLocator

    left, right = quad((260, 270), 300, 2), quad((700, 270), 300, 2)
    back = background((W, H), 3)
    frame = place(*page(B.puzzle, cell=36, margin=40, seed=2), right,
                  place(*page(A.puzzle, cell=36, margin=40, seed=1), left, back, 0.0), 0.6)
    loc = BoardLocator(near_only=True)
    loc.prepare(frame, None)
    loc.restart(left)
    loc.moved_to(left)
    for i in range(1, 1 + 2 * WIDE_EVERY):
        loc.prepare(frame, None)
        got = loc.locate(i, settled=False, doubtful=True)
        assert got.corners is not None and float(np.abs(got.corners - left).max()) < 0.03 * 300


def test_the_whole_grid_taken_after_a_part_is_judged_sharp_by_its_own_frames_not_the_parts():
    """The locator judges a frame streaked by the grid's evenness against the board's recent frames. A page
    sliding in, tracked on a part of its grid and then taken whole (a slip to an outline of another size), had
    the part's frames as its measure: a part can look more even than the whole, and every sharp frame of the
    whole was "streaked", never read (held-out room video, seed 7: 23 frames without an answer). Another
    outline starts its own measure, and no frame is read until there are enough of its own to judge by (a hand
    may still shake); a board that only moved keeps its own."""
    from ar_sudoku.ar.locator import BLUR, BoardLocator

    q, frame, part = _grid_and_part()
    loc = BoardLocator()
    loc.prepare(frame, None)
    loc.restart(part)
    loc.moved_to(part)
    # the part's frames: as even as the part is (not streaked itself), more than the whole grid
    usual = 0.995 * loc._evenness(part) / BLUR
    assert loc._evenness(q) < BLUR * usual
    loc.evenness.extend([usual] * 10)
    loc.edges.extend([loc._edge_level(part)] * 10)
    loc.prepare(frame, None)
    got = loc.locate(1, settled=False, doubtful=True)
    assert got.slipped and got.corners is not None
    for _ in range(5):  # its own first frames are the measure, not yet judged by: none is read
        assert not loc.steady(got.corners, got.detected)
        loc.prepare(frame, None)
    assert loc.steady(got.corners, got.detected)  # as sharp as its own frames

    moved = BoardLocator()  # the whole grid tracked 15% of its size off, found again where it is: it moved
    moved.prepare(frame, None)
    at = q + np.float32([0.15 * 380, 0])
    moved.restart(at)
    moved.moved_to(at)
    moved.evenness.extend([min(moved._evenness(at), moved._evenness(q))] * 10)
    moved.edges.extend([min(moved._edge_level(at), moved._edge_level(q))] * 10)
    moved.prepare(frame, None)
    again = moved.locate(1, settled=False)
    assert again.slipped and again.corners is not None
    assert len(moved.evenness) >= 10 and not moved.relearning  # its own frames kept, and judged by
