"""Camera calibration: find chessboard views, calibrate, and undistort frames (files: ``io.calibration``).

A calibration is an OpenCV FileStorage YAML (camera matrix, distortion
coefficients, image size, RMS reprojection error, number of views, date).
Frames are undistorted with maps computed once (``initUndistortRectifyMap``)
and applied with ``remap``, the cheap way to do it every frame. A file made at
another resolution is scaled when the aspect ratio matches, and refused when
it does not.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from ar_sudoku.errors import ArSudokuError

MIN_VIEWS = 8
MAX_RMS = 1.5  # pixels; a good webcam calibration is well under 1


class CalibrationError(ArSudokuError, ValueError):
    """A calibration that cannot be made or used; the message says why."""


@dataclass(frozen=True)
class Calibration:
    camera_matrix: np.ndarray  # 3x3
    dist: np.ndarray  # (1, N)
    image_size: tuple[int, int]  # (w, h)
    rms: float
    views: int
    date: str = ""
    note: str = ""  # e.g. "scaled from 1280x720"

    def scaled(self, size: tuple[int, int]) -> Calibration:
        """The same camera at another resolution of the same aspect ratio."""
        w0, h0 = self.image_size
        w, h = size
        if (w, h) == (w0, h0):
            return self
        if abs(w / h - w0 / h0) > 0.01:
            raise CalibrationError(
                f"the calibration was made at {w0}x{h0} but the frames are {w}x{h} (another aspect "
                "ratio); calibrate again at this resolution")
        k = self.camera_matrix.copy()
        k[0, :] *= w / w0
        k[1, :] *= h / h0
        return Calibration(k, self.dist, (w, h), self.rms, self.views, self.date,
                           f"scaled from {w0}x{h0} to {w}x{h}")

    def undistorter(self, size: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
        """A function that undistorts frames of ``size`` with precomputed maps."""
        cal = self.scaled(size)
        map1, map2 = cv2.initUndistortRectifyMap(cal.camera_matrix, cal.dist, None, cal.camera_matrix,
                                                 size, cv2.CV_16SC2)

        def undistort(frame: np.ndarray) -> np.ndarray:
            return cv2.remap(frame, map1, map2, cv2.INTER_LINEAR)

        return undistort

    def undistort_image(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        return self.undistorter((w, h))(image)

    def undistort_points(self, pts: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Pixel points without lens distortion (cheaper than a whole frame, for corners only)."""
        cal = self.scaled(size)
        p = np.asarray(pts, np.float32).reshape(-1, 1, 2)
        return cv2.undistortPoints(p, cal.camera_matrix, cal.dist, P=cal.camera_matrix).reshape(-1, 2)


# --------------------------------------------------------------------------- making one


def parse_pattern(text: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise CalibrationError(f"--pattern {text}: expected inner corners as COLSxROWS, e.g. 9x6") from exc
    if cols < 3 or rows < 3:
        raise CalibrationError(f"--pattern {text}: at least 3x3 inner corners")
    return cols, rows


def board_points(pattern: tuple[int, int], square: float) -> np.ndarray:
    cols, rows = pattern
    obj = np.zeros((cols * rows, 3), np.float32)
    obj[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square
    return obj


def find_board(gray: np.ndarray, pattern: tuple[int, int]) -> np.ndarray | None:
    """Chessboard inner corners refined to sub-pixel, or None."""
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
    ok, corners = cv2.findChessboardCorners(gray, pattern, flags)
    if not ok:
        return None
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
    return cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1), crit)


def view_differs(corners: np.ndarray, taken: list[np.ndarray], size: tuple[int, int],
                 min_shift: float = 0.05) -> bool:
    """A new view is worth keeping if the board moved or tilted enough from every view taken."""
    c = corners.reshape(-1, 2)
    diag = float(np.hypot(*size))
    return all(float(np.abs(c - t.reshape(-1, 2)).mean()) >= min_shift * diag for t in taken)


def calibrate(views: list[np.ndarray], pattern: tuple[int, int], square: float, size: tuple[int, int],
              min_views: int = MIN_VIEWS, max_rms: float = MAX_RMS) -> Calibration:
    if len(views) < min_views:
        raise CalibrationError(f"only {len(views)} chessboard views found; at least {min_views} are needed "
                               "(show the board in more positions and tilts)")
    obj = [board_points(pattern, square)] * len(views)
    rms, k, d, _, _ = cv2.calibrateCamera(obj, views, size, None, None)
    if not np.isfinite(rms) or rms > max_rms:
        raise CalibrationError(f"RMS reprojection error {rms:.2f} px is above {max_rms} px: the views are "
                               "blurred or the --pattern is wrong; not saved")
    return Calibration(k, d.reshape(1, -1), size, float(rms), len(views),
                       _dt.datetime.now().isoformat(timespec="seconds"))


def chessboard_image(pattern: tuple[int, int], square_px: int = 80, margin: int = 60) -> np.ndarray:
    """A printable board with ``pattern`` inner corners (one more square each way)."""
    cols, rows = pattern[0] + 1, pattern[1] + 1
    img = np.full((rows * square_px + 2 * margin, cols * square_px + 2 * margin), 255, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                y, x = margin + r * square_px, margin + c * square_px
                img[y : y + square_px, x : x + square_px] = 0
    return img
