"""The one frame loop of ``live`` and ``video``: ``for frame in source``, the session, then the outputs.

Camera, video file and stills share it. Each frame goes to the session, then,
as a :class:`Shown`, to every output behind one small protocol
(:class:`Output`): the recorder, the JSONL log, the progress bar, the window.
Drawing happens in one place, :class:`Painter`, called by whichever output
needs the pixels: on the loop's thread when a window shows the frame (the
recording then holds what was shown), on the writer's thread when a
recording is made headless (the loop does no more than for a run that
records nothing), and not at all when nothing needs pixels.

The source, the window and the sinks are opened by the commands (``cli.live``,
``cli.video``) through ``cli.capture.open_run``; every output is a context manager, so
the recording is finalized on every exit road.
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import cv2
import numpy as np

from ar_sudoku.cli.common import usable_cores

if TYPE_CHECKING:
    from ar_sudoku.ar.live import LiveSession
    from ar_sudoku.ar.overlay import OverlayRenderer
    from ar_sudoku.ar.session import FrameResult
    from ar_sudoku.io.sinks import JsonlLog, VideoSink
    from ar_sudoku.io.sources import FrameSource
    from ar_sudoku.io.window import Window

@dataclass
class RunStats:
    frames: int = 0
    solved_frames: int = 0
    first_solved: int | None = None
    seconds: float = 0.0
    interrupted: bool = False
    failure: str = ""

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def count(self, result: FrameResult) -> None:
        self.frames += 1
        if result.solution or any(p.solution for p in result.puzzles):
            self.solved_frames += 1
            if self.first_solved is None:
                self.first_solved = result.frame


class FpsMeter:
    """A rolling frames-per-second over the last ``n`` frames."""

    def __init__(self, n: int = 30):
        self.times: deque[float] = deque(maxlen=n)

    def tick(self) -> float:
        self.times.append(time.perf_counter())
        if len(self.times) < 2:
            return 0.0
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def status_lines(result: FrameResult, fps: float, dropped: int = 0) -> list[str]:
    line = f"{fps:4.0f} fps   {result.status.replace('_', ' ')}"
    if dropped:
        line += f"   dropped {dropped}"
    lines = [line]
    if result.message and result.status != "solved":
        lines.append(result.message[:60])
    if result.marks is not None and result.marks.text:
        lines += textwrap.wrap(result.marks.text, 60)[:3]
    return lines


@dataclass
class Painter:
    """The one place a frame is drawn on: the marks of the display mode, and the status box.

    Its renderer caches its layers, so it is used on one thread only: the loop's with a window, the
    recording's writer without one.
    """

    renderer: OverlayRenderer
    show_status: bool = True  # the status box (the window's `i` turns it off and on)

    def paint(self, img: Any, result: FrameResult, status: list[str] | None) -> Any:
        from ar_sudoku.ar.overlay import draw_status
        from ar_sudoku.ar.sized import draw_answers

        for p in result.puzzles or (result,):  # a page's every puzzle, or the one board
            if p.size != 9:
                draw_answers(img, p)  # a 4x4, 6x6 or 16x16 grid: its answers in the page's symbols
            elif p.marks is not None and p.corners is not None:
                self.renderer.draw_marks(img, p.corners, p.marks, lattice=p.lattice)
        if status:
            draw_status(img, status)
        return img


@dataclass
class Shown:
    """One frame on its way out: the frame as decoded, the session's result, and how to draw it."""

    frame: Any  # np.ndarray, or an I420 frame a headless recording keeps as decoded
    result: FrameResult
    status: list[str] | None  # the status box's lines; None: no box
    painter: Painter
    fps: float = 0.0
    raw: np.ndarray | None = None  # the frame before drawing, kept when it is drawn on the loop's thread
    drawn: bool = False

    def paint(self, img: Any = None) -> Any:
        """Draw on ``img`` (another thread's converted copy) or, by default, on the frame itself; in place."""
        if img is None:
            self.drawn = True
            return self.painter.paint(self.frame, self.result, self.status)
        return self.painter.paint(img, self.result, self.status)


class Output(Protocol):
    """Where a frame goes after the session: a recording, a log, a progress bar, a window."""

    needs_pixels: bool  # it writes or shows the drawn frame
    shows: bool  # it shows the frame on the loop's thread: the loop draws it first

    def write(self, shown: Shown) -> None: ...

    def close(self) -> None: ...


class Quit(Exception):  # noqa: N818 - not an error: the person asked to stop
    """The window's q or Esc: the loop ends as if the source had."""


