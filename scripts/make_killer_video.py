"""A killer page held in a moving hand: a video and its per-frame truth, for ``eval_killer_video.py`` and the tests.

A generated killer puzzle is printed by renderer A (the app's drawing) or B (``killer_renderer_b.py``, never
tuned on) and moved through the frame as a hand holding a newspaper moves it: a slow drift and turn, the
page tilting towards and away from the camera, breathing in size, with a small shake on top; lit unevenly,
with sensor noise. The truth beside it (``NAME.truth.jsonl``) has, per frame, the grid's corners, whether the
whole grid is in view, and the page's cages and solution.

    python scripts/make_killer_video.py --out /tmp/killer.mp4                  # 10 s, renderer B, held-out seed
    python scripts/make_killer_video.py --out /tmp/k.mp4 --renderer A --style dotted --seconds 3
    python scripts/make_killer_video.py --out /tmp/ks.mp4 --swap-at 5    # another puzzle swapped in at 5 s
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
from ar_sudoku.vision.synth import background
from clips import frame_size
from killer_pages import STYLES, KillerPage, inside_frame, page_a, puzzle
from killer_renderer_b import render

HELD_OUT_SEED = 90_062_000  # never tuned on


def page_for(renderer: str, style: str, seed: int, givens: int, look_seed: int | None = None) -> KillerPage:
    """The page of puzzle ``seed``, drawn as ``look_seed`` (default ``seed``) sets: another puzzle of one
    newspaper is another ``seed`` with the same ``look_seed``."""
    killer, solution = puzzle(seed, givens)
    rng = random.Random(seed if look_seed is None else look_seed)
    if renderer == "A":
        return page_a(killer, solution, style, rng)
    img, corners = render(killer, style, rng)
    return KillerPage(img, corners, killer, solution, style)


def camera(page: KillerPage, size: tuple[int, int], t: float, seconds: float, rng_phase: list[float]) -> np.ndarray:
    """The homography from the page to the frame at ``t`` seconds: the grid drifts, turns, tilts and shakes."""
    w, h = size
    u = t / max(seconds, 1e-6)
    side = h * (0.66 + 0.07 * math.sin(2 * math.pi * (0.15 * t + rng_phase[0])))
    cx = w / 2 + 0.12 * w * math.sin(2 * math.pi * (0.08 * t + rng_phase[1])) + 2.0 * math.sin(23 * t)
    cy = h / 2 + 0.05 * h * math.sin(2 * math.pi * (0.11 * t + rng_phase[2])) + 1.5 * math.cos(19 * t)
    angle = math.radians(12 * math.sin(2 * math.pi * (0.07 * t + rng_phase[3])) + 4 * u)
    tilt = 0.08 * math.sin(2 * math.pi * (0.13 * t + rng_phase[4]))
    s = side / 2
    quad = np.array([[-s * (1 - tilt), -s], [s * (1 - tilt), -s], [s * (1 + tilt), s], [-s * (1 + tilt), s]])
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    dst = inside_frame((quad @ rot.T + [cx, cy]).astype(np.float32), size, 0.02)  # the whole grid stays in view
    return cv2.getPerspectiveTransform(page.corners.astype(np.float32), dst)


def make(out: Path, *, renderer: str, style: str, seconds: float, size: tuple[int, int], fps: float,
         seed: int, givens: int, swap_at: float | None = None) -> Path:
    """Write the video and its truth; the truth's path. With ``swap_at`` (seconds), the page is swapped there
    for another puzzle of the same newspaper, in the same hand (same place and motion)."""
    page = first = page_for(renderer, style, seed, givens)
    second = page_for(renderer, style, seed + 1, givens, look_seed=seed) if swap_at is not None else first
    rng = random.Random(seed)
    phase = [rng.random() for _ in range(5)]
    w, h = size
    table = background(size, seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = (1 + 0.2 * (xx / w - 0.5) - 0.15 * (yy / h - 0.5))[..., None]
    noise = np.random.default_rng(seed)
    truth_path = out.with_suffix(".truth.jsonl")
    with VideoSink(out, (w, h), fps) as sink, truth_path.open("w") as truth:
        for i in range(int(round(seconds * fps))):
            page = second if swap_at is not None and i / fps >= swap_at else first
            cages = [{"sum": c.total, "cells": list(c.cells)} for c in page.killer.cages]
            hm = camera(page, size, i / fps, seconds, phase)
            frame = cv2.warpPerspective(page.image, hm, (w, h), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_TRANSPARENT, dst=table.copy())
            frame = cv2.GaussianBlur(frame.astype(np.float32) * light, (0, 0), 0.7)
            frame = np.clip(frame + noise.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
            sink.write(frame)
            quad = cv2.perspectiveTransform(page.corners.reshape(-1, 1, 2).astype(np.float64), hm).reshape(4, 2)
            seen = bool((quad[:, 0] > 2).all() and (quad[:, 0] < w - 2).all() and (quad[:, 1] > 2).all()
                        and (quad[:, 1] < h - 2).all())
            truth.write(json.dumps({"frame": i, "corners": np.round(quad, 1).tolist(), "visible": seen,
                                    "givens": page.killer.to_string(), "solution": page.solution,
                                    "cages": cages}) + "\n")
    return truth_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="the video (.mp4); its truth is written beside it")
    ap.add_argument("--renderer", choices=("A", "B"), default="B")
    ap.add_argument("--style", choices=tuple(STYLES), default="dashed")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--size", type=frame_size, default=(1280, 720), metavar="WxH")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=HELD_OUT_SEED)
    ap.add_argument("--givens", type=int, default=2, help="givens printed besides the cages (default 2)")
    ap.add_argument("--swap-at", type=float, metavar="S",
                    help="swap the page at S seconds for another puzzle of the same newspaper, in place")
    args = ap.parse_args(argv)
    truth = make(args.out, renderer=args.renderer, style=args.style, seconds=args.seconds, size=args.size,
                 fps=args.fps, seed=args.seed, givens=args.givens, swap_at=args.swap_at)
    print(f"wrote {args.out} and {truth}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
