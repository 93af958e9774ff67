"""Outputs that must always be finalized: the annotated video and the JSONL log.

Both are context managers: leaving the ``with`` block by any road (the end,
Ctrl-C, an exception, a camera that died) releases the writer, so the video
file is playable and the log holds every line written so far.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError

FOURCC = {".mp4": "mp4v", ".m4v": "mp4v", ".mov": "mp4v", ".avi": "MJPG", ".mkv": "MJPG"}


class SinkError(ArSudokuError, RuntimeError):
    """An output that cannot be written."""


def check_writable(path: Path, kinds: dict[str, str] | None = None) -> None:
    if kinds is not None and path.suffix.lower() not in kinds:
        raise SinkError(f"{path}: unsupported extension; use one of {', '.join(sorted(kinds))}")
    if not path.parent.exists():
        raise SinkError(f"{path}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise SinkError(f"{path}: is a folder")


class VideoSink:
    """``with VideoSink(path, (w, h), fps) as sink: sink.write(frame)``."""

    def __init__(self, path: str | Path, size: tuple[int, int], fps: float):
        self.path = Path(path)
        check_writable(self.path, FOURCC)
        self.size = size
        fourcc = cv2.VideoWriter_fourcc(*FOURCC[self.path.suffix.lower()])
        self.writer = cv2.VideoWriter(str(self.path), fourcc, float(fps), size)
        if not self.writer.isOpened():
            raise SinkError(f"{self.path}: cannot be written (permissions, disk, or codec)")
        self.frames = 0

    def write(self, frame: np.ndarray) -> None:
        if (frame.shape[1], frame.shape[0]) != self.size:
            frame = cv2.resize(frame, self.size)
        self.writer.write(frame)
        self.frames += 1

    def close(self) -> None:
        if self.writer is not None:
            self.writer.release()

    def __enter__(self) -> VideoSink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class JsonlLog:
    """One JSON object a line, flushed as it goes so an interrupted run keeps its lines."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        check_writable(self.path)
        try:
            self.f: IO[str] = self.path.open("w", encoding="utf-8")
        except OSError as exc:
            raise SinkError(f"{self.path}: cannot be written ({exc.strerror})") from exc
        self.lines = 0

    def write(self, obj: dict) -> None:
        self.f.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self.lines += 1
        if self.lines % 30 == 0:
            self.f.flush()

    def close(self) -> None:
        self.f.close()

    def __enter__(self) -> JsonlLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