class Recorder:
    """The annotated video: each frame handed to the writer thread, drawn there unless drawn already."""

    needs_pixels, shows = True, False

    def __init__(self, sink: VideoSink):
        self.sink = sink

    def write(self, shown: Shown) -> None:
        # a fresh frame each time, not drawn on again: no copy
        self.sink.write(shown.frame, owned=True, paint=None if shown.drawn else shown.paint)

    def close(self) -> None:
        """The sink is closed by whoever opened it (its ``with``), after the loop."""


class Log:
    """One JSON line a frame (``io.records.frame_json``)."""

    needs_pixels, shows = False, False

    def __init__(self, log: JsonlLog):
        from ar_sudoku.io.records import frame_json

        self.log, self.line = log, frame_json

    def write(self, shown: Shown) -> None:
        self.log.write(self.line(shown.result))

    def close(self) -> None:
        """The log is closed by whoever opened it, after the recording it may follow."""


class Progress:
    """A headless run's progress bar on a terminal (frames, fps, time left)."""

    needs_pixels, shows = False, False

    def __init__(self, total: int | None):
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="frame", disable=not sys.stderr.isatty(), leave=True, dynamic_ncols=True)

    def write(self, shown: Shown) -> None:
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


class Screen:
    """The window: shows each frame (paced to a file's own rate), and acts on keys and clicks.

    While paused it keeps showing the still frame, read again now and then, so a correction shows
    once it is solved; the loop waits meanwhile.
    """

    needs_pixels, shows = True, True

    def __init__(self, window: Window, session: LiveSession, painter: Painter, *, pace_fps: float | None,
                 still: bool):
        from ar_sudoku.io.window import UiState

        self.window, self.session, self.painter = window, session, painter
        self.ui: UiState = UiState(show_status=painter.show_status)
        self.pace_fps, self.still = pace_fps, still
        self.tick = time.perf_counter()
        self.last: Shown | None = None

    def write(self, shown: Shown) -> None:
        self.last = shown
        self._show_and_act()
        refreshed = 0.0
        while self.ui.paused and not self.ui.quit:
            if time.perf_counter() - refreshed > 0.1:
                refreshed = time.perf_counter()
                self._read_again()
            self._show_and_act()
        if self.ui.quit:
            raise Quit

    def _read_again(self) -> None:
        """Paused: the still frame stepped again, with what the person has corrected meanwhile."""
        assert self.last is not None and self.last.raw is not None
        frame = self.last.raw.copy()
        result = self.session.step(frame, still=self.still)
        status = status_lines(result, self.last.fps, 0) + ["paused"] if self.painter.show_status else None
        shown = Shown(frame=frame, result=result, status=status, painter=self.painter, fps=self.last.fps,
                      raw=self.last.raw)
        shown.paint()
        self.last = shown

    def _show_and_act(self) -> None:
        from ar_sudoku.io.sources import wait_fps
        from ar_sudoku.io.window import cell_at, handle_key

        assert self.last is not None
        if self.pace_fps:
            self.tick = wait_fps(self.tick, self.pace_fps)
        self.window.show(self.last.frame)
        key = self.window.poll(1)
        click = self.window.take_click()
        if click is not None:
            result = self.last.result
            for p in result.puzzles or (result,):  # the puzzle clicked takes the corrections and hints
                self.ui.selected = cell_at(click, p.corners)
                if self.ui.selected is not None:
                    self.session.set_focus(p.puzzle)
                    break
            if self.ui.selected is not None:
                r, c = divmod(self.ui.selected, 9)
                print(f"r{r + 1}c{c + 1} selected: type a digit (0 or Backspace clears)", file=sys.stderr)
        self._act(handle_key(key, self.ui))
        self.painter.show_status = self.ui.show_status

    def _act(self, action: Any) -> None:
        if action.kind == "snapshot":
            self._snapshot()
        elif action.kind == "set" and action.cell is not None and action.digit is not None:
            self.session.set_override(action.cell, action.digit)
        elif action.kind == "mode" and action.mode is not None:
            self.session.set_mode(action.mode)
        elif action.kind == "next_hint":
            self.session.next_hint()

    def _snapshot(self) -> None:
        from ar_sudoku.errors import ArSudokuError
        from ar_sudoku.io.files import write_image

        assert self.last is not None
        name = f"ar-sudoku-snapshot-{self.last.result.frame:05d}.png"
        try:
            write_image(name, self.last.frame)
            print(f"saved {name}", file=sys.stderr)
        except ArSudokuError as exc:
            print(f"ar-sudoku: snapshot not saved: {exc}", file=sys.stderr)

    def close(self) -> None:
        """The window is closed by whoever opened it."""


