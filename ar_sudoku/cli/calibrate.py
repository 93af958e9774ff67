"""``ar-sudoku calibrate``: chessboard views in, ``NAME.yaml`` out (where: ``io.calibration``)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

import cv2

from ar_sudoku.cli.common import EXIT_OK, EXIT_UNSOLVED, CliError, help_format, write_image


def run(args: argparse.Namespace) -> int:
    from ar_sudoku.io.calibration import default_calibration_dir
    from ar_sudoku.io.files import OutputError, check_output, ensure_folder
    from ar_sudoku.io.sources import SourceError, open_source
    from ar_sudoku.vision.camera import CalibrationError, chessboard_image, parse_pattern

    try:
        pattern = parse_pattern(args.pattern)
    except CalibrationError as exc:
        raise CliError(str(exc)) from exc
    if args.print_board:
        out = Path(args.print_board)
        write_image(out, chessboard_image(pattern))
        print(f"wrote {out}: print it flat (no scaling), measure a square, pass --square MM")
        return EXIT_OK
    if args.source is None:
        raise CliError("give --source 0|VIDEO|FOLDER (or --print-board OUT.png)")
    if args.square <= 0:
        raise CliError("--square must be positive (the side of one square, e.g. in mm)")
    if not args.name or args.name in (".", "..") or "/" in args.name or os.sep in args.name \
            or (os.altsep and os.altsep in args.name):
        raise CliError(f"--name {args.name}: give a plain name (no folders; choose the folder with --out-dir)")
    out_dir = Path(args.out_dir) if args.out_dir else default_calibration_dir()
    path = out_dir / f"{args.name}.yaml"
    try:  # a folder that cannot be written fails now, not after the views are taken
        if args.out_dir:
            ensure_folder(out_dir)  # as image --out-dir: made inside a folder that exists, never a tree
        else:
            out_dir.mkdir(parents=True, exist_ok=True)  # the default place, made as a configuration folder is
        check_output(path)
    except OSError as exc:
        raise CliError(f"{out_dir}: cannot be made ({exc.strerror}); choose a folder with --out-dir") from exc
    except OutputError as exc:
        raise CliError(f"{exc}; choose a folder with --out-dir") from exc
    live = args.source.isdigit()
    try:
        source = open_source(args.source)
    except SourceError as exc:
        raise CliError(str(exc)) from exc
    size = (source.info.width, source.info.height)
    stop: KeyboardInterrupt | None = None
    with source:
        try:
            views = _take_views(source, args, pattern, size, window=_window(args, live))
        except _Stopped as exc:
            views, stop = exc.views, exc.signal
        except SourceError as exc:  # a camera unplugged, a stream broken mid-way: no answer (1)
            raise CliError(str(exc), EXIT_UNSOLVED) from exc
    return _calibrate_and_save(views, pattern, size, path, args, stop)


class _Stopped(Exception):  # noqa: N818 - a signal that ended the collection, with what it had collected
    def __init__(self, views: list, signal: KeyboardInterrupt):
        super().__init__()
        self.views, self.signal = views, signal


def _window(args: argparse.Namespace, live: bool):
    """The window that shows a camera's views, unless headless (or the source is a file)."""
    if not live or args.headless:
        return None
    from ar_sudoku.io.window import Window, WindowError

    try:
        return Window("ar-sudoku calibrate")
    except WindowError as exc:
        raise CliError(str(exc)) from exc


def _take_views(source, args: argparse.Namespace, pattern: tuple[int, int], size: tuple[int, int], window) -> list:
    """The chessboard views found (frames of a video or camera must differ; photos were chosen); a Ctrl-C or
    SIGTERM ends the collection as :class:`_Stopped`, holding the views taken."""
    from ar_sudoku.vision.camera import find_board, view_differs
    from ar_sudoku.vision.quads import to_gray

    views: list = []
    try:
        for frame in source:
            gray = to_gray(frame)
            if (gray.shape[1], gray.shape[0]) != size:
                continue  # a folder with mixed sizes: keep the first size only
            corners = find_board(gray, pattern)
            if corners is not None and (source.info.kind == "images" or view_differs(corners, views, size)):
                views.append(corners)
                print(f"view {len(views)} taken", file=sys.stderr)
            if window is not None:
                shown = frame.copy()
                if corners is not None:
                    cv2.drawChessboardCorners(shown, pattern, corners, True)
                cv2.putText(shown, f"views: {len(views)}/{args.views}  (q to finish)", (10, 30),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 255, 0), 2)
                window.show(shown)
                if window.poll(1) & 0xFF in (ord("q"), 27):
                    break
            if len(views) >= args.views:
                break
    except KeyboardInterrupt as exc:
        raise _Stopped(views, exc) from None
    finally:
        if window is not None:
            window.close()
    return views


