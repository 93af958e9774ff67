"""Calibration files: OpenCV FileStorage YAML, saved where the user says and found by name.

A bare name (``--calibration webcam``) is looked up in ``./calibration/`` (the
project's folder, when run from a clone) and then in the user folder
``$XDG_CONFIG_HOME/ar-sudoku/calibration`` (``~/.config/ar-sudoku/calibration``).
New calibrations go to ``./calibration/`` when it exists, else to the user folder.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.vision.camera import Calibration, CalibrationError


def user_calibration_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ar-sudoku" / "calibration"


def default_calibration_dir() -> Path:
    """Where a new calibration goes when the user names no folder."""
    local = Path("calibration")
    return local if local.is_dir() else user_calibration_dir()


def save_calibration(path: Path, cal: Calibration) -> None:
    """Write the YAML atomically; OpenCV builds it in memory (it cannot open every file name)."""
    from ar_sudoku.io import files

    fs = cv2.FileStorage(".yaml", cv2.FILE_STORAGE_WRITE | cv2.FILE_STORAGE_MEMORY)
    fs.write("kind", "ar-sudoku camera calibration")
    fs.write("camera_matrix", cal.camera_matrix)
    fs.write("distortion_coefficients", cal.dist)
    fs.write("image_width", int(cal.image_size[0]))
    fs.write("image_height", int(cal.image_size[1]))
    fs.write("rms", float(cal.rms))
    fs.write("views", int(cal.views))
    fs.write("date", cal.date or _dt.datetime.now().isoformat(timespec="seconds"))
    files.check_output(path)  # OutputError (exit 2) for a bad place, WriteError (1) when the write fails
    files.write_text(path, fs.releaseAndGetString())


def load_calibration(path: Path) -> Calibration:
    if not path.is_file():
        raise CalibrationError(f"{path}: no such calibration file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot be read ({exc.strerror})") from exc
    head = data[:64].lstrip()
    if not (head.startswith(b"%YAML") or head.startswith(b"<?xml")):
        raise CalibrationError(f"{path}: not a calibration file (not OpenCV YAML/XML)")
    try:  # parsed from memory: OpenCV cannot open every file name
        fs = cv2.FileStorage(data.decode("utf-8"), cv2.FILE_STORAGE_READ | cv2.FILE_STORAGE_MEMORY)
    except (cv2.error, SystemError, UnicodeDecodeError) as exc:  # OpenCV's parser reports some bad files as SystemError
        raise CalibrationError(f"{path}: not a calibration file (not OpenCV YAML/XML)") from exc
    try:
        if not fs.isOpened():
            raise CalibrationError(f"{path}: not a calibration file (not OpenCV YAML/XML)")
        k = fs.getNode("camera_matrix").mat()
        d = fs.getNode("distortion_coefficients").mat()
        w = fs.getNode("image_width").real()
        h = fs.getNode("image_height").real()
        if k is None or d is None or k.shape != (3, 3) or not w or not h:
            raise CalibrationError(f"{path}: not a calibration file (no camera_matrix, distortion "
                                   "coefficients and image size)")
        return Calibration(k.astype(np.float64), d.reshape(1, -1).astype(np.float64), (int(w), int(h)),
                           float(fs.getNode("rms").real()), int(fs.getNode("views").real()),
                           fs.getNode("date").string())
    finally:
        fs.release()


def calibration_path(name_or_path: str) -> Path:
    """A file path as given, or ``NAME.yaml`` in ``./calibration/`` or the user folder."""
    p = Path(name_or_path)
    if p.suffix.lower() in (".yaml", ".yml", ".xml", ".json") or p.exists():
        return p
    candidates = [Path("calibration") / f"{name_or_path}.yaml", user_calibration_dir() / f"{name_or_path}.yaml"]
    for c in candidates:
        if c.is_file():
            return c
    raise CalibrationError(f"no calibration named {name_or_path!r} (looked in "
                           f"{', '.join(str(c.parent) for c in candidates)}); give a path or run "
                           "ar-sudoku calibrate first")


def load_named(name_or_path: str) -> Calibration:
    """For ``--calibration NAME|PATH`` on the commands."""
    return load_calibration(calibration_path(name_or_path))
