"""Make a test video of a real room (issue 21): the light dims and a lamp comes on, a glare spot drifts
across the page, and the hand shakes in bursts of motion blur.

    python scripts/make_room_video.py --out /tmp/room.mp4                  # 3 held-out puzzles, 640x480, 30 s
    python scripts/make_room_video.py --out /tmp/r.mp4 --photos image10 --seconds 4
    python scripts/make_room_video.py --out /tmp/t.mp4 --split train --seed 3   # to tune on: 3 training puzzles
    python scripts/eval_room_video.py /tmp/room.mp4                        # what the real CLI makes of it

Material: held-out sudoku-photos (``photos.held_out_puzzles``) in their ``mixed`` version, written on
in red: every entry there is right, so any mistake the reader claims is a false alarm. Each puzzle gets
an equal share of the clip: the page slides into view held by a slightly moving hand, and over its share

  * the light: steady, then dims to a fifth (the camera's gain brings it back with a dim sensor's
    shot and read noise), then a warm lamp is switched on (a step, brighter and yellow);
  * a glare spot (a glossy page) drifts across the grid, its core as strong as the benchmark's
    readable glare and, for a moment in the middle, washing the page out (nothing to read there);
  * bursts of motion blur (a shaking hand: a 9-15 px streak on 640 for a third of a second);

then the page leaves and the table is empty for half a second. The truth (corners, givens, the
solution, whether the grid is wholly in view, the effects at that frame) is written beside the video
as ``.truth.jsonl``. Everything is seeded: the same options give the same video.

The held-out video is the report, not the place to tune: ``--split train`` makes the same kind of video
from the training side of the split, three puzzles the seed picks among the 640x480 mixed photos (each
a different puzzle, none stored turned), so tuning on several seeds sees several sets of puzzles.
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
from clips import frame_size
from photos import DEFAULT_DIR, held_out_puzzles, load, mixed_turn

DEFAULT_PHOTOS = ("image10", "image155", "image70")  # three held-out puzzles, 640x480 phone photos
TRAIN_PUZZLES = 3  # puzzles a --split train video shows
GAP = 0.5  # seconds of empty table between puzzles
SLIDE = 0.6  # seconds a page takes to slide in (and out)


def _dat(path: Path) -> str:
    lines = path.read_text().splitlines()[2:11]
    return "".join(t for ln in lines for t in ln.split()).replace("0", ".")


def _corners(photo: Path) -> np.ndarray:
    import csv

    with (photo.parent.parent / "outlines.csv").open() as f:
        for row in csv.DictReader(f):
            if row["filepath"] == f"printed/{photo.name}":
                return np.float32([[float(row[f"p{k}_x"]), float(row[f"p{k}_y"])] for k in range(1, 5)])
    raise KeyError(photo.name)


def load_page(name: str, data: Path = DEFAULT_DIR) -> tuple[np.ndarray, np.ndarray, str, str]:
    """(picture, grid corners, printed givens, every digit on the page) of a mixed photo not stored turned."""
    printed, mixed = data / "printed" / f"{name}.jpg", data / "mixed" / f"{name}.jpg"
    if not mixed.exists():
        raise SystemExit(f"make_room_video: {mixed} not found")
    if mixed_turn(printed, mixed) != 0:
        raise SystemExit(f"make_room_video: {mixed} is stored turned against its printed photo; pick another")
    img = cv2.imread(str(mixed), cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"make_room_video: {mixed} is not an image")
    return img, _corners(printed), _dat(printed.with_suffix(".dat")), _dat(mixed.with_suffix(".dat"))


def train_photos(seed: int, data: Path = DEFAULT_DIR) -> list[str]:
    """``TRAIN_PUZZLES`` training-side mixed photos picked by ``seed``: 640x480, not stored turned, each a
    different puzzle (``photos.held_out_puzzles`` holds out every photo of a puzzle together)."""
    held = held_out_puzzles(data / "printed")
    by_puzzle: dict[str, list[str]] = {}
    for ph in load(data / "printed"):
        mixed = data / "mixed" / ph.path.name
        if ph.name in held or ph.corners is None or not mixed.exists():
            continue
        img = cv2.imread(str(mixed), cv2.IMREAD_REDUCED_COLOR_2)
        if img is None or img.shape[:2] != (240, 320) or mixed_turn(ph.path, mixed) != 0:
            continue
        by_puzzle.setdefault(ph.givens, []).append(ph.name)
    rng = np.random.default_rng(seed)
    groups = sorted(by_puzzle.values())
    picked = rng.choice(len(groups), size=min(TRAIN_PUZZLES, len(groups)), replace=False)
    return [str(rng.choice(groups[g])) for g in picked]


def light_at(u: float) -> tuple[float, tuple[float, float, float], str]:
    """The light on the page at ``u`` (0..1 through a puzzle's share): level, colour gains (B, G, R), name."""
    if u < 0.2:
        return 1.0, (1.0, 1.0, 1.0), "steady"
    if u < 0.55:  # dimming to a fifth and back up a little
        v = (u - 0.2) / 0.35
        level = 1.0 - 0.8 * math.sin(math.pi * min(v * 1.4, 1.0) / 2) ** 2 + 0.2 * max(0.0, v - 0.75) / 0.25
        return level, (1.0, 1.0, 1.0), "dim"
    return 1.15, (0.78, 0.95, 1.08), "lamp"  # a warm lamp switched on


def glare_at(u: float) -> tuple[float, float] | None:
    """Where the glare is (0..1 across the grid) and its strength, or None."""
    if not 0.3 <= u <= 0.9:
        return None
    v = (u - 0.3) / 0.6
    peak = 1.3 if 0.45 <= v <= 0.55 else 0.75  # washed out for a moment in the middle of its path
    return v, peak


def shaking(i: int, fps: float) -> float:
    """The motion streak (px on 640) at frame i: bursts of a third of a second every 2.5 s."""
    t = i / fps
    phase = t % 2.5
    return 0.0 if phase > 0.33 else 9.0 + 6.0 * math.sin(7 * t) ** 2


def _streak(frame: np.ndarray, length: float, angle: float) -> np.ndarray:
    n = max(3, int(math.ceil(length)) | 1)
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    dx, dy = math.cos(angle) * length / 2, math.sin(angle) * length / 2
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA)
    return cv2.filter2D(frame, -1, k / k.sum())


