"""``ar-sudoku live`` and ``ar-sudoku video``: the capture loop around ``ARSession``.

Sources, the window and the sinks are opened here and only here; the session
stays pure. Every output is a context manager, so the recording is finalized
on every exit road: the end of the file, q/Esc, Ctrl-C, SIGTERM/SIGHUP (turned
into an exception in the main thread), an exception, or a camera that stops
delivering.
"""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.ar.marks import MODES
from ar_sudoku.cli.common import (
    EXIT_OK,
    EXIT_UNSOLVED,
    MAX_PIXELS_HELP,
    CliError,
    help_format,
    pixel_count,
    refuse_overwriting,
    usable_cores,
)
from ar_sudoku.io.images import MAX_PIXELS


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


class FpsMeter:
    """A rolling frames-per-second over the last ``n`` frames."""

    def __init__(self, n: int = 30):
        self.times: deque[float] = deque(maxlen=n)

    def tick(self) -> float:
        self.times.append(time.perf_counter())
        if len(self.times) < 2:
            return 0.0
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def status_lines(result, fps: float, dropped: int = 0) -> list[str]:
    line = f"{fps:4.0f} fps   {result.status.replace('_', ' ')}"
    if dropped:
        line += f"   dropped {dropped}"
    lines = [line]
    if result.message and result.status != "solved":
        lines.append(result.message[:60])
    if result.marks is not None and result.marks.text:
        lines += textwrap.wrap(result.marks.text, 60)[:3]
    return lines


