"""What ``live`` and ``video`` share around the frame loop: opening a run, its signals, its closing line.

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
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ar_sudoku.ar.marks import MODES
from ar_sudoku.cli.common import EXIT_OK, EXIT_UNSOLVED, MAX_PIXELS_HELP, CliError, pixel_count
from ar_sudoku.cli.frames import Log, Output, Painter, Progress, Recorder, RunStats, Screen, run_loop
from ar_sudoku.io.images import MAX_PIXELS

if TYPE_CHECKING:
    from ar_sudoku.ar.live import LiveSession
    from ar_sudoku.io.sinks import JsonlLog, VideoSink
    from ar_sudoku.io.sources import FrameSource


@dataclass
class Run:
    """Everything one run opened; ``stack`` closes it all, the log after the recording."""

    stack: ExitStack
    source: FrameSource
    session: LiveSession
    painter: Painter
    outputs: list[Output] = field(default_factory=list)
    sink: VideoSink | None = None
    log: JsonlLog | None = None
    undistort: Callable[[np.ndarray], np.ndarray] | None = None


def _undistorter(args: argparse.Namespace, source: FrameSource) -> Callable[[np.ndarray], np.ndarray] | None:
    """``--calibration``: the remap for this source's size (a calibration made at another size is scaled)."""
    if not getattr(args, "calibration", None):
        return None
    from ar_sudoku.io.calibration import load_named

    size = (source.info.width, source.info.height)
    scaled = load_named(args.calibration).scaled(size)
    if scaled.note:
        print(f"ar-sudoku: calibration {scaled.note}", file=sys.stderr)
    return scaled.undistorter(size)


def _outputs(run: Run, args: argparse.Namespace, *, headless: bool, progress: bool) -> None:
    """The log first, so it closes after the recording and can follow it if a full disk removed it; the
    window last, so a frame is recorded and logged before the person can quit on it."""
    from ar_sudoku.io.sinks import JsonlLog, VideoSink
    from ar_sudoku.io.window import Window

    info, stack = run.source.info, run.stack
    window = None if headless else Window()
    if window is not None:
        stack.callback(window.close)
    run.log = stack.enter_context(JsonlLog(args.jsonl)) if args.jsonl else None
    if args.output:
        run.sink = stack.enter_context(VideoSink(args.output, (info.width, info.height),
                                                 info.fps if info.kind != "images" else 2.0))
        run.outputs.append(Recorder(run.sink))
    if run.log is not None:
        run.outputs.append(Log(run.log))
    if progress:
        run.outputs.append(Progress(info.frames))
    if window is not None:  # a file shown on screen plays at its own rate; headless runs go as fast as they can
        run.outputs.append(Screen(window, run.session, run.painter, still=info.kind == "images",
                                  pace_fps=info.fps if info.kind == "video" else None))


def open_run(args: argparse.Namespace, spec: str | int, *, headless: bool, progress: bool) -> Run:
    """Check the outputs, then the source, then load the models and open everything, in that order, so a
    typo fails at once; on any failure what was opened is closed again."""
    from ar_sudoku.ar.page import Page
    from ar_sudoku.io.sinks import VIDEO_EXT, SinkError, check_writable
    from ar_sudoku.io.sources import SourceError, check_source, load_ffmpeg_ahead, open_source
    from ar_sudoku.io.window import WindowError
    from ar_sudoku.vision.camera import CalibrationError
    from ar_sudoku.vision.digits import DigitReader, ModelError
    from ar_sudoku.vision.kinds import KindReader

    stack = ExitStack()
    try:
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
        # every puzzle in view, each tracked, read and solved on its own
        session = stack.enter_context(Page(reader, mode=args.show, kinds=kinds))
        source = stack.enter_context(open_source(spec, i420=i420, max_pixels=getattr(args, "max_pixels", None)))
        run = Run(stack=stack, source=source, session=session,
                  painter=Painter(session.overlay.fresh(), show_status=not args.no_status),
                  undistort=_undistorter(args, source))
        _outputs(run, args, headless=headless, progress=progress)
    except (SourceError, SinkError, WindowError, ModelError, CalibrationError) as exc:
        stack.close()
        raise CliError(str(exc)) from exc
    except BaseException:
        stack.close()
        raise
    return run


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


