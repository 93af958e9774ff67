"""Frame sources: a camera, a video file, one photo or a folder of photos, as one iterable.

``open_source("0" | "clip.mp4" | "photo.jpg" | "photos/")`` checks the source
at once and raises :class:`SourceError` with a one-line reason, so the caller
never starts a loop on something that cannot deliver. A file is read in order,
every frame; a camera keeps only the newest frame (a background grabber drops
the rest and counts them), so a slow frame never leaves the picture lagging.
"""

from __future__ import annotations

import contextlib
import importlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError
from ar_sudoku.io.images import ImageError, TooManyPixels, read_image
from ar_sudoku.io.threads import lower_priority
from ar_sudoku.vision.yuv import I420

IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(ArSudokuError, RuntimeError):
    """A source that cannot be opened or that failed mid-stream."""


@dataclass(frozen=True)
class SourceInfo:
    kind: str  # camera | video | images
    width: int
    height: int
    fps: float
    frames: int | None  # None when unknown (a camera)
    name: str


class FrameSource:
    """Iterate frames; use as a context manager so a camera is always released."""

    info: SourceInfo
    dropped: int = 0
    lost: int = 0  # frames of a file that could not be decoded (a damaged stretch), known once it is read

    def __iter__(self) -> Iterator[np.ndarray]:
        raise NotImplementedError

    def prepared(self, prepare: Callable[[np.ndarray], Any]) -> Iterator[Any]:
        """Each frame passed through ``prepare`` (undistortion, the working-size grey), here on the
        caller's thread; a video file does it on its decoder thread, ahead of the loop."""
        return map(prepare, self)

    def close(self) -> None:
        """Release the device or file."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_END = object()


class _DecodedAhead(FrameSource):
    """Frames decoded ahead on one background thread, at a lower priority than the frame loop.

    The decoder runs on that thread alone (no frame threads of its own): on two cores the
    decoding runs beside the frame loop rather than on top of it, and when the cores are
    shared, the loop's work (``ARSession.step``) goes first and the decoder takes what is
    left, so a 4K stream's decoding does not stretch the loop's time per frame. Subclasses
    open the file (and decode the first frame, so a bad file fails at once) and ``_read()``.
    """

    AHEAD = 2  # frames decoded ahead of the loop

    def _start(self, first: np.ndarray | I420, info: SourceInfo) -> None:
        self.first: np.ndarray | I420 | None = first
        self.info = info
        self.read_count = 0
        self._queue: queue.Queue[object] = queue.Queue(maxsize=self.AHEAD)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._prepare: Callable[[Any], Any] | None = None

    def _read(self) -> np.ndarray | I420 | None:
        """The next frame, or None at the end."""
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError

    def prepared(self, prepare: Callable[[Any], Any]) -> Iterator[Any]:
        """Frames through ``prepare`` on the decoder thread: the loop gets them ready, and the
        per-frame work that needs no state (a 4K frame's working grey) overlaps it."""
        if self._thread is not None:
            raise RuntimeError("prepared() must be called before the frames are read")
        self._prepare = prepare
        return iter(self)

    def _decode(self) -> None:
        lower_priority()
        try:
            while not self._stop.is_set():
                frame = self._read()
                item: object = _END if frame is None else frame
                if item is not _END and self._prepare is not None:
                    item = self._prepare(frame)
                while not self._stop.is_set():
                    try:
                        self._queue.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if item is _END:
                    return
        except BaseException as exc:  # handed to the loop, raised there
            self._queue.put(exc)

    def __iter__(self) -> Iterator[Any]:
        if self.first is not None:
            frame, self.first = self.first, None
            self.read_count = 1
            first = frame if self._prepare is None else self._prepare(frame)
            if self._thread is None:
                self._thread = threading.Thread(target=self._decode, name="ar-sudoku-decoder", daemon=True)
                self._thread.start()
            yield first
        if self._thread is None:
            return
        while True:
            item = self._queue.get()
            if item is _END:
                self._queue.put(_END)  # a second iteration ends at once too
                return
            if isinstance(item, BaseException):
                raise SourceError(f"{self.info.name}: decoding failed ({item})") from item
            self.read_count += 1
            yield item

    @property
    def truncated(self) -> bool:
        """True when the stream ended well before the frame count its header promised."""
        return self.info.frames is not None and self.read_count < 0.9 * self.info.frames

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            while self._thread.is_alive():  # the decoder may be waiting on a full queue
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()
                self._thread.join(timeout=0.05)
        self._release()


def _check_file(path: Path) -> None:
    if not path.exists():
        raise SourceError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise SourceError(f"{path}: empty file (0 bytes), not a video")


def _info(path: Path, width: int, height: int, fps: float, count: int) -> SourceInfo:
    return SourceInfo("video", width, height, fps if 1 <= fps <= 240 else 30.0, count or None, str(path))


class VideoFileSource(_DecodedAhead):
    """A video file decoded by OpenCV into BGR frames (turned upright by the file's rotation tag)."""

    def __init__(self, path: Path):
        from ar_sudoku.io.files import opencv_path

        _check_file(path)
        with opencv_path(path) as name:  # OpenCV crashes on a file name that is not valid UTF-8
            self.cap = cv2.VideoCapture(name, cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, 1])
            if not self.cap.isOpened():  # another backend, perhaps
                self.cap.release()
                self.cap = cv2.VideoCapture(name)
        if not self.cap.isOpened():
            raise SourceError(f"{path}: not a video OpenCV can read (corrupt or unknown format)")
        first = self._read()
        if first is None:
            self.cap.release()
            raise SourceError(f"{path}: no frame could be decoded (corrupt or empty video)")
        fps = self.cap.get(cv2.CAP_PROP_FPS) or 0.0
        count = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._start(first, _info(path, first.shape[1], first.shape[0], fps, count))

    def _read(self) -> np.ndarray | None:
        ok, frame = self.cap.read()
        return frame if ok and frame is not None else None

    def _release(self) -> None:
        self.cap.release()