@contextmanager
def core_for_the_recording(recording: bool) -> Iterator[None]:
    """While a recording is written, OpenCV's own threads leave one core to its encoder and decoder.

    On two cores that means no pool at all. Its worker, woken for each parallel call and
    spinning after it, took the second core from the encoder and the decoder when they needed
    it, so a recording ran measurably slower with the pool than without
    (``scripts/bench_live.py --recording-only``). A plain run keeps every core.
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


def run_loop(source, session, *, sink=None, log=None, window=None, show_status: bool = True,
             progress: bool = False, undistort=None) -> RunStats:
    """Read, step, draw, write/show every frame until the source ends or the user quits."""
    with core_for_the_recording(sink is not None):
        return _loop(source, session, sink=sink, log=log, window=window, show_status=show_status,
                     progress=progress, undistort=undistort)


def _loop(source, session, *, sink, log, window, show_status: bool, progress: bool, undistort) -> RunStats:
    from ar_sudoku.ar.overlay import draw_status
    from ar_sudoku.io.sources import SourceError, wait_fps
    from ar_sudoku.io.window import UiState, cell_at, handle_key
    from ar_sudoku.vision.yuv import as_bgr

    stats = RunStats()
    ui = UiState(show_status=show_status)
    meter = FpsMeter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=source.info.frames, unit="frame", disable=not sys.stderr.isatty(), leave=True,
                   dynamic_ncols=True)
    t_start = time.perf_counter()
    # a file shown on screen plays at its own rate; headless runs go as fast as they can
    pace = window is not None and source.info.kind == "video"
    tick = t_start
    last = None
    raw = None
    refreshed = 0.0
    exhausted = False
    still = source.info.kind == "images"  # each photo is its own scene

    def prepare(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Per-frame work that needs no state; a video file's decoder thread runs it ahead of the loop."""
        if undistort is not None or window is not None:  # an I420 frame (a headless recording's) is not shown
            frame = as_bgr(frame)
        if undistort is not None:
            frame = undistort(frame)
        return frame, None if still else session.working_gray(frame)

    frames = source.prepared(prepare)
    # headless, the writer thread draws what it records, with a renderer of its own (each caches its layers)
    painter = session.overlay.fresh() if sink is not None and window is None else None

    def paint(frame: np.ndarray, result, status: list[str] | None) -> np.ndarray:
        """The overlay and the status box on ``frame``, in place."""
        if painter is None:
            session.draw(frame, result)
        elif result.marks is not None and result.corners is not None:
            painter.draw_marks(frame, result.corners, result.marks, result.lattice)
        if status:
            draw_status(frame, status)
        return frame

    try:
        while not ui.quit:
            if not ui.paused or last is None:
                try:
                    frame, small = next(frames)
                except StopIteration:
                    exhausted = True
                    break
                raw = frame.copy() if window is not None else None
                result = session.step(frame, still=still, small=small)
                fps = meter.tick()
                seen = window is not None or sink is not None  # else nothing is drawn: no one would see it
                status = status_lines(result, fps, getattr(source, "dropped", 0)) if ui.show_status and seen else None
                if window is not None:  # shown here, so drawn here (and recorded as shown)
                    paint(frame, result, status)
                stats.frames += 1
                if result.solution:
                    stats.solved_frames += 1
                    if stats.first_solved is None:
                        stats.first_solved = result.frame
                if sink is not None:
                    # a fresh frame each time, not drawn on again: no copy. Headless, the writer thread draws
                    # it too, so the loop does no more than for a run that records nothing
                    sink.write(frame, owned=True, paint=None if window is not None else partial(paint, result=result,
                                                                                                 status=status))
                if log is not None:
                    log.write(result.to_json())
                if bar is not None:
                    bar.update(1)
                last = (frame, result)
            elif window is not None and raw is not None and time.perf_counter() - refreshed > 0.1:
                # paused: keep redrawing the still frame so a correction shows once it is solved
                refreshed = time.perf_counter()
                frame = raw.copy()
                result = session.step(frame, still=still)
                last = (paint(frame, result, status_lines(result, meter.tick(), 0) + ["paused"] if ui.show_status
                              else None), result)
            if window is not None:
                if pace:
                    tick = wait_fps(tick, source.info.fps)
                window.show(last[0])
                key = window.poll(1)
                click = window.take_click()
                if click is not None:
                    ui.selected = cell_at(click, last[1].corners)
                    if ui.selected is not None:
                        r, c = divmod(ui.selected, 9)
                        print(f"r{r + 1}c{c + 1} selected: type a digit (0 or Backspace clears)", file=sys.stderr)
                action = handle_key(key, ui)
                if action.kind == "snapshot":
                    from ar_sudoku.errors import ArSudokuError
                    from ar_sudoku.io.files import write_image

                    name = f"ar-sudoku-snapshot-{last[1].frame:05d}.png"
                    try:
                        write_image(name, last[0])
                        print(f"saved {name}", file=sys.stderr)
                    except ArSudokuError as exc:
                        print(f"ar-sudoku: snapshot not saved: {exc}", file=sys.stderr)
                elif action.kind == "set" and action.cell is not None and action.digit is not None:
                    session.set_override(action.cell, action.digit)
                elif action.kind == "mode" and action.mode is not None:
                    session.set_mode(action.mode)
                elif action.kind == "next_hint":
                    session.next_hint()
    except KeyboardInterrupt:
        stats.interrupted = True
    except SourceError as exc:
        stats.failure = str(exc)
    finally:
        stats.seconds = time.perf_counter() - t_start
        if bar is not None:
            bar.close()
    if exhausted and getattr(source, "truncated", False) and not stats.failure:
        stats.failure = (f"{source.info.name}: the stream ended at frame {stats.frames} of "
                         f"{source.info.frames} (corrupt or cut short)")
    lost = getattr(source, "lost", 0)  # frames of a damaged stretch, skipped: the rest was read
    if exhausted and lost and not stats.failure:
        stats.failure = (f"{source.info.name}: {lost} frames could not be decoded (a damaged stretch of the file, "
                         f"skipped); the other {stats.frames} were read")
    return stats


