"""Make the bundled demo video: printed puzzles moving under a camera-like homography.

    python scripts/make_sample_video.py                     # samples/demo.mp4, 1280x720, 9 s
    python scripts/make_sample_video.py --out /tmp/x.mp4 --seconds 30 --size 1280x720
    python scripts/make_sample_video.py --photo ../shared/data/sudoku-photos/printed/image1045.jpg --out /tmp/p.mp4

The clip has: empty table (0.5 s), a first puzzle sliding in, moving, rotating
and tilting, a hand-like blob passing over it, the page leaving, an empty
table, then a second, different puzzle coming in. The truth (grid corners and
givens per frame) is written beside it as JSONL, so tests and benchmarks can
measure corner error, lock time and the switch to the new puzzle.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.vision.synth import background, page, place, quad
from clips import frame_size

ROOT = Path(__file__).resolve().parents[1]


def smooth(a: float, b: float, t: float) -> float:
    t = min(1.0, max(0.0, t))
    return a + (b - a) * (1 - math.cos(math.pi * t)) / 2


# the timeline, in seconds: empty, slide in, handheld motion, leave, empty, second puzzle
T_IN, T_MOVE, T_LEAVE, T_GONE, T_SECOND = 0.5, 1.4, 6.0, 6.8, 7.2
HAND = (4.2, 5.2)


def _handheld(u: float, cx: float, cy: float, w: int, h: int, size: float):
    return ((cx + 0.12 * w * math.sin(u * 1.1), cy + 0.06 * h * math.sin(u * 1.5)),
            size * (1 + 0.12 * math.sin(u * 0.9)), 9 * math.sin(u * 1.0), 0.12 * math.sin(u * 0.8))


def trajectory(i: int, fps: float, w: int, h: int) -> tuple[int, tuple[float, float], float, float, float] | None:
    """Which puzzle (0/1) is where at frame i: (index, centre, size, angle, tilt), or None."""
    t = i / fps
    size = 0.62 * h
    cx, cy = w / 2, h / 2
    if t < T_IN or T_GONE <= t < T_SECOND:
        return None
    if t < T_MOVE:  # slide in from the right
        u = (t - T_IN) / (T_MOVE - T_IN)
        return 0, (smooth(w + size * 0.7, cx, u), cy), size, smooth(10, 0, u), 0.0
    if t < T_LEAVE:  # gentle handheld motion
        c, sz, ang, tilt = _handheld(t - T_MOVE, cx, cy, w, h, size)
        return 0, c, sz, ang, tilt
    if t < T_GONE:  # leave to the left
        c, sz, ang, tilt = _handheld(T_LEAVE - T_MOVE, cx, cy, w, h, size)
        u = (t - T_LEAVE) / (T_GONE - T_LEAVE)
        return 0, (smooth(c[0], -size * 0.8, u), c[1]), sz, ang, tilt
    u = (t - T_SECOND) / 0.8  # a second puzzle comes in from the bottom and stays
    return 1, (cx + 40 * math.sin(t), smooth(h + size * 0.8, cy, u)), size * 0.95, -6 + 3 * math.sin(t), -0.08


def hand(frame: np.ndarray, i: int, fps: float) -> None:
    """A skin-coloured blob crossing part of the puzzle."""
    t = i / fps
    if not HAND[0] <= t <= HAND[1]:
        return
    h, w = frame.shape[:2]
    u = (t - HAND[0]) / (HAND[1] - HAND[0])
    x = int(w * (1.1 - 0.6 * u))
    y = int(h * 0.62)
    cv2.ellipse(frame, (x, y), (int(0.09 * w), int(0.07 * h)), -20, 0, 360, (120, 150, 205), -1)
    cv2.rectangle(frame, (x, y - int(0.05 * h)), (w, y + int(0.06 * h)), (115, 145, 200), -1)


def photo_clip(photo: Path, out: Path, size: tuple[int, int], fps: float, seconds: float) -> int:
    """A real photo (with its .dat and outlines.csv truth) moved, turned and motion-blurred."""
    import csv

    img = cv2.imread(str(photo))
    if img is None:
        print(f"{photo}: not an image", file=sys.stderr)
        return 2
    lines = photo.with_suffix(".dat").read_text().splitlines()[2:11]
    givens = "".join(t for ln in lines for t in ln.split()).replace("0", ".")
    corners = None
    with (photo.parent.parent / "outlines.csv").open() as f:
        for row in csv.DictReader(f):
            if Path(row["filepath"]).name == photo.name:
                corners = np.float32([[float(row[f"p{k}_x"]), float(row[f"p{k}_y"])] for k in range(1, 5)])
    w, h = size
    ih, iw = img.shape[:2]
    scale = min(w / iw, h / ih) * 0.8
    n = int(seconds * fps)
    truth_path = out.with_suffix(".truth.jsonl")
    with VideoSink(out, size, fps) as sink, truth_path.open("w") as truth:
        for i in range(n):
            t = i / fps
            m = cv2.getRotationMatrix2D((iw / 2, ih / 2), 6 * math.sin(t * 1.3), scale * (1 + 0.06 * math.sin(t * 0.9)))
            m[0, 2] += w / 2 + 50 * math.sin(t * 1.1) - iw / 2
            m[1, 2] += h / 2 + 25 * math.sin(t * 1.7) - ih / 2
            frame = cv2.warpAffine(img, m, size, borderValue=(60, 60, 60))
            k = 1 + int(abs(4 * math.cos(t * 1.1)))  # motion blur along the motion
            if k > 1:
                kernel = np.zeros((k, k), np.float32)
                kernel[k // 2, :] = 1.0 / k
                frame = cv2.filter2D(frame, -1, kernel)
            sink.write(frame)
            q = None if corners is None else (corners @ m[:, :2].T + m[:, 2]).round(2).tolist()
            truth.write(json.dumps({"frame": i, "corners": q, "givens": givens, "visible": q is not None}) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB, {n} frames) and {truth_path}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "samples" / "demo.mp4")
    ap.add_argument("--size", type=frame_size, default="1280x720", help="WxH of the video")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seconds", type=float, default=9.0)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--photo", type=Path, help="animate a shared photo (with .dat and outlines.csv) instead")
    args = ap.parse_args()
    w, h = args.size
    if args.photo:
        return photo_clip(args.photo, args.out, (w, h), args.fps, min(args.seconds, 5.0))
    puzzles = [generate("medium", seed=args.seed).puzzle, generate("hard", seed=args.seed + 1).puzzle]
    pages = [page(p, seed=k) for k, p in enumerate(puzzles)]
    back = background((w, h), args.seed)
    rng = np.random.default_rng(args.seed)
    truth_path = args.out.with_suffix(".truth.jsonl")
    n = int(args.seconds * args.fps)
    with VideoSink(args.out, (w, h), args.fps) as sink, truth_path.open("w") as truth:
        for i in range(n):
            pose = trajectory(i, args.fps, w, h)
            if pose is None:
                frame = back.copy()
                rec = {"frame": i, "corners": None, "givens": None, "visible": False}
            else:
                k, center, size, angle, tilt = pose
                q = quad(center, size, angle, tilt)
                img, corners = pages[k]
                frame = place(img, corners, q, back, blur=0.7)
                inside = bool((q[:, 0] >= 0).all() and (q[:, 0] < w).all() and (q[:, 1] >= 0).all()
                              and (q[:, 1] < h).all())
                rec = {"frame": i, "corners": q.round(2).tolist(), "givens": puzzles[k], "visible": inside}
            hand(frame, i, args.fps)
            noise = rng.normal(0, 1.2, frame.shape).astype(np.int16)
            frame = np.clip(frame.astype(np.int16) + noise, 0, 255).astype(np.uint8)
            sink.write(frame)
            truth.write(json.dumps(rec) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB, {n} frames) and {truth_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
