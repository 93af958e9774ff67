"""Outputs that must always be finalized: the annotated video and the JSONL log.

Both are context managers: leaving the ``with`` block by any road (the end,
Ctrl-C, SIGTERM turned into an exception by the CLI, an exception, a camera
that died) finalizes the file. Both write to a new hidden temporary name beside
the target (``.NAME.XXXXXXXX.part.EXT``, made by ``mkstemp``: never an existing
file) and rename it into place only once complete, so the real name never
holds half a file, and an existing file of that name survives a failed run. A
target that is not a regular file (a FIFO, ``/dev/null``, ``/dev/stdout``) is
written to directly and never renamed over (``io.files``); a FIFO is opened
here, on the main thread, where Ctrl-C and SIGTERM can stop the wait for its
reader. A log whose run failed (an exception other than a stop, or no line at
all) is removed rather than renamed: an earlier log of that name is kept.

The video is encoded with PyAV (FFmpeg) on a writer thread fed by a small
bounded queue: encoding overlaps the frame loop, and the loop waits only when
the queue is full, so a recording never misses a frame. An error on that
thread (a full disk) surfaces as :class:`SinkError` on the next ``write()`` or
on ``close()``. A Matroska or WebM file plays without an index, so what was
written is kept under the real name; an MP4 (or MOV, AVI) without its index
would not play, so it is removed, and the CLI removes the log beside it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import stat
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io import files
from ar_sudoku.io.threads import lower_priority
from ar_sudoku.vision.yuv import I420


def _rename_into_place(tmp: Path, path: Path) -> OSError | None:
    """A finished file takes its real name in one step; the error, if that fails."""
    try:
        files.finish(tmp, path)
    except OSError as exc:
        return exc
    return None


class SinkError(ArSudokuError, RuntimeError):
    """An output that cannot be written: a bad name, refused up front (exit 2)."""


class SinkWriteError(SinkError):
    """A write that failed mid-run (a full disk): exit 1 as the README says.

    ``recording_removed``: a recording's partial file could not be kept playable and was removed (the
    JSONL log beside it is then removed too, so no log describes frames that no file holds). ``kept``:
    the frames a recording kept, playable, after the failure (its log is kept with it).
    """

    exit_code = 1

    def __init__(self, message: str, recording_removed: bool = False, kept: int = 0):
        super().__init__(message)
        self.recording_removed = recording_removed
        self.kept = kept


@dataclass(frozen=True)
class VideoCodec:
    """How one container extension is encoded."""

    encoder: str  # FFmpeg encoder name
    pix_fmt: str
    options: dict[str, str] = field(default_factory=dict)
    threads: int = 1
    container_options: dict[str, str] = field(default_factory=dict)


# H.264 plays in every browser, phone and sharing site. The encoder shares a 2-core
# machine with a frame loop that already takes one core, so speed decides the preset.
# Each slower preset costs a multiple of ultrafast's time a frame for a smaller file at
# the same sharpness; only ultrafast leaves the headless loop its pace.
# A constant quantiser rather than crf skips x264's per-frame complexity analysis:
# qp 22 is as sharp as crf 23 with deblocking, a little larger, and clearly cheaper
# (``python scripts/bench_encoder.py`` compares them; docs/benchmarks.md has the figures).
_X264 = {"preset": "ultrafast", "qp": "22"}
_H264_MP4 = VideoCodec("libx264", "yuv420p", _X264,
                       container_options={"movflags": "+faststart"})  # moov first: browsers start at once
# Matroska: H.264 too (small, plays in VLC/mpv/Chrome); it needs no index at the end,
# so even the .part file of a run killed by SIGKILL plays up to where it stopped.
_H264_MKV = VideoCodec("libx264", "yuv420p", _X264)
# libvpx's realtime mode at its fastest speed, rows in parallel: VP9 is otherwise far slower than the loop.
_VP9 = VideoCodec("libvpx-vp9", "yuv420p", {"deadline": "realtime", "cpu-used": "8", "row-mt": "1", "crf": "32",
                                            "b": "0", "lag-in-frames": "0"}, threads=2)
# AVI is for old tools that expect intra-only frames: Motion JPEG, every frame a JPEG.
_MJPEG = VideoCodec("mjpeg", "yuvj420p")

VIDEO_EXT: dict[str, VideoCodec] = {".mp4": _H264_MP4, ".m4v": _H264_MP4, ".mov": _H264_MP4, ".mkv": _H264_MKV,
                                    ".webm": _VP9, ".avi": _MJPEG}

QUEUE_FRAMES = 4  # frames waiting for the encoder; small so memory stays flat and Ctrl-C loses little
STREAM_PATIENCE = 2.0  # seconds a stopped run waits for a FIFO's reader to take what is left
# a FIFO or device named without a video extension (/dev/null, /dev/stdout) gets Matroska: it streams
STREAM_EXT = ".mkv"
# encoders that take any size; x264's 4:2:0 takes even sizes only (its cropping is in 2-pixel units too)
ANY_SIZE = ("libvpx-vp9", "mjpeg")
STDOUT = "-"  # --jsonl -: the log on stdout


def check_writable(path: Path, kinds: Collection[str] | None = None) -> None:
    """Refuse an output up front (bad extension, a missing or read-only folder, a folder) before any slow work.

    A FIFO or device without a video extension is taken (written as Matroska); ``-`` is stdout."""
    if str(path) == STDOUT:
        return
    if kinds is not None and files.is_stream(path) and path.suffix.lower() not in kinds:
        kinds = None
    try:
        files.check_output(path, kinds)
    except files.OutputError as exc:
        raise SinkError(str(exc)) from exc


def _is_fifo(path: Path) -> bool:
    """A FIFO or socket: opened here, since its open waits for a reader (a device's does not)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def temporary_for(path: Path) -> Path:
    """Where ``path`` is written until it is finalized: a new temporary file, or ``path`` itself for a
    target that is not a regular file (a FIFO, a device), which is never renamed over or removed."""
    if files.is_stream(path):
        return path
    try:
        return files.temporary(path)
    except files.OutputError as exc:
        raise SinkError(str(exc)) from exc


def exact_rate(fps: float | Fraction) -> Fraction:
    """A frame rate as the rational the source meant: 29.97002997 -> 30000/1001, 25.0 -> 25."""
    if isinstance(fps, Fraction):
        return fps
    if not fps or fps <= 0 or fps != fps:
        return Fraction(30)
    for den in (1, 1001):
        num = round(fps * den / (1000 if den == 1001 else 1))
        rate = Fraction(num * (1000 if den == 1001 else 1), den)
        if num and abs(float(rate) - fps) < 1e-3:
            return rate
    return Fraction(fps).limit_denominator(1000)


_STOP = object()


class VideoSink:
    """``with VideoSink(path, (w, h), fps) as sink: sink.write(frame)``; the file appears at ``path`` on close.

    ``frames`` counts the frames accepted; ``finalized`` says the file is complete under its real name;
    ``writer_cpu`` is the writer thread's CPU seconds (conversion, encoding, muxing), for benchmarks.
    """

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float | Fraction):
        self.path = Path(path)
        check_writable(self.path, VIDEO_EXT)
        self.size = (int(size[0]), int(size[1]))
        if self.size[0] < 2 or self.size[1] < 2:
            raise SinkError(f"{self.path}: a {self.size[0]}x{self.size[1]} video cannot be encoded")
        self.ext = self.path.suffix.lower() if self.path.suffix.lower() in VIDEO_EXT else STREAM_EXT
        self.codec = VIDEO_EXT[self.ext]
        self.rate = exact_rate(fps)
        # x264's yuv420p stores colour at half resolution: an odd size is padded to even (never a pixel cropped);
        # VP9 and Motion JPEG take the size as it is
        odd_ok = self.codec.encoder in ANY_SIZE
        self.padded = self.size if odd_ok else (self.size[0] + self.size[0] % 2, self.size[1] + self.size[1] % 2)
        self.fd: int | None = None  # a FIFO's descriptor, opened (once a reader came) before the writer starts
        if _is_fifo(self.path):
            try:
                self.fd = files.open_stream_fd(self.path)
            except OSError as exc:
                raise SinkError(f"{self.path}: cannot be written ({files.reason(exc)})") from exc
        self.tmp = temporary_for(self.path)
        self.frames = 0  # queued by write()
        self.encoded = 0  # encoded by the writer thread: what close() keeps (a Ctrl-C may land between the two)
        self.finalized = False
        self.kept = 0  # frames kept after a failed write (a Matroska file plays without its end)
        self.patience: float | None = None  # set when the run stops: how long a stream's reader is waited for
        self._error: BaseException | None = None
        self._closed = False
        self.writer_cpu = 0.0
        self._queue: queue.Queue[object] = queue.Queue(maxsize=QUEUE_FRAMES)
        # FFmpeg is loaded and the encoder opened on the writer thread (a wait): the frame loop starts meanwhile
        self._thread = threading.Thread(target=self._run, name="ar-sudoku-video-writer", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        """The container and the encoder (on the writer thread); an error here fails the first write()."""
        import av  # FFmpeg; imported here so commands without a recording never load it

        self._av = av
        where = str(self.tmp) if self.fd is None else f"pipe:{self.fd}"  # FFmpeg's pipe protocol: our descriptor
        self._container = av.open(where, "w", format=_FORMAT[self.ext], options=dict(self.codec.container_options))
        from av.video.stream import VideoStream

        stream = self._container.add_stream(self.codec.encoder, rate=self.rate)
        assert isinstance(stream, VideoStream)  # every codec in VIDEO_EXT is a video encoder
        self._stream = stream
        cc = stream.codec_context
        cc.width, cc.height = self.padded
        cc.pix_fmt = self.codec.pix_fmt
        cc.time_base = 1 / self.rate
        cc.thread_count = self.codec.threads
        if self.codec.pix_fmt == "yuv420p":
            # the frames are converted with BT.601, limited range: say so, or HD players assume BT.709
            cc.colorspace, cc.color_range, cc.color_primaries, cc.color_trc = 6, 1, 1, 1
        cc.options = dict(self.codec.options)
        cc.open()

    # -- the frame loop's side -------------------------------------------------
    def write(self, frame: np.ndarray | I420, *, owned: bool = False,
              paint: Callable[[np.ndarray | I420], object] | None = None) -> None:
        """Queue one BGR (or grey, or I420) frame; blocks only while the queue is full.

        The frame is copied, since the caller may draw on it again, unless ``owned``: the caller hands
        it over and never writes to it again (the frame loop, whose every frame is freshly decoded),
        which saves the copy on the loop's thread. ``paint(frame)``, if given, draws on the frame (in
        place) on the writer thread before it is encoded: the loop hands its drawing over too. An I420
        frame of the recording's size goes to an H.264 or VP9 encoder as it is, drawn on in its planes.
        """
        self._raise_if_failed()
        if self._closed:
            raise SinkError(f"{self.path}: the recording is already closed")
        if not owned:
            frame = I420(frame.data.copy()) if isinstance(frame, I420) else np.array(frame, copy=True)
        self._queue.put((frame, paint))
        self.frames += 1

    def close(self) -> None:
        """Encode what is queued, write the index, and rename into place; raise SinkError if the file failed.

        A recording that failed before its first frame (an encoder that cannot open) is a failure too; one
        stopped before it, without a failure, leaves no file and says nothing."""
        if self._closed:
            self._raise_if_failed()
            return
        self._closed = True
        interrupted = self._wait_for_writer()
        if self._thread.is_alive():  # a stream's reader that stopped reading: left, with its descriptor
            return self._left(interrupted)
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        if self._error is None and self.encoded:
            self._error = None if self.tmp == self.path else _rename_into_place(self.tmp, self.path)
            self.finalized = self._error is None
        if self._error is not None:
            self.kept = self._keep_playable()
        if not self.finalized and not self.kept:
            self._discard()
        if interrupted is not None and self._error is None:
            raise interrupted
        self._raise_if_failed()

    def _wait_for_writer(self) -> KeyboardInterrupt | None:
        """Until the writer thread has written what is queued; the Ctrl-C that came meanwhile, if any.

        A second Ctrl-C (or the signal the CLI turns into one) must not leave half a file, so a regular
        file is always waited for. A FIFO or device is given ``STREAM_PATIENCE`` seconds once the run is
        stopping (``patience`` set, or a signal here): a reader that stopped reading cannot hold the
        command for good, and there is no file to finish."""
        interrupted: KeyboardInterrupt | None = None
        stopping, since = False, time.monotonic()
        while self._thread.is_alive():
            try:
                if not stopping:
                    self._queue.put(_STOP, timeout=0.1)
                    stopping = True
                self._thread.join(timeout=0.1)
            except queue.Full:
                pass
            except KeyboardInterrupt as exc:
                interrupted = exc
                if self.patience is None:
                    self.patience, since = STREAM_PATIENCE, time.monotonic()
            if self.tmp == self.path and self.patience is not None and time.monotonic() - since > self.patience:
                break
        return interrupted

    def _left(self, interrupted: KeyboardInterrupt | None) -> None:
        """A stopped run whose FIFO's reader stopped taking the recording: the writer thread (a daemon, blocked
        in a write) is left to end with the process, and its descriptor stays open under it (closed, its
        number could be reused by a file the thread would then write into). The stop goes on as a stop."""
        if interrupted is not None:
            raise interrupted

    def stop_soon(self) -> None:
        """The run is stopping: at close, a FIFO's or device's reader gets ``STREAM_PATIENCE`` seconds."""
        if self.patience is None:
            self.patience = STREAM_PATIENCE

    def _keep_playable(self) -> int:
        """After a failed write (a full disk), the frames a Matroska or WebM file holds, renamed into place.

        Matroska needs no index: the partial file plays up to its last whole cluster, and is kept. MP4 and
        MOV cannot play without the index that the failed file never got (FFmpeg writes nothing more after an
        I/O error), nor AVI reliably: those are removed. Returns the frames kept, 0 when removed.
        """
        if self.tmp == self.path or self.path.suffix.lower() not in (".mkv", ".webm") or not self.tmp.exists():
            return 0
        try:
            import av

            with av.open(str(self.tmp)) as container:
                frames = sum(packet.size > 0 for packet in container.demux(video=0))
        except Exception:  # noqa: BLE001 - whatever FFmpeg makes of the wreck, it is not a file to keep
            return 0
        if not frames or _rename_into_place(self.tmp, self.path) is not None:
            return 0
        return frames

    def _raise_if_failed(self) -> None:
        if self._error is None:
            return
        reason = files.reason(self._error)
        if self.kept:
            raise SinkWriteError(f"{self.path}: the recording stopped ({reason}); its first {self.kept} frames "
                                 "were kept, and play", kept=self.kept) from self._error
        if self.tmp == self.path:  # a FIFO or device written directly: nothing to remove
            raise SinkWriteError(f"{self.path}: the recording could not be written ({reason})") from self._error
        raise SinkWriteError(f"{self.path}: the recording could not be written ({reason}); the partial file was "
                             "removed", recording_removed=self._closed) from self._error

    def _discard(self) -> None:
        if self.tmp != self.path:  # a device or FIFO written directly is never removed
            files.discard(self.tmp)

    # -- the writer thread -----------------------------------------------------
    def _run(self) -> None:
        lower_priority()  # the frame loop first; encoding takes the time it leaves (the queue absorbs a burst)
        opened = False
        try:
            self._open()
            opened = True
        except Exception as exc:  # reported to the frame loop on its next write() or close()
            self._error = exc
            with contextlib.suppress(Exception):  # the open already failed; this is only cleanup
                self._container.close()
        pts = 0
        while True:
            item = self._queue.get()
            if item is _STOP:
                break
            if self._error is not None:
                continue  # keep draining so the frame loop never blocks on a dead writer
            try:
                assert isinstance(item, tuple)
                img, paint = item
                if isinstance(img, I420) and not self._takes(img):
                    img = cv2.cvtColor(img.data, cv2.COLOR_YUV2BGR_I420)  # fresh: a cached bgr() predates paint
                if paint is not None:
                    paint(img)
                frame = self._to_frame(img)
                frame.pts = pts  # in 1/fps units: frame n shows at n/fps, whatever the loop's timing
                pts += 1
                for packet in self._stream.encode(frame):
                    self._container.mux(packet)
                self.encoded = pts
            except Exception as exc:  # reported to the frame loop on its next write() or close()
                self._error = exc
        if not opened:
            return
        try:
            if self._error is None:
                for packet in self._stream.encode(None):
                    self._container.mux(packet)
        except Exception as exc:
            self._error = exc
        finally:
            try:
                self._container.close()  # the trailer: the index, moved to the front for .mp4
            except Exception as exc:
                if self._error is None:
                    self._error = exc
            self.writer_cpu = time.thread_time()

    def _takes(self, img: I420) -> bool:
        """Whether an I420 frame goes to the encoder as it is."""
        return self.codec.pix_fmt == "yuv420p" and img.size == self.size == self.padded

    def _i420_frame(self, data: np.ndarray):
        """An FFmpeg frame over an I420 buffer (``(h * 3 // 2, w)``), without a copy where PyAV allows one.

        PyAV's ``from_numpy_buffer`` takes the height as a multiple of 4 (``rows // 6 * 4``): a frame
        482 rows high would be encoded as 480 rows of luma with its chroma planes read two rows of
        luma too early (the colour smeared below what was drawn, a band of it at the top). Such a
        height is copied into a frame of the right size instead.
        """
        if data.shape[0] * 2 // 3 % 4 == 0:
            return self._av.VideoFrame.from_numpy_buffer(data, format="yuv420p")
        return self._av.VideoFrame.from_ndarray(data, format="yuv420p")

    def _to_frame(self, img: np.ndarray | I420):
        if isinstance(img, I420):
            return self._i420_frame(img.data)
        w, h = self.size
        bgr: np.ndarray = img
        if bgr.ndim == 2:
            bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
        if (bgr.shape[1], bgr.shape[0]) != (w, h):
            bgr = _letterbox(bgr, (w, h))
        pw, ph = self.padded
        if (pw, ph) != (w, h):
            bgr = cv2.copyMakeBorder(bgr, 0, ph - h, 0, pw - w, cv2.BORDER_REPLICATE)
        if self.codec.pix_fmt == "yuv420p" and pw % 2 == 0 and ph % 2 == 0:
            # OpenCV's converter is many times faster than swscale's here and releases the GIL; the frame's
            # planes are views of its output (no copy, at most heights), which lives as long as the frame.
            # It takes even sizes only: an odd-sized VP9 frame goes through swscale below
            frame = self._i420_frame(cv2.cvtColor(bgr, cv2.COLOR_BGR2YUV_I420))
        else:
            frame = self._av.VideoFrame.from_ndarray(np.ascontiguousarray(bgr), format="bgr24").reformat(
                format=self.codec.pix_fmt)
        return frame

    def __enter__(self) -> VideoSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# container formats named explicitly: the temporary name's extension is the target's, but say it anyway
_FORMAT = {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska", ".webm": "webm", ".avi": "avi"}


def _letterbox(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Scale to fit ``size`` keeping the aspect ratio, centred on black (photos of other sizes)."""
    w, h = size
    ih, iw = img.shape[:2]
    s = min(w / iw, h / ih)
    nw, nh = max(1, round(iw * s)), max(1, round(ih * s))
    out = np.zeros((h, w, 3), np.uint8)
    x, y = (w - nw) // 2, (h - nh) // 2
    out[y:y + nh, x:x + nw] = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    return out


class JsonlLog:
    """One JSON object a line, flushed line by line to ``.NAME.XXXXXXXX.part.jsonl`` and renamed into place
    on close (or straight into a FIFO, ``/dev/null``, stdout with ``-``: a log streamed as it runs).

    A run cut short by Ctrl-C or SIGTERM still renames the lines it has; the temporary file can be
    followed live with ``tail -f``. A run that failed (any other exception), or that logged no line,
    renames nothing: an earlier log under the name stays as it was.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.stdout = str(path) == STDOUT
        check_writable(self.path)
        self.tmp = self.path if self.stdout else temporary_for(self.path)
        self.streamed = self.tmp == self.path  # stdout, a FIFO or a device: never renamed or removed
        self.finalized = False
        self._error: OSError | None = None
        self._done = False  # closed or discarded (stdout itself is never closed)
        try:
            self.f: IO[str] = self._open()
        except (OSError, files.OutputError) as exc:
            if not self.streamed:
                files.discard(self.tmp)
            raise SinkError(f"{self.path}: cannot be written ({files.reason(exc)})") from exc
        self.lines = 0

    def _open(self) -> IO[str]:
        if self.stdout:
            return sys.stdout
        if self.streamed:
            return files.open_stream(self.path, "w", encoding="utf-8")  # a FIFO's reader waited for, stoppably
        return self.tmp.open("w", encoding="utf-8")

    @property
    def name(self) -> str:
        """How the closing line names the log."""
        return "stdout" if self.stdout else str(self.path)

    def write(self, obj: dict) -> None:
        if self._error is not None:
            raise self._failure()
        try:
            self.f.write(json.dumps(obj, separators=(",", ":")) + "\n")
            self.f.flush()  # one write(2) a line: cheap, and `tail -f` sees every frame
        except OSError as exc:
            self._error = exc
            raise self._failure() from exc
        self.lines += 1

    def _close_file(self) -> None:
        self._done = True
        if self.stdout:
            self.f.flush()  # stdout stays open for the rest of the command
        else:
            self.f.close()

    def close(self) -> None:
        """Close and rename into place; after a failed write the partial log is removed and SinkWriteError raised.

        A log without a line (the run stopped before its first frame) is removed: an earlier one stays."""
        if self._done:
            if self._error is not None:
                raise self._failure()
            return
        try:
            self._close_file()
        except OSError as exc:
            self._error = self._error or exc
        if self._error is None and not self.streamed and self._empty():
            self.discard()
            return
        if self._error is None:
            self._error = None if self.streamed else _rename_into_place(self.tmp, self.path)
            self.finalized = self._error is None
        if self._error is not None:
            if not self.streamed:
                files.discard(self.tmp)
            raise self._failure() from self._error

    def _empty(self) -> bool:
        """No line on disk. Asked of the file, not of ``lines``: a Ctrl-C that lands just after a line's
        flush, before it is counted, must not cost the log that line."""
        try:
            return self.tmp.stat().st_size == 0
        except OSError:
            return not self.lines

    def _failure(self) -> SinkWriteError:
        reason = files.reason(self._error) if self._error is not None else "unknown"
        return SinkWriteError(f"{self.path}: the log could not be written ({reason}); the partial file was removed")

    def discard(self) -> None:
        """Close and remove the partial log: nothing takes the real name (a streamed log is only closed)."""
        with contextlib.suppress(OSError):
            self._close_file()
        if not self.streamed:
            files.discard(self.tmp)

    def __enter__(self) -> JsonlLog:
        return self

    def __exit__(self, _type: object, exc: BaseException | None, _tb: object) -> None:
        """Renamed into place after a run that ended or was stopped; removed after one that failed, unless its
        failure was a recording that kept its playable frames (the log then describes them)."""
        failed = exc is not None and not isinstance(exc, KeyboardInterrupt)
        if failed and not (isinstance(exc, SinkWriteError) and exc.kept):
            self.discard()
            return
        self.close()