def _open_everything(args: argparse.Namespace, spec: str | int, headless: bool):
    from ar_sudoku.ar.session import ARSession
    from ar_sudoku.io.sinks import VIDEO_EXT, JsonlLog, SinkError, VideoSink, check_writable
    from ar_sudoku.io.sources import SourceError, check_source, load_ffmpeg_ahead, open_source
    from ar_sudoku.io.window import Window, WindowError
    from ar_sudoku.vision.camera import CalibrationError
    from ar_sudoku.vision.digits import DigitReader, ModelError
    from ar_sudoku.vision.kinds import KindReader

    stack = ExitStack()
    try:
        # outputs are checked before the (slow) source so a typo fails at once
        if args.output:
            check_writable(Path(args.output), VIDEO_EXT)
        if args.jsonl:
            check_writable(Path(args.jsonl))
        check_source(spec)  # a missing file fails now, before the models load
        # a headless recording keeps a video's frames as decoded (I420) from the decoder to the encoder
        i420 = headless and bool(args.output) and not getattr(args, "calibration", None)
        reader, kinds = DigitReader(getattr(args, "model", None)), KindReader()
        if i420:
            load_ffmpeg_ahead()  # loads while the session waits for its solver process to start
        session = stack.enter_context(ARSession(reader, mode=args.show, kinds=kinds))
        source = stack.enter_context(open_source(spec, i420=i420, max_pixels=getattr(args, "max_pixels", None)))
        undistort = None
        if getattr(args, "calibration", None):
            from ar_sudoku.io.calibration import load_named

            calib = load_named(args.calibration)
            size = (source.info.width, source.info.height)
            scaled = calib.scaled(size)
            if scaled.note:
                print(f"ar-sudoku: calibration {scaled.note}", file=sys.stderr)
            undistort = scaled.undistorter(size)
        window = None if headless else Window()
        if window is not None:
            stack.callback(window.close)
        # the log first, so it closes after the recording and can follow it if a full disk removed it
        log = stack.enter_context(JsonlLog(args.jsonl)) if args.jsonl else None
        sink = None
        if args.output:
            sink = stack.enter_context(VideoSink(args.output, (source.info.width, source.info.height),
                                                 source.info.fps if source.info.kind != "images" else 2.0))
    except (SourceError, SinkError, WindowError, ModelError, CalibrationError) as exc:
        stack.close()
        raise CliError(str(exc)) from exc
    except BaseException:
        stack.close()
        raise
    return stack, source, session, window, sink, log, undistort


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP raised in the main thread like Ctrl-C, so every ``with`` finalizes its output."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@dataclass
class Caught:
    signum: int | None = None


@contextmanager
def finalize_on_signals() -> Iterator[Caught]:
    """Turn SIGTERM/SIGHUP into :class:`Terminated` while a command records (the default kills the
    process mid-write and leaves an unplayable file); a signal that arrives outside the frame loop ends
    the command with 128 + the signal number, as a shell reports it."""
    caught = Caught()
    if threading.current_thread() is not threading.main_thread():
        yield caught  # signal handlers can only be set from the main thread (tests, embedding)
        return

    def handler(signum: int, _frame: object) -> None:
        if caught.signum is not None:
            return  # finalizing already: a second signal must not cut it short (SIGKILL still works)
        caught.signum = signum
        raise Terminated(signum)

    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None and signal.getsignal(sig) is not signal.SIG_IGN:  # nohup's ignored SIGHUP stays so
            previous[sig] = signal.signal(sig, handler)
    try:
        yield caught
    except Terminated as exc:
        raise CliError("terminated; outputs finalized", 128 + exc.signum) from None
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _report(stats: RunStats, args: argparse.Namespace, *, need_solution: bool = False, sink=None, log=None,
            signum: int | None = None) -> int:
    """The closing line; a file in which no puzzle was ever solved has no answer (exit 1)."""
    parts = [f"{stats.frames} frames in {stats.seconds:.1f} s ({stats.fps:.1f} fps)"]
    if stats.first_solved is not None:
        parts.append(f"solution drawn on {stats.solved_frames} frames, first at frame {stats.first_solved}")
    else:
        parts.append("no puzzle solved")
    if sink is not None and sink.finalized:  # only a file that is complete under its real name
        parts.append(f"wrote {args.output}")
    if log is not None and log.finalized:
        parts.append(f"log {args.jsonl}")
    print("; ".join(parts), file=sys.stderr)
    if stats.failure:
        print(f"ar-sudoku: {stats.failure}", file=sys.stderr)
        return EXIT_UNSOLVED
    if stats.interrupted and signum is not None:
        print("ar-sudoku: terminated; outputs finalized", file=sys.stderr)
        return 128 + signum
    if stats.interrupted:
        print("ar-sudoku: interrupted; outputs finalized", file=sys.stderr)
        return 130
    if need_solution and stats.first_solved is None:
        return EXIT_UNSOLVED
    return EXIT_OK


def _inputs(path: str) -> list[Path]:
    """The files a run reads: the path itself, or the images of a folder."""
    p = Path(path)
    return [p, *sorted(p.iterdir())] if p.is_dir() else [p]