def _calibrate_and_save(views: list, pattern: tuple[int, int], size: tuple[int, int], path: Path,
                        args: argparse.Namespace, stop: KeyboardInterrupt | None) -> int:
    """Calibrate from the views and write the file. Too few views or a poor fit: no answer (1), said in one
    line. Stopped by a signal: calibrated from the views taken when they are enough, and either way one
    line and 130 (Ctrl-C) or 128 + the signal's number."""
    from ar_sudoku.io.calibration import save_calibration
    from ar_sudoku.vision.camera import CalibrationError, calibrate

    code = EXIT_OK if stop is None else 128 + getattr(stop, "signum", signal.SIGINT)
    stopped = "interrupted" if code == 130 else "terminated"
    try:
        cal = calibrate(views, pattern, args.square, size, min_views=args.min_views, max_rms=args.max_rms)
        save_calibration(path, cal)
    except CalibrationError as exc:
        if stop is not None and len(views) < args.min_views:
            raise CliError(f"{stopped} after {len(views)} chessboard views (at least {args.min_views} are needed "
                           "to calibrate); nothing written", code) from exc
        if stop is not None:
            raise CliError(f"{stopped}; {exc}", code) from exc
        raise CliError(str(exc), EXIT_UNSOLVED) from exc
    fx, fy = cal.camera_matrix[0, 0], cal.camera_matrix[1, 1]
    print(f"RMS reprojection error {cal.rms:.3f} px from {cal.views} views at {size[0]}x{size[1]}; "
          f"fx {fx:.1f} fy {fy:.1f} k1 {cal.dist[0, 0]:.4f}")
    print(f"wrote {path}; use it with --calibration {args.name}")
    if stop is not None:
        print(f"ar-sudoku: {stopped}; calibrated from the {len(views)} views taken", file=sys.stderr)
    return code


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="calibrate a webcam from chessboard views (fixes lens distortion)",
        **help_format(
            "Find chessboard views in a camera, a video or a folder of photos, keep views that differ "
            "in position and tilt, calibrate, print the RMS reprojection error, and write "
            "NAME.yaml (in ./calibration when run from the project, else ~/.config/ar-sudoku/calibration; "
            "--out-dir to choose). Use it with --calibration NAME on live, video and image.",
            "  ar-sudoku calibrate --print-board board.png\n"
            "  ar-sudoku calibrate --source 0 --pattern 9x6 --square 25 --name webcam\n"
            "  ar-sudoku calibrate --source views/ --pattern 9x6 --name phone\n",
        ),
    )
    p.add_argument("--source", metavar="0|VIDEO|FOLDER")
    p.add_argument("--pattern", default="9x6", help="inner corners COLSxROWS (default 9x6)")
    p.add_argument("--square", type=float, default=25.0, help="side of a square, e.g. mm (default 25)")
    p.add_argument("--name", default="webcam", help="the file is NAME.yaml (default webcam)")
    p.add_argument("--out-dir", metavar="DIR", help="where to write it (default: ./calibration if that folder "
                   "exists, else ~/.config/ar-sudoku/calibration)")
    p.add_argument("--views", type=int, default=20, help="views to collect before calibrating (default 20)")
    p.add_argument("--min-views", type=int, default=8, help=argparse.SUPPRESS)
    p.add_argument("--max-rms", type=float, default=1.5, help=argparse.SUPPRESS)
    p.add_argument("--headless", action="store_true", help="no window, even for a camera")
    p.add_argument("--print-board", metavar="OUT.png", help="write a printable chessboard and stop")
    p.set_defaults(func=run)