@contextmanager
def core_for_the_recording(recording: bool) -> Iterator[None]:
    """While a recording is written, OpenCV's own threads leave one core to its encoder and decoder.

    On two cores that means no pool at all: its worker, woken for each parallel call and spinning
    after it, took the second core from the encoder and the decoder when they needed it
    (``scripts/bench_live.py --recording-only`` shows the difference). A plain run keeps every core.
    """
    if not recording:
        yield
        return
    before = cv2.getNumThreads()
    cv2.setNumThreads(max(1, usable_cores() - 1))
    try:
        yield
    finally:
        cv2.setNumThreads(before)


def prepare_frame(frame: Any, *, bgr: bool, undistort: Callable[[np.ndarray], np.ndarray] | None,
                  gray: Callable[[Any], np.ndarray] | None) -> tuple[Any, np.ndarray | None]:
    """Per-frame work that needs no state; a video file's decoder thread runs it ahead of the loop.

    A frame is made BGR only when it is undistorted or shown: a headless recording's I420 frame goes
    from the decoder to the encoder as it is.
    """
    if bgr:
        from ar_sudoku.vision.yuv import as_bgr

        frame = as_bgr(frame)
    if undistort is not None:
        frame = undistort(frame)
    return frame, None if gray is None else gray(frame)


def run_loop(source: FrameSource, session: LiveSession, outputs: Sequence[Output] = (), *,
             painter: Painter | None = None, undistort: Callable[[np.ndarray], np.ndarray] | None = None) -> RunStats:
    """Read, step and hand every frame to the outputs until the source ends or the person quits."""
    with core_for_the_recording(any(isinstance(out, Recorder) for out in outputs)):
        return _loop(source, session, outputs=list(outputs), painter=painter or Painter(session.overlay.fresh()),
                     undistort=undistort)


def _loop(source: FrameSource, session: LiveSession, *, outputs: list[Output], painter: Painter,
          undistort: Callable[[np.ndarray], np.ndarray] | None) -> RunStats:
    from ar_sudoku.io.sources import SourceError

    stats, meter = RunStats(), FpsMeter()
    here = any(out.shows for out in outputs)  # drawn on this thread, before the outputs see it
    pixels = any(out.needs_pixels for out in outputs)  # else nothing is drawn: no one would see it
    still = source.info.kind == "images"  # each photo is its own scene
    dropped = partial(getattr, source, "dropped", 0)  # a camera's frames dropped for newer ones, so far
    frames = source.prepared(partial(prepare_frame, bgr=here or undistort is not None, undistort=undistort,
                                     gray=None if still else session.working_gray))
    t_start, exhausted = time.perf_counter(), False
    try:
        for frame, small in frames:
            raw = frame.copy() if here else None
            result = session.step(frame, still=still, small=small)
            fps = meter.tick()
            status = status_lines(result, fps, dropped()) if painter.show_status and pixels else None
            shown = Shown(frame=frame, result=result, status=status, painter=painter, fps=fps, raw=raw)
            if here:
                shown.paint()
            stats.count(result)
            for out in outputs:
                out.write(shown)
        exhausted = True
    except Quit:
        pass
    except KeyboardInterrupt:
        stats.interrupted = True
    except SourceError as exc:
        stats.failure = str(exc)
    finally:
        stats.seconds = time.perf_counter() - t_start
        for out in outputs:
            out.close()
    if exhausted and not stats.failure:
        stats.failure = _damage(source, stats.frames)
    return stats


def _damage(source: FrameSource, frames: int) -> str:
    """What a source read to its end says of itself: cut short, or a damaged stretch skipped."""
    if getattr(source, "truncated", False):
        return (f"{source.info.name}: the stream ended at frame {frames} of {source.info.frames} "
                "(corrupt or cut short)")
    lost = getattr(source, "lost", 0)
    if lost:  # frames of a damaged stretch, skipped: the rest was read
        return (f"{source.info.name}: {lost} frames could not be decoded (a damaged stretch of the file, "
                f"skipped); the other {frames} were read")
    skipped: list[str] = getattr(source, "skipped", [])
    if skipped:  # photos of a folder that could not be read: the recording and the log lack them
        more = f" (and {len(skipped) - 1} more)" if len(skipped) > 1 else ""
        return f"{skipped[0]}{more}; left out; the other {frames} were read"
    return ""
