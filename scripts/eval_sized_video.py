"""4x4, 6x6 and 16x16 puzzles in video (issue 24): how soon each is answered, and never wrongly.

    python scripts/eval_sized_video.py                 # 3 pages of each kind, 60 frames each, 720p
    python scripts/eval_sized_video.py --pages 1 --frames 30 --seed 1

Each page is ``sized_pages.sized_page`` (a generated puzzle printed in a face the symbol model did not train
on, photographed), held in a hand for ``--frames`` frames at 30 fps (a few pixels of drift, a slight turn),
written as H.264 and read by the real command, ``ar-sudoku video PAGE.mp4 --headless --jsonl LOG``. Then a
second page of the same kind is swapped into the first's place under a steady camera for as many frames.

Reported per kind (box and printed style): the frame the answer is first drawn on (of each page), frames
with the answer drawn, frames with a wrong answer (not the page's own: the worst), and the median ``t_ms``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from ar_sudoku.io.sinks import VideoSink
from ar_sudoku.sudoku.solver import parse_line, solve
from clips import read_jsonl, run_video
from sized_pages import KINDS, sized_page

SIZE = (1280, 720)


def held(image: np.ndarray, frames: int, phase: float) -> list[np.ndarray]:
    """The page as a hand holds it: a few pixels of drift and a fraction of a degree of turn, frame by frame."""
    h, w = image.shape[:2]
    out = []
    for f in range(frames):
        t = phase + f / 30
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.6 * np.sin(1.3 * t), 1.0)
        m[:, 2] += (9 * np.sin(2.1 * t), 6 * np.cos(1.7 * t))
        out.append(cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
    return out


def swapped(first, second) -> np.ndarray:
    """The second page's puzzle warped onto the first's place: the same grid, other values."""
    hmat = cv2.getPerspectiveTransform(second.corners.astype(np.float32), first.corners.astype(np.float32))
    return cv2.warpPerspective(second.image, hmat, SIZE, dst=first.image.copy(), borderMode=cv2.BORDER_TRANSPARENT)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=3, help="pages of each kind (default 3)")
    ap.add_argument("--frames", type=int, default=60, help="frames each page is held (default 60)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(f"sized video {args.seed}")
    print(f"pages of other sizes held in view, then another swapped in ({args.pages} of each kind, "
          f"{args.frames} + {args.frames} frames, {SIZE[0]}x{SIZE[1]}; seed {args.seed})")
    with tempfile.TemporaryDirectory() as tmp:
        for box, style in KINDS:
            firsts, drawn, wrong, frames, times = [], 0, 0, 0, []
            for k in range(args.pages):
                a, b = sized_page(box, style, rng, size=SIZE), sized_page(box, style, rng, size=SIZE)
                truths = [solve(parse_line(p.givens, box=box), 10.0).solution for p in (a, b)]
                video = Path(tmp) / f"{k}.mp4"
                with VideoSink(video, SIZE, 30) as sink:
                    for frame in held(a.image, args.frames, rng.random() * 9) + held(swapped(a, b), args.frames, 0):
                        sink.write(frame)
                log = Path(tmp) / f"{k}.jsonl"
                run_video(video, log, "eval_sized_video")
                rows = read_jsonl(log)
                for half, truth in enumerate(truths):
                    part = rows[half * args.frames:(half + 1) * args.frames]
                    answers = [[p["solution"] for p in r["puzzles"] if p["solution"]] for r in part]
                    firsts.append(next((i for i, s in enumerate(answers) if truth in s), None))
                    drawn += sum(truth in s for s in answers)
                    wrong += sum(any(x != truth for x in s) for s in answers)
                    frames += len(part)
                times += [r["t_ms"] for r in rows]
            n = box[0] * box[1]
            shown = ", ".join("never" if f is None else str(f) for f in firsts)
            print(f"  {n}x{n} ({box[0]}x{box[1]} boxes, printed {style}): first answered on frame {shown}; "
                  f"answer drawn {drawn}/{frames} frames; wrong answers on {wrong} frames; "
                  f"t_ms median {statistics.median(times):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
