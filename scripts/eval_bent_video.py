"""A curled page moving in a video: is the overlay right, and where are the crossings?

    python scripts/eval_bent_video.py                 # 1280x720, 150 frames, bow 2-6%
    python scripts/eval_bent_video.py --frames 300 --seed 2

A rendered puzzle on a page moves, turns and bends over time (a bow between
2% and 6% of the grid's side, the lean of a page turning away, written to an
H.264 file and read back), so the truth of every crossing on every frame is
known. The real session (``ARSession``) steps through it. Reported: eligible
frames (the whole grid in view), frames with the right solution drawn, frames
with a wrong one (a solution that is not this puzzle's, or drawn off the
grid: lattice error above a third of a cell), lattice error (median, p95)
over the frames drawn, and the session's median frame time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from ar_sudoku.ar.session import ARSession
from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.io.sources import open_source
from ar_sudoku.sudoku.generator import generate
from ar_sudoku.vision import lattice as L
from ar_sudoku.vision.digits import DigitReader
from ar_sudoku.vision.kinds import KindReader
from ar_sudoku.vision.synth import background, bend, page, place, quad


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    size = (1280, 720)
    p = generate("medium", seed=args.seed)
    img, corners = page(p.puzzle, seed=args.seed)
    back = background(size, args.seed)
    truths = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bent.mp4"
        with VideoSink(path, size, 30) as sink:
            for i in range(args.frames):
                t = i / max(1, args.frames - 1)
                q = quad((640 + 60 * np.sin(2.5 * t), 360 + 25 * np.cos(1.7 * t)), 470, 7 * np.sin(2 * t), 0.05)
                flat = place(img, corners, q, back, blur=0.7)
                frame, truth = bend(flat, q, 0.02 + 0.04 * np.sin(np.pi * t) ** 2, lean=0.06, axis=(i // 75) % 2)
                sink.write(frame)
                truths.append(truth)
        reader, kinds = DigitReader(), KindReader()
        drawn = wrong = eligible = 0
        errors: list[float] = []
        times: list[float] = []
        with open_source(str(path)) as src, ARSession(reader, kinds=kinds) as session:
            for frame, truth in zip(src, truths):
                r = session.step(frame)
                times.append(r.t_ms)
                h, w = frame.shape[:2]
                inside = bool((truth[..., 0] > 2).all() and (truth[..., 0] < w - 2).all()
                              and (truth[..., 1] > 2).all() and (truth[..., 1] < h - 2).all())
                eligible += inside
                if r.solution is None:
                    continue
                lat = r.lattice if r.lattice is not None else L.from_corners(r.corners)
                err = min((np.linalg.norm(L.rotate(lat, k) - truth, axis=2) for k in range(4)),
                          key=lambda e: float(e.mean()))
                cell = float(np.linalg.norm(truth[0, 0] - truth[9, 9])) / (9 * 2**0.5)
                if r.solution != p.solution or float(err.max()) > cell / 3:
                    wrong += 1
                else:
                    drawn += 1
                errors.extend(err.ravel().tolist())
    print(f"{args.frames} frames, {eligible} eligible (grid fully in view): overlay right on {drawn} "
          f"({drawn / max(eligible, 1):.1%}), wrong on {wrong}; lattice error median "
          f"{statistics.median(errors):.2f} px, p95 {np.percentile(errors, 95):.2f} px; "
          f"session median {statistics.median(times):.1f} ms a frame", file=sys.stdout)


if __name__ == "__main__":
    main()
