"""The frame loop's own work on tracked, solved frames: ``step`` and ``draw``, nothing else.

    python scripts/bench_frame.py                          # samples/demo.mp4, 3 rounds
    PYTHONPATH=/path/to/other/checkout python /path/to/this/scripts/bench_frame.py   # the same for another version

Frames are decoded first and kept in memory, no window, no encoder, no writer
thread: what remains is detection/tracking, the per-frame checks and the
overlay, so two versions of the code can be compared side by side on the same
frames (run one after the other, a few rounds each, on a noisy machine).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cv2

from ar_sudoku.ar.session import ARSession
from ar_sudoku.vision.digits import DigitReader

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", nargs="?", default=str(ROOT / "samples" / "demo.mp4"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    cap = cv2.VideoCapture(args.video)
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    reader = DigitReader()
    for k in range(args.rounds):
        step_ms, draw_ms = [], []
        with ARSession(reader) as session:
            for frame in frames:
                shown = frame.copy()
                t0 = time.perf_counter()
                result = session.step(shown)
                t1 = time.perf_counter()
                session.draw(shown, result)
                t2 = time.perf_counter()
                if result.solution:
                    step_ms.append((t1 - t0) * 1e3)
                    draw_ms.append((t2 - t1) * 1e3)
        print(f"round {k + 1}: {len(step_ms)} solved frames; median step {statistics.median(step_ms):.2f} ms, "
              f"draw {statistics.median(draw_ms):.2f} ms, together "
              f"{statistics.median(a + b for a, b in zip(step_ms, draw_ms)):.2f} ms")


if __name__ == "__main__":
    main()