class I420VideoSource(_DecodedAhead):
    """A video file decoded by PyAV, each frame kept as :class:`~ar_sudoku.vision.yuv.I420`, as decoded.

    For a headless recording, where no frame needs BGR: the BGR conversion here and the one back
    in the encoder's writer are both saved (``vision/yuv.py``). A stream in another pixel format,
    of odd size, or tagged to be rotated gives BGR frames (upright) instead.
    """

    def __init__(self, path: Path):
        _check_file(path)
        import av  # FFmpeg, which a recording loads anyway

        self._av = av
        try:
            self.container = av.open(str(path))
        except (av.error.FFmpegError, OSError, UnicodeDecodeError) as exc:
            raise SourceError(f"{path}: not a video FFmpeg can read (corrupt or unknown format)") from exc
        if not self.container.streams.video:
            self.container.close()
            raise SourceError(f"{path}: has no video stream")
        self.stream = self.container.streams.video[0]
        self.stream.codec_context.thread_count = 1
        self._frames = self._decoded()
        first = self._read()
        if first is None:
            self.container.close()
            raise SourceError(f"{path}: no frame could be decoded (corrupt or empty video)")
        rate = self.stream.average_rate or self.stream.guessed_rate
        fps = float(rate) if rate else 0.0
        count = self.stream.frames
        if not count and fps:  # Matroska and WebM give a duration (the stream's or the file's), no count
            if self.stream.duration and self.stream.time_base:
                count = round(float(self.stream.duration * self.stream.time_base) * fps)
            elif self.container.duration:
                count = round(self.container.duration / av.time_base * fps)
        self._start(first, _info(path, first.shape[1], first.shape[0], fps, count))

    def _decoded(self) -> Iterator[Any]:
        """Every frame the file gives; each packet should give one, so those that did not are counted lost."""
        av = self._av
        packets = frames = 0
        try:
            for packet in self.container.demux(self.stream):
                packets += packet.size > 0  # the last, empty one only flushes the decoder
                try:
                    decoded = packet.decode()
                except av.error.InvalidDataError:
                    continue  # a damaged packet is skipped, as players do (and counted)
                frames += len(decoded)
                yield from decoded
        except av.error.FFmpegError:
            return  # the file ends early or breaks off: ``truncated`` tells
        self.lost = max(0, packets - frames)

    def _read(self) -> np.ndarray | I420 | None:
        frame = next(self._frames, None)
        if frame is None:
            return None
        turn = (frame.rotation or 0) % 360 // 90  # quarter turns counter-clockwise
        if frame.format.name == "yuv420p" and not turn and frame.width % 2 == 0 and frame.height % 2 == 0:
            return I420(frame.to_ndarray())
        image = frame.to_ndarray(format="bgr24")
        return np.ascontiguousarray(np.rot90(image, turn)) if turn else image

    def _release(self) -> None:
        with contextlib.suppress(Exception):  # closing a broken file must not hide why the run ended
            self.container.close()


class ImagesSource(FrameSource):
    """Photos, each its own frame; one declaring more than ``max_pixels`` is refused before it is decoded.

    A photo that cannot be read (or is too large) is left out and kept in ``skipped`` with why, so the
    run can say so; the first readable one sets the size. None readable: :class:`SourceError`.
    """

    def __init__(self, paths: list[Path], name: str, max_pixels: int | None = None):
        if not paths:
            raise SourceError(f"{name}: no images found (looked for {', '.join(sorted(IMAGE_EXT))})")
        self.max_pixels = max_pixels
        self.skipped: list[str] = []  # "path: why", in order
        first = None
        for k, path in enumerate(paths):
            first = self._read(path)
            if first is not None:
                self.paths = paths[k + 1:]
                self._first: np.ndarray | None = first
                break
        if first is None:
            raise SourceError(self.skipped[0] if len(paths) == 1 else
                              f"{name}: none of its {len(paths)} photos could be read ({self.skipped[0]})")
        h, w = first.shape[:2]
        self.info = SourceInfo("images", w, h, 1.0, len(paths) - len(self.skipped), name)

    def _read(self, path: Path) -> np.ndarray | None:
        """The photo, or None with the reason kept in ``skipped``."""
        try:
            return read_image(path, max_pixels=self.max_pixels).image
        except TooManyPixels as exc:
            self.skipped.append(f"{path}: {exc} (--max-pixels N reads it)")
        except ImageError as exc:
            self.skipped.append(f"{path}: {exc}")
        return None

    def __iter__(self) -> Iterator[np.ndarray]:
        first, self._first = self._first, None
        if first is not None:
            yield first
        for p in self.paths:
            img = self._read(p)
            if img is not None:
                yield img


