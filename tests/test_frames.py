"""The one frame loop: each frame to the session, then to the outputs; drawn in one place, once, or not at all."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from ar_sudoku.ar.session import ARSession, FrameResult, SessionConfig
from ar_sudoku.cli import build_parser, commands
from ar_sudoku.cli.frames import Log, Painter, Recorder, Shown, run_loop
from ar_sudoku.io.sinks import JsonlLog, VideoSink
from ar_sudoku.io.sources import open_source

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "samples" / "demo.mp4"
FRAMES = 45  # the demo's board is solved by frame 33: the last frames carry marks to draw


class First:
    """The demo's first frames, as the loop takes them."""

    def __init__(self, src, n: int = FRAMES):
        self.src, self.info, self.n = src, src.info, n

    def prepared(self, prepare):
        for _, f in zip(range(self.n), self.src):
            yield prepare(f)


class CountingPainter(Painter):
    """The painter, noting on which thread each frame is drawn."""

    def __init__(self, renderer):
        super().__init__(renderer)
        self.threads: list[str] = []

    def paint(self, img, result, status):
        self.threads.append(threading.current_thread().name)
        return super().paint(img, result, status)


class Shows:
    """An output that shows frames on the loop's thread (as the window does), and keeps them."""

    needs_pixels, shows = True, True

    def __init__(self):
        self.seen: list[Shown] = []
        self.closed = False

    def write(self, shown: Shown) -> None:
        assert shown.drawn  # drawn before any output sees it
        self.seen.append(shown)

    def close(self) -> None:
        self.closed = True


def _run(reader, outputs, *, i420: bool = False):
    with open_source(str(DEMO), i420=i420) as src, ARSession(reader, config=SessionConfig(solve_lag=1)) as session:
        painter = CountingPainter(session.overlay.fresh())
        stats = run_loop(First(src), session, outputs, painter=painter)
    return stats, painter


def test_a_run_with_no_output_or_only_a_log_draws_nothing(reader, tmp_path):
    stats, painter = _run(reader, [])
    assert stats.frames == FRAMES and stats.first_solved is not None and painter.threads == []
    with JsonlLog(tmp_path / "f.jsonl") as log:
        stats, painter = _run(reader, [Log(log)])
    lines = [json.loads(x) for x in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert len(lines) == FRAMES and lines[-1]["status"] == "solved" and painter.threads == []


def test_a_headless_recording_is_drawn_once_a_frame_on_the_writer_thread(reader, tmp_path):
    with VideoSink(tmp_path / "r.mp4", (1280, 720), 30) as sink:
        stats, painter = _run(reader, [Recorder(sink)], i420=True)
    assert stats.frames == FRAMES and painter.threads == ["ar-sudoku-video-writer"] * FRAMES


def test_a_shown_frame_is_drawn_once_on_the_loop_thread_and_recorded_as_shown(reader, tmp_path):
    """The recording after a window holds the frame the window drew: the writer draws nothing more."""
    shows = Shows()
    with VideoSink(tmp_path / "r.mp4", (1280, 720), 30) as sink:
        stats, painter = _run(reader, [Recorder(sink), shows])
    assert painter.threads == ["MainThread"] * FRAMES and len(shows.seen) == FRAMES and shows.closed
    last = shows.seen[-1]
    assert isinstance(last.result, FrameResult) and last.result.solution and last.raw is not None
    assert (cv2.absdiff(last.frame, last.raw).max(axis=2) > 40).sum() > 500  # the answers drawn on the frame
    cap = cv2.VideoCapture(str(tmp_path / "r.mp4"))
    for _ in range(FRAMES):
        ok, recorded = cap.read()
    cap.release()
    assert ok and np.abs(recorded.astype(int) - last.frame.astype(int)).mean() < 4  # as shown, not drawn twice


def test_every_command_module_has_add_parser_and_run_and_its_command_runs_run():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, module in commands().items():
        assert callable(module.add_parser) and callable(module.run), name
        assert sub.choices[name].get_default("func") is module.run, name


@pytest.mark.parametrize("module", ["frames", "capture", "live", "video"])
def test_no_function_of_the_frame_loop_is_over_fifty_lines(module):
    path = ROOT / "ar_sudoku" / "cli" / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [f"{f.name}: {f.end_lineno - f.lineno + 1}" for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and f.end_lineno - f.lineno + 1 > 50]
    assert not long


class FakeWindow:
    """A window with no screen: shows nothing, answers each poll with the next scripted key."""

    def __init__(self, keys: dict[int, str]):
        self.keys, self.polls, self.shown = keys, 0, []

    def show(self, frame) -> None:
        self.shown.append(frame)

    def poll(self, delay_ms: int = 1) -> int:
        key = self.keys.get(self.polls)
        self.polls += 1
        return -1 if key is None else ord(key)

    def take_click(self):
        return None


def test_the_window_pauses_switches_modes_and_quits_from_its_keys(reader):
    """Space pauses on frame 10 (the still frame is read again once) and resumes; i hides the status box,
    c switches to check mode, q ends the loop after frame 13 as if the source had ended."""
    from ar_sudoku.cli.frames import Screen

    window = FakeWindow({10: " ", 11: " ", 12: "i", 13: "c", 14: "q"})
    with open_source(str(DEMO)) as src, ARSession(reader, config=SessionConfig(solve_lag=1)) as session:
        painter = CountingPainter(session.overlay.fresh())
        screen = Screen(window, session, painter, pace_fps=None, still=False)
        stats = run_loop(First(src), session, [screen], painter=painter)
        assert stats.frames == 14 and not stats.interrupted and not stats.failure
        assert session.frame_index == 14  # 14 frames and the paused one read again
        assert len(window.shown) == 15 and painter.threads == ["MainThread"] * 15
        assert session.mode == "check" and not painter.show_status
