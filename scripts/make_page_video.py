"""Make a video that pans over a page of three puzzles (issue 24): each tracked, read and solved on its own.

    python scripts/make_page_video.py --out /tmp/page.mp4                   # 3 held-out photos, 1280x720, 12 s
    python scripts/make_page_video.py --out /tmp/p.mp4 --seconds 4 --size 960x540 --split train
    python scripts/eval_page_video.py /tmp/page.mp4                         # what the real CLI makes of it

The page is made as ``eval_page.py`` makes one: three photos of the printed sudoku-photos (different
puzzles, one side of the split by puzzle, seeded), each cut around its grid, scaled to one grid size and
set side by side on a newspaper-coloured canvas. A camera (a homography: a zoom, a slow roll, a little
tilt and hand shake) films it on a table:

  * close on the first puzzle (its neighbour half in view), then a pan across to the third;
  * a zoom out to the whole page, held: three puzzles in view at once;
  * a zoom in on the middle one and a pan back to the first.

So each puzzle comes into full view (some more than once), and moving from one to the next the camera
shows its neighbour where it was. The truth (each puzzle's corners on the frame, whether it is wholly in
view, its givens and solution) is written beside the video as ``.truth.jsonl``. Everything is seeded.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.sudoku.solver import parse_line, solve
from clips import frame_size
from eval_page import real_page, real_pages
from photos import DEFAULT_DIR, held_out_puzzles, load

TABLE = (70, 80, 90)  # BGR


def _smooth(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


# (time share, view centre as page share x, zoom: 1 = the whole page in view, >1 closer); linear between keys
KEYS = (
    (0.00, 0.17, 1.8),
    (0.10, 0.17, 1.8),
    (0.40, 0.83, 1.8),
    (0.47, 0.83, 1.8),
    (0.57, 0.50, 1.0),
    (0.75, 0.50, 1.0),
    (0.83, 0.50, 1.8),
    (0.88, 0.50, 1.8),
    (1.00, 0.17, 1.8),
)


def view_at(u: float) -> tuple[float, float]:
    """Where the camera looks (page share across) and how close, at share ``u`` of the clip."""
    for (t0, x0, z0), (t1, x1, z1) in zip(KEYS, KEYS[1:]):
        if t0 <= u <= t1:
            s = _smooth((u - t0) / max(1e-9, t1 - t0))
            return x0 + (x1 - x0) * s, z0 + (z1 - z0) * s
    return KEYS[-1][1], KEYS[-1][2]


def camera(page_size: tuple[int, int], frame_size: tuple[int, int], u: float, t: float) -> np.ndarray:
    """The page-to-frame homography at share ``u`` of the clip (``t`` seconds in, for the hand's shake)."""
    pw, ph = page_size
    w, h = frame_size
    cx, zoom = view_at(u)
    fit = min(w / pw, h / ph) * 0.94
    k = fit * zoom
    # keep the view on the page at the ends of a close pan: the page's edge may show, not the table beyond it
    half = w / (2 * k)
    x = min(max(cx * pw, half - 0.04 * pw), pw - half + 0.04 * pw) if 2 * half < pw else pw / 2
    y = ph / 2 + 6 * math.sin(t * 1.7)
    angle = math.radians(2.0 * math.sin(t * 0.9))
    c, s = math.cos(angle), math.sin(angle)
    a = np.array([[k * c, -k * s, 0.0], [k * s, k * c, 0.0], [0.0, 0.0, 1.0]])
    a[:2, 2] = np.array([w / 2, h / 2]) - a[:2, :2] @ np.array([x + 8 * math.sin(t * 1.1), y])
    tilt = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [2e-5 * math.sin(t * 0.7), 1.5e-5, 1.0]])
    shift = np.array([[1.0, 0.0, w / 2], [0.0, 1.0, h / 2], [0.0, 0.0, 1.0]])
    back = np.array([[1.0, 0.0, -w / 2], [0.0, 1.0, -h / 2], [0.0, 0.0, 1.0]])
    return shift @ tilt @ back @ a


def in_view(quad: np.ndarray, w: int, h: int, margin: float = 2.0) -> bool:
    return bool((quad[:, 0] > margin).all() and (quad[:, 0] < w - margin).all()
                and (quad[:, 1] > margin).all() and (quad[:, 1] < h - margin).all())


def make(out: Path, *, seconds: float, size: tuple[int, int], fps: float, seed: int, split: str) -> Path:
    """Write the video and its truth; the truth's path."""
    rng = random.Random(seed)
    held = held_out_puzzles()
    photos = [p for p in load(DEFAULT_DIR / "printed") if (p.name in held) == (split == "held-out")
              and p.corners is not None]
    group = real_pages(photos, 1, 3, rng)[0]
    page = real_page(group, rng)
    solutions = [solve(parse_line(g), 5.0).solution for g in page.givens]
    w, h = size
    ph, pw = page.image.shape[:2]
    n_frames = int(round(seconds * fps))
    noise_rng = np.random.default_rng(seed)
    table = np.full((h, w, 3), TABLE, np.uint8)
    truth_path = out.with_suffix(".truth.jsonl")
    with VideoSink(out, (w, h), fps) as sink, truth_path.open("w") as truth:
        for i in range(n_frames):
            u, t = i / max(1, n_frames - 1), i / fps
            hm = camera((pw, ph), (w, h), u, t)
            frame = cv2.warpPerspective(page.image, hm, (w, h), flags=cv2.INTER_AREA,
                                        borderMode=cv2.BORDER_TRANSPARENT, dst=table.copy())
            noise = noise_rng.normal(0, 3, frame.shape)
            frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
            sink.write(frame)
            puzzles = []
            for j, (corners, givens, solution) in enumerate(zip(page.corners, page.givens, solutions)):
                quad = cv2.perspectiveTransform(corners.reshape(-1, 1, 2).astype(np.float64), hm).reshape(4, 2)
                puzzles.append({"index": j, "name": group[j].name, "corners": np.round(quad, 1).tolist(),
                                "visible": in_view(quad, w, h), "givens": givens, "solution": solution})
            truth.write(json.dumps({"frame": i, "puzzles": puzzles}) + "\n")
    return truth_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the video (.mp4); the truth goes beside it")
    ap.add_argument("--seconds", type=float, default=12.0, help="the whole clip")
    ap.add_argument("--size", type=frame_size, default="1280x720", help="WxH of the video")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split", choices=["held-out", "train"], default="held-out",
                    help="which side of the split by puzzle the photos come from (default held-out)")
    args = ap.parse_args(argv)
    w, h = args.size
    truth = make(args.out, seconds=args.seconds, size=(w, h), fps=args.fps, seed=args.seed, split=args.split)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) and {truth}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