class CameraSource(FrameSource):
    """A webcam read on a grabber thread; iteration yields only the newest frame."""

    WARMUP_FRAMES = 5  # many webcams deliver black or half-exposed frames first

    def __init__(self, index: int, width: int | None = None, height: int | None = None):
        self.cap = cv2.VideoCapture(index)
        if not self.cap.isOpened():
            self.cap.release()
            raise SourceError(f"camera {index} could not be opened (none there, or in use); "
                              "try another --camera N, or a video: ar-sudoku video samples/demo.mp4")
        if width and height:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        frame = None
        for _ in range(self.WARMUP_FRAMES + 1):
            ok, frame = self.cap.read()
            if not ok:
                self.cap.release()
                raise SourceError(f"camera {index} opened but delivers no frames")
        assert frame is not None
        h, w = frame.shape[:2]
        fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.info = SourceInfo("camera", w, h, fps if 1 <= fps <= 240 else 30.0, None, f"camera {index}")
        self._latest: np.ndarray | None = frame
        self._fresh = threading.Event()
        self._fresh.set()
        self._stop = threading.Event()
        self._failed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._grab, name="ar-sudoku-camera", daemon=True)
        self._thread.start()

    def _grab(self) -> None:
        while not self._stop.is_set():
            ok, frame = self.cap.read()
            if not ok:
                self._failed = True
                self._fresh.set()
                return
            with self._lock:
                if self._fresh.is_set():
                    self.dropped += 1  # the previous one was never taken
                self._latest = frame
                self._fresh.set()

    def __iter__(self) -> Iterator[np.ndarray]:
        while not self._stop.is_set():
            if not self._fresh.wait(timeout=2.0):
                raise SourceError(f"{self.info.name} stopped delivering frames (unplugged?)")
            with self._lock:
                frame, self._latest = self._latest, None
                self._fresh.clear()
            if frame is None:
                if self._failed:
                    raise SourceError(f"{self.info.name} stopped delivering frames (unplugged?)")
                continue
            yield frame

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.cap.release()


def check_source(spec: str | int) -> None:
    """Refuse at once a source that is plainly missing (before any slow start-up work)."""
    if isinstance(spec, int) or spec.isdigit():
        return
    path = Path(spec)
    if not path.exists():
        raise SourceError(f"{path}: no such file")
    if path.is_file() and path.suffix.lower() not in IMAGE_EXT:
        _check_file(path)  # an empty video file


def load_ffmpeg_ahead() -> None:
    """Import PyAV (FFmpeg's libraries, a noticeable load) on a thread of its own.

    Start-up has one long wait that releases the GIL: the solver process starting.
    Loading FFmpeg meanwhile takes it off the path to the first frame; whoever imports ``av``
    next waits only for what is left.
    """
    threading.Thread(target=importlib.import_module, args=("av",), name="ar-sudoku-load-ffmpeg", daemon=True).start()


def _pyav_reads_turns() -> bool:
    """Whether this PyAV tells each frame's rotation tag (older ones do not: OpenCV, which turns phone
    videos upright, decodes for them instead)."""
    import av

    return hasattr(av.VideoFrame, "rotation")


def open_source(spec: str | int, i420: bool = False, max_pixels: int | None = None) -> FrameSource:
    """A camera index (``0``), a video file, an image file, or a folder of images.

    ``i420``: a video file's frames may come as :class:`~ar_sudoku.vision.yuv.I420` (a headless
    recording's, which need no BGR); every other source gives BGR. ``max_pixels``: a larger photo
    (judged from its header) or video frame is refused.
    """
    check_source(spec)
    if isinstance(spec, int) or spec.isdigit():
        return CameraSource(int(spec))
    path = Path(spec)
    if path.is_dir():
        images = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_EXT)
        return ImagesSource(images, str(path), max_pixels)
    if path.suffix.lower() in IMAGE_EXT:
        return ImagesSource([path], str(path), max_pixels)
    source = I420VideoSource(path) if i420 and _pyav_reads_turns() else VideoFileSource(path)
    if max_pixels is not None and source.info.width * source.info.height > max_pixels:
        source.close()
        raise SourceError(f"{path}: its {source.info.width}×{source.info.height} frames are more than the "
                          f"{max_pixels / 1e6:g} MP read (--max-pixels N reads them)")
    return source


def wait_fps(last: float, fps: float) -> float:
    """Sleep to pace a file at its own rate (for on-screen playback); returns the new time."""
    now = time.perf_counter()
    delay = 1.0 / fps - (now - last)
    if delay > 0:
        time.sleep(delay)
    return time.perf_counter()