def room(frame: np.ndarray, quad: np.ndarray | None, u: float, i: int, fps: float,
         rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """The frame as the camera delivers it in this room at ``u`` through the puzzle's share."""
    f = frame.astype(np.float32)
    h, w = f.shape[:2]
    s = max(h, w) / 640.0
    fx: dict = {}
    g = glare_at(u) if quad is not None else None
    if g is not None:  # a highlight drifting across the grid, diagonally
        v, peak = g
        x0, y0 = quad.min(axis=0)
        x1, y1 = quad.max(axis=0)
        cx, cy = x0 + (x1 - x0) * (0.1 + 0.8 * v), y0 + (y1 - y0) * (0.25 + 0.5 * v)
        side = float(np.mean([x1 - x0, y1 - y0]))
        a, b = 0.2 * side, 0.12 * side
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        uu, vv = (xx - cx) / a, (yy - cy) / b
        alpha = np.clip(peak * np.exp(-(uu * uu + vv * vv) / 2.0), 0, 1)[..., None]
        f = f * (1 - alpha) + 255.0 * alpha
        fx["glare"] = peak
    level, gains, light = light_at(u)
    if light != "steady":
        lin = (np.clip(f, 0, 255) / 255.0) ** 2.2 * level * np.float32(gains)
        if level < 0.7:  # little light: the sensor's shot and read noise, the gain brings the picture back
            electrons = 1200.0 * level
            lin = rng.poisson(np.clip(lin, 0, 1) * electrons).astype(np.float32) / electrons
            lin += rng.normal(0, 0.004, lin.shape).astype(np.float32)
            lin *= min(2.5, 0.8 / level)
        f = np.clip(lin, 0, 1) ** (1 / 2.2) * 255.0
        fx[light] = round(level, 2)
    out = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    streak = shaking(i, fps)
    if streak:
        out = _streak(out, streak * s, float(rng.uniform(0, math.pi)))
        fx["motion"] = round(streak, 1)
    return out, fx


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the video (.mp4); the truth goes beside it")
    ap.add_argument("--split", choices=("held-out", "train"), default="held-out",
                    help="the photos' side of the split: held-out (the report) or train (to tune on)")
    ap.add_argument("--photos", help="sudoku-photos names of that side, one a puzzle (default: held-out "
                    f"{','.join(DEFAULT_PHOTOS)}; train: {TRAIN_PUZZLES} the seed picks)")
    ap.add_argument("--seconds", type=float, default=30.0, help="the whole clip")
    ap.add_argument("--size", type=frame_size, default="640x480", help="WxH of the video")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    w, h = args.size
    held = held_out_puzzles()
    if args.photos is not None:
        names = [n.strip() for n in args.photos.split(",") if n.strip()]
    else:
        names = list(DEFAULT_PHOTOS) if args.split == "held-out" else train_photos(args.seed)
    if not names or any((n in held) != (args.split == "held-out") for n in names):
        side = "held-out" if args.split == "held-out" else "training"
        example = sorted(held)[:5] if args.split == "held-out" else train_photos(0)
        print(f"make_room_video: --photos must name {side} photos ({', '.join(example)}, ...)", file=sys.stderr)
        return 2
    pages = [load_page(n) for n in names]
    n_frames = int(args.seconds * args.fps)
    share = n_frames / len(pages)
    gap, slide = int(GAP * args.fps), int(SLIDE * args.fps)
    rng = np.random.default_rng(args.seed)
    back = np.full((h, w, 3), (70, 80, 90), np.uint8)
    cv2.randn(noise := np.zeros((h, w, 3), np.int16), 0, 6)
    back = np.clip(back.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    truth_path = args.out.with_suffix(".truth.jsonl")
    with VideoSink(args.out, (w, h), args.fps) as sink, truth_path.open("w") as truth:
        for i in range(n_frames):
            k = min(int(i / share), len(pages) - 1)
            j = i - k * share  # frame within this puzzle's share
            img, corners, givens, full = pages[k]
            ih, iw = img.shape[:2]
            scale = min(w / iw, h / ih) * 0.92
            t = i / args.fps
            # slide in from the right, leave to the left, a gap of empty table at the end of the share
            enter = min(1.0, j / slide)
            leave = max(0.0, (j - (share - gap - slide)) / slide)
            if leave >= 1.0:
                frame, quad, u = back.copy(), None, 1.0
            else:
                dx = w * (1.2 * (1 - enter) ** 2 - 1.2 * leave ** 2)
                m = cv2.getRotationMatrix2D((iw / 2, ih / 2), 4 * math.sin(t * 1.3), scale * (1 + 0.04 * math.sin(t)))
                m[0, 2] += w / 2 + dx + 12 * math.sin(t * 1.1) - iw / 2
                m[1, 2] += h / 2 + 8 * math.sin(t * 1.7) - ih / 2
                frame = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT,
                                       dst=back.copy())
                quad = corners @ m[:, :2].T + m[:, 2]
                u = j / max(1.0, share - gap)
            frame, fx = room(frame, quad, u, i, args.fps, rng)
            sink.write(frame)
            visible = bool(quad is not None and (quad[:, 0] > 2).all() and (quad[:, 0] < w - 2).all()
                           and (quad[:, 1] > 2).all() and (quad[:, 1] < h - 2).all())
            truth.write(json.dumps({"frame": i, "puzzle": names[k], "visible": visible,
                                    "corners": None if quad is None else np.round(quad, 1).tolist(),
                                    "givens": givens, "full": full, **fx}) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB, {n_frames} frames, {','.join(names)}) "
          f"and {truth_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