def report(stats: RunStats, args: argparse.Namespace, run: Run, *, need_solution: bool = False,
           signum: int | None = None) -> int:
    """The closing line; a file in which no puzzle was ever solved has no answer (exit 1)."""
    parts = [f"{stats.frames} frames in {stats.seconds:.1f} s ({stats.fps:.1f} fps)"]
    if stats.first_solved is not None:
        parts.append(f"solution drawn on {stats.solved_frames} frames, first at frame {stats.first_solved}")
    else:
        parts.append("no puzzle solved")
    if run.sink is not None and run.sink.finalized:  # only a file that is complete under its real name
        parts.append(f"wrote {args.output}" + _padded_note(run.sink))
    if run.log is not None and run.log.finalized:
        parts.append(f"log {run.log.name}")
    if stats.interrupted and not stats.failure:  # one line: how it was stopped, what it did, what it kept
        how = "terminated" if signum is not None else "interrupted"
        print(f"ar-sudoku: {how} after {'; '.join(parts)}; outputs finalized", file=sys.stderr)
        return 128 + signum if signum is not None else 130
    print("; ".join(parts), file=sys.stderr)
    if stats.failure:
        print(f"ar-sudoku: {stats.failure}", file=sys.stderr)
        return EXIT_UNSOLVED
    if need_solution and stats.first_solved is None:
        return EXIT_UNSOLVED
    return EXIT_OK


def _padded_note(sink: VideoSink) -> str:
    """An odd-sized source recorded in H.264, whose 4:2:0 colour takes even sizes only: said, with the way out."""
    if sink.padded == sink.size:
        return ""
    (w, h), (pw, ph) = sink.size, sink.padded
    return f" at {pw}x{ph} (H.264 takes even sizes; .webm or .avi keep {w}x{h})"


@contextmanager
def log_follows_recording(args: argparse.Namespace) -> Iterator[None]:
    """A recording removed after a failed write took its log with it: the one line says both."""
    from ar_sudoku.io.sinks import SinkWriteError

    try:
        yield
    except SinkWriteError as exc:
        if exc.recording_removed and args.jsonl:
            earlier = args.jsonl != "-" and Path(args.jsonl).is_file()  # the run's own log is gone: this is older
            said = (f"; the log was not written either ({args.jsonl} is as it was)" if earlier
                    else f", and so was the log {args.jsonl}")
            raise CliError(f"{exc}{said}", exc.exit_code) from exc
        raise


def run_capture(args: argparse.Namespace, spec: str | int, *, headless: bool, progress: bool,
                need_solution: bool) -> int:
    """Open, loop, close, report: the whole of ``live`` and ``video`` once their inputs are checked."""
    with finalize_on_signals() as caught, log_follows_recording(args):
        run = open_run(args, spec, headless=headless, progress=progress)
        with run.stack:
            stats = run_loop(run.source, run.session, run.outputs, painter=run.painter, undistort=run.undistort)
            if stats.interrupted and run.sink is not None:
                run.sink.stop_soon()  # a FIFO whose reader stopped reading cannot hold the stop for good
    return report(stats, args, run, need_solution=need_solution, signum=caught.signum)


def add_common(p: argparse.ArgumentParser) -> None:
    """The options ``live`` and ``video`` share: the outputs, the display mode, the calibration."""
    p.add_argument("--output", "-o", metavar="OUT.mp4",
                   help="record the annotated video: .mp4 (H.264, plays everywhere), .webm (VP9), .mkv (H.264), "
                        ".avi (Motion JPEG); written to a new hidden .OUT.XXXXXXXX.part.mp4 beside it and renamed "
                        "when complete (a FIFO or device is written to directly, as Matroska without an extension)")
    p.add_argument("--jsonl", metavar="LOG.jsonl",
                   help="one JSON line per frame: corners, givens, solution, status; written to a hidden "
                        ".LOG.XXXXXXXX.part.jsonl beside it and renamed at the end (a run that fails keeps an "
                        "earlier LOG.jsonl as it was; to follow it live, give - for stdout, or a FIFO: streamed "
                        "as it runs)")
    p.add_argument("--no-status", action="store_true", help="no fps/state box (clean demo videos)")
    p.add_argument("--show", choices=MODES, default="answer",
                   help="answer: every missing digit (default); check: mistakes only; hint: the next step only")
    p.add_argument("--calibration", metavar="NAME|PATH", help="undistort with a camera calibration")
    p.add_argument("--model", metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--max-pixels", type=pixel_count, default=MAX_PIXELS, metavar="N", help=MAX_PIXELS_HELP)