@contextmanager
def _log_follows_recording(args: argparse.Namespace) -> Iterator[None]:
    """A recording removed after a failed write took its log with it: the one line says both."""
    from ar_sudoku.io.sinks import SinkWriteError

    try:
        yield
    except SinkWriteError as exc:
        if exc.recording_removed and args.jsonl:
            raise CliError(f"{exc}, and so was the log {args.jsonl}", exc.exit_code) from exc
        raise


def run_video(args: argparse.Namespace) -> int:
    refuse_overwriting([("--output", args.output), ("--jsonl", args.jsonl)], _inputs(args.path))
    with finalize_on_signals() as caught, _log_follows_recording(args):
        stack, source, session, window, sink, log, undistort = _open_everything(args, args.path, args.headless)
        with stack:
            stats = run_loop(source, session, sink=sink, log=log, window=window, show_status=not args.no_status,
                             progress=args.headless, undistort=undistort)
    return _report(stats, args, need_solution=True, sink=sink, log=log, signum=caught.signum)


def run_live(args: argparse.Namespace) -> int:
    refuse_overwriting([("--output", args.output), ("--jsonl", args.jsonl)], [])
    with finalize_on_signals() as caught:
        stack, source, session, window, sink, log, undistort = _open_everything(args, args.camera, args.headless)
        with stack:
            stats = run_loop(source, session, sink=sink, log=log, window=window, show_status=not args.no_status,
                             progress=False, undistort=undistort)
    return _report(stats, args, sink=sink, log=log, signum=caught.signum)


def camera_index(text: str) -> int:
    """An argparse type: a camera index 0, 1, 2, ... (OpenCV crashes on some negative ones)."""
    try:
        value = int(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a camera number (0, 1, 2, ...)") from exc
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: camera numbers start at 0")
    return value


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--output", "-o", metavar="OUT.mp4",
                   help="record the annotated video: .mp4 (H.264, plays everywhere), .webm (VP9), .mkv (H.264), "
                        ".avi (Motion JPEG); written to a new hidden .OUT.XXXXXXXX.part.mp4 beside it and renamed "
                        "when complete (a FIFO or device is written to directly)")
    p.add_argument("--jsonl", metavar="LOG.jsonl",
                   help="one JSON line per frame: corners, givens, solution, status; written to a hidden "
                        ".LOG.XXXXXXXX.part.jsonl beside it and renamed at the end (to follow it live, give a FIFO "
                        "or /dev/stdout: streamed as it runs)")
    p.add_argument("--no-status", action="store_true", help="no fps/state box (clean demo videos)")
    p.add_argument("--show", choices=MODES, default="answer",
                   help="answer: every missing digit (default); check: mistakes only; hint: the next step only")
    p.add_argument("--calibration", metavar="NAME|PATH", help="undistort with a camera calibration")
    p.add_argument("--model", metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--max-pixels", type=pixel_count, default=MAX_PIXELS, metavar="N", help=MAX_PIXELS_HELP)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "live",
        help="the webcam view with solved digits drawn on the paper (the default)",
        **help_format(
            "Open the webcam and draw the solution on the puzzle as you move it. Keys: q/Esc quit, "
            "space pause, s save a PNG snapshot, i hide/show the status box; a answer, c check (mistakes "
            "only), h hint, n next hint. Click a cell and type a digit (0 or Backspace clears) to correct a "
            "misread given.",
            "  ar-sudoku live\n  ar-sudoku live --camera 1 --output demo.mp4 --no-status\n",
        ),
    )
    p.add_argument("--camera", type=camera_index, default=0, metavar="N", help="camera index (default 0)")
    p.add_argument("--headless", action="store_true", help="no window (record with --output)")
    _common(p)
    p.set_defaults(func=run_live)

    p = sub.add_parser(
        "video",
        help="annotate a video file (or a folder of images, or one image), headless or on screen",
        **help_format(
            "Process every frame of a video in order and draw the solution on the puzzle. With "
            "--headless no window opens and a progress bar shows frames, fps and time left.",
            "  ar-sudoku video samples/demo.mp4 --headless --output annotated.mp4\n"
            "  ar-sudoku video clip.mp4 --headless --jsonl frames.jsonl\n"
            "  ar-sudoku video photos/ --headless --output slideshow.avi\n",
        ),
    )
    p.add_argument("path", metavar="PATH", help="a video file, an image, or a folder of images")
    p.add_argument("--headless", action="store_true", help="no window; show a progress bar")
    _common(p)
    p.set_defaults(func=run_video)

